/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/target.c: the processes traced: the command spawned, -p PIDs,
 * --comm, --exe and --cgroup, and how the command ended.  Internal to the
 * iprof executable.
 */
#ifndef IPROF_CLI_TARGET_H
#define IPROF_CLI_TARGET_H

#include <sys/types.h>

#include "kernel/loader.h"
#include "cli/opts.h"

/*
 * target_note_inherited() - which descriptors from 3 up iprof was started
 * with (read from /proc/self/fd; call first, in one thread): the command
 * gets those and no other (target_spawn_gated()).
 */
void target_note_inherited(void);

/* target_spawn_gated() - fork COMMAND held until SIGUSR1 (its stdout on
 * iprof's stderr with @stdout_to_stderr); -1 on error. */
pid_t target_spawn_gated(char **cmd, int *exec_r, int stdout_to_stderr);
/* target_find_in_path() - @name searched in $PATH (malloc'ed) or NULL. */
char *target_find_in_path(const char *name);
/* target_resolve_pids() - check and normalise -p PIDs.  0 or -EINVAL. */
int target_resolve_pids(struct opts *o);
/* target_has_sel() - --comm, --exe or --cgroup given: targets to come */
int target_has_sel(const struct opts *o);
/*
 * target_resolve_sel() - --comm, --exe, --cgroup into @sel: an executable
 * by its file's device and inode (stat(2), symbolic links followed), a
 * cgroup by its directory on the cgroup2 file system (level and id).
 * Returns 0 or -EINVAL (message printed: no such file, not cgroup v2).
 */
int target_resolve_sel(const struct opts *o, struct target_sel *sel);
/*
 * target_scan_sel() - add the processes running now that @sel selects by
 * name or executable, and their descendants; how many.  Call once BPF
 * follows execs (after loader__attach()), so none falls in between.
 */
int target_scan_sel(struct loader *l, const struct target_sel *sel);
/*
 * target_refresh_cgroups() - a --cgroup directory made anew (a service
 * restarted) has a new id: give it to BPF.  Returns how many changed.
 */
int target_refresh_cgroups(struct loader *l, struct target_sel *sel);
/* target_add_descendants() - add the roots' children now; how many. */
int target_add_descendants(struct loader *l, const pid_t *roots, int nroots);
/* target_raise_fd_limit() - RLIMIT_NOFILE as high as allowed. */
void target_raise_fd_limit(void);
/*
 * target_command_status() - how the command ended, from its waitpid(2)
 * @status, on stderr (not -q): a non-zero exit status, or the signal that
 * killed it, and with @by_itself (it ended before iprof stopped it) that
 * iprof's exit status is 128 + the signal.
 */
void target_command_status(int status, int by_itself);

#endif /* IPROF_CLI_TARGET_H */
