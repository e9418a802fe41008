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

#endif /* IPROF_REPORT_H */
