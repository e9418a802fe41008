/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hints after a run, where iprof knows why a timer saw nothing.
 */
#ifndef IPROF_CLI_HINT_H
#define IPROF_CLI_HINT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "iprof/agg.h"
#include "iprof/plan.h"
#include "iprof/report.h"

/*
 * hint_zero_hits() - for each user-function timer of @plan that attached
 * (@timers[i].attached, @timers: @plan->ntimers entries) in a file other
 * than the traced program @exe and was never started (agg__timer_started()
 * in @agg): when @exe defines the function itself (a library linked in
 * statically, as Debian's perl has libperl), say so on stderr (log_info)
 * with the probe line that times it.  @exe NULL: nothing.  Reads ELF
 * symbols (sym_func_offset()); errors only leave a hint out.
 */
void hint_zero_hits(const struct plan *plan, const struct report_timer *timers,
		    const struct agg *agg, const char *exe);

/*
 * hint_unmapped() - for each file that @plan's user probes attached in
 * (plan_att.dev, .ino), when none of the @npids processes @pids (-p, as
 * given) maps it now (/proc/PID/maps: proc(5), "dev" as major:minor in
 * hex and "inode" in decimal), warn on stderr (log_warn) that its
 * probes fire only if one of them loads it later, naming what each
 * process runs (/proc/PID/exe): a pyenv shim's python is not
 * /usr/bin/python3.  A process whose maps cannot be read (gone, or not
 * ours) counts as mapping everything: nothing said for it.
 */
void hint_unmapped(const struct plan *plan, const pid_t *pids, size_t npids);

/*
 * hint_single_step() - when --returns auto kept return sites
 * (plan_timer.ret_risk: the evidence that the program can unwind or
 * switch stacks through a uretprobe) for user-function timers of @plan
 * whose rets the kernel single-steps (plan_print_step_why()), say on
 * stderr (log_info, once: how many, the first names, the evidence) that
 * each such return costs more than a uretprobe here and how to choose
 * one.  Nothing otherwise.
 */
void hint_single_step(const struct plan *plan);

#endif /* IPROF_CLI_HINT_H */
