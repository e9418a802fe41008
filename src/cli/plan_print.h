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

/* plan_print_timers() - the report's timers of @plan (malloc'ed) or NULL. */
struct report_timer *plan_print_timers(const struct plan *plan,
				       struct loader *l);
/* plan_print_not_attached() - the timers not attached, on stderr. */
void plan_print_not_attached(const struct plan *plan, struct loader *l,
			     const char *pfx);
/*
 * plan_print_step_why() - why some return sites of user function timer @t
 * of @p are single-stepped by the kernel (a static string), or NULL when
 * iprof's program runs every one (or @t has none).
 */
const char *plan_print_step_why(const struct plan *p,
				const struct plan_timer *t);

/* plan_print_text() - --dry-run: the plan on stdout; how many errors. */
int plan_print_text(const struct plan *p);
/*
 * plan_print_kernel_features() - --dry-run: fentry and kprobes here, and
 * how many kernel function timers would not attach for want of them.
 * Returns the exit status a run would have for that (EXIT_PARTIAL some,
 * EXIT_RUNTIME all of @p's timers, else 0).
 */
int plan_print_kernel_features(const struct plan *p);
/* plan_print_json() - --dry-run -f json; returns the exit status. */
int plan_print_json(const struct plan *p);

#endif /* IPROF_CLI_PLAN_PRINT_H */
