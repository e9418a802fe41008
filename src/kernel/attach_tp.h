/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/attach_tp.c: the plan's attachments that are not a function
 * timer's own: tracepoints, uprobes, syscall spans, uprobe_multi links.
 * Internal to src/kernel/.
 */
#ifndef IPROF_KERNEL_ATTACH_TP_H
#define IPROF_KERNEL_ATTACH_TP_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/loader_int.h"

/* attach_tp_syscalls() - the raw syscall programs, once.  0 (a failure:
 * every syscall attachment's, why in l->sc_why). */
int attach_tp_syscalls(struct loader *l);
/* attach_tp_syscall() - syscall span attachment @i's chain.  0 (a
 * failure: why in l->sc_why). */
int attach_tp_syscall(struct loader *l, uint32_t i, char *why, size_t len);
/* attach_tp_att_attached() - is plan attachment @i in place? */
int attach_tp_att_attached(const struct loader *l, uint32_t i);
/* attach_tp_umulti() - user functions in uprobe_multi links, once.
 * 0 or -ENOMEM. */
int attach_tp_umulti(struct loader *l);
/*
 * attach_tp_tracepoint(), attach_tp_uprobe() - tracepoint or uprobe
 * (uretprobe, return site) attachment @i (plan.att[i]) in a link of its
 * own (l->att_links[i]): 0, or -errno with why (libbpf's warning
 * included) in @why (@len bytes).
 */
int attach_tp_tracepoint(struct loader *l, uint32_t i, char *why, size_t len);
int attach_tp_uprobe(struct loader *l, uint32_t i, char *why, size_t len);
/* attach_tp_att_uses() - does attachment @a run an action of @timer? */
int attach_tp_att_uses(const struct plan *p, const struct plan_att *a,
		       uint32_t timer);
/* attach_tp_timer_in_umulti() - is @timer in a uprobe_multi link? */
int attach_tp_timer_in_umulti(const struct loader *l, uint32_t timer);
/* attach_tp_timer_on_syscalls() - does @timer ride on the raw syscalls? */
int attach_tp_timer_on_syscalls(const struct plan *p, uint32_t timer);

#endif /* IPROF_KERNEL_ATTACH_TP_H */
