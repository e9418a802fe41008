// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for src/core/util.c: durations and sizes as the options take them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iprof/util.h"

/* util_utf8_fwrite(@in) as a string (static buffer) */
static const char *utf8(const char *in)
{
	static char out[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(util_utf8_fwrite(m, in, strlen(in)), 0);
	assert_int_equal(fclose(m), 0);
	assert_true(len < sizeof(out));
	memcpy(out, buf, len + 1);
	free(buf);
	return out;
}

#define R UTIL_UTF8_REPLACEMENT

static void utf8_valid_out(void **state)
{
	(void)state;
	/* valid text unchanged: ASCII, 2, 3 and 4 byte characters */
	assert_string_equal(utf8("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z"),
			    "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z");
	assert_string_equal(utf8(""), "");
	/* each byte that begins no character becomes U+FFFD */
	assert_string_equal(utf8("w\xffx"), "w" R "x");
	assert_string_equal(utf8("\x80"), R); /* lone continuation */
	assert_string_equal(utf8("\xc0\xaf"), R R); /* overlong '/' */
	assert_string_equal(utf8("\xe0\x80\xaf"), R R R); /* overlong */
	assert_string_equal(utf8("\xed\xa0\x80"), R R R); /* surrogate */
	assert_string_equal(utf8("\xf4\x90\x80\x80"), R R R R); /* > 10FFFF */
	assert_string_equal(utf8("a\xe2\x82"), "a" R R); /* cut short */
	assert_string_equal(utf8("\xe2\x82" "a"), R R "a");
	/* the columns of what it writes: one per character or U+FFFD */
	assert_int_equal(util_utf8_width(""), 0);
	assert_int_equal(util_utf8_width("abc"), 3);
	assert_int_equal(util_utf8_width("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z"),
			 5);
	assert_int_equal(util_utf8_width("w\xffx"), 3);
	assert_int_equal(util_utf8_width("\xe0\x80\xaf"), 3);
	assert_int_equal(util_utf8_width("a\xe2\x82"), 3);
	/* cut in the middle at character boundaries */
	{
		char b[64];

		assert_string_equal(util_utf8_cut_middle("abcdef", 6, b, sizeof(b)), "abcdef");
		assert_string_equal(util_utf8_cut_middle("abcdefgh", 6, b, sizeof(b)), "ab..gh");
		assert_string_equal(util_utf8_cut_middle("abcdefgh", 7, b, sizeof(b)), "abc..gh");
		assert_string_equal(util_utf8_cut_middle("\xc3\xa9\xc3\xa9xyz\xe2\x82\xac\xe2\x82\xac", 6, b, sizeof(b)),
				    "\xc3\xa9\xc3\xa9..\xe2\x82\xac\xe2\x82\xac");
		assert_int_equal(util_utf8_width(util_utf8_cut_middle("a\xffxyzw\xffz", 5, b, sizeof(b))), 5);
	}
}

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
					   "1e400", "10 s", "+5s", "0x10",
					   "1e3", " 1s", ".5s", "5.",
					   "1e-10", "inf", "nan" };
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
	/* the real limit: INT64_MAX ns, about 292 years */
	assert_int_equal(util_parse_duration("10000000000s", &v), -ERANGE);
	assert_int_equal(util_parse_duration("9223372037s", &v), -ERANGE);
	assert_int_equal(util_parse_duration("9223372036s", &v), 0);
	assert_int_equal(v, 9223372036000000000ull);
}

/* util_parse_uint(): the whole string, decimal, within [min, max]; a
 * refused one leaves *out alone. */
static void uints(void **state)
{
	static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "1k",
					   "0x10", "18446744073709551616",
					   "4097", NULL };
	uint64_t v = 7;
	size_t i;

	(void)state;
	assert_int_equal(util_parse_uint("0", 0, 4096, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(util_parse_uint("4096", 0, 4096, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(util_parse_uint("0", 1, 10, &v), -EINVAL);
	assert_int_equal(util_parse_uint("18446744073709551615", 0, UINT64_MAX,
					 &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	for (i = 0; bad[i]; i++)
		assert_int_equal(util_parse_uint(bad[i], 0, 4096, &v), -EINVAL);
	assert_int_equal(util_parse_uint(NULL, 0, 1, &v), -EINVAL);
	assert_int_equal(v, 7);
}

/* util_grow(): appending 1000 elements one by one keeps every element and
 * reallocates only at 0 and the powers of two from 4 (the array pointer
 * changes at most 9 times, also where every realloc() moves, as ASan's). */
static void grow(void **state)
{
	uint32_t *v = NULL, *last = NULL;
	size_t i, moves = 0;

	(void)state;
	for (i = 0; i < 1000; i++) {
		assert_int_equal(util_grow(&v, i, sizeof(*v)), 0);
		if (v != last)
			moves++;
		last = v;
		v[i] = (uint32_t)i * 3;
	}
	for (i = 0; i < 1000; i++)
		assert_int_equal(v[i], i * 3);
	assert_true(moves <= 9);
	free(v);
	v = NULL;
	assert_int_equal(util_grow(&v, SIZE_MAX / 2, 4), -ENOMEM);
	assert_null(v);
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
		cmocka_unit_test(utf8_valid_out),
		cmocka_unit_test(durations),
		cmocka_unit_test(sizes),
		cmocka_unit_test(uints),
		cmocka_unit_test(grow),
		cmocka_unit_test(clock_moves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
