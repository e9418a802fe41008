/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loader's insides: struct loader (the BPF object's life cycle, the
 * plan it attaches, its links, rings and counters) and the links of a
 * timer, shared by the files that make up the loader: src/kernel/loader.c,
 * src/kernel/rings.c (rings.h), src/kernel/attach.c (attach.h: what every
 * mechanism shares), src/kernel/attach_fentry.c, attach_kprobe.c and
 * attach_tp.c (one header each: one mechanism each), src/kernel/kmech.c
 * (each mechanism's row); src/kernel/klog.c their messages.  Nothing outside these files includes it: the interface
 * is src/kernel/loader.h.
 */
#ifndef IPROF_LOADER_INT_H
#define IPROF_LOADER_INT_H

#include <stddef.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "kernel/loader.h"
#include "kernel/tracefs.h"
#include "iprof.skel.h"
#include "fentry.skel.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* kernel-internal errno, include/linux/errno.h */
#endif

#define IRQ_PROGS_MAX 32
/* enum bpf_attach_type's BPF_TRACE_KPROBE_SESSION (include/uapi/linux/bpf.h,
 * Linux 6.10): Debian 12's headers (6.1) lack it */
#define IPROF_TRACE_KPROBE_SESSION 56

struct timer_links {
	struct bpf_link **v;
	size_t n;
	/* fentry: the object (owned by struct loader) and slot whose two
	 * programs are loaded for this timer's function; fsingle: its batch
	 * failed to load, load it alone */
	struct fentry *fobj;
	int fslot;
	int fsingle;
	int fnobtf; /* the function is not in BTF: no fentry */
	int exit_pending; /* fexit attached after the loop (exit_order()) */
	/* this timer's kretprobe as a tracefs kprobe event, removed after
	 * its link; "" when unused */
	char kev[TRACEFS_EVENT_NAME];
	/* in a kprobe_multi link: 1 an entry/return pair (struct loader's
	 * kmulti_links), 2 a kprobe session (ksess_fds) */
	int kmulti;
	int kmulti_err; /* -errno: the kernel refused it in a kprobe_multi link */
};

/* a CPU's ring: its index is the stream's source number */
struct ring_src {
	struct loader *l;
	unsigned int idx;
	/* loader__poll(): the ring's producer position before a consume,
	 * and the watermark of the last poll that consumed every record
	 * reserved before it (ns; rings.c ring_watermark()) */
	uint64_t p0;
	uint64_t clear_w;
};

/* most uprobes on context functions (kernel/attach_ctx.h) */
#define ATTACH_CTX_MAX 12

struct loader {
	struct iprof *skel;
	const struct plan *plan; /* read only: outcomes go in timers */
	/* 1: the uprobe programs are the *_x ones, which run the probed
	 * instruction the cookie names (uprobe_emu_supported()) */
	int emu;
	struct loader_timer *timers; /* one per plan timer: attach outcome */
	struct ring_buffer *rb; /* every CPU's ring, one epoll set */
	int *ring_fds; /* nrings BPF_MAP_TYPE_RINGBUF maps, index = CPU */
	struct ring_src *ring_src;
	unsigned int nrings;
	struct stream *stream; /* merges the rings per thread in time order */
	loader_rec_fn fn; /* where merged records go */
	struct loader_unmerged unmerged; /* else: push NULL */
	void *fn_ctx;
	struct timer_links *links; /* one per timer: function timers */
	struct bpf_link **att_links; /* one per plan.att: spans, uprobes */
	struct bpf_link *fork_link, *exit_link, *switch_link, *exec_link;
	struct bpf_link *waking_link; /* --offcpu-stacks: on_waking */
	struct bpf_link *rename_link; /* on_rename: --by comm after a rename */
	struct bpf_link *sysenter_link; /* with kprobe timers only */
	/* user functions in uprobe_multi links: one per binary and
	 * direction, and which attachments they hold */
	struct bpf_link **umulti_links;
	unsigned int numulti;
	char *att_multi;
	/* syscall spans (MECH_SYSCALL): sc_enter, sc_exit, attached once */
	struct bpf_link *sc_links[2];
	char *sc_why; /* why they could not be attached, or NULL */
	uint32_t nkprobe_timers; /* timers attached with kprobes */
	/* kprobe timers in kprobe_multi links: entries and returns, a pair
	 * per set the kernel took (kmulti_split(): a refused set is halved);
	 * a function in one link only, its other timers one by one */
	struct bpf_link **kmulti_links;
	unsigned int nkmulti;
	/* or in kprobe session links (fn_session_km), one per set: link
	 * fds, libbpf 1.4 has no session links (attach_kprobe.c) */
	int *ksess_fds;
	unsigned int nksess;
	/* user functions in uprobe session links (fn_session_u,
	 * plan_att.session), one per binary: link fds, as ksess_fds */
	int *usess_fds;
	unsigned int nusess;
	struct bpf_link *irq_links[IRQ_PROGS_MAX]; /* interrupt edges */
	int nirq;
	/* uprobes on the context functions (kernel/attach_ctx.h) and the
	 * files they are in */
	struct bpf_link *ctx_links[ATTACH_CTX_MAX];
	size_t nctx;
	char *ctx_files[ATTACH_CTX_MAX];
	size_t nctx_files;
	/* of them, on libc.so.6's (3: all, which a uprobe session needs) */
	int ctx_libc;
	struct loader_opts opts;
	struct fentry **fobjs; /* fentry objects, FE_SLOTS functions each */
	size_t nfobjs;
	uint64_t clone_misses; /* recursion misses of destroyed fentry objects */
	int keyed; /* the plan has keyed spans (plan_keyed()) */
	uint64_t kscan_ns; /* last kspans_expire() pass, CLOCK_MONOTONIC */
	int fentry_errno; /* 0: untried or works; else why fentry fails */
	char fentry_why[256];
};

#endif /* IPROF_LOADER_INT_H */
