/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --offcpu-stacks: per node of the call tree, what its calls' blocked
 * (off-CPU, not runnable) time was spent waiting for: the kernel stacks
 * its threads blocked on and who woke them, each with the blocked time it
 * accounts for.  Kept by the aggregator (src/core/agg_offcpu.c) from the
 * IPROF_REC_OFFSTACK and IPROF_REC_WAKER records (include/iprof/abi.h),
 * whenever they come (live with --offcpu-stacks, or from a recording made
 * with it); read by the reports through agg_node.off.
 *
 * A blocked period (SWITCH_OUT blocked .. SWITCH_IN) is charged, at its
 * end, to every node open on the thread then, under the stack the thread
 * blocked on and the waker that ended it.  The node's blocked_ns counts
 * the same periods when its calls complete; what the kept entries do not
 * account for (stacks or wakers beyond OFF_TOP_MAX, lost records, a
 * period with no waker seen, a call that never completed) is the
 * report's "other": blocked_ns less their sum.  Runnable waits
 * (preempted) are not here: agg_node.runq_ns.
 *
 * Bounded: per node at most OFF_TOP_MAX stacks and OFF_TOP_MAX wakers
 * (the first distinct ones seen; later ones go to *_more_ns), about 7.5
 * KiB per node that blocked; per thread one pending stack and waker.
 * With user stacks (IPROF_OFF_UPART parts) a stack is the pair of the
 * kernel one and the user one: a wait in two places of the program on
 * the same kernel path is two entries.
 */
#ifndef IPROF_OFFCPU_H
#define IPROF_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/abi.h"

/* Most blocking stacks and most wakers kept per node. */
#define OFF_TOP_MAX 16u

/* A kernel stack: n return addresses, innermost first. */
struct off_stack {
	uint32_t n; /* 0..IPROF_OFF_FRAMES; 0: unknown (records lost) */
	uint64_t ip[IPROF_OFF_FRAMES];
};

/* Blocked time spent on one kernel stack (and user stack). */
struct off_block {
	struct off_stack stk;
	/* --offcpu-stacks=user: the user stack under it (n 0: none sent,
	 * or the thread's frames could not be read) and its process */
	struct off_stack ustk;
	uint32_t tgid; /* 0 where ustk.n is 0 */
	uint64_t ns; /* blocked time charged, ns */
	uint64_t count; /* blocked periods */
};

/* Blocked time ended by one waker (thread and stack). */
struct off_waker {
	uint32_t tid, tgid; /* the waking thread; 0, 0 in an interrupt */
	uint32_t ctx; /* enum iprof_ctx it woke from */
	char comm[IPROF_COMM_LEN]; /* its name then, "" if not sent */
	struct off_stack stk; /* its kernel stack at the wake-up */
	uint64_t ns, count; /* as off_block's */
};

/* One node's (agg_node.off, owned; NULL: nothing charged). */
struct off_set {
	uint32_t nblock, nwaker; /* entries used, <= OFF_TOP_MAX */
	struct off_block block[OFF_TOP_MAX];
	struct off_waker waker[OFF_TOP_MAX];
	uint64_t block_more_ns; /* blocked time on stacks not kept, ns */
	uint64_t waker_more_ns; /* ... by wakers not kept or not seen */
	uint64_t charged_ns; /* all blocked time charged (kept or not) */
};

/*
 * off_sorted_blocks(), off_sorted_wakers() - pointers to @s's entries into
 * @out (room for OFF_TOP_MAX), most time first (ties: first kept first).
 * Return how many (0 when @s is NULL).
 */
size_t off_sorted_blocks(const struct off_set *s,
			 const struct off_block **out);
size_t off_sorted_wakers(const struct off_set *s,
			 const struct off_waker **out);

#endif /* IPROF_OFFCPU_H */
