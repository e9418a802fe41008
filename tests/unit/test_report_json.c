/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of --format json (src/report/json.c): a tree built from
 * synthetic records is rendered into memory, parsed back with json-c, and
 * every field of a few nodes is compared with values computed by hand.
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

#include <json-c/json.h>

#include "iprof/report.h"
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
		     "k.conf:4: fentry refused by the kernel (EPERM)", 0,
		     "fentry/fexit", .file = "k.conf", .line = 4},
	[OPEN] = {"open", "uprobe", "/usr/bin/w:open", 1, NULL, 0,
		  "uprobe/uretprobe"},
};

static void push(struct agg *a, uint8_t type, uint8_t flags, uint32_t timer,
		 uint32_t tid, uint64_t ts, uint16_t depth, uint32_t aux)
{
	assert_int_equal(rec_push(a, type, flags, timer, tid, ts, depth, 0, aux),
			 0);
}

#define S(tid, t, d, ts) push(a, IPROF_REC_START, 0, t, tid, ts, d, 0)
#define E(tid, t, d, ts) push(a, IPROF_REC_STOP, 0, t, tid, ts, d, 0)
#define OUT(tid, ts, kind) push(a, IPROF_REC_SWITCH_OUT, 0, 0, tid, ts, 1, kind)
#define IN(tid, ts) push(a, IPROF_REC_SWITCH_IN, 0, 0, tid, ts, 1, 0)
#define EXIT(tid, ts) push(a, IPROF_REC_EXIT, 0, 0, tid, ts, 0, 0)

/*
 * outer: 10ms (tid 1: 1ms runq, 2ms blocked inside inner), 8ms (tid 2),
 *        5ms (tid 2, closed by its exit); one more discarded (tid 6)
 *   inner: 4ms (tid 1, 2ms blocked), 1ms (tid 2), 4ms (tid 2, exit)
 * open: open at the end on tids 3 (since 50ms) and 5 (since 54ms)
 *   inner: 1ms (tid 3), 2ms (tid 5)
 *     outer: unwound once (tid 5)
 * Snapshot at 60ms.
 */
static struct agg *build(void)
{
	struct agg *a = agg__new(NTIMERS);
	char junk[8] = {0};

	assert_non_null(a);
	S(1, OUTER, 1, 0);
	OUT(1, 1 * MS, IPROF_OFF_RUNQ);
	IN(1, 2 * MS);
	S(1, INNER, 2, 3 * MS);
	OUT(1, 4 * MS, IPROF_OFF_BLOCKED);
	IN(1, 6 * MS);
	E(1, INNER, 2, 7 * MS);
	E(1, OUTER, 1, 10 * MS);
	S(2, OUTER, 1, 20 * MS);
	S(2, INNER, 2, 21 * MS);
	E(2, INNER, 2, 22 * MS);
	E(2, OUTER, 1, 28 * MS);
	S(2, OUTER, 1, 40 * MS);
	S(2, INNER, 2, 41 * MS);
	EXIT(2, 45 * MS);
	S(3, OPEN, 1, 50 * MS);
	S(3, INNER, 2, 51 * MS);
	E(3, INNER, 2, 52 * MS);
	S(5, OPEN, 1, 54 * MS);
	S(5, INNER, 2, 55 * MS);
	S(5, OUTER, 3, 56 * MS);
	E(5, INNER, 2, 57 * MS);
	S(6, OUTER, 1, 56 * MS);
	push(a, IPROF_REC_STOP, IPROF_F_RESYNC, OUTER, 6, 57 * MS, 1, 0);
	assert_int_equal(agg__push(a, junk, sizeof(junk)), -EINVAL);
	agg__snapshot(a, 60 * MS);
	return a;
}

static char *const command[] = {"./w", "--calls", "20", NULL};
static const int pids[] = {1234, 99};

static void init_report(struct report *r, const struct agg *a)
{
	memset(r, 0, sizeof(*r));
	r->agg = a;
	r->timers = timers;
	r->loss.rb_drops = 5;
	r->loss.recursion_misses = 4;
	r->loss.depth_overflow = 1;
	r->loss.no_storage = 2;
	r->duration_ns = 60 * MS;
	r->command = command;
	r->host = "testhost";
	r->kernel = "6.18.0-test";
	r->kernel_version = "#1 SMP PREEMPT_DYNAMIC";
	r->machine = "x86_64";
	r->start_realtime_ns = 1700000000123456789ull;
}

/*
 * Render @r as JSON into memory and parse it back: it must be exactly one
 * JSON document followed by a newline.  Returns the parsed object (put it).
 */
static json_object *render(const struct report *r, char **text)
{
	struct json_tokener *tok;
	json_object *o;
	size_t len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_json(f, r), 0);
	assert_int_equal(fclose(f), 0);
	assert_true(len > 2);
	assert_int_equal(buf[len - 1], '\n');
	/* nesting grows by 2 per tree level: allow more than the default 32 */
	tok = json_tokener_new_ex(256);
	assert_non_null(tok);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	assert_non_null(o);
	/* the whole text was read: a second document would stop it early */
	assert_int_equal(json_tokener_get_parse_end(tok), len);
	json_tokener_free(tok);
	assert_true(json_object_is_type(o, json_type_object));
	if (text)
		*text = buf;
	else
		free(buf);
	return o;
}

/* o[key], which must exist and have type @t */
static json_object *get(json_object *o, const char *key, json_type t)
{
	json_object *v = NULL;

	assert_non_null(o);
	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("missing key \"%s\"", key);
	if (!json_object_is_type(v, t))
		fail_msg("key \"%s\": type %s, expected %s", key,
			 json_type_to_name(json_object_get_type(v)),
			 json_type_to_name(t));
	return v;
}

static void expect_u64(json_object *o, const char *key, uint64_t want)
{
	json_object *v = get(o, key, json_type_int);

	/* a uint64 above INT64_MAX is kept as such by json-c */
	if (json_object_get_uint64(v) != want)
		fail_msg("key \"%s\": %llu, expected %llu", key,
			 (unsigned long long)json_object_get_uint64(v),
			 (unsigned long long)want);
}

static void expect_null(json_object *o, const char *key)
{
	get(o, key, json_type_null);
}

static void expect_str(json_object *o, const char *key, const char *want)
{
	assert_string_equal(
		json_object_get_string(get(o, key, json_type_string)), want);
}

static void expect_bool(json_object *o, const char *key, int want)
{
	assert_int_equal(
		json_object_get_boolean(get(o, key, json_type_boolean)), want);
}

/* the keys of @o, exactly and in this order (NULL-terminated) */
static void expect_keys(json_object *o, ...)
{
	struct json_object_iterator it = json_object_iter_begin(o);
	struct json_object_iterator end = json_object_iter_end(o);
	const char *k;
	va_list ap;

	va_start(ap, o);
	while ((k = va_arg(ap, const char *))) {
		if (json_object_iter_equal(&it, &end))
			fail_msg("missing key \"%s\"", k);
		assert_string_equal(json_object_iter_peek_name(&it), k);
		json_object_iter_next(&it);
	}
	va_end(ap);
	if (!json_object_iter_equal(&it, &end))
		fail_msg("unexpected key \"%s\"",
			 json_object_iter_peek_name(&it));
}

static json_object *idx(json_object *arr, size_t i)
{
	assert_true(json_object_is_type(arr, json_type_array));
	assert_true(i < json_object_array_length(arr));
	return json_object_array_get_idx(arr, i);
}

static void expect_len(json_object *arr, size_t n)
{
	assert_true(json_object_is_type(arr, json_type_array));
	assert_int_equal(json_object_array_length(arr), n);
}

static void expect_path(json_object *node, ...)
{
	json_object *p = get(node, "path", json_type_array);
	const char *s;
	size_t i = 0;
	va_list ap;

	va_start(ap, node);
	while ((s = va_arg(ap, const char *)))
		assert_string_equal(json_object_get_string(idx(p, i++)), s);
	va_end(ap);
	expect_len(p, i);
}

static void expect_node_keys(json_object *n)
{
	expect_keys(n, "name", "timer", "path", "depth", "count", "total_ns",
		    "self_ns", "raw_total_ns", "raw_self_ns", "uncertain", "dominated", "clamped_ns", "runq_out_ns", "wall_ns", "min_ns", "avg_ns", "max_ns",
		    "stddev_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns",
		    "avg_err_ns", "avg_se_ns", "total_err_ns", "self_err_ns", "avg_drift_ns", "below_resolution", "below_resolution_keys",
		    "threads", "exited", "exited_ns", "oncpu_ns", "runq_ns", "blocked_ns",
		    "offcpu_ns", "irq_ns", "incomplete", "incomplete_ns", "unwound", "execed",
		    "missed_returns", "discarded", "counted_only", "histogram", "children",
		    NULL);
}

static void test_document(void **state)
{
	struct agg *a = build();
	json_object *o, *run, *v, *p;
	struct report r;

	(void)state;
	init_report(&r, a);
	o = render(&r, NULL);
	expect_keys(o, "schema_version", "tool", "version", "run", "options",
		    "probes", "loss", "folded", "incomplete", "exited", "calibration",
		    "aggregator", "tree",
		    NULL);
	expect_u64(o, "schema_version", 1);
	expect_str(o, "tool", "iprof");
	expect_str(o, "version", IPROF_VERSION);

	run = get(o, "run", json_type_object);
	expect_keys(run, "command", "pids", "select", "target", "host", "kernel",
		    "kernel_version", "machine", "start_realtime_ns",
		    "start_time", "duration_ns", "loss_counters_known", NULL);
	v = get(run, "command", json_type_array);
	expect_len(v, 3);
	assert_string_equal(json_object_get_string(idx(v, 0)), "./w");
	assert_string_equal(json_object_get_string(idx(v, 1)), "--calls");
	assert_string_equal(json_object_get_string(idx(v, 2)), "20");
	expect_len(get(run, "pids", json_type_array), 0);
	expect_str(run, "target", "command");
	expect_str(run, "host", "testhost");
	expect_str(run, "kernel", "6.18.0-test");
	expect_str(run, "kernel_version", "#1 SMP PREEMPT_DYNAMIC");
	expect_str(run, "machine", "x86_64");
	expect_u64(run, "start_realtime_ns", 1700000000123456789ull);
	expect_str(run, "start_time", "2023-11-14T22:13:20.123456789Z");
	expect_u64(run, "duration_ns", 60 * MS);

	v = get(o, "options", json_type_object);
	expect_keys(v, "sort", "min_total_ns", "max_depth", "json_tree",
		    "nodes_shown", "nodes_hidden", "rb_size_requested",
		    "rb_bytes_per_cpu", "rb_rings", NULL);
	expect_str(v, "json_tree", "nested");
	expect_str(v, "sort", "total");
	expect_u64(v, "min_total_ns", 0);
	expect_null(v, "max_depth");
	expect_u64(v, "nodes_shown", 5);
	expect_u64(v, "nodes_hidden", 0);
	expect_null(v, "rb_size_requested"); /* not known to this report */
	expect_null(v, "rb_bytes_per_cpu");
	expect_null(v, "rb_rings");

	v = get(o, "probes", json_type_array);
	expect_len(v, NTIMERS);
	p = idx(v, INNER);
	expect_keys(p, "id", "name", "kind", "where", "mech", "attached",
		    "error", "reason", "file", "line", "stop", "tail_calls",
		    "stop_why", "no_return_sites_why", "orphan_stops", "kprobe_misses", "paths",
		    "count", "in_other", NULL);
	expect_u64(p, "id", INNER);
	expect_str(p, "name", "inner");
	expect_str(p, "kind", "uprobe");
	expect_str(p, "where", "/usr/bin/w:inner");
	expect_str(p, "mech", "uprobe/uretprobe");
	expect_bool(p, "attached", 1);
	expect_null(p, "error");
	expect_null(p, "reason");
	expect_null(p, "file"); /* unknown in this fixture */
	expect_null(p, "line");
	expect_null(p, "stop"); /* not set in this fixture */
	expect_u64(p, "tail_calls", 0);
	expect_null(p, "stop_why");
	expect_null(p, "no_return_sites_why");
	expect_u64(p, "orphan_stops", 3);
	expect_u64(p, "paths", 2); /* outer > inner, open > inner */
	expect_u64(p, "count", 4); /* 2 + 2: the one open at the exit is none */
	p = idx(v, OUTER);
	expect_u64(p, "paths", 2); /* outer, open > inner > outer */
	expect_u64(p, "count", 2);
	p = idx(v, NEVER);
	expect_str(p, "mech", "tracepoint");
	expect_str(p, "where",
		   "tracepoint:kvm:kvm_entry -> tracepoint:kvm:kvm_exit");
	expect_u64(p, "paths", 0);
	expect_u64(p, "count", 0);
	expect_bool(p, "in_other", 0); /* never hit */
	p = idx(v, REFUSED);
	expect_str(p, "name", "refused");
	expect_str(p, "kind", "fentry");
	expect_str(p, "mech", "fentry/fexit");
	expect_bool(p, "attached", 0);
	expect_str(p, "error",
		   "k.conf:4: fentry refused by the kernel (EPERM)");
	expect_str(p, "reason", "fentry refused by the kernel (EPERM)");
	expect_str(p, "file", "k.conf");
	expect_u64(p, "line", 4);
	expect_u64(p, "paths", 0);

	v = get(o, "loss", json_type_object);
	expect_keys(v, "ring_buffer_drops", "depth_overflow",
		    "task_storage_failures", "recursion_misses", "kprobe_misses",
		    "key_full", "key_unmatched", "missed_returns", "resyncs",
		    "discarded_frames",
		    "skipped_records", "unwound_frames", "execed_frames",
		    "malformed_records",
		    "mismatches", "nomem", NULL);
	expect_u64(v, "ring_buffer_drops", 5);
	expect_u64(v, "depth_overflow", 1);
	expect_u64(v, "task_storage_failures", 2);
	expect_u64(v, "recursion_misses", 4);
	expect_u64(v, "resyncs", 1);
	expect_u64(v, "discarded_frames", 1);
	expect_u64(v, "skipped_records", 1);
	expect_u64(v, "unwound_frames", 1);
	expect_u64(v, "malformed_records", 1);
	expect_u64(v, "mismatches", 0);
	expect_u64(v, "nomem", 0);

	/* open on tids 3 and 5 since 50 and 54ms: 10 + 6ms at 60ms */
	v = get(o, "incomplete", json_type_object);
	expect_keys(v, "timers", "elapsed_ns", NULL);
	expect_u64(v, "timers", 2);
	expect_u64(v, "elapsed_ns", 16 * MS);
	/* outer and inner open at tid 2's exit (45ms): 5 + 4ms */
	v = get(o, "exited", json_type_object);
	expect_keys(v, "timers", "elapsed_ns", NULL);
	expect_u64(v, "timers", 2);
	expect_u64(v, "elapsed_ns", 9 * MS);

	v = get(o, "aggregator", json_type_object);
	expect_keys(v, "records", "starts", "forked", "stops", "exits", "switches",
		    "threads_seen", "threads_live", "threads_pruned", "nodes",
		    NULL);
	/* 24 records pushed in build() and the malformed one */
	expect_u64(v, "records", 25);
	expect_u64(v, "starts", 12);
	expect_u64(v, "stops", 7);
	expect_u64(v, "exits", 1);
	expect_u64(v, "switches", 4);
	expect_u64(v, "threads_seen", 5);
	expect_u64(v, "threads_live", 4);
	expect_u64(v, "nodes", 5);

	json_object_put(o);
	agg__free(a);
}

static void test_tree(void **state)
{
	struct agg *a = build();
	json_object *o, *tree, *n, *k;
	struct report r;

	(void)state;
	init_report(&r, a);
	o = render(&r, NULL);
	tree = get(o, "tree", json_type_array);
	/* by total: outer (23ms), then open (0) */
	expect_len(tree, 2);

	/*
	 * outer: 10, 8ms; the third (40ms to thread 2's exit at 45ms) never
	 * returned: exited, 5ms apart, in none of the times.  self 6 + 7ms.
	 * wall 0 to 28ms.  stddev: sqrt(m2 / 2) = 1ms.  p50 (1st of 2) = the
	 * 8ms slot [7864320, 8126463] midpoint 7995391; p90, p99, p99.9 (2nd)
	 * = 10ms slot midpoint 10223615, clamped to max.  on-CPU: 10 - 1
	 * (runq) - 2 (blocked in inner) + 8ms.
	 */
	n = idx(tree, 0);
	expect_node_keys(n);
	expect_str(n, "name", "outer");
	expect_u64(n, "timer", OUTER);
	expect_path(n, "outer", NULL);
	expect_u64(n, "depth", 1);
	expect_u64(n, "count", 2);
	expect_u64(n, "total_ns", 18 * MS);
	expect_u64(n, "self_ns", 13 * MS);
	/* no costs set: raw times */
	expect_u64(n, "raw_total_ns", 18 * MS);
	expect_u64(n, "raw_self_ns", 13 * MS);
	expect_u64(n, "uncertain", 0);
	expect_u64(n, "wall_ns", 28 * MS);
	expect_u64(n, "min_ns", 8 * MS);
	expect_u64(n, "avg_ns", 9 * MS);
	expect_u64(n, "max_ns", 10 * MS);
	expect_u64(n, "stddev_ns", 1 * MS);
	expect_u64(n, "p50_ns", 8 * MS);
	expect_u64(n, "p90_ns", 10 * MS);
	expect_u64(n, "p99_ns", 10 * MS);
	expect_u64(n, "p999_ns", 10 * MS);
	expect_u64(n, "threads", 2);
	expect_u64(n, "exited", 1);
	expect_u64(n, "exited_ns", 5 * MS);
	expect_u64(n, "oncpu_ns", 15 * MS);
	expect_u64(n, "runq_ns", 1 * MS);
	expect_u64(n, "blocked_ns", 2 * MS);
	expect_u64(n, "offcpu_ns", 3 * MS);
	expect_u64(n, "incomplete", 0);
	expect_u64(n, "incomplete_ns", 0);
	expect_u64(n, "unwound", 0);
	expect_u64(n, "discarded", 1);
	expect_len(get(n, "children", json_type_array), 1);
	/* histogram: one slot each for 8 and 10ms, ascending */
	k = get(n, "histogram", json_type_array);
	expect_len(k, 2);
	for (size_t i = 0; i < 2; i++) {
		static const uint64_t d[] = { 8 * MS, 10 * MS };
		json_object *e = idx(k, i);

		expect_len(e, 3);
		assert_int_equal(json_object_get_uint64(idx(e, 0)),
				 hist_slot_low(hist_slot(d[i])));
		assert_int_equal(json_object_get_uint64(idx(e, 1)),
				 hist_slot_high(hist_slot(d[i])));
		assert_int_equal(json_object_get_uint64(idx(e, 2)), 1);
	}
	assert_int_equal(json_object_get_uint64(idx(idx(k, 0), 0)), 7864320);
	assert_int_equal(json_object_get_uint64(idx(idx(k, 0), 1)), 8126463);

	/*
	 * outer > inner: 4, 1ms; the third (41ms to the exit) exited, 4ms
	 * apart.  wall 3 to 22ms.  stddev sqrt(4.5e12 / 2) = 1.5ms.  p50 (1st
	 * of 2) = 1ms slot midpoint 999423 clamped to min; p90..p99.9 = 4ms
	 * slot [3932160, 4063231] midpoint 3997695.
	 */
	k = idx(get(n, "children", json_type_array), 0);
	expect_node_keys(k);
	expect_str(k, "name", "inner");
	expect_u64(k, "timer", INNER);
	expect_path(k, "outer", "inner", NULL);
	expect_u64(k, "depth", 2);
	expect_u64(k, "count", 2);
	expect_u64(k, "total_ns", 5 * MS);
	expect_u64(k, "self_ns", 5 * MS);
	expect_u64(k, "wall_ns", 19 * MS);
	expect_u64(k, "min_ns", 1 * MS);
	expect_u64(k, "avg_ns", 2500000);
	expect_u64(k, "max_ns", 4 * MS);
	expect_u64(k, "stddev_ns", 1500000);
	expect_u64(k, "p50_ns", 1 * MS);
	expect_u64(k, "p90_ns", 3997695);
	expect_u64(k, "p99_ns", 3997695);
	expect_u64(k, "p999_ns", 3997695);
	expect_u64(k, "threads", 2);
	expect_u64(k, "exited", 1);
	expect_u64(k, "exited_ns", 4 * MS);
	expect_u64(k, "oncpu_ns", 3 * MS);
	expect_u64(k, "runq_ns", 0);
	expect_u64(k, "blocked_ns", 2 * MS);
	expect_u64(k, "offcpu_ns", 2 * MS);
	expect_u64(k, "incomplete", 0);
	expect_u64(k, "incomplete_ns", 0);
	expect_u64(k, "unwound", 0);
	expect_u64(k, "discarded", 0);
	expect_len(get(k, "children", json_type_array), 0);

	/* open: nothing completed: the per-call times are null */
	n = idx(tree, 1);
	expect_node_keys(n);
	expect_str(n, "name", "open");
	expect_u64(n, "timer", OPEN);
	expect_path(n, "open", NULL);
	expect_u64(n, "count", 0);
	expect_u64(n, "total_ns", 0);
	expect_u64(n, "self_ns", 0);
	expect_null(n, "wall_ns");
	expect_null(n, "min_ns");
	expect_null(n, "avg_ns");
	expect_null(n, "max_ns");
	expect_null(n, "stddev_ns");
	expect_null(n, "p50_ns");
	expect_null(n, "p90_ns");
	expect_null(n, "p99_ns");
	expect_null(n, "p999_ns");
	expect_u64(n, "threads", 0);
	expect_u64(n, "oncpu_ns", 0);
	expect_u64(n, "offcpu_ns", 0);
	expect_u64(n, "incomplete", 2);
	expect_u64(n, "incomplete_ns", 16 * MS);
	expect_u64(n, "unwound", 0);

	/*
	 * open > inner: 1ms, 2ms; p50 = 1ms slot midpoint 999423 clamped to
	 * min; p90.. = 2ms slot [1966080, 2031615] midpoint 1998847.
	 */
	k = idx(get(n, "children", json_type_array), 0);
	expect_path(k, "open", "inner", NULL);
	expect_u64(k, "count", 2);
	expect_u64(k, "total_ns", 3 * MS);
	expect_u64(k, "self_ns", 3 * MS);
	expect_u64(k, "wall_ns", 6 * MS);
	expect_u64(k, "stddev_ns", 500000);
	expect_u64(k, "p50_ns", 1 * MS);
	expect_u64(k, "p90_ns", 1998847);
	expect_u64(k, "p999_ns", 1998847);

	/* open > inner > outer: unwound once, never timed */
	k = idx(get(k, "children", json_type_array), 0);
	expect_node_keys(k);
	expect_path(k, "open", "inner", "outer", NULL);
	expect_u64(k, "depth", 3);
	expect_u64(k, "count", 0);
	expect_null(k, "min_ns");
	expect_u64(k, "unwound", 1);
	expect_u64(k, "discarded", 0);
	expect_len(get(k, "children", json_type_array), 0);

	json_object_put(o);
	agg__free(a);
}

/* --min-total, --max-depth, --sort: the same nodes as the table shows */
static void test_options(void **state)
{
	struct agg *a = build();
	json_object *o, *tree, *v;
	struct report r;

	(void)state;
	init_report(&r, a);
	r.min_total_ns = 2 * MS;
	r.sort = REPORT_SORT_NAME;
	o = render(&r, NULL);
	/*
	 * open (0) stays for its child inner (3ms); inner > outer (0) goes;
	 * by name: open before outer
	 */
	v = get(o, "options", json_type_object);
	expect_str(v, "sort", "name");
	expect_u64(v, "min_total_ns", 2 * MS);
	expect_u64(v, "nodes_shown", 4);
	expect_u64(v, "nodes_hidden", 1);
	tree = get(o, "tree", json_type_array);
	expect_len(tree, 2);
	expect_str(idx(tree, 0), "name", "open");
	expect_str(idx(tree, 1), "name", "outer");
	v = idx(get(idx(tree, 0), "children", json_type_array), 0);
	expect_path(v, "open", "inner", NULL);
	expect_len(get(v, "children", json_type_array), 0);
	json_object_put(o);

	r.min_total_ns = 0;
	r.max_depth = 1;
	r.sort = REPORT_SORT_FIRST;
	o = render(&r, NULL);
	v = get(o, "options", json_type_object);
	expect_str(v, "sort", "first");
	expect_u64(v, "max_depth", 1);
	expect_u64(v, "nodes_shown", 2);
	expect_u64(v, "nodes_hidden", 3);
	tree = get(o, "tree", json_type_array);
	expect_len(tree, 2);
	expect_len(get(idx(tree, 0), "children", json_type_array), 0);
	expect_len(get(idx(tree, 1), "children", json_type_array), 0);
	/* hidden children still count in their parents' times */
	expect_u64(idx(tree, 0), "total_ns", 18 * MS);
	expect_u64(idx(tree, 0), "self_ns", 13 * MS);
	json_object_put(o);
	agg__free(a);
}

/*
 * --json-tree flat: "nodes" in place of "tree", the nodes of a depth-first
 * walk of the nested tree, each with its id and its parent's, no children;
 * hidden nodes left out, ids of the shown ones.
 */
static void test_flat(void **state)
{
	struct agg *a = build();
	json_object *o, *nodes, *n;
	struct report r;

	(void)state;
	init_report(&r, a);
	r.json_flat = 1;
	r.sort = REPORT_SORT_NAME;
	o = render(&r, NULL);
	expect_str(get(o, "options", json_type_object), "json_tree", "flat");
	assert_false(json_object_object_get_ex(o, "tree", NULL));
	nodes = get(o, "nodes", json_type_array);
	/* by name: open > inner > outer, outer > inner */
	expect_len(nodes, 5);
	n = idx(nodes, 0);
	expect_keys(n, "id", "parent", "name", "timer", "path", "depth",
		    "count", "total_ns", "self_ns", "raw_total_ns",
		    "raw_self_ns", "uncertain", "dominated", "clamped_ns", "runq_out_ns", "wall_ns", "min_ns",
		    "avg_ns", "max_ns", "stddev_ns", "p50_ns", "p90_ns",
		    "p99_ns", "p999_ns", "avg_err_ns", "avg_se_ns", "total_err_ns",
		    "self_err_ns", "avg_drift_ns", "below_resolution", "below_resolution_keys", "threads", "exited",
		    "exited_ns", "oncpu_ns",
		    "runq_ns", "blocked_ns", "offcpu_ns", "irq_ns",
		    "incomplete", "incomplete_ns", "unwound", "execed",
		    "missed_returns", "discarded", "counted_only", "histogram", NULL);
	expect_u64(n, "id", 0);
	expect_null(n, "parent");
	expect_path(n, "open", NULL);
	n = idx(nodes, 1);
	expect_u64(n, "id", 1);
	expect_u64(n, "parent", 0);
	expect_path(n, "open", "inner", NULL);
	n = idx(nodes, 2);
	expect_u64(n, "parent", 1);
	expect_path(n, "open", "inner", "outer", NULL);
	expect_u64(n, "unwound", 1);
	n = idx(nodes, 3);
	expect_null(n, "parent");
	expect_path(n, "outer", NULL);
	n = idx(nodes, 4);
	expect_u64(n, "id", 4);
	expect_u64(n, "parent", 3);
	expect_path(n, "outer", "inner", NULL);
	json_object_put(o);

	/* --max-depth 2: the third level left out, ids without gaps */
	r.max_depth = 2;
	o = render(&r, NULL);
	nodes = get(o, "nodes", json_type_array);
	expect_len(nodes, 4);
	expect_u64(idx(nodes, 2), "id", 2);
	expect_null(idx(nodes, 2), "parent");
	expect_path(idx(nodes, 2), "outer", NULL);
	expect_u64(idx(nodes, 3), "parent", 2);
	json_object_put(o);
	agg__free(a);
}

/* no timers, no metadata, no records: still a complete document */
static void test_empty(void **state)
{
	struct agg *a = agg__new(2);
	struct report r = {0};
	json_object *o, *v, *p;
	char *text;

	(void)state;
	assert_non_null(a);
	r.agg = a;
	r.pids = pids;
	r.npids = 2;
	o = render(&r, &text);
	/* times as integers; no "\/" escapes */
	assert_null(strstr(text, "\\/"));
	free(text);
	expect_u64(o, "schema_version", 1);
	v = get(o, "run", json_type_object);
	expect_null(v, "command");
	expect_str(v, "target", "pids");
	v = get(v, "pids", json_type_array);
	expect_len(v, 2);
	assert_int_equal(json_object_get_int(idx(v, 0)), 1234);
	assert_int_equal(json_object_get_int(idx(v, 1)), 99);
	v = get(o, "run", json_type_object);
	expect_null(v, "host");
	expect_null(v, "kernel");
	expect_null(v, "start_realtime_ns");
	expect_null(v, "start_time");
	expect_u64(v, "duration_ns", 0);
	/* unnamed timers: "#ID", the rest null */
	v = get(o, "probes", json_type_array);
	expect_len(v, 2);
	p = idx(v, 1);
	expect_u64(p, "id", 1);
	expect_str(p, "name", "#1");
	expect_null(p, "kind");
	expect_null(p, "mech");
	expect_null(p, "attached");
	expect_u64(p, "paths", 0);
	expect_len(get(o, "tree", json_type_array), 0);
	expect_u64(get(o, "loss", json_type_object), "ring_buffer_drops", 0);
	json_object_put(o);
	agg__free(a);
}

/* names, paths and the command are escaped by json-c, never by hand */
static void test_escaping(void **state)
{
	static const char weird[] = "we\"ird\\name\n/x\t\x01";
	static char *const cmd[] = {"/bin/sh", "-c", "echo \"a b\"", NULL};
	struct report_timer t[NTIMERS];
	struct agg *a = build();
	json_object *o, *n;
	struct report r;

	(void)state;
	memcpy(t, timers, sizeof(t));
	t[INNER].name = weird;
	init_report(&r, a);
	r.timers = t;
	r.command = cmd;
	o = render(&r, NULL);
	n = idx(get(idx(get(o, "tree", json_type_array), 0), "children",
		    json_type_array),
		0);
	expect_str(n, "name", weird);
	expect_path(n, "outer", weird, NULL);
	n = get(get(o, "run", json_type_object), "command", json_type_array);
	assert_string_equal(json_object_get_string(idx(n, 2)), "echo \"a b\"");
	json_object_put(o);
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
	assert_int_equal(report_json(f, &r), -ENOSPC);
	fclose(f);
	agg__free(a);
}

/*
 * --interval: one compact line per report (NDJSON), with the report's
 * number and whether it is the last; the rest as in a single document.
 */
static void test_ndjson(void **state)
{
	struct agg *a = build();
	json_object *o;
	struct report r;
	char *text;

	(void)state;
	init_report(&r, a);
	r.interval = 2;
	o = render(&r, &text);
	/* one line: the only newline ends it */
	assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1);
	assert_int_equal(strncmp(text,
				 "{\"schema_version\":1,\"tool\":\"iprof\","
				 "\"version\":\"" IPROF_VERSION "\","
				 "\"interval\":2,\"final\":false,"
				 "\"interval_mode\":\"cumulative\",\"run\":{",
				 strlen("{\"schema_version\":1,\"tool\":\"iprof\","
					"\"version\":\"" IPROF_VERSION "\","
					"\"interval\":2,\"final\":false,"
					"\"interval_mode\":\"cumulative\","
					"\"run\":{")),
			 0);
	expect_keys(o, "schema_version", "tool", "version", "interval",
		    "final", "interval_mode", "run", "options", "probes",
		    "loss", "folded", "incomplete", "exited", "calibration",
		    "aggregator", "tree",
		    NULL);
	expect_u64(o, "interval", 2);
	expect_bool(o, "final", 0);
	expect_len(get(o, "tree", json_type_array), 2);
	json_object_put(o);
	free(text);

	r.interval = 3;
	r.final = 1;
	r.delta = 1;
	o = render(&r, &text);
	assert_ptr_equal(strchr(text, '\n'), text + strlen(text) - 1);
	expect_u64(o, "interval", 3);
	expect_bool(o, "final", 1);
	expect_str(o, "interval_mode", "delta");
	json_object_put(o);
	free(text);

	/* without --interval: pretty, none of the three keys */
	r.interval = 0;
	o = render(&r, &text);
	assert_non_null(strstr(text, "{\n  \"schema_version\": 1,\n"));
	assert_false(json_object_object_get_ex(o, "interval", NULL));
	assert_false(json_object_object_get_ex(o, "final", NULL));
	json_object_put(o);
	free(text);
	agg__free(a);
}

/* --dry-run -f json: the plan, per probe where it came from and why not */
static void test_plan(void **state)
{
	static const struct report_timer plan[] = {
		{ "KVM_RUN", "span", "tracepoint:a:b -> tracepoint:a:c", 1,
		  NULL, 0, "tracepoint", .file = "kvm.conf", .line = 10 },
		{ "kvm_vcpu_block", "func", "func:kvm_vcpu_block", 0,
		  "kvm.conf:22: fentry: refused (EPERM); kprobe: none", 0,
		  NULL, .file = "kvm.conf", .line = 22 },
		{ "do_exit", "kprobe", "kprobe:do_exit", 1, NULL, 0,
		  "kprobe (never returns)", .file = "-e", .line = 1,
		  .entry_only = 1 },
	};
	struct report_kernel k = { 0, "the kernel refuses (EPERM)", 1 };
	json_object *o, *v, *p;
	struct json_tokener *tok;
	size_t len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(report_plan_json(f, plan, 3, &k), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(buf[len - 1], '\n');
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, buf, (int)len);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	assert_int_equal(json_tokener_get_parse_end(tok), len);
	json_tokener_free(tok);
	free(buf);

	expect_keys(o, "schema_version", "tool", "version", "dry_run",
		    "kernel", "probes", NULL);
	expect_u64(o, "schema_version", 1);
	expect_bool(o, "dry_run", 1);
	v = get(o, "kernel", json_type_object);
	expect_keys(v, "fentry", "fentry_error", "kprobes", NULL);
	expect_bool(v, "fentry", 0);
	expect_str(v, "fentry_error", "the kernel refuses (EPERM)");
	expect_bool(v, "kprobes", 1);
	v = get(o, "probes", json_type_array);
	expect_len(v, 3);
	p = idx(v, 0);
	expect_keys(p, "id", "name", "kind", "where", "mech", "attached",
		    "error", "reason", "file", "line", "stop", "tail_calls",
		    "stop_why", "no_return_sites_why", "entry_only", "uretprobe_why", NULL);
	expect_u64(p, "id", 0);
	expect_str(p, "name", "KVM_RUN");
	expect_str(p, "mech", "tracepoint");
	expect_bool(p, "attached", 1);
	expect_null(p, "error");
	expect_str(p, "file", "kvm.conf");
	expect_u64(p, "line", 10);
	expect_bool(p, "entry_only", 0);
	expect_null(p, "uretprobe_why");
	p = idx(v, 1);
	expect_null(p, "mech");
	expect_bool(p, "attached", 0);
	expect_str(p, "error",
		   "kvm.conf:22: fentry: refused (EPERM); kprobe: none");
	expect_str(p, "reason", "fentry: refused (EPERM); kprobe: none");
	expect_u64(p, "line", 22);
	p = idx(v, 2);
	expect_str(p, "mech", "kprobe (never returns)");
	expect_str(p, "file", "-e");
	expect_bool(p, "entry_only", 1);
	json_object_put(o);

	/* kernel features unknown: nulls */
	f = open_memstream(&buf, &len);
	assert_int_equal(report_plan_json(f, plan, 1, NULL), 0);
	assert_int_equal(fclose(f), 0);
	o = json_tokener_parse(buf);
	free(buf);
	v = get(o, "kernel", json_type_object);
	expect_null(v, "fentry");
	expect_null(v, "fentry_error");
	expect_null(v, "kprobes");
	expect_len(get(o, "probes", json_type_array), 1);
	json_object_put(o);
}

/* a keyed span's probe: "keyed" and the start side's key fields */
static void test_plan_keyed(void **state)
{
	static const struct report_timer plan[] = {
		{ "runq", "span", "tracepoint:sched:sched_wakeup -> tracepoint:sched:sched_switch",
		  1, NULL, 0, "tracepoint", .file = "-e", .line = 1,
		  .key = "pid=next_pid,cpu" },
	};
	json_object *o, *p, *a;
	size_t len = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(report_plan_json(f, plan, 1, NULL), 0);
	assert_int_equal(fclose(f), 0);
	o = json_tokener_parse(buf);
	free(buf);
	assert_non_null(o);
	p = idx(get(o, "probes", json_type_array), 0);
	expect_keys(p, "id", "name", "kind", "where", "mech", "attached",
		    "error", "reason", "file", "line", "stop", "tail_calls",
		    "stop_why", "no_return_sites_why", "keyed", "key", "key_stop", "entry_only", "uretprobe_why",
		    NULL);
	expect_bool(p, "keyed", 1);
	a = get(p, "key", json_type_array);
	expect_len(a, 2);
	assert_string_equal(json_object_get_string(idx(a, 0)), "pid");
	assert_string_equal(json_object_get_string(idx(a, 1)), "cpu");
	json_object_put(o);
}

/*
 * below_resolution_keys: the statistics within their error bars of 0, by
 * key, in the node's order, then the parts of its total (one call of 1
 * us, 3 us probe spread: all of them; raw: none).
 */
static void test_res_keys(void **state)
{
	static const struct agg_cost costs[NTIMERS] = {
		[INNER] = { .start_in_ns = 1, .start_out_ns = 1,
			    .stop_in_ns = 1, .stop_out_ns = 1,
			    .sd_ns = 3000 },
	};
	static const char *const want[] = {
		"total_ns", "self_ns",	"min_ns", "avg_ns",  "max_ns",
		"p50_ns",   "p90_ns",	"p99_ns", "p999_ns", "oncpu_ns",
		"runq_ns",  "blocked_ns"
	};
	struct agg *a = agg__new(NTIMERS);
	struct report r;
	json_object *o, *n, *k;
	size_t i;

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__set_costs(a, costs), 0);
	S(1, INNER, 1, 0);
	E(1, INNER, 1, 1000);
	S(1, OUTER, 1, 2000);
	E(1, OUTER, 1, 3000);
	agg__snapshot(a, 1 * MS);
	init_report(&r, a);
	o = render(&r, NULL);
	/* by total: outer (1000 ns, no costs) first */
	n = idx(get(o, "tree", json_type_array), 1);
	expect_str(n, "name", "inner");
	expect_bool(n, "below_resolution", 1);
	k = get(n, "below_resolution_keys", json_type_array);
	expect_len(k, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(json_object_get_string(idx(k, i)), want[i]);
	n = idx(get(o, "tree", json_type_array), 0);
	expect_str(n, "name", "outer");
	expect_len(get(n, "below_resolution_keys", json_type_array), 0);
	json_object_put(o);
	agg__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_ndjson),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_keyed),
		cmocka_unit_test(test_res_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
