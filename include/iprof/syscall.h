/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * System-call numbers of the syscalls:sys_enter_NAME / sys_exit_NAME
 * tracepoints, so that syscall spans can ride on the two raw syscall
 * tracepoints (tp_btf/sys_enter, sys_exit), dispatched in BPF by number
 * (bpf/iprof.bpf.c, sc_enter/sc_exit), instead of two tracepoint
 * attachments each.  Kernel-free.
 */
#ifndef IPROF_SYSCALL_H
#define IPROF_SYSCALL_H

/*
 * syscall_tp_nr() - the number of the system call that tracepoint
 * @category:@event reports: "syscalls":"sys_enter_NAME" or
 * "syscalls":"sys_exit_NAME".  Sets *@is_exit (1 for sys_exit_) when not
 * NULL.  Returns the number (0 <= nr < IPROF_NR_SYSCALLS), or -1 when the
 * event is no syscall tracepoint or its number is not known to this build:
 * the table comes from the build host's asm/unistd_64.h (x86-64; a syscall
 * number never changes meaning), with the few syscalls whose tracepoint
 * name differs from their __NR_ name (newstat is __NR_stat, ...; see
 * SYSCALL_DEFINE in fs/stat.c, kernel/sys.c, fs/read_write.c,
 * fs/namespace.c).  Other architectures: always -1.
 */
int syscall_tp_nr(const char *category, const char *event, int *is_exit);

#endif
