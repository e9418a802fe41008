// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "kernel/tracefs.h"

static int has_events(const char *dir)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/events", dir);
	return access(p, F_OK) == 0;
}

const char *tracefs_dir(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	unsigned i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (has_events(dirs[i]))
			return dirs[i];
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL) == 0 &&
	    has_events(dirs[0]))
		return dirs[0];
	if (!errno)
		errno = ENOENT;
	return NULL;
}

char *tracefs_kprobe_name(char *buf, const char *suffix)
{
	static unsigned int token;
	struct timespec ts;

	if (!token) {
		/* the PID alone is not unique across PID namespaces */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		token = ((unsigned int)ts.tv_nsec ^ (unsigned int)getpid() << 16) &
			0xffffff;
		token |= token ? 0 : 1;
	}
	snprintf(buf, TRACEFS_EVENT_NAME, "iprof%d_%06x_%s", (int)getpid(),
		 token, suffix);
	return buf;
}

static int kprobe_events_path(char *p, size_t len, const char *file)
{
	const char *dir = tracefs_dir();

	if (!dir)
		return -errno;
	snprintf(p, len, "%s/%s", dir, file);
	return 0;
}

int tracefs_kprobe_ok(void)
{
	char p[256];

	return !kprobe_events_path(p, sizeof(p), "kprobe_events") &&
	       access(p, W_OK) == 0;
}

/* Write one command line to kprobe_events (O_APPEND: add, not replace). */
static int kprobe_events_write(const char *cmd)
{
	char p[256];
	ssize_t n;
	int fd, err;

	err = kprobe_events_path(p, sizeof(p), "kprobe_events");
	if (err)
		return err;
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	err = n < 0 ? -errno : (size_t)n != strlen(cmd) ? -EIO : 0;
	close(fd);
	return err;
}

int tracefs_kprobe_add(const char *name, const char *func, int ret,
		       unsigned int maxactive)
{
	char cmd[1024], p[256], buf[32];
	int err, fd, id;
	ssize_t n;

	if (maxactive > TRACEFS_MAXACTIVE_MAX || strlen(func) > KSYM_NAME_MAX)
		return -EINVAL;
	if (!ret)
		snprintf(cmd, sizeof(cmd), "p:iprof/%s %s\n", name, func);
	else if (maxactive)
		snprintf(cmd, sizeof(cmd), "r%u:iprof/%s %s\n", maxactive, name,
			 func);
	else
		snprintf(cmd, sizeof(cmd), "r:iprof/%s %s\n", name, func);
	err = kprobe_events_write(cmd);
	if (err)
		return err;
	err = kprobe_events_path(p, sizeof(p), "events/iprof/");
	if (err)
		goto del;
	strncat(p, name, sizeof(p) - strlen(p) - 1);
	strncat(p, "/id", sizeof(p) - strlen(p) - 1);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto del;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		goto del;
	buf[n > 0 ? n : 0] = '\0';
	id = atoi(buf);
	if (id <= 0) {
		err = -EINVAL;
		goto del;
	}
	return id;
del:
	tracefs_kprobe_del(name);
	return err;
}

int tracefs_kprobe_del(const char *name)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "-:iprof/%s\n", name);
	return kprobe_events_write(cmd);
}

int tracefs_kprobe_profile(const char *name, unsigned long long *hits,
			   unsigned long long *misses)
{
	char p[256], line[512], ev[256];
	unsigned long long h, m;
	FILE *f;
	int err;

	err = kprobe_events_path(p, sizeof(p), "kprobe_profile");
	if (err)
		return err;
	f = fopen(p, "re");
	if (!f)
		return -errno;
	err = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %llu %llu", ev, &h, &m) != 3 ||
		    strcmp(ev, name))
			continue;
		*hits = h;
		*misses = m;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

void tracefs_kprobe_gc(void)
{
	char p[256], line[1024], ev[TRACEFS_EVENT_NAME], (*dead)[TRACEFS_EVENT_NAME] = NULL;
	size_t n = 0, i;
	void *v;
	FILE *f;
	int pid;

	if (kprobe_events_path(p, sizeof(p), "kprobe_events"))
		return;
	f = fopen(p, "re");
	if (!f)
		return;
	/* lines: "r256:iprof/iprof123_0a1b2c_4r vfs_read"; collect first:
	 * removing while reading the file would skip lines */
	while (fgets(line, sizeof(line), f)) {
		char *s = strstr(line, ":iprof/iprof");

		if (!s || sscanf(s, ":iprof/%47s", ev) != 1 ||
		    sscanf(ev, "iprof%d_", &pid) != 1 || pid <= 0 ||
		    pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		v = realloc(dead, (n + 1) * sizeof(*dead));
		if (!v)
			break;
		dead = v;
		snprintf(dead[n++], sizeof(*dead), "%s", ev);
	}
	fclose(f);
	for (i = 0; i < n; i++)
		tracefs_kprobe_del(dead[i]); /* EBUSY: still in use */
	free(dead);
}
