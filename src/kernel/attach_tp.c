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
#include "kernel/attach.h"
#include "kernel/attach_tp.h"
#include "kernel/kmech.h"
#include "kernel/uprobe_multi.h"

/*
 * Syscall spans: the two raw syscall programs, once, before any chain is
 * put in sc_chain.  Returns 0: a failure's reason is kept in l->sc_why
 * for every syscall attachment (they fail, not the attach).
 */
int attach_tp_syscalls(struct loader *l)
{
	struct klog_catch cat;
	char why[512];
	int err;

	if (l->sc_links[1])
		return 0;
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
	return 0;
}

/* syscall span attachment @i: its chain in the syscall's slot of sc_chain
 * (the raw syscall links dropped, the reason in l->sc_why, when it cannot
 * be written).  0 */
int attach_tp_syscall(struct loader *l, uint32_t i, char *why, size_t len)
{
	const struct plan_att *a = &l->plan->att[i];
	__u32 head = a->action + 1;

	(void)why;
	(void)len;
	if (!l->sc_links[1] ||
	    !bpf_map_update_elem(bpf_map__fd(l->skel->maps.sc_chain),
				 &a->sc_slot, &head, BPF_ANY))
		return 0;
	bpf_link__destroy(l->sc_links[0]);
	bpf_link__destroy(l->sc_links[1]);
	l->sc_links[0] = l->sc_links[1] = NULL;
	if (asprintf(&l->sc_why, "sc_chain: %s", strerror(errno)) < 0)
		l->sc_why = NULL;
	return 0;
}

/* Is attachment @i in place (its link, a uprobe_multi link, or its
 * sc_chain slot)? */
int attach_tp_att_attached(const struct loader *l, uint32_t i)
{
	if (kmech(l->plan->att[i].mech)->raw_syscalls)
		return l->sc_links[1] != NULL;
	return l->att_links[i] != NULL || (l->att_multi && l->att_multi[i]);
}

/*
 * The BPF cookie of uprobe attachment @a: its chain, and where the loaded
 * programs are the emulating ones, how to run its instruction
 * (IPROF_EMU_COOKIE of abi.h; the page offset of a file offset is its
 * address's); a return site's or inlined instance's that is not run
 * there, where its frame is (IPROF_SITE_COOKIE), and whether it is a
 * split entry's start (IPROF_SITE_SPLIT).
 */
static __u64 ucookie(const struct loader *l, const struct plan_att *a)
{
	const struct kmech *m = kmech(a->mech);

	if (m->site && (!l->emu || !a->emu.kind))
		return IPROF_SITE_COOKIE(a->action, a->key_reg, a->key_adj) |
		       (a->split == PLAN_SPLIT_GAP ? IPROF_SITE_SPLIT_BIT : 0) |
		       (a->split == PLAN_SPLIT_ENTRY ? IPROF_SITE_ENTRY_BIT : 0);
	if (!l->emu || !a->emu.kind || !m->emu)
		return a->action;
	return IPROF_EMU_COOKIE(a->action, a->emu.kind, a->emu.len,
				a->offset & 4095, a->emu.pop);
}

/* the process user probes go in (loader_opts.upid), libbpf's -1: all */
static int upid(const struct loader *l)
{
	return l->opts.upid > 0 ? l->opts.upid : -1;
}

/* the entry of @path at @off (MECH_UPROBE) not yet in a link, or -1 */
static int64_t entry_at(const struct loader *l, const char *path,
			uint64_t off)
{
	const struct plan *p = l->plan;
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if (p->att[i].mech == MECH_UPROBE && !l->att_multi[i] &&
		    p->att[i].offset == off && !strcmp(p->att[i].path, path))
			return i;
	return -1;
}

/*
 * The uprobe sessions of the plan (plan_att.session), one link per binary
 * where fn_session_u is loaded: each function's entry and return in one
 * cookie (the entry chain in the low 32 bits, IPROF_NO_NEXT where it has
 * no entry attachment; the return's in the high).  A binary's link the
 * kernel refuses leaves its functions' entries to the entry link and
 * their returns to attach_tp_uprobe(), which refuses a session's:
 * never a plain uretprobe in its place.  @offs, @cookies: room for every
 * attachment.  Returns 0 or -ENOMEM.
 */
static int usession_links(struct loader *l, unsigned long *offs,
			  __u64 *cookies)
{
	const struct plan *p = l->plan;
	int prog = bpf_program__fd(l->skel->progs.fn_session_u), fd, *v;
	uint32_t i, j, n;
	int64_t e;

	/* none where a switch could go unseen */
	if (l->ctx_libc < 3)
		prog = -1;
	for (i = 0; prog >= 0 && i < p->natt; i++) {
		if (!p->att[i].session || l->att_multi[i])
			continue;
		for (n = 0, j = i; j < p->natt; j++) {
			if (!p->att[j].session ||
			    strcmp(p->att[j].path, p->att[i].path))
				continue;
			e = entry_at(l, p->att[j].path, p->att[j].offset);
			offs[n] = p->att[j].offset;
			cookies[n++] = (e < 0 ? IPROF_NO_NEXT :
					p->att[e].action) |
				       (__u64)p->att[j].action << 32;
		}
		fd = uprobe_session_link(prog, p->att[i].path, offs, cookies, n);
		if (fd < 0) {
			klog(KLOG_DEBUG, "uprobe session link of %s: %s",
			     p->att[i].path, strerror(-fd));
			continue;
		}
		v = realloc(l->usess_fds, (l->nusess + 1) * sizeof(*v));
		if (!v) {
			close(fd);
			return -ENOMEM;
		}
		l->usess_fds = v;
		v[l->nusess++] = fd;
		for (j = i; j < p->natt; j++) {
			if (!p->att[j].session ||
			    strcmp(p->att[j].path, p->att[i].path))
				continue;
			e = entry_at(l, p->att[j].path, p->att[j].offset);
			l->att_multi[j] = 1;
			if (e >= 0)
				l->att_multi[e] = 1;
		}
	}
	return 0;
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

	if (l->att_multi ||
	    bpf_program__fd(kmech_prog(l, kmech(MECH_UPROBE), 1)) < 0)
		return 0; /* done, or not loaded: no uprobe_multi here */
	l->att_multi = calloc(p->natt ? p->natt : 1, 1);
	offs = calloc(p->natt ? p->natt : 1, sizeof(*offs));
	cookies = calloc(p->natt ? p->natt : 1, sizeof(*cookies));
	if (!l->att_multi || !offs || !cookies) {
		ret = -ENOMEM;
		goto out;
	}
	ret = usession_links(l, offs, cookies);
	for (i = 0; !ret && i < p->natt; i++) {
		const struct kmech *m = kmech(p->att[i].mech);

		if (!m->user || l->att_multi[i] || p->att[i].session)
			continue;
		for (n = 0, j = i; j < p->natt; j++)
			if (p->att[j].mech == p->att[i].mech &&
			    !l->att_multi[j] && !p->att[j].session &&
			    !strcmp(p->att[j].path, p->att[i].path)) {
				offs[n] = p->att[j].offset;
				cookies[n++] = ucookie(l, &p->att[j]);
			}
		prog = kmech_prog(l, m, 1);
		uo.offsets = offs;
		uo.cookies = cookies;
		uo.cnt = n;
		uo.retprobe = m->retprobe;
		/* pid -1: in every process */
		ln = bpf_program__attach_uprobe_multi(prog, upid(l), p->att[i].path,
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
			    !p->att[j].session &&
			    !strcmp(p->att[j].path, p->att[i].path))
				l->att_multi[j] = 1;
	}
out:
	free(offs);
	free(cookies);
	return ret;
}

static struct bpf_link *tp_link(struct loader *l, const struct plan_att *a)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, to);

	to.bpf_cookie = a->action;
	return bpf_program__attach_tracepoint_opts(l->skel->progs.tp_hit,
						   a->category, a->event, &to);
}

int attach_tp_tracepoint(struct loader *l, uint32_t i, char *why, size_t len)
{
	return attach_att_link(l, i, tp_link, why, len);
}

/* the planner resolved path (absolute) and the function's (or return
 * site's) file offset (src/probe/sym.c, src/probe/retsite.c): attach by
 * offset, not by name; where only the uprobe_multi programs are loaded
 * (kmech_choose()), in a uprobe_multi link of its own */
static struct bpf_link *uprobe_link(struct loader *l, const struct plan_att *a)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	LIBBPF_OPTS(bpf_uprobe_multi_opts, mo);
	const struct kmech *m = kmech(a->mech);
	unsigned long off = (unsigned long)a->offset;
	__u64 cookie = ucookie(l, a);

	if (bpf_program__fd(kmech_prog(l, m, 0)) < 0 &&
	    bpf_program__fd(kmech_prog(l, m, 1)) >= 0) {
		mo.offsets = &off;
		mo.cookies = &cookie;
		mo.cnt = 1;
		mo.retprobe = m->retprobe;
		return bpf_program__attach_uprobe_multi(kmech_prog(l, m, 1), upid(l),
							a->path, NULL, &mo);
	}
	uo.bpf_cookie = cookie;
	uo.func_name = NULL;
	uo.retprobe = m->retprobe;
	return bpf_program__attach_uprobe_opts(kmech_prog(l, m, 0), upid(l),
					       a->path, (size_t)a->offset, &uo);
}

int attach_tp_uprobe(struct loader *l, uint32_t i, char *why, size_t len)
{
	if (l->plan->att[i].session) {
		/* its uretprobe alone could kill the program
		 * (unwind_judge()'s 2): none */
		snprintf(why, len,
			 "uprobe session %s: no session link (the kernel refused it, libc's setcontext, swapcontext or getcontext not probed, or IPROF_NO_UPROBE_MULTI); no plain uretprobe in its place",
			 l->plan->att[i].path);
		return -EOPNOTSUPP;
	}
	return attach_att_link(l, i, uprobe_link, why, len);
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
		if (kmech(p->att[i].mech)->raw_syscalls &&
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
