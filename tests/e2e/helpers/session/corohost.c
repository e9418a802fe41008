// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C program whose library switches stacks (corolib.c) and runs the
 * program's timed() on its coroutine: each call there yields to main with
 * timed()'s frame open on the coroutine's stack, main calls timed() on its
 * own stack, then resumes the coroutine, whose timed() returns.  Under a
 * uretprobe that kills it: the kernel takes the coroutine's return
 * instance (its stack pointer below main's) for a dead frame at main's
 * next call, and the coroutine's return through the trampoline finds none
 * (tests/e2e/test_usession.sh).
 *
 * usage: [E2E_PLAIN=M] e2e-usession N [SECS]; ground truth on stdout:
 * "main=M+N coro=N", M calls on main's stack before the coroutine's N
 * rounds (default N: "main=2N coro=N"); with SECS: "ready" first, then
 * SECS seconds asleep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int corolib_start(void (*fn)(int), int n);
void corolib_yield(void);
int corolib_resume(void);

static volatile unsigned long sink;
static int on_main, on_coro;

/* about 20 us of work, then on the coroutine a yield inside the call */
__attribute__((noinline)) void timed(int yield)
{
	unsigned long i;

	for (i = 0; i < 20000; i++)
		sink += i;
	if (yield) {
		on_coro++;
		corolib_yield();
	} else {
		on_main++;
	}
}

static void from_coro(int k)
{
	(void)k;
	timed(1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, k;
	int plain = getenv("E2E_PLAIN") ? atoi(getenv("E2E_PLAIN")) : n;

	/* SECS (argv[2]): asleep first, for iprof -p */
	if (argc > 2) {
		printf("ready\n");
		fflush(stdout);
		sleep((unsigned int)atoi(argv[2]));
	}
	for (k = 0; k < plain; k++)
		timed(0);
	if (corolib_start(from_coro, n))
		return 1;
	do
		timed(0); /* between the coroutine's yield and its return */
	while (corolib_resume());
	printf("main=%d coro=%d\n", on_main, on_coro);
	return 0;
}
