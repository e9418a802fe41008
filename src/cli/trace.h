/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/trace.c: one traced run, in stages (outputs, spawn, load,
 * attach, loop, stop, report).  Internal to the iprof executable.
 */
#ifndef IPROF_CLI_TRACE_H
#define IPROF_CLI_TRACE_H

#include "iprof/plan.h"
#include "cli/opts.h"

/*
 * trace_catch_signals() - SIGINT, SIGTERM and SIGHUP caught, whatever
 * disposition iprof inherited (a script's "iprof ... &" starts it with
 * SIGINT ignored), SIGPIPE ignored.  Until trace_run() begins, a signal
 * ends iprof at once with exit status 128 + its number (planning and
 * calibration leave nothing behind); from then on the first asks for a
 * clean stop (report, detach), a second ends iprof at once.
 */
void trace_catch_signals(void);

struct run_calib;

/*
 * trace_run() - one traced run of @plan as @o asks, its overhead
 * compensation @rc (src/cli/run.h; zeroed: none); returns the exit status.
 */
int trace_run(const struct opts *o, struct run_calib *rc,
	      const struct plan *plan);

#endif /* IPROF_CLI_TRACE_H */
