/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of --slowest (src/core/agg_slow.c, include/iprof/slow.h):
 * threads whose calls (each with one child, the calls' durations drawn at
 * random, ties included) come interleaved in random orders; each node
 * must keep exactly its K slowest calls (by duration, ties by earlier
 * start, then lower tid), each with its own child; a call's children are
 * summed by path, bounded (SLOW_KIDS_MAX paths, the rest counted); calls
 * are ranked by their wall time less the probes' cost only, runnable and
 * blocked time as they were; keyed spans are kept, with the key values
 * and stopping thread their stop sent; off keeps nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "iprof/agg.h"
#include "iprof/report.h"
#include "iprof/slow.h"
#include "rec.h"

#define NTHREADS 4
#define NCALLS 400 /* per thread */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 33) % n;
}

struct ev {
	uint64_t ts;
	uint32_t tid;
	uint8_t type;
	uint16_t depth;
	uint32_t timer;
};

/* one call of timer 0 and its child, timer 1, as the stream had them */
struct truth {
	uint64_t start, dur, kstart, kdur;
	uint32_t tid;
};

static int cmp_ev(const void *x, const void *y)
{
	const struct ev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int truth_slower(const struct truth *x, const struct truth *y)
{
	if (x->dur != y->dur)
		return x->dur > y->dur;
	if (x->start != y->start)
		return x->start < y->start;
	return x->tid < y->tid;
}

static int cmp_truth(const void *x, const void *y)
{
	return truth_slower(x, y) ? -1 : truth_slower(y, x);
}

static void add_ev(struct ev *e, size_t *n, uint64_t ts, uint32_t tid,
		   uint8_t type, uint16_t depth, uint32_t timer)
{
	e[*n] = (struct ev){ts, tid, type, depth, timer};
	(*n)++;
}

/* make the calls of every thread, all events merged by time */
static size_t make_stream(struct ev *e, struct truth *tr)
{
	size_t n = 0, c = 0;
	uint32_t t, i;

	for (t = 0; t < NTHREADS; t++) {
		/* every thread starts at a random offset: interleaved */
		uint64_t ts = 1000 + rnd(5000) + t;

		for (i = 0; i < NCALLS; i++, c++) {
			struct truth *x = &tr[c];
			uint64_t a = 1 + rnd(50), b = 1 + rnd(40), d = 1 + rnd(30);

			ts += 1 + rnd(100);
			x->tid = 100 + t;
			x->start = ts;
			x->kstart = ts + a;
			x->kdur = b;
			x->dur = a + b + d;
			add_ev(e, &n, ts, x->tid, IPROF_REC_START, 1, 0);
			add_ev(e, &n, ts + a, x->tid, IPROF_REC_START, 2, 1);
			add_ev(e, &n, ts + a + b, x->tid, IPROF_REC_STOP, 2, 1);
			add_ev(e, &n, ts + x->dur, x->tid, IPROF_REC_STOP, 1, 0);
			ts += x->dur;
		}
	}
	qsort(e, n, sizeof(*e), cmp_ev);
	return n;
}

static void check_k(uint32_t k, uint64_t seed)
{
	static struct ev e[NTHREADS * NCALLS * 4];
	static struct truth tr[NTHREADS * NCALLS];
	const struct slow_call *got[SLOW_K_MAX];
	const struct agg_node *n;
	struct agg *a = agg__new(2);
	size_t ne, i, m;

	rng_state = seed;
	assert_non_null(a);
	assert_int_equal(agg__set_slowest(a, k), 0);
	ne = make_stream(e, tr);
	for (i = 0; i < NTHREADS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "w%zu", i);
		assert_int_equal(rec_push_comm(a, 100 + (uint32_t)i,
					       100 + (uint32_t)i, name), 0);
	}
	for (i = 0; i < ne; i++)
		assert_int_equal(rec_push(a, e[i].type, 0, e[i].timer, e[i].tid,
					  e[i].ts, e[i].depth, 0, 0), 0);
	qsort(tr, NTHREADS * NCALLS, sizeof(*tr), cmp_truth);
	n = agg__root(a)->child;
	assert_non_null(n);
	assert_int_equal(n->timer, 0);
	assert_int_equal(n->count, NTHREADS * NCALLS);
	assert_non_null(n->slow);
	m = slow_sorted(n->slow, got);
	assert_int_equal(m, k);
	for (i = 0; i < m; i++) {
		assert_int_equal(got[i]->start_ns, tr[i].start);
		assert_int_equal(got[i]->dur_ns, tr[i].dur);
		assert_int_equal(got[i]->raw_ns, tr[i].dur);
		assert_int_equal(got[i]->tid, tr[i].tid);
		assert_int_equal(got[i]->tgid, tr[i].tid);
		assert_int_equal(atoi(got[i]->comm + 1), tr[i].tid - 100);
		assert_int_equal(got[i]->nkids, 1);
		assert_int_equal(got[i]->kids_more, 0);
		assert_int_equal(got[i]->kids[0].timer, 1);
		assert_int_equal(got[i]->kids[0].depth, 1);
		assert_int_equal(got[i]->kids[0].start_ns, tr[i].kstart);
		assert_int_equal(got[i]->kids[0].dur_ns, tr[i].kdur);
		assert_int_equal(got[i]->kids[0].count, 1);
		assert_true(got[i]->kids[0].parent == SLOW_KID_TOP);
		/* no switch records: all of it on-CPU */
		assert_int_equal(got[i]->has_split, 1);
		assert_int_equal(got[i]->on_ns, tr[i].dur);
		assert_int_equal(got[i]->runq_ns + got[i]->blocked_ns, 0);
	}
	/* the child's node keeps its own K slowest, none inside them */
	n = n->child;
	assert_non_null(n);
	assert_non_null(n->slow);
	m = slow_sorted(n->slow, got);
	assert_int_equal(m, k);
	for (i = 1; i < m; i++)
		assert_true(slow_slower(got[i - 1], got[i]));
	assert_int_equal(got[m - 1]->nkids, 0);
	agg__free(a);
}

static void keep_exactly_k(void **state)
{
	static const uint32_t ks[] = {1, 2, 3, 7, 16, SLOW_K_MAX};
	uint64_t seed;
	size_t i;

	(void)state;
	for (seed = 1; seed <= 20; seed++)
		for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
			check_k(ks[i], seed * 7919 + i);
}

/*
 * The calls inside a kept call summed by path: 40 calls of timer 1, each
 * calling timer 2 (3 ns and 1 ns each), are 2 paths of 40 calls.
 */
static void kids_by_path(void **state)
{
	const struct slow_call *got[1];
	const struct agg_node *n;
	struct agg *a = agg__new(3);
	uint64_t ts = 100;
	uint32_t i;

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_slowest(a, 1), 0);
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, 7, ts, 1, 0, 0), 0);
	for (i = 0; i < 40; i++) {
		rec_push(a, IPROF_REC_START, 0, 1, 7, ++ts, 2, 0, 0);
		rec_push(a, IPROF_REC_START, 0, 2, 7, ++ts, 3, 0, 0);
		rec_push(a, IPROF_REC_STOP, 0, 2, 7, ++ts, 3, 0, 0);
		rec_push(a, IPROF_REC_STOP, 0, 1, 7, ++ts, 2, 0, 0);
	}
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, 7, ++ts, 1, 0, 0), 0);
	n = agg__root(a)->child;
	assert_int_equal(slow_sorted(n->slow, got), 1);
	assert_int_equal(got[0]->nkids, 2);
	assert_int_equal(got[0]->kids_more, 0);
	assert_int_equal(got[0]->kids[0].timer, 1);
	assert_int_equal(got[0]->kids[0].depth, 1);
	assert_true(got[0]->kids[0].parent == SLOW_KID_TOP);
	assert_int_equal(got[0]->kids[0].count, 40);
	assert_int_equal(got[0]->kids[0].dur_ns, 40 * 3);
	assert_int_equal(got[0]->kids[0].raw_ns, 40 * 3);
	assert_int_equal(got[0]->kids[0].start_ns, 101);
	assert_int_equal(got[0]->kids[1].timer, 2);
	assert_int_equal(got[0]->kids[1].depth, 2);
	assert_int_equal(got[0]->kids[1].parent, 0);
	assert_int_equal(got[0]->kids[1].count, 40);
	assert_int_equal(got[0]->kids[1].dur_ns, 40);
	assert_int_equal(got[0]->kids[1].start_ns, 102);
	agg__free(a);
}

/*
 * Paths are bounded: timers 1..38 called twice each (round after round),
 * each calling timer 39: the first 16 children's 32 paths are kept, the
 * other 22's calls (2 rounds x 2 calls) counted.
 */
static void kids_bounded(void **state)
{
	const struct slow_call *got[1];
	const struct agg_node *n;
	struct agg *a = agg__new(40);
	uint64_t ts = 100;
	uint32_t i, r;

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_slowest(a, 1), 0);
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, 7, ts, 1, 0, 0), 0);
	for (r = 0; r < 2; r++) {
		for (i = 1; i <= 38; i++) {
			rec_push(a, IPROF_REC_START, 0, i, 7, ++ts, 2, 0, 0);
			rec_push(a, IPROF_REC_START, 0, 39, 7, ++ts, 3, 0, 0);
			rec_push(a, IPROF_REC_STOP, 0, 39, 7, ++ts, 3, 0, 0);
			rec_push(a, IPROF_REC_STOP, 0, i, 7, ++ts, 2, 0, 0);
		}
	}
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, 7, ++ts, 1, 0, 0), 0);
	n = agg__root(a)->child;
	assert_int_equal(slow_sorted(n->slow, got), 1);
	assert_int_equal(got[0]->nkids, SLOW_KIDS_MAX);
	assert_int_equal(got[0]->kids_more, 22 * 2 * 2);
	for (i = 0; i < SLOW_KIDS_MAX; i++) {
		const struct slow_kid *k = &got[0]->kids[i];

		assert_int_equal(k->count, 2);
		assert_int_equal(k->depth, 1 + i % 2);
		assert_int_equal(k->timer, i % 2 ? 39 : 1 + i / 2);
		assert_true(k->parent == (i % 2 ? i - 1 : SLOW_KID_TOP));
		assert_int_equal(k->dur_ns, i % 2 ? 2 : 6);
	}
	agg__free(a);
}

/*
 * The kept calls are ranked by their wall time less the probes' cost
 * only: X (raw 100, 80 of it runnable) before Y (raw 70, on-CPU) before Z
 * (raw 50, 30 blocked); each probe costs 5 ns inside the call.  The
 * node's sums scale X's runnable time by its on-CPU time left (10 of 20:
 * 40), which would put Y first.
 */
static void rank_by_wall(void **state)
{
	static const struct agg_cost costs[1] = {
		{ .start_in_ns = 5, .stop_in_ns = 5 },
	};
	const struct slow_call *got[3];
	const struct agg_node *n;
	struct agg *a = agg__new(1);

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_costs(a, costs), 0);
	assert_int_equal(agg__set_slowest(a, 3), 0);
	rec_push(a, IPROF_REC_START, 0, 0, 7, 1000, 1, 0, 0);
	rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, 7, 1010, 0, 0, IPROF_OFF_RUNQ);
	rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, 7, 1090, 0, 0, 0);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 1100, 1, 0, 0);
	rec_push(a, IPROF_REC_START, 0, 0, 7, 2000, 1, 0, 0);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 2070, 1, 0, 0);
	rec_push(a, IPROF_REC_START, 0, 0, 7, 3000, 1, 0, 0);
	rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, 7, 3010, 0, 0,
		 IPROF_OFF_BLOCKED);
	rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, 7, 3040, 0, 0, 0);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 3050, 1, 0, 0);
	n = agg__root(a)->child;
	assert_int_equal(n->count, 3);
	assert_int_equal(slow_sorted(n->slow, got), 3);
	assert_int_equal(got[0]->start_ns, 1000);
	assert_int_equal(got[0]->raw_ns, 100);
	assert_int_equal(got[0]->dur_ns, 90);
	assert_int_equal(got[0]->on_ns, 10);
	assert_int_equal(got[0]->runq_ns, 80);
	assert_int_equal(got[0]->blocked_ns, 0);
	assert_int_equal(got[1]->start_ns, 2000);
	assert_int_equal(got[1]->dur_ns, 60);
	assert_int_equal(got[1]->on_ns, 60);
	assert_int_equal(got[2]->start_ns, 3000);
	assert_int_equal(got[2]->dur_ns, 40);
	assert_int_equal(got[2]->on_ns, 10);
	assert_int_equal(got[2]->runq_ns, 0);
	assert_int_equal(got[2]->blocked_ns, 30);
	agg__free(a);
}

/* a keyed span's record (struct iprof_rec_key) */
static int kpush(struct agg *a, uint8_t type, uint32_t tid, uint32_t id,
		 uint64_t ts)
{
	struct iprof_rec_key k = {
		.type = type, .size = sizeof(k), .timer = 1, .tid = tid,
		.tgid = tid, .ts = ts, .id = id,
	};

	return agg__push(a, &k, sizeof(k));
}

/*
 * Keyed spans (timer 1) keep their slowest too, with their number and
 * starting thread, without a split (their start and stop may be on two
 * threads); less their own probes' cost (3 + 4 ns inside).
 */
static void keyed_spans(void **state)
{
	static const struct agg_cost costs[2] = {
		{ 0 },
		{ .start_in_ns = 3, .stop_in_ns = 4 },
	};
	const struct slow_call *got[2];
	const struct agg_node *n;
	struct agg *a = agg__new(2);
	uint32_t i;

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_costs(a, costs), 0);
	assert_int_equal(agg__set_slowest(a, 2), 0);
	assert_int_equal(rec_push_comm(a, 5, 5, "submit"), 0);
	/* spans 0..9 of 100 + 10 * i ns, started by thread 5 */
	for (i = 0; i < 10; i++) {
		assert_int_equal(kpush(a, IPROF_REC_KSTART, 5, i, 1000 * i), 0);
		assert_int_equal(kpush(a, IPROF_REC_KSTOP, 5, i,
				       1000 * i + 100 + 10 * i),
				 0);
	}
	n = agg__root(a)->child;
	assert_non_null(n);
	assert_int_equal(n->count, 10);
	assert_int_equal(slow_sorted(n->slow, got), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(got[i]->is_span, 1);
		assert_int_equal(got[i]->span_id, 9 - i);
		assert_int_equal(got[i]->start_ns, 1000 * (9 - i));
		assert_int_equal(got[i]->raw_ns, 100 + 10 * (9 - i));
		assert_int_equal(got[i]->dur_ns, 100 + 10 * (9 - i) - 7);
		assert_int_equal(got[i]->tid, 5);
		assert_string_equal(got[i]->comm, "submit");
		assert_int_equal(got[i]->has_split, 0);
		assert_int_equal(got[i]->nkids, 0);
	}
	agg__free(a);
}

/* kinfo() - an IPROF_REC_KINFO part @part (value @v) of span @id started
 * by thread @tid, at @ts */
static int kinfo(struct agg *a, uint32_t tid, uint32_t id, uint32_t part,
		 uint64_t v, uint64_t ts)
{
	struct iprof_rec_key k = {
		.type = IPROF_REC_KINFO,
		.flags = (uint8_t)(part << IPROF_VAL_PAIR_SHIFT),
		.size = sizeof(k), .timer = (uint32_t)v, .tid = tid,
		.tgid = (uint32_t)(v >> 32), .ts = ts, .id = id,
	};

	return agg__push(a, &k, sizeof(k));
}

/* kstop_info() - span @id's stop at @ts as BPF sends it with --slowest:
 * its key (dev 8, sector @sector), its stopping side (@by: tid | tgid <<
 * 32, 0 in a hardirq), its comm "kworker/1" in a task, then the KSTOP */
static void kstop_info(struct agg *a, uint32_t id, uint64_t sector,
		       uint64_t by, uint64_t ts)
{
	char comm[16] = "kworker/1";
	uint32_t cx = by ? IPROF_CTX_TASK : IPROF_CTX_HARDIRQ;
	uint64_t c0, c1;

	memcpy(&c0, comm, 8);
	memcpy(&c1, comm + 8, 8);
	assert_int_equal(kinfo(a, 5, id, IPROF_KI_KEY, 8, ts), 0);
	assert_int_equal(kinfo(a, 5, id, IPROF_KI_KEY + 1, sector, ts), 0);
	assert_int_equal(kinfo(a, 5, id, IPROF_KI_BY, by, ts), 0);
	assert_int_equal(kinfo(a, 5, id, IPROF_KI_CTX, cx | 1ull << 32, ts),
			 0);
	if (by) {
		assert_int_equal(kinfo(a, 5, id, IPROF_KI_COMM, c0, ts), 0);
		assert_int_equal(kinfo(a, 5, id, IPROF_KI_COMM + 1, c1, ts), 0);
	}
	assert_int_equal(kpush(a, IPROF_REC_KSTOP, 5, id, ts), 0);
}

/*
 * Keyed spans keep what their stop sent (IPROF_REC_KINFO): of 20 spans
 * (key dev 8, sector 1000 + i), the 3 slowest are 3, 7 and 12 (5000,
 * 4000, 3000 ns; the others 100 + i), each with its key values and the
 * thread that stopped it (tid 600 + i, "kworker/1"): span 7's stop came
 * before its start (held early with its parts), span 12 stopped in a
 * hardirq; span 3's stop came after another span's parts (99): it shows
 * none, never theirs.  The table and JSON name the key's fields.
 */
static void keyed_span_info(void **state)
{
	struct report_timer rt[2] = { { .name = "rq" },
				      { .name = "bio", .key = "dev,sector" } };
	const struct slow_call *got[3];
	struct report r = { 0 };
	struct json_object *j;
	struct report_view v;
	struct agg *a = agg__new(2), *m = agg__new(2);
	const struct agg_node *n;
	char *buf = NULL, *js;
	uint64_t t, d;
	size_t len = 0;
	uint32_t i;
	FILE *f;
	int err;

	(void)state;
	assert_non_null(a);
	assert_non_null(m);
	assert_int_equal(agg__set_slowest(a, 3), 0);
	assert_int_equal(rec_push_comm(a, 5, 5, "submit"), 0);
	for (i = 0; i < 20; i++) {
		t = 10000 * (i + 1);
		d = i == 3 ? 5000 : i == 7 ? 4000 : i == 12 ? 3000 : 100 + i;
		if (i == 7) /* merged ahead of its start */
			kstop_info(a, i, 1000 + i, 607 | 600ull << 32, t + d);
		assert_int_equal(kpush(a, IPROF_REC_KSTART, 5, i, t), 0);
		if (i == 3)
			assert_int_equal(kinfo(a, 5, 99, IPROF_KI_KEY, 1, t + d),
					 0);
		if (i == 3)
			assert_int_equal(kpush(a, IPROF_REC_KSTOP, 5, i, t + d),
					 0);
		else if (i != 7)
			kstop_info(a, i, 1000 + i,
				   i == 12 ? 0 : (600 + i) | 600ull << 32,
				   t + d);
	}
	n = agg__root(a)->child;
	assert_non_null(n);
	assert_int_equal(n->count, 20);
	assert_int_equal(slow_sorted(n->slow, got), 3);
	assert_int_equal(got[0]->span_id, 3);
	assert_int_equal(got[0]->nkey, 0);
	assert_int_equal(got[0]->has_stop, 0);
	assert_int_equal(got[1]->span_id, 7);
	assert_int_equal(got[1]->raw_ns, 4000);
	assert_int_equal(got[1]->nkey, 2);
	assert_int_equal(got[1]->key[0], 8);
	assert_int_equal(got[1]->key[1], 1007);
	assert_int_equal(got[1]->has_stop, 1);
	assert_int_equal(got[1]->stop_tid, 607);
	assert_int_equal(got[1]->stop_tgid, 600);
	assert_int_equal(got[1]->stop_ctx, IPROF_CTX_TASK);
	assert_int_equal(got[1]->stop_cpu, 1);
	assert_string_equal(got[1]->stop_comm, "kworker/1");
	assert_int_equal(got[1]->tid, 5);
	assert_string_equal(got[1]->comm, "submit");
	assert_int_equal(got[2]->span_id, 12);
	assert_int_equal(got[2]->key[1], 1012);
	assert_int_equal(got[2]->has_stop, 1);
	assert_int_equal(got[2]->stop_tid, 0);
	assert_int_equal(got[2]->stop_ctx, IPROF_CTX_HARDIRQ);
	assert_string_equal(got[2]->stop_comm, "");
	/* merged: the same */
	assert_int_equal(agg__merge(m, a), 0);
	assert_int_equal(slow_sorted(agg__root(m)->child->slow, got), 3);
	assert_int_equal(got[1]->key[1], 1007);
	assert_string_equal(got[1]->stop_comm, "kworker/1");
	r.agg = a;
	r.timers = rt;
	assert_int_equal(report_view_init(&v, &r), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_slowest_table(f, &r, &v);
	assert_int_equal(fclose(f), 0);
	report_view_free(&v);
	assert_non_null(strstr(buf, "  span #7  at +70.0us  tid 5 (submit)"
				    "  stopped by tid 607 (kworker/1)"
				    "  key dev=8,sector=1007\n"));
	assert_non_null(strstr(buf, "  span #12  at +120us  tid 5 (submit)"
				    "  stopped in a hardirq (CPU 1)"
				    "  key dev=8,sector=1012\n"));
	assert_non_null(strstr(buf, "  span #3  at +30.0us  tid 5 (submit)\n"));
	free(buf);
	j = report_slowest_json(&r, n, &err);
	assert_int_equal(err, 0);
	js = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	assert_non_null(strstr(js, "\"span_id\":7,\"tid\":5,\"tgid\":5,"
				   "\"key\":{\"dev\":8,\"sector\":1007},"
				   "\"stop_tid\":607,\"stop_tgid\":600,"
				   "\"stop_cpu\":1,\"stop_context\":\"task\","
				   "\"stop_comm\":\"kworker\\/1\""));
	assert_non_null(strstr(js, "\"stop_tid\":0,\"stop_tgid\":0,"
				   "\"stop_cpu\":1,\"stop_context\":\"hardirq\","
				   "\"stop_comm\":\"\""));
	free(js);
	json_object_put(j);
	agg__free(a);
	agg__free(m);
}

/* push_val() - an IPROF_REC_ARGS (pair @pair) or RETVAL of thread 7 */
static int push_val(struct agg *a, uint8_t type, uint8_t pair, uint64_t ts,
		    uint64_t v0, uint64_t v1)
{
	struct iprof_rec_val r = {
		.type = type,
		.flags = (uint8_t)(pair << IPROF_VAL_PAIR_SHIFT),
		.size = sizeof(r),
		.lo0 = (uint32_t)v0,
		.tid = 7,
		.hi0 = (uint32_t)(v0 >> 32),
		.ts = ts,
		.lo1 = (uint32_t)v1,
		.hi1 = (uint32_t)(v1 >> 32),
	};

	return agg__push(a, &r, sizeof(r));
}

/*
 * Arguments before a START go to the call it opens, a return value before
 * a STOP to the frame it names; a call whose pairs did not all come, or
 * that got none, keeps none; the child's do not leak into its parent's.
 */
static void args_and_ret(void **state)
{
	const struct slow_call *got[3];
	const struct agg_node *n;
	struct agg *a = agg__new(2);
	uint64_t big = 0xfedcba9876543210ull;
	uint32_t i;

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_slowest(a, 3), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(push_val(a, IPROF_REC_ARGS, (uint8_t)i, 10,
					  2 * i, i == 2 ? big : 2 * i + 1),
				 0);
	rec_push(a, IPROF_REC_START, 0, 0, 7, 10, 1, 0, 0);
	/* a child with only its first pair: none */
	push_val(a, IPROF_REC_ARGS, 0, 11, 100, 101);
	rec_push(a, IPROF_REC_START, 0, 1, 7, 11, 2, 0, 0);
	rec_push(a, IPROF_REC_STOP, 0, 1, 7, 12, 2, 0, 0);
	push_val(a, IPROF_REC_RETVAL, 0, 100, (uint64_t)-5, 1);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 100, 1, 0, 0);
	/* a second call of timer 0 with neither */
	rec_push(a, IPROF_REC_START, 0, 0, 7, 200, 1, 0, 0);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 201, 1, 0, 0);
	n = agg__root(a)->child;
	assert_int_equal(slow_sorted(n->slow, got), 2);
	assert_int_equal(got[0]->nargs, IPROF_NARGS);
	for (i = 0; i < 5; i++)
		assert_int_equal(got[0]->args[i], i);
	assert_true(got[0]->args[5] == big);
	assert_int_equal(got[0]->has_ret, 1);
	assert_true(got[0]->ret == (uint64_t)-5);
	assert_int_equal(got[1]->nargs, 0);
	assert_int_equal(got[1]->has_ret, 0);
	assert_int_equal(slow_sorted(n->child->slow, got), 1);
	assert_int_equal(got[0]->nargs, 0);
	assert_int_equal(got[0]->has_ret, 0);
	agg__free(a);
}

/*
 * A kernel function's kept calls shown by its arguments' BTF names and
 * types (report_timer.params): a pointer in hex, an integer cut to its
 * width and read by its sign, only the arguments the function has, a
 * void function without "ret"; JSON the same as numbers; a timer without
 * params keeps the raw registers.
 */
static void named_args(void **state)
{
	struct report_timer rt[2] = {
		{ .name = "vfs_read",
		  .params = ":s8:ssize_t;file:p:struct file *;buf:p:char *;"
			    "count:u8:size_t;pos:p:loff_t *" },
		{ .name = "wake",
		  .params = ":-:void;nr:s4:int;mode:u2:unsigned short" },
	};
	const uint64_t file = 0xffff888003a1b200ull;
	struct report_view v;
	struct report r = { 0 };
	struct json_object *j;
	struct agg *a = agg__new(2);
	char *buf = NULL, *js;
	size_t len = 0;
	FILE *f;
	int err;

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_slowest(a, 3), 0);
	push_val(a, IPROF_REC_ARGS, 0, 10, file, 0x7ffc1000);
	push_val(a, IPROF_REC_ARGS, 1, 10, 4096, 0xffffc90000123e00ull);
	push_val(a, IPROF_REC_ARGS, 2, 10, 0xdead, 0xbeef); /* r8, r9 */
	rec_push(a, IPROF_REC_START, 0, 0, 7, 10, 1, 0, 0);
	/* wake(-3, 0x10002): int in the low half of a dirty register, the
	 * u16 in the low 2 bytes */
	push_val(a, IPROF_REC_ARGS, 0, 20, 0x12345678fffffffdull, 0x10002);
	push_val(a, IPROF_REC_ARGS, 1, 20, 0, 0);
	push_val(a, IPROF_REC_ARGS, 2, 20, 0, 0);
	rec_push(a, IPROF_REC_START, 0, 1, 7, 20, 2, 0, 0);
	push_val(a, IPROF_REC_RETVAL, 0, 30, 99, 2 | 1ull << 32);
	rec_push(a, IPROF_REC_STOP, 0, 1, 7, 30, 2, 0, 0);
	push_val(a, IPROF_REC_RETVAL, 0, 100, (uint64_t)-14, 1);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 100, 1, 0, 0);
	r.agg = a;
	r.timers = rt;
	assert_int_equal(report_view_init(&v, &r), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_slowest_table(f, &r, &v);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "  args file=0xffff888003a1b200 "
				    "buf=0x7ffc1000 count=4096 "
				    "pos=0xffffc90000123e00  ret -14\n"));
	assert_non_null(strstr(buf, "  args nr=-3 mode=2\n"));
	assert_null(strstr(buf, "0xdead"));
	free(buf);
	j = report_slowest_json(&r, agg__root(a)->child, &err);
	assert_int_equal(err, 0);
	js = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	assert_non_null(strstr(js, "\"named_args\":[{\"name\":\"file\","
				   "\"type\":\"struct file *\",\"value\":"
				   "18446612682130960896},"));
	assert_non_null(strstr(js, "{\"name\":\"count\",\"type\":"
				   "\"size_t\",\"value\":4096},"));
	assert_non_null(strstr(js, "\"ret_type\":\"ssize_t\",\"ret\":-14"));
	free(js);
	json_object_put(j);
	j = report_slowest_json(&r, agg__root(a)->child->child, &err);
	js = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	assert_non_null(strstr(js, "{\"name\":\"nr\",\"type\":\"int\","
				   "\"value\":-3}"));
	assert_null(strstr(js, "\"ret\":"));
	free(js);
	json_object_put(j);
	/* no params: the six registers as they came */
	rt[0].params = NULL;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_slowest_table(f, &r, &v);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "  args 0xffff888003a1b200 0x7ffc1000 "
				    "4096 0xffffc90000123e00 57005 48879  "
				    "ret -14\n"));
	free(buf);
	report_view_free(&v);
	agg__free(a);
}

/* off (the default): nothing kept; K beyond the bound refused */
static void off_keeps_nothing(void **state)
{
	struct agg *a = agg__new(1);

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_slowest(a, SLOW_K_MAX + 1), -EINVAL);
	rec_push(a, IPROF_REC_START, 0, 0, 7, 10, 1, 0, 0);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 20, 1, 0, 0);
	assert_int_equal(agg__root(a)->child->count, 1);
	assert_null(agg__root(a)->child->slow);
	agg__free(a);
}

/* a test's report.ename: enum mode { M_REL = 1, M_PINNED = 2 } and
 * enum err { E_NEG = -3 }; nothing else */
static const char *test_ename(void *ctx, const char *type, int64_t v,
			      char *buf, size_t size)
{
	(void)ctx;
	if (!strcmp(type, "enum mode") && (v == 1 || v == 2))
		snprintf(buf, size, "%s", v == 1 ? "M_REL" : "M_PINNED");
	else if (!strcmp(type, "const enum err") && v == -3)
		snprintf(buf, size, "E_NEG");
	else
		return NULL;
	return buf;
}

/*
 * Enums in a kernel function's kept calls (report.ename): an argument
 * or return value of an enum type shown by its enumerator's name (the
 * value read by the type's width and sign first: a signed enum's -3 in
 * a dirty register), a value no enumerator has and the integer
 * arguments as numbers; JSON keeps "value" and adds "enum" ("ret_enum")
 * where named; without ename numbers only.
 */
static void enum_args(void **state)
{
	struct report_timer rt[1] = {
		{ .name = "sleep",
		  .params = ":s4:const enum err;t:p:struct hrtimer_sleeper *;"
			    "mode:u4:enum mode;other:u4:enum mode;n:s4:int" },
	};
	struct report_view v;
	struct report r = { 0 };
	struct json_object *j;
	struct agg *a = agg__new(1);
	char *buf = NULL, *js;
	size_t len = 0;
	FILE *f;
	int err;

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_slowest(a, 1), 0);
	push_val(a, IPROF_REC_ARGS, 0, 10, 0xffff888003a1b200ull,
		 0xabcd00000001ull);
	push_val(a, IPROF_REC_ARGS, 1, 10, 7, 2);
	push_val(a, IPROF_REC_ARGS, 2, 10, 0, 0);
	rec_push(a, IPROF_REC_START, 0, 0, 7, 10, 1, 0, 0);
	push_val(a, IPROF_REC_RETVAL, 0, 100, 0x55fffffffdull, 1);
	rec_push(a, IPROF_REC_STOP, 0, 0, 7, 100, 1, 0, 0);
	r.agg = a;
	r.timers = rt;
	r.ename = test_ename;
	assert_int_equal(report_view_init(&v, &r), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_slowest_table(f, &r, &v);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "  args t=0xffff888003a1b200 mode=M_REL "
				    "other=7 n=2  ret E_NEG\n"));
	free(buf);
	j = report_slowest_json(&r, agg__root(a)->child, &err);
	assert_int_equal(err, 0);
	js = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	assert_non_null(strstr(js, "{\"name\":\"mode\",\"type\":"
				   "\"enum mode\",\"value\":1,\"enum\":"
				   "\"M_REL\"}"));
	assert_non_null(strstr(js, "{\"name\":\"other\",\"type\":"
				   "\"enum mode\",\"value\":7}"));
	assert_non_null(strstr(js, "\"ret\":-3,\"ret_enum\":\"E_NEG\""));
	free(js);
	json_object_put(j);
	r.ename = NULL;
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_slowest_table(f, &r, &v);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "  args t=0xffff888003a1b200 mode=1 "
				    "other=7 n=2  ret -3\n"));
	free(buf);
	report_view_free(&v);
	agg__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keep_exactly_k),
		cmocka_unit_test(kids_by_path),
		cmocka_unit_test(kids_bounded),
		cmocka_unit_test(rank_by_wall),
		cmocka_unit_test(keyed_spans),
		cmocka_unit_test(keyed_span_info),
		cmocka_unit_test(args_and_ret),
		cmocka_unit_test(named_args),
		cmocka_unit_test(enum_args),
		cmocka_unit_test(off_keeps_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
