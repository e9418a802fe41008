// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe/kretprobe timers: many at once in kprobe_multi links where the
 * kernel has them (attach_kprobe_multi()), else one by one: the kprobe
 * through libbpf's PMU, the kretprobe as a tracefs kprobe event of our own
 * (maxactive, misses) where it can.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/klog.h"
#include "kernel/loader_int.h"
#include "kernel/attach.h"
#include "kernel/attach_kprobe.h"
#include "kernel/uprobe_multi.h"

int loader_kprobes(void)
{
	return access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0;
}

/*
 * One kprobe (@ret 0) or kretprobe on @func as a tracefs event of our own
 * (tracefs_kprobe_add(): it takes maxactive and counts misses), opened as
 * a perf tracepoint event and given @prog with BPF cookie @cookie.  The
 * event's name goes to @ev (removed by attach_drop_links()).
 */
static struct bpf_link *attach_kprobe_event(struct loader *l,
					    struct bpf_program *prog,
					    const char *func, int ret,
					    uint64_t cookie, char *ev,
					    const char *suffix)
{
	LIBBPF_OPTS(bpf_perf_event_opts, po);
	struct perf_event_attr attr;
	struct bpf_link *ln;
	int id, pfd, err;

	tracefs_kprobe_name(ev, suffix);
	id = tracefs_kprobe_add(ev, func, ret, l->opts.maxactive);
	if (id < 0) {
		ev[0] = '\0';
		errno = -id;
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	pfd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1,
			   PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		goto fail;
	po.bpf_cookie = cookie;
	ln = bpf_program__attach_perf_event_opts(prog, pfd, &po);
	if (ln)
		return ln;
	err = errno;
	close(pfd);
	errno = err;
fail:
	/* the caller may fall back to the PMU: no event of ours stays */
	err = errno;
	tracefs_kprobe_del(ev);
	ev[0] = '\0';
	errno = err;
	return NULL;
}

/*
 * kprobe/kretprobe on @func.  The kprobe through libbpf and the kprobe PMU;
 * the kretprobe through a tracefs kprobe event where the kernel has them
 * (maxactive, miss count), else the PMU too.  A tracefs event costs more
 * to make and remove (its tracefs directory), so the kprobe, which has no
 * maxactive and rarely misses, does without.
 */
int attach_kprobe(struct loader *l, struct timer_links *tl, uint32_t id,
		  const char *func, uint32_t a_entry, uint32_t a_ret, char *why,
		  size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko);
	struct klog_catch cat;
	char sfx[24];
	struct bpf_link *ln;
	int err, tfs = 0;

	if (!loader_kprobes()) {
		snprintf(why, len,
			 "the kernel has no kprobes (CONFIG_KPROBES off)");
		return -EOPNOTSUPP;
	}
	klog_catch_begin(&cat);
	/*
	 * The return probe first: kprobes on one address run newest first
	 * (add_new_kprobe(), kernel/kprobes.c), so fn_entry then runs before
	 * the kretprobe replaces the return address, as frame_returned() in
	 * bpf/iprof.bpf.h expects.
	 */
	if (a_ret != IPROF_NO_NEXT) { /* else never returns: entry only */
		tfs = l->opts.maxactive && tracefs_kprobe_ok();
		ln = NULL;
		if (tfs) {
			snprintf(sfx, sizeof(sfx), "%ur", id);
			ln = attach_kprobe_event(l, l->skel->progs.fn_return,
						 func, 1, a_ret, tl->kev, sfx);
			if (!ln && errno == ENOENT)
				goto fail; /* no such function */
			/* else (EEXIST, EBUSY, ...): try the PMU */
			tfs = ln != NULL;
		}
		if (!ln) {
			ko.bpf_cookie = a_ret;
			ko.retprobe = true;
			ln = bpf_program__attach_kprobe_opts(
				l->skel->progs.fn_return, func, &ko);
		}
		if (!ln || attach_keep_link(tl, ln))
			goto fail;
	}
	ko.bpf_cookie = a_entry;
	ko.retprobe = false;
	ln = bpf_program__attach_kprobe_opts(l->skel->progs.fn_entry, func,
					     &ko);
	if (!ln || attach_keep_link(tl, ln))
		goto fail;
	klog_catch_end(&cat);
	return 0;
fail:
	err = -errno;
	klog_catch_end(&cat);
	if (err == -ENOENT && tfs)
		snprintf(why, len, "no kernel function '%s' to kprobe", func);
	else if (err == -EADDRNOTAVAIL) /* number_of_same_symbols() > 1 */
		snprintf(why, len,
			 "several kernel functions have this name (static functions of different files): a kprobe by name cannot tell them apart");
	else
		klog_reason(&cat, err, why, len);
	return err;
}

/* an inlined kernel instance's entry or exit: a kprobe at FUNC+OFFSET
 * (src/probe/inline.c) */
static struct bpf_link *site_link(struct loader *l, const struct plan_att *a)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko);

	ko.bpf_cookie = IPROF_SITE_COOKIE(a->action, a->key_reg, a->key_adj);
	ko.offset = (size_t)a->offset;
	return bpf_program__attach_kprobe_opts(l->skel->progs.fn_ksite,
					       a->func, &ko);
}

int attach_kprobe_site(struct loader *l, uint32_t i, char *why, size_t len)
{
	return attach_att_link(l, i, site_link, why, len);
}

/*
 * kprobe_multi links (5.18+, CONFIG_FPROBE): the kernel attaches every
 * function of one link with one ftrace update, where one kprobe per
 * function patches and synchronizes once each (about 130 ms per function
 * in the VM tier).
 */

int loader_kmulti_supported(void)
{
	static int known = -1;
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	int prog, link;

	if (known >= 0)
		return known;
	known = 0;
	prog = uprobe_multi_probe_prog(BPF_TRACE_KPROBE_MULTI);
	if (prog < 0)
		return 0;
	/* no functions: EINVAL where kprobe_multi exists, EOPNOTSUPP where
	 * the kernel lacks CONFIG_FPROBE (bpf_kprobe_multi_link_attach()) */
	lo.kprobe_multi.cnt = 0;
	link = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	known = link == -EINVAL;
	if (link >= 0)
		close(link);
	close(prog);
	return known;
}

/*
 * BPF_LINK_CREATE of a kprobe session link for @prog: @cnt functions by
 * name (@syms), a cookie each.  Through bpf(2) itself: libbpf 1.4's
 * bpf_link_create() copies the kprobe_multi options only for
 * BPF_TRACE_KPROBE_MULTI (1.5 knows the session type).  Returns the link
 * fd or -errno.
 */
static int ksession_link(int prog, const char **syms, const __u64 *cookies,
			 __u32 cnt)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (__u32)prog;
	a.link_create.attach_type = IPROF_TRACE_KPROBE_SESSION;
	a.link_create.kprobe_multi.syms = (__u64)(unsigned long)syms;
	a.link_create.kprobe_multi.cookies = (__u64)(unsigned long)cookies;
	a.link_create.kprobe_multi.cnt = cnt;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

/*
 * kprobe sessions (6.10+): a kprobe-type program of expected attach type
 * BPF_TRACE_KPROBE_SESSION attached with that type.  A link of more
 * functions than MAX_KPROBE_MULTI_CNT (1 << 20, Linux 6.9+) fails with
 * E2BIG in bpf_kprobe_multi_link_attach() before it reads anything; a
 * kernel without sessions does not dispatch the attach type there and
 * says EINVAL.  IPROF_KPROBE_SESSION=0: never (the entry/return pair).
 */
int loader_ksession_supported(void)
{
	static int known = -1;
	const char *e = getenv("IPROF_KPROBE_SESSION"), *sym = "";
	int prog, link;

	if (e && !strcmp(e, "0"))
		return 0;
	if (known >= 0)
		return known;
	known = 0;
	if (!loader_kmulti_supported())
		return 0;
	prog = uprobe_multi_probe_prog(IPROF_TRACE_KPROBE_SESSION);
	if (prog < 0) {
		klog(KLOG_DEBUG, "kprobe sessions: no (probe program: %s)",
		     strerror(-prog));
		return 0;
	}
	link = ksession_link(prog, &sym, NULL, UINT32_MAX);
	known = link == -E2BIG;
	klog(KLOG_DEBUG, "kprobe sessions: %s (probe link: %s)",
	     known ? "yes" : "no", link >= 0 ? "made" : strerror(-link));
	if (link >= 0)
		close(link);
	close(prog);
	return known;
}

/*
 * Timers @ids (@n, each function once) in one kprobe session link
 * (fn_session_km): each function's cookie holds its entry chain in the
 * low 32 bits and its return chain in the high ones.  libbpf 1.4
 * attaches kprobe_multi links with BPF_TRACE_KPROBE_MULTI only, which
 * the kernel refuses for a session program: ksession_link() here, the
 * link kept as an fd (ksess_fds).  Returns 0 or -errno (nothing
 * attached).
 */
static int ksession_set(struct loader *l, const uint32_t *ids, size_t n)
{
	const char **syms = calloc(n ? n : 1, sizeof(*syms));
	__u64 *cookies = calloc(n ? n : 1, sizeof(*cookies));
	int *v, fd = -1, err = -ENOMEM;
	size_t k;

	if (!syms || !cookies)
		goto out;
	v = realloc(l->ksess_fds, (l->nksess + 1) * sizeof(*v));
	if (!v)
		goto out;
	l->ksess_fds = v;
	for (k = 0; k < n; k++) {
		uint32_t ae = 0, ar = IPROF_NO_NEXT;

		attach_func_actions(l->plan, ids[k], &ae, &ar);
		syms[k] = l->plan->timers[ids[k]].func;
		cookies[k] = (__u64)ar << 32 | ae;
	}
	fd = ksession_link(bpf_program__fd(l->skel->progs.fn_session_km),
			   syms, cookies, (__u32)n);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	l->ksess_fds[l->nksess++] = fd;
	for (k = 0; k < n; k++)
		l->links[ids[k]].kmulti = 2;
	err = 0;
out:
	free(syms);
	free(cookies);
	return err;
}

/* The link layer of timer @ids[@k]: how many timers before it in @ids are
 * on the same function.  O(n^2) string compares: 2000 timers (the glob
 * cap) take a few ms. */
static int kmulti_layer_of(struct loader *l, const uint32_t *ids, size_t k)
{
	const char *f = l->plan->timers[ids[k]].func;
	size_t j;
	int layer = 0;

	/* the same function once per link: a link looks its cookie up by
	 * address (attach_kprobe_multi() puts layer 0 in links) */
	for (j = 0; j < k; j++)
		if (!strcmp(l->plan->timers[ids[j]].func, f))
			layer++;
	return layer;
}

/*
 * Timers @ids (@n, each function once) in one pair of kprobe_multi links,
 * the return link first, so that each function's entry program runs
 * before its return address is replaced (as in attach_kprobe()).
 * Returns 0 or -errno (nothing attached).
 */
static int kmulti_set(struct loader *l, const uint32_t *ids, size_t n)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, ko);
	const char **syms = calloc(n ? n : 1, sizeof(*syms));
	__u64 *cookies = calloc(n ? n : 1, sizeof(*cookies));
	struct bpf_link *ln[2] = { NULL, NULL }, **v;
	size_t k, m;
	int ret, err = -ENOMEM;

	if (!syms || !cookies)
		goto out;
	for (ret = 1; ret >= 0; ret--) {
		m = 0;
		for (k = 0; k < n; k++) {
			uint32_t ae = 0, ar = IPROF_NO_NEXT;

			attach_func_actions(l->plan, ids[k], &ae, &ar);
			if (ret && ar == IPROF_NO_NEXT)
				continue; /* never returns: entry only */
			syms[m] = l->plan->timers[ids[k]].func;
			cookies[m++] = ret ? ar : ae;
		}
		if (!m)
			continue;
		ko.syms = syms;
		ko.cookies = cookies;
		ko.cnt = m;
		ko.retprobe = ret;
		ln[ret] = bpf_program__attach_kprobe_multi_opts(
			ret ? l->skel->progs.fn_return_km :
			      l->skel->progs.fn_entry_km,
			NULL, &ko);
		if (!ln[ret]) {
			err = -errno;
			goto out;
		}
	}
	v = realloc(l->kmulti_links, (l->nkmulti + 2) * sizeof(*v));
	if (!v)
		goto out;
	l->kmulti_links = v;
	for (ret = 1; ret >= 0; ret--)
		if (ln[ret])
			l->kmulti_links[l->nkmulti++] = ln[ret];
	ln[0] = ln[1] = NULL;
	for (k = 0; k < n; k++)
		l->links[ids[k]].kmulti = 1;
	err = 0;
out:
	bpf_link__destroy(ln[0]);
	bpf_link__destroy(ln[1]);
	free(syms);
	free(cookies);
	return err;
}

/*
 * Timers @ids (@n, one layer) in kprobe_multi links.  A link fails whole
 * if one function cannot be probed (a module's function gone, one the
 * kernel refuses): the set is then halved until the functions that fail
 * are alone, each keeping its error (kmulti_err) for
 * attach_kprobe() or the report: O(b log n) attempts for b such
 * functions.  Returns 0 or -ENOMEM.
 */
static int kmulti_split(struct loader *l, const uint32_t *ids, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = bpf_program__fd(l->skel->progs.fn_session_km) >= 0 ?
		      ksession_set(l, ids, n) : kmulti_set(l, ids, n);
	if (err == -ENOMEM)
		return err;
	if (!err)
		return 0;
	if (n == 1) {
		l->links[ids[0]].kmulti_err = err;
		return 0;
	}
	err = kmulti_split(l, ids, n / 2);
	return err ? err : kmulti_split(l, ids + n / 2, n - n / 2);
}

int attach_kprobe_multi(struct loader *l, const uint32_t *ids, size_t n)
{
	uint32_t *set = calloc(n ? n : 1, sizeof(*set));
	int *layer = calloc(n ? n : 1, sizeof(*layer));
	int err = 0;
	size_t k, m;

	if (!layer || !set) {
		free(layer);
		free(set);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++) {
		/* not ftrace-patchable or a repeated name: one by one (the
		 * kernel says why) */
		if (!l->plan->timers[ids[k]].kmulti_ok) {
			layer[k] = -1;
			continue;
		}
		layer[k] = kmulti_layer_of(l, ids, k);
	}
	/* layer 0 only: a second timer on a function goes one by one
	 * (attach_kprobe()).  Two links on one function nest right where
	 * the kernel runs their return handlers last in, first out
	 * (rethook: 5.18-6.13), but fprobe on the function graph tracer
	 * (6.14+) runs them in entry order: 7.2.13 closed the first link's
	 * timer before the second's in 15 calls of 15, unwinding the inner
	 * one each time.  A kprobe/kretprobe pair has its own return hook
	 * and nests in any order. */
	for (k = m = 0; k < n; k++)
		if (layer[k] == 0)
			set[m++] = ids[k];
	err = kmulti_split(l, set, m);
	free(layer);
	free(set);
	return err;
}

/*
 * Fewer kprobe timers than this attach one by one: a kprobe_multi link's
 * return probes share a pool of 2 per function and possible CPU
 * (fprobe_init_rethook(), kernel/trace/fprobe.c), so a lone function that
 * many threads block in runs out where a kretprobe of our own has
 * --maxactive instances and counts its misses; and a few kprobes attach
 * quickly anyway.
 */
#define KMULTI_MIN 16

int loader_kmulti_wanted(const size_t *n)
{
	const char *e = getenv("IPROF_KPROBE_MULTI");

	if (e && !strcmp(e, "0"))
		return 0;
	if (e && !strcmp(e, "1"))
		return 1;
	return !n || *n >= KMULTI_MIN;
}

/*
 * struct bpf_link_info up to its kprobe_multi member as Linux 6.7 has it
 * (include/uapi/linux/bpf.h: type, id, prog_id, then the union, 8-byte
 * aligned): Debian 12's headers (6.1) lack the member.  The kernel copies
 * back no more than this, and zeroes what it does not know.
 */
struct kmulti_link_info {
	__u32 type, id, prog_id, pad;
	__u64 addrs;	 /* user pointer: 0, addresses not wanted */
	__u32 count;	 /* functions in the link */
	__u32 flags;	 /* BPF_F_KPROBE_MULTI_RETURN */
	__u64 missed;	 /* fprobe's nmissed (6.7+) */
	__u64 cookies;	 /* user pointer: 0 */
};

/* Does this kernel report a kprobe_multi link's misses (6.7 and later)? */
static int kmulti_missed_known(void)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 7);
}

int attach_kprobe_multi_missed(const struct loader *l, uint64_t *missed)
{
	struct kmulti_link_info info;
	__u32 len;
	unsigned int i;

	*missed = 0;
	if (!l->nkmulti && !l->nksess)
		return 0;
	if (!kmulti_missed_known())
		return -EOPNOTSUPP;
	for (i = 0; i < l->nkmulti + l->nksess; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(i < l->nkmulti ?
				bpf_link__fd(l->kmulti_links[i]) :
				l->ksess_fds[i - l->nkmulti], &info, &len))
			return -errno;
		*missed += info.missed;
	}
	return 0;
}
