/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iprof's commands as data: one table (its rows in src/cli/main.c) of the
 * live run, record, report, diff and list, each with its options (a table
 * of rows, src/cli/optab.h) and its entry function.  main() dispatches
 * through it, the completion (src/cli/complete.c) lists it, and options
 * given before a subcommand's word move after it by it (cmd_hoist()).
 * Internal to the iprof executable.
 */
#ifndef IPROF_CMD_H
#define IPROF_CMD_H

#include <stddef.h>

#include "cli/optab.h"

/* One command: a row of the table.  Static. */
struct command {
	const char *name; /* the word after "iprof"; "" the live run */
	/* the argv[0] its messages carry ("iprof report"), NULL: as given */
	const char *prog;
	int skip; /* the words before its argv[0] */
	const struct optab_cmd *opts;
	/* gets argv from @skip on; returns the exit status */
	int (*main)(int argc, char **argv);
};

/* iprof report's and iprof diff's options (src/cli/cmd_report.c,
 * src/cli/cmd_diff.c) */
extern const struct optab_cmd report_cmd_opts;
extern const struct optab_cmd diff_cmd_opts;

/* cmd_find() - the command of @t (@n rows) named @name ("" the live
 * run), or NULL */
const struct command *cmd_find(const struct command *t, size_t n,
			       const char *name);

/*
 * cmd_hoist() - iprof's options given before a subcommand ("iprof -q -P
 * x.conf record -o r -- cmd") moved after its word, in place in @argv
 * (@argc entries; "list SUB" is two words), for the commands of @t (@n
 * rows; row 0 the live run, whose options are read): an option moves
 * when the subcommand's table has it (record and list, the plan, every
 * option of a run).  A word after "--" is the command to trace, never a
 * subcommand.  Returns 0 (nothing to move, or moved), -EINVAL for an
 * option the subcommand does not take (said on stderr) or -ENOMEM.
 */
int cmd_hoist(int argc, char **argv, const struct command *t, size_t n);

/*
 * cmd_report_main() - `iprof report [OPTIONS] FILE` (@argv[0] is
 * "report"): the report the live run would have printed for the same
 * options, from a recording ('-': stdin).  Returns the exit status: 0, 1
 * (the report could not be written), 2 (bad options, not a recording,
 * corrupted), 3 (reported, but the run had timers not attached or the
 * recording was cut).
 */
int cmd_report_main(int argc, char **argv);

/*
 * cmd_diff_main() - `iprof diff [OPTIONS] A B` (@argv[0] is "diff"):
 * per path, count, total, avg, p50 and p99 of A and of B and the change,
 * largest change first.  A and B are JSON reports or recordings.  Returns
 * 0, 1 (write error), 2 (bad options or input).
 */
int cmd_diff_main(int argc, char **argv);

#endif /* IPROF_CMD_H */
