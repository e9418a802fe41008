/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_stream: throughput of the per-CPU record merge (src/core/stream.c),
 * stream__push() + stream__flush(), for several numbers of sources.
 *
 * Records are generated up front (not timed): one clock, timestamps
 * increasing by 1-1000 ns, each record on a source (a CPU's ring) picked at
 * random, so sources interleave record by record (the worst case for the
 * merge: the heap's top changes at almost every record).  A run replays
 * the loader's passes: a pass takes the watermark W (the ts of the first
 * record of the next PASS records), pushes every source's records below W,
 * source by source as the rings are drained, then stream__flush(W); the
 * end is a stream__drain().  The sink checks that timestamps never go back
 * and sums a field.  The floor, measured in the same run, does the same
 * passes with a plain memcpy() of each record into a buffer and the same
 * sink call on each copy: the cost of copying the records once and handing
 * them on.  The ratio stream / floor is what to compare across machines.
 *
 * usage: bench_stream [-n RECORDS] [-s SOURCES,...] [-p PASS] [-r RUNS]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iprof/stream.h"

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

/* the records of one source, in ring order */
struct src {
	struct iprof_rec *rec;
	size_t n, pos;
};

struct sink_state {
	uint64_t last_ts, sum, n, backwards;
};

static void sink(void *ctx, const void *rec, size_t len)
{
	struct sink_state *st = ctx;
	const struct iprof_rec *r = rec;

	if (r->ts < st->last_ts)
		st->backwards++;
	st->last_ts = r->ts;
	st->sum += r->aux;
	st->n++;
}

/* the sink behind a pointer the compiler cannot see through, as stream.c */
static void (*volatile sink_fn)(void *, const void *, size_t) = sink;

/* @n records over @nsrc sources; @cuts[i]: the ts of record i * pass */
static struct src *generate(size_t n, unsigned int nsrc, size_t pass,
			    uint64_t **cuts, size_t *ncuts)
{
	struct src *srcs = calloc(nsrc, sizeof(*srcs));
	unsigned int *which = malloc(n * sizeof(*which));
	uint64_t ts = 1000000000ull;
	size_t i;
	unsigned int s;

	*ncuts = (n + pass - 1) / pass;
	*cuts = malloc(*ncuts * sizeof(**cuts));
	if (!srcs || !which || !*cuts)
		goto fail;
	for (i = 0; i < n; i++) {
		which[i] = (unsigned int)(rng() % nsrc);
		srcs[which[i]].n++;
	}
	for (s = 0; s < nsrc; s++) {
		srcs[s].rec = calloc(srcs[s].n ? srcs[s].n : 1,
				     sizeof(struct iprof_rec));
		if (!srcs[s].rec)
			goto fail;
	}
	for (i = 0; i < n; i++) {
		struct src *q = &srcs[which[i]];
		struct iprof_rec *r = &q->rec[q->pos++];

		ts += 1 + rng() % 1000;
		if (i % pass == 0)
			(*cuts)[i / pass] = ts;
		r->type = i & 1 ? IPROF_REC_STOP : IPROF_REC_START;
		r->size = sizeof(*r);
		r->tid = 1000 + (uint32_t)(rng() % 64);
		r->tgid = 1000;
		r->ts = ts;
		r->depth = 1;
		r->cpu = (uint16_t)which[i];
		r->aux = (uint32_t)i;
	}
	free(which);
	return srcs;
fail:
	if (srcs)
		for (s = 0; s < nsrc; s++)
			free(srcs[s].rec);
	free(srcs);
	free(which);
	free(*cuts);
	return NULL;
}

/* one run through the stream; returns seconds, -1 on error */
static double run_stream(struct src *srcs, unsigned int nsrc,
			 const uint64_t *cuts, size_t ncuts, size_t n,
			 uint64_t *queued_max)
{
	struct sink_state st = {0};
	struct stream *s = stream__new(nsrc, sink, &st);
	double t0, t1;
	size_t c;
	unsigned int i;
	int bad = 0;

	if (!s)
		return -1;
	for (i = 0; i < nsrc; i++)
		srcs[i].pos = 0;
	t0 = now_s();
	for (c = 1; c <= ncuts; c++) {
		uint64_t w = c < ncuts ? cuts[c] : UINT64_MAX;

		for (i = 0; i < nsrc; i++) {
			struct src *q = &srcs[i];

			while (q->pos < q->n && q->rec[q->pos].ts < w)
				bad |= stream__push(s, i, &q->rec[q->pos++],
						    sizeof(struct iprof_rec));
		}
		bad |= stream__flush(s, w) < 0;
	}
	bad |= stream__drain(s) < 0;
	t1 = now_s();
	*queued_max = stream__stats(s)->queued_max;
	stream__free(s);
	if (bad || st.n != n || st.backwards) {
		fprintf(stderr,
			"bench_stream: %u sources: delivered %" PRIu64
			" of %zu, %" PRIu64 " out of order\n",
			nsrc, st.n, n, st.backwards);
		return -1;
	}
	return t1 - t0;
}

/* the floor: same passes, a memcpy() of each record and the sink call */
static double run_floor(struct src *srcs, unsigned int nsrc,
			const uint64_t *cuts, size_t ncuts, size_t n,
			struct iprof_rec *buf, size_t bufn)
{
	struct sink_state st = {0};
	double t0, t1;
	size_t c, k, j;
	unsigned int i;

	for (i = 0; i < nsrc; i++)
		srcs[i].pos = 0;
	t0 = now_s();
	for (c = 1; c <= ncuts; c++) {
		uint64_t w = c < ncuts ? cuts[c] : UINT64_MAX;

		k = 0;
		for (i = 0; i < nsrc; i++) {
			struct src *q = &srcs[i];

			while (q->pos < q->n && q->rec[q->pos].ts < w &&
			       k < bufn)
				memcpy(&buf[k++], &q->rec[q->pos++],
				       sizeof(*buf));
		}
		for (j = 0; j < k; j++)
			sink_fn(&st, &buf[j], sizeof(*buf));
	}
	t1 = now_s();
	if (st.n != n) {
		fprintf(stderr, "bench_stream: floor saw %" PRIu64 " of %zu\n",
			st.n, n);
		return -1;
	}
	return t1 - t0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_stream [-n RECORDS] [-s SOURCES,...] "
			"[-p PASS] [-r RUNS]\n");
}

int main(int argc, char **argv)
{
	size_t n = 5000000, pass = 4096, ncuts;
	unsigned int nsrcs[16] = {1, 2, 16, 256}, nn = 4, runs = 3, run, k;
	char *list, *tok, *save;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:p:r:h")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 's':
			nn = 0;
			list = optarg;
			while ((tok = strtok_r(list, ",", &save)) && nn < 16) {
				nsrcs[nn++] =
					(unsigned int)strtoul(tok, NULL, 0);
				list = NULL;
			}
			break;
		case 'p':
			pass = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!n || !pass || !runs || !nn) {
		usage();
		return 2;
	}
	for (k = 0; k < nn; k++) {
		if (!nsrcs[k] || nsrcs[k] > STREAM_MAX_SRC) {
			usage();
			return 2;
		}
	}
	printf("bench_stream: %zu records (%zu MiB), %zu per pass, %u runs\n",
	       n, n * sizeof(struct iprof_rec) >> 20, pass, runs);
	printf("%8s %12s %14s %12s %14s %7s %12s\n", "sources", "stream ns/rec",
	       "stream Mrec/s", "floor ns/rec", "floor Mrec/s", "ratio",
	       "queued max");

	for (k = 0; k < nn; k++) {
		unsigned int nsrc = nsrcs[k], i;
		double best = 0, floor_best = 0, sec;
		uint64_t qmax = 0;
		struct iprof_rec *buf;
		uint64_t *cuts;
		struct src *srcs;

		/* a pass takes exactly @pass records (the last one fewer) */
		srcs = generate(n, nsrc, pass, &cuts, &ncuts);
		buf = malloc(pass * sizeof(*buf));
		if (!srcs || !buf) {
			fprintf(stderr, "bench_stream: %s\n", strerror(ENOMEM));
			return 1;
		}
		for (run = 0; run < runs; run++) {
			sec = run_stream(srcs, nsrc, cuts, ncuts, n, &qmax);
			if (sec < 0)
				return 1;
			if (!run || sec < best)
				best = sec;
			sec = run_floor(srcs, nsrc, cuts, ncuts, n, buf, pass);
			if (sec < 0)
				return 1;
			if (!run || sec < floor_best)
				floor_best = sec;
		}
		printf("%8u %12.2f %14.2f %12.2f %14.2f %7.1f %12" PRIu64 "\n",
		       nsrc, best * 1e9 / (double)n, (double)n / best / 1e6,
		       floor_best * 1e9 / (double)n,
		       (double)n / floor_best / 1e6, best / floor_best, qmax);
		for (i = 0; i < nsrc; i++)
			free(srcs[i].rec);
		free(srcs);
		free(cuts);
		free(buf);
	}
	return 0;
}
