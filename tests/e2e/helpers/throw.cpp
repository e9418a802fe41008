// SPDX-License-Identifier: GPL-2.0-only
// A C++ exception thrown in foo5 through foo1..foo4 and caught in main, N
// times (argv[1], default 10).  With return probes that replace return
// addresses (uretprobes) on foo1..foo5 the unwinder cannot walk the stack
// and the program dies in std::terminate; iprof must leave it intact.
// Ground truth on stdout: calls=N, then "caught N" (and exit 0).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static volatile int sink;

extern "C" {
__attribute__((noinline)) void foo5(int i)
{
	if (i >= 0)
		throw std::runtime_error("boom");
	sink = i;
}
// a statement after each call: no tail call, each frame stays on the stack
__attribute__((noinline)) void foo4(int i) { foo5(i); sink = 4; }
__attribute__((noinline)) void foo3(int i) { foo4(i); sink = 3; }
__attribute__((noinline)) void foo2(int i) { foo3(i); sink = 2; }
__attribute__((noinline)) void foo1(int i) { foo2(i); sink = 1; }
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			foo1(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	printf("calls=%d\n", n);
	printf("caught %d\n", caught);
	return caught == n ? 0 : 1;
}
