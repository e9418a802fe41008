// SPDX-License-Identifier: GPL-2.0-only
/*
 * USDT attachments of the plan: libbpf's USDT support does the work (the
 * SDT notes, the sites, the argument specs, the semaphore's reference
 * count through the kernel's uprobe ref_ctr_offset).  See attach_usdt.h.
 */
#include <errno.h>

#include <bpf/libbpf.h>

#include "kernel/attach.h"
#include "kernel/attach_tp.h"
#include "kernel/attach_usdt.h"
#include "kernel/kmech.h"

/* pid -1: in every process, as the uprobes; the USDT cookie is the first
 * action of the chain (bpf_usdt_cookie() in usdt_hit) */
static struct bpf_link *usdt_link(struct loader *l, const struct plan_att *a)
{
	LIBBPF_OPTS(bpf_usdt_opts, uo);

	uo.usdt_cookie = a->action;
	return bpf_program__attach_usdt(kmech_prog(l, kmech(MECH_USDT), 0), -1,
					a->path, a->category, a->event, &uo);
}

int attach_usdt(struct loader *l, uint32_t i, char *why, size_t len)
{
	return attach_att_link(l, i, usdt_link, why, len);
}

int attach_usdt_timer(const struct plan *p, uint32_t timer)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if (p->att[i].mech == MECH_USDT &&
		    attach_tp_att_uses(p, &p->att[i], timer))
			return 1;
	return 0;
}

int attach_uside_timer(const struct plan *p, uint32_t timer)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if ((p->att[i].mech == MECH_UPROBE ||
		     p->att[i].mech == MECH_URETPROBE) &&
		    attach_tp_att_uses(p, &p->att[i], timer))
			return 1;
	return 0;
}
