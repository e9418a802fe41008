// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_cxx: a C++ program's user-function timer cost
 * (tests/vm/bench_emulate.sh; bench/README.md, "Emulated return sites").
 *
 * usage: bench_cxx loop WORKLOAD N [REPS]
 *
 * WORKLOAD is the loop that is timed, N iterations, REPS times (default 3):
 *   cxx        a call of bench::Acc::add(int), a member function that the
 *              C++ compiler built (-O2, frame pointer, no -fcf-protection:
 *              it starts with `push %rbp`, as bench_probe's ucall)
 *   cxx-entry  a call of bench_target_entry() (bench/target.h): the same
 *              first instruction, returning where iprof finds no return
 *              site, so that `--returns sites` times it from its entry
 *              only (an entry uprobe alone, in this program)
 *
 * The program throws and catches a C++ exception (a bad N or REPS): it
 * imports __cxa_throw, so `--returns auto` keeps return sites for its
 * functions where the kernel single-steps them (README.md, "Return
 * sites"), as for any C++ program.
 *
 * Output, one line on stdout, as bench_probe's:
 *   mode=loop workload=W n=N reps=R calls=N*R ns_per_iter=BEST median=MEDIAN
 * Exit status 0, 2 on a usage error.
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include "target.h"
}

namespace bench {

struct Acc {
	long sum = 0;
	int add(int x);
};

// never inlined, cloned or merged (NO_CLONES in CMakeLists.txt): the
// timer's function stays this symbol.  It saves a callee-saved register
// (%rbx, clobbered), so the compiler gives it a frame: `push %rbp; mov
// %rsp,%rbp; push %rbx` (GCC 12 sets up none in a leaf that needs no
// stack, -fno-omit-frame-pointer or not)
__attribute__((noinline, used)) int Acc::add(int x)
{
	__asm__ volatile("" : "+r"(x)::"memory", "rbx");
	sum += x;
	return x + 1;
}

} // namespace bench

volatile int bench_sink;

static uint64_t now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t run_cxx(long n, bench::Acc &a)
{
	uint64_t t0 = now_ns();
	int acc = 0;

	for (long i = 0; i < n; i++)
		acc += a.add((int)i);
	bench_sink = acc;
	return now_ns() - t0;
}

static uint64_t run_fn(long n, int (*fn)(int))
{
	uint64_t t0 = now_ns();
	int acc = 0;

	for (long i = 0; i < n; i++)
		acc += fn((int)i);
	bench_sink = acc;
	return now_ns() - t0;
}

// a positive count of at most @max, else std::invalid_argument
static long count_arg(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v <= 0 || v > max)
		throw std::invalid_argument(std::string("bad count: ") + s);
	return v;
}

int main(int argc, char **argv)
{
	bench::Acc a;
	long n, reps = 3;
	bool cxx;

	if (argc < 4 || argc > 5 || strcmp(argv[1], "loop") ||
	    (strcmp(argv[2], "cxx") && strcmp(argv[2], "cxx-entry"))) {
		fprintf(stderr, "usage: bench_cxx loop cxx|cxx-entry N [REPS]\n");
		return 2;
	}
	cxx = !strcmp(argv[2], "cxx");
	try {
		n = count_arg(argv[3], 1000000000L);
		if (argc == 5)
			reps = count_arg(argv[4], 64);
	} catch (const std::invalid_argument &e) {
		fprintf(stderr, "bench_cxx: %s\n", e.what());
		return 2;
	}
	std::vector<uint64_t> t;
	for (long r = 0; r < reps; r++)
		t.push_back(cxx ? run_cxx(n, a) : run_fn(n, bench_target_entry));
	std::sort(t.begin(), t.end());
	printf("mode=loop workload=%s n=%ld reps=%ld calls=%ld ns_per_iter=%.2f "
	       "median=%.2f\n",
	       argv[2], n, reps, n * reps, (double)t[0] / (double)n,
	       (double)t[reps / 2] / (double)n);
	return 0;
}
