/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loader's insides, shared by its files: src/kernel/loader.c (the BPF object's
 * life cycle, attaching a plan, the counters), src/kernel/rings.c (the per-CPU
 * ring buffers and their merge), src/kernel/attach_fentry.c (fentry/fexit batches),
 * src/kernel/attach_kprobe.c (kprobes and tracefs kprobe events) and
 * src/kernel/attach_tp.c (tracepoints, uprobes, syscall spans, uprobe_multi).
 * src/kernel/attach.c holds what they share of a timer's links; src/kernel/klog.c their
 * messages.  Nothing outside these files includes it: the interface is
 * src/kernel/loader.h.
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
	int kmulti; /* in a kprobe_multi link (struct loader's kmulti_links) */
	int kmulti_err; /* -errno: the kernel refused it in a kprobe_multi link */
};

/* a CPU's ring: its index is the stream's source number */
struct ring_src {
	struct loader *l;
	unsigned int idx;
};

struct loader {
	struct iprof *skel;
	const struct plan *plan; /* read only: outcomes go in timers */
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
	/* kprobe timers in kprobe_multi links: entries and returns, one pair
	 * per layer (a function at most once per link) */
	struct bpf_link **kmulti_links;
	unsigned int nkmulti;
	struct bpf_link *irq_links[IRQ_PROGS_MAX]; /* interrupt edges */
	int nirq;
	struct loader_opts opts;
	struct fentry **fobjs; /* fentry objects, FE_SLOTS functions each */
	size_t nfobjs;
	uint64_t clone_misses; /* recursion misses of destroyed fentry objects */
	int fentry_errno; /* 0: untried or works; else why fentry fails */
	char fentry_why[256];
};

/* ---- src/kernel/attach.c: what the loader and every mechanism share ---- */

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

/* ---- src/kernel/rings.c ---- */

/* loader_rings_create() - before loading: one ring per CPU.  0/-errno. */
int loader_rings_create(struct loader *l, char *err, size_t errlen);
/* loader_rings_open() - after loading: install and poll them.  0/-errno. */
int loader_rings_open(struct loader *l, char *err, size_t errlen);

/* ---- src/kernel/attach_fentry.c ---- */

/* loader_attach_fentry() - fentry/fexit on timer @id's function. */
int loader_attach_fentry(struct loader *l, struct timer_links *tl,
			 uint32_t id, uint32_t a_ret, char *why, size_t len);
/* loader_attach_slot() - attach @tl's fentry (@ret 0) or fexit program. */
int loader_attach_slot(struct timer_links *tl, int ret, char *why, size_t len);

/* ---- src/kernel/attach_kprobe.c ---- */

/* loader_attach_kprobe() - kprobe/kretprobe on @func for timer @id. */
int loader_attach_kprobe(struct loader *l, struct timer_links *tl,
			 uint32_t id, const char *func, uint32_t a_entry,
			 uint32_t a_ret, char *why, size_t len);
/*
 * loader_kmulti_missed() - the misses of @l's kprobe_multi links, summed
 * into *@missed: calls whose return probe found the link's pool empty (2
 * instances per function and possible CPU) or that ftrace's recursion
 * guard skipped (bpf_link_info.kprobe_multi.missed, fprobe's nmissed).
 * Returns 0, -EOPNOTSUPP before Linux 6.7 (the kernel does not say), or
 * -errno.
 */
int loader_kmulti_missed(const struct loader *l, uint64_t *missed);

/*
 * loader_attach_kmulti() - the kprobe timers @ids (@n) in kprobe_multi
 * links (the programs must be loaded: fn_entry_km, fn_return_km), each
 * function's cookie its action chain.  Sets links[id].kmulti for the
 * timers attached, links[id].kmulti_err for those the kernel refused; the
 * others (not kmulti_ok) are left to loader_attach_kprobe().  Returns 0 or
 * -ENOMEM.
 */
int loader_attach_kmulti(struct loader *l, const uint32_t *ids, size_t n);

/* ---- src/kernel/attach_tp.c ---- */

/* loader_attach_syscalls() - the raw syscall programs, once.  0/-errno. */
int loader_attach_syscalls(struct loader *l);
/* loader_att_attached() - is plan attachment @i in place? */
int loader_att_attached(const struct loader *l, uint32_t i);
/* loader_attach_umulti() - user functions in uprobe_multi links. */
int loader_attach_umulti(struct loader *l);
/*
 * loader_attach_att() - one tracepoint or uprobe attachment: its link, or
 * NULL with why (libbpf's warning included) in @why (@len bytes).
 */
struct bpf_link *loader_attach_att(struct loader *l, const struct plan_att *a,
				   char *why, size_t len);
/* loader_att_uses() - does attachment @a run an action of @timer? */
int loader_att_uses(const struct plan *p, const struct plan_att *a,
		    uint32_t timer);
/* loader_timer_in_umulti() - is @timer in a uprobe_multi link? */
int loader_timer_in_umulti(const struct loader *l, uint32_t timer);
/* loader_timer_on_syscalls() - does @timer ride on the raw syscalls? */
int loader_timer_on_syscalls(const struct plan *p, uint32_t timer);

#endif /* IPROF_LOADER_INT_H */
