/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench/target.h - the uprobe targets of bench_probe and bench_scale
 * (include it in one file per binary: it defines the functions).
 */
#ifndef IPROF_BENCH_TARGET_H
#define IPROF_BENCH_TARGET_H

/*
 * The uprobe targets: exported (global symbols in `nm`), never inlined, and
 * on x86-64 written in assembly so that their first instruction, which
 * decides what a uprobe on them costs, does not depend on the compiler:
 *
 *   bench_target       push %rbp: the prologue of code built with frame
 *                      pointers; the kernel emulates the push (no
 *                      single-step), the usual cost of a function uprobe
 *   bench_target_nop5  a 5-byte nop, as at a USDT site: 6.18+ kernels turn
 *                      its uprobe into a call, the cheapest uprobe
 *   bench_target_endbr endbr64, then bench_target's code: what GCC's
 *                      -fcf-protection (Ubuntu's default) starts with; the
 *                      kernel single-steps it, iprof's programs skip it
 *                      where they may write registers (include/iprof/emu.h)
 *   bench_target_entry, bench_target_endbr_entry
 *                      bench_target's and bench_target_endbr's first
 *                      instructions, returning by `pop %rcx; jmp *%rcx`
 *                      instead of `ret`: iprof finds no return site there
 *                      (an indirect jmp it cannot explain), so under
 *                      `--returns sites` it times them from their entry
 *                      only; an entry uprobe alone, on the same first
 *                      instruction (tests/vm/bench_emulate.sh)
 *
 * (A function starting with an instruction the kernel must single-step out
 * of line, e.g. `lea` or `endbr64`, costs ~5 us per uprobe on this VM: the
 * trap, not the BPF program, then dominates every probe.)
 */
#ifdef __x86_64__
__asm__(".text\n"
	".globl bench_target\n"
	".type bench_target, @function\n"
	".p2align 4\n"
	"bench_target:\n"
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"	leal 1(%rdi), %eax\n"
	"	popq %rbp\n"
	"	ret\n"
	".size bench_target, .-bench_target\n"
	".globl bench_target_nop5\n"
	".type bench_target_nop5, @function\n"
	".p2align 4\n"
	"bench_target_nop5:\n"
	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"	leal 1(%rdi), %eax\n"
	"	ret\n"
	".size bench_target_nop5, .-bench_target_nop5\n"
	".globl bench_target_endbr\n"
	".type bench_target_endbr, @function\n"
	".p2align 4\n"
	"bench_target_endbr:\n"
	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n" /* endbr64 */
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"	leal 1(%rdi), %eax\n"
	"	popq %rbp\n"
	"	ret\n"
	".size bench_target_endbr, .-bench_target_endbr\n"
	".globl bench_target_entry\n"
	".type bench_target_entry, @function\n"
	".p2align 4\n"
	"bench_target_entry:\n"
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"	leal 1(%rdi), %eax\n"
	"	popq %rbp\n"
	"	popq %rcx\n"
	"	jmpq *%rcx\n"
	".size bench_target_entry, .-bench_target_entry\n"
	".globl bench_target_endbr_entry\n"
	".type bench_target_endbr_entry, @function\n"
	".p2align 4\n"
	"bench_target_endbr_entry:\n"
	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n" /* endbr64 */
	"	pushq %rbp\n"
	"	movq %rsp, %rbp\n"
	"	leal 1(%rdi), %eax\n"
	"	popq %rbp\n"
	"	popq %rcx\n"
	"	jmpq *%rcx\n"
	".size bench_target_endbr_entry, .-bench_target_endbr_entry\n");
int bench_target(int x);
int bench_target_nop5(int x);
int bench_target_endbr(int x);
int bench_target_entry(int x);
int bench_target_endbr_entry(int x);
#else
#if defined(__GNUC__) && !defined(__clang__)
#define TARGET_ATTR __attribute__((noinline, noclone, used))
#else
#define TARGET_ATTR __attribute__((noinline, used))
#endif
TARGET_ATTR int bench_target(int x)
{
	__asm__ volatile("" : "+r"(x)::"memory");
	return x + 1;
}
#endif

#endif
