/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of --slowest (src/core/agg_slow.c, include/iprof/slow.h):
 * threads whose calls (each with one child, the calls' durations drawn at
 * random, ties included) come interleaved in random orders; each node
 * must keep exactly its K slowest calls (by duration, ties by earlier
 * start, then lower tid), each with its own child; a call's children are
 * bounded (SLOW_KIDS_MAX, the rest counted); off keeps nothing.
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

#include "iprof/agg.h"
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

/* 40 children, each with a child: 80 calls inside, the first 32 in
 * pre-order kept (children and grandchildren alternating), 48 counted */
static void kids_bounded(void **state)
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
	assert_int_equal(got[0]->nkids, SLOW_KIDS_MAX);
	assert_int_equal(got[0]->kids_more, 80 - SLOW_KIDS_MAX);
	for (i = 0; i < SLOW_KIDS_MAX; i++) {
		assert_int_equal(got[0]->kids[i].depth, 1 + i % 2);
		assert_int_equal(got[0]->kids[i].timer, 1 + i % 2);
		assert_int_equal(got[0]->kids[i].start_ns,
				 101 + 4 * (i / 2) + i % 2);
		assert_int_equal(got[0]->kids[i].dur_ns, i % 2 ? 1 : 3);
	}
	agg__free(a);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keep_exactly_k),
		cmocka_unit_test(kids_bounded),
		cmocka_unit_test(args_and_ret),
		cmocka_unit_test(off_keeps_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
