// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tail jumps to a local function that has no symbol, as in a stripped
 * library (liblzma's lzma_physmem, postgres's CommitTransactionCommand),
 * and a cold part entered with its frame set up, with their ground truth
 * (issue 43; src/probe/retsite.c, adopt(), fde_range()):
 *
 *   e2e-tailjmp N   calls each of tj_only, tj_mixed(0), tj_mixed(1),
 *                   tj_hot(0), tj_hot(1) and tj_after N times, in that
 *                   order, then tj_direct N times: tj_only=N tj_mixed=2N
 *                   tj_hot=2N tj_after=N tj_direct=N
 *
 * tj_only is one jmp to .Ltj_local (no symbol; an .eh_frame FDE of
 * several rows: it pushes rbx); tj_mixed(1) rets, tj_mixed(0) jmps
 * there; tj_hot(0) enters its cold part .Ltj_cold (no symbol, its FDE
 * starts with rbx pushed) by a jmp.  tj_mixed's jmp leaves no frame: a
 * tail call, its stop (retsite_find(), entry_sp()); tj_only, a thunk,
 * and tj_hot read the code they jump to in, its rets their return sites;
 * tj_after, a plain function, must never nest under them; tj_direct
 * calls .Ltj_local, whose ret then closes no frame of tj_only's.
 */
#include <stdio.h>
#include <stdlib.h>

int tj_only(int v);
int tj_mixed(int v);
int tj_hot(int v);
int tj_direct(int v);

#ifdef __x86_64__
__asm__(".text\n"
	/* the local function: its FDE has 3 rows, its ret in the last */
	".p2align 4\n"
	".Ltj_local:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	lea 1(%rdi), %ebx\n"
	"	mov %ebx, %eax\n"
	"	pop %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".p2align 4\n"
	".globl tj_only\n.type tj_only, @function\ntj_only:\n"
	"	.cfi_startproc\n"
	"	jmp .Ltj_local\n"
	"	.cfi_endproc\n"
	".size tj_only, .-tj_only\n"
	/* a call of the local function itself, not a tail jump */
	".p2align 4\n"
	".globl tj_direct\n.type tj_direct, @function\ntj_direct:\n"
	"	.cfi_startproc\n"
	"	sub $8, %rsp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	call .Ltj_local\n"
	"	add $8, %rsp\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size tj_direct, .-tj_direct\n"
	".p2align 4\n"
	".globl tj_mixed\n.type tj_mixed, @function\ntj_mixed:\n"
	"	.cfi_startproc\n"
	"	test %edi, %edi\n"
	"	je 1f\n"
	"	xor %eax, %eax\n"
	"	ret\n"
	"1:	jmp .Ltj_local\n"
	"	.cfi_endproc\n"
	".size tj_mixed, .-tj_mixed\n"
	".p2align 4\n"
	".globl tj_hot\n.type tj_hot, @function\ntj_hot:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	mov %edi, %ebx\n"
	"	test %edi, %edi\n"
	"	jne 1f\n"
	"	jmp .Ltj_cold\n"
	"1:	mov %ebx, %eax\n"
	"	pop %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size tj_hot, .-tj_hot\n"
	/* its cold part: entered with rbx pushed, as GCC's .cold FDE says */
	".p2align 4\n"
	".Ltj_cold:\n"
	"	.cfi_startproc\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	lea 2(%rbx), %eax\n"
	"	nop\n"
	"	pop %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n");
#endif

__attribute__((noinline)) int tj_after(int v)
{
	__asm__ volatile("" ::: "memory");
	return v + 3;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 10;
	volatile int s = 0;

	for (i = 0; i < n; i++) {
		s += tj_only((int)i);
		s += tj_mixed(0) + tj_mixed(1);
		s += tj_hot(0) + tj_hot(1);
		s += tj_after((int)i);
		s += tj_direct((int)i);
	}
	printf("tj_only=%ld\ntj_mixed=%ld\ntj_hot=%ld\ntj_after=%ld\n"
	       "tj_direct=%ld\n",
	       n, 2 * n, 2 * n, n, n);
	return 0;
}
