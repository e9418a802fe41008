// SPDX-License-Identifier: GPL-2.0-only
/*
 * longjmp-workload: non-local exits across timed frames, with ground truth
 * (tools/README.md, "longjmp-workload").  Four scenarios, each run --calls
 * N times by its driver (drv_*, called once from main), which calls after()
 * from the call site that the left frames were called from:
 *
 *   one   drv_one > leaf_one: longjmp across 1 frame
 *   two   drv_two > mid_two > leaf_two: longjmp across 2 nested frames
 *   deep  drv_deep > rec_deep x D (--depth, 50): longjmp from the deepest
 *         of D recursive frames
 *   sig   drv_sig > work_sig, which raises SIGUSR1; its handler on_sig
 *         siglongjmps out (2 frames: work_sig and the handler's)
 *
 *   tail  drv_tail > tail_after, which tail-calls after() (jmp): no
 *         longjmp; after() runs in the frame tail_after was called in, so
 *         its call must not be taken for one from a slot a longjmp left
 *
 * None of leaf_one, mid_two, leaf_two, rec_deep, work_sig, on_sig ever
 * returns; after() returns N times under each driver but drv_tail, and N
 * times by tail_after's jmp, under it (tail_after returns N times).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

static jmp_buf env;
static sigjmp_buf senv;
static volatile int sink, jump = 1; /* jump: GCC sees no endless recursion */
static long n_leaf_one, n_mid_two, n_leaf_two, n_rec_deep, n_work_sig, n_on_sig,
	n_after, n_tail;

__attribute__((noinline)) void after(void)
{
	n_after++;
	sink = 1;
}

__attribute__((noinline)) void leaf_one(void)
{
	n_leaf_one++;
	longjmp(env, 1);
}

__attribute__((noinline)) void drv_one(int n)
{
	volatile int i; /* kept across longjmp */

	for (i = 0; i < n; i++) {
		if (!setjmp(env))
			leaf_one();
		after();
	}
}

__attribute__((noinline)) void leaf_two(void)
{
	n_leaf_two++;
	longjmp(env, 1);
}

__attribute__((noinline)) void mid_two(void)
{
	n_mid_two++;
	leaf_two();
	sink = 2; /* not a tail call */
}

__attribute__((noinline)) void drv_two(int n)
{
	volatile int i;

	for (i = 0; i < n; i++) {
		if (!setjmp(env))
			mid_two();
		after();
	}
}

__attribute__((noinline)) void rec_deep(int d)
{
	n_rec_deep++;
	if (d <= 1) {
		if (jump)
			longjmp(env, 1);
		return;
	}
	rec_deep(d - 1);
	sink = d; /* not a tail call */
}

__attribute__((noinline)) void drv_deep(int n, int depth)
{
	volatile int i;

	for (i = 0; i < n; i++) {
		if (!setjmp(env))
			rec_deep(depth);
		after();
	}
}

__attribute__((noinline)) void on_sig(int sig)
{
	(void)sig;
	n_on_sig++;
	siglongjmp(senv, 1);
}

__attribute__((noinline)) void work_sig(void)
{
	n_work_sig++;
	raise(SIGUSR1);
	sink = 3; /* not reached */
}

__attribute__((noinline)) void drv_sig(int n)
{
	volatile int i;

	for (i = 0; i < n; i++) {
		if (!sigsetjmp(senv, 1))
			work_sig();
		after();
	}
}

/* void tail_after(void): xor; jmp after (a tail call whatever the compiler's
 * flags) */
void tail_after(void);
__asm__(".text\n"
	".globl tail_after\n"
	".type tail_after, @function\n"
	"tail_after:\n"
	"\txor %eax, %eax\n"
	"\tjmp after\n"
	".size tail_after, .-tail_after\n");

__attribute__((noinline)) void drv_tail(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		n_tail++;
		tail_after();
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: longjmp-workload [--calls N] [--depth D]\n"
		   "  --calls N  times each scenario runs (10)\n"
		   "  --depth D  recursive frames the deep scenario leaves "
		   "(50, 1-1000)\n");
}

int main(int argc, char **argv)
{
	unsigned long n = 10, depth = 50;
	struct sigaction sa;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (i + 1 < argc && !strcmp(argv[i], "--calls")) {
			if (parse_uint("calls", argv[++i], 0, 1000000, &n))
				return 2;
		} else if (i + 1 < argc && !strcmp(argv[i], "--depth")) {
			if (parse_uint("depth", argv[++i], 1, 1000, &depth))
				return 2;
		} else {
			usage(stderr);
			return 2;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL)) {
		perror("sigaction");
		return 1;
	}
	drv_one((int)n);
	drv_two((int)n);
	drv_deep((int)n, (int)depth);
	drv_sig((int)n);
	drv_tail((int)n);
	printf("calls=%lu\ndepth=%lu\nleaf_one=%ld\nmid_two=%ld\nleaf_two=%ld\n"
	       "rec_deep=%ld\nwork_sig=%ld\non_sig=%ld\ntail_after=%ld\n"
	       "after=%ld\n",
	       n, depth, n_leaf_one, n_mid_two, n_leaf_two, n_rec_deep,
	       n_work_sig, n_on_sig, n_tail, n_after);
	return 0;
}
