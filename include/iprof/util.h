/* SPDX-License-Identifier: GPL-2.0-only */
/* Small parsers shared by the command line and the probe files. */
#ifndef IPROF_UTIL_H
#define IPROF_UTIL_H

#include <stdint.h>

/*
 * util_parse_duration() - "10s", "500ms", "250us", "100ns", "2m", "1h", or
 * a plain number of seconds ("1.5").  Stores ns in @ns.  Returns 0, or
 * -EINVAL for anything else (empty, negative, unknown unit, overflow).
 */
int util_parse_duration(const char *s, uint64_t *ns);

/*
 * util_parse_size() - "16M", "512K", "1G", or plain bytes.  Stores bytes
 * in @bytes.  Returns 0 or -EINVAL.
 */
int util_parse_size(const char *s, uint64_t *bytes);

/* util_now_ns() - clock_gettime(CLOCK_MONOTONIC) in ns: the record clock. */
uint64_t util_now_ns(void);

/* What /proc/PID/stat says of a task (proc(5)). */
struct util_proc {
	char state; /* R S D Z T t X I ... */
	int ppid; /* parent process id */
	unsigned int flags; /* PF_* flags; PF_KTHREAD is 0x00200000 */
	int tgid; /* from /proc/PID/status "Tgid:" (a TID maps to its process) */
};

#define UTIL_PF_KTHREAD 0x00200000u /* include/linux/sched.h */

/*
 * util_proc_read() - read /proc/@pid/stat and status into @p.  Works for a
 * thread id too (/proc/TID exists though it is not listed).  Returns 0, or
 * -ENOENT when there is no such task, -EINVAL when unreadable.
 */
int util_proc_read(int pid, struct util_proc *p);

/*
 * util_proc_alive() - the task exists and is not a zombie (a zombie cannot
 * run again; kill(pid, 0) would still succeed).  Returns 1 or 0.
 */
int util_proc_alive(int pid);

#endif /* IPROF_UTIL_H */
