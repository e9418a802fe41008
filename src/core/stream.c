// SPDX-License-Identifier: GPL-2.0-only
/*
 * Merge of per-source (per-CPU ring) record queues into one stream in
 * per-thread time order: see include/iprof/stream.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/stream.h"

#define REC_SIZE sizeof(struct iprof_rec)
#define SRC_MIN_CAP 16u
/* a source that empties with more slots than this gives them back: a
 * backlog (a slow report, a loaded machine) does not stay in memory */
#define SRC_SHRINK_CAP 65536u

/* One source's FIFO: a circular array of cap (a power of two) slots. */
struct src {
	struct iprof_rec *rec; /* cap slots */
	uint64_t *key;	       /* cap keys, key[i] for rec[i] */
	uint32_t cap;	       /* 0 until the first push */
	uint32_t head;	       /* index of the oldest record */
	uint32_t len;	       /* records queued */
	uint64_t last_key;     /* key of the last record pushed (COMM's key) */
};

/*
 * A heap entry: a non-empty source and the key of its head record, packed
 * as key << 32 | src, so that one compare orders by key, then by source.
 */
typedef unsigned __int128 heap_ent;

static inline heap_ent ent(uint64_t key, uint32_t src)
{
	return (heap_ent)key << 32 | src;
}

static inline uint32_t ent_src(heap_ent e)
{
	return (uint32_t)e;
}

static inline uint64_t ent_key(heap_ent e)
{
	return (uint64_t)(e >> 32);
}

struct stream {
	stream_sink_fn sink;
	void *ctx;
	unsigned int nsrc;
	unsigned int nheap; /* non-empty sources, heap[0..nheap-1] */
	int busy;	    /* in the sink: re-entry is refused */
	struct src *srcs;   /* nsrc */
	heap_ent *heap;	    /* nsrc, min-heap */
	struct stream_stats stats;
};

static void heap_up(heap_ent *h, unsigned int i)
{
	heap_ent e = h[i];

	while (i) {
		unsigned int p = (i - 1) / 2;

		if (e >= h[p])
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void heap_down(heap_ent *h, unsigned int n, unsigned int i)
{
	heap_ent e = h[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= n)
			break;
		c += c + 1 < n && h[c + 1] < h[c];
		if (h[c] >= e)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

/*
 * Double a source's capacity (SRC_MIN_CAP at first), keeping its records
 * in order from slot 0.  Returns 0 or -ENOMEM (the source unchanged).
 */
static int src_grow(struct src *q)
{
	uint32_t cap = q->cap ? 2 * q->cap : SRC_MIN_CAP;
	struct iprof_rec *rec;
	uint64_t *key;
	uint32_t first;

	if (cap <= q->cap) /* 2^32 slots: 128 GiB queued on one source */
		return -ENOMEM;
	rec = malloc((size_t)cap * sizeof(*rec));
	key = malloc((size_t)cap * sizeof(*key));
	if (!rec || !key) {
		free(rec);
		free(key);
		return -ENOMEM;
	}
	/* unwrap: [head, cap) then [0, head + len - cap) */
	first = q->cap - q->head < q->len ? q->cap - q->head : q->len;
	if (q->len) {
		memcpy(rec, q->rec + q->head, first * sizeof(*rec));
		memcpy(key, q->key + q->head, first * sizeof(*key));
		memcpy(rec + first, q->rec, (q->len - first) * sizeof(*rec));
		memcpy(key + first, q->key, (q->len - first) * sizeof(*key));
	}
	free(q->rec);
	free(q->key);
	q->rec = rec;
	q->key = key;
	q->cap = cap;
	q->head = 0;
	return 0;
}

struct stream *stream__new(unsigned int nsrc, stream_sink_fn sink, void *ctx)
{
	struct stream *s;

	if (!nsrc || nsrc > STREAM_MAX_SRC || !sink) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->srcs = calloc(nsrc, sizeof(*s->srcs));
	s->heap = calloc(nsrc, sizeof(*s->heap));
	if (!s->srcs || !s->heap)
		goto nomem;
	s->sink = sink;
	s->ctx = ctx;
	s->nsrc = nsrc;
	return s;
nomem:
	stream__free(s);
	errno = ENOMEM;
	return NULL;
}

void stream__free(struct stream *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->srcs) {
		for (i = 0; i < s->nsrc; i++) {
			free(s->srcs[i].rec);
			free(s->srcs[i].key);
		}
	}
	free(s->srcs);
	free(s->heap);
	free(s);
}

int stream__push(struct stream *s, unsigned int src, const void *rec,
		 size_t len)
{
	struct src *q;
	uint32_t tail;
	uint64_t key;

	if (src >= s->nsrc || !rec)
		return -EINVAL;
	if (s->busy)
		return -EBUSY;
	if (len != REC_SIZE) {
		/* no key, no slot: the aggregator counts it as malformed */
		s->stats.pushed++;
		s->stats.malformed++;
		s->stats.delivered++;
		s->busy = 1;
		s->sink(s->ctx, rec, len);
		s->busy = 0;
		return 0;
	}
	q = &s->srcs[src];
	if (q->len == q->cap) {
		int err = src_grow(q);

		if (err)
			return err;
		s->stats.slots += q->cap - q->len;
	}
	if (((const struct iprof_rec *)rec)->type == IPROF_REC_COMM)
		key = q->last_key;
	else
		memcpy(&key, (const char *)rec + offsetof(struct iprof_rec, ts),
		       sizeof(key));
	q->last_key = key;
	tail = (q->head + q->len) & (q->cap - 1);
	memcpy(&q->rec[tail], rec, REC_SIZE);
	q->key[tail] = key;
	if (!q->len++) {
		/* the source was idle: it joins the merge */
		s->heap[s->nheap] = ent(key, src);
		heap_up(s->heap, s->nheap++);
	}
	s->stats.pushed++;
	if (++s->stats.queued > s->stats.queued_max)
		s->stats.queued_max = s->stats.queued;
	return 0;
}

/* Deliver merged records while the smallest head key is < @wm. */
static int deliver(struct stream *s, uint64_t wm, int all)
{
	int n = 0;

	if (s->busy)
		return -EBUSY;
	s->busy = 1;
	while (s->nheap && (all || ent_key(s->heap[0]) < wm) && n < INT_MAX) {
		uint32_t src = ent_src(s->heap[0]);
		struct src *q = &s->srcs[src];

		s->sink(s->ctx, &q->rec[q->head], REC_SIZE);
		n++;
		q->head = (q->head + 1) & (q->cap - 1);
		if (--q->len) {
			s->heap[0] = ent(q->key[q->head], src);
		} else {
			/* idle now: it leaves the merge */
			s->heap[0] = s->heap[--s->nheap];
			if (q->cap > SRC_SHRINK_CAP) {
				s->stats.slots -= q->cap;
				free(q->rec);
				free(q->key);
				q->rec = NULL;
				q->key = NULL;
				q->cap = 0;
				q->head = 0;
			}
		}
		if (s->nheap > 1)
			heap_down(s->heap, s->nheap, 0);
	}
	s->busy = 0;
	s->stats.delivered += (uint64_t)n;
	s->stats.queued -= (uint64_t)n;
	return n;
}

int stream__flush(struct stream *s, uint64_t watermark_ns)
{
	return deliver(s, watermark_ns, 0);
}

int stream__drain(struct stream *s)
{
	return deliver(s, 0, 1);
}

const struct stream_stats *stream__stats(const struct stream *s)
{
	return &s->stats;
}
