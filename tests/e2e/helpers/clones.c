// SPDX-License-Identifier: GPL-2.0-only
/*
 * clones.c - functions with compiler-clone names, for uprobe timers that
 * name the function as written (tests/e2e/test_names.sh).  The clone
 * names are given with asm labels, so they exist whatever the compiler
 * decides (gcc -O2 makes such symbols: helper.constprop.0 when it
 * specializes helper for a constant argument, helper.isra.0 after
 * scalar replacement of its arguments, helper.cold for its cold blocks):
 *
 *   helper               called HELPER_DIRECT times
 *   helper.constprop.0   a specialized copy of helper, called
 *                        HELPER_CLONE times
 *   helper.cold          a cold part: never called
 *   lone.isra.0          a clone whose function has no symbol of its own
 *                        (lone inlined everywhere else), called LONE times
 *
 * Prints its ground truth: helper.direct, helper.clone, helper.count
 * (both), lone.count.  Usage: e2e-clones [DIRECT [CLONE [LONE]]]
 * (default 5 7 3).
 */
#include <stdio.h>
#include <stdlib.h>

#define FIX __attribute__((noinline, used))

static volatile int sink;

FIX int helper(int x)
{
	sink += x;
	return sink;
}

FIX int helper_cp(void) __asm__("helper.constprop.0");
FIX int helper_cp(void)
{
	sink += 3;
	return sink;
}

FIX int helper_cold(void) __asm__("helper.cold");
FIX int helper_cold(void)
{
	abort();
}

FIX int lone_isra(int x) __asm__("lone.isra.0");
FIX int lone_isra(int x)
{
	sink -= x;
	return sink;
}

int main(int argc, char **argv)
{
	int direct = argc > 1 ? atoi(argv[1]) : 5;
	int clone = argc > 2 ? atoi(argv[2]) : 7;
	int lone = argc > 3 ? atoi(argv[3]) : 3;
	int i;

	for (i = 0; i < direct; i++)
		helper(i);
	for (i = 0; i < clone; i++)
		helper_cp();
	for (i = 0; i < lone; i++)
		lone_isra(i);
	printf("helper.direct=%d\nhelper.clone=%d\nhelper.count=%d\n"
	       "lone.count=%d\n",
	       direct, clone, direct + clone, lone);
	return 0;
}
