/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record stream: merges the records of several sources (one BPF ring
 * buffer per CPU) into one stream in which every thread's records are in
 * the order the thread produced them, whatever CPUs it ran on (DESIGN.md
 * §2).  Kernel-free: fed with struct iprof_rec / iprof_rec_comm records
 * (include/iprof/abi.h) by the loader, a recording, or a unit test.
 *
 * Each source is a FIFO: its records are delivered in the order they were
 * pushed, never reordered among themselves.  Within a ring, timestamps can
 * be slightly out of order (an interrupt's program runs between another
 * program's reserve and its timestamp read); those records belong to the
 * interrupted thread or to the CPU's interrupt context, and ring order is
 * what the aggregator must see.
 *
 * Across sources, records are merged on the key of each source's head
 * record, smallest first, with a binary heap over the non-empty sources
 * (O(log k) per record for k sources); equal keys: lower source index
 * first, so the output is deterministic.  The key of a record is its ts
 * (ns, CLOCK_MONOTONIC); an IPROF_REC_COMM record has no ts and takes the
 * key of the previous record pushed to the same source (0 if none), so it
 * stays ahead of the START that follows it in its ring.
 *
 * Watermark, as perf's ordered events do: stream__flush(W) delivers records
 * while the smallest head key is < W.  A source whose head key is >= W
 * stops there (its later records wait, even those with keys < W); a source
 * with nothing queued stalls nobody.  The caller reads W =
 * clock_gettime(CLOCK_MONOTONIC) before it drains any ring in this pass,
 * pushes everything it drained, then flushes with W.
 *
 * Why that keeps each thread in order.  Let Y be a record of thread T
 * delivered by stream__flush(W) (key(Y) < W), from source B, and X the
 * record of T just before Y.  If X is on B too, FIFO order delivers X
 * first.  Otherwise T migrated from X's CPU A to B between them: the BPF
 * program that wrote X ran with migration disabled, so X was committed,
 * and so was every record reserved on A before X (programs nest only
 * inside one another on a CPU, and the inner one, X's, ends first; the
 * outer ones belong to T or to A's interrupt context and end before T
 * leaves A), before T left A, which is before Y's timestamp was read.
 * Hence all of them were committed before W, so they were in A's ring when
 * this pass drained it (or an earlier pass did): they are queued, and none
 * is held back by the watermark.  Their keys are clock reads taken before
 * T left A, so smaller than key(Y), and the merge delivers them, X
 * included, before Y.  By induction every earlier record of T is delivered
 * before Y.  Records of an interrupt context (IPROF_F_CTX) are per CPU and
 * never leave their source.  Nothing older than a delivered record of the
 * same thread can arrive later: a record committed after W has a key >= W,
 * and the thread's later records wait behind it by the argument above.
 *
 * Records that are not sizeof(struct iprof_rec) bytes (32) cannot be keyed
 * or stored in a slot: stream__push() hands them to the sink at once,
 * ahead of anything queued (the aggregator counts them as malformed).
 *
 * Storage: per source, a growable circular array of 32-byte record slots
 * and their keys (no allocation per record; capacity doubles when full, so
 * memory is at most twice the largest number of records a source had
 * queued at once; a source that empties with more than 65536 slots frees
 * them, so that a backlog does not stay in memory for a days-long run;
 * plus 40 bytes of bookkeeping and 16 of heap per source).
 *
 * Not thread-safe: one caller at a time.  The sink must not call back into
 * the same stream (push, flush or drain from inside it answer -EBUSY).
 */
#ifndef IPROF_STREAM_H
#define IPROF_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/abi.h"

/* Most sources a stream takes (iprof_rec.cpu is 16 bits). */
#define STREAM_MAX_SRC 65536u

/*
 * The consumer of merged records: @rec points at @len bytes, valid only
 * during the call (the sink copies what it keeps); @ctx is the pointer
 * given to stream__new().
 */
typedef void (*stream_sink_fn)(void *ctx, const void *rec, size_t len);

/* Counters of a stream, in records. */
struct stream_stats {
	uint64_t pushed;    /* stream__push() calls that took a record */
	uint64_t delivered; /* records handed to the sink, malformed included */
	uint64_t malformed; /* of delivered: wrong size, passed on at push */
	uint64_t queued;    /* records queued now, waiting for a flush */
	uint64_t queued_max; /* high-water mark of queued */
	uint64_t slots;	     /* slots allocated now over all sources
			      * (memory: slots * (32 + 8) bytes) */
};

struct stream;

/*
 * stream__new() - an empty stream of @nsrc sources (0..nsrc-1, e.g. one
 * per possible CPU) delivering to @sink(@ctx, rec, len).  Allocates only
 * the per-source bookkeeping; slots come with the first records.
 * Returns NULL with errno set: EINVAL (nsrc 0 or above STREAM_MAX_SRC, or
 * no sink), ENOMEM.
 */
struct stream *stream__new(unsigned int nsrc, stream_sink_fn sink, void *ctx);

/*
 * stream__push() - append a copy of the record @rec of @len bytes to
 * source @src's queue (the caller keeps @rec).  Nothing is delivered,
 * except a record of another size than sizeof(struct iprof_rec), which
 * goes to the sink at once.
 * Returns 0, -EINVAL (src >= nsrc, rec NULL), -EBUSY (called from the
 * sink), or -ENOMEM when the source's queue could not grow (the record is
 * not queued; nothing else changes).
 */
int stream__push(struct stream *s, unsigned int src, const void *rec,
		 size_t len);

/*
 * stream__flush() - deliver to the sink, merged, every queued record that
 * can be delivered below the watermark @watermark_ns (ns, CLOCK_MONOTONIC):
 * while the smallest head key is < watermark_ns (see above).
 * Returns the number of records delivered (0 or more; at most INT_MAX per
 * call, the rest stay queued), or -EBUSY (called from the sink).
 */
int stream__flush(struct stream *s, uint64_t watermark_ns);

/*
 * stream__drain() - deliver everything queued, merged (end of trace, when
 * no source can produce more).  Returns records delivered (at most
 * INT_MAX per call, as stream__flush()), or -EBUSY.
 */
int stream__drain(struct stream *s);

/* stream__stats() - the counters (pointer valid until stream__free()). */
const struct stream_stats *stream__stats(const struct stream *s);

/*
 * stream__free() - free the stream and the records still queued (they are
 * not delivered: call stream__drain() first to keep them); @s may be NULL.
 */
void stream__free(struct stream *s);

#endif /* IPROF_STREAM_H */
