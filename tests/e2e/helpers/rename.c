// SPDX-License-Identifier: GPL-2.0-only
/*
 * rename.c - a thread that renames itself between calls, for --by comm
 * (tests/e2e/test_names.sh).  A worker thread names itself alpha
 * (prctl(PR_SET_NAME)), calls work() A times, renames itself beta (prctl,
 * or with --proc a write to /proc/self/task/TID/comm), calls work() B
 * times.  Prints its ground truth: alpha.count=A, beta.count=B.
 *
 * usage: e2e-rename [--proc] [A [B]]   (default 5 7)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int use_proc, na = 5, nb = 7;
static volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
	for (int i = 0; i < 1000; i++)
		sink += (unsigned long)i;
}

static int set_name(const char *name)
{
	char path[64];
	int fd;
	ssize_t n;

	if (!use_proc)
		return prctl(PR_SET_NAME, name, 0, 0, 0);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/comm",
		 (long)syscall(SYS_gettid));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, name, strlen(name));
	close(fd);
	return n == (ssize_t)strlen(name) ? 0 : -1;
}

static void *worker(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_NAME, "alpha", 0, 0, 0))
		exit(1);
	for (int i = 0; i < na; i++)
		work();
	if (set_name("beta")) {
		perror("rename");
		exit(1);
	}
	for (int i = 0; i < nb; i++)
		work();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int i = 1;

	if (i < argc && !strcmp(argv[i], "--proc")) {
		use_proc = 1;
		i++;
	}
	if (i < argc)
		na = atoi(argv[i++]);
	if (i < argc)
		nb = atoi(argv[i++]);
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	printf("alpha.count=%d\nbeta.count=%d\n", na, nb);
	return 0;
}
