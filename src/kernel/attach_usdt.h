/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/attach_usdt.c: the plan's USDT attachments (MECH_USDT).
 * Internal to src/kernel/.
 */
#ifndef IPROF_KERNEL_ATTACH_USDT_H
#define IPROF_KERNEL_ATTACH_USDT_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/loader_int.h"

/*
 * attach_usdt() - USDT attachment @i (plan.att[i]: the binary, provider,
 * name) in a link of its own (l->att_links[i]), in every process (the
 * BPF side checks the target), by libbpf's bpf_program__attach_usdt():
 * every site of the probe in the file, its arguments' specs for
 * bpf_usdt_arg(), its semaphore counted up while attached.  0, or -errno
 * with why (libbpf's warning included) in @why (@len bytes).
 */
int attach_usdt(struct loader *l, uint32_t i, char *why, size_t len);

/* attach_usdt_timer() - has @timer a USDT side (an attachment of
 * MECH_USDT running one of its actions)? */
int attach_usdt_timer(const struct plan *p, uint32_t timer);

/* attach_uside_timer() - has span @timer a user function side (an
 * attachment of MECH_UPROBE or MECH_URETPROBE running one of its
 * actions)? */
int attach_uside_timer(const struct plan *p, uint32_t timer);

#endif /* IPROF_KERNEL_ATTACH_USDT_H */
