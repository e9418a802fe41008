// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_unwind FILE...: --returns auto's judgment (unwind_judge(),
 * src/probe/unwind.c) of each ELF executable as a program of its own (it
 * and its DT_NEEDED closure), one line each:
 *   R FILE: WHY
 * R is 1 where a uretprobe on one of its functions could meet an unwinder
 * or a stack switch (return sites kept), 0 where not; WHY is the evidence
 * or the judgment.  Where this kernel single-steps return sites, each 1
 * is a program whose returns cost a single step each under iprof's
 * defaults (bench/unwind.sh sums them by reason).  A benchmark, not a
 * test: exit status 0, 2 on a usage error or no memory.
 */
#include <limits.h>
#include <stdio.h>

#include "iprof/unwind.h"

int main(int argc, char **argv)
{
	static char why[PATH_MAX * 4];
	const char *f;
	int i, r;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_unwind FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		f = argv[i];
		r = unwind_judge(&f, 1, why, sizeof(why));
		if (r < 0) {
			fprintf(stderr, "bench_unwind: %s: out of memory\n", f);
			return 2;
		}
		printf("%d %s: %s\n", r, f, why);
	}
	return 0;
}
