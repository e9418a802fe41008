/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/attach.c: what the loader and every mechanism share of a
 * timer's links.  Internal to src/kernel/.
 */
#ifndef IPROF_KERNEL_ATTACH_H
#define IPROF_KERNEL_ATTACH_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/loader_int.h"

/*
 * attach_keep_link() - add @link to @tl (which owns it from now on).
 * Returns 0, or -ENOMEM with @link destroyed.
 */
int attach_keep_link(struct timer_links *tl, struct bpf_link *link);
/* attach_drop_links() - destroy @tl's links, then its tracefs event. */
void attach_drop_links(struct timer_links *tl);
/*
 * attach_func_actions() - a function timer's entry and return actions
 * (indexes in p->actions) into *@ae and *@ar; each left as it is when the
 * plan has no such attachment.
 */
void attach_func_actions(const struct plan *p, uint32_t timer, uint32_t *ae,
			 uint32_t *ar);
/* a plan attachment's link (NULL with errno set) */
typedef struct bpf_link *(*attach_link_fn)(struct loader *l,
					   const struct plan_att *a);
/*
 * attach_att_link() - plan attachment @i in a link of its own, made by
 * @fn (l->att_links[i] owns it).  Returns 0, or -errno with why (libbpf's
 * warning included) in @why (@len bytes).
 */
int attach_att_link(struct loader *l, uint32_t i, attach_link_fn fn,
		    char *why, size_t len);

#endif /* IPROF_KERNEL_ATTACH_H */
