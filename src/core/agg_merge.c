/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agg__merge(): one aggregator's tree added into another's (the shards of
 * --fold-threads, src/core/fold.c), node by node in first-seen order,
 * each node's statistics added by agg_merge_into() (agg_tree.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

/* seen_key() - a child's place in first-seen order (never seen: last) */
static inline uint64_t seen_key(const struct agg_node *n)
{
	return n->seen_ns ? n->seen_ns : UINT64_MAX;
}

/*
 * merge_seen() - merge two lists sorted by seen_key(), @older's nodes
 * first on ties (stable).  Returns the head.
 */
static struct agg_node *merge_seen(struct agg_node *older,
				   struct agg_node *newer)
{
	struct agg_node *head = NULL, **tail = &head, **p;

	while (older && newer) {
		p = seen_key(newer) < seen_key(older) ? &newer : &older;
		*tail = *p;
		tail = &(*p)->next;
		*p = (*p)->next;
	}
	*tail = older ? older : newer;
	return head;
}

/*
 * sort_seen() - order the children of @n and of its descendants by
 * seen_ns: a stable merge sort of each sibling list, so that a merged
 * tree keeps the order of one aggregator fed the records in time order.
 * Recursion depth: the tree's depth.
 */
static void sort_seen(struct agg_node *n)
{
	/* bottom-up: run[i] holds a sorted list of 2^i nodes or NULL, the
	 * higher the older */
	struct agg_node *c, *run[64] = {0}, *l;
	unsigned int i;

	for (c = n->child; c;) {
		l = c;
		c = c->next;
		l->next = NULL;
		for (i = 0; i < 63 && run[i]; i++) {
			l = merge_seen(run[i], l);
			run[i] = NULL;
		}
		run[i] = run[i] ? merge_seen(run[i], l) : l;
	}
	for (l = NULL, i = 0; i < 64; i++)
		if (run[i])
			l = merge_seen(run[i], l);
	n->child = l;
	for (c = n->child; c; c = c->next)
		sort_seen(c);
}

/*
 * merge_target() - the node of @a for the source node @s, whose parent's
 * node in @a is @dparent: the same path, created if new under @a's caps
 * (agg_path_get(), agg_key_root(): [other] beyond them).  A --by comm root is
 * matched by its name, the others by their timer id.  NULL on ENOMEM.
 */
static struct agg_node *merge_target(struct agg *a, const struct agg *src,
				     const struct agg_node *s,
				     struct agg_node *dparent)
{
	uint32_t v, t, tlen;
	uint64_t val;
	const char *text;

	if (!agg__name_of(src, s->timer, &t, &val)) {
		/* a named node: the same name's id in @a */
		if (!agg__name_text(src, s->timer, &t, &text, &tlen)) {
			v = agg_name_intern_text(a, t, text, tlen);
			agg_name_set_cut(a, v, agg__name_cut(src, s->timer));
		} else {
			v = agg_name_intern(a, t, val);
		}
		if (v == AGG_ROOT_TIMER)
			return NULL;
		if (v == AGG_OTHER_TIMER) {
			a->stats.folded_paths++;
			return agg_other_get(a);
		}
		return agg_path_get(a, dparent, v);
	}
	if (s->depth != 1)
		return agg_path_get(a, dparent, s->timer);
	if (s->timer == AGG_OTHER_TIMER)
		return agg_other_get(a);
	if (AGG_TIMER_IS_CTX(s->timer))
		return agg_child_get(a, &a->root, s->timer);
	if (!AGG_TIMER_IS_SPLIT(s->timer))
		return agg_path_get(a, dparent, s->timer);
	v = s->timer & ~0x80000000u;
	if (a->by != AGG_BY_COMM)
		return agg_key_root(a, v);
	return agg_comm_root(a, v < src->ncomms ? src->comms[v] : "?");
}

/*
 * merge_subtree() - add @s and its descendants to @a below @dparent.  A
 * --by root of @a is held (a reference, as a thread's) while its subtree
 * is merged, so that making room never folds it; it is idle afterwards
 * unless a thread of @a files under it.
 */
static int merge_subtree(struct agg *a, const struct agg *src,
			 const struct agg_node *s, struct agg_node *dparent)
{
	const struct agg_node *c;
	struct agg_node *d = merge_target(a, src, s, dparent);
	int err = 0;

	if (!d)
		return -ENOMEM;
	if (agg_merge_into(d, s))
		err = -ENOMEM;
	agg_root_ref(a, d);
	for (c = s->child; c; c = c->next)
		if (merge_subtree(a, src, c, d))
			err = -ENOMEM;
	agg_root_unref(a, d);
	return err;
}

int agg__merge(struct agg *dst, const struct agg *src)
{
	const struct agg_stats *s;
	struct agg_stats *d;
	const struct agg_node *c;
	int err = 0;
	uint32_t i;

	if (!dst || !src || dst == src || dst->ntimers != src->ntimers ||
	    dst->by != src->by)
		return -EINVAL;
	s = &src->stats;
	d = &dst->stats;
	for (i = 0; i < src->ntimers; i++)
		dst->started[i] |= src->started[i];
	for (c = src->root.child; c; c = c->next)
		if (merge_subtree(dst, src, c, &dst->root))
			err = -ENOMEM;
	sort_seen(&dst->root);

	d->records += s->records;
	d->starts += s->starts;
	d->forked += s->forked;
	d->stops += s->stops;
	d->exits += s->exits;
	d->switches += s->switches;
	d->irqs += s->irqs;
	d->malformed += s->malformed;
	d->resyncs += s->resyncs;
	d->discarded += s->discarded;
	d->skipped += s->skipped;
	d->unwound += s->unwound;
	d->execed += s->execed;
	d->exited += s->exited;
	d->missed_returns += s->missed_returns;
	d->hits += s->hits;
	d->threads_live += s->threads_live;
	d->threads_seen += s->threads_seen;
	d->mismatches += s->mismatches;
	d->nomem += s->nomem + (err != 0);
	d->folded_paths += s->folded_paths;
	d->folded_keys += s->folded_keys;
	d->pruned += s->pruned;
	d->kstarts += s->kstarts;
	d->kstops += s->kstops;
	d->kreplaced += s->kreplaced;
	d->kexpired += s->kexpired;
	d->kunmatched += s->kunmatched;
	d->kearly += s->kearly;
	d->name_mismatch += s->name_mismatch;
	d->name_faults += s->name_faults;
	return err;
}
