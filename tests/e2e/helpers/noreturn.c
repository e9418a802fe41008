// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frames that never return, with their ground truth (key=value lines on
 * stdout; the children's own lines are never printed):
 *
 *   e2e-noreturn kill N   N children each call work() once (it returns),
 *                         then hang(), which pauses until the parent kills
 *                         them (SIGKILL): work=N hang=N (entered, none
 *                         returned) killed=N
 *   e2e-noreturn die N    N children each call work() then die(), which
 *                         calls exit(3): work=N die=N (none returned)
 *                         died=N (children whose status was 3)
 *   e2e-noreturn fork N   fork()s N children that exec /bin/true at once:
 *                         forks=N execs=N (children that exited 0)
 *
 * The parent calls work() once more at the end (work counts it).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void work(void)
{
	sink++;
}

__attribute__((noinline)) void hang(int fd)
{
	char c = 1;

	/* tell the parent we are inside, then wait to be killed */
	if (write(fd, &c, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

__attribute__((noinline, noreturn)) void die(void)
{
	sink++;
	exit(3);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 10, i, st, ok = 0, p[2];
	const char *mode = argc > 1 ? argv[1] : "";
	pid_t *kids;
	char c;

	if (n < 1 || n > 100000 ||
	    (strcmp(mode, "kill") && strcmp(mode, "die") && strcmp(mode, "fork"))) {
		fprintf(stderr, "usage: %s kill|die|fork N\n", argv[0]);
		return 2;
	}
	kids = calloc((size_t)n, sizeof(*kids));
	if (!kids || pipe(p))
		return 1;
	for (i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("fork");
			return 1;
		}
		if (kids[i])
			continue;
		close(p[0]);
		if (!strcmp(mode, "fork")) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		work();
		if (!strcmp(mode, "die"))
			die();
		hang(p[1]);
	}
	close(p[1]);
	if (!strcmp(mode, "kill")) {
		/* every child inside hang() before the kill */
		for (i = 0; i < n; i++)
			if (read(p[0], &c, 1) != 1)
				return 1;
		for (i = 0; i < n; i++)
			kill(kids[i], SIGKILL);
	}
	for (i = 0; i < n; i++) {
		if (waitpid(kids[i], &st, 0) != kids[i])
			return 1;
		if (!strcmp(mode, "kill"))
			ok += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
		else if (!strcmp(mode, "die"))
			ok += WIFEXITED(st) && WEXITSTATUS(st) == 3;
		else
			ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	work();
	if (!strcmp(mode, "kill"))
		printf("work=%d\nhang=%d\nkilled=%d\n", n + 1, n, ok);
	else if (!strcmp(mode, "die"))
		printf("work=%d\ndie=%d\ndied=%d\n", n + 1, n, ok);
	else
		printf("forks=%d\nexecs=%d\n", n, ok);
	free(kids);
	return 0;
}
