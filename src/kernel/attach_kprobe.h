/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/attach_kprobe.c: function timers with kprobes: kprobe_multi
 * links, else one kprobe/kretprobe (or tracefs kprobe event) each
 * (loader_kprobes(), loader_kmulti_supported() and loader_kmulti_wanted()
 * are in loader.h).  Internal to src/kernel/.
 */
#ifndef IPROF_KERNEL_ATTACH_KPROBE_H
#define IPROF_KERNEL_ATTACH_KPROBE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/loader_int.h"

/* attach_kprobe() - kprobe/kretprobe on @func for timer @id. */
int attach_kprobe(struct loader *l, struct timer_links *tl, uint32_t id,
		  const char *func, uint32_t a_entry, uint32_t a_ret, char *why,
		  size_t len);
/*
 * attach_kprobe_multi_missed() - the misses of @l's kprobe_multi links, summed
 * into *@missed: calls whose return probe found the link's pool empty (2
 * instances per function and possible CPU) or that ftrace's recursion
 * guard skipped (bpf_link_info.kprobe_multi.missed, fprobe's nmissed).
 * Returns 0, -EOPNOTSUPP before Linux 6.7 (the kernel does not say), or
 * -errno.
 */
int attach_kprobe_multi_missed(const struct loader *l, uint64_t *missed);

/*
 * attach_kprobe_multi() - the kprobe timers @ids (@n) in kprobe_multi
 * links: one kprobe session link where fn_session_km is loaded
 * (loader_ksession_supported()), else an entry link and a return link
 * (fn_entry_km, fn_return_km), each function's cookie its action chains.
 * Sets links[id].kmulti (1 the pair, 2 a session) for the timers
 * attached, links[id].kmulti_err for those the kernel refused; the others
 * (not kmulti_ok, or a second timer on one function) are left to
 * attach_kprobe().  Returns 0 or -ENOMEM.
 */
int attach_kprobe_multi(struct loader *l, const uint32_t *ids, size_t n);
/*
 * attach_kprobe_site() - an inlined instance's kprobe (MECH_KSITE
 * attachment @i, plan.att[i]) in a link of its own (l->att_links[i]): 0,
 * or -errno with why in @why (@len bytes).
 */
int attach_kprobe_site(struct loader *l, uint32_t i, char *why, size_t len);

#endif /* IPROF_KERNEL_ATTACH_KPROBE_H */
