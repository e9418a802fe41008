// SPDX-License-Identifier: GPL-2.0-only
/*
 * latert.c - a runtime that unwinds, mapped by a traced process after its
 * timers got uretprobes (cli/latert.h).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "iprof/unwind.h"
#include "cli/latert.h"
#include "cli/log.h"

static int seen(struct latert *lr, pid_t pid, const char *path);

/* the executable files @pid maps now, taken as seen; -1 out of memory */
static int seed(struct latert *lr, pid_t pid)
{
	char maps[64], line[PATH_MAX + 128], *f;
	FILE *m;
	int r = 0;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	m = fopen(maps, "re");
	while (m && r >= 0 && fgets(line, sizeof(line), m)) {
		f = strchr(line, '/');
		if (!f || !strstr(line, " r-xp "))
			continue;
		f[strcspn(f, "\n")] = '\0';
		r = seen(lr, pid, f);
	}
	if (m)
		fclose(m);
	return r < 0 ? -1 : 0;
}

void latert_init(struct latert *lr, const struct plan *plan, const int *pids,
		 int npids)
{
	size_t i;
	int k;

	memset(lr, 0, sizeof(*lr));
	for (i = 0; i < plan->ntimers && !lr->timer; i++) {
		const struct plan_timer *t = &plan->timers[i];

		if (!t->error && !t->ret_unsafe && t->ret_why &&
		    !t->ret_sites && !t->ret_entry)
			lr->timer = t;
	}
	for (i = 0; lr->timer && i < plan->natt && !lr->path; i++)
		if (plan->att[i].mech == MECH_URETPROBE &&
		    &plan->timers[plan->att[i].timer] == lr->timer)
			lr->path = plan->att[i].path;
	for (k = 0; lr->timer && k < npids; k++)
		if (seed(lr, pids[k]))
			break;
}

/* 1 if "@pid @path" was seen (else it is now), -1 out of memory */
static int seen(struct latert *lr, pid_t pid, const char *path)
{
	char key[PATH_MAX + 32], **s;
	size_t i;

	snprintf(key, sizeof(key), "%d %s", (int)pid, path);
	for (i = 0; i < lr->n; i++)
		if (!strcmp(lr->seen[i], key))
			return 1;
	s = realloc(lr->seen, (lr->n + 1) * sizeof(*s));
	if (!s)
		return -1;
	lr->seen = s;
	if (!(s[lr->n] = strdup(key)))
		return -1;
	lr->n++;
	return 0;
}

/* the command name of @pid, "?" when gone */
static void comm_of(pid_t pid, char *buf, size_t len)
{
	char p[64];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	snprintf(buf, len, "?");
	f = fopen(p, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void latert_check(struct latert *lr, pid_t pid)
{
	char maps[64], line[PATH_MAX + 128], why[PATH_MAX + 128], comm[32];
	char *f;
	FILE *m;
	int r;

	if (!lr->timer || pid <= 0)
		return;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	m = fopen(maps, "re");
	if (!m)
		return;
	while (fgets(line, sizeof(line), m)) {
		f = strchr(line, '/');
		if (!f || !strstr(line, " r-xp "))
			continue;
		f[strcspn(f, "\n")] = '\0';
		r = seen(lr, pid, f);
		if (r < 0)
			break;
		/* the plan judged the timer's file's closure */
		if (r || (lr->path && unwind_loads(lr->path, f) == 1))
			continue;
		r = unwind_runtime(f, why, sizeof(why));
		if (r <= 0 || (r == UNWIND_SWITCH_LIB && lr->timer->ret_session))
			continue;
		comm_of(pid, comm, sizeof(comm));
		if (r == UNWIND_SWITCH_LIB)
			log_warn("process %d (%s) mapped %s after %s got a uretprobe: %s; a call of %s left open across a stack switch (a coroutine) meets its uretprobe's trampoline on the other stack and kills the process",
				 (int)pid, comm, f, lr->timer->name, why,
				 lr->timer->name);
		else
			log_warn("process %d (%s) mapped %s after %s got a uretprobe: %s; a C++ exception, Rust panic or Go unwind through %s meets its uretprobe's trampoline and kills the process",
				 (int)pid, comm, f, lr->timer->name, why,
				 lr->timer->name);
	}
	fclose(m);
}

void latert_killed(const struct latert *lr, pid_t pid, int wstatus)
{
	int sig;

	if (!lr->timer || !WIFSIGNALED(wstatus))
		return;
	sig = WTERMSIG(wstatus);
	if (sig != SIGABRT && sig != SIGSEGV && sig != SIGILL && sig != SIGBUS)
		return;
	log_warn(
		"the command (process %d) was killed by SIG%s while %s had a "
		"uretprobe: a C++ exception, Rust panic or Go unwind through "
		"it (from a library loaded at run time) meeting its trampoline "
		"ends a program so; --returns sites times it without that risk",
		(int)pid, sigabbrev_np(sig), lr->timer->name);
}

void latert_free(struct latert *lr)
{
	size_t i;

	for (i = 0; i < lr->n; i++)
		free(lr->seen[i]);
	free(lr->seen);
	memset(lr, 0, sizeof(*lr));
}
