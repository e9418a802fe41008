// SPDX-License-Identifier: GPL-2.0-only
/*
 * A library that runs its caller's callback on a coroutine of its own
 * (libc's makecontext and swapcontext, as OpenSSL's async jobs in
 * libcrypto): the program that links it imports no context function, the
 * library does (tests/e2e/test_usession.sh).
 *
 * corolib_run(fn, n): fn(k) for k = 0..n-1 on the coroutine's stack (a
 * malloc'ed one, below the thread's own); corolib_yield(), called by fn,
 * switches back to corolib_run's caller with fn's frame open on the
 * coroutine; corolib_resume() switches into it again.
 */
#include <stdlib.h>
#include <ucontext.h>

#define STK (256 << 10)

static ucontext_t main_ctx, co_ctx;
static void (*co_fn)(int);
static int co_n, co_done;

static void body(void)
{
	int k;

	for (k = 0; k < co_n; k++)
		co_fn(k);
	co_done = 1;
}

int corolib_start(void (*fn)(int), int n)
{
	void *stk = malloc(STK);

	if (!stk || getcontext(&co_ctx))
		return -1;
	co_ctx.uc_stack.ss_sp = stk;
	co_ctx.uc_stack.ss_size = STK;
	co_ctx.uc_link = &main_ctx;
	co_fn = fn;
	co_n = n;
	co_done = 0;
	makecontext(&co_ctx, body, 0);
	return swapcontext(&main_ctx, &co_ctx);
}

void corolib_yield(void)
{
	swapcontext(&co_ctx, &main_ctx);
}

int corolib_resume(void)
{
	if (co_done)
		return 0;
	swapcontext(&main_ctx, &co_ctx);
	return !co_done;
}
