// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for src/cli/report_opts.c: the report options iprof and iprof
 * report share, their messages and their lists in --help, made from the
 * tables of the formats, sort keys, columns, weights and --by keys.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/log.h"
#include "cli/report_opts.h"
#include "iprof/report.h"
#include "logcap.h"


static void parse_values(void **state)
{
	struct report_opts ro;

	(void)state;
	report_opts_init(&ro);
	assert_int_equal(ro.max_paths, AGG_MAX_PATHS_DEFAULT);
	assert_int_equal(ro.max_keys, AGG_MAX_KEYS_DEFAULT);
	assert_int_equal(report_opts_parse(&ro, 'f', "folded", NULL), 0);
	assert_int_equal(ro.fmt, REPORT_FMT_FOLDED);
	assert_int_equal(report_opts_parse(&ro, RO_SORT, "first", NULL), 0);
	assert_int_equal(ro.sort, REPORT_SORT_FIRST);
	assert_int_equal(report_opts_parse(&ro, RO_WEIGHT, "offcpu", NULL), 0);
	assert_int_equal(ro.weight, REPORT_WEIGHT_OFFCPU);
	assert_int_equal(report_opts_parse(&ro, RO_BY, "pid", NULL), 0);
	assert_int_equal(ro.by, AGG_BY_TGID);
	assert_int_equal(report_opts_parse(&ro, RO_BY, "comm", NULL), 0);
	assert_int_equal(ro.by, AGG_BY_COMM);
	assert_int_equal(report_opts_parse(&ro, RO_MIN_TOTAL, "2ms", NULL), 0);
	assert_int_equal(ro.min_total_ns, 2000000);
	assert_int_equal(report_opts_parse(&ro, RO_MAX_DEPTH, "3", NULL), 0);
	assert_int_equal(ro.max_depth, 3);
	assert_int_equal(report_opts_parse(&ro, RO_MAX_PATHS, "0", NULL), 0);
	assert_int_equal(ro.max_paths, 0);
	assert_int_equal(report_opts_parse(&ro, RO_COLUMNS, "p99.9,count",
					   NULL), 0);
	assert_int_equal(ro.ncolumns, 2);
	assert_int_equal(ro.columns[0], REPORT_COL_P999);
	assert_int_equal(report_opts_parse(&ro, 'o', "x", "report"), 0);
	assert_string_equal(ro.output, "x");
	assert_true(ro.fmt_set && ro.sort_set && ro.weight_set &&
		    ro.min_total_set && ro.max_depth_set && ro.max_paths_set);
	assert_false(ro.max_keys_set);
	/* not a report option: the caller's */
	assert_int_equal(report_opts_parse(&ro, 'e', "x", NULL), 1);
	assert_int_equal(report_opts_parse(&ro, RO_NEXT, "x", NULL), 1);
	assert_string_equal(logcap_take(), "");
}

/* iprof's messages say what is expected, from the tables */
static void live_messages(void **state)
{
	static const struct {
		int c;
		const char *arg, *msg;
	} t[] = {
		{ 'f', "x", "iprof: --format 'x': expected table, seed, json, folded, chrome, openmetrics, prometheus, pprof or svg\n" },
		{ RO_SORT, "x", "iprof: --sort 'x': expected total, self, count, name or first\n" },
		{ RO_WEIGHT, "x", "iprof: --weight 'x': expected self, total, oncpu, offcpu or count\n" },
		/* a name near one it knows (newcomer trial 5: -f jsn) */
		{ 'f', "jsn", "iprof: --format 'jsn': did you mean json? expected table, seed, json, folded, chrome, openmetrics, prometheus, pprof or svg\n" },
		{ RO_SORT, "totl", "iprof: --sort 'totl': did you mean total? expected total, self, count, name or first\n" },
		{ RO_WEIGHT, "ofcpu", "iprof: --weight 'ofcpu': did you mean oncpu or offcpu? expected self, total, oncpu, offcpu or count\n" },
		{ RO_BY, "x", "iprof: --by 'x': expected tid, tgid (or pid) or comm\n" },
		{ RO_COLUMNS, "count,count", "iprof: --columns 'count,count': 'count' twice; expected column names, each once, from: count total self wall oncpu offcpu runq blocked min avg max stddev p50 p90 p99 p99.9 threads exited incompl unwound discarded avgerr totalerr\n" },
		{ RO_COLUMNS, "count,bogus,self", "iprof: --columns 'count,bogus,self': no column 'bogus'; expected column names, each once, from: count total self wall oncpu offcpu runq blocked min avg max stddev p50 p90 p99 p99.9 threads exited incompl unwound discarded avgerr totalerr\n" },
		{ RO_MIN_TOTAL, "x", "iprof: --min-total 'x': expected a time like 1ms, 250us, 2s\n" },
		{ RO_MAX_DEPTH, "0", "iprof: --max-depth '0': expected a depth of 1 or more\n" },
		{ RO_MAX_KEYS, "-1", "iprof: --max-keys '-1': expected a number from 0 (no cap) to 4294967295\n" },
	};
	struct report_opts ro;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		report_opts_init(&ro);
		assert_int_equal(report_opts_parse(&ro, t[i].c, t[i].arg, NULL),
				 -EINVAL);
		assert_string_equal(logcap_take(), t[i].msg);
	}
	report_opts_init(&ro);
	assert_int_equal(report_opts_parse(&ro, 'o', "a", NULL), 0);
	assert_int_equal(report_opts_parse(&ro, 'o', "b", NULL), -EINVAL);
	assert_string_equal(logcap_take(), "iprof: -o given twice ('a', 'b'): one output file\n");
}

/* a subcommand's: the option and where to look (diff names the two
 * formats it writes) */
static void subcommand_messages(void **state)
{
	struct report_opts ro;

	(void)state;
	report_opts_init(&ro);
	assert_int_equal(report_opts_parse(&ro, RO_MAX_PATHS, "x", "report"),
			 -EINVAL);
	assert_string_equal(logcap_take(), "iprof report: --max-paths 'x': expected a number from 0 (no cap) to 4294967295\n");
	assert_int_equal(report_opts_parse(&ro, 'f', "x", "diff"), -EINVAL);
	assert_string_equal(logcap_take(), "iprof diff: --format 'x': expected table or json\n");
}

static void format_checks(void **state)
{
	struct report_opts ro;

	(void)state;
	report_opts_init(&ro);
	assert_int_equal(report_opts_check(&ro, NULL), 0);
	ro.fmt = REPORT_FMT_SEED;
	ro.max_depth_set = 1;
	assert_int_equal(report_opts_check(&ro, NULL), -EINVAL);
	assert_int_equal(report_opts_check(&ro, "report"), -EINVAL);
	assert_string_equal(logcap_take(),
			    "iprof: --sort, --min-total and --max-depth do not apply to --format seed (first-seen order, every path)\n"
			    "iprof report: --sort, --min-total and --max-depth do not apply to --format seed\n");
	/* chrome, a timeline: --max-depth leaves out deeper calls, but
	 * nothing there is sorted or summed */
	report_opts_init(&ro);
	ro.fmt = REPORT_FMT_CHROME;
	ro.max_depth_set = 1;
	assert_int_equal(report_opts_check(&ro, NULL), 0);
	ro.min_total_set = 1;
	assert_int_equal(report_opts_check(&ro, NULL), -EINVAL);
	ro.min_total_set = 0;
	ro.sort_set = 1;
	assert_int_equal(report_opts_check(&ro, "report"), -EINVAL);
	assert_string_equal(logcap_take(),
			    "iprof: --sort and --min-total do not apply to --format chrome (a timeline of every call)\n"
			    "iprof report: --sort and --min-total do not apply to --format chrome\n");
	report_opts_init(&ro);
	ro.fmt = REPORT_FMT_JSON;
	ro.ncolumns = 1;
	assert_int_equal(report_opts_check(&ro, NULL), -EINVAL);
	ro.ncolumns = 0;
	ro.weight_set = 1;
	assert_int_equal(report_opts_check(&ro, NULL), -EINVAL);
	ro.fmt = REPORT_FMT_FOLDED;
	assert_int_equal(report_opts_check(&ro, NULL), 0);
	assert_string_equal(logcap_take(),
			    "iprof: --columns applies to --format table only\n"
			    "iprof: --weight applies to --format folded or svg only\n");
}

/* report_opts_usage(@c, ...) as a string */
static const char *usage(int c, const char *lead, const char *tail,
			 int detail)
{
	static char out[2048];
	char *b = NULL;
	size_t l = 0;
	FILE *f = open_memstream(&b, &l);

	assert_non_null(f);
	report_opts_usage(f, c, lead, tail, detail);
	fclose(f);
	snprintf(out, sizeof(out), "%s", b);
	free(b);
	return out;
}

/* --help's lists: from the tables, wrapped at 75 below column 24 */
static void help_lists(void **state)
{
	(void)state;
	assert_string_equal(
		usage(RO_COLUMNS,
		      "table columns, comma-separated, '+LIST' to add to the default: ",
		      "", 1),
		"table columns, comma-separated, '+LIST' to add to\n"
		"                        the default: count total self wall oncpu offcpu\n"
		"                        runq blocked min avg max stddev p50 p90 p99 p99.9\n"
		"                        threads exited incompl unwound discarded avgerr\n"
		"                        totalerr\n");
	assert_string_equal(usage(RO_SORT, "", "", 0),
			    "total (default), self, count, name or first\n");
	assert_string_equal(usage(RO_SORT, "order of siblings: ",
				  "; table, json, folded", 1),
			    "order of siblings: total (default), self, count,\n"
			    "                        name or first (first seen); table, json, folded\n");
	assert_string_equal(usage('f', "", "", 0),
			    "table (default), seed, json, folded, chrome,\n"
			    "                        openmetrics, prometheus, pprof or svg\n");
	assert_string_equal(usage(RO_BY, "a root per ", "", 0),
			    "a root per thread (tid), process (tgid) or command\n"
			    "                        name (comm)\n");
	assert_string_equal(usage(RO_WEIGHT, "", "", 1),
			    "self (default), total, oncpu, offcpu or count\n");
}

/* a binary format's refusals, from its row (REPORT_CAP_BINARY): the
 * live run's and iprof report's one check */
static void binary_stdout(void **state)
{
	char why[256] = "";

	(void)state;
	assert_int_equal(report_fmt_stdout_ok(REPORT_FMT_PPROF, 0, 0, why,
					      sizeof(why)), 0);
	assert_int_equal(report_fmt_stdout_ok(REPORT_FMT_TABLE, 1, 1, why,
					      sizeof(why)), 0);
	assert_int_equal(report_fmt_stdout_ok(REPORT_FMT_JSON, 1, 0, why,
					      sizeof(why)), 0);
	assert_int_equal(report_fmt_stdout_ok(REPORT_FMT_PPROF, 1, 0, why,
					      sizeof(why)), -EINVAL);
	assert_string_equal(why, "--format pprof is a gzipped binary profile: give -o FILE or redirect stdout");
	assert_int_equal(report_fmt_stdout_ok(REPORT_FMT_PPROF, 0, 1, why,
					      sizeof(why)), -EINVAL);
	assert_string_equal(why, "--format pprof --interval writes one profile per interval: give -o FILE (rewritten each time), not stdout");
	for (int f = 0; report_fmt_get((enum report_fmt)f); f++)
		assert_true(!report_fmt_has((enum report_fmt)f,
					    REPORT_CAP_BINARY) ||
			    report_fmt_get((enum report_fmt)f)->binary);
}

/*
 * The reports' enum names (report.ename) from this kernel's BTF: a named
 * enum, const, a typedef of one (irqreturn_t); none for an integer type,
 * an unknown enum or a value without an enumerator.  Skipped without
 * /sys/kernel/btf/vmlinux.
 */
static void enum_names(void **state)
{
	struct report_opts ro;
	struct report r = { 0 };
	char b[64];

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		skip();
	report_opts_init(&ro);
	report_opts_apply(&ro, &r);
	assert_non_null(r.ename);
	assert_non_null(r.ename(NULL, "enum hrtimer_mode", 1, b, sizeof(b)));
	assert_string_equal(b, "HRTIMER_MODE_REL");
	assert_non_null(r.ename(NULL, "const enum hrtimer_mode", 0, b,
				sizeof(b)));
	assert_string_equal(b, "HRTIMER_MODE_ABS");
	assert_non_null(r.ename(NULL, "irqreturn_t", 1, b, sizeof(b)));
	assert_string_equal(b, "IRQ_HANDLED");
	assert_null(r.ename(NULL, "enum hrtimer_mode", 0x7777, b, sizeof(b)));
	assert_null(r.ename(NULL, "int", 1, b, sizeof(b)));
	assert_null(r.ename(NULL, "enum no_such_enum_here", 1, b, sizeof(b)));
	assert_null(r.ename(NULL, "size_t", 1, b, sizeof(b)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(parse_values, logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(live_messages, logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(subcommand_messages, logcap_setup,
						logcap_teardown),
		cmocka_unit_test_setup_teardown(format_checks, logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(help_lists, logcap_setup, logcap_teardown),
		cmocka_unit_test(binary_stdout),
		cmocka_unit_test(enum_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
