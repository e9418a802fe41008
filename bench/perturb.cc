// SPDX-License-Identifier: GPL-2.0-only
/*
 * perturb: a C++ function of ~6 us that times itself (bench/README.md
 * "The program slowed by a single step"): work() writes N items to a
 * std::ostringstream (the system's libstdc++), takes its string and half
 * of it; its own clock runs from its first line to its return (a guard's
 * destructor).  After a newcomer's driver (trial 10).
 *
 *   g++ -O2 -g -o perturb bench/perturb.cc
 *   ./perturb CALLS N      prints own=NS: work()'s mean by its own clock
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>

static double now()
{
	timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static double own_tot;

__attribute__((noinline)) size_t work(int n)
{
	struct guard {
		double a;
		~guard() { own_tot += now() - a; }
	} g{ now() };
	std::ostringstream os;

	for (int i = 0; i < n; i++)
		os << "item" << i << ' ';
	std::string s = os.str();
	std::string t = s.substr(0, s.size() / 2);
	return t.size() + s.size();
}

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 2000;
	int n = argc > 2 ? atoi(argv[2]) : 200;
	size_t acc = 0;

	for (int k = 0; k < calls; k++)
		acc += work(n);
	printf("own=%.0f acc=%zu\n", own_tot / calls, acc);
	return 0;
}
