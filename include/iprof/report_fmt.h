/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report formats (-f): one table (src/report_fmt.c), one row per
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
};

/* What a format does (struct report_format.caps), as callers ask it. */
enum report_cap {
	/* written from the record stream as the calls end, not from the tree
	 * (report_write() refuses it); no report after the run */
	REPORT_CAP_STREAM = 1u << 0,
	/* needs every record in one time order, across threads (no
	 * per-shard merge of --fold-threads) */
	REPORT_CAP_ORDERED = 1u << 1,
	/* --sort, --min-total and --max-depth apply (are not refused) */
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
	unsigned int caps; /* enum report_cap, or'ed */
};

/* report_fmt_get() - format @fmt's row; NULL if @fmt is none. */
const struct report_format *report_fmt_get(enum report_fmt fmt);

/* report_fmt_has() - does format @fmt have every capability in @caps? */
int report_fmt_has(enum report_fmt fmt, unsigned int caps);

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
 * report_parse_fmt() - a format's name ("table", "json", ...) into *@fmt.
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
