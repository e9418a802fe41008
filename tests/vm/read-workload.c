/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * read-workload - a workload with exact ground truth for kernel-function
 * timers (fentry:vfs_read, kprobe:vfs_read): read(2) calls of known sizes.
 *
 *   vm-read-workload FILE COUNT:SIZE [COUNT:SIZE...]
 *
 * For each COUNT:SIZE group, one call of read_group() does COUNT read()s of
 * SIZE bytes of FILE (rewinding at end of file; each read() is one
 * vfs_read() call whose count argument, arg2, is SIZE).  Linked statically,
 * the program makes no other read() calls.  Prints key=value lines on
 * stdout: reads=TOTAL, groups=N, reads.SIZE=COUNT (summed per size).
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_GROUPS 16
#define MAX_SIZE 65536

static char buf[MAX_SIZE];

/* One traced function per group: uprobe:...:read_group nests vfs_read. */
__attribute__((noinline, used)) long read_group(int fd, unsigned long count,
						 unsigned long size)
{
	unsigned long i;
	long n = 0;

	for (i = 0; i < count; i++) {
		ssize_t r = read(fd, buf, size);

		if (r < 0)
			return -1;
		if ((size_t)r < size && lseek(fd, 0, SEEK_SET) < 0)
			return -1;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long count[MAX_GROUPS], size[MAX_GROUPS], total = 0;
	int fd, i, j, ngroups = argc - 2;

	if (argc < 3 || ngroups > MAX_GROUPS) {
		fprintf(stderr, "usage: %s FILE COUNT:SIZE [COUNT:SIZE...]\n",
			argv[0]);
		return 2;
	}
	for (i = 0; i < ngroups; i++) {
		char *end;

		count[i] = strtoul(argv[i + 2], &end, 10);
		if (*end != ':') {
			fprintf(stderr, "bad group '%s'\n", argv[i + 2]);
			return 2;
		}
		size[i] = strtoul(end + 1, &end, 10);
		if (*end || size[i] == 0 || size[i] > MAX_SIZE) {
			fprintf(stderr, "bad group '%s'\n", argv[i + 2]);
			return 2;
		}
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < ngroups; i++) {
		if (read_group(fd, count[i], size[i]) != (long)count[i]) {
			fprintf(stderr, "read %s: %s\n", argv[1],
				strerror(errno));
			return 1;
		}
		total += count[i];
	}
	close(fd);
	printf("reads=%lu\ngroups=%d\n", total, ngroups);
	for (i = 0; i < ngroups; i++) {
		unsigned long sum = 0;

		for (j = 0; j < i && size[j] != size[i]; j++)
			;
		if (j < i)
			continue; /* this size is printed already */
		for (j = i; j < ngroups; j++)
			if (size[j] == size[i])
				sum += count[j];
		printf("reads.%lu=%lu\n", size[i], sum);
	}
	return 0;
}
