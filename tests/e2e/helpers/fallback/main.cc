// SPDX-License-Identifier: GPL-2.0-only
// Calls lmid(i) (lthrow throws at i % 3 == 0) and pick(i % 7, i) (throws
// at i % 7 == 3) N times each (argv[1], default 14), catching every
// exception (lib.cc).  Ground truth on stdout: lmid=N, lthrow_thrown=,
// pick=N, pick_thrown=, then "caught M" (M = both thrown; exit 0).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" void lmid(int i);
extern "C" int pick(int k, int i);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 14, caught = 0, lt = 0, pt = 0;

	for (int i = 0; i < n; i++) {
		lt += i % 3 == 0;
		try {
			lmid(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	for (int i = 0; i < n; i++) {
		pt += i % 7 == 3;
		try {
			pick(i % 7, i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	printf("lmid=%d\nlthrow_thrown=%d\npick=%d\npick_thrown=%d\n", n, lt,
	       n, pt);
	printf("caught %d\n", caught);
	return caught == lt + pt ? 0 : 1;
}
