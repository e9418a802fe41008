/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A C++, Rust or Go runtime that a traced process maps after its timers
 * got uretprobes (a dlopen'ed plugin): what it throws through a timed
 * function kills the process, so it is said when seen.
 */
#ifndef IPROF_CLI_LATERT_H
#define IPROF_CLI_LATERT_H

#include <stddef.h>
#include <sys/types.h>

#include "iprof/plan.h"

/* The files seen mapped, per process (owned; zeroed: none yet). */
struct latert {
	const struct plan_timer *timer; /* the first uretprobe'd; NULL: off */
	const char *path; /* its file (the plan's), whose closure was judged */
	char **seen;			/* "PID PATH", judged once each */
	size_t n;
};

/*
 * latert_init() - watch for late runtimes when a user-function timer of
 * @plan stops by uretprobe or in a uprobe session (@lr->timer: the first
 * one, for the warning), else stay off.  What the plan judged is not
 * said again: the files the -p processes @pids (@npids) map now, and (at
 * each check) the timer's file's DT_NEEDED closure (unwind_loads()).  No
 * error.
 */
void latert_init(struct latert *lr, const struct plan *plan, const int *pids,
		 int npids);

/*
 * latert_check() - read /proc/@pid/maps and judge each executable file
 * mapped there not seen before in @pid (unwind_runtime()); one that can
 * unwind, or switch stacks where @lr->timer is a plain uretprobe (a uprobe
 * session sees libc's switches), is warned of on stderr (log_warn), once
 * per process and file, naming the process, the file, the evidence and
 * @lr->timer.  A file
 * mapped and gone between two checks is missed.  Off, a gone process or
 * out of memory: nothing more is done (no error).
 */
void latert_check(struct latert *lr, pid_t pid);

/*
 * latert_killed() - the command @pid ended with wait status @wstatus: if
 * a signal an unwinder's failure raises (SIGABRT: std::terminate; SIGSEGV,
 * SIGILL, SIGBUS) killed it while @lr->timer had a uretprobe, say that
 * this may be why (log_warn): a runtime loaded and thrown through between
 * two latert_check()s is seen so.  Off: nothing.
 */
void latert_killed(const struct latert *lr, pid_t pid, int wstatus);

/* latert_free() - what @lr owns. */
void latert_free(struct latert *lr);

#endif /* IPROF_CLI_LATERT_H */
