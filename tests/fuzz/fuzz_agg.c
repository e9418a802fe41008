// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: the aggregator (src/core/agg.c) and the formatters on
 * arbitrary record streams.  The input is read 12 bytes per record: the
 * fields of a struct iprof_rec taken mostly in range (few threads, timers
 * and depths, timestamps moving forward by a byte's worth, sometimes back)
 * so that the stream gets deep; every 16th record is passed as raw bytes
 * with a size of its own.  Snapshots are taken along the way and at the
 * end, and the tree's invariants are checked each time:
 *   - links: a child's parent is its node, its depth one more;
 *   - self_ns <= total_ns, min_ns <= avg <= max_ns, and raw (no costs)
 *     max_ns <= total_ns;
 *   - count == 0: min_ns == max_ns == 0;
 *   - oncpu_ns + runq_ns + blocked_ns == total_ns.
 * An input whose second byte is odd is compensated (agg__set_costs(),
 * medians and means from its next bytes), the sums' debt included.
 * Then every format is written to /dev/null.
 */
#undef NDEBUG /* the checks are the point, in every build type */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iprof/agg.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"

#define NTIMERS 5

static int compensated;

static void check_tree(const struct agg_node *n)
{
	const struct agg_node *c;

	assert(n->self_ns <= n->total_ns);
	if (n->count) {
		assert(n->min_ns <= n->max_ns);
		assert(n->min_ns <= n->total_ns / n->count);
		assert(n->total_ns / n->count <= n->max_ns);
		/* compensated, max may be a call less the median cost above
		 * the sum less the mean cost */
		assert(compensated || n->max_ns <= n->total_ns);
	} else {
		assert(n->min_ns == 0 && n->max_ns == 0);
	}
	if (n->parent)
		assert(n->oncpu_ns + n->runq_ns + n->blocked_ns ==
		       n->total_ns);
	for (c = n->child; c; c = c->next) {
		assert(c->parent == n);
		assert(c->depth == n->depth + 1);
		check_tree(c);
	}
}

static void write_all(struct agg *a)
{
	static FILE *null;
	struct report r = { 0 };

	if (!null)
		null = fopen("/dev/null", "w");
	if (!null)
		return;
	r.agg = a;
	r.duration_ns = 1000000;
	report_table(null, &r);
	report_seed(null, &r);
	report_json(null, &r);
	report_folded(null, &r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agg *a = agg__new(NTIMERS);
	uint64_t ts = 1000000;
	size_t i, k = 0;

	if (!a)
		return 0;
	if (size && data[0] < 4)
		agg__set_by(a, (enum agg_by)data[0]);
	compensated = size >= 6 && (data[1] & 1);
	if (compensated) {
		struct agg_cost c[NTIMERS];

		/* ns in the range of a record's steps (bytes x 100 ns) */
		for (i = 0; i < NTIMERS; i++)
			c[i] = (struct agg_cost){
				.start_in_ns = data[2] * 100u,
				.start_out_ns = data[3] * 100u,
				.stop_in_ns = data[2] * 50u,
				.stop_out_ns = data[3] * 50u,
				.flags = (i == 4 ? AGG_COST_UNKNOWN : 0) |
					 (data[4] & 1 ? AGG_COST_MEAN : 0),
				.mean_start_in_ns = data[5] * 100u,
				.mean_start_out_ns = data[4] * 100u,
				.mean_stop_in_ns = data[5] * 50u,
				.mean_stop_out_ns = data[4] * 50u,
			};
		agg__set_costs(a, c);
	}
	for (i = 0; i + 12 <= size; i += 12, k++) {
		const uint8_t *d = data + i;
		struct iprof_rec r = { 0 };

		if (k % 16 == 15) {
			uint8_t raw[40] = { 0 };

			memcpy(raw, d, 12);
			agg__push(a, raw, d[11] % sizeof(raw));
			continue;
		}
		r.type = d[0] % 12;
		r.flags = d[1] & 3;
		r.size = sizeof(r);
		r.timer = d[2] % (NTIMERS + 1);
		r.tid = 1 + d[3] % 4;
		r.tgid = 1 + d[4] % 2;
		/* forward by up to 255 us, sometimes back a little */
		if (d[5] == 0xff && ts > 5000)
			ts -= 5000;
		else
			ts += (uint64_t)d[5] * 1000 + d[6];
		r.ts = ts;
		r.depth = d[7] % 8;
		r.cpu = d[8] % 4;
		r.aux = d[9] % 5;
		if (r.type == IPROF_REC_COMM)
			memcpy((char *)&r + 16, d, 12); /* comm bytes */
		agg__push(a, &r, sizeof(r));
		if (d[10] == 0xfe) {
			agg__snapshot(a, ts);
			check_tree(agg__root(a));
			if (d[11] == 0xfe)
				agg__reset(a);
		}
	}
	agg__snapshot(a, ts + 1000);
	check_tree(agg__root(a));
	write_all(a);
	agg__free(a);
	return 0;
}
