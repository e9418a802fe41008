// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxx.cc - C++ functions named as a programmer writes them
 * (tests/e2e/test_names.sh): overloads ns::foo(int) and ns::foo(double),
 * ns::bar(int), a const method ns::Box::get() const and a template
 * function ns::twice<int>(int).  Prints its ground truth, one count per
 * function: foo_int.count, foo_double.count, bar.count, get.count,
 * twice.count.  Usage: e2e-cxx [N] (foo(int) N times, foo(double) N+2,
 * bar N+4, get N+6, twice N+8; default N 4).
 */
#include <cstdio>
#include <cstdlib>

#define FIX __attribute__((noinline, used))

static volatile int sink;

namespace ns {
FIX int foo(int x)
{
	return sink += x;
}

FIX int foo(double x)
{
	return sink += (int)x;
}

FIX int bar(int x)
{
	return sink -= x;
}

struct Box {
	int v;
	FIX int get() const
	{
		return v + sink;
	}
};

template <typename T> FIX T twice(T x)
{
	return x + x + sink;
}
template int twice<int>(int);
} // namespace ns

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, i;
	ns::Box b = { 1 };

	for (i = 0; i < n; i++)
		ns::foo(i);
	for (i = 0; i < n + 2; i++)
		ns::foo(i * 0.5);
	for (i = 0; i < n + 4; i++)
		ns::bar(i);
	for (i = 0; i < n + 6; i++)
		b.get();
	for (i = 0; i < n + 8; i++)
		ns::twice(i);
	printf("foo_int.count=%d\nfoo_double.count=%d\nbar.count=%d\n"
	       "get.count=%d\ntwice.count=%d\n",
	       n, n + 2, n + 4, n + 6, n + 8);
	return 0;
}
