// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof --list-cmds, --list-opts, --list-values: see src/cli/complete.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/complete.h"
#include "cli/list.h"
#include "cli/opts.h"
#include "cli/replay.h"

/* options iprof diff refuses (cmd_diff.c's args_ok()): not offered */
static const char *const diff_refuses[] = { "sort",	"min-total",
					    "max-depth", "columns",
					    "json-tree" };

int complete_asks(const char *arg)
{
	return !strcmp(arg, "--list-cmds") || !strcmp(arg, "--list-opts") ||
	       !strcmp(arg, "--list-values");
}

/* the table of command @cmd ("" the live run), NULL if none */
static const struct option *table_of(const char *cmd)
{
	if (!*cmd || !strcmp(cmd, "record"))
		return opts_options();
	if (!strcmp(cmd, "report") || !strcmp(cmd, "diff"))
		return replay_options();
	if (!strcmp(cmd, "list"))
		return list_options();
	return NULL;
}

static int refused(const char *cmd, const char *name)
{
	if (strcmp(cmd, "diff"))
		return 0;
	for (size_t i = 0; i < sizeof(diff_refuses) / sizeof(*diff_refuses);
	     i++)
		if (!strcmp(diff_refuses[i], name))
			return 1;
	return 0;
}

static int list_opts(const char *cmd)
{
	const struct option *o = table_of(cmd);

	if (!o) {
		fprintf(stderr, "iprof --list-opts: no command '%s'\n", cmd);
		return EXIT_USAGE;
	}
	for (; o->name; o++)
		if (!refused(cmd, o->name))
			printf("--%s%s\n", o->name,
			       o->has_arg == required_argument ? "=" : "");
	return 0;
}

/* the words of option @arg ("-f", "--format"), of any command's table */
static int list_values(const char *arg)
{
	static const char *const cmds[] = { "", "report", "list" };
	const struct option *o;

	for (size_t k = 0; k < sizeof(cmds) / sizeof(*cmds); k++) {
		for (o = table_of(cmds[k]); o->name; o++) {
			if (!(arg[1] == '-' ? !strcmp(arg + 2, o->name) :
					      arg[1] && !arg[2] &&
						      o->val == arg[1]))
				continue;
			/* the live run's table parses every report option
			 * too: its words cover report's */
			opts_words(stdout, o->val);
			return 0;
		}
	}
	fprintf(stderr, "iprof --list-values: no option '%s'\n", arg);
	return EXIT_USAGE;
}

int complete_main(int argc, char **argv)
{
	const char *const *subs;
	size_t n, i;

	if (!strcmp(argv[1], "--list-cmds")) {
		subs = opts_subcommands(&n);
		for (i = 0; i < n; i++)
			printf("%s\n", subs[i]);
		return 0;
	}
	if (!strcmp(argv[1], "--list-opts"))
		return list_opts(argc > 2 ? argv[2] : "");
	if (argc < 3 || argv[2][0] != '-') {
		fprintf(stderr, "iprof --list-values: expected an option (-f, --sort, ...)\n");
		return EXIT_USAGE;
	}
	return list_values(argv[2]);
}
