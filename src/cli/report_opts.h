/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report options that iprof (src/cli/opts.c), iprof record, iprof report
 * (src/cli/cmd_report.c) and iprof diff (src/cli/cmd_diff.c, through
 * replay_parse()) share: -f, -o, --sort, --min-total, --max-depth,
 * --columns, --weight, --by, --max-paths, --max-keys, --json-tree.  Their
 * codes (the rows of each command's option table name them), their
 * parsing, the checks of which format they apply to, and
 * the lists in --help and in the messages, from the tables of the formats
 * (formats[], src/report/fmt.c), sort keys (sort_names[],
 * src/report/util.c),
 * columns (col[], src/report/table.c), weights and --by keys (by_keys[],
 * src/cli/report_opts.c).  Internal to the iprof executable.
 */
#ifndef IPROF_REPORT_OPTS_H
#define IPROF_REPORT_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "iprof/agg.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"

/* getopt_long() codes of the long-only report options; a command's own
 * long-only options start at RO_NEXT */
enum {
	RO_SORT = 256,
	RO_MIN_TOTAL,
	RO_MAX_DEPTH,
	RO_COLUMNS,
	RO_WEIGHT,
	RO_BY,
	RO_MAX_PATHS,
	RO_MAX_KEYS,
	RO_NO_COMPENSATE,
	RO_JSON_TREE,
	RO_FROM, /* iprof report and diff: --from, --to */
	RO_TO,
	RO_SLOWEST, /* --slowest K */
	RO_NEXT,
};

/* The report options as given; report_opts_init() sets the defaults. */
struct report_opts {
	enum report_fmt fmt;
	const char *output; /* -o; NULL or "-": stdout */
	enum report_sort sort;
	uint64_t min_total_ns; /* ns; 0: none */
	uint32_t max_depth;    /* 0: none */
	enum report_weight weight;
	enum report_col columns[REPORT_NCOL];
	size_t ncolumns; /* 0: the default columns */
	enum agg_by by;
	int json_flat; /* --json-tree flat: JSON nodes as one flat list */
	/* agg__set_limits(); 0: no cap */
	uint32_t max_paths, max_keys;
	/* --no-compensate: raw times, the probes' cost in them (live: no
	 * calibration either) */
	int no_compensate;
	/* --slowest K: each node's K slowest calls (agg__set_slowest()),
	 * 0: off */
	uint32_t slowest;
	/* given on the command line */
	int fmt_set, sort_set, min_total_set, max_depth_set, weight_set,
		max_paths_set, max_keys_set, json_tree_set;
};

/* report_opts_init() - zero @ro, and the live run's limits (AGG_MAX_*). */
void report_opts_init(struct report_opts *ro);

/*
 * report_opts_apply() - what @ro says of a report's shape into @r: sort,
 * --min-total, --max-depth, --weight, --json-tree, --columns (@r->columns points into
 * @ro, which must outlive @r).
 */
void report_opts_apply(const struct report_opts *ro, struct report *r);

/*
 * report_opts_set_umaps() - name the user frames of --offcpu-stacks=user
 * through @u (the live run's, or a recording's) in every report
 * report_opts_apply() shapes from now on; NULL: in hex.  @u is the
 * caller's, set back to NULL before it is freed.
 */
struct umaps;
void report_opts_set_umaps(struct umaps *u);

/*
 * report_opts_term_width() - the width in columns of the terminal @f
 * writes to (TIOCGWINSZ, else $COLUMNS as ls(1) reads it), for struct
 * report's width; 0 when @f is not a terminal or no width is known.
 */
unsigned int report_opts_term_width(FILE *f);

/*
 * report_opts_parse() - getopt_long()'s @c with its @arg, when it is a
 * report option.  Returns 1 when @c is none (the caller's own), 0 when
 * parsed, -EINVAL on a bad value or -o twice, said on stderr: "iprof:
 * --sort 'x': expected total, ..." (@cmd NULL), or with "iprof @cmd: ".
 */
int report_opts_parse(struct report_opts *ro, int c, const char *arg,
		      const char *cmd);

/*
 * report_opts_check() - an option the chosen format ignores is a mistake:
 * --sort, --min-total, --max-depth with seed, --columns but with table,
 * --weight but with folded, --json-tree but with json.  Returns 0 or -EINVAL (said on stderr, as
 * "iprof: " for @cmd NULL, else "iprof @cmd: ").
 */
int report_opts_check(const struct report_opts *ro, const char *cmd);

/*
 * report_opts_words() - the values option @c ('f', RO_SORT, RO_WEIGHT,
 * RO_COLUMNS, RO_BY, RO_JSON_TREE) takes, one a line on @f, from the
 * tables it is parsed by (for the bash completion: iprof --list-values).
 * Returns 0, or -ENOENT for an option that takes no word from a list.
 */
int report_opts_words(FILE *f, int c);

/*
 * report_opts_usage() - the text of --help for option @c (RO_SORT, 'f',
 * ...) from the tables, wrapped at 75 columns below column 24: @lead
 * ("order of siblings: "), the list, @tail ("; table, json, folded").
 * @detail: with each value's words (iprof --help), else the names and
 * which is the default.
 */
void report_opts_usage(FILE *f, int c, const char *lead, const char *tail,
		       int detail);

#endif /* IPROF_REPORT_OPTS_H */
