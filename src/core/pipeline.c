// SPDX-License-Identifier: GPL-2.0-only
/*
 * The record pipeline (include/iprof/pipeline.h): one stream of records,
 * from the rings or a recording, fanned out to the tree and the other
 * sinks behind struct sink_ops.
 */
#include <errno.h>
#include <stdlib.h>

#include "iprof/fold.h"
#include "iprof/pipeline.h"

struct sink {
	const struct sink_ops *ops;
	void *ctx;
};

struct pipeline {
	struct sink *sinks;
	unsigned int nsinks, cap;
	/* the tree, sinks[0] when there is one: one of the two */
	struct agg *agg;
	struct fold *fold;
	int split; /* pipeline__split(): records come unmerged */
};

/* ---- the tree's sinks: an aggregator, or the fold's shards --------------*/

static void agg_push(void *ctx, const void *rec, size_t len)
{
	/* a malformed record is counted by the aggregator: go on */
	agg__push(ctx, rec, len);
}

static void agg_from(void *ctx)
{
	agg__reset(ctx);
}

static void agg_destroy(void *ctx)
{
	agg__free(ctx);
}

static const struct sink_ops agg_ops = {
	.name = "tree",
	.push = agg_push,
	.from = agg_from,
	.destroy = agg_destroy,
};

static void fold_push(void *ctx, const void *rec, size_t len)
{
	fold__push(ctx, rec, len);
}

static void fold_from(void *ctx)
{
	fold__reset(ctx);
}

static void fold_destroy(void *ctx)
{
	fold__free(ctx);
}

static const struct sink_ops fold_ops = {
	.name = "tree",
	.push = fold_push,
	.from = fold_from,
	.destroy = fold_destroy,
};

/* ---- the recording's sink -------------------------------------------------*/

static void rec_push(void *ctx, const void *rec, size_t len)
{
	/* a write error stays in the FILE: rec_writer__finish() says it */
	rec_writer__push(ctx, rec, len);
}

static void rec_destroy(void *ctx)
{
	rec_writer__free(ctx);
}

static const struct sink_ops rec_ops = {
	.name = "recording",
	.push = rec_push,
	.destroy = rec_destroy,
};

/* ---- the pipeline ---------------------------------------------------------*/

/* the tree of @cfg, the first sink: an aggregator, or fold shards.
 * 0 or -errno */
static int new_tree(struct pipeline *p, const struct pipeline_cfg *cfg)
{
	int e;

	if (cfg->fold_threads > 1) {
		p->fold = fold__new(cfg->fold_threads, cfg->ntimers, cfg->by,
				    cfg->max_paths, cfg->max_keys);
		if (!p->fold)
			return -errno;
		if ((e = fold__set_slowest(p->fold, cfg->slowest))) {
			fold__free(p->fold);
			p->fold = NULL;
			return e;
		}
		if ((e = pipeline__add(p, &fold_ops, p->fold))) {
			p->fold = NULL; /* destroyed */
			return e;
		}
		return 0;
	}
	p->agg = agg__new(cfg->ntimers);
	if (!p->agg)
		return -ENOMEM;
	if ((e = agg__set_by(p->agg, cfg->by)) ||
	    (e = agg__set_limits(p->agg, cfg->max_paths, cfg->max_keys)) ||
	    (e = agg__set_slowest(p->agg, cfg->slowest))) {
		agg__free(p->agg);
		p->agg = NULL;
		return e;
	}
	if ((e = pipeline__add(p, &agg_ops, p->agg))) {
		p->agg = NULL; /* destroyed */
		return e;
	}
	return 0;
}

struct pipeline *pipeline__new(const struct pipeline_cfg *cfg)
{
	struct pipeline *p = calloc(1, sizeof(*p));
	int e = 0;

	if (!p)
		return NULL;
	if (cfg->tree && !(e = new_tree(p, cfg)) && cfg->costs)
		e = pipeline__set_costs(p, cfg->costs) ?:
		    pipeline__set_cpu_scale(p, cfg->cpu_pm, cfg->ncpu_pm);
	if (e) {
		pipeline__free(p);
		errno = -e;
		return NULL;
	}
	return p;
}

int pipeline__add(struct pipeline *p, const struct sink_ops *ops, void *ctx)
{
	struct sink *s;
	unsigned int cap;

	if (p->split) {
		if (ops->destroy)
			ops->destroy(ctx);
		return -EBUSY;
	}
	if (p->nsinks == p->cap) {
		cap = p->cap ? p->cap * 2 : 4;
		s = realloc(p->sinks, cap * sizeof(*s));
		if (!s) {
			if (ops->destroy)
				ops->destroy(ctx);
			return -ENOMEM;
		}
		p->sinks = s;
		p->cap = cap;
	}
	p->sinks[p->nsinks].ops = ops;
	p->sinks[p->nsinks].ctx = ctx;
	p->nsinks++;
	return 0;
}

int pipeline__add_recording(struct pipeline *p, struct rec_writer *w)
{
	return pipeline__add(p, &rec_ops, w);
}

void pipeline__push(struct pipeline *p, const void *rec, size_t len)
{
	const struct sink *s = p->sinks, *end = s + p->nsinks;

	for (; s < end; s++)
		s->ops->push(s->ctx, rec, len);
}

int pipeline__on_record(void *ctx, void *data, size_t size)
{
	pipeline__push(ctx, data, size);
	return 0;
}

int pipeline__split(struct pipeline *p, unsigned int nsrc)
{
	int e;

	if (!p->fold || p->nsinks != 1)
		return -EINVAL;
	if ((e = fold__set_sources(p->fold, nsrc)))
		return e;
	p->split = 1;
	return 0;
}

int pipeline__push_src(void *ctx, unsigned int src, const void *rec,
		       size_t size)
{
	struct pipeline *p = ctx;

	/* a record of the wrong size is counted malformed: go on */
	fold__push_src(p->fold, src, rec, size);
	return 0;
}

void pipeline__flush_src(void *ctx, uint64_t watermark_ns, int drain)
{
	struct pipeline *p = ctx;

	fold__flush(p->fold, watermark_ns, drain);
}

/* rec_replay()'s callbacks */
static void replay_from(void *ctx)
{
	struct pipeline *p = ctx;
	unsigned int i;

	for (i = 0; i < p->nsinks; i++)
		if (p->sinks[i].ops->from)
			p->sinks[i].ops->from(p->sinks[i].ctx);
}

static void replay_push(void *ctx, const void *rec, size_t len)
{
	pipeline__push(ctx, rec, len);
}

int pipeline__replay(struct pipeline *p, struct rec_reader *rd,
		     uint64_t from_ns, uint64_t to_ns, char *err, size_t errlen)
{
	return rec_replay(rd, from_ns, to_ns, replay_from, replay_push, p, err,
			  errlen);
}

int pipeline__set_costs(struct pipeline *p, const struct agg_cost *costs)
{
	if (p->fold)
		return fold__set_costs(p->fold, costs);
	if (p->agg)
		return agg__set_costs(p->agg, costs);
	return -EINVAL;
}

int pipeline__set_cpu_scale(struct pipeline *p, const uint16_t *pm,
			    uint32_t n)
{
	if (p->fold)
		return fold__set_cpu_scale(p->fold, pm, n);
	if (p->agg)
		return agg__set_cpu_scale(p->agg, pm, n);
	return -EINVAL;
}

struct agg *pipeline__tree(struct pipeline *p, uint64_t now_ns)
{
	if (p->fold)
		return fold__merged(p->fold, now_ns);
	if (p->agg)
		agg__snapshot(p->agg, now_ns);
	return p->agg;
}

void pipeline__tree_done(struct pipeline *p, struct agg *agg)
{
	if (p->fold)
		agg__free(agg); /* the shards merged: a copy */
}

void pipeline__reset(struct pipeline *p)
{
	if (p->fold)
		fold__reset(p->fold);
	else if (p->agg)
		agg__reset(p->agg);
}

unsigned int pipeline__prune(struct pipeline *p,
			     int (*alive)(uint32_t tid, void *ctx), void *ctx)
{
	if (p->fold)
		return fold__prune(p->fold, alive, ctx);
	if (p->agg)
		return agg__prune(p->agg, alive, ctx);
	return 0;
}

void pipeline__free(struct pipeline *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->nsinks; i++)
		if (p->sinks[i].ops->destroy)
			p->sinks[i].ops->destroy(p->sinks[i].ctx);
	free(p->sinks);
	free(p);
}
