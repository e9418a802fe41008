// SPDX-License-Identifier: GPL-2.0-only
/*
 * inline_shapes: inlined functions in the shapes that once went wrong
 * (tests/e2e/test_inline.sh), built -O3 -g.  Each function counts its
 * own calls, printed at the end as "truth NAME=COUNT ...":
 *  - cond/then: then() inlined under an if on cond()'s result, so that
 *    cond's exit is then's entry (a stop and a start at one address);
 *  - early: inlined into early_site() whose own ret is early's exit
 *    (with --returns sites: an instance's stop and a return site's);
 *  - tailext: inlined where its only call is a tail call (its entry is a
 *    jmp out of its caller: refused);
 *  - big: partially inlined (its head in each caller, the rest in
 *    big.part.0: counted once);
 *  - rec: a recursion inlined into itself (instances in instances, one
 *    caller's frame).
 *
 * Usage: inline_shapes [N (100)]
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;
static unsigned long n_cond, n_then, n_early, n_early_site, n_tailext,
	n_tail_site, n_big, n_rec;

static inline __attribute__((always_inline)) int cond(int x)
{
	n_cond++;
	if (x & 1) {
		sink += 1;
		return 1;
	}
	sink += 2;
	return 0;
}

static inline __attribute__((always_inline)) void then(int y)
{
	n_then++;
	for (int i = 0; i < (y & 15); i++)
		sink += i;
}

__attribute__((noinline)) void cond_site(int x, int y)
{
	if (cond(x))
		then(y);
	else
		sink += 7;
	sink += 5;
}

static inline __attribute__((always_inline)) int early(int x)
{
	n_early++;
	if (x & 1) {
		sink += 1;
		return 1;
	}
	sink += 2;
	return 0;
}

__attribute__((noinline)) void early_site(int x)
{
	n_early_site++;
	if (early(x))
		return;
	for (int i = 0; i < (x & 15); i++)
		sink += i;
}

__attribute__((noinline)) void ext(int x)
{
	sink += x;
	__asm__ volatile("");
}

static inline __attribute__((always_inline)) void tailext(int x)
{
	ext(x);
}

__attribute__((noinline)) void tail_site(int x)
{
	n_tail_site++;
	n_tailext++;
	tailext(x);
}

static unsigned long big(int x)
{
	n_big++;
	if (x < 10)
		return 1;
	unsigned long s = 0;
	for (int i = 0; i < x; i++) {
		s += sink * i;
		s ^= sink << (i & 7);
		s += i * i * sink;
		if (s & 0x100)
			sink++;
		s -= sink / 3;
		s ^= sink * 17;
	}
	return s;
}

__attribute__((noinline)) void big1(int x) { sink += big(x); }
__attribute__((noinline)) void big2(int x) { sink += big(x + 1); }
__attribute__((noinline)) void big3(int x) { sink += big(x * 2); }

static int rec(int n)
{
	n_rec++;
	int r = n;
	if (n % 3 == 1)
		r += rec(n - 1);
	ext(1);
	sink += r;
	sink ^= (unsigned long)r << 3;
	sink *= 5;
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;

	for (int i = 0; i < n; i++) {
		cond_site(i, i * 3);
		early_site(i);
		tail_site(i);
		big1(i % 20);
		big2(i % 20);
		big3(i % 20);
		sink += rec(i);
	}
	printf("truth cond=%lu then=%lu early=%lu early_site=%lu tailext=%lu tail_site=%lu big=%lu rec=%lu\n",
	       n_cond, n_then, n_early, n_early_site, n_tailext, n_tail_site,
	       n_big, n_rec);
	return 0;
}
