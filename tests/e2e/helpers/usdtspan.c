// SPDX-License-Identifier: GPL-2.0-only
/*
 * A span between two USDT sites with its own truth, for the calibration
 * of USDT spans (tests/e2e/test_calib_usdt.sh): span_call() is two USDT
 * sites, e2e:span_start and e2e:span_stop, on nops (as sys/sdt.h puts
 * them; the notes written out, since sys/sdt.h may be missing) around a
 * call of spin(), which busy-loops SPIN_NS and times itself.  x86-64
 * only (elsewhere it prints unsupported=1).
 *
 *   e2e-usdtspan N SPIN_NS
 *
 * Prints key=value: span.count, span.p50_ns and span.mean_ns (spin()'s
 * own times, each call's clock_gettime() pair around its loop).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t spin_ns;
static uint64_t *v;
static long nv;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline, used)) void spin(void)
{
	uint64_t t0 = now(), t;

	while ((t = now()) - t0 < spin_ns)
		;
	v[nv++] = t - t0;
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl span_call\n"
	".type span_call, @function\n"
	"span_call:\n"
	"\tsub $8, %rsp\n"
	"990:\tnop\n"
	"\tcall spin\n"
	"989:\tnop\n"
	"\tadd $8, %rsp\n"
	"\tret\n"
	".size span_call, .-span_call\n"
	".pushsection .note.stapsdt,\"\",\"note\"\n"
	".balign 4\n"
	".4byte 992f-991f, 994f-993f, 3\n"
	"991:\t.asciz \"stapsdt\"\n"
	"992:\t.balign 4\n"
	"993:\t.8byte 990b, 0, 0\n"
	"\t.asciz \"e2e\"\n"
	"\t.asciz \"span_start\"\n"
	"\t.asciz \"\"\n"
	"994:\t.balign 4\n"
	".4byte 996f-995f, 998f-997f, 3\n"
	"995:\t.asciz \"stapsdt\"\n"
	"996:\t.balign 4\n"
	"997:\t.8byte 989b, 0, 0\n"
	"\t.asciz \"e2e\"\n"
	"\t.asciz \"span_stop\"\n"
	"\t.asciz \"\"\n"
	"998:\t.balign 4\n"
	".popsection\n");
void span_call(void);
#endif

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n, i;
	uint64_t sum = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s N SPIN_NS\n", argv[0]);
		return 2;
	}
#if defined(__x86_64__)
	n = atol(argv[1]);
	spin_ns = (uint64_t)atol(argv[2]);
	v = calloc((size_t)n + 1, sizeof(*v));
	if (!v)
		return 1;
	for (i = 0; i < n; i++)
		span_call();
	for (i = 0; i < nv; i++)
		sum += v[i];
	qsort(v, (size_t)nv, sizeof(*v), cmp);
	printf("span.count=%ld\nspan.p50_ns=%llu\nspan.mean_ns=%llu\n", nv,
	       (unsigned long long)v[(nv - 1) / 2],
	       (unsigned long long)(nv ? sum / (uint64_t)nv : 0));
#else
	(void)n;
	(void)i;
	(void)sum;
	printf("unsupported=1\n");
#endif
	return 0;
}
