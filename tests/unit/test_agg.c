/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the aggregator (src/core/agg.c) with synthetic records.  Every
 * number is computed by hand from the records pushed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/agg.h"
#include "iprof/calib_cost.h"
#include "iprof/mech.h"
#include "rec.h"

enum { A = 0, B = 1, C = 2, NTIMERS = 3 };

static int push(struct agg *a, uint8_t type, uint8_t flags, uint32_t timer,
		uint32_t tid, uint64_t ts, uint16_t depth)
{
	return rec_push(a, type, flags, timer, tid, ts, depth, 0, 0);
}

/* pushes that must succeed */
#define START(a, tid, timer, d, ts)                                            \
	assert_int_equal(push(a, IPROF_REC_START, 0, timer, tid, ts, d), 0)
#define STOP(a, tid, timer, d, ts)                                             \
	assert_int_equal(push(a, IPROF_REC_STOP, 0, timer, tid, ts, d), 0)
#define EXIT(a, tid, ts)                                                       \
	assert_int_equal(push(a, IPROF_REC_EXIT, 0, 0, tid, ts, 0), 0)

/* node at the path of timer ids (-1 terminated) from the root, or NULL */
static const struct agg_node *node_at(struct agg *a, ...)
{
	const struct agg_node *n = agg__root(a), *c;
	va_list ap;
	int t;

	va_start(ap, a);
	while ((t = va_arg(ap, int)) >= 0) {
		for (c = n->child; c && c->timer != (uint32_t)t; c = c->next)
			;
		n = c;
		if (!n)
			break;
	}
	va_end(ap);
	return n;
}

static unsigned int nchildren(const struct agg_node *n)
{
	unsigned int k = 0;

	for (n = n->child; n; n = n->next)
		k++;
	return k;
}

static uint64_t hist_sum(const struct agg_node *n)
{
	uint64_t s = 0;

	if (!n->hist)
		return 0;
	for (unsigned int i = 0; i < HIST_SLOTS; i++)
		s += n->hist->slot[i];
	return s;
}

static struct agg *new_agg(void)
{
	struct agg *a = agg__new(NTIMERS);

	assert_non_null(a);
	return a;
}

static void test_new_free(void **state)
{
	(void)state;
	errno = 0;
	assert_null(agg__new(0));
	assert_int_equal(errno, EINVAL);
	agg__free(NULL);

	struct agg *a = new_agg();

	assert_int_equal(agg__ntimers(a), NTIMERS);
	assert_int_equal(agg__root(a)->timer, AGG_ROOT_TIMER);
	assert_int_equal(agg__root(a)->depth, 0);
	assert_null(agg__root(a)->child);
	assert_int_equal(agg__stats(a)->records, 0);
	agg__free(a);
}

static void test_nesting(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;
	const struct agg_stats *st = agg__stats(a);

	(void)state;
	START(a, 1, A, 1, 100);
	START(a, 1, B, 2, 150);
	STOP(a, 1, B, 2, 250); /* b: 100 */
	START(a, 1, B, 2, 300);
	STOP(a, 1, B, 2, 320);	/* b: 20 */
	STOP(a, 1, A, 1, 1100); /* a: 1000, self 880 */
	START(a, 1, A, 1, 2000);
	STOP(a, 1, A, 1, 2500); /* a: 500, self 500 */

	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	assert_non_null(na);
	assert_non_null(nb);
	assert_int_equal(nchildren(agg__root(a)), 1);
	assert_int_equal(nchildren(na), 1);
	assert_int_equal(na->depth, 1);
	assert_int_equal(nb->depth, 2);
	assert_ptr_equal(nb->parent, na);

	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 1500);
	assert_int_equal(na->self_ns, 1380);
	assert_int_equal(na->min_ns, 500);
	assert_int_equal(na->max_ns, 1000);
	assert_int_equal(na->first_start_ns, 100);
	assert_int_equal(na->last_stop_ns, 2500);
	assert_int_equal(na->threads, 1);
	assert_int_equal(na->exited, 0);
	assert_int_equal(hist_sum(na), 2);
	assert_int_equal(na->hist->slot[hist_slot(1000)], 1);
	assert_int_equal(na->hist->slot[hist_slot(500)], 1);

	assert_int_equal(nb->count, 2);
	assert_int_equal(nb->total_ns, 120);
	assert_int_equal(nb->self_ns, 120);
	assert_int_equal(nb->min_ns, 20);
	assert_int_equal(nb->max_ns, 100);
	assert_int_equal(nb->first_start_ns, 150);
	assert_int_equal(nb->last_stop_ns, 320);
	assert_int_equal(nb->threads, 1);
	assert_int_equal(hist_sum(nb), 2);

	assert_int_equal(st->records, 8);
	assert_int_equal(st->starts, 4);
	assert_int_equal(st->stops, 4);
	assert_int_equal(st->nodes, 2);
	assert_int_equal(st->threads_live, 1);
	assert_int_equal(st->threads_seen, 1);
	assert_int_equal(st->malformed + st->discarded + st->skipped +
				 st->unwound + st->resyncs + st->mismatches,
			 0);
	agg__free(a);
}

/* a span of several stops: each call counted under the stop that ended
 * it (IPROF_REC_STOPNO in the STOP's aux), kept by agg__merge() */
static void test_stops(void **state)
{
	struct agg *a = new_agg(), *b = new_agg();
	const struct agg_node *n;

	(void)state;
	START(a, 1, A, 1, 100);
	STOP(a, 1, A, 1, 200); /* the first stop */
	START(a, 1, A, 1, 300);
	rec_push(a, IPROF_REC_STOP, 0, A, 1, 400, 1, 0, 2u << 16);
	START(a, 1, A, 1, 500);
	rec_push(a, IPROF_REC_STOP, 0, A, 1, 600, 1, 0,
		 IPROF_PC_USDT << 8 | 2u << 16);
	START(a, 1, A, 1, 700);
	rec_push(a, IPROF_REC_STOP, 0, A, 1, 800, 1, 0, 1u << 16);
	n = agg__root(a)->child;
	assert_int_equal(n->count, 4);
	assert_int_equal(n->stops[0], 1);
	assert_int_equal(n->stops[1], 1);
	assert_int_equal(n->stops[2], 2);
	assert_int_equal(n->stops[3], 0);
	START(b, 2, A, 1, 100);
	rec_push(b, IPROF_REC_STOP, 0, A, 2, 200, 1, 0, 3u << 16);
	assert_int_equal(agg__merge(a, b), 0);
	n = agg__root(a)->child;
	assert_int_equal(n->count, 5);
	assert_int_equal(n->stops[3], 1);
	assert_int_equal(n->stops[2], 2);
	agg__free(a);
	agg__free(b);
}

/* a stop that names another call than any open frame of its span
 * (IPROF_REC_NAMEMISS): counted on the frame's node, which stays open and
 * is closed by its own stop later; kept by agg__merge() */
static void test_namemiss(void **state)
{
	struct agg *a = new_agg(), *b = new_agg();
	const struct agg_node *n;

	(void)state;
	START(a, 1, A, 1, 100);
	START(a, 1, B, 2, 150);
	assert_int_equal(push(a, IPROF_REC_NAMEMISS, 0, B, 1, 180, 2), 0);
	assert_int_equal(push(a, IPROF_REC_NAMEMISS, 0, B, 1, 190, 2), 0);
	STOP(a, 1, B, 2, 200);
	STOP(a, 1, A, 1, 300);
	/* a frame not on the stack: the run's count only, no resync */
	assert_int_equal(push(a, IPROF_REC_NAMEMISS, 0, A, 1, 400, 1), 0);
	n = node_at(a, A, B, -1);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->name_mismatch, 2);
	assert_int_equal(node_at(a, A, -1)->name_mismatch, 0);
	assert_int_equal(agg__stats(a)->name_mismatch, 3);
	assert_int_equal(agg__stats(a)->mismatches + agg__stats(a)->skipped +
				 agg__stats(a)->malformed,
			 0);
	START(b, 2, A, 1, 100);
	START(b, 2, B, 2, 150);
	assert_int_equal(push(b, IPROF_REC_NAMEMISS, 0, B, 2, 180, 2), 0);
	STOP(b, 2, B, 2, 200);
	STOP(b, 2, A, 1, 300);
	assert_int_equal(agg__merge(a, b), 0);
	assert_int_equal(node_at(a, A, B, -1)->name_mismatch, 3);
	assert_int_equal(agg__stats(a)->name_mismatch, 4);
	agg__free(a);
	agg__free(b);
}

static void test_recursion(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *a1, *a2, *a3;

	(void)state;
	START(a, 1, A, 1, 0);
	START(a, 1, A, 2, 10);
	START(a, 1, A, 3, 20);
	STOP(a, 1, A, 3, 30);
	STOP(a, 1, A, 2, 50);
	STOP(a, 1, A, 1, 100);

	a1 = node_at(a, A, -1);
	a2 = node_at(a, A, A, -1);
	a3 = node_at(a, A, A, A, -1);
	assert_non_null(a3);
	assert_int_equal(agg__stats(a)->nodes, 3);
	assert_int_equal(a1->count, 1);
	assert_int_equal(a1->total_ns, 100);
	assert_int_equal(a1->self_ns, 60);
	assert_int_equal(a2->count, 1);
	assert_int_equal(a2->total_ns, 40);
	assert_int_equal(a2->self_ns, 30);
	assert_int_equal(a3->count, 1);
	assert_int_equal(a3->total_ns, 10);
	assert_int_equal(a3->self_ns, 10);
	assert_int_equal(a3->depth, 3);
	assert_null(a3->child);
	agg__free(a);
}

static void test_threads_interleaved(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;

	(void)state;
	START(a, 10, A, 1, 0);
	START(a, 11, A, 1, 5);
	START(a, 10, B, 2, 10);
	START(a, 11, B, 2, 20);
	START(a, 12, A, 1, 25);
	STOP(a, 11, B, 2, 40);	/* 11 b: 20 */
	STOP(a, 10, B, 2, 70);	/* 10 b: 60 */
	STOP(a, 12, A, 1, 125); /* 12 a: 100 */
	STOP(a, 10, A, 1, 200); /* 10 a: 200, self 140 */
	STOP(a, 11, A, 1, 305); /* 11 a: 300, self 280 */
	/* again on 10 after 11 and 12: the set path, not the fast path */
	START(a, 10, A, 1, 400);
	START(a, 11, C, 1, 410); /* a sibling root on another thread */
	STOP(a, 10, A, 1, 450);	 /* 10 a: 50 */
	STOP(a, 11, C, 1, 411);

	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	assert_int_equal(na->count, 4);
	assert_int_equal(na->total_ns, 650);
	assert_int_equal(na->self_ns, 570);
	assert_int_equal(na->min_ns, 50);
	assert_int_equal(na->max_ns, 300);
	assert_int_equal(na->first_start_ns, 0);
	assert_int_equal(na->last_stop_ns, 450);
	assert_int_equal(na->threads, 3);
	assert_int_equal(nb->count, 2);
	assert_int_equal(nb->total_ns, 80);
	assert_int_equal(nb->threads, 2);
	assert_int_equal(node_at(a, C, -1)->count, 1);
	assert_int_equal(node_at(a, C, -1)->threads, 1);
	/* first-seen order of the roots: a then c */
	assert_int_equal(agg__root(a)->child->timer, A);
	assert_int_equal(agg__root(a)->child->next->timer, C);
	assert_int_equal(agg__stats(a)->threads_live, 3);
	assert_int_equal(agg__stats(a)->discarded + agg__stats(a)->skipped, 0);
	agg__free(a);
}

static void test_incomplete(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;

	(void)state;
	START(a, 1, A, 1, 100);
	START(a, 1, B, 2, 200);
	START(a, 2, A, 1, 500);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);

	agg__snapshot(a, 1000);
	assert_int_equal(na->incomplete, 2);
	assert_int_equal(na->incomplete_ns, 900 + 500);
	assert_int_equal(nb->incomplete, 1);
	assert_int_equal(nb->incomplete_ns, 800);
	/* kept out of the statistics */
	assert_int_equal(na->count, 0);
	assert_int_equal(na->total_ns, 0);
	assert_int_equal(na->max_ns, 0);
	assert_int_equal(nb->count, 0);
	assert_null(na->hist);

	/* recomputed, not accumulated */
	agg__snapshot(a, 2000);
	assert_int_equal(na->incomplete, 2);
	assert_int_equal(na->incomplete_ns, 1900 + 1500);
	assert_int_equal(nb->incomplete_ns, 1800);

	/* a clock before the starts gives 0, not a wrapped value */
	agg__snapshot(a, 150);
	assert_int_equal(na->incomplete, 2);
	assert_int_equal(na->incomplete_ns, 50);
	assert_int_equal(nb->incomplete_ns, 0);

	STOP(a, 1, B, 2, 3000);
	STOP(a, 1, A, 1, 3100);
	STOP(a, 2, A, 1, 3500);
	agg__snapshot(a, 4000);
	assert_int_equal(na->incomplete, 0);
	assert_int_equal(na->incomplete_ns, 0);
	assert_int_equal(nb->incomplete, 0);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 3000 + 3000);
	agg__free(a);
}

static void test_resync(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *na, *nb;

	(void)state;
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 10);
	/* records were lost: a START of c at depth 2 flagged RESYNC */
	assert_int_equal(push(a, IPROF_REC_START, IPROF_F_RESYNC, C, 1, 20, 2),
			 0);
	assert_int_equal(st->resyncs, 1);
	assert_int_equal(st->discarded, 2);
	assert_int_equal(st->skipped, 1);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	assert_int_equal(na->discarded, 1);
	assert_int_equal(nb->discarded, 1);
	/* skipped until the next root START */
	STOP(a, 1, C, 2, 30);
	STOP(a, 1, B, 2, 35);
	STOP(a, 1, A, 1, 40);
	assert_int_equal(st->skipped, 4);
	assert_int_equal(na->count, 0);
	assert_int_equal(nb->count, 0);
	START(a, 1, A, 1, 100);
	START(a, 1, B, 2, 110);
	STOP(a, 1, B, 2, 120);
	STOP(a, 1, A, 1, 200);
	assert_int_equal(na->count, 1);
	assert_int_equal(na->total_ns, 100);
	assert_int_equal(na->self_ns, 90);
	assert_int_equal(nb->count, 1);
	assert_int_equal(nb->total_ns, 10);
	/* c was never folded: not mis-nested under a > b */
	assert_null(node_at(a, A, B, C, -1));
	assert_null(node_at(a, A, C, -1));
	assert_int_equal(st->nodes, 2);

	/* a RESYNC root START re-syncs at once */
	START(a, 1, A, 1, 300);
	assert_int_equal(push(a, IPROF_REC_START, IPROF_F_RESYNC, A, 1, 400, 1),
			 0);
	assert_int_equal(st->resyncs, 2);
	assert_int_equal(st->discarded, 3);
	assert_int_equal(na->discarded, 2);
	STOP(a, 1, A, 1, 450);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 150);
	assert_int_equal(na->min_ns, 50);
	assert_int_equal(st->skipped, 4);

	/* RESYNC on a STOP: discards, the stop itself is skipped */
	START(a, 1, A, 1, 500);
	assert_int_equal(push(a, IPROF_REC_STOP, IPROF_F_RESYNC, A, 1, 600, 1),
			 0);
	assert_int_equal(st->resyncs, 3);
	assert_int_equal(na->discarded, 3);
	assert_int_equal(na->count, 2);
	assert_int_equal(st->skipped, 5);
	/* other threads are not touched by a resync */
	START(a, 2, A, 1, 700);
	assert_int_equal(push(a, IPROF_REC_START, IPROF_F_RESYNC, B, 1, 710, 1),
			 0);
	STOP(a, 2, A, 1, 800);
	assert_int_equal(na->count, 3);
	assert_int_equal(na->total_ns, 250);
	agg__free(a);
}

static void test_unwound(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *na, *nb, *nc;

	(void)state;
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 10);
	START(a, 1, C, 3, 20);
	STOP(a, 1, A, 1, 100); /* b and c never stopped (longjmp) */
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	nc = node_at(a, A, B, C, -1);
	assert_int_equal(na->count, 1);
	assert_int_equal(na->total_ns, 100);
	assert_int_equal(na->self_ns, 100);
	assert_int_equal(nb->count, 0);
	assert_int_equal(nb->unwound, 1);
	assert_int_equal(nb->total_ns, 0);
	assert_int_equal(nc->count, 0);
	assert_int_equal(nc->unwound, 1);
	assert_int_equal(st->unwound, 2);
	assert_int_equal(st->discarded + st->skipped, 0);

	/* the stack was popped: a new root works without resync */
	START(a, 1, A, 1, 200);
	START(a, 1, B, 2, 210);
	START(a, 1, C, 3, 220);
	STOP(a, 1, B, 2, 260); /* c unwound, b completes: 50 */
	STOP(a, 1, A, 1, 300); /* a: 100, self 50 */
	assert_int_equal(nc->unwound, 2);
	assert_int_equal(nc->count, 0);
	assert_int_equal(nb->count, 1);
	assert_int_equal(nb->total_ns, 50);
	assert_int_equal(nb->self_ns, 50);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 200);
	assert_int_equal(na->self_ns, 150);
	assert_int_equal(st->unwound, 3);
	agg__free(a);
}

static void test_mismatch(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *na;

	(void)state;
	/* stop without start on a new thread */
	STOP(a, 1, A, 1, 10);
	assert_int_equal(st->skipped, 1);
	assert_int_equal(st->mismatches, 1);
	assert_int_equal(st->nodes, 0);
	START(a, 1, A, 1, 20);
	STOP(a, 1, A, 1, 30);
	na = node_at(a, A, -1);
	assert_int_equal(na->count, 1);
	assert_int_equal(na->total_ns, 10);

	/* START deeper than the stack: a's frame discarded, skip to root */
	START(a, 1, A, 1, 40);
	START(a, 1, B, 3, 50);
	assert_int_equal(st->mismatches, 2);
	assert_int_equal(st->discarded, 1);
	assert_int_equal(na->discarded, 1);
	assert_int_equal(st->skipped, 2);
	assert_null(node_at(a, A, B, -1));
	STOP(a, 1, B, 3, 60);
	STOP(a, 1, A, 1, 70);
	assert_int_equal(st->skipped, 4);
	assert_int_equal(na->count, 1);

	/* root START while frames are open: they are discarded, a proceeds */
	START(a, 1, A, 1, 100);
	START(a, 1, B, 2, 110);
	START(a, 1, A, 1, 120);
	assert_int_equal(st->mismatches, 3);
	assert_int_equal(st->discarded, 3);
	STOP(a, 1, A, 1, 130);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 20);

	/* STOP of another timer at the frame's depth */
	START(a, 1, A, 1, 200);
	STOP(a, 1, B, 1, 210);
	assert_int_equal(st->mismatches, 4);
	assert_int_equal(st->discarded, 4);
	assert_int_equal(na->discarded, 3);
	STOP(a, 1, A, 1, 220);
	assert_int_equal(na->count, 2);

	/* STOP deeper than the stack */
	START(a, 1, A, 1, 300);
	STOP(a, 1, A, 2, 310);
	assert_int_equal(st->mismatches, 5);
	assert_int_equal(na->discarded, 4);
	assert_int_equal(na->count, 2);
	assert_int_equal(st->unwound, 0);
	assert_int_equal(st->malformed, 0);
	agg__free(a);
}

static void test_long_durations(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;
	const uint64_t base = 1ull << 62;

	(void)state;
	START(a, 1, A, 1, base);
	START(a, 1, B, 2, base + 1000);
	STOP(a, 1, B, 2, base + 1000 + 4500000000ull);
	STOP(a, 1, A, 1, base + 5000000000ull);
	START(a, 1, A, 1, base + 10000000000ull);
	STOP(a, 1, A, 1, base + 16000000007ull);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	assert_true(na->total_ns == 11000000007ull);
	assert_true(na->self_ns == 11000000007ull - 4500000000ull);
	assert_true(na->min_ns == 5000000000ull);
	assert_true(na->max_ns == 6000000007ull);
	assert_true(na->last_stop_ns - na->first_start_ns == 16000000007ull);
	assert_true(nb->total_ns == 4500000000ull);
	assert_int_equal(na->hist->slot[hist_slot(6000000007ull)], 1);
	agg__free(a);
}

static void test_thread_exit(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *na, *nb;

	(void)state;
	START(a, 7, A, 1, 100);
	START(a, 7, B, 2, 200);
	assert_int_equal(st->threads_live, 1);
	EXIT(a, 7, 1000);
	assert_int_equal(st->threads_live, 0);
	assert_int_equal(st->threads_seen, 1);
	assert_int_equal(st->exits, 1);
	/* frames open at the exit never returned: no calls, no times, their
	 * elapsed time apart, the parent's self time not charged */
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	assert_int_equal(nb->count, 0);
	assert_int_equal(nb->total_ns, 0);
	assert_int_equal(nb->exited, 1);
	assert_int_equal(nb->exited_ns, 800);
	assert_int_equal(na->count, 0);
	assert_int_equal(na->total_ns, 0);
	assert_int_equal(na->self_ns, 0);
	assert_int_equal(na->threads, 0);
	assert_null(na->hist);
	assert_int_equal(na->exited, 1);
	assert_int_equal(na->exited_ns, 900);
	assert_int_equal(st->exited, 2);
	agg__snapshot(a, 5000);
	assert_int_equal(na->incomplete, 0);

	/* EXIT of a thread never seen */
	EXIT(a, 99, 2000);
	assert_int_equal(st->exits, 2);
	assert_int_equal(st->threads_seen, 1);

	/* EXIT with RESYNC: frames were lost, discarded rather than timed */
	START(a, 8, A, 1, 3000);
	assert_int_equal(push(a, IPROF_REC_EXIT, IPROF_F_RESYNC, 0, 8, 4000, 1),
			 0);
	assert_int_equal(na->count, 0);
	assert_int_equal(na->exited, 1);
	assert_int_equal(na->discarded, 1);
	assert_int_equal(st->resyncs, 1);
	assert_int_equal(st->threads_live, 0);

	/* the same tid again is a new thread: counted in threads again */
	START(a, 7, A, 1, 5000);
	STOP(a, 7, A, 1, 5100);
	assert_int_equal(na->count, 1);
	assert_int_equal(na->total_ns, 100);
	assert_int_equal(na->threads, 1);
	assert_int_equal(na->exited, 1);
	assert_int_equal(st->threads_seen, 3);
	agg__free(a);
}

/* a START or STOP of @timer whose probe of class @pc fired (aux bits 8-15) */
#define PSTART(a, tid, timer, d, ts, pc)                                       \
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, timer, tid, ts, d, 0,  \
				  (uint32_t)(pc) << 8),                        \
			 0)
#define PSTOP(a, tid, timer, d, ts, pc)                                        \
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, timer, tid, ts, d, 0,   \
				  (uint32_t)(pc) << 8),                        \
			 0)

/*
 * Each call is compensated by the classes of the probes it went through
 * (issue 45): a timer's calls through its inlined instances' probes
 * (IPROF_PC_UINLINE) lose their class's cost (agg_cost inl_*), its
 * out-of-line calls its own; a call entered at an instance and stopped by
 * the out-of-line return takes half of each; records that say no class
 * (ABI 10) cost as the timer.  The spread is half each class's.
 */
static void test_costs_pclass(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[A] = { .start_in_ns = 10, .start_out_ns = 20, .stop_in_ns = 30,
			.stop_out_ns = 40, .flags = AGG_COST_MEAN,
			.mean_start_in_ns = 10, .mean_start_out_ns = 20,
			.mean_stop_in_ns = 30, .mean_stop_out_ns = 40,
			.sd_ns = 30, .drift_ns = 10,
			.inl_flags = AGG_COST_MEAN, .inl_in_ns = 400,
			.inl_out_ns = 200, .inl_mean_in_ns = 500,
			.inl_mean_out_ns = 300, .inl_sd_ns = 40,
			.inl_drift_ns = 30 },
	};
	struct agg *a = new_agg();
	const struct agg_node *na;

	(void)state;
	assert_int_equal(agg__set_costs(a, costs), 0);
	/* out of line: 1000 - (10 + 30) */
	PSTART(a, 1, A, 1, 0, IPROF_PC_UENTRY);
	PSTOP(a, 1, A, 1, 1000, IPROF_PC_RETSITE);
	na = node_at(a, A, -1);
	assert_int_equal(na->total_ns, 960);
	assert_int_equal(na->min_ns, 960);
	/* an inlined instance: 2000 - 500 (its class's means), not - 40 */
	PSTART(a, 2, A, 1, 0, IPROF_PC_UINLINE);
	PSTOP(a, 2, A, 1, 2000, IPROF_PC_UINLINE);
	assert_int_equal(na->total_ns, 960 + 1500);
	assert_int_equal(na->max_ns, 1500);
	assert_int_equal(na->hist->slot[hist_slot(1500)], 1);
	/* the spread: 30^2 x (10 + 30) / 100, then 40^2 x 500 / 800 */
	assert_true(fabs(na->err_var_ns2 - (900.0 * 40 / 100 + 1000)) < 1);
	/* entered at an instance, left out of line: 250 + 30 */
	PSTART(a, 3, A, 1, 0, IPROF_PC_UINLINE);
	PSTOP(a, 3, A, 1, 3000, IPROF_PC_RETSITE);
	assert_int_equal(na->total_ns, 960 + 1500 + 2720);
	/* no class said (a recording of ABI 10): the timer's */
	START(a, 4, A, 1, 0);
	STOP(a, 4, A, 1, 1000);
	assert_int_equal(na->total_ns, 960 + 1500 + 2720 + 960);
	assert_int_equal(na->count, 4);
	assert_int_equal(na->uncertain, 0);
	agg__free(a);
}

/*
 * A probe at a site the kernel emulates costs a single step less than its
 * class's single-stepped one (agg_cost step_ns, AGG_COST_*_STEP): a
 * return site at a tail call's jmp (IPROF_PC_RETSITE_EMU) in the stop's
 * outside part, which B's parent A loses; an inlined instance entered at
 * an emulated instruction (IPROF_PC_UINLINE_EMU) in the start's inside
 * part, which B loses; a step not known moves nothing.  The spread
 * moves with the cost: its variance per ns of cost stays the class's.
 */
static void test_costs_step(void **state)
{
	static struct agg_cost costs[NTIMERS] = {
		/* out of line: an emulated entry, stops at a ret (its step,
		 * 1000, in the stop's out part); inlined: both stepped */
		[B] = { .start_in_ns = 100, .start_out_ns = 200,
			.stop_in_ns = 100, .stop_out_ns = 1200,
			.flags = AGG_COST_MEAN | AGG_COST_STOP_STEP,
			.mean_start_in_ns = 100, .mean_start_out_ns = 200,
			.mean_stop_in_ns = 100, .mean_stop_out_ns = 1200,
			.inl_flags = AGG_COST_MEAN | AGG_COST_START_STEP |
				     AGG_COST_STOP_STEP,
			.inl_in_ns = 1200, .inl_out_ns = 1400,
			.inl_mean_in_ns = 1200, .inl_mean_out_ns = 1400,
			.sd_ns = 1000, .step_ns = 1000, .mean_step_ns = 1000 },
	};
	struct agg *a;
	const struct agg_node *na, *nb;
	uint32_t f, s;

	(void)state;
	/* the halves: the step on its side, the rest shared */
	agg_cost_halves(1200, 1000, 0, &f, &s);
	assert_int_equal(f, 1100);
	assert_int_equal(s, 100);
	agg_cost_halves(1400, 0, 1000, &f, &s);
	assert_int_equal(f, 200);
	assert_int_equal(s, 1200);
	agg_cost_halves(500, 1000, 0, &f, &s); /* cut to fit */
	assert_int_equal(f, 500);
	assert_int_equal(s, 0);
	assert_int_equal(agg_pc_step(IPROF_PC_RETSITE), 1);
	assert_int_equal(agg_pc_step(IPROF_PC_UINLINE_EMU), 0);
	assert_int_equal(agg_pc_step(IPROF_PC_UENTRY), -1);

	for (int known = 1; known >= 0; known--) {
		costs[B].step_ns = costs[B].mean_step_ns = known ? 1000 : 0;
		a = new_agg();
		assert_int_equal(agg__set_costs(a, costs), 0);
		/* B stops at a ret, then at a tail call's jmp */
		START(a, 1, A, 1, 0);
		PSTART(a, 1, B, 2, 3000, IPROF_PC_UENTRY);
		PSTOP(a, 1, B, 2, 4000, IPROF_PC_RETSITE);
		STOP(a, 1, A, 1, 10000);
		START(a, 2, A, 1, 0);
		PSTART(a, 2, B, 2, 3000, IPROF_PC_UENTRY);
		PSTOP(a, 2, B, 2, 4000, IPROF_PC_RETSITE_EMU);
		STOP(a, 2, A, 1, 10000);
		na = node_at(a, A, -1);
		nb = node_at(a, A, B, -1);
		assert_int_equal(nb->total_ns, 2 * (1000 - 200));
		assert_int_equal(na->min_ns, 10000 - 1600);
		assert_int_equal(na->max_ns, known ? 10000 - 600 : 10000 - 1600);
		/* B's whole spread in A: its class's variance, 1000^2, for
		 * the call with both steps; with one, its cost 600 of 1600 */
		assert_true(fabs(na->err_var_ns2 -
				 (known ? 1e6 + 1e6 * 600 / 1600 : 2e6)) < 2000);
		/* inlined, entered at an emulated instruction: its inside
		 * part 1200 less the step; stepped: all of it */
		PSTART(a, 3, B, 1, 0, IPROF_PC_UINLINE_EMU);
		PSTOP(a, 3, B, 1, 5000, IPROF_PC_UINLINE);
		PSTART(a, 4, B, 1, 0, IPROF_PC_UINLINE);
		PSTOP(a, 4, B, 1, 5000, IPROF_PC_UINLINE);
		nb = node_at(a, B, -1);
		assert_int_equal(nb->count, 2);
		assert_int_equal(nb->max_ns, known ? 5000 - 200 : 5000 - 1200);
		assert_int_equal(nb->min_ns, 5000 - 1200);
		agg__free(a);
	}
}

/*
 * A split entry (IPROF_REC_GAP() of abi.h): B's START at its split site
 * (IPROF_PC_USPLIT) carries the gap since its mark, which its parent A
 * loses beside B's calibrated parts; a START with no gap loses the
 * calibrated one (mean_gap_ns); a gap past 4 x the median + 50 us
 * too (a preemption); one that holds the thread's last off-CPU time (the
 * switch records counted it) loses that part of it; B itself loses its
 * own in parts only.
 */
/* B's probes: a split entry's class, its gap and its cold part (the
 * times lose the gap, the error bars hold the cold part) */
static const struct agg_cost split_costs[NTIMERS] = {
	[B] = { .start_in_ns = 10, .start_out_ns = 20, .stop_in_ns = 30,
		.stop_out_ns = 40, .flags = AGG_COST_MEAN,
		.mean_start_in_ns = 10, .mean_start_out_ns = 20,
		.mean_stop_in_ns = 30, .mean_stop_out_ns = 40,
		.gap_ns = 1600, .mean_gap_ns = 1700, .cold_ns = 30 },
};

static void test_costs_split(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;

	(void)state;
	assert_int_equal(agg__set_costs(a, split_costs), 0);
	/* a gap of 100 units (1600 ns): A 10000 - (10+20+30+40) - 1600 */
	START(a, 1, A, 1, 0);
	PSTART(a, 1, B, 2, 3000, IPROF_PC_USPLIT | 100u << 8);
	PSTOP(a, 1, B, 2, 4000, IPROF_PC_URETPROBE);
	STOP(a, 1, A, 1, 10000);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	assert_int_equal(nb->total_ns, 1000 - 40);
	assert_int_equal(na->total_ns, 10000 - 100 - 1600);
	/* none measured: the calibrated mean (every statistic takes the
	 * sums' duration) */
	START(a, 2, A, 1, 0);
	PSTART(a, 2, B, 2, 3000, IPROF_PC_USPLIT);
	PSTOP(a, 2, B, 2, 4000, IPROF_PC_URETPROBE);
	STOP(a, 2, A, 1, 10000);
	assert_int_equal(na->total_ns, 2 * 10000 - 2 * 100 - 1600 - 1700);
	assert_int_equal(na->min_ns, 10000 - 100 - 1700);
	/* 0xffff units (a preemption): the calibrated mean */
	START(a, 3, A, 1, 0);
	PSTART(a, 3, B, 2, 3000000, IPROF_PC_USPLIT | 0xffffu << 8);
	PSTOP(a, 3, B, 2, 3001000, IPROF_PC_URETPROBE);
	STOP(a, 3, A, 1, 4000000);
	assert_int_equal(na->total_ns,
			 2 * 10000 - 2 * 100 - 1600 - 1700 + 4000000 - 100 -
				 1700);
	/* a gap of 1000 units (16000 ns) of which 12000 off-CPU, counted
	 * by the switch records: 4000 of it the probes' */
	START(a, 4, A, 1, 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, 4, 20000, 0, 0,
				  IPROF_OFF_RUNQ),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, 4, 32000, 0, 0,
				  0),
			 0);
	PSTART(a, 4, B, 2, 34000, IPROF_PC_USPLIT | 1000u << 8);
	PSTOP(a, 4, B, 2, 35000, IPROF_PC_URETPROBE);
	STOP(a, 4, A, 1, 100000);
	assert_int_equal(na->count, 4);
	assert_int_equal(na->max_ns, 4000000 - 100 - 1700);
	assert_int_equal(na->oncpu_ns,
			 2 * 10000 - 2 * 100 - 1600 - 1700 + 4000000 - 100 -
				 1700 + 100000 - 12000 - 100 - 4000);
	assert_int_equal(nb->count, 4);
	assert_int_equal(nb->total_ns, 4 * (1000 - 40));
	agg__free(a);
}

/*
 * cold_ns (the probes' inside part fired cold): each call's own bias, in
 * its error bar and its self's, and so its caller's (whose own probes
 * have none here): B's two calls 2 x 30 ns, A holds them (B's starts say
 * no split site: no gap).
 */
static void test_costs_cold(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;

	(void)state;
	assert_int_equal(agg__set_costs(a, split_costs), 0);
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 100);
	STOP(a, 1, B, 2, 1100);
	START(a, 1, B, 2, 2000);
	STOP(a, 1, B, 2, 3000);
	STOP(a, 1, A, 1, 10000);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	assert_true(fabs(nb->err_sys_ns - 60) < 1e-9);
	assert_true(fabs(nb->self_err_sys_ns - 60) < 1e-9);
	assert_true(fabs(na->err_sys_ns - 60) < 1e-9);
	agg__free(a);
}

/* a START or STOP of @timer on CPU @cpu */
#define CSTART(a, tid, timer, d, ts, cpu)                                      \
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, timer, tid, ts, d,    \
				  cpu, 0),                                     \
			 0)
#define CSTOP(a, tid, timer, d, ts, cpu)                                       \
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, timer, tid, ts, d,     \
				  cpu, 0),                                     \
			 0)

/*
 * Each probe costs what its CPU's probes cost (agg__set_cpu_scale()): a
 * call started and stopped on CPU 1 (x1.5) loses 1.5 times the
 * calibrated parts, one started on CPU 0 (x0.8) and stopped on CPU 1 its
 * start's part x0.8 and its stop's x1.5, a CPU past the table x1; a hit
 * (no return) charges its parent its start's parts at its CPU's factor;
 * factors 0 or a table past AGG_CPU_SCALE_MAX are refused.
 */
static void test_costs_cpu(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[A] = { .start_in_ns = 100, .start_out_ns = 50,
			.stop_in_ns = 200, .stop_out_ns = 50 },
		[B] = { .start_in_ns = 100, .start_out_ns = 40 },
	};
	static const uint16_t pm[2] = { 800, 1500 };
	static const uint16_t zero[1] = { 0 };
	uint16_t big[AGG_CPU_SCALE_MAX + 1];
	struct agg *a = new_agg();
	const struct agg_node *na;

	(void)state;
	for (unsigned int i = 0; i <= AGG_CPU_SCALE_MAX; i++)
		big[i] = 1000;
	assert_int_equal(agg__set_costs(a, costs), 0);
	assert_int_equal(agg__set_cpu_scale(a, zero, 1), -EINVAL);
	assert_int_equal(agg__set_cpu_scale(a, big, AGG_CPU_SCALE_MAX + 1),
			 -EINVAL);
	assert_int_equal(agg__set_cpu_scale(a, pm, 2), 0);
	/* CPU 1: 10000 - 1.5 x (100 + 200) */
	CSTART(a, 1, A, 1, 0, 1);
	CSTOP(a, 1, A, 1, 10000, 1);
	na = node_at(a, A, -1);
	assert_non_null(na);
	assert_int_equal(na->total_ns, 9550);
	/* CPU 0 then 1: 10000 - (0.8 x 100 + 1.5 x 200) */
	CSTART(a, 2, A, 1, 0, 0);
	CSTOP(a, 2, A, 1, 10000, 1);
	assert_int_equal(na->total_ns, 9550 + 9620);
	/* CPU 7, past the table: 10000 - 300 */
	CSTART(a, 3, A, 1, 0, 7);
	CSTOP(a, 3, A, 1, 10000, 7);
	assert_int_equal(na->total_ns, 9550 + 9620 + 9700);
	/* a hit of B on CPU 1 inside A on CPU 0: A loses 0.8 x 100 of its
	 * own start, 1.5 x (100 + 40) of B's, 200 x 0.8 of its stop */
	CSTART(a, 4, A, 1, 0, 0);
	assert_int_equal(rec_push(a, IPROF_REC_HIT, 0, B, 4, 10, 1, 1, 0), 0);
	CSTOP(a, 4, A, 1, 10000, 0);
	assert_int_equal(na->total_ns, 9550 + 9620 + 9700 +
					       (10000 - 80 - 210 - 160));
	/* cleared: the same everywhere */
	assert_int_equal(agg__set_cpu_scale(a, NULL, 0), 0);
	CSTART(a, 5, A, 1, 0, 1);
	CSTOP(a, 5, A, 1, 10000, 1);
	assert_int_equal(na->total_ns, 9550 + 9620 + 9700 + 9550 + 9700);
	agg__free(a);
}

/*
 * The factors per CPU from the calibration's rounds (calib_rounds_on()):
 * each CPU's rounds' mean cost (less the untraced call) over all rounds',
 * clamped to [250, 4000], a CPU without a round 1000; calib_cpu_scale()
 * weights the classes by their mean cost.
 */
static void test_calib_cpu(void **state)
{
	/* rounds on CPUs 0, 2, 0, 2: costs 90, 130, 90, 130 over b = 10 */
	static const uint64_t m[4] = { 100, 140, 100, 140 };
	static const uint16_t cpu[4] = { 0, 2, 0, 2 };
	static const uint64_t low[2] = { 10, 10 };
	static const uint16_t cpu2[2] = { 0, 1 };
	uint16_t pm[3] = { 0 };
	struct calib cal = { 0 };

	(void)state;
	assert_int_equal(calib_rounds_on(m, cpu, 4, 10, pm, 3), 0);
	assert_int_equal(pm[0], 818); /* 90 / 110 */
	assert_int_equal(pm[1], 1000);
	assert_int_equal(pm[2], 1182);
	assert_int_equal(calib_rounds_on(low, cpu2, 2, 10, pm, 2), -1);
	assert_int_equal(calib_rounds_on(m, cpu, 4, 10, pm,
					 AGG_CPU_SCALE_MAX + 1),
			 -1);
	/* clamps */
	{
		static const uint64_t w[2] = { 1010, 1 };

		assert_int_equal(calib_rounds_on(w, cpu2, 2, 0, pm, 2), 0);
		assert_int_equal(pm[0], 1998);
		assert_int_equal(pm[1], 250);
	}
	/* two classes, mean costs 100 and 300: (100 x 900 + 300 x 1100) /
	 * 400 on CPU 0; a class not done does not count */
	cal.r[0] = (struct calib_result){ .done = 1, .b_mean_ns = 10,
					  .t_mean_ns = 110, .ncpu = 2,
					  .cpu_pm = { 900, 1100 } };
	cal.r[1] = (struct calib_result){ .done = 1, .b_mean_ns = 0,
					  .t_mean_ns = 300, .ncpu = 1,
					  .cpu_pm = { 1100 } };
	cal.r[2] = (struct calib_result){ .done = 0, .t_mean_ns = 999,
					  .ncpu = 2, .cpu_pm = { 4000, 4000 } };
	calib_cpu_scale(&cal);
	assert_int_equal(cal.ncpu_pm, 2);
	assert_int_equal(cal.cpu_pm[0], 1050);
	assert_int_equal(cal.cpu_pm[1], 1100);
}

/*
 * Overhead compensation (agg__set_costs()): each call loses its own
 * probes' inside parts and every probe that fired in its children; the
 * raw sums stay beside; counts never change; a parent is never shorter
 * than its children; an unwound child's start probe is charged and the
 * parent marked uncertain.
 */
static void test_costs(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[A] = { .start_in_ns = 10, .start_out_ns = 20, .stop_in_ns = 30,
			.stop_out_ns = 40 },
		[B] = { .start_in_ns = 1, .start_out_ns = 2, .stop_in_ns = 3,
			.stop_out_ns = 4 },
		[C] = { .flags = AGG_COST_UNKNOWN },
	};
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;

	(void)state;
	assert_int_equal(agg__set_costs(a, costs), 0);
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 100);
	STOP(a, 1, B, 2, 200);
	START(a, 1, B, 2, 300);
	STOP(a, 1, B, 2, 350);
	STOP(a, 1, A, 1, 1000);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	/* B: 100 - (1 + 3), 50 - 4 */
	assert_int_equal(nb->count, 2);
	assert_int_equal(nb->total_ns, 96 + 46);
	assert_int_equal(nb->min_ns, 46);
	assert_int_equal(nb->max_ns, 96);
	assert_int_equal(nb->raw_total_ns, 150);
	assert_int_equal(nb->oncpu_ns, 142);
	/* A: 1000 - (10 + 30) - 2 x (1 + 2 + 3 + 4) = 940, self 940 - 142 */
	assert_int_equal(na->count, 1);
	assert_int_equal(na->total_ns, 940);
	assert_int_equal(na->self_ns, 798);
	assert_int_equal(na->raw_total_ns, 1000);
	assert_int_equal(na->raw_self_ns, 850);
	assert_int_equal(na->uncertain, 0);
	assert_int_equal(na->hist->slot[hist_slot(940)], 1);

	/* more cost than time: clamped at the child's compensated 46 */
	START(a, 2, A, 1, 2000);
	START(a, 2, B, 2, 2001);
	STOP(a, 2, B, 2, 2051);
	STOP(a, 2, A, 1, 2060);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 940 + 46);
	assert_int_equal(na->self_ns, 798 + 0);
	assert_int_equal(na->min_ns, 46);
	assert_int_equal(nb->total_ns, 142 + 46);
	/* the 50 ns of probes taken out were more than the 46 left */
	assert_int_equal(na->dominated, 1);
	assert_int_equal(nb->dominated, 0);

	/* B unwound by A's stop: its start probe (1 + 2) charged to A, which
	 * is uncertain: 100 - 3 - (10 + 30) */
	START(a, 3, A, 1, 3000);
	START(a, 3, B, 2, 3010);
	STOP(a, 3, A, 1, 3100);
	assert_int_equal(na->count, 3);
	assert_int_equal(na->total_ns, 940 + 46 + 57);
	assert_int_equal(na->uncertain, 1);
	assert_int_equal(nb->unwound, 1);

	/* an uncalibrated child: its parent's call is uncertain, and so is
	 * the child's own */
	START(a, 4, A, 1, 4000);
	START(a, 4, C, 2, 4010);
	STOP(a, 4, C, 2, 4020);
	STOP(a, 4, A, 1, 4100);
	assert_int_equal(na->uncertain, 2);
	assert_int_equal(node_at(a, A, C, -1)->uncertain, 1);
	assert_int_equal(node_at(a, A, C, -1)->total_ns, 10);

	/*
	 * The probes ran on the CPU, so their cost comes off the on-CPU
	 * part, and a parent keeps at least its children's on-CPU time; the
	 * preemptions that fell in them go too: the runnable time scaled by
	 * the on-CPU time left over the raw one.  B: raw 90, runnable 40,
	 * on 50 - 4, runnable 40 x 46 / 50 = 36; A: raw 200, on 160 - (10 +
	 * 30) - (4 + 6) = 110, runnable 40 x 110 / 160 = 27.
	 */
	START(a, 6, A, 1, 6000);
	START(a, 6, B, 2, 6010);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, 6, 6020, 0, 0,
				  IPROF_OFF_RUNQ),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, 6, 6060, 0, 0,
				  0),
			 0);
	STOP(a, 6, B, 2, 6100);
	STOP(a, 6, A, 1, 6200);
	{
		const struct agg_node *a6 = node_at(a, A, -1), *b6;

		b6 = node_at(a, A, B, -1);
		assert_int_equal(b6->runq_ns, 36);
		assert_int_equal(b6->oncpu_ns, 142 + 46 + 46);
		assert_int_equal(b6->total_ns, 142 + 46 + 46 + 36);
		assert_int_equal(a6->runq_ns, 27);
		assert_int_equal(a6->total_ns, 940 + 46 + 57 + 60 + 137);
		assert_int_equal(a6->oncpu_ns - (940 + 46 + 57 + 60), 110);
	}

	/* NULL: raw again */
	assert_int_equal(agg__set_costs(a, NULL), 0);
	START(a, 5, B, 1, 5000);
	STOP(a, 5, B, 1, 5100);
	assert_int_equal(node_at(a, B, -1)->total_ns, 100);
	agg__free(a);
}

/*
 * Costs with means (AGG_COST_MEAN): every statistic loses the mean costs
 * (the sums, min, max, the histogram: one duration per call, so that a
 * node of one call has min = avg = max = total); a parent of two
 * children, then one clamped at its child's time in each compensation,
 * and what the clamp added given back by the thread's next call there.
 */
static void test_costs_mean(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[A] = { .start_in_ns = 10, .start_out_ns = 20,
			.stop_in_ns = 30, .stop_out_ns = 40,
			.flags = AGG_COST_MEAN,
			.mean_start_in_ns = 15, .mean_start_out_ns = 25,
			.mean_stop_in_ns = 35, .mean_stop_out_ns = 45 },
		[B] = { .start_in_ns = 1, .start_out_ns = 2, .stop_in_ns = 3,
			.stop_out_ns = 4, .flags = AGG_COST_MEAN,
			.mean_start_in_ns = 2, .mean_start_out_ns = 3,
			.mean_stop_in_ns = 4, .mean_stop_out_ns = 5 },
	};
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;

	(void)state;
	assert_int_equal(agg__set_costs(a, costs), 0);
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 100);
	STOP(a, 1, B, 2, 200);
	START(a, 1, B, 2, 300);
	STOP(a, 1, B, 2, 350);
	STOP(a, 1, A, 1, 1000);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	/* B by the means: 100 - 6 and 50 - 6, min, max, histogram alike */
	assert_int_equal(nb->count, 2);
	assert_int_equal(nb->min_ns, 44);
	assert_int_equal(nb->max_ns, 94);
	assert_int_equal(nb->hist->slot[hist_slot(94)], 1);
	assert_int_equal(nb->hist->slot[hist_slot(44)], 1);
	assert_int_equal(nb->total_ns, 94 + 44);
	assert_int_equal(nb->oncpu_ns, 138);
	assert_int_equal(nb->raw_total_ns, 150);
	/* A, one call: 1000 - 50 - 2 x 14 = 922, min = max = total, self
	 * 922 - 138 */
	assert_int_equal(na->min_ns, 922);
	assert_int_equal(na->max_ns, 922);
	assert_int_equal(na->hist->slot[hist_slot(922)], 1);
	assert_int_equal(na->total_ns, 922);
	assert_int_equal(na->self_ns, 922 - 138);
	assert_int_equal(na->oncpu_ns, 922);

	/* more cost than time: clamped at its child's time, 44 */
	START(a, 2, A, 1, 2000);
	START(a, 2, B, 2, 2001);
	STOP(a, 2, B, 2, 2051);
	STOP(a, 2, A, 1, 2060);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->min_ns, 44);
	assert_int_equal(na->hist->slot[hist_slot(44)], 1);
	assert_int_equal(na->total_ns, 922 + 44);
	assert_int_equal(na->self_ns, 922 - 138 + 0);
	assert_int_equal(nb->total_ns, 138 + 44);
	assert_int_equal(na->dominated, 1);

	/*
	 * That clamp added 44 - (60 - 50 - 14) = 48 ns to thread 2's call
	 * (its probes cost less than their mean there): a later call of
	 * thread 2 on the same path gives it back, 200 - 50 - 48, so that
	 * the sum stays unbiased, and so does that call's own place (min,
	 * histogram); thread 3 owes nothing.
	 */
	assert_int_equal(na->clamped_ns, 48);
	START(a, 3, A, 1, 3000);
	STOP(a, 3, A, 1, 3200);
	assert_int_equal(na->total_ns, 922 + 44 + 150);
	assert_int_equal(na->clamped_ns, 48);
	START(a, 2, A, 1, 4000);
	STOP(a, 2, A, 1, 4200);
	assert_int_equal(na->total_ns, 922 + 44 + 150 + 102);
	assert_int_equal(na->self_ns, 922 - 138 + 0 + 150 + 102);
	assert_int_equal(na->hist->slot[hist_slot(150)], 1);
	assert_int_equal(na->hist->slot[hist_slot(102)], 1);
	assert_int_equal(na->min_ns, 44);
	assert_int_equal(na->max_ns, 922);
	assert_int_equal(na->clamped_ns, 0);
	/* paid: the next one loses its mean cost only */
	START(a, 2, A, 1, 5000);
	STOP(a, 2, A, 1, 5200);
	assert_int_equal(na->total_ns, 922 + 44 + 150 + 102 + 150);
	agg__free(a);
}

/*
 * The compensation's uncertainty (struct agg_cost sd_ns, drift_ns): each
 * probe part taken out carries its share (its mean over the four means')
 * of the variance sd_ns^2 and of the bias drift_ns: B's own parts inside
 * it (2 + 4 of 14), outside it (3 + 5) in A's total and self, A's own
 * inside (15 + 35 of 120) in A's.
 */
static void test_costs_err(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[A] = { .start_in_ns = 10, .start_out_ns = 20,
			.stop_in_ns = 30, .stop_out_ns = 40,
			.flags = AGG_COST_MEAN,
			.mean_start_in_ns = 15, .mean_start_out_ns = 25,
			.mean_stop_in_ns = 35, .mean_stop_out_ns = 45,
			.sd_ns = 12, .drift_ns = 6 },
		[B] = { .start_in_ns = 1, .start_out_ns = 2, .stop_in_ns = 3,
			.stop_out_ns = 4, .flags = AGG_COST_MEAN,
			.mean_start_in_ns = 2, .mean_start_out_ns = 3,
			.mean_stop_in_ns = 4, .mean_stop_out_ns = 5,
			.sd_ns = 14, .drift_ns = 7 },
	};
	struct agg *a = new_agg();
	const struct agg_node *na, *nb;

	(void)state;
	assert_int_equal(agg__set_costs(a, costs), 0);
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 100);
	STOP(a, 1, B, 2, 200);
	STOP(a, 1, A, 1, 1000);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	/* B: 196 x 6 / 14, 7 x 6 / 14 */
	assert_true(nb->err_var_ns2 == 84 && nb->err_sys_ns == 3);
	assert_true(nb->self_err_var_ns2 == 84 && nb->self_err_sys_ns == 3);
	/* A: B's 84 + 3 in, 112 + 4 out, its own 144 x 50 / 120 = 60 and
	 * 6 x 50 / 120 = 2.5; its self: B's outside parts and its own */
	assert_true(na->err_var_ns2 == 84 + 112 + 60);
	assert_true(na->err_sys_ns == 3 + 4 + 2.5);
	assert_true(na->self_err_var_ns2 == 112 + 60);
	assert_true(na->self_err_sys_ns == 4 + 2.5);
	/* one call: every statistic the same */
	assert_int_equal(na->min_ns, na->total_ns);
	assert_int_equal(na->max_ns, na->total_ns);
	agg__free(a);

	/*
	 * The runnable time kept is the share of on-CPU time the thread's
	 * calls there kept so far, this one's included: 950 of 1000, then a
	 * call of 100 on CPU (50 kept) and 500 runnable: 500 x (950 + 50) /
	 * (1000 + 100) = 454 (its own share alone would say 250).
	 */
	a = new_agg();
	assert_int_equal(agg__set_costs(a, costs), 0);
	START(a, 5, A, 1, 0);
	STOP(a, 5, A, 1, 1000);
	START(a, 5, A, 1, 2000);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, 5, 2010, 0, 0,
				  IPROF_OFF_RUNQ),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, 5, 2510, 0, 0,
				  0),
			 0);
	STOP(a, 5, A, 1, 2600);
	na = node_at(a, A, -1);
	assert_int_equal(na->oncpu_ns, 950 + 50);
	assert_int_equal(na->runq_ns, 454);
	assert_int_equal(na->runq_out_ns, 46);
	assert_int_equal(na->total_ns, 950 + 50 + 454);
	assert_int_equal(na->max_ns, 950);
	assert_int_equal(na->min_ns, 504);
	agg__free(a);
}

/*
 * The calibration's spread (calib_spread()): one call's standard deviation
 * pooled over the rounds, a preemption left out as calib_mean() does; the
 * drift, the rounds' means' spread plus the mean's standard error; a
 * timer's cost carries both (a start probe alone half the variance and
 * half the bias).
 */
static void test_calib_spread(void **state)
{
	uint64_t two[8] = { 10, 10, 10, 10, 20, 20, 20, 20 };
	uint64_t one[5] = { 40, 10, 30, 20, 5000000 };
	struct calib cal = { 0 };
	struct calib_result *r = &cal.r[CALIB_URETPROBE];
	uint32_t sd, drift;
	struct agg_cost k;

	(void)state;
	/* no spread within a round; the means 10 and 20: sd 7.07 */
	calib_spread(two, 8, 2, &sd, &drift);
	assert_int_equal(sd, 0);
	assert_int_equal(drift, 7);
	/* 5 ms left out; 10..40: mean 25, variance 500 / 3, sd 12.9, its
	 * mean's standard error sqrt(166.7 / 4) = 6.45 */
	calib_spread(one, 5, 1, &sd, &drift);
	assert_int_equal(sd, 12);
	assert_int_equal(drift, 6);
	r->t_ns = r->t_mean_ns = r->d_ns = r->d_mean_ns = 100;
	calib_derive(r);
	r->sd_ns = 100;
	r->drift_ns = 40; /* above the floor, a quarter of 100 */
	k = calib_cost(&cal, CALIB_URETPROBE, 0);
	assert_int_equal(k.sd_ns, 100);
	assert_int_equal(k.drift_ns, 40);
	k = calib_cost(&cal, CALIB_URETPROBE, 1);
	assert_int_equal(k.sd_ns, 70);
	assert_int_equal(k.drift_ns, 20);
}

/*
 * The calibration's arithmetic (include/iprof/calib_cost.h): the median; the
 * mean without the calls far above it (a preemption), with the probes'
 * slow hits kept; in and out from both; a timer's cost split between its
 * probes, entry-only and not measured.
 */
static void test_calib_arith(void **state)
{
	uint64_t v[10] = { 100, 100, 100, 100, 100, 100, 100, 100, 300,
			   5000000 };
	struct calib cal = { 0 };
	struct calib_result *r = &cal.r[CALIB_URETPROBE];
	struct agg_cost k;

	(void)state;
	assert_int_equal(calib_median(v, 10), 100);
	/* 5 ms is above 4 x 100 + 50 us: left out; 300 kept */
	assert_int_equal(calib_mean(v, 10), (8 * 100 + 300) / 9);
	r->b_ns = 20;
	r->t_ns = 1000;
	r->d_ns = 700;
	r->b_mean_ns = 20;
	r->t_mean_ns = 1200;
	r->d_mean_ns = 800;
	calib_derive(r);
	assert_int_equal(r->done, 1);
	assert_int_equal(r->in_ns, 700);
	assert_int_equal(r->out_ns, 280);
	assert_int_equal(r->in_mean_ns, 800);
	assert_int_equal(r->out_mean_ns, 380);
	k = calib_cost(&cal, CALIB_URETPROBE, 0);
	assert_int_equal(k.flags, AGG_COST_MEAN);
	assert_int_equal(k.start_in_ns + k.stop_in_ns, 700);
	assert_int_equal(k.start_out_ns + k.stop_out_ns, 280);
	assert_int_equal(k.mean_start_in_ns + k.mean_stop_in_ns, 800);
	assert_int_equal(k.mean_start_out_ns + k.mean_stop_out_ns, 380);
	k = calib_cost(&cal, CALIB_URETPROBE, 1);
	assert_int_equal(k.start_in_ns, 350);
	assert_int_equal(k.mean_start_in_ns, 400);
	assert_int_equal(k.stop_in_ns + k.mean_stop_in_ns, 0);
	/* the drift: the rounds' (none here) plus the mean cost less the
	 * median, 1180 - 980 = 200, but at least a quarter of the mean
	 * cost, 295 (another process's probes: CALIB_PROC_DRIFT); a start
	 * probe alone half of it */
	assert_int_equal(r->skew_ns, 200);
	assert_int_equal(calib_proc_drift(r), 295);
	assert_int_equal(calib_drift(r), 295);
	assert_int_equal(calib_cost(&cal, CALIB_URETPROBE, 0).drift_ns, 295);
	assert_int_equal(calib_cost(&cal, CALIB_URETPROBE, 1).drift_ns, 147);
	/* the measured parts above the floor: theirs; the report gives
	 * every part */
	r->needed = 1;
	r->drift_ns = 300;
	{
		struct report_calib rc[CALIB_NCLASS];

		assert_int_equal(calib_report(&cal, 1u << CALIB_URETPROBE, rc),
				 1);
		assert_int_equal(rc[0].drift_ns, 500);
		assert_int_equal(rc[0].drift_rounds_ns, 300);
		assert_int_equal(rc[0].skew_ns, 200);
		assert_int_equal(rc[0].proc_drift_ns, 295);
	}
	calib_cost_inline(&cal, CALIB_URETPROBE, &k);
	assert_int_equal(k.inl_drift_ns, 500);
	r->drift_ns = 0;
	/* a traced call faster than untraced: out clamps at 0 */
	r->t_ns = 500;
	calib_derive(r);
	assert_int_equal(r->out_ns, 0);
	assert_int_equal(calib_cost(&cal, CALIB_FENTRY, 0).flags,
			 AGG_COST_UNKNOWN);
	assert_int_equal(calib_cost(&cal, CALIB_NONE, 0).flags, 0);
}

/*
 * The single step (calib_step()): CALIB_RETSITE_STEP's in part less
 * CALIB_RETSITE's (their functions differ in their first instruction
 * only), medians and means; where they stop alike only.  A class whose
 * entry is single-stepped holds it in its start's inside part, one whose
 * stops are in its stop's outside part (calib_cost()), the rest halved.
 */
static void test_calib_step(void **state)
{
	struct calib cal = { 0 };
	struct calib_result *e = &cal.r[CALIB_RETSITE];
	struct calib_result *s = &cal.r[CALIB_RETSITE_STEP];
	uint32_t med, mean;
	struct agg_cost k;

	(void)state;
	assert_int_equal(calib_step(&cal, &med, &mean), 0);
	*e = (struct calib_result){ .done = 1, .in_ns = 600, .out_ns = 17600,
				    .in_mean_ns = 700, .out_mean_ns = 18000,
				    .stop_step = 1 };
	*s = *e;
	s->in_ns = 17400;
	s->in_mean_ns = 18000;
	assert_int_equal(calib_step(&cal, &med, &mean), 1);
	assert_int_equal(med, 16800);
	assert_int_equal(mean, 17300);
	k = calib_cost(&cal, CALIB_RETSITE, 0);
	assert_int_equal(k.flags, AGG_COST_MEAN | AGG_COST_STOP_STEP);
	assert_int_equal(k.step_ns, 16800);
	assert_int_equal(k.start_in_ns, 300);
	assert_int_equal(k.stop_in_ns, 300);
	assert_int_equal(k.start_out_ns, 400);
	assert_int_equal(k.stop_out_ns, 17200);
	assert_int_equal(k.mean_stop_out_ns, 17300 + 350);
	k = calib_cost(&cal, CALIB_RETSITE_STEP, 0);
	assert_int_equal(k.flags, AGG_COST_MEAN | AGG_COST_START_STEP |
					  AGG_COST_STOP_STEP);
	assert_int_equal(k.start_in_ns, 16800 + 300);
	assert_int_equal(k.stop_in_ns, 300);
	/* entry only: the start's parts, no stop step */
	k = calib_cost(&cal, CALIB_RETSITE_STEP, 1);
	assert_int_equal(k.flags, AGG_COST_MEAN | AGG_COST_START_STEP);
	assert_int_equal(k.start_in_ns, 16800 + 300);
	calib_cost_inline(&cal, CALIB_RETSITE_STEP, &k);
	assert_int_equal(k.inl_flags, AGG_COST_MEAN | AGG_COST_START_STEP |
					      AGG_COST_STOP_STEP);
	/* twins that stop differently (the program runs one's ret): none */
	e->stop_step = 0;
	assert_int_equal(calib_step(&cal, &med, &mean), 0);
	assert_int_equal(calib_cost(&cal, CALIB_RETSITE, 0).step_ns, 0);
}

/*
 * The mechanisms' words (include/iprof/mech.h): every one spelled, none
 * twice; the kprobe and user function words by their arguments; each
 * calibration class's words, the kernel function ones a timer's.
 */
static void test_mech_labels(void **state)
{
	int i, j, c;

	(void)state;
	for (i = 0; i < MLABEL_N; i++) {
		assert_non_null(mech_label(i));
		assert_string_not_equal(mech_label(i), "none");
		for (j = 0; j < i; j++)
			assert_string_not_equal(mech_label(i), mech_label(j));
	}
	assert_string_equal(mech_label(MLABEL_N), "none");
	assert_string_equal(mech_label_kprobe(0, 0), "kprobe/kretprobe");
	assert_string_equal(mech_label_kprobe(1, 1),
			    "kprobe (never returns, kprobe_multi)");
	assert_string_equal(mech_label_kprobe(2, 0),
			    "kprobe/kretprobe (kprobe session)");
	assert_string_equal(mech_label_kprobe(7, 1), "kprobe (never returns)");
	assert_string_equal(mech_label_fentry(1), "fentry (never returns)");
	/* inlined first, then entry only, never returns, return sites */
	assert_string_equal(mech_label_ufunc(1, 1, 1, 3, 1),
			    "uprobe (inlined, uprobe_multi)");
	assert_string_equal(mech_label_ufunc(0, 1, 1, 3, 1),
			    "uprobe (entry only)");
	assert_string_equal(mech_label_ufunc(0, 0, 1, 3, 1),
			    "uprobe (never returns)");
	assert_string_equal(mech_label_ufunc(0, 0, 0, 3, 0),
			    "uprobe/return sites");
	assert_string_equal(mech_label_ufunc(0, 0, 0, 0, 1),
			    "uprobe/uretprobe (uprobe_multi)");
	for (c = 0; c < CALIB_NCLASS; c++) {
		assert_string_not_equal(calib_class_name(c), "none");
		for (j = 0; j < c; j++)
			assert_string_not_equal(calib_class_name(c),
						calib_class_name(j));
	}
	assert_string_equal(calib_class_name(CALIB_FENTRY), "fentry/fexit");
	assert_string_equal(calib_class_name(CALIB_KPROBE), "kprobe/kretprobe");
	assert_string_equal(calib_class_name(CALIB_SYSCALL),
			    "syscall tracepoints");
	assert_string_equal(calib_class_name(CALIB_NONE), "none");
}

static void test_malformed(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	struct iprof_rec r = {
		.type = IPROF_REC_START,
		.size = sizeof(r),
		.timer = A,
		.tid = 1,
		.ts = 10,
		.depth = 1,
	};
	struct iprof_rec bad;
	unsigned char buf[sizeof(r) + 1];

	(void)state;
	assert_int_equal(agg__push(a, &r, sizeof(r) - 1), -EINVAL);
	assert_int_equal(agg__push(a, NULL, sizeof(r)), -EINVAL);
	bad = r;
	bad.size = 24;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), -EINVAL);
	bad = r;
	bad.type = 0;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), -EINVAL);
	bad.type = 99;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), -EINVAL);
	bad = r;
	bad.timer = NTIMERS;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), -EINVAL);
	bad.type = IPROF_REC_STOP;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), -EINVAL);
	bad = r;
	bad.depth = 0;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), -EINVAL);
	bad.type = IPROF_REC_STOP;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), -EINVAL);
	assert_int_equal(st->malformed, 9);
	assert_int_equal(st->records, 9);
	assert_int_equal(st->starts + st->stops + st->exits, 0);
	assert_int_equal(st->threads_seen, 0);
	assert_int_equal(st->nodes, 0);

	/* EXIT ignores the timer id */
	bad = r;
	bad.type = IPROF_REC_EXIT;
	bad.timer = 12345;
	assert_int_equal(agg__push(a, &bad, sizeof(bad)), 0);
	assert_int_equal(st->malformed, 9);

	/* an unaligned record is fine */
	memcpy(buf + 1, &r, sizeof(r));
	assert_int_equal(agg__push(a, buf + 1, sizeof(r)), 0);
	assert_int_equal(node_at(a, A, -1)->discarded, 0);

	/* time going backwards: malformed, frame discarded, never wrapped */
	assert_int_equal(push(a, IPROF_REC_STOP, 0, A, 1, 5, 1), -EINVAL);
	assert_int_equal(st->malformed, 10);
	assert_int_equal(node_at(a, A, -1)->count, 0);
	assert_int_equal(node_at(a, A, -1)->discarded, 1);
	assert_int_equal(node_at(a, A, -1)->max_ns, 0);
	/* the thread waits for a root START */
	STOP(a, 1, A, 1, 50);
	assert_int_equal(st->skipped, 1);

	/* at exit too */
	START(a, 1, A, 1, 100);
	assert_int_equal(push(a, IPROF_REC_EXIT, 0, 0, 1, 90, 1), -EINVAL);
	assert_int_equal(st->malformed, 11);
	assert_int_equal(node_at(a, A, -1)->count, 0);
	assert_int_equal(node_at(a, A, -1)->discarded, 2);
	assert_int_equal(st->threads_live, 0);
	agg__free(a);
}

static int push_switch(struct agg *a, uint8_t type, uint32_t tid, uint64_t ts,
		       uint32_t aux)
{
	return rec_push(a, type, 0, 0, tid, ts, 1, 0, aux);
}

#define OUT(a, tid, ts, kind)                                                  \
	assert_int_equal(push_switch(a, IPROF_REC_SWITCH_OUT, tid, ts, kind), 0)
#define IN(a, tid, ts)                                                         \
	assert_int_equal(push_switch(a, IPROF_REC_SWITCH_IN, tid, ts, 0), 0)

/*
 * On/off-CPU: a context switch is charged to every open frame of the
 * thread; runnable (preempted) and blocked are told apart; the parts add up
 * to the total on every node.
 */
static void test_oncpu_offcpu(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *n;

	(void)state;
	START(a, 1, A, 1, 0);
	OUT(a, 1, 10, IPROF_OFF_BLOCKED); /* A blocked 10..30 */
	IN(a, 1, 30);
	OUT(a, 1, 40, IPROF_OFF_RUNQ); /* A preempted 40..45 */
	IN(a, 1, 45);
	START(a, 1, B, 2, 50);
	OUT(a, 1, 60, IPROF_OFF_BLOCKED); /* A and B blocked 60..70 */
	IN(a, 1, 70);
	STOP(a, 1, B, 2, 80);
	STOP(a, 1, A, 1, 100);
	/* a switch of an unknown thread is ignored */
	OUT(a, 99, 5, IPROF_OFF_BLOCKED);

	n = node_at(a, A, -1);
	assert_int_equal(n->total_ns, 100);
	assert_int_equal(n->blocked_ns, 30);
	assert_int_equal(n->runq_ns, 5);
	assert_int_equal(n->oncpu_ns, 65);
	n = node_at(a, A, B, -1);
	assert_int_equal(n->total_ns, 30);
	assert_int_equal(n->blocked_ns, 10);
	assert_int_equal(n->runq_ns, 0);
	assert_int_equal(n->oncpu_ns, 20);
	assert_int_equal(agg__stats(a)->switches, 7);
	assert_int_equal(agg__stats(a)->malformed, 0);
	/* an off kind that does not exist is malformed */
	START(a, 1, A, 1, 200);
	assert_int_equal(push_switch(a, IPROF_REC_SWITCH_OUT, 1, 210, 7),
			 -EINVAL);
	assert_int_equal(agg__stats(a)->malformed, 1);
	agg__free(a);
}


/*
 * Probes that fire in interrupt context go under a per-CPU context root,
 * never into the interrupted thread's stack; the interrupted frames keep
 * their times and show the interrupt's time as IRQ time.
 */
static void test_interrupts(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *n, *ctx;

	(void)state;
	START(a, 5, A, 1, 0);
	/* thread 5 is interrupted: hardirq 10..20 with a softirq nested */
	assert_int_equal(rec_push(a, IPROF_REC_IRQ_ENTER, 0, 0, 5, 10, 1, 1,
				  IPROF_CTX_HARDIRQ), 0);
	/* timer C runs in that hardirq on cpu 1 (tid 0: not thread 5's) */
	assert_int_equal(rec_push(a, IPROF_REC_START, IPROF_F_CTX, C, 0, 11, 1,
				  1, IPROF_CTX_HARDIRQ), 0);
	assert_int_equal(rec_push(a, IPROF_REC_STOP, IPROF_F_CTX, C, 0, 14, 1,
				  1, IPROF_CTX_HARDIRQ), 0);
	assert_int_equal(rec_push(a, IPROF_REC_IRQ_ENTER, 0, 0, 5, 12, 1, 1,
				  IPROF_CTX_SOFTIRQ), 0);
	assert_int_equal(rec_push(a, IPROF_REC_IRQ_EXIT, 0, 0, 5, 15, 1, 1,
				  IPROF_CTX_SOFTIRQ), 0);
	assert_int_equal(rec_push(a, IPROF_REC_IRQ_EXIT, 0, 0, 5, 20, 1, 1,
				  IPROF_CTX_HARDIRQ), 0);
	STOP(a, 5, A, 1, 100);

	n = node_at(a, A, -1);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->total_ns, 100);
	assert_int_equal(n->oncpu_ns, 100);
	assert_int_equal(n->irq_ns, 10);
	assert_int_equal(nchildren(n), 0); /* C did not nest under A */
	/* node_at() takes non-negative ids: look the context root up by hand */
	for (ctx = agg__root(a)->child; ctx; ctx = ctx->next)
		if (ctx->timer == AGG_CTX_TIMER(IPROF_CTX_HARDIRQ, 1))
			break;
	assert_non_null(ctx);
	assert_int_equal(nchildren(agg__root(a)), 2);
	assert_true(AGG_TIMER_IS_CTX(ctx->timer));
	assert_int_equal(AGG_CTX_OF(ctx->timer), IPROF_CTX_HARDIRQ);
	assert_int_equal(AGG_CPU_OF(ctx->timer), 1);
	assert_int_equal(ctx->count, 0);
	n = ctx->child;
	assert_non_null(n);
	assert_int_equal(n->timer, C);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->total_ns, 3);
	assert_int_equal(n->depth, 2);
	assert_int_equal(agg__stats(a)->irqs, 4);
	/* a context record claiming task context is malformed */
	assert_int_equal(rec_push(a, IPROF_REC_START, IPROF_F_CTX, C, 0, 30, 1,
				  0, IPROF_CTX_TASK), -EINVAL);
	agg__free(a);
}

/*
 * --interval-mode delta: agg__reset() zeroes the statistics; a timer open
 * across the reset counts whole in the interval where it stops; threads
 * are counted anew.
 */
static void test_reset(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *n;

	(void)state;
	START(a, 1, A, 1, 0);
	STOP(a, 1, A, 1, 10);
	START(a, 2, A, 1, 20);
	STOP(a, 2, A, 1, 30);
	START(a, 1, A, 1, 40); /* open across the reset */
	n = node_at(a, A, -1);
	assert_int_equal(n->count, 2);
	assert_int_equal(n->threads, 2);
	/* a malformed record: a loss counter, cumulative across resets */
	assert_int_equal(agg__push(a, "x", 1), -EINVAL);
	assert_int_equal(agg__stats(a)->malformed, 1);

	agg__reset(a);
	assert_int_equal(agg__stats(a)->malformed, 1);
	assert_int_equal(n->count, 0);
	assert_int_equal(n->total_ns, 0);
	assert_int_equal(n->threads, 0);
	assert_int_equal(hist_sum(n), 0);
	assert_int_equal(agg__stats(a)->records, 0);
	assert_int_equal(agg__stats(a)->threads_live, 2);
	assert_int_equal(agg__stats(a)->nodes, 1);

	STOP(a, 1, A, 1, 100);
	START(a, 1, A, 1, 110);
	STOP(a, 1, A, 1, 115);
	assert_ptr_equal(node_at(a, A, -1), n); /* same path, same node */
	assert_int_equal(n->count, 2);
	assert_int_equal(n->total_ns, 60 + 5);
	assert_int_equal(n->min_ns, 5);
	assert_int_equal(n->max_ns, 60);
	assert_int_equal(n->first_start_ns, 40);
	assert_int_equal(n->threads, 1); /* thread 1 only, counted anew */
	assert_int_equal(hist_sum(n), 2);
	agg__free(a);
}

static void push_comm(struct agg *a, uint32_t tid, uint32_t tgid,
		      const char *comm)
{
	assert_int_equal(rec_push_comm(a, tid, tgid, comm), 0);
}

/* --by comm follows renames: a rename between timers files the next ones
 * under the new name; one inside an open timer (the COMM comes before a
 * nested START) keeps the open timer and its children under the old name
 * and moves the next top-level timer. */
static void test_by_comm_rename(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *r, *n;
	char buf[32];

	(void)state;
	assert_int_equal(agg__set_by(a, AGG_BY_COMM), 0);
	push_comm(a, 10, 10, "alpha");
	START(a, 10, A, 1, 0);
	STOP(a, 10, A, 1, 1);
	push_comm(a, 10, 10, "beta"); /* between timers */
	START(a, 10, A, 1, 2);
	STOP(a, 10, A, 1, 3);
	START(a, 10, A, 1, 4);
	push_comm(a, 10, 10, "gamma"); /* inside A, before B */
	START(a, 10, B, 2, 5);
	STOP(a, 10, B, 2, 6);
	STOP(a, 10, A, 1, 7);
	START(a, 10, A, 1, 8);
	STOP(a, 10, A, 1, 9);

	r = agg__root(a);
	assert_int_equal(nchildren(r), 3);
	n = r->child;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "alpha");
	assert_int_equal(n->child->count, 1);
	n = n->next;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "beta");
	assert_int_equal(n->child->count, 2);
	assert_int_equal(n->child->child->timer, B);
	assert_int_equal(n->child->child->count, 1);
	n = n->next;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "gamma");
	assert_int_equal(n->child->count, 1);
	assert_null(n->child->child);
	agg__free(a);
}

/* --by comm / tid / tgid: a root per command, thread or process. */
static void test_by(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *r, *n;
	char buf[32];

	(void)state;
	assert_int_equal(agg__set_by(a, AGG_BY_COMM), 0);
	push_comm(a, 10, 10, "qemu");
	push_comm(a, 11, 10, "qemu");
	push_comm(a, 20, 20, "fio");
	START(a, 10, A, 1, 0);
	STOP(a, 10, A, 1, 5);
	START(a, 11, A, 1, 0);
	START(a, 11, B, 2, 1);
	STOP(a, 11, B, 2, 2);
	STOP(a, 11, A, 1, 7);
	START(a, 20, A, 1, 0);
	STOP(a, 20, A, 1, 3);
	START(a, 30, A, 1, 0); /* its COMM was lost: "?" */
	STOP(a, 30, A, 1, 1);
	/* too late to change the split */
	assert_int_equal(agg__set_by(a, AGG_BY_TID), -EINVAL);

	r = agg__root(a);
	assert_int_equal(nchildren(r), 3);
	n = r->child;
	assert_true(AGG_TIMER_IS_SPLIT(n->timer));
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "qemu");
	assert_int_equal(n->count, 0);
	assert_int_equal(n->child->timer, A);
	assert_int_equal(n->child->count, 2);
	assert_int_equal(n->child->threads, 2);
	assert_int_equal(n->child->total_ns, 12);
	assert_int_equal(n->child->child->timer, B);
	assert_int_equal(n->child->child->depth, 3);
	n = n->next;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "fio");
	assert_int_equal(n->child->count, 1);
	n = n->next;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "?");
	agg__free(a);

	a = new_agg();
	assert_int_equal(agg__set_by(a, AGG_BY_TGID), 0);
	{
		/* thread 11 of process 10 */
		struct iprof_rec rec = { .type = IPROF_REC_START,
					 .size = sizeof(rec), .timer = A,
					 .tid = 11, .tgid = 10, .depth = 1 };

		assert_int_equal(agg__push(a, &rec, sizeof(rec)), 0);
		rec.type = IPROF_REC_STOP;
		rec.ts = 5;
		assert_int_equal(agg__push(a, &rec, sizeof(rec)), 0);
	}
	n = agg__root(a)->child;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "pid 10");
	agg__free(a);

	a = new_agg();
	assert_int_equal(agg__set_by(a, AGG_BY_TID), 0);
	START(a, 11, A, 1, 0);
	STOP(a, 11, A, 1, 5);
	n = agg__root(a)->child;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "tid 11");
	assert_int_equal(n->child->count, 1);
	agg__free(a);
}

/* the child of @n for @timer, or NULL */
static const struct agg_node *child_of(const struct agg_node *n, uint32_t timer)
{
	const struct agg_node *c;

	for (c = n ? n->child : NULL; c && c->timer != timer; c = c->next)
		;
	return c;
}

#define OTHER(a) child_of(agg__root(a), AGG_OTHER_TIMER)

/* Sum of the counts of @n's subtree, @n included. */
static uint64_t subtree_count(const struct agg_node *n)
{
	const struct agg_node *c;
	uint64_t sum = n->count;

	for (c = n->child; c; c = c->next)
		sum += subtree_count(c);
	return sum;
}

/* --max-paths: a timer on a path beyond the cap goes into [other], and so
 * does what nests in it; the counts of the tree add up to every timer. */
static void test_cap_paths(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *o;
	uint32_t mp, mk;
	char buf[32];

	(void)state;
	assert_int_equal(agg__set_limits(a, 2, 0), 0);
	agg__limits(a, &mp, &mk);
	assert_int_equal(mp, 2);
	assert_int_equal(mk, 0);
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 1);
	START(a, 1, C, 3, 2); /* a third path: [other] */
	START(a, 1, A, 4, 3); /* nested in [other]: [other] again */
	STOP(a, 1, A, 4, 4);
	STOP(a, 1, C, 3, 6);
	STOP(a, 1, B, 2, 10);
	STOP(a, 1, A, 1, 20);
	START(a, 2, B, 1, 0); /* new top-level path B: [other] */
	STOP(a, 2, B, 1, 5);
	START(a, 2, A, 1, 10); /* known path: still its own */
	STOP(a, 2, A, 1, 11);
	assert_int_equal(agg__stats(a)->folded_paths, 3);
	assert_int_equal(agg__stats(a)->nodes, 3);
	assert_non_null(node_at(a, A, B, -1));
	assert_int_equal(node_at(a, A, -1)->count, 2);
	assert_int_equal(node_at(a, A, B, -1)->count, 1);
	o = OTHER(a);
	assert_non_null(o);
	assert_null(o->child);
	assert_int_equal(o->count, 3);
	/* C 4, the A nested in it 1, B 5: each folded timer's own time;
	 * self leaves out the nested one */
	assert_int_equal(o->total_ns, 10);
	assert_int_equal(o->self_ns, 9);
	assert_int_equal(subtree_count(agg__root(a)), 6);
	assert_string_equal(agg__split_name(a, AGG_OTHER_TIMER, buf,
					    sizeof(buf)), "[other]");
	assert_false(AGG_TIMER_IS_CTX(AGG_OTHER_TIMER));
	assert_false(AGG_TIMER_IS_SPLIT(AGG_OTHER_TIMER));
	/* too late */
	assert_int_equal(agg__set_limits(a, 0, 0), -EINVAL);
	agg__free(a);
}

/* --max-keys with --by tid: a new thread folds the thread idle longest
 * into [other] (paths kept, statistics merged), or goes into [other]
 * itself when every root has a live thread. */
static void test_cap_keys(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *o, *n;
	char buf[32];
	uint32_t tid;

	(void)state;
	assert_int_equal(agg__set_by(a, AGG_BY_TID), 0);
	assert_int_equal(agg__set_limits(a, 0, 2), 0);
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 1);
	STOP(a, 1, B, 2, 2);
	STOP(a, 1, A, 1, 10); /* A: 10 */
	EXIT(a, 1, 11);
	START(a, 2, A, 1, 20);
	STOP(a, 2, A, 1, 50); /* A: 30 */
	EXIT(a, 2, 51);
	/* tid 3: tid 1, idle longest, is folded */
	START(a, 3, A, 1, 60);
	STOP(a, 3, A, 1, 61);
	assert_int_equal(agg__stats(a)->folded_keys, 1);
	o = OTHER(a);
	assert_non_null(o);
	assert_int_equal(o->count, 0);
	n = child_of(OTHER(a), A);
	assert_int_equal(n->count, 1);
	assert_int_equal(child_of(child_of(OTHER(a), A), B)->count, 1);
	assert_null(child_of(agg__root(a), AGG_SPLIT_TIMER(1)));
	/* tid 4: tid 2 folded; merged with tid 1's A */
	START(a, 4, A, 1, 70);
	assert_int_equal(agg__stats(a)->folded_keys, 2);
	n = child_of(OTHER(a), A);
	assert_int_equal(n->count, 2);
	assert_int_equal(n->total_ns, 40);
	assert_int_equal(n->min_ns, 10);
	assert_int_equal(n->max_ns, 30);
	assert_int_equal(n->first_start_ns, 0);
	assert_int_equal(n->last_stop_ns, 50);
	assert_int_equal(n->threads, 2);
	assert_true(n->mean_ns == 20.0);
	assert_true(n->m2_ns == 200.0); /* (10-20)^2 + (30-20)^2 */
	{
		uint64_t hsum = 0;
		unsigned int i;

		assert_non_null(n->hist);
		for (i = 0; i < HIST_SLOTS; i++)
			hsum += n->hist->slot[i];
		assert_int_equal(hsum, 2);
	}
	/* tid 5: 3 and 4 live (4 has a frame open, 3 is known): no idle
	 * root, so tid 5's timers go under [other] itself */
	START(a, 5, A, 1, 80);
	STOP(a, 5, A, 1, 81);
	assert_int_equal(agg__stats(a)->folded_keys, 3);
	assert_int_equal(child_of(OTHER(a), A)->count, 3);
	STOP(a, 4, A, 1, 90);
	/* kept: tid 3 and tid 4 */
	assert_int_equal(child_of(child_of(agg__root(a), AGG_SPLIT_TIMER(3)), A)->count, 1);
	assert_int_equal(child_of(child_of(agg__root(a), AGG_SPLIT_TIMER(4)), A)->count, 1);
	assert_int_equal(subtree_count(agg__root(a)), 5 + 1 /* B */);
	/* churn: many threads, one timer each; the tree stays small */
	for (tid = 100; tid < 10100; tid++) {
		START(a, tid, A, 1, 100 + tid);
		STOP(a, tid, A, 1, 101 + tid);
		EXIT(a, tid, 102 + tid);
	}
	assert_int_equal(subtree_count(agg__root(a)), 6 + 10000);
	assert_true(agg__stats(a)->nodes <= 2 /* roots */ + 2 /* their A */ +
					       3 /* [other] > A > B */ + 2);
	assert_int_equal(agg__stats(a)->threads_live, 3);
	(void)buf;
	agg__free(a);

	/* the path cap folds idle roots to make room for a new thread */
	a = new_agg();
	assert_int_equal(agg__set_by(a, AGG_BY_TID), 0);
	assert_int_equal(agg__set_limits(a, 3, 0), 0);
	START(a, 1, A, 1, 0);
	START(a, 1, B, 2, 1);
	STOP(a, 1, B, 2, 2);
	STOP(a, 1, A, 1, 3);
	EXIT(a, 1, 4);
	START(a, 2, A, 1, 5); /* tid 1's root folded, flattened: full */
	STOP(a, 2, A, 1, 6);
	assert_int_equal(agg__stats(a)->folded_keys, 1);
	assert_int_equal(agg__stats(a)->folded_paths, 0);
	assert_int_equal(OTHER(a)->count, 2);
	assert_null(OTHER(a)->child);
	assert_int_equal(child_of(child_of(agg__root(a), AGG_SPLIT_TIMER(2)),
				  A)->count, 1);
	assert_int_equal(subtree_count(agg__root(a)), 3);
	agg__free(a);
}

static int alive_but_5_6(uint32_t tid, void *ctx)
{
	(void)ctx;
	return tid != 5 && tid != 6;
}

/* agg__prune(): threads gone without an EXIT record, found twice, freed. */
static void test_prune(void **state)
{
	struct agg *a = new_agg();

	(void)state;
	START(a, 5, A, 1, 0); /* open, its EXIT lost */
	START(a, 6, A, 1, 0);
	STOP(a, 6, A, 1, 2); /* idle, its EXIT lost */
	START(a, 7, A, 1, 0); /* alive */
	assert_int_equal(agg__stats(a)->threads_live, 3);
	assert_int_equal(agg__prune(a, alive_but_5_6, NULL), 0);
	assert_int_equal(agg__prune(a, alive_but_5_6, NULL), 2);
	assert_int_equal(agg__stats(a)->threads_live, 1);
	assert_int_equal(agg__stats(a)->pruned, 2);
	assert_int_equal(agg__stats(a)->discarded, 1);
	assert_int_equal(node_at(a, A, -1)->count, 1);
	assert_int_equal(node_at(a, A, -1)->discarded, 1);
	STOP(a, 7, A, 1, 9);
	assert_int_equal(node_at(a, A, -1)->count, 2);
	agg__free(a);
}

/* --max-keys with --by comm: a folded name's slot is reused. */
static void test_cap_comm(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *n;
	char buf[32];

	(void)state;
	assert_int_equal(agg__set_by(a, AGG_BY_COMM), 0);
	assert_int_equal(agg__set_limits(a, 0, 1), 0);
	push_comm(a, 10, 10, "first");
	START(a, 10, A, 1, 0);
	STOP(a, 10, A, 1, 5);
	EXIT(a, 10, 6);
	push_comm(a, 11, 11, "second");
	START(a, 11, A, 1, 10);
	STOP(a, 11, A, 1, 12);
	n = agg__root(a)->child;
	assert_int_equal(nchildren(agg__root(a)), 2);
	/* [other] first (created by the fold), then "second" */
	assert_int_equal(n->timer, AGG_OTHER_TIMER);
	assert_int_equal(n->child->count, 1);
	n = n->next;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "second");
	assert_int_equal(n->child->count, 1);
	/* the thread execs: a new name, while "second" still has it */
	push_comm(a, 11, 11, "third");
	START(a, 11, A, 1, 20);
	STOP(a, 11, A, 1, 21);
	/* "second" had no other thread: folded; "third" got its slot */
	assert_int_equal(agg__stats(a)->folded_keys, 2);
	assert_int_equal(child_of(OTHER(a), A)->count, 2);
	n = agg__root(a)->child->next;
	assert_string_equal(agg__split_name(a, n->timer, buf, sizeof(buf)),
			    "third");
	assert_int_equal(n->child->count, 1);
	assert_int_equal(n->child->threads, 1);
	agg__free(a);
}

/* An interrupt ends with timers it opened still open: closed as unwound. */
static void test_unwind_ctx(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *ctx, *n;

	(void)state;
	assert_int_equal(rec_push(a, IPROF_REC_START, IPROF_F_CTX, A, 0, 10, 1,
				  1, IPROF_CTX_SOFTIRQ), 0);
	assert_int_equal(rec_push(a, IPROF_REC_UNWIND, IPROF_F_CTX, 0, 0, 20, 1,
				  1, IPROF_CTX_SOFTIRQ), 0);
	/* the next softirq's stop finds nothing open: not a 4 ms "timer" */
	assert_int_equal(rec_push(a, IPROF_REC_STOP, IPROF_F_CTX, A, 0, 4000010,
				  1, 1, IPROF_CTX_SOFTIRQ), 0);
	ctx = agg__root(a)->child;
	assert_int_equal(ctx->timer, AGG_CTX_TIMER(IPROF_CTX_SOFTIRQ, 1));
	n = ctx->child;
	assert_int_equal(n->count, 0);
	assert_int_equal(n->total_ns, 0);
	assert_int_equal(n->unwound, 1);
	assert_int_equal(agg__stats(a)->unwound, 1);
	agg__free(a);
}

/*
 * A kprobe call whose kretprobe missed: BPF closes its frame (RETURNED) at
 * the next call; the frame is counted as a missed return and never timed,
 * and the next call is a sibling, not a child.  A RETURNED that is not
 * the thread's top frame of that timer desynchronises the thread.
 */
static void test_returned(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *n;

	(void)state;
	START(a, 7, A, 1, 100); /* return missed */
	assert_int_equal(rec_push(a, IPROF_REC_RETURNED, 0, A, 7, 500, 1, 0, 0),
			 0);
	START(a, 7, A, 1, 500);
	STOP(a, 7, A, 1, 530);
	n = agg__root(a)->child;
	assert_int_equal(n->timer, A);
	assert_null(n->child); /* no A > A */
	assert_int_equal(n->count, 1);
	assert_int_equal(n->total_ns, 30);
	assert_int_equal(n->missed_returns, 1);
	assert_int_equal(n->unwound, 0);
	assert_int_equal(st->missed_returns, 1);

	/* inner B's return missed, seen at the next B under A */
	START(a, 7, A, 1, 1000);
	START(a, 7, B, 2, 1010);
	assert_int_equal(rec_push(a, IPROF_REC_RETURNED, 0, B, 7, 1050, 2, 0, 0),
			 0);
	START(a, 7, B, 2, 1050);
	STOP(a, 7, B, 2, 1060);
	STOP(a, 7, A, 1, 1100);
	assert_int_equal(n->count, 2);
	assert_int_equal(n->child->count, 1);
	assert_int_equal(n->child->total_ns, 10);
	assert_int_equal(n->child->missed_returns, 1);
	assert_int_equal(st->missed_returns, 2);
	assert_int_equal(st->mismatches, 0);

	/* not the top frame: out of sync, its frames discarded */
	START(a, 7, A, 1, 2000);
	START(a, 7, B, 2, 2010);
	assert_int_equal(rec_push(a, IPROF_REC_RETURNED, 0, A, 7, 2020, 1, 0, 0),
			 0);
	assert_int_equal(st->mismatches, 1);
	assert_int_equal(st->missed_returns, 2);
	agg__free(a);
}

/*
 * A call whose return cannot be seen (HIT): counted where it was made
 * (depth: its caller's frame, 0 a root), never pushed, never timed; the
 * timers after it are its siblings.  A HIT whose depth disagrees with the
 * thread's stack discards it, as a START would; one at depth 0 then
 * counts at the root.
 */
static void test_hit(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *n;

	(void)state;
	assert_int_equal(rec_push(a, IPROF_REC_HIT, 0, B, 7, 50, 0, 0, 0), 0);
	START(a, 7, A, 1, 100);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rec_push(a, IPROF_REC_HIT, 0, B, 7,
					  110 + (uint64_t)i, 1, 0, 0), 0);
	START(a, 7, C, 2, 150);
	STOP(a, 7, C, 2, 160);
	STOP(a, 7, A, 1, 200);
	n = node_at(a, B, -1);
	assert_non_null(n);
	assert_int_equal(n->hits, 1);
	assert_int_equal(n->count, 0);
	n = node_at(a, A, B, -1);
	assert_non_null(n);
	assert_int_equal(n->hits, 3);
	assert_int_equal(n->count, 0);
	assert_int_equal(n->total_ns, 0);
	assert_null(n->child); /* C not under B */
	n = node_at(a, A, C, -1);
	assert_non_null(n);
	assert_int_equal(n->count, 1);
	assert_int_equal(node_at(a, A, -1)->count, 1);
	assert_int_equal(st->hits, 4);
	assert_int_equal(st->unwound, 0);
	/* out of sync: a HIT at depth 2 with nothing open */
	assert_int_equal(rec_push(a, IPROF_REC_HIT, 0, B, 7, 300, 2, 0, 0), 0);
	assert_int_equal(st->mismatches, 1);
	assert_int_equal(st->hits, 4);
	assert_int_equal(rec_push(a, IPROF_REC_HIT, 0, B, 7, 310, 0, 0, 0), 0);
	assert_int_equal(node_at(a, B, -1)->hits, 2);
	/* a bad timer id */
	assert_int_equal(rec_push(a, IPROF_REC_HIT, 0, NTIMERS, 7, 320, 0, 0,
				  0), -EINVAL);
	agg__free(a);
}

/*
 * A hit's probe cost comes off the frame it fired in, with its share of
 * the compensation's uncertainty (issue 45; newcomer trial 5, finding 1:
 * 20000 counted-only calls inside one timed call gave it +-2 us): 100
 * hits of B (its start's mean parts 60 + 40 of 400, spread sd 40, drift
 * 20) inside one call of A (no spread of its own): A's bias 100 x 20 x
 * 100 / 400, its variance 100 x 40^2 x 100 / 400, in its total and its
 * self time alike.
 */
static void test_hit_err(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[B] = { .start_in_ns = 60, .start_out_ns = 40,
			.stop_in_ns = 200, .stop_out_ns = 100, .sd_ns = 40,
			.drift_ns = 20 },
	};
	struct agg *a = new_agg();
	const struct agg_node *n;

	(void)state;
	assert_int_equal(agg__set_costs(a, costs), 0);
	START(a, 7, A, 1, 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(rec_push(a, IPROF_REC_HIT, 0, B, 7,
					  10 + (uint64_t)i, 1, 0, 0), 0);
	STOP(a, 7, A, 1, 100000);
	n = node_at(a, A, -1);
	assert_non_null(n);
	assert_int_equal(n->total_ns, 100000 - 100 * 100);
	assert_true(fabs(n->err_sys_ns - 100 * 20 * 100 / 400.0) < 1);
	assert_true(fabs(n->err_var_ns2 - 100 * 1600 * 100 / 400.0) < 1);
	assert_true(fabs(n->self_err_sys_ns - n->err_sys_ns) < 1);
	assert_true(fabs(n->self_err_var_ns2 - n->err_var_ns2) < 1);
	agg__free(a);
}

/*
 * A user function left without returning (longjmp, an exception): LEFT
 * closes the top frame untimed as unwound, and what follows is a sibling.
 * An exec (EXECED) removes a user frame from under a kernel frame that
 * goes on: counted in execed, never timed; the kernel frame keeps its
 * path, and the new image's calls are roots.
 */
static void test_left_execed(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *n;

	(void)state;
	START(a, 7, A, 1, 100);
	START(a, 7, B, 2, 110); /* longjmp out of B */
	assert_int_equal(rec_push(a, IPROF_REC_LEFT, 0, B, 7, 150, 2, 0, 0), 0);
	START(a, 7, C, 2, 150);
	STOP(a, 7, C, 2, 160);
	STOP(a, 7, A, 1, 200);
	n = agg__root(a)->child;
	assert_int_equal(n->timer, A);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->child->timer, B);
	assert_int_equal(n->child->count, 0);
	assert_int_equal(n->child->unwound, 1);
	assert_null(n->child->child); /* C not under B */
	assert_int_equal(n->child->next->timer, C);
	assert_int_equal(n->child->next->count, 1);
	assert_int_equal(st->unwound, 1);

	/* A (user) > B (a kernel function, execve) at exec: A goes */
	START(a, 7, A, 1, 1000);
	START(a, 7, B, 2, 1010);
	assert_int_equal(rec_push(a, IPROF_REC_EXECED, 0, A, 7, 1020, 1, 0, 0),
			 0);
	STOP(a, 7, B, 1, 1030); /* B is at depth 1 now */
	START(a, 7, C, 1, 1040); /* the new image's call: a root */
	STOP(a, 7, C, 1, 1050);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->execed, 1);
	assert_int_equal(n->exited, 0);
	assert_int_equal(n->child->count, 1); /* A > B: its path stays */
	assert_int_equal(n->child->total_ns, 20);
	assert_int_equal(st->execed, 1);
	assert_int_equal(st->mismatches, 0);
	for (n = agg__root(a)->child; n && n->timer != C; n = n->next)
		;
	assert_non_null(n);
	assert_int_equal(n->count, 1);
	agg__free(a);
}

/*
 * A thread other than the leader execs (NEWTID): thread 8's user frame A
 * ends at the exec (EXECED, under its old tid), its kernel frame B goes on
 * as tid 7's (de_thread() gave it the leader's), after the leader's EXIT
 * closed the leader's frame C.  B's stop on tid 7 closes it as a call of
 * A > B: no mismatch, nothing skipped.
 */
static void test_newtid(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *n;

	(void)state;
	START(a, 7, C, 1, 100); /* the leader: C open, never returns */
	START(a, 8, A, 1, 110);
	START(a, 8, B, 2, 120);
	EXIT(a, 7, 130); /* de_thread() killed the leader */
	assert_int_equal(rec_push(a, IPROF_REC_EXECED, 0, A, 8, 140, 1, 0, 0),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_NEWTID, 0, 0, 7, 140, 1, 0, 8),
			 0);
	STOP(a, 7, B, 1, 150);
	START(a, 7, C, 1, 160); /* the new image's call: a root */
	STOP(a, 7, C, 1, 170);
	assert_int_equal(st->mismatches, 0);
	assert_int_equal(st->skipped, 0);
	assert_int_equal(st->threads_live, 1);
	n = node_at(a, A, B, -1);
	assert_non_null(n);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->total_ns, 30);
	n = node_at(a, A, -1);
	assert_int_equal(n->execed, 1);
	n = node_at(a, C, -1);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->exited, 1);

	/* its depth disagrees with the frames here (a lost record): the
	 * thread waits for a root START instead of mis-nesting */
	START(a, 9, A, 1, 200);
	START(a, 9, B, 2, 210);
	assert_int_equal(rec_push(a, IPROF_REC_NEWTID, 0, 0, 7, 220, 1, 0, 9),
			 0);
	assert_int_equal(st->mismatches, 1);
	/* a NEWTID of a thread with nothing open: nothing moves */
	assert_int_equal(rec_push(a, IPROF_REC_NEWTID, 0, 0, 7, 230, 0, 0, 99),
			 0);
	agg__free(a);
}

#define FORKED(a, tid, timer, d, ts, ptid)                                     \
	assert_int_equal(rec_push(a, IPROF_REC_FORKED, 0, timer, tid, ts, d,  \
				  0, ptid),                                    \
			 0)

/*
 * fork() inside nested calls: the parent (tid 10) in A > B forks twice; each
 * child gets A > B as FORKED frames at the fork's time and goes on inside
 * them.  The first child (11) calls C and returns from B and A: A, A > B
 * and A > B > C each count its call beside the parent's, timed from the
 * fork; nothing is a root but A.  The second (12) calls C and exits
 * inside B: A and B exited once each, from the fork.  With costs, an
 * inherited frame loses its stop probe's cost only (no start probe ran in
 * the child).  A FORKED frame at a depth the thread disagrees with is a
 * mismatch, as a START's.
 */
static void test_forked(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[A] = { .start_in_ns = 10, .start_out_ns = 20, .stop_in_ns = 30,
			.stop_out_ns = 40 },
	};
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *na, *nb, *nc;

	(void)state;
	START(a, 10, A, 1, 0);
	START(a, 10, B, 2, 10);
	FORKED(a, 11, A, 1, 100, 10);
	FORKED(a, 11, B, 2, 100, 10);
	START(a, 10, C, 3, 120);
	STOP(a, 10, C, 3, 130);
	START(a, 11, C, 3, 150);
	STOP(a, 11, C, 3, 170);
	STOP(a, 11, B, 2, 200);
	STOP(a, 11, A, 1, 300);
	EXIT(a, 11, 310);
	FORKED(a, 12, A, 1, 320, 10);
	FORKED(a, 12, B, 2, 320, 10);
	START(a, 12, C, 3, 330);
	STOP(a, 12, C, 3, 340);
	EXIT(a, 12, 350);
	STOP(a, 10, B, 2, 400);
	STOP(a, 10, A, 1, 500);

	assert_int_equal(nchildren(agg__root(a)), 1);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	nc = node_at(a, A, B, C, -1);
	assert_non_null(nc);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 500 + 200);
	assert_int_equal(na->threads, 2);
	assert_int_equal(na->exited, 1);
	assert_int_equal(na->exited_ns, 30);
	assert_int_equal(nb->count, 2);
	assert_int_equal(nb->total_ns, 390 + 100);
	assert_int_equal(nb->self_ns, 390 - 10 + 100 - 20);
	assert_int_equal(nb->exited, 1);
	assert_int_equal(nb->exited_ns, 30);
	assert_int_equal(nchildren(nb), 1);
	assert_int_equal(nc->count, 3);
	assert_int_equal(nc->total_ns, 10 + 20 + 10);
	assert_int_equal(nc->threads, 3);
	assert_int_equal(st->starts, 5);
	assert_int_equal(st->forked, 4);
	assert_int_equal(st->stops, 7);
	assert_int_equal(st->exited, 2);
	assert_int_equal(st->mismatches, 0);
	assert_int_equal(st->discarded, 0);

	/* a FORKED frame the thread's stack disagrees with */
	START(a, 13, A, 1, 600);
	FORKED(a, 13, B, 1, 610, 10);
	assert_int_equal(st->mismatches, 1);
	assert_int_equal(st->discarded, 1);
	agg__free(a);

	/* costs: the child's A from the fork (100) to its stop (300) less
	 * A's stop_in (30): 170; the parent's, entered at 0 and stopped at
	 * 500, less start_in and stop_in: 460 */
	a = new_agg();
	assert_int_equal(agg__set_costs(a, costs), 0);
	START(a, 10, A, 1, 0);
	FORKED(a, 11, A, 1, 100, 10);
	STOP(a, 11, A, 1, 300);
	STOP(a, 10, A, 1, 500);
	na = node_at(a, A, -1);
	assert_int_equal(na->count, 2);
	assert_int_equal(na->total_ns, 170 + 460);
	assert_int_equal(na->min_ns, 170);
	assert_int_equal(na->uncertain, 0);
	agg__free(a);
}

static void test_many_threads(void **state)
{
	struct agg *a = new_agg();
	const struct agg_stats *st = agg__stats(a);
	const struct agg_node *na, *nb;
	uint32_t tid;
	int round;

	(void)state;
	for (round = 0; round < 2; round++) {
		/* 10000 live at once, then all exit */
		for (tid = 1000; tid < 11000; tid++) {
			START(a, tid, A, 1, 100);
			START(a, tid, B, 2, 110);
			STOP(a, tid, B, 2, 120);
		}
		assert_int_equal(st->threads_live, 10000);
		for (tid = 1000; tid < 11000; tid++)
			EXIT(a, tid, 200);
		assert_int_equal(st->threads_live, 0);
	}
	/* churn: one at a time */
	for (tid = 20000; tid < 30000; tid++) {
		START(a, tid, A, 1, 0);
		STOP(a, tid, A, 1, 1);
		EXIT(a, tid, 2);
	}
	assert_int_equal(st->threads_live, 0);
	assert_int_equal(st->threads_seen, 30000);
	na = node_at(a, A, -1);
	nb = node_at(a, A, B, -1);
	/* the 20000 frames of A open at their threads' exits are no calls */
	assert_int_equal(na->count, 10000);
	assert_int_equal(na->exited, 20000);
	assert_int_equal(na->exited_ns, 20000 * 100);
	assert_int_equal(na->threads, 10000);
	assert_int_equal(na->total_ns, 10000);
	assert_int_equal(nb->count, 20000);
	assert_int_equal(nb->threads, 20000);
	assert_int_equal(st->nodes, 2);
	agg__free(a);
}


/* a keyed span's record (struct iprof_rec_key) */
static int kpush(struct agg *a, uint8_t type, uint32_t timer, uint32_t tid,
		 uint16_t ctx, uint16_t cpu, uint32_t id, uint64_t ts)
{
	struct iprof_rec_key k = {
		.type = type, .size = sizeof(k), .timer = timer, .tid = tid,
		.tgid = tid, .ts = ts, .ctx = ctx, .cpu = cpu, .id = id,
	};

	return agg__push(a, &k, sizeof(k));
}

/*
 * Keyed spans: filed under the frame open on the starting thread, timed
 * start to stop whoever stops them, none of their time in the parent's
 * self; replaced, expired, incomplete and early stops counted.
 */
static void test_keyed(void **state)
{
	struct agg *a = new_agg();
	const struct agg_node *n, *p;

	(void)state;
	/* thread 10: A open 100..1000; C (keyed) starts at 200 inside it,
	 * stops at 5200 (on another CPU, after A ended) */
	START(a, 10, A, 1, 100);
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 10, 0, 0, 7, 200), 0);
	STOP(a, 10, A, 1, 1000);
	assert_int_equal(kpush(a, IPROF_REC_KSTOP, C, 10, 0, 0, 7, 5200), 0);
	p = node_at(a, A, -1);
	n = node_at(a, A, C, -1);
	assert_non_null(n);
	assert_int_equal(p->self_ns, 900); /* the span takes none of it */
	assert_int_equal(n->count, 1);
	assert_int_equal(n->total_ns, 5000);
	assert_int_equal(n->self_ns, 5000);
	assert_int_equal(n->min_ns, 5000);
	assert_int_equal(n->oncpu_ns + n->runq_ns + n->blocked_ns, 0);
	assert_int_equal(n->threads, 1);
	assert_int_equal(hist_sum(n), 1);

	/* no frame open: a root; replaced, then the new one completes */
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 11, 0, 0, 8, 6000), 0);
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 11, 0, 0, 9, 6100), 0);
	assert_int_equal(kpush(a, IPROF_REC_KREPLACED, C, 11, 0, 0, 8, 6100), 0);
	assert_int_equal(kpush(a, IPROF_REC_KSTOP, C, 11, 0, 0, 9, 6400), 0);
	n = node_at(a, C, -1);
	assert_non_null(n);
	assert_int_equal(n->count, 1);
	assert_int_equal(n->total_ns, 300);
	assert_int_equal(n->replaced, 1);

	/* the stop's record merged ahead of its start's: held, then timed */
	assert_int_equal(kpush(a, IPROF_REC_KSTOP, C, 11, 0, 0, 20, 7500), 0);
	assert_int_equal(agg__stats(a)->kearly, 1);
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 11, 0, 0, 20, 7000), 0);
	assert_int_equal(agg__stats(a)->kearly, 0);
	assert_int_equal(n->count, 2);
	assert_int_equal(n->total_ns, 800);
	assert_int_equal(n->max_ns, 500);

	/* interrupt context (softirq on CPU 1): under its per-CPU root */
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 0, IPROF_CTX_SOFTIRQ, 1,
			       30, 8000), 0);
	assert_int_equal(kpush(a, IPROF_REC_KSTOP, C, 0, IPROF_CTX_SOFTIRQ, 1,
			       30, 8040), 0);
	for (p = agg__root(a)->child;
	     p && p->timer != AGG_CTX_TIMER(IPROF_CTX_SOFTIRQ, 1); p = p->next)
		;
	assert_non_null(p);
	n = p->child;
	assert_non_null(n);
	assert_int_equal(n->timer, C);
	assert_int_equal(n->total_ns, 40);

	/* expired; a stop of an unknown span; an open one: incomplete,
	 * and the thread's exit does not end it */
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 12, 0, 0, 40, 9000), 0);
	assert_int_equal(kpush(a, IPROF_REC_KEXPIRED, C, 12, 0, 0, 40, 19000), 0);
	assert_int_equal(kpush(a, IPROF_REC_KEXPIRED, C, 12, 0, 0, 41, 19000), 0);
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 12, 0, 0, 42, 20000), 0);
	EXIT(a, 12, 20500);
	agg__snapshot(a, 21000);
	n = node_at(a, C, -1);
	assert_int_equal(n->expired, 1);
	assert_int_equal(n->incomplete, 1);
	assert_int_equal(n->incomplete_ns, 1000);
	assert_int_equal(n->count, 2);
	/* the expiry of a span whose start has not come: held for it */
	assert_int_equal(agg__stats(a)->kearly, 1);
	assert_int_equal(agg__stats(a)->kunmatched, 0);
	assert_int_equal(agg__stats(a)->kexpired, 1);
	assert_int_equal(agg__stats(a)->kreplaced, 1);
	/* a replacement merged ahead of the start it replaces: the span
	 * is dropped when its start comes, never left open */
	assert_int_equal(kpush(a, IPROF_REC_KREPLACED, C, 14, 0, 0, 60, 31000), 0);
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 14, 0, 0, 60, 30900), 0);
	assert_int_equal(agg__stats(a)->kreplaced, 2);
	assert_int_equal(agg__stats(a)->kearly, 1);
	agg__snapshot(a, 40000);
	assert_int_equal(node_at(a, C, -1)->incomplete, 1); /* id 42 only */

	/* a stop before its start in time is malformed, never wrapped */
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 13, 0, 0, 50, 30000), 0);
	assert_int_equal(kpush(a, IPROF_REC_KSTOP, C, 13, 0, 0, 50, 29000),
			 -EINVAL);
	assert_int_equal(node_at(a, C, -1)->count, 2);
	/* timer out of range, context out of range */
	assert_int_equal(kpush(a, IPROF_REC_KSTART, NTIMERS, 13, 0, 0, 51, 1),
			 -EINVAL);
	assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 13, IPROF_CTX_MAX, 0, 51,
			       1), -EINVAL);
	agg__free(a);

	/* compensated for its own probes' inside parts; the start's whole
	 * cost falls in the frame open on its thread */
	{
		struct agg_cost costs[NTIMERS] = {
			[A] = {0, 0, 0, 0, 0},
			[C] = {10, 5, 20, 7, 0},
		};

		a = new_agg();
		assert_int_equal(agg__set_costs(a, costs), 0);
		START(a, 10, A, 1, 100);
		assert_int_equal(kpush(a, IPROF_REC_KSTART, C, 10, 0, 0, 1, 200), 0);
		STOP(a, 10, A, 1, 1000);
		assert_int_equal(kpush(a, IPROF_REC_KSTOP, C, 10, 0, 0, 1, 300), 0);
		n = node_at(a, A, C, -1);
		assert_int_equal(n->total_ns, 100 - 10 - 20);
		assert_int_equal(n->raw_total_ns, 100);
		assert_int_equal(node_at(a, A, -1)->total_ns, 900 - 15);
		agg__free(a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_free),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_stops),
		cmocka_unit_test(test_namemiss),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_threads_interleaved),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_unwound),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_long_durations),
		cmocka_unit_test(test_thread_exit),
		cmocka_unit_test(test_costs),
		cmocka_unit_test(test_costs_pclass),
		cmocka_unit_test(test_costs_step),
		cmocka_unit_test(test_calib_step),
		cmocka_unit_test(test_costs_split),
		cmocka_unit_test(test_costs_cold),
		cmocka_unit_test(test_costs_cpu),
		cmocka_unit_test(test_hit_err),
		cmocka_unit_test(test_calib_cpu),
		cmocka_unit_test(test_costs_mean),
		cmocka_unit_test(test_costs_err),
		cmocka_unit_test(test_calib_arith),
		cmocka_unit_test(test_calib_spread),
		cmocka_unit_test(test_mech_labels),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_oncpu_offcpu),
		cmocka_unit_test(test_interrupts),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_by),
		cmocka_unit_test(test_by_comm_rename),
		cmocka_unit_test(test_cap_paths),
		cmocka_unit_test(test_cap_keys),
		cmocka_unit_test(test_cap_comm),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_unwind_ctx),
		cmocka_unit_test(test_returned),
		cmocka_unit_test(test_left_execed),
		cmocka_unit_test(test_hit),
		cmocka_unit_test(test_newtid),
		cmocka_unit_test(test_forked),
		cmocka_unit_test(test_keyed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
