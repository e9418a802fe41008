// SPDX-License-Identifier: GPL-2.0-only
/*
 * outer() calls exec of this program with "child" while open (a frame that
 * never returns: its image is gone); the new image calls inner() CALLS
 * times (argv[2], default 3) and exits.  Ground truth: outer=1 (entered,
 * never returned) inner=CALLS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void inner(void)
{
	sink++;
}

__attribute__((noinline)) void outer(const char *self, const char *calls)
{
	printf("outer=1\n");
	fflush(stdout);
	execl(self, self, "child", calls, (char *)NULL);
	perror("execl");
	exit(1);
}

int main(int argc, char **argv)
{
	int i, n;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		n = argc > 2 ? atoi(argv[2]) : 3;
		for (i = 0; i < n; i++)
			inner();
		printf("inner=%d\n", n);
		return 0;
	}
	outer("/proc/self/exe", argc > 1 ? argv[1] : "3");
	return 1;
}
