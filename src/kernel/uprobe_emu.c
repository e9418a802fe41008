// SPDX-License-Identifier: GPL-2.0-only
/*
 * uprobe_emu.c - may a uprobe program write its registers?  See
 * uprobe_emu.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#if defined(__x86_64__)
#include <asm/ptrace.h> /* struct pt_regs: the kprobe programs' context */
#endif

#include "kernel/uprobe_emu.h"
#include "preempt_probe.skel.h"

static int emu_off;

void uprobe_emu_off(void)
{
	emu_off = 1;
}

int preempt_hold_supported(void)
{
	static int known = -1;
	struct preempt_probe *p;

	if (known >= 0)
		return known;
	p = preempt_probe__open_and_load();
	known = p != NULL;
	preempt_probe__destroy(p);
	return known;
}

int uprobe_emu_is_off(void)
{
	const char *off = getenv("IPROF_NO_EMULATE");

	return emu_off || (off && *off && strcmp(off, "0"));
}

int uprobe_emu_supported(void)
{
	return !uprobe_emu_is_off() && uprobe_emu_kernel();
}

int uprobe_emu_kernel(void)
{
	static int known = -1;

	if (known >= 0)
		return known;
	known = 0;
#if defined(__x86_64__)
	{
		/* r2 = regs->rip; regs->rip = r2; r2 = regs->rsp;
		 * regs->rsp = r2; return 0 */
		const short ip = offsetof(struct pt_regs, rip);
		const short sp = offsetof(struct pt_regs, rsp);
		const struct bpf_insn insns[] = {
			{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 2,
			  .src_reg = 1, .off = ip },
			{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = 1,
			  .src_reg = 2, .off = ip },
			{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 2,
			  .src_reg = 1, .off = sp },
			{ .code = BPF_STX | BPF_MEM | BPF_DW, .dst_reg = 1,
			  .src_reg = 2, .off = sp },
			{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
			{ .code = BPF_JMP | BPF_EXIT },
		};
		int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "iprof_uregs",
				       "GPL", insns, 6, NULL);

		if (fd >= 0) {
			known = 1;
			close(fd);
		}
	}
#endif
	return known;
}
