/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of agg__merge() (src/core/agg_merge.c) and of sharded
 * folding over threads (src/core/fold.c): a record stream folded into one
 * aggregator must give the same tree and statistics as the same stream
 * split by thread over several aggregators (shards) merged into one.  The
 * streams are pseudo-random but valid per thread (nested timers, switches,
 * interrupts, unwinds, exits, renames, interrupt contexts), with a few
 * malformed and out-of-sync records, timestamps strictly increasing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/agg.h"
#include "iprof/fold.h"
#include "iprof/stream.h"
#include "rec.h"

#define NTIMERS 5
#define NTHREADS 12
#define NCPUS 3
#define MAXDEPTH 5

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 33) % n;
}

struct sim {
	uint32_t timer[MAXDEPTH];
	uint32_t depth;
	int named; /* its COMM was sent */
	int off; /* switched out */
	int irq; /* in an interrupt */
	uint16_t cpu; /* where it runs: the ring of its records */
};

/* a stream of 32-byte records (struct iprof_rec or iprof_rec_comm) */
struct recs {
	struct iprof_rec *r;
	uint16_t *ring; /* each record's ring (CPU) */
	size_t n, cap;
	uint64_t ts;
	uint16_t cur; /* the ring of the next record */
};

static struct iprof_rec *emit(struct recs *s, uint8_t type, uint8_t flags,
			      uint32_t timer, uint32_t tid, uint16_t depth,
			      uint16_t cpu, uint32_t aux)
{
	struct iprof_rec *r;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->r = realloc(s->r, s->cap * sizeof(*s->r));
		s->ring = realloc(s->ring, s->cap * sizeof(*s->ring));
		assert_non_null(s->r);
		assert_non_null(s->ring);
	}
	s->ring[s->n] = s->cur;
	r = &s->r[s->n++];
	s->ts += 1 + rnd(1000);
	*r = (struct iprof_rec){
		.type = type,
		.flags = flags,
		.size = sizeof(*r),
		.timer = timer,
		.tid = tid,
		.tgid = 100 + tid % 3, /* three processes */
		.ts = s->ts,
		.depth = depth,
		.cpu = cpu,
		.aux = aux,
	};
	return r;
}

static void emit_comm(struct recs *s, uint32_t tid, const char *name)
{
	struct iprof_rec_comm c = {
		.type = IPROF_REC_COMM,
		.size = sizeof(c),
		.tid = tid,
		.tgid = 100 + tid % 3,
	};
	struct iprof_rec *r = emit(s, 0, 0, 0, 0, 0, 0, 0);

	_Static_assert(sizeof(c) == sizeof(*r), "records of 32 bytes");
	snprintf(c.comm, sizeof(c.comm), "%s", name);
	memcpy(r, &c, sizeof(c));
}

/* generate() - @n steps of NTHREADS threads and NCPUS interrupt contexts */
static void generate(struct recs *s, size_t n, uint64_t seed)
{
	struct sim th[NTHREADS] = {0}, ctx[NCPUS] = {0};
	char name[16];
	size_t i;

	rng_state = seed;
	for (i = 0; i < n; i++) {
		uint32_t k = rnd(NTHREADS + 1), tid = 10 + k, what = rnd(100);
		struct sim *t = &th[k < NTHREADS ? k : 0];

		if (k == NTHREADS) { /* a hardirq on some CPU runs timers */
			uint16_t cpu = (uint16_t)rnd(NCPUS);
			struct sim *c = &ctx[cpu];

			s->cur = cpu;
			if (c->depth && (what < 50 || c->depth == MAXDEPTH)) {
				emit(s, IPROF_REC_STOP, IPROF_F_CTX,
				     c->timer[c->depth - 1], 0, c->depth, cpu,
				     IPROF_CTX_HARDIRQ);
				c->depth--;
			} else if (what < 95) {
				c->timer[c->depth++] = rnd(NTIMERS);
				emit(s, IPROF_REC_START, IPROF_F_CTX,
				     c->timer[c->depth - 1], 0, c->depth, cpu,
				     IPROF_CTX_HARDIRQ);
			} else {
				emit(s, IPROF_REC_UNWIND, IPROF_F_CTX, 0, 0, 0,
				     cpu, IPROF_CTX_HARDIRQ);
				c->depth = 0;
			}
			continue;
		}
		s->cur = t->cpu;
		if (t->off) { /* off-CPU, a thread does nothing but come back */
			t->cpu = (uint16_t)rnd(NCPUS); /* maybe another CPU */
			s->cur = t->cpu;
			emit(s, IPROF_REC_SWITCH_IN, 0, 0, tid, 0, 0, 0);
			t->off = 0;
			continue;
		}
		if (t->irq) { /* interrupted: the interrupt ends first */
			emit(s, IPROF_REC_IRQ_EXIT, 0, 0, tid, 0, 0,
			     IPROF_CTX_SOFTIRQ);
			t->irq = 0;
			continue;
		}
		if (!t->named || what == 99) { /* a name, or a rename */
			snprintf(name, sizeof(name), "w%u", (tid + what) % 4);
			emit_comm(s, tid, name);
			t->named = 1;
			continue;
		}
		if (what < 35 && t->depth < MAXDEPTH) {
			t->timer[t->depth++] = rnd(NTIMERS);
			emit(s, IPROF_REC_START, 0, t->timer[t->depth - 1], tid,
			     t->depth, 0, 0);
		} else if (what < 65 && t->depth) {
			emit(s, IPROF_REC_STOP, 0, t->timer[t->depth - 1], tid,
			     t->depth, 0, 0);
			t->depth--;
		} else if (what < 68 && t->depth >= 2) {
			/* an outer timer stops first: the inner one unwound */
			t->depth--;
			emit(s, IPROF_REC_STOP, 0, t->timer[t->depth - 1], tid,
			     t->depth, 0, 0);
			t->depth--;
		} else if (what < 76) {
			emit(s, IPROF_REC_SWITCH_OUT, 0, 0, tid, 0, 0, rnd(2));
			t->off = 1;
		} else if (what < 82) {
			emit(s, IPROF_REC_IRQ_ENTER, 0, 0, tid, 0, 0,
			     IPROF_CTX_SOFTIRQ);
			t->irq = 1;
		} else if (what < 84 && t->depth) {
			emit(s, IPROF_REC_RETURNED, 0, t->timer[t->depth - 1],
			     tid, t->depth, 0, 0);
			t->depth--;
		} else if (what < 86 && t->depth) {
			emit(s, IPROF_REC_LEFT, 0, t->timer[t->depth - 1], tid,
			     t->depth, 0, 0);
			t->depth--;
		} else if (what < 87 && t->depth) {
			emit(s, IPROF_REC_EXECED, 0, t->timer[0], tid, 1, 0, 0);
			memmove(&t->timer[0], &t->timer[1],
				(t->depth - 1) * sizeof(t->timer[0]));
			t->depth--;
		} else if (what < 88) {
			emit(s, IPROF_REC_UNWIND, 0, 0, tid, 0, 0, 0);
			t->depth = 0;
		} else if (what < 89) {
			/* lost records: a resync, the thread starts anew */
			emit(s, IPROF_REC_START, IPROF_F_RESYNC, rnd(NTIMERS),
			     tid, 1, 0, 0);
			t->timer[0] = s->r[s->n - 1].timer;
			t->depth = 1;
		} else if (what < 90) {
			/* out of sync: a depth the thread does not have */
			emit(s, IPROF_REC_STOP, 0, 0, tid, MAXDEPTH + 1, 0, 0);
			t->depth = 0;
		} else if (what < 91) {
			emit(s, IPROF_REC_START, 0, NTIMERS, tid, 1, 0, 0);
		} else if (what < 93) {
			/* the thread exits; its tid comes back as a new one */
			uint16_t cpu = t->cpu;

			emit(s, IPROF_REC_EXIT, 0, 0, tid, 0, 0, 0);
			/* the new thread's name follows on the same CPU (BPF
			 * sends it before its first timer, where it runs) */
			memset(t, 0, sizeof(*t));
			t->cpu = cpu;
		}
	}
}

/* shard_of() - the shard of a record: by thread, interrupt contexts by
 * context and CPU (as agg__push() keys them) */
static unsigned int shard_of(const struct iprof_rec *r, unsigned int nshards)
{
	uint32_t key = r->tid;

	if (r->type != IPROF_REC_COMM && (r->flags & IPROF_F_CTX))
		key = AGG_CTX_TIMER(r->aux, r->cpu);
	return (key * 0x9e3779b1u >> 7) % nshards;
}

static struct agg *new_agg(enum agg_by by)
{
	struct agg *a = agg__new(NTIMERS);

	assert_non_null(a);
	assert_int_equal(agg__set_by(a, by), 0);
	return a;
}

/* compensated (agg__set_costs()): merged times must be the whole stream's */
static const struct agg_cost costs[NTIMERS] = {
	[0] = { 11, 22, 33, 44, 0 }, [1] = { 5, 6, 7, 8, 0 },
	[2] = { 1, 2, 3, 4, 0 },     [3] = { 0, 0, 0, 0, AGG_COST_UNKNOWN },
	[4] = { 100, 0, 100, 0, 0 },
};

static struct agg *new_agg_costs(enum agg_by by)
{
	struct agg *a = new_agg(by);

	assert_int_equal(agg__set_costs(a, costs), 0);
	return a;
}

static struct fold *fold_costs(unsigned int n, enum agg_by by)
{
	struct fold *f = fold__new(n, NTIMERS, by, 0, 0);

	assert_non_null(f);
	assert_int_equal(fold__set_costs(f, costs), 0);
	return f;
}

static void push_all(struct agg *a, const struct iprof_rec *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		agg__push(a, &r[i], sizeof(r[i])); /* some are malformed */
}

static void assert_close(double x, double y)
{
	double tol = 1e-9 * fmax(1.0, fmax(fabs(x), fabs(y)));

	if (fabs(x - y) > tol)
		fail_msg("%.17g != %.17g", x, y);
}

static uint64_t slot(const struct hist *h, unsigned int i)
{
	return h ? h->slot[i] : 0;
}

/* assert_same_tree() - every field of every node, in the same order */
static void assert_same_tree(const struct agg *x, const struct agg_node *a,
			     const struct agg *y, const struct agg_node *b)
{
	static const double qs[] = {0.5, 0.9, 0.99, 1.0};
	char la[32], lb[32];
	unsigned int i;

	assert_int_equal(a->timer == AGG_OTHER_TIMER ||
				 !AGG_TIMER_IS_SPLIT(a->timer),
			 b->timer == AGG_OTHER_TIMER ||
				 !AGG_TIMER_IS_SPLIT(b->timer));
	if (AGG_TIMER_IS_SPLIT(a->timer) && a->timer != AGG_OTHER_TIMER)
		assert_string_equal(agg__split_name(x, a->timer, la, 32),
				    agg__split_name(y, b->timer, lb, 32));
	else
		assert_int_equal(a->timer, b->timer);
	assert_int_equal(a->depth, b->depth);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->total_ns, b->total_ns);
	assert_int_equal(a->self_ns, b->self_ns);
	assert_int_equal(a->min_ns, b->min_ns);
	assert_int_equal(a->max_ns, b->max_ns);
	assert_int_equal(a->first_start_ns, b->first_start_ns);
	assert_int_equal(a->last_stop_ns, b->last_stop_ns);
	assert_int_equal(a->threads, b->threads);
	assert_int_equal(a->exited, b->exited);
	assert_int_equal(a->exited_ns, b->exited_ns);
	assert_int_equal(a->raw_total_ns, b->raw_total_ns);
	assert_int_equal(a->raw_self_ns, b->raw_self_ns);
	assert_int_equal(a->uncertain, b->uncertain);
	assert_int_equal(a->dominated, b->dominated);
	for (i = 0; i < HIST_SLOTS; i++)
		assert_int_equal(slot(a->hist, i), slot(b->hist, i));
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		assert_int_equal(
			hist_quantile(a->hist, a->count, qs[i], a->min_ns,
				      a->max_ns),
			hist_quantile(b->hist, b->count, qs[i], b->min_ns,
				      b->max_ns));
	assert_close(a->mean_ns, b->mean_ns);
	assert_close(a->m2_ns, b->m2_ns);
	assert_int_equal(a->oncpu_ns, b->oncpu_ns);
	assert_int_equal(a->runq_ns, b->runq_ns);
	assert_int_equal(a->blocked_ns, b->blocked_ns);
	assert_int_equal(a->irq_ns, b->irq_ns);
	assert_int_equal(a->unwound, b->unwound);
	assert_int_equal(a->execed, b->execed);
	assert_int_equal(a->missed_returns, b->missed_returns);
	assert_int_equal(a->discarded, b->discarded);
	assert_int_equal(a->incomplete, b->incomplete);
	assert_int_equal(a->incomplete_ns, b->incomplete_ns);
	for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
		assert_same_tree(x, a, y, b);
	assert_null(a);
	assert_null(b);
}

static void assert_same(const struct agg *x, const struct agg *y)
{
	const struct agg_stats *a = agg__stats(x), *b = agg__stats(y);

	assert_same_tree(x, agg__root(x), y, agg__root(y));
	assert_int_equal(a->records, b->records);
	assert_int_equal(a->starts, b->starts);
	assert_int_equal(a->stops, b->stops);
	assert_int_equal(a->exits, b->exits);
	assert_int_equal(a->switches, b->switches);
	assert_int_equal(a->irqs, b->irqs);
	assert_int_equal(a->malformed, b->malformed);
	assert_int_equal(a->resyncs, b->resyncs);
	assert_int_equal(a->discarded, b->discarded);
	assert_int_equal(a->skipped, b->skipped);
	assert_int_equal(a->unwound, b->unwound);
	assert_int_equal(a->execed, b->execed);
	assert_int_equal(a->missed_returns, b->missed_returns);
	assert_int_equal(a->threads_live, b->threads_live);
	assert_int_equal(a->threads_seen, b->threads_seen);
	assert_int_equal(a->nodes, b->nodes);
	assert_int_equal(a->mismatches, b->mismatches);
	assert_int_equal(a->nomem, b->nomem);
	assert_int_equal(a->folded_paths, b->folded_paths);
	assert_int_equal(a->folded_keys, b->folded_keys);
	assert_int_equal(a->pruned, b->pruned);
	for (uint32_t t = 0; t < NTIMERS; t++)
		assert_int_equal(agg__timer_started(x, t),
				 agg__timer_started(y, t));
}

/*
 * check_split() - the stream in one aggregator vs split over @nshards
 * merged: into a fresh aggregator, and into shard 0 itself.
 */
static void check_split(const struct recs *s, enum agg_by by,
			unsigned int nshards)
{
	struct agg *one = new_agg_costs(by), *sh[4], *m = new_agg(by);
	uint64_t now = s->ts + 5000;
	unsigned int k, busy = 0;
	size_t i;

	assert_true(nshards <= 4);
	for (k = 0; k < nshards; k++)
		sh[k] = new_agg_costs(by);
	push_all(one, s->r, s->n);
	for (i = 0; i < s->n; i++)
		agg__push(sh[shard_of(&s->r[i], nshards)], &s->r[i],
			  sizeof(s->r[i]));
	agg__snapshot(one, now);
	for (k = 0; k < nshards; k++) {
		agg__snapshot(sh[k], now);
		busy += agg__stats(sh[k])->records > 0;
		assert_int_equal(agg__merge(m, sh[k]), 0);
	}
	assert_int_equal(busy, nshards); /* every shard had work */
	/* the stream exercised what it should */
	assert_true(agg__stats(one)->unwound > 0);
	assert_true(agg__stats(one)->discarded > 0);
	assert_true(agg__stats(one)->malformed > 0);
	assert_true(agg__stats(one)->threads_live > 0);
	assert_true(agg__stats(one)->execed > 0);
	assert_true(agg__stats(one)->missed_returns > 0);
	assert_true(agg__stats(one)->resyncs > 0);
	assert_true(agg__stats(one)->mismatches > 0);
	assert_true(agg__stats(one)->exits > 0);
	assert_true(agg__root(one)->child->next != NULL);
	assert_same(one, m);

	for (k = 1; k < nshards; k++)
		assert_int_equal(agg__merge(sh[0], sh[k]), 0);
	assert_same(one, sh[0]);

	for (k = 0; k < nshards; k++)
		agg__free(sh[k]);
	agg__free(m);
	agg__free(one);
}

static void test_merge_shards(void **state)
{
	static const enum agg_by bys[] = {AGG_BY_NONE, AGG_BY_TID, AGG_BY_TGID,
					  AGG_BY_COMM};
	struct recs s = {0};
	unsigned int b, n;

	(void)state;
	s.ts = 1000000;
	generate(&s, 20000, 0x1234567887654321ull);
	for (b = 0; b < sizeof(bys) / sizeof(bys[0]); b++)
		for (n = 1; n <= 4; n++)
			check_split(&s, bys[b], n);
	free(s.r);
	free(s.ring);
}

/* a merge into an empty aggregator copies; an empty one adds nothing */
static void test_merge_empty(void **state)
{
	struct agg *src = new_agg(AGG_BY_COMM), *dst = new_agg(AGG_BY_COMM),
		   *empty = new_agg(AGG_BY_COMM), *d2 = new_agg(AGG_BY_COMM),
		   *e2 = new_agg(AGG_BY_COMM);
	struct recs s = {0};

	(void)state;
	generate(&s, 3000, 42);
	push_all(src, s.r, s.n);
	push_all(d2, s.r, s.n);
	agg__snapshot(src, s.ts + 1);
	agg__snapshot(d2, s.ts + 1);
	assert_int_equal(agg__merge(dst, src), 0);
	assert_same(src, dst);
	assert_int_equal(agg__merge(d2, empty), 0);
	assert_same(src, d2);
	assert_int_equal(agg__merge(e2, empty), 0);
	assert_same(empty, e2);
	assert_null(agg__root(e2)->child);
	free(s.r);
	free(s.ring);
	agg__free(src);
	agg__free(dst);
	agg__free(d2);
	agg__free(empty);
	agg__free(e2);
}

static void test_merge_invalid(void **state)
{
	struct agg *a = new_agg(AGG_BY_NONE), *b = new_agg(AGG_BY_TID),
		   *c = agg__new(NTIMERS + 1);

	(void)state;
	assert_non_null(c);
	assert_int_equal(agg__merge(a, a), -EINVAL);
	assert_int_equal(agg__merge(a, b), -EINVAL); /* --by differs */
	assert_int_equal(agg__merge(a, c), -EINVAL); /* ntimers differ */
	assert_int_equal(agg__merge(NULL, a), -EINVAL);
	assert_int_equal(agg__merge(a, NULL), -EINVAL);
	agg__free(a);
	agg__free(b);
	agg__free(c);
}

static void comm(struct agg *a, uint32_t tid, uint32_t tgid,
		      const char *comm)
{
	assert_int_equal(rec_push_comm(a, tid, tgid, comm), 0);
}

static void call(struct agg *a, uint32_t tid, uint32_t tgid, uint32_t timer,
		 uint64_t ts, uint64_t dur)
{
	struct iprof_rec r = {.type = IPROF_REC_START, .size = sizeof(r),
			      .timer = timer, .tid = tid, .tgid = tgid,
			      .ts = ts, .depth = 1};

	assert_int_equal(agg__push(a, &r, sizeof(r)), 0);
	r.type = IPROF_REC_STOP;
	r.ts = ts + dur;
	assert_int_equal(agg__push(a, &r, sizeof(r)), 0);
}

/*
 * --by comm roots from several shards: the same name has another index in
 * each; roots are matched by name and ordered by first record.
 */
static void test_merge_by_comm(void **state)
{
	struct agg *s1 = new_agg(AGG_BY_COMM), *s2 = new_agg(AGG_BY_COMM),
		   *m = new_agg(AGG_BY_COMM);
	const struct agg_node *r;
	char buf[32];

	(void)state;
	comm(s1, 1, 1, "fio");
	comm(s1, 3, 3, "qemu");
	call(s1, 1, 1, 0, 100, 10); /* fio first seen at 100 */
	call(s1, 3, 3, 1, 300, 30); /* qemu at 300 in s1 */
	comm(s2, 2, 3, "qemu");
	comm(s2, 4, 4, "dd");
	call(s2, 2, 3, 1, 200, 20); /* qemu at 200 in s2: index 0 there */
	call(s2, 4, 4, 2, 400, 40);
	assert_int_equal(agg__merge(m, s1), 0);
	assert_int_equal(agg__merge(m, s2), 0);

	r = agg__root(m)->child;
	assert_string_equal(agg__split_name(m, r->timer, buf, 32), "fio");
	assert_int_equal(r->child->timer, 0);
	assert_int_equal(r->child->count, 1);
	r = r->next;
	assert_string_equal(agg__split_name(m, r->timer, buf, 32), "qemu");
	assert_int_equal(r->child->timer, 1);
	assert_int_equal(r->child->count, 2);
	assert_int_equal(r->child->threads, 2);
	assert_int_equal(r->child->total_ns, 50);
	assert_int_equal(r->child->min_ns, 20);
	assert_int_equal(r->child->max_ns, 30);
	assert_int_equal(r->child->first_start_ns, 200);
	assert_int_equal(r->child->last_stop_ns, 330);
	assert_null(r->child->next);
	r = r->next;
	assert_string_equal(agg__split_name(m, r->timer, buf, 32), "dd");
	assert_null(r->next);
	assert_int_equal(agg__stats(m)->nodes, 6);
	assert_int_equal(agg__stats(m)->threads_seen, 4);
	agg__free(s1);
	agg__free(s2);
	agg__free(m);
}

/* --by tgid: one process's threads in several shards share a root */
static void test_merge_by_tgid(void **state)
{
	struct agg *s[3], *m = new_agg(AGG_BY_TGID);
	const struct agg_node *r;
	char buf[32];
	unsigned int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		s[k] = new_agg(AGG_BY_TGID);
		/* process 7: one thread per shard; process 8 only in shard 2 */
		call(s[k], 70 + k, 7, 0, 1000 + k, 10 * (k + 1));
	}
	call(s[2], 80, 8, 0, 500, 5);
	for (k = 0; k < 3; k++)
		assert_int_equal(agg__merge(m, s[k]), 0);
	r = agg__root(m)->child;
	assert_string_equal(agg__split_name(m, r->timer, buf, 32), "pid 8");
	assert_int_equal(r->child->count, 1);
	r = r->next;
	assert_string_equal(agg__split_name(m, r->timer, buf, 32), "pid 7");
	assert_int_equal(r->child->count, 3);
	assert_int_equal(r->child->threads, 3);
	assert_int_equal(r->child->total_ns, 60);
	assert_null(r->next);
	for (k = 0; k < 3; k++)
		agg__free(s[k]);
	agg__free(m);
}

/*
 * dst's caps apply: beyond --max-keys the merged roots go to [other]
 * (the idle one merged first folded to make room), and no count is lost.
 */
static void test_merge_caps(void **state)
{
	struct agg *s[2], *m = new_agg(AGG_BY_TID);
	const struct agg_node *r;
	uint64_t sum = 0;
	unsigned int k, tid;

	(void)state;
	assert_int_equal(agg__set_limits(m, 0, 2), 0);
	for (k = 0; k < 2; k++) {
		s[k] = new_agg(AGG_BY_TID);
		for (tid = 0; tid < 3; tid++)
			call(s[k], 10 * k + tid, 1, tid % NTIMERS,
			     100 * tid + k, 1);
	}
	for (k = 0; k < 2; k++)
		assert_int_equal(agg__merge(m, s[k]), 0);
	for (r = agg__root(m)->child; r; r = r->next) {
		assert_true(r->timer == AGG_OTHER_TIMER ||
			    AGG_TIMER_IS_SPLIT(r->timer));
		for (const struct agg_node *c = r->child; c; c = c->next)
			sum += c->count;
	}
	assert_int_equal(sum, 6);
	assert_int_equal(agg__stats(m)->folded_keys, 4);
	for (k = 0; k < 2; k++)
		agg__free(s[k]);
	agg__free(m);
}

/*
 * fold: the stream folded by 1-4 worker threads, merged, is the one
 * aggregator's tree; a reset and a prune reach every shard; a record of
 * another size is counted malformed.
 */
static int none_alive(uint32_t tid, void *ctx)
{
	(void)tid;
	(void)ctx;
	return 0;
}

/* assert_same_merged() - @one against @f's shards merged at @now */
static void assert_same_merged(const struct agg *one, struct fold *f,
			       uint64_t now)
{
	struct agg *m = fold__merged(f, now);

	assert_non_null(m);
	assert_same(one, m);
	agg__free(m);
}

static void test_fold(void **state)
{
	struct recs s = {0};
	struct agg *one, *m;
	struct fold *f;
	unsigned int n, k;
	uint64_t now;
	char junk[7] = {0};

	(void)state;
	s.ts = 1000000;
	generate(&s, 20000, 0xfeedull);
	now = s.ts + 777;
	assert_null(fold__new(0, NTIMERS, AGG_BY_NONE, 0, 0));
	assert_null(fold__new(FOLD_MAX_THREADS + 1, NTIMERS, AGG_BY_NONE, 0, 0));
	for (n = 1; n <= 4; n++) {
		for (k = 0; k < 2; k++) {
			enum agg_by by = k ? AGG_BY_TGID : AGG_BY_NONE;

			one = new_agg_costs(by);
			f = fold_costs(n, by);
			assert_non_null(f);
			push_all(one, s.r, s.n / 2);
			for (size_t i = 0; i < s.n / 2; i++)
				assert_int_equal(fold__push(f, &s.r[i],
							    sizeof(s.r[i])),
						 0);
			/* an interval: merged twice, then reset */
			agg__snapshot(one, now);
			assert_same_merged(one, f, now);
			assert_same_merged(one, f, now);
			agg__reset(one);
			fold__reset(f);
			push_all(one, s.r + s.n / 2, s.n - s.n / 2);
			agg__push(one, junk, sizeof(junk));
			for (size_t i = s.n / 2; i < s.n; i++)
				fold__push(f, &s.r[i], sizeof(s.r[i]));
			assert_int_equal(fold__push(f, junk, sizeof(junk)),
					 -EINVAL);
			agg__snapshot(one, now);
			m = fold__merged(f, now);
			assert_non_null(m);
			assert_same(one, m);
			assert_true(agg__stats(m)->threads_live > 0);
			agg__free(m);
			/* the live threads, gone twice: freed in every shard */
			assert_int_equal(fold__prune(f, none_alive, NULL), 0);
			agg__prune(one, none_alive, NULL);
			assert_int_equal(fold__prune(f, none_alive, NULL),
					 agg__prune(one, none_alive, NULL));
			agg__snapshot(one, now);
			assert_same_merged(one, f, now);
			fold__free(f);
			agg__free(one);
		}
	}
	/* records still queued are folded before the workers stop */
	f = fold__new(2, NTIMERS, AGG_BY_NONE, 0, 0);
	assert_non_null(f);
	for (size_t i = 0; i < 100; i++)
		fold__push(f, &s.r[i], sizeof(s.r[i]));
	fold__free(f);
	free(s.r);
	free(s.ring);
}

/* the sink of the single stream below: its aggregator */
/*
 * fold and a thread that execs (NEWTID): its frames, in its old tid's
 * shard, go on under its leader's tid, whose records follow them there
 * from the exec on; the leader's own before it stay in the leader's.
 * 40 processes (more at once than the fold's table of moved threads), in
 * half of them a second thread execs after the first; the tree is the one
 * aggregator's, nothing mismatched.
 */
static void test_fold_newtid(void **state)
{
	struct recs s = { 0 };
	struct agg *one, *m;
	struct fold *f;
	unsigned int n, k;
	uint32_t lead, thr, thr2;

	(void)state;
	s.ts = 1000;
	for (k = 0; k < 40; k++) {
		lead = 1000 + 3 * k;
		thr = lead + 1;
		thr2 = lead + 2;
		emit(&s, IPROF_REC_START, 0, 0, lead, 1, 0, 0);
		emit(&s, IPROF_REC_START, 0, 1, thr, 1, 0, 0);
		emit(&s, IPROF_REC_START, 0, 2, thr, 2, 0, 0);
		emit(&s, IPROF_REC_EXIT, 0, 0, lead, 0, 0, 0);
		emit(&s, IPROF_REC_EXECED, 0, 1, thr, 1, 0, 0);
		emit(&s, IPROF_REC_NEWTID, 0, 0, lead, 1, 0, thr);
		emit(&s, IPROF_REC_STOP, 0, 2, lead, 1, 0, 0);
		emit(&s, IPROF_REC_START, 0, 3, lead, 1, 0, 0);
		if (k % 2) {
			/* a second thread execs: lead (the first) exits */
			emit(&s, IPROF_REC_START, 0, 2, thr2, 1, 0, 0);
			emit(&s, IPROF_REC_EXIT, 0, 0, lead, 0, 0, 0);
			emit(&s, IPROF_REC_NEWTID, 0, 0, lead, 1, 0, thr2);
			emit(&s, IPROF_REC_STOP, 0, 2, lead, 1, 0, 0);
			emit(&s, IPROF_REC_START, 0, 3, lead, 1, 0, 0);
		}
		emit(&s, IPROF_REC_STOP, 0, 3, lead, 1, 0, 0);
		if (k % 4 == 1)
			emit(&s, IPROF_REC_EXIT, 0, 0, lead, 0, 0, 0);
	}
	one = new_agg(AGG_BY_NONE);
	push_all(one, s.r, s.n);
	assert_int_equal(agg__stats(one)->mismatches, 0);
	assert_int_equal(agg__stats(one)->skipped, 0);
	assert_int_equal(agg__stats(one)->exited, 60);
	agg__snapshot(one, s.ts + 1);
	for (n = 1; n <= 4; n++) {
		f = fold__new(n, NTIMERS, AGG_BY_NONE, 0, 0);
		assert_non_null(f);
		for (size_t i = 0; i < s.n; i++)
			assert_int_equal(fold__push(f, &s.r[i], sizeof(s.r[i])),
					 0);
		m = fold__merged(f, s.ts + 1);
		assert_non_null(m);
		assert_int_equal(agg__stats(m)->mismatches, 0);
		assert_int_equal(agg__stats(m)->skipped, 0);
		assert_same(one, m);
		agg__free(m);
		fold__free(f);
	}
	agg__free(one);
	free(s.r);
	free(s.ring);
}

static void to_agg(void *ctx, const void *rec, size_t len)
{
	agg__push(ctx, rec, len);
}

/*
 * fold with sources: the records taken from NCPUS rings pass by pass,
 * (a thread's records on the ring of the CPU it runs on, which changes
 * when it comes back on a CPU; its name on the ring of its next record),
 * merged by one stream for one aggregator vs by each shard's stream; a
 * pass's watermark often holds records back.  At every pass that holds
 * nothing back, and after the drain, the same tree.
 */
static void test_fold_sources(void **state)
{
	struct recs s = {0};
		unsigned int n, k, held = 0, compared = 0, pass;
	size_t i, j, end;
	uint64_t w;

	(void)state;
	s.ts = 1000000;
	generate(&s, 20000, 0xabcdefull);
	for (n = 1; n <= 4; n++) {
		for (k = 0; k < 3; k++) {
			enum agg_by by = k == 0 ? AGG_BY_NONE :
					 k == 1 ? AGG_BY_TID : AGG_BY_TGID;
			struct agg *one = new_agg_costs(by);
			struct stream *st = stream__new(NCPUS, to_agg, one);
			struct fold *f = fold_costs(n, by);

			assert_non_null(st);
			assert_non_null(f);
			assert_int_equal(fold__set_sources(f, NCPUS), 0);
			assert_int_equal(fold__set_sources(f, NCPUS), -EINVAL);
			assert_int_equal(fold__push(f, &s.r[0], sizeof(s.r[0])),
					 -EINVAL); /* sources set: push_src */
			assert_int_equal(fold__push_src(f, NCPUS, &s.r[0],
							sizeof(s.r[0])),
					 -EINVAL);
			rng_state = 99 + n;
			for (i = 0, w = 0, pass = 0; i < s.n; i = end, pass++) {
				end = i + 1 + rnd(3000);
				end = end < s.n ? end : s.n;
				/* a pass drains ring after ring */
				for (unsigned int r = 0; r < NCPUS; r++)
					for (j = i; j < end; j++) {
						if (s.ring[j] != r)
							continue;
						assert_int_equal(
							stream__push(st, r, &s.r[j],
								     sizeof(s.r[j])), 0);
						assert_int_equal(
							fold__push_src(f, r, &s.r[j],
								       sizeof(s.r[j])), 0);
					}
				j = i + rnd((uint32_t)(end - i));
				if (pass % 3 == 2 || s.r[j].type == IPROF_REC_COMM) {
					/* everything is in: nothing held */
					w = s.ts + 1;
					for (j = end; j-- > i;)
						if (s.r[j].type != IPROF_REC_COMM) {
							w = s.r[j].ts + 1;
							break;
						}
				} else if (s.r[j].ts > w) {
					w = s.r[j].ts;
				}
				stream__flush(st, w);
				fold__flush(f, w, 0);
				if (stream__stats(st)->queued) {
					held++;
					continue;
				}
				agg__snapshot(one, w);
				assert_same_merged(one, f, w);
				compared++;
			}
			stream__drain(st);
			fold__flush(f, 0, 1);
			agg__snapshot(one, s.ts + 1);
			assert_same_merged(one, f, s.ts + 1);
			fold__free(f);
			stream__free(st);
			agg__free(one);
		}
	}
	assert_true(held > 10); /* the watermark held records back */
	assert_true(compared > 10);
	free(s.r);
	free(s.ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_shards),
		cmocka_unit_test(test_merge_empty),
		cmocka_unit_test(test_merge_invalid),
		cmocka_unit_test(test_merge_by_comm),
		cmocka_unit_test(test_merge_by_tgid),
		cmocka_unit_test(test_merge_caps),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_newtid),
		cmocka_unit_test(test_fold_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
