/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the reporters: unit formatting, tree walks, the
 * summary and loss lines.  Nothing here changes the tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/mech.h"
#include "iprof/report.h"
#include "iprof/util.h"

char *report_ns_str(char *buf, size_t len, uint64_t ns)
{
	static const char *const unit[] = {"us", "ms", "s"};
	double v = (double)ns;
	unsigned int u;

	if (!buf || !len)
		return buf;
	if (ns < 1000) {
		snprintf(buf, len, "%" PRIu64 "ns", ns);
		return buf;
	}
	/*
	 * 3 significant digits; a value that rounds up to 1000 of a unit is
	 * shown in the next one (999999ns is "1.00ms", not "1000us").
	 */
	for (u = 0; u < 3; u++) {
		v /= 1000.0;
		if (v < 9.995) {
			snprintf(buf, len, "%.2f%s", v, unit[u]);
			return buf;
		}
		if (v < 99.95) {
			snprintf(buf, len, "%.1f%s", v, unit[u]);
			return buf;
		}
		if (v < 999.5 || u == 2) {
			snprintf(buf, len, "%.0f%s", v, unit[u]);
			return buf;
		}
	}
	return buf; /* not reached */
}

uint64_t report_stddev_ns(const struct agg_node *n)
{
	double v;

	if (!n->count || !(n->m2_ns > 0.0)) /* rounding may leave m2 < 0 */
		return 0;
	v = sqrt(n->m2_ns / (double)n->count);
	if (v >= 18446744073709549568.0) /* largest double below 2^64 */
		return UINT64_MAX;
	return (uint64_t)(v + 0.5);
}

/* ceil() of a non-negative error, into 64 bits */
static uint64_t err_ns(double v)
{
	if (!(v > 0.0))
		return 0;
	if (v >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)ceil(v);
}

int report_node_err(const struct agg_node *n, struct report_err *e)
{
	double tot, self, se, rq;

	memset(e, 0, sizeof(*e));
	if (!n->count || (!(n->err_var_ns2 > 0.0) && !(n->err_sys_ns > 0.0)))
		return 0;
	tot = sqrt(n->err_var_ns2) + n->err_sys_ns + (double)n->clamped_ns;
	self = sqrt(n->self_err_var_ns2 > 0.0 ? n->self_err_var_ns2 : 0.0) +
	       n->self_err_sys_ns + (double)n->clamped_ns;
	/* the runnable time kept: where the scheduler put preemptions,
	 * which the probes move (a trap's way back to user mode is where a
	 * tick's preemption happens), a guess of what the program alone
	 * would have waited there */
	rq = (double)n->runq_ns;
	e->total_ns = err_ns(tot + rq);
	e->total_comp_ns = err_ns(tot);
	e->self_ns = err_ns(self);
	e->avg_comp_ns = err_ns(tot / (double)n->count);
	/* the mean of a sample of calls: its standard error */
	se = n->count > 1 && n->m2_ns > 0 ?
		     sqrt(n->m2_ns / (double)(n->count - 1) /
			  (double)n->count) :
		     0.0;
	e->se_ns = err_ns(se);
	e->avg_ns = err_ns((tot + rq) / (double)n->count + se);
	e->drift_ns = err_ns(n->err_sys_ns / (double)n->count);
	e->below_res = n->total_ns / n->count < e->avg_comp_ns;
	return 1;
}

static const struct {
	const char *key;
	double q; /* a percentile's quantile; 0 for the others */
} stat_tab[REPORT_NSTAT] = {
	[REPORT_STAT_TOTAL] = {"total_ns", 0},
	[REPORT_STAT_SELF] = {"self_ns", 0},
	[REPORT_STAT_MIN] = {"min_ns", 0},
	[REPORT_STAT_AVG] = {"avg_ns", 0},
	[REPORT_STAT_MAX] = {"max_ns", 0},
	[REPORT_STAT_P50] = {"p50_ns", 0.50},
	[REPORT_STAT_P90] = {"p90_ns", 0.90},
	[REPORT_STAT_P99] = {"p99_ns", 0.99},
	[REPORT_STAT_P999] = {"p999_ns", 0.999},
};

const char *report_stat_key(enum report_stat s)
{
	return (unsigned int)s < REPORT_NSTAT ? stat_tab[s].key : NULL;
}

/* the totals of @n's children that are resolved (shown as numbers: no
 * error bars, or above theirs), summed: what @n's own total holds at least
 * (newcomer trial 6: EVP_DigestUpdate "<res" above its SHA256_Update
 * 3.16ms, 611 calls each) */
static uint64_t resolved_children(const struct agg_node *n)
{
	const struct agg_node *k;
	struct report_err e;
	uint64_t sum = 0;

	for (k = n->child; k; k = k->next)
		if (!report_node_err(k, &e) || k->total_ns >= e.total_comp_ns)
			sum += k->total_ns;
	return sum;
}

uint32_t report_node_res(const struct agg_node *n)
{
	struct report_err e;
	uint64_t v[REPORT_NSTAT], lb;
	uint32_t m = 0;
	int s;

	if (!report_node_err(n, &e))
		return 0;
	v[REPORT_STAT_TOTAL] = n->total_ns;
	v[REPORT_STAT_SELF] = n->self_ns;
	v[REPORT_STAT_MIN] = n->min_ns;
	v[REPORT_STAT_AVG] = n->total_ns / n->count;
	v[REPORT_STAT_MAX] = n->max_ns;
	for (s = 0; s < REPORT_NSTAT; s++) {
		uint64_t err = s == REPORT_STAT_TOTAL  ? e.total_comp_ns
			       : s == REPORT_STAT_SELF ? e.self_ns
						       : e.avg_comp_ns;

		if (stat_tab[s].q > 0) {
			if (!n->hist)
				continue;
			v[s] = hist_quantile(n->hist, n->count, stat_tab[s].q,
					     n->min_ns, n->max_ns);
		}
		if (v[s] < err)
			m |= 1u << s;
	}
	/* a total (an average) that holds resolved children's is known to
	 * be more than 0: a number, whatever its own bar (which holds the
	 * children's probes too) */
	lb = resolved_children(n);
	if (lb)
		m &= ~(1u << REPORT_STAT_TOTAL | 1u << REPORT_STAT_AVG);
	/* and one that holds a resolved call: at least its max (newcomer
	 * trial 7: PyObject_Str's TOTAL <res beside MAX 580 us) */
	if (!(m & 1u << REPORT_STAT_MAX))
		m &= ~(1u << REPORT_STAT_TOTAL);
	return m;
}

const struct agg_node *report_next(const struct agg_node *n)
{
	if (n->child)
		return n->child;
	for (; n; n = n->parent) {
		if (n->next)
			return n->next;
	}
	return NULL;
}

struct kid {
	const struct agg_node *n;
	/* the node's own figures; a node that holds no calls of its own
	 * (a --by root, [other]'s holder) weighs what its children hold */
	uint64_t total_ns, self_ns, count;
	size_t seq;	  /* first-seen position among its siblings */
	const char *name; /* REPORT_SORT_NAME only */
	char buf[REPORT_NAME_BUF];	  /* name when the timer has none */
};

static int kid_cmp_seq(const struct kid *a, const struct kid *b)
{
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* descending @a, @b; ties in first-seen order */
#define KID_CMP_DESC(field)                                                    \
	static int kid_cmp_##field(const void *pa, const void *pb)             \
	{                                                                      \
		const struct kid *a = pa, *b = pb;                             \
                                                                               \
		if (a->field != b->field)                                      \
			return a->field > b->field ? -1 : 1;                   \
		return kid_cmp_seq(a, b);                                      \
	}

KID_CMP_DESC(total_ns)
KID_CMP_DESC(self_ns)
KID_CMP_DESC(count)

static int kid_cmp_name(const void *pa, const void *pb)
{
	const struct kid *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : kid_cmp_seq(a, b);
}

struct slot {
	const struct agg_node *n;
	size_t parent; /* index in the output of its parent, SIZE_MAX: root */
};

/*
 * walk() - the pre-order walk behind report_nodes() and report_view_init():
 * *@nodes and (when @parent) *@parent are malloc'ed arrays of *@n entries.
 * @r names the timers for REPORT_SORT_NAME (may be NULL otherwise).
 */
static int walk(const struct agg *a, const struct report *r,
		enum report_sort sort, const struct agg_node ***nodes,
		size_t **parent, size_t *n)
{
	int (*cmp)(const void *, const void *) = NULL;
	size_t max = agg__stats(a)->nodes, cnt = 0, sp = 0, nk, i;
	size_t *par = NULL, cur = SIZE_MAX;
	const struct agg_node **out = NULL, *c;
	struct slot *stack = NULL;
	struct kid *kids = NULL;

	*nodes = NULL;
	if (parent)
		*parent = NULL;
	*n = 0;
	if (!max)
		return 0;
	switch (sort) {
	case REPORT_SORT_TOTAL:
		cmp = kid_cmp_total_ns;
		break;
	case REPORT_SORT_SELF:
		cmp = kid_cmp_self_ns;
		break;
	case REPORT_SORT_COUNT:
		cmp = kid_cmp_count;
		break;
	case REPORT_SORT_NAME:
		cmp = kid_cmp_name;
		break;
	case REPORT_SORT_FIRST:
		break;
	}
	out = malloc(max * sizeof(*out));
	stack = malloc(max * sizeof(*stack));
	kids = malloc(max * sizeof(*kids));
	if (parent)
		par = malloc(max * sizeof(*par));
	if (!out || !stack || !kids || (parent && !par))
		goto nomem;

	c = agg__root(a);
	for (;;) {
		/* push the children of c, reversed, so they pop in order */
		nk = 0;
		for (const struct agg_node *k = c->child; k && nk < max;
		     k = k->next) {
			kids[nk].n = k;
			kids[nk].seq = nk;
			kids[nk].total_ns = k->total_ns;
			kids[nk].self_ns = k->self_ns;
			kids[nk].count = k->count + k->hits;
			if (!k->count && !k->hits)
				for (const struct agg_node *g = k->child; g;
				     g = g->next) {
					kids[nk].total_ns += g->total_ns;
					kids[nk].self_ns += g->self_ns;
					kids[nk].count += g->count;
				}
			if (sort == REPORT_SORT_NAME)
				kids[nk].name = report_timer_name(
					r, k->timer, kids[nk].buf,
					sizeof(kids[nk].buf));
			nk++;
		}
		if (cmp && nk > 1)
			qsort(kids, nk, sizeof(*kids), cmp);
		for (i = nk; i-- > 0 && sp < max;) {
			stack[sp].n = kids[i].n;
			stack[sp].parent = cur;
			sp++;
		}
		if (!sp || cnt == max)
			break;
		sp--;
		c = stack[sp].n;
		if (par)
			par[cnt] = stack[sp].parent;
		cur = cnt;
		out[cnt++] = c;
	}
	free(stack);
	free(kids);
	*nodes = out;
	if (parent)
		*parent = par;
	*n = cnt;
	return 0;

nomem:
	free(out);
	free(stack);
	free(kids);
	free(par);
	return -ENOMEM;
}

int report_nodes(const struct agg *a, int by_total,
		 const struct agg_node ***nodes, size_t *n)
{
	return walk(a, NULL, by_total ? REPORT_SORT_TOTAL : REPORT_SORT_FIRST,
		    nodes, NULL, n);
}

int report_view_init(struct report_view *v, const struct report *r)
{
	unsigned char *kid_shown = NULL;
	const struct agg_node *nd;
	uint32_t split = 0;
	size_t i;
	int err;

	memset(v, 0, sizeof(*v));
	err = walk(r->agg, r, r->sort, &v->nodes, &v->parent, &v->n);
	if (err)
		return err;
	if (!v->n)
		return 0;
	v->visible = malloc(v->n);
	kid_shown = calloc(v->n, 1);
	if (!v->visible || !kid_shown) {
		free(kid_shown);
		report_view_free(v);
		return -ENOMEM;
	}
	/* --by roots are no level of calls: --max-depth 1 keeps each
	 * thread's top-level timers */
	for (i = 0; i < v->n && !split; i++)
		split = v->nodes[i]->depth == 1 &&
			AGG_TIMER_IS_SPLIT(v->nodes[i]->timer);
	/* in reverse pre-order a node comes after all its descendants */
	for (i = v->n; i-- > 0;) {
		nd = v->nodes[i];
		v->visible[i] =
			(!r->max_depth || nd->depth - split <= r->max_depth) &&
			(nd->total_ns >= r->min_total_ns || kid_shown[i]);
		if (v->visible[i]) {
			v->nvisible++;
			if (v->parent[i] != SIZE_MAX)
				kid_shown[v->parent[i]] = 1;
		}
	}
	free(kid_shown);
	return 0;
}

void report_view_free(struct report_view *v)
{
	free(v->nodes);
	free(v->parent);
	free(v->visible);
	memset(v, 0, sizeof(*v));
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* index of @s in @t (@n entries), or -1 */
static int find_name(const struct report_name *t, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (t[i].name && !strcmp(s, t[i].name))
			return (int)i;
	return -1;
}

/* The sort keys (--sort), by enum report_sort: parsing, JSON, --help */
static const struct report_name sort_names[] = {
	[REPORT_SORT_TOTAL] = { "total", NULL },
	[REPORT_SORT_SELF] = { "self", NULL },
	[REPORT_SORT_COUNT] = { "count", NULL },
	[REPORT_SORT_NAME] = { "name", NULL },
	[REPORT_SORT_FIRST] = { "first", "first seen" },
};

const struct report_name *report_sort_names(size_t *n)
{
	*n = NELEM(sort_names);
	return sort_names;
}

int report_parse_sort(const char *s, enum report_sort *sort)
{
	int i = find_name(sort_names, NELEM(sort_names), s);

	if (i < 0)
		return -EINVAL;
	*sort = (enum report_sort)i;
	return 0;
}

const char *report_sort_str(enum report_sort sort)
{
	if ((unsigned int)sort >= NELEM(sort_names))
		return "?";
	return sort_names[sort].name;
}

/* The folded line values (--weight), by enum report_weight */
static const struct report_name weight_names[] = {
	[REPORT_WEIGHT_SELF] = { "self", NULL },
	[REPORT_WEIGHT_TOTAL] = { "total", NULL },
	[REPORT_WEIGHT_ONCPU] = { "oncpu", NULL },
	[REPORT_WEIGHT_OFFCPU] = { "offcpu", NULL },
	[REPORT_WEIGHT_COUNT] = { "count", NULL },
};

const struct report_name *report_weight_names(size_t *n)
{
	*n = NELEM(weight_names);
	return weight_names;
}

int report_parse_weight(const char *s, enum report_weight *w)
{
	int i = find_name(weight_names, NELEM(weight_names), s);

	if (i < 0)
		return -EINVAL;
	*w = (enum report_weight)i;
	return 0;
}

/* utf8_len() - bytes of the well-formed UTF-8 sequence at @s (of @n
 * bytes) if it is one of 2 to 4 bytes, else 0 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong form, no surrogate, nothing above U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return k;
}

size_t report_name_text(const char *text, size_t n, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, o = 0, k;

	if (!len)
		return 0;
	while (i < n) {
		char e[5];
		const char *w = e;

		k = utf8_len(s + i, n - i);
		if (k) {
			w = text + i;
		} else if (s[i] == '\\') {
			memcpy(e, "\\\\", 2);
			k = 2;
		} else if (s[i] < 0x20 || s[i] >= 0x7f) {
			snprintf(e, sizeof(e), "\\x%02x", s[i]);
			k = 4;
		} else {
			e[0] = (char)s[i];
			k = 1;
		}
		if (o + k >= len)
			break;
		memcpy(buf + o, w, k);
		o += k;
		i += w == e ? 1 : k;
	}
	buf[o] = '\0';
	return o;
}

/*
 * named_label() - a named timer's node (AGG_TIMER_IS_NAME): "TIMER(VALUE)",
 * the value in decimal, negative where its top bit is set (a signed
 * argument sign-extended); "#ID" if @r's aggregator has no such name.
 */
static const char *named_label(const struct report *r, uint32_t id, char *buf,
			       size_t len)
{
	char b[REPORT_NAME_BUF], tx[REPORT_NAME_BUF];
	const char *base, *text;
	uint32_t t, tlen;
	uint64_t v;

	if (!agg__name_text(r->agg, id, &t, &text, &tlen)) {
		/* a text name: TIMER(TEXT), TEXT as report_name_text() */
		base = report_timer_name(r, t, b, sizeof(b));
		report_name_text(text, tlen, tx, sizeof(tx));
		snprintf(buf, len, "%s(%s)", base, tx);
		return buf;
	}
	if (agg__name_of(r->agg, id, &t, &v)) {
		snprintf(buf, len, "#%" PRIu32, id);
		return buf;
	}
	base = report_timer_name(r, t, b, sizeof(b));
	if ((int64_t)v < 0)
		snprintf(buf, len, "%s(%" PRId64 ")", base, (int64_t)v);
	else
		snprintf(buf, len, "%s(%" PRIu64 ")", base, v);
	return buf;
}

const char *report_timer_name(const struct report *r, uint32_t timer, char *buf,
			      size_t len)
{
	static const char *const ctx[IPROF_CTX_MAX] = {
		[IPROF_CTX_TASK] = "task",
		[IPROF_CTX_SOFTIRQ] = "softirq",
		[IPROF_CTX_HARDIRQ] = "hardirq",
		[IPROF_CTX_NMI] = "nmi",
	};

	if (r && r->timers && r->agg && timer < agg__ntimers(r->agg) &&
	    r->timers[timer].name)
		return r->timers[timer].name;
	if (timer == AGG_OTHER_TIMER) {
		snprintf(buf, len, "[other]");
		return buf;
	}
	if (r && r->agg && AGG_TIMER_IS_SPLIT(timer))
		return agg__split_name(r->agg, timer, buf, len);
	if (r && r->agg && AGG_TIMER_IS_NAME(timer))
		return named_label(r, timer, buf, len);
	if (AGG_TIMER_IS_CTX(timer) && AGG_CTX_OF(timer) < IPROF_CTX_MAX) {
		/* the per-CPU root of an interrupt context */
		snprintf(buf, len, "[%s/cpu%u]", ctx[AGG_CTX_OF(timer)],
			 (unsigned int)AGG_CPU_OF(timer));
		return buf;
	}
	snprintf(buf, len, "#%" PRIu32, timer);
	return buf;
}

int report_print_path(FILE *f, const struct report *r, const struct agg_node *n,
		      const char *sep)
{
	const struct agg_node *small[64], **path = small;
	size_t depth = 0, i;
	char buf[REPORT_NAME_BUF];

	for (const struct agg_node *p = n; p && p->parent; p = p->parent)
		depth++;
	if (depth > 64) {
		path = malloc(depth * sizeof(*path));
		if (!path)
			return -ENOMEM;
	}
	i = depth;
	for (const struct agg_node *p = n; p && p->parent; p = p->parent)
		path[--i] = p;
	for (i = 0; i < depth; i++)
		fprintf(f, "%s%s", i ? sep : "",
			report_timer_name(r, path[i]->timer, buf, sizeof(buf)));
	if (path != small)
		free(path);
	return 0;
}

/* "(kind where)" of a timer, tolerant of missing strings. */
static void print_kind_where(FILE *f, const struct report_timer *t)
{
	size_t k = t->kind ? strlen(t->kind) : 0, n;
	const char *g;

	/* "uprobe:/bin/x:f", not "uprobe uprobe:/bin/x:f"; a glob's match
	 * "uprobe:/bin/x:f (uprobe:/bin/x:f*)": only the line it came from */
	if (k && t->where && !strncmp(t->where, t->kind, k) &&
	    t->where[k] == ':') {
		g = strstr(t->where, " (");
		n = strlen(t->where);
		if (g && t->where[n - 1] == ')' && !strncmp(g + 2, t->kind, k))
			fprintf(f, " %s", g + 1);
		else
			fprintf(f, " (%s)", t->where);
	}
	else if (t->kind && t->where)
		fprintf(f, " (%s %s)", t->kind, t->where);
	else if (t->kind || t->where)
		fprintf(f, " (%s)", t->kind ? t->kind : t->where);
}

const char *report_timer_reason(const struct report_timer *t)
{
	const char *e = t->error, *p;
	size_t len;
	int nums = 0;

	if (!e)
		return "unknown reason";
	if (!t->file || t->line <= 0)
		return e;
	len = strlen(t->file);
	if (strncmp(e, t->file, len) || e[len] != ':')
		return e;
	/* ":LINE:" then an optional "COL:", then a space */
	for (p = e + len; *p == ':' && p[1] >= '0' && p[1] <= '9' && nums < 2;
	     nums++) {
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	if (!nums || *p != ':' || p[1] != ' ')
		return e;
	return p + 2;
}

/*
 * Where @t's probe is, into @buf (@len bytes): the "FILE:LINE:COL" (or
 * "FILE:LINE") its error starts with, else t->file and t->line; "" when
 * neither says.
 */
static const char *timer_loc(const struct report_timer *t, char *buf,
			     size_t len)
{
	const char *why = report_timer_reason(t);

	buf[0] = '\0';
	if (t->error && why >= t->error + 2 && why <= t->error + strlen(t->error))
		snprintf(buf, len, "%.*s", (int)(why - 2 - t->error), t->error);
	else if (t->file && t->line > 0)
		snprintf(buf, len, "%s:%d", t->file, t->line);
	return buf;
}

int report_not_attached(FILE *f, const struct report_timer *timers, uint32_t n,
			const char *pfx)
{
	char loc[512], first[512];
	unsigned char *done;
	const char *why;
	uint32_t i, j, k, shown;
	int total = 0, one_loc;

	if (!timers || !n)
		return 0;
	done = calloc(n, 1);
	if (!done)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (timers[i].attached || done[i])
			continue;
		why = report_timer_reason(&timers[i]);
		timer_loc(&timers[i], first, sizeof(first));
		k = 0;
		one_loc = 1;
		for (j = i; j < n; j++) {
			if (!timers[j].attached && !done[j] &&
			    !strcmp(report_timer_reason(&timers[j]), why)) {
				done[j] = 1;
				k++;
				one_loc &= !strcmp(timer_loc(&timers[j], loc,
							     sizeof(loc)),
						   first);
			}
		}
		total += (int)k;
		if (k == 1) {
			fprintf(f, "%snot attached: %s: %s\n", pfx,
				timers[i].name ? timers[i].name : "?",
				timers[i].error ? timers[i].error :
						  "unknown reason");
			continue;
		}
		/* each name with its probe's place, or the place once when
		 * they share it (a glob) */
		fprintf(f, "%snot attached: %" PRIu32 " timers (", pfx, k);
		shown = 0;
		for (j = i; j < n && shown < REPORT_NAMES_MAX; j++) {
			if (timers[j].attached ||
			    strcmp(report_timer_reason(&timers[j]), why))
				continue;
			fprintf(f, "%s%s", shown ? ", " : "",
				timers[j].name ? timers[j].name : "?");
			if (!one_loc &&
			    *timer_loc(&timers[j], loc, sizeof(loc)))
				fprintf(f, " at %s", loc);
			shown++;
		}
		if (k > shown)
			fprintf(f, " and %" PRIu32 " more", k - shown);
		if (one_loc && *first)
			fprintf(f, ") at %s: %s\n", first, why);
		else
			fprintf(f, "): %s\n", why);
	}
	free(done);
	return total;
}

int report_lost_data(const struct report_loss *loss,
		     const struct agg_stats *st)
{
	/* what the "lost:" line shows (and nomem): frames closed untimed
	 * are no loss */
	return loss->rb_drops || loss->depth_overflow || loss->no_storage ||
	       loss->recursion_misses || loss->kprobe_misses ||
	       loss->key_full ||
	       (st && (st->malformed || st->nomem || st->resyncs ||
		       st->discarded || st->skipped || st->kunmatched ||
		       st->kearly));
}

size_t report_loss_counters(const struct report *r,
			    struct report_loss_counter *c)
{
	const struct agg_stats *st = agg__stats(r->agg);
	const struct report_loss_counter all[REPORT_LOSS_MAX] = {
		{ "records", "records (ring buffer full)",
		  "record (ring buffer full)", r->loss.rb_drops, 0 },
		{ "resyncs", "resyncs", "resync", st->resyncs, 0 },
		{ "discarded_frames", "frames discarded", "frame discarded",
		  st->discarded, 0 },
		{ "skipped", "records skipped", "record skipped", st->skipped,
		  0 },
		{ "unwound", "frames unwound", "frame unwound", st->unwound, 1 },
		{ "execed", "frames ended by exec", "frame ended by exec",
		  st->execed, 1 },
		/* not --max-depth (a view): the BPF side's stack of
		 * IPROF_MAX_DEPTH (newcomer trial 5: "max depth" read as
		 * the option) */
		{ "depth_overflow",
		  "starts over 128 timers open in a thread (starts without stops?)",
		  "start over 128 timers open in a thread (starts without stops?)",
		  r->loss.depth_overflow, 0 },
		{ "malformed", "malformed records", "malformed record",
		  st->malformed, 0 },
		{ "no_storage", "task storage failures",
		  "task storage failure", r->loss.no_storage, 0 },
		{ "missed", "probe hits missed (BPF recursion)",
		  "probe hit missed (BPF recursion)", r->loss.recursion_misses,
		  0 },
		{ "missed_returns", "returns missed", "return missed",
		  st->missed_returns, 1 },
		{ "kprobe_missed", "kprobe misses (kernel)",
		  "kprobe miss (kernel)", r->loss.kprobe_misses, 0 },
		{ "key_full", "keyed span starts over --span-keys",
		  "keyed span start over --span-keys", r->loss.key_full, 0 },
		{ "key_unmatched", "keyed span ends without their start",
		  "keyed span end without its start",
		  st->kunmatched + st->kearly, 0 },
	};

	memcpy(c, all, sizeof(all));
	return REPORT_LOSS_MAX;
}

/* the counters of @c (@n) with untimed == @untimed that are not 0, after
 * @lead; returns how many */
static int loss_counters_line(FILE *f, const struct report_loss_counter *c,
			      size_t n, int untimed, int seed, const char *lead)
{
	int any = 0;

	for (size_t i = 0; i < n; i++) {
		if (!c[i].v || c[i].untimed != untimed)
			continue;
		if (!any)
			fputs(lead, f);
		if (seed)
			fprintf(f, " %s=%" PRIu64, c[i].key, c[i].v);
		else
			fprintf(f, "%s %" PRIu64 " %s", any ? "," : "", c[i].v,
				c[i].v == 1 ? c[i].label1 : c[i].label);
		any = 1;
	}
	return any;
}

/* the loss line names IPROF_MAX_DEPTH in words */
_Static_assert(IPROF_MAX_DEPTH == 128, "report_loss_counters() says 128");

void report_loss_line(FILE *f, const struct report *r, int seed)
{
	struct report_loss_counter c[REPORT_LOSS_MAX];
	size_t n = report_loss_counters(r, c);
	int any;

	/* frames closed untimed first, on their own line: no loss */
	if (loss_counters_line(f, c, n, 1, seed,
			       seed ? "# untimed:" : "closed untimed:"))
		fputc('\n', f);
	fputs(seed ? "# lost:" : "lost:", f);
	any = loss_counters_line(f, c, n, 0, seed, "");
	if (r->loss.unknown && seed)
		fputs(" unknown=kernel_counters\n", f);
	else if (r->loss.unknown)
		fprintf(f, "%sthe kernel's counters unknown (the recording ends before its trailer: cut, or at a corrupted block)\n",
			any ? "; " : " ");
	else
		fputs(any ? "\n" : " none\n", f);
}

/*
 * A span with stops on threads where it never started (orphans) and no
 * start ever closed by its stop (every completed one closed by its
 * thread's exit, or still open): START and STOP fire on different threads,
 * so they never meet.  Say so, with a hint.
 */
static void span_unmatched(FILE *f, const struct report *r, uint32_t timer,
			   const char *pfx)
{
	const struct report_timer *t = &r->timers[timer];
	uint64_t starts = 0, stopped = 0;
	const struct agg_node *n;
	char buf[REPORT_NAME_BUF];

	if (!t->kind || strcmp(t->kind, "span") || t->key)
		return;
	for (n = report_next(agg__root(r->agg)); n; n = report_next(n)) {
		if (n->timer != timer)
			continue;
		starts += n->count + n->incomplete + n->exited;
		stopped += n->count;
	}
	if (stopped || !starts)
		return;
	fprintf(f,
		"%sspan never matched: %s starts=%" PRIu64 " stops=%" PRIu64
		": never on one thread (its starts ended with their thread or "
		"are still open): START and STOP must fire on the same thread "
		"(sched_process_fork fires in the parent, sched_process_exec in "
		"the child)\n",
		pfx, report_timer_name(r, timer, buf, sizeof(buf)), starts,
		t->orphans);
}

/* most lines per kind of the summary's per-path lists (exited,
 * incomplete, uncertain): a deep recursion left open makes one a level,
 * each naming every level above it; the rest in one line (JSON has all) */
#define SUMMARY_PATHS 16

/* " count=N elapsed=T@tail\n" of a summary_open() line: T in ms with 2
 * decimals (seed), else as report_ns_str() writes it */
static void open_tail(FILE *f, int seed, uint64_t cnt, uint64_t ns,
		      const char *tail)
{
	char buf[32];

	if (seed)
		fprintf(f, " count=%" PRIu64 " elapsed=%.2fms%s\n", cnt,
			(double)ns / 1e6, tail);
	else
		fprintf(f, " count=%" PRIu64 " elapsed=%s%s\n", cnt,
			report_ns_str(buf, sizeof(buf), ns), tail);
}

/*
 * summary_open() - a line per path with timers that never returned: still
 * open when tracing stopped (@exited 0: "incomplete: PATH count=N
 * elapsed=T") or open when their thread exited (@exited 1: "exited: ..."),
 * SUMMARY_PATHS of them, then "exited: N more paths count=N elapsed=T".
 * Their elapsed time is apart from every count and time of the tree.
 */
static int summary_open(FILE *f, const struct report *r, int seed, int exited)
{
	const char *pfx = seed ? "# " : "";
	const char *what = exited ? "exited" : "incomplete";
	const struct agg_node *n;
	uint64_t cnt, ns, more = 0, more_cnt = 0, more_ns = 0;
	unsigned int shown = 0;
	int err;

	for (n = report_next(agg__root(r->agg)); n; n = report_next(n)) {
		cnt = exited ? n->exited : n->incomplete;
		ns = exited ? n->exited_ns : n->incomplete_ns;
		if (!cnt)
			continue;
		if (shown == SUMMARY_PATHS) {
			more++;
			more_cnt += cnt;
			more_ns += ns;
			continue;
		}
		shown++;
		fprintf(f, "%s%s: ", pfx, what);
		err = report_print_path(f, r, n, " > ");
		if (err)
			return err;
		open_tail(f, seed, cnt, ns, "");
	}
	if (more) {
		fprintf(f, "%s%s: %" PRIu64 " more paths", pfx, what, more);
		open_tail(f, seed, more_cnt, more_ns, " (JSON lists them)");
	}
	return 0;
}

/*
 * summary_calib() - how the times were compensated for the probes' own
 * cost: each mechanism's cost per call, inside a call's timestamps and
 * outside them (in its caller), or why it could not be measured; nothing
 * when no calibration was made.
 */
static void summary_calib(FILE *f, const struct report *r, int seed)
{
	char a[32], b[32];
	size_t i;

	if (!r->ncalib)
		return;
	if (seed)
		fprintf(f, "# %s:", r->compensated ? "compensated" : "raw");
	else
		fprintf(f, "%s", r->compensated ?
			"compensated for the probes' cost per call (inside + outside it):" :
			"raw times (--no-compensate); the probes' cost per call (inside + outside it):");
	for (i = 0; i < r->ncalib; i++) {
		const struct report_calib *c = &r->calib[i];

		int mean = c->in_mean_ns || c->out_mean_ns;

		if (seed && c->done && mean) {
			fprintf(f,
				" %s in=%" PRIu32 "ns out=%" PRIu32
				"ns in_mean=%" PRIu32 "ns out_mean=%" PRIu32
				"ns%s",
				c->mech, c->in_ns, c->out_ns, c->in_mean_ns,
				c->out_mean_ns,
				c->sd_ns || c->drift_ns || c->gap_ns ? "" :
								       ";");
			/* a split entry's gap, measured per call (out leaves
			 * it out) */
			if (c->gap_ns)
				fprintf(f,
					" gap=%" PRIu32 "ns gap_mean=%" PRIu32
					"ns%s",
					c->gap_ns, c->gap_mean_ns,
					c->sd_ns || c->drift_ns ? "" : ";");
		} else if (seed && c->done)
			fprintf(f, " %s in=%" PRIu32 "ns out=%" PRIu32 "ns;",
				c->mech, c->in_ns, c->out_ns);
		else if (seed)
			fprintf(f, " %s unknown;", c->mech);
		else if (c->done) {
			fprintf(f, "%s %s %s + %s", i ? "," : "", c->mech,
				report_ns_str(a, sizeof(a), c->in_ns),
				report_ns_str(b, sizeof(b), c->out_ns));
			if (mean)
				fprintf(f, " (mean %s + %s)",
					report_ns_str(a, sizeof(a),
						      c->in_mean_ns),
					report_ns_str(b, sizeof(b),
						      c->out_mean_ns));
			if (c->gap_ns)
				fprintf(f, " + a gap measured per call (%s here)",
					report_ns_str(a, sizeof(a), c->gap_ns));
			if (c->sd_ns || c->drift_ns)
				fprintf(f, " sd %s drift %s",
					report_ns_str(a, sizeof(a), c->sd_ns),
					report_ns_str(b, sizeof(b),
						      c->drift_ns));
		}
		else
			fprintf(f, "%s %s not measured (%s): raw", i ? "," : "",
				c->mech, c->why ? c->why : "unknown");
		/* the spread (calib_spread()) */
		if (seed && c->done && mean && (c->sd_ns || c->drift_ns))
			fprintf(f, " sd=%" PRIu32 "ns drift=%" PRIu32 "ns;",
				c->sd_ns, c->drift_ns);
	}
	fputc('\n', f);
}

int report_keyed(const struct report *r, uint32_t timer)
{
	return r->timers && timer < agg__ntimers(r->agg) &&
	       r->timers[timer].key;
}

int report_span_stops(const struct report *r, uint32_t timer,
		      char (*names)[REPORT_STOP_BUF], int max)
{
	const char *w, *p, *e;
	int n = 0;
	size_t len;

	if (!r->timers || timer >= agg__ntimers(r->agg) ||
	    !r->timers[timer].where || !r->timers[timer].kind ||
	    strcmp(r->timers[timer].kind, "span"))
		return 0;
	w = r->timers[timer].where;
	p = strstr(w, " -> ");
	if (!p || !strstr(p, " | "))
		return 0;
	for (p += 4; n < max; p = e + 3) {
		e = strstr(p, " | ");
		len = e ? (size_t)(e - p) : strlen(p);
		snprintf(names[n++], REPORT_STOP_BUF, "%.*s", (int)len, p);
		if (!e)
			break;
	}
	return n;
}

/*
 * summary_stops() - a line per span of several stops that ended calls:
 * how many each stop ended, over all its paths (JSON: per node)
 */
static void summary_stops(FILE *f, const struct report *r, int seed)
{
	char names[AGG_MAX_STOPS][REPORT_STOP_BUF], buf[REPORT_NAME_BUF];
	uint64_t c[AGG_MAX_STOPS];
	const struct agg_node *n;
	uint32_t i;
	int k, ns;

	for (i = 0; r->timers && i < agg__ntimers(r->agg); i++) {
		ns = report_span_stops(r, i, names, AGG_MAX_STOPS);
		if (!ns)
			continue;
		memset(c, 0, sizeof(c));
		for (n = report_next(agg__root(r->agg)); n; n = report_next(n))
			if (agg__base_timer(r->agg, n->timer) == i)
				for (k = 0; k < AGG_MAX_STOPS; k++)
					c[k] += n->stops[k];
		fprintf(f, "%sstops: %s:", seed ? "# " : "",
			report_timer_name(r, i, buf, sizeof(buf)));
		for (k = 0; k < ns; k++)
			fprintf(f, "%s %" PRIu64 " at %s", k ? "," : "", c[k],
				names[k]);
		fputc('\n', f);
	}
}

/* summary_collisions() - how many text names share their 64-bit hash with
 * another of their timer (@n: agg_stats.name_collisions), where any do */
static void summary_collisions(FILE *f, uint64_t n, int seed)
{
	if (n && seed)
		fprintf(f, "# name collisions: count=%" PRIu64 "\n", n);
	else if (n)
		fprintf(f, "names that share a hash: %" PRIu64 " name%s of a timer whose 64-bit hash another of its names has: each its own row here, but a stop that names its call (stop ARG) may have closed the other's frame\n",
			n, n == 1 ? "" : "s");
}

/*
 * summary_namemiss() - a line per path whose frames a stop that names its
 * call found named otherwise, pairing with nothing (`name ARG stop
 * ARG2`): "name mismatch: PATH: N stops of another name, not paired (the
 * frame stays open)"; SUMMARY_PATHS of them, then the rest in one line;
 * then how many calls `name str(ARG)` named "(fault)", and how many
 * names share their hash with another (summary_collisions())
 */
static int summary_namemiss(FILE *f, const struct report *r, int seed)
{
	const char *pfx = seed ? "# " : "";
	const struct agg_node *n;
	uint64_t more = 0, more_cnt = 0;
	unsigned int shown = 0;
	int err;

	for (n = report_next(agg__root(r->agg)); n; n = report_next(n)) {
		if (!n->name_mismatch)
			continue;
		if (shown == SUMMARY_PATHS) {
			more++;
			more_cnt += n->name_mismatch;
			continue;
		}
		shown++;
		fprintf(f, "%sname mismatch: ", pfx);
		err = report_print_path(f, r, n, " > ");
		if (err)
			return err;
		if (seed)
			fprintf(f, " count=%" PRIu64 "\n", n->name_mismatch);
		else
			fprintf(f, ": %" PRIu64 " stop%s of another name, not paired (the frame stays open)\n",
				n->name_mismatch,
				n->name_mismatch == 1 ? "" : "s");
	}
	if (more)
		fprintf(f, "%sname mismatch: %" PRIu64 " more paths count=%" PRIu64 " (JSON lists them)\n",
			pfx, more, more_cnt);
	/* names by str() that could not be read: the (fault) nodes */
	if (agg__stats(r->agg)->name_faults && seed)
		fprintf(f, "# name faults: count=%" PRIu64 "\n",
			agg__stats(r->agg)->name_faults);
	else if (agg__stats(r->agg)->name_faults)
		fprintf(f, "names not read: %" PRIu64 " call%s named (fault): str() of an address that could not be read (NULL, not mapped, or a page not in memory)\n",
			agg__stats(r->agg)->name_faults,
			agg__stats(r->agg)->name_faults == 1 ? "" : "s");
	summary_collisions(f, agg__stats(r->agg)->name_collisions, seed);
	return 0;
}

int report_tail_mark(const struct report *r, uint32_t timer)
{
	const struct report_timer *t;

	if (!r->timers || timer >= agg__ntimers(r->agg))
		return 0;
	t = &r->timers[timer];
	return t->tail_calls && t->stop && !strcmp(t->stop, "return_sites");
}

void report_tail_note(FILE *f, const struct report *r, uint32_t timer,
		      int seed)
{
	const struct report_timer *t;
	char buf[REPORT_NAME_BUF];
	const char *name;

	if (!r->timers || timer >= agg__ntimers(r->agg))
		return;
	t = &r->timers[timer];
	if (!t->tail_calls || !t->stop)
		return;
	name = report_timer_name(r, timer, buf, sizeof(buf));
	if (!strcmp(t->stop, "return_sites"))
		fprintf(f,
			"%s%s%s stops at a tail call (%" PRIu32
			" of its return sites jmp out of it): its times end at the jump; the function it jumps to runs after it, beside it, not under it (--returns uretprobe times it to its real return)\n",
			seed ? "# tail call: " : "* ", name, seed ? "" : ":",
			t->tail_calls);
	else if (!strcmp(t->stop, "uretprobe"))
		fprintf(f,
			"%s%s%s stops by uretprobe at its real return: its times include what its tail calls (%" PRIu32
			" jmp%s out of it) run, shown under it\n",
			seed ? "# tail call: " : "", name, seed ? "" : ":",
			t->tail_calls, t->tail_calls == 1 ? "" : "s");
}

/*
 * summary_uncertain() - with compensated times, one line that sums the
 * paths whose compensation is weak (JSON has each path's): calls that may
 * be off (a child unwound or missed its return, a probe of a mechanism not
 * calibrated inside: agg_node.uncertain), calls in which the probes' cost
 * taken out was more than the time left (dominated), what the clamps kept
 * (clamped_ns), averages below resolution (report_node_err()).
 */
static int summary_uncertain(FILE *f, const struct report *r, int seed)
{
	uint64_t unc = 0, upaths = 0, dom = 0, dpaths = 0, owed = 0, cpaths = 0;
	uint64_t below = 0;
	const struct agg_node *n;
	struct report_err e;
	const char *sep = "";
	char a[32];

	if (!r->compensated)
		return 0;
	for (n = report_next(agg__root(r->agg)); n; n = report_next(n)) {
		unc += n->uncertain;
		upaths += !!n->uncertain;
		dom += n->dominated;
		dpaths += !!n->dominated;
		owed += n->clamped_ns;
		cpaths += !!n->clamped_ns;
		report_node_err(n, &e);
		below += !!e.below_res;
	}
	if (!upaths && !dpaths && !cpaths && !below)
		return 0;
	fprintf(f, "%scompensation, per path in JSON:", seed ? "# " : "");
	if (upaths) {
		fprintf(f, " uncertain %" PRIu64 " calls on %" PRIu64
			" paths (a child unwound or missed its return, or a mechanism not calibrated)",
			unc, upaths);
		sep = ";";
	}
	if (dpaths) {
		fprintf(f, "%s probes' cost above the time left in %" PRIu64
			" calls on %" PRIu64 " paths (dominated)", sep, dom,
			dpaths);
		sep = ";";
	}
	if (cpaths) {
		fprintf(f, "%s clamped, not given back, %s on %" PRIu64
			" paths (clamped_ns: sums at most that much high)", sep,
			report_ns_str(a, sizeof(a), owed), cpaths);
		sep = ";";
	}
	if (below)
		fprintf(f, "%s %" PRIu64
			" paths below resolution (avg within its error bar of 0: <res)",
			sep, below);
	fputc('\n', f);
	return 0;
}

/*
 * summary_hits() - per timer whose return iprof cannot see, its calls
 * counted where they were made (agg_node.hits, all paths) and why none
 * is timed: "counted only: NAME N calls (return not seen: WHY)".
 */
static void summary_hits(FILE *f, const struct report *r, const char *pfx)
{
	uint32_t ntimers = agg__ntimers(r->agg), i;
	char buf[REPORT_NAME_BUF];
	const struct agg_node *n;
	uint64_t hits;
	int sess;

	for (i = 0; i < ntimers; i++) {
		const struct report_timer *t = &r->timers[i];

		hits = 0;
		for (n = report_next(agg__root(r->agg)); n; n = report_next(n))
			if (n->timer == i)
				hits += n->hits;
		if (!hits)
			continue;
		/* a uprobe session's: a uretprobe would kill the program */
		sess = t->no_sites_why &&
		       strstr(t->no_sites_why, PLAN_SESSION_WHY);
		fprintf(f, "%scounted only: %s %" PRIu64
			   " call%s (return not seen: %s): counted where called, never timed, never a parent%s\n",
			pfx, report_timer_name(r, i, buf, sizeof(buf)), hits,
			hits == 1 ? "" : "s",
			t->no_sites_why ? t->no_sites_why :
					  "no return sites, no uretprobe",
			sess ? "" : "; --returns uretprobe times it");
	}
}

/*
 * summary_keyed() - per keyed span: its key, and the spans dropped
 * (replaced by a new start of the same key, expired, or never kept for
 * a full key map); once, why their on-CPU/off-CPU split is not shown.
 */
static void summary_keyed(FILE *f, const struct report *r, int seed)
{
	uint32_t ntimers = agg__ntimers(r->agg), i;
	const char *pfx = seed ? "# " : "";
	char buf[REPORT_NAME_BUF];
	const struct agg_node *n;
	int any = 0;

	for (i = 0; i < ntimers; i++) {
		const struct report_timer *t = &r->timers[i];
		uint64_t rep = 0, exp = 0;

		if (!t->key || !t->attached)
			continue;
		for (n = report_next(agg__root(r->agg)); n; n = report_next(n))
			if (n->timer == i) {
				rep += n->replaced;
				exp += n->expired;
			}
		any = 1;
		fprintf(f, "%skeyed span: %s key %s", pfx,
			report_timer_name(r, i, buf, sizeof(buf)), t->key);
		if (seed)
			fprintf(f, " replaced=%" PRIu64 " expired=%" PRIu64
				" key_full=%" PRIu64 "\n", rep, exp, t->key_full);
		else
			fprintf(f,
				": %" PRIu64 " replaced (started again before their stop), %" PRIu64
				" expired (--span-timeout), %" PRIu64
				" not kept (--span-keys full)\n",
				rep, exp, t->key_full);
	}
	if (any && !seed)
		fprintf(f,
			"keyed spans: no on-CPU/off-CPU split (a span that starts on one thread and stops on another is no one thread's time); their time is not their parent's (its self time keeps it)\n");
}

/* timers with 0 hits named one per line; the rest are counted */
#define ZERO_HITS_SHOWN 10

/*
 * summary_zero_hits() - the attached timers that were never hit (@hit: per
 * timer, 1 where a path has it), ZERO_HITS_SHOWN of them and how many
 * more; in a cut recording (loss.unknown) "in the part ... read": a
 * newcomer read them as a result.
 */
static void summary_zero_hits(FILE *f, const struct report *r,
			      const unsigned char *hit, int seed)
{
	const char *pfx = seed ? "# " : "",
		   *what = seed ? "no hits" : "attached, 0 hits",
		   *part = r->loss.unknown ? " in the part of the recording read" :
					     "";
	uint32_t ntimers = agg__ntimers(r->agg), i, nzero = 0;
	char buf[REPORT_NAME_BUF];

	for (i = 0; i < ntimers; i++) {
		const struct report_timer *t = &r->timers[i];

		/* started: its calls may all be in [other] */
		if (!t->attached || hit[i] || agg__timer_started(r->agg, i))
			continue;
		/* a glob's many: the first few, then how many more */
		if (++nzero > ZERO_HITS_SHOWN)
			continue;
		fprintf(f, "%s%s%s: %s", pfx, what, part,
			report_timer_name(r, i, buf, sizeof(buf)));
		print_kind_where(f, t);
		fputc('\n', f);
	}
	if (nzero > ZERO_HITS_SHOWN)
		fprintf(f, "%s%s%s: %" PRIu32 " more timers (JSON lists them)\n",
			pfx, what, part, nzero - ZERO_HITS_SHOWN);
}

int report_summary(FILE *f, const struct report *r, int seed)
{
	const char *pfx = seed ? "# " : "";
	uint32_t ntimers = agg__ntimers(r->agg), i;
	const struct agg_node *n;
	unsigned char *hit;
	char buf[REPORT_NAME_BUF];
	int err;

	summary_calib(f, r, seed);
	summary_stops(f, r, seed);
	err = summary_namemiss(f, r, seed) ?: summary_uncertain(f, r, seed);
	if (err)
		return err;
	/* timers that never returned, in tree order: still open at the end
	 * (incomplete), open when their thread exited (exited) */
	err = summary_open(f, r, seed, 0);
	if (!err)
		err = summary_open(f, r, seed, 1);
	if (err)
		return err;

	if (r->timers) {
		hit = calloc(ntimers, 1);
		if (!hit)
			return -ENOMEM;
		for (n = report_next(agg__root(r->agg)); n; n = report_next(n))
			if (agg__base_timer(r->agg, n->timer) < ntimers)
				hit[agg__base_timer(r->agg, n->timer)] = 1;

		err = report_not_attached(f, r->timers, ntimers, pfx);
		if (err < 0) {
			free(hit);
			return err;
		}
		summary_zero_hits(f, r, hit, seed);
		for (i = 0; i < ntimers; i++) {
			const struct report_timer *t = &r->timers[i];

			if (!t->orphans)
				continue;
			fprintf(f, "%sorphan stops: %s %" PRIu64 "\n", pfx,
				report_timer_name(r, i, buf, sizeof(buf)),
				t->orphans);
			span_unmatched(f, r, i, pfx);
		}
		for (i = 0; i < ntimers; i++)
			if (hit[i])
				report_tail_note(f, r, i, seed);
		for (i = 0; i < ntimers; i++) {
			const struct report_timer *t = &r->timers[i];

			/* its count leaves out the calls of instances not
			 * timed: said, once (--dry-run lists why) */
			if (!t->attached || !t->inlined_refused)
				continue;
			fprintf(f, "%sinlined, not timed: %s at %" PRIu32
				   " of its %" PRIu32
				   " inlined instances (their calls are in no count; --dry-run says why)\n",
				pfx, report_timer_name(r, i, buf, sizeof(buf)),
				t->inlined_refused,
				t->inlined + t->inlined_refused);
		}
		summary_keyed(f, r, seed);
		summary_hits(f, r, pfx);
		for (i = 0; i < ntimers; i++) {
			const struct report_timer *t = &r->timers[i];

			if (!t->kprobe_misses)
				continue;
			fprintf(f, "%skprobe misses: %s %" PRIu64, pfx,
				report_timer_name(r, i, buf, sizeof(buf)),
				t->kprobe_misses);
			if (t->maxactive)
				fprintf(f,
					" (calls beyond %" PRIu32
					" open at once get no kretprobe: raise --maxactive)",
					t->maxactive);
			fputc('\n', f);
		}
		free(hit);
	}

	if (r->rb_requested && r->rb_bytes) {
		/* --rb-size is rounded up to a power of two: say what it got */
		if (seed)
			fprintf(f,
				"# rb_size: requested=%" PRIu64
				" per_cpu=%" PRIu64 " rings=%u\n",
				r->rb_requested, r->rb_bytes, r->rb_rings);
		else
			fprintf(f,
				"ring buffer: %" PRIu64
				" bytes per CPU x %u (--rb-size %" PRIu64
				"%s)\n",
				r->rb_bytes, r->rb_rings, r->rb_requested,
				r->rb_bytes != r->rb_requested ?
					", rounded up to a power of two" :
					"");
	}
	report_folded_line(f, r, seed);
	report_loss_line(f, r, seed);
	return 0;
}

void report_folded_line(FILE *f, const struct report *r, int seed)
{
	const struct agg_stats *st = agg__stats(r->agg);
	uint32_t mp, mk;

	if (!st->folded_paths && !st->folded_keys)
		return;
	agg__limits(r->agg, &mp, &mk);
	if (seed) {
		fprintf(f,
			"# folded: paths=%" PRIu64 " keys=%" PRIu64
			" max_paths=%" PRIu32 " max_keys=%" PRIu32 "\n",
			st->folded_paths, st->folded_keys, mp, mk);
		return;
	}
	fprintf(f, "folded into [other]:");
	if (st->folded_paths)
		fprintf(f,
			" %" PRIu64
			" timers started on new paths (--max-paths %" PRIu32
			" reached)%s",
			st->folded_paths, mp, st->folded_keys ? "," : "");
	if (st->folded_keys)
		fprintf(f, " %" PRIu64 " --by roots (--max-keys %" PRIu32 ")",
			st->folded_keys, mk);
	fputc('\n', f);
}

int report_utf8(FILE *f, int (*fmt)(FILE *f, const struct report *r),
		const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	ret = fmt(m, r);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (!ret && buf)
		ret = util_utf8_fwrite(f, buf, len);
	free(buf);
	return ret ? ret : report_finish(f);
}

int report_finish(FILE *f)
{
	int fl = fflush(f);

	if (fl || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
