// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sharded folding: see include/iprof/fold.h.
 *
 * Each worker owns a ring of FOLD_QCAP batches: slots [tail, head) are
 * full and the worker's, the slot at head is the caller's to fill (taken
 * only while the ring is not full).  head, tail and done change under the
 * worker's mutex; a batch's records are written by the caller before head
 * passes it, and read by the worker before tail passes it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/fold.h"
#include "iprof/stream.h"

enum { NO_FLUSH, FLUSH, DRAIN };

struct batch {
	uint32_t n;
	int flush; /* after the records: NO_FLUSH, FLUSH to w, or DRAIN */
	uint64_t w;
	struct iprof_rec r[FOLD_BATCH];
	uint32_t src[FOLD_BATCH]; /* with sources: each record's */
};

struct shard {
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t nonempty, nonfull;
	uint64_t head, tail; /* under mu */
	int done; /* under mu: stop once empty */
	struct batch *cur; /* the caller's batch being filled, or NULL */
	struct agg *agg;
	struct stream *st; /* with sources: merges them for agg, else NULL */
	uint64_t lost; /* with sources: records the stream could not queue */
	struct batch q[FOLD_QCAP];
};

/*
 * A thread that exec'd took its leader's tid (IPROF_REC_NEWTID): its
 * records from @ts on go to the shard of @key (its old tid's, where its
 * frames are), until its EXIT.  The leader's own records before @ts go
 * where its tid hashes.  FOLD_MOVED at once: the oldest gives way (its
 * thread's next stop then mismatches: counted).
 */
#define FOLD_MOVED 16u
struct moved {
	uint32_t tid, key;
	uint64_t ts;
};

struct fold {
	unsigned int n;
	unsigned int nsrc; /* fold__set_sources(), 0: records come merged */
	uint32_t ntimers, max_paths, max_keys;
	uint32_t slowest; /* fold__set_slowest() */
	enum agg_by by;
	unsigned int nmoved, next_moved;
	struct moved moved[FOLD_MOVED];
	struct shard *s[FOLD_MAX_THREADS];
};

static void *worker(void *arg)
{
	struct shard *s = arg;
	struct batch *b;
	uint32_t i;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (s->tail == s->head && !s->done)
			pthread_cond_wait(&s->nonempty, &s->mu);
		if (s->tail == s->head)
			break;
		b = &s->q[s->tail % FOLD_QCAP];
		pthread_mutex_unlock(&s->mu);
		for (i = 0; !s->st && i < b->n; i++)
			agg__push(s->agg, &b->r[i], sizeof(b->r[i]));
		for (i = 0; s->st && i < b->n; i++)
			if (stream__push(s->st, b->src[i], &b->r[i],
					 sizeof(b->r[i])))
				s->lost++;
		if (b->flush == FLUSH)
			stream__flush(s->st, b->w);
		else if (b->flush == DRAIN)
			stream__drain(s->st);
		pthread_mutex_lock(&s->mu);
		s->tail++;
		pthread_cond_signal(&s->nonfull);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static struct agg *agg_like(const struct fold *f)
{
	struct agg *a = agg__new(f->ntimers);

	if (a) {
		agg__set_by(a, f->by);
		agg__set_limits(a, f->max_paths, f->max_keys);
		agg__set_slowest(a, f->slowest);
	}
	return a;
}

struct fold *fold__new(unsigned int nthreads, uint32_t ntimers,
		       enum agg_by by, uint32_t max_paths, uint32_t max_keys)
{
	const struct fold like = {
		.ntimers = ntimers,
		.by = by,
		.max_paths = max_paths,
		.max_keys = max_keys,
	};
	int valid = nthreads && nthreads <= FOLD_MAX_THREADS && ntimers, e;
	struct fold *f = valid ? malloc(sizeof(*f)) : NULL;
	struct shard *s;
	unsigned int i;

	if (!f) {
		errno = valid ? ENOMEM : EINVAL;
		return NULL;
	}
	*f = like;
	for (i = 0; i < nthreads; i++) {
		s = f->s[i] = calloc(1, sizeof(*s));
		if (!s || !(s->agg = agg_like(f)))
			goto nomem;
		f->n = i + 1;
		pthread_mutex_init(&s->mu, NULL);
		pthread_cond_init(&s->nonempty, NULL);
		pthread_cond_init(&s->nonfull, NULL);
		e = pthread_create(&s->th, NULL, worker, s);
		if (e) {
			fold__free(f);
			errno = e;
			return NULL;
		}
		s->started = 1;
	}
	return f;

nomem:
	if (f->s[i] && !f->s[i]->agg) {
		free(f->s[i]);
		f->s[i] = NULL;
	}
	fold__free(f);
	errno = ENOMEM;
	return NULL;
}

/* moved() - the entry of @tid in the moved table, or NULL */
static struct moved *moved(struct fold *f, uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < f->nmoved; i++)
		if (f->moved[i].tid == tid)
			return &f->moved[i];
	return NULL;
}

/* moved_key() - the key of task record @r's thread: its tid, or the old
 * tid of a thread that exec'd (struct moved); keeps the table */
static uint32_t moved_key(struct fold *f, const struct iprof_rec *r)
{
	struct moved *m = moved(f, r->tid), *o;
	uint32_t key;

	if (r->type != IPROF_REC_NEWTID) {
		if (!m || (r->type != IPROF_REC_COMM && r->ts < m->ts))
			return r->tid; /* the leader's own, before */
		key = m->key;
		if (r->type == IPROF_REC_EXIT) /* its last record */
			*m = f->moved[--f->nmoved];
		return key;
	}
	/* where the old tid's records went: its shard, or its own old
	 * tid's where it had moved too (that entry is done with) */
	o = moved(f, r->aux);
	key = o ? o->key : r->aux;
	if (o && !m)
		m = o;
	else if (o) {
		*o = f->moved[--f->nmoved];
		m = moved(f, r->tid); /* it may have been the last */
	}
	if (!m && f->nmoved < FOLD_MOVED) {
		m = &f->moved[f->nmoved++];
	} else if (!m) {
		m = &f->moved[f->next_moved];
		f->next_moved = (f->next_moved + 1) % FOLD_MOVED;
	}
	m->tid = r->tid;
	m->key = key;
	m->ts = r->ts;
	return key;
}

/* shard_of() - the shard of a record (32 bytes), as agg__push() keys its
 * threads: an interrupt context by context and CPU; a keyed span's record
 * by its starting side, wherever it stopped (struct iprof_rec_key) */
static unsigned int shard_of(struct fold *f, const struct iprof_rec *r)
{
	uint32_t key = r->tid;

	if ((r->type >= IPROF_REC_KSTART && r->type <= IPROF_REC_KEXPIRED) ||
	    r->type == IPROF_REC_KINFO) {
		const struct iprof_rec_key *k = (const void *)r;

		if (k->ctx != IPROF_CTX_TASK)
			key = AGG_CTX_TIMER(k->ctx, k->cpu);
	} else if (r->type != IPROF_REC_COMM && (r->flags & IPROF_F_CTX)) {
		key = AGG_CTX_TIMER(IPROF_REC_CTX(r->aux), r->cpu);
	} else if (r->type == IPROF_REC_NEWTID || f->nmoved) {
		key = moved_key(f, r);
	}
	return (unsigned int)(((uint64_t)(key * 0x9e3779b1u) * f->n) >> 32);
}

/* put() - hand @s's batch being filled, if it has anything, to its worker */
static void put(struct shard *s)
{
	if (!s->cur)
		return;
	pthread_mutex_lock(&s->mu);
	if (s->cur->n || s->cur->flush) {
		s->head++;
		pthread_cond_signal(&s->nonempty);
	}
	pthread_mutex_unlock(&s->mu);
	s->cur = NULL;
}

/* get() - @s's batch being filled, taken when none (waits for a slot) */
static struct batch *get(struct shard *s)
{
	if (!s->cur) {
		pthread_mutex_lock(&s->mu);
		while (s->head - s->tail == FOLD_QCAP)
			pthread_cond_wait(&s->nonfull, &s->mu);
		pthread_mutex_unlock(&s->mu);
		s->cur = &s->q[s->head % FOLD_QCAP];
		s->cur->n = 0;
		s->cur->flush = NO_FLUSH;
	}
	return s->cur;
}

/* push() - queue @rec (of source @src) for its shard */
static int push(struct fold *f, unsigned int src, const void *rec,
		size_t size)
{
	struct iprof_rec r;
	struct shard *s;
	struct batch *b;

	if (size != sizeof(r) || !rec) {
		/* as the stream does: to the aggregator at once */
		fold__sync(f);
		return agg__push(f->s[0]->agg, rec, size);
	}
	memcpy(&r, rec, sizeof(r));
	s = f->s[shard_of(f, &r)];
	b = get(s);
	b->src[b->n] = src;
	b->r[b->n++] = r;
	if (b->n == FOLD_BATCH)
		put(s);
	return 0;
}

int fold__set_costs(struct fold *f, const struct agg_cost *costs)
{
	unsigned int i;
	int err;

	for (i = 0; i < f->n; i++) {
		err = agg__set_costs(f->s[i]->agg, costs);
		if (err)
			return err;
	}
	return 0;
}

int fold__set_cpu_scale(struct fold *f, const uint16_t *pm, uint32_t n)
{
	unsigned int i;
	int err;

	for (i = 0; i < f->n; i++) {
		err = agg__set_cpu_scale(f->s[i]->agg, pm, n);
		if (err)
			return err;
	}
	return 0;
}

int fold__set_slowest(struct fold *f, uint32_t k)
{
	unsigned int i;
	int err;

	for (i = 0; i < f->n; i++) {
		err = agg__set_slowest(f->s[i]->agg, k);
		if (err)
			return err;
	}
	f->slowest = k;
	return 0;
}

int fold__push(struct fold *f, const void *rec, size_t size)
{
	if (f->nsrc)
		return -EINVAL;
	return push(f, 0, rec, size);
}

int fold__push_src(struct fold *f, unsigned int src, const void *rec,
		   size_t size)
{
	if (src >= f->nsrc)
		return -EINVAL;
	return push(f, src, rec, size);
}

/* the sink of a shard's stream: its aggregator */
static void shard_sink(void *ctx, const void *rec, size_t len)
{
	agg__push(ctx, rec, len);
}

int fold__set_sources(struct fold *f, unsigned int nsrc)
{
	unsigned int i;

	if (f->nsrc || !nsrc || nsrc > STREAM_MAX_SRC)
		return -EINVAL;
	fold__sync(f);
	for (i = 0; i < f->n; i++) {
		f->s[i]->st = stream__new(nsrc, shard_sink, f->s[i]->agg);
		if (!f->s[i]->st) {
			while (i--) {
				stream__free(f->s[i]->st);
				f->s[i]->st = NULL;
			}
			return -ENOMEM;
		}
	}
	f->nsrc = nsrc;
	return 0;
}

void fold__flush(struct fold *f, uint64_t watermark_ns, int drain)
{
	struct batch *b;
	unsigned int i;

	for (i = 0; f->nsrc && i < f->n; i++) {
		b = get(f->s[i]);
		b->flush = drain ? DRAIN : FLUSH;
		b->w = watermark_ns;
		put(f->s[i]);
	}
}

void fold__sync(struct fold *f)
{
	unsigned int i;
	struct shard *s;

	for (i = 0; i < f->n; i++)
		put(f->s[i]);
	for (i = 0; i < f->n; i++) {
		s = f->s[i];
		pthread_mutex_lock(&s->mu);
		while (s->tail != s->head)
			pthread_cond_wait(&s->nonfull, &s->mu);
		pthread_mutex_unlock(&s->mu);
	}
}

struct agg *fold__merged(struct fold *f, uint64_t now_ns)
{
	uint64_t lost = 0;
	struct agg *m;
	unsigned int i;

	fold__sync(f);
	m = agg_like(f);
	if (!m)
		return NULL;
	for (i = 0; i < f->n; i++) {
		agg__snapshot(f->s[i]->agg, now_ns);
		agg__merge(m, f->s[i]->agg); /* ENOMEM: counted in nomem */
		lost += f->s[i]->lost;
	}
	agg__count_nomem(m, lost);
	return m;
}

void fold__reset(struct fold *f)
{
	unsigned int i;

	fold__sync(f);
	for (i = 0; i < f->n; i++)
		agg__reset(f->s[i]->agg);
}

unsigned int fold__prune(struct fold *f,
			 int (*alive)(uint32_t tid, void *ctx), void *ctx)
{
	unsigned int i, n = 0;

	fold__sync(f);
	for (i = 0; i < f->n; i++)
		n += agg__prune(f->s[i]->agg, alive, ctx);
	return n;
}

void fold__free(struct fold *f)
{
	unsigned int i;
	struct shard *s;

	if (!f)
		return;
	for (i = 0; i < f->n; i++) {
		s = f->s[i];
		put(s);
		if (s->started) {
			pthread_mutex_lock(&s->mu);
			s->done = 1;
			pthread_cond_signal(&s->nonempty);
			pthread_mutex_unlock(&s->mu);
			pthread_join(s->th, NULL);
		}
		pthread_cond_destroy(&s->nonempty);
		pthread_cond_destroy(&s->nonfull);
		agg__free(s->agg);
		stream__free(s->st);
		pthread_mutex_destroy(&s->mu);
		free(s);
	}
	free(f);
}
