// SPDX-License-Identifier: GPL-2.0-only
/*
 * rec() recursing DEPTH deep (argv[2], default 100), called CALLS times
 * (argv[1], default 10) from main.  Ground truth: calls=CALLS depth=DEPTH
 * levels=CALLS*DEPTH (calls of rec).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile long levels;

__attribute__((noinline)) void rec(int d)
{
	levels++;
	if (d > 1)
		rec(d - 1);
	levels += 0; /* no tail call: each level returns by its own ret */
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int d = argc > 2 ? atoi(argv[2]) : 100;
	int i;

	for (i = 0; i < n; i++)
		rec(d);
	printf("calls=%d\ndepth=%d\nlevels=%ld\n", n, d, levels);
	return 0;
}
