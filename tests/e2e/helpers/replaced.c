// SPDX-License-Identifier: GPL-2.0-only
/*
 * replaced.c - a program that waits, then calls f() N times, for a test
 * whose binary is replaced on disk while it runs (tests/e2e/test_file.sh).
 * It opens FIFO for reading (blocking until a writer comes), reads one
 * byte, calls f() N times, and prints its ground truth f.count=N.
 *
 * usage: e2e-replaced N FIFO   (with FIFO "-": no wait)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline, used)) void f(void)
{
	for (int i = 0; i < 100; i++)
		sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, fd, i;
	char c;

	if (argc > 2 && strcmp(argv[2], "-")) {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, &c, 1) != 1) {
			perror(argv[2]);
			return 1;
		}
		close(fd);
	}
	for (i = 0; i < n; i++)
		f();
	printf("f.count=%d\n", n);
	return 0;
}
