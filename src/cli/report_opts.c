// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report options iprof, iprof record, iprof report and iprof diff
 * share (src/cli/report_opts.h): parsing, the format checks, and the lists of
 * --help and of the messages, made from the tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "iprof/ksym.h"
#include "iprof/slow.h"
#include "iprof/umaps.h"
#include "iprof/util.h"
#include "cli/log.h"
#include "kernel/btfarg.h"
#include "cli/report_opts.h"

/* --help: the text column and the widest line */
#define USAGE_INDENT 24
#define USAGE_WIDTH 75

/* The --by keys, by enum agg_by (AGG_BY_NONE has none); an alias after
 * the name it stands for, with no help */
static const struct by_key {
	const char *name;
	enum agg_by by;
	const char *help; /* NULL: an alias */
} by_keys[] = {
	{ "tid", AGG_BY_TID, "thread" },
	{ "tgid", AGG_BY_TGID, "process" },
	{ "pid", AGG_BY_TGID, NULL },
	{ "comm", AGG_BY_COMM, "command name" },
};

#define NBY (sizeof(by_keys) / sizeof(by_keys[0]))

/* --json-tree's shapes, by report_opts.json_flat */
static const char *const json_trees[] = { "nested", "flat" };

void report_opts_init(struct report_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->max_paths = AGG_MAX_PATHS_DEFAULT;
	ro->max_keys = AGG_MAX_KEYS_DEFAULT;
}

/*
 * kname() - a kernel address's function from /proc/kallsyms, read at the
 * first call (--offcpu-stacks' stacks; report.kname).  The table lives
 * until exit: one per process.
 */
static const char *kname(void *ctx, uint64_t addr, char *buf, size_t size)
{
	static struct ksym_addrs *t;
	static int tried;
	unsigned long long off;

	(void)ctx;
	if (!tried++)
		t = ksym_addrs_load("/proc/kallsyms");
	return ksym_addr_name(t, addr, buf, size, &off);
}

/* report_opts_set_umaps()'s: the user frames' names */
static struct umaps *uctx;

void report_opts_set_umaps(struct umaps *u)
{
	uctx = u;
}

static const char *uname(void *ctx, uint32_t tgid, uint64_t addr, char *buf,
			 size_t size)
{
	return umaps_name(ctx, tgid, addr, buf, size);
}

/*
 * ename() - an enum value's name from the kernel's BTF (--slowest's
 * kernel function arguments; report.ename), loaded at the first call.
 * One table per process, as kname()'s.
 */
static const char *ename(void *ctx, const char *type, int64_t v, char *buf,
			 size_t size)
{
	static struct btfarg b;

	(void)ctx;
	return btfarg_enum_name(&b, type, v, buf, size);
}

void report_opts_apply(const struct report_opts *ro, struct report *r)
{
	r->kname = kname;
	r->ename = ename;
	r->uname = uctx ? uname : NULL;
	r->uname_ctx = uctx;
	r->sort = ro->sort;
	r->min_total_ns = ro->min_total_ns;
	r->max_depth = ro->max_depth;
	r->weight = ro->weight;
	r->json_flat = ro->json_flat;
	r->columns = ro->ncolumns ? ro->columns : NULL;
	r->ncolumns = ro->ncolumns;
}

unsigned int report_opts_term_width(FILE *f)
{
	struct winsize ws;
	const char *env;
	long v;

	if (!f || !isatty(fileno(f)))
		return 0;
	if (!ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	env = getenv("COLUMNS"); /* as ls(1): the width when the tty has none */
	v = env ? strtol(env, NULL, 10) : 0;
	return v > 0 && v < 100000 ? (unsigned int)v : 0;
}

/* the long name of option @c, for messages (the commands' tables name
 * them as these: tests/lint/options.sh) */
static const char *opt_name(int c)
{
	static const char *const names[] = {
		[RO_SORT - RO_SORT] = "sort",
		[RO_MIN_TOTAL - RO_SORT] = "min-total",
		[RO_MAX_DEPTH - RO_SORT] = "max-depth",
		[RO_COLUMNS - RO_SORT] = "columns",
		[RO_WEIGHT - RO_SORT] = "weight",
		[RO_BY - RO_SORT] = "by",
		[RO_MAX_PATHS - RO_SORT] = "max-paths",
		[RO_MAX_KEYS - RO_SORT] = "max-keys",
		[RO_JSON_TREE - RO_SORT] = "json-tree",
		[RO_SLOWEST - RO_SORT] = "slowest",
	};

	if (c == 'f')
		return "format";
	if (c >= RO_SORT && c - RO_SORT < (int)(sizeof(names) / sizeof(*names)) &&
	    names[c - RO_SORT])
		return names[c - RO_SORT];
	return "?";
}

/* what join() adds to each name */
enum { NAMES, NAMES_DEFAULT, NAMES_HELP };

/*
 * A list into @buf (@size bytes): the names of @t (@n entries) joined
 * with ", ", " or " before the last one; @mode NAMES_DEFAULT: "default"
 * for entry 0 in parentheses, NAMES_HELP: also each one's words.
 * Returns @buf.
 */
static char *join(char *buf, size_t size, const struct report_name *t,
		  size_t n, int mode)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++) {
		const char *h = mode == NAMES_HELP ? t[i].help : NULL;
		int dflt = mode != NAMES && i == 0;

		used += (size_t)snprintf(
			buf + used, size - used, "%s%s%s%s%s%s%s",
			!i ? "" : i + 1 < n ? ", " : " or ", t[i].name,
			dflt || h ? " (" : "", dflt ? "default" : "",
			dflt && h ? "; " : "", h ? h : "",
			dflt || h ? ")" : "");
	}
	return buf;
}

/* the columns' names, space-separated */
static char *col_list(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int c = 0; c < REPORT_NCOL && used < size; c++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 c ? " " : "", report_col_name(c));
	return buf;
}

/* the --by keys: "tid, tgid (or pid) or comm" (@help 0), or "thread
 * (tid), process (tgid) or command name (comm)" (@help 1) */
static char *by_list(char *buf, size_t size, int help)
{
	size_t used = 0, k, n = 0, i;

	for (i = 0; i < NBY; i++)
		n += !!by_keys[i].help;
	buf[0] = '\0';
	for (i = 0, k = 0; i < NBY && used < size; i++) {
		const char *sep = !k ? "" : k + 1 < n ? ", " : " or ";

		if (!by_keys[i].help) {
			if (!help)
				used += (size_t)snprintf(buf + used,
							 size - used,
							 " (or %s)",
							 by_keys[i].name);
			continue;
		}
		k++;
		if (help)
			used += (size_t)snprintf(buf + used, size - used,
						 "%s%s (%s)", sep,
						 by_keys[i].help,
						 by_keys[i].name);
		else
			used += (size_t)snprintf(buf + used, size - used,
						 "%s%s", sep, by_keys[i].name);
	}
	return buf;
}

/* what iprof says a bad value of option @c should be */
static const char *expected(int c, char *buf, size_t size)
{
	const struct report_name *t;
	char list[512];
	size_t n;

	switch (c) {
	case 'f':
		t = report_fmt_names(&n);
		return join(buf, size, t, n, NAMES);
	case RO_SORT:
		t = report_sort_names(&n);
		return join(buf, size, t, n, NAMES);
	case RO_WEIGHT:
		t = report_weight_names(&n);
		return join(buf, size, t, n, NAMES);
	case RO_COLUMNS:
		snprintf(buf, size, "column names, each once, from: %s",
			 col_list(list, sizeof(list)));
		return buf;
	case RO_BY:
		return by_list(buf, size, 0);
	case RO_MIN_TOTAL:
		return "a time like 1ms, 250us, 2s";
	case RO_MAX_DEPTH:
		return "a depth of 1 or more";
	case RO_SLOWEST:
		return "a number of calls from 0 (off) to 64";
	case RO_JSON_TREE:
		return "nested (default: each node holds its children) or flat (one list of nodes with parent ids)";
	default: /* RO_MAX_PATHS, RO_MAX_KEYS */
		return "a number from 0 (no cap) to 4294967295";
	}
}

/* "no column 'x'; " or "'x' twice; " for the first name of the
 * --columns list @arg that is wrong, into @out (@len bytes); else "" */
static void bad_column(const char *arg, char *out, size_t len)
{
	const char *p = *arg == '+' ? arg + 1 : arg, *e, *q;
	size_t n;
	int c;

	*out = '\0';
	for (; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		n = (size_t)(e - p);
		for (c = 0; c < REPORT_NCOL; c++)
			if (strlen(report_col_name(c)) == n &&
			    !strncmp(report_col_name(c), p, n))
				break;
		if (c == REPORT_NCOL) {
			snprintf(out, len, "no column '%.*s'; ", (int)n, p);
			return;
		}
		for (q = *arg == '+' ? arg + 1 : arg; q < p; q++)
			if ((q == arg || q[-1] == ',' || q[-1] == '+') &&
			    !strncmp(q, p, n) && (q[n] == ',')) {
				snprintf(out, len, "'%.*s' twice; ", (int)n, p);
				return;
			}
	}
}

/*
 * near_name() - for a name @arg that option @c (-f, --sort, --weight)
 * does not know, "did you mean NAME? " into @out (the names nearest by
 * ksym_suggest()), else "" (newcomer trial 5: -f jsn, --weight cpu).
 */
static void near_name(int c, const char *arg, char *out, size_t len)
{
	const struct report_name *t;
	char *names[64], near[64];
	size_t n, i;

	*out = '\0';
	t = c == 'f'	     ? report_fmt_names(&n) :
	    c == RO_SORT   ? report_sort_names(&n) :
	    c == RO_WEIGHT ? report_weight_names(&n) :
			     NULL;
	if (!t)
		return;
	for (i = 0; i < n && i < 64; i++)
		names[i] = (char *)t[i].name;
	if (ksym_suggest(names, i, arg, near, sizeof(near)))
		snprintf(out, len, "did you mean %s? ", near);
}

/* parse @arg for option @c into @ro: 0, or -EINVAL (nothing said) */
static int parse_value(struct report_opts *ro, int c, const char *arg)
{
	uint64_t ul;
	size_t i;

	switch (c) {
	case 'f':
		ro->fmt_set = 1;
		return report_parse_fmt(arg, &ro->fmt);
	case RO_SORT:
		ro->sort_set = 1;
		return report_parse_sort(arg, &ro->sort);
	case RO_MIN_TOTAL:
		ro->min_total_set = 1;
		return util_parse_duration(arg, &ro->min_total_ns) ? -EINVAL :
								      0;
	case RO_MAX_DEPTH:
		if (util_parse_uint(arg, 1, UINT32_MAX, &ul))
			return -EINVAL;
		ro->max_depth = (uint32_t)ul;
		ro->max_depth_set = 1;
		return 0;
	case RO_COLUMNS:
		return report_parse_columns(arg, ro->columns, REPORT_NCOL,
					    &ro->ncolumns);
	case RO_WEIGHT:
		ro->weight_set = 1;
		return report_parse_weight(arg, &ro->weight);
	case RO_JSON_TREE:
		ro->json_tree_set = 1;
		for (i = 0; i < 2; i++)
			if (!strcmp(arg, json_trees[i])) {
				ro->json_flat = (int)i;
				return 0;
			}
		return -EINVAL;
	case RO_BY:
		for (i = 0; i < NBY; i++)
			if (!strcmp(arg, by_keys[i].name)) {
				ro->by = by_keys[i].by;
				return 0;
			}
		return -EINVAL;
	case RO_SLOWEST:
		if (util_parse_uint(arg, 0, SLOW_K_MAX, &ul))
			return -EINVAL;
		ro->slowest = (uint32_t)ul;
		return 0;
	case RO_MAX_PATHS:
	case RO_MAX_KEYS:
		if (util_parse_uint(arg, 0, UINT32_MAX, &ul))
			return -EINVAL;
		if (c == RO_MAX_PATHS) {
			ro->max_paths = (uint32_t)ul;
			ro->max_paths_set = 1;
		} else {
			ro->max_keys = (uint32_t)ul;
			ro->max_keys_set = 1;
		}
		return 0;
	}
	return -EINVAL;
}

int report_opts_parse(struct report_opts *ro, int c, const char *arg,
		      const char *cmd)
{
	char buf[512], which[96] = "";

	switch (c) {
	case RO_NO_COMPENSATE:
		ro->no_compensate = 1;
		return 0;
	case 'o':
		if (ro->output) {
			log_cmd(LOG_LVL_ERROR, cmd,
				"-o given twice ('%s', '%s'): one output file",
				ro->output, arg);
			return -EINVAL;
		}
		ro->output = arg;
		return 0;
	case 'f':
	case RO_SORT:
	case RO_MIN_TOTAL:
	case RO_MAX_DEPTH:
	case RO_COLUMNS:
	case RO_WEIGHT:
	case RO_BY:
	case RO_MAX_PATHS:
	case RO_MAX_KEYS:
	case RO_JSON_TREE:
	case RO_SLOWEST:
		break;
	default:
		return 1;
	}
	if (!parse_value(ro, c, arg))
		return 0;
	if (c == RO_COLUMNS)
		bad_column(arg, which, sizeof(which));
	else
		near_name(c, arg, which, sizeof(which));
	if (cmd && c == 'f' && !strcmp(cmd, "diff"))
		/* diff writes two of the formats: name those (what its
		 * args_ok() says of a format it does not write) */
		log_cmd(LOG_LVL_ERROR, cmd, "--%s '%s': %sexpected %s",
			opt_name(c), arg, which,
			report_fmt_with(REPORT_CAP_DIFF, buf, sizeof(buf)));
	else if (cmd)
		log_cmd(LOG_LVL_ERROR, cmd, "--%s '%s': %sexpected %s",
			opt_name(c), arg, which,
			expected(c, buf, sizeof(buf)));
	else
		log_error("--%s '%s': %sexpected %s", opt_name(c), arg, which,
			  expected(c, buf, sizeof(buf)));
	return -EINVAL;
}

int report_opts_check(const struct report_opts *ro, const char *cmd)
{
	const struct report_format *f = report_fmt_get(ro->fmt);
	char names[128];

	if (!(f->caps & REPORT_CAP_SORT) &&
	    (ro->sort_set || ro->min_total_set ||
	     (ro->max_depth_set && !(f->caps & REPORT_CAP_DEPTH)))) {
		/* iprof's own message says why (chrome: a timeline of every
		 * call, nothing sorted or summed, but --max-depth applies) */
		log_cmd(LOG_LVL_ERROR, cmd, "%s do not apply to --format %s%s%s%s",
			f->caps & REPORT_CAP_DEPTH ?
				"--sort and --min-total" :
				"--sort, --min-total and --max-depth",
			f->name, !cmd && f->shape ? " (" : "",
			!cmd && f->shape ? f->shape : "",
			!cmd && f->shape ? ")" : "");
		return -EINVAL;
	}
	if (ro->ncolumns && !(f->caps & REPORT_CAP_COLUMNS)) {
		log_cmd(LOG_LVL_ERROR, cmd, "--columns applies to --format %s only",
			report_fmt_with(REPORT_CAP_COLUMNS, names, sizeof(names)));
		return -EINVAL;
	}
	if (ro->json_tree_set && !(f->caps & REPORT_CAP_JSON)) {
		log_cmd(LOG_LVL_ERROR, cmd, "--json-tree applies to --format %s only",
			report_fmt_with(REPORT_CAP_JSON, names, sizeof(names)));
		return -EINVAL;
	}
	if (ro->weight_set && !(f->caps & REPORT_CAP_WEIGHT)) {
		log_cmd(LOG_LVL_ERROR, cmd, "--weight applies to --format %s only",
			report_fmt_with(REPORT_CAP_WEIGHT, names, sizeof(names)));
		return -EINVAL;
	}
	return 0;
}

/* @text from column USAGE_INDENT on, wrapped at USAGE_WIDTH by words */
static void wrap(FILE *f, const char *text)
{
	size_t col = USAGE_INDENT, len;
	const char *p = text, *e;

	while (*p) {
		e = strchr(p, ' ');
		len = e ? (size_t)(e - p) : strlen(p);
		if (col > USAGE_INDENT && col + 1 + len > USAGE_WIDTH) {
			fprintf(f, "\n%*s", USAGE_INDENT, "");
			col = USAGE_INDENT;
		} else if (col > USAGE_INDENT) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, len, f);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* the table of names of option @c ('f', RO_SORT, RO_WEIGHT), *@n of
 * them; NULL for another */
static const struct report_name *names_of(int c, size_t *n)
{
	*n = 0;
	switch (c) {
	case 'f':
		return report_fmt_names(n);
	case RO_SORT:
		return report_sort_names(n);
	case RO_WEIGHT:
		return report_weight_names(n);
	}
	return NULL;
}

void report_opts_usage(FILE *f, int c, const char *lead, const char *tail,
		       int detail)
{
	char list[1024], text[1536];
	size_t n;
	const struct report_name *t = names_of(c, &n);

	if (t)
		join(list, sizeof(list), t, n,
		     detail ? NAMES_HELP : NAMES_DEFAULT);
	else if (c == RO_COLUMNS) {
		col_list(list, sizeof(list));
	} else if (c == RO_BY) {
		by_list(list, sizeof(list), 1);
	} else {
		list[0] = '\0';
	}
	snprintf(text, sizeof(text), "%s%s%s", lead, list, tail);
	wrap(f, text);
}

int report_opts_words(FILE *f, int c)
{
	size_t n, i;
	const struct report_name *t = names_of(c, &n);

	switch (c) {
	case RO_COLUMNS:
		for (int k = 0; k < REPORT_NCOL; k++)
			fprintf(f, "%s\n", report_col_name(k));
		return 0;
	case RO_BY:
		for (i = 0; i < NBY; i++)
			fprintf(f, "%s\n", by_keys[i].name);
		return 0;
	case RO_JSON_TREE:
		for (i = 0; i < 2; i++)
			fprintf(f, "%s\n", json_trees[i]);
		return 0;
	}
	if (!t)
		return -ENOENT;
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", t[i].name);
	return 0;
}
