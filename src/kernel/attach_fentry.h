/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/attach_fentry.c: function timers with fentry/fexit, in
 * batches of BPF objects (loader_try_fentry() is in loader.h).  Internal to
 * src/kernel/.
 */
#ifndef IPROF_KERNEL_ATTACH_FENTRY_H
#define IPROF_KERNEL_ATTACH_FENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/loader_int.h"

/* attach_fentry() - fentry/fexit on timer @id's function. */
int attach_fentry(struct loader *l, struct timer_links *tl, uint32_t id,
		  uint32_t a_ret, char *why, size_t len);
/* attach_fentry_slot() - attach @tl's fentry (@ret 0) or fexit program. */
int attach_fentry_slot(struct timer_links *tl, int ret, char *why, size_t len);

#endif /* IPROF_KERNEL_ATTACH_FENTRY_H */
