// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls of libc's indirect functions (STT_GNU_IFUNC) with their own truth,
 * for tests/e2e/test_ifunc.sh: strlen() N times and memchr() 2N times
 * through the program's PLT (the volatile pointers keep the compiler from
 * folding the calls), nothing else of libc's string functions on the way
 * (write(2), not stdio, until the counts are printed).
 *
 *   e2e-ifunc N
 *
 * Prints strlen.count=N, memchr.count=2N and the bytes they measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *volatile text = "an indirect function";
static size_t (*volatile len_fn)(const char *) = strlen;
static void *(*volatile chr_fn)(const void *, int, size_t) = memchr;

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1;
	size_t sum = 0;

	for (i = 0; i < n; i++) {
		sum += len_fn(text);
		sum += chr_fn(text, 'i', 8) != NULL;
		sum += chr_fn(text, 'z', 8) != NULL;
	}
	printf("strlen.count=%ld\nmemchr.count=%ld\nsum=%zu\n", n, 2 * n,
	       sum);
	return 0;
}
