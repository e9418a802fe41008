// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for src/cli/log.c: the levels -q and -v let through, the prefix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/log.h"
#include "logcap.h"


/* one line at each level, with the switches -q (@q) and -v (@v) */
static void each_level(int q, int v)
{
	log_set_switches(q, v);
	log_error("e %d", 1);
	log_warn("w %s", "2");
	log_info("i %u", 3u);
	log_debug("d %c", '4');
}

static void levels_default(void **state)
{
	(void)state;
	each_level(0, 0);
	assert_string_equal(logcap_text(), "iprof: e 1\niprof: w 2\niprof: i 3\n");
	assert_true(log_enabled(LOG_LVL_INFO));
	assert_false(log_enabled(LOG_LVL_DEBUG));
}

static void quiet_keeps_errors_and_warnings(void **state)
{
	(void)state;
	each_level(1, 0);
	assert_string_equal(logcap_text(), "iprof: e 1\niprof: w 2\n");
	assert_true(log_enabled(LOG_LVL_ERROR));
	assert_true(log_enabled(LOG_LVL_WARN));
	assert_false(log_enabled(LOG_LVL_INFO));
}

static void verbose_adds_debug(void **state)
{
	(void)state;
	each_level(0, 1);
	assert_string_equal(logcap_text(),
			    "iprof: e 1\niprof: w 2\niprof: i 3\niprof: d 4\n");
}

/* as the options were before the module: -q -v, debug without progress */
static void quiet_and_verbose(void **state)
{
	(void)state;
	each_level(1, 1);
	assert_string_equal(logcap_text(), "iprof: e 1\niprof: w 2\niprof: d 4\n");
}

/* a line longer than the stack buffer comes out whole */
static void long_line(void **state)
{
	char want[2100], arg[2001];

	(void)state;
	memset(arg, 'x', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = '\0';
	snprintf(want, sizeof(want), "iprof: <%s>\n", arg);
	log_msg(LOG_LVL_ERROR, "<%s>", arg);
	assert_string_equal(logcap_text(), want);
	assert_int_equal(logcap_len, strlen(want));
}

/* lines of exactly the stack buffer's size and around it */
static void buffer_edges(void **state)
{
	char arg[600];
	size_t n, off = 0;

	(void)state;
	for (n = 495; n < 515; n++) {
		memset(arg, 'y', n);
		arg[n] = '\0';
		log_error("%s", arg);
		logcap_text();
		assert_int_equal(logcap_len, off + 7 + n + 1);
		assert_memory_equal(logcap_buf + off, "iprof: ", 7);
		assert_memory_equal(logcap_buf + off + 7, arg, n);
		assert_int_equal(logcap_buf[off + 7 + n], '\n');
		off = logcap_len;
	}
}

/* a subcommand's lines: "iprof CMD: ", the same levels */
static void cmd_prefix(void **state)
{
	(void)state;
	log_cmd(LOG_LVL_ERROR, "diff", "%s: empty", "a.json");
	log_set_switches(1, 0);
	log_cmd(LOG_LVL_INFO, "report", "not shown");
	log_cmd(LOG_LVL_WARN, "report", "warning: %d", 3);
	assert_string_equal(logcap_text(), "iprof diff: a.json: empty\n"
				    "iprof report: warning: 3\n");
}

static int raw(enum log_level level, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = log_vraw(level, fmt, ap);
	va_end(ap);
	return n;
}

/* libbpf's text as it comes (its own newline, no prefix), debug only */
static void raw_text(void **state)
{
	(void)state;
	assert_int_equal(raw(LOG_LVL_DEBUG, "libbpf: %s\n", "x"), 0);
	log_set_switches(0, 1);
	assert_int_equal(raw(LOG_LVL_DEBUG, "libbpf: %s\n", "x"), 10);
	assert_string_equal(logcap_text(), "libbpf: x\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(levels_default, logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(quiet_keeps_errors_and_warnings,
						logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(verbose_adds_debug, logcap_setup,
						logcap_teardown),
		cmocka_unit_test_setup_teardown(quiet_and_verbose, logcap_setup,
						logcap_teardown),
		cmocka_unit_test_setup_teardown(long_line, logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(buffer_edges, logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(cmd_prefix, logcap_setup, logcap_teardown),
		cmocka_unit_test_setup_teardown(raw_text, logcap_setup, logcap_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
