// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe/kretprobe timers: the kprobe through libbpf's PMU, the kretprobe
 * as a tracefs kprobe event of our own (maxactive, misses) where it can.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/libbpf.h>

#include "loader_int.h"

int loader_kprobes(void)
{
	return access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0;
}

/*
 * One kprobe (@ret 0) or kretprobe on @func as a tracefs event of our own
 * (tracefs_kprobe_add(): it takes maxactive and counts misses), opened as
 * a perf tracepoint event and given @prog with BPF cookie @cookie.  The
 * event's name goes to @ev (removed by loader_drop_links()).
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
int loader_attach_kprobe(struct loader *l, struct timer_links *tl,
			 uint32_t id, const char *func, uint32_t a_entry,
			 uint32_t a_ret, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko);
	char sfx[24];
	struct bpf_link *ln;
	int err, tfs = 0;

	if (!loader_kprobes()) {
		snprintf(why, len,
			 "the kernel has no kprobes (CONFIG_KPROBES off)");
		return -EOPNOTSUPP;
	}
	loader_last_msg[0] = '\0';
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
		if (!ln || loader_keep_link(tl, ln))
			goto fail;
	}
	ko.bpf_cookie = a_entry;
	ko.retprobe = false;
	ln = bpf_program__attach_kprobe_opts(l->skel->progs.fn_entry, func,
					     &ko);
	if (!ln || loader_keep_link(tl, ln))
		goto fail;
	return 0;
fail:
	err = -errno;
	if (err == -ENOENT && tfs)
		snprintf(why, len, "no kernel function '%s' to kprobe", func);
	else
		loader_reason(why, len, err);
	return err;
}
