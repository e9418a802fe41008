/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthetic records for the unit tests: one struct iprof_rec
 * (include/iprof/abi.h) built from its fields and pushed into an
 * aggregator.  tgid is the tid (one thread per process) unless it matters.
 */
#ifndef IPROF_TEST_REC_H
#define IPROF_TEST_REC_H

#include <stdint.h>
#include <stdio.h>

#include "iprof/agg.h"

/* rec_push() - agg__push() of one record; returns what agg__push() does. */
static inline int rec_push(struct agg *a, uint8_t type, uint8_t flags,
			   uint32_t timer, uint32_t tid, uint64_t ts,
			   uint16_t depth, uint16_t cpu, uint32_t aux)
{
	struct iprof_rec r = {
		.type = type,
		.flags = flags,
		.size = sizeof(r),
		.timer = timer,
		.tid = tid,
		.tgid = tid,
		.ts = ts,
		.depth = depth,
		.cpu = cpu,
		.aux = aux,
	};

	return agg__push(a, &r, sizeof(r));
}

/* rec_push_comm() - agg__push() of a thread's name (IPROF_REC_COMM). */
static inline int rec_push_comm(struct agg *a, uint32_t tid, uint32_t tgid,
				const char *comm)
{
	struct iprof_rec_comm c = {
		.type = IPROF_REC_COMM,
		.size = sizeof(c),
		.tid = tid,
		.tgid = tgid,
	};

	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	return agg__push(a, &c, sizeof(c));
}

#endif /* IPROF_TEST_REC_H */
