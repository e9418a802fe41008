/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * migrate-workload - threads that move between CPUs inside nested
 * functions, with known ground truth, for the per-CPU ring buffers' merge
 * (a thread's records land in the ring of whichever CPU it ran on).
 *
 * T threads each call hop() N times.  hop() calls leg() L times; each
 * leg() first moves the thread to the next CPU of the allowed set
 * (sched_setaffinity to that one CPU: the kernel migrates it before the
 * call returns), then makes C getppid(2) system calls and spins S us.
 * The traced functions have external linkage and are never inlined:
 * their symbols are exactly hop and leg.  Each thread counts its calls,
 * times leg() with CLOCK_MONOTONIC twice and counts how often
 * sched_getcpu() changed from one leg to the next (migrations seen):
 * inside leg() (leg.total_ns, leg.max_ns: from its first statement to its
 * last) and around the call in hop() (leg.outer_total_ns,
 * leg.outer_max_ns: from before the call instruction to after the return).
 * A timer on leg() starts and stops between the two (its probes fire at
 * leg's entry and at its ret), so the pair bounds what a profiler may
 * report for it whatever the probes cost and however often the thread is
 * preempted on the way in or out.  Key=value lines on
 * stdout (tools/README.md); diagnostics on stderr.
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "opt.h"

#define EXIT_USAGE 2
#define NSEC_PER_USEC 1000ull
#define TRACED __attribute__((noinline, used))

struct worker {
	pthread_t thread;
	int id;
	int cpu_pos; /* index into cpus[] of the next CPU to move to */
	uint64_t hop_count, leg_count, getppid_count, migrations;
	uint64_t leg_max_ns, leg_ns; /* timed inside leg() */
	uint64_t outer_max_ns, outer_ns; /* timed around the call, in hop() */
	int last_cpu;
	int failed;
};

static unsigned long n_iter = 100, n_legs = 4, n_threads = 2, spin_us = 20;
static unsigned long n_calls = 1; /* getppid(2) calls per leg() */
static int cpus[CPU_SETSIZE];
static int ncpus;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

TRACED void leg(struct worker *w)
{
	uint64_t t0 = now_ns(), t1;
	unsigned long i;
	cpu_set_t set;
	int cpu;

	w->leg_count++;
	CPU_ZERO(&set);
	CPU_SET(cpus[w->cpu_pos], &set);
	w->cpu_pos = (w->cpu_pos + 1) % ncpus;
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "error: sched_setaffinity: %s\n",
			strerror(errno));
		w->failed = 1;
	}
	cpu = sched_getcpu();
	if (w->last_cpu >= 0 && cpu != w->last_cpu)
		w->migrations++;
	w->last_cpu = cpu;
	for (i = 0; i < n_calls; i++)
		syscall(SYS_getppid);
	w->getppid_count += n_calls;
	while (now_ns() - t0 < spin_us * NSEC_PER_USEC)
		;
	t1 = now_ns();
	w->leg_ns += t1 - t0;
	if (t1 - t0 > w->leg_max_ns)
		w->leg_max_ns = t1 - t0;
}

TRACED void hop(struct worker *w)
{
	unsigned long i;

	w->hop_count++;
	for (i = 0; i < n_legs; i++) {
		uint64_t t0 = now_ns(), d;

		leg(w);
		d = now_ns() - t0;
		w->outer_ns += d;
		if (d > w->outer_max_ns)
			w->outer_max_ns = d;
	}
}

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	unsigned long i;

	for (i = 0; i < n_iter; i++)
		hop(w);
	return NULL;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [--threads T] [--iterations N] [--legs L] [--spin-us S]\n"
		"\n"
		"T threads each call hop() N times; hop() calls leg() L times;\n"
		"each leg() moves its thread to the next allowed CPU, calls\n"
		"getppid(2) once and spins S us.  Prints ground truth as\n"
		"key=value lines.\n"
		"\n"
		"  --threads T     worker threads (default 2)\n"
		"  --iterations N  hop() calls per thread (default 100)\n"
		"  --legs L        leg() calls per hop() (default 4)\n"
		"  --spin-us S     busy spin per leg() in us (default 20)\n"
		"  --calls C       getppid(2) calls per leg() (default 1)\n"
		"\n"
		"Exit status: 0 ok, 1 failure, 2 usage.\n",
		prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "legs", required_argument, NULL, 'l' },
		{ "spin-us", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct worker *ws, sum = { 0 };
	cpu_set_t set;
	unsigned long i;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_uint("threads", optarg, 1, 1024, &n_threads))
				return EXIT_USAGE;
			break;
		case 'n':
			if (parse_uint("iterations", optarg, 0, 100000000,
				       &n_iter))
				return EXIT_USAGE;
			break;
		case 'l':
			if (parse_uint("legs", optarg, 1, 1000, &n_legs))
				return EXIT_USAGE;
			break;
		case 's':
			if (parse_uint("spin-us", optarg, 0, 1000000, &spin_us))
				return EXIT_USAGE;
			break;
		case 'c':
			if (parse_uint("calls", optarg, 1, 1000000, &n_calls))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "error: sched_getaffinity: %s\n",
			strerror(errno));
		return 1;
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
	ws = calloc(n_threads, sizeof(*ws));
	if (!ws) {
		fprintf(stderr, "error: out of memory\n");
		return 1;
	}
	for (i = 0; i < n_threads; i++) {
		ws[i].id = (int)i;
		ws[i].cpu_pos = (int)(i % (unsigned long)ncpus);
		ws[i].last_cpu = -1;
		c = pthread_create(&ws[i].thread, NULL, worker_thread, &ws[i]);
		if (c) {
			fprintf(stderr, "error: pthread_create: %s\n",
				strerror(c));
			return 1;
		}
	}
	for (i = 0; i < n_threads; i++) {
		pthread_join(ws[i].thread, NULL);
		sum.hop_count += ws[i].hop_count;
		sum.leg_count += ws[i].leg_count;
		sum.getppid_count += ws[i].getppid_count;
		sum.migrations += ws[i].migrations;
		sum.leg_ns += ws[i].leg_ns;
		if (ws[i].leg_max_ns > sum.leg_max_ns)
			sum.leg_max_ns = ws[i].leg_max_ns;
		sum.outer_ns += ws[i].outer_ns;
		if (ws[i].outer_max_ns > sum.outer_max_ns)
			sum.outer_max_ns = ws[i].outer_max_ns;
		if (ws[i].failed)
			ret = 1;
	}
	printf("pid=%d\n", (int)getpid());
	printf("cpus=%d\n", ncpus);
	printf("threads=%lu\n", n_threads);
	printf("hop.count=%" PRIu64 "\n", sum.hop_count);
	printf("leg.count=%" PRIu64 "\n", sum.leg_count);
	printf("getppid.count=%" PRIu64 "\n", sum.getppid_count);
	printf("leg.total_ns=%" PRIu64 "\n", sum.leg_ns);
	printf("leg.max_ns=%" PRIu64 "\n", sum.leg_max_ns);
	printf("leg.outer_total_ns=%" PRIu64 "\n", sum.outer_ns);
	printf("leg.outer_max_ns=%" PRIu64 "\n", sum.outer_max_ns);
	printf("migrations=%" PRIu64 "\n", sum.migrations);
	free(ws);
	return ret;
}
