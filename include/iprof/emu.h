/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * emu - which probed instructions iprof's uprobe programs run themselves.
 *
 * A uprobe replaces the first byte of an instruction with int3; after the
 * programs have run, the kernel emulates a few instructions (x86: push of
 * a register, call, jmp and jcc with a displacement, nop) and single-steps
 * every other one out of line (a second trap: ~3 us on this 2-CPU host,
 * bench/README.md).  Where the kernel lets a uprobe program write its
 * registers (Linux 6.19+; probed at start: src/kernel/uprobe_emu.c), a
 * program that moves ip makes the kernel skip the instruction, so the
 * programs can run a return site's `ret` and skip an entry's `endbr64`
 * (bpf/iprof.bpf.c emulate()).  Kernel-free: it decodes bytes.
 */
#ifndef IPROF_EMU_H
#define IPROF_EMU_H

#include <stddef.h>
#include <stdint.h>

/* How a BPF program may run one probed instruction (IPROF_EMU_* of
 * include/iprof/abi.h). */
struct plan_emu {
	uint8_t kind; /* enum iprof_emu_kind: IPROF_EMU_NONE, _RET, _SKIP */
	uint8_t len; /* _SKIP: the instruction's length in bytes (1..15) */
	uint16_t pop; /* _RET: bytes popped after the return address
		       * (ret imm16), at most IPROF_EMU_POP_MAX */
};

/*
 * emu_decode() - the instruction at the start of the @n bytes @b (code as
 * the file holds it, not as the probe left it), probed as a return site
 * (@site 1: ret, `ret imm16`, with rep (f3) or bnd (f2) prefixes) or as a
 * function entry (@site 0: endbr64 f3 0f 1e fa, nop 90, xchg %ax,%ax
 * 66 90, nopl/nopw 0f 1f /0 with operand-size prefixes; not the 5-byte
 * 0f 1f 44 00 00, whose uprobe 6.18+ kernels optimize into a call).  Fills *@e and
 * returns its kind; IPROF_EMU_NONE (what the kernel does then: emulates
 * or single-steps it) for any other instruction, a 16-bit `retw` (66 c3),
 * a far ret, or @n too short.  Intel SDM vol. 2: RET, ENDBR64, NOP.
 */
int emu_decode(const uint8_t *b, size_t n, int site, struct plan_emu *e);

/*
 * emu_decode_file() - emu_decode() of the instruction at file offset @off
 * of ELF file @path (reads 16 bytes).  IPROF_EMU_NONE if it cannot be
 * read.
 */
int emu_decode_file(const char *path, uint64_t off, int site,
		    struct plan_emu *e);

/*
 * emu_shstk() - does the thread whose proc(5) status file is @status
 * (/proc/PID/status) run with a user shadow stack?  Its
 * "x86_Thread_features:" line (arch/x86/kernel/fpu/xstate.c,
 * Documentation/arch/x86/shstk.rst) names "shstk" when it does.  1 yes,
 * 0 no (or a kernel without the line), -errno of fopen(3).  iprof's
 * programs never run a ret in such a thread (the shadow stack would keep
 * its entry): the kernel single-steps it.
 */
int emu_shstk(const char *status);

#endif /* IPROF_EMU_H */
