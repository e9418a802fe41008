/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the probe-list parser (src/probe/probe.c).  Include tests read
 * files under $IPROF_TESTDATA/probe (tests/unit/data/probe) or write
 * their own under a mkdtemp() directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/probe.h"

#define ERRLEN 512

static char g_err[ERRLEN];

/* Parse @line as "-e" number 1 into @pl; returns the parser's result. */
static int parse(struct probe_list *pl, const char *line)
{
	g_err[0] = '\0';
	return probe_parse_line(pl, line, "-e", 1, g_err, sizeof(g_err));
}

/* Parse one valid line; return its only probe. */
static const struct probe *parse_ok(struct probe_list *pl, const char *line)
{
	int ret = parse(pl, line);

	if (ret)
		print_error("unexpected error for '%s': %s\n", line, g_err);
	assert_int_equal(ret, 0);
	assert_int_equal(pl->n, 1);
	return &pl->v[0];
}

/* @line must fail with -EINVAL, message @msg, and add nothing. */
static void parse_bad(const char *line, const char *msg)
{
	struct probe_list pl = {0};
	int ret = parse(&pl, line);

	if (strcmp(g_err, msg))
		print_error("line: %s\n got: %s\nwant: %s\n", line, g_err, msg);
	assert_int_equal(ret, -EINVAL);
	assert_string_equal(g_err, msg);
	assert_int_equal(pl.n, 0);
	probe_list_free(&pl);
}

static const char *datadir(void)
{
	const char *d = getenv("IPROF_TESTDATA");

	return d ? d : "tests/unit/data";
}

/* $IPROF_TESTDATA/probe/@rel into a static buffer. */
static const char *data(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/probe/%s", datadir(), rel);
	return buf[i];
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* ---- valid forms --------------------------------------------------------- */

static void test_fentry(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(&pl, "fentry:vfs_read");

	assert_int_equal(p->kind, PROBE_FENTRY);
	assert_string_equal(p->name, "vfs_read");
	assert_string_equal(p->func, "vfs_read");
	assert_null(p->path);
	assert_string_equal(p->file, "-e");
	assert_int_equal(p->line, 1);
	assert_int_equal(p->name_col, 8);
	assert_int_equal(p->start.col, 8);
	assert_int_equal(p->start.ncond, 0);
	assert_null(p->start.category);
	assert_null(p->start.event);
	assert_int_equal(p->stop.ncond, 0);
	assert_null(p->stop.category);
	probe_list_free(&pl);
}

static void test_kprobe_as(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p =
		parse_ok(&pl, "  kprobe:do_sys_openat2   as  open-at.2 ");

	assert_int_equal(p->kind, PROBE_KPROBE);
	assert_string_equal(p->func, "do_sys_openat2");
	assert_string_equal(p->name, "open-at.2");
	assert_int_equal(p->start.col, 10);
	assert_int_equal(p->name_col, 31);
	probe_list_free(&pl);
}

static void test_func(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(&pl, "func:vfs_write");

	assert_int_equal(p->kind, PROBE_FUNC);
	assert_string_equal(p->func, "vfs_write");
	assert_string_equal(p->name, "vfs_write");
	assert_int_equal(p->name_col, 6);
	probe_list_free(&pl);
}

static void test_uprobe(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p =
		parse_ok(&pl, "uprobe:/usr/bin/foo:parse_request as parse");

	assert_int_equal(p->kind, PROBE_UPROBE);
	assert_string_equal(p->path, "/usr/bin/foo");
	assert_string_equal(p->func, "parse_request");
	assert_string_equal(p->name, "parse");
	assert_int_equal(p->start.col, 8);
	assert_int_equal(p->name_col, 38);
	probe_list_free(&pl);

	/* PATH is everything up to the last ':' */
	p = parse_ok(&pl, "uprobe:/opt/a:b/lib.so.1:handler");
	assert_string_equal(p->path, "/opt/a:b/lib.so.1");
	assert_string_equal(p->func, "handler");
	assert_string_equal(p->name, "handler");
	assert_int_equal(p->name_col, 26);
	probe_list_free(&pl);

	p = parse_ok(&pl, "uprobe:./rel/bin:main#comment");
	assert_string_equal(p->path, "./rel/bin");
	assert_string_equal(p->func, "main");
	probe_list_free(&pl);

	/* C++ names: "::" is not the PATH:FUNC split; parameters and
	 * template arguments may hold spaces, ':' and '<' */
	p = parse_ok(&pl, "uprobe:./prog:ns::foo");
	assert_string_equal(p->path, "./prog");
	assert_string_equal(p->func, "ns::foo");
	assert_string_equal(p->name, "ns::foo");
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:/a:b/p:ns::f(std::map<int, int> const&, "
			  "char*) as f if arg0 == 1");
	assert_string_equal(p->path, "/a:b/p");
	assert_string_equal(p->func,
			    "ns::f(std::map<int, int> const&, char*)");
	assert_string_equal(p->name, "f");
	assert_int_equal(p->start.ncond, 1);
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:./p:ns::Box::get() const # a method");
	assert_string_equal(p->func, "ns::Box::get() const");
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:./p:ns::twice<int>");
	assert_string_equal(p->path, "./p");
	assert_string_equal(p->func, "ns::twice<int>");
	probe_list_free(&pl);
	/* symbol versions */
	p = parse_ok(&pl, "uprobe:libc.so.6:pthread_cond_wait@GLIBC_2.2.5");
	assert_string_equal(p->path, "libc.so.6");
	assert_string_equal(p->func, "pthread_cond_wait@GLIBC_2.2.5");
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:/x:f@@V2");
	assert_string_equal(p->func, "f@@V2");
	probe_list_free(&pl);
	/* a quoted C++ name: what a plain FUNC cannot hold */
	p = parse_ok(&pl, "uprobe:./p:\"operator<<(S&, int)\" as shl if arg1 == 2 # x");
	assert_string_equal(p->path, "./p");
	assert_string_equal(p->func, "operator<<(S&, int)");
	assert_string_equal(p->name, "shl");
	assert_int_equal(p->start.ncond, 1);
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:./p:\"main::{lambda(int)#1}::operator()\"");
	assert_string_equal(p->func, "main::{lambda(int)#1}::operator()");
	assert_string_equal(p->name, "main::{lambda(int)#1}::operator()");
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:./p:\"(anonymous namespace)::*\"");
	assert_string_equal(p->func, "(anonymous namespace)::*");
	probe_list_free(&pl);
	/* a quoted path: one a plain PATH cannot hold (a space), with a
	 * plain or a quoted FUNC */
	p = parse_ok(&pl, "uprobe:\"/opt/my app/bin\":main.f as m # x");
	assert_string_equal(p->path, "/opt/my app/bin");
	assert_string_equal(p->func, "main.f");
	assert_string_equal(p->name, "m");
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:\"./a b\":\"operator<<(S&, int)\" if arg1 == 2");
	assert_string_equal(p->path, "./a b");
	assert_string_equal(p->func, "operator<<(S&, int)");
	assert_int_equal(p->name_col, 17); /* at FUNC, past its quote */
	assert_int_equal(p->start.ncond, 1);
	probe_list_free(&pl);
	/* Go: a method on a pointer receiver, a closure */
	p = parse_ok(&pl, "uprobe:./p:main.(*T).M as m if arg0 == 1");
	assert_string_equal(p->path, "./p");
	assert_string_equal(p->func, "main.(*T).M");
	assert_string_equal(p->name, "m");
	probe_list_free(&pl);
	p = parse_ok(&pl, "uprobe:./p:pkg.f.func2.1");
	assert_string_equal(p->func, "pkg.f.func2.1");
	probe_list_free(&pl);
}

static void test_glob_and_suffix(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p;

	p = parse_ok(&pl, "fentry:vfs_*");
	assert_string_equal(p->func, "vfs_*");
	assert_string_equal(p->name, "vfs_*");
	probe_list_free(&pl);

	p = parse_ok(&pl, "kprobe:*_rea?");
	assert_string_equal(p->func, "*_rea?");
	assert_string_equal(p->name, "*_rea?");
	probe_list_free(&pl);

	p = parse_ok(&pl, "func:ext4_* as ext4");
	assert_string_equal(p->func, "ext4_*");
	assert_string_equal(p->name, "ext4");
	probe_list_free(&pl);

	p = parse_ok(&pl, "kprobe:tcp_v4_rcv.isra.0");
	assert_string_equal(p->func, "tcp_v4_rcv.isra.0");
	assert_string_equal(p->name, "tcp_v4_rcv.isra.0");
	probe_list_free(&pl);

	p = parse_ok(&pl, "fentry:__foo.constprop.0 as foo");
	assert_string_equal(p->func, "__foo.constprop.0");
	assert_string_equal(p->name, "foo");
	probe_list_free(&pl);
}

static void test_if_one(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(&pl, "fentry:vfs_read if arg2 > 4096");

	assert_int_equal(p->start.ncond, 1);
	assert_null(p->start.cond[0].field);
	assert_int_equal(p->start.cond[0].arg, 2);
	assert_int_equal(p->start.cond[0].op, IPROF_OP_GT);
	assert_int_equal(p->start.cond[0].value, 4096);
	assert_int_equal(p->start.cond[0].col, 20);
	probe_list_free(&pl);

	p = parse_ok(&pl, "kprobe:f as g if count==0");
	assert_string_equal(p->name, "g");
	assert_int_equal(p->start.ncond, 1);
	assert_string_equal(p->start.cond[0].field, "count");
	assert_int_equal(p->start.cond[0].arg, -1);
	assert_int_equal(p->start.cond[0].op, IPROF_OP_EQ);
	assert_int_equal(p->start.cond[0].value, 0);
	probe_list_free(&pl);
}

static void test_if_several(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(
		&pl,
		"func:f if arg0 == 1 && arg11 != 2&&_len<=3 && flags & 0x4");
	const struct probe_cond *c = p->start.cond;

	assert_int_equal(p->start.ncond, IPROF_MAX_COND);
	assert_int_equal(c[0].arg, 0);
	assert_null(c[0].field);
	assert_int_equal(c[0].op, IPROF_OP_EQ);
	assert_int_equal(c[0].value, 1);
	assert_int_equal(c[0].col, 11);
	assert_int_equal(c[1].arg, 11);
	assert_int_equal(c[1].op, IPROF_OP_NE);
	assert_int_equal(c[1].value, 2);
	assert_int_equal(c[1].col, 24);
	assert_string_equal(c[2].field, "_len");
	assert_int_equal(c[2].arg, -1);
	assert_int_equal(c[2].op, IPROF_OP_LE);
	assert_int_equal(c[2].value, 3);
	assert_int_equal(c[2].col, 36);
	assert_string_equal(c[3].field, "flags");
	assert_int_equal(c[3].op, IPROF_OP_AND);
	assert_int_equal(c[3].value, 4);
	probe_list_free(&pl);
}

static void test_cond_types(void **state)
{
	static const struct {
		const char *text;
		int width, is_signed;
	} types[] = {
		{"s8", 1, 1},  {"u8", 1, 0},  {"s16", 2, 1}, {"u16", 2, 0},
		{"s32", 4, 1}, {"u32", 4, 0}, {"s64", 8, 1}, {"u64", 8, 0},
	};
	struct probe_list pl = {0};
	const struct probe *p;
	char line[80];
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(line, sizeof(line), "uprobe:/bin/x:f if arg0:%s == -1",
			 types[i].text);
		p = parse_ok(&pl, line);
		assert_int_equal(p->start.cond[0].arg, 0);
		assert_int_equal(p->start.cond[0].has_type, 1);
		assert_int_equal(p->start.cond[0].width, types[i].width);
		assert_int_equal(p->start.cond[0].is_signed,
				 types[i].is_signed);
		assert_int_equal(p->start.cond[0].value, UINT64_MAX);
		assert_int_equal(p->start.cond[0].col, 20);
		probe_list_free(&pl);
	}

	/* tracepoint fields too; blanks and && around as usual */
	p = parse_ok(&pl, "span s = tp:a:b if fd:s32==-1&&x:u8 & 0x80 -> "
			  "tp:c:d if ret < 0");
	assert_string_equal(p->start.cond[0].field, "fd");
	assert_int_equal(p->start.cond[0].has_type, 1);
	assert_int_equal(p->start.cond[0].width, 4);
	assert_int_equal(p->start.cond[0].is_signed, 1);
	assert_string_equal(p->start.cond[1].field, "x");
	assert_int_equal(p->start.cond[1].width, 1);
	assert_int_equal(p->start.cond[1].is_signed, 0);
	assert_int_equal(p->start.cond[1].op, IPROF_OP_AND);
	/* no suffix: no type */
	assert_int_equal(p->stop.cond[0].has_type, 0);
	assert_int_equal(p->stop.cond[0].width, 0);
	probe_list_free(&pl);
}

static void test_each_operator(void **state)
{
	static const struct {
		const char *text;
		enum iprof_cond_op op;
	} ops[] = {
		{"==", IPROF_OP_EQ}, {"!=", IPROF_OP_NE}, {"<", IPROF_OP_LT},
		{"<=", IPROF_OP_LE}, {">", IPROF_OP_GT},  {">=", IPROF_OP_GE},
		{"&", IPROF_OP_AND},
	};
	char line[64];
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct probe_list pl = {0};
		const struct probe *p;

		snprintf(line, sizeof(line), "fentry:f if x %s 5", ops[i].text);
		p = parse_ok(&pl, line);
		assert_int_equal(p->start.cond[0].op, ops[i].op);
		assert_string_equal(probe_op_str(ops[i].op), ops[i].text);
		probe_list_free(&pl);

		/* no blanks around the operator */
		snprintf(line, sizeof(line), "fentry:f if x%s-5", ops[i].text);
		p = parse_ok(&pl, line);
		assert_int_equal(p->start.cond[0].op, ops[i].op);
		assert_int_equal(p->start.cond[0].value, (uint64_t)-5);
		probe_list_free(&pl);
	}
}

static void test_values(void **state)
{
	static const struct {
		const char *text;
		uint64_t value;
	} vals[] = {
		{"0", 0},
		{"42", 42},
		{"007", 7},
		{"18446744073709551615", UINT64_MAX},
		{"0xae80", 0xae80},
		{"0XAE80", 0xae80},
		{"0xDeadBeef", 0xdeadbeef},
		{"0xffffffffffffffff", UINT64_MAX},
		{"0x0000000000000000001", 1},
		{"-1", UINT64_MAX},
		{"-0", 0},
		{"-4096", (uint64_t)-4096},
		{"-9223372036854775808", 0x8000000000000000ull},
	};
	char line[80];
	size_t i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct probe_list pl = {0};
		const struct probe *p;

		snprintf(line, sizeof(line), "fentry:f if x == %s",
			 vals[i].text);
		p = parse_ok(&pl, line);
		assert_int_equal(p->start.cond[0].value, vals[i].value);
		probe_list_free(&pl);
	}
}

static void test_span(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(
		&pl, "span KVM_RUN = tracepoint:syscalls:sys_enter_ioctl if "
		     "cmd == 0xae80 -> tracepoint:syscalls:sys_exit_ioctl");

	assert_int_equal(p->kind, PROBE_SPAN);
	assert_string_equal(p->name, "KVM_RUN");
	assert_int_equal(p->name_col, 6);
	assert_null(p->func);
	assert_null(p->path);
	assert_string_equal(p->start.category, "syscalls");
	assert_string_equal(p->start.event, "sys_enter_ioctl");
	assert_int_equal(p->start.col, 16);
	assert_int_equal(p->start.ncond, 1);
	assert_string_equal(p->start.cond[0].field, "cmd");
	assert_int_equal(p->start.cond[0].arg, -1);
	assert_int_equal(p->start.cond[0].op, IPROF_OP_EQ);
	assert_int_equal(p->start.cond[0].value, 0xae80);
	assert_int_equal(p->start.cond[0].col, 55);
	assert_string_equal(p->stop.category, "syscalls");
	assert_string_equal(p->stop.event, "sys_exit_ioctl");
	assert_int_equal(p->stop.col, 72);
	assert_int_equal(p->stop.ncond, 0);
	probe_list_free(&pl);
}

static void test_span_tp_short(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(
		&pl, "span a.b-c=tp:sched:sched_switch if prev_pid==1&&x<2->"
		     "tp:sched:sched_wakeup if pid >= -1 && y & 0x10 # c");

	assert_string_equal(p->name, "a.b-c");
	assert_string_equal(p->start.category, "sched");
	assert_string_equal(p->start.event, "sched_switch");
	assert_int_equal(p->start.col, 12);
	assert_int_equal(p->start.ncond, 2);
	assert_string_equal(p->start.cond[0].field, "prev_pid");
	assert_int_equal(p->start.cond[0].value, 1);
	assert_string_equal(p->start.cond[1].field, "x");
	assert_int_equal(p->start.cond[1].op, IPROF_OP_LT);
	assert_int_equal(p->start.cond[1].value, 2);
	assert_string_equal(p->stop.category, "sched");
	assert_string_equal(p->stop.event, "sched_wakeup");
	assert_int_equal(p->stop.col, 55);
	assert_int_equal(p->stop.ncond, 2);
	assert_string_equal(p->stop.cond[0].field, "pid");
	assert_int_equal(p->stop.cond[0].op, IPROF_OP_GE);
	assert_int_equal(p->stop.cond[0].value, UINT64_MAX);
	assert_string_equal(p->stop.cond[1].field, "y");
	assert_int_equal(p->stop.cond[1].op, IPROF_OP_AND);
	assert_int_equal(p->stop.cond[1].value, 0x10);
	probe_list_free(&pl);

	/* a condition on the stop side only */
	p = parse_ok(&pl, "span s = tp:a:b -> tp:c:d if ret < 0");
	assert_int_equal(p->start.ncond, 0);
	assert_int_equal(p->stop.ncond, 1);
	assert_string_equal(p->stop.cond[0].field, "ret");
	probe_list_free(&pl);
}

/* USDT sides: usdt:PATH[:PROVIDER]:NAME, argN conditions, next to a
 * tracepoint (issue 46) */
static void test_span_usdt(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(
		&pl, "span q = usdt:/usr/bin/postgres:postgresql:query__start "
		     "if arg1 == 5->usdt:postgres:query__done");

	assert_int_equal(p->kind, PROBE_SPAN);
	assert_string_equal(p->start.usdt, "/usr/bin/postgres");
	assert_string_equal(p->start.category, "postgresql");
	assert_string_equal(p->start.event, "query__start");
	assert_int_equal(p->start.col, 10);
	assert_int_equal(p->start.ncond, 1);
	assert_int_equal(p->start.cond[0].arg, 1);
	assert_int_equal(p->start.cond[0].value, 5);
	assert_string_equal(p->stop.usdt, "postgres");
	assert_null(p->stop.category);
	assert_string_equal(p->stop.event, "query__done");
	assert_int_equal(p->stop.col, 71);
	probe_list_free(&pl);

	/* a USDT start, a tracepoint stop; its arrow right after NAME */
	p = parse_ok(&pl, "span s = usdt:./a.out:p:n-> tp:sched:sched_switch");
	assert_string_equal(p->start.usdt, "./a.out");
	assert_string_equal(p->start.category, "p");
	assert_string_equal(p->start.event, "n");
	assert_null(p->stop.usdt);
	assert_string_equal(p->stop.event, "sched_switch");
	probe_list_free(&pl);

	parse_bad("span s = usdt:python3 -> tp:a:b",
		  "-e:1:15: found 'python3', expected PATH[:PROVIDER]:NAME (a "
		  "binary, ':' and a USDT probe's name)");
	parse_bad("span s = usdt::n -> tp:a:b",
		  "-e:1:15: found ':n', expected PATH[:PROVIDER]:NAME (a "
		  "binary, ':' and a USDT probe's name)");
	parse_bad("span s = usdt:py:p.x:n -> tp:a:b",
		  "-e:1:18: found 'p.x:n', expected a USDT provider name");
	parse_bad("span s = usdt:py:p:n.x -> tp:a:b",
		  "-e:1:20: found 'n.x', expected a USDT probe name");
}

/* User function sides: uprobe:PATH:FUNC (its entry) and
 * uretprobe:PATH:FUNC (its return) as points, beside USDT probes and
 * tracepoints; a kernel function or a glob is refused (issue 46) */
static void test_span_uside(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(
		&pl, "span r = usdt:./w:req__start -> uretprobe:./w:ns::work(int)"
		     " | uprobe:/usr/lib/libc.so.6:exit if arg0 == 1");

	(void)state;
	assert_string_equal(p->start.usdt, "./w");
	assert_null(p->start.uprobe);
	assert_string_equal(p->stop.uprobe, "./w");
	assert_string_equal(p->stop.event, "ns::work(int)");
	assert_int_equal(p->stop.ret, 1);
	assert_int_equal(p->stop.col, 33);
	assert_int_equal(p->nalt, 1);
	assert_string_equal(p->alt[0].uprobe, "/usr/lib/libc.so.6");
	assert_string_equal(p->alt[0].event, "exit");
	assert_int_equal(p->alt[0].ret, 0);
	assert_int_equal(p->alt[0].ncond, 1);
	probe_list_free(&pl);

	/* a uprobe start, its arrow right after FUNC, a quoted path */
	p = parse_ok(&pl, "span s = uprobe:\"./a b\":f->usdt:./a:d name arg0");
	assert_string_equal(p->start.uprobe, "./a b");
	assert_string_equal(p->start.event, "f");
	assert_int_equal(p->start.ret, 0);
	assert_string_equal(p->stop.usdt, "./a");
	assert_int_equal(p->named, 1);
	probe_list_free(&pl);

	parse_bad("span s = uprobe:./w:h* -> tp:a:b",
		  "-e:1:21: found 'h*', expected one function (a span's side "
		  "is one point: no glob)");
	parse_bad("span s = uprobe:w -> tp:a:b",
		  "-e:1:17: found 'w', expected PATH:FUNC (a binary path, ':' "
		  "and a function name)");
	parse_bad("span s = tp:a:b -> func:vfs_read",
		  "-e:1:20: a kernel function is no span side here: its entry "
		  "and return are a timer of their own (func:NAME); a span's "
		  "sides are tracepoint:CAT:EVENT, usdt:PATH[:PROVIDER]:NAME, "
		  "uprobe:PATH:FUNC or uretprobe:PATH:FUNC");
}

/* String conditions: str(F) == "TEXT", != and =~ "PREFIX*", escapes,
 * beside integer ones; bad ones at their column (issue 46) */
static void test_cond_str(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p = parse_ok(
		&pl, "uprobe:./a:f if str(arg1) == \"a\\\"b\\\\\\x41\" && "
		     "arg0 == 2 && str( arg2 ) =~ \"SEL*\" && str(arg3)!=\"\"");
	const struct probe_cond *c = p->start.cond;

	(void)state;
	assert_int_equal(p->start.ncond, 4);
	assert_int_equal(c[0].arg, 1);
	assert_int_equal(c[0].op, IPROF_OP_STREQ);
	assert_int_equal(c[0].str_len, 5);
	assert_memory_equal(c[0].str, "a\"b\\A", 5);
	assert_int_equal(c[0].width, 8);
	assert_null(c[1].str);
	assert_int_equal(c[1].op, IPROF_OP_EQ);
	assert_int_equal(c[2].op, IPROF_OP_STRPRE);
	assert_int_equal(c[2].arg, 2);
	assert_string_equal(c[2].str, "SEL");
	assert_int_equal(c[3].op, IPROF_OP_STRNE);
	assert_int_equal(c[3].str_len, 0);
	probe_list_free(&pl);

	/* a tracepoint field's */
	p = parse_ok(&pl, "span o = tp:syscalls:sys_enter_openat if "
			  "str(filename) == \"/etc/passwd\" -> tp:a:b");
	assert_string_equal(p->start.cond[0].field, "filename");
	assert_string_equal(p->start.cond[0].str, "/etc/passwd");
	probe_list_free(&pl);

	parse_bad("uprobe:./a:f if str(arg0) > \"a\"",
		  "-e:1:27: found '>', expected '==', '!=' or '=~' after "
		  "str(...)");
	parse_bad("uprobe:./a:f if str(arg0) =~ \"*a\"",
		  "-e:1:30: found '\"*a\"', expected a prefix after '=~': "
		  "\"TEXT*\" (one '*', at the end)");
	parse_bad("uprobe:./a:f if str(arg0) == \"\\x00\"",
		  "-e:1:31: found '\\x', expected an escape: \\\" \\\\ or "
		  "\\xNN (not \\x00)");
	parse_bad("uprobe:./a:f if str(arg0) == 5",
		  "-e:1:30: found '5', expected a string in double quotes "
		  "(\\\" \\\\ \\xNN escapes)");
}

/* A named span whose stops name their call too: `name ARG stop ARG2`, in
 * name's shape; errors at their column (issue 46) */
static void test_stop_name(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p;

	(void)state;
	p = parse_ok(&pl, "span py = usdt:py:function__entry -> "
			  "usdt:py:function__return name str(arg0):str(arg1) "
			  "stop str(arg0):str(arg1)");
	assert_int_equal(p->named, 1);
	assert_int_equal(p->name_parts, 2);
	assert_int_equal(p->stop_named, 1);
	assert_int_equal(p->stop_src.arg, 0);
	assert_int_equal(p->stop_src2.arg, 1);
	assert_int_equal(p->stop_src.width, 8);
	assert_int_equal(p->stop_src.col, 97);
	probe_list_free(&pl);

	/* an integer, typed, on a tracepoint stop's field, alternatives */
	p = parse_ok(&pl, "span r = tp:a:b -> tp:c:d | tp:e:f name arg1:u32 "
			  "stop fd:s32");
	assert_int_equal(p->name_parts, 0);
	assert_int_equal(p->stop_named, 1);
	assert_string_equal(p->stop_src.field, "fd");
	assert_int_equal(p->stop_src.has_type, 1);
	assert_int_equal(p->stop_src.width, 4);
	assert_int_equal(p->stop_src.is_signed, 1);
	probe_list_free(&pl);

	parse_bad("span r = tp:a:b -> tp:c:d name str(arg0) stop arg0",
		  "-e:1:47: stop names the call as name does: str(ARG), one "
		  "string");
	parse_bad("span r = tp:a:b -> tp:c:d name arg0 stop str(arg0):str(arg1)",
		  "-e:1:42: stop names the call as name does: an integer "
		  "(ARG[:TYPE]), no str()");
	parse_bad("span r = tp:a:b -> tp:c:d name arg0 stop",
		  "-e:1:41: found end of line, expected what names each call "
		  "after 'name' (argN, a tracepoint field of the start, or "
		  "str(argN))");
	parse_bad("span r = tp:a:b -> tp:c:d name arg0 stop arg1 x",
		  "-e:1:47: found 'x', expected end of line");
	parse_bad("span r = tp:a:b -> tp:c:d name arg0 x",
		  "-e:1:37: found 'x', expected 'stop' or end of line");
	parse_bad("uprobe:./a:f name arg0 stop arg1",
		  "-e:1:24: stop names a span's stops: a function timer's "
		  "return is its entry's call");
}

/* Alternative stops: `-> STOP | STOP2 ...`, each with its conditions,
 * columns; an empty one and one too many are errors at their '|' */
static void test_span_alt(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p;

	p = parse_ok(&pl, "span q = usdt:pg:query__start -> usdt:pg:query__done"
			  " | usdt:pg:p:transaction__abort if arg0 == 3 name arg1");
	assert_string_equal(p->stop.event, "query__done");
	assert_int_equal(p->stop.ncond, 0);
	assert_int_equal(p->nalt, 1);
	assert_string_equal(p->alt[0].usdt, "pg");
	assert_string_equal(p->alt[0].category, "p");
	assert_string_equal(p->alt[0].event, "transaction__abort");
	assert_int_equal(p->alt[0].col, 56);
	assert_int_equal(p->alt[0].ncond, 1);
	assert_int_equal(p->alt[0].cond[0].arg, 0);
	assert_int_equal(p->alt[0].cond[0].value, 3);
	assert_int_equal(p->named, 1);
	assert_int_equal(p->name_src.arg, 1);
	probe_list_free(&pl);

	/* four stops, tracepoints and USDT mixed, no blanks around '|' */
	p = parse_ok(&pl, "span s = tp:a:b -> tp:c:d if x == 1|tp:e:f|"
			  "usdt:./p:g if arg1 > 2 && arg2 < 3 | tp:h:i");
	assert_int_equal(p->stop.ncond, 1);
	assert_int_equal(p->nalt, 3);
	assert_string_equal(p->alt[0].category, "e");
	assert_int_equal(p->alt[0].ncond, 0);
	assert_string_equal(p->alt[1].usdt, "./p");
	assert_null(p->alt[1].category);
	assert_string_equal(p->alt[1].event, "g");
	assert_int_equal(p->alt[1].ncond, 2);
	assert_string_equal(p->alt[2].event, "i");
	assert_int_equal(p->alt[2].col, 81);
	probe_list_free(&pl);

	/* a single stop keeps no alternatives */
	p = parse_ok(&pl, "span s = tp:a:b -> tp:c:d");
	assert_int_equal(p->nalt, 0);
	assert_null(p->alt);
	probe_list_free(&pl);

	parse_bad("span s = tp:a:b -> tp:c:d |",
		  "-e:1:27: found '|', expected a stop after '|' (an "
		  "alternative stop: tracepoint:CAT:EVENT, "
		  "usdt:PATH[:PROVIDER]:NAME, uprobe:PATH:FUNC or "
		  "uretprobe:PATH:FUNC)");
	parse_bad("span s = tp:a:b -> tp:c:d | | tp:e:f",
		  "-e:1:27: found '|', expected a stop after '|' (an "
		  "alternative stop: tracepoint:CAT:EVENT, "
		  "usdt:PATH[:PROVIDER]:NAME, uprobe:PATH:FUNC or "
		  "uretprobe:PATH:FUNC)");
	parse_bad("span s = tp:a:b -> tp:c:d | name arg0",
		  "-e:1:27: found '|', expected a stop after '|' (an "
		  "alternative stop: tracepoint:CAT:EVENT, "
		  "usdt:PATH[:PROVIDER]:NAME, uprobe:PATH:FUNC or "
		  "uretprobe:PATH:FUNC)");
	parse_bad("span s = tp:a:b -> tp:c:d | tp:e:f | tp:g:h | tp:i:j | "
		  "tp:k:l",
		  "-e:1:54: found '|', expected at most 4 stops in a span");
	parse_bad("span s = tp:a:b -> tp:c:d | kprobe:x",
		  "-e:1:29: a kernel function is no span side here: its entry "
		  "and return are a timer of their own (func:NAME); a span's "
		  "sides are tracepoint:CAT:EVENT, usdt:PATH[:PROVIDER]:NAME, "
		  "uprobe:PATH:FUNC or uretprobe:PATH:FUNC");
	parse_bad("span s = tp:a:b -> tp:c:d | tp:e:f key x",
		  "-e:1:36: key applies to spans of one stop: a keyed span's "
		  "stop takes its key from its own tracepoint");
	/* the first stop is still required */
	parse_bad("span s = tp:a:b -> | tp:e:f",
		  "-e:1:20: found '|', expected a tracepoint "
		  "(tracepoint:CAT:EVENT or tp:CAT:EVENT)");
}

/* Keyed spans: the examples, fields and columns. */
static void test_span_key(void **state)
{
	struct probe_list pl = {0};
	const struct probe *p;

	p = parse_ok(&pl, "span bio = tracepoint:block:block_rq_issue -> "
			  "tracepoint:block:block_rq_complete key dev,sector");
	assert_int_equal(p->kind, PROBE_SPAN);
	assert_string_equal(p->stop.event, "block_rq_complete");
	assert_int_equal(p->nkey, 2);
	assert_string_equal(p->key[0].start, "dev");
	assert_string_equal(p->key[0].stop, "dev");
	assert_int_equal(p->key[0].col, 86);
	assert_int_equal(p->key[0].stop_col, 86);
	assert_string_equal(p->key[1].start, "sector");
	assert_string_equal(p->key[1].stop, "sector");
	assert_int_equal(p->key[1].col, 90);
	assert_int_equal(p->key[1].stop_col, 90);
	probe_list_free(&pl);

	p = parse_ok(&pl, "span wq = tracepoint:workqueue:workqueue_queue_work "
			  "-> tracepoint:workqueue:workqueue_execute_start key "
			  "work");
	assert_int_equal(p->nkey, 1);
	assert_string_equal(p->key[0].start, "work");
	assert_string_equal(p->key[0].stop, "work");
	assert_int_equal(p->key[0].col, 105);
	probe_list_free(&pl);

	p = parse_ok(&pl, "span runq = tracepoint:sched:sched_wakeup -> "
			  "tracepoint:sched:sched_switch key pid=next_pid");
	assert_int_equal(p->nkey, 1);
	assert_string_equal(p->key[0].start, "pid");
	assert_string_equal(p->key[0].stop, "next_pid");
	assert_int_equal(p->key[0].col, 80);
	assert_int_equal(p->key[0].stop_col, 84);
	probe_list_free(&pl);

	p = parse_ok(&pl, "span forkexec = tracepoint:sched:sched_process_fork "
			  "-> tracepoint:sched:sched_process_exec key "
			  "child_pid=pid");
	assert_int_equal(p->nkey, 1);
	assert_string_equal(p->key[0].start, "child_pid");
	assert_string_equal(p->key[0].stop, "pid");
	assert_int_equal(p->key[0].col, 96);
	assert_int_equal(p->key[0].stop_col, 106);
	probe_list_free(&pl);

	/* conditions on both sides, blanks around ',' and '=', the
	 * largest key, a comment after it */
	p = parse_ok(&pl, "span s = tp:a:b if x == 1 -> tp:c:d if y != 2 && "
			  "z & 4 key a , b= c,d =d,e_2 # four");
	assert_int_equal(p->start.ncond, 1);
	assert_int_equal(p->stop.ncond, 2);
	assert_int_equal(p->nkey, IPROF_MAX_KEY);
	assert_string_equal(p->key[0].start, "a");
	assert_string_equal(p->key[0].stop, "a");
	assert_string_equal(p->key[1].start, "b");
	assert_string_equal(p->key[1].stop, "c");
	assert_int_equal(p->key[1].col, 64);
	assert_int_equal(p->key[1].stop_col, 67);
	assert_string_equal(p->key[2].start, "d");
	assert_string_equal(p->key[2].stop, "d");
	assert_int_equal(p->key[2].col, 69);
	assert_int_equal(p->key[2].stop_col, 72);
	assert_string_equal(p->key[3].start, "e_2");
	assert_string_equal(p->key[3].stop, "e_2");
	probe_list_free(&pl);

	/* not keyed: nkey 0 */
	p = parse_ok(&pl, "span s = tp:a:b -> tp:c:d");
	assert_int_equal(p->nkey, 0);
	probe_list_free(&pl);
}

static void test_err_key(void **state)
{
#define KEYF "a key field (a field of the start's tracepoint, or pid, tid, cpu)"
	parse_bad("span X = tp:a:b -> tp:c:d key",
		  "-e:1:30: found end of line, expected " KEYF);
	parse_bad("span X = tp:a:b -> tp:c:d key # c",
		  "-e:1:31: found end of line, expected " KEYF);
	parse_bad("span X = tp:a:b -> tp:c:d key dev,",
		  "-e:1:35: found end of line, expected " KEYF);
	parse_bad("span X = tp:a:b -> tp:c:d key dev,,x",
		  "-e:1:35: found ',', expected " KEYF);
	parse_bad("span X = tp:a:b -> tp:c:d key 1dev",
		  "-e:1:31: found '1dev', expected " KEYF);
	parse_bad("span X = tp:a:b -> tp:c:d key dev=",
		  "-e:1:35: found end of line, expected a field of the stop's "
		  "tracepoint after '=' (or pid, tid, cpu)");
	parse_bad("span X = tp:a:b -> tp:c:d key a,b,c,d,e",
		  "-e:1:38: found ',', expected at most 4 fields in a key");
	parse_bad("span X = tp:a:b -> tp:c:d key dev,sector,dev",
		  "-e:1:42: found 'dev', expected a field not already in the "
		  "key");
	parse_bad("span X = tp:a:b -> tp:c:d key a=x,b=x",
		  "-e:1:37: found 'x', expected a stop field not already in "
		  "the key");
	parse_bad("span X = tp:a:b -> tp:c:d key dev sector",
		  "-e:1:35: found 'sector', expected ',' or end of line");
	parse_bad("span X = tp:a:b -> tp:c:d key dev if x == 1",
		  "-e:1:35: found 'if', expected ',' or end of line");
	parse_bad("span X = tp:a:b key dev -> tp:c:d",
		  "-e:1:17: found 'key', expected '->' and the stop before "
		  "'key' (the key ends the line)");
	parse_bad("span X = tp:a:b -> tp:c:d keys dev",
		  "-e:1:27: found 'keys', expected 'if', '|', 'key' or end of "
		  "line");
	/* not a span: the column of `key` */
	parse_bad("fentry:vfs_read key fd",
		  "-e:1:17: key applies to spans only: a function timer's "
		  "entry and return match on their thread");
	parse_bad("func:vfs_read as r if fd == 1 key fd",
		  "-e:1:31: key applies to spans only: a function timer's "
		  "entry and return match on their thread");
	parse_bad("uprobe:/bin/true:main key pid",
		  "-e:1:23: key applies to spans only: a function timer's "
		  "entry and return match on their thread");
#undef KEYF
}

static void test_blank_and_comments(void **state)
{
	static const char *const lines[] = {
		"",
		"   ",
		"\t \t",
		"# comment",
		"   # indented comment",
		"#fentry:not_a_probe",
	};
	struct probe_list pl = {0};
	const struct probe *p;
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(parse(&pl, lines[i]), 0);
		assert_int_equal(pl.n, 0);
	}

	p = parse_ok(&pl, "fentry:vfs_read # as not_a_name");
	assert_string_equal(p->name, "vfs_read");
	probe_list_free(&pl);

	p = parse_ok(&pl, "fentry:vfs_read#no blank before");
	assert_string_equal(p->name, "vfs_read");
	probe_list_free(&pl);

	p = parse_ok(&pl, "fentry:f if x == 0x10# comment");
	assert_int_equal(p->start.cond[0].value, 0x10);
	probe_list_free(&pl);
}

static void test_origin_and_lineno(void **state)
{
	struct probe_list pl = {0};

	assert_int_equal(probe_parse_line(&pl, "fentry:a", "-e", 1, g_err,
					  sizeof(g_err)),
			 0);
	assert_int_equal(probe_parse_line(&pl, "fentry:b", "-e", 2, g_err,
					  sizeof(g_err)),
			 0);
	assert_int_equal(pl.n, 2);
	assert_string_equal(pl.v[1].file, "-e");
	assert_int_equal(pl.v[1].line, 2);

	assert_int_equal(probe_parse_line(&pl, "fentry:b(", "x.conf", 7, g_err,
					  sizeof(g_err)),
			 -EINVAL);
	assert_string_equal(g_err, "x.conf:7:9: found '(', expected 'as', "
				   "'if' or end of line");
	assert_int_equal(pl.n, 2);

	/* a NULL error buffer is allowed */
	assert_int_equal(probe_parse_line(&pl, "bogus", "-e", 3, NULL, 0),
			 -EINVAL);
	probe_list_free(&pl);
	assert_int_equal(pl.n, 0);
	assert_null(pl.v);
	probe_list_free(&pl);
	probe_list_free(NULL);
}

static void test_kind_str(void **state)
{
	assert_string_equal(probe_kind_str(PROBE_FENTRY), "fentry");
	assert_string_equal(probe_kind_str(PROBE_KPROBE), "kprobe");
	assert_string_equal(probe_kind_str(PROBE_FUNC), "func");
	assert_string_equal(probe_kind_str(PROBE_UPROBE), "uprobe");
	assert_string_equal(probe_kind_str(PROBE_SPAN), "span");
	assert_string_equal(probe_kind_str((enum probe_kind)99), "unknown");
	assert_string_equal(probe_op_str(IPROF_OP_EQ), "==");
	assert_string_equal(probe_op_str(IPROF_OP_AND), "&");
	assert_string_equal(probe_op_str((enum iprof_cond_op)99), "?");
}

/* ---- syntax errors ------------------------------------------------------- */

#define KINDS "a probe kind (fentry:, kprobe:, func:, uprobe:, span, include)"
#define OPS "an operator (== != < <= > >= &)"
#define NUM "a number (decimal or 0x hex)"
#define FIT "a number that fits in 64 bits"
#define FIELD "a condition field (a tracepoint field name or argN)"
#define TP "a tracepoint (tracepoint:CAT:EVENT or tp:CAT:EVENT)"

static void test_err_kind(void **state)
{
	/* a kind misspelled: the kinds near it (ksym_suggest()) */
	parse_bad("fentri:foo", "-e:1:1: found 'fentri:', expected " KINDS
				"; did you mean fentry:?");
	parse_bad("  uprob:/bin/true:main", "-e:1:3: found 'uprob:', expected "
		  KINDS "; did you mean uprobe: or kprobe:?");
	parse_bad("syscall:read", "-e:1:1: found 'syscall:', expected " KINDS);
	parse_bad("  FENTRY:foo", "-e:1:3: found 'FENTRY:', expected " KINDS);
	parse_bad("vfs_read", "-e:1:1: found 'vfs_read', expected " KINDS);
	parse_bad(":foo", "-e:1:1: found ':foo', expected " KINDS);
	parse_bad("Span x = tp:a:b -> tp:c:d",
		  "-e:1:1: found 'Span', expected " KINDS);
	parse_bad("span:x", "-e:1:1: found 'span:', expected " KINDS);
	parse_bad("== 1", "-e:1:1: found '==', expected " KINDS);
	/* a point alone (a newcomer's usdt:LIB:libstdcxx:throw): says
	 * where it goes */
	parse_bad("usdt:/lib/libstdc++.so.6:libstdcxx:throw",
		  "-e:1:1: found 'usdt:', expected " KINDS
		  "; a USDT probe or tracepoint marks a point, not a call: "
		  "time between two with 'span NAME = START -> STOP' "
		  "(doc/probes.md)");
	parse_bad("tp:syscalls:sys_enter_read",
		  "-e:1:1: found 'tp:', expected " KINDS
		  "; a USDT probe or tracepoint marks a point, not a call: "
		  "time between two with 'span NAME = START -> STOP' "
		  "(doc/probes.md)");
}

static void test_err_function(void **state)
{
	parse_bad("fentry:", "-e:1:8: found end of line, expected a function "
			     "name");
	parse_bad("kprobe:9foo", "-e:1:8: found '9foo', expected a function "
				 "name");
	parse_bad("func:.isra", "-e:1:6: found '.isra', expected a function "
				"name");
	parse_bad("fentry:foo bar", "-e:1:12: found 'bar', expected 'as', "
				    "'if' or end of line");
	parse_bad("fentry:foo(x)", "-e:1:11: found '(x)', expected 'as', "
				   "'if' or end of line");
	parse_bad("fentry:foo AS bar", "-e:1:12: found 'AS', expected 'as', "
				       "'if' or end of line");
	parse_bad("fentry:foo IF x == 1", "-e:1:12: found 'IF', expected "
					  "'as', 'if' or end of line");
	parse_bad("fentry:foo as", "-e:1:14: found end of line, expected a "
				   "timer name after 'as'");
	parse_bad("fentry:foo as # c", "-e:1:15: found end of line, expected "
				       "a timer name after 'as'");
	parse_bad("fentry:foo as bar baz", "-e:1:19: found 'baz', expected "
					   "'if' or end of line");
	parse_bad("fentry:foo as b*r", "-e:1:16: found '*r', expected 'if' "
				       "or end of line");
}

static void test_err_uprobe(void **state)
{
	parse_bad("uprobe:", "-e:1:8: found end of line, expected a binary "
			     "path (uprobe:PATH:FUNC)");
	parse_bad("uprobe:/bin/foo", "-e:1:8: found '/bin/foo', expected "
				     "PATH:FUNC (a binary path, ':' and a "
				     "function name)");
	parse_bad("uprobe::foo", "-e:1:8: found ':foo', expected a binary "
				 "path (uprobe:PATH:FUNC)");
	parse_bad("uprobe:/bin/foo:", "-e:1:17: found end of line, expected "
				      "a function name");
	parse_bad("uprobe:./p:f(int", "-e:1:12: found 'f(int', expected a "
				     "function name");
	parse_bad("uprobe:/bin/foo:1x", "-e:1:17: found '1x', expected a "
					"function name");
	parse_bad("uprobe:./p:\"operator<<", "-e:1:12: found '\"operator', "
					     "expected a function name and a "
					     "closing '\"'");
	parse_bad("uprobe:./p:\"\"", "-e:1:13: found '\"', expected a "
				     "function name");
	parse_bad("uprobe::\"f\"", "-e:1:8: found ':\"f\"', expected a "
				  "binary path (uprobe:PATH:FUNC)");
	parse_bad("uprobe:\"/a b", "-e:1:8: found '\"/a', expected a binary "
				    "path and a closing '\"'");
	parse_bad("uprobe:\"\":f", "-e:1:9: found '\":f', expected a binary "
				    "path (uprobe:PATH:FUNC)");
	parse_bad("uprobe:\"/a b\"f", "-e:1:14: found 'f', expected ':' and a "
				      "function name after the path");
	parse_bad("uprobe:\"/a b\":", "-e:1:15: found end of line, expected "
				      "a function name");
	parse_bad("uprobe:\"/a b\":\"f", "-e:1:15: found '\"f', expected a "
					"function name and a closing '\"'");
}

static void test_err_cond(void **state)
{
	parse_bad("fentry:foo if", "-e:1:14: found end of line, expected "
				   "" FIELD);
	parse_bad("fentry:foo if 5 == x", "-e:1:15: found '5', expected "
					  "" FIELD);
	parse_bad("fentry:foo if cmd = 1", "-e:1:19: found '=', expected "
					   "" OPS);
	parse_bad("fentry:foo if cmd => 1", "-e:1:19: found '=>', expected "
					    "" OPS);
	parse_bad("fentry:foo if cmd && 1", "-e:1:19: found '&&', expected "
					    "" OPS);
	parse_bad("fentry:foo if cmd 1", "-e:1:19: found '1', expected " OPS);
	parse_bad("fentry:foo if cmd", "-e:1:18: found end of line, expected "
				       "" OPS);
	parse_bad("fentry:foo if cmd ==", "-e:1:21: found end of line, "
					  "expected " NUM);
	parse_bad("fentry:foo if cmd == abc", "-e:1:22: found 'abc', "
					      "expected " NUM);
	parse_bad("fentry:foo if cmd == 0x", "-e:1:22: found '0x', expected "
					     "" NUM);
	parse_bad("fentry:foo if cmd == 0xg1", "-e:1:22: found '0xg1', "
					       "expected " NUM);
	parse_bad("fentry:foo if cmd == 12ab", "-e:1:22: found '12ab', "
					       "expected " NUM);
	parse_bad("fentry:foo if cmd == -0x10", "-e:1:22: found '-0x10', "
						"expected " NUM);
	parse_bad("fentry:foo if cmd == -", "-e:1:22: found '-', expected "
					    "" NUM);
	parse_bad("fentry:foo if arg12 == 1", "-e:1:15: found 'arg12', "
					      "expected argN with N from 0 "
					      "to 11");
	parse_bad("fentry:foo if arg01 == 1", "-e:1:15: found 'arg01', "
					      "expected argN with N from 0 "
					      "to 11");
	parse_bad("fentry:foo if x == 1 y == 2", "-e:1:22: found 'y', "
						 "expected '&&' or end of "
						 "line");
	parse_bad("fentry:foo if x == 1 as y", "-e:1:22: found 'as', "
					       "expected '&&' or end of line");
	parse_bad("fentry:foo if x == 1 &&", "-e:1:24: found end of line, "
					     "expected " FIELD);
}

#define TYPE "a type right after ':' (s8 u8 s16 u16 s32 u32 s64 u64)"

static void test_err_type(void **state)
{
	parse_bad("fentry:f if arg0:int == 1",
		  "-e:1:18: found 'int', expected " TYPE);
	parse_bad("fentry:f if arg0:s33 == 1",
		  "-e:1:18: found 's33', expected " TYPE);
	parse_bad("fentry:f if arg0:S32 == 1",
		  "-e:1:18: found 'S32', expected " TYPE);
	parse_bad("fentry:f if arg0:u32x == 1",
		  "-e:1:18: found 'u32x', expected " TYPE);
	parse_bad("fentry:f if arg0:", "-e:1:18: found end of line, expected "
				       "" TYPE);
	parse_bad("fentry:f if arg0:==1", "-e:1:18: found '==', expected "
					  "" TYPE);
	parse_bad("span s = tp:a:b if fd:32 == 1 -> tp:c:d",
		  "-e:1:23: found '32', expected " TYPE);
	parse_bad("fentry:f if arg0:s32:s32 == 1",
		  "-e:1:21: found ':s32', expected " OPS);
	parse_bad("fentry:f if arg0 :s32 == 1",
		  "-e:1:18: found ':s32', expected " OPS);
}

/* Bytes outside printable ASCII are quoted as \xNN in messages; one
 * past ASCII where a name stopped says how to write such a name. */
#define PATH_HINT " (a path with ':' or blanks goes in double quotes: uprobe:\"/a b/c:d\":FUNC)"
#define QUOTE_HINT " (a name with bytes other than ASCII letters, digits, '_' and '.' goes in double quotes: \"NAME\")"
static void test_err_escaped(void **state)
{
	char line[256], want[1024];

	parse_bad("fentry:foo \xff\xfe", "-e:1:12: found '\\xff\\xfe', "
					 "expected 'as', 'if' or end of line" QUOTE_HINT);
	parse_bad("fentry:foo as b\xc3\xa9", "-e:1:16: found '\\xc3\\xa9', "
					    "expected 'if' or end of line" QUOTE_HINT);
	parse_bad("fentry:foo \x01", "-e:1:12: found '\\x01', expected "
				    "'as', 'if' or end of line");
	parse_bad("fentry:foo if x == 1\x7f", "-e:1:21: found '\\x7f', "
					     "expected '&&' or end of line");
	/* a path cut by a ':' or a blank: how to quote it (newcomer trial
	 * 5); a typo after a path is no cut */
	parse_bad("uprobe:/tmp/we:ird/s l:slp",
		  "-e:1:19: found '/s', expected 'as', 'if' or end of line" PATH_HINT);
	parse_bad("uprobe:/bin/true:main iff x",
		  "-e:1:23: found 'iff', expected 'as', 'if' or end of line");
	/* a long token: 74 source bytes shown, escaped */
	memset(line, 0xff, sizeof(line));
	memcpy(line, "fentry:f ", 9);
	line[sizeof(line) - 1] = '\0';
	snprintf(want, sizeof(want), "-e:1:10: found '");
	for (int i = 0; i < 74; i++)
		strcat(want, "\\xff");
	strcat(want, "...', expected 'as', 'if' or end of line" QUOTE_HINT);
	parse_bad(line, want);
}

static void test_err_overflow(void **state)
{
	parse_bad("fentry:foo if x == 18446744073709551616",
		  "-e:1:20: found '18446744073709551616', expected " FIT);
	parse_bad("fentry:foo if x == 99999999999999999999999",
		  "-e:1:20: found '99999999999999999999999', expected " FIT);
	parse_bad("fentry:foo if x == 0x10000000000000000",
		  "-e:1:20: found '0x10000000000000000', expected " FIT);
	parse_bad("fentry:foo if x == -9223372036854775809",
		  "-e:1:20: found '-9223372036854775809', expected " FIT);
}

static void test_err_too_many_conds(void **state)
{
	parse_bad("fentry:x if a == 1 && b < 2 && c > 3 && d & 4 && e >= 5",
		  "-e:1:47: found '&&', expected at most 4 comparisons in a "
		  "condition");
	parse_bad("span s = tp:a:b -> tp:c:d if a==1&&b==2&&c==3&&d==4&&e==5",
		  "-e:1:52: found '&&', expected at most 4 comparisons in a "
		  "condition");
}

static void test_err_span(void **state)
{
	parse_bad("span", "-e:1:5: found end of line, expected a span name");
	parse_bad("span = tp:a:b -> tp:c:d", "-e:1:6: found '=', expected a "
					     "span name");
	parse_bad("span X tp:a:b -> tp:c:d", "-e:1:8: found 'tp:a:b', "
					     "expected '=' after the span "
					     "name");
	parse_bad("span X = sched:foo -> tp:c:d",
		  "-e:1:10: found 'sched:foo', expected " TP);
	parse_bad("span X = tp:a:b ->", "-e:1:19: found end of line, "
					"expected " TP);
	parse_bad("span X = tp::foo -> tp:c:d", "-e:1:13: found ':foo', "
						"expected a tracepoint "
						"category");
	parse_bad("span X = tracepoint:sched -> tp:c:d",
		  "-e:1:27: found '->', expected ':' between tracepoint "
		  "category and event");
	parse_bad("span X = tp:a: -> tp:c:d", "-e:1:16: found '->', expected "
					      "a tracepoint event name");
	parse_bad("span X = tp:a:b tp:c:d", "-e:1:17: found 'tp:c:d', "
					    "expected 'if' or '->' between "
					    "span start and stop");
	parse_bad("span X = tp:a:b if x == 1 tp:c:d",
		  "-e:1:27: found 'tp:c:d', expected '&&' or '->' between "
		  "span start and stop");
	parse_bad("span X = tp:a:b => tp:c:d", "-e:1:17: found '=>', expected "
					       "'if' or '->' between span "
					       "start and stop");
	parse_bad("span X = tp:a:b -> tp:c:d extra", "-e:1:27: found 'extra', "
						     "expected 'if', '|', 'key' "
						     "or end of line");
	parse_bad("span X = tp:a:b -> tp:c:d if y == 2 z",
		  "-e:1:37: found 'z', expected '&&', '|', 'key' or end of "
		  "line");
	parse_bad("span X = tp:a:b as y -> tp:c:d", "-e:1:17: found 'as', "
						    "expected 'if' or '->' "
						    "between span start and "
						    "stop");
}

static void test_err_include_syntax(void **state)
{
	parse_bad("include", "-e:1:8: found end of line, expected a file "
			     "name");
	parse_bad("include # c", "-e:1:9: found end of line, expected a file "
				 "name");
	parse_bad("include \"abc", "-e:1:13: found end of line, expected '\"' "
				   "closing the file name");
	parse_bad("include \"\"", "-e:1:9: found '\"\"', expected a file name");
	parse_bad("include a b", "-e:1:11: found 'b', expected end of line "
				 "after the file name (quote a name that "
				 "contains spaces)");
	parse_bad("Include a", "-e:1:1: found 'Include', expected " KINDS);
}

static void test_err_long_token(void **state)
{
	char line[256], want[512];

	memset(line, 'x', sizeof(line));
	memcpy(line, "fentry:f ", 9);
	line[sizeof(line) - 1] = '\0';
	snprintf(want, sizeof(want),
		 "-e:1:10: found '%.74s...', expected 'as', 'if' or end of "
		 "line",
		 line + 9);
	parse_bad(line, want);
}

/* ---- files and include --------------------------------------------------- */

static void test_file_include(void **state)
{
	struct probe_list pl = {0};
	char sub_inc[PATH_MAX], leaf[PATH_MAX], main_conf[PATH_MAX];
	int ret;

	snprintf(main_conf, sizeof(main_conf), "%s", data("main.conf"));
	snprintf(sub_inc, sizeof(sub_inc), "%s", data("sub/inc.conf"));
	snprintf(leaf, sizeof(leaf), "%s", data("sub/leaf.conf"));

	ret = probe_parse_file(&pl, main_conf, g_err, sizeof(g_err));
	if (ret)
		print_error("%s\n", g_err);
	assert_int_equal(ret, 0);
	assert_int_equal(pl.n, 4);

	assert_string_equal(pl.v[0].name, "vfs_read");
	assert_int_equal(pl.v[0].kind, PROBE_FENTRY);
	assert_string_equal(pl.v[0].file, main_conf);
	assert_int_equal(pl.v[0].line, 3);

	/* sub/inc.conf, relative to main.conf's directory */
	assert_string_equal(pl.v[1].name, "write");
	assert_int_equal(pl.v[1].kind, PROBE_KPROBE);
	assert_string_equal(pl.v[1].file, sub_inc);
	assert_int_equal(pl.v[1].line, 2);

	/* leaf.conf, relative to sub/inc.conf's directory */
	assert_string_equal(pl.v[2].name, "parse");
	assert_int_equal(pl.v[2].kind, PROBE_UPROBE);
	assert_string_equal(pl.v[2].file, leaf);
	assert_int_equal(pl.v[2].line, 1);
	assert_int_equal(pl.v[2].start.ncond, 1);
	assert_int_equal(pl.v[2].start.cond[0].arg, 0);

	assert_string_equal(pl.v[3].name, "KVM_RUN");
	assert_int_equal(pl.v[3].kind, PROBE_SPAN);
	assert_string_equal(pl.v[3].file, main_conf);
	assert_int_equal(pl.v[3].line, 6);

	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), 0);
	probe_list_free(&pl);
}

static void test_file_crlf_and_no_newline(void **state)
{
	struct probe_list pl = {0};

	assert_int_equal(
		probe_parse_file(&pl, data("crlf.conf"), g_err, sizeof(g_err)),
		0);
	assert_int_equal(
		probe_parse_file(&pl, data("nonl.conf"), g_err, sizeof(g_err)),
		0);
	assert_int_equal(pl.n, 3);
	assert_string_equal(pl.v[0].name, "crlf_a");
	assert_string_equal(pl.v[1].name, "crlf_b");
	assert_int_equal(pl.v[1].start.cond[0].value, 7);
	assert_int_equal(pl.v[1].line, 2);
	assert_string_equal(pl.v[2].name, "no_newline_at_end");
	probe_list_free(&pl);
}

/* a UTF-8 byte order mark before the first line is no part of it */
static void test_file_bom(void **state)
{
	struct probe_list pl = {0};

	(void)state;
	assert_int_equal(
		probe_parse_file(&pl, data("bom.conf"), g_err, sizeof(g_err)),
		0);
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].name, "bom_first");
	assert_int_equal(pl.v[0].line, 2);
	assert_int_equal(pl.v[0].start.cond[0].value, 3);
	probe_list_free(&pl);
}

static void test_line_include_relative_to_origin(void **state)
{
	struct probe_list pl = {0};
	char origin[PATH_MAX];

	/* a line of a file: relative to that file's directory */
	snprintf(origin, sizeof(origin), "%s", data("sub/virtual.conf"));
	assert_int_equal(probe_parse_line(&pl, "include leaf.conf", origin, 4,
					  g_err, sizeof(g_err)),
			 0);
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].name, "parse");
	assert_string_equal(pl.v[0].file, data("sub/leaf.conf"));
	probe_list_free(&pl);
}

static void test_err_missing_top(void **state)
{
	struct probe_list pl = {0};
	char want[PATH_MAX + 64];
	const char *path = data("does-not-exist.conf");

	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 0);

	/* a directory */
	path = data("sub");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EISDIR);
	snprintf(want, sizeof(want), "%s: Is a directory", path);
	assert_string_equal(g_err, want);
	probe_list_free(&pl);
}

static void test_err_missing_include(void **state)
{
	struct probe_list pl = {0};
	char want[2 * PATH_MAX];

	assert_int_equal(probe_parse_file(&pl, data("missing.conf"), g_err,
					  sizeof(g_err)),
			 -ENOENT);
	snprintf(want, sizeof(want),
		 "%s:3:11: cannot open '%s': No such file or directory",
		 data("missing.conf"), data("nope.conf"));
	assert_string_equal(g_err, want);
	/* probes before the error stay */
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].name, "before_missing");
	probe_list_free(&pl);

	/* from -e: relative to the current directory */
	assert_int_equal(parse(&pl, "include \"no such dir/x.conf\""), -ENOENT);
	assert_string_equal(g_err, "-e:1:9: cannot open 'no such dir/x.conf': "
				   "No such file or directory");
	probe_list_free(&pl);
}

static void test_err_include_cycle(void **state)
{
	struct probe_list pl = {0};
	char want[2 * PATH_MAX];

	assert_int_equal(probe_parse_file(&pl, data("cycle_a.conf"), g_err,
					  sizeof(g_err)),
			 -ELOOP);
	snprintf(want, sizeof(want),
		 "%s:2:9: include cycle: '%s' is already being read",
		 data("cycle_b.conf"), data("cycle_a.conf"));
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 2);
	probe_list_free(&pl);

	assert_int_equal(
		probe_parse_file(&pl, data("self.conf"), g_err, sizeof(g_err)),
		-ELOOP);
	snprintf(want, sizeof(want),
		 "%s:1:9: include cycle: '%s' is already being read",
		 data("self.conf"), data("self.conf"));
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 0);
	probe_list_free(&pl);
}

static void test_err_in_included_file(void **state)
{
	struct probe_list pl = {0};
	char want[2 * PATH_MAX];

	assert_int_equal(probe_parse_file(&pl, data("inc_bad.conf"), g_err,
					  sizeof(g_err)),
			 -EINVAL);
	/* the message names the included file and its line */
	snprintf(want, sizeof(want),
		 "%s:2:47: found '&&', expected at most 4 comparisons in a "
		 "condition",
		 data("bad.conf"));
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].name, "ok_before_bad");
	probe_list_free(&pl);
}

/* Temporary directory for tests that write their own files. */
static char g_tmp[] = "/tmp/iprof-test-probe-XXXXXX";

static void rm_tmp(void)
{
	char cmd[sizeof(g_tmp) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	assert_int_equal(system(cmd), 0);
}

/*
 * Gathering (probe_list.max_errors): every bad line of a file said in one
 * parse, each with its line and a caret; the good lines kept; an include
 * that cannot be read is one error, errors inside an included file are
 * said at their own lines; past the bound only counted.  (The parse used
 * to stop at the first bad line: a newcomer fixed a file in 4 rounds.)
 */
static void test_gather_errors(void **state)
{
	struct probe_list pl = {.max_errors = 20};
	char path[PATH_MAX], inc[PATH_MAX];
	static char out[8192], want[16 * PATH_MAX];

	snprintf(inc, sizeof(inc), "%s/gi.conf", g_tmp);
	write_file(inc, "fentry:in_inc\nfentry in_bad\n");
	snprintf(path, sizeof(path), "%s/gather.conf", g_tmp);
	write_file(path, "fentry:a\n"
			 "kprobe vfs_read\n"
			 "fentri:b\n"
			 "fentry:c\n"
			 "include gi.conf\n"
			 "include nope.conf\n"
			 "\tspan s = tp:x:y -> # \xc3\xa9\n"
			 "fentry:a\n");
	assert_int_equal(probe_parse_file(&pl, path, out, sizeof(out)),
			 -EINVAL);
	snprintf(want, sizeof(want),
		 "%1$s:2:7: missing ':' after 'kprobe' (kprobe:FUNCTION)\n"
		 "  kprobe vfs_read\n"
		 "        ^\n"
		 "%1$s:3:1: found 'fentri:', expected a probe kind (fentry:, "
		 "kprobe:, func:, uprobe:, span, include); did you mean "
		 "fentry:?\n"
		 "  fentri:b\n"
		 "  ^\n"
		 "%2$s:2:7: missing ':' after 'fentry' (fentry:FUNCTION)\n"
		 "  fentry in_bad\n"
		 "        ^\n"
		 "%1$s:6:9: cannot open '%3$s/nope.conf': No such file or "
		 "directory\n"
		 "  include nope.conf\n"
		 "          ^\n"
		 "%1$s:7:21: found end of line, expected a tracepoint "
		 "(tracepoint:CAT:EVENT or tp:CAT:EVENT)\n"
		 "  ?span s = tp:x:y -> # \xc3\xa9\n"
		 "                      ^\n",
		 path, inc, g_tmp);
	assert_string_equal(out, want);
	assert_int_equal(pl.nerrors, 5);
	assert_int_equal(pl.n, 4); /* a, c, in_inc, a */
	assert_string_equal(pl.v[2].name, "in_inc");

	/* the duplicate: each second use, one line */
	assert_int_equal(probe_list_check(&pl, out, sizeof(out)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:8:8: timer 'a' already defined at %s:1\n", path, path);
	assert_string_equal(out, want);
	assert_int_equal(pl.nerrors, 6);
	probe_list_free(&pl);

	/* past the bound: counted, not said; -e lines alike */
	pl = (struct probe_list){.max_errors = 2};
	assert_int_equal(probe_parse_line(&pl, "x", "-e", 1, out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(probe_parse_line(&pl, "fentry:", "-e", 2, out,
					  sizeof(out)),
			 -EINVAL);
	assert_string_equal(out, "-e:2:8: found end of line, expected a "
				 "function name\n"
				 "  fentry:\n"
				 "         ^\n");
	assert_int_equal(probe_parse_line(&pl, "y", "-e", 3, out, sizeof(out)),
			 -EINVAL);
	assert_string_equal(out, "");
	assert_int_equal(pl.nerrors, 3);
	probe_list_free(&pl);
}

/* probe_show_line(): a long line is cut around the column */
static void test_show_line(void **state)
{
	char line[301], buf[256], want[256];

	memset(line, 'a', 300);
	line[300] = '\0';
	line[199] = 'X';
	assert_int_equal(probe_show_line(buf, sizeof(buf), line, 200), 0);
	snprintf(want, sizeof(want), "  ...%.*sX%.*s...\n  %*s^\n", 50,
		 line, 49, line, 53, "");
	assert_string_equal(buf, want);
	assert_int_equal(probe_show_line(buf, sizeof(buf), "ab", 4), -EINVAL);
	assert_int_equal(probe_show_line(buf, sizeof(buf), "ab", 3), 0);
	assert_string_equal(buf, "  ab\n    ^\n");
}

static void test_include_quoted_and_cwd(void **state)
{
	struct probe_list pl = {0};
	char path[PATH_MAX], inc[PATH_MAX], cwd[PATH_MAX];

	snprintf(path, sizeof(path), "%s/my probes.conf", g_tmp);
	write_file(path, "fentry:spaced # in a file with a space\n");
	snprintf(path, sizeof(path), "%s/empty.conf", g_tmp);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/top.conf", g_tmp);
	write_file(path, "include \"my probes.conf\"  # quoted\n"
			 "include\t\"empty.conf\"\n");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)), 0);
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].name, "spaced");
	snprintf(inc, sizeof(inc), "%s/my probes.conf", g_tmp);
	assert_string_equal(pl.v[0].file, inc);
	probe_list_free(&pl);

	/* an -e include is relative to the current directory */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(g_tmp), 0);
	assert_int_equal(parse(&pl, "include top.conf"), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].file, "my probes.conf");
	probe_list_free(&pl);
}

/* Write @n bytes of @c to @path, then @tail. */
static void write_fill(const char *path, size_t n, char c, const char *tail)
{
	FILE *f = fopen(path, "w");
	size_t i;

	assert_non_null(f);
	for (i = 0; i < n; i++)
		assert_int_not_equal(putc(c, f), EOF);
	assert_int_equal(fputs(tail, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* -P /dev/zero used to grow a line buffer until the OOM killer came. */
static void test_err_not_regular(void **state)
{
	struct probe_list pl = {0};
	char path[PATH_MAX], want[2 * PATH_MAX];

	/* /dev/null first: without the check it is read as empty, where
	 * /dev/zero would exhaust memory */
	assert_int_equal(probe_parse_file(&pl, "/dev/null", g_err,
					  sizeof(g_err)),
			 -EINVAL);
	assert_string_equal(g_err, "/dev/null: not a regular file");
	assert_int_equal(probe_parse_file(&pl, "/dev/zero", g_err,
					  sizeof(g_err)),
			 -EINVAL);
	assert_string_equal(g_err, "/dev/zero: not a regular file");

	snprintf(path, sizeof(path), "%s/zero.conf", g_tmp);
	write_file(path, "fentry:before_zero\ninclude /dev/zero\n");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:2:9: cannot open '/dev/zero': not a regular file", path);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 1);
	probe_list_free(&pl);

	assert_int_equal(parse(&pl, "include /dev/zero"), -EINVAL);
	assert_string_equal(g_err, "-e:1:9: cannot open '/dev/zero': not a "
				   "regular file");
	probe_list_free(&pl);
}

static void test_err_file_size(void **state)
{
	struct probe_list pl = {0};
	char path[PATH_MAX], inc[PATH_MAX], want[3 * PATH_MAX];

	/* exactly 1 MiB: fine */
	snprintf(path, sizeof(path), "%s/big.conf", g_tmp);
	write_fill(path, 1024 * 1024 - 14, '\n', "fentry:at_end\n");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)), 0);
	assert_int_equal(pl.n, 1);
	assert_int_equal(pl.v[0].line, 1024 * 1024 - 13);
	probe_list_free(&pl);

	/* one byte more */
	write_fill(path, 1024 * 1024 - 13, '\n', "fentry:at_end\n");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EFBIG);
	snprintf(want, sizeof(want), "%s: larger than 1 MiB", path);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 0);

	snprintf(inc, sizeof(inc), "%s/inc-big.conf", g_tmp);
	write_file(inc, "\n  include big.conf\n");
	assert_int_equal(probe_parse_file(&pl, inc, g_err, sizeof(g_err)),
			 -EFBIG);
	snprintf(want, sizeof(want),
		 "%s:2:11: cannot open '%s': larger than 1 MiB", inc, path);
	assert_string_equal(g_err, want);
	probe_list_free(&pl);
}

/* Writer of test_err_pipe_size(): a probe line, then 2 MiB of comments
 * or less if the reader closes the pipe first (EPIPE), then EOF. */
static void *pipe_writer(void *arg)
{
	static const char first[] = "fentry:from_pipe\n";
	static const char line[] = "# 16 bytes long\n";
	int i, fd = *(int *)arg;

	if (write(fd, first, sizeof(first) - 1) > 0)
		for (i = 0; i < 2 * 65536; i++)
			if (write(fd, line, sizeof(line) - 1) <= 0)
				break;
	close(fd);
	return NULL;
}

/* A pipe (-P <(cmd)) is read, but no more than 1 MiB of it. */
static void test_err_pipe_size(void **state)
{
	struct probe_list pl = {0};
	char path[64], want[128];
	pthread_t writer;
	int fd[2];

	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fd), 0);
	assert_int_equal(pthread_create(&writer, NULL, pipe_writer, &fd[1]), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd[0]);
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EFBIG);
	close(fd[0]);
	assert_int_equal(pthread_join(writer, NULL), 0);
	/* 17 + 65535 * 16 = 1048577: the last byte of line 1 + 65535 */
	snprintf(want, sizeof(want), "%s:65536:16: file larger than 1 MiB",
		 path);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].name, "from_pipe");
	probe_list_free(&pl);
}

static void test_err_line_length(void **state)
{
	struct probe_list pl = {0};
	char path[PATH_MAX], want[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/long.conf", g_tmp);
	/* 4096 bytes, CRLF or not: fine */
	write_fill(path, 4096, '#', "\nfentry:after\r\n");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)), 0);
	write_fill(path, 4096, ' ', "\r\nfentry:after2");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)), 0);
	assert_int_equal(pl.n, 2);
	assert_string_equal(pl.v[1].name, "after2");
	assert_int_equal(pl.v[1].line, 2);
	probe_list_free(&pl);

	/* 4097 */
	write_fill(path, 4097, '#', "\nfentry:after\n");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EFBIG);
	snprintf(want, sizeof(want), "%s:1:4097: line longer than 4096 bytes",
		 path);
	assert_string_equal(g_err, want);
	/* at the end of the file, with no newline, after a CR */
	write_fill(path, 4097, '#', "");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EFBIG);
	assert_string_equal(g_err, want);
	write_fill(path, 4096, '#', "\r\r\n");
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EFBIG);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 0);
	probe_list_free(&pl);
}

static void test_err_nul(void **state)
{
	struct probe_list pl = {0};
	char path[PATH_MAX], want[2 * PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/nul.conf", g_tmp);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("fentry:a\nfentry:b", f);
	putc('\0', f);
	fputs("x as c\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:2:9: found a NUL byte: a probe file is text", path);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 1);
	probe_list_free(&pl);
}

/* chain: c0.conf includes c1.conf ... c{n-1}.conf defines one probe. */
static void write_chain(int n)
{
	char path[PATH_MAX], text[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%d.conf", g_tmp, i);
		if (i == n - 1)
			snprintf(text, sizeof(text), "fentry:deepest\n");
		else
			snprintf(text, sizeof(text), "include c%d.conf\n",
				 i + 1);
		write_file(path, text);
	}
}

static void test_include_depth(void **state)
{
	struct probe_list pl = {0};
	char path[PATH_MAX], want[3 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/c0.conf", g_tmp);

	/* the top file and 16 nested levels */
	write_chain(17);
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)), 0);
	assert_int_equal(pl.n, 1);
	assert_string_equal(pl.v[0].name, "deepest");
	probe_list_free(&pl);

	/* one more is refused at the include line of c16.conf */
	write_chain(18);
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -ELOOP);
	snprintf(want, sizeof(want),
		 "%s/c16.conf:1:9: includes nested deeper than 16 at "
		 "'%s/c17.conf'",
		 g_tmp, g_tmp);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.n, 0);
	probe_list_free(&pl);
}

/* ---- probe_list_check ---------------------------------------------------- */

static void test_check_duplicates(void **state)
{
	struct probe_list pl = {0};
	char want[2 * PATH_MAX];

	/* kvm_mmu_page_fault twice: once by FUNC, once by `as` */
	assert_int_equal(
		probe_parse_file(&pl, data("dup.conf"), g_err, sizeof(g_err)),
		0);
	assert_int_equal(pl.n, 3);
	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:3:15: timer 'kvm_mmu_page_fault' already defined at %s:1",
		 data("dup.conf"), data("dup.conf"));
	assert_string_equal(g_err, want);
	probe_list_free(&pl);

	/* same FUNC, different kinds */
	assert_int_equal(probe_parse_line(&pl, "fentry:vfs_read", "-e", 1,
					  g_err, sizeof(g_err)),
			 0);
	assert_int_equal(probe_parse_line(&pl, "  kprobe:vfs_read", "-e", 2,
					  g_err, sizeof(g_err)),
			 0);
	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), -EINVAL);
	assert_string_equal(g_err, "-e:2:10: timer 'vfs_read' already "
				   "defined at -e:1");
	probe_list_free(&pl);

	/* a span and a function timer; the same glob twice */
	assert_int_equal(probe_parse_line(&pl, "span X = tp:a:b -> tp:c:d",
					  "a.conf", 1, g_err, sizeof(g_err)),
			 0);
	assert_int_equal(probe_parse_line(&pl, "fentry:f as X", "b.conf", 9,
					  g_err, sizeof(g_err)),
			 0);
	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), -EINVAL);
	assert_string_equal(g_err, "b.conf:9:13: timer 'X' already defined "
				   "at a.conf:1");
	probe_list_free(&pl);

	assert_int_equal(parse(&pl, "fentry:vfs_*"), 0);
	assert_int_equal(parse(&pl, "fentry:vfs_*"), 0);
	assert_int_equal(probe_list_check(&pl, NULL, 0), -EINVAL);
	probe_list_free(&pl);
}

static void test_check_ok(void **state)
{
	struct probe_list pl = {0};

	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), 0);
	assert_int_equal(parse(&pl, "fentry:kvm_mmu_page_fault"), 0);
	assert_int_equal(parse(&pl, "fentry:kvm_vcpu_block"), 0);
	assert_int_equal(parse(&pl, "kprobe:kvm_vcpu_block as block2"), 0);
	assert_int_equal(parse(&pl, "span KVM_RUN = tp:a:b -> tp:c:d"), 0);
	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), 0);
	probe_list_free(&pl);
}

/* Many probes: the list grows. */
static void test_many(void **state)
{
	struct probe_list pl = {0};
	char line[64];
	int i;

	for (i = 0; i < 1000; i++) {
		snprintf(line, sizeof(line), "fentry:f%d if arg%d == %d", i,
			 i % 12, i);
		assert_int_equal(parse(&pl, line), 0);
	}
	assert_int_equal(pl.n, 1000);
	assert_string_equal(pl.v[999].name, "f999");
	assert_int_equal(pl.v[999].start.cond[0].arg, 999 % 12);
	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), 0);
	probe_list_free(&pl);
}

/* The first name used twice is reported, against its first use: found by
 * sorting, not by comparing every pair. */
static void test_check_duplicates_sorted(void **state)
{
	struct probe_list pl = {0};
	char line[64];
	int i;

	for (i = 0; i < 50002; i++) {
		/* line 50001 repeats line 50000, line 50002 line 8 */
		snprintf(line, sizeof(line), "fentry:f%d",
			 i < 50000 ? i : i == 50000 ? 49999 : 7);
		assert_int_equal(probe_parse_line(&pl, line, "t.conf", i + 1,
						  g_err, sizeof(g_err)),
				 0);
	}
	assert_int_equal(probe_list_check(&pl, g_err, sizeof(g_err)), -EINVAL);
	assert_string_equal(g_err, "t.conf:50001:8: timer 'f49999' already "
				   "defined at t.conf:50000");
	probe_list_free(&pl);
}

/* Caps on what a probe list can grow to, named in the error. */
static void test_limits(void **state)
{
	struct probe_list pl = {0};
	char path[PATH_MAX], line[64], want[PATH_MAX + 128];
	FILE *f;
	int i;

	/* include fan-out: 40 files each including the next level 40 times */
	for (i = 0; i < 3; i++) {
		int j;

		snprintf(path, sizeof(path), "%s/fan%d.conf", g_tmp, i);
		f = fopen(path, "w");
		assert_non_null(f);
		for (j = 0; j < 40; j++)
			fprintf(f, i < 2 ? "include fan%d.conf\n" :
					   "fentry:leaf\n",
				i + 1);
		assert_int_equal(fclose(f), 0);
	}
	snprintf(path, sizeof(path), "%s/fan0.conf", g_tmp);
	assert_int_equal(probe_parse_file(&pl, path, g_err, sizeof(g_err)),
			 -E2BIG);
	/* each line of fan0 follows 41 includes: the 1001st is line 16 of
	 * fan1 under fan0's line 25 (24 * 41 + 1 + 16) */
	snprintf(want, sizeof(want),
		 "%s/fan1.conf:16:9: more than %d includes in all", g_tmp,
		 PROBE_MAX_INCLUDES);
	assert_string_equal(g_err, want);
	assert_int_equal(pl.nincludes, PROBE_MAX_INCLUDES + 1);
	probe_list_free(&pl);

	/* timers */
	memset(&pl, 0, sizeof(pl));
	for (i = 0; i < PROBE_MAX_PROBES; i++) {
		snprintf(line, sizeof(line), "fentry:f%d", i);
		assert_int_equal(probe_parse_line(&pl, line, "t.conf", i + 1,
						  g_err, sizeof(g_err)),
				 0);
	}
	assert_int_equal(probe_parse_line(&pl, "fentry:one_more", "t.conf",
					  i + 1, g_err, sizeof(g_err)),
			 -E2BIG);
	snprintf(want, sizeof(want), "t.conf:%d: more than %d timers defined",
		 PROBE_MAX_PROBES + 1, PROBE_MAX_PROBES);
	assert_string_equal(g_err, want);
	probe_list_free(&pl);
}

static int setup_tmp(void **state)
{
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	rm_tmp();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fentry),
		cmocka_unit_test(test_kprobe_as),
		cmocka_unit_test(test_func),
		cmocka_unit_test(test_uprobe),
		cmocka_unit_test(test_glob_and_suffix),
		cmocka_unit_test(test_if_one),
		cmocka_unit_test(test_if_several),
		cmocka_unit_test(test_cond_types),
		cmocka_unit_test(test_each_operator),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_span_tp_short),
		cmocka_unit_test(test_span_usdt),
		cmocka_unit_test(test_span_uside),
		cmocka_unit_test(test_cond_str),
		cmocka_unit_test(test_span_alt),
		cmocka_unit_test(test_stop_name),
		cmocka_unit_test(test_span_key),
		cmocka_unit_test(test_err_key),
		cmocka_unit_test(test_blank_and_comments),
		cmocka_unit_test(test_origin_and_lineno),
		cmocka_unit_test(test_kind_str),
		cmocka_unit_test(test_err_kind),
		cmocka_unit_test(test_err_function),
		cmocka_unit_test(test_err_uprobe),
		cmocka_unit_test(test_err_cond),
		cmocka_unit_test(test_err_type),
		cmocka_unit_test(test_err_escaped),
		cmocka_unit_test(test_err_overflow),
		cmocka_unit_test(test_err_too_many_conds),
		cmocka_unit_test(test_err_span),
		cmocka_unit_test(test_err_include_syntax),
		cmocka_unit_test(test_err_long_token),
		cmocka_unit_test(test_file_include),
		cmocka_unit_test(test_file_crlf_and_no_newline),
		cmocka_unit_test(test_file_bom),
		cmocka_unit_test(test_line_include_relative_to_origin),
		cmocka_unit_test(test_err_missing_top),
		cmocka_unit_test(test_err_missing_include),
		cmocka_unit_test(test_err_include_cycle),
		cmocka_unit_test(test_err_in_included_file),
		cmocka_unit_test(test_include_quoted_and_cwd),
		cmocka_unit_test(test_gather_errors),
		cmocka_unit_test(test_show_line),
		cmocka_unit_test(test_include_depth),
		cmocka_unit_test(test_err_not_regular),
		cmocka_unit_test(test_err_file_size),
		cmocka_unit_test(test_err_pipe_size),
		cmocka_unit_test(test_err_line_length),
		cmocka_unit_test(test_err_nul),
		cmocka_unit_test(test_check_duplicates),
		cmocka_unit_test(test_check_ok),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_check_duplicates_sorted),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
