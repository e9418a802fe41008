/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the loader (src/kernel/loader.c) and every mechanism (src/kernel/attach_*.c)
 * share of a timer's attachment: its links and its two actions.
 */
#include <errno.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "kernel/loader_int.h"
#include "kernel/attach.h"
#include "kernel/klog.h"

int attach_keep_link(struct timer_links *tl, struct bpf_link *link)
{
	struct bpf_link **v = realloc(tl->v, (tl->n + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	tl->v = v;
	tl->v[tl->n++] = link;
	return 0;
}

void attach_drop_links(struct timer_links *tl)
{
	size_t i;

	for (i = 0; i < tl->n; i++)
		bpf_link__destroy(tl->v[i]);
	free(tl->v);
	tl->v = NULL;
	tl->n = 0;
	/* after the links: an event in use cannot be removed */
	if (tl->kev[0])
		tracefs_kprobe_del(tl->kev);
	tl->kev[0] = '\0';
}

/* The two actions of a function timer: its entry and return attachments. */
void attach_func_actions(const struct plan *p, uint32_t timer, uint32_t *ae,
			 uint32_t *ar)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++) {
		if (p->att[i].timer != timer)
			continue;
		if (p->att[i].mech == MECH_FUNC_ENTRY)
			*ae = p->att[i].action;
		else if (p->att[i].mech == MECH_FUNC_RETURN)
			*ar = p->att[i].action;
	}
}

int attach_att_link(struct loader *l, uint32_t i, attach_link_fn fn, char *why,
		    size_t len)
{
	struct klog_catch cat;
	struct bpf_link *ln;
	int err;

	klog_catch_begin(&cat);
	ln = fn(l, &l->plan->att[i]);
	err = errno;
	klog_catch_end(&cat);
	if (!ln) {
		klog_reason(&cat, err, why, len);
		return err ? -err : -EINVAL;
	}
	l->att_links[i] = ln;
	return 0;
}
