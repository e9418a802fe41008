// SPDX-License-Identifier: GPL-2.0-only
// A C++ program that throws through a C library's function (cb.c):
// call_cb() N times, its callback throwing at every odd call, then once
// more without a throw.  Ground truth on stdout: calls=, thrown=, and
// "caught K" (K = thrown: the program lived through every throw).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" int call_cb(int (*f)(int), int x);

static int thrower(int x)
{
	if (x % 2)
		throw std::runtime_error("odd");
	return x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 10, caught = 0;

	for (int i = 0; i < n; i++) {
		try {
			call_cb(thrower, i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	call_cb(thrower, 0);
	std::printf("calls=%d\nthrown=%d\ncaught %d\n", n + 1, n / 2, caught);
	return 0;
}
