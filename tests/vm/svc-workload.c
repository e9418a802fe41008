/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * svc-workload - the ground truth of tests/vm/systemd.sh: exact numbers of
 * the system calls that probes.d/syscalls.conf (packaging/etc/) times,
 * read(2), write(2) and ppoll(2), in a one-shot run or in a daemon.
 *
 *   svc-workload calls READS WRITES PPOLLS
 *	READS 1-byte read()s of /dev/zero, WRITES 1-byte write()s to
 *	/dev/null, PPOLLS ppoll()s of nothing with a zero timeout; then
 *	prints "pid=N reads=R writes=W ppolls=P" and exits 0.
 *   svc-workload daemon STARTUP_WRITES READS
 *	a daemon (run as a systemd service): STARTUP_WRITES write()s to
 *	/dev/null at once, then READS read()s of /dev/zero at each SIGUSR1,
 *	until SIGTERM (exit 0).  It prints "pid=N started" and, after each
 *	batch, "pid=N batch=K reads=R"; under systemd (Type=notify) it says
 *	READY=1 once it takes SIGUSR1.
 *
 * Linked statically, it makes no other read(), write() or ppoll() calls:
 * no dynamic loader reads the libraries, and its lines go out with one
 * writev(2) each, which the probe file does not time.
 *
 * Exit status: 0 success, 1 a call failed, 2 usage error.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* one line on stdout (fd 1) by one writev(2): no write(2) to count */
static void say(const char *fmt, ...)
{
	char line[256];
	struct iovec iov;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	iov.iov_base = line;
	iov.iov_len = (size_t)n;
	if (writev(1, &iov, 1) < 0)
		_exit(1);
}

/* sd_notify(3)'s READY=1 to $NOTIFY_SOCKET, if set (sendto(2): no write) */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    strlen(path) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa, len) < 0)
		perror("svc-workload: sd_notify");
	close(fd);
}

static int count_arg(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 10);
	return *s && !*end && *v <= 100000000ul;
}

/* a user function for a uprobe: one call per batch of the daemon */
__attribute__((noinline, used)) int do_reads(int fd, unsigned long n)
{
	char c;

	for (unsigned long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			return -1;
	return 0;
}

static int do_writes(int fd, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return -1;
	return 0;
}

static int do_ppolls(unsigned long n)
{
	struct timespec zero = { 0, 0 };

	for (unsigned long i = 0; i < n; i++)
		if (ppoll(NULL, 0, &zero, NULL) < 0)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long a, b, c = 0;
	int zero, null;

	int calls = argc == 5 && !strcmp(argv[1], "calls") &&
		    count_arg(argv[2], &a) && count_arg(argv[3], &b) &&
		    count_arg(argv[4], &c);
	int daemon = argc == 4 && !strcmp(argv[1], "daemon") &&
		     count_arg(argv[2], &a) && count_arg(argv[3], &b);

	if (!calls && !daemon) {
		fprintf(stderr,
			"usage: %s calls READS WRITES PPOLLS | daemon STARTUP_WRITES READS\n",
			argv[0]);
		return 2;
	}
	zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (zero < 0 || null < 0) {
		perror("svc-workload: open");
		return 1;
	}
	if (calls) {
		if (do_reads(zero, a) || do_writes(null, b) || do_ppolls(c)) {
			perror("svc-workload");
			return 1;
		}
		say("pid=%d reads=%lu writes=%lu ppolls=%lu", (int)getpid(), a,
		    b, c);
		return 0;
	}
	/* the daemon: signals taken synchronously, by sigwaitinfo(2) */
	sigset_t set;
	unsigned long batch = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (do_writes(null, a)) {
		perror("svc-workload: write");
		return 1;
	}
	say("pid=%d started startup_writes=%lu", (int)getpid(), a);
	notify_ready();
	for (;;) {
		int sig = sigwaitinfo(&set, NULL);

		if (sig < 0)
			continue;
		if (sig != SIGUSR1)
			break;
		if (do_reads(zero, b)) {
			perror("svc-workload: read");
			return 1;
		}
		say("pid=%d batch=%lu reads=%lu", (int)getpid(), ++batch, b);
	}
	say("pid=%d stopping after %lu batches", (int)getpid(), batch);
	return 0;
}
