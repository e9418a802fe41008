/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_scale: the threaded workloads and floors of bench/scale.sh
 * (bench/README.md, "Scaling").
 *
 * usage: bench_scale MODE WORKLOAD N THREADS
 *
 * THREADS threads, thread i pinned to the i-th CPU this process may use
 * (round robin), each run WORKLOAD N times, all starting together:
 *   getppid  syscall(SYS_getppid): one sys_enter + one sys_exit event
 *   ucall    a call of bench_target() (bench/target.h, `push %rbp`): one
 *            uprobe + one uretprobe event
 * MODE says what is attached meanwhile (to every process, as iprof does):
 *   loop     nothing: the baseline, and what iprof runs
 *   empty    bench/empty.bpf.c's programs, which only return 0
 *   shared   bench/floor.bpf.c: a 24-byte record per event into one ring
 *            buffer shared by every CPU
 *   percpu   the same into the ring of the CPU the event runs on
 * With shared and percpu a reader thread (not pinned) drains the rings
 * every millisecond.  Ring size: BENCH_RB_SIZE bytes per ring (default
 * 4 MiB; the shared ring gets that times the number of CPUs).
 *
 * Output, one line on stdout:
 *   mode=M workload=W threads=T n=N calls=T*N ns_per_call=X events_per_s=E
 *   records=R drops=D
 * ns_per_call is the mean over the threads of each thread's loop time / N
 * (CLOCK_MONOTONIC); events_per_s = 2 * T * N / the longest thread's time.
 * Exit status 0, 1 on a BPF or thread error, 2 on a usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "empty.skel.h"
#include "floor.skel.h"
#include "target.h"

#define MAX_LINKS 2

enum mode { M_LOOP, M_EMPTY, M_SHARED, M_PERCPU };
static const char *const mode_names[] = { "loop", "empty", "shared",
					   "percpu" };

struct worker {
	pthread_t th;
	int cpu;
	uint64_t ns;
};

static int getppid_workload;
static long n_iter;
static pthread_barrier_t start_barrier;
static volatile int reader_stop;
static struct ring_buffer *rb;
static uint64_t records;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	uint64_t t0;
	long i;
	int x = 0;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(&start_barrier);
	t0 = now_ns();
	if (getppid_workload)
		for (i = 0; i < n_iter; i++)
			syscall(SYS_getppid);
	else
		for (i = 0; i < n_iter; i++)
			x = bench_target(x);
	w->ns = now_ns() - t0;
	return NULL;
}

static int on_rec(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	records++;
	return 0;
}

static void *reader(void *arg)
{
	(void)arg;
	while (!reader_stop) {
		ring_buffer__consume(rb);
		usleep(1000);
	}
	ring_buffer__consume(rb);
	return NULL;
}

static struct bpf_link *attach(struct bpf_program *p, int ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	char exe[4096];
	ssize_t len;

	if (getppid_workload)
		return bpf_program__attach_tracepoint(
			p, "syscalls", ret ? "sys_exit_getppid" : "sys_enter_getppid");
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return NULL;
	exe[len] = '\0';
	uo.func_name = "bench_target";
	uo.retprobe = ret;
	return bpf_program__attach_uprobe_opts(p, -1, exe, 0, &uo);
}

int main(int argc, char **argv)
{
	struct bpf_program *progs[MAX_LINKS] = { 0 };
	struct bpf_link *links[MAX_LINKS] = { 0 };
	struct empty_bpf *empty = NULL;
	struct floor_bpf *floor = NULL;
	unsigned long rb_size = 4ul << 20;
	int ncpu = libbpf_num_possible_cpus(), *fds = NULL, nthreads, i, k;
	int cpus[CPU_SETSIZE], nallowed = 0, ret = 1, zero = 0;
	struct worker *ws = NULL;
	uint64_t sum = 0, longest = 0, drops = 0, *pd = NULL;
	pthread_t rd;
	int reader_started = 0;
	enum mode m;
	cpu_set_t set;
	char *end;

	if (argc != 5)
		goto usage;
	for (k = 0; k < 4 && strcmp(argv[1], mode_names[k]); k++)
		;
	if (k == 4)
		goto usage;
	m = (enum mode)k;
	if (!strcmp(argv[2], "getppid"))
		getppid_workload = 1;
	else if (strcmp(argv[2], "ucall"))
		goto usage;
	n_iter = strtol(argv[3], &end, 10);
	if (*end || n_iter <= 0)
		goto usage;
	nthreads = (int)strtol(argv[4], &end, 10);
	if (*end || nthreads <= 0 || nthreads > 4096)
		goto usage;
	if (getenv("BENCH_RB_SIZE"))
		rb_size = strtoul(getenv("BENCH_RB_SIZE"), NULL, 0);
	sched_getaffinity(0, sizeof(set), &set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpus[nallowed++] = i;

	if (m == M_EMPTY) {
		empty = empty_bpf__open();
		if (!empty)
			goto bpf_fail;
		bpf_object__for_each_program(progs[0], empty->obj)
			bpf_program__set_autoload(progs[0], false);
		progs[0] = getppid_workload ? empty->progs.tp_empty
					    : empty->progs.uprobe_empty;
		progs[1] = getppid_workload ? empty->progs.tp_empty
					    : empty->progs.uretprobe_empty;
		bpf_program__set_autoload(progs[0], true);
		bpf_program__set_autoload(progs[1], true);
		if (empty_bpf__load(empty))
			goto bpf_fail;
	} else if (m != M_LOOP) {
		floor = floor_bpf__open();
		if (!floor || ncpu <= 0)
			goto bpf_fail;
		bpf_map__set_max_entries(floor->maps.shared_rb,
					 (__u32)(rb_size * (unsigned long)ncpu));
		bpf_map__set_max_entries(floor->maps.rings, (__u32)ncpu);
		fds = calloc((size_t)ncpu, sizeof(*fds));
		if (!fds)
			goto bpf_fail;
		for (i = 0; i < ncpu; i++) {
			fds[i] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "floor_rb",
						0, 0, (__u32)rb_size, NULL);
			if (fds[i] < 0)
				goto bpf_fail;
		}
		bpf_map__set_inner_map_fd(floor->maps.rings, fds[0]);
		if (floor_bpf__load(floor))
			goto bpf_fail;
		for (i = 0; i < ncpu; i++)
			if (bpf_map_update_elem(bpf_map__fd(floor->maps.rings),
						&i, &fds[i], BPF_ANY))
				goto bpf_fail;
		if (m == M_SHARED) {
			progs[0] = progs[1] = getppid_workload ?
						      floor->progs.tp_shared :
						      floor->progs.up_shared;
			rb = ring_buffer__new(bpf_map__fd(floor->maps.shared_rb),
					      on_rec, NULL, NULL);
		} else {
			progs[0] = progs[1] = getppid_workload ?
						      floor->progs.tp_percpu :
						      floor->progs.up_percpu;
			rb = ring_buffer__new(fds[0], on_rec, NULL, NULL);
			for (i = 1; rb && i < ncpu; i++)
				if (ring_buffer__add(rb, fds[i], on_rec, NULL))
					goto bpf_fail;
		}
		if (!rb)
			goto bpf_fail;
	}
	for (i = 0; i < MAX_LINKS && progs[i]; i++) {
		links[i] = attach(progs[i], i);
		if (!links[i])
			goto bpf_fail;
	}
	if (rb) {
		if (pthread_create(&rd, NULL, reader, NULL))
			goto out;
		reader_started = 1;
	}

	ws = calloc((size_t)nthreads, sizeof(*ws));
	if (!ws || pthread_barrier_init(&start_barrier, NULL,
					(unsigned int)nthreads))
		goto out;
	for (i = 0; i < nthreads; i++) {
		ws[i].cpu = cpus[i % nallowed];
		if (pthread_create(&ws[i].th, NULL, worker, &ws[i]))
			goto out;
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(ws[i].th, NULL);
		sum += ws[i].ns;
		if (ws[i].ns > longest)
			longest = ws[i].ns;
	}
	if (reader_started) {
		reader_stop = 1;
		pthread_join(rd, NULL);
		reader_started = 0;
	}
	if (floor) {
		pd = calloc((size_t)ncpu, sizeof(*pd));
		if (pd && !bpf_map_lookup_elem(bpf_map__fd(floor->maps.drops),
					       &zero, pd))
			for (i = 0; i < ncpu; i++)
				drops += pd[i];
	}
	printf("mode=%s workload=%s threads=%d n=%ld calls=%ld ns_per_call=%.1f events_per_s=%.0f records=%llu drops=%llu\n",
	       mode_names[m], argv[2], nthreads, n_iter, n_iter * nthreads,
	       (double)sum / nthreads / (double)n_iter,
	       2.0 * (double)n_iter * nthreads * 1e9 / (double)longest,
	       (unsigned long long)records, (unsigned long long)drops);
	ret = 0;
	goto out;
bpf_fail:
	fprintf(stderr, "bench_scale: BPF setup failed: %s\n", strerror(errno));
out:
	if (reader_started) {
		reader_stop = 1;
		pthread_join(rd, NULL);
	}
	for (i = 0; i < MAX_LINKS; i++)
		bpf_link__destroy(links[i]);
	ring_buffer__free(rb);
	for (i = 0; fds && i < ncpu; i++)
		if (fds[i] > 0)
			close(fds[i]);
	free(fds);
	free(pd);
	free(ws);
	empty_bpf__destroy(empty);
	floor_bpf__destroy(floor);
	return ret;
usage:
	fprintf(stderr, "usage: bench_scale loop|empty|shared|percpu getppid|ucall N THREADS\n");
	return 2;
}
