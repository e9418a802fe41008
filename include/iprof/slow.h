/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --slowest K: per node of the call tree, the K slowest completed calls,
 * each with its start, duration (less the probes' cost, and raw), its
 * on-CPU, runnable and blocked parts, thread, arguments, return value, and
 * the timed calls made inside that one call summed by path.  Kept by the
 * aggregator (src/core/agg_slow.c) when agg__set_slowest() asked for them;
 * read by the reports through agg_node.slow.
 *
 * Exact: a call is kept iff it is among its node's K slowest, ordered by
 * duration (slow_call.dur_ns), ties by earlier start, then by lower tid.
 * Bounded: per node at most K calls, each with at most SLOW_KIDS_MAX
 * paths inside; per open frame one table of at most SLOW_KIDS_MAX paths,
 * whatever the run's length.
 */
#ifndef IPROF_SLOW_H
#define IPROF_SLOW_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/abi.h"

/* Most calls kept per node (--slowest K: 1..SLOW_K_MAX). */
#define SLOW_K_MAX 64u
/*
 * Most paths kept inside one kept call: the timed calls made inside it
 * (its children, their children...) are summed by their path below it
 * (struct slow_kid: count, durations), the first SLOW_KIDS_MAX paths
 * met; the calls of the others are counted in slow_call.kids_more.
 */
#define SLOW_KIDS_MAX 32u
/* slow_kid.parent of a path the kept call made itself (depth 1) */
#define SLOW_KID_TOP UINT32_MAX

/*
 * One path of timed calls inside a kept call, summed: e.g. every call of
 * `read` made by a `parse` that the kept call made.
 */
struct slow_kid {
	uint64_t start_ns; /* its first call's start, record clock
			    * (CLOCK_MONOTONIC), ns */
	uint64_t dur_ns; /* its calls' durations summed, each less the
			  * probes' median cost only (as slow_call.dur_ns), ns */
	uint64_t raw_ns; /* its calls' raw durations summed, ns */
	uint64_t count; /* its calls */
	uint32_t timer; /* its timer id (AGG_OTHER_TIMER: filed in [other]) */
	uint32_t depth; /* 1: called by the kept call itself, 2: ... */
	uint32_t parent; /* index in slow_call.kids of the path it is called
			  * from (always a lower index), SLOW_KID_TOP at depth
			  * 1 */
};

/* One kept call. */
struct slow_call {
	uint64_t start_ns; /* its start, record clock (CLOCK_MONOTONIC), ns */
	/* its wall time less the probes' median cost only (on_ns + runq_ns +
	 * blocked_ns; its runnable and blocked time as they were, not scaled
	 * as the node's sums do), ns: the order */
	uint64_t dur_ns;
	uint64_t raw_ns; /* raw duration, ns */
	/* dur_ns's parts, ns: on-CPU (less the probes' cost), runnable in a
	 * run queue (preempted), blocked; has_split 0: not known (a keyed
	 * span, whose start and stop may be on different threads) */
	uint64_t on_ns, runq_ns, blocked_ns;
	uint32_t has_split;
	uint32_t tid, tgid; /* its thread (0, 0: an interrupt context); a keyed
			     * span's starting thread (stop_tid: its
			     * stopping one) */
	uint32_t is_span; /* 1: a keyed span's, span_id its number (the
			   * BPF side's count of keyed starts, from 0) */
	uint32_t span_id;
	char comm[IPROF_COMM_LEN]; /* the thread's name then, "" if unknown */
	uint32_t nargs; /* IPROF_NARGS: args[] holds the arguments at its
			 * entry (IPROF_REC_ARGS); 0: none were sent (a
			 * tracepoint span, a fentry or interrupt timer) */
	uint32_t has_ret; /* 1: ret is its return value (IPROF_REC_RETVAL) */
	uint64_t args[IPROF_NARGS]; /* rdi rsi rdx rcx r8 r9 at the entry
				     * (x86-64 SysV), a syscall's or a USDT
				     * probe's arguments in order */
	uint64_t ret; /* rax at the return, a syscall's return value */
	/* a keyed span's (is_span): its key values and the side that
	 * stopped it, where its stop sent them (IPROF_REC_KINFO: live with
	 * --slowest, or a recording made with it) */
	uint32_t nkey; /* values in key[], in the key's order; 0: none */
	uint32_t has_stop; /* 1: stop_* say who stopped it */
	uint64_t key[IPROF_MAX_KEY];
	uint32_t stop_tid, stop_tgid; /* 0, 0: an interrupt context */
	uint32_t stop_ctx, stop_cpu; /* its enum iprof_ctx and CPU */
	char stop_comm[IPROF_COMM_LEN]; /* its name then, "" if unknown */
	uint32_t nkids; /* paths in kids, each after its parent path */
	uint64_t kids_more; /* timed calls inside it on no path of kids */
	struct slow_kid *kids; /* [nkids], owned; NULL when nkids == 0 */
};

/* The calls kept for one node (agg_node.slow, NULL: none completed). */
struct slow_set {
	uint32_t k; /* the most kept (the aggregator's K) */
	uint32_t n; /* kept now, <= k */
	struct slow_call *call; /* [k], a heap (call[0] the least slow):
				 * read them with slow_sorted() */
};

/*
 * slow_sorted() - pointers to @s's calls into @out (room for s->n),
 * slowest first.  Returns how many (0 when @s is NULL).
 */
size_t slow_sorted(const struct slow_set *s, const struct slow_call **out);

/* slow_slower() - @x comes before @y in the order of the kept calls. */
int slow_slower(const struct slow_call *x, const struct slow_call *y);

#endif /* IPROF_SLOW_H */
