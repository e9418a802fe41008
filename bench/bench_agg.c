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
 * With -j N,...: sharded folding.  A dispatcher thread (the ring drain's
 * role) copies the records into batches of BATCH records, one batch per
 * folding thread being filled, a record going to folding thread tid % N;
 * a full batch goes to its thread through a queue of QCAP batches (a
 * mutex and two condition variables).  Each folding thread has its own
 * aggregator.  Timed: from the first record dispatched until every
 * folding thread has folded its last batch; then, apart, agg__merge() of
 * the N aggregators into a fresh one (what a report does), checked
 * against one aggregator fed every record.  "dispatch only" is the same
 * with folding threads that fold nothing: the dispatcher's own ceiling.
 *
 * usage: bench_agg [-n RECORDS] [-t THREADS] [-b BURST] [-r RUNS]
 *                  [-j N[,N...]]
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
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
			"[-r RUNS] [-j N[,N...]]\n");
}

/* ---- sharded folding (-j) ---- */

#define BATCH 1024 /* records a batch: 32 KiB */
#define QCAP 16 /* batches a queue */
#define MAXJ 64

struct batch {
	size_t n;
	struct iprof_rec r[BATCH];
};

/* a folding thread: its queue (slots [tail, head) are full) and its agg */
struct worker {
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t nonempty, nonfull;
	uint64_t head, tail; /* under mu */
	int done; /* under mu: no batch will come */
	int fold; /* 0: dispatch only, drop the batches */
	struct agg *agg;
	uint64_t records; /* folded (or dropped) */
	int bad;
	struct batch q[QCAP];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct batch *b;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&w->mu);
		while (w->tail == w->head && !w->done)
			pthread_cond_wait(&w->nonempty, &w->mu);
		if (w->tail == w->head) {
			pthread_mutex_unlock(&w->mu);
			return NULL;
		}
		b = &w->q[w->tail % QCAP];
		pthread_mutex_unlock(&w->mu);

		for (i = 0; w->fold && i < b->n; i++)
			w->bad |= agg__push(w->agg, &b->r[i], sizeof(b->r[i]));
		w->records += b->n;

		pthread_mutex_lock(&w->mu);
		w->tail++;
		pthread_cond_signal(&w->nonfull);
		pthread_mutex_unlock(&w->mu);
	}
}

/* batch_get() - the dispatcher's next batch to fill for @w (waits) */
static struct batch *batch_get(struct worker *w)
{
	struct batch *b;

	pthread_mutex_lock(&w->mu);
	while (w->head - w->tail == QCAP)
		pthread_cond_wait(&w->nonfull, &w->mu);
	b = &w->q[w->head % QCAP];
	pthread_mutex_unlock(&w->mu);
	b->n = 0;
	return b;
}

/* batch_put() - hand the batch being filled to @w; @last: end of input */
static void batch_put(struct worker *w, int last)
{
	pthread_mutex_lock(&w->mu);
	if (w->q[w->head % QCAP].n)
		w->head++;
	w->done = last;
	pthread_cond_signal(&w->nonempty);
	pthread_mutex_unlock(&w->mu);
}

/*
 * fold_sharded() - fold @recs over @nj folding threads (see the top);
 * @fold 0 drops the batches.  Returns the folding time in s and, when
 * folding, the merge time in @merge_s and the merged agg in @out; < 0 on
 * error.
 */
static double fold_sharded(const struct iprof_rec *recs, size_t n,
			   unsigned int nj, int fold, double *merge_s,
			   struct agg **out)
{
	static struct worker *w[MAXJ];
	struct batch *cur[MAXJ];
	double t0, sec = -1;
	unsigned int j;
	struct agg *m;
	size_t i;

	for (j = 0; j < nj; j++) {
		w[j] = calloc(1, sizeof(*w[j]));
		if (!w[j] || !(w[j]->agg = agg__new(NTIMERS)))
			goto out;
		pthread_mutex_init(&w[j]->mu, NULL);
		pthread_cond_init(&w[j]->nonempty, NULL);
		pthread_cond_init(&w[j]->nonfull, NULL);
		w[j]->fold = fold;
		if (pthread_create(&w[j]->th, NULL, worker_main, w[j]))
			goto out;
		w[j]->started = 1;
	}

	t0 = now_s();
	for (j = 0; j < nj; j++)
		cur[j] = batch_get(w[j]);
	for (i = 0; i < n; i++) {
		j = recs[i].tid % nj;
		cur[j]->r[cur[j]->n++] = recs[i];
		if (cur[j]->n == BATCH) {
			batch_put(w[j], 0);
			cur[j] = batch_get(w[j]);
		}
	}
	for (j = 0; j < nj; j++)
		batch_put(w[j], 1);
	for (j = 0; j < nj; j++) {
		pthread_join(w[j]->th, NULL);
		w[j]->started = 0;
	}
	sec = now_s() - t0;

	for (j = 0; j < nj; j++)
		if (w[j]->bad)
			sec = -1;
	if (fold && sec >= 0) {
		t0 = now_s();
		m = agg__new(NTIMERS);
		for (j = 0; m && j < nj; j++)
			if (agg__merge(m, w[j]->agg))
				sec = -1;
		*merge_s = now_s() - t0;
		*out = m;
		if (!m)
			sec = -1;
	}
out:
	for (j = 0; j < nj && w[j]; j++) {
		if (w[j]->started) { /* a later thread failed to start */
			batch_put(w[j], 1);
			pthread_join(w[j]->th, NULL);
		}
		agg__free(w[j]->agg);
		free(w[j]);
		w[j] = NULL;
	}
	return sec;
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
	struct agg *m;

	for (k = 0; k < njs; k++) {
		maxj = js[k] > maxj ? js[k] : maxj;
		for (run = 0; run < runs; run++) {
			m = NULL;
			sec = fold_sharded(recs, n, js[k], 1, &merge_s, &m);
			if (sec < 0 || !same_tree(agg__root(m), agg__root(one)) ||
			    agg__stats(m)->records != n ||
			    agg__stats(m)->threads_seen !=
				    agg__stats(one)->threads_seen) {
				fprintf(stderr, "bench_agg: -j %u: the merged "
						"tree differs from one "
						"aggregator's\n",
					js[k]);
				agg__free(m);
				return 1;
			}
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
		sec = fold_sharded(recs, n, maxj, 0, NULL, NULL);
		if (sec < 0)
			return 1;
		printf("dispatch only -j %u run %u: %.3f s, %6.2f M records/s\n",
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
	printf("dispatch only -j %u: best %.2f M records/s\n", maxj,
	       (double)n / best[njs] / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 20000000, i;
	unsigned int threads = 8, burst = 1, runs = 3, run, js[MAXJ], njs = 0;
	struct agg *one = NULL;
	char *p, *end;
	double t0, t1, best = 0, floor_best = 0, sec;
	volatile uint64_t sink;
	struct iprof_rec *recs;
	int opt;

	while ((opt = getopt(argc, argv, "n:t:b:r:j:h")) != -1) {
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
