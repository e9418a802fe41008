/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_agg: throughput of agg__push() on synthetic records.
 *
 * Records are generated up front (not timed): THREADS threads each run a
 * fixed script of nested timers, depth 3, 14 records per root call; at every
 * step a pseudo-random thread emits BURST records of its script, so BURST 1
 * is the worst case for the last-thread cache.  Then agg__push() is timed
 * over the whole array, RUNS times with a fresh aggregator, and so is a
 * floor measured in the same run: a plain loop that reads the same records
 * and sums a field.  The ratio agg / floor is what to compare across
 * machines.
 *
 * With -j N,...: sharded folding as iprof --fold-threads N does it
 * (src/core/fold.c): the main thread (the ring drain's role) pushes the records
 * into batches of FOLD_BATCH, one per folding thread being filled, a
 * record going to the folding thread of its tid; a full batch goes to its
 * thread through a queue of FOLD_QCAP batches (a mutex and two condition
 * variables).  Each folding thread has its own aggregator.  Timed: from
 * the first record pushed until every folding thread has folded its last
 * batch (fold__sync()); then, apart, fold__merged(): the N aggregators
 * merged into a fresh one (what a report does), checked against one
 * aggregator fed every record.  "partition only" is the dispatcher's own
 * work without the threads: each record copied into its shard's batch.
 *
 * With -c RINGS too: the records come from RINGS rings (a record's ring:
 * its thread's CPU, which changes every PASS records), in passes of PASS
 * records each flushed below the watermark of its last record: first one
 * thread merges them (a stream) and folds, as iprof does without
 * --fold-threads; then -j N as --fold-threads N does: each shard merges
 * its own threads' records (fold__set_sources()) and folds them.
 *
 * With -k K: the one aggregator keeps each node's K slowest calls
 * (--slowest K, agg__set_slowest()): the cost of that bookkeeping.
 *
 * usage: bench_agg [-n RECORDS] [-t THREADS] [-b BURST] [-r RUNS] [-k K]
 *                  [-j N[,N...] [-c RINGS]]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iprof/agg.h"
#include "iprof/fold.h"
#include "iprof/stream.h"

struct step {
	uint8_t type;
	uint32_t timer;
	uint16_t depth;
};

/* a > b > {c, d}, a > c > d: depth 3, 4 timers, 6 paths */
static const struct step script[] = {
	{IPROF_REC_START, 0, 1}, {IPROF_REC_START, 1, 2},
	{IPROF_REC_START, 2, 3}, {IPROF_REC_STOP, 2, 3},
	{IPROF_REC_START, 3, 3}, {IPROF_REC_STOP, 3, 3},
	{IPROF_REC_STOP, 1, 2},	 {IPROF_REC_START, 2, 2},
	{IPROF_REC_START, 3, 3}, {IPROF_REC_STOP, 3, 3},
	{IPROF_REC_STOP, 2, 2},	 {IPROF_REC_STOP, 0, 1},
	{IPROF_REC_START, 0, 1}, {IPROF_REC_STOP, 0, 1},
};

#define NSTEPS (sizeof(script) / sizeof(script[0]))
#define NTIMERS 4

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct iprof_rec *generate(size_t n, unsigned int threads,
				  unsigned int burst)
{
	struct iprof_rec *recs = calloc(n, sizeof(*recs));
	unsigned int *pos = calloc(threads, sizeof(*pos));
	uint64_t ts = 1000000000ull;
	size_t i = 0;
	unsigned int t, b;

	if (!recs || !pos) {
		free(recs);
		free(pos);
		return NULL;
	}
	/* the last @threads records are the threads' exits */
	while (i < n - threads) {
		t = (unsigned int)(rng() % threads);
		for (b = 0; b < burst && i < n - threads; b++, i++) {
			const struct step *s = &script[pos[t]];

			pos[t] = (pos[t] + 1) % NSTEPS;
			ts += 1 + rng() % 1000;
			recs[i].type = s->type;
			recs[i].size = sizeof(recs[i]);
			recs[i].timer = s->timer;
			recs[i].tid = 1000 + t;
			recs[i].tgid = 1000;
			recs[i].ts = ts;
			recs[i].depth = s->depth;
		}
	}
	for (t = 0; t < threads; t++, i++) {
		recs[i].type = IPROF_REC_EXIT;
		recs[i].size = sizeof(recs[i]);
		recs[i].tid = 1000 + t;
		recs[i].tgid = 1000;
		recs[i].ts = ++ts;
	}
	free(pos);
	return recs;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_agg [-n RECORDS] [-t THREADS] [-b BURST] "
			"[-r RUNS] [-k K] [-j N[,N...] [-c RINGS]]\n");
}

/* ---- sharded folding (-j) ---- */

#define MAXJ 64 /* FOLD_MAX_THREADS + 1 */
#define PASS 4096 /* -c: records a drain pass */

/*
 * fold_sharded() - fold @recs with src/core/fold.c over @nj folding threads
 * (see the top).  Returns the folding time in s, the merge time in
 * @merge_s, and the merged aggregator in @out (agg__free() it); < 0 on
 * error.
 */
/* -c: rings the records come from (0: merged already) */
static unsigned int nrings;

/* ring_of() - -c: record @i's ring: its thread's CPU, which changes every
 * PASS records (the thread moves on) */
static unsigned int ring_of(const struct iprof_rec *recs, size_t i)
{
	return (recs[i].tid + (unsigned int)(i / PASS)) % nrings;
}

static void to_agg(void *ctx, const void *rec, size_t len)
{
	agg__push(ctx, rec, len);
}

/*
 * merge_one() - -c: one thread merges the rings (a stream) and folds, as
 * iprof without --fold-threads: passes of PASS records, each flushed
 * below the watermark of its last record.  Returns s, the agg in @out.
 */
static double merge_one(const struct iprof_rec *recs, size_t n,
			struct agg **out)
{
	struct stream *st;
	double t0, sec;
	size_t i;

	*out = agg__new(NTIMERS);
	st = *out ? stream__new(nrings, to_agg, *out) : NULL;
	if (!st)
		return -1;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		stream__push(st, ring_of(recs, i), &recs[i], sizeof(recs[i]));
		if ((i + 1) % PASS == 0)
			stream__flush(st, recs[i].ts + 1);
	}
	stream__drain(st);
	sec = now_s() - t0;
	stream__free(st);
	return sec;
}

static double fold_sharded(const struct iprof_rec *recs, size_t n,
			   unsigned int nj, double *merge_s, struct fold **f,
			   struct agg **out)
{
	double t0, sec;
	size_t i;

	*f = fold__new(nj, NTIMERS, AGG_BY_NONE, 0, 0);
	if (!*f || (nrings && fold__set_sources(*f, nrings)))
		return -1;
	t0 = now_s();
	for (i = 0; !nrings && i < n; i++)
		fold__push(*f, &recs[i], sizeof(recs[i]));
	for (i = 0; nrings && i < n; i++) {
		fold__push_src(*f, ring_of(recs, i), &recs[i], sizeof(recs[i]));
		if ((i + 1) % PASS == 0)
			fold__flush(*f, recs[i].ts + 1, 0);
	}
	fold__flush(*f, 0, 1);
	fold__sync(*f);
	sec = now_s() - t0;
	t0 = now_s();
	*out = fold__merged(*f, recs[n - 1].ts);
	*merge_s = now_s() - t0;
	return *out ? sec : -1;
}

/*
 * partition_only() - the dispatcher's own work for @nj shards without
 * the threads: each record copied into its shard's batch (as fold.c
 * picks the shard), full batches emptied at once.  Returns s.
 */
static double partition_only(const struct iprof_rec *recs, size_t n,
			     unsigned int nj)
{
	static struct iprof_rec batch[MAXJ][FOLD_BATCH];
	unsigned int fill[MAXJ] = {0}, j;
	volatile uint64_t sink = 0;
	double t0 = now_s();
	size_t i;

	for (i = 0; i < n; i++) {
		j = (unsigned int)(((uint64_t)(recs[i].tid * 0x9e3779b1u) *
				    nj) >> 32);
		batch[j][fill[j]++] = recs[i];
		if (fill[j] == FOLD_BATCH) {
			sink += batch[j][FOLD_BATCH - 1].ts;
			fill[j] = 0;
		}
	}
	(void)sink;
	return now_s() - t0;
}

/* same_tree() - 1 if the two trees have the same paths and times */
static int same_tree(const struct agg_node *a, const struct agg_node *b)
{
	if (a->timer != b->timer || a->count != b->count ||
	    a->total_ns != b->total_ns || a->self_ns != b->self_ns ||
	    a->min_ns != b->min_ns || a->max_ns != b->max_ns ||
	    a->threads != b->threads)
		return 0;
	for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
		if (!same_tree(a, b))
			return 0;
	return !a && !b;
}

/*
 * bench_sharded() - -j: each count of folding threads @js[0..njs-1], @runs
 * times, checked against @one (the records in one aggregator), then the
 * dispatcher alone with the most folding threads.  Returns 0 or 1.
 */
static int bench_sharded(const struct iprof_rec *recs, size_t n,
			 const unsigned int *js, unsigned int njs,
			 unsigned int runs, const struct agg *one)
{
	double best[MAXJ + 1], merge_best[MAXJ], sec, merge_s = 0, base = 0;
	unsigned int k, run, maxj = 0;
	struct fold *f;
	struct agg *m;

	for (run = 0; nrings && run < runs; run++) {
		sec = merge_one(recs, n, &m);
		if (sec < 0 || !same_tree(agg__root(m), agg__root(one))) {
			fprintf(stderr, "bench_agg: -c: the stream's tree "
					"differs\n");
			return 1;
		}
		agg__free(m);
		printf("merge+fold, one thread, run %u: %.3f s, %6.2f M "
		       "records/s\n",
		       run + 1, sec, (double)n / sec / 1e6);
		if (!run || sec < base)
			base = sec;
	}
	if (nrings)
		printf("merge+fold, one thread: best %.2f M records/s\n",
		       (double)n / base / 1e6);
	base = 0;

	for (k = 0; k < njs; k++) {
		maxj = js[k] > maxj ? js[k] : maxj;
		for (run = 0; run < runs; run++) {
			m = NULL;
			sec = fold_sharded(recs, n, js[k], &merge_s, &f, &m);
			if (sec < 0 || !same_tree(agg__root(m), agg__root(one)) ||
			    agg__stats(m)->records != n ||
			    agg__stats(m)->threads_seen !=
				    agg__stats(one)->threads_seen) {
				fprintf(stderr, "bench_agg: -j %u: the merged "
						"tree differs from one "
						"aggregator's\n",
					js[k]);
				fold__free(f);
				agg__free(m);
				return 1;
			}
			fold__free(f);
			agg__free(m);
			printf("fold -j %-2u run %u: %.3f s, %6.2f M records/s, "
			       "%6.2f ns/record, merge %.1f us\n",
			       js[k], run + 1, sec, (double)n / sec / 1e6,
			       sec * 1e9 / (double)n, merge_s * 1e6);
			if (!run || sec < best[k])
				best[k] = sec;
			if (!run || merge_s < merge_best[k])
				merge_best[k] = merge_s;
		}
	}
	for (run = 0; run < runs; run++) {
		sec = partition_only(recs, n, maxj);
		printf("partition only -j %u run %u: %.3f s, %6.2f M records/s\n",
		       maxj, run + 1, sec, (double)n / sec / 1e6);
		if (!run || sec < best[njs])
			best[njs] = sec;
	}
	for (k = 0; k < njs; k++) {
		if (js[k] == 1)
			base = best[k];
	}
	for (k = 0; k < njs; k++) {
		printf("fold -j %-2u: best %.2f ns/record, %.2f M records/s, "
		       "merge %.1f us",
		       js[k], best[k] * 1e9 / (double)n,
		       (double)n / best[k] / 1e6, merge_best[k] * 1e6);
		if (base > 0)
			printf(", %.2fx of -j 1", base / best[k]);
		printf("\n");
	}
	printf("partition only -j %u: best %.2f M records/s\n", maxj,
	       (double)n / best[njs] / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 20000000, i;
	unsigned int threads = 8, burst = 1, runs = 3, run, js[MAXJ], njs = 0;
	unsigned int slowest = 0;
	struct agg *one = NULL;
	char *p, *end;
	double t0, t1, best = 0, floor_best = 0, sec;
	volatile uint64_t sink;
	struct iprof_rec *recs;
	int opt;

	while ((opt = getopt(argc, argv, "n:t:b:r:k:j:c:h")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 't':
			threads = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			burst = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'k':
			slowest = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			nrings = (unsigned int)strtoul(optarg, NULL, 0);
			if (!nrings || nrings > 1024) {
				fprintf(stderr, "bench_agg: -c %s: 1 to 1024 "
						"rings\n",
					optarg);
				return 2;
			}
			break;
		case 'j':
			for (p = optarg, njs = 0; *p && njs < MAXJ - 1; p = end) {
				js[njs] = (unsigned int)strtoul(p, &end, 10);
				if (end == p || !js[njs] || js[njs] >= MAXJ ||
				    (*end && *end != ','))
					break;
				njs++;
				end += *end == ',';
			}
			if (*p || !njs) {
				fprintf(stderr, "bench_agg: -j %s: a list of "
						"1 to %u\n",
					optarg, MAXJ - 1);
				return 2;
			}
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!threads || !burst || !runs || n <= threads) {
		usage();
		return 2;
	}

	recs = generate(n, threads, burst);
	if (!recs) {
		fprintf(stderr, "bench_agg: %s\n", strerror(ENOMEM));
		return 1;
	}
	printf("bench_agg: %zu records (%zu MiB), %u threads, depth 3, burst "
	       "%u, %u runs, --slowest %u\n",
	       n, n * sizeof(*recs) >> 20, threads, burst, runs, slowest);

	for (run = 0; run < runs; run++) {
		struct agg *a = agg__new(NTIMERS);
		const struct agg_stats *st;
		int bad = 0;

		if (!a || agg__set_slowest(a, slowest)) {
			fprintf(stderr, "bench_agg: agg__new or -k %u failed\n",
				slowest);
			return 1;
		}
		t0 = now_s();
		for (i = 0; i < n; i++)
			bad |= agg__push(a, &recs[i], sizeof(recs[i]));
		t1 = now_s();
		sec = t1 - t0;
		st = agg__stats(a);
		if (bad || st->malformed || st->skipped || st->discarded ||
		    st->threads_live || st->nodes != 6) {
			fprintf(stderr,
				"bench_agg: unexpected aggregation: malformed "
				"%" PRIu64 " skipped %" PRIu64
				" discarded %" PRIu64 " live %" PRIu64
				" nodes %" PRIu64 "\n",
				st->malformed, st->skipped, st->discarded,
				st->threads_live, st->nodes);
			return 1;
		}
		printf("agg   run %u: %.3f s, %6.2f M records/s, %6.2f "
		       "ns/record\n",
		       run + 1, sec, (double)n / sec / 1e6,
		       sec * 1e9 / (double)n);
		if (!run || sec < best)
			best = sec;
		if (!one)
			one = a; /* what -j checks its merged trees against */
		else
			agg__free(a);

		/* floor: read the same records, sum a field */
		uint64_t sum = 0;

		t0 = now_s();
		for (i = 0; i < n; i++)
			sum += recs[i].ts + recs[i].depth;
		sink = sum;
		t1 = now_s();
		sec = t1 - t0;
		printf("floor run %u: %.3f s, %6.2f M records/s, %6.2f "
		       "ns/record\n",
		       run + 1, sec, (double)n / sec / 1e6,
		       sec * 1e9 / (double)n);
		if (!run || sec < floor_best)
			floor_best = sec;
	}
	(void)sink;

	printf("agg:   best %.2f ns/record, %.2f M records/s\n",
	       best * 1e9 / (double)n, (double)n / best / 1e6);
	printf("floor: best %.2f ns/record, %.2f M records/s\n",
	       floor_best * 1e9 / (double)n, (double)n / floor_best / 1e6);
	printf("ratio: agg / floor = %.1f\n", best / floor_best);
	if (njs && bench_sharded(recs, n, js, njs, runs, one))
		return 1;
	agg__free(one);
	free(recs);
	return 0;
}
