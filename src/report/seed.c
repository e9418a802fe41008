/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The seed patch's line format (--format seed), so that its users can diff
 * old and new output, followed by "# " summary lines the seed never had.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "iprof/report.h"
#include "iprof/report_fmt.h"

/*
 * live[i]: node i completed a timer, or one of its descendants did.  In
 * reverse pre-order every node comes after its whole subtree; acc[d] holds
 * the OR over the depth-d nodes seen since the last node of depth d-1,
 * i.e. over the children of the next depth d-1 node.
 */
static int compute_live(const struct agg_node **nodes, size_t n,
			unsigned char *live)
{
	uint32_t maxd = 0, d;
	unsigned char *acc;
	size_t i;

	for (i = 0; i < n; i++)
		if (nodes[i]->depth > maxd)
			maxd = nodes[i]->depth;
	acc = calloc((size_t)maxd + 2, 1);
	if (!acc)
		return -ENOMEM;
	for (i = n; i-- > 0;) {
		d = nodes[i]->depth;
		live[i] = nodes[i]->count + nodes[i]->hits > 0 || acc[d + 1];
		acc[d + 1] = 0;
		acc[d] |= live[i];
	}
	free(acc);
	return 0;
}

/*
 * seed_err() - after a node's line, a comment with its error bars
 * (report_node_err(), ms like the line's): "#   +- thread_time = 0.12ms,
 * avg = 0.01" and ", below resolution: thread_time avg p50" naming the
 * statistics within their error bars of 0 (report_node_res(): the line's
 * thread_time, max and avg, and min and the percentiles, which the line
 * does not show); nothing without error bars.  The lines keep their text.
 */
static void seed_err(FILE *f, const struct agg_node *nd)
{
	static const char *const name[REPORT_NSTAT] = {
		[REPORT_STAT_TOTAL] = "thread_time",
		[REPORT_STAT_SELF] = "self",
		[REPORT_STAT_MIN] = "min",
		[REPORT_STAT_AVG] = "avg",
		[REPORT_STAT_MAX] = "max",
		[REPORT_STAT_P50] = "p50",
		[REPORT_STAT_P90] = "p90",
		[REPORT_STAT_P99] = "p99",
		[REPORT_STAT_P999] = "p99.9",
	};
	struct report_err e;
	uint32_t m;
	const char *sep = ", below resolution:";

	if (!report_node_err(nd, &e))
		return;
	fprintf(f, "#%*s+- thread_time = %.2fms, avg = %.2f",
		(int)(2 * (nd->depth - 1)) + 1, "", (double)e.total_ns / 1e6,
		(double)e.avg_ns / 1e6);
	m = report_node_res(nd);
	for (int s = 0; s < REPORT_NSTAT; s++) {
		if (m & (1u << s)) {
			fprintf(f, "%s %s", sep, name[s]);
			sep = "";
		}
	}
	fputc('\n', f);
}

static int seed_body(FILE *f, const struct report *r)
{
	const struct agg_node **nodes, *nd;
	unsigned char *live = NULL;
	size_t n, i;
	char buf[REPORT_NAME_BUF];
	int err;

	errno = 0;
	err = report_nodes(r->agg, 0, &nodes, &n);
	if (err)
		return err;
	if (n) {
		live = malloc(n);
		if (!live) {
			err = -ENOMEM;
			goto out;
		}
		err = compute_live(nodes, n, live);
		if (err)
			goto out;
	}

	for (i = 0; i < n; i++) {
		double total_ms, wall_ms = 0, max_ms, avg_ms = 0;
		uint64_t wall_ns;

		if (!live[i])
			continue;
		nd = nodes[i];
		total_ms = (double)nd->total_ns / 1e6;
		max_ms = (double)nd->max_ns / 1e6;
		if (nd->count) {
			wall_ns = nd->last_stop_ns - nd->first_start_ns;
			wall_ms = (double)wall_ns / 1e6;
			avg_ms = (double)nd->total_ns / (double)nd->count / 1e6;
		}
		fprintf(f,
			"%*s%s, thread_time = %.2fms, wall_time = %.2fms, "
			"max = %.2f, avg = %.2f, "
			"count = %" PRIu64 ", thread_count = %" PRIu64 "\n",
			(int)(2 * (nd->depth - 1)), "",
			report_timer_name(r, nd->timer, buf, sizeof(buf)),
			total_ms, wall_ms, max_ms, avg_ms, nd->count + nd->hits,
			nd->threads);
		seed_err(f, nd);
	}
	err = report_summary(f, r, 1);
out:
	free(live);
	free(nodes);
	if (err)
		return err;
	return report_finish(f);
}

int report_seed(FILE *f, const struct report *r)
{
	return report_utf8(f, seed_body, r);
}
