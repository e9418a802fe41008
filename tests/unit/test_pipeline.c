// SPDX-License-Identifier: GPL-2.0-only
/*
 * The record pipeline (src/core/pipeline.c): every record reaches every
 * sink once, in the order pushed and in the order the sinks were added;
 * the tree folds them (one aggregator or the sharded fold alike); a
 * recording written through the pipeline and replayed through another
 * gives the same tree, with --from resetting it where the window starts;
 * the sinks are freed once, by the pipeline; pipeline__split() is refused
 * unless the sharded tree is the only sink, and then no sink is added.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "iprof/agg.h"
#include "iprof/pipeline.h"
#include "iprof/rec.h"

#define T0 1000000000ull /* start of the run, record clock */
#define NPAIR 1000u /* START/STOP pairs of timer 0, thread 100 */

/* record i: a START (even) or STOP (odd) of timer 0, 1 us apart */
static struct iprof_rec mkrec(unsigned int i)
{
	struct iprof_rec r = { 0 };

	r.type = i % 2 ? IPROF_REC_STOP : IPROF_REC_START;
	r.size = sizeof(r);
	r.timer = 0;
	r.tid = 100;
	r.tgid = 100;
	r.ts = T0 + 1000ull * (i + 1);
	r.depth = 1;
	return r;
}

/* a sink that counts and checks the order it got */
struct counter {
	unsigned int recs, froms, destroyed;
	uint64_t last_ts;
	int in_order;
	unsigned int *seq; /* the order sinks were called in, shared */
	unsigned int id, seen_at;
};

static void count_push(void *ctx, const void *rec, size_t len)
{
	const struct iprof_rec *r = rec;
	struct counter *c = ctx;

	assert_int_equal(len, sizeof(*r));
	if (r->ts < c->last_ts)
		c->in_order = 0;
	c->last_ts = r->ts;
	c->recs++;
	c->seen_at = (*c->seq)++;
}

static void count_from(void *ctx)
{
	((struct counter *)ctx)->froms++;
}

static void count_destroy(void *ctx)
{
	((struct counter *)ctx)->destroyed++;
}

static const struct sink_ops count_ops = {
	.name = "counter",
	.push = count_push,
	.from = count_from,
	.destroy = count_destroy,
};

static void push_all(struct pipeline *p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct iprof_rec r = mkrec(i);

		/* the loader's callback shape as well as the plain push */
		if (i % 2)
			pipeline__push(p, &r, sizeof(r));
		else
			assert_int_equal(pipeline__on_record(p, &r, sizeof(r)),
					 0);
	}
}

/* the tree's count of timer 0 at the end */
static uint64_t tree_count(struct pipeline *p)
{
	struct agg *a = pipeline__tree(p, T0 + 1000ull * (2 * NPAIR + 1));
	uint64_t n;

	assert_non_null(a);
	n = agg__root(a)->child ? agg__root(a)->child->count : 0;
	pipeline__tree_done(p, a);
	return n;
}

static void fanout(unsigned int fold_threads)
{
	struct pipeline_cfg cfg = { .tree = 1, .ntimers = 1,
				    .fold_threads = fold_threads };
	unsigned int seq = 0;
	struct counter a = { .in_order = 1, .seq = &seq, .id = 1 };
	struct counter b = { .in_order = 1, .seq = &seq, .id = 2 };
	struct pipeline *p = pipeline__new(&cfg);

	assert_non_null(p);
	assert_int_equal(pipeline__add(p, &count_ops, &a), 0);
	assert_int_equal(pipeline__add(p, &count_ops, &b), 0);
	push_all(p, 2 * NPAIR);
	assert_int_equal(a.recs, 2 * NPAIR);
	assert_int_equal(b.recs, 2 * NPAIR);
	assert_true(a.in_order && b.in_order);
	/* the last record went to a, then b: the order they were added */
	assert_int_equal(b.seen_at, a.seen_at + 1);
	assert_int_equal(tree_count(p), NPAIR);
	/* --interval-mode delta: the tree starts anew */
	pipeline__reset(p);
	assert_int_equal(tree_count(p), 0);
	pipeline__free(p);
	assert_int_equal(a.destroyed, 1);
	assert_int_equal(b.destroyed, 1);
	assert_int_equal(a.froms + b.froms, 0);
}

static void test_fanout_agg(void **state)
{
	(void)state;
	fanout(1);
}

static void test_fanout_fold(void **state)
{
	(void)state;
	fanout(3);
}

/* no tree: the sinks alone (calibration, -f chrome's replay) */
static void test_no_tree(void **state)
{
	struct pipeline_cfg cfg = { .ntimers = 1 };
	unsigned int seq = 0;
	struct counter a = { .in_order = 1, .seq = &seq };
	struct pipeline *p = pipeline__new(&cfg);

	(void)state;
	assert_non_null(p);
	assert_null(pipeline__tree(p, T0));
	assert_int_equal(pipeline__set_costs(p, NULL), -EINVAL);
	assert_int_equal(pipeline__add(p, &count_ops, &a), 0);
	push_all(p, 10);
	assert_int_equal(a.recs, 10);
	pipeline__free(p);
	assert_int_equal(a.destroyed, 1);
}

static void test_split(void **state)
{
	struct pipeline_cfg one = { .tree = 1, .ntimers = 1 };
	struct pipeline_cfg sharded = { .tree = 1, .ntimers = 1,
					.fold_threads = 2 };
	unsigned int seq = 0;
	struct counter a = { .in_order = 1, .seq = &seq };
	struct counter b = { .in_order = 1, .seq = &seq };
	struct pipeline *p;

	(void)state;
	/* one aggregator: nothing to split */
	p = pipeline__new(&one);
	assert_non_null(p);
	assert_int_equal(pipeline__split(p, 4), -EINVAL);
	pipeline__free(p);
	/* a sink besides the shards needs the records in one order */
	p = pipeline__new(&sharded);
	assert_non_null(p);
	assert_int_equal(pipeline__add(p, &count_ops, &a), 0);
	assert_int_equal(pipeline__split(p, 4), -EINVAL);
	pipeline__free(p);
	assert_int_equal(a.destroyed, 1);
	/* the shards alone: split; then no sink is taken, and freed at once */
	p = pipeline__new(&sharded);
	assert_non_null(p);
	assert_int_equal(pipeline__split(p, 4), 0);
	assert_int_equal(pipeline__add(p, &count_ops, &b), -EBUSY);
	assert_int_equal(b.destroyed, 1);
	for (unsigned int i = 0; i < 2 * NPAIR; i++) {
		struct iprof_rec r = mkrec(i);

		assert_int_equal(pipeline__push_src(p, i % 4, &r, sizeof(r)),
				 0);
	}
	pipeline__flush_src(p, 0, 1);
	assert_int_equal(tree_count(p), NPAIR);
	pipeline__free(p);
	assert_int_equal(b.destroyed, 1);
	assert_int_equal(b.recs, 0);
}

/* a recording written by one pipeline, replayed through another */
static void test_record_replay(void **state)
{
	static char *cmd[] = { "/bin/work", NULL };
	struct report_timer timer = { .name = "t", .kind = "uprobe",
				      .where = "uprobe:/x:t", .attached = 1 };
	struct pipeline_cfg cfg = { .tree = 1, .ntimers = 1 };
	struct rec_run run = { 0 };
	unsigned int seq = 0;
	struct counter a = { .in_order = 1, .seq = &seq };
	struct rec_writer *w;
	struct rec_reader *rd;
	struct pipeline *p;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	run.command = cmd;
	run.start_ns = T0;
	run.end_ns = T0 + 1000ull * (2 * NPAIR + 1);
	run.timers = &timer;
	run.ntimers = 1;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	w = rec_writer__new(f, "mem", &run);
	assert_non_null(w);
	p = pipeline__new(&cfg);
	assert_non_null(p);
	assert_int_equal(pipeline__add_recording(p, w), 0);
	push_all(p, 2 * NPAIR);
	assert_int_equal(rec_writer__records(w), 2 * NPAIR);
	assert_int_equal(rec_writer__finish(w, &run), 0);
	pipeline__free(p); /* frees the writer, not the FILE */
	fclose(f);

	/* --from 100.5 us: records 100.. (START of pair 50) count */
	f = fmemopen(buf, len, "r");
	assert_non_null(f);
	rd = rec_reader__new(f, "mem", err, sizeof(err));
	assert_non_null(rd);
	p = pipeline__new(&cfg);
	assert_non_null(p);
	assert_int_equal(pipeline__add(p, &count_ops, &a), 0);
	assert_int_equal(pipeline__replay(p, rd, 100500, 0, err, sizeof(err)),
			 0);
	assert_int_equal(a.recs, 2 * NPAIR);
	assert_int_equal(a.froms, 1);
	assert_int_equal(tree_count(p), NPAIR - 50);
	pipeline__free(p);
	rec_reader__free(rd);
	fclose(f);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fanout_agg),
		cmocka_unit_test(test_fanout_fold),
		cmocka_unit_test(test_no_tree),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_record_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
