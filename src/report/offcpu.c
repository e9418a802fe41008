// SPDX-License-Identifier: GPL-2.0-only
/*
 * --offcpu-stacks in the reports (include/iprof/offcpu.h): the table's
 * section of each node's blocking stacks and wakers, and their JSON
 * object (doc/json.md, "offcpu").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "iprof/offcpu.h"
#include "iprof/report.h"

/* frames shown per stack in the table (JSON has them all) */
#define SHOW_FRAMES 6
#define KNAME_BUF 256

/* frame_name() - @addr's function, or its address in hex */
static const char *frame_name(const struct report *r, uint64_t addr,
			      char *buf, size_t size)
{
	if (r->kname && r->kname(r->kname_ctx, addr, buf, size))
		return buf;
	snprintf(buf, size, "%#" PRIx64, addr);
	return buf;
}

/* uframe_name() - user frame @i (@addr) of process @tgid: its function,
 * or its address in hex.  Frames past the first are return addresses:
 * named by the call before them. */
static const char *uframe_name(const struct report *r, uint32_t tgid,
			       uint32_t i, uint64_t addr, char *buf,
			       size_t size)
{
	if (r->uname && r->uname(r->uname_ctx, tgid, i ? addr - 1 : addr, buf,
				 size))
		return buf;
	snprintf(buf, size, "%#" PRIx64, addr);
	return buf;
}

/* print_ustack() - "\n  ...  user: f <- g ..." of @b's user stack, if
 * any: SHOW_FRAMES of them, innermost (where it entered the kernel)
 * first */
static void print_ustack(FILE *f, const struct report *r,
			 const struct off_block *b)
{
	char buf[KNAME_BUF];
	uint32_t i;

	if (!b->ustk.n)
		return;
	fprintf(f, "\n%28s%s", "", "user: ");
	for (i = 0; i < b->ustk.n && i < SHOW_FRAMES; i++)
		fprintf(f, "%s%s", i ? " <- " : "",
			uframe_name(r, b->tgid, i, b->ustk.ip[i], buf,
				    sizeof(buf)));
	if (i < b->ustk.n)
		fputs(" <- ...", f);
}

/*
 * iprof's own frames (its BPF program and the tracepoint's call of it),
 * left out at the top of every stack; with @sched also the scheduler's
 * (the table: the wait is in what called it)
 */
static int boring(const char *name, int sched)
{
	static const char *const exact[] = { "__schedule", "schedule",
					     "schedule_preempt_disabled",
					     "try_to_wake_up", NULL };
	static const char *const prefix[] = { "bpf_prog_", "bpf_trace_run",
					      "__bpf_trace_", "__traceiter_",
					      NULL };
	size_t i;

	for (i = 0; sched && exact[i]; i++)
		if (!strcmp(name, exact[i]))
			return 1;
	for (i = 0; prefix[i]; i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* iprof's own frames are at most these first ones of a stack */
#define OWN_FRAMES 4

/*
 * first_frame() - the first of @s's frames below iprof's own (the last
 * boring() one of the first OWN_FRAMES: the program itself may no longer
 * be in kallsyms, and then its address names a neighbour) and, with
 * @sched, below the scheduler's
 */
static uint32_t first_frame(const struct report *r, const struct off_stack *s,
			    int sched)
{
	char buf[KNAME_BUF];
	uint32_t i, start = 0;

	for (i = 0; i < s->n && i < OWN_FRAMES; i++)
		if (boring(frame_name(r, s->ip[i], buf, sizeof(buf)), 0))
			start = i + 1;
	for (i = start; sched && i + 1 < s->n; i++)
		if (!boring(frame_name(r, s->ip[i], buf, sizeof(buf)), 1))
			break;
	return i < s->n ? i : s->n - 1;
}

/* print_stack() - "f <- g <- h ..." from first_frame(), @show of the
 * first @n */
static void print_stack(FILE *f, const struct report *r,
			const struct off_stack *s, uint32_t n, uint32_t show)
{
	char buf[KNAME_BUF];
	uint32_t i, shown = 0;

	if (!n) {
		fputs("(stack lost)", f);
		return;
	}
	for (i = first_frame(r, s, 1); i < n && shown < show; i++, shown++)
		fprintf(f, "%s%s", shown ? " <- " : "",
			frame_name(r, s->ip[i], buf, sizeof(buf)));
	if (i < n)
		fputs(" <- ...", f);
}

/*
 * A blocked stack as shown: those whose frames below the scheduler's name
 * the same functions (return addresses apart) are one, and each shows
 * SHOW_FRAMES frames or, where another one shares them, up to the first
 * frame that differs from every other's (a newcomer read two entries
 * whose six frames were the same as duplicates).
 */
struct bview {
	const struct off_block *b;
	uint32_t show; /* frames shown */
	uint64_t ns, count;
};

/* common() - how many frames from their first_frame() on @x and @y name
 * the same functions; *@all: every one of both */
static uint32_t common(const struct report *r, const struct off_stack *x,
		       const struct off_stack *y, int *all)
{
	char a[KNAME_BUF], b[KNAME_BUF];
	uint32_t i = x->n ? first_frame(r, x, 1) : 0,
		 j = y->n ? first_frame(r, y, 1) : 0, k = 0;

	for (; i < x->n && j < y->n; i++, j++, k++)
		if (x->ip[i] != y->ip[j] &&
		    strcmp(frame_name(r, x->ip[i], a, sizeof(a)),
			   frame_name(r, y->ip[j], b, sizeof(b))))
			break;
	*all = i == x->n && j == y->n;
	return k;
}

/* same_ustack() - @x's and @y's user stacks are the same (none, or the
 * same process's same return addresses): their kernel stacks may merge */
static int same_ustack(const struct off_block *x, const struct off_block *y)
{
	return x->ustk.n == y->ustk.n &&
	       (!x->ustk.n ||
		(x->tgid == y->tgid &&
		 !memcmp(x->ustk.ip, y->ustk.ip, x->ustk.n * sizeof(*x->ustk.ip))));
}

/* bviews() - @s's blocked stacks as shown into @v (OFF_TOP_MAX), most
 * time first, those whose frames name the same functions (and whose user
 * stacks are the same) as one; how many */
static size_t bviews(const struct report *r, const struct off_set *s,
		     struct bview *v)
{
	const struct off_block *b[OFF_TOP_MAX];
	size_t i, j, n = 0, m = off_sorted_blocks(s, b);
	uint32_t k;
	int all;

	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j++) {
			common(r, &v[j].b->stk, &b[i]->stk, &all);
			if (all && same_ustack(v[j].b, b[i]))
				break;
		}
		if (j == n)
			v[n++] = (struct bview){ .b = b[i],
						 .show = SHOW_FRAMES };
		v[j].ns += b[i]->ns;
		v[j].count += b[i]->count;
	}
	for (i = 1; i < n; i++) { /* merged ones may move up (stable) */
		struct bview x = v[i];

		for (j = i; j > 0 && v[j - 1].ns < x.ns; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			k = common(r, &v[i].b->stk, &v[j].b->stk, &all) + 1;
			if (k > v[i].show)
				v[i].show = k;
		}
	return n;
}

/*
 * A waker as shown: an interrupt's stack is cut after its entry frame
 * ("asm_..."), the task it interrupted left out, and the wakers equal
 * then are one.
 */
struct wview {
	const struct off_waker *w;
	uint32_t n; /* frames shown */
	uint64_t ns, count;
};

/* cut() - the frames of @w's stack shown */
static uint32_t cut(const struct report *r, const struct off_waker *w)
{
	char buf[KNAME_BUF];
	uint32_t i;

	if (w->ctx == IPROF_CTX_TASK)
		return w->stk.n;
	for (i = 0; i < w->stk.n; i++)
		if (!strncmp(frame_name(r, w->stk.ip[i], buf, sizeof(buf)),
			     "asm_", 4))
			return i + 1;
	return w->stk.n;
}

/* same_names() - @x's and @y's first @n frames are in the same functions
 * (an interrupt's return addresses differ where it was taken) */
static int same_names(const struct report *r, const struct off_stack *x,
		      const struct off_stack *y, uint32_t n)
{
	char a[KNAME_BUF], b[KNAME_BUF];
	uint32_t i;

	for (i = 0; i < n; i++)
		if (x->ip[i] != y->ip[i] &&
		    strcmp(frame_name(r, x->ip[i], a, sizeof(a)),
			   frame_name(r, y->ip[i], b, sizeof(b))))
			return 0;
	return 1;
}

/* wviews() - @s's wakers as shown into @v (OFF_TOP_MAX), most time
 * first; how many */
static size_t wviews(const struct report *r, const struct off_set *s,
		     struct wview *v)
{
	const struct off_waker *w[OFF_TOP_MAX];
	size_t i, j, n = 0, m = off_sorted_wakers(s, w);
	uint32_t k;

	for (i = 0; i < m; i++) {
		k = cut(r, w[i]);
		for (j = 0; j < n; j++)
			if (v[j].w->ctx == w[i]->ctx &&
			    v[j].w->tid == w[i]->tid && v[j].n == k &&
			    same_names(r, &v[j].w->stk, &w[i]->stk, k))
				break;
		if (j == n)
			v[n++] = (struct wview){ .w = w[i], .n = k };
		v[j].ns += w[i]->ns;
		v[j].count += w[i]->count;
	}
	/* merged entries may move up: sorted again (insertion, stable) */
	for (i = 1; i < n; i++) {
		struct wview x = v[i];

		for (j = i; j > 0 && v[j - 1].ns < x.ns; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n;
}

/* print_share() - "    T  P%  Nx  " */
static void print_share(FILE *f, uint64_t ns, uint64_t count, uint64_t all)
{
	char b[32];

	fprintf(f, "    %9s %3.0f%% %6" PRIu64 "x  ", report_ns_str(b, sizeof(b), ns),
		all ? 100.0 * (double)ns / (double)all : 0.0, count);
}

static const char *ctx_name(uint32_t ctx)
{
	static const char *const n[IPROF_CTX_MAX] = { "task", "softirq",
						      "hardirq", "nmi" };

	return ctx < IPROF_CTX_MAX ? n[ctx] : "task";
}

static void print_waker(FILE *f, const struct report *r,
			const struct wview *v)
{
	const struct off_waker *w = v->w;

	if (w->ctx != IPROF_CTX_TASK)
		fprintf(f, "woken in a %s: ", ctx_name(w->ctx));
	else
		fprintf(f, "woken by tid %" PRIu32 " (%s): ", w->tid,
			w->comm[0] ? w->comm : "?");
	print_stack(f, r, &w->stk, v->n, SHOW_FRAMES);
}

/* print_other() - the blocked time the kept entries leave, if any */
static void print_other(FILE *f, uint64_t all, uint64_t kept)
{
	if (all > kept) {
		print_share(f, all - kept, 0, all);
		fputs("other (not kept, lost, or no call completed)\n", f);
	}
}

static void print_node(FILE *f, const struct report *r,
		       const struct agg_node *n)
{
	struct bview b[OFF_TOP_MAX];
	struct wview w[OFF_TOP_MAX];
	uint64_t all = n->blocked_ns, kept = 0;
	char t1[32], t2[32];
	size_t i, m;

	fprintf(f, "  blocked %s, runnable %s (preempted, waiting for a CPU)\n",
		report_ns_str(t1, sizeof(t1), n->blocked_ns),
		report_ns_str(t2, sizeof(t2), n->runq_ns));
	m = bviews(r, n->off, b);
	for (i = 0; i < m; i++) {
		print_share(f, b[i].ns, b[i].count, all);
		fputs("blocked in ", f);
		print_stack(f, r, &b[i].b->stk, b[i].b->stk.n, b[i].show);
		print_ustack(f, r, b[i].b);
		fputc('\n', f);
		kept += b[i].ns;
	}
	print_other(f, all, kept);
	m = wviews(r, n->off, w);
	kept = 0;
	for (i = 0; i < m; i++) {
		print_share(f, w[i].ns, w[i].count, all);
		print_waker(f, r, &w[i]);
		fputc('\n', f);
		kept += w[i].ns;
	}
	print_other(f, all, kept);
}

void report_offcpu_table(FILE *f, const struct report *r,
			 const struct report_view *v)
{
	char name[REPORT_NAME_BUF];
	size_t i;
	int head = 0;

	for (i = 0; i < v->n; i++) {
		const struct agg_node *n = v->nodes[i];
		const struct agg_node *p;

		if (!v->visible[i] || !n->off || !n->off->charged_ns)
			continue;
		if (!head++)
			fputs("\noff-CPU (--offcpu-stacks): each path's blocked "
			      "time by the kernel stack it blocked in, then by "
			      "who woke it: time, share, waits\n",
			      f);
		fputc('\n', f);
		/* the path, "a > b > c" */
		for (p = n; p->parent && p->parent->parent; p = p->parent)
			;
		fputs(report_timer_name(r, p->timer, name, sizeof(name)), f);
		while (p != n) {
			const struct agg_node *c = n;

			while (c->parent != p)
				c = c->parent;
			p = c;
			fprintf(f, " > %s",
				report_timer_name(r, p->timer, name,
						  sizeof(name)));
		}
		fputc('\n', f);
		print_node(f, r, n);
	}
	if (!head && r->offcpu_stacks)
		fputs("\noff-CPU (--offcpu-stacks): no shown path blocked while "
		      "it was timed (OFFCPU holds preempted time too, which "
		      "has no stack to blame)\n",
		      f);
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

static int add_str(json_object *o, const char *k, const char *v)
{
	json_object *x = json_object_new_string(v);

	if (!x || json_object_object_add(o, k, x)) {
		json_object_put(x);
		return -ENOMEM;
	}
	return 0;
}

/* add_arr() - a new array as @o's @k, NULL on -ENOMEM */
static json_object *add_arr(json_object *o, const char *k)
{
	json_object *a = json_object_new_array();

	if (!a || json_object_object_add(o, k, a)) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

/* stack_json() - @s's first @n frames, innermost first, iprof's own
 * left out, as @o's "frames" */
static int stack_json(const struct report *r, const struct off_stack *s,
		      uint32_t n, json_object *o)
{
	json_object *a = add_arr(o, "frames"), *x;
	char buf[KNAME_BUF];
	uint32_t i;

	if (!a)
		return -ENOMEM;
	for (i = n ? first_frame(r, s, 0) : 0; i < n; i++) {
		x = json_object_new_string(
			frame_name(r, s->ip[i], buf, sizeof(buf)));
		if (!x || json_object_array_add(a, x)) {
			json_object_put(x);
			return -ENOMEM;
		}
	}
	return 0;
}

/* ustack_json() - @b's user stack, if any, as @o's "user_frames"
 * (innermost first) and its process as "pid" */
static int ustack_json(const struct report *r, const struct off_block *b,
		       json_object *o)
{
	json_object *a, *x;
	char buf[KNAME_BUF];
	uint32_t i;

	if (!b->ustk.n)
		return 0;
	a = add_arr(o, "user_frames");
	if (!a || add_u64(o, "pid", b->tgid))
		return -ENOMEM;
	for (i = 0; i < b->ustk.n; i++) {
		x = json_object_new_string(uframe_name(r, b->tgid, i,
						       b->ustk.ip[i], buf,
						       sizeof(buf)));
		if (!x || json_object_array_add(a, x)) {
			json_object_put(x);
			return -ENOMEM;
		}
	}
	return 0;
}

/* entry() - a new object in array @a with "ns" and "waits" */
static json_object *entry(json_object *a, uint64_t ns, uint64_t count)
{
	json_object *o = json_object_new_object();

	if (!o || json_object_array_add(a, o)) {
		json_object_put(o);
		return NULL;
	}
	if (add_u64(o, "ns", ns) || add_u64(o, "waits", count))
		return NULL;
	return o;
}

static int wakers_json(const struct report *r, const struct off_set *s,
		       json_object *root)
{
	struct wview v[OFF_TOP_MAX];
	json_object *a = add_arr(root, "wakers"), *o;
	size_t i, m = wviews(r, s, v);

	if (!a)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		const struct off_waker *w = v[i].w;

		o = entry(a, v[i].ns, v[i].count);
		if (!o || add_str(o, "context", ctx_name(w->ctx)) ||
		    add_u64(o, "tid", w->tid) || add_u64(o, "pid", w->tgid) ||
		    add_str(o, "comm", w->comm) ||
		    stack_json(r, &w->stk, v[i].n, o))
			return -ENOMEM;
	}
	return add_u64(root, "wakers_other_ns", s->waker_more_ns);
}

static int offcpu_fill(const struct report *r, const struct agg_node *n,
		       json_object *root)
{
	const struct off_block *b[OFF_TOP_MAX];
	json_object *a, *o;
	size_t i, m;

	if (add_u64(root, "blocked_ns", n->blocked_ns) ||
	    add_u64(root, "runq_ns", n->runq_ns) ||
	    add_u64(root, "charged_ns", n->off->charged_ns))
		return -ENOMEM;
	a = add_arr(root, "stacks");
	if (!a)
		return -ENOMEM;
	m = off_sorted_blocks(n->off, b);
	for (i = 0; i < m; i++) {
		o = entry(a, b[i]->ns, b[i]->count);
		if (!o || stack_json(r, &b[i]->stk, b[i]->stk.n, o) ||
		    ustack_json(r, b[i], o))
			return -ENOMEM;
	}
	if (add_u64(root, "stacks_other_ns", n->off->block_more_ns))
		return -ENOMEM;
	return wakers_json(r, n->off, root);
}

struct json_object *report_offcpu_json(const struct report *r,
				       const struct agg_node *n, int *err)
{
	json_object *o;

	*err = 0;
	if (!n->off || !n->off->charged_ns)
		return NULL;
	o = json_object_new_object();
	if (!o || offcpu_fill(r, n, o)) {
		json_object_put(o);
		*err = -ENOMEM;
		return NULL;
	}
	return o;
}
