// SPDX-License-Identifier: GPL-2.0-only
/*
 * AVX-512 code as glibc's string functions are written (tests/e2e/
 * test_avx.sh): bcast_evex() starts with an EVEX-encoded instruction,
 * which the kernel corrupts when a uprobe makes it single-step it (its
 * destination is left unwritten), so iprof refuses a uprobe there;
 * bcast_mid() holds EVEX and VEX instructions that Capstone 4 cannot
 * decode (vpcmpeqb into a mask register, kmovd) between its entry and its
 * two rets, whose return sites iprof finds all the same.
 *   e2e-avx N: N calls of each; prints "avx512=0" where the CPU lacks
 *   AVX-512 (F, BW, VL: nothing run), else "avx512=1", "calls=N" and
 *   "bad=B", the calls whose result was wrong (0 untraced).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* out[0..31] = c */
__attribute__((naked, noinline, used)) void bcast_evex(unsigned char *out,
							int c)
{
	__asm__("vpbroadcastb %esi, %ymm17\n\t"
		"vmovdqu64 %ymm17, (%rdi)\n\t"
		"vzeroupper\n\t"
		"ret");
}

/* out[0..31] = c; 1 if out[0..31] was c before, else 0 */
__attribute__((naked, noinline, used)) int bcast_mid(unsigned char *out,
						      int c)
{
	__asm__("push %rbp\n\t"
		"mov %rsp, %rbp\n\t"
		"vpbroadcastb %esi, %ymm17\n\t"
		"vpcmpeqb (%rdi), %ymm17, %k0\n\t"
		"vmovdqu64 %ymm17, (%rdi)\n\t"
		"kmovd %k0, %eax\n\t"
		"vzeroupper\n\t"
		"cmp $-1, %eax\n\t"
		"jne 1f\n\t"
		"mov $1, %eax\n\t"
		"pop %rbp\n\t"
		"ret\n"
		"1:\n\t"
		"xor %eax, %eax\n\t"
		"pop %rbp\n\t"
		"ret");
}

int main(int argc, char **argv)
{
	void (*volatile f)(unsigned char *, int) = bcast_evex;
	int (*volatile g)(unsigned char *, int) = bcast_mid;
	int n = argc > 1 ? atoi(argv[1]) : 100, i, j, c, bad = 0, same = 0;
	unsigned char b[32];

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx512f") ||
	    !__builtin_cpu_supports("avx512bw") ||
	    !__builtin_cpu_supports("avx512vl")) {
		printf("avx512=0\n");
		return 0;
	}
	for (i = 0; i < n; i++) {
		c = 'a' + i % 20;
		memset(b, 0, sizeof(b));
		f(b, c);
		for (j = 0; j < 32 && b[j] == c; j++)
			;
		bad += j < 32;
		same += g(b, c); /* already c (where bcast_evex worked) */
		same -= g(b, c + 1) != 0;
		for (j = 0; j < 32 && b[j] == c + 1; j++)
			;
		bad += j < 32;
	}
	printf("avx512=1\ncalls=%d\nbad=%d\nsame=%d\n", n, bad, same);
	return 0;
}
