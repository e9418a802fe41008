// SPDX-License-Identifier: GPL-2.0-only
/*
 * outer() calls exec of this program with "child" while open (a frame that
 * never returns: its image is gone); the new image calls inner() CALLS
 * times (argv[2], default 3) and exits.  Ground truth: outer=1 (entered,
 * never returned) inner=CALLS.  "e2e-execer thread CALLS": a second thread
 * calls outer() (its exec gives it the main thread's pid: de_thread()).
 */
#include <pthread.h>
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

static void *by_thread(void *calls)
{
	outer("/proc/self/exe", calls);
	return NULL;
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
	if (argc > 2 && !strcmp(argv[1], "thread")) {
		pthread_t t;

		if (pthread_create(&t, NULL, by_thread, argv[2]))
			return 1;
		pthread_join(t, NULL); /* the exec ends this thread first */
		return 1;
	}
	outer("/proc/self/exe", argc > 1 ? argv[1] : "3");
	return 1;
}
