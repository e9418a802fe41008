// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for src/plan.c against a fixture tracefs
 * (tests/unit/data/tracefs: format files copied from a 6.18 kernel).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iprof/plan.h"
#include "iprof/probe.h"

static char tracefs[4096];

static void setup_paths(void)
{
	const char *d = getenv("IPROF_TESTDATA");

	snprintf(tracefs, sizeof(tracefs), "%s/tracefs",
		 d ? d : "tests/unit/data");
}

/* Parse @lines (one spec each) and build a plan against the fixture. */
static void build(struct probe_list *pl, struct plan *p,
		  const char *const *lines, int n)
{
	char err[512];
	int i;

	memset(pl, 0, sizeof(*pl));
	for (i = 0; i < n; i++) {
		int r = probe_parse_line(pl, lines[i], "t.conf", i + 1, err,
					 sizeof(err));
		if (r)
			fail_msg("parse '%s': %s", lines[i], err);
	}
	assert_int_equal(plan_build(p, pl, tracefs), 0);
}

static void tp_fields(void **state)
{
	uint16_t off;
	uint8_t size, sg;
	char fields[256];

	(void)state;
	assert_int_equal(plan_tp_field(tracefs, "syscalls", "sys_enter_ioctl",
				       "cmd", &off, &size, &sg, NULL, 0),
			 0);
	assert_int_equal(off, 24);
	assert_int_equal(size, 8);
	assert_int_equal(sg, 0);
	assert_int_equal(plan_tp_field(tracefs, "sched", "sched_switch",
				       "prev_state", &off, &size, &sg, NULL, 0),
			 0);
	assert_int_equal(off, 32);
	assert_int_equal(sg, 1);
	/* arrays cannot be compared */
	assert_int_equal(plan_tp_field(tracefs, "sched", "sched_switch",
				       "prev_comm", &off, &size, &sg, NULL, 0),
			 -EINVAL);
	assert_int_equal(plan_tp_field(tracefs, "kvm", "kvm_fpu", "lod", &off,
				       &size, &sg, fields, sizeof(fields)),
			 -ESRCH);
	assert_string_equal(fields, "load");
	assert_int_equal(plan_tp_field(tracefs, "kvm", "nope", "x", &off,
				       &size, &sg, NULL, 0),
			 -ENOENT);
}

static void kvm_run_span(void **state)
{
	static const char *const l[] = {
		"span KVM_RUN = tracepoint:syscalls:sys_enter_ioctl if cmd == 0xae80 -> tracepoint:syscalls:sys_exit_ioctl",
		"span guest_fpu = tracepoint:kvm:kvm_fpu if load == 1 -> tracepoint:kvm:kvm_fpu if load == 0",
	};
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, 2);
	assert_int_equal(p.ntimers, 2);
	assert_null(p.timers[0].error);
	assert_null(p.timers[1].error);
	assert_string_equal(p.timers[0].name, "KVM_RUN");
	assert_int_equal(p.nactions, 4);
	/* kvm_fpu serves both sides of guest_fpu: one attachment (a
	 * tracepoint takes a program once), its stop chained before its start */
	assert_int_equal(p.natt, 3);
	assert_string_equal(p.att[2].event, "kvm_fpu");
	assert_int_equal(p.att[2].action, 3);
	assert_int_equal(p.actions[3].role, IPROF_ROLE_STOP);
	assert_int_equal(p.actions[3].next, 2);
	assert_int_equal(p.actions[2].role, IPROF_ROLE_START);
	assert_int_equal(p.actions[2].next, IPROF_NO_NEXT);
	assert_int_equal(p.actions[0].next, IPROF_NO_NEXT);
	/* KVM_RUN start: cmd at offset 24, 8 bytes, == 0xae80 */
	assert_int_equal(p.actions[0].timer, 0);
	assert_int_equal(p.actions[0].role, IPROF_ROLE_START);
	assert_int_equal(p.actions[0].ncond, 1);
	assert_int_equal(p.actions[0].cond[0].src, IPROF_SRC_TP);
	assert_int_equal(p.actions[0].cond[0].off, 24);
	assert_int_equal(p.actions[0].cond[0].size, 8);
	assert_int_equal(p.actions[0].cond[0].op, IPROF_OP_EQ);
	assert_int_equal(p.actions[0].cond[0].val, 0xae80);
	/* its stop: unconditional, and unmatched stops (other ioctls) are
	 * expected, not orphans */
	assert_int_equal(p.actions[1].role, IPROF_ROLE_STOP);
	assert_int_equal(p.actions[1].ncond, 0);
	assert_true(p.actions[1].flags & IPROF_A_UNMATCHED_OK);
	/* guest_fpu: both sides on kvm_fpu, load at offset 8, 4 bytes */
	assert_int_equal(p.actions[3].ncond, 1);
	assert_int_equal(p.actions[3].cond[0].off, 8);
	assert_int_equal(p.actions[3].cond[0].size, 4);
	assert_int_equal(p.actions[3].cond[0].val, 0);
	/* attachments carry their action as cookie */
	assert_int_equal(p.att[0].mech, MECH_TRACEPOINT);
	assert_string_equal(p.att[0].category, "syscalls");
	assert_string_equal(p.att[0].event, "sys_enter_ioctl");
	assert_int_equal(p.att[1].action, 1);
	assert_string_equal(p.att[1].event, "sys_exit_ioctl");
	assert_string_equal(
		p.timers[0].where,
		"tracepoint:syscalls:sys_enter_ioctl if cmd == 0xae80 -> tracepoint:syscalls:sys_exit_ioctl");
	plan_free(&p);
	probe_list_free(&pl);
}

static void per_probe_errors(void **state)
{
	static const char *const l[] = {
		"span a = tracepoint:kvm:kvm_nope -> tracepoint:kvm:kvm_fpu",
		"span b = tracepoint:kvm:kvm_fpu if lod == 1 -> tracepoint:kvm:kvm_fpu",
		"span c = tracepoint:kvm:kvm_fpu if arg0 == 1 -> tracepoint:kvm:kvm_fpu",
		"uprobe:/bin/true:main if arg7 == 1",
		"fentry:vfs_read if count > 10",
		"func:vfio_pin_*",
		"uprobe:/bin/true:main as ok if arg0 == -1",
	};
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, 7);
	assert_int_equal(p.ntimers, 7);
	assert_non_null(strstr(p.timers[0].error,
			       "t.conf:1:10: tracepoint kvm:kvm_nope not found"));
	assert_non_null(strstr(p.timers[1].error,
			       "tracepoint kvm:kvm_fpu has no field 'lod' (its fields: load)"));
	assert_non_null(strstr(p.timers[1].error, "t.conf:2:"));
	assert_non_null(strstr(p.timers[2].error, "argN is for function probes"));
	assert_non_null(strstr(p.timers[3].error, "only arg0..arg5"));
	assert_non_null(strstr(p.timers[4].error, "argN"));
	assert_non_null(strstr(p.timers[5].error, "globs"));
	/* the good one is planned: entry + return, arg0 signed == -1 */
	assert_null(p.timers[6].error);
	assert_int_equal(p.natt, 2);
	assert_int_equal(p.att[0].mech, MECH_UPROBE);
	assert_int_equal(p.att[1].mech, MECH_URETPROBE);
	assert_int_equal(p.att[0].timer, 6);
	assert_string_equal(p.att[0].func, "main");
	assert_int_equal(p.actions[p.att[0].action].cond[0].src,
			 IPROF_SRC_ARG);
	assert_int_equal(p.actions[p.att[0].action].cond[0].val, UINT64_MAX);
	assert_int_equal(p.actions[p.att[0].action].cond[0].is_signed, 1);
	plan_free(&p);
	probe_list_free(&pl);
}

/* More timers on one tracepoint than a chain holds: the extra one is refused
 * with a reason, the others keep working. */
static void chain_limit(void **state)
{
	char lines[IPROF_MAX_CHAIN + 1][128];
	const char *l[IPROF_MAX_CHAIN + 1];
	struct probe_list pl;
	struct plan p;
	uint32_t i, n, a;

	(void)state;
	for (i = 0; i <= IPROF_MAX_CHAIN; i++) {
		snprintf(lines[i], sizeof(lines[i]),
			 "span s%u = tp:kvm:kvm_fpu if load == 1 -> tp:syscalls:sys_exit_ioctl",
			 i);
		l[i] = lines[i];
	}
	build(&pl, &p, l, IPROF_MAX_CHAIN + 1);
	for (i = 0; i < IPROF_MAX_CHAIN; i++)
		assert_null(p.timers[i].error);
	assert_non_null(strstr(p.timers[IPROF_MAX_CHAIN].error,
			       "timers use one tracepoint"));
	/* two attachments, each a chain of IPROF_MAX_CHAIN actions */
	assert_int_equal(p.natt, 2);
	for (i = 0; i < 2; i++) {
		for (n = 0, a = p.att[i].action; a != IPROF_NO_NEXT;
		     a = p.actions[a].next)
			n++;
		assert_int_equal(n, IPROF_MAX_CHAIN);
	}
	plan_free(&p);
	probe_list_free(&pl);
}

static void no_tracefs(void **state)
{
	static const char *const l[] = {
		"span a = tracepoint:kvm:kvm_fpu -> tracepoint:kvm:kvm_fpu",
	};
	struct probe_list pl = { 0 };
	struct plan p;
	char err[256];

	(void)state;
	assert_int_equal(probe_parse_line(&pl, l[0], "-e", 1, err, sizeof(err)),
			 0);
	assert_int_equal(plan_build(&p, &pl, NULL), 0);
	assert_non_null(strstr(p.timers[0].error, "tracefs is not mounted"));
	plan_free(&p);
	probe_list_free(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tp_fields),
		cmocka_unit_test(kvm_run_span),
		cmocka_unit_test(per_probe_errors),
		cmocka_unit_test(chain_limit),
		cmocka_unit_test(no_tracefs),
	};
	setup_paths();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
