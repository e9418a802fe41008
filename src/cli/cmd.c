// SPDX-License-Identifier: GPL-2.0-only
/*
 * What iprof does with its commands' table (src/cli/cmd.h; the rows in
 * src/cli/main.c): find a command, and move the options given before a
 * subcommand's word after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/list.h"
#include "cli/log.h"

const struct command *cmd_find(const struct command *t, size_t n,
			       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* Which row of @run (the live run's) the long option @arg ("--name" or
 * "--name=value") is, as getopt_long() reads it (a unique prefix); NULL
 * if none or ambiguous. */
static const struct optdef *long_opt(const struct optdef *run, const char *arg)
{
	const struct optdef *hit = NULL, *p;
	size_t n = strcspn(arg + 2, "=");

	for (p = run; p->name || p->help; p++) {
		if (!p->name || strncmp(p->name, arg + 2, n))
			continue;
		if (strlen(p->name) == n)
			return p;
		if (hit)
			return NULL;
		hit = p;
	}
	return hit;
}

/* Does the table @sub have option @d (of the live run's), by its name? */
static int applies_to(const struct optdef *d, const struct optab_cmd *sub)
{
	char name[64];

	snprintf(name, sizeof(name), "--%s", d->name);
	return !sub || optab_find(sub->rows, name) != NULL;
}

/*
 * Walk iprof's options (@run's) at the start of @argv as getopt_long()
 * reads them.
 * Returns the index of the first word that is no option or option value
 * (@argc: none; 0 when "--" ends them: a command follows).  With @sub, an
 * option that 'iprof @subname' does not take is said as "OPT (before
 * 'SUB') does not apply to ..." and -EINVAL returned.
 */
static int walk_opts(int argc, char **argv, const struct optab_cmd *run,
		     const struct optab_cmd *sub, const char *subname)
{
	const struct optdef *d;
	char name[64];
	int i, k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1])
			return i; /* a word: a subcommand or the command */
		if (!strcmp(a, "--"))
			return 0;
		if (a[1] == '-') {
			d = long_opt(run->rows, a);
			if (d && !applies_to(d, sub)) {
				snprintf(name, sizeof(name), "--%s", d->name);
				goto bad;
			}
			i += d && d->has_arg == required_argument &&
			     !strchr(a, '=');
			continue;
		}
		for (k = 1; a[k]; k++) {
			d = optab_find_val(run->rows, a[k]);
			/* a letter iprof lacks: the run says so, another
			 * command that it does not take it */
			if (d ? !applies_to(d, sub) :
				sub && sub != run) {
				snprintf(name, sizeof(name), "-%c", a[k]);
				goto bad;
			}
			if (d && d->has_arg == required_argument) {
				i += !a[k + 1]; /* its value is the next word */
				break;
			}
		}
	}
	return argc;
bad:
	log_error("%s (before '%s') does not apply to 'iprof %s' (try 'iprof %s --help')",
		  name, subname, subname, subname);
	return -EINVAL;
}

int cmd_hoist(int argc, char **argv, const struct command *t, size_t n)
{
	const struct optab_cmd *run = t[0].opts;
	const struct command *c;
	const struct optab_cmd *sub;
	char subname[64], **moved;
	int i, words, list_sub;

	i = walk_opts(argc, argv, run, NULL, NULL);
	if (i <= 1 || i >= argc)
		return 0; /* no option first, no word, or "--" */
	c = cmd_find(t, n, argv[i]);
	if (!c || !*c->name)
		return 0; /* the command to trace */
	list_sub = !strcmp(c->name, "list") && i + 1 < argc &&
		   list_is_subcommand(argv[i + 1]) && argv[i + 1][0] != '-';
	/* list OPTIONS is the plan: every option of a run */
	sub = !strcmp(c->name, "list") && !list_sub ? run : c->opts;
	snprintf(subname, sizeof(subname), "%s%s%s", argv[i],
		 list_sub ? " " : "", list_sub ? argv[i + 1] : "");
	if (walk_opts(i, argv, run, sub, subname) < 0)
		return -EINVAL;
	/* argv[1 .. i) after the subcommand's word(s) */
	words = 1 + list_sub;
	moved = malloc((size_t)(i - 1) * sizeof(*moved));
	if (!moved)
		return -ENOMEM;
	memcpy(moved, argv + 1, (size_t)(i - 1) * sizeof(*moved));
	memmove(argv + 1, argv + i, (size_t)words * sizeof(*argv));
	memcpy(argv + 1 + words, moved, (size_t)(i - 1) * sizeof(*moved));
	free(moved);
	return 0;
}
