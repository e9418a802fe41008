// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C program linked with a C++ library (judge/cxxlib.cc), for --returns
 * auto's judgment (tests/e2e/test_unwind_judge.sh).  timed() is the
 * function timed.  Built three ways:
 *   -DCATCH  the library calls cb() inside its try block, and timed()
 *            calls its cxx_throw() on odd calls: the exception crosses
 *            timed()'s frame to the catch above it;
 *   -DFORCE  also imports pthread_exit (a forced unwind), beside the
 *            library's destructors;
 *   neither  the library's destructors only, nothing catches beside it.
 *   e2e-judge-* N: N calls of timed(); prints "calls=N caught=M".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int cxx_len(const char *s);
#ifdef CATCH
int cxx_try(void (*cb)(int), int i);
void cxx_throw(int i);
#endif

static volatile int sink;

__attribute__((noinline)) void timed(int i)
{
	sink += cxx_len("abc");
#ifdef CATCH
	if (i & 1)
		cxx_throw(i);
#endif
	sink += i;
}

#ifdef CATCH
static void cb(int i)
{
	timed(i);
}
#endif

#ifdef FORCE
static void *quit(void *a)
{
	timed(0);
	pthread_exit(a);
}
#endif

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, i, caught = 0;

	for (i = 0; i < n; i++) {
#ifdef CATCH
		caught += cxx_try(cb, i);
#else
		timed(i);
#endif
	}
#ifdef FORCE
	pthread_t t;

	if (pthread_create(&t, NULL, quit, NULL) == 0)
		pthread_join(t, NULL);
#endif
	printf("calls=%d caught=%d\n", n, caught);
	return 0;
}
