/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reporters: read an aggregated tree (include/iprof/agg.h) and print it.
 * Kernel-free; they never change the tree.
 */
#ifndef IPROF_REPORT_H
#define IPROF_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "iprof/agg.h"

/* What the report says of one timer (index = timer id). */
struct report_timer {
	const char *name; /* timer name as the user sees it */
	const char *kind; /* "span", "uprobe", "fentry", "kprobe", "func" */
	const char *where; /* what it is attached to, e.g.
			    * "tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit" */
	int attached; /* 1: attached and traced; 0: refused or skipped */
	const char *error; /* why not attached (when !attached), else NULL */
	uint64_t orphans; /* stops with no start on their thread (BPF count) */
};

/* Loss counters read from BPF at the end (sums over CPUs). */
struct report_loss {
	uint64_t rb_drops; /* ring-buffer reserve failures: records lost */
	uint64_t depth_overflow; /* starts deeper than IPROF_MAX_DEPTH */
	uint64_t no_storage; /* task storage allocation failures */
};

struct report {
	const struct agg *agg; /* snapshot taken (agg__snapshot) by the caller */
	const struct report_timer *timers; /* agg__ntimers(agg) entries */
	struct report_loss loss;
	uint64_t duration_ns; /* how long tracing ran */
};

/*
 * report_seed() - the seed patch's format, exactly: one line per node,
 * two spaces of indent per depth, children in first-seen order:
 *   NAME, thread_time = %.2fms, wall_time = %.2fms, max = %.2f, avg = %.2f, count = %d, thread_count = %d
 * (times in ms).  Then "# "-prefixed summary lines: incomplete timers,
 * timers with 0 hits or not attached, and the loss line.
 * Returns 0 or -errno of a write error.
 */
int report_seed(FILE *f, const struct report *r);

/*
 * report_table() - an aligned tree with human units (ns, us, ms, s),
 * columns count, total, self, wall, min, avg, max, p50, p99, threads,
 * incomplete, unwound; children sorted by total time, descending.  Then the
 * same summary lines as report_seed() without "# ".
 * Returns 0 or -errno of a write error.
 */
int report_table(FILE *f, const struct report *r);

/*
 * report_fmt_ns() - @ns in a human unit with 3 significant digits into
 * @buf ("812ns", "1.25us", "37.4ms", "2.00s"); returns @buf.
 */
char *report_fmt_ns(char *buf, size_t len, uint64_t ns);

/* ---- Helpers shared by the reporters (src/report_util.c) ---------------- */

/*
 * report_next() - the node after @n in a depth-first pre-order walk with
 * children in first-seen order (start with agg__root(); NULL at the end).
 * Needs no memory and no recursion.
 */
const struct agg_node *report_next(const struct agg_node *n);

/*
 * report_nodes() - every node but the root, depth first (a node before its
 * children), children in first-seen order, or by total_ns descending (ties
 * in first-seen order) when @by_total.  On success *@nodes is a malloc'ed
 * array of *@n pointers owned by the caller (free() it; NULL when *@n is 0).
 * Returns 0 or -ENOMEM.
 */
int report_nodes(const struct agg *a, int by_total,
		 const struct agg_node ***nodes, size_t *n);

/*
 * report_timer_name() - the name of timer @timer (r->timers[timer].name),
 * or "#ID" formatted into @buf when the report has none.  The result lives
 * as long as @r and @buf.
 */
const char *report_timer_name(const struct report *r, uint32_t timer,
			      char *buf, size_t len);

/*
 * report_print_path() - print the names from the top-level timer down to
 * @n joined by @sep ("a > b" with " > ").  Returns 0 or -ENOMEM; write
 * errors are left in ferror(@f).
 */
int report_print_path(FILE *f, const struct report *r,
		      const struct agg_node *n, const char *sep);

/*
 * report_summary() - the summary lines: incomplete timers (elapsed time
 * until the snapshot), timers not attached with the reason, attached
 * timers with 0 hits (no START folded), orphan stops, and always the loss
 * line.  @seed selects the "# key=value" format of report_seed(), else the
 * prose of report_table().  Returns 0 or -ENOMEM; write errors are left in
 * ferror(@f).
 */
int report_summary(FILE *f, const struct report *r, int seed);

/*
 * report_finish() - flush @f and return 0, or -errno of a write error seen
 * on @f (ferror), -EIO when errno tells nothing.
 */
int report_finish(FILE *f);

#endif /* IPROF_REPORT_H */
