// SPDX-License-Identifier: GPL-2.0-only
/*
 * --format chrome: Trace Event Format JSON from the record stream
 * (include/iprof/chrome.h).  Each thread (or interrupt context of a CPU)
 * keeps a stack of open calls, closed as the aggregator closes them
 * (src/core/agg.c): a call becomes one "X" event when it ends.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "iprof/chrome.h"
#include "iprof/pipeline.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "iprof/slow.h"
#include "iprof/util.h"

#ifndef IPROF_VERSION
#define IPROF_VERSION "unknown"
#endif

/* open calls per track; deeper starts (only a hostile file has them) are
 * ignored */
#define CHROME_MAX_DEPTH 64
#define CHROME_BUCKETS 1024
/* a waker this long before its wakee's blocking switch-out still woke
 * that wait (OFF_WAKE_EARLY_NS of src/core/agg_offcpu.c), ns */
#define CHROME_WAKE_EARLY_NS 100000ull

struct cframe {
	uint32_t timer;
	uint32_t nargs; /* IPROF_NARGS: args[] are the call's (--slowest) */
	uint32_t has_ret; /* ret is its return value (--slowest) */
	uint64_t ts;
	int named; /* value names the call (IPROF_REC_NAME) */
	uint64_t value;
	uint32_t text; /* c->texts[text - 1] names it (NAMESTR); 0: value */
	uint64_t args[IPROF_NARGS];
	uint64_t ret;
};

/* one track: a thread, or an interrupt context of a CPU */
struct ctrack {
	uint32_t key; /* tid, or CHROME_CTX_TID() */
	uint32_t pid; /* tgid; 0 for interrupt contexts */
	int has_comm;
	char comm[IPROF_COMM_LEN];
	uint32_t n; /* open calls */
	/* IPROF_REC_NAME just read: names the next START of name_timer at
	 * name_depth */
	int name_set;
	uint32_t name_timer, name_depth;
	uint64_t name_value;
	uint32_t name_text; /* as cframe.text */
	/* IPROF_REC_NAMESTR's head read, nhave of its nneed text bytes */
	int npending;
	struct iprof_rec_namestr nhead;
	uint32_t nneed, nhave;
	char ntext[IPROF_NAME_PARTS * IPROF_NAME_STR];
	/* --offcpu-stacks: the waker of the thread's current wait
	 * (IPROF_REC_WAKER part 0, as src/core/agg_offcpu.c keeps it), its
	 * flow drawn when the wait ends; wk_ts 0: none */
	uint64_t wk_ts;
	uint32_t wk_tid, wk_tgid, wk_ctx, wk_cpu;
	char wk_comm[IPROF_COMM_LEN]; /* part 1's; "" none */
	uint32_t argmask; /* IPROF_REC_ARGS pairs for the next start */
	uint64_t args[IPROF_NARGS]; /* ... their values */
	struct cframe f[CHROME_MAX_DEPTH];
	struct ctrack *next; /* hash chain */
	struct ctrack *all;  /* every track, newest first */
};

struct chrome {
	FILE *f;
	const struct rec_run *run;
	int err;
	uint64_t events, ignored;
	uint64_t flows; /* waker-to-wakee flows drawn: the last id */
	uint32_t max_depth; /* deeper calls are not written; 0: none */
	uint64_t from_ns; /* calls that ended before are not written */
	int written; /* an element of traceEvents is out: commas from now */
	struct ctrack *bucket[CHROME_BUCKETS];
	struct ctrack *all;
	/* text names' labels (IPROF_REC_NAMESTR), one per named call */
	char **texts;
	uint32_t ntexts, texts_cap;
};

static int fail(struct chrome *c, int e)
{
	if (!c->err)
		c->err = e;
	return c->err;
}

static struct ctrack *track(struct chrome *c, uint32_t key, uint32_t pid)
{
	struct ctrack **b = &c->bucket[key % CHROME_BUCKETS], *t;

	for (t = *b; t; t = t->next)
		if (t->key == key)
			return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->key = key;
	t->pid = pid;
	t->next = *b;
	*b = t;
	t->all = c->all;
	c->all = t;
	return t;
}

/* "12.345": @ns as microseconds with ns precision */
static json_object *us(int64_t ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%s%lld.%03lld", ns < 0 ? "-" : "",
		 (long long)((ns < 0 ? -ns : ns) / 1000),
		 (long long)((ns < 0 ? -ns : ns) % 1000));
	return json_object_new_double_s((double)ns / 1e3, buf);
}

/* write @o (taking it) as the next element of traceEvents */
static int emit(struct chrome *c, json_object *o)
{
	const char *s;
	int e;

	if (c->err) {
		json_object_put(o);
		return c->err;
	}
	s = o ? json_object_to_json_string_ext(
			o,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
	      : NULL;
	if (!s) {
		json_object_put(o);
		return fail(c, -ENOMEM);
	}
	/* (names from the kernel and argv may be any bytes: U+FFFD for
	 * those that begin no UTF-8 character, as in every format) */
	errno = 0;
	if (fputs(c->written ? ",\n" : "\n", c->f) < 0)
		fail(c, errno ? -errno : -EIO);
	else if ((e = util_utf8_fwrite(c->f, s, strlen(s))))
		fail(c, e);
	c->written = 1;
	json_object_put(o);
	return c->err;
}

/* emit() an event @o (taking it) built with @bad set where a part of it
 * could not be made (-ENOMEM then, @o dropped), and count it */
static int emit_event(struct chrome *c, json_object *o, int bad)
{
	if (bad) {
		json_object_put(o);
		return fail(c, -ENOMEM);
	}
	c->events++;
	return emit(c, o);
}

static void kv(json_object *o, const char *k, json_object *v, int *bad)
{
	if (!v || json_object_object_add(o, k, v)) {
		json_object_put(v);
		*bad = 1;
	}
}

static const char *timer_name(const struct chrome *c, uint32_t timer)
{
	return timer < c->run->ntimers && c->run->timers[timer].name
		       ? c->run->timers[timer].name
		       : "?";
}

/* vals_args() - @fr's arguments and return value (--slowest) into the
 * event's args @a: "args" (6 numbers) and "ret", where it has them */
static void vals_args(const struct cframe *fr, json_object *a, int *bad)
{
	json_object *v;
	uint32_t i;

	if (fr->nargs) {
		v = json_object_new_array();
		kv(a, "args", v, bad);
		for (i = 0; v && i < fr->nargs && i < IPROF_NARGS; i++) {
			json_object *x = json_object_new_uint64(fr->args[i]);

			if (!x || json_object_array_add(v, x)) {
				json_object_put(x);
				*bad = 1;
			}
		}
	}
	if (fr->has_ret)
		kv(a, "ret", json_object_new_uint64(fr->ret), bad);
}

/*
 * val_record() - IPROF_REC_ARGS (kept for the thread's next start) or
 * IPROF_REC_RETVAL (on the open call at its depth, whose stop follows).
 */
static int val_record(struct chrome *c, const void *rec)
{
	struct iprof_rec_val v;
	struct ctrack *t;
	uint32_t pair;

	memcpy(&v, rec, sizeof(v));
	t = track(c, v.tid, 0); /* its START sets the pid */
	if (!t)
		return fail(c, -ENOMEM);
	if (v.type == IPROF_REC_RETVAL) {
		if (v.lo1 && v.lo1 <= t->n) {
			t->f[v.lo1 - 1].ret = v.lo0 | (uint64_t)v.hi0 << 32;
			t->f[v.lo1 - 1].has_ret = 1;
		}
		return c->err;
	}
	pair = IPROF_VAL_PAIR(v.flags);
	if (pair > 2)
		return c->err;
	if (!pair)
		t->argmask = 0;
	t->argmask |= 1u << pair;
	t->args[2 * pair] = v.lo0 | (uint64_t)v.hi0 << 32;
	t->args[2 * pair + 1] = v.lo1 | (uint64_t)v.hi1 << 32;
	return c->err;
}

/* close the top call of @t at @end as one X event; @how NULL: it stopped */
static int close_top(struct chrome *c, struct ctrack *t, uint64_t end,
		     const char *how)
{
	struct cframe *fr = &t->f[--t->n];
	json_object *o, *a;
	int bad;

	if ((c->max_depth && t->n + 1 > c->max_depth) || end < c->from_ns)
		return 0;
	o = json_object_new_object();
	bad = !o;
	if (bad)
		return fail(c, -ENOMEM);
	if (fr->named && fr->text && fr->text <= c->ntexts) {
		char nb[REPORT_NAME_BUF];

		snprintf(nb, sizeof(nb), "%s(%s)", timer_name(c, fr->timer),
			 c->texts[fr->text - 1]);
		kv(o, "name", json_object_new_string(nb), &bad);
	} else if (fr->named) {
		char nb[REPORT_NAME_BUF];

		/* as report_timer_name() labels a named node */
		if ((int64_t)fr->value < 0)
			snprintf(nb, sizeof(nb), "%s(%" PRId64 ")",
				 timer_name(c, fr->timer), (int64_t)fr->value);
		else
			snprintf(nb, sizeof(nb), "%s(%" PRIu64 ")",
				 timer_name(c, fr->timer), fr->value);
		kv(o, "name", json_object_new_string(nb), &bad);
	} else {
		kv(o, "name", json_object_new_string(timer_name(c, fr->timer)),
		   &bad);
	}
	kv(o, "cat", json_object_new_string("timer"), &bad);
	kv(o, "ph", json_object_new_string("X"), &bad);
	kv(o, "ts", us((int64_t)(fr->ts - c->run->start_ns)), &bad);
	kv(o, "dur", us(end > fr->ts ? (int64_t)(end - fr->ts) : 0), &bad);
	kv(o, "pid", json_object_new_int64(t->pid), &bad);
	kv(o, "tid", json_object_new_int64(t->key), &bad);
	a = json_object_new_object();
	kv(o, "args", a, &bad);
	if (a) {
		kv(a, "depth", json_object_new_int64(t->n + 1), &bad);
		kv(a, "timer", json_object_new_int64(fr->timer), &bad);
		if (how)
			kv(a, "end", json_object_new_string(how), &bad);
		vals_args(fr, a, &bad);
	}
	return emit_event(c, o, bad);
}

/*
 * hit_event() - an "i" (instant) event at @ts for a call of @timer whose
 * return iprof cannot see (IPROF_REC_HIT): it has no duration, at depth
 * t->n + 1 of its thread's track.
 */
static int hit_event(struct chrome *c, struct ctrack *t, uint32_t timer,
		     uint64_t ts)
{
	json_object *o, *a;
	int bad;

	if ((c->max_depth && t->n + 1 > c->max_depth) || ts < c->from_ns)
		return 0;
	o = json_object_new_object();
	bad = !o;
	if (bad)
		return fail(c, -ENOMEM);
	kv(o, "name", json_object_new_string(timer_name(c, timer)), &bad);
	kv(o, "cat", json_object_new_string("timer"), &bad);
	kv(o, "ph", json_object_new_string("i"), &bad);
	kv(o, "s", json_object_new_string("t"), &bad);
	kv(o, "ts", us((int64_t)(ts - c->run->start_ns)), &bad);
	kv(o, "pid", json_object_new_int64(t->pid), &bad);
	kv(o, "tid", json_object_new_int64(t->key), &bad);
	a = json_object_new_object();
	kv(o, "args", a, &bad);
	if (a) {
		kv(a, "depth", json_object_new_int64(t->n + 1), &bad);
		kv(a, "timer", json_object_new_int64(timer), &bad);
		kv(a, "end", json_object_new_string("return not seen: counted only"), &bad);
	}
	return emit_event(c, o, bad);
}

/* close every call above depth @keep (0: all) as @how */
static void close_down(struct chrome *c, struct ctrack *t, uint32_t keep,
		       uint64_t end, const char *how)
{
	while (t->n > keep && !c->err)
		close_top(c, t, end, how);
}

struct chrome *chrome__new(FILE *f, const struct rec_run *run,
			   uint32_t max_depth)
{
	struct chrome *c = calloc(1, sizeof(*c));
	json_object *o;
	const char *s;
	int bad = 0;
	size_t i;

	if (!c)
		return NULL;
	c->f = f;
	c->run = run;
	c->max_depth = max_depth;
	o = json_object_new_object();
	if (!o)
		goto nomem;
	kv(o, "tool", json_object_new_string("iprof"), &bad);
	kv(o, "version", json_object_new_string(IPROF_VERSION), &bad);
	if (run->host)
		kv(o, "host", json_object_new_string(run->host), &bad);
	if (run->kernel)
		kv(o, "kernel", json_object_new_string(run->kernel), &bad);
	kv(o, "start_realtime_ns",
	   json_object_new_uint64(run->start_realtime_ns), &bad);
	if (max_depth)
		kv(o, "max_depth", json_object_new_uint64(max_depth), &bad);
	if (run->command) {
		json_object *a = json_object_new_array();

		kv(o, "command", a, &bad);
		for (i = 0; a && run->command[i]; i++)
			if (json_object_array_add(
				    a, json_object_new_string(run->command[i])))
				bad = 1;
	}
	s = bad ? NULL
		: json_object_to_json_string_ext(
			  o, JSON_C_TO_STRING_PLAIN |
				     JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s) {
		json_object_put(o);
		goto nomem;
	}
	errno = 0;
	if (fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":", f) < 0 ||
	    util_utf8_fwrite(f, s, strlen(s)) ||
	    fputs(",\"traceEvents\":[", f) < 0) {
		json_object_put(o);
		free(c);
		if (!errno)
			errno = EIO;
		return NULL;
	}
	json_object_put(o);
	return c;
nomem:
	free(c);
	errno = ENOMEM;
	return NULL;
}

/* is_keyed() - @type is a keyed span's record (struct iprof_rec_key) */
static int is_keyed(uint8_t type)
{
	return (type >= IPROF_REC_KSTART && type <= IPROF_REC_KEXPIRED) ||
	       type == IPROF_REC_KINFO;
}

/*
 * A keyed span's record as an async event on its starting side's track:
 * "b" at KSTART, "e" at KSTOP, KREPLACED or KEXPIRED (args.end "replaced"
 * or "expired"), cat "keyed", id the span's number and starting side
 * (Trace Event Format, "Async Events": b/e pairs match by cat, id, name).
 * Unlike X events they need not nest.  KINFO (--slowest's key values and
 * stopping side) is not drawn: the tree's kept calls show it.
 */
static int keyed_event(struct chrome *c, const void *rec)
{
	struct iprof_rec_key k;
	json_object *o, *a;
	char id[40];
	uint32_t tid;
	int64_t pid;
	int bad;

	memcpy(&k, rec, sizeof(k));
	if (k.type == IPROF_REC_KINFO)
		return 0;
	if (k.timer >= c->run->ntimers || k.ctx >= IPROF_CTX_MAX) {
		c->ignored++;
		return c->err;
	}
	if (k.ts < c->from_ns)
		return 0;
	tid = k.ctx ? CHROME_CTX_TID(k.ctx, k.cpu) : k.tid;
	pid = k.ctx ? 0 : k.tgid;
	if (!track(c, tid, (uint32_t)pid))
		return fail(c, -ENOMEM);
	snprintf(id, sizeof(id), "0x%x.%x", k.id, tid);
	o = json_object_new_object();
	bad = !o;
	if (bad)
		return fail(c, -ENOMEM);
	kv(o, "name", json_object_new_string(timer_name(c, k.timer)), &bad);
	kv(o, "cat", json_object_new_string("keyed"), &bad);
	kv(o, "ph", json_object_new_string(k.type == IPROF_REC_KSTART ? "b" :
								       "e"),
	   &bad);
	kv(o, "id", json_object_new_string(id), &bad);
	kv(o, "ts", us((int64_t)(k.ts - c->run->start_ns)), &bad);
	kv(o, "pid", json_object_new_int64(pid), &bad);
	kv(o, "tid", json_object_new_int64(tid), &bad);
	a = json_object_new_object();
	kv(o, "args", a, &bad);
	if (a) {
		kv(a, "timer", json_object_new_int64(k.timer), &bad);
		if (k.type == IPROF_REC_KREPLACED || k.type == IPROF_REC_KEXPIRED)
			kv(a, "end",
			   json_object_new_string(k.type == IPROF_REC_KREPLACED ?
							  "replaced" :
							  "expired"),
			   &bad);
	}
	return emit_event(c, o, bad);
}

/* a thread that exec'd took its leader's tid (IPROF_REC_NEWTID): the
 * calls it kept open go on, and end, on the leader's track */
/* IPROF_REC_NAME: the value that names the thread's next START */
static int name_rec(struct chrome *c, const void *rec)
{
	struct iprof_rec_name r;
	struct ctrack *t;

	memcpy(&r, rec, sizeof(r));
	if (r.timer >= c->run->ntimers || !r.depth || r.flags & IPROF_F_CTX) {
		c->ignored++;
		return c->err;
	}
	t = track(c, r.tid, 0);
	if (!t)
		return fail(c, -ENOMEM);
	t->name_set = 1;
	t->name_timer = r.timer;
	t->name_depth = r.depth;
	t->name_value = (uint64_t)r.value_hi << 32 | r.value_lo;
	t->name_text = 0;
	return c->err;
}

/* namestr_label() - @t's text name complete: its label (as
 * report_timer_name()'s) kept in c->texts, the next START named by it */
static int namestr_label(struct chrome *c, struct ctrack *t)
{
	char s[AGG_NAMESTR_MAX], nb[REPORT_NAME_BUF];
	uint32_t n;
	char **v;
	int cut;

	t->npending = 0;
	n = agg__namestr_join(&t->nhead, t->ntext, s, &cut);
	report_name_text(s, n, nb, sizeof(nb));
	if (c->ntexts == c->texts_cap) {
		uint32_t cap = c->texts_cap ? 2 * c->texts_cap : 64;

		v = realloc(c->texts, cap * sizeof(*v));
		if (!v)
			return fail(c, -ENOMEM);
		c->texts = v;
		c->texts_cap = cap;
	}
	c->texts[c->ntexts] = strdup(nb);
	if (!c->texts[c->ntexts])
		return fail(c, -ENOMEM);
	t->name_set = 1;
	t->name_timer = t->nhead.timer;
	t->name_depth = t->nhead.depth;
	t->name_text = ++c->ntexts;
	return c->err;
}

/* IPROF_REC_NAMESTR: a text name's head or a chunk of its text */
static int namestr_rec(struct chrome *c, const void *rec)
{
	struct iprof_rec_namestr h;
	struct iprof_rec_nametext x;
	struct ctrack *t;
	uint32_t i, n;

	memcpy(&h, rec, sizeof(h));
	t = track(c, h.tid, 0);
	if (!t)
		return fail(c, -ENOMEM);
	if (h.flags == IPROF_F_TEXT) {
		if (!t->npending)
			return c->ignored++, c->err;
		memcpy(&x, rec, sizeof(x));
		n = t->nneed - t->nhave;
		n = n < 4 ? n : 4;
		memcpy(t->ntext + t->nhave, x.t0, n);
		t->nhave += n;
		n = t->nneed - t->nhave < 4 ? t->nneed - t->nhave : 4;
		memcpy(t->ntext + t->nhave, x.t1, n);
		t->nhave += n;
		n = t->nneed - t->nhave < 8 ? t->nneed - t->nhave : 8;
		memcpy(t->ntext + t->nhave, x.t2, n);
		t->nhave += n;
		return t->nhave == t->nneed ? namestr_label(c, t) : c->err;
	}
	t->name_set = 0;
	t->npending = 0;
	if (h.timer >= c->run->ntimers || !h.depth ||
	    h.flags & ~IPROF_F_RESYNC || h.nparts < 1 ||
	    h.nparts > IPROF_NAME_PARTS)
		return c->ignored++, c->err;
	t->nneed = 0;
	for (i = 0; i < h.nparts; i++) {
		if (h.len[i] == IPROF_NAME_FAULT)
			continue;
		if (h.len[i] >= IPROF_NAME_STR)
			return c->ignored++, c->err;
		t->nneed += h.len[i];
	}
	t->nhead = h;
	t->nhave = 0;
	t->npending = 1;
	return t->nneed ? c->err : namestr_label(c, t);
}

static int moved_track(struct chrome *c, const struct iprof_rec *r)
{
	struct ctrack *old, *t;

	for (old = c->bucket[r->aux % CHROME_BUCKETS]; old; old = old->next)
		if (old->key == r->aux)
			break;
	if (!old || !old->n || r->aux == r->tid)
		return 0;
	t = track(c, r->tid, r->tgid);
	if (!t)
		return fail(c, -ENOMEM);
	close_down(c, t, 0, r->ts, "exit"); /* the leader's: gone */
	memcpy(t->f, old->f, old->n * sizeof(old->f[0]));
	t->n = old->n;
	old->n = 0;
	return c->err;
}

/* open the frame START or FORKED @r on @t (room checked), with the name
 * and arguments read before it for that start */
static void push_frame(struct ctrack *t, const struct iprof_rec *r)
{
	struct cframe *f = &t->f[t->n++];

	f->timer = r->timer;
	f->ts = r->ts;
	f->named = t->name_set && r->type == IPROF_REC_START &&
		   t->name_timer == r->timer && t->name_depth == r->depth;
	f->value = t->name_value;
	f->text = f->named ? t->name_text : 0;
	t->name_set = 0;
	t->name_text = 0;
	f->nargs = t->argmask == 7 ? IPROF_NARGS : 0;
	memcpy(f->args, t->args, sizeof(t->args));
	f->has_ret = 0;
	t->argmask = 0;
}

static const char *ctx_name(uint32_t ctx)
{
	return ctx == IPROF_CTX_HARDIRQ	  ? "hardirq"
	       : ctx == IPROF_CTX_SOFTIRQ ? "softirq"
	       : ctx == IPROF_CTX_NMI	  ? "nmi"
					  : "ctx";
}

/* the track of @key if there is one (none is made) */
static struct ctrack *track_find(struct chrome *c, uint32_t key)
{
	struct ctrack *t;

	for (t = c->bucket[key % CHROME_BUCKETS]; t; t = t->next)
		if (t->key == key)
			return t;
	return NULL;
}

/*
 * wake_rec() - IPROF_REC_WAKER (--offcpu-stacks): part 0 names who woke
 * the record's thread (tid; an interrupt: the task it interrupted), part
 * 1 its comm; kept on the wakee's track until its wait ends
 * (wake_switch()).  Its stack is the JSON report's, not drawn.
 */
static int wake_rec(struct chrome *c, const void *rec)
{
	struct iprof_rec_val v;
	struct ctrack *t;
	uint64_t v0, v1;

	memcpy(&v, rec, sizeof(v));
	v0 = v.lo0 | (uint64_t)v.hi0 << 32;
	v1 = v.lo1 | (uint64_t)v.hi1 << 32;
	t = track_find(c, v.tid);
	if (!t) /* no call of it seen: nothing to draw an arrow to */
		return 0;
	if (IPROF_VAL_PART(v.flags) == 0) {
		t->wk_ts = v.ts ? v.ts : 1;
		t->wk_tid = (uint32_t)v0;
		t->wk_tgid = (uint32_t)(v0 >> 32);
		t->wk_ctx = (uint32_t)(v1 & 0xff);
		t->wk_cpu = (uint32_t)(v1 >> 32) % CHROME_CTX_CPUS;
		t->wk_comm[0] = '\0';
	} else if (IPROF_VAL_PART(v.flags) == 1 && t->wk_ts == v.ts) {
		memcpy(t->wk_comm, &v0, 8);
		memcpy(t->wk_comm + 8, &v1, 8);
		t->wk_comm[IPROF_COMM_LEN - 1] = '\0';
	}
	return 0;
}

/* flow_event() - one end of flow @id: "s" at @ts on @pid/@tid (with a
 * 0-long "X" slice "wakeup" there for it to bind to), or "f" bound to
 * the slice that encloses @ts ("bp": "e"); args of the "X": @wakee */
static void flow_event(struct chrome *c, const char *ph, uint64_t id,
		       uint64_t ts, uint32_t pid, uint32_t tid,
		       uint32_t wakee, const char *how)
{
	json_object *o, *a;
	int bad, k;

	for (k = *ph == 's' ? 0 : 1; k < 2 && !c->err; k++) {
		o = json_object_new_object();
		bad = !o;
		if (bad) {
			fail(c, -ENOMEM);
			return;
		}
		kv(o, "name", json_object_new_string("wakeup"), &bad);
		kv(o, "cat", json_object_new_string("wakeup"), &bad);
		kv(o, "ph", json_object_new_string(k ? ph : "X"), &bad);
		kv(o, "ts", us((int64_t)(ts - c->run->start_ns)), &bad);
		if (!k) {
			kv(o, "dur", us(0), &bad);
			a = json_object_new_object();
			kv(o, "args", a, &bad);
			if (a) {
				kv(a, "wakee", json_object_new_int64(wakee),
				   &bad);
				kv(a, "by", json_object_new_string(how), &bad);
			}
		} else {
			kv(o, "id", json_object_new_uint64(id), &bad);
			if (*ph == 'f')
				kv(o, "bp", json_object_new_string("e"), &bad);
		}
		kv(o, "pid", json_object_new_int64(pid), &bad);
		kv(o, "tid", json_object_new_int64(tid), &bad);
		emit_event(c, o, bad);
	}
}

/*
 * wake_switch() - a switch of task @r->tid: a blocking switch-out forgets
 * a waker seen too long before it, a preemption any (it woke no wait); a
 * switch-in ends the wait: a waker-to-wakee flow, from the waker's track
 * at the wake-up (an interrupt's: its context's track on its CPU) to the
 * call open on the wakee's at the switch-in, as src/core/agg_offcpu.c
 * charges the wait to that call.
 */
static int wake_switch(struct chrome *c, const struct iprof_rec *r)
{
	struct ctrack *t = track_find(c, r->tid), *w;
	uint64_t ts;

	if (!t || !t->wk_ts)
		return 0;
	if (r->type == IPROF_REC_SWITCH_OUT) {
		if (r->aux != IPROF_OFF_BLOCKED ||
		    t->wk_ts + CHROME_WAKE_EARLY_NS < r->ts)
			t->wk_ts = 0;
		return 0;
	}
	ts = t->wk_ts;
	t->wk_ts = 0;
	if (!t->n || r->ts < c->from_ns)
		return 0;
	if (t->wk_ctx != IPROF_CTX_TASK && t->wk_ctx < IPROF_CTX_MAX)
		w = track(c, CHROME_CTX_TID(t->wk_ctx, t->wk_cpu), 0);
	else
		w = track(c, t->wk_tid, t->wk_tgid);
	if (!w)
		return fail(c, -ENOMEM);
	if (!w->has_comm && t->wk_ctx == IPROF_CTX_TASK && t->wk_comm[0]) {
		memcpy(w->comm, t->wk_comm, IPROF_COMM_LEN);
		w->has_comm = 1;
	}
	c->flows++;
	flow_event(c, "s", c->flows, ts, w->pid, w->key, t->key,
		   t->wk_ctx == IPROF_CTX_TASK ? "task" : ctx_name(t->wk_ctx));
	flow_event(c, "f", c->flows, r->ts, t->pid, t->key, t->key, NULL);
	return c->err;
}

int chrome__push(struct chrome *c, const void *rec, size_t len)
{
	struct iprof_rec r;
	struct ctrack *t;
	uint32_t key, pid;

	if (c->err)
		return c->err;
	if (len != sizeof(r))
		goto ignore;
	memcpy(&r, rec, sizeof(r));
	if (r.type == IPROF_REC_COMM) {
		const struct iprof_rec_comm *cm = rec;

		t = track(c, cm->tid, cm->tgid);
		if (!t)
			return fail(c, -ENOMEM);
		t->pid = cm->tgid;
		memcpy(t->comm, cm->comm, IPROF_COMM_LEN);
		t->comm[IPROF_COMM_LEN - 1] = '\0';
		t->has_comm = 1;
		return 0;
	}
	if (is_keyed(r.type))
		return keyed_event(c, rec);
	if (r.type == IPROF_REC_NEWTID)
		return moved_track(c, &r);
	if (r.type == IPROF_REC_NAME)
		return name_rec(c, rec);
	if (r.type == IPROF_REC_NAMESTR)
		return namestr_rec(c, rec);
	if (r.type == IPROF_REC_ARGS || r.type == IPROF_REC_RETVAL)
		return val_record(c, rec);
	if (r.type == IPROF_REC_WAKER || r.type == IPROF_REC_SWITCH_OUT ||
	    r.type == IPROF_REC_SWITCH_IN) /* --offcpu-stacks' flows */
		return r.type == IPROF_REC_WAKER ? wake_rec(c, rec) :
						   wake_switch(c, &r);
	if ((r.type < IPROF_REC_START || r.type > IPROF_REC_EXECED) &&
	    r.type != IPROF_REC_FORKED && r.type != IPROF_REC_HIT)
		goto ignore;
	if (r.type == IPROF_REC_IRQ_ENTER || r.type == IPROF_REC_IRQ_EXIT)
		return 0; /* on/off CPU: not drawn */
	key = r.tid;
	pid = r.tgid;
	if (r.flags & IPROF_F_CTX) {
		uint32_t cx = IPROF_REC_CTX(r.aux); /* bits 8-15: a pclass */

		if (cx == IPROF_CTX_TASK || cx >= IPROF_CTX_MAX)
			goto ignore;
		key = CHROME_CTX_TID(cx, r.cpu);
		pid = 0;
	}
	t = track(c, key, pid);
	if (!t)
		return fail(c, -ENOMEM);
	if (r.flags & IPROF_F_RESYNC)
		close_down(c, t, 0, r.ts, "discarded");
	switch (r.type) {
	case IPROF_REC_START:
	case IPROF_REC_FORKED: /* inherited: drawn from the fork */
		if (r.timer >= c->run->ntimers || !r.depth)
			goto ignore;
		if (t->n >= r.depth) /* the stack disagrees: frames lost */
			close_down(c, t, r.depth - 1u, r.ts, "discarded");
		if (t->n == CHROME_MAX_DEPTH)
			goto ignore;
		t->pid = pid;
		push_frame(t, &r);
		break;
	case IPROF_REC_STOP:
	case IPROF_REC_RETURNED:
	case IPROF_REC_LEFT:
		if (!r.depth || t->n < r.depth ||
		    t->f[r.depth - 1].timer != r.timer) {
			close_down(c, t, 0, r.ts, "discarded");
			goto ignore;
		}
		close_down(c, t, r.depth, r.ts, "unwound");
		close_top(c, t, r.ts,
			  r.type == IPROF_REC_RETURNED ? "returned" :
			  r.type == IPROF_REC_LEFT     ? "unwound" :
							 NULL);
		break;
	case IPROF_REC_EXECED:
		/* the frame ends at the exec; those above it move down */
		if (!r.depth || t->n < r.depth ||
		    t->f[r.depth - 1].timer != r.timer) {
			close_down(c, t, 0, r.ts, "discarded");
			goto ignore;
		}
		if (r.depth == t->n) {
			close_top(c, t, r.ts, "exec");
		} else {
			/* drawn as ending at the exec; the calls above
			 * it move down one */
			struct cframe keep = t->f[r.depth - 1];

			memmove(&t->f[r.depth - 1], &t->f[r.depth],
				(t->n - r.depth) * sizeof(t->f[0]));
			t->f[t->n - 1] = keep;
			close_top(c, t, r.ts, "exec");
		}
		break;
	case IPROF_REC_EXIT:
		close_down(c, t, 0, r.ts, "exit");
		break;
	case IPROF_REC_UNWIND:
		close_down(c, t, 0, r.ts, "unwound");
		break;
	case IPROF_REC_HIT:
		if (r.timer >= c->run->ntimers)
			goto ignore;
		if (t->n > r.depth) /* the stack disagrees: frames lost */
			close_down(c, t, r.depth, r.ts, "discarded");
		t->pid = pid;
		hit_event(c, t, r.timer, r.ts);
		break;
	}
	return c->err;
ignore:
	c->ignored++;
	return c->err;
}

/* an "M" event naming process @pid or thread @tid */
static void name_event(struct chrome *c, const char *what, uint32_t pid,
		       uint32_t tid, const char *name)
{
	json_object *o = json_object_new_object(), *a;
	int bad = !o;

	if (bad) {
		fail(c, -ENOMEM);
		return;
	}
	kv(o, "name", json_object_new_string(what), &bad);
	kv(o, "ph", json_object_new_string("M"), &bad);
	kv(o, "pid", json_object_new_int64(pid), &bad);
	kv(o, "tid", json_object_new_int64(tid), &bad);
	a = json_object_new_object();
	kv(o, "args", a, &bad);
	if (a)
		kv(a, "name", json_object_new_string(name), &bad);
	if (bad) {
		json_object_put(o);
		fail(c, -ENOMEM);
		return;
	}
	emit(c, o);
}

int chrome__finish(struct chrome *c, uint64_t end_ns)
{
	struct ctrack *t, *u;
	char buf[64];
	int irq = 0;

	for (t = c->all; t; t = t->all)
		close_down(c, t, 0, end_ns, "incomplete");
	/* names: each process once (by its main thread's name), each thread */
	for (t = c->all; t && !c->err; t = t->all) {
		if (!t->pid) {
			uint32_t k = t->key - CHROME_CTX_BASE;

			irq = 1;
			snprintf(buf, sizeof(buf), "%s/cpu%u",
				 ctx_name(k / CHROME_CTX_CPUS),
				 k % CHROME_CTX_CPUS);
			name_event(c, "thread_name", 0, t->key, buf);
			continue;
		}
		for (u = c->all; u != t; u = u->all)
			if (u->pid == t->pid)
				break;
		if (u == t) { /* the first track of its process */
			struct ctrack *m = NULL;

			for (u = c->all; u; u = u->all)
				if (u->key == t->pid && u->has_comm)
					m = u;
			if (m)
				snprintf(buf, sizeof(buf), "%s", m->comm);
			else
				snprintf(buf, sizeof(buf), "pid %u", t->pid);
			name_event(c, "process_name", t->pid, t->pid, buf);
		}
		if (t->has_comm)
			name_event(c, "thread_name", t->pid, t->key, t->comm);
	}
	if (irq)
		name_event(c, "process_name", 0, 0, "interrupts");
	if (!c->err && (fputs("\n]}\n", c->f) < 0 || fflush(c->f)))
		fail(c, errno ? -errno : -EIO);
	return c->err;
}

void chrome__set_from(struct chrome *c, uint64_t from_ns)
{
	c->from_ns = from_ns;
}

uint64_t chrome__events(const struct chrome *c)
{
	return c->events;
}

/* the path of @n from its top-level ancestor, "a > b", as a string */
static json_object *path_str(const struct report *r, const struct agg_node *n)
{
	json_object *o = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	if (!report_print_path(m, r, n, " > ") && !fflush(m) && !ferror(m))
		o = json_object_new_string(buf);
	fclose(m);
	free(buf);
	return o;
}

/*
 * slow_event() - an "i" event "slowest #@rank NAME" marking the kept call @sc
 * of @n (--slowest) at its start on its thread's track (pid 0, tid 0: an
 * interrupt context's, whose CPU it does not keep)
 */
static void slow_event(struct chrome *c, const struct report *r,
		       const struct agg_node *n, const struct slow_call *sc,
		       size_t rank)
{
	json_object *o = json_object_new_object(), *a;
	char name[REPORT_NAME_BUF + 32], tn[REPORT_NAME_BUF];
	int bad = !o;

	if (bad) {
		fail(c, -ENOMEM);
		return;
	}
	snprintf(name, sizeof(name), "slowest #%zu %s", rank,
		 report_timer_name(r, n->timer, tn, sizeof(tn)));
	kv(o, "name", json_object_new_string(name), &bad);
	kv(o, "cat", json_object_new_string("slowest"), &bad);
	kv(o, "ph", json_object_new_string("i"), &bad);
	kv(o, "s", json_object_new_string("t"), &bad);
	kv(o, "ts", us((int64_t)(sc->start_ns - c->run->start_ns)), &bad);
	kv(o, "pid", json_object_new_int64(sc->tgid), &bad);
	kv(o, "tid", json_object_new_int64(sc->tid), &bad);
	a = json_object_new_object();
	kv(o, "args", a, &bad);
	if (a) {
		kv(a, "slowest", json_object_new_int64((int64_t)rank), &bad);
		kv(a, "path", path_str(r, n), &bad);
		kv(a, "timer", json_object_new_int64(n->timer), &bad);
		kv(a, "duration_ns", json_object_new_uint64(sc->dur_ns), &bad);
		kv(a, "raw_duration_ns", json_object_new_uint64(sc->raw_ns),
		   &bad);
		if (sc->has_split) {
			kv(a, "on_cpu_ns", json_object_new_uint64(sc->on_ns),
			   &bad);
			kv(a, "runq_ns", json_object_new_uint64(sc->runq_ns),
			   &bad);
			kv(a, "blocked_ns",
			   json_object_new_uint64(sc->blocked_ns), &bad);
		}
		if (sc->is_span)
			kv(a, "span_id", json_object_new_int64(sc->span_id),
			   &bad);
	}
	emit_event(c, o, bad);
}

/* slow_marks() - the kept calls of @n and of the nodes below it */
static void slow_marks(struct chrome *c, const struct report *r,
		       const struct agg_node *n)
{
	const struct slow_call *calls[SLOW_K_MAX];
	size_t i, m;

	for (; n && !c->err; n = n->next) {
		if (c->max_depth && n->depth > c->max_depth)
			continue; /* not drawn, nor anything below */
		m = slow_sorted(n->slow, calls);
		for (i = 0; i < m; i++)
			if (calls[i]->start_ns + calls[i]->raw_ns >=
			    c->from_ns)
				slow_event(c, r, n, calls[i], i + 1);
		slow_marks(c, r, n->child);
	}
}

int chrome__mark_slowest(struct chrome *c, const struct agg *agg)
{
	struct report r = {0};

	rec_run_report(c->run, &r);
	r.agg = agg;
	slow_marks(c, &r, agg__root(agg)->child);
	return c->err;
}

void chrome__free(struct chrome *c)
{
	struct ctrack *t, *n;

	if (!c)
		return;
	for (t = c->all; t; t = n) {
		n = t->all;
		free(t);
	}
	while (c->ntexts)
		free(c->texts[--c->ntexts]);
	free(c->texts);
	free(c);
}

/* the timeline as a pipeline sink (include/iprof/pipeline.h) */
static void chrome_sink_push(void *ctx, const void *rec, size_t len)
{
	/* a write error stays in the FILE: chrome__finish() says it */
	chrome__push(ctx, rec, len);
}

static void chrome_sink_destroy(void *ctx)
{
	chrome__free(ctx);
}

static const struct sink_ops chrome_sink_ops = {
	.name = "timeline",
	.push = chrome_sink_push,
	.destroy = chrome_sink_destroy,
};

int chrome__add_sink(struct pipeline *p, struct chrome *c)
{
	return pipeline__add(p, &chrome_sink_ops, c);
}

/* -f chrome's row (src/report/report_fmt.c): struct report_stream */
static void *stream_open(struct pipeline *p, FILE *f, const struct rec_run *run,
			 uint32_t max_depth, uint64_t from_ns)
{
	struct chrome *c = chrome__new(f, run, max_depth);
	int e;

	if (!c)
		return NULL;
	chrome__set_from(c, from_ns);
	e = chrome__add_sink(p, c);
	if (e) {
		errno = -e;
		return NULL;
	}
	return c;
}

static int stream_finish(void *h, uint64_t end_ns)
{
	return chrome__finish(h, end_ns);
}

static uint64_t stream_events(const void *h)
{
	return chrome__events(h);
}

static int stream_mark(void *h, const struct agg *agg)
{
	return chrome__mark_slowest(h, agg);
}

const struct report_stream chrome_stream = {
	.open = stream_open,
	.finish = stream_finish,
	.events = stream_events,
	.mark = stream_mark,
};
