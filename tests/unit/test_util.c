// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for src/util.c: durations and sizes as the options take them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iprof/util.h"

static void durations(void **state)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{ "10s", 10000000000ull }, { "500ms", 500000000ull },
		{ "2m", 120000000000ull }, { "1h", 3600000000000ull },
		{ "250us", 250000ull },	   { "100ns", 100ull },
		{ "1.5", 1500000000ull },  { "0.25s", 250000000ull },
	};
	static const char *const bad[] = { "", "-1s", "10x", "s", "ms10",
					   "1e400", "10 s", "+5s" };
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 0;
		assert_int_equal(util_parse_duration(ok[i].s, &v), 0);
		assert_int_equal(v, ok[i].ns);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(util_parse_duration(bad[i], &v), -EINVAL);
}

static void sizes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(util_parse_size("16M", &v), 0);
	assert_int_equal(v, 16ull << 20);
	assert_int_equal(util_parse_size("512K", &v), 0);
	assert_int_equal(v, 512ull << 10);
	assert_int_equal(util_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(util_parse_size("1G", &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(util_parse_size("12Q", &v), -EINVAL);
	assert_int_equal(util_parse_size("", &v), -EINVAL);
}

static void clock_moves(void **state)
{
	uint64_t a = util_now_ns(), b = util_now_ns();

	(void)state;
	assert_true(a > 0);
	assert_true(b >= a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations),
		cmocka_unit_test(sizes),
		cmocka_unit_test(clock_moves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
