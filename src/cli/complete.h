/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the bash completion (packaging/bash-completion/iprof) asks iprof,
 * as perf's --list-cmds and --list-opts: the subcommands, each command's
 * long options and the words an option takes, read from the tables the
 * options are parsed by, so that the completion never lists them by hand.
 * Internal to the iprof executable.
 */
#ifndef IPROF_CLI_COMPLETE_H
#define IPROF_CLI_COMPLETE_H

#include <stddef.h>

#include "cli/cmd.h"

/* complete_asks() - 1 if @arg is one of the words complete_main() answers
 * (--list-cmds, --list-opts, --list-values), else 0. */
int complete_asks(const char *arg);

/*
 * complete_main() - answer `iprof --list-cmds`, `iprof --list-opts [CMD]`
 * (CMD: record, report, diff or list; none: the live run), one "--name"
 * a line, "--name=" for one that takes a value; `iprof --list-values
 * OPTION` (-f or --format, --sort, --returns...), the words it takes, one
 * a line (none for an option without a list); from the commands @t (@n
 * rows, src/cli/cmd.h).  Returns the exit status:
 * 0, or 2 for a command or option iprof does not have (said on stderr).
 */
int complete_main(int argc, char **argv, const struct command *t,
		  size_t n);

#endif /* IPROF_CLI_COMPLETE_H */
