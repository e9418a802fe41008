/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's nodes: allocated from chunks (stable pointers) or taken
 * back from the free list of folded ones, linked as a tree in first-seen
 * order and indexed by (parent, timer) in an open-addressing hash
 * (agg_child_get(), agg_child_find(), agg_ntab_del()); and one node's statistics added
 * into another's (agg_merge_into(): folding a root into [other], merging
 * shards).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

static struct agg_node *node_alloc(struct agg *a)
{
	struct node_chunk *c = a->chunks;
	struct agg_node *n = a->free_nodes;

	if (n) {
		/* a folded node: zeroed when freed, its histogram kept */
		a->free_nodes = n->next;
		n->next = NULL;
		return n;
	}

	if (!c || c->used == NODE_CHUNK) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
	}
	return &c->n[c->used++];
}

static int ntab_grow(struct agg *a)
{
	uint32_t nbits = a->nbits + 1, mask = (1u << nbits) - 1, i, j;
	struct agg_node **tab, *n;

	tab = calloc((size_t)1 << nbits, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < (1u << a->nbits); i++) {
		n = a->ntab[i];
		if (!n)
			continue;
		j = node_hash(n->parent, n->timer, nbits);
		while (tab[j])
			j = (j + 1) & mask;
		tab[j] = n;
	}
	free(a->ntab);
	a->ntab = tab;
	a->nbits = nbits;
	return 0;
}

/*
 * agg_child_get() - the child of @parent for @timer, created (appended to the
 * children in first-seen order) if new.  NULL on ENOMEM.
 */
struct agg_node *agg_child_get(struct agg *a, struct agg_node *parent,
			   uint32_t timer)
{
	uint32_t mask = (1u << a->nbits) - 1, i;
	struct agg_node *n, **pp;

	for (i = node_hash(parent, timer, a->nbits); (n = a->ntab[i]);
	     i = (i + 1) & mask) {
		if (n->parent == parent && n->timer == timer)
			return n;
	}

	/* new path: not the steady state */
	if ((a->stats.nodes + 1) * 2 > (1u << a->nbits)) {
		if (ntab_grow(a))
			return NULL;
		mask = (1u << a->nbits) - 1;
		for (i = node_hash(parent, timer, a->nbits); a->ntab[i];
		     i = (i + 1) & mask)
			;
	}
	n = node_alloc(a);
	if (!n)
		return NULL;
	n->timer = timer;
	n->depth = parent->depth + 1;
	n->parent = parent;
	n->last_tid = NO_TID;
	n->in_other = parent->in_other || timer == AGG_OTHER_TIMER;
	if (parent->in_other)
		a->other_nodes++;
	for (pp = &parent->child; *pp; pp = &(*pp)->next)
		;
	*pp = n;
	a->ntab[i] = n;
	a->stats.nodes++;
	return n;
}

/* agg_child_find() - the child of @parent for @timer, or NULL. */
struct agg_node *agg_child_find(const struct agg *a, const struct agg_node *parent,
			    uint32_t timer)
{
	uint32_t mask = (1u << a->nbits) - 1, i;
	struct agg_node *n;

	for (i = node_hash(parent, timer, a->nbits); (n = a->ntab[i]);
	     i = (i + 1) & mask) {
		if (n->parent == parent && n->timer == timer)
			return n;
	}
	return NULL;
}

/* agg_ntab_del() - remove @n from the (parent, timer) index. */
void agg_ntab_del(struct agg *a, const struct agg_node *n)
{
	uint32_t mask = (1u << a->nbits) - 1, i, j, k;

	for (i = node_hash(n->parent, n->timer, a->nbits); a->ntab[i] != n;
	     i = (i + 1) & mask)
		;
	/* backward-shift deletion, as agg_thread_del() */
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!a->ntab[j])
			break;
		k = node_hash(a->ntab[j]->parent, a->ntab[j]->timer, a->nbits);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		a->ntab[i] = a->ntab[j];
		i = j;
	}
	a->ntab[i] = NULL;
}

/*
 * agg_merge_into() - add the statistics of @s to @d: sums, min/max, the wall
 * span, the histogram, and the mean and squared deviations (Chan, Golub
 * and LeVeque's pairwise update).  Returns 0 or -ENOMEM (histogram).
 */
int agg_merge_into(struct agg_node *d, const struct agg_node *s)
{
	uint64_t n = d->count + s->count;
	double delta;

	if (s->seen_ns && (!d->seen_ns || s->seen_ns < d->seen_ns))
		d->seen_ns = s->seen_ns;
	if (s->count) {
		if (!d->count || s->min_ns < d->min_ns)
			d->min_ns = s->min_ns;
		if (!d->count || s->max_ns > d->max_ns)
			d->max_ns = s->max_ns;
		if (!d->count || s->first_start_ns < d->first_start_ns)
			d->first_start_ns = s->first_start_ns;
		if (!d->count || s->last_stop_ns > d->last_stop_ns)
			d->last_stop_ns = s->last_stop_ns;
		delta = s->mean_ns - d->mean_ns;
		d->m2_ns += s->m2_ns + delta * delta * (double)d->count *
					       (double)s->count / (double)n;
		d->mean_ns += delta * (double)s->count / (double)n;
	}
	d->count = n;
	d->total_ns += s->total_ns;
	d->self_ns += s->self_ns;
	d->raw_total_ns += s->raw_total_ns;
	d->raw_self_ns += s->raw_self_ns;
	d->uncertain += s->uncertain;
	d->dominated += s->dominated;
	d->clamped_ns += s->clamped_ns;
	d->err_var_ns2 += s->err_var_ns2;
	d->err_sys_ns += s->err_sys_ns;
	d->self_err_var_ns2 += s->self_err_var_ns2;
	d->self_err_sys_ns += s->self_err_sys_ns;
	d->threads += s->threads;
	d->exited += s->exited;
	d->exited_ns += s->exited_ns;
	d->oncpu_ns += s->oncpu_ns;
	d->runq_ns += s->runq_ns;
	d->runq_out_ns += s->runq_out_ns;
	d->blocked_ns += s->blocked_ns;
	d->irq_ns += s->irq_ns;
	d->unwound += s->unwound;
	d->execed += s->execed;
	d->missed_returns += s->missed_returns;
	d->hits += s->hits;
	for (int k = 0; k < AGG_MAX_STOPS; k++)
		d->stops[k] += s->stops[k];
	d->name_mismatch += s->name_mismatch;
	d->discarded += s->discarded;
	d->replaced += s->replaced;
	d->expired += s->expired;
	d->incomplete += s->incomplete;
	d->incomplete_ns += s->incomplete_ns;
	if (agg_slow_merge(d, s) || agg_off_merge(d, s))
		return -ENOMEM;
	if (!s->hist)
		return 0;
	if (!d->hist)
		d->hist = calloc(1, sizeof(*d->hist));
	if (!d->hist)
		return -ENOMEM;
	hist_merge(d->hist, s->hist);
	return 0;
}
