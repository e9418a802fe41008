/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the reporters (src/report/: a file per format): a small tree built from
 * synthetic records, printed to memory and compared with exact text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/report.h"
#include "iprof/util.h"
#include "iprof/report_fmt.h"
#include "rec.h"

#define MS 1000000ull

enum { OUTER, INNER, NEVER, REFUSED, OPEN, NTIMERS };

static const struct report_timer timers[NTIMERS] = {
	[OUTER] = {"outer", "uprobe", "/usr/bin/w:outer", 1, NULL, 0,
		   "uprobe/uretprobe"},
	[INNER] = {"inner", "uprobe", "/usr/bin/w:inner", 1, NULL, 3,
		   "uprobe/uretprobe"},
	[NEVER] = {"never", "span",
		   "tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit", 1,
		   NULL, 0, "tracepoint"},
	[REFUSED] = {"refused", "fentry", "kvm_foo", 0,
		     "fentry refused by the kernel (EPERM)", 0, NULL},
	/* pretend its kretprobe ran out of instances twice */
	[OPEN] = {"open", "kprobe", "open", 1, NULL, 0, "kprobe/kretprobe", 2,
		  256},
};

static void push(struct agg *a, uint8_t type, uint8_t flags, uint32_t timer,
		 uint32_t tid, uint64_t ts, uint16_t depth)
{
	assert_int_equal(rec_push(a, type, flags, timer, tid, ts, depth, 0, 0),
			 0);
}

/* a context switch of @tid: kind is enum iprof_off_kind */
static void push_switch(struct agg *a, uint8_t type, uint32_t tid, uint64_t ts,
			uint32_t kind)
{
	assert_int_equal(rec_push(a, type, 0, 0, tid, ts, 1, 0, kind), 0);
}

#define S(tid, t, d, ts) push(a, IPROF_REC_START, 0, t, tid, ts, d)
#define E(tid, t, d, ts) push(a, IPROF_REC_STOP, 0, t, tid, ts, d)
#define OUT(tid, ts, kind) push_switch(a, IPROF_REC_SWITCH_OUT, tid, ts, kind)
#define IN(tid, ts) push_switch(a, IPROF_REC_SWITCH_IN, tid, ts, 0)

/*
 * outer: 10ms (tid 1), 6ms (tid 2), 3ms (tid 7), one frame discarded;
 *        off CPU: 1ms blocked (in inner), 2ms runnable (tid 1)
 *   inner: 2ms + 1ms (tid 1), 1.5ms (tid 2), one unwound (tid 7);
 *          off CPU: 1ms blocked (tid 1)
 * open: never stopped on tids 3 and 4 (incomplete 19 + 20ms at 20ms)
 *   inner: 1ms (tid 4)
 * inner: top level, never stopped (tid 5, incomplete 15ms)
 */
static struct agg *build(void)
{
	struct agg *a = agg__new(NTIMERS);
	char junk[8] = {0};

	assert_non_null(a);
	S(1, OUTER, 1, 0);
	S(1, INNER, 2, 1 * MS);
	OUT(1, 1500000, IPROF_OFF_BLOCKED);
	IN(1, 2500000);
	E(1, INNER, 2, 3 * MS);
	S(1, INNER, 2, 4 * MS);
	E(1, INNER, 2, 5 * MS);
	OUT(1, 6 * MS, IPROF_OFF_RUNQ);
	IN(1, 8 * MS);
	E(1, OUTER, 1, 10 * MS);
	S(2, OUTER, 1, 2 * MS);
	S(2, INNER, 2, 3 * MS);
	E(2, INNER, 2, 4500000);
	E(2, OUTER, 1, 8 * MS);
	S(3, OPEN, 1, 1 * MS);
	S(4, OPEN, 1, 0);
	S(4, INNER, 2, 1 * MS);
	E(4, INNER, 2, 2 * MS);
	S(5, INNER, 1, 5 * MS);
	S(6, OUTER, 1, 0);
	push(a, IPROF_REC_STOP, IPROF_F_RESYNC, OUTER, 6, 1 * MS, 1);
	S(7, OUTER, 1, 11 * MS);
	S(7, INNER, 2, 12 * MS);
	E(7, OUTER, 1, 14 * MS);
	assert_int_equal(agg__push(a, junk, sizeof(junk)), -EINVAL);
	agg__snapshot(a, 20 * MS);
	return a;
}

static void init_report(struct report *r, struct agg *a)
{
	memset(r, 0, sizeof(*r));
	r->agg = a;
	r->timers = timers;
	r->loss.rb_drops = 5;
	r->loss.recursion_misses = 3;
	r->loss.depth_overflow = 1;
	r->loss.kprobe_misses = 2;
	r->duration_ns = 20 * MS;
}

/* run a reporter into memory; returns a malloc'ed string */
static char *run(int (*fn)(FILE *, const struct report *),
		 const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, r), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* clang-format off */
static const char seed_expected[] =
	"outer, thread_time = 19.00ms, wall_time = 14.00ms, max = 10.00, avg = 6.33, count = 3, thread_count = 3\n"
	"  inner, thread_time = 4.50ms, wall_time = 4.00ms, max = 2.00, avg = 1.50, count = 3, thread_count = 2\n"
	"open, thread_time = 0.00ms, wall_time = 0.00ms, max = 0.00, avg = 0.00, count = 0, thread_count = 0\n"
	"  inner, thread_time = 1.00ms, wall_time = 1.00ms, max = 1.00, avg = 1.00, count = 1, thread_count = 1\n"
	"# incomplete: open count=2 elapsed=39.00ms\n"
	"# incomplete: inner count=1 elapsed=15.00ms\n"
	"# not attached: refused: fentry refused by the kernel (EPERM)\n"
	"# no hits: never (span tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit)\n"
	"# orphan stops: inner 3\n"
	"# kprobe misses: open 2 (calls beyond 256 open at once get no kretprobe: raise --maxactive)\n"
	"# untimed: unwound=1\n"
	"# lost: records=5 resyncs=1 discarded_frames=1 skipped=1 depth_overflow=1 malformed=1 missed=3 kprobe_missed=2\n";
/* clang-format on */

static void test_seed(void **state)
{
	struct agg *a = build();
	struct report r;
	char *out;

	(void)state;
	init_report(&r, a);
	out = run(report_seed, &r);
	assert_string_equal(out, seed_expected);
	free(out);
	agg__free(a);
}

/*
 * outer: p50 = midpoint of the 6ms slot [5767168, 6029311] = 5.90ms,
 * p99 = 10ms slot midpoint 10223615 clamped to max 10ms.
 * outer > inner: p50 = 1.5ms slot [1441792, 1507327] midpoint 1474559,
 * p99 = 2ms slot [1966080, 2031615] midpoint 1998847.
 * open > inner: 1ms slot midpoint 999423 clamped to min 1ms.
 * ONCPU = TOTAL - OFFCPU: outer 19 - 3ms, outer > inner 4.5 - 1ms.
 * Top level sorted by total: outer, then open and inner (0, first-seen).
 */
/* clang-format off */
static const char table_expected[] =
	"NAME     COUNT   TOTAL    SELF    WALL   ONCPU  OFFCPU     MIN     AVG     MAX     P50     P99  THREADS  EXITED  INCOMPL  UNWOUND\n"
	"outer        3  19.0ms  14.5ms  14.0ms  16.0ms  3.00ms  3.00ms  6.33ms  10.0ms  5.90ms  10.0ms        3       0        0        0\n"
	"  inner      3  4.50ms  4.50ms  4.00ms  3.50ms  1.00ms  1.00ms  1.50ms  2.00ms  1.47ms  2.00ms        2       0        0        1\n"
	"open         0       -       -       -       -       -       -       -       -       -       -        0       0        2        0\n"
	"  inner      1  1.00ms  1.00ms  1.00ms  1.00ms     0ns  1.00ms  1.00ms  1.00ms  1.00ms  1.00ms        1       0        0        0\n"
	"inner        0       -       -       -       -       -       -       -       -       -       -        0       0        1        0\n"
	"\n"
	"traced for 20.0ms\n"
	"incomplete: open count=2 elapsed=39.0ms\n"
	"incomplete: inner count=1 elapsed=15.0ms\n"
	"not attached: refused: fentry refused by the kernel (EPERM)\n"
	"attached, 0 hits: never (span tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit)\n"
	"orphan stops: inner 3\n"
	"kprobe misses: open 2 (calls beyond 256 open at once get no kretprobe: raise --maxactive)\n"
	"closed untimed: 1 frame unwound\n"
	"lost: 5 records (ring buffer full), 1 resync, 1 frame discarded, 1 record skipped, 1 start over 128 timers open in a thread (starts without stops?), 1 malformed record, 3 probe hits missed (BPF recursion), 2 kprobe misses (kernel)\n";
/* clang-format on */

static void test_table(void **state)
{
	struct agg *a = build();
	struct report r;
	char *out;

	(void)state;
	init_report(&r, a);
	out = run(report_table, &r);
	/* the parts the brief insists on, then the whole text */
	assert_non_null(strstr(out, "attached, 0 hits: never (span "
				    "tracepoint:kvm:kvm_entry -> "
				    "tracepoint:kvm:kvm_exit)\n"));
	assert_non_null(strstr(out, "\nlost: 5 records (ring buffer full), "
				    "1 resync, 1 frame discarded"));
	assert_string_equal(out, table_expected);
	free(out);
	agg__free(a);
}

/* r.width (a terminal's columns): the same table within 60 and 100
 * columns; columns left out in drop order (all-0 loss counters first),
 * every kept cell as in the full table, the names cut in the middle */
static void test_table_fit(void **state)
{
	struct agg *a = build();
	struct report_timer t[NTIMERS];
	struct report r;
	char *out, *line, *nl;
	size_t n;

	(void)state;
	init_report(&r, a);
	memcpy(t, timers, sizeof(t));
	r.timers = t;
	r.width = 100;
	out = run(report_table, &r);
	assert_string_equal(
		strstr(out, "NAME"),
		"NAME     COUNT   TOTAL    SELF   ONCPU  OFFCPU     AVG     MAX     P99  THREADS  INCOMPL  UNWOUND\n"
		"outer        3  19.0ms  14.5ms  16.0ms  3.00ms  6.33ms  10.0ms  10.0ms        3        0        0\n"
		"  inner      3  4.50ms  4.50ms  3.50ms  1.00ms  1.50ms  2.00ms  2.00ms        2        0        1\n"
		"open         0       -       -       -       -       -       -       -        0        2        0\n"
		"  inner      1  1.00ms  1.00ms  1.00ms     0ns  1.00ms  1.00ms  1.00ms        1        0        0\n"
		"inner        0       -       -       -       -       -       -       -        0        1        0\n"
		"\n"
		"traced for 20.0ms\n"
		"to fit 100 columns: left out wall, min, p50, exited (--columns chooses the columns; -f json has every name whole)\n"
		"incomplete: open count=2 elapsed=39.0ms\n"
		"incomplete: inner count=1 elapsed=15.0ms\n"
		"not attached: refused: fentry refused by the kernel (EPERM)\n"
		"attached, 0 hits: never (span tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit)\n"
		"orphan stops: inner 3\n"
		"kprobe misses: open 2 (calls beyond 256 open at once get no kretprobe: raise --maxactive)\n"
		"closed untimed: 1 frame unwound\n"
		"lost: 5 records (ring buffer full), 1 resync, 1 frame discarded, 1 record skipped, 1 start over 128 timers open in a thread (starts without stops?), 1 malformed record, 3 probe hits missed (BPF recursion), 2 kprobe misses (kernel)\n");
	free(out);

	/* 60 columns, a 50-character name: cut to what is left */
	t[OUTER].name = "outer_with_a_name_much_too_long_for_this_terminal_";
	r.width = 60;
	out = run(report_table, &r);
	for (line = out, n = 0; n < 6; n++, line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		assert_true(nl - line <= 60);
	}
	assert_non_null(strstr(out, "\nouter_with_a_n..his_terminal_      3  19.0ms  14.5ms  6.33ms\n"));
	assert_non_null(strstr(out, "\nto fit 60 columns: left out wall, oncpu, offcpu, min, max, p50, p99, threads, exited, incompl, unwound; names cut in the middle (--columns"));
	free(out);

	/* --columns given: printed as asked, whatever the width */
	{
		static const enum report_col cols[] = { REPORT_COL_COUNT,
							REPORT_COL_P50 };

		r.columns = cols;
		r.ncolumns = 2;
		r.width = 10;
		out = run(report_table, &r);
		assert_non_null(strstr(out, "\nouter_with_a_name_much_too_long_for_this_terminal_      3  5.90ms\n"));
		assert_null(strstr(out, "to fit"));
		free(out);
	}
	agg__free(a);
}

static void test_table_sort_and_width(void **state)
{
	struct agg *a = agg__new(NTIMERS);
	struct report_timer t[NTIMERS];
	struct report r;
	char *out, *l1, *l2, *l3;

	(void)state;
	assert_non_null(a);
	memcpy(t, timers, sizeof(t));
	t[OPEN].name = "a_much_longer_timer_name";
	/* first seen: outer (1ms), then open (5ms): open sorts first */
	S(1, OUTER, 1, 0);
	E(1, OUTER, 1, 1 * MS);
	S(1, OPEN, 1, 10 * MS);
	S(1, INNER, 2, 11 * MS);
	E(1, INNER, 2, 12 * MS);
	S(1, OUTER, 2, 12 * MS);
	E(1, OUTER, 2, 14 * MS);
	E(1, OPEN, 1, 15 * MS);
	agg__snapshot(a, 15 * MS);
	init_report(&r, a);
	r.timers = t;
	out = run(report_table, &r);
	l1 = strchr(out, '\n') + 1;
	l2 = strchr(l1, '\n') + 1;
	l3 = strchr(l2, '\n') + 1;
	/* name column as wide as the longest name, rows as wide as header */
	assert_int_equal(strncmp(out, "NAME                      COUNT", 31),
			 0);
	assert_int_equal(
		strncmp(l1, "a_much_longer_timer_name      1  5.00ms", 39), 0);
	/* children by total: outer (2ms) before inner (1ms) */
	assert_int_equal(strncmp(l2, "  outer ", 8), 0);
	assert_int_equal(strncmp(l3, "  inner ", 8), 0);
	assert_int_equal(l1 - out, l2 - l1);
	assert_int_equal(l2 - l1, l3 - l2);
	assert_non_null(strstr(l3, "\nouter "));
	free(out);

	/* a name past ASCII is padded by its characters, not its bytes:
	 * "t\xc3\xb4p" (3 characters, 4 bytes) lines up as "inner" does */
	t[INNER].name = "t\xc3\xb4p";
	out = run(report_table, &r);
	l1 = strchr(out, '\n') + 1;
	l2 = strchr(l1, '\n') + 1;
	l3 = strchr(l2, '\n') + 1;
	assert_int_equal(strncmp(l3, "  t\xc3\xb4p" "                         1", 32),
			 0);
	/* its row one byte longer than outer's (l3 - l2 - 1 bytes) */
	assert_int_equal(strchr(l3, '\n') - l3, l3 - l2);
	free(out);
	t[INNER].name = timers[INNER].name;

	/* the seed format keeps first-seen order */
	out = run(report_seed, &r);
	assert_int_equal(strncmp(out, "outer, thread_time = 1.00ms", 27), 0);
	assert_non_null(strstr(out, "\na_much_longer_timer_name, "
				    "thread_time = 5.00ms"));
	assert_non_null(strstr(out, "\n  inner, thread_time = 1.00ms"));
	assert_true(strstr(out, "\n  inner,") < strstr(out, "\n  outer,"));
	free(out);
	agg__free(a);
}

static void test_no_timers_and_empty(void **state)
{
	struct agg *a = agg__new(2);
	struct report r = {0};
	char *out;

	(void)state;
	assert_non_null(a);
	r.agg = a;
	out = run(report_seed, &r);
	assert_string_equal(out, "# lost: none\n");
	free(out);
	out = run(report_table, &r);
	assert_string_equal(
		out, "NAME  COUNT  TOTAL  SELF  WALL  ONCPU  OFFCPU  MIN  "
		     "AVG  MAX  P50  P99  THREADS  EXITED  INCOMPL  UNWOUND\n\n"
		     "lost: none\n");
	free(out);

	/* without timer names: "#ID", and no per-timer lines */
	S(1, 1, 1, 0);
	E(1, 1, 1, 2500000);
	r.loss.no_storage = 2;
	out = run(report_seed, &r);
	assert_string_equal(out,
			    "#1, thread_time = 2.50ms, wall_time = 2.50ms, "
			    "max = 2.50, avg = 2.50, count = 1, "
			    "thread_count = 1\n"
			    "# lost: no_storage=2\n");
	free(out);
	agg__free(a);
}

static void test_write_error(void **state)
{
	struct agg *a = build();
	struct report r;
	FILE *f;

	(void)state;
	init_report(&r, a);
	f = fopen("/dev/full", "w");
	if (!f) {
		agg__free(a);
		skip();
	}
	assert_int_equal(report_seed(f, &r), -ENOSPC);
	fclose(f);
	f = fopen("/dev/full", "w");
	assert_non_null(f);
	assert_int_equal(report_table(f, &r), -ENOSPC);
	fclose(f);
	agg__free(a);
}

static void test_fmt_ns(void **state)
{
	static const struct {
		uint64_t ns;
		const char *s;
	} c[] = {
		{0, "0ns"},
		{812, "812ns"},
		{999, "999ns"},
		{1000, "1.00us"},
		{1250, "1.25us"},
		{9994, "9.99us"},
		{9995, "10.0us"},
		{99949, "99.9us"},
		{99950, "100us"},
		{999499, "999us"},
		{999500, "1.00ms"},
		{37400000, "37.4ms"},
		{999999999, "1.00s"},
		{2000000000, "2.00s"},
		{123456789012ull, "123s"},
		{1234000000000ull, "1234s"},
		{UINT64_MAX, "18446744074s"},
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(report_ns_str(buf, sizeof(buf), c[i].ns),
				    c[i].s);
	/* truncated, still terminated */
	assert_string_equal(report_ns_str(buf, 4, 1250), "1.2");
}

/* A timer that ran in a hardirq on CPU 1 sits under that context's root. */
static void test_interrupt_root(void **state)
{
	struct report_timer t[1] = { { .name = "tmr", .kind = "span",
				       .where = "tp", .attached = 1 } };
	struct iprof_rec rec = {
		.type = IPROF_REC_START,
		.flags = IPROF_F_CTX,
		.size = sizeof(rec),
		.timer = 0,
		.ts = 1000000,
		.depth = 1,
		.cpu = 1,
		.aux = IPROF_CTX_HARDIRQ,
	};
	struct agg *a = agg__new(1);
	struct report r = { 0 };
	char *out;

	(void)state;
	assert_int_equal(agg__push(a, &rec, sizeof(rec)), 0);
	rec.type = IPROF_REC_STOP;
	rec.ts = 3000000;
	assert_int_equal(agg__push(a, &rec, sizeof(rec)), 0);
	r.agg = a;
	r.timers = t;
	out = run(report_seed, &r);
	assert_string_equal(
		out,
		"[hardirq/cpu1], thread_time = 0.00ms, wall_time = 0.00ms, max = 0.00, avg = 0.00, count = 0, thread_count = 0\n"
		"  tmr, thread_time = 2.00ms, wall_time = 2.00ms, max = 2.00, avg = 2.00, count = 1, thread_count = 1\n"
		"# lost: none\n");
	free(out);
	agg__free(a);
}

static void test_nodes_order(void **state)
{
	struct agg *a = build();
	const struct agg_node **n;
	size_t cnt;

	(void)state;
	assert_int_equal(report_nodes(a, 0, &n, &cnt), 0);
	assert_int_equal(cnt, 5);
	assert_int_equal(n[0]->timer, OUTER);
	assert_int_equal(n[1]->timer, INNER);
	assert_int_equal(n[1]->depth, 2);
	assert_int_equal(n[2]->timer, OPEN);
	assert_int_equal(n[3]->timer, INNER);
	assert_int_equal(n[4]->timer, INNER);
	assert_int_equal(n[4]->depth, 1);
	/* report_next() walks the same order */
	{
		const struct agg_node *p = agg__root(a);
		size_t i;

		for (i = 0; i < cnt; i++) {
			p = report_next(p);
			assert_ptr_equal(p, n[i]);
		}
		assert_null(report_next(p));
	}
	free(n);
	agg__free(a);
}

/* ---- options: --sort, --min-total, --max-depth, --columns ---------------- */

/*
 * Top-level timers whose five orders all differ (tid 1, one after another):
 *   open:  3 calls of 2ms           total 6ms   self 6ms  count 3  first
 *   never: 5 calls of 0.2ms         total 1ms   self 1ms  count 5  second
 *   outer: 4 calls of 2.5ms, each   total 10ms  self 2ms  count 4  third
 *     inner: around 2ms of it       total 8ms   self 8ms  count 4
 * total: outer open never; self: open outer never; count: never outer
 * open; first: open never outer; name: never open outer.
 */
static struct agg *build_orders(void)
{
	struct agg *a = agg__new(NTIMERS);
	uint64_t t = 0;
	int i;

	assert_non_null(a);
	for (i = 0; i < 3; i++, t += 2 * MS) {
		S(1, OPEN, 1, t);
		E(1, OPEN, 1, t + 2 * MS);
	}
	for (i = 0; i < 5; i++, t += MS / 5) {
		S(1, NEVER, 1, t);
		E(1, NEVER, 1, t + MS / 5);
	}
	for (i = 0; i < 4; i++, t += 2500000) {
		S(1, OUTER, 1, t);
		S(1, INNER, 2, t + MS / 4);
		E(1, INNER, 2, t + MS / 4 + 2 * MS);
		E(1, OUTER, 1, t + 2500000);
	}
	agg__snapshot(a, t);
	return a;
}

/* the names of the top-level rows of a table, space-separated */
static void top_rows(const char *out, char *names, size_t len)
{
	const char *l = strchr(out, '\n') + 1;
	size_t n = 0;

	names[0] = 0;
	for (; *l != '\n'; l = strchr(l, '\n') + 1) {
		if (*l == ' ')
			continue;
		n += (size_t)snprintf(names + n, len - n, "%s%.*s",
				      n ? " " : "", (int)strcspn(l, " "), l);
	}
}

static void test_table_sort(void **state)
{
	static const struct {
		enum report_sort sort;
		const char *rows;
	} c[] = {
		{REPORT_SORT_TOTAL, "outer open never"},
		{REPORT_SORT_SELF, "open outer never"},
		{REPORT_SORT_COUNT, "never outer open"},
		{REPORT_SORT_NAME, "never open outer"},
		{REPORT_SORT_FIRST, "open never outer"},
	};
	struct agg *a = build_orders();
	const char *l;
	struct report r;
	char *out, rows[128];
	size_t i;

	(void)state;
	init_report(&r, a);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		r.sort = c[i].sort;
		out = run(report_table, &r);
		top_rows(out, rows, sizeof(rows));
		assert_string_equal(rows, c[i].rows);
		/* inner stays right under outer whatever the order */
		l = strstr(out, "\nouter ");
		assert_non_null(l);
		l = strchr(l + 1, '\n');
		assert_int_equal(strncmp(l, "\n  inner      4  8.00ms", 23), 0);
		free(out);
	}
	agg__free(a);
}

/* clang-format off */
static const char table_min_total_expected[] =
	"NAME     COUNT   TOTAL    SELF    WALL   ONCPU  OFFCPU     MIN     AVG     MAX     P50     P99  THREADS  EXITED  INCOMPL  UNWOUND\n"
	"outer        3  19.0ms  14.5ms  14.0ms  16.0ms  3.00ms  3.00ms  6.33ms  10.0ms  5.90ms  10.0ms        3       0        0        0\n"
	"  inner      3  4.50ms  4.50ms  4.00ms  3.50ms  1.00ms  1.00ms  1.50ms  2.00ms  1.47ms  2.00ms        2       0        0        1\n"
	"open         0       -       -       -       -       -       -       -       -       -       -        0       0        2        0\n"
	"  inner      1  1.00ms  1.00ms  1.00ms  1.00ms     0ns  1.00ms  1.00ms  1.00ms  1.00ms  1.00ms        1       0        0        0\n"
	"\n"
	"traced for 20.0ms\n"
	"hidden: 1 of 5 paths (--min-total 1.00ms)\n";
/* clang-format on */

static void test_table_min_total_max_depth(void **state)
{
	struct agg *a = build();
	struct report r;
	char *out, rows[128];

	(void)state;
	init_report(&r, a);
	/*
	 * 1ms: the top-level inner (0, incomplete) goes; open (0) stays for
	 * its child inner (1ms).  The summary still names every incomplete.
	 */
	r.min_total_ns = 1 * MS;
	out = run(report_table, &r);
	assert_int_equal(strncmp(out, table_min_total_expected,
				 strlen(table_min_total_expected)),
			 0);
	assert_non_null(strstr(out, "\nincomplete: inner count=1 "));
	free(out);

	/* 1.5ms: open > inner (1ms) and so open go too */
	r.min_total_ns = 1500000;
	out = run(report_table, &r);
	top_rows(out, rows, sizeof(rows));
	assert_string_equal(rows, "outer");
	assert_non_null(strstr(out, "\n  inner      3  4.50ms"));
	assert_null(strstr(out, "\nopen "));
	assert_null(strstr(out, "\n  inner      1 "));
	assert_non_null(strstr(out, "\nhidden: 3 of 5 paths "
				    "(--min-total 1.50ms)\n"));
	free(out);

	/* the boundary: total == min-total is shown */
	r.min_total_ns = 4500000;
	out = run(report_table, &r);
	assert_non_null(strstr(out, "\n  inner      3  4.50ms"));
	free(out);
	r.min_total_ns = 4500001;
	out = run(report_table, &r);
	assert_null(strstr(out, "\n  inner "));
	/* a hidden child still counts in its parent's times */
	assert_non_null(strstr(out, "\nouter      3  19.0ms  14.5ms"));
	free(out);

	/* depth 1 and a minimum: both named */
	r.min_total_ns = 1;
	r.max_depth = 1;
	out = run(report_table, &r);
	top_rows(out, rows, sizeof(rows));
	assert_string_equal(rows, "outer");
	assert_null(strstr(out, "\n  "));
	assert_non_null(strstr(out, "\nhidden: 4 of 5 paths "
				    "(--min-total 1ns, --max-depth 1)\n"));
	free(out);

	r.min_total_ns = 0;
	r.max_depth = 1;
	out = run(report_table, &r);
	top_rows(out, rows, sizeof(rows));
	assert_string_equal(rows, "outer open inner");
	assert_null(strstr(out, "\n  "));
	assert_non_null(
		strstr(out, "\nhidden: 2 of 5 paths (--max-depth 1)\n"));
	free(out);

	/* depth 2 is the whole tree: no hidden line */
	r.max_depth = 2;
	out = run(report_table, &r);
	assert_string_equal(out, table_expected);
	free(out);
	agg__free(a);

	/* --by tid: the thread roots are no level of calls, --max-depth 1
	 * keeps each thread's top-level timers */
	a = agg__new(NTIMERS);
	assert_non_null(a);
	assert_int_equal(agg__set_by(a, AGG_BY_TID), 0);
	S(7, OUTER, 1, 0);
	S(7, INNER, 2, 1 * MS);
	E(7, INNER, 2, 2 * MS);
	E(7, OUTER, 1, 3 * MS);
	agg__snapshot(a, 3 * MS);
	init_report(&r, a);
	r.max_depth = 1;
	out = run(report_table, &r);
	assert_non_null(strstr(out, "\ntid 7 "));
	assert_non_null(strstr(out, "\n  outer "));
	assert_null(strstr(out, "\n    inner "));
	assert_non_null(strstr(out, "\nhidden: 1 of 3 paths (--max-depth 1)\n"));
	free(out);
	agg__free(a);
}

/*
 * Rows a newcomer misread: a --by root (a key, not a timer) read COUNT 0
 * and THREADS 0: COUNT is now its top-level calls, the rest "-"; a deep
 * recursion padded every NAME to hundreds of columns: past 16 levels the
 * indent stays and the depth is written "[17] outer"; MIN 2.77us beside
 * AVG <res: every per-call statistic below the per-call error bar reads
 * <res (here MIN, 998 ns against 1500 ns, while AVG and MAX are numbers).
 */
/* notes under a row: a span of several stops' calls per stop, and the
 * stops of another name that paired with nothing (issue 46) */
static void test_table_notes(void **state)
{
	static const struct report_timer t2[NTIMERS] = {
		[OUTER] = {"txn", "span", "usdt:p:a -> usdt:p:b | usdt:p:c", 1,
			   NULL, 0, "usdt"},
		[INNER] = {"req", "span", "usdt:p:d -> usdt:p:e", 1, NULL, 0,
			   "usdt"},
	};
	struct report r;
	struct agg *a;
	char *out;

	(void)state;
	a = agg__new(NTIMERS);
	assert_non_null(a);
	S(1, OUTER, 1, 0);
	S(1, INNER, 2, 1 * MS);
	assert_int_equal(rec_push(a, IPROF_REC_NAMEMISS, 0, INNER, 1, 2 * MS,
				  2, 0, 0),
			 0);
	E(1, INNER, 2, 3 * MS);
	E(1, OUTER, 1, 4 * MS);
	S(1, OUTER, 1, 5 * MS);
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, OUTER, 1, 6 * MS, 1,
				  0, 1u << 16),
			 0);
	S(1, OUTER, 1, 7 * MS);
	E(1, OUTER, 1, 8 * MS);
	agg__snapshot(a, 9 * MS);
	init_report(&r, a);
	r.timers = t2;
	r.columns = (enum report_col[]){ REPORT_COL_COUNT };
	r.ncolumns = 1;
	out = run(report_table, &r);
	assert_non_null(strstr(out, "NAME   COUNT\n"
				    "txn        3\n"
				    "  (stops: 2 at usdt:p:b, 1 at usdt:p:c)\n"
				    "  req      1\n"
				    "    (1 stop of another name, not paired)\n"));
	assert_non_null(strstr(out, "\nname mismatch: txn > req: 1 stop of another name, not paired (the frame stays open)\n"));
	free(out);
	agg__free(a);
}

static void test_table_rows(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[INNER] = { .start_in_ns = 1, .start_out_ns = 1,
			    .stop_in_ns = 1, .stop_out_ns = 1,
			    .sd_ns = 3000 },
	};
	struct report r;
	struct agg *a;
	char *out, *row, want[256];
	uint16_t d;

	(void)state;
	a = agg__new(NTIMERS);
	assert_non_null(a);
	assert_int_equal(agg__set_by(a, AGG_BY_TID), 0);
	S(7, OUTER, 1, 0);
	E(7, OUTER, 1, 1 * MS);
	S(7, OUTER, 1, 2 * MS);
	E(7, OUTER, 1, 3 * MS);
	S(8, INNER, 1, 0);
	E(8, INNER, 1, 1 * MS);
	agg__snapshot(a, 3 * MS);
	init_report(&r, a);
	r.columns = (enum report_col[]){ REPORT_COL_COUNT, REPORT_COL_TOTAL,
					 REPORT_COL_MIN, REPORT_COL_THREADS };
	r.ncolumns = 4;
	out = run(report_table, &r);
	assert_non_null(strstr(out, "\ntid 7        2       -       -        -\n"));
	assert_non_null(strstr(out, "\ntid 8        1       -       -        -\n"));
	free(out);
	agg__free(a);

	a = agg__new(NTIMERS);
	assert_non_null(a);
	for (d = 1; d <= 20; d++)
		S(1, OUTER, d, d * 1000);
	for (d = 20; d >= 1; d--)
		E(1, OUTER, d, 100000 - d * 1000);
	agg__snapshot(a, 1 * MS);
	init_report(&r, a);
	r.columns = (enum report_col[]){ REPORT_COL_COUNT };
	r.ncolumns = 1;
	out = run(report_table, &r);
	assert_non_null(strstr(out, "\n                              outer  "));
	snprintf(want, sizeof(want), "\n%32s[17] outer  ", "");
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), "\n%32s[20] outer  ", "");
	assert_non_null(strstr(out, want));
	assert_null(strstr(out, "\n                                  "));
	free(out);
	agg__free(a);

	a = agg__new(NTIMERS);
	assert_non_null(a);
	assert_int_equal(agg__set_costs(a, costs), 0);
	S(1, INNER, 1, 0);
	E(1, INNER, 1, 1000);
	S(1, INNER, 1, 2000);
	E(1, INNER, 1, 12000);
	agg__snapshot(a, 1 * MS);
	init_report(&r, a);
	r.columns = (enum report_col[]){ REPORT_COL_MIN, REPORT_COL_AVG,
					 REPORT_COL_MAX, REPORT_COL_AVGERR };
	r.ncolumns = 4;
	out = run(report_table, &r);
	row = strstr(out, "\ninner ");
	assert_non_null(row);
	/* AVGERR: the compensation's 1.50 us and the mean's standard error
	 * over the two calls (1 and 10 us: sd 6.36 us / sqrt(2) = 4.50 us);
	 * the average resolved: above the compensation's part */
	assert_non_null(strstr(row, "  <res  5.50us  10.0us  6.00us\n"));
	free(out);
	agg__free(a);
}

/*
 * One rule for "below resolution" on every statistic (issue 45): one call
 * of 1 us whose probes' spread is 3 us reads "<res" in TOTAL, SELF, MIN,
 * AVG, MAX and every percentile (a newcomer read P50 "0ns" and MIN "0ns"
 * as measured), and its seed comment names them all; two calls of 1 and
 * 10 us: MIN and P50 alone (report_node_res()'s bits).
 */
static void test_res_every_stat(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[INNER] = { .start_in_ns = 1, .start_out_ns = 1,
			    .stop_in_ns = 1, .stop_out_ns = 1,
			    .sd_ns = 3000 },
	};
	struct report r;
	struct agg *a;
	const struct agg_node *n;
	char *out, *row;

	(void)state;
	a = agg__new(NTIMERS);
	assert_non_null(a);
	assert_int_equal(agg__set_costs(a, costs), 0);
	S(1, INNER, 1, 0);
	E(1, INNER, 1, 1000);
	agg__snapshot(a, 1 * MS);
	n = agg__root(a)->child;
	assert_non_null(n);
	assert_int_equal(report_node_res(n), (1u << REPORT_NSTAT) - 1);
	assert_string_equal(report_stat_key(REPORT_STAT_P50), "p50_ns");
	assert_null(report_stat_key(REPORT_NSTAT));
	init_report(&r, a);
	r.columns = (enum report_col[]){ REPORT_COL_TOTAL, REPORT_COL_SELF,
					 REPORT_COL_MIN,   REPORT_COL_AVG,
					 REPORT_COL_MAX,   REPORT_COL_P50,
					 REPORT_COL_P90,   REPORT_COL_P99 };
	r.ncolumns = 8;
	out = run(report_table, &r);
	row = strstr(out, "\ninner ");
	assert_non_null(row);
	assert_non_null(strstr(row, "  <res  <res  <res  <res  <res  <res  <res  <res\n"));
	free(out);
	/* the parts of its total too (ONCPU read 52.1ms beside a TOTAL <res
	 * of a 2.71 ms call: newcomer trial 5) */
	r.columns = (enum report_col[]){ REPORT_COL_TOTAL, REPORT_COL_ONCPU,
					 REPORT_COL_OFFCPU, REPORT_COL_RUNQ,
					 REPORT_COL_BLOCKED };
	r.ncolumns = 5;
	out = run(report_table, &r);
	row = strstr(out, "\ninner ");
	assert_non_null(row);
	{
		int k = 0;

		for (char *p = row + 1; (p = strstr(p, "<res")) &&
					p < strchr(row + 1, '\n');
		     p += 4)
			k++;
		assert_int_equal(k, 5);
	}
	free(out);
	out = run(report_seed, &r);
	assert_non_null(strstr(out, ", below resolution: thread_time self min "
				    "avg max p50 p90 p99 p99.9\n"));
	free(out);
	S(1, INNER, 1, 2000);
	E(1, INNER, 1, 12000);
	agg__snapshot(a, 1 * MS);
	/* the median of two is the lower one (rank ceil(q * count)) */
	assert_int_equal(report_node_res(n), (1u << REPORT_STAT_MIN) |
						     (1u << REPORT_STAT_P50));
	agg__free(a);
}

/*
 * A parent whose own error bar is wider than its total, over a child
 * that is resolved: its TOTAL and AVG are numbers (it holds the child's
 * 20 us), its SELF (200 ns) stays "<res" (newcomer trial 6:
 * EVP_DigestUpdate "<res" above SHA256_Update 3.16ms).
 */
static void test_res_parent_of_resolved(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[OUTER] = { .start_in_ns = 1, .start_out_ns = 1,
			    .stop_in_ns = 1, .stop_out_ns = 1,
			    .sd_ns = 1000000 },
		[INNER] = { .start_in_ns = 1, .start_out_ns = 1,
			    .stop_in_ns = 1, .stop_out_ns = 1, .sd_ns = 1 },
	};
	const struct agg_node *o, *i;
	struct agg *a;
	uint32_t m;

	(void)state;
	a = agg__new(NTIMERS);
	assert_non_null(a);
	assert_int_equal(agg__set_costs(a, costs), 0);
	S(1, OUTER, 1, 0);
	S(1, INNER, 2, 100);
	E(1, INNER, 2, 20100);
	E(1, OUTER, 1, 20200);
	agg__snapshot(a, 1 * MS);
	o = agg__root(a)->child;
	assert_non_null(o);
	i = o->child;
	assert_non_null(i);
	assert_int_equal(report_node_res(i) & (1u << REPORT_STAT_TOTAL), 0);
	m = report_node_res(o);
	assert_int_equal(m & (1u << REPORT_STAT_TOTAL | 1u << REPORT_STAT_AVG),
			 0);
	assert_int_not_equal(m & (1u << REPORT_STAT_SELF), 0);
	assert_int_not_equal(m & (1u << REPORT_STAT_MAX), 0);
	agg__free(a);
}

/*
 * A TOTAL whose MAX is resolved is a number, whatever its bar (newcomer
 * trial 7: PyObject_Str's TOTAL read <res beside MAX 580 us): 1000 calls
 * of 100 ns and one of 600 us, each call's probes with a bias of 700 ns
 * inside it (drift 1400 over in + out, half inside): TOTAL 700.0 us
 * below its bar of 700.7 us, MAX 600 us above the per-call 700 ns; MIN
 * (100 ns) stays <res.
 */
static void test_res_total_of_resolved_max(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[INNER] = { .start_in_ns = 1, .start_out_ns = 1,
			    .stop_in_ns = 1, .stop_out_ns = 1,
			    .drift_ns = 1400 },
	};
	const struct agg_node *i;
	struct report_err e;
	struct agg *a;
	uint32_t m, k;

	(void)state;
	a = agg__new(NTIMERS);
	assert_non_null(a);
	assert_int_equal(agg__set_costs(a, costs), 0);
	for (k = 0; k < 1000; k++) {
		S(1, INNER, 1, 1000 * k);
		E(1, INNER, 1, 1000 * k + 102);
	}
	S(1, INNER, 1, 2000000);
	E(1, INNER, 1, 2600002);
	agg__snapshot(a, 1 * MS);
	i = agg__root(a)->child;
	assert_non_null(i);
	assert_int_equal(i->count, 1001);
	assert_int_equal(i->max_ns, 600000);
	assert_int_equal(report_node_err(i, &e), 1);
	assert_true(e.total_comp_ns > i->total_ns);
	m = report_node_res(i);
	assert_int_equal(m & (1u << REPORT_STAT_MAX), 0);
	assert_int_equal(m & (1u << REPORT_STAT_TOTAL), 0);
	assert_int_not_equal(m & (1u << REPORT_STAT_MIN), 0);
	agg__free(a);
}

/* clang-format off */
static const char table_columns_expected[] =
	"NAME   COUNT    RUNQ  BLOCKED  EXITED  DISCARD  STDDEV     P90   P99.9\n"
	"outer      3  2.00ms   1.00ms       0        1  2.87ms  10.0ms  10.0ms\n"
	"open       0       -        -       0        0       -       -       -\n"
	"inner      0       -        -       0        0       -       -       -\n"
	"\n";
static const char table_plus_head[] =
	"NAME   COUNT   TOTAL    SELF    WALL   ONCPU  OFFCPU     MIN     AVG     MAX     P50     P99  THREADS  EXITED  INCOMPL  UNWOUND    RUNQ  BLOCKED\n";
/* clang-format on */

static void test_table_columns(void **state)
{
	enum report_col cols[REPORT_NCOL];
	struct agg *a = build();
	struct report r;
	size_t n, len;
	char *out;
	FILE *f;

	(void)state;
	init_report(&r, a);
	assert_int_equal(report_parse_columns("count,runq,blocked,exited,"
					      "discarded,stddev,p90,p99.9",
					      cols, REPORT_NCOL, &n),
			 0);
	assert_int_equal(n, 8);
	assert_int_equal(cols[1], REPORT_COL_RUNQ);
	assert_int_equal(cols[7], REPORT_COL_P999);
	r.columns = cols;
	r.ncolumns = n;
	r.max_depth = 1;
	out = run(report_table, &r);
	/*
	 * outer: 10, 6, 3ms: mean 19/3ms, stddev sqrt(74/9)ms = 2.87ms;
	 * p90 and p99.9: the 10ms slot, clamped to max.  One discarded.
	 */
	assert_int_equal(strncmp(out, table_columns_expected,
				 strlen(table_columns_expected)),
			 0);
	free(out);

	/* '+': the default columns, then these */
	assert_int_equal(
		report_parse_columns("+runq,blocked", cols, REPORT_NCOL, &n),
		0);
	assert_int_equal(n, 17);
	assert_int_equal(cols[0], REPORT_COL_COUNT);
	assert_int_equal(cols[14], REPORT_COL_UNWOUND);
	assert_int_equal(cols[15], REPORT_COL_RUNQ);
	assert_int_equal(cols[16], REPORT_COL_BLOCKED);
	r.ncolumns = n;
	out = run(report_table, &r);
	assert_int_equal(strncmp(out, table_plus_head, strlen(table_plus_head)),
			 0);
	free(out);

	/* bad lists */
	assert_int_equal(report_parse_columns("", cols, REPORT_NCOL, &n),
			 -EINVAL);
	assert_int_equal(report_parse_columns("+", cols, REPORT_NCOL, &n),
			 -EINVAL);
	assert_int_equal(report_parse_columns("count,", cols, REPORT_NCOL, &n),
			 -EINVAL);
	assert_int_equal(
		report_parse_columns("count,,total", cols, REPORT_NCOL, &n),
		-EINVAL);
	assert_int_equal(
		report_parse_columns("count,bogus", cols, REPORT_NCOL, &n),
		-EINVAL);
	assert_int_equal(report_parse_columns("tot", cols, REPORT_NCOL, &n),
			 -EINVAL);
	assert_int_equal(
		report_parse_columns("count,count", cols, REPORT_NCOL, &n),
		-EINVAL);
	/* a default column asked for again with '+' stays where it is */
	assert_int_equal(report_parse_columns("+count", cols, REPORT_NCOL, &n),
			 0);
	assert_int_equal(cols[0], REPORT_COL_COUNT);
	assert_int_equal(
		report_parse_columns("+stddev,count,stddev", cols, REPORT_NCOL,
				     &n),
		-EINVAL);
	assert_int_equal(report_parse_columns("count,total", cols, 1, &n),
			 -EINVAL);
	assert_string_equal(report_col_name(REPORT_COL_P999), "p99.9");
	assert_null(report_col_name(REPORT_NCOL));

	/* an invalid column in struct report is refused, nothing printed */
	cols[0] = REPORT_NCOL;
	r.ncolumns = 1;
	out = NULL;
	len = 0;
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(report_table(f, &r), -EINVAL);
	fclose(f);
	assert_int_equal(len, 0);
	free(out);
	agg__free(a);
}

static void test_parse_sort_weight(void **state)
{
	static const char *const sorts[] = {"total", "self", "count", "name",
					    "first"};
	static const char *const weights[] = {"self", "total", "oncpu",
					      "offcpu", "count"};
	enum report_weight w = REPORT_WEIGHT_COUNT;
	enum report_sort s = REPORT_SORT_FIRST;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		assert_int_equal(report_parse_sort(sorts[i], &s), 0);
		assert_int_equal(s, (enum report_sort)i);
		assert_string_equal(report_sort_str(s), sorts[i]);
		assert_int_equal(report_parse_weight(weights[i], &w), 0);
		assert_int_equal(w, (enum report_weight)i);
	}
	assert_int_equal(report_parse_sort("Total", &s), -EINVAL);
	assert_int_equal(report_parse_sort("", &s), -EINVAL);
	assert_int_equal(report_parse_sort(NULL, &s), -EINVAL);
	assert_int_equal(report_parse_weight("wall", &w), -EINVAL);
	assert_int_equal(report_parse_weight(NULL, &w), -EINVAL);
	assert_string_equal(report_sort_str((enum report_sort)99), "?");
}

/* ---- folded -------------------------------------------------------------- */

static void test_folded_weights(void **state)
{
	/*
	 * build(): outer self 7 + 4.5 + 3ms; on CPU 16ms of which inner
	 * 3.5ms; off CPU 3ms of which inner 1ms.  open (0) and the
	 * top-level inner (0) have no line; open's exclusive on-CPU time,
	 * 0 - 1ms, is clamped to 0.
	 */
	static const struct {
		enum report_weight w;
		const char *out;
	} c[] = {
		{REPORT_WEIGHT_SELF,
		 "outer 14500000\nouter;inner 4500000\nopen;inner 1000000\n"},
		{REPORT_WEIGHT_TOTAL,
		 "outer 19000000\nouter;inner 4500000\nopen;inner 1000000\n"},
		{REPORT_WEIGHT_ONCPU,
		 "outer 12500000\nouter;inner 3500000\nopen;inner 1000000\n"},
		{REPORT_WEIGHT_OFFCPU, "outer 2000000\nouter;inner 1000000\n"},
		{REPORT_WEIGHT_COUNT, "outer 3\nouter;inner 3\nopen;inner 1\n"},
	};
	struct agg *a = build();
	struct report r;
	char *out;
	size_t i;

	(void)state;
	init_report(&r, a);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		r.weight = c[i].w;
		out = run(report_folded, &r);
		assert_string_equal(out, c[i].out);
		free(out);
	}

	/* lines follow --sort */
	r.weight = REPORT_WEIGHT_SELF;
	r.sort = REPORT_SORT_NAME;
	out = run(report_folded, &r);
	assert_string_equal(out, "open;inner 1000000\nouter 14500000\n"
				 "outer;inner 4500000\n");
	free(out);
	agg__free(a);
}

/* the value after the last space of every line, summed; lines counted */
static uint64_t folded_sum(const char *out, size_t *lines)
{
	const char *l, *e, *sp;
	uint64_t sum = 0;

	*lines = 0;
	for (l = out; *l; l = e + 1) {
		e = strchr(l, '\n');
		assert_non_null(e);
		for (sp = e; sp > l && sp[-1] != ' '; sp--)
			;
		assert_true(sp > l + 1);
		sum += strtoull(sp, NULL, 10);
		(*lines)++;
	}
	return sum;
}

/*
 * Every frame completes inside a completed parent (no incomplete, unwound
 * or discarded frame): then self = total - completed children exactly,
 * and the lines weighted by self add up to the top-level totals; on- and
 * off-CPU lines add up to the top-level on/off-CPU times.  The options
 * move a hidden node's weight to its shown parent: the sums do not change.
 * 3 levels, 2 threads, 2 top-level timers (ms):
 *   tid 1: outer 0-20 { inner 2-12 { open 3-5, open 6-9 (blocked 7-8) },
 *                       inner 14-18 (runnable 15-17) }
 *   tid 2: never 0-4 { inner 1-3 }, outer 5-9 { never 6-7 }
 */
static struct agg *build_clean(void)
{
	struct agg *a = agg__new(NTIMERS);

	assert_non_null(a);
	S(1, OUTER, 1, 0);
	S(1, INNER, 2, 2 * MS);
	S(1, OPEN, 3, 3 * MS);
	E(1, OPEN, 3, 5 * MS);
	S(1, OPEN, 3, 6 * MS);
	OUT(1, 7 * MS, IPROF_OFF_BLOCKED);
	IN(1, 8 * MS);
	E(1, OPEN, 3, 9 * MS);
	E(1, INNER, 2, 12 * MS);
	S(1, INNER, 2, 14 * MS);
	OUT(1, 15 * MS, IPROF_OFF_RUNQ);
	IN(1, 17 * MS);
	E(1, INNER, 2, 18 * MS);
	E(1, OUTER, 1, 20 * MS);
	S(2, NEVER, 1, 0);
	S(2, INNER, 2, 1 * MS);
	E(2, INNER, 2, 3 * MS);
	E(2, NEVER, 1, 4 * MS);
	S(2, OUTER, 1, 5 * MS);
	S(2, NEVER, 2, 6 * MS);
	E(2, NEVER, 2, 7 * MS);
	E(2, OUTER, 1, 9 * MS);
	agg__snapshot(a, 20 * MS);
	return a;
}

static void test_folded_sums(void **state)
{
	uint64_t total = 0, self = 0, oncpu = 0, offcpu = 0, count = 0;
	struct agg *a = build_clean();
	const struct agg_node *n, *root;
	struct report r;
	size_t lines;
	char *out;
	int opt;

	(void)state;
	root = agg__root(a);
	for (n = root->child; n; n = n->next) {
		total += n->total_ns;
		oncpu += n->oncpu_ns;
		offcpu += n->runq_ns + n->blocked_ns;
	}
	for (n = report_next(root); n; n = report_next(n)) {
		self += n->self_ns;
		count += n->count;
	}
	/* outer 20 + 4ms, never 4ms; 3ms off CPU; 9 calls */
	assert_int_equal(total, 28 * MS);
	assert_int_equal(self, total);
	assert_int_equal(offcpu, 3 * MS);
	assert_int_equal(oncpu, 25 * MS);
	assert_int_equal(count, 9);

	init_report(&r, a);
	out = run(report_folded, &r);
	assert_string_equal(out, "outer 9000000\n"
				 "outer;inner 9000000\n"
				 "outer;inner;open 5000000\n"
				 "outer;never 1000000\n"
				 "never 2000000\n"
				 "never;inner 2000000\n");
	assert_int_equal(folded_sum(out, &lines), total);
	free(out);

	/*
	 * The same sums with nodes hidden: their weight goes up a level.
	 * opt 1: --min-total 3ms --max-depth 2; opt 2: --max-depth 1.
	 */
	for (opt = 0; opt < 3; opt++) {
		r.min_total_ns = opt == 1 ? 3 * MS : 0;
		r.max_depth = opt == 2 ? 1 : opt == 1 ? 2 : 0;
		r.weight = REPORT_WEIGHT_SELF;
		out = run(report_folded, &r);
		assert_int_equal(folded_sum(out, &lines), total);
		/* outer;never, never;inner (< 3ms) and depth 3 go up */
		if (opt == 1)
			assert_string_equal(out, "outer 10000000\n"
						 "outer;inner 14000000\n"
						 "never 4000000\n");
		if (opt == 2)
			assert_string_equal(out, "outer 24000000\n"
						 "never 4000000\n");
		free(out);
		r.weight = REPORT_WEIGHT_ONCPU;
		out = run(report_folded, &r);
		assert_int_equal(folded_sum(out, &lines), oncpu);
		free(out);
		r.weight = REPORT_WEIGHT_OFFCPU;
		out = run(report_folded, &r);
		assert_int_equal(folded_sum(out, &lines), offcpu);
		free(out);
		r.weight = REPORT_WEIGHT_COUNT;
		out = run(report_folded, &r);
		assert_int_equal(folded_sum(out, &lines), count);
		free(out);
	}

	/* total is inclusive: nested time counts again */
	r.min_total_ns = 0;
	r.max_depth = 0;
	r.weight = REPORT_WEIGHT_TOTAL;
	out = run(report_folded, &r);
	assert_int_equal(folded_sum(out, &lines),
			 24 * MS + 14 * MS + 5 * MS + 1 * MS + 4 * MS + 2 * MS);
	assert_int_equal(lines, 6);
	free(out);

	/* a hidden top-level timer has no parent to go to: it is left out */
	r.weight = REPORT_WEIGHT_SELF;
	r.min_total_ns = 5 * MS;
	out = run(report_folded, &r);
	assert_int_equal(folded_sum(out, &lines), 24 * MS);
	free(out);
	agg__free(a);
}

/*
 * The property holds only for frames completed inside completed parents:
 * in build(), open is still open around a completed inner (1ms), so the
 * self lines add up to 1ms more than the top-level totals.
 */
static void test_folded_sum_incomplete(void **state)
{
	struct agg *a = build();
	struct report r;
	size_t lines;
	char *out;

	(void)state;
	init_report(&r, a);
	out = run(report_folded, &r);
	assert_int_equal(folded_sum(out, &lines), 19 * MS + 1 * MS);
	assert_int_equal(lines, 3);
	free(out);
	agg__free(a);
}

static void test_folded_names(void **state)
{
	struct report_timer t[NTIMERS];
	struct agg *a = build();
	struct report r;
	char *out;

	(void)state;
	memcpy(t, timers, sizeof(t));
	t[OUTER].name = "a;b c\td\ne";
	t[INNER].name = "x\x7fy";
	init_report(&r, a);
	r.timers = t;
	r.weight = REPORT_WEIGHT_COUNT;
	out = run(report_folded, &r);
	assert_string_equal(out, "a_b_c_d_e 3\na_b_c_d_e;x_y 3\nopen;x_y 1\n");
	free(out);

	/* without names: "#ID" */
	r.timers = NULL;
	out = run(report_folded, &r);
	assert_string_equal(out, "#0 3\n#0;#1 3\n#4;#1 1\n");
	free(out);
	agg__free(a);
}

static void test_folded_empty_and_errors(void **state)
{
	struct agg *a = agg__new(2);
	struct report r = {0};
	char *out;
	FILE *f;

	(void)state;
	assert_non_null(a);
	r.agg = a;
	out = run(report_folded, &r);
	assert_string_equal(out, "");
	free(out);
	agg__free(a);

	a = build();
	init_report(&r, a);
	f = fopen("/dev/full", "w");
	if (!f) {
		agg__free(a);
		skip();
	}
	assert_int_equal(report_folded(f, &r), -ENOSPC);
	fclose(f);
	agg__free(a);
}

/* the part of an error that timers refused for one reason share */
static void test_timer_reason(void **state)
{
	struct report_timer t = { .name = "x", .file = "a.conf", .line = 3 };

	(void)state;
	t.error = "a.conf:3:5: no kernel function 'x'";
	assert_string_equal(report_timer_reason(&t), "no kernel function 'x'");
	t.error = "a.conf:3: fentry: refused (EPERM)";
	assert_string_equal(report_timer_reason(&t), "fentry: refused (EPERM)");
	/* not the timer's own location: kept whole */
	t.error = "b.conf:3: fentry: refused";
	assert_string_equal(report_timer_reason(&t), t.error);
	t.error = "a.conf:3:";
	assert_string_equal(report_timer_reason(&t), t.error);
	t.error = "a.conf:x: y";
	assert_string_equal(report_timer_reason(&t), t.error);
	t.error = "a.conf:3:4:5: three numbers";
	assert_string_equal(report_timer_reason(&t), t.error);
	t.error = "a.conf: no line";
	assert_string_equal(report_timer_reason(&t), t.error);
	/* a file name with a colon */
	t.file = "d:1/p.conf";
	t.error = "d:1/p.conf:3: why";
	assert_string_equal(report_timer_reason(&t), "why");
	/* where the probe came from is unknown: the whole error */
	t.file = NULL;
	assert_string_equal(report_timer_reason(&t), t.error);
	t.error = NULL;
	assert_string_equal(report_timer_reason(&t), "unknown reason");
}

/* print report_not_attached() into memory; returns the text */
static char *not_attached(const struct report_timer *t, uint32_t n,
			  const char *pfx, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_not_attached(f, t, n, pfx), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * Timers refused for one reason: one line with the reason and the names
 * (at most REPORT_NAMES_MAX, then how many more); a reason of one timer:
 * its whole error, FILE:LINE first.  Groups in the order of their first
 * timer; attached timers never listed.
 */
static void test_not_attached_grouped(void **state)
{
	static const char refused[] =
		"fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)";
	static char names[16][8], errs[16][256];
	struct report_timer t[16] = { { 0 } };
	char *out;
	int i;

	(void)state;
	for (i = 0; i < 16; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		snprintf(errs[i], sizeof(errs[i]), "k.conf:%d:6: %s", 20 + i,
			 refused);
		t[i].name = names[i];
		t[i].kind = "func";
		t[i].file = "k.conf";
		t[i].line = 20 + i;
		t[i].error = errs[i];
	}
	t[0].attached = 1; /* attached: not listed (its error is ignored) */
	t[0].error = NULL;
	t[2].error = "k.conf:22:6: no kernel function 'f2' (not in /proc/kallsyms)";
	t[15].attached = 1;
	t[15].error = NULL;

	/* 13 refused alike (f1, f3..f14), f2 alone */
	out = not_attached(t, 16, "# ", 14);
	assert_string_equal(
		out,
		"# not attached: 13 timers (f1 at k.conf:21:6, f3 at k.conf:23:6, f4 at k.conf:24:6, f5 at k.conf:25:6, f6 at k.conf:26:6, f7 at k.conf:27:6, f8 at k.conf:28:6, f9 at k.conf:29:6, f10 at k.conf:30:6, f11 at k.conf:31:6, f12 at k.conf:32:6, f13 at k.conf:33:6 and 1 more): fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)\n"
		"# not attached: f2: k.conf:22:6: no kernel function 'f2' (not in /proc/kallsyms)\n");
	free(out);

	/* seven alike, as probes.d/kvm.conf on a host without fentry and
	 * kprobes: every name on the line */
	out = not_attached(t + 3, 7, "iprof: ", 7);
	assert_string_equal(
		out,
		"iprof: not attached: 7 timers (f3 at k.conf:23:6, f4 at k.conf:24:6, f5 at k.conf:25:6, f6 at k.conf:26:6, f7 at k.conf:27:6, f8 at k.conf:28:6, f9 at k.conf:29:6): fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)\n");
	free(out);

	/* one alone keeps its location */
	out = not_attached(t + 3, 1, "", 1);
	assert_string_equal(
		out,
		"not attached: f3: k.conf:23:6: fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)\n");
	free(out);

	/* a glob: the timers of one line share their place, said once;
	 * an error without it (a recording of an older iprof) is placed
	 * by file and line */
	for (i = 3; i < 6; i++)
		snprintf(errs[i], sizeof(errs[i]), "k.conf:9:8: %s", refused);
	out = not_attached(t + 3, 3, "", 3);
	assert_string_equal(
		out,
		"not attached: 3 timers (f3, f4, f5) at k.conf:9:8: fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)\n");
	free(out);
	t[5].error = refused;
	out = not_attached(t + 3, 3, "", 3);
	assert_string_equal(
		out,
		"not attached: 3 timers (f3 at k.conf:9:8, f4 at k.conf:9:8, f5 at k.conf:25): fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)\n");
	free(out);

	/* none not attached: nothing */
	out = not_attached(t, 1, "", 0);
	assert_string_equal(out, "");
	free(out);
	out = not_attached(NULL, 0, "", 0);
	assert_string_equal(out, "");
	free(out);
}

/* the summary groups them too, in the table and the seed format */
static void test_summary_grouped(void **state)
{
	struct agg *a = agg__new(NTIMERS);
	struct report_timer t[NTIMERS];
	struct report r;
	char *out;

	(void)state;
	assert_non_null(a);
	memcpy(t, timers, sizeof(t));
	t[NEVER].attached = 0;
	t[NEVER].error = "p.conf:7: fentry refused by the kernel (EPERM)";
	t[NEVER].file = "p.conf";
	t[NEVER].line = 7;
	t[REFUSED].error = "p.conf:9: fentry refused by the kernel (EPERM)";
	t[REFUSED].file = "p.conf";
	t[REFUSED].line = 9;
	S(1, OUTER, 1, 0);
	E(1, OUTER, 1, 1 * MS);
	S(1, INNER, 1, 2 * MS);
	E(1, INNER, 1, 3 * MS);
	S(1, OPEN, 1, 3 * MS);
	E(1, OPEN, 1, 4 * MS);
	agg__snapshot(a, 5 * MS);
	memset(&r, 0, sizeof(r));
	r.agg = a;
	r.timers = t;
	out = run(report_seed, &r);
	assert_non_null(strstr(
		out, "\n# not attached: 2 timers (never at p.conf:7, refused at p.conf:9): fentry "
		     "refused by the kernel (EPERM)\n# orphan stops: inner 3\n"
		     "# kprobe misses: open 2 (calls beyond 256 open at once "
		     "get no kretprobe: raise --maxactive)\n# lost: none\n"));
	free(out);
	r.loss.kprobe_misses = 2;
	out = run(report_table, &r);
	assert_non_null(strstr(
		out, "\nnot attached: 2 timers (never at p.conf:7, refused at p.conf:9): fentry "
		     "refused by the kernel (EPERM)\norphan stops: inner 3\n"));
	assert_non_null(strstr(out, "\nlost: 2 kprobe misses (kernel)\n"));
	free(out);
	agg__free(a);
}

/* the per-path lists stop at 16 paths: the rest in one line */
static void test_summary_capped(void **state)
{
	struct agg *a = agg__new(NTIMERS);
	struct report r;
	char *out, *p;
	int d, lines = 0;

	(void)state;
	assert_non_null(a);
	/* inner recursing 20 deep on tid 1 from 1 ms to 20 ms, never
	 * stopped: 20 incomplete paths, inner > inner > ... */
	for (d = 1; d <= 20; d++)
		S(1, INNER, (uint16_t)d, (uint64_t)d * MS);
	agg__snapshot(a, 100 * MS);
	memset(&r, 0, sizeof(r));
	r.agg = a;
	r.timers = timers;
	out = run(report_seed, &r);
	for (p = out; (p = strstr(p, "# incomplete: inner")); p++)
		lines++;
	assert_int_equal(lines, 16);
	/* 17-20 deep: 83 + 82 + 81 + 80 ms */
	assert_non_null(strstr(out, "\n# incomplete: 4 more paths count=4 elapsed=326.00ms (JSON lists them)\n"));
	free(out);
	out = run(report_table, &r);
	assert_non_null(strstr(out, "\nincomplete: 4 more paths count=4 elapsed=326ms (JSON lists them)\n"));
	free(out);
	agg__free(a);
}

/* a glob's timers with 0 hits: ten named, with the line they came from
 * (not the path twice), then how many more */
static void test_zero_hits_capped(void **state)
{
	enum { N = 14 };
	struct report_timer t[N];
	struct agg *a = agg__new(N);
	char names[N][16], where[N][64], *out;
	struct report r;
	int i;

	(void)state;
	assert_non_null(a);
	memset(t, 0, sizeof(t));
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "f%02d", i);
		snprintf(where[i], sizeof(where[i]), "uprobe:/x:f%02d (uprobe:/x:f*)", i);
		t[i].name = names[i];
		t[i].kind = "uprobe";
		t[i].where = where[i];
		t[i].attached = 1;
	}
	agg__snapshot(a, MS);
	memset(&r, 0, sizeof(r));
	r.agg = a;
	r.timers = t;
	out = run(report_table, &r);
	assert_non_null(strstr(out, "\nattached, 0 hits: f00 (uprobe:/x:f*)\n"));
	assert_non_null(strstr(out, "\nattached, 0 hits: f09 (uprobe:/x:f*)\nattached, 0 hits: 4 more timers (JSON lists them)\n"));
	assert_null(strstr(out, "f10"));
	free(out);
	agg__free(a);
}

/* label values per the OpenMetrics text format's escaped-string */
#define U UTIL_UTF8_REPLACEMENT
static void test_om_escape(void **state)
{
	static const struct {
		const char *in, *out;
	} c[] = {
		{ "plain", "plain" },
		{ "a\"b", "a\\\"b" },
		{ "back\\slash", "back\\\\slash" },
		{ "new\nline", "new\\nline" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" }, /* valid UTF-8 stays */
		/* not UTF-8: each byte U+FFFD, as in every format */
		{ "x\xff" "y", "x" U "y" },
		{ "\xc0\xaf", U U }, /* overlong '/' */
		{ "\xed\xa0\x80", U U U }, /* a surrogate */
		{ "\xe2\x82", U U }, /* cut sequence */
	};
	char *buf;
	size_t len;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		buf = NULL;
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		report_om_escape(f, c[i].in);
		assert_int_equal(fclose(f), 0);
		assert_string_equal(buf, c[i].out);
		free(buf);
	}
}

/*
 * The fixture's outer: 3 calls, 19 ms in all, all below the last finite
 * bucket (2^36-1 ns); its counters in exact decimal seconds; the loss
 * counters and timer gauges; the document ends with "# EOF".
 */
static void test_openmetrics(void **state)
{
	struct agg *a = build();
	struct report r;
	char *out;

	(void)state;
	init_report(&r, a);
	out = run(report_openmetrics, &r);
	assert_non_null(strstr(out, "# TYPE iprof_duration_seconds histogram\n"
				    "# UNIT iprof_duration_seconds seconds\n"));
	assert_non_null(strstr(out,
			       "iprof_duration_seconds_bucket{path=\"outer\",timer=\"outer\",le=\"+Inf\"} 3\n"
			       "iprof_duration_seconds_count{path=\"outer\",timer=\"outer\"} 3\n"
			       "iprof_duration_seconds_sum{path=\"outer\",timer=\"outer\"} 0.019000000\n"));
	assert_non_null(strstr(out,
			       "iprof_duration_seconds_bucket{path=\"outer\",timer=\"outer\",le=\"68.719476735\"} 3\n"));
	assert_non_null(strstr(out,
			       "iprof_duration_seconds_bucket{path=\"outer;inner\",timer=\"inner\",le=\"0.000000255\"} 0\n"));
	assert_non_null(strstr(out,
			       "iprof_self_seconds_total{path=\"outer\",timer=\"outer\"} 0.014500000\n"));
	assert_non_null(strstr(out,
			       "iprof_offcpu_seconds_total{path=\"outer;inner\",timer=\"inner\"} 0.001000000\n"));
	assert_non_null(strstr(out, "iprof_incomplete{path=\"open\",timer=\"open\"} 2\n"));
	assert_non_null(strstr(out,
			       "# TYPE iprof_lost_records counter\n"
			       "# HELP iprof_lost_records records (ring buffer full)\n"
			       "iprof_lost_records_total 5\n"));
	assert_non_null(strstr(out, "iprof_lost_kprobe_missed_total 2\n"));
	assert_non_null(strstr(out, "iprof_timer_attached{timer=\"refused\"} 0\n"));
	assert_non_null(strstr(out, "iprof_orphan_stops_total{timer=\"inner\"} 3\n"));
	assert_non_null(strstr(out, "iprof_tracing_seconds 0.020000000\n"));
	assert_int_equal(strlen(out) > 6, 1);
	assert_string_equal(out + strlen(out) - 6, "# EOF\n");
	free(out);
	agg__free(a);
}

/* @in through report_om_classic(); returns a malloc'ed string */
static char *classic(const char *in, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	assert_int_equal(report_om_classic(f, in, len), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The sample lines of @s (not starting with '#'), in order. */
static char *samples(const char *s)
{
	char *out = calloc(1, strlen(s) + 1), *o = out;
	const char *eol;

	assert_non_null(out);
	for (; *s; s = eol + 1) {
		eol = strchr(s, '\n');
		assert_non_null(eol);
		if (*s != '#') {
			memcpy(o, s, (size_t)(eol - s + 1));
			o += eol - s + 1;
		}
	}
	return out;
}

/*
 * The fixture's OpenMetrics text in the text format 0.0.4 (what promtool
 * check metrics and text/plain clients read): the same samples, counter
 * families named NAME_total, no # UNIT or # EOF; a HELP text's \" and an
 * unknown type of other OpenMetrics text translated, a text without its
 * last newline ended.
 */
static void test_om_classic(void **state)
{
	static const char in[] =
		"# TYPE a_b counter\n# HELP a_b say \\\"hi\\\" \\\\ \\n\n"
		"a_b_total{x=\"q\\\"\"} 1\n# TYPE c unknown\n# HELP c_total x\n"
		"c 2\n# EOF";
	struct agg *a = build();
	struct report r;
	char *om, *txt, *s1, *s2;

	(void)state;
	init_report(&r, a);
	om = run(report_openmetrics, &r);
	txt = classic(om, strlen(om));
	assert_null(strstr(txt, "# UNIT"));
	assert_null(strstr(txt, "# EOF"));
	assert_non_null(strstr(txt, "# TYPE iprof_duration_seconds histogram\n"
				    "# HELP iprof_duration_seconds Durations"));
	assert_non_null(strstr(txt,
			       "# TYPE iprof_self_seconds_total counter\n"
			       "# HELP iprof_self_seconds_total Thread time"));
	assert_non_null(strstr(txt,
			       "# TYPE iprof_lost_records_total counter\n"
			       "# HELP iprof_lost_records_total records (ring buffer full)\n"
			       "iprof_lost_records_total 5\n"));
	assert_non_null(strstr(txt, "# TYPE iprof_incomplete gauge\n"
				    "# HELP iprof_incomplete Timers"));
	assert_non_null(strstr(txt, "# TYPE iprof_tracing_seconds gauge\n"
				    "# HELP iprof_tracing_seconds Time"));
	assert_null(strstr(txt, "counter\n# HELP iprof_self_seconds "));
	s1 = samples(om);
	s2 = samples(txt);
	assert_string_equal(s1, s2);
	assert_true(strlen(s1) > 1000);
	free(s1);
	free(s2);
	free(txt);
	free(om);
	agg__free(a);

	txt = classic(in, sizeof(in) - 1);
	assert_string_equal(txt,
			    "# TYPE a_b_total counter\n"
			    "# HELP a_b_total say \"hi\" \\\\ \\n\n"
			    "a_b_total{x=\"q\\\"\"} 1\n# TYPE c untyped\n"
			    "# HELP c_total x\nc 2\n");
	free(txt);
	txt = classic("", 0);
	assert_string_equal(txt, "");
	free(txt);
	{
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		assert_non_null(f);
		assert_int_equal(report_om_classic(f, "# TYPE x\n", 9),
				 -EINVAL);
		fclose(f);
		free(buf);
	}
}

/*
 * Which text an Accept header gets: OpenMetrics unless text/plain is
 * named and preferred (q above openmetrics' and above 0).
 */
static void test_om_negotiate(void **state)
{
	static const struct {
		const char *accept;
		int want;
	} c[] = {
		{ NULL, REPORT_OM_OPENMETRICS },
		{ "", REPORT_OM_OPENMETRICS },
		{ "*/*", REPORT_OM_OPENMETRICS }, /* curl */
		/* Prometheus 2.42's scrape */
		{ "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  REPORT_OM_OPENMETRICS },
		{ "text/plain", REPORT_OM_TEXT },
		{ "text/plain; version=0.0.4", REPORT_OM_TEXT },
		{ "TEXT/Plain;charset=utf-8", REPORT_OM_TEXT },
		{ "text/plain;version=0.0.4;q=0.5,*/*;q=0.1", REPORT_OM_TEXT },
		{ "application/openmetrics-text, text/plain", REPORT_OM_OPENMETRICS },
		{ "application/openmetrics-text;q=0.4, text/plain;q=0.5", REPORT_OM_TEXT },
		{ "application/openmetrics-text; q=0.5 , text/plain ; q=0.4", REPORT_OM_OPENMETRICS },
		{ "text/plain;q=0", REPORT_OM_OPENMETRICS },
		{ "text/plain;q=0, application/json", REPORT_OM_OPENMETRICS },
		{ "text/plainx, text/html", REPORT_OM_OPENMETRICS },
		{ "application/json,text/plain;q=0.9", REPORT_OM_TEXT },
		{ ",,  ,text/plain", REPORT_OM_TEXT },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		if (report_om_negotiate(c[i].accept) != c[i].want)
			fail_msg("Accept: %s", c[i].accept ? c[i].accept :
							    "(none)");
	}
}

/*
 * A node's error bars (report_node_err()): the random part in quadrature,
 * the calibration's bias and what the clamps kept added; avg the total
 * over the count; drift the bias alone over the count (what moves the
 * median: iprof diff's avg_drift_ns), rounded up.
 */
static void test_node_err(void **state)
{
	struct agg_node n = { 0 };
	struct report_err e;

	(void)state;
	assert_int_equal(report_node_err(&n, &e), 0);
	assert_int_equal(e.drift_ns, 0);
	n.count = 4;
	n.total_ns = 4000;
	n.err_var_ns2 = 400;
	n.err_sys_ns = 30;
	n.self_err_var_ns2 = 100;
	n.self_err_sys_ns = 5;
	n.clamped_ns = 10;
	assert_int_equal(report_node_err(&n, &e), 1);
	assert_int_equal(e.total_ns, 20 + 30 + 10);
	assert_int_equal(e.self_ns, 10 + 5 + 10);
	assert_int_equal(e.avg_ns, 15);
	assert_int_equal(e.drift_ns, 8); /* 7.5 up */
	assert_int_equal(e.below_res, 0);
	/* no bias: the random part alone, no drift */
	n.err_sys_ns = 0;
	assert_int_equal(report_node_err(&n, &e), 1);
	assert_int_equal(e.drift_ns, 0);
	assert_int_equal(e.avg_ns, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_om_escape),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_om_classic),
		cmocka_unit_test(test_om_negotiate),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_fit),
		cmocka_unit_test(test_table_sort_and_width),
		cmocka_unit_test(test_no_timers_and_empty),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_nodes_order),
		cmocka_unit_test(test_interrupt_root),
		cmocka_unit_test(test_table_sort),
		cmocka_unit_test(test_table_min_total_max_depth),
		cmocka_unit_test(test_table_rows),
		cmocka_unit_test(test_res_parent_of_resolved),
		cmocka_unit_test(test_res_total_of_resolved_max),
		cmocka_unit_test(test_res_every_stat),
		cmocka_unit_test(test_table_notes),
		cmocka_unit_test(test_table_columns),
		cmocka_unit_test(test_parse_sort_weight),
		cmocka_unit_test(test_folded_weights),
		cmocka_unit_test(test_folded_sums),
		cmocka_unit_test(test_folded_sum_incomplete),
		cmocka_unit_test(test_folded_names),
		cmocka_unit_test(test_folded_empty_and_errors),
		cmocka_unit_test(test_node_err),
		cmocka_unit_test(test_timer_reason),
		cmocka_unit_test(test_not_attached_grouped),
		cmocka_unit_test(test_summary_grouped),
		cmocka_unit_test(test_summary_capped),
		cmocka_unit_test(test_zero_hits_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
