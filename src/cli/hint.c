/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hints after a run (cli/hint.h).
 */
#include <stdio.h>
#include <sys/stat.h>

#include "iprof/sym.h"
#include "cli/hint.h"
#include "cli/log.h"

/* the user-function entry of timer @i, or NULL */
static const struct plan_att *uentry(const struct plan *plan, uint32_t i)
{
	uint32_t k;

	for (k = 0; k < plan->natt; k++)
		if (plan->att[k].timer == i && plan->att[k].path &&
		    plan->att[k].func &&
		    (plan->att[k].mech == MECH_UPROBE ||
		     plan->att[k].mech == MECH_URETPROBE))
			return &plan->att[k];
	return NULL;
}

void hint_zero_hits(const struct plan *plan, const struct report_timer *timers,
		    const struct agg *agg, const char *exe)
{
	const struct plan_att *a;
	struct stat st;
	uint64_t off;
	uint32_t i;

	if (!exe || !timers || stat(exe, &st))
		return;
	for (i = 0; i < plan->ntimers; i++) {
		if (!timers[i].attached || agg__timer_started(agg, i))
			continue;
		a = uentry(plan, i);
		if (!a || (a->dev == (uint64_t)st.st_dev &&
			   a->ino == (uint64_t)st.st_ino))
			continue;
		if (sym_func_offset(exe, a->func, &off, NULL, 0))
			continue;
		log_info("hint: %s had 0 hits: %s defines %s itself (linked in, not called in %s); time it there: -e 'uprobe:%s:%s'",
			 plan->timers[i].name, exe, a->func, a->path, exe,
			 a->func);
	}
}
