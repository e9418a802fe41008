/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --slowest K: per node of the call tree, the K slowest completed calls,
 * each with its start, duration (compensated and raw), thread, and its own
 * children (the timed calls made inside that one call).  Kept by the
 * aggregator (src/core/agg_slow.c) when agg__set_slowest() asked for them;
 * read by the reports through agg_node.slow.
 *
 * Exact: a call is kept iff it is among its node's K slowest, ordered by
 * compensated duration, ties by earlier start, then by lower tid.
 * Bounded: per node at most K calls, each with at most SLOW_KIDS_MAX
 * children; per open frame one list of at most SLOW_KIDS_MAX children,
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
 * Most timed calls kept inside one kept call (its children, their
 * children...), the first ones in the order they started (pre-order);
 * the others are counted in slow_call.kids_more.
 */
#define SLOW_KIDS_MAX 32u

/* One timed call made inside a kept call. */
struct slow_kid {
	uint64_t start_ns; /* its start, record clock (CLOCK_MONOTONIC), ns */
	uint64_t dur_ns; /* duration less the probes' median cost, ns (as
			  * the node's min/max/histogram; raw without costs) */
	uint64_t raw_ns; /* its raw duration, ns */
	uint32_t timer; /* its timer id (AGG_OTHER_TIMER: filed in [other]) */
	uint32_t depth; /* 1: called by the kept call itself, 2: by a depth-1
			 * kid (the one before it of lower depth), ... */
};

/* One kept call. */
struct slow_call {
	uint64_t start_ns; /* its start, record clock (CLOCK_MONOTONIC), ns */
	uint64_t dur_ns; /* compensated as slow_kid.dur_ns, ns: the order */
	uint64_t raw_ns; /* raw duration, ns */
	uint32_t tid, tgid; /* its thread (0, 0: an interrupt context) */
	char comm[IPROF_COMM_LEN]; /* the thread's name then, "" if unknown */
	uint32_t nargs; /* IPROF_NARGS: args[] holds the arguments at its
			 * entry (IPROF_REC_ARGS); 0: none were sent (a
			 * tracepoint span, a fentry or interrupt timer) */
	uint32_t has_ret; /* 1: ret is its return value (IPROF_REC_RETVAL) */
	uint64_t args[IPROF_NARGS]; /* rdi rsi rdx rcx r8 r9 at the entry
				     * (x86-64 SysV), a syscall's or a USDT
				     * probe's arguments in order */
	uint64_t ret; /* rax at the return, a syscall's return value */
	uint32_t nkids; /* entries in kids, pre-order (by start) */
	uint64_t kids_more; /* timed calls inside it not in kids */
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
