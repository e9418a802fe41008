/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IPROF_TRACEFS_H
#define IPROF_TRACEFS_H

/*
 * tracefs_dir() - the tracefs mount point: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing; if neither holds events/, tries to mount
 * tracefs on /sys/kernel/tracing (root).  Returns a static string, or NULL
 * with errno set when tracefs cannot be had.
 */
const char *tracefs_dir(void);

#endif
