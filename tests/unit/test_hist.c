/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests of the log-linear histogram (src/core/hist.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/hist.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;

/* xorshift64*: deterministic, so failures reproduce */
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank quantile of sorted v[n] */
static uint64_t exact_q(const uint64_t *v, size_t n, double q)
{
	double r = q * (double)n;
	size_t rank = (size_t)r;

	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

/* |est - exact| <= exact / 32, in integers */
static void assert_within_1_32(uint64_t est, uint64_t exact)
{
	uint64_t diff = est > exact ? est - exact : exact - est;

	if (diff * 32 > exact)
		fail_msg("estimate %llu vs exact %llu: error above 1/32",
			 (unsigned long long)est, (unsigned long long)exact);
}

static void test_slot_boundaries(void **state)
{
	unsigned int s;

	(void)state;
	for (s = 0; s < 16; s++) {
		assert_int_equal(hist_slot(s), s);
		assert_int_equal(hist_slot_low(s), s);
		assert_int_equal(hist_slot_high(s), s);
	}
	/* 16..31: width 1; 32..63: width 2; 64..127: width 4 */
	assert_int_equal(hist_slot(16), 16);
	assert_int_equal(hist_slot(31), 31);
	assert_int_equal(hist_slot(32), 32);
	assert_int_equal(hist_slot(33), 32);
	assert_int_equal(hist_slot(34), 33);
	assert_int_equal(hist_slot(63), 47);
	assert_int_equal(hist_slot(64), 48);
	assert_int_equal(hist_slot(67), 48);
	assert_int_equal(hist_slot(68), 49);
	assert_int_equal(hist_slot_low(32), 32);
	assert_int_equal(hist_slot_high(32), 33);
	assert_int_equal(hist_slot_low(48), 64);
	assert_int_equal(hist_slot_high(48), 67);
	/* 1000 lies in [992, 1023] (2^9 split in 16 slots of 32) */
	assert_int_equal(hist_slot_low(hist_slot(1000)), 992);
	assert_int_equal(hist_slot_high(hist_slot(1000)), 1023);
	/* the top */
	assert_int_equal(HIST_SLOTS, 976);
	assert_int_equal(hist_slot(UINT64_MAX), HIST_SLOTS - 1);
	assert_int_equal(hist_slot(1ull << 63), HIST_SLOTS - 16);
	assert_int_equal(hist_slot_low(HIST_SLOTS - 1), 31ull << 59);
	assert_true(hist_slot_high(HIST_SLOTS - 1) == UINT64_MAX);
	/* out of range slots answer UINT64_MAX, never garbage */
	assert_true(hist_slot_low(HIST_SLOTS) == UINT64_MAX);

	/* every slot: contiguous, self-consistent, width <= low / 16 */
	for (s = 0; s < HIST_SLOTS; s++) {
		uint64_t lo = hist_slot_low(s), hi = hist_slot_high(s);

		assert_true(lo <= hi);
		assert_int_equal(hist_slot(lo), s);
		assert_int_equal(hist_slot(hi), s);
		if (s >= 16)
			assert_true((hi - lo + 1) * 16 <= lo);
		if (s + 1 < HIST_SLOTS)
			assert_true(hist_slot_low(s + 1) == hi + 1);
	}
}

static void test_slot_monotonic(void **state)
{
	uint64_t v, prev;
	unsigned int k, i, a, b;

	(void)state;
	/* around every power of two */
	for (k = 1; k < 64; k++) {
		uint64_t p = 1ull << k;

		a = hist_slot(p - 1);
		b = hist_slot(p);
		assert_true(a < b);
		assert_true(b - a == 1);
	}
	/* dense low range */
	prev = 0;
	for (v = 0; v < 100000; v++) {
		a = hist_slot(v);
		assert_true(a >= prev && a - prev <= 1);
		prev = a;
	}
	/* random pairs */
	for (i = 0; i < 100000; i++) {
		uint64_t x = rng() >> (rng() & 63), y = rng() >> (rng() & 63);

		if (x > y) {
			uint64_t t = x;

			x = y;
			y = t;
		}
		assert_true(hist_slot(x) <= hist_slot(y));
		assert_true(hist_slot(x) < HIST_SLOTS);
	}
}

static void test_quantile_uniform(void **state)
{
	struct hist *h = calloc(1, sizeof(*h));
	uint64_t v;

	(void)state;
	assert_non_null(h);
	assert_int_equal(hist_quantile(h, 0, 0.5, 0, UINT64_MAX), 0);
	for (v = 1; v <= 100000; v++)
		hist_add(h, v);
	assert_within_1_32(hist_quantile(h, 100000, 0.5, 0, UINT64_MAX), 50000);
	assert_within_1_32(hist_quantile(h, 100000, 0.99, 0, UINT64_MAX),
			   99000);
	assert_within_1_32(hist_quantile(h, 100000, 0.999, 0, UINT64_MAX),
			   99900);
	/* exact slot midpoints: 50000 in [49152, 51199] */
	assert_int_equal(hist_quantile(h, 100000, 0.5, 0, UINT64_MAX),
			 49152 + (51199 - 49152) / 2);
	/* q = 0 is the minimum, q = 1 the maximum, clamped to [min, max] */
	assert_int_equal(hist_quantile(h, 100000, 0.0, 1, 100000), 1);
	assert_int_equal(hist_quantile(h, 100000, 1.0, 1, 100000), 100000);
	assert_int_equal(hist_quantile(h, 100000, -3.0, 1, 100000), 1);
	assert_int_equal(hist_quantile(h, 100000, 7.0, 1, 100000), 100000);
	/* unclamped q = 1: midpoint of [98304, 102399] */
	assert_int_equal(hist_quantile(h, 100000, 1.0, 0, UINT64_MAX),
			 98304 + (102399 - 98304) / 2);
	free(h);
}

static void test_quantile_random(void **state)
{
	static const double qs[] = {0.001, 0.01, 0.1,  0.25,  0.5,
				    0.75,  0.9,	 0.99, 0.999, 1.0};
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct hist *h = calloc(1, sizeof(*h));
	unsigned int i, d;

	(void)state;
	assert_non_null(v);
	assert_non_null(h);
	/* three distributions: log-uniform over 2^0..2^40, exponential-ish
	 * geometric, and uniform wide */
	for (d = 0; d < 3; d++) {
		memset(h, 0, sizeof(*h));
		for (i = 0; i < N; i++) {
			if (d == 0)
				v[i] = (rng() >> 24) >> (rng() % 40);
			else if (d == 1)
				v[i] = 1000 +
				       (uint64_t)(1000.0 * (double)(i % 5000) *
						  (double)(i % 5000) / 5000.0);
			else
				v[i] = rng() >> 20;
			hist_add(h, v[i]);
		}
		qsort(v, N, sizeof(*v), cmp_u64);
		for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
			assert_within_1_32(
				hist_quantile(h, N, qs[i], 0, UINT64_MAX),
				exact_q(v, N, qs[i]));
	}
	free(v);
	free(h);
}

static void test_quantile_bimodal(void **state)
{
	struct hist *h = calloc(1, sizeof(*h));
	unsigned int i;

	(void)state;
	assert_non_null(h);
	for (i = 0; i < 900; i++)
		hist_add(h, 1000);
	for (i = 0; i < 100; i++)
		hist_add(h, 1000000);
	/* 1000 in [992, 1023] -> 1007; 1e6 in [983040, 1015807] -> 999423 */
	assert_int_equal(hist_quantile(h, 1000, 0.5, 0, UINT64_MAX), 1007);
	assert_int_equal(hist_quantile(h, 1000, 0.9, 0, UINT64_MAX), 1007);
	assert_int_equal(hist_quantile(h, 1000, 0.901, 0, UINT64_MAX), 999423);
	assert_int_equal(hist_quantile(h, 1000, 0.99, 0, UINT64_MAX), 999423);
	/* clamping to the known min/max */
	assert_int_equal(hist_quantile(h, 1000, 0.5, 1000, 1000000), 1007);
	assert_int_equal(hist_quantile(h, 1000, 0.99, 1000, 999000), 999000);
	assert_int_equal(hist_quantile(h, 1000, 0.01, 1010, 1000000), 1010);
	/* a caller n larger than the slot sum: the last value, not garbage */
	assert_int_equal(hist_quantile(h, 5000, 0.99, 0, UINT64_MAX), 999423);
	free(h);
}

static void test_extremes(void **state)
{
	struct hist *h = calloc(1, sizeof(*h));

	(void)state;
	assert_non_null(h);
	hist_add(h, 0);
	hist_add(h, UINT64_MAX);
	assert_int_equal(h->slot[0], 1);
	assert_int_equal(h->slot[HIST_SLOTS - 1], 1);
	assert_int_equal(hist_quantile(h, 2, 0.5, 0, UINT64_MAX), 0);
	assert_true(hist_quantile(h, 2, 1.0, 0, UINT64_MAX) ==
		    (31ull << 59) + ((1ull << 59) - 1) / 2);
	free(h);
}

/* hist_merge(): two halves merged count as the whole, quantiles too */
static void test_merge(void **state)
{
	static struct hist whole, half[2];
	uint64_t v;
	unsigned int i;

	(void)state;
	for (i = 0; i < 10000; i++) {
		v = rng() >> (rng() % 64);
		hist_add(&whole, v);
		hist_add(&half[i % 2], v);
	}
	hist_merge(&half[0], &half[1]);
	assert_memory_equal(&half[0], &whole, sizeof(whole));
	assert_int_equal(hist_quantile(&half[0], 10000, 0.99, 0, UINT64_MAX),
			 hist_quantile(&whole, 10000, 0.99, 0, UINT64_MAX));
	/* an empty one adds nothing */
	memset(&half[1], 0, sizeof(half[1]));
	hist_merge(&half[0], &half[1]);
	assert_memory_equal(&half[0], &whole, sizeof(whole));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_boundaries),
		cmocka_unit_test(test_slot_monotonic),
		cmocka_unit_test(test_quantile_uniform),
		cmocka_unit_test(test_quantile_random),
		cmocka_unit_test(test_quantile_bimodal),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
