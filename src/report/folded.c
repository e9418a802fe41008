/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format folded: folded stacks ("a;b;c VALUE", one line per path), the
 * input of flamegraph.pl, inferno-flamegraph and speedscope.  A flame graph
 * draws a frame as wide as the sum of the lines under it, so the default
 * weights are exclusive: self time, or on/off-CPU time minus the children's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "iprof/report.h"
#include "iprof/report_fmt.h"

/* @a - @b, 0 when negative */
static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t offcpu(const struct agg_node *n)
{
	return n->runq_ns + n->blocked_ns;
}

uint64_t report_own_weight(const struct agg_node *n, enum report_weight w,
			   int keyed)
{
	uint64_t kids = 0;

	if (keyed && w != REPORT_WEIGHT_COUNT)
		return 0;
	switch (w) {
	case REPORT_WEIGHT_SELF:
		return n->self_ns;
	case REPORT_WEIGHT_TOTAL:
		return n->total_ns;
	case REPORT_WEIGHT_COUNT:
		return n->count + n->hits; /* counted only: calls too */
	case REPORT_WEIGHT_ONCPU:
		for (const struct agg_node *c = n->child; c; c = c->next)
			kids += c->oncpu_ns;
		return sub0(n->oncpu_ns, kids);
	case REPORT_WEIGHT_OFFCPU:
		for (const struct agg_node *c = n->child; c; c = c->next)
			kids += offcpu(c);
		return sub0(offcpu(n), kids);
	}
	return 0;
}

/* a name with ';', white space and control characters made '_' */
static void print_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		fputc(c == ';' || c <= ' ' || c == 0x7f ? '_' : c, f);
	}
}

/* the names from the top-level timer down to node @i, ';'-separated */
static void print_path(FILE *f, const struct report *r,
		       const struct report_view *v, size_t *chain, size_t i)
{
	size_t d = 0;
	char buf[REPORT_NAME_BUF];

	for (; i != SIZE_MAX; i = v->parent[i])
		chain[d++] = i;
	while (d-- > 0) {
		print_name(f, report_timer_name(r, v->nodes[chain[d]]->timer,
						buf, sizeof(buf)));
		if (d)
			fputc(';', f);
	}
}

static int folded_body(FILE *f, const struct report *r)
{
	uint64_t *val = NULL;
	size_t *chain = NULL, i, p, maxd = 0;
	struct report_view v;
	int err = 0;

	errno = 0;
	err = report_view_init(&v, r);
	if (err)
		return err;
	if (v.n) {
		val = calloc(v.n, sizeof(*val));
		for (i = 0; i < v.n; i++)
			if (v.nodes[i]->depth > maxd)
				maxd = v.nodes[i]->depth;
		chain = malloc(maxd * sizeof(*chain));
		if (!val || !chain) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < v.n; i++)
		val[i] = report_own_weight(v.nodes[i], r->weight,
				    report_keyed(r, v.nodes[i]->timer));
	/*
	 * A hidden node's exclusive value goes to its nearest shown ancestor
	 * (shown nodes' ancestors are shown): in reverse pre-order a node is
	 * done before its parent, so values climb one level at a time.
	 */
	if (r->weight != REPORT_WEIGHT_TOTAL) {
		for (i = v.n; i-- > 0;) {
			p = v.parent[i];
			if (!v.visible[i] && p != SIZE_MAX)
				val[p] += val[i];
		}
	}
	for (i = 0; i < v.n; i++) {
		if (!v.visible[i] || !val[i])
			continue;
		print_path(f, r, &v, chain, i);
		fprintf(f, " %" PRIu64 "\n", val[i]);
	}
out:
	free(val);
	free(chain);
	report_view_free(&v);
	if (err)
		return err;
	return report_finish(f);
}

int report_folded(FILE *f, const struct report *r)
{
	return report_utf8(f, folded_body, r);
}
