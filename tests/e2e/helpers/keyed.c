// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workloads for keyed spans (tests/e2e/test_keyed.sh), each printing its
 * own ground truth as key=value lines on stdout:
 *
 *   e2e-keyed forkexec N     N times: fork, the child execs /bin/true, the
 *                            parent waits.  forks=N, longest_ns: the
 *                            longest fork()-to-waitpid() of them (each
 *                            child's fork-to-exec lies inside its own)
 *   e2e-keyed forkslow N E MS  as forkexec, but every E-th child (index
 *                            i with i % E == E - 1) sleeps MS ms before
 *                            its exec: those fork-to-exec spans are the
 *                            slow ones.  forks=N, pid: the forking
 *                            process, slow=N / E, slow_pids: theirs,
 *                            ascending, comma-separated
 *   e2e-keyed forkexit N MS  N times: fork, the child exits at once (no
 *                            exec), the parent waits; then it sleeps MS
 *                            ms.  forks=N
 *   e2e-keyed pingpong N     two threads on one CPU (CPU 0) pass a byte
 *                            over two pipes N round trips; a thread that
 *                            finds its pipe empty sleeps in read, and the
 *                            other's write wakes it (once or twice a trip:
 *                            a woken reader that preempts the writer
 *                            finds the next byte there).  trips=N,
 *                            sleeps: the two threads' voluntary context
 *                            switches in the loop (getrusage(2)
 *                            RUSAGE_THREAD ru_nvcsw), each one ended by a
 *                            wakeup from the other; longest_ns: the
 *                            longest round trip; elapsed_ns: from before
 *                            the threads to after the join (every
 *                            wakeup-to-run lies inside it; the join's
 *                            wakeup lies in no round trip)
 *   e2e-keyed odirect DEV N  N O_DIRECT 4 KiB pwrite()s at consecutive
 *                            offsets of block device DEV, one at a time.
 *                            writes=N, longest_ns and total_ns of them
 *                            (each one's request lies inside its call)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int forkexec(int n)
{
	uint64_t t0, d, longest = 0;
	int i, st;
	pid_t p;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (!p) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "child %d failed\n", (int)p);
			return 1;
		}
		d = now_ns() - t0;
		if (d > longest)
			longest = d;
	}
	printf("forks=%d\nlongest_ns=%llu\n", n, (unsigned long long)longest);
	return 0;
}

static int forkslow(int n, int every, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	int i, st, nslow = 0;
	pid_t p;

	printf("forks=%d\npid=%d\nslow_pids=", n, (int)getpid());
	fflush(stdout);
	for (i = 0; i < n; i++) {
		p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (!p) {
			if (i % every == every - 1)
				nanosleep(&ts, NULL);
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (i % every == every - 1)
			printf("%s%d", nslow++ ? "," : "", (int)p);
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "child %d failed\n", (int)p);
			return 1;
		}
	}
	printf("\nslow=%d\n", nslow);
	return 0;
}

static int forkexit(int n, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	int i, st;
	pid_t p;

	for (i = 0; i < n; i++) {
		p = fork();
		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (!p)
			_exit(0);
		waitpid(p, &st, 0);
	}
	nanosleep(&ts, NULL);
	printf("forks=%d\n", n);
	return 0;
}

static int ab[2], ba[2], trips;
static long echo_sleeps;

static long nvcsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

static void pin0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *echo(void *arg)
{
	long v0;
	char c;
	int i;

	(void)arg;
	pin0();
	v0 = nvcsw();
	for (i = 0; i < trips; i++) {
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			break;
	}
	echo_sleeps = nvcsw() - v0;
	return NULL;
}

static int pingpong(int n)
{
	uint64_t t0, d, longest = 0;
	pthread_t th;
	char c = 'x';
	long v0;
	int i;

	uint64_t start = now_ns();

	trips = n;
	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	pin0();
	if (pthread_create(&th, NULL, echo, NULL))
		return 1;
	v0 = nvcsw();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("pipe");
			return 1;
		}
		d = now_ns() - t0;
		if (d > longest)
			longest = d;
	}
	v0 = nvcsw() - v0;
	pthread_join(th, NULL);
	printf("trips=%d\nsleeps=%ld\nlongest_ns=%llu\nelapsed_ns=%llu\n", n,
	       v0 + echo_sleeps, (unsigned long long)longest,
	       (unsigned long long)(now_ns() - start));
	return 0;
}

static int odirect(const char *dev, int n)
{
	uint64_t t0, d, longest = 0, total = 0;
	void *buf;
	int fd, i;

	fd = open(dev, O_WRONLY | O_DIRECT | O_SYNC);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	if (posix_memalign(&buf, 4096, 4096))
		return 1;
	memset(buf, 0xa5, 4096);
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096) {
			perror("pwrite");
			return 1;
		}
		d = now_ns() - t0;
		total += d;
		if (d > longest)
			longest = d;
	}
	close(fd);
	free(buf);
	printf("writes=%d\nlongest_ns=%llu\ntotal_ns=%llu\n", n,
	       (unsigned long long)longest, (unsigned long long)total);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "forkexec"))
		return forkexec(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "pingpong"))
		return pingpong(atoi(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "forkslow") && atoi(argv[3]) > 0)
		return forkslow(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "forkexit"))
		return forkexit(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "odirect"))
		return odirect(argv[2], atoi(argv[3]));
	fprintf(stderr,
		"usage: %s forkexec N | forkslow N E MS | forkexit N MS | pingpong N | odirect DEV N\n", argv[0]);
	return 2;
}
