/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests of iprof diff's noise test (src/core/noise.c). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/noise.h"

#define SIDE(h, p50)                                                           \
	{                                                                      \
		.count = 0, .p50_ns = (p50), .hist = (h),                      \
		.nhist = sizeof(h) / sizeof((h)[0])                            \
	}

/* three calls a side, no ties: U of B counts the pairs with B's call
 * above A's: 1 + 2 + 3; its sd sqrt(3 * 3 * 7 / 12) */
static void u_by_hand(void **state)
{
	static const struct noise_slot ha[] = {{10, 1}, {30, 1}, {50, 1}};
	static const struct noise_slot hb[] = {{20, 1}, {40, 1}, {60, 1}};
	struct noise_side a = SIDE(ha, 30.0), b = SIDE(hb, 40.0);
	struct noise_opts o = {0.5, 0.1, 0.0};
	struct noise_result r;

	(void)state;
	a.count = b.count = 3;
	assert_int_equal(noise_test(&a, &b, &o, &r), NOISE_WITHIN);
	assert_float_equal(r.u, 6.0, 1e-12);
	assert_float_equal(r.delta, 1.0 / 3.0, 1e-12);
	assert_float_equal(r.z, 1.0 / sqrt(63.0 / 12.0), 1e-12);
	assert_float_equal(r.p, erfc(r.z / sqrt(2.0)), 1e-12);
	assert_float_equal(r.shift_ns, 10.0, 1e-12);
	/* A against B: the mirror */
	assert_int_equal(noise_test(&b, &a, &o, &r), NOISE_WITHIN);
	assert_float_equal(r.u, 3.0, 1e-12);
	assert_float_equal(r.z, -1.0 / sqrt(63.0 / 12.0), 1e-12);
	/* at the default alpha three calls can never be beyond noise */
	assert_int_equal(noise_test(&a, &b, NULL, &r), NOISE_UNKNOWN);
}

/* 100 calls in one slot each side, B's slot above: every pair; the ties
 * (100 calls a slot) in the variance */
static void separated(void **state)
{
	static const struct noise_slot ha[] = {{1000, 100}};
	static const struct noise_slot hb[] = {{2000, 100}};
	struct noise_side a = SIDE(ha, 1000.0), b = SIDE(hb, 2000.0);
	struct noise_result r;
	double var = 10000.0 / 12.0 *
		     (201.0 - 2.0 * (1e6 - 100.0) / (200.0 * 199.0));

	(void)state;
	a.count = b.count = 100;
	assert_int_equal(noise_test(&a, &b, NULL, &r), NOISE_BEYOND);
	assert_float_equal(r.u, 10000.0, 1e-9);
	assert_float_equal(r.delta, 1.0, 1e-12);
	assert_float_equal(r.z, 4999.5 / sqrt(var), 1e-9);
	assert_float_equal(r.min_effect_ns, 100.0, 1e-12);
	/* the same histogram: U is half the pairs, z 0 */
	assert_int_equal(noise_test(&a, &a, NULL, &r), NOISE_WITHIN);
	assert_float_equal(r.u, 5000.0, 1e-9);
	assert_float_equal(r.z, 0.0, 0.0);
	assert_float_equal(r.p, 1.0, 0.0);
	/* faster is a change too */
	assert_int_equal(noise_test(&b, &a, NULL, &r), NOISE_BEYOND);
	assert_float_equal(r.delta, -1.0, 1e-12);
	/* the reports' error bars: 3.29 x hypot(250, 250) = 1163 ns > 1000 */
	a.err_ns = b.err_ns = 250.0;
	assert_int_equal(noise_test(&a, &b, NULL, &r), NOISE_SMALL);
	assert_float_equal(r.min_effect_ns, NOISE_Z * hypot(250.0, 250.0),
			   1e-9);
}

/* two million calls: a tenth of B's a slot up is far beyond sampling
 * noise, but its median moved 5 ns: below 10%, or an absolute minimum */
static void min_effect(void **state)
{
	static const struct noise_slot ha[] = {{1000, 1000000}};
	static const struct noise_slot hb[] = {{1000, 900000}, {1024, 100000}};
	struct noise_side a = SIDE(ha, 1016.0), b = SIDE(hb, 1021.0);
	struct noise_opts o = {NOISE_ALPHA, 0.0, 20.0};
	struct noise_result r;

	(void)state;
	a.count = b.count = 1000000;
	assert_int_equal(noise_test(&a, &b, NULL, &r), NOISE_SMALL);
	assert_true(r.p < 1e-100);
	assert_float_equal(r.delta, 0.1, 1e-12);
	assert_int_equal(noise_test(&a, &b, &o, &r), NOISE_SMALL);
	assert_float_equal(r.min_effect_ns, 20.0, 1e-12);
	o.min_abs_ns = 5.0;
	assert_int_equal(noise_test(&a, &b, &o, &r), NOISE_BEYOND);
}

/* what cannot be judged says so */
static void unknown(void **state)
{
	static const struct noise_slot h1[] = {{1000, 1}};
	static const struct noise_slot h2[] = {{5000, 1}};
	struct noise_side a = SIDE(h1, 1000.0), b = SIDE(h2, 5000.0);
	struct noise_result r;

	(void)state;
	/* one call a side */
	a.count = b.count = 1;
	assert_int_equal(noise_test(&a, &b, NULL, &r), NOISE_UNKNOWN);
	assert_float_equal(r.shift_ns, 4000.0, 1e-12);
	/* an older report without a histogram */
	a.count = b.count = 1000;
	a.hist = NULL;
	assert_int_equal(noise_test(&a, &b, NULL, &r), NOISE_UNKNOWN);
	/* no calls on a side */
	a.count = 0;
	assert_int_equal(noise_test(&a, &b, NULL, &r), NOISE_NONE);
	assert_int_equal(noise_test(&b, &a, NULL, &r), NOISE_NONE);
	assert_string_equal(noise_verdict_name(NOISE_SMALL), "small");
	assert_string_equal(noise_verdict_name(NOISE_UNKNOWN), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(u_by_hand),
		cmocka_unit_test(separated),
		cmocka_unit_test(min_effect),
		cmocka_unit_test(unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
