/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * May a uprobe program write its registers?  Linux 6.19+ lets a
 * kprobe-type program write its pt_regs context where it is attached to a
 * uprobe ("bpf: Allow uprobe program to change context registers"; the
 * attach refuses such a program on a kprobe), and skips the probed
 * instruction when the program moved ip ("uprobe: Do not emulate/sstep
 * original instruction when ip is changed").  Older verifiers refuse the
 * load ("invalid bpf_context access off=128").  iprof's *_x programs
 * (bpf/iprof.bpf.c emulate()) then run a return site's ret themselves.
 */
#ifndef IPROF_UPROBE_EMU_H
#define IPROF_UPROBE_EMU_H

/*
 * uprobe_emu_supported() - 1 if the kernel loads a kprobe-type program
 * that writes ip and sp in its context, 0 if not (probed once: a
 * six-instruction program, no kernel version read).  x86-64 only (0
 * elsewhere).  IPROF_NO_EMULATE=1 in the environment makes it 0
 * (--no-emulate).
 */
int uprobe_emu_supported(void);

#endif
