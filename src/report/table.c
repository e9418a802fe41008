/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The default report: an aligned tree with human units, siblings ordered by
 * --sort (total time by default), the columns of --columns, then the
 * summary (incomplete, not attached, 0 hits, orphans, losses).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "iprof/util.h"

/* lower-case name (--columns) and header of every column */
static const struct {
	const char *name, *head;
	int time; /* a time: "-" without completions */
} col[REPORT_NCOL] = {
	[REPORT_COL_COUNT] = {"count", "COUNT", 0},
	[REPORT_COL_TOTAL] = {"total", "TOTAL", 1},
	[REPORT_COL_SELF] = {"self", "SELF", 1},
	[REPORT_COL_WALL] = {"wall", "WALL", 1},
	[REPORT_COL_ONCPU] = {"oncpu", "ONCPU", 1},
	[REPORT_COL_OFFCPU] = {"offcpu", "OFFCPU", 1},
	[REPORT_COL_RUNQ] = {"runq", "RUNQ", 1},
	[REPORT_COL_BLOCKED] = {"blocked", "BLOCKED", 1},
	[REPORT_COL_MIN] = {"min", "MIN", 1},
	[REPORT_COL_AVG] = {"avg", "AVG", 1},
	[REPORT_COL_MAX] = {"max", "MAX", 1},
	[REPORT_COL_STDDEV] = {"stddev", "STDDEV", 1},
	[REPORT_COL_P50] = {"p50", "P50", 1},
	[REPORT_COL_P90] = {"p90", "P90", 1},
	[REPORT_COL_P99] = {"p99", "P99", 1},
	[REPORT_COL_P999] = {"p99.9", "P99.9", 1},
	[REPORT_COL_THREADS] = {"threads", "THREADS", 0},
	[REPORT_COL_EXITED] = {"exited", "EXITED", 0},
	[REPORT_COL_INCOMPL] = {"incompl", "INCOMPL", 0},
	[REPORT_COL_UNWOUND] = {"unwound", "UNWOUND", 0},
	[REPORT_COL_DISCARDED] = {"discarded", "DISCARD", 0},
	[REPORT_COL_AVGERR] = {"avgerr", "AVG+-", 1},
	[REPORT_COL_TOTALERR] = {"totalerr", "TOTAL+-", 1},
};

static const enum report_col default_cols[] = {
	REPORT_COL_COUNT,   REPORT_COL_TOTAL,	REPORT_COL_SELF,
	REPORT_COL_WALL,    REPORT_COL_ONCPU,	REPORT_COL_OFFCPU,
	REPORT_COL_MIN,	    REPORT_COL_AVG,	REPORT_COL_MAX,
	REPORT_COL_P50,	    REPORT_COL_P99,	REPORT_COL_THREADS,
	REPORT_COL_EXITED,  REPORT_COL_INCOMPL, REPORT_COL_UNWOUND,
};

#define NDEFAULT (sizeof(default_cols) / sizeof(default_cols[0]))

const char *report_col_name(enum report_col c)
{
	if ((unsigned int)c >= REPORT_NCOL)
		return NULL;
	return col[c].name;
}

static int add_col(enum report_col *cols, size_t max, size_t *n,
		   enum report_col c)
{
	for (size_t i = 0; i < *n; i++)
		if (cols[i] == c)
			return -EINVAL; /* repeated */
	if (*n >= max)
		return -EINVAL;
	cols[(*n)++] = c;
	return 0;
}

int report_parse_columns(const char *s, enum report_col *cols, size_t max,
			 size_t *n)
{
	const char *p, *e;
	size_t len, i, ndef = 0;
	int c;

	*n = 0;
	if (!s)
		return -EINVAL;
	if (*s == '+') {
		s++;
		for (i = 0; i < NDEFAULT; i++)
			if (add_col(cols, max, n, default_cols[i]))
				return -EINVAL;
		ndef = *n;
	}
	if (!*s)
		return -EINVAL;
	for (p = s;; p = e + 1) {
		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		for (c = 0; c < REPORT_NCOL; c++)
			if (strlen(col[c].name) == len &&
			    !strncmp(p, col[c].name, len))
				break;
		if (c == REPORT_NCOL)
			return -EINVAL;
		/* "+oncpu": a default column asked for again is there */
		for (i = 0; i < ndef && cols[i] != (enum report_col)c; i++)
			;
		if (i == ndef && add_col(cols, max, n, c))
			return -EINVAL;
		if (!e)
			return 0;
	}
}

#define CELL 24 /* "18446744073709551615" and any report_ns_str() fit */

static void fmt_u64(char *buf, uint64_t v)
{
	snprintf(buf, CELL, "%" PRIu64, v);
}

/*
 * Statistic @s of @n, @ns: "<res" where it is within its error bar of 0
 * (report_node_res(): one rule for TOTAL, SELF, MIN, AVG, MAX and the
 * percentiles, doc/report.md), else the time.
 */
static void fmt_stat(char *buf, const struct agg_node *n, enum report_stat s,
		     uint64_t ns)
{
	if (report_node_res(n) & (1u << s))
		strcpy(buf, "<res");
	else
		report_ns_str(buf, CELL, ns);
}

/*
 * A part of @n's total, @ns (on-CPU, off-CPU, runnable, blocked): "<res"
 * where the total is (a part of a time iprof cannot resolve is not
 * resolved either: newcomer trial 5, a TOTAL "<res" beside ONCPU 52.1ms
 * of a 2.71 ms call), else the time.
 */
static void fmt_part(char *buf, const struct agg_node *n, uint64_t ns)
{
	fmt_stat(buf, n, REPORT_STAT_TOTAL, ns);
}

static void fmt_q(char *buf, const struct agg_node *n, enum report_stat s,
		  double q)
{
	if (!n->hist) {
		strcpy(buf, "-");
		return;
	}
	fmt_stat(buf, n, s,
		 hist_quantile(n->hist, n->count, q, n->min_ns, n->max_ns));
}

/*
 * A --by root's cell (a thread, process or command name: a key, not a
 * timer): COUNT the calls at its top level (its children's COUNT), every
 * other column "-" (doc/report.md).
 */
static void key_cell(char *buf, const struct agg_node *n, enum report_col c)
{
	const struct agg_node *k;
	uint64_t sum = 0;

	if (c != REPORT_COL_COUNT) {
		strcpy(buf, "-");
		return;
	}
	for (k = n->child; k; k = k->next)
		sum += k->count + k->hits;
	fmt_u64(buf, sum);
}

/* Levels of the tree indented in full in NAME; a deeper row keeps that
 * indent and says its depth: "[31] f" (a deep recursion padded every
 * name to hundreds of columns) */
#define INDENT_LEVELS 16

/* the indent of a row at @depth (1: a root), and its name with "[D] " in
 * front past INDENT_LEVELS into @buf (@len bytes); returns the name */
static const char *row_name(uint32_t depth, const char *name, int *indent,
			    char *buf, size_t len)
{
	if (depth <= INDENT_LEVELS) {
		*indent = (int)(2 * (depth - 1));
		return name;
	}
	*indent = 2 * INDENT_LEVELS;
	snprintf(buf, len, "[%u] %s", depth, name);
	return buf;
}

/* one cell of a node; time columns are "-" without completions (a timer
 * whose return is not seen has none: counted only), and the
 * on/off-CPU ones of a keyed span (@keyed: no one thread's time) */
static void fill_cell(char *buf, const struct agg_node *n, enum report_col c,
		      int keyed)
{
	struct report_err e;

	if ((col[c].time && !n->count) ||
	    (keyed && (c == REPORT_COL_ONCPU || c == REPORT_COL_OFFCPU ||
		       c == REPORT_COL_RUNQ || c == REPORT_COL_BLOCKED))) {
		strcpy(buf, "-");
		return;
	}
	switch (c) {
	case REPORT_COL_COUNT:
		/* with the calls whose return is not seen (untimed) */
		fmt_u64(buf, n->count + n->hits);
		break;
	case REPORT_COL_TOTAL:
		fmt_stat(buf, n, REPORT_STAT_TOTAL, n->total_ns);
		break;
	case REPORT_COL_SELF:
		fmt_stat(buf, n, REPORT_STAT_SELF, n->self_ns);
		break;
	case REPORT_COL_WALL:
		report_ns_str(buf, CELL, n->last_stop_ns - n->first_start_ns);
		break;
	case REPORT_COL_ONCPU:
		fmt_part(buf, n, n->oncpu_ns);
		break;
	case REPORT_COL_OFFCPU:
		fmt_part(buf, n, n->runq_ns + n->blocked_ns);
		break;
	case REPORT_COL_RUNQ:
		fmt_part(buf, n, n->runq_ns);
		break;
	case REPORT_COL_BLOCKED:
		fmt_part(buf, n, n->blocked_ns);
		break;
	case REPORT_COL_MIN:
		fmt_stat(buf, n, REPORT_STAT_MIN, n->min_ns);
		break;
	case REPORT_COL_AVG:
		/* within its error bar of 0: no number (report_node_err()) */
		fmt_stat(buf, n, REPORT_STAT_AVG, n->total_ns / n->count);
		break;
	case REPORT_COL_AVGERR:
	case REPORT_COL_TOTALERR:
		if (!report_node_err(n, &e))
			strcpy(buf, "-");
		else
			report_ns_str(buf, CELL, c == REPORT_COL_AVGERR ?
							 e.avg_ns :
							 e.total_ns);
		break;
	case REPORT_COL_MAX:
		fmt_stat(buf, n, REPORT_STAT_MAX, n->max_ns);
		break;
	case REPORT_COL_STDDEV:
		report_ns_str(buf, CELL, report_stddev_ns(n));
		break;
	case REPORT_COL_P50:
		fmt_q(buf, n, REPORT_STAT_P50, 0.50);
		break;
	case REPORT_COL_P90:
		fmt_q(buf, n, REPORT_STAT_P90, 0.90);
		break;
	case REPORT_COL_P99:
		fmt_q(buf, n, REPORT_STAT_P99, 0.99);
		break;
	case REPORT_COL_P999:
		fmt_q(buf, n, REPORT_STAT_P999, 0.999);
		break;
	case REPORT_COL_THREADS:
		fmt_u64(buf, n->threads);
		break;
	case REPORT_COL_EXITED:
		fmt_u64(buf, n->exited);
		break;
	case REPORT_COL_INCOMPL:
		fmt_u64(buf, n->incomplete);
		break;
	case REPORT_COL_UNWOUND:
		fmt_u64(buf, n->unwound);
		break;
	case REPORT_COL_DISCARDED:
		fmt_u64(buf, n->discarded);
		break;
	default:
		strcpy(buf, "?");
		break;
	}
}

/* "hidden: N paths (--min-total T, --max-depth D)" when nodes are hidden */
static void print_hidden(FILE *f, const struct report *r,
			 const struct report_view *v)
{
	char buf[32];

	if (v->nvisible == v->n)
		return;
	fprintf(f, "hidden: %zu of %zu paths (", v->n - v->nvisible, v->n);
	if (r->min_total_ns)
		fprintf(f, "--min-total %s%s",
			report_ns_str(buf, sizeof(buf), r->min_total_ns),
			r->max_depth ? ", " : "");
	if (r->max_depth)
		fprintf(f, "--max-depth %" PRIu32, r->max_depth);
	fputs(")\n", f);
}

/*
 * The columns a table on a terminal leaves out first to fit r->width,
 * in order: ones whose every cell is 0 of the loss counters, then the
 * least read.  COUNT, TOTAL, SELF and AVG always stay.
 */
static const enum report_col drop_zero[] = {
	REPORT_COL_UNWOUND, REPORT_COL_INCOMPL, REPORT_COL_EXITED,
};
static const enum report_col drop_order[] = {
	REPORT_COL_P50,	    REPORT_COL_WALL,	REPORT_COL_MIN,
	REPORT_COL_THREADS, REPORT_COL_P99,	REPORT_COL_MAX,
	REPORT_COL_UNWOUND, REPORT_COL_INCOMPL, REPORT_COL_EXITED,
	REPORT_COL_OFFCPU,  REPORT_COL_ONCPU,
};

#define FIT_NAME 40 /* names are cut to this before a column is left out */
#define FIT_NAME_MIN 16 /* and never below this */

struct fit {
	size_t namew; /* the NAME column's width (names cut to it) */
	unsigned char shown[REPORT_NCOL]; /* per column index: printed */
	int cut; /* names were cut */
};

static size_t fit_width(const struct fit *ft, size_t namew, const size_t *w,
			size_t ncols)
{
	size_t c, t = namew;

	for (c = 0; c < ncols; c++)
		t += ft->shown[c] ? 2 + w[c] : 0;
	return t;
}

/* leave out column @which if shown (and, with @zero, only if every one of
 * the @nrows cells is "0"), while the table is wider than r->width */
static void fit_drop(const struct report *r, struct fit *ft,
		     const enum report_col *cols, size_t ncols,
		     const size_t *w, char (*cells)[CELL], size_t nrows,
		     enum report_col which, int zero)
{
	size_t c, i;

	if (fit_width(ft, ft->namew < FIT_NAME ? ft->namew : FIT_NAME, w,
		      ncols) <= r->width)
		return;
	for (c = 0; c < ncols && cols[c] != which; c++)
		;
	if (c == ncols || !ft->shown[c])
		return;
	for (i = 0; zero && i < nrows; i++)
		if (strcmp(cells[i * ncols + c], "0"))
			return;
	ft->shown[c] = 0;
}

/* which columns a table of r->width columns keeps, and its names' width */
static void fit_table(const struct report *r, struct fit *ft,
		      const enum report_col *cols, size_t ncols,
		      const size_t *w, char (*cells)[CELL], size_t nrows)
{
	size_t i, rest;

	memset(ft->shown, 1, sizeof(ft->shown));
	ft->cut = 0;
	if (!r->width || r->columns)
		return;
	for (i = 0; i < sizeof(drop_zero) / sizeof(drop_zero[0]); i++)
		fit_drop(r, ft, cols, ncols, w, cells, nrows, drop_zero[i], 1);
	for (i = 0; i < sizeof(drop_order) / sizeof(drop_order[0]); i++)
		fit_drop(r, ft, cols, ncols, w, cells, nrows, drop_order[i], 0);
	rest = fit_width(ft, 0, w, ncols);
	if (rest + ft->namew <= r->width)
		return;
	rest = r->width > rest + FIT_NAME_MIN ? r->width - rest : FIT_NAME_MIN;
	if (rest < ft->namew) {
		ft->namew = rest;
		ft->cut = 1;
	}
}

/* below the table: what fit_table() left out */
/*
 * row_notes() - lines under node @n's row, indented @indent + 2: its calls
 * per stop where its span has several ("(stops: 10 at usdt:P:commit, 2 at
 * usdt:P:abort)"), and the stops that named another call and paired with
 * nothing ("(3 stops of another name, not paired)")
 */
static void row_notes(FILE *f, const struct report *r,
		      const struct agg_node *n, int indent)
{
	char names[AGG_MAX_STOPS][REPORT_STOP_BUF];
	int k, ns;

	ns = report_span_stops(r, agg__base_timer(r->agg, n->timer), names,
			       AGG_MAX_STOPS);
	if (ns && n->count) {
		fprintf(f, "%*s(stops:", indent + 2, "");
		for (k = 0; k < ns; k++)
			fprintf(f, "%s %" PRIu64 " at %s", k ? "," : "",
				n->stops[k], names[k]);
		fputs(")\n", f);
	}
	if (n->name_mismatch)
		fprintf(f, "%*s(%" PRIu64 " stop%s of another name, not paired)\n",
			indent + 2, "", n->name_mismatch,
			n->name_mismatch == 1 ? "" : "s");
}

static void fit_note(FILE *f, const struct report *r, const struct fit *ft,
		     const enum report_col *cols, size_t ncols)
{
	size_t c, n = 0;

	for (c = 0; c < ncols; c++)
		n += !ft->shown[c];
	if (!n && !ft->cut)
		return;
	fprintf(f, "to fit %u columns:", r->width);
	for (c = 0, n = 0; c < ncols; c++)
		if (!ft->shown[c])
			fprintf(f, "%s%s", n++ ? ", " : " left out ",
				col[cols[c]].name);
	fprintf(f, "%s (--columns chooses the columns; -f json has every name whole)\n",
		ft->cut ? n ? "; names cut in the middle" :
			      " names cut in the middle" : "");
}

static int table_body(FILE *f, const struct report *r)
{
	const enum report_col *cols = default_cols;
	size_t ncols = NDEFAULT, namew = strlen("NAME"), w[REPORT_NCOL], len;
	size_t i, j, k, c;
	struct report_view v;
	char(*cells)[CELL] = NULL;
	const char *name;
	char buf[REPORT_NAME_BUF], cut[512], deep[REPORT_NAME_BUF + 16];
	struct fit ft;
	int err, mark, indent;

	if (r->columns && r->ncolumns) {
		if (r->ncolumns > REPORT_NCOL)
			return -EINVAL;
		for (c = 0; c < r->ncolumns; c++)
			if ((unsigned int)r->columns[c] >= REPORT_NCOL)
				return -EINVAL;
		cols = r->columns;
		ncols = r->ncolumns;
	}
	errno = 0;
	err = report_view_init(&v, r);
	if (err)
		return err;
	if (v.nvisible) {
		cells = malloc(v.nvisible * ncols * sizeof(*cells));
		if (!cells) {
			err = -ENOMEM;
			goto out;
		}
	}

	for (c = 0; c < ncols; c++)
		w[c] = strlen(col[cols[c]].head);
	for (i = 0, k = 0; i < v.n; i++) {
		if (!v.visible[i])
			continue;
		name = report_timer_name(r, v.nodes[i]->timer, buf,
					 sizeof(buf));
		name = row_name(v.nodes[i]->depth, name, &indent, deep,
				sizeof(deep));
		len = (size_t)indent + util_utf8_width(name) +
		      (size_t)report_tail_mark(r, v.nodes[i]->timer);
		if (len > namew)
			namew = len;
		for (c = 0; c < ncols; c++, k++) {
			if (v.nodes[i]->depth == 1 &&
			    AGG_TIMER_IS_SPLIT(v.nodes[i]->timer))
				key_cell(cells[k], v.nodes[i], cols[c]);
			else
				fill_cell(cells[k], v.nodes[i], cols[c],
					  report_keyed(r, v.nodes[i]->timer));
			len = strlen(cells[k]);
			if (len > w[c])
				w[c] = len;
		}
	}

	ft.namew = namew;
	fit_table(r, &ft, cols, ncols, w, cells, v.nvisible);
	namew = ft.namew;
	fprintf(f, "%-*s", (int)namew, "NAME");
	for (c = 0; c < ncols; c++)
		if (ft.shown[c])
			fprintf(f, "  %*s", (int)w[c], col[cols[c]].head);
	fputc('\n', f);
	for (i = 0, j = 0; i < v.n; i++) {
		if (!v.visible[i])
			continue;
		name = report_timer_name(r, v.nodes[i]->timer, buf,
					 sizeof(buf));
		name = row_name(v.nodes[i]->depth, name, &indent, deep,
				sizeof(deep));
		/* a tail-calling timer: NAME*, its footnote after the table
		 * (report_tail_note()) */
		mark = report_tail_mark(r, v.nodes[i]->timer);
		if (ft.cut && (size_t)indent + util_utf8_width(name) + !!mark > namew)
			name = util_utf8_cut_middle(
				name,
				namew > (size_t)indent + !!mark + 4 ?
					namew - (size_t)indent - !!mark : 4,
				cut, sizeof(cut));
		fprintf(f, "%*s%s%-*s", indent, "", name, (int)namew - indent -
			(int)util_utf8_width(name), mark ? "*" : "");
		for (c = 0; c < ncols; c++, j++)
			if (ft.shown[c])
				fprintf(f, "  %*s", (int)w[c], cells[j]);
		fputc('\n', f);
		row_notes(f, r, v.nodes[i], indent);
	}

	fputc('\n', f);
	if (r->duration_ns)
		fprintf(f, "traced for %s\n",
			report_ns_str(buf, sizeof(buf), r->duration_ns));
	print_hidden(f, r, &v);
	fit_note(f, r, &ft, cols, ncols);
	report_slowest_table(f, r, &v);
	report_offcpu_table(f, r, &v);
	err = report_summary(f, r, 0);
out:
	free(cells);
	report_view_free(&v);
	if (err)
		return err;
	return report_finish(f);
}

int report_table(FILE *f, const struct report *r)
{
	return report_utf8(f, table_body, r);
}
