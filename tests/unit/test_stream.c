/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the per-source record merge (src/core/stream.c): records of one
 * thread pushed out of order across sources come out in its order, the
 * watermark holds back what a later drain could still precede, ring order
 * is kept, and every record is delivered exactly once.
 *
 * Built with -Wl,--wrap=malloc (CMakeLists.txt): fail_malloc makes the
 * stream's allocations fail.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/stream.h"

/* ---- allocation failures ------------------------------------------------ */

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

/* > 0: that many more malloc() calls succeed, then they fail; 0: no limit */
static int malloc_left;
static int fail_malloc;

void *__wrap_malloc(size_t size)
{
	if (fail_malloc) {
		if (malloc_left <= 0)
			return NULL;
		malloc_left--;
	}
	return __real_malloc(size);
}

/* ---- records and a recording sink --------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: deterministic, so failures reproduce */
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static struct iprof_rec mkrec(uint8_t type, uint32_t tid, uint64_t ts,
			      uint32_t aux)
{
	struct iprof_rec r = {
		.type = type,
		.size = sizeof(r),
		.tid = tid,
		.tgid = tid,
		.ts = ts,
		.aux = aux,
	};

	return r;
}

struct out {
	struct iprof_rec *rec; /* delivered records (32-byte ones) */
	size_t *len;	       /* their lengths */
	size_t n, cap;
	struct stream *s; /* set to test re-entry from the sink */
	int reenter_err;
};

static void sink(void *ctx, const void *rec, size_t len)
{
	struct out *o = ctx;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->rec = realloc(o->rec, o->cap * sizeof(*o->rec));
		o->len = realloc(o->len, o->cap * sizeof(*o->len));
		assert_non_null(o->rec);
		assert_non_null(o->len);
	}
	memset(&o->rec[o->n], 0, sizeof(o->rec[o->n]));
	memcpy(&o->rec[o->n], rec,
	       len < sizeof(*o->rec) ? len : sizeof(*o->rec));
	o->len[o->n++] = len;
	if (o->s) {
		struct iprof_rec r = mkrec(IPROF_REC_START, 1, 1, 0);

		o->reenter_err = stream__push(o->s, 0, &r, sizeof(r));
		if (!o->reenter_err)
			o->reenter_err = stream__flush(o->s, 10);
	}
}

static void out_free(struct out *o)
{
	free(o->rec);
	free(o->len);
	memset(o, 0, sizeof(*o));
}

static void push(struct stream *s, unsigned int src, uint8_t type, uint32_t tid,
		 uint64_t ts, uint32_t aux)
{
	struct iprof_rec r = mkrec(type, tid, ts, aux);

	assert_int_equal(stream__push(s, src, &r, sizeof(r)), 0);
}

/* the delivered records' ts, in order, equal @want[@n] */
static void assert_ts(const struct out *o, const uint64_t *want, size_t n)
{
	size_t i;

	assert_int_equal(o->n, n);
	for (i = 0; i < n; i++) {
		if (o->rec[i].ts != want[i])
			fail_msg("record %zu: ts %llu, want %llu", i,
				 (unsigned long long)o->rec[i].ts,
				 (unsigned long long)want[i]);
	}
}

/* ---- tests -------------------------------------------------------------- */

static void test_new_errors(void **state)
{
	struct out o = {0};

	(void)state;
	errno = 0;
	assert_null(stream__new(0, sink, &o));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(stream__new(STREAM_MAX_SRC + 1, sink, &o));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(stream__new(1, NULL, &o));
	assert_int_equal(errno, EINVAL);
	stream__free(NULL);
}

static void test_push_errors(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(2, sink, &o);
	struct iprof_rec r = mkrec(IPROF_REC_START, 1, 10, 0);

	(void)state;
	assert_non_null(s);
	assert_int_equal(stream__push(s, 2, &r, sizeof(r)), -EINVAL);
	assert_int_equal(stream__push(s, 0, NULL, sizeof(r)), -EINVAL);
	assert_int_equal(stream__stats(s)->pushed, 0);
	assert_int_equal(stream__flush(s, 100), 0);
	assert_int_equal(stream__drain(s), 0);
	assert_int_equal(o.n, 0);
	stream__free(s);
}

/* a thread's START on source 0, its STOP on source 1 pushed first */
static void test_migration_start_stop(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(2, sink, &o);
	const struct stream_stats *st;

	(void)state;
	assert_non_null(s);
	push(s, 1, IPROF_REC_STOP, 7, 200, 0);
	push(s, 0, IPROF_REC_START, 7, 100, 0);
	st = stream__stats(s);
	assert_int_equal(st->queued, 2);
	assert_int_equal(o.n, 0);
	assert_int_equal(stream__flush(s, 1000), 2);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.rec[0].type, IPROF_REC_START);
	assert_int_equal(o.rec[0].ts, 100);
	assert_int_equal(o.rec[1].type, IPROF_REC_STOP);
	assert_int_equal(o.rec[1].ts, 200);
	assert_int_equal(o.len[0], sizeof(struct iprof_rec));
	assert_int_equal(st->queued, 0);
	assert_int_equal(st->delivered, 2);
	assert_int_equal(st->pushed, 2);
	assert_int_equal(st->queued_max, 2);
	stream__free(s);
	out_free(&o);
}

/* records with key >= W wait for the next flush */
static void test_watermark(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(2, sink, &o);
	const uint64_t first[] = {10, 20, 30};
	const uint64_t all[] = {10, 20, 30, 40, 45, 50};

	(void)state;
	assert_non_null(s);
	push(s, 0, IPROF_REC_START, 1, 10, 0);
	push(s, 0, IPROF_REC_START, 1, 30, 0);
	push(s, 0, IPROF_REC_START, 1, 50, 0);
	push(s, 1, IPROF_REC_START, 2, 20, 0);
	push(s, 1, IPROF_REC_START, 2, 40, 0);
	assert_int_equal(stream__flush(s, 35), 3);
	assert_ts(&o, first, 3);
	assert_int_equal(stream__stats(s)->queued, 2);
	/* the same watermark again: nothing more */
	assert_int_equal(stream__flush(s, 35), 0);
	/* key == W is held back */
	assert_int_equal(stream__flush(s, 40), 0);
	push(s, 1, IPROF_REC_STOP, 2, 45, 0);
	assert_int_equal(stream__flush(s, 100), 3);
	assert_ts(&o, all, 6);
	assert_int_equal(stream__stats(s)->queued, 0);
	assert_int_equal(stream__stats(s)->delivered, 6);
	assert_int_equal(stream__stats(s)->queued_max, 5);
	stream__free(s);
	out_free(&o);
}

/*
 * In-ring timestamp inversion: source 0 holds a thread's record (ts 100)
 * reserved before an interrupt's record (ts 90).  Ring order is kept, and a
 * head key >= W holds back the smaller key behind it.
 */
static void test_ring_order(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(2, sink, &o);
	const uint64_t part[] = {95};
	const uint64_t all[] = {95, 100, 90, 120};

	(void)state;
	assert_non_null(s);
	push(s, 0, IPROF_REC_START, 1, 100, 0);
	push(s, 0, IPROF_REC_IRQ_ENTER, 0, 90, IPROF_CTX_HARDIRQ);
	push(s, 1, IPROF_REC_START, 2, 95, 0);
	push(s, 1, IPROF_REC_STOP, 2, 120, 0);
	assert_int_equal(stream__flush(s, 99), 1);
	assert_ts(&o, part, 1);
	assert_int_equal(stream__flush(s, 101), 2);
	assert_int_equal(stream__drain(s), 1);
	assert_ts(&o, all, 4);
	assert_int_equal(o.rec[2].type, IPROF_REC_IRQ_ENTER);
	stream__free(s);
	out_free(&o);
}

/* equal keys: lower source first */
static void test_ties(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(3, sink, &o);

	(void)state;
	assert_non_null(s);
	push(s, 2, IPROF_REC_START, 3, 50, 0);
	push(s, 1, IPROF_REC_START, 2, 50, 0);
	push(s, 0, IPROF_REC_START, 1, 50, 0);
	assert_int_equal(stream__flush(s, 51), 3);
	assert_int_equal(o.rec[0].tid, 1);
	assert_int_equal(o.rec[1].tid, 2);
	assert_int_equal(o.rec[2].tid, 3);
	stream__free(s);
	out_free(&o);
}

/* COMM (no ts) takes the previous key of its source: before its START */
static void test_comm(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(2, sink, &o);
	struct iprof_rec_comm c = {
		.type = IPROF_REC_COMM,
		.size = sizeof(c),
		.tid = 9,
		.tgid = 9,
		.comm = "worker",
	};

	(void)state;
	assert_non_null(s);
	/* first on its source: key 0, delivered at once */
	assert_int_equal(stream__push(s, 1, &c, sizeof(c)), 0);
	push(s, 1, IPROF_REC_START, 9, 300, 0);
	push(s, 0, IPROF_REC_START, 5, 100, 0);
	push(s, 0, IPROF_REC_STOP, 5, 150, 0);
	/* after ts 150 on source 0: key 150, ahead of its START at 400 */
	c.tid = c.tgid = 11;
	assert_int_equal(stream__push(s, 0, &c, sizeof(c)), 0);
	push(s, 0, IPROF_REC_START, 11, 400, 0);
	push(s, 1, IPROF_REC_STOP, 9, 200, 0);

	assert_int_equal(stream__flush(s, 160), 4);
	assert_int_equal(o.rec[0].type, IPROF_REC_COMM);
	assert_int_equal(o.rec[0].tid, 9);
	assert_string_equal(((struct iprof_rec_comm *)&o.rec[0])->comm,
			    "worker");
	assert_int_equal(o.rec[1].ts, 100);
	assert_int_equal(o.rec[2].ts, 150);
	assert_int_equal(o.rec[3].type, IPROF_REC_COMM);
	assert_int_equal(o.rec[3].tid, 11);
	/* source 1's START 300 then STOP 200 (ring order), then START 400 */
	assert_int_equal(stream__flush(s, 1000), 3);
	assert_int_equal(o.rec[4].ts, 300);
	assert_int_equal(o.rec[5].ts, 200);
	assert_int_equal(o.rec[6].type, IPROF_REC_START);
	assert_int_equal(o.rec[6].tid, 11);
	stream__free(s);
	out_free(&o);
}

/* sources with nothing queued stall nobody */
static void test_idle_source(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(4, sink, &o);
	const uint64_t want[] = {1, 2, 3, 4};

	(void)state;
	assert_non_null(s);
	push(s, 2, IPROF_REC_START, 1, 1, 0);
	push(s, 2, IPROF_REC_STOP, 1, 2, 0);
	assert_int_equal(stream__flush(s, 3), 2);
	/* source 2 idle now; source 3 alone */
	push(s, 3, IPROF_REC_START, 2, 3, 0);
	push(s, 3, IPROF_REC_STOP, 2, 4, 0);
	assert_int_equal(stream__flush(s, 5), 2);
	assert_ts(&o, want, 4);
	assert_int_equal(stream__stats(s)->queued_max, 2);
	stream__free(s);
	out_free(&o);
}

/* records of another size go to the sink at push, ahead of queued ones */
static void test_malformed(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(1, sink, &o);
	unsigned char big[40] = {IPROF_REC_START};
	struct iprof_rec r = mkrec(IPROF_REC_START, 1, 10, 0);
	const struct stream_stats *st;

	(void)state;
	assert_non_null(s);
	push(s, 0, IPROF_REC_START, 1, 5, 0);
	assert_int_equal(stream__push(s, 0, &r, 16), 0);
	assert_int_equal(stream__push(s, 0, big, sizeof(big)), 0);
	assert_int_equal(stream__push(s, 0, &r, 0), 0);
	assert_int_equal(o.n, 3);
	assert_int_equal(o.len[0], 16);
	assert_int_equal(o.rec[0].ts, 0); /* only 16 bytes came */
	assert_int_equal(o.rec[0].tid, 1);
	assert_int_equal(o.len[1], 40);
	assert_int_equal(o.len[2], 0);
	st = stream__stats(s);
	assert_int_equal(st->malformed, 3);
	assert_int_equal(st->delivered, 3);
	assert_int_equal(st->pushed, 4);
	assert_int_equal(st->queued, 1);
	assert_int_equal(stream__drain(s), 1);
	assert_int_equal(o.rec[3].ts, 5);
	assert_int_equal(st->delivered, 4);
	stream__free(s);
	out_free(&o);
}

/* drain delivers everything, merged, whatever the keys */
static void test_drain(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(3, sink, &o);
	const uint64_t want[] = {1, 2, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX};
	const struct stream_stats *st;

	(void)state;
	assert_non_null(s);
	push(s, 2, IPROF_REC_START, 1, UINT64_MAX, 0);
	push(s, 0, IPROF_REC_START, 2, 1, 0);
	push(s, 0, IPROF_REC_START, 2, UINT64_MAX - 1, 0);
	push(s, 1, IPROF_REC_START, 3, 2, 0);
	push(s, 1, IPROF_REC_START, 3, UINT64_MAX, 0);
	/* nothing is below watermark 0 */
	assert_int_equal(stream__flush(s, 0), 0);
	assert_int_equal(stream__drain(s), 5);
	assert_ts(&o, want, 5);
	assert_int_equal(o.rec[3].tid, 3); /* tie: source 1 before 2 */
	assert_int_equal(o.rec[4].tid, 1);
	st = stream__stats(s);
	assert_int_equal(st->queued, 0);
	assert_int_equal(st->delivered, 5);
	assert_int_equal(stream__drain(s), 0);
	stream__free(s);
	out_free(&o);
}

/* a source's queue grows past its first slots and wraps around */
static void test_growth_wrap(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(2, sink, &o);
	uint64_t ts = 1, next = 1;
	unsigned int round, i;

	(void)state;
	assert_non_null(s);
	for (round = 0; round < 50; round++) {
		unsigned int n = (unsigned int)(rng() % 100);
		int got;

		for (i = 0; i < n; i++)
			push(s, round % 2, IPROF_REC_START, 1, ts++, 0);
		/* deliver a part: the head moves, later pushes wrap */
		got = stream__flush(s, ts - n / 2);
		assert_true(got >= 0);
	}
	assert_true(stream__drain(s) >= 0);
	assert_int_equal(o.n, ts - 1);
	for (i = 0; i < o.n; i++)
		assert_int_equal(o.rec[i].ts, next++);
	assert_true(stream__stats(s)->slots >= stream__stats(s)->queued_max);
	assert_true(stream__stats(s)->slots <=
		    4 * stream__stats(s)->queued_max + 32);
	stream__free(s);
	out_free(&o);
}

/* a backlog beyond 65536 slots is given back once the source empties;
 * a small queue is kept */
static void test_shrink(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(2, sink, &o);
	uint64_t ts = 1;
	unsigned int i;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < 70000; i++)
		push(s, 0, IPROF_REC_START, 1, ts++, 0);
	for (i = 0; i < 100; i++)
		push(s, 1, IPROF_REC_START, 2, ts++, 0);
	assert_int_equal(stream__stats(s)->slots, 131072 + 128);
	assert_int_equal(stream__flush(s, ts), 70100);
	assert_int_equal(stream__stats(s)->slots, 128);
	/* and it grows again */
	for (i = 0; i < 20; i++)
		push(s, 0, IPROF_REC_START, 1, ts++, 0);
	assert_int_equal(stream__stats(s)->slots, 32 + 128);
	assert_int_equal(stream__drain(s), 20);
	assert_int_equal(o.n, 70120);
	for (i = 1; i < o.n; i++)
		assert_true(o.rec[i].ts > o.rec[i - 1].ts);
	stream__free(s);
	out_free(&o);
}

/* the sink cannot call back into its stream */
static void test_reenter(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(1, sink, &o);

	(void)state;
	assert_non_null(s);
	push(s, 0, IPROF_REC_START, 1, 5, 0);
	o.s = s;
	assert_int_equal(stream__flush(s, 10), 1);
	assert_int_equal(o.reenter_err, -EBUSY);
	assert_int_equal(stream__stats(s)->pushed, 1);
	assert_int_equal(stream__stats(s)->queued, 0);
	stream__free(s);
	out_free(&o);
}

static void test_enomem(void **state)
{
	struct out o = {0};
	struct stream *s;
	struct iprof_rec r = mkrec(IPROF_REC_START, 1, 100, 0);
	unsigned int i;

	(void)state;
	/* stream__new() uses calloc(): an exhausted malloc does not reach it,
	 * so the failing queue growth is what is tested */
	s = stream__new(2, sink, &o);
	assert_non_null(s);
	fail_malloc = 1;
	malloc_left = 0;
	assert_int_equal(stream__push(s, 0, &r, sizeof(r)), -ENOMEM);
	/* the key array fails after the records' one succeeded */
	malloc_left = 1;
	assert_int_equal(stream__push(s, 0, &r, sizeof(r)), -ENOMEM);
	fail_malloc = 0;
	assert_int_equal(stream__stats(s)->pushed, 0);
	assert_int_equal(stream__stats(s)->queued, 0);
	assert_int_equal(stream__stats(s)->slots, 0);
	/* 16 slots, full; the 17th needs a bigger queue */
	for (i = 0; i < 16; i++)
		push(s, 0, IPROF_REC_START, 1, 100 + i, 0);
	fail_malloc = 1;
	malloc_left = 0;
	assert_int_equal(stream__push(s, 0, &r, sizeof(r)), -ENOMEM);
	/* memory back: the queue grows and keeps its order */
	fail_malloc = 0;
	push(s, 0, IPROF_REC_START, 1, 116, 0);
	assert_int_equal(stream__stats(s)->queued, 17);
	assert_int_equal(stream__drain(s), 17);
	for (i = 0; i < 17; i++)
		assert_int_equal(o.rec[i].ts, 100 + i);
	stream__free(s);
	out_free(&o);
}

/*
 * 256 sources, increasing ts in each; every pass reads W, pushes all of
 * each source's records below W and a random number more (committed after
 * W), flushes.  The output is sorted by (ts, source) and complete.
 */
static void test_many_sources(void **state)
{
	enum { NSRC = 256, PER = 200 };
	struct out o = {0};
	struct stream *s = stream__new(NSRC, sink, &o);
	static uint64_t ts[NSRC][PER];
	unsigned int pos[NSRC] = {0};
	uint64_t w = 0, maxts = 0, total = (uint64_t)NSRC * PER;
	unsigned int i, j;
	size_t k;
	char *seen;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < NSRC; i++) {
		uint64_t t = rng() % 1000;

		for (j = 0; j < PER; j++) {
			t += 1 + rng() % 1000;
			ts[i][j] = t;
		}
		if (t > maxts)
			maxts = t;
	}
	while (o.n < total) {
		int got;

		w += 1 + rng() % 2000;
		for (i = 0; i < NSRC; i++) {
			unsigned int extra = (unsigned int)(rng() % 4);

			while (pos[i] < PER && (ts[i][pos[i]] < w || extra)) {
				if (ts[i][pos[i]] >= w)
					extra--;
				/* aux: the record's id */
				push(s, i, IPROF_REC_START, i + 1,
				     ts[i][pos[i]], i * PER + pos[i]);
				pos[i]++;
			}
		}
		got = stream__flush(s, w);
		assert_true(got >= 0);
		if (w > maxts)
			assert_int_equal(stream__drain(s), 0);
	}
	assert_int_equal(o.n, total);
	seen = calloc(total, 1);
	assert_non_null(seen);
	for (k = 0; k < o.n; k++) {
		assert_true(o.rec[k].aux < total);
		assert_int_equal(seen[o.rec[k].aux], 0);
		seen[o.rec[k].aux] = 1;
		if (k && (o.rec[k].ts < o.rec[k - 1].ts ||
			  (o.rec[k].ts == o.rec[k - 1].ts &&
			   o.rec[k].tid < o.rec[k - 1].tid)))
			fail_msg("record %zu out of order", k);
	}
	free(seen);
	assert_int_equal(stream__stats(s)->delivered, total);
	assert_true(stream__stats(s)->queued_max < total);
	stream__free(s);
	out_free(&o);
}

/*
 * Threads that migrate between CPUs, with interrupts inverting timestamps
 * inside a ring, drained by passes that race with new records.
 *
 * Time is one clock.  A record is reserved, timestamped and committed in
 * one step (a program runs with migration disabled), so the next record of
 * any thread has a later ts than the commit of the one before.  An
 * interrupt pair: thread T's program reserves P, an interrupt's program
 * reserves, timestamps and commits I (IPROF_F_CTX, tid 0), then P takes its
 * ts and commits: ring order P, I with ts(P) > ts(I).  A pass reads W,
 * then drains the rings one by one in random order, while records keep
 * coming between two rings' drains.  Checks: every thread's records (aux =
 * its sequence number) and every CPU context's come out in order, each
 * exactly once; and the pushes did put records of a thread out of order
 * (else the test tests nothing).
 */
enum { SIM_NCPU = 8, SIM_NTHR = 24, SIM_NREC = 60000 };

/* the simulated machine: a ring per CPU, threads placed on CPUs */
struct sim {
	struct iprof_rec ring[SIM_NCPU][SIM_NREC];
	unsigned int rhead[SIM_NCPU], rtail[SIM_NCPU];
	unsigned int cpu_of[SIM_NTHR];	/* where each thread runs */
	unsigned int seq[SIM_NTHR];	/* records each thread wrote */
	unsigned int ctx_seq[SIM_NCPU]; /* records each CPU's irqs wrote */
	unsigned int gen, migrations;
	uint64_t now; /* the clock, ns */
};

static void sim_emit(struct sim *m, unsigned int cpu, struct iprof_rec r)
{
	assert_true(m->rtail[cpu] < SIM_NREC);
	m->ring[cpu][m->rtail[cpu]++] = r;
	m->gen++;
}

/* one step: a thread's record, sometimes a migration or an interrupt pair */
static void sim_step(struct sim *m)
{
	unsigned int th = (unsigned int)(rng() % SIM_NTHR), c;

	if (rng() % 4 == 0) {
		m->cpu_of[th] = (unsigned int)(rng() % SIM_NCPU);
		m->migrations++;
		m->now += 1 + rng() % 50;
	}
	c = m->cpu_of[th];
	if (rng() % 8 == 0) {
		/* P reserved at now, I reserved at now+1, ts now+2, committed
		 * at now+3; P's ts now+4, committed at now+5 */
		struct iprof_rec irq = mkrec(IPROF_REC_IRQ_ENTER, 0, m->now + 2,
					     m->ctx_seq[c]++);

		irq.flags = IPROF_F_CTX;
		irq.cpu = (uint16_t)c;
		sim_emit(m, c,
			 mkrec(IPROF_REC_START, th + 1, m->now + 4,
			       m->seq[th]++));
		sim_emit(m, c, irq);
		m->now += 6;
	} else {
		sim_emit(m, c,
			 mkrec(IPROF_REC_STOP, th + 1, m->now + 1,
			       m->seq[th]++));
		m->now += 3;
	}
	m->now += rng() % 20;
}

/*
 * Threads that migrate between CPUs, with interrupts inverting timestamps
 * inside a ring, drained by passes that race with new records.
 *
 * Time is one clock.  A record is reserved, timestamped and committed in
 * one step (a program runs with migration disabled), so the next record of
 * any thread has a later ts than the commit of the one before.  An
 * interrupt pair: thread T's program reserves P, an interrupt's program
 * reserves, timestamps and commits I (IPROF_F_CTX, tid 0), then P takes its
 * ts and commits: ring order P, I with ts(P) > ts(I).  A pass reads W,
 * then drains the rings one by one in random order, while records keep
 * coming between two rings' drains.  Checks: every thread's records (aux =
 * its sequence number) and every CPU context's come out in order, each
 * exactly once; and the pushes did put records of a thread out of order
 * (else the test tests nothing).
 */
static void test_migrating_threads(void **state)
{
	struct out o = {0};
	struct stream *s = stream__new(SIM_NCPU, sink, &o);
	struct sim *m = calloc(1, sizeof(*m));
	int64_t pushed_max[SIM_NTHR];
	unsigned int want[SIM_NTHR] = {0}, want_ctx[SIM_NCPU] = {0};
	unsigned int out_of_order = 0, t, c;
	size_t k;

	(void)state;
	assert_non_null(s);
	assert_non_null(m);
	m->now = 1000;
	for (t = 0; t < SIM_NTHR; t++) {
		m->cpu_of[t] = t % SIM_NCPU;
		pushed_max[t] = -1;
	}
	while (m->gen < SIM_NCPU * SIM_NREC / 2) {
		unsigned int steps = (unsigned int)(rng() % 200);
		unsigned int order[SIM_NCPU];
		uint64_t w;

		while (steps--)
			sim_step(m);
		/* a pass: W first, then the rings, in random order */
		w = m->now;
		for (c = 0; c < SIM_NCPU; c++)
			order[c] = c;
		for (c = SIM_NCPU - 1; c > 0; c--) {
			unsigned int j = (unsigned int)(rng() % (c + 1));
			unsigned int x = order[c];

			order[c] = order[j];
			order[j] = x;
		}
		for (c = 0; c < SIM_NCPU; c++) {
			unsigned int cc = order[c];

			steps = (unsigned int)(rng() % 10);
			while (steps--)
				sim_step(m);
			while (m->rhead[cc] < m->rtail[cc]) {
				struct iprof_rec *r =
					&m->ring[cc][m->rhead[cc]++];

				if (r->tid) {
					t = r->tid - 1;
					if ((int64_t)r->aux < pushed_max[t])
						out_of_order++;
					else
						pushed_max[t] = r->aux;
				}
				assert_int_equal(
					stream__push(s, cc, r, sizeof(*r)), 0);
			}
		}
		assert_true(stream__flush(s, w) >= 0);
	}
	/* end of trace: the rings' last records, then everything */
	for (c = 0; c < SIM_NCPU; c++)
		while (m->rhead[c] < m->rtail[c])
			assert_int_equal(
				stream__push(s, c, &m->ring[c][m->rhead[c]++],
					     sizeof(struct iprof_rec)),
				0);
	assert_true(stream__drain(s) >= 0);
	assert_int_equal(o.n, m->gen);
	for (k = 0; k < o.n; k++) {
		const struct iprof_rec *r = &o.rec[k];

		if (r->tid) {
			t = r->tid - 1;
			if (r->aux != want[t])
				fail_msg("thread %u: record %u, want %u (out "
					 "%zu)",
					 t, r->aux, want[t], k);
			want[t]++;
		} else {
			assert_int_equal(r->flags, IPROF_F_CTX);
			assert_int_equal(r->aux, want_ctx[r->cpu]);
			want_ctx[r->cpu]++;
		}
	}
	for (t = 0; t < SIM_NTHR; t++)
		assert_int_equal(want[t], m->seq[t]);
	for (c = 0; c < SIM_NCPU; c++)
		assert_int_equal(want_ctx[c], m->ctx_seq[c]);
	/* the test did push threads' records out of their order */
	assert_true(out_of_order > 100);
	assert_true(m->migrations > 1000);
	free(m);
	stream__free(s);
	out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_errors),
		cmocka_unit_test(test_push_errors),
		cmocka_unit_test(test_migration_start_stop),
		cmocka_unit_test(test_watermark),
		cmocka_unit_test(test_ring_order),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_idle_source),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_drain),
		cmocka_unit_test(test_growth_wrap),
		cmocka_unit_test(test_shrink),
		cmocka_unit_test(test_reenter),
		cmocka_unit_test(test_enomem),
		cmocka_unit_test(test_many_sources),
		cmocka_unit_test(test_migrating_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
