// SPDX-License-Identifier: GPL-2.0-only
/*
 * Nested short calls with their own truth, for overhead compensation
 * (tests/e2e/test_compensate.sh): outer() calls mid() 4 times and gp()
 * once; mid() calls leaf() twice; leaf() spins SPIN ns; gp() makes two
 * getppid(2) calls.  outer() runs N times; untraced copies of the same
 * code (outer_p, mid_p, leaf_p, gp_p: the same instructions, never
 * probed) run N times each, interleaved with it, each level timed alone by
 * the program itself (CLOCK_MONOTONIC around one call, nothing timed
 * inside): their mean is what each traced path costs without the probes.
 * The copies make getpid(2) calls where the traced code makes getppid(2)
 * ones (the same cost), so that a span on getppid times none of them.
 *
 *   e2e-nested N SPIN_NS
 *
 * Prints key=value: outer.count ... and, for outer, mid, leaf, gp and
 * getppid (one getppid(2) call), LEVEL.mean_ns, LEVEL.p50_ns and
 * LEVEL.se_ns (the untraced copies' mean, median and the mean's standard
 * error; getppid's is one getpid(2) call's).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t spin_ns = 1000;
static uint64_t n_outer, n_mid, n_leaf, n_gp, n_plain;
/* untraced copies: time and calls at each level, and each call's time
 * (the first MAXS) for the medians */
#define MAXS 100000
static uint64_t u_ns[5], u_n[5];
static double u_sq[5]; /* their squares' sum, ns^2 */
static uint64_t *u_v[5];
enum { L_OUTER, L_MID, L_LEAF, L_GP, L_SC };

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void spin(void)
{
	uint64_t t0 = now();

	while (now() - t0 < spin_ns)
		;
}

/* the traced ones */
__attribute__((noinline)) void leaf(void)
{
	n_leaf++;
	spin();
}

__attribute__((noinline)) void mid(void)
{
	n_mid++;
	leaf();
	leaf();
}

__attribute__((noinline)) void gp(void)
{
	n_gp++;
	syscall(SYS_getppid);
	syscall(SYS_getppid);
}

__attribute__((noinline)) void outer(void)
{
	int i;

	n_outer++;
	for (i = 0; i < 4; i++)
		mid();
	gp();
}

/*
 * The same code untraced (the _p copies call only each other), each level
 * timed alone around its call, with nothing timed inside it.
 */
#define TIMED(level, call)                                                     \
	do {                                                                   \
		uint64_t t0_ = now();                                          \
		call;                                                          \
		uint64_t d_ = now() - t0_;                                     \
		u_ns[level] += d_;                                             \
		u_sq[level] += (double)d_ * (double)d_;                        \
		if (u_n[level] < MAXS)                                         \
			u_v[level][u_n[level]] = d_;                           \
		u_n[level]++;                                                  \
	} while (0)

__attribute__((noinline)) void leaf_p(void)
{
	n_plain++;
	spin();
}

__attribute__((noinline)) void mid_p(void)
{
	n_plain++;
	leaf_p();
	leaf_p();
}

/* getpid(2), not getppid: a span on getppid would time these too (it
 * fires for every getppid of the process), and they cost the same */
__attribute__((noinline)) void gp_p(void)
{
	n_plain++;
	syscall(SYS_getpid);
	syscall(SYS_getpid);
}

__attribute__((noinline)) void outer_p(void)
{
	int i;

	n_plain++;
	for (i = 0; i < 4; i++)
		mid_p();
	gp_p();
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000, i;
	static const char *const names[] = { "outer", "mid", "leaf", "gp",
					     "getppid" };

	if (argc > 2)
		spin_ns = strtoull(argv[2], NULL, 10);
	for (i = 0; i < 5; i++)
		u_v[i] = calloc(MAXS, sizeof(uint64_t));
	if (!n || !spin_ns || !u_v[0] || !u_v[1] || !u_v[2] || !u_v[3] ||
	    !u_v[4]) {
		fprintf(stderr, "usage: %s N SPIN_NS\n", argv[0]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		outer();
		TIMED(L_OUTER, outer_p());
		TIMED(L_MID, mid_p());
		TIMED(L_LEAF, leaf_p());
		TIMED(L_GP, gp_p());
		TIMED(L_SC, syscall(SYS_getpid));
	}
	printf("outer.count=%llu\nmid.count=%llu\nleaf.count=%llu\n"
	       "gp.count=%llu\ngetppid.count=%llu\n",
	       (unsigned long long)n_outer, (unsigned long long)n_mid,
	       (unsigned long long)n_leaf, (unsigned long long)n_gp,
	       (unsigned long long)(2 * n_gp));
	for (i = 0; i < 5; i++) {
		uint64_t m = u_n[i] < MAXS ? u_n[i] : MAXS;

		qsort(u_v[i], m, sizeof(uint64_t), cmp);
		double mean = (double)u_ns[i] / (double)u_n[i];
		double var = u_n[i] > 1 ? (u_sq[i] - (double)u_n[i] * mean *
							   mean) /
						  (double)(u_n[i] - 1) :
					  0.0;

		printf("%s.mean_ns=%llu\n%s.p50_ns=%llu\n%s.se_ns=%.0f\n",
		       names[i], (unsigned long long)(u_ns[i] / u_n[i]),
		       names[i], (unsigned long long)u_v[i][(m - 1) / 2],
		       names[i],
		       var > 0 ? sqrt(var / (double)u_n[i]) : 0.0);
	}
	return 0;
}
