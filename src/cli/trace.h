/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/trace.c: one traced run, in stages (outputs, spawn, load,
 * attach, loop, stop, report).  Internal to the iprof executable.
 */
#ifndef IPROF_CLI_TRACE_H
#define IPROF_CLI_TRACE_H

#include "iprof/plan.h"
#include "cli/opts.h"

/* trace_run() - one traced run of @plan; returns the exit status. */
int trace_run(struct opts *o, const struct plan *plan);

#endif /* IPROF_CLI_TRACE_H */
