// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process that forks with user function frames open, with its own truth
 * (tests/e2e/test_fork.sh):
 *
 *   e2e-forker fork       main() calls fork(); parent and child each call
 *                         a() > b() > c() and return from main (the parent
 *                         after the child has exited)
 *   e2e-forker server K   main() > serve() forks K children, one at a time,
 *                         as an accept loop would; each child calls
 *                         handle() > a() > b() > c() and exits inside
 *                         serve() (exit(0), main and serve never return
 *                         in it); the parent returns from serve and main
 *   e2e-forker vfork      main() calls vfork(); the child _exit()s at once
 *                         (its inherited main never returns), the parent
 *                         calls a() > b() > c() and returns from main
 *   e2e-forker spawn      main() posix_spawnp()s true (glibc's child
 *                         runs on a stack of its own: main's frame is not
 *                         its), then calls a() > b() > c(); returns
 *
 * Prints key=value: the calls that returned of each function, over every
 * process (main, serve, handle, a, b, c), and what never returned:
 * main.exited, serve.exited (frames open in a child that exited).
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile int sink;

__attribute__((noinline)) int c(void)
{
	return sink++;
}

__attribute__((noinline)) int b(void)
{
	return c() + 1;
}

__attribute__((noinline)) int a(void)
{
	return b() + 1;
}

__attribute__((noinline)) int handle(void)
{
	return a() + 1;
}

/* the child's status, 0 when it exited 0 */
static int reap(pid_t pid)
{
	int st = 0;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

__attribute__((noinline)) int serve(int k)
{
	int i, bad = 0;
	pid_t pid;

	for (i = 0; i < k; i++) {
		pid = fork();
		if (pid == 0) {
			handle();
			exit(0);
		}
		bad |= reap(pid);
	}
	return bad;
}

static int by_fork(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		a();
		return 0;
	}
	if (reap(pid))
		return 1;
	a();
	printf("main=2\na=2\nb=2\nc=2\nmain.exited=0\n");
	return 0;
}

static int by_server(int k)
{
	if (serve(k))
		return 1;
	printf("main=1\nserve=1\nhandle=%d\na=%d\nb=%d\nc=%d\n", k, k, k, k);
	printf("main.exited=%d\nserve.exited=%d\n", k, k);
	return 0;
}

static int by_vfork(void)
{
	pid_t pid = vfork();

	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(0);
	if (reap(pid))
		return 1;
	a();
	printf("main=1\na=1\nb=1\nc=1\nmain.exited=1\n");
	return 0;
}

static int by_spawn(void)
{
	char *argv[] = { "true", NULL };
	pid_t pid;

	if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ) || reap(pid))
		return 1;
	a();
	printf("main=1\na=1\nb=1\nc=1\nmain.exited=0\nmain.execed=0\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "fork";
	int rc = 2;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "fork"))
		rc = by_fork();
	else if (!strcmp(m, "server"))
		rc = by_server(argc > 2 ? atoi(argv[2]) : 3);
	else if (!strcmp(m, "vfork"))
		rc = by_vfork();
	else if (!strcmp(m, "spawn"))
		rc = by_spawn();
	return rc;
}
