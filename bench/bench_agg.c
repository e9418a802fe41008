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
 * usage: bench_agg [-n RECORDS] [-t THREADS] [-b BURST] [-r RUNS]
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
			"[-r RUNS]\n");
}

int main(int argc, char **argv)
{
	size_t n = 20000000, i;
	unsigned int threads = 8, burst = 1, runs = 3, run;
	double t0, t1, best = 0, floor_best = 0, sec;
	volatile uint64_t sink;
	struct iprof_rec *recs;
	int opt;

	while ((opt = getopt(argc, argv, "n:t:b:r:h")) != -1) {
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
	       "%u, %u runs\n",
	       n, n * sizeof(*recs) >> 20, threads, burst, runs);

	for (run = 0; run < runs; run++) {
		struct agg *a = agg__new(NTIMERS);
		const struct agg_stats *st;
		int bad = 0;

		if (!a) {
			perror("agg__new");
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
	free(recs);
	return 0;
}
