// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof --list-cmds, --list-opts, --list-values: see src/cli/complete.h.
 * Everything from the commands' table and their option tables
 * (src/cli/cmd.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/complete.h"
#include "cli/opts.h"

int complete_asks(const char *arg)
{
	return !strcmp(arg, "--list-cmds") || !strcmp(arg, "--list-opts") ||
	       !strcmp(arg, "--list-values");
}

static int list_opts(const struct command *t, size_t n, const char *name)
{
	const struct command *c = cmd_find(t, n, name);

	if (!c) {
		fprintf(stderr, "iprof --list-opts: no command '%s'\n", name);
		return EXIT_USAGE;
	}
	optab_list(stdout, c->opts->rows);
	return 0;
}

/* the words of option @arg ("-f", "--format"), of the first command's
 * table that has it (the live run's parses every report option: its
 * words cover report's) */
static int list_values(const struct command *t, size_t n, const char *arg)
{
	const struct optdef *d;

	for (size_t i = 0; i < n; i++) {
		d = optab_find(t[i].opts->rows, arg);
		if (!d)
			continue;
		if (d->words)
			d->words(stdout, d->val);
		return 0;
	}
	fprintf(stderr, "iprof --list-values: no option '%s'\n", arg);
	return EXIT_USAGE;
}

int complete_main(int argc, char **argv, const struct command *t, size_t n)
{
	if (!strcmp(argv[1], "--list-cmds")) {
		for (size_t i = 0; i < n; i++)
			if (*t[i].name)
				printf("%s\n", t[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "--list-opts"))
		return list_opts(t, n, argc > 2 ? argv[2] : "");
	if (argc < 3 || argv[2][0] != '-') {
		fprintf(stderr, "iprof --list-values: expected an option (-f, --sort, ...)\n");
		return EXIT_USAGE;
	}
	return list_values(t, n, argv[2]);
}
