// SPDX-License-Identifier: GPL-2.0-only
// A C program (nothing in it can unwind: no C++, no longjmp) with a
// function whose return sites cannot be found: hop() leaves by jmp *%rax
// to leaf().  --returns auto gives it a uretprobe (safe here).
// Ground truth on stdout: hop=N.
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) void leaf(int i)
{
	sink = i;
}
void hop(int i);
__asm__(".text\n.globl hop\n.type hop, @function\nhop:\n"
	"	.cfi_startproc\n"
	"	lea leaf(%rip), %rax\n"
	"	jmp *%rax\n"
	"	.cfi_endproc\n"
	".size hop, .-hop\n");

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	for (int i = 0; i < n; i++)
		hop(i);
	printf("hop=%d\n", n);
	return 0;
}
