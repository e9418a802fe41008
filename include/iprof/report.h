/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reporters: read an aggregated tree (include/iprof/agg.h) and print it.
 * Kernel-free; they never change the tree.
 */
#ifndef IPROF_REPORT_H
#define IPROF_REPORT_H

#include <stddef.h>
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
	const char *mech; /* how it attached (or was last tried): "tracepoint",
			   * "uprobe/uretprobe", "fentry/fexit",
			   * "kprobe/kretprobe"; NULL if never tried */
	/* calls of this timer's function whose kretprobe had no free
	 * instance (more than maxactive calls open): the kernel's count
	 * (tracefs kprobe_profile, third column:
	 * Documentation/trace/kprobetrace.rst); 0 for other mechanisms */
	uint64_t kprobe_misses;
	uint32_t maxactive; /* kretprobe instances asked for, 0: not a kretprobe */
	/* where the probe came from: its file ("-e" for the command line)
	 * and 1-based line (the Nth -e); NULL and 0 when unknown.  An error
	 * starts with "FILE:LINE:" (see report_timer_reason()). */
	const char *file;
	int line;
	int entry_only; /* the function never returns: entry probe only */
	/* a user function stopped by a uretprobe: why not at its return
	 * sites (plan_timer.ret_why); NULL otherwise.  --dry-run only */
	const char *uretprobe_why;
	/* a user function's stop (NULL for other timers and one that never
	 * returns): "return_sites" (uprobes on its rets and tail-call jmps),
	 * "uretprobe" (its real return), "entry" (entry only: no return
	 * sites, and --returns refused it a uretprobe: counted, untimed),
	 * "inlined" (no out-of-line copy: uprobes where each inlined
	 * instance is left, include/iprof/inline.h) */
	const char *stop;
	/* of its return sites, jmps out of it (tail calls): its times end
	 * at the jump, the callee runs after it, beside it in the tree */
	uint32_t tail_calls;
	/* --returns auto's judgment of the program for a timer without
	 * return sites (plan_timer.ret_risk), else NULL */
	const char *stop_why;
	/* why a user function has no return sites (plan_timer.ret_why: "an
	 * indirect jmp at +0x13 (jmp rax) that is no bounded jump table"),
	 * whatever stops it then; NULL when it has them or is no user
	 * function */
	const char *no_sites_why;
	/* a user function's return sites, those whose instruction iprof's
	 * program runs itself (no single step: include/iprof/emu.h), 1 if
	 * it skips its entry's endbr64 or nop the same way, and why the
	 * others are the kernel's (single-stepped), else NULL */
	uint32_t return_sites, emulated_sites;
	int emulated_entry;
	const char *single_step_why;
	/* the key of a keyed span as written normalized ("dev,sector",
	 * "pid=next_pid"), NULL otherwise */
	const char *key;
	/* a keyed span's starts not kept: the key map was full
	 * (--span-keys; BPF count, loader__kfull()) */
	uint64_t key_full;
	/* a user function's inlined instances timed and those that cannot
	 * be (plan_timer.inl, inl_refused), and the list of both
	 * (inl_where: "in CALLER at ADDR (FILE:LINE)", a refused one with
	 * ": not timed: WHY"; NULL when it has none) */
	uint32_t inlined, inlined_refused;
	const char *inlined_where;
	/* a kernel function's return value and arguments as BTF names and
	 * types them (plan_timer.params, include/iprof/plan.h's
	 * plan_params_fn format: "NAME:FMT:TYPE;..."), NULL when not known:
	 * --slowest shows the kept calls' values by these names */
	const char *params;
};

/*
 * Kernel features a --dry-run plan reports (report_plan_json()); a NULL
 * string is unknown or not applicable.
 */
struct report_kernel {
	int fentry; /* 1: fentry/fexit loads, 0: refused, -1: not tried */
	const char *fentry_error; /* why refused (fentry == 0), else NULL */
	int kprobes; /* 1: the kernel has kprobes, 0: it has none */
};

/* Loss counters read from BPF at the end (sums over CPUs). */
struct report_loss {
	uint64_t rb_drops; /* ring-buffer reserve failures: records lost */
	uint64_t depth_overflow; /* starts deeper than IPROF_MAX_DEPTH */
	uint64_t no_storage; /* task storage allocation failures */
	/* probe hits the kernel did not run our program for, because another
	 * BPF program was running on that CPU (bpf_prog_info.recursion_misses
	 * of every iprof program; an interrupt during a probe, mostly) */
	uint64_t recursion_misses;
	/* sum of report_timer.kprobe_misses, and the misses of the
	 * kprobe_multi links (Linux 6.7+: bpf_link_info.kprobe_multi.missed;
	 * per link, not per timer: calls whose return probe found the link's
	 * pool empty, or that ftrace's recursion guard skipped) */
	uint64_t kprobe_misses;
	/* keyed span starts not kept, all timers: the key map was full */
	uint64_t key_full;
	/* the BPF-side counters above are unknown: a recording cut before
	 * its trailer (iprof report of a killed iprof record) */
	int unknown;
};

/* Size of a buffer that holds any name report_timer_name() makes up. */
#define REPORT_NAME_BUF 640

/* Order of siblings (--sort); the seed format always keeps first-seen. */
enum report_sort {
	REPORT_SORT_TOTAL = 0, /* total_ns, descending (the default) */
	REPORT_SORT_SELF, /* self_ns, descending */
	REPORT_SORT_COUNT, /* count, descending */
	REPORT_SORT_NAME, /* timer name, ascending (strcmp) */
	REPORT_SORT_FIRST, /* first-seen (first start) order */
};

/* Value of a folded-stack line (--weight). */
enum report_weight {
	REPORT_WEIGHT_SELF = 0, /* self_ns (the default) */
	REPORT_WEIGHT_TOTAL, /* total_ns: inclusive, children count again */
	REPORT_WEIGHT_ONCPU, /* oncpu_ns minus the children's oncpu_ns */
	REPORT_WEIGHT_OFFCPU, /* runq+blocked minus the children's */
	REPORT_WEIGHT_COUNT, /* count */
};

/* Columns of the table (--columns), in their default order. */
enum report_col {
	REPORT_COL_COUNT,
	REPORT_COL_TOTAL,
	REPORT_COL_SELF,
	REPORT_COL_WALL,
	REPORT_COL_ONCPU,
	REPORT_COL_OFFCPU,
	REPORT_COL_RUNQ,
	REPORT_COL_BLOCKED,
	REPORT_COL_MIN,
	REPORT_COL_AVG,
	REPORT_COL_MAX,
	REPORT_COL_STDDEV,
	REPORT_COL_P50,
	REPORT_COL_P90,
	REPORT_COL_P99,
	REPORT_COL_P999,
	REPORT_COL_THREADS,
	REPORT_COL_EXITED,
	REPORT_COL_INCOMPL,
	REPORT_COL_UNWOUND,
	REPORT_COL_DISCARDED,
	REPORT_COL_AVGERR, /* avg's error bar (report_node_err()) */
	REPORT_COL_TOTALERR, /* total's */
	REPORT_NCOL,
};

/*
 * One mechanism's calibration for overhead compensation (the method:
 * include/iprof/calib_cost.h): what a timed call adds inside its timestamps
 * (in_ns) and outside them, in its caller (out_ns), from the medians of
 * the same calls untraced, traced and recorded; or why it could not be
 * measured.  Strings are static or owned by whoever filled the report.
 */
struct report_calib {
	const char *mech; /* "uprobe/return site", "syscall tracepoints", ... */
	int done;
	uint32_t in_ns, out_ns; /* per call, from the medians, ns */
	/* ... from the means (include/iprof/calib_cost.h); 0: not known (a
	 * recording made before them), in_ns and out_ns serve */
	uint32_t in_mean_ns, out_mean_ns;
	uint64_t untraced_ns, traced_ns, recorded_ns; /* medians, ns */
	uint64_t calls; /* recorded calls of the calibration */
	const char *why; /* !done: why */
	/* the spread of one call's cost (calib_spread()): standard
	 * deviation, and how far the mean may be off in a run (calib_drift():
	 * drift_rounds_ns + skew_ns); 0: not known */
	uint32_t sd_ns, drift_ns;
	/* drift_ns's parts (calib_drift()): how the mean moved while it was
	 * measured, and the mean less the median; 0: not known (a recording
	 * made before them, whose drift_ns is the first alone) */
	uint32_t drift_rounds_ns, skew_ns;
	/* drift_ns's floor (calib_proc_drift()): how far the traced
	 * process's probes may cost from iprof's own, CALIB_PROC_DRIFT of
	 * the mean cost; 0: not known (a recording made before it) */
	uint32_t proc_drift_ns;
	/* a split entry's class: the gap from the mark to the start
	 * (calib_result g_ns, g_mean_ns), which out_ns leaves out; 0: none */
	uint32_t gap_ns, gap_mean_ns;
	/* calib_result.cold_ns, cold_out_ns: the probes' inside and
	 * outside parts' extra cost when they fire far apart; 0: not known */
	uint32_t cold_ns, cold_out_ns;
};

struct report {
	const struct agg *agg; /* snapshot taken (agg__snapshot) by the caller */
	const struct report_timer *timers; /* agg__ntimers(agg) entries */
	struct report_loss loss;
	uint64_t duration_ns; /* how long tracing ran */

	/* Run metadata (JSON); NULL or 0 when unknown.  Not owned. */
	char *const *command; /* argv of the traced command, NULL-terminated */
	const int *pids; /* -p PIDs, npids entries */
	size_t npids;
	/* --comm/--exe/--cgroup as "comm:NAME", ... (nselect entries) */
	char *const *select;
	size_t nselect;
	const char *host; /* uname(2) nodename */
	const char *kernel; /* uname(2) release, e.g. "6.18.0-1-amd64" */
	const char *kernel_version; /* uname(2) version ("#1 SMP ...") */
	const char *machine; /* uname(2) machine, e.g. "x86_64" */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME when tracing started */
	/* the traced command's end, when it ended by itself while traced
	 * (cmd_ended): its exit status (0-255) or the signal that killed it
	 * (cmd_signal > 0, cmd_exit -1) */
	int cmd_ended, cmd_exit, cmd_signal;
	/* the ring buffers: each CPU's size in bytes as created (a power of
	 * two), 0 when unknown; the --rb-size asked for, 0 for the default */
	uint64_t rb_bytes, rb_requested;
	unsigned int rb_rings; /* how many rings (one per CPU) */

	/*
	 * Options; zero is the default.  Table, JSON and folded apply sort,
	 * min_total_ns and max_depth; the seed format ignores them.
	 */
	enum report_sort sort; /* sibling order */
	uint64_t min_total_ns; /* hide nodes with total_ns below (ns), unless
				* a descendant is shown */
	uint32_t max_depth; /* hide nodes deeper than this; 0: no limit */
	enum report_weight weight; /* folded only */
	/* JSON only: the nodes as one flat list "nodes", each with its "id"
	 * and its parent's, instead of the nested "tree" (whose depth jq 1.6
	 * cannot read at 128 timers: doc/json.md, "Nesting") */
	int json_flat;
	const enum report_col *columns; /* table only; NULL: the default set */
	size_t ncolumns;
	/* table only, default columns only: the terminal's width in columns
	 * to fit (columns left out by a fixed order, names cut in the
	 * middle, both said below the table); 0: no limit */
	unsigned int width;

	/*
	 * --interval (JSON only): 0 for a single report; else this report's
	 * number, 1.. in order, the last one (at the end of tracing) with
	 * final set.  JSON is then one compact line per report (NDJSON).
	 */
	unsigned int interval;
	int final;
	int delta; /* --interval-mode delta: the report covers its interval */

	/*
	 * Overhead compensation: the calibration of each mechanism the run
	 * used (ncalib entries; 0: none was made, the times are raw), and
	 * whether agg's times are compensated with it (0: --no-compensate).
	 */
	const struct report_calib *calib;
	size_t ncalib;
	int compensated;
	/* what the probes cost per CPU, per mille of the calibrated cost
	 * (agg__set_cpu_scale(); ncpu_pm 0: not measured per CPU) */
	const uint16_t *cpu_pm;
	uint32_t ncpu_pm;

	/* --offcpu-stacks was asked (a live run; 0 in a replay, which does
	 * not know): where no shown path blocked, the table says so
	 * (report_offcpu_table()) instead of saying nothing */
	int offcpu_stacks;
	/*
	 * --offcpu-stacks: names kernel address @addr (its function, into
	 * @buf of @size bytes) or returns NULL; NULL: addresses in hex.
	 */
	const char *(*kname)(void *ctx, uint64_t addr, char *buf,
			     size_t size);
	void *kname_ctx;
	/*
	 * --offcpu-stacks=user: names user address @addr of process @tgid
	 * (its function, into @buf of @size bytes; @addr already less 1
	 * for a return address) or returns NULL; NULL: addresses in hex.
	 */
	const char *(*uname)(void *ctx, uint32_t tgid, uint64_t addr,
			     char *buf, size_t size);
	void *uname_ctx;

	/*
	 * --slowest on kernel functions with BTF: the name of value @v
	 * (signed or unsigned as its type reads) of the enum that C type
	 * @type ("enum hrtimer_mode", a typedef of one) declares, into @buf
	 * of @size bytes, or NULL (not an enum, no such enumerator, no
	 * BTF); NULL: enums as numbers.
	 */
	const char *(*ename)(void *ctx, const char *type, int64_t v,
			     char *buf, size_t size);
	void *ename_ctx;
};

/* The writers, one per format: include/iprof/report_fmt.h. */

/*
 * report_om_escape() - @s as an OpenMetrics label value (without the
 * quotes; the "ABNF" of the specification's "Text format": escaped-string):
 * '\\' and '"' get a backslash, a newline is written "\n", and a byte
 * that does not start a valid UTF-8 sequence becomes '?'.  Write errors
 * are left in ferror(@f).
 */
void report_om_escape(FILE *f, const char *s);

/*
 * One value of an option that takes a name (-f, --sort, --weight): the
 * name it is parsed from, and for --help a few words on it (NULL: none).
 * The tables are indexed by their enum (enum report_fmt: report_fmt.h;
 * enum report_sort, report_weight); index 0 is the default.  Static, never freed.
 */
struct report_name {
	const char *name;
	const char *help;
};

/* report_sort_names() - the sort keys' table; *@n entries. */
const struct report_name *report_sort_names(size_t *n);
/* report_weight_names() - the folded weights' table; *@n entries. */
const struct report_name *report_weight_names(size_t *n);

/*
 * report_parse_sort() - "total", "self", "count", "name" or "first" into
 * *@sort.  Returns 0 or -EINVAL.
 */
int report_parse_sort(const char *s, enum report_sort *sort);

/* report_sort_str() - the name report_parse_sort() takes; "?" if invalid. */
const char *report_sort_str(enum report_sort sort);

/*
 * report_parse_weight() - "self", "total", "oncpu", "offcpu" or "count"
 * into *@w.  Returns 0 or -EINVAL.
 */
int report_parse_weight(const char *s, enum report_weight *w);

/*
 * report_parse_columns() - a comma-separated list of column names (see
 * report_col_name(); "p99.9" for REPORT_COL_P999) into @cols, at most @max
 * entries, count in *@n.  A leading '+' appends the list to the default
 * columns (a default column named again stays where it is).  Returns 0,
 * or -EINVAL (unknown or repeated name, empty list, more than @max).
 */
int report_parse_columns(const char *s, enum report_col *cols, size_t max,
			 size_t *n);

/* report_col_name() - lower-case name of column @c ("oncpu"); NULL if none. */
const char *report_col_name(enum report_col c);

/*
 * report_ns_str() - @ns in a human unit with 3 significant digits into
 * @buf ("812ns", "1.25us", "37.4ms", "2.00s"); returns @buf.
 */
char *report_ns_str(char *buf, size_t len, uint64_t ns);

/* ---- Helpers shared by the reporters (src/report/util.c) ---------------- */

/*
 * report_stddev_ns() - population standard deviation of @n's durations, ns,
 * rounded to the nearest: sqrt(m2_ns / count); 0 when count is 0.
 */
uint64_t report_stddev_ns(const struct agg_node *n);

/* A node's error bars (report_node_err()), ns. */
struct report_err {
	uint64_t total_ns, self_ns, avg_ns;
	/* of avg_ns: the compensation's part (without the runnable time),
	 * what the probes let iprof resolve (below_res, report_node_res());
	 * the rest is the runnable time kept per call and the mean's
	 * standard error over its calls, se_ns */
	uint64_t avg_comp_ns, se_ns;
	/* of total_ns: the compensation's part (without the runnable time),
	 * what resolution judges the total by */
	uint64_t total_comp_ns;
	/* of avg_ns, the calibration's bias in one call: err_sys_ns / count
	 * (each probe part's share of its class's calib_drift(), over the
	 * probes inside the calls), the same in every call, so that it moves
	 * the median as it moves the average (iprof diff's minimum effect) */
	uint64_t drift_ns;
	/* the average is within its error bar of 0: the probes cannot
	 * resolve it ("below resolution") */
	int below_res;
};

/*
 * report_node_err() - the uncertainty of @n's compensated times into @e
 * (doc/json.md, "Error bars"): total = sqrt(err_var_ns2) + err_sys_ns +
 * clamped_ns (the probe cost's random spread over the calls, added in
 * quadrature, plus the bias the calibration may carry and what the
 * clamps kept) + runq_ns (the runnable time kept: the probes move where
 * preemptions land), self the same from the self_ fields without the
 * runnable time, avg = total / count (of which the compensation's part,
 * avg_comp_ns, is without runq_ns) + the mean's standard error over its
 * calls (se_ns: sqrt(m2_ns / (count - 1) / count), 0 for one call:
 * preemptions, which a loaded host puts in some calls and not others,
 * make the average a sample's), drift = err_sys_ns / count; rounded up.  Returns 1 when @n has error bars, 0 when not (raw times, a
 * calibration without its spread, no calls: @e zeroed).  For iprof diff
 * too.
 */
int report_node_err(const struct agg_node *n, struct report_err *e);

/*
 * The statistics of a node that the "below resolution" rule judges
 * (report_node_res()), in doc/json.md's order; report_stat_key() names
 * each by its JSON key.
 */
enum report_stat {
	REPORT_STAT_TOTAL,
	REPORT_STAT_SELF,
	REPORT_STAT_MIN,
	REPORT_STAT_AVG,
	REPORT_STAT_MAX,
	REPORT_STAT_P50,
	REPORT_STAT_P90,
	REPORT_STAT_P99,
	REPORT_STAT_P999,
	REPORT_NSTAT
};

/*
 * report_node_res() - one rule for "below resolution" on every statistic
 * of @n: bit (1u << REPORT_STAT_x) set where that statistic is within its
 * error bar of 0 (report_node_err(): TOTAL below total_ns, SELF below
 * self_ns, each per-call one, MIN, AVG, MAX and the percentiles, below
 * avg_ns), so that the formats print "<res" rather than a number the
 * probes cannot resolve.  0 without error bars (raw times, no calls) and
 * for percentiles without a histogram.  A node's TOTAL and AVG are
 * numbers where a child's TOTAL is: it holds that child's time, so it is
 * known to be more than 0 (its own bar holds the children's probes too).
 */
uint32_t report_node_res(const struct agg_node *n);

/* report_stat_key() - @s's JSON key ("total_ns", "p50_ns", ...); NULL
 * out of range.  A static string. */
const char *report_stat_key(enum report_stat s);

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
 * struct report_view - the nodes a report shows.  nodes: every node but the
 * root in depth-first pre-order (a node before its children), siblings
 * ordered by r->sort; parent[i]: index in nodes of nodes[i]'s parent,
 * SIZE_MAX for a top-level node; visible[i]: 1 when nodes[i] is shown,
 * i.e. its depth is at most r->max_depth (when set) and its total_ns is at
 * least r->min_total_ns or one of its descendants is shown (a shown node's
 * ancestors are shown).  nvisible: how many are.
 */
struct report_view {
	const struct agg_node **nodes;
	size_t *parent;
	unsigned char *visible;
	size_t n, nvisible;
};

/*
 * report_view_init() - fill @v for report @r.  Returns 0 or -ENOMEM (then
 * @v holds nothing to free).  Free with report_view_free().
 */
int report_view_init(struct report_view *v, const struct report *r);

/* report_view_free() - free what report_view_init() allocated. */
void report_view_free(struct report_view *v);

/*
 * report_name_text() - @n bytes of a text name (any bytes, no NUL needed)
 * as printable text into @buf (@len bytes, NUL-terminated, cut short if
 * it does not fit): well-formed UTF-8 and printable ASCII as they are, a
 * backslash as two, every other byte (control, DEL, not UTF-8) as \xNN.
 * Returns the bytes written, NUL excluded.
 */
size_t report_name_text(const char *text, size_t n, char *buf, size_t len);

/*
 * report_timer_name() - the name of timer @timer (r->timers[timer].name),
 * "[softirq/cpuN]", "[hardirq/cpuN]" or "[nmi/cpuN]" for the per-CPU root of
 * an interrupt context (AGG_TIMER_IS_CTX), the thread, process or command
 * of a --by root (agg__split_name()), else "#ID", formatted into @buf
 * (REPORT_NAME_BUF bytes suffice) when the report has none.  The result lives
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
 * until the snapshot), timers not attached (report_not_attached()), attached
 * timers with 0 hits (no START folded), orphan stops (and a span whose
 * START and STOP never met on one thread, with a hint), kprobe misses, with
 * --rb-size the ring buffers' size as created (rounded up to a power of
 * two), and always the loss line (report_loss_line()).  @seed selects the
 * format of report_seed(), "# key=value" lines, else the prose of
 * report_table().  Returns 0 or -ENOMEM; write errors are left in
 * ferror(@f).
 */
int report_summary(FILE *f, const struct report *r, int seed);

/*
 * report_timer_reason() - why @t is not attached, without the
 * "FILE:LINE:" or "FILE:LINE:COL:" (and the space) that t->error starts
 * with when t->file and t->line say where the probe came from: the part
 * that timers refused for the same reason share.  A pointer into t->error,
 * or "unknown reason" when t->error is NULL.
 */
const char *report_timer_reason(const struct report_timer *t);

/* Most names report_not_attached() lists on one line. */
#define REPORT_NAMES_MAX 12

/*
 * report_not_attached() - one line per reason for the timers of @timers
 * (@n entries) that are not attached, reasons in the order of their first
 * timer, each line starting with @pfx:
 *   PFX"not attached: NAME: ERROR"                     one timer: its whole
 *                                                      error, FILE:LINE first
 *   PFX"not attached: K timers (A at F:L:C, B at F:L:C, ...): REASON"
 *                                                      K >= 2 timers with one
 *                                                      report_timer_reason()
 *   PFX"not attached: K timers (A, B, ...) at F:L:C: REASON"
 *                                                      ... whose probes are one
 *                                                      line (a glob)
 * listing at most REPORT_NAMES_MAX names, then " and M more"; a place is
 * the "FILE:LINE:COL" (or "FILE:LINE") the error starts with, else
 * t->file:t->line, left out when unknown.  Returns how
 * many timers are not attached, or -ENOMEM; write errors are left in
 * ferror(@f).
 */
int report_not_attached(FILE *f, const struct report_timer *timers, uint32_t n,
			const char *pfx);

/* One loss counter: its key (seed format, metric name), prose, value. */
struct report_loss_counter {
	/* key: the seed/JSON/OpenMetrics name; label: what the text line
	 * says after a count other than 1 (and OpenMetrics' HELP); label1:
	 * after a count of 1 */
	const char *key, *label, *label1;
	uint64_t v;
	/* not a loss: frames closed untimed (unwound, ended by exec,
	 * returns missed); report_loss_line() shows them apart, and
	 * report_lost_data() leaves them out */
	int untimed;
};

#define REPORT_LOSS_MAX 14

/*
 * report_loss_counters() - every loss counter of @r, zeros included, in
 * the fixed order of report_loss_line() into @c (REPORT_LOSS_MAX entries;
 * the strings are static).  Returns how many: REPORT_LOSS_MAX.
 */
size_t report_loss_counters(const struct report *r,
			    struct report_loss_counter *c);

/*
 * report_lost_data() - did @loss and @st (the aggregator's counters) lose
 * calls, so that counts fall short: records lost to full rings, starts
 * beyond the BPF stack depth, task storage failures, probe hits BPF
 * recursion protection skipped, kprobe misses, malformed records,
 * records not folded for want of memory.  Frames closed untimed
 * (unwound, missed returns, exec) are part of what iprof times, not
 * losses.  1 or 0: iprof's exit status 3 ("incomplete") when 1.
 */
int report_lost_data(const struct report_loss *loss,
		     const struct agg_stats *st);

/*
 * report_folded_line() - when the caps of agg__set_limits() folded
 * anything into [other], one line saying how much: "folded into [other]: N
 * timers started on new paths (--max-paths M reached), N --by roots
 * (--max-keys M)" (table; only the parts not 0), or with @seed "# folded:
 * paths=N keys=N max_paths=M max_keys=M".  Nothing when none was folded.
 * Write errors are left in ferror(@f).
 */
void report_folded_line(FILE *f, const struct report *r, int seed);

/*
 * report_loss_line() - the loss line: "lost: " and only the counters that
 * are not 0, in a fixed order, or "lost: none" when all are 0.  @seed: the
 * seed format, "# lost: records=N resyncs=N ..." with the keys records,
 * resyncs, discarded_frames, skipped, depth_overflow, malformed,
 * no_storage, missed, kprobe_missed; else prose for the table ("lost: 3
 * records (ring buffer full), 1 resyncs").  Before it, when one is not 0,
 * the frames closed untimed, which are no loss: "closed untimed: 19 frames
 * unwound, 2 frames ended by exec, 1 returns missed" (seed: "# untimed:
 * unwound=N execed=N missed_returns=N").  Write errors are left in
 * ferror(@f).
 */
void report_loss_line(FILE *f, const struct report *r, int seed);

/*
 * report_plan_json() - the plan of a --dry-run as one JSON document
 * (doc/json.md, "Dry run"): schema_version, "dry_run": true, @k (may be
 * NULL: unknown) and one object per timer of @timers (@n entries), with
 * attached meaning "would attach" and mech the mechanism it would get.
 * Returns 0, -ENOMEM, or -errno of a write error.
 */
int report_plan_json(FILE *f, const struct report_timer *timers, uint32_t n,
		     const struct report_kernel *k);

/*
 * report_utf8() - run formatter @fmt on @r into memory, then write what it
 * wrote to @f made valid UTF-8 (util_utf8_fwrite(): a byte that begins no
 * UTF-8 character becomes U+FFFD).  Every report_*() format goes through
 * it (JSON by its own writer), so a thread name or argv with invalid bytes
 * never makes an output invalid.  Returns @fmt's result, -ENOMEM, or -errno
 * of a write error.
 */
int report_utf8(FILE *f,
		int (*fmt)(FILE *f, const struct report *r),
		const struct report *r);

/*
 * report_finish() - flush @f and return 0, or -errno of a write error seen
 * on @f (ferror), -EIO when errno tells nothing.
 */
int report_finish(FILE *f);

/*
 * report_tail_mark() - 1 if timer @timer of @r stops at a tail call (its
 * return sites include a jmp out of it: report_timer.tail_calls, stop
 * "return_sites"), so the table marks its name with '*'; else 0.
 */
int report_tail_mark(const struct report *r, uint32_t timer);

/*
 * report_own_weight() - node @n's own value under --weight @w, as a folded
 * line weighs it (src/report/folded.c): exclusive for every weight but
 * total (self ns, on/off-CPU ns less the children's, clamped at 0; count:
 * calls); a keyed span (@keyed) weighs its count only, its time being its
 * thread's already (a flame graph would count it twice).
 */
uint64_t report_own_weight(const struct agg_node *n, enum report_weight w,
			   int keyed);

/*
 * report_keyed() - 1 if timer @timer of @r is a keyed span
 * (report_timer.key): its on/off-CPU split does not apply; else 0 (and
 * for the tree's pseudo-timers: roots, [other]).
 */
int report_keyed(const struct report *r, uint32_t timer);

/* the longest stop text report_span_stops() keeps (bytes, its NUL
 * included; a longer one is cut) */
#define REPORT_STOP_BUF 160

/*
 * report_span_stops() - the stops of span @timer of @r when it has
 * several (`-> STOP | STOP2 | ...`), as its where says them ("usdt:P:N
 * if arg0 == 1"), into @names (@max of them): their number, 2 to
 * AGG_MAX_STOPS, or 0 for a timer of one stop (and any other timer).
 * Each node's agg_node.stops[] counts its calls per stop in this order.
 */
int report_span_stops(const struct report *r, uint32_t timer,
		      char (*names)[REPORT_STOP_BUF], int max);

/*
 * report_tail_note() - the line that says what a tail-calling timer's
 * numbers mean, on @f: with return sites, that they end at the jump and
 * the callee shows beside it (the table's "* NAME: ..." footnote of its
 * mark; @seed: a "# tail call: NAME ..." note, the seed's rows
 * untouched); by uretprobe, that they run to the real return, the
 * callee's time included.  Nothing for any other timer.
 */
void report_tail_note(FILE *f, const struct report *r, uint32_t timer,
		      int seed);

/*
 * --slowest (include/iprof/slow.h; src/report/slowest.c).
 *
 * report_slowest_table() - after the table, a section per shown node of
 * @v that kept calls: its path, then each kept call, slowest first: its
 * start (since @t0_ns, the first start of a shown call, ns), duration
 * (compensated, raw beside), thread, and the calls made inside it as an
 * indented tree.  Nothing when no node kept any.  Write errors are left
 * in ferror(@f).
 */
void report_slowest_table(FILE *f, const struct report *r,
			  const struct report_view *v);

/*
 * report_slowest_json() - node @n's kept calls as a new JSON array,
 * slowest first (doc/json.md, "slowest"), owned by the caller; NULL with
 * *@err 0 when @n kept none (--slowest off), or with *@err -ENOMEM.
 */
struct json_object *report_slowest_json(const struct report *r,
					const struct agg_node *n, int *err);

/*
 * --offcpu-stacks (include/iprof/offcpu.h; src/report/offcpu.c).
 *
 * report_offcpu_table() - after the table, a section per shown node of @v
 * whose blocked time was charged to stacks: its path, its blocked and
 * runnable time, then its blocking stacks and its wakers, most time
 * first, each with its time, share of the node's blocked time and waits,
 * and the rest as "other".  When no node has any: one line saying so
 * where @r->offcpu_stacks, else nothing.  Write errors
 * are left in ferror(@f).
 */
void report_offcpu_table(FILE *f, const struct report *r,
			 const struct report_view *v);

/*
 * report_offcpu_json() - node @n's stacks and wakers as a new JSON object
 * (doc/json.md, "offcpu"), owned by the caller; NULL with *@err 0 when
 * @n has none, or with *@err -ENOMEM.
 */
struct json_object *report_offcpu_json(const struct report *r,
				       const struct agg_node *n, int *err);

#endif /* IPROF_REPORT_H */
