// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attachments of the plan (struct plan_att): tracepoints, uprobes and
 * uretprobes one link each or in uprobe_multi links, syscall spans on the
 * raw syscall tracepoints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/klog.h"
#include "kernel/loader_int.h"
#include "kernel/attach_tp.h"

/*
 * Syscall spans: the two raw syscall programs, once, before any chain is
 * put in sc_chain.  Returns 0 or -errno, the reason kept in l->sc_why for
 * every syscall attachment.
 */
int attach_tp_syscalls(struct loader *l)
{
	struct klog_catch cat;
	char why[512];
	int err;

	klog_catch_begin(&cat);
	l->sc_links[0] = bpf_program__attach(l->skel->progs.sc_enter);
	if (l->sc_links[0])
		l->sc_links[1] = bpf_program__attach(l->skel->progs.sc_exit);
	err = -errno;
	klog_catch_end(&cat);
	if (l->sc_links[1])
		return 0;
	klog_reason(&cat, err, why, sizeof(why));
	bpf_link__destroy(l->sc_links[0]);
	l->sc_links[0] = NULL;
	free(l->sc_why);
	l->sc_why = NULL;
	if (asprintf(&l->sc_why, "raw syscall tracepoints: %s", why) < 0)
		l->sc_why = NULL;
	return err;
}

/* Is attachment @i in place (its link, a uprobe_multi link, or its
 * sc_chain slot)? */
int attach_tp_att_attached(const struct loader *l, uint32_t i)
{
	if (l->plan->att[i].mech == MECH_SYSCALL)
		return l->sc_links[1] != NULL;
	return l->att_links[i] != NULL || (l->att_multi && l->att_multi[i]);
}

/*
 * The BPF cookie of uprobe attachment @a: its chain, and where the loaded
 * programs are the emulating ones, how to run its instruction
 * (IPROF_EMU_COOKIE of abi.h; the page offset of a file offset is its
 * address's); a return site's or inlined instance's that is not run
 * there, where its frame is (IPROF_SITE_COOKIE).
 */
static __u64 ucookie(const struct loader *l, const struct plan_att *a)
{
	if (a->mech == MECH_RETSITE && (!l->emu || !a->emu.kind))
		return IPROF_SITE_COOKIE(a->action, a->key_reg, a->key_adj);
	if (!l->emu || !a->emu.kind ||
	    (a->mech != MECH_UPROBE && a->mech != MECH_RETSITE))
		return a->action;
	return IPROF_EMU_COOKIE(a->action, a->emu.kind, a->emu.len,
				a->offset & 4095, a->emu.pop);
}

/* the program of a uprobe attachment of mechanism @m (@multi: for a
 * uprobe_multi link) */
static struct bpf_program *uprog(const struct loader *l, enum plan_mech m,
				 int multi)
{
	const struct iprof *s = l->skel;

	if (m == MECH_URETPROBE)
		return multi ? s->progs.fn_return_m : s->progs.fn_return_u;
	if (m == MECH_RETSITE)
		return multi ? (l->emu ? s->progs.fn_rsite_mx : s->progs.fn_rsite_m) :
			       (l->emu ? s->progs.fn_rsite_x : s->progs.fn_rsite);
	return multi ? (l->emu ? s->progs.fn_entry_mx : s->progs.fn_entry_m) :
		       (l->emu ? s->progs.fn_entry_ux : s->progs.fn_entry_u);
}

/*
 * User functions in uprobe_multi links where the kernel has them: one link
 * per binary for the entries, one for the return sites and one for the
 * uretprobes, each function's (or site's) cookie the first action of its
 * chain.  A link the kernel refuses leaves
 * its functions to attach_tp_att(), one perf event each.  Returns 0 or
 * -ENOMEM.
 */
int attach_tp_umulti(struct loader *l)
{
	const struct plan *p = l->plan;
	LIBBPF_OPTS(bpf_uprobe_multi_opts, uo);
	unsigned long *offs = NULL; /* libbpf's types: file offsets, */
	__u64 *cookies = NULL;	    /* BPF cookies */
	struct bpf_link *ln, **v;
	struct bpf_program *prog;
	uint32_t i, j, n;
	int ret = 0;

	if (bpf_program__fd(uprog(l, MECH_UPROBE, 1)) < 0)
		return 0; /* not loaded: no uprobe_multi here */
	l->att_multi = calloc(p->natt ? p->natt : 1, 1);
	offs = calloc(p->natt ? p->natt : 1, sizeof(*offs));
	cookies = calloc(p->natt ? p->natt : 1, sizeof(*cookies));
	if (!l->att_multi || !offs || !cookies) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->natt; i++) {
		if ((p->att[i].mech != MECH_UPROBE &&
		     p->att[i].mech != MECH_URETPROBE &&
		     p->att[i].mech != MECH_RETSITE) ||
		    l->att_multi[i])
			continue;
		for (n = 0, j = i; j < p->natt; j++)
			if (p->att[j].mech == p->att[i].mech &&
			    !strcmp(p->att[j].path, p->att[i].path)) {
				offs[n] = p->att[j].offset;
				cookies[n++] = ucookie(l, &p->att[j]);
			}
		prog = uprog(l, p->att[i].mech, 1);
		uo.offsets = offs;
		uo.cookies = cookies;
		uo.cnt = n;
		uo.retprobe = p->att[i].mech == MECH_URETPROBE;
		/* pid -1: in every process */
		ln = bpf_program__attach_uprobe_multi(prog, -1, p->att[i].path,
						      NULL, &uo);
		if (!ln)
			continue; /* one perf event each, as before */
		v = realloc(l->umulti_links, (l->numulti + 1) * sizeof(*v));
		if (!v) {
			bpf_link__destroy(ln);
			ret = -ENOMEM;
			goto out;
		}
		l->umulti_links = v;
		v[l->numulti++] = ln;
		for (j = i; j < p->natt; j++)
			if (p->att[j].mech == p->att[i].mech &&
			    !strcmp(p->att[j].path, p->att[i].path))
				l->att_multi[j] = 1;
	}
out:
	free(offs);
	free(cookies);
	return ret;
}

/* one tracepoint, uprobe or inlined kernel instance's attachment's
 * link, or NULL with errno set */
static struct bpf_link *attach_one(struct loader *l, const struct plan_att *a)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, to);
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	LIBBPF_OPTS(bpf_kprobe_opts, ko);

	switch (a->mech) {
	case MECH_KSITE:
		/* an inlined kernel instance's entry or exit: a kprobe at
		 * FUNC+OFFSET (src/probe/inline.c) */
		ko.bpf_cookie = IPROF_SITE_COOKIE(a->action, a->key_reg,
						  a->key_adj);
		ko.offset = (size_t)a->offset;
		return bpf_program__attach_kprobe_opts(l->skel->progs.fn_ksite,
						       a->func, &ko);
	case MECH_TRACEPOINT:
		to.bpf_cookie = a->action;
		return bpf_program__attach_tracepoint_opts(
			l->skel->progs.tp_hit, a->category, a->event, &to);
	case MECH_UPROBE:
	case MECH_URETPROBE:
	case MECH_RETSITE:
		/* the planner resolved path (absolute) and the function's
		 * (or return site's) file offset (src/probe/sym.c, src/probe/retsite.c):
		 * attach by offset, not by name */
		uo.bpf_cookie = ucookie(l, a);
		uo.func_name = NULL;
		uo.retprobe = a->mech == MECH_URETPROBE;
		return bpf_program__attach_uprobe_opts(
			uprog(l, a->mech, 0), -1, a->path, (size_t)a->offset,
			&uo);
	default:
		errno = EINVAL;
		return NULL;
	}
}

struct bpf_link *attach_tp_att(struct loader *l, const struct plan_att *a,
			       char *why, size_t len)
{
	struct klog_catch cat;
	struct bpf_link *ln;
	int err;

	klog_catch_begin(&cat);
	ln = attach_one(l, a);
	err = errno;
	klog_catch_end(&cat);
	if (!ln)
		klog_reason(&cat, err, why, len);
	return ln;
}

/* Is @timer in a uprobe_multi link? */
int attach_tp_timer_in_umulti(const struct loader *l, uint32_t timer)
{
	uint32_t i;

	for (i = 0; l->att_multi && i < l->plan->natt; i++)
		if (l->att_multi[i] &&
		    attach_tp_att_uses(l->plan, &l->plan->att[i], timer))
			return 1;
	return 0;
}

/* Does @timer ride on the raw syscall tracepoints (a syscall span)? */
int attach_tp_timer_on_syscalls(const struct plan *p, uint32_t timer)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if (p->att[i].mech == MECH_SYSCALL &&
		    attach_tp_att_uses(p, &p->att[i], timer))
			return 1;
	return 0;
}

/* Does attachment @a run an action of @timer? */
int attach_tp_att_uses(const struct plan *p, const struct plan_att *a,
		       uint32_t timer)
{
	uint32_t i, n = 0;

	for (i = a->action; i != IPROF_NO_NEXT && n++ < p->nactions;
	     i = p->actions[i].next)
		if (p->actions[i].timer == timer)
			return 1;
	return 0;
}
