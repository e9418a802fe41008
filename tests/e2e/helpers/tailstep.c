// SPDX-License-Identifier: GPL-2.0-only
/*
 * tailstep: timed calls that stop at a tail call's jmp, under a timed
 * parent, with the parent's ground truth (tests/e2e/test_tailstep.sh,
 * issue 45).  Built -O2 (CMakeLists.txt): child() ends in a jmp to leaf(),
 * a return site the kernel emulates, where a ret is single-stepped.
 *
 *   e2e-tailstep N SPIN_NS   parent() N times; each calls child() 10
 *                            times, whose tail call leaf() spins SPIN_NS
 *
 * Prints parent=N, child=10N and leaf_ns=NS, a line each: NS, the leaves' time by their
 * own clock (their first clock read to their last), which is the
 * parent's own time but for its loop and ten calls and clock reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static unsigned long leaf_ns;

static unsigned long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000000ul +
	       (unsigned long)ts.tv_nsec;
}

__attribute__((noinline)) void leaf(unsigned long ns)
{
	unsigned long t0 = now_ns(), d;

	while ((d = now_ns() - t0) < ns)
		sink++;
	leaf_ns += d;
}

/* a sibling call at -O2: its last instruction a jmp to leaf */
__attribute__((noinline)) void child(unsigned long ns)
{
	sink += 2;
	leaf(ns);
}

__attribute__((noinline)) void parent(unsigned long ns)
{
	for (int i = 0; i < 10; i++)
		child(ns);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	unsigned long ns = argc > 2 ? strtoul(argv[2], NULL, 0) : 20000;

	for (int i = 0; i < n; i++)
		parent(ns);
	printf("parent=%d\nchild=%d\nleaf_ns=%lu\n", n, 10 * n, leaf_ns);
	return 0;
}
