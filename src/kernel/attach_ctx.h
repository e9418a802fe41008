/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/attach_ctx.c: uprobes on libc's getcontext, setcontext and
 * swapcontext (program ctx_switch), so that the BPF side knows a stack
 * switch when it happens.  Internal to src/kernel/.
 */
#ifndef IPROF_KERNEL_ATTACH_CTX_H
#define IPROF_KERNEL_ATTACH_CTX_H

#include "kernel/loader_int.h"

/*
 * attach_ctx_switches() - for each file of the plan's user attachments
 * that defines (a static program) or imports (from libc.so.6, found as a
 * uprobe's bare library name is) swapcontext or setcontext, and for the
 * file of each uprobe session (plan_att.session: libc.so.6's, counted in
 * l->ctx_libc, without all three of which no session link is made): a uprobe
 * (pid -1: the BPF side checks the target) on each of getcontext,
 * setcontext and swapcontext of the file that defines them, each file
 * once, links kept in l->ctx_links (at most ATTACH_CTX_MAX).  None when
 * the program ctx_switch was not loaded (no user timer).  Best effort: a
 * function not found or not attached is skipped (its switches fall back
 * to the 64 KiB rule, bpf/iprof.bpf.h drop_left()).  Returns how many
 * uprobes were attached, or -ENOMEM.
 */
int attach_ctx_switches(struct loader *l);

/* attach_ctx_detach() - drop the links attach_ctx_switches() made */
void attach_ctx_detach(struct loader *l);

#endif /* IPROF_KERNEL_ATTACH_CTX_H */
