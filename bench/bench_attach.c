/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_attach: the floor of bench/attach.sh (bench/README.md, "Attach and
 * release"): N empty BPF programs (bench/empty.bpf.c) attached the plain
 * way, one BPF link per probe, then released, both timed.
 *
 * usage: bench_attach tp N          N syscall tracepoints: sys_enter_* and
 *                                   sys_exit_* in tracefs order, a
 *                                   perf-event tracepoint link each
 *        bench_attach uprobe N BIN GLOB
 *                                   the first N functions of BIN matching
 *                                   GLOB (in nm(1)'s order), a uprobe and
 *                                   a uretprobe link each
 *
 * Output, one line on stdout: kind=K n=N links=L attach_ms=A detach_ms=D.
 * Exit status 0, 1 on a BPF error, 2 on a usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "empty.skel.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Up to @max names of the syscall tracepoints, sorted; returns the count. */
static int syscall_events(char **v, int max)
{
	const char *dirs[] = { "/sys/kernel/tracing/events/syscalls",
			       "/sys/kernel/debug/tracing/events/syscalls" };
	struct dirent *d;
	DIR *dir = NULL;
	int n = 0;
	size_t i;

	for (i = 0; i < 2 && !dir; i++)
		dir = opendir(dirs[i]);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < 4096)
		if (!strncmp(d->d_name, "sys_e", 5))
			v[n++] = strdup(d->d_name);
	closedir(dir);
	qsort(v, (size_t)n, sizeof(*v), cmp_str);
	return n < max ? n : max;
}

/* Up to @max names of @bin's functions matching @glob, from nm(1);
 * returns the count, or -1. */
static int functions(const char *bin, const char *glob, char **v, int max)
{
	char cmd[4200], name[512], type;
	unsigned long long addr;
	FILE *f;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", bin);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < max && fscanf(f, "%llx %c %511s", &addr, &type, name) == 3)
		if ((type == 'T' || type == 't') && !fnmatch(glob, name, 0))
			v[n++] = strdup(name);
	pclose(f);
	return n;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	struct bpf_link **links;
	struct bpf_program *p;
	struct empty_bpf *e;
	char **names;
	int n, i, k = 0, uprobe, ret = 1;
	uint64_t t0, t1, t2;

	if (argc < 3 || (strcmp(argv[1], "tp") && strcmp(argv[1], "uprobe")) ||
	    (!strcmp(argv[1], "uprobe") && argc != 5)) {
		fprintf(stderr, "usage: bench_attach tp N | bench_attach uprobe N BIN GLOB\n");
		return 2;
	}
	uprobe = !strcmp(argv[1], "uprobe");
	n = atoi(argv[2]);
	if (n <= 0 || n > 4096)
		return 2;
	names = calloc(4096, sizeof(*names));
	links = calloc((size_t)n * 2, sizeof(*links));
	e = empty_bpf__open();
	if (!names || !links || !e)
		return 1;
	bpf_object__for_each_program(p, e->obj)
		bpf_program__set_autoload(p, false);
	bpf_program__set_autoload(uprobe ? e->progs.uprobe_empty : e->progs.tp_empty, true);
	if (uprobe)
		bpf_program__set_autoload(e->progs.uretprobe_empty, true);
	if (empty_bpf__load(e))
		goto out;
	n = uprobe ? functions(argv[3], argv[4], names, n) : syscall_events(names, n);
	if (n <= 0) {
		fprintf(stderr, "bench_attach: nothing to attach to\n");
		goto out;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (uprobe) {
			uo.func_name = names[i];
			uo.retprobe = false;
			links[k++] = bpf_program__attach_uprobe_opts(
				e->progs.uprobe_empty, -1, argv[3], 0, &uo);
			uo.retprobe = true;
			links[k++] = bpf_program__attach_uprobe_opts(
				e->progs.uretprobe_empty, -1, argv[3], 0, &uo);
		} else {
			links[k++] = bpf_program__attach_tracepoint(
				e->progs.tp_empty, "syscalls", names[i]);
		}
		if (!links[k - 1] || (uprobe && !links[k - 2])) {
			fprintf(stderr, "bench_attach: %s: %s\n", names[i],
				strerror(errno));
			goto out;
		}
	}
	t1 = now_ns();
	for (i = 0; i < k; i++)
		bpf_link__destroy(links[i]);
	t2 = now_ns();
	k = 0;
	printf("kind=%s n=%d links=%d attach_ms=%.1f detach_ms=%.1f\n", argv[1],
	       n, uprobe ? 2 * n : n, (double)(t1 - t0) / 1e6,
	       (double)(t2 - t1) / 1e6);
	ret = 0;
out:
	for (i = 0; i < k; i++)
		bpf_link__destroy(links[i]);
	empty_bpf__destroy(e);
	return ret;
}
