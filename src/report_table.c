/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The default report: an aligned tree, children sorted by total time, with
 * human units, then the summary (incomplete, not attached, 0 hits, orphans,
 * losses).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/report.h"

enum col {
	COL_COUNT,
	COL_TOTAL,
	COL_SELF,
	COL_WALL,
	COL_MIN,
	COL_AVG,
	COL_MAX,
	COL_P50,
	COL_P99,
	COL_THREADS,
	COL_INCOMPL,
	COL_UNWOUND,
	NCOL,
};

static const char *const col_name[NCOL] = {
	[COL_COUNT] = "COUNT",	   [COL_TOTAL] = "TOTAL",
	[COL_SELF] = "SELF",	   [COL_WALL] = "WALL",
	[COL_MIN] = "MIN",	   [COL_AVG] = "AVG",
	[COL_MAX] = "MAX",	   [COL_P50] = "P50",
	[COL_P99] = "P99",	   [COL_THREADS] = "THREADS",
	[COL_INCOMPL] = "INCOMPL", [COL_UNWOUND] = "UNWOUND",
};

#define CELL 24 /* "18446744073709551615" and any report_fmt_ns() fit */

typedef char row_t[NCOL][CELL];

static void fmt_u64(char *buf, uint64_t v)
{
	snprintf(buf, CELL, "%" PRIu64, v);
}

/* fill the cells of one node; time columns are "-" without completions */
static void fill_row(row_t row, const struct agg_node *n)
{
	uint64_t q;

	fmt_u64(row[COL_COUNT], n->count);
	fmt_u64(row[COL_THREADS], n->threads);
	fmt_u64(row[COL_INCOMPL], n->incomplete);
	fmt_u64(row[COL_UNWOUND], n->unwound);
	if (!n->count) {
		for (int c = COL_TOTAL; c <= COL_P99; c++)
			strcpy(row[c], "-");
		return;
	}
	report_fmt_ns(row[COL_TOTAL], CELL, n->total_ns);
	report_fmt_ns(row[COL_SELF], CELL, n->self_ns);
	report_fmt_ns(row[COL_WALL], CELL, n->last_stop_ns - n->first_start_ns);
	report_fmt_ns(row[COL_MIN], CELL, n->min_ns);
	report_fmt_ns(row[COL_AVG], CELL, n->total_ns / n->count);
	report_fmt_ns(row[COL_MAX], CELL, n->max_ns);
	if (n->hist) {
		q = hist_quantile(n->hist, n->count, 0.50, n->min_ns,
				  n->max_ns);
		report_fmt_ns(row[COL_P50], CELL, q);
		q = hist_quantile(n->hist, n->count, 0.99, n->min_ns,
				  n->max_ns);
		report_fmt_ns(row[COL_P99], CELL, q);
	} else {
		strcpy(row[COL_P50], "-");
		strcpy(row[COL_P99], "-");
	}
}

int report_table(FILE *f, const struct report *r)
{
	const struct agg_node **nodes;
	size_t n, i, namew = strlen("NAME"), w[NCOL], len;
	row_t *rows = NULL;
	char buf[16];
	const char *name;
	int err, c;

	errno = 0;
	err = report_nodes(r->agg, 1, &nodes, &n);
	if (err)
		return err;
	if (n) {
		rows = malloc(n * sizeof(*rows));
		if (!rows) {
			err = -ENOMEM;
			goto out;
		}
	}

	for (c = 0; c < NCOL; c++)
		w[c] = strlen(col_name[c]);
	for (i = 0; i < n; i++) {
		name = report_timer_name(r, nodes[i]->timer, buf, sizeof(buf));
		len = 2 * (size_t)(nodes[i]->depth - 1) + strlen(name);
		if (len > namew)
			namew = len;
		fill_row(rows[i], nodes[i]);
		for (c = 0; c < NCOL; c++) {
			len = strlen(rows[i][c]);
			if (len > w[c])
				w[c] = len;
		}
	}

	fprintf(f, "%-*s", (int)namew, "NAME");
	for (c = 0; c < NCOL; c++)
		fprintf(f, "  %*s", (int)w[c], col_name[c]);
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		int indent = (int)(2 * (nodes[i]->depth - 1));

		name = report_timer_name(r, nodes[i]->timer, buf, sizeof(buf));
		fprintf(f, "%*s%-*s", indent, "", (int)namew - indent, name);
		for (c = 0; c < NCOL; c++)
			fprintf(f, "  %*s", (int)w[c], rows[i][c]);
		fputc('\n', f);
	}

	fputc('\n', f);
	if (r->duration_ns)
		fprintf(f, "traced for %s\n",
			report_fmt_ns(buf, sizeof(buf), r->duration_ns));
	err = report_summary(f, r, 0);
out:
	free(rows);
	free(nodes);
	if (err)
		return err;
	return report_finish(f);
}
