// SPDX-License-Identifier: GPL-2.0-only
// tailer() ends in a tail call to callee() at -O2 (jmp callee): a timer
// on tailer stops at the jmp, callee runs beside it (tests/e2e/
// test_fallback.sh builds it).  Ground truth on stdout: tailer=N, callee=N.
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) void callee(int i)
{
	for (int k = 0; k < 20000; k++)
		sink += k ^ i;
}

__attribute__((noinline)) void tailer(int i)
{
	sink = i;
	callee(i);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	for (int i = 0; i < n; i++)
		tailer(i);
	printf("tailer=%d\ncallee=%d\n", n, n);
	return 0;
}
