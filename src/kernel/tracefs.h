/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IPROF_TRACEFS_H
#define IPROF_TRACEFS_H

/*
 * tracefs_dir() - the tracefs mount point: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing; if neither holds events/, tries to mount
 * tracefs on /sys/kernel/tracing (root).  Returns a static string, or NULL
 * with errno set when tracefs cannot be had.
 */
const char *tracefs_dir(void);

/*
 * iprof's own kprobe events, made through <tracefs>/kprobe_events
 * (Documentation/trace/kprobetrace.rst).  Unlike the kprobe PMU
 * (perf_event_open type "kprobe"), such an event takes a kretprobe's
 * maxactive and shows its hits and misses in kprobe_profile.  They live in
 * group "iprof" and are named "iprof<PID>_<TOKEN>_<suffix>" (kprobe_profile
 * shows event names without their group; TOKEN tells apart iprofs with the
 * same PID in different PID namespaces), so that tracefs_kprobe_gc() can
 * remove those of an iprof that was killed before removing its own.
 */

/* Longest event name tracefs_kprobe_name() makes, NUL included. */
#define TRACEFS_EVENT_NAME 48
/* kretprobe instances the kernel accepts per probe: KRETPROBE_MAXACTIVE_MAX
 * (kernel/trace/trace_kprobe.c) */
#define TRACEFS_MAXACTIVE_MAX 4096u
/* longest symbol name: KSYM_NAME_LEN (include/linux/kallsyms.h) */
#define KSYM_NAME_MAX 512u

/*
 * tracefs_kprobe_name() - this process's event name for @suffix
 * ("iprof<getpid()>_<token>_<@suffix>") into @buf, which holds
 * TRACEFS_EVENT_NAME bytes (truncated to fit); returns @buf.
 */
char *tracefs_kprobe_name(char *buf, const char *suffix);

/*
 * tracefs_kprobe_ok() - 1 if kprobe events can be made here (tracefs
 * mounted, kprobe_events writable), else 0.  Mounts tracefs if needed
 * (tracefs_dir()).
 */
int tracefs_kprobe_ok(void);

/*
 * tracefs_kprobe_add() - create event iprof/@name on the entry of kernel
 * function @func ("p:iprof/NAME FUNC") or, if @ret, on its return
 * ("rMAXACTIVE:iprof/NAME FUNC"; @maxactive 0: the kernel's default, 1 to
 * 4096).  Returns the event id (events/iprof/NAME/id, the perf
 * PERF_TYPE_TRACEPOINT config) or -errno (-ENOENT: no such function;
 * -EEXIST: the name is taken; -EINVAL: bad arguments).  The event is
 * removed again when the id cannot be read.
 */
int tracefs_kprobe_add(const char *name, const char *func, int ret,
		       unsigned int maxactive);

/* tracefs_kprobe_del() - remove event iprof/@name.  Returns 0 or -errno
 * (-EBUSY while a perf event still uses it). */
int tracefs_kprobe_del(const char *name);

/*
 * tracefs_kprobe_profile() - @name's hits and misses from kprobe_profile
 * (columns: event name, hits, misses).  A kretprobe's misses count calls
 * that found no free instance, and hits while another kprobe ran on that
 * CPU; kernels before the 2022 fix "tracing/kprobes: 'nmissed' not showed
 * correctly for kretprobe" show the latter only.  Returns 0 or -errno
 * (-ENOENT: no such event).
 */
int tracefs_kprobe_profile(const char *name, unsigned long long *hits,
			   unsigned long long *misses);

/*
 * tracefs_kprobe_gc() - remove iprof events of processes that are gone
 * (PID not alive in this PID namespace; an event still in use, e.g. by an
 * iprof in another namespace, cannot be removed: EBUSY, left alone).
 */
void tracefs_kprobe_gc(void);

#endif
