// SPDX-License-Identifier: GPL-2.0-only
/*
 * setjmp in main; foo() longjmps back to it; then main calls bar(): N
 * times (argv[1], default 10).  foo never returns; bar runs under main,
 * never under foo.  Ground truth on stdout: calls=N foo=N bar=N.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static volatile int sink;
static int nfoo, nbar;

__attribute__((noinline)) void foo(void)
{
	nfoo++;
	longjmp(env, 1);
}

__attribute__((noinline)) void bar(void)
{
	nbar++;
	sink = 1;
}

__attribute__((noinline)) int run(int n)
{
	volatile int i; /* kept across longjmp */

	for (i = 0; i < n; i++) {
		if (!setjmp(env))
			foo();
		bar();
	}
	return n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	run(n);
	printf("calls=%d\nfoo=%d\nbar=%d\n", n, nfoo, nbar);
	return 0;
}
