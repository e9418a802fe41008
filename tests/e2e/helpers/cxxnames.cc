// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxxnames.cc - C++ functions whose demangled names a plain FUNC cannot
 * hold (tests/e2e/test_names.sh: uprobe:PATH:"NAME"): a function in an
 * anonymous namespace, operator<< and operator==, a lambda's call
 * operator, a template whose argument demangles with parentheses
 * (chr<(char)92>).  Prints its ground truth: anon.count, shl.count,
 * eq.count, lambda.count, chr.count.  Usage: e2e-cxxnames [N] (anon N
 * times, operator<< N+1, operator== N+2, the lambda N+3, chr N+4;
 * default N 3).
 */
#include <cstdio>
#include <cstdlib>

#define FIX __attribute__((noinline, used))

static volatile int sink;

struct S {
	int v;
};

namespace {
FIX int anon(int x)
{
	return sink += x;
}
} // namespace

FIX S &operator<<(S &s, int x)
{
	s.v += x + sink;
	return s;
}

FIX bool operator==(const S &a, const S &b)
{
	return a.v == b.v + sink;
}

template <char C> FIX int chr()
{
	return C + sink;
}
template int chr<'\\'>();

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, i;
	S s{0};
	auto lam = [](int x) __attribute__((noinline)) { return sink += x; };

	for (i = 0; i < n; i++)
		anon(i);
	for (i = 0; i < n + 1; i++)
		s << i;
	for (i = 0; i < n + 2; i++)
		(void)(s == s);
	for (i = 0; i < n + 3; i++)
		lam(i);
	for (i = 0; i < n + 4; i++)
		chr<'\\'>();
	printf("anon.count=%d\nshl.count=%d\neq.count=%d\nlambda.count=%d\nchr.count=%d\n",
	       n, n + 1, n + 2, n + 3, n + 4);
	return 0;
}
