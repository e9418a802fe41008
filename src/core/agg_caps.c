/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's caps (agg__set_limits(): --max-paths, --max-keys): a
 * new path at the path cap goes to [other] (agg_path_get()); nodes of --by
 * roots folded into [other] go to a free list and are reused (with their
 * histograms); --by roots with no live thread wait on an idle list, oldest
 * first, to be folded when a new root needs room.  A thread's set of
 * completed nodes only ever holds nodes below its current root, so a root
 * with no thread is referenced by nothing but the tree (agg_root_ref(),
 * agg_root_unref()).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

/* agg_other_get() - [other], created (whatever the cap) if new; NULL: ENOMEM */
struct agg_node *agg_other_get(struct agg *a)
{
	if (!a->other)
		a->other = agg_child_get(a, &a->root, AGG_OTHER_TIMER);
	return a->other;
}

/*
 * agg_make_room() - at the path cap, fold idle --by roots, oldest first, until
 * the tree is below the cap or none is idle.  Folding never adds nodes at
 * the cap (what does not fit is flattened into [other]).
 */
void agg_make_room(struct agg *a)
{
	while (at_cap(a) && a->idle_head)
		agg_fold_root(a, a->idle_head);
}

/*
 * agg_path_get() - the child of @parent for @timer; at the path cap, a new
 * path first folds idle --by roots (agg_make_room()), and if none is left is
 * [other] (counted in folded_paths).  NULL on ENOMEM.
 */
struct agg_node *agg_path_get(struct agg *a, struct agg_node *parent,
			  uint32_t timer)
{
	struct agg_node *n;

	if (parent->in_other && other_full(a)) {
		/* [other] keeps its share: flattened into [other] itself */
		n = agg_child_find(a, parent, timer);
		if (n)
			return n;
		a->stats.folded_paths++;
		return agg_other_get(a);
	}
	if (at_cap(a)) {
		n = agg_child_find(a, parent, timer);
		if (n)
			return n;
		/* old threads make room for new paths: fold the roots idle
		 * longest (never @parent's: a thread files under it) */
		agg_make_room(a);
		if (at_cap(a)) {
			a->stats.folded_paths++;
			return agg_other_get(a);
		}
	}
	return agg_child_get(a, parent, timer);
}

/*
 * node_release() - @n (unlinked from its parent's children, or about to be
 * with its parent) leaves the index and goes to the free list, zeroed,
 * with its histogram kept for reuse.
 */
static void node_release(struct agg *a, struct agg_node *n)
{
	struct hist *h = n->hist;

	agg_ntab_del(a, n);
	if (n->in_other)
		a->other_nodes--;
	if (h)
		memset(h, 0, sizeof(*h));
	agg_slow_free(n);
	agg_off_free(n);
	memset(n, 0, sizeof(*n));
	n->hist = h;
	n->next = a->free_nodes;
	a->free_nodes = n;
	a->stats.nodes--;
}

/*
 * fold_subtree() - merge @s (not in @dparent's subtree) and its
 * descendants into the child of @dparent for the same timer ([other] when
 * the tree is full), then free them.  Recursion depth: the tree's depth.
 */
static int fold_subtree(struct agg *a, struct agg_node *s,
			struct agg_node *dparent)
{
	struct agg_node *d, *c, *next;
	int err = 0;

	d = agg_child_find(a, dparent, s->timer);
	if (!d && !at_cap(a) && !other_full(a))
		d = agg_child_get(a, dparent, s->timer);
	if (!d) /* full (or ENOMEM): flattened into [other] itself */
		d = a->other;
	if (agg_merge_into(d, s))
		err = -ENOMEM;
	for (c = s->child; c; c = next) {
		next = c->next;
		if (fold_subtree(a, c, d))
			err = -ENOMEM;
	}
	node_release(a, s);
	return err;
}

static void idle_unlink(struct agg *a, struct agg_node *n)
{
	if (n->idle_prev)
		n->idle_prev->idle_next = n->idle_next;
	else if (a->idle_head == n)
		a->idle_head = n->idle_next;
	else
		return; /* not on the list */
	if (n->idle_next)
		n->idle_next->idle_prev = n->idle_prev;
	else
		a->idle_tail = n->idle_prev;
	n->idle_prev = n->idle_next = NULL;
}

/* A thread files under --by root @n (a split root; else nothing to do). */
void agg_root_ref(struct agg *a, struct agg_node *n)
{
	if (!n || !AGG_TIMER_IS_SPLIT(n->timer))
		return;
	if (!n->refs++)
		idle_unlink(a, n);
}

/* A thread no longer files under @n: with no thread left, it goes idle. */
void agg_root_unref(struct agg *a, struct agg_node *n)
{
	if (!n || !AGG_TIMER_IS_SPLIT(n->timer) || !n->refs)
		return;
	if (--n->refs)
		return;
	n->idle_next = NULL;
	n->idle_prev = a->idle_tail;
	if (a->idle_tail)
		a->idle_tail->idle_next = n;
	else
		a->idle_head = n;
	a->idle_tail = n;
}

/*
 * agg_fold_root() - fold the --by root @r (no thread files under it) into
 * [other]: its paths merged below [other], its nodes freed, its name slot
 * (--by comm) freed.  Returns 0 or -ENOMEM (part of a histogram lost).
 */
int agg_fold_root(struct agg *a, struct agg_node *r)
{
	struct agg_node **pp, *c, *next;
	uint32_t v = r->timer & ~0x80000000u;
	int err = 0;

	if (!agg_other_get(a))
		return -ENOMEM;
	idle_unlink(a, r);
	if (a->leaving == r)
		a->leaving = NULL;
	for (pp = &a->root.child; *pp != r; pp = &(*pp)->next)
		;
	*pp = r->next;
	r->next = NULL;
	/* the root's children merge into [other]'s; the root's own
	 * statistics (none: no frame is ever on a --by root) are dropped */
	for (c = r->child; c; c = next) {
		next = c->next;
		if (fold_subtree(a, c, a->other))
			err = -ENOMEM;
	}
	node_release(a, r);
	a->nkeys--;
	a->stats.folded_keys++;
	if (a->by == AGG_BY_COMM && v < a->ncomms)
		a->comms[v][0] = '\0'; /* free for another name */
	return err;
}

int agg__set_limits(struct agg *a, uint32_t max_paths, uint32_t max_keys)
{
	if (a->stats.records)
		return -EINVAL;
	a->max_paths = max_paths;
	a->max_keys = max_keys;
	return 0;
}

void agg__limits(const struct agg *a, uint32_t *max_paths, uint32_t *max_keys)
{
	*max_paths = a->max_paths;
	*max_keys = a->max_keys;
}
