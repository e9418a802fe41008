/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iprof list tracepoints|functions|kernel: what can be probed here, as
 * `bpftrace -l` and `perf probe -F` show it.  One item per line on stdout,
 * sorted by name; the count and notes on stderr.
 */
#ifndef IPROF_LIST_H
#define IPROF_LIST_H

#include "cli/optab.h"

/* Exit statuses of list_main(), as grep(1)'s. */
#define LIST_FOUND 0 /* something matched and was listed */
#define LIST_NONE 1  /* nothing matched */
#define LIST_ERROR 2 /* bad arguments, or what to list cannot be read */

/* list_is_subcommand() - 1 if @name is a subcommand list_main() runs
 * (tracepoints, functions, kernel; -h and --help print its help). */
int list_is_subcommand(const char *name);

/* the options of iprof list WHAT: their rows and --help */
extern const struct optab_cmd list_cmd_opts;

/*
 * list_main() - run `iprof list @argv[0] ...` (@argc arguments, argv[0]
 * the subcommand).  Prints to stdout and stderr; returns LIST_FOUND,
 * LIST_NONE or LIST_ERROR.
 */
int list_main(int argc, char **argv);

#endif /* IPROF_LIST_H */
