// SPDX-License-Identifier: GPL-2.0-only
/*
 * --slowest in the reports (include/iprof/slow.h): the table's section of
 * each node's slowest calls, and their JSON array (doc/json.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "iprof/report.h"
#include "iprof/slow.h"

/* print_path() - @n's path from its top-level ancestor, "a > b > c" */
static void print_path(FILE *f, const struct report *r,
		       const struct agg_node *n)
{
	char buf[REPORT_NAME_BUF];

	if (n->parent && n->parent->parent) {
		print_path(f, r, n->parent);
		fputs(" > ", f);
	}
	fputs(report_timer_name(r, n->timer, buf, sizeof(buf)), f);
}

/* print_time() - " T (raw R)", or " T" when both are the same */
static void print_time(FILE *f, uint64_t dur, uint64_t raw)
{
	char b1[32], b2[32];

	fprintf(f, " %s", report_ns_str(b1, sizeof(b1), dur));
	if (raw != dur)
		fprintf(f, " (raw %s)", report_ns_str(b2, sizeof(b2), raw));
}

/*
 * print_val() - one argument or return value: decimal when it reads as a
 * small signed number (|v| < 2^20: counts, sizes, fds, -errno), else hex
 * (pointers, flags, masks), with its reading as a small negative 32-bit
 * int beside where it may be one (an int -1 in eax leaves the upper half
 * of rax 0: "0xffffffff (int -1)"; the type is not known)
 */
static void print_val(FILE *f, uint64_t v)
{
	int64_t s = (int64_t)v;
	int32_t s32 = (int32_t)(uint32_t)v;

	if (s > -(1 << 20) && s < (1 << 20))
		fprintf(f, "%" PRId64, s);
	else if (!(v >> 32) && s32 < 0 && s32 > -(1 << 20))
		fprintf(f, "%#" PRIx64 " (int %" PRId32 ")", v, s32);
	else
		fprintf(f, "%#" PRIx64, v);
}

/*
 * A kernel function's return value and arguments as BTF named them
 * (report_timer.params: "NAME:FMT:TYPE;...", the return value's first,
 * include/iprof/plan.h's plan_params_fn), split in place in @buf.
 */
struct params {
	char buf[2048];
	const char *name[1 + IPROF_NARGS], *fmt[1 + IPROF_NARGS],
		*type[1 + IPROF_NARGS];
	uint32_t n; /* items: the return value's, then n - 1 arguments */
	const struct report *r; /* its ename, if any */
};

/* params_of() - node @n's timer's params into @p; 0 when it has none */
static int params_of(const struct report *r, const struct agg_node *n,
		     struct params *p)
{
	char *s, *c1, *c2, *next;

	p->n = 0;
	p->r = r;
	if (!r || !r->timers || !r->agg || n->timer >= agg__ntimers(r->agg) ||
	    !r->timers[n->timer].params)
		return 0;
	snprintf(p->buf, sizeof(p->buf), "%s", r->timers[n->timer].params);
	for (s = p->buf; s && p->n < 1 + IPROF_NARGS; s = next) {
		next = strchr(s, ';');
		if (next)
			*next++ = '\0';
		c1 = strchr(s, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			break;
		*c1 = *c2 = '\0';
		p->name[p->n] = s;
		p->fmt[p->n] = c1 + 1;
		p->type[p->n++] = c2 + 1;
	}
	return p->n > 0;
}

/* typed() - @v as FMT @fmt reads it: 1 signed into *@s, 0 unsigned into
 * *@u (an integer narrower than 8 bytes cut to its width), -1 unknown */
static int typed(const char *fmt, uint64_t v, int64_t *s, uint64_t *u)
{
	unsigned int w = (unsigned int)(fmt[0] ? fmt[1] - '0' : 8);

	if (w < 1 || w > 8)
		w = 8;
	if (w < 8)
		v &= (1ull << (8 * w)) - 1;
	*u = v;
	if (fmt[0] == 's') {
		if (w < 8 && (v >> (8 * w - 1)))
			v |= ~0ull << (8 * w);
		*s = (int64_t)v;
		return 1;
	}
	return fmt[0] == 'u' || fmt[0] == 'p' ? 0 : -1;
}

/* print_typed() - @v as FMT @fmt shows it: a pointer in hex, an integer
 * in decimal by its width and sign, "?" when unknown */
static void print_typed(FILE *f, const char *fmt, uint64_t v)
{
	int64_t s;
	uint64_t u;
	int k = typed(fmt, v, &s, &u);

	if (k == 1)
		fprintf(f, "%" PRId64, s);
	else if (k == 0 && fmt[0] == 'p')
		fprintf(f, "0x%" PRIx64, u);
	else if (k == 0)
		fprintf(f, "%" PRIu64, u);
	else
		fputc('?', f);
}

/*
 * enum_of() - item @i's value @v by its enumerator's name (an integer
 * whose type is an enum that report.ename knows), into @buf (@size
 * bytes); NULL when it has none
 */
static const char *enum_of(const struct params *p, uint32_t i, uint64_t v,
			   char *buf, size_t size)
{
	int64_t sv;
	uint64_t u;
	int k;

	if (!p->r || !p->r->ename || i >= p->n)
		return NULL;
	k = typed(p->fmt[i], v, &sv, &u);
	if (k < 0 || p->fmt[i][0] == 'p')
		return NULL;
	return p->r->ename(p->r->ename_ctx, p->type[i], k ? sv : (int64_t)u,
			   buf, size);
}

/* print_item() - item @i's value @v: its enumerator, else as typed */
static void print_item(FILE *f, const struct params *p, uint32_t i,
		       uint64_t v)
{
	char buf[128];

	if (enum_of(p, i, v, buf, sizeof(buf)))
		fputs(buf, f);
	else
		print_typed(f, p->fmt[i], v);
}

/* print_args() - "  args a0 .. a5  ret R" for what @c has of them; by
 * name ("  args file=0xffff... count=4096  ret 4096") where @p has them */
static void print_args(FILE *f, const struct slow_call *c,
		       const struct params *p)
{
	uint32_t i;

	if (c->nargs && p->n != 1) /* 1: a function without arguments */
		fputs("  args", f);
	for (i = 0; i < c->nargs && i < IPROF_NARGS; i++) {
		if (p->n && i + 1 >= p->n)
			break;
		fputc(' ', f);
		if (!p->n) {
			print_val(f, c->args[i]);
			continue;
		}
		fprintf(f, "%s=", p->name[i + 1]);
		print_item(f, p, i + 1, c->args[i]);
	}
	if (c->has_ret && (!p->n || strcmp(p->fmt[0], "-"))) {
		fputs("  ret ", f);
		if (p->n)
			print_item(f, p, 0, c->ret);
		else
			print_val(f, c->ret);
	}
}

/* most paths shown per level of a kept call's paths in the table (JSON:
 * all of them) */
#define KIDS_SHOWN 5

/* kid_order() - @c's paths under @parent into @idx, most time first
 * (ties: the first met); returns how many */
static uint32_t kid_order(const struct slow_call *c, uint32_t parent,
			  uint32_t *idx)
{
	uint32_t i, j, m = 0;

	for (i = 0; i < c->nkids && i < SLOW_KIDS_MAX; i++) {
		if (c->kids[i].parent != parent)
			continue;
		/* insertion sort (at most SLOW_KIDS_MAX), stable: ties
		 * stay in index order */
		for (j = m++;
		     j && c->kids[idx[j - 1]].dur_ns < c->kids[i].dur_ns; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return m;
}

/*
 * print_kids() - @c's paths under @parent (SLOW_KID_TOP: the call's own
 * children), indented by depth: the KIDS_SHOWN that took most time, each
 * with its calls and summed time (raw beside), its first start after the
 * call's, then its own paths; the rest said in one line
 */
static void print_kids(FILE *f, const struct report *r,
		       const struct slow_call *c, uint32_t parent, int ind)
{
	char b[32], name[REPORT_NAME_BUF];
	uint32_t idx[SLOW_KIDS_MAX], m, i;
	uint64_t calls = 0, dur = 0;

	m = kid_order(c, parent, idx);
	for (i = 0; i < m; i++) {
		const struct slow_kid *k = &c->kids[idx[i]];

		if (i >= KIDS_SHOWN) {
			calls += k->count;
			dur += k->dur_ns;
			continue;
		}
		fprintf(f, "%*s%s  %" PRIu64 " call%s", ind, "",
			report_timer_name(r, k->timer, name, sizeof(name)),
			k->count, k->count == 1 ? "" : "s");
		print_time(f, k->dur_ns, k->raw_ns);
		fprintf(f, "  %s+%s\n", k->count == 1 ? "at " : "first at ",
			report_ns_str(b, sizeof(b), k->start_ns - c->start_ns));
		print_kids(f, r, c, idx[i], ind + 2);
	}
	if (m > KIDS_SHOWN)
		fprintf(f,
			"%*s(%" PRIu32 " more paths: %" PRIu64 " calls, %s)\n",
			ind, "", m - KIDS_SHOWN, calls,
			report_ns_str(b, sizeof(b), dur));
}

/* key_name() - the name of field @i of keyed span @timer's key on its
 * start side ("dev,sector": dev, sector; "pid=next_pid": pid), or
 * "key<i>" where the report does not know it */
static const char *key_name(const struct report *r, uint32_t timer, uint32_t i,
			    char *buf, size_t size)
{
	const char *k = NULL;
	uint32_t j;
	size_t n, m;

	if (r && r->timers && r->agg && timer < agg__ntimers(r->agg))
		k = r->timers[timer].key;
	for (j = 0; k && *k && j < i; j++) {
		k += strcspn(k, ",");
		k += *k == ',';
	}
	if (!k || !*k) {
		snprintf(buf, size, "key%" PRIu32, i);
		return buf;
	}
	n = strcspn(k, ",");
	m = strcspn(k, "=,");
	snprintf(buf, size, "%.*s", (int)(m < n ? m : n), k);
	return buf;
}

static const char *ctx_name(uint32_t ctx)
{
	static const char *const n[IPROF_CTX_MAX] = { "task", "softirq",
						      "hardirq", "nmi" };

	return ctx < IPROF_CTX_MAX ? n[ctx] : "?";
}

/* print_span() - a keyed span's "  stopped by tid T (comm)  key f=v,..."
 * where its stop sent them: a value below 2^32 in decimal (a pid, a
 * sector), else in hex (an address) */
static void print_span(FILE *f, const struct report *r, uint32_t timer,
		       const struct slow_call *c)
{
	char name[64];
	uint32_t i;

	if (c->has_stop && c->stop_ctx != IPROF_CTX_TASK)
		fprintf(f, "  stopped in a %s (CPU %" PRIu32 ")",
			ctx_name(c->stop_ctx), c->stop_cpu);
	else if (c->has_stop)
		fprintf(f, "  stopped by tid %" PRIu32 " (%s)", c->stop_tid,
			c->stop_comm[0] ? c->stop_comm : "?");
	for (i = 0; i < c->nkey; i++)
		fprintf(f, c->key[i] >> 32 ? "%s%s=%#" PRIx64 : "%s%s=%" PRIu64,
			i ? "," : "  key ",
			key_name(r, timer, i, name, sizeof(name)), c->key[i]);
}

/* print_split() - "  on-CPU A, runq B, blocked C", or a keyed span's
 * number */
static void print_split(FILE *f, const struct slow_call *c)
{
	char b1[32], b2[32], b3[32];

	if (c->has_split)
		fprintf(f, "  on-CPU %s, runq %s, blocked %s",
			report_ns_str(b1, sizeof(b1), c->on_ns),
			report_ns_str(b2, sizeof(b2), c->runq_ns),
			report_ns_str(b3, sizeof(b3), c->blocked_ns));
	if (c->is_span)
		fprintf(f, "  span #%" PRIu32, c->span_id);
}

static void print_call(FILE *f, const struct report *r, uint32_t timer,
		       const struct slow_call *c, size_t rank, uint64_t t0,
		       const struct params *p)
{
	char b[32];

	fprintf(f, "  %zu.", rank);
	print_time(f, c->dur_ns, c->raw_ns);
	print_split(f, c);
	fprintf(f, "  at +%s  tid %" PRIu32 " (%s)",
		report_ns_str(b, sizeof(b), c->start_ns - t0), c->tid,
		c->comm[0] ? c->comm : "?");
	if (c->is_span)
		print_span(f, r, timer, c);
	print_args(f, c, p);
	fputc('\n', f);
	print_kids(f, r, c, SLOW_KID_TOP, 6);
	if (c->kids_more)
		fprintf(f,
			"%*s(%" PRIu64 " more calls inside, on paths not "
			"kept)\n",
			6, "", c->kids_more);
}

/* unranked() - calls of @n whose end is not known: never ranked */
static uint64_t unranked(const struct agg_node *n)
{
	return n->unwound + n->exited + n->execed + n->incomplete;
}

/*
 * print_unranked() - the line under a node's kept calls (or in their
 * place) that says how many of its calls were not ranked and why: a call
 * unwound (an exception, a longjmp, an outer timer's stop), open when its
 * thread exited or exec'ed, or still running at the end has no known end.
 */
static void print_unranked(FILE *f, const struct agg_node *n)
{
	const char *sep = "";

	if (!unranked(n))
		return;
	fprintf(f, "  not ranked, their end not known: %" PRIu64 " call%s (",
		unranked(n), unranked(n) == 1 ? "" : "s");
	if (n->unwound) {
		fprintf(f, "%" PRIu64 " unwound", n->unwound);
		sep = ", ";
	}
	if (n->exited) {
		fprintf(f, "%s%" PRIu64 " open at their thread's exit", sep,
			n->exited);
		sep = ", ";
	}
	if (n->execed) {
		fprintf(f, "%s%" PRIu64 " open at an exec", sep, n->execed);
		sep = ", ";
	}
	if (n->incomplete)
		fprintf(f, "%s%" PRIu64 " still running at the end", sep,
			n->incomplete);
	fputs(")\n", f);
}

void report_slowest_table(FILE *f, const struct report *r,
			  const struct report_view *v)
{
	const struct slow_call *calls[SLOW_K_MAX];
	uint64_t t0 = UINT64_MAX;
	struct params p;
	size_t i, j, m;
	int head = 0;

	for (i = 0; i < v->n; i++)
		if (v->visible[i] && v->nodes[i]->slow && v->nodes[i]->count &&
		    v->nodes[i]->first_start_ns < t0)
			t0 = v->nodes[i]->first_start_ns;
	for (i = 0; i < v->n; i++) {
		const struct agg_node *n = v->nodes[i];

		if (!v->visible[i] || !n->slow ||
		    (!n->slow->n && !unranked(n)))
			continue;
		if (!head++)
			fprintf(f, "\nslowest calls (--slowest %" PRIu32
				   "): wall time less the probes' cost (raw), its "
				   "on-CPU, runnable and blocked parts, start after "
				   "the first call, thread; the calls inside by "
				   "path: calls, time\n",
				n->slow->k);
		fputc('\n', f);
		print_path(f, r, n);
		fputc('\n', f);
		m = slow_sorted(n->slow, calls);
		params_of(r, n, &p);
		for (j = 0; j < m; j++)
			print_call(f, r, n->timer, calls[j], j + 1, t0, &p);
		print_unranked(f, n);
	}
}

/* add_u64() - @o's @k = @v; -ENOMEM */
static int add_u64(json_object *o, const char *k, uint64_t v)
{
	json_object *x = json_object_new_uint64(v);

	if (!x || json_object_object_add(o, k, x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return 0;
}

/* kid_json() - one path's object, "children" left to the caller */
static json_object *kid_json(const struct report *r, const struct slow_kid *k)
{
	json_object *o = json_object_new_object(), *s;
	char name[REPORT_NAME_BUF];
	int e;

	if (!o)
		return NULL;
	s = json_object_new_string(
		report_timer_name(r, k->timer, name, sizeof(name)));
	e = !s || json_object_object_add(o, "name", s);
	if (e)
		json_object_put(s);
	e = e || add_u64(o, "count", k->count) ||
	    add_u64(o, "start_ns", k->start_ns) ||
	    add_u64(o, "duration_ns", k->dur_ns) ||
	    add_u64(o, "raw_duration_ns", k->raw_ns);
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* kids_arr() - @c's paths under @parent, most time first, each with its
 * own "children", into the array @a; 0 or -ENOMEM */
static int kids_arr(const struct report *r, const struct slow_call *c,
		    uint32_t parent, json_object *a)
{
	uint32_t idx[SLOW_KIDS_MAX], m, i;
	json_object *k, *ch;

	m = kid_order(c, parent, idx);
	for (i = 0; i < m; i++) {
		k = kid_json(r, &c->kids[idx[i]]);
		if (!k || json_object_array_add(a, k)) {
			json_object_put(k);
			return -ENOMEM;
		}
		ch = json_object_new_array();
		if (!ch || json_object_object_add(k, "children", ch)) {
			json_object_put(ch);
			return -ENOMEM;
		}
		if (kids_arr(r, c, idx[i], ch))
			return -ENOMEM;
	}
	return 0;
}

/* kids_json() - @c's paths as a nested array into @o's "children" */
static int kids_json(const struct report *r, const struct slow_call *c,
		     json_object *o)
{
	json_object *a = json_object_new_array();

	if (!a || json_object_object_add(o, "children", a)) {
		json_object_put(a);
		return -ENOMEM;
	}
	if (kids_arr(r, c, SLOW_KID_TOP, a))
		return -ENOMEM;
	return add_u64(o, "children_more", c->kids_more);
}

/* split_json() - @c's on/off-CPU parts or its span number, where it has
 * them */
static int split_json(const struct slow_call *c, json_object *o)
{
	if (c->has_split &&
	    (add_u64(o, "on_cpu_ns", c->on_ns) ||
	     add_u64(o, "runq_ns", c->runq_ns) ||
	     add_u64(o, "blocked_ns", c->blocked_ns)))
		return -ENOMEM;
	if (c->is_span && add_u64(o, "span_id", c->span_id))
		return -ENOMEM;
	return 0;
}

/* typed_json() - @v as a JSON number as FMT @fmt reads it (signed or
 * unsigned, cut to its width; unknown: as it is) */
static json_object *typed_json(const char *fmt, uint64_t v)
{
	int64_t s;
	uint64_t u;
	int k = typed(fmt, v, &s, &u);

	return k == 1 ? json_object_new_int64(s) :
		k == 0 ? json_object_new_uint64(u) :
			 json_object_new_uint64(v);
}

/* add_enum() - @o's @k: item @i's value @v by its enumerator's name,
 * where it has one (else no key); 0 or -ENOMEM */
static int add_enum(json_object *o, const char *k, const struct params *p,
		    uint32_t i, uint64_t v)
{
	char buf[128];
	json_object *x;

	if (!enum_of(p, i, v, buf, sizeof(buf)))
		return 0;
	x = json_object_new_string(buf);
	if (!x || json_object_object_add(o, k, x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return 0;
}

/* named_json() - @c's arguments as @p names them: "named_args" (an array
 * of {"name", "type", "value"}, the function's first IPROF_NARGS) and
 * "ret_type", into @o; 0 or -ENOMEM */
static int named_json(const struct slow_call *c, const struct params *p,
		      json_object *o)
{
	json_object *a, *x;
	uint32_t i;
	int e = 0;

	a = json_object_new_array();
	if (!a || json_object_object_add(o, "named_args", a)) {
		json_object_put(a);
		return -ENOMEM;
	}
	for (i = 1; i < p->n && i <= c->nargs && !e; i++) {
		x = json_object_new_object();
		e = !x || json_object_array_add(a, x);
		if (e) {
			json_object_put(x);
			break;
		}
		e = json_object_object_add(x, "name",
					   json_object_new_string(p->name[i])) ||
		    json_object_object_add(x, "type",
					   json_object_new_string(p->type[i])) ||
		    json_object_object_add(x, "value",
					   typed_json(p->fmt[i],
						      c->args[i - 1])) ||
		    add_enum(x, "enum", p, i, c->args[i - 1]);
	}
	x = e ? NULL : json_object_new_string(p->type[0]);
	if (e || !x || json_object_object_add(o, "ret_type", x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return 0;
}

/* vals_json() - @c's "args" (an array of IPROF_NARGS) and "ret", each
 * where it has them (no "ret" of a void function), and by @p's names,
 * into @o; 0 or -ENOMEM */
static int vals_json(const struct slow_call *c, const struct params *p,
		     json_object *o)
{
	json_object *a, *x;
	uint32_t i;

	if (c->nargs) {
		a = json_object_new_array();
		if (!a || json_object_object_add(o, "args", a)) {
			json_object_put(a);
			return -ENOMEM;
		}
		for (i = 0; i < c->nargs && i < IPROF_NARGS; i++) {
			x = json_object_new_uint64(c->args[i]);
			if (!x || json_object_array_add(a, x)) {
				json_object_put(x);
				return -ENOMEM;
			}
		}
	}
	if (p->n && named_json(c, p, o))
		return -ENOMEM;
	if (!c->has_ret || (p->n && !strcmp(p->fmt[0], "-")))
		return 0;
	if (!p->n)
		return add_u64(o, "ret", c->ret);
	x = typed_json(p->fmt[0], c->ret);
	if (!x || json_object_object_add(o, "ret", x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return add_enum(o, "ret_enum", p, 0, c->ret);
}

/* span_json() - a keyed span's "key" ({field: value}) and "stop_tid",
 * "stop_tgid", "stop_comm", "stop_context", "stop_cpu", where its stop
 * sent them; 0 or -ENOMEM */
static int span_json(const struct report *r, uint32_t timer,
		     const struct slow_call *c, json_object *o)
{
	json_object *k, *x;
	char name[64];
	uint32_t i;

	if (c->nkey) {
		k = json_object_new_object();
		if (!k || json_object_object_add(o, "key", k)) {
			json_object_put(k);
			return -ENOMEM;
		}
		for (i = 0; i < c->nkey; i++)
			if (add_u64(k, key_name(r, timer, i, name, sizeof(name)),
				    c->key[i]))
				return -ENOMEM;
	}
	if (!c->has_stop)
		return 0;
	if (add_u64(o, "stop_tid", c->stop_tid) ||
	    add_u64(o, "stop_tgid", c->stop_tgid) ||
	    add_u64(o, "stop_cpu", c->stop_cpu))
		return -ENOMEM;
	x = json_object_new_string(ctx_name(c->stop_ctx));
	if (!x || json_object_object_add(o, "stop_context", x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	x = json_object_new_string(c->stop_comm);
	if (!x || json_object_object_add(o, "stop_comm", x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return 0;
}

static json_object *call_json(const struct report *r, uint32_t timer,
			      const struct slow_call *c, const struct params *p)
{
	json_object *o = json_object_new_object(), *s;
	int e;

	if (!o)
		return NULL;
	s = json_object_new_string(c->comm);
	e = !s || json_object_object_add(o, "comm", s);
	if (e)
		json_object_put(s);
	e = e || add_u64(o, "start_ns", c->start_ns) ||
	    add_u64(o, "duration_ns", c->dur_ns) ||
	    add_u64(o, "raw_duration_ns", c->raw_ns) || split_json(c, o) ||
	    add_u64(o, "tid", c->tid) || add_u64(o, "tgid", c->tgid) ||
	    vals_json(c, p, o) || (c->is_span && span_json(r, timer, c, o)) ||
	    kids_json(r, c, o);
	if (e) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *report_slowest_json(const struct report *r,
				 const struct agg_node *n, int *err)
{
	const struct slow_call *calls[SLOW_K_MAX];
	json_object *a, *o;
	struct params p;
	size_t i, m;

	*err = 0;
	if (!n->slow)
		return NULL;
	params_of(r, n, &p);
	a = json_object_new_array();
	if (!a)
		goto nomem;
	m = slow_sorted(n->slow, calls);
	for (i = 0; i < m; i++) {
		o = call_json(r, n->timer, calls[i], &p);
		if (!o || json_object_array_add(a, o)) {
			json_object_put(o);
			goto nomem;
		}
	}
	return a;
nomem:
	json_object_put(a);
	*err = -ENOMEM;
	return NULL;
}
