// SPDX-License-Identifier: GPL-2.0-only
// An untraced C++ program that throws out of a qsort(3) comparator: N
// sorts of 16 numbers, each comparator's 7th call throwing, every throw
// caught in main (issue 43: a uretprobe on libc's qsort, which is in every
// process that maps libc.so.6, aborted it with "terminate called after
// throwing an instance of 'std::runtime_error'").  Ground truth on stdout:
// sorts=N, then "caught K" (K = N: it lived through every throw).
// Usage: qsort [N] [SLEEP_US between sorts]
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

static int calls;

static int cmp(const void *a, const void *b)
{
	if (++calls == 7)
		throw std::runtime_error("7th");
	return *static_cast<const int *>(a) - *static_cast<const int *>(b);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 10, caught = 0;
	int us = argc > 2 ? std::atoi(argv[2]) : 0;

	for (int r = 0; r < n; r++) {
		int v[16];

		for (int i = 0; i < 16; i++)
			v[i] = (i * 7919 + r) % 101;
		calls = 0;
		try {
			qsort(v, 16, sizeof(v[0]), cmp);
		} catch (const std::exception &) {
			caught++;
		}
		if (us)
			usleep(us);
	}
	std::printf("sorts=%d\ncaught %d\n", n, caught);
	return 0;
}
