// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two stacks on one thread (swapcontext): main and a coroutine on an
 * mmap'ed stack take turns, each calling work() once per turn, CALLS turns
 * (argv[1], default 20).  work() spins 1-3 ms (it varies by call) and
 * measures itself.  With uretprobes on work() the kernel killed such a
 * program (SIGILL, "failed to handle uretprobe").  Ground truth:
 * work=2*CALLS main_work=CALLS co_work=CALLS max_ns=<longest work call>
 * total_ns=<all work calls>.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

#define STACK (256 << 10)

static ucontext_t mctx, cctx;
static uint64_t max_ns, total_ns;
static int nmain, nco;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void work(int i)
{
	uint64_t t0 = now_ns(), d;

	while (now_ns() - t0 < (uint64_t)(1 + i % 3) * 1000000ull)
		;
	d = now_ns() - t0;
	total_ns += d;
	if (d > max_ns)
		max_ns = d;
}

static void co_main(void)
{
	int i;

	for (i = 0;; i++) {
		work(i + 1);
		nco++;
		swapcontext(&cctx, &mctx);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, i;
	void *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (stack == MAP_FAILED || getcontext(&cctx))
		return 1;
	cctx.uc_stack.ss_sp = stack;
	cctx.uc_stack.ss_size = STACK;
	cctx.uc_link = &mctx;
	makecontext(&cctx, co_main, 0);
	for (i = 0; i < n; i++) {
		work(i);
		nmain++;
		swapcontext(&mctx, &cctx);
	}
	printf("work=%d\nmain_work=%d\nco_work=%d\nmax_ns=%llu\ntotal_ns=%llu\n",
	       nmain + nco, nmain, nco, (unsigned long long)max_ns,
	       (unsigned long long)total_ns);
	return 0;
}
