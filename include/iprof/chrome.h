/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format chrome: the record stream as a timeline in the Trace Event
 * Format (the JSON that Perfetto UI, chrome://tracing and speedscope
 * open), written as the records come, with json-c.  Kernel-free: a sink
 * of the record pipeline (include/iprof/pipeline.h), fed by the live run
 * or by a recording (include/iprof/rec.h).  The writer of --format
 * chrome's row (src/report/chrome.c).
 *
 * Output: {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[...]}.
 * One "X" (complete) event per timer call: name = timer name, cat =
 * "timer", ts and dur in microseconds (floating point, ns precision)
 * since the start of tracing, pid = the process (tgid), tid = the thread,
 * args.depth (1 = top level) and args.timer (the timer id).  Calls that
 * did not end with their stop carry args.end: "exit" (closed by the
 * thread's exit), "unwound" (an outer timer stopped first), "returned"
 * (the return was missed), "discarded" (records were lost), "incomplete"
 * (still open when tracing stopped).  Timers that ran in interrupt
 * context go on one track per CPU and context: pid 0 ("interrupts"),
 * tid 1000000 + ctx * 65536 + cpu, named "hardirq/cpuN".  "M" (metadata)
 * events name each process and thread (process_name, thread_name) from
 * the COMM records.  Events of one thread nest: a child's [ts, ts+dur]
 * lies inside its parent's (the order of the events is the order calls
 * ended, not their start).  Keyed spans (IPROF_REC_K*), which may end
 * on another thread, are async events on the starting side's track:
 * "b" at the start and "e" at the stop, cat "keyed", id
 * "0xID.TID" (the span's number, the track's tid), args.timer, and
 * args.end "replaced" or "expired" on an "e" that dropped it.  With
 * --slowest the records carry each call's arguments and return value
 * (IPROF_REC_ARGS, IPROF_REC_RETVAL): its X event has args.args (6
 * unsigned numbers) and args.ret where it got them, and the kept calls
 * are marked by "i" events (chrome__mark_slowest()).  With
 * --offcpu-stacks (IPROF_REC_WAKER, SWITCH_OUT/IN) each wait a waker
 * ended is a flow (Trace Event Format flow events, cat "wakeup", id N):
 * a 0-long "X" slice "wakeup" (args.wakee, args.by: "task" or the
 * interrupt) and an "s" at the wake-up on the waker's track (an
 * interrupt's: its context's track of its CPU), an "f"
 * with "bp": "e" at the wakee's switch-in, inside its open call.
 */
#ifndef IPROF_CHROME_H
#define IPROF_CHROME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iprof/rec.h"

/*
 * tid of the interrupt-context track of (ctx, cpu), under pid 0: above
 * the kernel's pid_max limit (PID_MAX_LIMIT, 4194304 on 64-bit, is not
 * reached by real tids in a trace: Perfetto only needs them distinct),
 * CHROME_CTX_CPUS CPUs per context
 */
#define CHROME_CTX_BASE 1000000u
#define CHROME_CTX_CPUS 65536u
#define CHROME_CTX_TID(ctx, cpu) \
	(CHROME_CTX_BASE + (uint32_t)(ctx) * CHROME_CTX_CPUS + (cpu))

struct agg;
struct chrome;

/*
 * chrome__new() - start a trace on @f (kept open by the caller): writes the
 * document's head.  @run gives the time origin (start_ns), the timer
 * names (timers, ntimers) and the command; it must outlive the exporter.
 * @max_depth (--max-depth; 0: none): calls deeper than it (depth 1 = top
 * level) are not written, and otherData.max_depth says so.  Returns NULL
 * with errno set (ENOMEM, or a write error).
 */
struct chrome *chrome__new(FILE *f, const struct rec_run *run,
			   uint32_t max_depth);

/*
 * chrome__push() - one record of the merged stream (@len bytes).  Records
 * of another size, type or timer id are counted and ignored.  Returns 0,
 * or -errno of the first write or allocation error (sticky).
 */
int chrome__push(struct chrome *c, const void *rec, size_t len);

/*
 * chrome__mark_slowest() - --slowest: an "i" (instant) event per kept call
 * of @agg's tree (include/iprof/slow.h), at the call's start on its
 * thread's track, name "slowest #RANK TIMER" (1: the slowest of its
 * path), cat
 * "slowest", args.slowest (the rank), args.path ("a > b"), args.timer,
 * args.duration_ns, raw_duration_ns, and on_cpu_ns, runq_ns, blocked_ns
 * (or a keyed span's span_id) as the JSON report's; calls deeper than
 * max_depth or ended before the --from are left out.  Before
 * chrome__finish().  Returns 0 or -errno (sticky, as chrome__push()).
 */
int chrome__mark_slowest(struct chrome *c, const struct agg *agg);

/*
 * chrome__finish() - close every call still open as "incomplete" at
 * @end_ns (record clock), write the name events and the document's end,
 * flush.  Returns 0 or -errno (the first error).
 */
int chrome__finish(struct chrome *c, uint64_t end_ns);

/*
 * chrome__set_from() - calls that end before @from_ns (record clock) are
 * not written (iprof report --from: the timers that stop in the window).
 * Call before the first chrome__push().
 */
void chrome__set_from(struct chrome *c, uint64_t from_ns);

/* chrome__events() - "X" events written so far. */
uint64_t chrome__events(const struct chrome *c);

/* chrome__free() - free the exporter (does not close its FILE); NULL ok. */
void chrome__free(struct chrome *c);

struct pipeline;

/*
 * chrome__add_sink() - the records of @p go to @c too (chrome__push()); @p
 * owns @c from then on (chrome__free() at pipeline__free(), or at once if
 * this fails), while the caller still calls chrome__finish().  Returns as
 * pipeline__add(): 0, -EBUSY, -ENOMEM.
 */
int chrome__add_sink(struct pipeline *p, struct chrome *c);

#endif /* IPROF_CHROME_H */
