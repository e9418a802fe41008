// SPDX-License-Identifier: GPL-2.0-only
/*
 * langnames.c - functions with the symbol names that Rust and Go
 * compilers give, for uprobe timers that name them as those languages
 * write them (tests/e2e/test_names.sh).  No Rust or Go toolchain is
 * needed: asm labels give C functions the real names.
 *
 *   _ZN2rs5parse17h516047a969b77145E  Rust legacy: rs::parse (with a hash)
 *   _RNvNtCs1234_2rs4util5split       Rust v0: rs::util::split
 *   main.main.func1                   Go: a closure in main.main
 *   pkg.f.func2                       Go: a closure in pkg.f
 *   pkg.f.func2.1                     Go: a closure inside pkg.f.func2
 *   main.(*T).M                       Go: a method on *T
 *
 * Each is called its own number of times.  Prints its ground truth:
 * rs_parse.count, rs_split.count, go_func1.count, go_func2.count,
 * go_func2_1.count, go_method.count.  Usage: e2e-langnames [N] (default 3:
 * the counts are N, N+1, ... N+5).
 */
#include <stdio.h>
#include <stdlib.h>

#define FIX __attribute__((noinline, used))

static volatile int sink;

FIX void rs_parse(void) __asm__("_ZN2rs5parse17h516047a969b77145E");
FIX void rs_parse(void)
{
	sink++;
}

FIX void rs_split(void) __asm__("_RNvNtCs1234_2rs4util5split");
FIX void rs_split(void)
{
	sink++;
}

FIX void go_func1(void) __asm__("main.main.func1");
FIX void go_func1(void)
{
	sink++;
}

FIX void go_func2(void) __asm__("pkg.f.func2");
FIX void go_func2(void)
{
	sink++;
}

FIX void go_func2_1(void) __asm__("pkg.f.func2.1");
FIX void go_func2_1(void)
{
	sink++;
}

FIX void go_method(void) __asm__("\"main.(*T).M\"");
FIX void go_method(void)
{
	sink++;
}

static void times(void (*f)(void), int n)
{
	int i;

	for (i = 0; i < n; i++)
		f();
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	times(rs_parse, n);
	times(rs_split, n + 1);
	times(go_func1, n + 2);
	times(go_func2, n + 3);
	times(go_func2_1, n + 4);
	times(go_method, n + 5);
	printf("rs_parse.count=%d\nrs_split.count=%d\ngo_func1.count=%d\n"
	       "go_func2.count=%d\ngo_func2_1.count=%d\ngo_method.count=%d\n",
	       n, n + 1, n + 2, n + 3, n + 4, n + 5);
	return 0;
}
