// SPDX-License-Identifier: GPL-2.0-only
// A C program that may load code at run time (dlopen): what it loads is
// in no DT_NEEDED closure.  Built alone, nothing in it unwinds: --returns
// auto gives work() a uretprobe, and says that a runtime it loads later
// is warned of.  Arguments: N [PLUGIN [GATE]]: PLUGIN dlopen'ed first,
// then a line read from the file GATE (a fifo: the test opens it once
// iprof has warned of PLUGIN's runtime) before the calls.  Built with
// libstdc++ linked in (a C program linking a C++ library), work() keeps
// its return sites.  Ground truth: work=N.
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
	char line[16];
	FILE *g;

	if (argc > 2 && !dlopen(argv[2], RTLD_NOW))
		fprintf(stderr, "%s\n", dlerror());
	if (argc > 3) {
		g = fopen(argv[3], "r");
		if (!g || !fgets(line, sizeof(line), g))
			fprintf(stderr, "cannot read %s\n", argv[3]);
		if (g)
			fclose(g);
	}
	for (int i = 0; i < n; i++)
		work(i);
	printf("work=%d\n", n);
	return 0;
}
