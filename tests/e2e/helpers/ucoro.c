// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack switches onto stacks close to the one left (uftrace's ucontext
 * test shape): main calls foo CALLS times (argv[2], default 10); foo
 * switches (swapcontext) to a coroutine whose stack is a buffer in a
 * frame of the same stack, less than 64 KiB away, and returns once the
 * coroutine is done.  MODE (argv[1]):
 *   main: the buffer is in main's frame (above foo's); the coroutine calls
 *         bar and returns (uc_link: setcontext back into foo)
 *   foo:  the same with the buffer in foo's own frame (below its slot)
 *   nested: two coroutines B and C on two buffers of main's frame: B
 *         calls b1, switches to C, C calls c1 and switches back to B, B
 *         calls b2 and returns to foo (uc_link)
 * Every call returns: a tree main > foo > {bar | b1, c1, b2}, nothing
 * unwound.  Ground truth: foo=CALLS bar=N b1=N c1=N b2=N (N: CALLS in the
 * modes that call them, else 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define STK (16 << 10)

static ucontext_t a_ctx, b_ctx, c_ctx;
static int nfoo, nbar, nb1, nc1, nb2;

__attribute__((noinline)) void bar(void)
{
	nbar++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void b1(void)
{
	nb1++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void c1(void)
{
	nc1++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void b2(void)
{
	nb2++;
	__asm__ volatile("" ::: "memory");
}

static void co_bar(void)
{
	bar();
}

static void co_c(void)
{
	c1();
	swapcontext(&c_ctx, &b_ctx);
}

static void co_b(void)
{
	b1();
	swapcontext(&b_ctx, &c_ctx);
	b2();
}

static int make(ucontext_t *c, char *stk, ucontext_t *link, void (*fn)(void))
{
	if (getcontext(c))
		return -1;
	c->uc_stack.ss_sp = stk;
	c->uc_stack.ss_size = STK;
	c->uc_link = link;
	makecontext(c, fn, 0);
	return 0;
}

/* one turn: a coroutine (two when nested) on @s1 (and @s2), or on a
 * buffer of this frame when @s1 is NULL */
__attribute__((noinline)) int foo(char *s1, char *s2)
{
	char own[STK];
	int ret;

	nfoo++;
	if (s2)
		ret = make(&b_ctx, s1, &a_ctx, co_b) ||
		      make(&c_ctx, s2, &b_ctx, co_c);
	else
		ret = make(&b_ctx, s1 ? s1 : own, &a_ctx, co_bar);
	if (!ret)
		ret = swapcontext(&a_ctx, &b_ctx);
	__asm__ volatile("" : : "r"(own) : "memory");
	return ret;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "main";
	int n = argc > 2 ? atoi(argv[2]) : 10, i;
	char stk[2][STK];

	for (i = 0; i < n; i++) {
		int r;

		if (!strcmp(mode, "main"))
			r = foo(stk[0], NULL);
		else if (!strcmp(mode, "foo"))
			r = foo(NULL, NULL);
		else
			r = foo(stk[0], stk[1]);
		if (r)
			return 1;
	}
	__asm__ volatile("" : : "r"(stk) : "memory");
	printf("foo=%d\nbar=%d\nb1=%d\nc1=%d\nb2=%d\n", nfoo, nbar, nb1, nc1,
	       nb2);
	return 0;
}
