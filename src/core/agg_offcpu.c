// SPDX-License-Identifier: GPL-2.0-only
/*
 * --offcpu-stacks in the aggregator: each thread's stack it blocked on and
 * the waker that woke it, charged at the end of each blocked period to the
 * nodes open on the thread (include/iprof/offcpu.h).  Called by agg.c
 * (the records, the switches) and agg_tree.c (merges); below them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/offcpu.h"
#include "core/agg_int.h"

/*
 * A waker seen this long before the thread's blocking SWITCH_OUT still
 * counts (the wake-up raced the switch: sched_waking can fire while the
 * wakee is still on its CPU); an older one woke an earlier wait that
 * never blocked.  ns.
 */
#define OFF_WAKE_EARLY_NS 100000ull

/* Per thread: what the records said of its current or next wait. */
struct off_thr {
	uint64_t pend_ts; /* time of the OFFSTACK records in pend */
	struct off_stack pend; /* stack being received */
	struct off_stack upend; /* ... its user stack (IPROF_OFF_UPART) */
	struct off_stack cur; /* the stack of the blocked period now */
	struct off_stack ucur; /* ... its user stack */
	uint64_t wk_ts; /* time of the waker in wk; 0: none */
	struct off_waker wk; /* its ns and count unused */
};

static struct off_thr *thr_get(struct athread *t)
{
	if (!t->off)
		t->off = calloc(1, sizeof(*t->off));
	return t->off;
}

/* put_pair() - frames 2p and 2p+1 (0: none) of @s */
static void put_pair(struct off_stack *s, uint32_t p, uint64_t v0,
		     uint64_t v1)
{
	uint32_t i = 2 * p;

	if (i >= IPROF_OFF_FRAMES)
		return;
	s->ip[i] = v0;
	s->ip[i + 1] = v1;
	if (v0 && s->n < i + 1)
		s->n = i + 1;
	if (v1 && s->n < i + 2)
		s->n = i + 2;
}

static void on_waker(struct off_thr *o, const struct iprof_rec_val *v,
		     uint32_t part, uint64_t v0, uint64_t v1)
{
	if (part == 0) {
		memset(&o->wk, 0, sizeof(o->wk));
		o->wk_ts = v->ts ? v->ts : 1;
		o->wk.tid = (uint32_t)v0;
		o->wk.tgid = (uint32_t)(v0 >> 32);
		o->wk.ctx = (uint32_t)(v1 & 0xff);
		if (o->wk.ctx >= IPROF_CTX_MAX)
			o->wk.ctx = IPROF_CTX_TASK;
		if (o->wk.ctx != IPROF_CTX_TASK)
			o->wk.tid = o->wk.tgid = 0; /* any task it interrupted */
		return;
	}
	if (o->wk_ts != v->ts)
		return; /* its part 0 was lost */
	if (part == 1) {
		memcpy(o->wk.comm, &v0, 8);
		memcpy(o->wk.comm + 8, &v1, 8);
		o->wk.comm[IPROF_COMM_LEN - 1] = '\0';
		if (o->wk.ctx != IPROF_CTX_TASK)
			o->wk.comm[0] = '\0';
		return;
	}
	put_pair(&o->wk.stk, part - 2, v0, v1);
}

int agg_off_rec(struct agg *a, struct athread *t, const void *rec)
{
	struct iprof_rec_val v;
	struct off_thr *o;
	uint32_t part;
	uint64_t v0, v1;

	memcpy(&v, rec, sizeof(v));
	o = thr_get(t);
	if (!o) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	part = IPROF_VAL_PART(v.flags);
	v0 = v.lo0 | (uint64_t)v.hi0 << 32;
	v1 = v.lo1 | (uint64_t)v.hi1 << 32;
	if (v.type == IPROF_REC_WAKER) {
		on_waker(o, &v, part, v0, v1);
		return 0;
	}
	if (part == 0 || o->pend_ts != v.ts) {
		memset(&o->pend, 0, sizeof(o->pend));
		memset(&o->upend, 0, sizeof(o->upend));
		o->pend_ts = v.ts;
	}
	if (part >= IPROF_OFF_UPART)
		put_pair(&o->upend, part - IPROF_OFF_UPART, v0, v1);
	else
		put_pair(&o->pend, part, v0, v1);
	return 0;
}

void agg_off_out(struct athread *t, const struct iprof_rec *r)
{
	struct off_thr *o = t->off;

	if (!o)
		return;
	if (r->aux != IPROF_OFF_BLOCKED) {
		o->wk_ts = 0; /* a waker before a preemption woke no wait */
		return;
	}
	if (o->pend_ts == r->ts && (o->pend.n || o->upend.n)) {
		o->cur = o->pend;
		o->ucur = o->upend;
	} else {
		memset(&o->cur, 0, sizeof(o->cur));
		memset(&o->ucur, 0, sizeof(o->ucur));
	}
	o->pend_ts = 0;
	if (o->wk_ts && o->wk_ts + OFF_WAKE_EARLY_NS < r->ts)
		o->wk_ts = 0;
}

static int same_stack(const struct off_stack *x, const struct off_stack *y)
{
	return x->n == y->n && !memcmp(x->ip, y->ip, x->n * sizeof(x->ip[0]));
}

/* add_block() - @ns blocked on @stk over user stack @ustk of process
 * @tgid, @count periods, into @s */
static void add_block(struct off_set *s, const struct off_stack *stk,
		      const struct off_stack *ustk, uint32_t tgid, uint64_t ns,
		      uint64_t count)
{
	uint32_t i;

	if (!ustk->n)
		tgid = 0;
	for (i = 0; i < s->nblock; i++)
		if (same_stack(&s->block[i].stk, stk) &&
		    same_stack(&s->block[i].ustk, ustk) &&
		    s->block[i].tgid == tgid)
			break;
	if (i == s->nblock) {
		if ((!stk->n && !ustk->n) || i == OFF_TOP_MAX) {
			s->block_more_ns += ns;
			return;
		}
		s->block[i].stk = *stk;
		s->block[i].ustk = *ustk;
		s->block[i].tgid = tgid;
		s->block[i].ns = s->block[i].count = 0;
		s->nblock++;
	}
	s->block[i].ns += ns;
	s->block[i].count += count;
}

static int same_waker(const struct off_waker *x, const struct off_waker *y)
{
	return x->tid == y->tid && x->ctx == y->ctx &&
	       same_stack(&x->stk, &y->stk);
}

/* add_waker() - @ns ended by waker @w (NULL: not seen) into @s */
static void add_waker(struct off_set *s, const struct off_waker *w,
		      uint64_t ns, uint64_t count)
{
	uint32_t i;

	if (!w) {
		s->waker_more_ns += ns;
		return;
	}
	for (i = 0; i < s->nwaker; i++)
		if (same_waker(&s->waker[i], w))
			break;
	if (i == s->nwaker) {
		if (i == OFF_TOP_MAX) {
			s->waker_more_ns += ns;
			return;
		}
		s->waker[i] = *w;
		s->waker[i].ns = s->waker[i].count = 0;
		s->nwaker++;
	}
	s->waker[i].ns += ns;
	s->waker[i].count += count;
}

static struct off_set *set_get(struct agg_node *n)
{
	if (!n->off)
		n->off = calloc(1, sizeof(*n->off));
	return n->off;
}

int agg_off_in(struct agg *a, struct athread *t, uint64_t ns)
{
	struct off_thr *o = t->off;
	const struct off_waker *w;
	uint32_t i, j;

	if (!o)
		o = thr_get(t);
	if (!o) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	w = o->wk_ts ? &o->wk : NULL;
	for (i = 0; i < t->len; i++) {
		struct agg_node *n = t->stack[i].node;
		struct off_set *s;

		for (j = 0; j < i && t->stack[j].node != n; j++)
			;
		if (j < i)
			continue; /* charged once per node */
		s = set_get(n);
		if (!s) {
			a->stats.nomem++;
			return -ENOMEM;
		}
		add_block(s, &o->cur, &o->ucur, t->tgid, ns, 1);
		add_waker(s, w, ns, 1);
		s->charged_ns += ns;
	}
	o->wk_ts = 0;
	memset(&o->cur, 0, sizeof(o->cur));
	memset(&o->ucur, 0, sizeof(o->ucur));
	return 0;
}

void agg_off_free(struct agg_node *n)
{
	free(n->off);
	n->off = NULL;
}

void agg_off_thread_free(struct athread *t)
{
	free(t->off);
	t->off = NULL;
}

int agg_off_merge(struct agg_node *d, const struct agg_node *s)
{
	const struct off_set *x = s->off;
	struct off_set *y;
	uint32_t i;

	if (!x)
		return 0;
	y = set_get(d);
	if (!y)
		return -ENOMEM;
	for (i = 0; i < x->nblock; i++)
		add_block(y, &x->block[i].stk, &x->block[i].ustk,
			  x->block[i].tgid, x->block[i].ns, x->block[i].count);
	for (i = 0; i < x->nwaker; i++)
		add_waker(y, &x->waker[i], x->waker[i].ns, x->waker[i].count);
	y->block_more_ns += x->block_more_ns;
	y->waker_more_ns += x->waker_more_ns;
	y->charged_ns += x->charged_ns;
	return 0;
}

/* sorts: most time first, ties by position (qsort is not stable) */
static int cmp_ns(uint64_t a, uint64_t b, const void *x, const void *y)
{
	if (a != b)
		return a > b ? -1 : 1;
	return (const char *)x < (const char *)y ? -1 : 1;
}

static int cmp_block(const void *x, const void *y)
{
	const struct off_block *a = *(const struct off_block *const *)x;
	const struct off_block *b = *(const struct off_block *const *)y;

	return cmp_ns(a->ns, b->ns, a, b);
}

static int cmp_waker(const void *x, const void *y)
{
	const struct off_waker *a = *(const struct off_waker *const *)x;
	const struct off_waker *b = *(const struct off_waker *const *)y;

	return cmp_ns(a->ns, b->ns, a, b);
}

size_t off_sorted_blocks(const struct off_set *s,
			 const struct off_block **out)
{
	uint32_t i;

	if (!s)
		return 0;
	for (i = 0; i < s->nblock; i++)
		out[i] = &s->block[i];
	qsort(out, s->nblock, sizeof(*out), cmp_block);
	return s->nblock;
}

size_t off_sorted_wakers(const struct off_set *s,
			 const struct off_waker **out)
{
	uint32_t i;

	if (!s)
		return 0;
	for (i = 0; i < s->nwaker; i++)
		out[i] = &s->waker[i];
	qsort(out, s->nwaker, sizeof(*out), cmp_waker);
	return s->nwaker;
}
