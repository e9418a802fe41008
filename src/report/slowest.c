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

/* print_args() - "  args a0 .. a5  ret R" for what @c has of them */
static void print_args(FILE *f, const struct slow_call *c)
{
	uint32_t i;

	if (c->nargs)
		fputs("  args", f);
	for (i = 0; i < c->nargs && i < IPROF_NARGS; i++) {
		fputc(' ', f);
		print_val(f, c->args[i]);
	}
	if (c->has_ret) {
		fputs("  ret ", f);
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

static void print_call(FILE *f, const struct report *r,
		       const struct slow_call *c, size_t rank, uint64_t t0)
{
	char b[32];

	fprintf(f, "  %zu.", rank);
	print_time(f, c->dur_ns, c->raw_ns);
	print_split(f, c);
	fprintf(f, "  at +%s  tid %" PRIu32 " (%s)",
		report_ns_str(b, sizeof(b), c->start_ns - t0), c->tid,
		c->comm[0] ? c->comm : "?");
	print_args(f, c);
	fputc('\n', f);
	print_kids(f, r, c, SLOW_KID_TOP, 6);
	if (c->kids_more)
		fprintf(f,
			"%*s(%" PRIu64 " more calls inside, on paths not "
			"kept)\n",
			6, "", c->kids_more);
}

void report_slowest_table(FILE *f, const struct report *r,
			  const struct report_view *v)
{
	const struct slow_call *calls[SLOW_K_MAX];
	uint64_t t0 = UINT64_MAX;
	size_t i, j, m;
	int head = 0;

	for (i = 0; i < v->n; i++)
		if (v->visible[i] && v->nodes[i]->slow && v->nodes[i]->count &&
		    v->nodes[i]->first_start_ns < t0)
			t0 = v->nodes[i]->first_start_ns;
	for (i = 0; i < v->n; i++) {
		const struct agg_node *n = v->nodes[i];

		if (!v->visible[i] || !n->slow || !n->slow->n)
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
		for (j = 0; j < m; j++)
			print_call(f, r, calls[j], j + 1, t0);
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

/* vals_json() - @c's "args" (an array of IPROF_NARGS) and "ret", each
 * where it has them, into @o; 0 or -ENOMEM */
static int vals_json(const struct slow_call *c, json_object *o)
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
	return c->has_ret ? add_u64(o, "ret", c->ret) : 0;
}

static json_object *call_json(const struct report *r, const struct slow_call *c)
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
	    add_u64(o, "raw_duration_ns", c->raw_ns) ||
	    split_json(c, o) || add_u64(o, "tid", c->tid) ||
	    add_u64(o, "tgid", c->tgid) || vals_json(c, o) ||
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
	size_t i, m;

	*err = 0;
	if (!n->slow)
		return NULL;
	a = json_object_new_array();
	if (!a)
		goto nomem;
	m = slow_sorted(n->slow, calls);
	for (i = 0; i < m; i++) {
		o = call_json(r, calls[i]);
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
