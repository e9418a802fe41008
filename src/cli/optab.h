/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Options as data: a command's options are one table of rows (struct
 * optdef), from which the engine builds getopt_long(3)'s struct option[]
 * and optstring, prints --help and answers the bash completion
 * (src/cli/complete.c).  The commands are one table too (struct command,
 * src/cli/cmd.h, its rows in src/cli/main.c).  Internal to the iprof executable.
 */
#ifndef IPROF_CLI_OPTAB_H
#define IPROF_CLI_OPTAB_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* what --help's line of an option ends with: a list made from a table
 * (report_opts_usage(), src/cli/report_opts.h) */
enum optab_list {
	OPTAB_TEXT = 0,	   /* @help alone */
	OPTAB_LIST,	   /* @help, the names (the default marked), @tail */
	OPTAB_LIST_DETAIL, /* @help, the names with their words, @tail */
};

/* struct optdef.flags */
enum {
	/* parsed and offered by the completion, no line of --help (a line
	 * of its own, OPTAB_LINE, may name it) */
	OPTAB_NOHELP = 1u << 0,
	/* parsed (the command refuses it with its own reason), neither in
	 * --help nor offered */
	OPTAB_REFUSED = 1u << 1,
};

/*
 * One row: an option, or a line of --help only (@name NULL).  Static,
 * never freed.
 */
struct optdef {
	const char *name; /* the long name ("format"); NULL: a line of --help */
	int val;	  /* getopt_long()'s code: its short letter, or >= 256 */
	int has_arg;	  /* no_argument or required_argument */
	/* --help: the value's name ("FMT"); for a line of --help, its lead
	 * ("-- COMMAND [ARG...]"), or NULL: @help printed as it is */
	const char *arg;
	/* --help's text from the command's column on; each '\n' starts a
	 * line there */
	const char *help;
	enum optab_list list; /* a generated list after @help */
	const char *tail;     /* after the list */
	/* the words it takes, one a line on @f, for the completion (NULL:
	 * none from a list); 0 or -ENOENT */
	int (*words)(FILE *f, int val);
	unsigned int flags; /* OPTAB_* */
};

/* OPT() - a row: its long name, getopt code, no_argument or
 * required_argument, value's name and help; then any of .list, .tail,
 * .words, .flags as designated initializers */
#define OPT(n, v, a, argname, h, ...)                                        \
	{ .name = (n), .val = (v), .has_arg = (a), .arg = (argname),         \
	  .help = (h), __VA_ARGS__ }

/* OPTAB_LINE() - a line of --help that is no option's: @text as it is */
#define OPTAB_LINE(text) { .help = (text) }

/* the most rows a table has, and a short optstring's size */
#define OPTAB_MAX 64
#define OPTAB_SHORT_MAX 64

/* getopt_long()'s tables of a command, built by optab_build() */
struct optab {
	struct option lo[OPTAB_MAX];	/* zeroed entry last */
	char shorts[OPTAB_SHORT_MAX];	/* "+P:e:..." */
};

/* A command's options and the --help around them.  Static. */
struct optab_cmd {
	const char *head;	   /* --help before the options: "Usage: ..." */
	const struct optdef *rows; /* ended by a zeroed row */
	const char *foot;	   /* --help after them */
	int col;		   /* --help's column of the options' text */
	int order_first;	   /* a word (the command to trace) ends them */
};

/* optab_help() - @c's --help on @f: its head, its options, its foot */
void optab_help(FILE *f, const struct optab_cmd *c);

/*
 * optab_getopt() - getopt_long()'s tables of @c into @t: 0, or -E2BIG
 * when they do not fit (a bug: tests see it).
 */
int optab_getopt(struct optab *t, const struct optab_cmd *c);

/*
 * optab_build() - getopt_long()'s struct option[] and optstring of the
 * rows @d (ended by a zeroed row) into @t; @order_first "+": a word
 * (the command) ends the options.  0, or -E2BIG when @d is larger than
 * OPTAB_MAX / OPTAB_SHORT_MAX.
 */
int optab_build(struct optab *t, const struct optdef *d, int order_first);

/*
 * optab_usage() - the rows of @d as --help prints them: "  -f, --format
 * FMT" then the help text from column @col (at least two spaces after a
 * longer lead), each '\n' of it a new line at @col.
 */
void optab_usage(FILE *f, const struct optdef *d, int col);

/* optab_find() - the row of @d that option @arg ("-f", "--format",
 * "--format=x") names exactly, or NULL */
const struct optdef *optab_find(const struct optdef *d, const char *arg);

/* optab_find_val() - the row of @d whose getopt code is @val, or NULL */
const struct optdef *optab_find_val(const struct optdef *d, int val);

/*
 * optab_list() - the options the completion offers (not
 * OPTAB_REFUSED), one "--name" a line on @f, "--name=" for one that
 * takes a value.
 */
void optab_list(FILE *f, const struct optdef *d);

#endif /* IPROF_CLI_OPTAB_H */
