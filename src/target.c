// SPDX-License-Identifier: GPL-2.0-only
/*
 * The processes iprof traces: the command it runs (held until every probe
 * is attached), the -p processes and what they forked before, and how the
 * command ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iprof/util.h"
#include "cli.h"

/* descriptors asked for: the kernel's default fs.nr_open, so that root can
 * have it without raising the system's limits */
#define FD_LIMIT_WANT 1048576

/*
 * Fork COMMAND, held before exec until every probe is attached: it waits
 * in sigwaitinfo(2) for SIGUSR1 (start_gated()).  Not in a read(2): a
 * read in flight when tracing begins would show up, as an orphan stop, in
 * any span on read.  If exec fails, the child writes its errno to *@exec_r
 * (close-on-exec, so a successful exec closes it with nothing written).
 */
pid_t target_spawn_gated(char **cmd, int *exec_r)
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
			fprintf(stderr, "iprof: -p %d: no such process%s\n",
				pid,
				p.state == 'Z' ? " (a zombie: it has exited)" :
						 "");
			return -EINVAL;
		}
		if (p.tgid && p.tgid != pid) {
			fprintf(stderr,
				"iprof: -p %d is a thread of process %d: tracing the process\n",
				pid, p.tgid);
			o->pids[i] = pid = p.tgid;
		}
		if (pid == getpid()) {
			fprintf(stderr, "iprof: -p %d is iprof itself\n", pid);
			return -EINVAL;
		}
		if (p.flags & UTIL_PF_KTHREAD)
			fprintf(stderr,
				"iprof: warning: -p %d is a kernel thread: only kernel probes can fire in it\n",
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
	struct { int pid, ppid; } *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
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
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
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
				if (!loader_add_target(l, v[i].pid))
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

/* Print how the command ended (stderr, unless -q). */
void target_command_status(int status)
{
	if (cli_quiet)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "iprof: the command exited with status %d\n",
			WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "iprof: the command was killed by signal %d\n",
			WTERMSIG(status));
}
