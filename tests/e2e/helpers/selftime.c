// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions that time themselves, for the error bars (issue 45,
 * tests/e2e/test_errbar.sh): shortf() spins SHORT_NS and longf() LONG_NS,
 * each timing its own call by CLOCK_MONOTONIC from its first instruction's
 * clock read to its last one, inside the call, so that a uprobe timer on
 * it sees the same call with its probes outside (its entry probe before
 * the first read, its return probe after the last), and the preemptions
 * inside it in both.  main() makes N calls of shortf() and, after every
 * K-th, one of longf(): the two interleaved.
 *
 *   e2e-selftime N SHORT_NS K LONG_NS
 *
 * Prints key=value: shortf.count, shortf.mean_ns, longf.count,
 * longf.mean_ns (the calls' own mean duration, ns, rounded down).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t short_ns = 2000, long_ns = 100000;
static uint64_t n_short, n_long, sum_short, sum_long;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* spins @ns from its first clock read; returns the time from it to the
 * last read */
static uint64_t spin(uint64_t ns)
{
	uint64_t t0 = now(), t1;

	do
		t1 = now();
	while (t1 - t0 < ns);
	return t1 - t0;
}

__attribute__((noinline)) void shortf(void)
{
	sum_short += spin(short_ns);
	n_short++;
}

__attribute__((noinline)) void longf(void)
{
	sum_long += spin(long_ns);
	n_long++;
}

int main(int argc, char **argv)
{
	unsigned long n, k, i;

	if (argc != 5) {
		fprintf(stderr, "usage: %s N SHORT_NS K LONG_NS\n", argv[0]);
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	short_ns = strtoull(argv[2], NULL, 10);
	k = strtoul(argv[3], NULL, 10);
	long_ns = strtoull(argv[4], NULL, 10);
	if (!n || !k) {
		fprintf(stderr, "N and K must be above 0\n");
		return 2;
	}
	for (i = 1; i <= n; i++) {
		shortf();
		if (i % k == 0)
			longf();
	}
	printf("shortf.count=%llu\nshortf.mean_ns=%llu\n"
	       "longf.count=%llu\nlongf.mean_ns=%llu\n",
	       (unsigned long long)n_short,
	       (unsigned long long)(n_short ? sum_short / n_short : 0),
	       (unsigned long long)n_long,
	       (unsigned long long)(n_long ? sum_long / n_long : 0));
	return 0;
}
