// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_inline FILE FUNC...: what inl_find() (src/probe/inline.c) costs on
 * one ELF file, a kernel module's debug file included (the planner's
 * only way into one is a loaded module: this reads any file).  Per
 * function, in order: its instances (timed / refused) and the wall time
 * of the call (ns; the first indexes the file's DWARF, the rest reuse
 * the index), then the whole.  bench/inline.sh runs it; a benchmark,
 * not a test.  BENCH_INLINE_WHY=1 lists each instance and why it is
 * refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "iprof/inline.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long t0 = now_ns(), t;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_inline FILE FUNC...\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		struct inl_inst *v;
		size_t n, k, timed = 0, more = 0;
		char err[512];
		int r;

		t = now_ns();
		r = inl_find(argv[1], argv[i], NULL, &v, &n, &more, NULL, err,
			     sizeof(err));
		t = now_ns() - t;
		if (r) {
			fprintf(stderr, "bench_inline: %s\n", err);
			return 1;
		}
		for (k = 0; k < n; k++)
			timed += !v[k].why;
		printf("%s: %zu instances, %zu timed, %zu refused, %lld ns\n",
		       argv[i], n + more, timed, n + more - timed, t);
		/* BENCH_INLINE_WHY=1: each instance, where and why refused */
		for (k = 0; getenv("BENCH_INLINE_WHY") && k < n; k++)
			printf("  %s at %#llx (%s): %s\n", v[k].caller,
			       (unsigned long long)v[k].entry.addr, v[k].call,
			       v[k].why ? v[k].why : "timed");
		inl_free(v, n);
	}
	inl_forget();
	printf("all: %lld ns\n", now_ns() - t0);
	return 0;
}
