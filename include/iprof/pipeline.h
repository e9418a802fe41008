/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record pipeline: where every record goes once its source gave it.
 * Kernel-free.  The sources are the rings (the loader merges them with a
 * stream, include/iprof/stream.h, and hands each merged record to
 * pipeline__on_record(), the callback it is given) or a recording
 * (pipeline__replay(): rec_replay()).  The pipeline fans each record out,
 * in the order it came, to its sinks, all behind one operations struct
 * (struct sink_ops):
 *   - the tree: one aggregator (include/iprof/agg.h), or with
 *     cfg->fold_threads > 1 the shards of include/iprof/fold.h; built by
 *     pipeline__new() when cfg->tree, always the first sink;
 *   - the recording writer (pipeline__add_recording(), include/iprof/rec.h);
 *   - the timeline (-f chrome: src/report/chrome.c adds it);
 *   - any collector of the caller's (the calibration's).
 * The live run and iprof report build it alike (pipeline__new()), so a
 * recording reports as the live run did.
 *
 * With --fold-threads and no sink but the tree, the records may skip the
 * loader's merge: pipeline__split() hands each shard its rings' records
 * unmerged (pipeline__push_src(), pipeline__flush_src(): the shape of the
 * loader's struct loader_unmerged), and each shard merges its own.
 *
 * Not thread-safe: one caller at a time (the fold's workers are its own).
 */
#ifndef IPROF_PIPELINE_H
#define IPROF_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/agg.h"
#include "iprof/rec.h"

/*
 * A sink: what a record goes to.  @ctx is the pointer given with the ops
 * to pipeline__add(); the pipeline owns it from then on.
 */
struct sink_ops {
	const char *name; /* "tree", "recording", "timeline"...: for errors */
	/*
	 * one record of @len bytes (32 for a struct iprof_rec; another size
	 * is malformed, the sink counts or skips it), valid only during the
	 * call: the sink copies what it keeps
	 */
	void (*push)(void *ctx, const void *rec, size_t len);
	/*
	 * a replay reached its --from: what came before only set the state
	 * up (open calls, thread names); statistics start now.  May be NULL.
	 */
	void (*from)(void *ctx);
	/* free @ctx (the pipeline is freed, or pipeline__add() failed).
	 * May be NULL: the caller keeps it. */
	void (*destroy)(void *ctx);
};

/* What pipeline__new() builds. */
struct pipeline_cfg {
	int tree; /* fold the records into a tree (else sinks only) */
	uint32_t ntimers; /* timer ids 0..ntimers-1 (the plan's) */
	enum agg_by by; /* --by */
	uint32_t max_paths, max_keys; /* --max-paths, --max-keys (0: none) */
	uint32_t slowest; /* --slowest K (agg__set_slowest()), 0: off */
	unsigned int fold_threads; /* > 1: the tree sharded (fold.h) */
	/* the probes' costs to compensate (ntimers entries, copied; NULL:
	 * raw, or later with pipeline__set_costs()) */
	const struct agg_cost *costs;
	/* with costs: per CPU, per mille (pipeline__set_cpu_scale()) */
	const uint16_t *cpu_pm;
	uint32_t ncpu_pm;
};

struct pipeline;

/*
 * pipeline__new() - a pipeline as @cfg says: with cfg->tree, the tree (an
 * aggregator or the fold's shards) as its first sink.  Returns NULL with
 * errno set: EINVAL (a bad --by or caps), ENOMEM, or the fold's
 * pthread_create() error.
 */
struct pipeline *pipeline__new(const struct pipeline_cfg *cfg);

/*
 * pipeline__add() - records go to @ops(@ctx) too, after the sinks added
 * before.  The pipeline owns @ctx (ops->destroy at pipeline__free(); at
 * once if this fails).  Returns 0, -EBUSY (after pipeline__split(): the
 * records no longer come in one order), -ENOMEM.
 */
int pipeline__add(struct pipeline *p, const struct sink_ops *ops, void *ctx);

/*
 * pipeline__add_recording() - the recording writer @w as a sink
 * (rec_writer__push()); the pipeline owns @w (rec_writer__free()), not its
 * FILE.  Returns as pipeline__add().
 */
int pipeline__add_recording(struct pipeline *p, struct rec_writer *w);

/*
 * pipeline__push() - one merged record (@len bytes, the caller keeps it)
 * to every sink in the order they were added.
 */
void pipeline__push(struct pipeline *p, const void *rec, size_t len);

/*
 * pipeline__on_record() - pipeline__push() in the shape of the loader's
 * record callback (@ctx: the pipeline).  Returns 0.
 */
int pipeline__on_record(void *ctx, void *data, size_t size);

/*
 * pipeline__split() - the records will come unmerged from @nsrc rings
 * (pipeline__push_src(), pipeline__flush_src()), each fold shard merging
 * its own threads' records.  Only for a sharded tree and no other sink
 * (the recording and the timeline need every record in one order); after
 * it pipeline__add() refuses.  Returns 0, -EINVAL (no sharded tree, or
 * another sink), or fold__set_sources()'s error.
 */
int pipeline__split(struct pipeline *p, unsigned int nsrc);

/*
 * pipeline__push_src(), pipeline__flush_src() - after pipeline__split(),
 * the shape of the loader's struct loader_unmerged (@ctx: the pipeline):
 * a record of ring @src (fold__push_src(); a record of the wrong size is
 * counted malformed), and every record stamped before @watermark_ns is
 * pushed (@drain: all of them; fold__flush()).  push returns 0.
 */
int pipeline__push_src(void *ctx, unsigned int src, const void *rec,
		       size_t size);
void pipeline__flush_src(void *ctx, uint64_t watermark_ns, int drain);

/*
 * pipeline__replay() - the records of the recording @rd (after
 * rec_reader__new()) through the pipeline, within --from @from_ns and
 * --to @to_ns (ns after the run's start; 0: none), the sinks' from()
 * called at @from_ns: rec_replay().  Returns as rec_replay() (@err set).
 */
int pipeline__replay(struct pipeline *p, struct rec_reader *rd,
		     uint64_t from_ns, uint64_t to_ns, char *err,
		     size_t errlen);

/*
 * pipeline__set_costs() - compensate the tree for the probes' @costs
 * (ntimers entries, copied) from now on: agg__set_costs() or
 * fold__set_costs().  Returns 0, -EINVAL (no tree), -ENOMEM.
 */
int pipeline__set_costs(struct pipeline *p, const struct agg_cost *costs);

/*
 * pipeline__set_cpu_scale() - the costs scaled per CPU (@pm[@n] per mille,
 * copied): agg__set_cpu_scale() or fold__set_cpu_scale().  Returns 0 or
 * -EINVAL (no tree, @n too large, a factor 0).
 */
int pipeline__set_cpu_scale(struct pipeline *p, const uint16_t *pm,
			    uint32_t n);

/*
 * pipeline__tree() - the tree to report on at @now_ns (ns, the records'
 * clock), its open calls counted incomplete: the aggregator itself
 * (agg__snapshot()), or the shards merged into a new one (fold__merged()).
 * Give it back with pipeline__tree_done() once the report is out.  NULL:
 * no tree, or ENOMEM (errno).
 */
struct agg *pipeline__tree(struct pipeline *p, uint64_t now_ns);

/* pipeline__tree_done() - @agg from pipeline__tree() is no longer read */
void pipeline__tree_done(struct pipeline *p, struct agg *agg);

/*
 * pipeline__reset() - --interval-mode delta: the tree's statistics start
 * anew (agg__reset() or fold__reset()).  No tree: nothing.
 */
void pipeline__reset(struct pipeline *p);

/*
 * pipeline__prune() - free the tree's state of the threads that @alive
 * says are gone (agg__prune(), fold__prune()).  Returns how many.
 */
unsigned int pipeline__prune(struct pipeline *p,
			     int (*alive)(uint32_t tid, void *ctx), void *ctx);

/* pipeline__free() - every sink destroyed, the tree freed; @p may be NULL. */
void pipeline__free(struct pipeline *p);

#endif /* IPROF_PIPELINE_H */
