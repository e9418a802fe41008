/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format svg: a flame graph of the tree as one self-contained SVG file
 * (no script, no font or style sheet to fetch), for a browser: each shown
 * path a frame as wide as its subtree's weight (--weight, the folded
 * format's exclusive values summed up the tree, so that the frames' widths
 * are those flamegraph.pl draws from `-f folded`), the top-level timers at
 * the bottom, children in --sort order from the left; each frame's
 * tooltip (<title>) gives its count, total, self, on-CPU and off-CPU time.
 * Each frame's <g> carries its path and weight (data-path, data-value:
 * tests/e2e/test_svg.sh checks the widths against the folded output).
 * The layout follows flamegraph.pl's (Brendan Gregg, FlameGraph): 1200 px
 * wide, 16 px frames, frames under 0.1 px left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/report.h"
#include "iprof/report_fmt.h"

#define SVG_WIDTH 1200.0 /* px */
#define SVG_PAD 10.0	 /* px on each side */
#define SVG_FRAME 16	 /* px: a frame's height, 1 px between frames */
#define SVG_HEAD 40	 /* px above the frames: the title */
#define SVG_CHAR 7.0	 /* px: a 12 px Verdana character, about */
#define SVG_MIN 0.1	 /* px: narrower frames are not drawn */

/* --weight's name ("self", "oncpu", ...): report_weight_names() */
static const char *weight_name(enum report_weight w)
{
	size_t n;
	const struct report_name *t = report_weight_names(&n);

	return (size_t)w < n ? t[w].name : "?";
}

/* @s with XML's five special characters escaped, control bytes as '?' */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&apos;", f);
		else
			fputc(c < ' ' || c == 0x7f ? '?' : c, f);
	}
}

/* The names from the top-level timer down to node @i, ';'-separated as
 * in the folded format (@chain: room for the depth) */
static void xml_path(FILE *f, const struct report *r,
		     const struct report_view *v, size_t *chain, size_t i)
{
	char buf[REPORT_NAME_BUF];
	size_t d = 0;

	for (; i != SIZE_MAX; i = v->parent[i])
		chain[d++] = i;
	while (d-- > 0) {
		xml_text(f, report_timer_name(r, v->nodes[chain[d]]->timer, buf,
					      sizeof(buf)));
		if (d)
			fputc(';', f);
	}
}

/* flamegraph.pl's "hot" colours, from a hash of the name: the same name
 * the same colour in every graph */
static void frame_colour(const char *name, unsigned int rgb[3])
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	rgb[0] = 205 + h % 50;
	rgb[1] = (h >> 8) % 230;
	rgb[2] = (h >> 16) % 55;
}

/* The label of a frame @w px wide: the name, cut with ".." to fit */
static void frame_label(FILE *f, const char *name, double w)
{
	size_t fit = w > 3 * SVG_CHAR ? (size_t)(w / SVG_CHAR) : 0;
	char buf[256];

	if (!fit)
		return;
	if (strlen(name) <= fit) {
		xml_text(f, name);
		return;
	}
	if (fit < 3)
		return;
	snprintf(buf, sizeof(buf), "%.*s..", (int)(fit - 2), name);
	xml_text(f, buf);
}

/* One frame: node @i at @x px, depth @d of @maxd, @val its weight */
static void frame(FILE *f, const struct report *r, const struct report_view *v,
		  size_t *chain, size_t i, double x, double w, size_t d,
		  size_t maxd, uint64_t val, uint64_t all)
{
	const struct agg_node *n = v->nodes[i];
	char name[REPORT_NAME_BUF], t[5][32];
	const char *nm = report_timer_name(r, n->timer, name, sizeof(name));
	double y = SVG_HEAD + (double)(maxd - d) * (SVG_FRAME + 1);
	unsigned int rgb[3];

	frame_colour(nm, rgb);
	fputs("<g class=\"f\" data-path=\"", f);
	xml_path(f, r, v, chain, i);
	fprintf(f, "\" data-value=\"%" PRIu64 "\"><title>", val);
	xml_text(f, nm);
	report_ns_str(t[0], sizeof(t[0]), n->total_ns);
	report_ns_str(t[1], sizeof(t[1]), n->self_ns);
	report_ns_str(t[2], sizeof(t[2]), n->oncpu_ns);
	report_ns_str(t[3], sizeof(t[3]), n->runq_ns + n->blocked_ns);
	fprintf(f,
		": %" PRIu64 " call%s, total %s, self %s, on-CPU %s, "
		"off-CPU %s (%.2f%% of the graph's %s)</title>",
		n->count + n->hits, n->count + n->hits == 1 ? "" : "s", t[0],
		t[1], t[2], t[3],
		all ? 100.0 * (double)val / (double)all : 0.0,
		weight_name(r->weight));
	fprintf(f,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\"/>",
		x, y, w, SVG_FRAME, rgb[0], rgb[1], rgb[2]);
	fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 12);
	frame_label(f, nm, w - 6);
	fputs("</text></g>\n", f);
}

/*
 * Each node's weight into @val: its own (report_own_weight()) summed over
 * its whole subtree, as flamegraph.pl sums the folded lines under a frame
 * (a hidden node's value is in its nearest shown ancestor's line there);
 * --weight total takes the node's own total, or its children's sum where
 * that is more.  Returns the sum over the shown top-level nodes.
 */
static uint64_t weights(const struct report *r, const struct report_view *v,
			uint64_t *val)
{
	int total = r->weight == REPORT_WEIGHT_TOTAL;
	uint64_t own, all = 0;
	size_t i, p;

	for (i = 0; i < v->n; i++)
		val[i] = 0;
	/* reverse pre-order: a node's children are done before it */
	for (i = v->n; i-- > 0;) {
		own = report_own_weight(v->nodes[i], r->weight,
					report_keyed(r, v->nodes[i]->timer));
		val[i] = total ? (own > val[i] ? own : val[i]) : val[i] + own;
		p = v->parent[i];
		if (p != SIZE_MAX)
			val[p] += val[i];
		else if (v->visible[i])
			all += val[i];
	}
	return all;
}

static int svg_body(FILE *f, const struct report *r)
{
	uint64_t *val = NULL, all;
	size_t *chain = NULL, i, p, maxd = 0;
	double *x = NULL, *next = NULL, scale, root_x = SVG_PAD;
	struct report_view v;
	int err;

	err = report_view_init(&v, r);
	if (err)
		return err;
	val = calloc(v.n + 1, sizeof(*val));
	x = calloc(v.n + 1, sizeof(*x));
	next = calloc(v.n + 1, sizeof(*next));
	for (i = 0; i < v.n; i++)
		if (v.visible[i] && v.nodes[i]->depth > maxd)
			maxd = v.nodes[i]->depth;
	chain = calloc(maxd + 2, sizeof(*chain));
	if (!val || !x || !next || !chain) {
		err = -ENOMEM;
		goto out;
	}
	all = weights(r, &v, val);
	scale = all ? (SVG_WIDTH - 2 * SVG_PAD) / (double)all : 0;
	fprintf(f,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%.0f\" height=\"%zu\" viewBox=\"0 0 %.0f %zu\" "
		"font-family=\"Verdana, sans-serif\" font-size=\"12\" "
		"data-scale=\"%.9g\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdf6\"/>\n"
		"<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" "
		"font-size=\"17\">iprof flame graph (%s)</text>\n",
		SVG_WIDTH, SVG_HEAD + (maxd + 1) * (SVG_FRAME + 1) + 10,
		SVG_WIDTH, SVG_HEAD + (maxd + 1) * (SVG_FRAME + 1) + 10, scale,
		SVG_WIDTH / 2, weight_name(r->weight));
	/* pre-order: a node after its parent, siblings left to right */
	for (i = 0; i < v.n; i++) {
		p = v.parent[i];
		if (!v.visible[i] || !val[i])
			continue;
		x[i] = p == SIZE_MAX ? root_x : next[p];
		next[i] = x[i];
		if (p == SIZE_MAX)
			root_x += (double)val[i] * scale;
		else
			next[p] += (double)val[i] * scale;
		if ((double)val[i] * scale < SVG_MIN)
			continue;
		frame(f, r, &v, chain, i, x[i], (double)val[i] * scale,
		      v.nodes[i]->depth, maxd, val[i], all);
	}
	fputs("</svg>\n", f);
out:
	free(val);
	free(x);
	free(next);
	free(chain);
	report_view_free(&v);
	if (err)
		return err;
	return report_finish(f);
}

int report_svg(FILE *f, const struct report *r)
{
	return report_utf8(f, svg_body, r);
}
