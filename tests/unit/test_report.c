/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the reporters (src/report_*.c): a small tree built from
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

#define MS 1000000ull

enum { OUTER, INNER, NEVER, REFUSED, OPEN, NTIMERS };

static const struct report_timer timers[NTIMERS] = {
	[OUTER] = {"outer", "uprobe", "/usr/bin/w:outer", 1, NULL, 0},
	[INNER] = {"inner", "uprobe", "/usr/bin/w:inner", 1, NULL, 3},
	[NEVER] = {"never", "span",
		   "tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit", 1,
		   NULL, 0},
	[REFUSED] = {"refused", "fentry", "kvm_foo", 0,
		     "fentry refused by the kernel (EPERM)", 0},
	[OPEN] = {"open", "uprobe", "/usr/bin/w:open", 1, NULL, 0},
};

static void push(struct agg *a, uint8_t type, uint8_t flags, uint32_t timer,
		 uint32_t tid, uint64_t ts, uint16_t depth)
{
	struct iprof_rec r = {
		.type = type,
		.flags = flags,
		.size = sizeof(r),
		.timer = timer,
		.tid = tid,
		.ts = ts,
		.depth = depth,
	};

	assert_int_equal(agg__push(a, &r, sizeof(r)), 0);
}

#define S(tid, t, d, ts) push(a, IPROF_REC_START, 0, t, tid, ts, d)
#define E(tid, t, d, ts) push(a, IPROF_REC_STOP, 0, t, tid, ts, d)

/*
 * outer: 10ms (tid 1), 6ms (tid 2), 3ms (tid 7), one frame discarded
 *   inner: 2ms + 1ms (tid 1), 1.5ms (tid 2), one unwound (tid 7)
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
	E(1, INNER, 2, 3 * MS);
	S(1, INNER, 2, 4 * MS);
	E(1, INNER, 2, 5 * MS);
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
	r->loss.depth_overflow = 1;
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
	"# lost: records=5 resyncs=1 discarded_frames=1 skipped=1 unwound=1 depth_overflow=1 malformed=1\n";
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
 * Top level sorted by total: outer, then open and inner (0, first-seen).
 */
/* clang-format off */
static const char table_expected[] =
	"NAME     COUNT   TOTAL    SELF    WALL     MIN     AVG     MAX     P50     P99  THREADS  INCOMPL  UNWOUND\n"
	"outer        3  19.0ms  14.5ms  14.0ms  3.00ms  6.33ms  10.0ms  5.90ms  10.0ms        3        0        0\n"
	"  inner      3  4.50ms  4.50ms  4.00ms  1.00ms  1.50ms  2.00ms  1.47ms  2.00ms        2        0        1\n"
	"open         0       -       -       -       -       -       -       -       -        0        2        0\n"
	"  inner      1  1.00ms  1.00ms  1.00ms  1.00ms  1.00ms  1.00ms  1.00ms  1.00ms        1        0        0\n"
	"inner        0       -       -       -       -       -       -       -       -        0        1        0\n"
	"\n"
	"traced for 20.0ms\n"
	"incomplete: open count=2 elapsed=39.0ms\n"
	"incomplete: inner count=1 elapsed=15.0ms\n"
	"not attached: refused: fentry refused by the kernel (EPERM)\n"
	"attached, 0 hits: never (span tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit)\n"
	"orphan stops: inner 3\n"
	"lost: 5 records (ring buffer full), 1 resyncs, 1 frames discarded, 1 records skipped, 1 frames unwound, 1 starts over max depth, 1 malformed records, 0 task storage failures\n";
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
				    "1 resyncs, 1 frames discarded"));
	assert_string_equal(out, table_expected);
	free(out);
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
	assert_string_equal(out, "# lost: records=0 resyncs=0 "
				 "discarded_frames=0 skipped=0 unwound=0 "
				 "depth_overflow=0 malformed=0\n");
	free(out);
	out = run(report_table, &r);
	assert_string_equal(out,
			    "NAME  COUNT  TOTAL  SELF  WALL  MIN  AVG  MAX  "
			    "P50  P99  THREADS  INCOMPL  UNWOUND\n\n"
			    "lost: 0 records (ring buffer full), 0 resyncs, "
			    "0 frames discarded, 0 records skipped, 0 frames "
			    "unwound, 0 starts over max depth, 0 malformed "
			    "records, 0 task storage failures\n");
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
			    "# lost: records=0 resyncs=0 discarded_frames=0 "
			    "skipped=0 unwound=0 depth_overflow=0 "
			    "malformed=0\n"
			    "# no task storage: 2\n");
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
		assert_string_equal(report_fmt_ns(buf, sizeof(buf), c[i].ns),
				    c[i].s);
	/* truncated, still terminated */
	assert_string_equal(report_fmt_ns(buf, 4, 1250), "1.2");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_sort_and_width),
		cmocka_unit_test(test_no_timers_and_empty),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_nodes_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
