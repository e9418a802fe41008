// SPDX-License-Identifier: GPL-2.0-only
/*
 * cxxnames.cc - C++ functions whose demangled names a plain FUNC cannot
 * hold (tests/e2e/test_names.sh: uprobe:PATH:"NAME"): a function in an
 * anonymous namespace, operator<< and operator==, a lambda's call
 * operator, a template whose argument demangles with parentheses
 * (chr<(char)92>), overloads on pointers (ns::p(int*), ns::p(int**): a
 * '*' that is no wildcard), a function with an ABI tag
 * (ns::label[abi:cxx11]: it returns a std::string).  Prints its ground
 * truth: anon.count, shl.count, eq.count, lambda.count, chr.count,
 * p1.count, p2.count, label.count.  Usage: e2e-cxxnames [N] (anon N
 * times, operator<< N+1, operator== N+2, the lambda N+3, chr N+4, p(int*)
 * N+5, p(int**) N+6, label N+7; default N 3).
 */
#include <cstdio>
#include <cstdlib>
#include <string>

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

namespace ns {
FIX int p(int *x)
{
	return *x + sink;
}

FIX int p(int **x)
{
	return **x + sink;
}

FIX std::string label(int x)
{
	return std::string(1, (char)('a' + x % 26 + sink));
}
} // namespace ns

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
	int v = 1, *pv = &v;
	for (i = 0; i < n + 5; i++)
		ns::p(pv);
	for (i = 0; i < n + 6; i++)
		ns::p(&pv);
	for (i = 0; i < n + 7; i++)
		sink += (int)ns::label(i).size();
	printf("anon.count=%d\nshl.count=%d\neq.count=%d\nlambda.count=%d\nchr.count=%d\n"
	       "p1.count=%d\np2.count=%d\nlabel.count=%d\n",
	       n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, n + 7);
	return 0;
}
