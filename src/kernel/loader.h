/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loader: BPF object lifetime, attachment of a plan, ring-buffer
 * polling and the BPF-side counters.  The only module (with feat.c) that
 * talks to the kernel through libbpf.
 */
#ifndef IPROF_LOADER_H
#define IPROF_LOADER_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "iprof/abi.h"
#include "iprof/plan.h"
#include "iprof/umaps.h"
#include "iprof/report.h"

struct loader;

/*
 * --comm, --exe, --cgroup, resolved (target_resolve_sel()): decided in BPF
 * (bpf/iprof.bpf.h: select_at_exec(), is_target()).  At most
 * IPROF_MAX_SEL (include/iprof/abi.h) of each.
 */
struct target_sel {
	/* names as the kernel keeps them: at most 15 bytes, zero-padded */
	char comm[IPROF_MAX_SEL][IPROF_COMM_LEN];
	unsigned int ncomm;
	/* executables: the kernel's dev_t (MAJOR << 20 | MINOR, not
	 * stat(2)'s encoding) and inode number */
	uint64_t exe_dev[IPROF_MAX_SEL], exe_ino[IPROF_MAX_SEL];
	unsigned int nexe;
	/* cgroups (v2): path, depth below the root, id (the directory's
	 * inode number; changes when the cgroup is made anew) */
	const char *cg_path[IPROF_MAX_SEL];
	uint32_t cg_level[IPROF_MAX_SEL];
	uint64_t cg_id[IPROF_MAX_SEL];
	unsigned int ncg;
};

struct loader_opts {
	/* size of each CPU's ring buffer in bytes (rounded up to a power of
	 * two, loader_rb_cpu_bytes()); 0: the default */
	uint64_t rb_bytes;
	int filter; /* trace only tgids added with loader__add_target() and
		     * the processes @sel selects */
	const struct target_sel *sel; /* NULL: none */
	int verbose; /* print libbpf's messages */
	/* set (by a signal handler) to abandon loader__attach() early */
	volatile sig_atomic_t *cancel;
	int progress; /* print attach progress on stderr when it is slow */
	/* kretprobe instances per function (calls open at once that get a
	 * return probe), 1..4096, through tracefs kprobe events; 0: the
	 * kernel's default, through the kprobe PMU, misses not counted */
	unsigned int maxactive;
	/* 1: iprof's own process may be traced (its calibration,
	 * src/cli/calib.c); 0: never, whatever the filter says */
	int trace_self;
	/* > 0: user probes (uprobes, uretprobes, uprobe_multi links) in
	 * this process only: the kernel puts their breakpoints in no other
	 * process that maps the file (its uprobe consumer filter), so that
	 * another iprof's calls of the same function (its calibration's,
	 * timed untraced) never trap; 0: in every process */
	int upid;
	/* keyed spans (IPROF_A_KEYED): keys open at once, all timers
	 * together (0: KSPANS_DEFAULT_KEYS, src/kernel/kspans.h), and how
	 * long a start waits for its stop before loader__poll() drops it
	 * as expired, ns (0: never) */
	uint32_t span_keys;
	uint64_t span_timeout_ns;
	/* 1: --slowest is on: starts send their arguments and stops their
	 * return values (IPROF_REC_ARGS, IPROF_REC_RETVAL); 0: neither */
	int slow_args;
	/* IPROF_OFF_KSTACK: --offcpu-stacks: blocking threads send their
	 * kernel stack and their wakers who they are (IPROF_REC_OFFSTACK,
	 * IPROF_REC_WAKER; the sched_waking program is loaded); with
	 * IPROF_OFF_USTACK (--offcpu-stacks=user) also their user stack;
	 * 0: neither */
	int offcpu_stacks;
	/* with IPROF_OFF_USTACK: the processes whose user stacks come in
	 * have their mappings read into it as the rings are drained
	 * (umaps_note()); owned by the caller, outliving the loader; NULL:
	 * none read */
	struct umaps *umaps;
};

/* Called with each record's bytes; returns 0 to go on. */
typedef int (*loader_rec_fn)(void *ctx, void *data, size_t size);

/*
 * loader__open() - open and load the BPF programs sized for @plan, fill the
 * actions map.  @plan must outlive the loader, which only reads it.  Returns 0
 * or -errno, with a message in @err.
 */
int loader__open(struct loader **out, const struct plan *plan,
		 const struct loader_opts *o, loader_rec_fn fn, void *ctx,
		 char *err, size_t errlen);

/* loader__add_target() - trace process @tgid (and, from now, its children). */
int loader__add_target(struct loader *l, pid_t tgid);

/*
 * loader__set_cgroup() - the --cgroup selector @i (< target_sel.ncg) now has
 * cgroup id @id (0: none).  Returns 0 or -errno.
 */
int loader__set_cgroup(struct loader *l, unsigned int i, uint64_t id);

/*
 * What the loader made of one timer (loader__timer()).  The plan stays as
 * plan_build() left it: the attach outcome lives here.
 */
struct loader_timer {
	/* how it attached, or was last tried: "tracepoint",
	 * "uprobe/uretprobe", "fentry/fexit", "kprobe/kretprobe
	 * (kprobe_multi)", ...; a static string; NULL if never tried */
	const char *mech;
	int attached; /* 1: every attachment of the timer holds */
	/* why not attached: "FILE:LINE: reason" (the kernel's or libbpf's),
	 * owned by the loader; the plan's error for a timer that had one;
	 * NULL when attached or not tried */
	const char *error;
};

/*
 * loader__timer() - timer @id's attach outcome (@id < plan.ntimers), valid
 * until loader__close().  All zero before loader__attach().
 */
const struct loader_timer *loader__timer(const struct loader *l, uint32_t id);

/* loader__attach()'s callback for a timer it skips, with its outcome. */
typedef void (*loader_skip_fn)(const struct plan_timer *t,
			       const struct loader_timer *st);

/*
 * loader__attach() - attach every timer of the plan that has no error.  A
 * timer whose attachments do not all succeed is detached again and gets
 * an error in loader__timer() (the kernel's or libbpf's reason); @on_skip
 * (may be NULL) is called for it.  Returns the number of timers attached,
 * -EINTR when loader_opts.cancel was set meanwhile (what is attached stays
 * attached until loader__close()), or -errno on a failure that is not a
 * probe's.
 */
int loader__attach(struct loader *l, loader_skip_fn on_skip);

/*
 * loader__set_tracing() - start (@on) or stop recording.  Nothing is
 * recorded until the first call with @on = 1, so that probes attach
 * without half-seen timers; a stop ends the trace at that instant (drain
 * the ring buffer afterwards).  Returns 0 or -errno.
 */
int loader__set_tracing(struct loader *l, int on);

/*
 * loader__poll() - wait up to @timeout_ms for a ring's wakeup, then drain
 * every CPU's ring and hand the callback, merged per thread in time order,
 * the records stamped before the drain began (later ones wait for the next
 * call: src/core/stream.h).  At most once a second, keyed spans older than
 * loader_opts.span_timeout_ns are dropped (IPROF_REC_KEXPIRED records
 * among the others).  Returns records taken from the rings or -errno
 * (-EINTR when a signal came).
 */
int loader__poll(struct loader *l, int timeout_ms);

/*
 * Where the records go unmerged (iprof --fold-threads: src/core/fold.c merges
 * them, a stream per shard): @push(@ctx, ring, rec, size) for each record
 * as taken from ring number ring (0..nrings-1, loader__rb_bytes()), in
 * ring order; after every loader__poll() pass @flush(@ctx, W, 0), W the
 * watermark read before the pass (src/core/stream.h); at loader__drain()
 * @flush(@ctx, 0, 1): the rings are done.  A nonzero return of @push
 * stops that pass, as the loader's own merge's errors do.
 */
struct loader_unmerged {
	int (*push)(void *ctx, unsigned int ring, const void *rec,
		    size_t size);
	void (*flush)(void *ctx, uint64_t watermark_ns, int drain);
	void *ctx;
};

/*
 * loader__set_unmerged() - before loader__set_tracing(l, 1): hand the
 * records to @u instead of merging them for the callback of
 * loader__open(), which then gets none.
 */
void loader__set_unmerged(struct loader *l, const struct loader_unmerged *u);

/*
 * loader__drain() - after loader__set_tracing(l, 0): take what is left in
 * the rings and hand every queued record to the callback, merged.  Returns
 * records taken from the rings or -errno.
 */
int loader__drain(struct loader *l);

/*
 * loader_rb_cpu_bytes() - the size of each of @ncpus rings for a request
 * of @want bytes per CPU (0: the default, 64 MiB shared out, 256 KiB to
 * 8 MiB each): a power of two of at least a page.
 */
uint64_t loader_rb_cpu_bytes(uint64_t want, unsigned int ncpus);

/*
 * loader__detach() - detach every program.  Slow with many tracepoints (RCU
 * grace periods, one after the other): stop recording with
 * loader__set_tracing(l, 0) first, report, then detach.
 */
void loader__detach(struct loader *l);

/*
 * loader__nprobes() - the kernel attachments (BPF links) that the timers
 * hold: one per tracepoint, user function entry or return, kernel
 * function program, and the two raw syscall programs of syscall spans.
 */
unsigned int loader__nprobes(const struct loader *l);

/*
 * loader__targets_alive() - how many traced processes (the -p PIDs and the
 * processes they forked since) still exist; dead ones are removed from the
 * BPF targets map.  Returns the count or -errno.
 */
int loader__targets_alive(struct loader *l);

/*
 * loader__targets_signal() - send @sig (kill(2)) to every traced process
 * (the BPF targets map: the -- CMD child and the processes it forked
 * since) but the caller.  Returns how many were signalled.
 */
int loader__targets_signal(struct loader *l, int sig);

/*
 * loader__rb_bytes() - the size of each CPU's ring buffer in bytes, as
 * created (loader_rb_cpu_bytes() of the request); *@nrings (may be NULL)
 * gets how many rings there are.
 */
uint64_t loader__rb_bytes(const struct loader *l, unsigned int *nrings);

/* What the emulating uprobe programs did (IPROF_CNT_EMU_* of abi.h), probe
 * hits summed over CPUs. */
struct loader_emu {
	uint64_t done; /* the probed instruction run by the program */
	uint64_t shstk, moved, fault; /* left to the kernel: why */
};

/*
 * loader__emu() - fill @e; returns 0, or -ENOENT where the loaded uprobe
 * programs do not emulate (uprobe_emu_supported() is 0, or no uprobes).
 */
int loader__emu(struct loader *l, struct loader_emu *e);

/* loader__loss() - the BPF-side loss counters summed over CPUs. */
void loader__loss(struct loader *l, struct report_loss *loss);

/*
 * loader__kprobe_misses() - hits of @timer's kretprobe that the kernel's
 * kprobe code missed: calls with no free instance (kprobe_profile; see
 * tracefs.h).  Read it before loader__detach(), which removes the event.
 * 0 when unknown (not a kprobe timer, or a kretprobe through the PMU).
 */
uint64_t loader__kprobe_misses(struct loader *l, uint32_t timer);

/*
 * loader__kretprobe_maxactive() - the maxactive of @timer's kretprobe when
 * it is a tracefs event (its misses are counted), else 0.
 */
unsigned int loader__kretprobe_maxactive(struct loader *l, uint32_t timer);

/* loader__orphans() - orphan stops counted in BPF for @timer. */
uint64_t loader__orphans(struct loader *l, uint32_t timer);

/*
 * loader_kmulti_wanted() - use kprobe_multi for @n kprobe timers (@n NULL:
 * for some number)?  IPROF_KPROBE_MULTI=0 never, =1 always, else from
 * KMULTI_MIN timers on.
 */
int loader_kmulti_wanted(const size_t *n);
/* loader_kmulti_supported() - can this kernel make kprobe_multi links
 * (5.18+ with CONFIG_FPROBE)?  Probed once with an empty program. */
int loader_kmulti_supported(void);
/*
 * loader_ksession_supported() - can this kernel make kprobe session links
 * (6.10+ with CONFIG_FPROBE: one program at a function's entry and return
 * in one kprobe_multi link)?  Probed once with an empty program; 0 where
 * IPROF_KPROBE_SESSION=0 (then the entry/return link pair).
 */
int loader_ksession_supported(void);

/*
 * loader_try_fentry() - can the kernel load fentry/fexit programs on
 * kernel function @func?  Loads one and unloads it; attaches nothing.
 * Returns 0, or -errno with the reason in @why (@len bytes).
 */
int loader_try_fentry(const char *func, char *why, size_t len);

/* loader_kprobes() - 1 if the kernel has kprobes (the kprobe PMU). */
int loader_kprobes(void);

/*
 * loader__kfull() - starts of keyed span @timer that the key map had no
 * room for (--span-keys): counted, never sent.
 */
uint64_t loader__kfull(struct loader *l, uint32_t timer);

/* loader__close() - detach and free everything; @l may be NULL. */
void loader__close(struct loader *l);

#endif /* IPROF_LOADER_H */
