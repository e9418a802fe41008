/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Overhead calibration, the measuring part (src/cli/calib.c; the method and
 * the arithmetic: include/iprof/calib_cost.h).  Loads BPF programs: root.
 */
#ifndef IPROF_CALIB_RUN_H
#define IPROF_CALIB_RUN_H

#include <pthread.h>

#include "iprof/calib_cost.h"
#include "iprof/plan.h"

/*
 * calib_run() - measure every class that a timer of @p uses, each with a
 * plan of its own under @env's settings (its pids ignored), before @p is
 * loaded: a few hundred ms a class, BPF loads included.  A class that
 * cannot be measured says why in cal->r[c].why (its timers' costs are then
 * unknown: AGG_COST_UNKNOWN).  Returns 0 or -ENOMEM.
 */
int calib_run(struct calib *cal, const struct plan *p,
	      const struct plan_env *env);

/*
 * calib_needs_step() - whether @p has a probe whose site's single step
 * may differ from its class's (a return site at a tail call's jmp, an
 * inlined instance's entry or exit: agg_frame_cost()), for which
 * calib_run() measures both CALIB_RETSITE and CALIB_RETSITE_STEP, the
 * twins calib_step() takes the step from.  1 or 0.
 */
int calib_needs_step(const struct plan *p);

/*
 * A calibration in a thread of its own, so that it runs while the run's
 * own BPF programs load (the verifier, on another CPU): calib_start()
 * takes copies of what it needs but @p, which must stay until
 * calib_wait(), whose return is calib_run()'s.  Nothing of the run may be
 * attached before calib_wait() returns: its probes would be timed too.
 */
struct calib_job {
	pthread_t th;
	int started;
	struct calib *cal;
	const struct plan *plan;
	struct plan_env env;
	int err;
	uint64_t t0_ns; /* when it began, util_now_ns() */
};

int calib_start(struct calib_job *j, struct calib *cal, const struct plan *p,
		const struct plan_env *env);
/*
 * calib_wait() - calib_run()'s return once it is done; when the wait
 * passes CALIB_SAY_NS of calibration, one info line on stderr says what
 * iprof waits for, and how to skip it (under load it takes seconds).
 */
int calib_wait(struct calib_job *j);

/* calib_join() - calib_wait() without the line: iprof is ending anyway */
int calib_join(struct calib_job *j);

/* the calibration time from which waiting for it is said */
#define CALIB_SAY_NS 1000000000ull

/*
 * calib_log() - each class measured, with its figures, and each one that
 * could not be, with why (-v: the report's summary says the latter too).
 */
void calib_log(const struct calib *cal);

#endif /* IPROF_CALIB_RUN_H */
