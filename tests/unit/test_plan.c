// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for src/probe/plan.c against a fixture tracefs
 * (tests/unit/data/tracefs: format files copied from a 6.18 kernel).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <limits.h>
#include <cmocka.h>

#include "iprof/calib_cost.h"
#include "iprof/ksym.h"
#include "iprof/plan.h"
#include "iprof/probe.h"
#include "iprof/retsite.h"
#include "iprof/sym.h"

static char tracefs[4096];
static char kallsyms[4096]; /* a fixture /proc/kallsyms */

/* Named arguments of two fixture functions, as BTF would give them. */
static int fake_btf(void *ctx, const char *func, const char *name, int *index,
		    int *width, int *is_signed, char *names, size_t len)
{
	(void)ctx;
	if (strcmp(func, "vfs_write") && strcmp(func, "ksys_read"))
		return -ENOENT;
	if (!strcmp(name, "fd")) {
		*index = 0, *width = 4, *is_signed = 0;
		return 0;
	}
	if (!strcmp(name, "count")) {
		*index = 2, *width = 8, *is_signed = 0;
		return 0;
	}
	snprintf(names, len, "fd, buf, count");
	return -ESRCH;
}

static struct plan_env env = { .tracefs = tracefs, .kallsyms = kallsyms, .arg = fake_btf };
static const struct plan_env no_env = { 0 };
static char self[PATH_MAX]; /* this program: an ELF file with a .symtab */

/* A uprobe target: global, never inlined. */
__attribute__((noinline, used)) int plan_test_target(int a, int b)
{
	return a * b + 7;
}

#ifdef __x86_64__
/*
 * Functions whose return sites are known by construction (src/probe/retsite.c):
 * rs_tail leaves by a tail call (jmp at +4) or a ret (its last byte);
 * rs_indirect ends in jmp *%rax (a jump table or a tail call: a
 * uretprobe); rs_noret never returns.
 */
__asm__(".text\n"
	".globl rs_tail\n.type rs_tail, @function\nrs_tail:\n"
	"	test %edi, %edi\n"
	"	je 1f\n"
	"	jmp plan_test_target\n"
	"1:	ret\n"
	".size rs_tail, .-rs_tail\n"
	".globl rs_indirect\n.type rs_indirect, @function\nrs_indirect:\n"
	"	push %rbp\n"
	"	pop %rbp\n"
	"	jmp *%rax\n"
	".size rs_indirect, .-rs_indirect\n"
	".globl rs_noret\n.type rs_noret, @function\nrs_noret:\n"
	"	push %rbp\n"
	"	ud2\n"
	".size rs_noret, .-rs_noret\n"
	/* no .size: its end is its .eh_frame entry's */
	".globl rs_nosize\n.type rs_nosize, @function\nrs_nosize:\n"
	"	.cfi_startproc\n"
	"	test %edi, %edi\n"
	"	je 1f\n"
	"	ret\n"
	"1:	xor %eax, %eax\n"
	"	ret\n"
	"	.cfi_endproc\n"
	/* a cold part with no symbol (a stripped file's f.cold): entered
	 * by a conditional jump, its own .eh_frame entry */
	".globl rs_split\n.type rs_split, @function\nrs_split:\n"
	"	.cfi_startproc\n"
	"	test %edi, %edi\n"
	"	jne .Lrs_cold\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size rs_split, .-rs_split\n"
	"	.cfi_startproc\n"
	".Lrs_cold:\n"
	"	mov $1, %eax\n"
	"	ret\n"
	"	.cfi_endproc\n"
	/* a switch's jump table as GCC makes it (-fPIC): 3 entries, each
	 * in the function; rs_switch_out's last one jumps out of it */
	".globl rs_switch\n.type rs_switch, @function\nrs_switch:\n"
	"	cmp $2, %edi\n"
	"	ja 9f\n"
	"	lea .Lrs_tab(%rip), %rdx\n"
	"	mov %edi, %edi\n"
	"	movslq (%rdx,%rdi,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_s1:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_s2:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_s3:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_switch, .-rs_switch\n"
	".globl rs_switch_out\n.type rs_switch_out, @function\nrs_switch_out:\n"
	"	cmp $2, %edi\n"
	"	ja .Lrs_o9\n"
	"	lea .Lrs_tab2(%rip), %rdx\n"
	"	mov %edi, %edi\n"
	"	movslq (%rdx,%rdi,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_o1:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_o9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_switch_out, .-rs_switch_out\n"
	/* the same without the bound: unproven */
	".globl rs_switch_nobound\n.type rs_switch_nobound, @function\nrs_switch_nobound:\n"
	"	lea .Lrs_tab(%rip), %rdx\n"
	"	movslq (%rdx,%rdi,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".size rs_switch_nobound, .-rs_switch_nobound\n"
	/* jump tables as GCC and clang write them (src/probe/retsite.c,
	 * "Jump tables"), each with 3 or 4 rets, then near misses: the same
	 * code but for one thing that leaves the index unbounded */
	/* liblzma's lzma_code: the bound on memory, the index loaded from it */
	".globl rs_jt_mem\n.type rs_jt_mem, @function\nrs_jt_mem:\n"
	"	cmpl $2, 8(%rdi)\n"
	"	ja 9f\n"
	"	mov 8(%rdi), %ecx\n"
	"	lea .Lrs_jt_mem_t(%rip), %rsi\n"
	"	movslq (%rsi,%rcx,4), %rcx\n"
	"	add %rsi, %rcx\n"
	"	jmp *%rcx\n"
	".Lrs_jt_mem_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jt_mem_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_mem_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jt_mem, .-rs_jt_mem\n"
	/* zlib's inflate: a 32-bit compare, the upper half zeroed by the load */
	".globl rs_jt_zext\n.type rs_jt_zext, @function\nrs_jt_zext:\n"
	"	mov 4(%rdi), %eax\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"	lea .Lrs_jt_zext_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_zext_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jt_zext_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_zext_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jt_zext, .-rs_jt_zext\n"
	/* inflate's loop: the compare at a loop head, a case jumping back with
	 * a 32-bit write */
	".globl rs_jt_loop\n.type rs_jt_loop, @function\nrs_jt_loop:\n"
	"	mov (%rdi), %eax\n"
	"1:	cmp $2, %eax\n"
	"	ja 9f\n"
	"	lea .Lrs_jt_loop_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_loop_a:	lea 1(%rsi), %eax\n"
	"	jmp 1b\n"
	".Lrs_jt_loop_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_loop_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jt_loop, .-rs_jt_loop\n"
	/* clang's: jbe to the table code, the index copied to another register */
	".globl rs_jt_jbe\n.type rs_jt_jbe, @function\nrs_jt_jbe:\n"
	"	cmp $2, %edi\n"
	"	jbe 1f\n"
	"	xor %eax, %eax\n"
	"	ret\n"
	"1:	mov %edi, %eax\n"
	"	lea .Lrs_jt_jbe_t(%rip), %rcx\n"
	"	movslq (%rcx,%rax,4), %rax\n"
	"	add %rcx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_jbe_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jt_jbe_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_jbe_c:	mov $3, %eax\n"
	"	ret\n"
	".size rs_jt_jbe, .-rs_jt_jbe\n"
	/* an 8-bit compare, then movzbl */
	".globl rs_jt_byte\n.type rs_jt_byte, @function\nrs_jt_byte:\n"
	"	cmp $2, %dil\n"
	"	ja 9f\n"
	"	movzbl %dil, %eax\n"
	"	lea .Lrs_jt_byte_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_byte_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jt_byte_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_byte_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jt_byte, .-rs_jt_byte\n"
	/* and $3: 4 entries */
	".globl rs_jt_and\n.type rs_jt_and, @function\nrs_jt_and:\n"
	"	and $3, %edi\n"
	"	lea .Lrs_jt_and_t(%rip), %rdx\n"
	"	movslq (%rdx,%rdi,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_and_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jt_and_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_and_c:	mov $3, %eax\n"
	"	ret\n"
	".Lrs_jt_and_d:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jt_and, .-rs_jt_and\n"
	/* movslq, then a 32-bit compare: below 2^31, the upper half is 0 */
	".globl rs_jt_sx\n.type rs_jt_sx, @function\nrs_jt_sx:\n"
	"	movslq (%rdi), %rax\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"	lea .Lrs_jt_sx_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_sx_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jt_sx_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_sx_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jt_sx, .-rs_jt_sx\n"
	/* the index in a callee-saved register across a call */
	".globl rs_jt_call\n.type rs_jt_call, @function\nrs_jt_call:\n"
	"	push %rbx\n"
	"	mov %edi, %ebx\n"
	"	call plan_test_target\n"
	"	cmp $2, %ebx\n"
	"	ja 9f\n"
	"	lea .Lrs_jt_call_t(%rip), %rdx\n"
	"	movslq (%rdx,%rbx,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_call_a:	pop %rbx\n"
	"	ret\n"
	".Lrs_jt_call_b:	pop %rbx\n"
	"	ret\n"
	".Lrs_jt_call_c:	pop %rbx\n"
	"	ret\n"
	"9:	pop %rbx\n"
	"	ret\n"
	".size rs_jt_call, .-rs_jt_call\n"
	/* split entries (retsite_split()): sp_call's start at its call
	 * (+9: 4 + 1 + 2 + 2 bytes), 0x18 + 8 + 8 bytes below the entry's
	 * stack pointer; sp_jcc's at its je (+6), 8 below; sp_loop's je is
	 * the target of a jump back into the prologue; sp_andsp writes rsp
	 * otherwise; sp_emu starts with a call; sp_tail leaves by a jmp, and
	 * sp_ret by a ret, before anything the kernel emulates */
	".globl sp_call\n.type sp_call, @function\nsp_call:\n"
	"	sub $0x18, %rsp\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	mov %edi, %ebx\n"
	"	call plan_test_target\n"
	"	pop %r12\n"
	"	pop %rbx\n"
	"	add $0x18, %rsp\n"
	"	ret\n"
	".size sp_call, .-sp_call\n"
	".globl sp_jcc\n.type sp_jcc, @function\nsp_jcc:\n"
	"	sub $8, %rsp\n"
	"	test %edi, %edi\n"
	"	je 1f\n"
	"	mov $1, %eax\n"
	"1:	add $8, %rsp\n"
	"	ret\n"
	".size sp_jcc, .-sp_jcc\n"
	".globl sp_loop\n.type sp_loop, @function\nsp_loop:\n"
	"	sub $8, %rsp\n"
	"1:	dec %edi\n"
	"	jne 1b\n"
	"	add $8, %rsp\n"
	"	ret\n"
	".size sp_loop, .-sp_loop\n"
	".globl sp_andsp\n.type sp_andsp, @function\nsp_andsp:\n"
	"	push %rbp\n"
	"	and $-16, %rsp\n"
	"	call plan_test_target\n"
	"	leave\n"
	"	ret\n"
	".size sp_andsp, .-sp_andsp\n"
	".globl sp_emu\n.type sp_emu, @function\nsp_emu:\n"
	"	call plan_test_target\n"
	"	ret\n"
	".size sp_emu, .-sp_emu\n"
	".globl sp_tail\n.type sp_tail, @function\nsp_tail:\n"
	"	sub $8, %rsp\n"
	"	add $8, %rsp\n"
	"	jmp plan_test_target\n"
	".size sp_tail, .-sp_tail\n"
	".globl sp_ret\n.type sp_ret, @function\nsp_ret:\n"
	"	sub $8, %rsp\n"
	"	add $8, %rsp\n"
	"	ret\n"
	".size sp_ret, .-sp_ret\n"
	/* a table reached from another table's entry */
	".globl rs_jt_two\n.type rs_jt_two, @function\nrs_jt_two:\n"
	"	cmp $2, %edi\n"
	"	ja 9f\n"
	"	mov %edi, %eax\n"
	"	lea .Lrs_jt_two_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_two_a:	cmp $1, %esi\n"
	"	ja 9f\n"
	"	mov %esi, %eax\n"
	"	lea .Lrs_jt_two_t2(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_two_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_two_c:	mov $3, %eax\n"
	"	ret\n"
	".Lrs_jt_two_d:	mov $4, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jt_two, .-rs_jt_two\n"
	/* a cold part (no symbol) jumping back into the table code, bounded */
	".globl rs_jt_cold\n.type rs_jt_cold, @function\nrs_jt_cold:\n"
	"	.cfi_startproc\n"
	"	mov %edi, %eax\n"
	"	test %esi, %esi\n"
	"	jne .Lrs_jt_cold_x\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"2:	lea .Lrs_jt_cold_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jt_cold_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jt_cold_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jt_cold_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size rs_jt_cold, .-rs_jt_cold\n"
	"	.cfi_startproc\n"
	".Lrs_jt_cold_x:\n"
	"	mov $1, %eax\n"
	"	jmp 2b\n"
	"	.cfi_endproc\n"
	/* near misses, no table proven:
	 * the index overwritten after the compare */
	".globl rs_jn_clobber\n.type rs_jn_clobber, @function\nrs_jn_clobber:\n"
	"	mov %edi, %eax\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"	mov 8(%rsi), %eax\n"
	"	lea .Lrs_jn_clobber_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_clobber_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_clobber_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_clobber_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_clobber, .-rs_jn_clobber\n"
	/* the compare of another register */
	".globl rs_jn_otherreg\n.type rs_jn_otherreg, @function\nrs_jn_otherreg:\n"
	"	mov %edi, %eax\n"
	"	mov %esi, %ecx\n"
	"	cmp $2, %ecx\n"
	"	ja 9f\n"
	"	lea .Lrs_jn_otherreg_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_otherreg_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_otherreg_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_otherreg_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_otherreg, .-rs_jn_otherreg\n"
	/* the memory compared written before the load */
	".globl rs_jn_store\n.type rs_jn_store, @function\nrs_jn_store:\n"
	"	cmpl $2, 8(%rdi)\n"
	"	ja 9f\n"
	"	mov %esi, 8(%rdi)\n"
	"	mov 8(%rdi), %eax\n"
	"	lea .Lrs_jn_store_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_store_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_store_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_store_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_store, .-rs_jn_store\n"
	/* the compared memory's base register written before the load */
	".globl rs_jn_base\n.type rs_jn_base, @function\nrs_jn_base:\n"
	"	cmpl $2, 8(%rdi)\n"
	"	ja 9f\n"
	"	mov (%rdi), %rdi\n"
	"	mov 8(%rdi), %eax\n"
	"	lea .Lrs_jn_base_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_base_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_base_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_base_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_base, .-rs_jn_base\n"
	/* a 32-bit compare of a 64-bit load: the upper half unknown */
	".globl rs_jn_upper\n.type rs_jn_upper, @function\nrs_jn_upper:\n"
	"	mov (%rdi), %rax\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"	lea .Lrs_jn_upper_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_upper_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_upper_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_upper_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_upper, .-rs_jn_upper\n"
	/* the loop above with a case jumping back with a 64-bit write */
	".globl rs_jn_loop\n.type rs_jn_loop, @function\nrs_jn_loop:\n"
	"	mov (%rdi), %eax\n"
	"1:	cmp $2, %eax\n"
	"	ja 9f\n"
	"	lea .Lrs_jn_loop_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_loop_a:	mov (%rsi), %rax\n"
	"	jmp 1b\n"
	".Lrs_jn_loop_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_loop_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_loop, .-rs_jn_loop\n"
	/* a signed compare: negative indexes pass */
	".globl rs_jn_signed\n.type rs_jn_signed, @function\nrs_jn_signed:\n"
	"	mov %edi, %eax\n"
	"	cmp $2, %eax\n"
	"	jg 9f\n"
	"	lea .Lrs_jn_signed_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_signed_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_signed_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_signed_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_signed, .-rs_jn_signed\n"
	/* a jump into the table code after the compare, unbounded */
	".globl rs_jn_join\n.type rs_jn_join, @function\nrs_jn_join:\n"
	"	mov %edi, %eax\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"2:\n"
	"	lea .Lrs_jn_join_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_join_a:	mov (%rsi), %eax\n"
	"	jmp 2b\n"
	".Lrs_jn_join_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_join_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_join, .-rs_jn_join\n"
	/* the index in a register a call may write */
	".globl rs_jn_call\n.type rs_jn_call, @function\nrs_jn_call:\n"
	"	mov %edi, %ecx\n"
	"	cmp $2, %ecx\n"
	"	ja 9f\n"
	"	call plan_test_target\n"
	"	lea .Lrs_jn_call_t(%rip), %rdx\n"
	"	movslq (%rdx,%rcx,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_call_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_call_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_call_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_call, .-rs_jn_call\n"
	/* bounded on the one path seen, but a notrack jmp (a table iprof
	 * cannot read) may land there too, the index unbounded */
	".globl rs_jn_blind\n.type rs_jn_blind, @function\nrs_jn_blind:\n"
	"	mov %edi, %eax\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"	test %esi, %esi\n"
	"	je 2f\n"
	"	mov (%rdx), %eax\n"
	"	notrack jmp *%rcx\n"
	"2:	lea .Lrs_jn_blind_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_blind_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_blind_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_blind_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	".size rs_jn_blind, .-rs_jn_blind\n"
	/* a cold part jumping back into the table code with an unbounded index */
	".globl rs_jn_cold\n.type rs_jn_cold, @function\nrs_jn_cold:\n"
	"	.cfi_startproc\n"
	"	mov %edi, %eax\n"
	"	test %esi, %esi\n"
	"	jne .Lrs_jn_cold_x\n"
	"	cmp $2, %eax\n"
	"	ja 9f\n"
	"2:	lea .Lrs_jn_cold_t(%rip), %rdx\n"
	"	movslq (%rdx,%rax,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	".Lrs_jn_cold_a:	mov $1, %eax\n"
	"	ret\n"
	".Lrs_jn_cold_b:	mov $2, %eax\n"
	"	ret\n"
	".Lrs_jn_cold_c:	mov $3, %eax\n"
	"	ret\n"
	"9:	xor %eax, %eax\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size rs_jn_cold, .-rs_jn_cold\n"
	"	.cfi_startproc\n"
	".Lrs_jn_cold_x:\n"
	"	mov (%rsi), %eax\n"
	"	jmp 2b\n"
	"	.cfi_endproc\n"
	".section .rodata\n.align 4\n"
	".Lrs_tab:\n"
	"	.long .Lrs_s1 - .Lrs_tab\n"
	"	.long .Lrs_s2 - .Lrs_tab\n"
	"	.long .Lrs_s3 - .Lrs_tab\n"
	".Lrs_tab2:\n"
	"	.long .Lrs_o1 - .Lrs_tab2\n"
	"	.long .Lrs_o9 - .Lrs_tab2\n"
	"	.long plan_test_target - .Lrs_tab2\n"
	".Lrs_jt_mem_t:\n"
	"	.long .Lrs_jt_mem_a - .Lrs_jt_mem_t\n"
	"	.long .Lrs_jt_mem_b - .Lrs_jt_mem_t\n"
	"	.long .Lrs_jt_mem_c - .Lrs_jt_mem_t\n"
	".Lrs_jt_zext_t:\n"
	"	.long .Lrs_jt_zext_a - .Lrs_jt_zext_t\n"
	"	.long .Lrs_jt_zext_b - .Lrs_jt_zext_t\n"
	"	.long .Lrs_jt_zext_c - .Lrs_jt_zext_t\n"
	".Lrs_jt_loop_t:\n"
	"	.long .Lrs_jt_loop_a - .Lrs_jt_loop_t\n"
	"	.long .Lrs_jt_loop_b - .Lrs_jt_loop_t\n"
	"	.long .Lrs_jt_loop_c - .Lrs_jt_loop_t\n"
	".Lrs_jt_jbe_t:\n"
	"	.long .Lrs_jt_jbe_a - .Lrs_jt_jbe_t\n"
	"	.long .Lrs_jt_jbe_b - .Lrs_jt_jbe_t\n"
	"	.long .Lrs_jt_jbe_c - .Lrs_jt_jbe_t\n"
	".Lrs_jt_byte_t:\n"
	"	.long .Lrs_jt_byte_a - .Lrs_jt_byte_t\n"
	"	.long .Lrs_jt_byte_b - .Lrs_jt_byte_t\n"
	"	.long .Lrs_jt_byte_c - .Lrs_jt_byte_t\n"
	".Lrs_jt_sx_t:\n"
	"	.long .Lrs_jt_sx_a - .Lrs_jt_sx_t\n"
	"	.long .Lrs_jt_sx_b - .Lrs_jt_sx_t\n"
	"	.long .Lrs_jt_sx_c - .Lrs_jt_sx_t\n"
	".Lrs_jt_call_t:\n"
	"	.long .Lrs_jt_call_a - .Lrs_jt_call_t\n"
	"	.long .Lrs_jt_call_b - .Lrs_jt_call_t\n"
	"	.long .Lrs_jt_call_c - .Lrs_jt_call_t\n"
	".Lrs_jn_clobber_t:\n"
	"	.long .Lrs_jn_clobber_a - .Lrs_jn_clobber_t\n"
	"	.long .Lrs_jn_clobber_b - .Lrs_jn_clobber_t\n"
	"	.long .Lrs_jn_clobber_c - .Lrs_jn_clobber_t\n"
	".Lrs_jn_otherreg_t:\n"
	"	.long .Lrs_jn_otherreg_a - .Lrs_jn_otherreg_t\n"
	"	.long .Lrs_jn_otherreg_b - .Lrs_jn_otherreg_t\n"
	"	.long .Lrs_jn_otherreg_c - .Lrs_jn_otherreg_t\n"
	".Lrs_jn_store_t:\n"
	"	.long .Lrs_jn_store_a - .Lrs_jn_store_t\n"
	"	.long .Lrs_jn_store_b - .Lrs_jn_store_t\n"
	"	.long .Lrs_jn_store_c - .Lrs_jn_store_t\n"
	".Lrs_jn_base_t:\n"
	"	.long .Lrs_jn_base_a - .Lrs_jn_base_t\n"
	"	.long .Lrs_jn_base_b - .Lrs_jn_base_t\n"
	"	.long .Lrs_jn_base_c - .Lrs_jn_base_t\n"
	".Lrs_jn_upper_t:\n"
	"	.long .Lrs_jn_upper_a - .Lrs_jn_upper_t\n"
	"	.long .Lrs_jn_upper_b - .Lrs_jn_upper_t\n"
	"	.long .Lrs_jn_upper_c - .Lrs_jn_upper_t\n"
	".Lrs_jn_loop_t:\n"
	"	.long .Lrs_jn_loop_a - .Lrs_jn_loop_t\n"
	"	.long .Lrs_jn_loop_b - .Lrs_jn_loop_t\n"
	"	.long .Lrs_jn_loop_c - .Lrs_jn_loop_t\n"
	".Lrs_jn_signed_t:\n"
	"	.long .Lrs_jn_signed_a - .Lrs_jn_signed_t\n"
	"	.long .Lrs_jn_signed_b - .Lrs_jn_signed_t\n"
	"	.long .Lrs_jn_signed_c - .Lrs_jn_signed_t\n"
	".Lrs_jn_join_t:\n"
	"	.long .Lrs_jn_join_a - .Lrs_jn_join_t\n"
	"	.long .Lrs_jn_join_b - .Lrs_jn_join_t\n"
	"	.long .Lrs_jn_join_c - .Lrs_jn_join_t\n"
	".Lrs_jn_call_t:\n"
	"	.long .Lrs_jn_call_a - .Lrs_jn_call_t\n"
	"	.long .Lrs_jn_call_b - .Lrs_jn_call_t\n"
	"	.long .Lrs_jn_call_c - .Lrs_jn_call_t\n"
	".Lrs_jt_and_t:\n"
	"	.long .Lrs_jt_and_a - .Lrs_jt_and_t\n"
	"	.long .Lrs_jt_and_b - .Lrs_jt_and_t\n"
	"	.long .Lrs_jt_and_c - .Lrs_jt_and_t\n"
	"	.long .Lrs_jt_and_d - .Lrs_jt_and_t\n"
	".Lrs_jt_two_t:\n"
	"	.long .Lrs_jt_two_a - .Lrs_jt_two_t\n"
	"	.long .Lrs_jt_two_b - .Lrs_jt_two_t\n"
	"	.long .Lrs_jt_two_c - .Lrs_jt_two_t\n"
	".Lrs_jt_two_t2:\n"
	"	.long .Lrs_jt_two_c - .Lrs_jt_two_t2\n"
	"	.long .Lrs_jt_two_d - .Lrs_jt_two_t2\n"
	".Lrs_jn_blind_t:\n"
	"	.long .Lrs_jn_blind_a - .Lrs_jn_blind_t\n"
	"	.long .Lrs_jn_blind_b - .Lrs_jn_blind_t\n"
	"	.long .Lrs_jn_blind_c - .Lrs_jn_blind_t\n"
	".Lrs_jt_cold_t:\n"
	"	.long .Lrs_jt_cold_a - .Lrs_jt_cold_t\n"
	"	.long .Lrs_jt_cold_b - .Lrs_jt_cold_t\n"
	"	.long .Lrs_jt_cold_c - .Lrs_jt_cold_t\n"
	".Lrs_jn_cold_t:\n"
	"	.long .Lrs_jn_cold_a - .Lrs_jn_cold_t\n"
	"	.long .Lrs_jn_cold_b - .Lrs_jn_cold_t\n"
	"	.long .Lrs_jn_cold_c - .Lrs_jn_cold_t\n"
	".text\n");
#endif

static void setup_paths(void)
{
	const char *d = getenv("IPROF_TESTDATA");
	ssize_t n;

	snprintf(tracefs, sizeof(tracefs), "%s/tracefs",
		 d ? d : "tests/unit/data");
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms",
		 d ? d : "tests/unit/data");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
}

/* @line with "SELF" replaced by this program's path, into a static buffer. */
static const char *with_self(const char *line)
{
	static char buf[8][PATH_MAX + 256];
	static int i;
	const char *at = strstr(line, "SELF");

	i = (i + 1) % 8;
	if (!at)
		snprintf(buf[i], sizeof(buf[i]), "%s", line);
	else
		snprintf(buf[i], sizeof(buf[i]), "%.*s%s%s", (int)(at - line),
			 line, self, at + 4);
	return buf[i];
}

/* File offset of runtime address @addr, from /proc/self/maps. */
static uint64_t maps_offset(const void *addr)
{
	unsigned long long start, end, off;
	uintptr_t a = (uintptr_t)addr;
	char line[PATH_MAX + 128];
	uint64_t ret = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) ==
			    3 &&
		    a >= start && a < end) {
			ret = a - start + off;
			break;
		}
	}
	fclose(f);
	assert_int_not_equal(ret, 0);
	return ret;
}

/* Parse @lines (one spec each) and build a plan against the fixture. */
static void build(struct probe_list *pl, struct plan *p,
		  const char *const *lines, int n)
{
	char err[512];
	int i;

	memset(pl, 0, sizeof(*pl));
	for (i = 0; i < n; i++) {
		const char *line = with_self(lines[i]);
		int r = probe_parse_line(pl, line, "t.conf", i + 1, err,
					 sizeof(err));
		if (r)
			fail_msg("parse '%s': %s", line, err);
	}
	assert_int_equal(plan_build(p, pl, &env), 0);
}

/* write @len bytes of @data to file @path (directories made) */
static void put_file(const char *path, const void *data, size_t len)
{
	char cmd[PATH_MAX + 32];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* @path's bytes into @buf (@len at most): their count */
static size_t get_file(const char *path, void *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len, f);
	fclose(f);
	return n;
}

/*
 * Kernel functions inlined in a loaded module (plan_kinline()), on a
 * fixture system (plan_env.kmod_root): module "kmodule" loaded
 * (proc/modules), its build ID in sys/module/kmodule/notes, its debug
 * file (tests/fixtures/kmodule.c linked -r with a build ID,
 * $IPROF_KMODULE_KO) at Debian's place, and caller() in its kallsyms:
 * func:helper (inlined in caller, no symbol) is timed by kprobes at
 * kmodule:caller+OFF; fentry: cannot; a function inlined nowhere says
 * what was read; a debug file of another build is not taken.
 */
static void kernel_inlined(void **state)
{
	static const char *const l[] = { "func:helper", "fentry:helper",
					  "func:nothere" };
	char root[] = "/tmp/iprof-kroot.XXXXXX", path[PATH_MAX], ks[PATH_MAX];
	char note[256], cmd[PATH_MAX + 16];
	const char *ko = getenv("IPROF_KMODULE_KO");
	struct plan_env e = env;
	struct probe_list pl;
	struct plan p;
	struct utsname u;
	size_t n, i, k = 0;
	static const char syms[] =
		"ffffffffc0001000 t caller\t[kmodule]\n";
	static const char mods[] =
		"kmodule 16384 0 - Live 0xffffffffc0001000\n";
	char *img = malloc(4 << 20);

	(void)state;
	assert_non_null(ko);
	assert_non_null(img);
	assert_non_null(mkdtemp(root));
	assert_int_equal(uname(&u), 0);
	snprintf(path, sizeof(path), "%s/proc/modules", root);
	put_file(path, mods, sizeof(mods) - 1);
	snprintf(cmd, sizeof(cmd), "%.*s", (int)(strlen(ko) - 3), ko);
	strcat(cmd, ".build-id");
	n = get_file(cmd, note, sizeof(note));
	snprintf(path, sizeof(path),
		 "%s/sys/module/kmodule/notes/.note.gnu.build-id", root);
	put_file(path, note, n);
	snprintf(path, sizeof(path),
		 "%s/usr/lib/debug/lib/modules/%s/kernel/drivers/kmodule.ko",
		 root, u.release);
	i = get_file(ko, img, 4 << 20);
	put_file(path, img, i);
	snprintf(ks, sizeof(ks), "%s/kallsyms", root);
	put_file(ks, syms, sizeof(syms) - 1);
	e.kallsyms = ks;
	e.kmodules = 1;
	e.kmod_root = root;
	/* caller is traceable (kprobe events take it) */
	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	put_file(path, "caller [kmodule]\n", 16);
	e.tracefs = root;

	memset(&pl, 0, sizeof(pl));
	for (i = 0; i < 3; i++)
		assert_int_equal(probe_parse_line(&pl, l[i], "t.conf", (int)i + 1,
						  cmd, sizeof(cmd)), 0);
	assert_int_equal(plan_build(&p, &pl, &e), 0);
	assert_int_equal(p.ntimers, 3);
	if (p.timers[0].error)
		fail_msg("func:helper: %s", p.timers[0].error);
	assert_int_equal(p.timers[0].inl_only, 1);
	assert_int_equal(p.timers[0].inl, 1);
	assert_string_equal(p.timers[0].where,
			    "func:helper (inlined only, in module kmodule)");
	assert_non_null(strstr(p.timers[0].inl_where, "in caller at caller+0x"));
	for (i = 0; i < p.natt; i++) {
		if (p.att[i].timer != 0)
			continue;
		assert_int_equal(p.att[i].mech, MECH_KSITE);
		assert_string_equal(p.att[i].func, "kmodule:caller");
		assert_true(p.att[i].offset > 0 && p.att[i].offset < 0x100);
		k++;
	}
	/* its entry and its exits (2 with GCC: test_inline.c) */
	assert_true(k >= 2);
	assert_non_null(p.timers[1].error);
	/* (fentry: not looked up: no "; ..." about modules) */
	assert_null(strstr(p.timers[1].error, "; "));
	assert_non_null(strstr(p.timers[2].error,
			       "; nor inlined in a loaded module (1 module's debug files looked at)"));
	plan_free(&p);

	/* another build's debug file: not taken, and said */
	note[n - 1] ^= 0xff;
	snprintf(path, sizeof(path),
		 "%s/sys/module/kmodule/notes/.note.gnu.build-id", root);
	put_file(path, note, n);
	assert_int_equal(plan_build(&p, &pl, &e), 0);
	assert_non_null(p.timers[0].error);
	assert_non_null(strstr(p.timers[0].error,
			       "no debug file of the kernel or a loaded module says whether it was inlined (only other builds' were found"));
	plan_free(&p);
	probe_list_free(&pl);
	free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/*
 * Kernel functions inlined in the kernel image: the running kernel's
 * build ID in sys/kernel/notes (after another note, as the kernel's Xen
 * notes come first), its vmlinux with DWARF at Debian's place
 * (tests/fixtures/kimage.c, $IPROF_KIMAGE): func:helper is timed by
 * kprobes at caller+OFF (no module prefix), and its instance in a
 * function on the kprobe blacklist is refused.
 */
static void kernel_image_inlined(void **state)
{
	char root[] = "/tmp/iprof-kimg.XXXXXX", path[PATH_MAX], ks[PATH_MAX];
	char note[256 + 24], cmd[PATH_MAX + 16];
	const char *elf = getenv("IPROF_KIMAGE");
	/* an empty note of type 0x999 named "Xen" first */
	static const unsigned char xen[] = { 4, 0, 0, 0, 0, 0, 0, 0, 0x99, 9, 0,
					     0, 'X', 'e', 'n', 0 };
	struct plan_env e = env;
	struct probe_list pl;
	struct plan p;
	struct utsname u;
	size_t n, i, k = 0;
	static const char syms[] =
		"ffffffff81000000 T caller\nffffffff81000100 T caller_nokprobe\n";
	char *img = malloc(4 << 20);

	(void)state;
	assert_non_null(elf);
	assert_non_null(img);
	assert_non_null(mkdtemp(root));
	assert_int_equal(uname(&u), 0);
	snprintf(cmd, sizeof(cmd), "%.*s.build-id", (int)(strlen(elf) - 4), elf);
	memcpy(note, xen, sizeof(xen));
	n = sizeof(xen) + get_file(cmd, note + sizeof(xen), 256);
	snprintf(path, sizeof(path), "%s/sys/kernel/notes", root);
	put_file(path, note, n);
	snprintf(path, sizeof(path), "%s/usr/lib/debug/boot/vmlinux-%s", root,
		 u.release);
	i = get_file(elf, img, 4 << 20);
	put_file(path, img, i);
	snprintf(ks, sizeof(ks), "%s/kallsyms", root);
	put_file(ks, syms, sizeof(syms) - 1);
	e.kallsyms = ks;
	e.kmodules = 1;
	e.kmod_root = root;
	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	put_file(path, "caller\ncaller_nokprobe\n", 23);
	e.tracefs = root;

	memset(&pl, 0, sizeof(pl));
	assert_int_equal(probe_parse_line(&pl, "func:helper", "t.conf", 1, cmd,
					  sizeof(cmd)),
			 0);
	assert_int_equal(plan_build(&p, &pl, &e), 0);
	assert_int_equal(p.ntimers, 1);
	if (p.timers[0].error)
		fail_msg("func:helper: %s", p.timers[0].error);
	assert_int_equal(p.timers[0].inl_only, 1);
	assert_int_equal(p.timers[0].inl, 1);
	assert_int_equal(p.timers[0].inl_refused, 1);
	assert_string_equal(p.timers[0].where,
			    "func:helper (inlined only, in vmlinux)");
	assert_non_null(strstr(p.timers[0].inl_where, "in caller at caller+0x"));
	assert_non_null(strstr(p.timers[0].inl_where,
			       "in caller_nokprobe at caller_nokprobe+0x"));
	assert_non_null(strstr(p.timers[0].inl_where, "kprobe blacklist"));
	for (i = 0; i < p.natt; i++) {
		assert_int_equal(p.att[i].mech, MECH_KSITE);
		assert_string_equal(p.att[i].func, "caller");
		k++;
	}
	assert_true(k >= 2);
	plan_free(&p);
	probe_list_free(&pl);
	free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void tp_fields(void **state)
{
	struct plan_tp_field_info fi;
	char fields[256];

	(void)state;
	/* unsigned int in a syscall's 8-byte slot: 4 unsigned bytes */
	assert_int_equal(plan_tp_field(tracefs, "syscalls", "sys_enter_ioctl",
				       "cmd", &fi, NULL, 0),
			 0);
	assert_int_equal(fi.slot_off, 24);
	assert_int_equal(fi.slot, 8);
	assert_int_equal(fi.size, 4);
	assert_int_equal(fi.is_signed, 0);
	assert_string_equal(fi.type, "unsigned int");
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	assert_int_equal(fi.off, 28);
#else
	assert_int_equal(fi.off, 24);
#endif
	assert_int_equal(plan_tp_field(tracefs, "syscalls", "sys_enter_ioctl",
				       "arg", &fi, NULL, 0),
			 0);
	assert_int_equal(fi.size, 8);
	assert_int_equal(plan_tp_field(tracefs, "sched", "sched_switch",
				       "prev_state", &fi, NULL, 0),
			 0);
	assert_int_equal(fi.off, 32);
	assert_int_equal(fi.size, 8);
	assert_int_equal(fi.is_signed, 1);
	/* strings and arrays cannot be compared */
	assert_int_equal(plan_tp_field(tracefs, "sched", "sched_switch",
				       "prev_comm", &fi, NULL, 0),
			 -EINVAL);
	assert_true(fi.is_string);
	assert_string_equal(fi.type, "char[16]");
	assert_int_equal(plan_tp_field(tracefs, "sched", "sched_process_exec",
				       "filename", &fi, NULL, 0),
			 -EINVAL);
	assert_true(fi.is_string);
	assert_string_equal(fi.type, "__data_loc char[]");
	assert_int_equal(plan_tp_field(tracefs, "kvm", "kvm_fpu", "lod", &fi,
				       fields, sizeof(fields)),
			 -ESRCH);
	assert_string_equal(fields, "load");
	assert_int_equal(plan_tp_field(tracefs, "kvm", "nope", "x", &fi, NULL,
				       0),
			 -ENOENT);
}

/* Width and signedness from the C type (tracefs/events/iprof_test/types). */
static void tp_types(void **state)
{
	static const struct {
		const char *field;
		int ret;
		unsigned int slot_off, slot, size, is_signed;
		const char *type;
	} f[] = {
		{"on", 0, 8, 1, 1, 0, "bool"},
		{"c", 0, 9, 1, 1, 0, "char"}, /* the format's flag */
		{"s", 0, 10, 2, 2, 1, "short"},
		{"b", 0, 16, 8, 1, 0, "u8"},
		{"h", 0, 24, 8, 2, 1, "s16"},
		{"clk", 0, 32, 8, 4, 1, "const clockid_t"},
		{"state", 0, 40, 4, 4, 0, "enum my_state"}, /* unknown: slot */
		{"ino", 0, 48, 8, 8, 0, "xfs_ino_t"},
		{"file", 0, 56, 8, 8, 0, "struct file *"},
		{"big", 0, 64, 8, 8, 0, "unsigned long long"},
		{"sbig", 0, 72, 8, 8, 1, "long long"},
		{"mac", -EINVAL, 80, 6, 0, 0, "u8[6]"},
		{"stack", -EINVAL, 88, 4, 0, 0, "__data_loc u64[]"},
		{"name", -EINVAL, 92, 4, 0, 0, "__data_loc char[]"},
		{"comm", -EINVAL, 96, 16, 0, 0, "char[16]"},
		{"wide", -EINVAL, 112, 16, 16, 0, "unsigned int"},
		{"far", -EINVAL, 4096, 4, 4, 1, "int"},
	};
	struct plan_tp_field_info fi;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		int ret = plan_tp_field(tracefs, "iprof_test", "types",
					f[i].field, &fi, NULL, 0);

		if (ret != f[i].ret || fi.slot_off != f[i].slot_off ||
		    fi.slot != f[i].slot || strcmp(fi.type, f[i].type) ||
		    (!ret && (fi.size != f[i].size ||
			      fi.is_signed != f[i].is_signed)))
			fail_msg("%s: ret %d slot %u@%u size %u signed %u '%s'",
				 f[i].field, ret, fi.slot, fi.slot_off,
				 fi.size, fi.is_signed, fi.type);
	}
	assert_int_equal(plan_tp_field(tracefs, "iprof_test", "types", "mac",
				       &fi, NULL, 0),
			 -EINVAL);
	assert_true(fi.is_array);
	assert_false(fi.is_string);
	assert_int_equal(plan_tp_field(tracefs, "iprof_test", "types", "stack",
				       &fi, NULL, 0),
			 -EINVAL);
	assert_true(fi.is_array);
	assert_int_equal(plan_tp_field(tracefs, "iprof_test", "types", "name",
				       &fi, NULL, 0),
			 -EINVAL);
	assert_true(fi.is_string);
}

static void kvm_run_span(void **state)
{
	static const char *const l[] = {
		"span KVM_RUN = tracepoint:syscalls:sys_enter_ioctl if cmd == 0xae80 -> tracepoint:syscalls:sys_exit_ioctl",
		"span guest_fpu = tracepoint:kvm:kvm_fpu if load == 1 -> tracepoint:kvm:kvm_fpu if load == 0",
	};
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, 2);
	assert_int_equal(p.ntimers, 2);
	assert_null(p.timers[0].error);
	assert_null(p.timers[1].error);
	assert_string_equal(p.timers[0].name, "KVM_RUN");
	assert_int_equal(p.nactions, 4);
	/* kvm_fpu serves both sides of guest_fpu: one attachment (a
	 * tracepoint takes a program once), its stop chained before its start */
	assert_int_equal(p.natt, 3);
	assert_string_equal(p.att[2].event, "kvm_fpu");
	assert_int_equal(p.att[2].action, 3);
	assert_int_equal(p.actions[3].role, IPROF_ROLE_STOP);
	assert_int_equal(p.actions[3].next, 2);
	assert_int_equal(p.actions[2].role, IPROF_ROLE_START);
	assert_int_equal(p.actions[2].next, IPROF_NO_NEXT);
	assert_int_equal(p.actions[0].next, IPROF_NO_NEXT);
	/* KVM_RUN start: cmd (unsigned int) in the 8-byte slot at offset 24:
	 * 4 unsigned bytes, == 0xae80 */
	assert_int_equal(p.actions[0].timer, 0);
	assert_int_equal(p.actions[0].role, IPROF_ROLE_START);
	assert_int_equal(p.actions[0].ncond, 1);
	assert_int_equal(p.actions[0].cond[0].src, IPROF_SRC_TP);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	assert_int_equal(p.actions[0].cond[0].off, 28);
#else
	assert_int_equal(p.actions[0].cond[0].off, 24);
#endif
	assert_int_equal(p.actions[0].cond[0].size, 4);
	assert_int_equal(p.actions[0].cond[0].is_signed, 0);
	assert_int_equal(p.actions[0].cond[0].op, IPROF_OP_EQ);
	assert_int_equal(p.actions[0].cond[0].val, 0xae80);
	/* its stop: unconditional, and unmatched stops (other ioctls) are
	 * expected, not orphans */
	assert_int_equal(p.actions[1].role, IPROF_ROLE_STOP);
	assert_int_equal(p.actions[1].ncond, 0);
	assert_true(p.actions[1].flags & IPROF_A_UNMATCHED_OK);
	/* guest_fpu: both sides on kvm_fpu, load at offset 8, 4 bytes */
	assert_int_equal(p.actions[3].ncond, 1);
	assert_int_equal(p.actions[3].cond[0].off, 8);
	assert_int_equal(p.actions[3].cond[0].size, 4);
	assert_int_equal(p.actions[3].cond[0].val, 0);
	/* attachments carry their action as cookie; syscall tracepoints
	 * ride on the raw ones, at ioctl's number (16 on x86-64) */
	assert_int_equal(p.att[0].mech, MECH_SYSCALL);
	assert_int_equal(p.att[0].sc_slot, 16);
	assert_string_equal(p.att[0].category, "syscalls");
	assert_string_equal(p.att[0].event, "sys_enter_ioctl");
	assert_int_equal(p.att[1].action, 1);
	assert_string_equal(p.att[1].event, "sys_exit_ioctl");
	assert_int_equal(p.att[1].mech, MECH_SYSCALL);
	assert_int_equal(p.att[1].sc_slot, IPROF_NR_SYSCALLS + 16);
	/* other tracepoints keep their own attachment */
	assert_int_equal(p.att[2].mech, MECH_TRACEPOINT);
	assert_string_equal(p.att[2].event, "kvm_fpu");
	assert_string_equal(
		p.timers[0].where,
		"tracepoint:syscalls:sys_enter_ioctl if cmd == 0xae80 -> tracepoint:syscalls:sys_exit_ioctl");
	plan_free(&p);
	probe_list_free(&pl);
}

/* Alternative stops (issue 46): a stop action per stop, each with its
 * conditions at its own tracepoint, chained where they share one; none
 * an orphan; the description lists them; a missing one is the timer's
 * error at its column. */
static void alt_stop_span(void **state)
{
	static const char *const l[] = {
		"span g = tracepoint:kvm:kvm_fpu if load == 1 -> tracepoint:kvm:kvm_fpu if load == 0 | tracepoint:syscalls:sys_exit_ioctl if ret < 0",
		"span bad = tracepoint:kvm:kvm_fpu -> tracepoint:kvm:kvm_fpu | tracepoint:kvm:kvm_nope",
	};
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, 2);
	assert_int_equal(p.ntimers, 2);
	assert_null(p.timers[0].error);
	assert_string_equal(
		p.timers[0].where,
		"tracepoint:kvm:kvm_fpu if load == 1 -> tracepoint:kvm:kvm_fpu if load == 0 | tracepoint:syscalls:sys_exit_ioctl if ret < 0");
	assert_int_equal(p.actions[0].role, IPROF_ROLE_START);
	assert_int_equal(p.actions[0].flags, IPROF_A_NO_REENTER);
	/* the stops: load == 0 on kvm_fpu, ret < 0 on sys_exit_ioctl */
	assert_int_equal(p.actions[1].role, IPROF_ROLE_STOP);
	assert_int_equal(p.actions[1].flags, IPROF_A_UNMATCHED_OK);
	assert_int_equal(p.actions[1].ncond, 1);
	assert_int_equal(p.actions[1].cond[0].val, 0);
	assert_int_equal(p.actions[2].role, IPROF_ROLE_STOP);
	assert_int_equal(p.actions[2].timer, 0);
	assert_int_equal(p.actions[2].flags, IPROF_A_UNMATCHED_OK);
	assert_int_equal(p.actions[2].ncond, 1);
	assert_int_equal(p.actions[2].cond[0].op, IPROF_OP_LT);
	/* kvm_fpu: one attachment, stop chained before start; the ioctl's
	 * return on the raw syscall tracepoint */
	assert_int_equal(p.natt, 2);
	assert_string_equal(p.att[0].event, "kvm_fpu");
	assert_int_equal(p.att[0].action, 1);
	assert_int_equal(p.actions[1].next, 0);
	assert_string_equal(p.att[1].event, "sys_exit_ioctl");
	assert_int_equal(p.att[1].mech, MECH_SYSCALL);
	assert_int_equal(p.att[1].action, 2);
	assert_non_null(strstr(p.timers[1].error,
			       "t.conf:2:63: tracepoint kvm:kvm_nope not found"));
	plan_free(&p);
	probe_list_free(&pl);
}

/* a key field as the planner gives it */
static void check_keyf(const struct iprof_keyf *k, int src, int size, int off)
{
	if (k->src != src || k->size != size || k->off != off)
		fail_msg("key field: src %u size %u off %u, want %d %d %d",
			 k->src, k->size, k->off, src, size, off);
}

/* The start and stop actions of keyed span @t (no chains in these). */
static void keyed_actions(const struct plan *p, uint32_t t,
			  const struct iprof_action **a,
			  const struct iprof_action **b)
{
	uint32_t i;

	*a = *b = NULL;
	for (i = 0; i < p->nactions; i++) {
		if (p->actions[i].timer != t)
			continue;
		if (p->actions[i].role == IPROF_ROLE_START)
			*a = &p->actions[i];
		else
			*b = &p->actions[i];
	}
	assert_non_null(*a);
	assert_non_null(*b);
	/* keyed: no frame, no re-entry rule, no orphan count */
	assert_int_equal((*a)->flags, IPROF_A_KEYED);
	assert_int_equal((*b)->flags, IPROF_A_KEYED);
	assert_int_equal((*a)->nkey, p->timers[t].probe->nkey);
	assert_int_equal((*b)->nkey, p->timers[t].probe->nkey);
}

/* Keyed spans (issue 22): flags, key fields per side, the key's text. */
static void keyed_spans(void **state)
{
	static const char *const l[] = {
		"span bio = tracepoint:block:block_rq_issue -> tracepoint:block:block_rq_complete key dev,sector",
		"span wq = tracepoint:workqueue:workqueue_queue_work -> tracepoint:workqueue:workqueue_execute_start key work",
		"span runq = tracepoint:sched:sched_wakeup -> tracepoint:sched:sched_switch key pid=next_pid",
		"span forkexec = tracepoint:sched:sched_process_fork -> tracepoint:sched:sched_process_exec key child_pid=pid",
		"span x = tracepoint:syscalls:sys_enter_write -> tracepoint:syscalls:sys_exit_write key tid",
		/* queue_work's own cpu field; execute_start has none: the
		 * current CPU.  The condition stays. */
		"span c = tp:workqueue:workqueue_queue_work if cpu == 1 -> tp:workqueue:workqueue_execute_start key cpu",
		/* =B that repeats A is normalized away; pid of sys_enter_write
		 * is the pseudo-field; a stop condition stays */
		"span n = tp:syscalls:sys_enter_write -> tp:syscalls:sys_exit_write if ret < 0 key pid=pid,fd=tid",
		"span plain = tp:block:block_rq_issue -> tp:block:block_rq_complete",
	};
	const struct iprof_action *a, *b;
	struct probe_list pl;
	struct plan p;
	uint32_t i;

	(void)state;
	build(&pl, &p, l, 8);
	assert_int_equal(p.ntimers, 8);
	for (i = 0; i < p.ntimers; i++)
		if (p.timers[i].error)
			fail_msg("%s: %s", p.timers[i].name, p.timers[i].error);

	/* block_rq_issue/complete: dev_t dev at 8 (4), sector_t at 16 (8) */
	keyed_actions(&p, 0, &a, &b);
	assert_string_equal(p.timers[0].key, "dev,sector");
	check_keyf(&a->key[0], IPROF_KEY_TP, 4, 8);
	check_keyf(&a->key[1], IPROF_KEY_TP, 8, 16);
	check_keyf(&b->key[0], IPROF_KEY_TP, 4, 8);
	check_keyf(&b->key[1], IPROF_KEY_TP, 8, 16);
	check_keyf(&a->key[2], 0, 0, 0);
	assert_int_equal(a->ncond, 0);

	/* void *work at 8 on both sides: a pointer, 8 bytes */
	keyed_actions(&p, 1, &a, &b);
	assert_string_equal(p.timers[1].key, "work");
	check_keyf(&a->key[0], IPROF_KEY_TP, 8, 8);
	check_keyf(&b->key[0], IPROF_KEY_TP, 8, 8);

	/* sched_wakeup's own pid field (the wakee), not the pseudo-field;
	 * sched_switch's next_pid at 56 */
	keyed_actions(&p, 2, &a, &b);
	assert_string_equal(p.timers[2].key, "pid=next_pid");
	check_keyf(&a->key[0], IPROF_KEY_TP, 4, 24);
	check_keyf(&b->key[0], IPROF_KEY_TP, 4, 56);

	/* child_pid at 20; sched_process_exec's pid field at 12 */
	keyed_actions(&p, 3, &a, &b);
	assert_string_equal(p.timers[3].key, "child_pid=pid");
	check_keyf(&a->key[0], IPROF_KEY_TP, 4, 20);
	check_keyf(&b->key[0], IPROF_KEY_TP, 4, 12);

	/* syscalls: no tid field, the pseudo-field on both sides; they
	 * ride on the raw syscall tracepoints as other syscall spans do */
	keyed_actions(&p, 4, &a, &b);
	assert_string_equal(p.timers[4].key, "tid");
	check_keyf(&a->key[0], IPROF_KEY_TID, 4, 0);
	check_keyf(&b->key[0], IPROF_KEY_TID, 4, 0);
	for (i = 0; i < p.natt; i++)
		if (p.att[i].timer == 4)
			assert_int_equal(p.att[i].mech, MECH_SYSCALL);

	/* a real cpu field on the start (int at 32), the current CPU on
	 * the stop; the start's condition kept */
	keyed_actions(&p, 5, &a, &b);
	assert_string_equal(p.timers[5].key, "cpu");
	check_keyf(&a->key[0], IPROF_KEY_TP, 4, 32);
	check_keyf(&b->key[0], IPROF_KEY_CPU, 4, 0);
	assert_int_equal(a->ncond, 1);
	assert_int_equal(a->cond[0].off, 32);
	assert_int_equal(b->ncond, 0);

	/* pid=pid normalized to pid; unsigned int fd (4 of its 8-byte
	 * slot at 16) against the thread id */
	keyed_actions(&p, 6, &a, &b);
	assert_string_equal(p.timers[6].key, "pid,fd=tid");
	check_keyf(&a->key[0], IPROF_KEY_PID, 4, 0);
	check_keyf(&b->key[0], IPROF_KEY_PID, 4, 0);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	check_keyf(&a->key[1], IPROF_KEY_TP, 4, 20);
#else
	check_keyf(&a->key[1], IPROF_KEY_TP, 4, 16);
#endif
	check_keyf(&b->key[1], IPROF_KEY_TID, 4, 0);
	assert_int_equal(b->ncond, 1);

	/* not keyed: as before */
	assert_null(p.timers[7].key);
	for (i = 0; i < p.nactions; i++) {
		if (p.actions[i].timer != 7)
			continue;
		assert_int_equal(p.actions[i].nkey, 0);
		assert_false(p.actions[i].flags & IPROF_A_KEYED);
		if (p.actions[i].role == IPROF_ROLE_START)
			assert_int_equal(p.actions[i].flags,
					 IPROF_A_NO_REENTER);
	}
	plan_free(&p);
	probe_list_free(&pl);
}

/* Keyed spans that cannot be planned: the timer's error, at the field. */
static void keyed_errors(void **state)
{
	static const char *const l[] = {
		"span e1 = tp:block:block_rq_issue -> tp:block:block_rq_complete key dev=sector",
		"span e2 = tp:block:block_rq_issue -> tp:block:block_rq_complete key devv",
		"span e3 = tp:block:block_rq_issue -> tp:block:block_rq_complete key dev,bytes",
		"span e4 = tp:block:block_rq_issue -> tp:block:block_rq_complete key comm=dev",
		"span e5 = tp:syscalls:sys_enter_write -> tp:syscalls:sys_exit_write key tid=ret",
		"span e6 = tp:sched:sched_wakeup -> tp:sched:sched_switch key pid=next_comm",
		"span ok = tp:block:block_rq_issue -> tp:block:block_rq_complete key sector",
	};
	struct probe_list pl;
	struct plan p;
	uint32_t i;

	(void)state;
	build(&pl, &p, l, 7);
	assert_int_equal(p.ntimers, 7);
	assert_string_equal(p.timers[0].error,
			    "t.conf:1:69: span e1: key dev: block_rq_issue's dev is dev_t (4 bytes), block_rq_complete's sector is sector_t (8 bytes): the two sides of a key field must be of one width");
	assert_string_equal(p.timers[1].error,
			    "t.conf:2:69: span e2: key devv: tracepoint block:block_rq_issue has no field 'devv' (its fields: dev, sector, nr_sector, bytes, ioprio, rwbs, comm, cmd; pseudo-fields: pid, tid, cpu)");
	/* a field of the start that the stop lacks: B's column (A's) */
	assert_string_equal(p.timers[2].error,
			    "t.conf:3:73: span e3: key bytes: tracepoint block:block_rq_complete has no field 'bytes' (its fields: dev, sector, nr_sector, error, ioprio, rwbs, cmd; pseudo-fields: pid, tid, cpu)");
	assert_string_equal(p.timers[3].error,
			    "t.conf:4:69: span e4: key comm: field 'comm' of block:block_rq_issue is a string (char[16]): a key is made of numbers");
	assert_string_equal(p.timers[4].error,
			    "t.conf:5:73: span e5: key tid: sys_enter_write's tid is the current thread id (4 bytes), sys_exit_write's ret is long (8 bytes): the two sides of a key field must be of one width");
	assert_string_equal(p.timers[5].error,
			    "t.conf:6:66: span e6: key pid: field 'next_comm' of sched:sched_switch is a string (char[16]): a key is made of numbers");
	/* errors keep the key's text, for the report */
	assert_string_equal(p.timers[0].key, "dev=sector");
	assert_string_equal(p.timers[5].key, "pid=next_comm");
	/* only the good one attaches */
	assert_null(p.timers[6].error);
	for (i = 0; i < p.natt; i++)
		assert_int_equal(p.att[i].timer, 6);
	assert_int_equal(p.natt, 2);
	plan_free(&p);
	probe_list_free(&pl);
}

static void per_probe_errors(void **state)
{
	static const char *const l[] = {
		"span a = tracepoint:kvm:kvm_nope -> tracepoint:kvm:kvm_fpu",
		"span b = tracepoint:kvm:kvm_fpu if lod == 1 -> tracepoint:kvm:kvm_fpu",
		"span c = tracepoint:kvm:kvm_fpu if arg0 == 1 -> tracepoint:kvm:kvm_fpu",
		"uprobe:SELF:plan_test_target if arg7 == 1",
		"fentry:vfs_read if count > 10",
		"func:vfio_pin_*",
		"uprobe:SELF:plan_test_target as ok if arg0 == -1",
	};
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, 7);
	assert_int_equal(p.ntimers, 7);
	assert_non_null(strstr(p.timers[0].error,
			       "t.conf:1:10: tracepoint kvm:kvm_nope not found"));
	assert_non_null(strstr(p.timers[1].error,
			       "tracepoint kvm:kvm_fpu has no field 'lod' (its fields: load)"));
	assert_non_null(strstr(p.timers[1].error, "t.conf:2:"));
	assert_non_null(strstr(p.timers[2].error, "argN is for function probes"));
	assert_non_null(strstr(p.timers[3].error, "only arg0..arg5"));
	assert_non_null(strstr(p.timers[4].error, "argN"));
	assert_string_equal(p.timers[5].error,
			    "t.conf:6:6: 'vfio_pin_*' matches no traceable kernel function");
	/* the good one is planned: entry + return, arg0 signed == -1 */
	assert_null(p.timers[6].error);
	assert_int_equal(p.natt, 2);
	assert_int_equal(p.att[0].mech, MECH_UPROBE);
	assert_int_equal(p.att[1].mech, MECH_RETSITE);
	assert_int_equal(p.att[0].timer, 6);
	assert_string_equal(p.att[0].func, "plan_test_target");
	assert_int_equal(p.actions[p.att[0].action].cond[0].src,
			 IPROF_SRC_ARG);
	assert_int_equal(p.actions[p.att[0].action].cond[0].val, UINT64_MAX);
	assert_int_equal(p.actions[p.att[0].action].cond[0].is_signed, 1);
	plan_free(&p);
	probe_list_free(&pl);
}

/* `name ARG stop ARG2`: the start keeps its name's key (IPROF_AX_NAMEKEY),
 * each stop reads its own name one past its conditions (IPROF_AX_STOPNAME,
 * IPROF_AX_STOPSTR for str()), as the start's is read (issue 46) */
static void stop_name(void **state)
{
	static const char *const l[] = {
		"span a = tp:syscalls:sys_enter_close if fd == 3 -> tp:syscalls:sys_exit_ioctl if ret == 0 name fd stop ret",
		"span b = tp:syscalls:sys_enter_openat -> tp:syscalls:sys_exit_ioctl name str(filename) stop str(ret)",
		"span c = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl name fd stop nosuch",
	};
	const struct iprof_action *a;
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, sizeof(l) / sizeof(l[0]));
	assert_null(p.timers[0].error);
	a = &p.actions[0];
	assert_int_equal(a->role, IPROF_ROLE_START);
	assert_true(a->flags & IPROF_A_NAMED);
	assert_true(a->xflags & IPROF_AX_NAMEKEY);
	a = &p.actions[1];
	assert_int_equal(a->role, IPROF_ROLE_STOP);
	assert_int_equal(a->ncond, 1);
	assert_int_equal(a->xflags & (IPROF_AX_STOPNAME | IPROF_AX_STOPSTR),
			 IPROF_AX_STOPNAME);
	assert_int_equal(a->cond[1].src, IPROF_SRC_TP);
	assert_int_equal(a->cond[1].off, 16);
	assert_int_equal(a->cond[1].size, 8);
	assert_int_equal(a->cond[1].is_signed, 1);
	assert_null(p.timers[1].error);
	a = &p.actions[3];
	assert_int_equal(a->role, IPROF_ROLE_STOP);
	assert_int_equal(a->xflags & (IPROF_AX_STOPNAME | IPROF_AX_STOPSTR),
			 IPROF_AX_STOPNAME | IPROF_AX_STOPSTR);
	assert_int_equal(a->cond[0].op, 1); /* one part */
	assert_string_equal(p.timers[2].error,
			    "t.conf:3:81: tracepoint syscalls:sys_exit_ioctl has no field 'nosuch' (its fields: __syscall_nr, ret)");
	plan_free(&p);
	probe_list_free(&pl);
}

/* A field or argument a side does not have, in any clause of a line, on
 * either side: its timer is missing (plan_timer.missing: iprof stops with
 * exit 2 before attaching, as for a function typo), not only refused;
 * what is there but refused (a VALUE out of range) is not (issue 46) */
static void absent_fields(void **state)
{
	static const char *const l[] = {
		"span a = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl name fd stop rett",
		"span b = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl | tp:syscalls:sys_exit_write if rett == 0",
		"span c = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl | tp:sched:sched_switch name fd stop ret",
		"span d = tp:syscalls:sys_enter_openat -> tp:syscalls:sys_exit_ioctl name str(filename):str(fname)",
		"span e = tp:block:block_rq_issue -> tp:block:block_rq_complete key dev=devv",
		"span f = tp:block:block_rq_issue -> tp:block:block_rq_complete key devv",
		"span g = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl if arg0 == 1",
		"uprobe:SELF:plan_test_target if fd == 1",
		"span h = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl if ret:u8 == 256",
		"span i = tp:block:block_rq_issue -> tp:block:block_rq_complete key dev,pid=tid",
		"span j = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl name fd stop ret",
	};
	struct probe_list pl;
	struct plan p;
	int i;

	(void)state;
	build(&pl, &p, l, sizeof(l) / sizeof(l[0]));
	assert_int_equal(p.ntimers, 11);
	for (i = 0; i < 8; i++) {
		assert_non_null(p.timers[i].error);
		assert_int_equal(p.timers[i].missing, 1);
	}
	assert_string_equal(p.timers[0].error,
			    "t.conf:1:81: tracepoint syscalls:sys_exit_ioctl has no field 'rett' (its fields: __syscall_nr, ret)");
	assert_string_equal(p.timers[1].error,
			    "t.conf:2:100: tracepoint syscalls:sys_exit_write has no field 'rett' (its fields: __syscall_nr, ret)");
	/* the first stop has ret, the second not */
	assert_non_null(strstr(p.timers[2].error,
			       "t.conf:3:105: tracepoint sched:sched_switch has no field 'ret' (its fields: prev_comm, prev_pid,"));
	assert_non_null(strstr(p.timers[3].error,
			       "tracepoint syscalls:sys_enter_openat has no field 'fname'"));
	assert_non_null(strstr(p.timers[4].error,
			       "span e: key dev: tracepoint block:block_rq_complete has no field 'devv'"));
	assert_non_null(strstr(p.timers[5].error,
			       "span f: key devv: tracepoint block:block_rq_issue has no field 'devv'"));
	assert_string_equal(p.timers[6].error,
			    "t.conf:7:71: argN is for function probes; a tracepoint condition names a field of syscalls:sys_exit_ioctl (its fields: __syscall_nr, ret)");
	assert_non_null(strstr(p.timers[7].error,
			       "'fd': conditions on user functions name arguments as argN"));
	/* refused, but every field there: not a typo of a name */
	assert_non_null(p.timers[8].error);
	assert_int_equal(p.timers[8].missing, 0);
	/* a pseudo-field in a key; a stop's name that is there */
	assert_null(p.timers[9].error);
	assert_null(p.timers[10].error);
	plan_free(&p);
	probe_list_free(&pl);
}

/* Tracepoint conditions: read with the C type's width and signedness. */
static void tp_cond_widths(void **state)
{
	static const char *const l[] = {
		/* unsigned int fd: 4 unsigned bytes; -1 is 0xffffffff, as C
		 * converts it (it never matched the 8-byte slot before) */
		"span a = tp:syscalls:sys_enter_close if fd == -1 -> tp:syscalls:sys_exit_ioctl",
		/* int dfd (size:8 signed:0): 4 signed bytes */
		"span b = tp:syscalls:sys_enter_openat if dfd == -100 && flags & 0x40 && mode == -1 && dfd >= 0xffffff9c -> tp:syscalls:sys_exit_ioctl",
		/* FIELD:TYPE overrides */
		"span c = tp:syscalls:sys_enter_close if fd:s32 == -1 && fd:u64 == 5 && fd:u8 < 0x80 -> tp:sched:sched_switch if prev_pid:u16 == 1",
		"span d = tp:syscalls:sys_enter_close if fd == 0x100000000 -> tp:syscalls:sys_exit_ioctl",
		"span e = tp:syscalls:sys_enter_close if fd == -2147483649 -> tp:syscalls:sys_exit_ioctl",
		"span f = tp:sched:sched_process_exec if filename == 1 -> tp:syscalls:sys_exit_ioctl",
		"span g = tp:sched:sched_switch if prev_comm == 1 -> tp:syscalls:sys_exit_ioctl",
		"span h = tp:iprof_test:types if mac == 1 -> tp:syscalls:sys_exit_ioctl",
		"span i = tp:iprof_test:types if wide == 1 -> tp:syscalls:sys_exit_ioctl",
		"span j = tp:iprof_test:types if s:s32 == 1 -> tp:syscalls:sys_exit_ioctl",
		"span k = tp:iprof_test:types if b:u8 == 256 -> tp:syscalls:sys_exit_ioctl",
	};
	const struct iprof_cond *c;
	struct probe_list pl;
	struct plan p;
	int le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

	(void)state;
	build(&pl, &p, l, sizeof(l) / sizeof(l[0]));
	assert_null(p.timers[0].error);
	c = p.actions[0].cond;
	assert_int_equal(c[0].size, 4);
	assert_int_equal(c[0].is_signed, 0);
	assert_int_equal(c[0].off, le ? 16 : 20);
	assert_int_equal(c[0].val, 0xffffffffull);

	assert_null(p.timers[1].error);
	c = p.actions[2].cond;
	assert_int_equal(c[0].size, 4);
	assert_int_equal(c[0].is_signed, 1);
	assert_int_equal(c[0].val, (uint64_t)-100);
	assert_int_equal(c[1].size, 4);
	assert_int_equal(c[1].off, le ? 32 : 36);
	assert_int_equal(c[1].val, 0x40);
	/* umode_t: unsigned short */
	assert_int_equal(c[2].size, 2);
	assert_int_equal(c[2].is_signed, 0);
	assert_int_equal(c[2].val, 0xffff);
	/* a hex VALUE on a signed field: the negative it stands for */
	assert_int_equal(c[3].val, (uint64_t)-100);

	assert_null(p.timers[2].error);
	c = p.actions[4].cond;
	assert_int_equal(c[0].size, 4);
	assert_int_equal(c[0].is_signed, 1);
	assert_int_equal(c[0].val, UINT64_MAX);
	assert_int_equal(c[1].size, 8);
	assert_int_equal(c[1].is_signed, 0);
	assert_int_equal(c[1].off, 16);
	assert_int_equal(c[2].size, 1);
	assert_int_equal(c[2].off, le ? 16 : 23);
	c = p.actions[5].cond;
	assert_int_equal(c[0].size, 2);
	assert_int_equal(c[0].is_signed, 0);
	assert_int_equal(c[0].off, le ? 24 : 26);
	assert_string_equal(p.timers[2].where,
			    "tracepoint:syscalls:sys_enter_close if fd:s32 == -1 && fd:u64 == 5 && fd:u8 < 0x80 -> tracepoint:sched:sched_switch if prev_pid:u16 == 1");

	assert_string_equal(p.timers[3].error,
			    "t.conf:4:41: value 4294967296 does not fit field 'fd' of syscalls:sys_enter_close (unsigned int, 4 bytes: -2147483648 to 4294967295)");
	assert_non_null(strstr(p.timers[4].error,
			       "t.conf:5:41: value -2147483649 does not fit"));
	assert_string_equal(p.timers[5].error,
			    "t.conf:6:41: field 'filename' of sched:sched_process_exec is a string (__data_loc char[]): iprof compares numbers only");
	assert_string_equal(p.timers[6].error,
			    "t.conf:7:35: field 'prev_comm' of sched:sched_switch is a string (char[16]): iprof compares numbers only");
	assert_string_equal(p.timers[7].error,
			    "t.conf:8:33: field 'mac' of iprof_test:types is an array (u8[6]): iprof compares numbers only");
	assert_string_equal(p.timers[8].error,
			    "t.conf:9:33: field 'wide' of iprof_test:types (unsigned int) is 16 bytes: only fields of 1, 2, 4 or 8 bytes can be compared");
	assert_string_equal(p.timers[9].error,
			    "t.conf:10:33: field 's' of iprof_test:types is 2 bytes (short): ':s32' reads 4");
	assert_string_equal(p.timers[10].error,
			    "t.conf:11:33: value 256 does not fit field 'b' of iprof_test:types (u8, 1 byte: -128 to 255)");
	plan_free(&p);
	probe_list_free(&pl);
}

/* Function argument conditions: argN:TYPE. */
static void arg_cond_widths(void **state)
{
	static const char *const l[] = {
		"uprobe:SELF:plan_test_target if arg0:s32 == -1 && arg1:u8 == 255 && arg2:u16 == -1 && arg3 == -1",
		"uprobe:SELF:plan_test_target as s8 if arg0:s8 == 0x80 && arg1:u32 < 0xffffffff && arg2:s64 == -5 && arg3:u64 == 5",
		"uprobe:SELF:plan_test_target as big if arg0:u8 == 256",
		"uprobe:SELF:plan_test_target as neg if arg0:u16 == -32769",
	};
	const struct iprof_cond *c;
	struct probe_list pl;
	struct plan p;
	char want[PATH_MAX + 128];

	(void)state;
	build(&pl, &p, l, 4);
	assert_null(p.timers[0].error);
	c = p.actions[0].cond;
	assert_int_equal(c[0].src, IPROF_SRC_ARG);
	assert_int_equal(c[0].off, 0);
	assert_int_equal(c[0].size, 4);
	assert_int_equal(c[0].is_signed, 1);
	assert_int_equal(c[0].val, UINT64_MAX);
	assert_int_equal(c[1].off, 1);
	assert_int_equal(c[1].size, 1);
	assert_int_equal(c[1].is_signed, 0);
	assert_int_equal(c[1].val, 255);
	assert_int_equal(c[2].size, 2);
	assert_int_equal(c[2].val, 0xffff);
	/* no type: signed 64-bit, as before */
	assert_int_equal(c[3].size, 8);
	assert_int_equal(c[3].is_signed, 1);
	assert_int_equal(c[3].val, UINT64_MAX);

	assert_null(p.timers[1].error);
	c = p.actions[2].cond;
	assert_int_equal(c[0].size, 1);
	assert_int_equal(c[0].val, (uint64_t)-128);
	assert_int_equal(c[1].size, 4);
	assert_int_equal(c[1].val, 0xffffffffull);
	assert_int_equal(c[2].size, 8);
	assert_int_equal(c[2].is_signed, 1);
	assert_int_equal(c[3].is_signed, 0);

	snprintf(want, sizeof(want),
		 "t.conf:3:%d: value 256 does not fit arg0 (u8, 1 byte: -128 to 255)",
		 (int)strlen(self) + 36);
	assert_string_equal(p.timers[2].error, want);
	snprintf(want, sizeof(want),
		 "t.conf:4:%d: value -32769 does not fit arg0 (u16, 2 bytes: -32768 to 65535)",
		 (int)strlen(self) + 36);
	assert_string_equal(p.timers[3].error, want);
	plan_free(&p);
	probe_list_free(&pl);
}

/* uprobes: the binary and the function's file offset at plan time. */
static void uprobe_resolved(void **state)
{
	static const char *const l[] = {
		"uprobe:SELF:plan_test_target if arg0:s32 == -1",
		"uprobe:/etc/passwd:top",
		"uprobe:/tmp:top",
		"uprobe:SELF:no_such_function",
		"uprobe:no-such-binary-here:top",
		"uprobe:/nonexistent/bin:top",
		"uprobe:SELF:plan_test_target*",
	};
	struct probe_list pl;
	struct plan p;
	char want[2 * PATH_MAX];
	uint64_t off = maps_offset((void *)plan_test_target);

	(void)state;
	assert_int_equal(plan_test_target(2, 3), 13);
	build(&pl, &p, l, sizeof(l) / sizeof(l[0]));
	assert_null(p.timers[0].error);
	assert_int_equal(p.natt, 2);
	assert_string_equal(p.att[0].path, self);
	assert_string_equal(p.att[0].func, "plan_test_target");
	assert_int_equal(p.att[0].offset, off);
	/* its stop: a uprobe on its one ret (src/probe/retsite.c), not a
	 * uretprobe; the start says so to BPF */
	assert_int_equal(p.att[1].mech, MECH_RETSITE);
	assert_true(p.att[1].offset > off);
	assert_int_equal(p.timers[0].ret_sites, 1);
	assert_null(p.timers[0].ret_why);
	assert_true(p.actions[p.att[0].action].flags & IPROF_A_RETSITES);
	snprintf(want, sizeof(want),
		 "uprobe:%s:plan_test_target if arg0:s32 == -1",
		 self);
	assert_string_equal(p.timers[0].where, want);

	assert_string_equal(p.timers[1].error,
			    "t.conf:2:8: /etc/passwd: not an ELF file");
	assert_string_equal(p.timers[2].error, "t.conf:3:8: /tmp: is a directory");
	snprintf(want, sizeof(want),
		 "t.conf:4:%d: no function 'no_such_function' in %s (its symbol table has no such FUNC symbol); nor is it inlined anywhere (DWARF)",
		 (int)strlen(self) + 9, self);
	assert_string_equal(p.timers[3].error, want);
	assert_string_equal(p.timers[4].error,
			    "t.conf:5:8: no-such-binary-here not found in $PATH or the library directories; give a path (./no-such-binary-here)");
	assert_string_equal(p.timers[5].error,
			    "t.conf:6:8: /nonexistent/bin: No such file or directory");
	/* its one match is taken by line 1 */
	snprintf(want, sizeof(want),
		 "t.conf:7:%d: 'plan_test_target*': its matches (1) are all timed by other lines or left out (NAME.cold)",
		 (int)strlen(self) + 9);
	assert_string_equal(p.timers[6].error, want);
	/* a timer with an error keeps the path as written */
	assert_string_equal(p.timers[1].where, "uprobe:/etc/passwd:top");
	plan_free(&p);
	probe_list_free(&pl);
}

/* The fixture ELF (tests/fixtures/glob-fixture.c), or skip. */
static const char *glob_fixture(void)
{
	const char *f = getenv("IPROF_GLOB_FIXTURE");

	if (!f || access(f, R_OK))
		fail_msg("IPROF_GLOB_FIXTURE (the glob-fixture ELF) is not set or not readable: run under ctest");
	return f;
}

/*
 * uprobe globs over the fixture ELF: a timer per matching function, named
 * by it, in name order; NAME.cold and indirect functions left out; a
 * clone kept under its own name; more than PLAN_MAX_GLOB matches refused
 * with the count; no match and a bad binary explained.
 */
static void uprobe_globs(void **state)
{
	char lines[6][PATH_MAX + 64], want[3 * PATH_MAX], real[PATH_MAX];
	const char *l[6], *fix = glob_fixture();
	/* handle_put.isra.0 is timed with handle_put (its clone) */
	static const char *const handles[] = {
		"handle_get", "handle_put", "handle_static",
	};
	struct probe_list pl;
	struct plan p;
	uint32_t i, natt[3] = { 0 };

	(void)state;
	assert_non_null(realpath(fix, real));
	snprintf(lines[0], sizeof(lines[0]), "uprobe:%s:handle_* if arg0 == 1", fix);
	snprintf(lines[1], sizeof(lines[1]), "uprobe:%s:many_*", fix);
	snprintf(lines[2], sizeof(lines[2]), "uprobe:%s:many_1?9?", fix);
	snprintf(lines[3], sizeof(lines[3]), "uprobe:%s:nothing_*", fix);
	snprintf(lines[4], sizeof(lines[4]), "uprobe:/etc/passwd:x*");
	snprintf(lines[5], sizeof(lines[5]), "uprobe:%s:handle_g?t", fix);
	for (i = 0; i < 6; i++)
		l[i] = lines[i];
	build(&pl, &p, l, 6);
	/* handle_* -> 3 timers; many_* -> 1; many_1?9? -> 100; nothing_*,
	 * x* -> 1 each; handle_g?t -> 1, its only match taken */
	assert_int_equal(p.ntimers, 3 + 1 + 100 + 1 + 1 + 1);
	for (i = 0; i < 3; i++) {
		assert_string_equal(p.timers[i].name, handles[i]);
		assert_string_equal(p.timers[i].func, handles[i]);
		assert_null(p.timers[i].error);
	}
	snprintf(want, sizeof(want),
		 "uprobe:%s:handle_put if arg0 == 1 (uprobe:%s:handle_*) with handle_put.isra.0",
		 real, real);
	assert_string_equal(p.timers[1].where, want);
	/* each matched function: its own uprobe and stop (a return site or
	 * a uretprobe), and handle_put those of its clone too, and a second
	 * return site: the ret of its cold part (handle_put.cold) */
	for (i = 0; i < p.natt; i++)
		if (p.att[i].timer < 3) {
			if (strcmp(p.att[i].func, "handle_put.isra.0"))
				assert_string_equal(p.att[i].func,
						    handles[p.att[i].timer]);
			else
				assert_int_equal(p.att[i].timer, 1);
			assert_string_equal(p.att[i].path, real);
			natt[p.att[i].timer]++;
		}
	assert_int_equal(natt[0], 2);
	assert_int_equal(natt[1], 5);
	assert_int_equal(natt[2], 2);
	snprintf(want, sizeof(want),
		 "t.conf:2:%d: 'many_*' matches 2001 functions in %s, more than 2000: narrow it",
		 (int)strlen(fix) + 9, real);
	assert_string_equal(p.timers[3].error, want);
	assert_string_equal(p.timers[4].name, "many_1090");
	assert_string_equal(p.timers[103].name, "many_1999");
	for (i = 4; i < 104; i++)
		assert_null(p.timers[i].error);
	snprintf(want, sizeof(want),
		 "t.conf:4:%d: 'nothing_*' matches no function in %s",
		 (int)strlen(fix) + 9, real);
	assert_string_equal(p.timers[104].error, want);
	assert_string_equal(p.timers[105].error,
			    "t.conf:5:8: /etc/passwd: not an ELF file");
	snprintf(want, sizeof(want),
		 "t.conf:6:%d: 'handle_g?t': its matches (1) are all timed by other lines or left out (NAME.cold)",
		 (int)strlen(fix) + 9);
	assert_string_equal(p.timers[106].error, want);
	plan_free(&p);
	probe_list_free(&pl);
}

/* The attachments of timer @t of @p, "func@offset/mech;" in plan order,
 * into @buf. */
static void atts_of(const struct plan *p, uint32_t t, char *buf, size_t len)
{
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < p->natt; i++)
		if (p->att[i].timer == t)
			snprintf(buf + strlen(buf), len - strlen(buf),
				 "%s@%#llx/%d;", p->att[i].func ? p->att[i].func : "",
				 (unsigned long long)p->att[i].offset,
				 (int)p->att[i].mech);
}

/*
 * C++ and Rust globs (e2e-cxxnames: ns::p's overloads, ns::label with an
 * ABI tag; e2e-langnames: a Rust legacy and a v0 name): exactly the
 * functions each names, and each attached where the function named on
 * its own line is (one symbol-table pass for the glob, struct sym_cache).
 */
static void uprobe_cxx_globs(void **state)
{
	static const struct {
		const char *env, *glob, *want[3];
		uint32_t n;
	} t[] = {
		{ "IPROF_CXXNAMES_FIXTURE", "ns::*",
		  { "ns::label[abi:cxx11]", "ns::p(int*)", "ns::p(int**)" }, 3 },
		{ "IPROF_LANGNAMES_FIXTURE", "rs::*",
		  { "rs::parse", "rs::util::split" }, 2 },
	};
	char line[PATH_MAX + 64], one[PATH_MAX + 64], a[1024], b[1024];
	const char *l[1] = { line }, *o[1] = { one }, *bin;
	struct probe_list pl, pl1;
	struct plan p, p1;
	uint32_t i, k;

	(void)state;
	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		bin = getenv(t[k].env);
		if (!bin)
			fail_msg("%s is not set: run under ctest", t[k].env);
		snprintf(line, sizeof(line), "uprobe:%s:%s", bin, t[k].glob);
		build(&pl, &p, l, 1);
		assert_int_equal(p.ntimers, t[k].n);
		for (i = 0; i < t[k].n; i++) {
			assert_string_equal(p.timers[i].name, t[k].want[i]);
			assert_null(p.timers[i].error);
			/* the same function named alone: the same places */
			snprintf(one, sizeof(one), "uprobe:%s:\"%s\"", bin,
				 t[k].want[i]);
			build(&pl1, &p1, o, 1);
			assert_int_equal(p1.ntimers, 1);
			assert_null(p1.timers[0].error);
			atts_of(&p, i, a, sizeof(a));
			atts_of(&p1, 0, b, sizeof(b));
			assert_true(a[0] != '\0');
			assert_string_equal(a, b);
			plan_free(&p1);
			probe_list_free(&pl1);
		}
		plan_free(&p);
		probe_list_free(&pl);
	}
}

/* A relative PATH: from the current directory, made absolute. */
static void uprobe_relative(void **state)
{
	char cwd[PATH_MAX], dir[PATH_MAX], line[PATH_MAX + 64];
	const char *lines[1] = {line};
	char *slash = strrchr(self, '/');
	struct probe_list pl;
	struct plan p;

	(void)state;
	assert_non_null(slash);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - self), self);
	snprintf(line, sizeof(line), "uprobe:./%s:plan_test_target",
		 slash + 1);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	build(&pl, &p, lines, 1);
	assert_int_equal(chdir(cwd), 0);
	assert_null(p.timers[0].error);
	assert_string_equal(p.att[0].path, self);
	assert_int_equal(p.att[0].offset, maps_offset((void *)plan_test_target));
	plan_free(&p);
	probe_list_free(&pl);
}

/*
 * Spans sharing tracepoints: their starts run in file order, their stops
 * innermost first (reverse file order), every stop before every start; a
 * span's start does not re-enter an open span, a function's may (recursion).
 */
static void chain_order(void **state)
{
	static const char *const l[] = {
		"span a = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl",
		"span b = tp:syscalls:sys_enter_close -> tp:syscalls:sys_exit_ioctl",
		"span c = tp:syscalls:sys_exit_ioctl -> tp:syscalls:sys_enter_close",
		"uprobe:/proc/self/exe:main",
	};
	uint32_t order[8], n = 0, i;
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, 4);
	/* actions: a start 0, a stop 1, b 2/3, c 4/5, main 6/7 */
	assert_int_equal(p.natt, 4); /* close, ioctl exit, main x2 */
	assert_string_equal(p.att[0].event, "sys_enter_close");
	for (i = p.att[0].action; i != IPROF_NO_NEXT; i = p.actions[i].next)
		order[n++] = i;
	/* c's stop, then a's and b's starts in file order */
	assert_int_equal(n, 3);
	assert_int_equal(order[0], 5);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 2);
	n = 0;
	for (i = p.att[1].action; i != IPROF_NO_NEXT; i = p.actions[i].next)
		order[n++] = i;
	/* b's stop before a's (b is above a on the stack), then c's start */
	assert_int_equal(n, 3);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 4);
	plan_free(&p);
	/* the same with syscall spans on their own tracepoints */
	env.syscall_tracepoints = 1;
	assert_int_equal(plan_build(&p, &pl, &env), 0);
	env.syscall_tracepoints = 0;
	assert_int_equal(p.natt, 4);
	assert_int_equal(p.att[0].mech, MECH_TRACEPOINT);
	assert_int_equal(p.att[1].mech, MECH_TRACEPOINT);
	for (n = 0, i = p.att[0].action; i != IPROF_NO_NEXT;
	     i = p.actions[i].next)
		order[n++] = i;
	assert_int_equal(n, 3);
	assert_int_equal(order[0], 5);
	assert_true(p.actions[0].flags & IPROF_A_NO_REENTER);
	assert_true(p.actions[4].flags & IPROF_A_NO_REENTER);
	assert_false(p.actions[1].flags & IPROF_A_NO_REENTER);
	assert_false(p.actions[6].flags & IPROF_A_NO_REENTER);
	plan_free(&p);
	probe_list_free(&pl);
}

/*
 * Kernel functions against the fixture kallsyms and available_filter_
 * functions: globs expand to a timer per traceable function (names already
 * used are skipped, denied ones too), a function's only clone is traced
 * under its name, several clones are offered, NAME|OTHER takes the first
 * that exists, the deny list refuses, fentry needs ftrace, a function that
 * never returns is entry-only.
 */
static void kernel_functions(void **state)
{
	static const char *const l[] = {
		"func:vfs_write",
		"fentry:vfs_*",
		"kprobe:no_such_fn",
		"func:tcp_v4_rcv_helper",
		"fentry:_raw_spin_lock",
		"fentry:vfs_readv",
		"kprobe:vfs_readv as kp_readv",
		"func:do_exit",
		"fentry:vfio_sync_unpin",
		"func:vfio_df_open|vfio_device_open",
		"func:vfio_nope|vfio_gone as both_gone",
		"kprobe:vfs_raed",
	};
	struct probe_list pl;
	struct plan p;
	uint32_t i, nret = 0;

	(void)state;
	build(&pl, &p, l, 12);
	/* vfs_* -> vfs_read only: vfs_write is taken by line 1, vfs_readv
	 * is not traceable (not in available_filter_functions) */
	assert_int_equal(p.ntimers, 12);
	assert_null(p.timers[0].error);
	assert_string_equal(p.timers[0].func, "vfs_write");
	assert_string_equal(p.timers[1].name, "vfs_read");
	assert_string_equal(p.timers[1].func, "vfs_read");
	assert_null(p.timers[1].error);
	assert_string_equal(p.timers[1].where, "fentry:vfs_read (fentry:vfs_*)");
	assert_string_equal(p.timers[2].error,
			    "t.conf:3:8: no such kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)");
	/* a typo: the nearest names (ksym_suggest()) after all the rest */
	assert_non_null(p.timers[11].error);
	assert_non_null(strstr(p.timers[11].error,
			       "t.conf:12:8: no such kernel function (not in /proc/kallsyms: "));
	assert_non_null(strstr(p.timers[11].error,
			       "; did you mean vfs_read or vfs_readv?"));
	assert_int_equal(strlen(strstr(p.timers[11].error, "; did you mean")),
			 strlen("; did you mean vfs_read or vfs_readv?"));
	assert_string_equal(p.timers[3].error,
			    "t.conf:4:6: no kernel function 'tcp_v4_rcv_helper': the compiler made clones of it: tcp_v4_rcv_helper.constprop.0, tcp_v4_rcv_helper.isra.0 (name one, e.g. func:tcp_v4_rcv_helper.constprop.0)");
	/* the only clone (NAME.cold is no function), under the name given */
	assert_null(p.timers[8].error);
	assert_string_equal(p.timers[8].name, "vfio_sync_unpin");
	assert_string_equal(p.timers[8].func, "vfio_sync_unpin.isra.0");
	assert_string_equal(p.timers[8].where,
			    "fentry:vfio_sync_unpin.isra.0 (fentry:vfio_sync_unpin)");
	/* NAME|OTHER: the first that exists; the timer named by the first */
	assert_null(p.timers[9].error);
	assert_string_equal(p.timers[9].name, "vfio_df_open");
	assert_string_equal(p.timers[9].func, "vfio_device_open");
	assert_string_equal(p.timers[10].name, "both_gone");
	assert_string_equal(p.timers[10].error,
			    "t.conf:11:6: none of vfio_nope|vfio_gone is a kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)");
	assert_non_null(strstr(p.timers[4].error,
			       "_raw_spin_lock: iprof does not time it: the tracer itself runs it (spinlock internals)"));
	assert_non_null(strstr(p.timers[5].error,
			       "vfs_readv is not traceable by ftrace"));
	/* a kprobe does not need ftrace */
	assert_null(p.timers[6].error);
	assert_string_equal(p.timers[6].func, "vfs_readv");
	/* the planner says which mechanisms the loader tries, in order */
	assert_int_equal(p.timers[0].via, PLAN_VIA_FENTRY | PLAN_VIA_KPROBE);
	assert_int_equal(p.timers[1].via, PLAN_VIA_FENTRY);
	assert_int_equal(p.timers[6].via, PLAN_VIA_KPROBE);
	/* do_exit never returns: entry only */
	assert_null(p.timers[7].error);
	assert_int_equal(p.timers[7].entry_only, 1);
	for (i = 0; i < p.natt; i++)
		if (p.att[i].timer == 7 && p.att[i].mech == MECH_FUNC_RETURN)
			nret++;
	assert_int_equal(nret, 0);
	plan_free(&p);
	probe_list_free(&pl);
}

/* Arguments of kernel functions by name, their types from BTF. */
static void named_arguments(void **state)
{
	static const char *const l[] = {
		"func:vfs_write if fd == -1 && count > 10",
		"func:ksys_read if nope == 1",
		"func:vfs_read if fd == 1",
		"func:ksys_read as kr if fd:s32 == -1",
	};
	const struct iprof_cond *c;
	struct probe_list pl;
	struct plan p;

	(void)state;
	build(&pl, &p, l, 4);
	assert_null(p.timers[0].error);
	c = p.actions[p.att[0].action].cond;
	assert_int_equal(p.actions[p.att[0].action].ncond, 2);
	assert_int_equal(c[0].src, IPROF_SRC_ARG);
	assert_int_equal(c[0].off, 0);
	assert_int_equal(c[0].size, 4);
	assert_int_equal(c[0].is_signed, 0);
	assert_int_equal(c[0].val, 0xffffffffull); /* -1 as an unsigned int */
	assert_int_equal(c[1].off, 2);
	assert_int_equal(c[1].size, 8);
	assert_string_equal(p.timers[1].error,
			    "t.conf:2:19: ksys_read has no argument 'nope' (its arguments: fd, buf, count)");
	assert_string_equal(p.timers[2].error,
			    "t.conf:3:18: 'fd': vfs_read has no BTF to name its arguments; use argN");
	/* a type written in the file wins over BTF's */
	assert_null(p.timers[3].error);
	c = p.actions[p.att[2].action].cond;
	assert_int_equal(c[0].size, 4);
	assert_int_equal(c[0].is_signed, 1);
	assert_int_equal(c[0].val, UINT64_MAX);
	plan_free(&p);
	probe_list_free(&pl);
}

/* More timers on one tracepoint than a chain holds: the extra one is refused
 * with a reason, the others keep working. */
static void chain_limit(void **state)
{
	char lines[IPROF_MAX_CHAIN + 1][128];
	const char *l[IPROF_MAX_CHAIN + 1];
	struct probe_list pl;
	struct plan p;
	uint32_t i, n, a;

	(void)state;
	for (i = 0; i <= IPROF_MAX_CHAIN; i++) {
		snprintf(lines[i], sizeof(lines[i]),
			 "span s%u = tp:kvm:kvm_fpu if load == 1 -> tp:syscalls:sys_exit_ioctl",
			 i);
		l[i] = lines[i];
	}
	build(&pl, &p, l, IPROF_MAX_CHAIN + 1);
	for (i = 0; i < IPROF_MAX_CHAIN; i++)
		assert_null(p.timers[i].error);
	assert_non_null(strstr(p.timers[IPROF_MAX_CHAIN].error,
			       "timers use one tracepoint"));
	/* two attachments, each a chain of IPROF_MAX_CHAIN actions */
	assert_int_equal(p.natt, 2);
	for (i = 0; i < 2; i++) {
		for (n = 0, a = p.att[i].action; a != IPROF_NO_NEXT;
		     a = p.actions[a].next)
			n++;
		assert_int_equal(n, IPROF_MAX_CHAIN);
	}
	plan_free(&p);
	probe_list_free(&pl);
}

static void no_tracefs(void **state)
{
	static const char *const l[] = {
		"span a = tracepoint:kvm:kvm_fpu -> tracepoint:kvm:kvm_fpu",
	};
	struct probe_list pl = { 0 };
	struct plan p;
	char err[256];

	(void)state;
	assert_int_equal(probe_parse_line(&pl, l[0], "-e", 1, err, sizeof(err)),
			 0);
	assert_int_equal(plan_build(&p, &pl, &no_env), 0);
	assert_non_null(strstr(p.timers[0].error, "tracefs is not mounted"));
	plan_free(&p);
	probe_list_free(&pl);
}

/* A tracepoint that is a uprobe or kprobe event is refused, saying what it
 * is: from uprobe_events / kprobe_events, else from its probe fields. */
static void dynamic_events(void **state)
{
	static const char *const l[] = {
		"span u = tracepoint:uprobes:uev -> tracepoint:kvm:kvm_fpu",
		"span k = tracepoint:kvm:kvm_fpu -> tracepoint:probe_x:kev",
		"span f = tracepoint:stray:pev -> tracepoint:kvm:kvm_fpu",
		"span ok = tracepoint:kvm:kvm_fpu -> tracepoint:kvm:kvm_fpu",
	};
	struct probe_list pl = { 0 };
	struct plan p;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		assert_int_equal(probe_parse_line(&pl, l[i], "-e", (int)i + 1,
						  err, sizeof(err)),
				 0);
	assert_int_equal(plan_build(&p, &pl, &env), 0);
	assert_int_equal(p.ntimers, 4);
	assert_non_null(p.timers[0].error);
	assert_non_null(strstr(p.timers[0].error,
			       "-e:1:10: uprobes:uev is not a kernel tracepoint but a uprobe event ('p:uprobes/uev /usr/bin/prog:0x0000000000001139' in "));
	assert_non_null(strstr(p.timers[0].error, "uprobe:PATH:FUNC"));
	assert_non_null(p.timers[1].error);
	assert_non_null(strstr(p.timers[1].error,
			       "probe_x:kev is not a kernel tracepoint but a kretprobe event ('r16:probe_x/kev vfs_read' in "));
	assert_non_null(p.timers[2].error);
	assert_non_null(strstr(p.timers[2].error,
			       "stray:pev is not a kernel tracepoint but a uprobe or kprobe event (its format has the __probe_ip or __probe_func field"));
	assert_null(p.timers[3].error);
	plan_free(&p);
	probe_list_free(&pl);
}

/* The kretprobe trampoline's address: the first name of the list found. */
static void symbol_address(void **state)
{
	static const char *const tramp[] = { "arch_rethook_trampoline",
					     "__kretprobe_trampoline", NULL };
	static const char *const old[] = { "kretprobe_trampoline",
					   "__kretprobe_trampoline", NULL };
	static const char *const none[] = { "no_such_symbol", NULL };

	(void)state;
	assert_true(ksym_addr(kallsyms, tramp) == 0xffffffff81a00100ull);
	assert_true(ksym_addr(kallsyms, old) == 0xffffffff81a00000ull);
	assert_true(ksym_addr(kallsyms, none) == 0);
	assert_true(ksym_addr("/nonexistent/kallsyms", tramp) == 0);
}

/* retsite_split() of function @fn of this program: its error; the site
 * as an offset from the function's start into *@at, its bytes into *@adj,
 * why not into @why */
static int split_of(const char *fn, uint64_t *at, uint32_t *adj, char *why,
		    size_t len)
{
	uint64_t off, size, site;
	int r;

	assert_int_equal(sym_func_range(self, fn, &off, &size, why, len), 0);
	r = retsite_split(NULL, self, (struct retsite_code[]){ { off, size, 0 } },
			  1, &site, adj, why, len);
	*at = r ? 0 : site - off;
	return r;
}

/* retsite_split() on the sp_* functions above: where each entry's start
 * goes, and why not */
static void entry_splits(void **state)
{
#ifdef __x86_64__
	uint64_t at;
	uint32_t adj;
	char why[256];

	(void)state;
	assert_int_equal(split_of("sp_call", &at, &adj, why, sizeof(why)), 0);
	assert_int_equal(at, 9);
	assert_int_equal(adj, 0x28);
	assert_int_equal(split_of("sp_jcc", &at, &adj, why, sizeof(why)), 0);
	assert_int_equal(at, 6);
	assert_int_equal(adj, 8);
	assert_int_equal(split_of("sp_loop", &at, &adj, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_string_equal(why, "a jump into its prologue, to +0x4");
	assert_int_equal(split_of("sp_andsp", &at, &adj, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_string_equal(why, "and rsp, 0xfffffffffffffff0 at +0x1 before any instruction the kernel emulates");
	assert_int_equal(split_of("sp_emu", &at, &adj, why, sizeof(why)),
			 -EALREADY);
	assert_int_equal(split_of("sp_tail", &at, &adj, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_string_equal(why, "a jmp out of it at +0x8");
	assert_int_equal(split_of("sp_ret", &at, &adj, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_string_equal(why, "ret at +0x8 before any instruction the kernel emulates");
#else
	(void)state;
	skip();
#endif
}

/*
 * A split entry in the plan: with a uretprobe, sp_call's entry is the
 * mark (MECH_UMARK) and its start a split site at its call; a second
 * timer on it joins both; sp_ret keeps its single-stepped entry, said
 * why; with return sites nothing is split.
 */
static void split_planned(void **state)
{
#ifdef __x86_64__
	static const char *const l[] = {
		"uprobe:SELF:sp_call",
		"uprobe:SELF:sp_call as sp_call2 if arg0 == 1",
		"uprobe:SELF:sp_ret",
	};
	struct plan_env e = env;
	struct probe_list pl;
	struct plan p;
	uint64_t off, size;
	uint32_t i, nmark = 0, nsplit = 0;
	char why[256];

	(void)state;
	e.returns = PLAN_RETURNS_URETPROBE;
	memset(&pl, 0, sizeof(pl));
	for (i = 0; i < 3; i++)
		assert_int_equal(probe_parse_line(&pl, with_self(l[i]), "t.conf",
						  (int)i + 1, why, sizeof(why)),
				 0);
	assert_int_equal(plan_build(&p, &pl, &e), 0);
	assert_int_equal(sym_func_range(self, "sp_call", &off, &size, why,
					sizeof(why)), 0);
	for (i = 0; i < p.natt; i++) {
		if (p.att[i].mech == MECH_UMARK) {
			nmark++;
			assert_int_equal(p.att[i].offset, off);
		}
		if (p.att[i].mech == MECH_RETSITE && p.att[i].split) {
			nsplit++;
			assert_int_equal(p.att[i].split, PLAN_SPLIT_GAP);
			assert_int_equal(p.att[i].offset, off + 9);
			assert_int_equal(p.att[i].key_adj, 0x28);
			assert_int_equal(p.actions[p.att[i].action].pclass,
					 IPROF_PC_USPLIT);
		}
	}
	assert_int_equal(nmark, 1);
	assert_int_equal(nsplit, 1);
	assert_int_equal(p.timers[0].split_at, 9);
	assert_int_equal(p.timers[1].split_at, 9);
	assert_int_equal(plan_calib_class(&p, 0), CALIB_URETPROBE_SPLIT);
	assert_int_equal(p.timers[2].split_at, 0);
	assert_string_equal(p.timers[2].split_why,
			    "ret at +0x8 before any instruction the kernel emulates");
	assert_int_equal(plan_calib_class(&p, 2), CALIB_URETPROBE_STEP);
	plan_free(&p);
	/* return sites: no mark, nothing at the entry, both timers' starts
	 * at the call, their stops at its ret */
	e.returns = PLAN_RETURNS_SITES;
	assert_int_equal(plan_build(&p, &pl, &e), 0);
	for (i = 0, nsplit = 0; i < p.natt; i++) {
		assert_true(p.att[i].mech != MECH_UMARK);
		assert_true(p.att[i].mech != MECH_UPROBE ||
			    p.att[i].offset != off);
		if (p.att[i].split) {
			nsplit++;
			assert_int_equal(p.att[i].split, PLAN_SPLIT_ENTRY);
			assert_int_equal(p.att[i].offset, off + 9);
			assert_int_equal(p.att[i].key_adj, 0x28);
			assert_int_equal(p.actions[p.att[i].action].pclass,
					 IPROF_PC_UENTRY);
			/* both timers' starts, in one chain */
			assert_true(p.actions[p.att[i].action].next !=
				    IPROF_NO_NEXT);
			assert_int_equal(p.actions[p.actions[p.att[i].action]
							   .next]
						 .next,
					 IPROF_NO_NEXT);
		}
	}
	assert_int_equal(nsplit, 1);
	assert_int_equal(p.timers[0].ret_sites, 1);
	assert_int_equal(p.timers[1].split_at, 9);
	assert_int_equal(plan_calib_class(&p, 0), CALIB_RETSITE);
	plan_free(&p);
	probe_list_free(&pl);
#else
	(void)state;
	skip();
#endif
}

/* retsite_find() on the functions above: sites, a fallback, none */
static void return_sites(void **state)
{
#ifdef __x86_64__
	uint64_t off, size, *sites = NULL;
	char why[256];
	size_t n = 0, njmp = 0;

	(void)state;
	assert_int_equal(sym_func_range(self, "rs_tail", &off, &size, why,
					sizeof(why)), 0);
	/* the jmp is 2 or 5 bytes, as the assembler chose */
	assert_true(size == 7 || size == 10);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, size, 0 } }, 1, &sites, &n, &njmp, why,
				      sizeof(why)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(njmp, 1); /* the jmp is a tail call, the ret not */
	assert_int_equal(sites[0], off + 4); /* jmp plan_test_target */
	assert_int_equal(sites[1], off + size - 1); /* ret */
	free(sites);

	assert_int_equal(sym_func_range(self, "rs_indirect", &off, &size, why,
					sizeof(why)), 0);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, size, 0 } }, 1, &sites, &n, NULL, why,
				      sizeof(why)), -EOPNOTSUPP);
	assert_null(sites);
	assert_non_null(strstr(why, "an indirect jmp at +0x2"));

	assert_int_equal(sym_func_range(self, "rs_noret", &off, &size, why,
					sizeof(why)), 0);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, size, 0 } }, 1, &sites, &n, NULL, why,
				      sizeof(why)), -ENOENT);

	/* no size and no .eh_frame entry: its end is unknown */
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, 0, 0 } }, 1, &sites, &n, NULL, why,
				      sizeof(why)), -EOPNOTSUPP);
	assert_string_equal(why, "its symbol has no size and no .eh_frame entry starts at it, so its end is unknown");

	/* no size: its .eh_frame entry's end, two rets */
	assert_int_equal(sym_func_range(self, "rs_nosize", &off, &size, why,
					sizeof(why)), 0);
	assert_int_equal(size, 0);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, 0, 0 } }, 1, &sites, &n, &njmp, why,
				      sizeof(why)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(njmp, 0);
	assert_int_equal(sites[0], off + 4);
	assert_int_equal(sites[1], off + 7);
	free(sites);

	/* the unnamed cold part is taken in: its ret is a site too */
	assert_int_equal(sym_func_range(self, "rs_split", &off, &size, why,
					sizeof(why)), 0);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, size, 0 } }, 1, &sites, &n, &njmp, why,
				      sizeof(why)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(njmp, 0);
	assert_int_equal(sites[0], off + size - 1);
	assert_true(sites[1] >= off + size);
	free(sites);

	/* a bounded jump table inside: the 4 rets, the jmp none */
	assert_int_equal(sym_func_range(self, "rs_switch", &off, &size, why,
					sizeof(why)), 0);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, size, 0 } }, 1, &sites, &n, &njmp, why,
				      sizeof(why)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(njmp, 0);
	free(sites);
	assert_int_equal(sym_func_range(self, "rs_switch_out", &off, &size, why,
					sizeof(why)), 0);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, size, 0 } }, 1, &sites, &n, NULL, why,
				      sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "its jump table at +0x15 (jmp rax) has entry 2 jumping out of it"));
	assert_int_equal(sym_func_range(self, "rs_switch_nobound", &off, &size, why,
					sizeof(why)), 0);
	assert_int_equal(retsite_find(NULL, self, (struct retsite_code[]){ { off, size, 0 } }, 1, &sites, &n, NULL, why,
				      sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "no bounded jump table iprof can read"));
#else
	(void)state;
	skip();
#endif
}

/* retsite_find() on function @fn of ELF file @path: its return sites'
 * number in *@n; the error and @why (@len bytes) as it returns them */
static int rs_sites(const char *path, const char *fn, size_t *n, char *why,
		    size_t len)
{
	uint64_t off, size, *sites = NULL;
	int r;

	assert_int_equal(sym_func_range(path, fn, &off, &size, why, len), 0);
	*n = 0;
	r = retsite_find(NULL, path, (struct retsite_code[]){ { off, size, 0 } }, 1,
			 &sites, n, NULL, why, len);
	free(sites);
	return r;
}

/*
 * Jump tables as compilers write them (the rs_jt_* functions above, and
 * tests/fixtures/jtable.c, $IPROF_JTABLE): each proven bounded, so the
 * function gets its rets as sites, all of them; each near miss (rs_jn_*)
 * refused: a jmp that may land anywhere.
 */
static void jump_tables(void **state)
{
#ifdef __x86_64__
	static const struct {
		const char *fn;
		size_t rets;
	} ok[] = {
		{ "rs_jt_mem", 4 }, { "rs_jt_zext", 4 }, { "rs_jt_loop", 3 },
		{ "rs_jt_jbe", 4 }, { "rs_jt_byte", 4 }, { "rs_jt_and", 4 },
		{ "rs_jt_sx", 4 },  { "rs_jt_call", 4 }, { "rs_jt_two", 4 },
		{ "rs_jt_cold", 4 },
	};
	static const char *const miss[] = {
		"rs_jn_clobber", "rs_jn_otherreg", "rs_jn_store",
		"rs_jn_base",	 "rs_jn_upper",	   "rs_jn_loop",
		"rs_jn_signed",	 "rs_jn_join",	   "rs_jn_call",
		"rs_jn_cold",	 "rs_jn_blind",
	};
	const char *abs = getenv("IPROF_JTABLE");
	char why[256];
	size_t i, n;
	int r;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		r = rs_sites(self, ok[i].fn, &n, why, sizeof(why));
		if (r || n != ok[i].rets)
			fail_msg("%s: %d, %zu sites (%zu rets): %s", ok[i].fn,
				 r, n, ok[i].rets, r ? why : "");
	}
	for (i = 0; i < sizeof(miss) / sizeof(miss[0]); i++) {
		r = rs_sites(self, miss[i], &n, why, sizeof(why));
		if (r != -EOPNOTSUPP ||
		    !strstr(why, "no bounded jump table iprof can read"))
			fail_msg("%s: %d, %zu sites: %s", miss[i], r, n,
				 r ? why : "taken for a table");
	}
	/* non-PIC: a table of label addresses */
	assert_non_null(abs);
	assert_int_equal(rs_sites(abs, "rs_abs", &n, why, sizeof(why)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(rs_sites(abs, "rs_abs_nobound", &n, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "no bounded jump table iprof can read"));
	assert_int_equal(rs_sites(abs, "rs_abs_notrack", &n, why, sizeof(why)),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(rs_sites(abs, "rs_abs_out", &n, why, sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "has entry 1 jumping out of it"));
	assert_int_equal(rs_sites(abs, "rs_abs_notrack_out", &n, why,
				  sizeof(why)),
			 -EOPNOTSUPP);
	assert_non_null(strstr(why, "has entry 0 jumping out of it"));
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tp_fields),
		cmocka_unit_test(return_sites),
		cmocka_unit_test(entry_splits),
		cmocka_unit_test(split_planned),
		cmocka_unit_test(jump_tables),
		cmocka_unit_test(kvm_run_span),
		cmocka_unit_test(alt_stop_span),
		cmocka_unit_test(keyed_spans),
		cmocka_unit_test(keyed_errors),
		cmocka_unit_test(tp_types),
		cmocka_unit_test(per_probe_errors),
		cmocka_unit_test(tp_cond_widths),
		cmocka_unit_test(stop_name),
		cmocka_unit_test(absent_fields),
		cmocka_unit_test(arg_cond_widths),
		cmocka_unit_test(uprobe_resolved),
		cmocka_unit_test(uprobe_relative),
		cmocka_unit_test(uprobe_globs),
		cmocka_unit_test(uprobe_cxx_globs),
		cmocka_unit_test(chain_limit),
		cmocka_unit_test(chain_order),
		cmocka_unit_test(kernel_functions),
		cmocka_unit_test(kernel_inlined),
		cmocka_unit_test(kernel_image_inlined),
		cmocka_unit_test(named_arguments),
		cmocka_unit_test(no_tracefs),
		cmocka_unit_test(dynamic_events),
		cmocka_unit_test(symbol_address),
	};
	setup_paths();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
