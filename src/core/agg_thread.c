/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's threads: an open-addressing hash tid -> struct athread
 * (linear probing, backward-shift deletion, shrunk as threads go) with a
 * one-entry cache of the last thread looked up (agg_thread_get()), and a
 * thread's root, found at its first record and anew after a rename, an
 * exec or a fold (agg_thread_root()).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

static int ttab_resize(struct agg *a, uint32_t nbits)
{
	uint32_t mask = (1u << nbits) - 1, i, j;
	struct tslot *tab;

	tab = calloc((size_t)1 << nbits, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < (1u << a->tbits); i++) {
		if (!a->ttab[i].t)
			continue;
		j = hash_u32(a->ttab[i].tid, nbits);
		while (tab[j].t)
			j = (j + 1) & mask;
		tab[j] = a->ttab[i];
	}
	free(a->ttab);
	a->ttab = tab;
	a->tbits = nbits;
	return 0;
}

/*
 * agg_thread_get() - the state of thread @tid; if unknown, created when
 * @create, else NULL.  NULL with @create means ENOMEM.
 */
struct athread *agg_thread_get(struct agg *a, uint32_t tid, int create)
{
	uint32_t mask = (1u << a->tbits) - 1, i;
	struct athread *t = a->last;

	if (t && t->tid == tid)
		return t;
	for (i = hash_u32(tid, a->tbits); a->ttab[i].t; i = (i + 1) & mask) {
		if (a->ttab[i].tid == tid) {
			a->last = a->ttab[i].t;
			return a->last;
		}
	}
	if (!create)
		return NULL;

	if ((a->stats.threads_live + 1) * 2 > (1u << a->tbits)) {
		if (ttab_resize(a, a->tbits + 1))
			return NULL;
		mask = (1u << a->tbits) - 1;
		for (i = hash_u32(tid, a->tbits); a->ttab[i].t;
		     i = (i + 1) & mask)
			;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->stack = malloc(STACK_MIN * sizeof(*t->stack));
	if (!t->stack) {
		free(t);
		return NULL;
	}
	t->cap = STACK_MIN;
	t->tid = tid;
	t->off_kind = -1;
	a->ttab[i].tid = tid;
	a->ttab[i].t = t;
	a->last = t;
	a->stats.threads_live++;
	a->stats.threads_seen++;
	return t;
}

/* done_clear() - forget the nodes @t completed (its root changes). */
static void done_clear(struct athread *t)
{
	uint32_t i;

	for (i = 0; t->done.bits && i < (1u << t->done.bits); i++) {
		struct agg_node *n = t->done.slot[i];

		if (n && n->last_tid == t->tid)
			n->last_tid = NO_TID;
	}
	agg_nodeset_clear(&t->done);
}

void agg_thread_destroy(struct athread *t)
{
	uint32_t i;

	for (i = 0; t->done.bits && i < (1u << t->done.bits); i++) {
		struct agg_node *n = t->done.slot[i];

		/* a later thread reusing this tid is a new thread */
		if (n && n->last_tid == t->tid)
			n->last_tid = NO_TID;
	}
	free(t->done.slot);
	free(t->done.val);
	free(t->stack);
	free(t->slow);
	free(t->ntext);
	agg_off_thread_free(t);
	free(t);
}

/* agg_thread_del() - remove @t from the hash and free it. */
void agg_thread_del(struct agg *a, struct athread *t)
{
	uint32_t mask = (1u << a->tbits) - 1, i, j, k;

	for (i = hash_u32(t->tid, a->tbits); a->ttab[i].t != t;
	     i = (i + 1) & mask)
		;
	/* backward-shift deletion: no tombstones */
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!a->ttab[j].t)
			break;
		k = hash_u32(a->ttab[j].tid, a->tbits);
		/* the entry at j stays if its home k is cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		a->ttab[i] = a->ttab[j];
		i = j;
	}
	a->ttab[i].t = NULL;
	a->ttab[i].tid = 0;

	if (a->last == t)
		a->last = NULL;
	agg_root_unref(a, t->root);
	agg_thread_destroy(t);
	a->stats.threads_live--;

	/* shrink after a burst of threads; failure just keeps the table */
	if (a->tbits > THREAD_TAB_BITS &&
	    a->stats.threads_live * 8 < (1u << a->tbits))
		ttab_resize(a, a->tbits - 1);
}

/*
 * agg_thread_root() - find @t's root (the parent of its depth-1 frames) at its
 * first record, or anew after a rename, an exec or a fold (@r a START in
 * task context with no frame open).  Returns 0, or -ENOMEM (counted; @t
 * freed).
 */
int agg_thread_root(struct agg *a, struct athread *t, const struct iprof_rec *r)
{
	if (!t->root || (t->reroot && !t->len && r->type == IPROF_REC_START &&
			 !(r->flags & IPROF_F_CTX))) {
		struct agg_node *old = t->root, *root;

		t->tgid = r->tgid;
		/* leave the old root first: idle, it may be folded to make
		 * room for the new one.  The set of completed nodes stays
		 * below the root: cleared when the root changes */
		agg_root_unref(a, old);
		t->root = NULL;
		a->leaving = old;
		root = r->flags & IPROF_F_CTX ?
			       agg_child_get(a, &a->root, (uint32_t)r->tid) :
			       agg_split_root(a, t);
		if (a->leaving != old || root != old)
			done_clear(t);
		a->leaving = NULL;
		if (!root) {
			a->stats.nomem++;
			agg_thread_del(a, t);
			return -ENOMEM;
		}
		t->reroot = 0;
		agg_root_ref(a, root);
		t->root = root;
		seen(root, r->ts);
	}
	return 0;
}
