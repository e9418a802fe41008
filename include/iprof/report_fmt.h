/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report formats (-f): one table (src/report/fmt.c), one row per
 * format: its name, a few words for --help, its writer and what it can
 * do.  Code outside the reporters asks report_fmt_has() what a format
 * does; it never compares formats.  Kernel-free.
 */
#ifndef IPROF_REPORT_FMT_H
#define IPROF_REPORT_FMT_H

#include <stddef.h>
#include <stdio.h>

struct report;
struct report_name;

/* The formats, in the order of their rows (index 0, table, is -f's default). */
enum report_fmt {
	REPORT_FMT_TABLE = 0,
	REPORT_FMT_SEED,
	REPORT_FMT_JSON,
	REPORT_FMT_FOLDED,
	REPORT_FMT_CHROME,
	REPORT_FMT_OPENMETRICS,
	REPORT_FMT_PROMETHEUS,
	REPORT_FMT_PPROF,
	REPORT_FMT_SVG,
};

/* What a format does (struct report_format.caps), as callers ask it. */
enum report_cap {
	/* written from the record stream as the calls end, not from the tree
	 * (report_write() refuses it); no report after the run */
	REPORT_CAP_STREAM = 1u << 0,
	/* needs every record in one time order, across threads (no
	 * per-shard merge of --fold-threads) */
	REPORT_CAP_ORDERED = 1u << 1,
	/* --sort and --min-total apply (are not refused) */
	REPORT_CAP_SORT = 1u << 2,
	/* --columns picks its columns */
	REPORT_CAP_COLUMNS = 1u << 3,
	/* --weight picks its lines' values */
	REPORT_CAP_WEIGHT = 1u << 4,
	/* reports every --interval */
	REPORT_CAP_INTERVAL = 1u << 5,
	/* splits the tree by --by keys */
	REPORT_CAP_BY = 1u << 6,
	/* its counters may go back: --interval-mode delta is not refused */
	REPORT_CAP_DELTA = 1u << 7,
	/* '#' starts a comment line: an interval report opens with one */
	REPORT_CAP_COMMENTS = 1u << 8,
	/* the summary (losses, timers not attached) is not in the output:
	 * report_write() sends it to its @summary stream */
	REPORT_CAP_SUMMARY_APART = 1u << 9,
	/* one JSON document: --dry-run and iprof diff answer in JSON too */
	REPORT_CAP_JSON = 1u << 10,
	/* iprof diff writes its comparison in it */
	REPORT_CAP_DIFF = 1u << 11,
	/* read by a program (jq, flamegraph.pl, pprof, Perfetto, a
	 * Prometheus scraper), not a person: on stdout, a traced command's
	 * own stdout must not mix into it (it goes to iprof's stderr) */
	REPORT_CAP_PARSED = 1u << 12,
	/* --max-depth applies: hides deeper paths, or leaves out deeper
	 * calls (chrome) */
	REPORT_CAP_DEPTH = 1u << 13,
	/* a binary file (struct report_format.binary says what): never to a
	 * terminal, and on stdout not once per --interval (one document,
	 * not several concatenated) */
	REPORT_CAP_BINARY = 1u << 14,
};

struct agg;
struct pipeline;
struct rec_run;

/*
 * The writer of a format that writes the records as they come
 * (REPORT_CAP_STREAM) rather than the tree after the run: a sink of the
 * record pipeline (include/iprof/pipeline.h).
 */
struct report_stream {
	/*
	 * start writing on @f (kept open by the caller) for @run (which must
	 * outlive it), as a sink of @p, which owns it from then on: calls
	 * deeper than @max_depth (0: none) or ended before @from_ns (ns,
	 * the records' clock; 0: none) are left out.  Returns a handle for
	 * finish() and events(), or NULL with errno set (ENOMEM, a write
	 * error, or pipeline__add()'s).
	 */
	void *(*open)(struct pipeline *p, FILE *f, const struct rec_run *run,
		      uint32_t max_depth, uint64_t from_ns);
	/* what is still open, as ended at @end_ns; the document's end.
	 * 0 or -errno of a write error */
	int (*finish)(void *h, uint64_t end_ns);
	/* how many events were written */
	uint64_t (*events)(const void *h);
	/* --slowest: mark @agg's kept calls (before finish()); NULL: the
	 * format has no marks.  0 or -errno */
	int (*mark)(void *h, const struct agg *agg);
};

/* One row of the table: static, never freed. */
struct report_format {
	const char *name; /* what -f parses: "table" */
	const char *help; /* a few words for --help, or NULL */
	/* what the format is, for the messages on an option that does not
	 * apply to it ("a timeline of every call"), or NULL */
	const char *shape;
	/* the writer: 0 or -errno; write errors may be left in ferror(@f).
	 * NULL for REPORT_CAP_STREAM formats */
	int (*write)(FILE *f, const struct report *r);
	/* the writer of a REPORT_CAP_STREAM format, else NULL */
	const struct report_stream *stream;
	unsigned int caps; /* enum report_cap, or'ed */
	/* REPORT_CAP_BINARY: what the file is, its last word what one
	 * document is called ("gzipped binary profile"), else NULL */
	const char *binary;
};

/* -f chrome's writer (src/report/chrome.c, include/iprof/chrome.h) */
extern const struct report_stream chrome_stream;

/* ---- The writers (src/report/NAME.c), the rows' .write ---- */

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
 * report_table() - an aligned tree with human units (ns, us, ms, s): the
 * columns r->columns, by default count, total, self, wall, oncpu, offcpu,
 * min, avg, max, p50, p99, threads, incomplete, unwound; siblings ordered
 * by r->sort, nodes hidden by r->min_total_ns and r->max_depth left out
 * (and counted on a "hidden:" line).  Then the same summary lines as
 * report_seed() without "# ".
 * Returns 0, -ENOMEM, -EINVAL for an invalid r->columns entry, or -errno of
 * a write error.
 */
int report_table(FILE *f, const struct report *r);

/*
 * report_json() - one JSON document (doc/json.md): schema_version, run
 * metadata, probes and how each attached, loss and incomplete counters, and
 * the tree with every metric in ns; siblings ordered by r->sort, hidden
 * nodes (r->min_total_ns, r->max_depth) left out.  Written with json-c.
 * Returns 0, -ENOMEM, or -errno of a write error.
 */
int report_json(FILE *f, const struct report *r);

/*
 * REPORT_JSON_JQ16_LEVELS - the deepest nested tree Debian 12's jq 1.6
 * parses: its parser stack holds 256 (jq's src/jv_parse.c MAX_PARSING_DEPTH),
 * each tree level takes an object, its key and its "children" array
 * (measured: 84 levels parse, 85 fail with "Exceeds depth limit for
 * parsing"; doc/json.md).
 */
#define REPORT_JSON_JQ16_LEVELS 84

/*
 * report_json_levels() - how many levels the nested "tree" of
 * report_json(@r) has: 1 for top-level nodes only, 0 for none.  Returns
 * that, or -ENOMEM.
 */
int report_json_levels(const struct report *r);

/*
 * report_folded() - folded stacks for flame graphs: one line per shown path,
 * "a;b;c VALUE", VALUE an integer per r->weight (ns, or calls for
 * REPORT_WEIGHT_COUNT); lines whose value is 0 are left out.  Exclusive
 * weights (self, oncpu, offcpu, count) of a node hidden by r->min_total_ns
 * or r->max_depth are added to its nearest shown ancestor, so the sum over
 * lines does not change (hidden top-level timers are left out).  In names,
 * ';', white space and control characters become '_'.  Lines follow r->sort.
 * No summary: losses are in the table and JSON reports.
 * Returns 0, -ENOMEM, or -errno of a write error.
 */
int report_folded(FILE *f, const struct report *r);

/*
 * report_svg() - a flame graph of @r's shown paths as one self-contained
 * SVG document (src/report/svg.c): each frame as wide as its subtree's
 * --weight, the sums flamegraph.pl makes of report_folded()'s lines, with
 * its count, total, self, on-CPU and off-CPU time in its tooltip.
 * Returns 0 or -errno (-ENOMEM, a write error).
 */
int report_svg(FILE *f, const struct report *r);

/*
 * report_openmetrics() - the OpenMetrics 1.0 text exposition (the
 * specification's "Text format" section, OpenMetrics.md in
 * github.com/OpenMetrics/OpenMetrics): per shown path (r->min_total_ns,
 * r->max_depth) the histogram iprof_duration_seconds (buckets le = 2^k-1 ns
 * for k = 8..36 and +Inf, _count, _sum), the counters iprof_self_seconds,
 * iprof_oncpu_seconds and iprof_offcpu_seconds (samples named _total) and
 * the gauge iprof_incomplete, labelled path="a;b;c", timer="c" and, with
 * --by, by="tid N" / "pid N" / COMM; one counter iprof_lost_KEY per
 * report_loss_counters() entry; iprof_timer_attached{timer} and
 * iprof_orphan_stops{timer}; iprof_tree_nodes, iprof_threads_live,
 * iprof_tracing_seconds and iprof_start_time_seconds; then "# EOF".
 * Seconds are exact decimals (ns with 9 decimals).  Counters never
 * decrease between cumulative reports of one run.  doc/openmetrics.md
 * lists every metric.  Returns 0, -ENOMEM, or -errno of a write error.
 */
int report_openmetrics(FILE *f, const struct report *r);

/*
 * report_om_classic() - @om (@len bytes of report_openmetrics()'s text) in
 * Prometheus' text format 0.0.4 ("text/plain; version=0.0.4"), for readers
 * that take no OpenMetrics (promtool check metrics): the same samples, a
 * counter family's # TYPE and # HELP named as its samples (NAME_total),
 * no # UNIT and no # EOF.  Returns 0, -EINVAL (a # TYPE or # HELP line
 * without its text), or -errno of a write error.
 */
int report_om_classic(FILE *f, const char *om, size_t len);

/*
 * report_prometheus() - report_openmetrics() in the text format 0.0.4
 * (report_om_classic()): for readers of that format alone, such as
 * node_exporter's textfile collector.  Returns as report_openmetrics().
 */
int report_prometheus(FILE *f, const struct report *r);

/*
 * report_om_negotiate() - the text for an HTTP client whose Accept header
 * is @accept (NULL: none): REPORT_OM_TEXT (report_om_classic()) when it
 * names text/plain with a q above 0 and above application/openmetrics-text's
 * (q 1 unless given), REPORT_OM_OPENMETRICS otherwise (Prometheus, which
 * prefers OpenMetrics; curl, which accepts any type; no header).
 */
enum { REPORT_OM_OPENMETRICS, REPORT_OM_TEXT };
int report_om_negotiate(const char *accept);

/*
 * report_pprof() - the tree as a gzipped pprof profile (profile.proto of
 * github.com/google/pprof): one sample per shown path, locations leaf
 * first, values calls (count), self time, self on-CPU and off-CPU time
 * (ns), so pprof's flat is iprof's self and its cum the total.  Binary;
 * returns 0 or -errno.
 */
int report_pprof(FILE *f, const struct report *r);

/* ---- The table ---- */

/* report_fmt_get() - format @fmt's row; NULL if @fmt is none. */
const struct report_format *report_fmt_get(enum report_fmt fmt);

/* report_fmt_has() - does format @fmt have every capability in @caps? */
int report_fmt_has(enum report_fmt fmt, unsigned int caps);

/*
 * report_fmt_stdout_ok() - may format @fmt go to stdout: a terminal when
 * @tty, once per --interval when @per_interval?  A REPORT_CAP_BINARY
 * format may not; the others may.  Returns 0, or -EINVAL with the reason
 * in @why (@len bytes): "--format pprof is a gzipped binary profile:
 * give -o FILE or redirect stdout".
 */
int report_fmt_stdout_ok(enum report_fmt fmt, int tty, int per_interval,
			 char *why, size_t len);

/* report_fmt_name() - format @fmt's name ("table"); "?" if none. */
const char *report_fmt_name(enum report_fmt fmt);

/*
 * report_fmt_with() - the names of the formats that have every capability
 * in @caps, joined with ", " and " or " before the last ("table or
 * json"), into @buf (@len bytes, cut short to fit).  Returns @buf.
 */
char *report_fmt_with(unsigned int caps, char *buf, size_t len);

/*
 * report_fmt_names() - the formats' names and help words as a table of
 * struct report_name (include/iprof/report.h), by enum report_fmt, for
 * the option lists of --help and messages; *@n entries.  Static.
 */
const struct report_name *report_fmt_names(size_t *n);

/*
 * report_parse_fmt() - a format's name ("table", "json", ...) into *@fmt;
 * "perfetto" names "chrome" (the Trace Event Format Perfetto UI opens).
 * Returns 0 or -EINVAL.
 */
int report_parse_fmt(const char *s, enum report_fmt *fmt);

/*
 * report_fmt_list() - the names report_parse_fmt() takes, for messages:
 * "table, seed, json, folded, chrome or openmetrics", in enum order (a
 * static string).
 */
const char *report_fmt_list(void);

/*
 * report_write() - the report @r in format @fmt (not a REPORT_CAP_STREAM
 * one) on @f, flushed; for a REPORT_CAP_SUMMARY_APART format, the summary
 * (losses, timers not attached) goes to @summary unless it is NULL.
 * Returns 0, -EINVAL (a stream format), or what the writer returns.
 */
int report_write(FILE *f, const struct report *r, enum report_fmt fmt,
		 FILE *summary);

#endif /* IPROF_REPORT_FMT_H */
