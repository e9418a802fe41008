/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sharded folding (iprof --fold-threads N): the records of a merged
 * stream (src/core/stream.c: each thread's records in time order) folded by N
 * worker threads, each with its own aggregator (include/iprof/agg.h), a
 * record going to the shard of its thread: its tid, or for an interrupt
 * context (IPROF_F_CTX) its context and CPU, hashed.  Every record of a
 * thread goes to one shard in the order pushed, so each shard folds its
 * threads exactly as one aggregator would, and the shards' trees merged
 * (agg__merge()) are one aggregator's tree.
 *
 * The caller (one thread: the ring drain) pushes records; they are copied
 * into a batch per shard (FOLD_BATCH records) and a full batch goes to its
 * worker through a queue of FOLD_QCAP batches (a mutex and two condition
 * variables); a push waits while that queue is full.  fold__sync() hands
 * over the partial batches and waits until every worker has folded
 * everything: until the caller's next push, the shards are quiet and the
 * calls below may read and change them.
 *
 * Or the records unmerged (fold__set_sources()): each ring's records as
 * taken from it, then a watermark; each shard then merges its own threads'
 * records with a stream of its own (include/iprof/stream.h: a thread's
 * records all go to one shard, so the stream's argument for each thread's
 * order holds within a shard), so that the merge runs in N threads too.
 * One difference: an IPROF_REC_COMM record takes the key of the record
 * before it in its ring (stream.h), and within a shard that is the
 * shard's record before it, so a name may reach its aggregator earlier
 * than one stream would deliver it; BPF sends it on the CPU where its
 * thread runs, before the thread's next record, so the thread's own
 * records keep their order around it.
 *
 * Not thread-safe beyond that: one caller thread for every call.
 */
#ifndef IPROF_FOLD_H
#define IPROF_FOLD_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/agg.h"

#define FOLD_BATCH 1024u /* records a batch (32 KiB) */
#define FOLD_QCAP 8u /* batches queued a worker */
#define FOLD_MAX_THREADS 64u

struct fold;

/*
 * fold__new() - @nthreads (1..FOLD_MAX_THREADS) workers, started, each
 * with an aggregator of @ntimers timers, --by @by and caps @max_paths,
 * @max_keys (agg__set_by(), agg__set_limits(): each shard's caps, and the
 * merged tree's).  Returns NULL with errno set (EINVAL, ENOMEM, or
 * pthread_create()'s error).
 */
struct fold *fold__new(unsigned int nthreads, uint32_t ntimers,
		       enum agg_by by, uint32_t max_paths, uint32_t max_keys);

/*
 * fold__set_slowest() - every shard, and the merged tree, keeps each
 * node's @k slowest calls (agg__set_slowest(): the K slowest of the
 * shards' are the run's).  Call before the first push.  Returns 0 or
 * -EINVAL (@k > SLOW_K_MAX).
 */
int fold__set_slowest(struct fold *f, uint32_t k);

/*
 * fold__set_costs() - every shard compensates for the probes' cost
 * (agg__set_costs(): @costs[ntimers], copied; NULL: raw).  Call before the
 * first record.  Returns 0 or -ENOMEM.
 */
int fold__set_costs(struct fold *f, const struct agg_cost *costs);

/*
 * fold__set_cpu_scale() - every shard scales the costs per CPU
 * (agg__set_cpu_scale(): @pm[n], copied).  Returns 0 or -EINVAL.
 */
int fold__set_cpu_scale(struct fold *f, const uint16_t *pm, uint32_t n);

/*
 * fold__push() - queue a copy of the record @rec (@size bytes) for its
 * shard; may wait for the worker to take a batch.  A record of another
 * size than struct iprof_rec is folded at once (after fold__sync()) into
 * shard 0, which counts it malformed.  Returns 0, or -EINVAL as
 * agg__push() for that record.
 */
int fold__push(struct fold *f, const void *rec, size_t size);

/*
 * fold__set_sources() - before any push: the records come unmerged from
 * @nsrc sources (rings), through fold__push_src() and fold__flush(), and
 * each shard merges them with a stream (stream__new(@nsrc)) of its own.
 * Returns 0, -EINVAL (@nsrc 0 or above STREAM_MAX_SRC, or called twice),
 * -ENOMEM.
 */
int fold__set_sources(struct fold *f, unsigned int nsrc);

/*
 * fold__push_src() - as fold__push(), for a record of source @src, in
 * the order taken from that source; its shard pushes it to its stream
 * (stream__push()).  A shard whose stream cannot grow loses the record
 * (counted in the merged aggregator's nomem, as the aggregator's own).
 * Returns 0, -EINVAL (@src out of range, or no sources set).
 */
int fold__push_src(struct fold *f, unsigned int src, const void *rec,
		   size_t size);

/*
 * fold__flush() - every record of the sources stamped before
 * @watermark_ns was pushed (src/core/stream.h): each shard delivers to its
 * aggregator what its stream can below it (stream__flush()), or with
 * @drain everything it holds (stream__drain(): the sources are done).
 * Does not wait: fold__sync() does.
 */
void fold__flush(struct fold *f, uint64_t watermark_ns, int drain);

/* fold__sync() - hand over every record pushed and wait until folded. */
void fold__sync(struct fold *f);

/*
 * fold__merged() - fold__sync(), agg__snapshot(@now_ns) of every shard,
 * then a new aggregator (same ntimers, --by, caps) with the shards merged
 * into it in shard order: what a report reads.  The caller owns it (free
 * it with agg__free() once the report is out: it is as large as the
 * tree); do not push into it.  Since it has no threads of its own,
 * agg__snapshot() on it would zero the incomplete counts it holds: do not
 * call it.  Returns NULL with errno set (ENOMEM).
 */
struct agg *fold__merged(struct fold *f, uint64_t now_ns);

/* fold__reset() - fold__sync(), then agg__reset() of every shard. */
void fold__reset(struct fold *f);

/*
 * fold__prune() - fold__sync(), then agg__prune() of every shard.
 * Returns the threads freed in all.
 */
unsigned int fold__prune(struct fold *f,
			 int (*alive)(uint32_t tid, void *ctx), void *ctx);

/*
 * fold__free() - stop the workers (after folding the batches handed over;
 * what a shard's stream still holds is dropped: fold__flush(f, 0, 1)
 * first to keep it), free.
 */
void fold__free(struct fold *f);

#endif /* IPROF_FOLD_H */
