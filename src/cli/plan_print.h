/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/plan_print.c: the plan as --dry-run prints it (text and JSON),
 * the report's timers of a plan and the timers not attached.  Internal to
 * the iprof executable.
 */
#ifndef IPROF_CLI_PLAN_PRINT_H
#define IPROF_CLI_PLAN_PRINT_H

#include "iprof/plan.h"
#include "iprof/report.h"
#include "kernel/loader.h"

/* cli_make_timers() - the report's timers of @plan (malloc'ed) or NULL. */
struct report_timer *cli_make_timers(const struct plan *plan, struct loader *l);
/* cli_print_not_attached() - the timers not attached, on stderr. */
void cli_print_not_attached(const struct plan *plan, struct loader *l,
			    const char *pfx);
/* cli_print_plan() - --dry-run: the plan on stdout; how many errors. */
int cli_print_plan(const struct plan *p);
/* cli_print_kernel_features() - --dry-run: fentry and kprobes here. */
void cli_print_kernel_features(const struct plan *p);
/* cli_print_plan_json() - --dry-run -f json; returns the exit status. */
int cli_print_plan_json(const struct plan *p);

#endif /* IPROF_CLI_PLAN_PRINT_H */
