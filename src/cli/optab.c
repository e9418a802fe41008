// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine of the option tables (src/cli/optab.h): getopt_long()'s
 * tables, --help and the completion's lists, from a command's rows.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/optab.h"
#include "cli/report_opts.h"

/* does option @d have a short letter (its getopt code)? */
static int has_short(const struct optdef *d)
{
	return d->val > 0 && d->val < 128 && isalnum(d->val);
}

/* Is @d a report option (src/cli/report_opts.h)?  getopt_long() has
 * always had them first: its message on an ambiguous prefix ("--c")
 * lists the candidates in its table's order. */
static int report_opt(const struct optdef *d)
{
	return d->val == 'f' || d->val == 'o' ||
	       (d->val >= RO_SORT && d->val < RO_NEXT);
}

int optab_build(struct optab *t, const struct optdef *d, int order_first)
{
	const struct optdef *p;
	size_t n = 0, s = 0;

	memset(t, 0, sizeof(*t));
	if (order_first)
		t->shorts[s++] = '+';
	for (int pass = 0; pass < 2; pass++) {
		for (p = d; p->name || p->help; p++) {
			if (!p->name || report_opt(p) != !pass)
				continue;
			if (n + 1 >= OPTAB_MAX || s + 3 >= OPTAB_SHORT_MAX)
				return -E2BIG;
			t->lo[n++] = (struct option){ p->name, p->has_arg, NULL,
						      p->val };
			if (!has_short(p))
				continue;
			t->shorts[s++] = (char)p->val;
			if (p->has_arg == required_argument)
				t->shorts[s++] = ':';
		}
	}
	return 0;
}

/* the text @help from column @col on (the cursor there): each '\n' a
 * new line at @col */
static void indented(FILE *f, const char *help, int col)
{
	const char *p = help, *e;

	while ((e = strchr(p, '\n'))) {
		fprintf(f, "%.*s\n%*s", (int)(e - p), p, col, "");
		p = e + 1;
	}
	fprintf(f, "%s\n", p);
}

/* what goes between an option and its argument's name: an optional
 * one is written "--name[=WORD]" */
static const char *arg_sep(const struct optdef *d)
{
	return !d->arg || d->has_arg == optional_argument ? "" : " ";
}

void optab_usage(FILE *f, const struct optdef *d, int col)
{
	char lead[96];
	int len;

	for (; d->name || d->help; d++) {
		if (d->flags & (OPTAB_NOHELP | OPTAB_REFUSED))
			continue;
		if (!d->name && !d->arg) {
			fprintf(f, "%s\n", d->help);
			continue;
		}
		if (!d->name)
			len = snprintf(lead, sizeof(lead), "  %s", d->arg);
		else if (has_short(d))
			len = snprintf(lead, sizeof(lead), "  -%c, --%s%s%s",
				       d->val, d->name, arg_sep(d),
				       d->arg ? d->arg : "");
		else
			len = snprintf(lead, sizeof(lead), "      --%s%s%s",
				       d->name, arg_sep(d),
				       d->arg ? d->arg : "");
		fprintf(f, "%s%*s", lead, len < col ? col - len : 2, "");
		if (d->list)
			report_opts_usage(f, d->val, d->help, d->tail ? d->tail : "",
					  d->list == OPTAB_LIST_DETAIL);
		else
			indented(f, d->help, col);
	}
}

const struct optdef *optab_find(const struct optdef *d, const char *arg)
{
	size_t n;

	if (arg[0] != '-' || !arg[1])
		return NULL;
	if (arg[1] != '-')
		return arg[2] ? NULL : optab_find_val(d, arg[1]);
	n = strcspn(arg + 2, "=");
	for (; d->name || d->help; d++)
		if (d->name && strlen(d->name) == n &&
		    !strncmp(d->name, arg + 2, n))
			return d;
	return NULL;
}

const struct optdef *optab_find_val(const struct optdef *d, int val)
{
	for (; d->name || d->help; d++)
		if (d->name && d->val == val)
			return d;
	return NULL;
}

void optab_list(FILE *f, const struct optdef *d)
{
	for (; d->name || d->help; d++)
		if (d->name && !(d->flags & OPTAB_REFUSED))
			fprintf(f, "--%s%s\n", d->name,
				d->has_arg == required_argument ? "=" : "");
}

void optab_help(FILE *f, const struct optab_cmd *c)
{
	fputs(c->head, f);
	optab_usage(f, c->rows, c->col);
	fputs(c->foot, f);
}

int optab_getopt(struct optab *t, const struct optab_cmd *c)
{
	return optab_build(t, c->rows, c->order_first);
}
