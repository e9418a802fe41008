// SPDX-License-Identifier: GPL-2.0-only
/*
 * The processes iprof traces: the command it runs (held until every probe
 * is attached), the -p processes and what they forked before, the
 * processes --comm, --exe and --cgroup select, and how the command ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iprof/util.h"
#include "cli/target.h"
#include "cli/log.h"

/* descriptors asked for: the kernel's default fs.nr_open, so that root can
 * have it without raising the system's limits */
#define FD_LIMIT_WANT 1048576

/*
 * The descriptors from 3 up that iprof was started with, ascending
 * (target_note_inherited()); ninherited -1: not known (none read, or more
 * than INHERITED_MAX), the command then gets whatever is open at its exec.
 */
#define INHERITED_MAX 256
static int inherited[INHERITED_MAX];
static int ninherited = -1;

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void target_note_inherited(void)
{
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int n = 0, fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		fd = atoi(e->d_name);
		if (fd < 3 || fd == dirfd(d) || e->d_name[0] == '.')
			continue;
		if (n == INHERITED_MAX) {
			closedir(d);
			return;
		}
		inherited[n++] = fd;
	}
	closedir(d);
	qsort(inherited, (size_t)n, sizeof(inherited[0]), cmp_int);
	ninherited = n;
}

/*
 * close_not_inherited() - in the child before its exec: close every
 * descriptor from 3 up that iprof was not started with, but @keep (the
 * exec-error pipe).  iprof's own are close-on-exec, but a library's
 * (elfutils' libdwfl opens files without O_CLOEXEC) opened by another
 * thread of iprof (the calibration's planning) while the command forked
 * would reach it: e2e_test_command_status once saw an fd 6 in the command.
 * close_range(2): async-signal-safe, as a child of a threaded process needs.
 */
static void close_not_inherited(int keep)
{
	int lo = 3, i, k;

	if (ninherited < 0)
		return;
	for (i = 0; i <= ninherited; i++) {
		k = i < ninherited ? inherited[i] : INT_MAX;
		if (keep >= lo && keep < k) {
			if (keep > lo)
				close_range((unsigned int)lo,
					    (unsigned int)keep - 1, 0);
			lo = keep + 1;
		}
		if (k > lo)
			close_range((unsigned int)lo, (unsigned int)k - 1, 0);
		if (k == INT_MAX)
			break;
		lo = k + 1;
	}
}

/*
 * Fork COMMAND, held before exec until every probe is attached: it waits
 * in sigwaitinfo(2) for SIGUSR1 (start_gated()).  Not in a read(2): a
 * read in flight when tracing begins would show up, as an orphan stop, in
 * any span on read.  If exec fails, the child writes its errno to *@exec_r
 * (close-on-exec, so a successful exec closes it with nothing written).
 * @stdout_to_stderr: the command's stdout is iprof's stderr (iprof's
 * stdout carries a recording or a timeline as it comes: the command's
 * output must not mix into it).
 */
pid_t target_spawn_gated(char **cmd, int *exec_r, int stdout_to_stderr)
{
	sigset_t usr1, old;
	siginfo_t si;
	int ex[2], e;
	pid_t pid;

	if (pipe2(ex, O_CLOEXEC))
		return -1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(ex[0]);
		close(ex[1]);
		return -1;
	}
	if (pid == 0) {
		close(ex[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127); /* iprof is already gone */
		while (sigwaitinfo(&usr1, &si) < 0 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL); /* iprof ignores it: exec keeps that */
		if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		close_not_inherited(ex[1]);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ex[1]);
	*exec_r = ex[0];
	return pid;
}

/* An executable named @name in $PATH (as execvp(3) searches), or NULL. */
char *target_find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save, *full = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	dirs = strdup(path);
	if (!dirs)
		return NULL;
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (asprintf(&full, "%s/%s", *d ? d : ".", name) < 0) {
			full = NULL;
			break;
		}
		if (!access(full, X_OK))
			break;
		free(full);
		full = NULL;
	}
	free(dirs);
	return full;
}

/*
 * Turn the -p PIDs into the processes to trace: a thread id names its
 * process; iprof itself, zombies and tasks that do not exist are refused;
 * kernel threads are accepted with a warning (no uprobe fires there).
 * Returns 0 or -EINVAL (message printed).
 */
int target_resolve_pids(struct opts *o)
{
	struct util_proc p;
	int i;

	for (i = 0; i < o->npids; i++) {
		pid_t pid = o->pids[i];

		if (util_proc_read(pid, &p) || p.state == 'Z' ||
		    p.state == 'X') {
			log_error("-p %d: no such process%s", pid,
				  p.state == 'Z' ? " (a zombie: it has exited)"
						 : "");
			return -EINVAL;
		}
		if (p.tgid && p.tgid != pid) {
			log_warn(
				"-p %d is a thread of process %d: tracing the process",
				pid, p.tgid);
			o->pids[i] = pid = p.tgid;
		}
		if (pid == getpid()) {
			log_error("-p %d is iprof itself", pid);
			return -EINVAL;
		}
		if (p.flags & UTIL_PF_KTHREAD)
			log_warn(
				"warning: -p %d is a kernel thread: only kernel probes can fire in it",
				pid);
	}
	return 0;
}

/*
 * Add the processes that the -p processes have already forked (their
 * descendants now) as targets; later forks are followed in BPF.  Returns
 * how many were added.
 */
int target_add_descendants(struct loader *l, const pid_t *roots, int nroots)
{
	struct { int pid, ppid; } *v = NULL;
	size_t n = 0, i;
	int *set = NULL, nset = 0, added = 0, k, grew;
	struct dirent *de;
	struct util_proc p;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || util_proc_read((int)pid, &p))
			continue;
		if (util_grow(&v, n, sizeof(*v)))
			break;
		v[n].pid = (int)pid;
		v[n].ppid = p.ppid;
		n++;
	}
	closedir(d);
	set = calloc(n + (size_t)nroots + 1, sizeof(*set));
	if (!set)
		goto out;
	for (k = 0; k < nroots; k++)
		set[nset++] = roots[k];
	/* grow the set until no process has its parent in it and is out */
	do {
		grew = 0;
		for (i = 0; i < n; i++) {
			int in = 0, par = 0;

			for (k = 0; k < nset; k++) {
				in |= set[k] == v[i].pid;
				par |= set[k] == v[i].ppid;
			}
			if (par && !in && v[i].pid != getpid() &&
			    util_proc_alive(v[i].pid)) {
				set[nset++] = v[i].pid;
				if (!loader__add_target(l, v[i].pid))
					added++;
				grew = 1;
			}
		}
	} while (grew);
out:
	free(set);
	free(v);
	return added;
}

int target_has_sel(const struct opts *o)
{
	return o->nsel_comm || o->nsel_exe || o->nsel_cgroup;
}

/* The cgroup2 file system's magic (include/uapi/linux/magic.h). */
#define CGROUP2_MAGIC 0x63677270

/* The kernel's dev_t of stat(2)'s st_dev (include/linux/kdev_t.h). */
static uint64_t kernel_dev(dev_t d)
{
	return (uint64_t)major(d) << 20 | minor(d);
}

/* Does @path start with the ELF magic (an exec maps it itself)? */
static int is_elf(const char *path)
{
	unsigned char m[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n = fd < 0 ? -1 : read(fd, m, sizeof(m));

	if (fd >= 0)
		close(fd);
	return n == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' &&
	       m[3] == 'F';
}

static int is_cgroup2(const char *path, struct stat *st)
{
	struct statfs fs;

	return !statfs(path, &fs) && fs.f_type == CGROUP2_MAGIC &&
	       !stat(path, st) && S_ISDIR(st->st_mode);
}

/*
 * cgroup_level() - the depth of cgroup directory @path below the root of
 * its cgroup2 mount (the root cgroup: 0), counted by going up while the
 * parent is on the same cgroup2 file system.  -1 on error.
 */
static int cgroup_level(const char *path)
{
	char cur[PATH_MAX], *slash;
	struct stat st, pst;
	int level = 0;

	if (!realpath(path, cur) || stat(cur, &st))
		return -1;
	for (;;) {
		slash = strrchr(cur, '/');
		if (!slash || slash == cur)
			break;
		*slash = '\0';
		if (!is_cgroup2(cur, &pst) || pst.st_dev != st.st_dev)
			break;
		level++;
	}
	return level;
}

int target_resolve_sel(const struct opts *o, struct target_sel *sel)
{
	struct stat st;
	int i, level;

	memset(sel, 0, sizeof(*sel));
	for (i = 0; i < o->nsel_comm; i++) {
		if (strlen(o->sel_comm[i]) >= IPROF_COMM_LEN)
			log_info(
				"--comm '%s': the kernel keeps the first %d bytes of a name: matching '%.*s'",
				o->sel_comm[i], IPROF_COMM_LEN - 1,
				IPROF_COMM_LEN - 1, o->sel_comm[i]);
		strncpy(sel->comm[i], o->sel_comm[i], IPROF_COMM_LEN - 1);
	}
	sel->ncomm = (unsigned int)o->nsel_comm;
	for (i = 0; i < o->nsel_exe; i++) {
		if (stat(o->sel_exe[i], &st)) {
			log_error("--exe '%s': %s", o->sel_exe[i],
				  strerror(errno));
			return -EINVAL;
		}
		if (!S_ISREG(st.st_mode)) {
			log_error("--exe '%s': not a regular file",
				  o->sel_exe[i]);
			return -EINVAL;
		}
		if (!(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) ||
		    !is_elf(o->sel_exe[i])) {
			/* a script runs as its interpreter: the executable
			 * an exec maps is that (fs/binfmt_script.c) */
			log_error(
				"--exe '%s': not an executable ELF file (a script runs as its interpreter: give the interpreter, or --comm NAME)",
				o->sel_exe[i]);
			return -EINVAL;
		}
		sel->exe_dev[i] = kernel_dev(st.st_dev);
		sel->exe_ino[i] = st.st_ino;
	}
	sel->nexe = (unsigned int)o->nsel_exe;
	for (i = 0; i < o->nsel_cgroup; i++) {
		const char *p = o->sel_cgroup[i];

		if (!is_cgroup2(p, &st)) {
			log_error(
				"--cgroup '%s': %s", p,
				access(p, F_OK)
					? strerror(errno)
					: "not a directory of the cgroup v2 file system (e.g. /sys/fs/cgroup/system.slice/NAME.service)");
			return -EINVAL;
		}
		level = cgroup_level(p);
		if (level < 0) {
			log_error("--cgroup '%s': %s", p, strerror(errno));
			return -EINVAL;
		}
		sel->cg_path[i] = p;
		sel->cg_level[i] = (uint32_t)level;
		/* a cgroup's id is its kernfs node id, the directory's inode
		 * number (kernel/cgroup/cgroup.c: cgroup_id()) */
		sel->cg_id[i] = st.st_ino;
	}
	sel->ncg = (unsigned int)o->nsel_cgroup;
	return 0;
}

/* Does process @pid run a --comm name or an --exe executable now? */
static int sel_matches(int pid, const struct target_sel *sel)
{
	char path[64], comm[IPROF_COMM_LEN + 1];
	struct stat st;
	unsigned int k;
	ssize_t n;
	int fd;

	if (sel->ncomm) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, comm, sizeof(comm) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			comm[n] = '\0';
			comm[strcspn(comm, "\n")] = '\0';
			for (k = 0; k < sel->ncomm; k++)
				if (!strncmp(comm, sel->comm[k], IPROF_COMM_LEN))
					return 1;
		}
	}
	if (sel->nexe) {
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		if (!stat(path, &st))
			for (k = 0; k < sel->nexe; k++)
				if (kernel_dev(st.st_dev) == sel->exe_dev[k] &&
				    (uint64_t)st.st_ino == sel->exe_ino[k])
					return 1;
	}
	return 0;
}

int target_scan_sel(struct loader *l, const struct target_sel *sel)
{
	pid_t *roots = NULL;
	int nroots = 0, added = 0;
	struct util_proc p;
	struct dirent *de;
	DIR *d;

	if (!sel->ncomm && !sel->nexe)
		return 0;
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid() ||
		    util_proc_read((int)pid, &p) || p.state == 'Z' ||
		    (p.flags & UTIL_PF_KTHREAD) || !sel_matches((int)pid, sel))
			continue;
		if (util_grow(&roots, (size_t)nroots, sizeof(*roots)))
			break;
		roots[nroots++] = (pid_t)pid;
		if (!loader__add_target(l, (pid_t)pid))
			added++;
	}
	closedir(d);
	if (nroots)
		added += target_add_descendants(l, roots, nroots);
	free(roots);
	return added;
}

int target_refresh_cgroups(struct loader *l, struct target_sel *sel)
{
	unsigned int i;
	struct stat st;
	int n = 0;

	for (i = 0; i < sel->ncg; i++) {
		/* gone (the service stopped): keep the old id, no process
		 * has it any more */
		if (stat(sel->cg_path[i], &st) || !S_ISDIR(st.st_mode) ||
		    (uint64_t)st.st_ino == sel->cg_id[i])
			continue;
		if (!loader__set_cgroup(l, i, st.st_ino)) {
			sel->cg_id[i] = st.st_ino;
			n++;
		}
	}
	return n;
}

/*
 * Every fentry/fexit function costs two programs and two links, and every
 * 16 functions a BPF object (a map for their constants, BTF): hundreds of
 * functions need more than the usual 1024 file descriptors.  Raise the
 * limit as far as allowed.
 */
void target_raise_fd_limit(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	r.rlim_cur = r.rlim_max;
	if (r.rlim_max < FD_LIMIT_WANT) {
		struct rlimit want = { FD_LIMIT_WANT, FD_LIMIT_WANT };

		if (!setrlimit(RLIMIT_NOFILE, &want)) /* root may raise it */
			return;
	}
	setrlimit(RLIMIT_NOFILE, &r);
}

void target_command_status(int status, int by_itself)
{
	const char *name;

	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		log_info("the command exited with status %d",
			 WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		name = sigabbrev_np(WTERMSIG(status));
		log_info("the command was killed by signal %d%s%s%s%s",
			 WTERMSIG(status), name ? " (SIG" : "",
			 name ? name : "", name ? ")" : "",
			 by_itself ? ": exit status 128 + the signal" : "");
	}
}
