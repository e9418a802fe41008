// SPDX-License-Identifier: GPL-2.0-only
/*
 * inline: a function the compiler inlines (tests/e2e/test_inline.sh).
 * Built -O2 -g (CMakeLists.txt); spin() is always inlined where it is
 * called: in a loop (loop_site), once (one_site), inside another inlined
 * function (twice, in nest_site); a pointer to it (outl) makes an
 * out-of-line copy too.  Each call's time is measured by its caller
 * around it (CLOCK_MONOTONIC), and the counts and sums are printed:
 *
 *   truth loop_site=N loop_spin=3N loop_ns=NS one_site=N one_spin=N
 *         one_ns=NS nest_site=N twice=N nest_spin=N twice_ns=NS
 *         outl_spin=N outl_ns=NS spin_ns=NS
 *
 * spin_ns: every spin() call's time from its first clock read to its
 * last, its own clock (the probes' cost outside it).
 *
 * Usage: inline [ROUNDS (100)] [SPIN_US (50)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul +
	       (unsigned long)ts.tv_nsec;
}

static unsigned long spin_ns; /* its calls' own time, by its own clock */

/* the function timed: spins @ns nanoseconds */
static inline __attribute__((always_inline)) void spin(unsigned long ns)
{
	unsigned long t0 = now_ns(), d;

	while ((d = now_ns() - t0) < ns)
		sink++;
	spin_ns += d;
}

static inline __attribute__((always_inline)) void twice(unsigned long ns)
{
	sink += 3;
	spin(ns);
	sink += 5;
}

static unsigned long loop_ns, one_ns, twice_ns, outl_ns;

__attribute__((noinline)) void loop_site(int k, unsigned long ns)
{
	for (int i = 0; i < k; i++) {
		unsigned long t = now_ns();

		spin(ns);
		loop_ns += now_ns() - t;
	}
}

__attribute__((noinline)) void one_site(unsigned long ns)
{
	unsigned long t = now_ns();

	spin(2 * ns);
	one_ns += now_ns() - t;
}

__attribute__((noinline)) void nest_site(unsigned long ns)
{
	unsigned long t = now_ns();

	twice(ns);
	twice_ns += now_ns() - t;
}

void (*volatile outl)(unsigned long) = spin;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	unsigned long us = argc > 2 ? strtoul(argv[2], NULL, 0) : 50, t;

	for (int i = 0; i < n; i++) {
		loop_site(3, us * 1000);
		one_site(us * 1000);
		nest_site(us * 1000);
		t = now_ns();
		outl(us * 1000);
		outl_ns += now_ns() - t;
	}
	printf("truth loop_site=%d loop_spin=%d loop_ns=%lu one_site=%d one_spin=%d one_ns=%lu nest_site=%d twice=%d nest_spin=%d twice_ns=%lu outl_spin=%d outl_ns=%lu spin_ns=%lu\n",
	       n, 3 * n, loop_ns, n, n, one_ns, n, n, n, twice_ns, n, outl_ns,
	       spin_ns);
	return 0;
}
