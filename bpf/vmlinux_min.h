/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few kernel types iprof's BPF programs touch, declared by hand with
 * preserve_access_index so that libbpf relocates every field access against
 * the running kernel's BTF (CO-RE).  Only the fields used are declared.
 * UAPI types (BPF map types, helpers' flags, pt_regs on x86-64) come from
 * the kernel headers in linux-libc-dev.
 */
#ifndef IPROF_VMLINUX_MIN_H
#define IPROF_VMLINUX_MIN_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <asm/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* x86: TS_COMPAT in status marks an ia32 syscall in progress
 * (arch/x86/include/asm/thread_info.h) */
struct thread_info {
	__u32 status;
};

typedef struct {
	int counter;
} atomic_t;

/* threads of the process not yet exiting (kernel/exit.c: do_exit()
 * decrements it before trace_sched_process_exit()) */
struct signal_struct {
	atomic_t live;
};

/* x86 (CONFIG_X86_USER_SHADOW_STACK): the thread's ARCH_SHSTK_* features
 * (arch/x86/include/asm/processor.h; bits in uapi asm/prctl.h) */
struct thread_struct {
	unsigned long features;
};

/* the uretprobe trampoline's address in the process: the first slot of its
 * [uprobes] area (uprobe_get_trampoline_vaddr() in kernel/events/uprobes.c;
 * NULL area: no uretprobe has fired in the process yet) */
struct xol_area {
	unsigned long vaddr;
};

struct uprobes_state {
	struct xol_area *xol_area;
};

struct mm_struct {
	struct uprobes_state uprobes_state;
};

struct task_struct {
	struct thread_info thread_info;
	struct mm_struct *mm;
	struct thread_struct thread;
	int pid;
	int tgid;
	unsigned int __state;
	struct task_struct *group_leader;
	struct signal_struct *signal;
};

/* the executable of an exec (include/linux/binfmts.h): --exe */
struct super_block {
	__u32 s_dev; /* dev_t: MAJOR << 20 | MINOR (include/linux/kdev_t.h) */
};

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
};

struct file {
	struct inode *f_inode;
};

struct linux_binprm {
	struct file *file;
};

#pragma clang attribute pop

#endif
