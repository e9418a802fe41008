// SPDX-License-Identifier: GPL-2.0-only
// A C program that may load code at run time (dlopen): what it loads is
// in no DT_NEEDED closure, and a C++ plugin could throw through work().
// --returns auto keeps work()'s return sites.  Ground truth: work=N.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) void work(int i)
{
	sink = i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	if (argc > 2 && !dlopen(argv[2], RTLD_NOW))
		fprintf(stderr, "%s\n", dlerror());
	for (int i = 0; i < n; i++)
		work(i);
	printf("work=%d\n", n);
	return 0;
}
