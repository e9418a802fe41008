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
 * elsewhere).  --no-emulate (uprobe_emu_off()) and IPROF_NO_EMULATE set
 * to anything but 0 make it 0.
 */
int uprobe_emu_supported(void);

/* uprobe_emu_kernel() - what the kernel allows, whatever --no-emulate
 * says: 1 or 0 (the probe of uprobe_emu_supported(), run once) */
int uprobe_emu_kernel(void);

/* uprobe_emu_off() - uprobe_emu_supported() is 0 from now (--no-emulate),
 * without touching the environment the traced command inherits. */
void uprobe_emu_off(void);

/* uprobe_emu_is_off() - 1 if --no-emulate or IPROF_NO_EMULATE=1 turned it
 * off (whatever the kernel allows), else 0. */
int uprobe_emu_is_off(void);

/*
 * preempt_hold_supported() - 1 if a program may hold preemption off
 * (bpf_preempt_disable(), 6.10+) around calls of global functions
 * (6.15+), 0 if not (probed once by loading bpf/preempt_probe.bpf.c; 1
 * also where the kfunc is missing: the programs then skip the call).
 * Where it is 1, iprof's uprobe and syscall programs hold preemption off
 * for their run (bpf/iprof.bpf.h preempt_off()).
 */
int preempt_hold_supported(void);

#endif
