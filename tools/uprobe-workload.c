/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uprobe-workload - a user-space workload with known ground truth, for
 * tracing with uprobes/uretprobes.
 *
 * T worker threads each call outer() N times.  Every outer() call makes
 * exactly one call each of spin_inner() (busy-spins S us), sleep_inner()
 * (nanosleeps U us) and recurse(D) (D nested recurse frames; none if
 * D == 0).  Optionally one extra thread calls exit_inside(), which leaves
 * the thread with pthread_exit() while still inside the function, and the
 * main thread finally calls hang(), which sleeps H ms.
 *
 * The traced functions have external linkage and are never inlined, so
 * their symbols are exactly outer, spin_inner, sleep_inner, recurse,
 * exit_inside and hang (and, on x86-64, lock_first, never called: its
 * first instruction has a lock prefix, which uprobes cannot probe).  The
 * program counts every call and times calls
 * with CLOCK_MONOTONIC around them, then prints key=value lines on stdout
 * (see tools/README.md).  Diagnostics go to stderr.
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid() */
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
#include <time.h>
#include <unistd.h>

#include "opt.h"

#define EXIT_USAGE 2
#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull

#define TRACED __attribute__((noinline, used))

/* Per-thread ground truth. */
struct stats {
	uint64_t outer_count;
	uint64_t spin_inner_count;
	uint64_t spin_inner_long; /* of spin_inner_count: long spins */
	uint64_t sleep_inner_count;
	uint64_t recurse_count;
	uint64_t exit_inside_count;
	uint64_t outer_ns;
	uint64_t spin_inner_ns;
	uint64_t spin_inner_cpu_ns; /* of spin_inner_ns: on a CPU (thread
				     * CPU time): the rest was runnable */
	uint64_t sleep_inner_ns;
	uint64_t recurse_ns; /* outermost recurse() calls, inclusive */
};

struct worker {
	pthread_t thread;
	int started;
	pid_t tid;
	struct stats st;
	uint64_t *spin_ns; /* each spin_inner() call's duration, opt_calls */
};

/* Options (read-only once the threads run). */
static unsigned long opt_threads = 1;
static unsigned long opt_calls = 100;
static unsigned long opt_spin_us = 200;
static unsigned long opt_sleep_us = 300;
static unsigned long opt_depth = 3;
static unsigned long opt_hang_ms;
static int opt_exit_inside;
static long opt_pin_cpu = -1; /* --pin-cpu: every worker on this CPU */
static unsigned long opt_long_every; /* --long-every K: every K-th spin ... */
static unsigned long opt_long_spin_us; /* ... spins this long instead */

static __thread struct stats *cur_stats;
static __thread uint64_t *cur_spins; /* the worker's spin_ns, or NULL */

/* State of the optional exit_inside thread. */
static struct stats exit_inside_stats;
static pid_t exit_inside_tid;

/* Keeps the compiler from treating the traced functions as pure. */
volatile uint64_t workload_sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec req, rem;

	req.tv_sec = (time_t)(ns / NSEC_PER_SEC);
	req.tv_nsec = (long)(ns % NSEC_PER_SEC);
	while (nanosleep(&req, &rem) < 0 && errno == EINTR)
		req = rem;
}

/* Busy-spin for opt_spin_us microseconds of CLOCK_MONOTONIC time. */
TRACED void spin_inner(void)
{
	unsigned long us = opt_spin_us;
	uint64_t end, n = 0;

	cur_stats->spin_inner_count++;
	if (opt_long_every && cur_stats->spin_inner_count % opt_long_every == 0) {
		us = opt_long_spin_us;
		cur_stats->spin_inner_long++;
	}
	end = now_ns() + us * NSEC_PER_USEC;
	while (now_ns() < end)
		n++;
	workload_sink = n;
}

/* Sleep for opt_sleep_us microseconds (nanosleep, restarted on EINTR). */
TRACED void sleep_inner(void)
{
	cur_stats->sleep_inner_count++;
	sleep_ns(opt_sleep_us * NSEC_PER_USEC);
}

/* n nested frames of recurse(); not a tail call (the + 1 after it). */
TRACED unsigned long recurse(unsigned long n)
{
	unsigned long r = 0;

	cur_stats->recurse_count++;
	if (n > 1)
		r = recurse(n - 1);
	workload_sink = r;
	return r + 1;
}

/* This thread's CPU time, ns (CLOCK_THREAD_CPUTIME_ID). */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

TRACED void outer(void)
{
	struct stats *st = cur_stats;
	uint64_t t0, t1, c0;

	st->outer_count++;

	c0 = cpu_ns();
	t0 = now_ns();
	spin_inner();
	t1 = now_ns();
	st->spin_inner_cpu_ns += cpu_ns() - c0;
	st->spin_inner_ns += t1 - t0;
	if (cur_spins)
		cur_spins[st->spin_inner_count - 1] = t1 - t0;

	t0 = now_ns();
	sleep_inner();
	t1 = now_ns();
	st->sleep_inner_ns += t1 - t0;

	if (opt_depth) {
		t0 = now_ns();
		recurse(opt_depth);
		t1 = now_ns();
		st->recurse_ns += t1 - t0;
	}
}

/* Sleeps opt_sleep_us, then ends the calling thread without returning. */
TRACED void exit_inside(void)
{
	cur_stats->exit_inside_count++;
	exit_inside_tid = gettid();
	sleep_ns(opt_sleep_us * NSEC_PER_USEC);
	pthread_exit(NULL);
}

/*
 * Still running when a tracer is asked to stop.  "hang.started=1" is
 * printed from inside, so a reader that sees it knows hang() was entered.
 */
TRACED void hang(void)
{
	printf("hang.started=1\n");
	if (fflush(stdout) == EOF)
		fprintf(stderr, "error: writing stdout: %s\n", strerror(errno));
	sleep_ns(opt_hang_ms * NSEC_PER_MSEC);
	workload_sink = opt_hang_ms;
}

#if defined(__x86_64__)
/*
 * lock_first() - never called: its first instruction is lock-prefixed, so
 * the kernel accepts a uprobe on it and never fires it; iprof must refuse
 * it instead (tests/e2e/test_bad_input.sh).
 */
__asm__(".text\n"
	".globl lock_first\n"
	".type lock_first, @function\n"
	"lock_first:\n"
	"\tlock incl (%rdi)\n"
	"\tret\n"
	".size lock_first, .-lock_first\n");
#endif

static void *worker_thread(void *arg)
{
	struct worker *w = arg;
	unsigned long i;
	uint64_t t0, t1;

	w->tid = gettid();
	cur_stats = &w->st;
	cur_spins = w->spin_ns;
	if (opt_pin_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)opt_pin_cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			fprintf(stderr, "warning: --pin-cpu %ld: %s\n",
				opt_pin_cpu, strerror(errno));
	}
	for (i = 0; i < opt_calls; i++) {
		t0 = now_ns();
		outer();
		t1 = now_ns();
		w->st.outer_ns += t1 - t0;
	}
	return NULL;
}

static void *exit_inside_thread(void *arg)
{
	(void)arg;
	cur_stats = &exit_inside_stats;
	exit_inside();
	return NULL; /* not reached */
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]\n"
		"\n"
		"T threads each call outer() N times; outer() calls\n"
		"spin_inner(), sleep_inner() and recurse(D) once each.\n"
		"Prints ground truth as key=value lines on stdout.\n"
		"\n"
		"  --threads T    worker threads (default 1)\n"
		"  --calls N      outer() calls per thread (default 100)\n"
		"  --spin-us S    busy-spin per spin_inner() (default 200)\n"
		"  --sleep-us U   nanosleep per sleep_inner() (default 300)\n"
		"  --depth D      recurse() frames per outer() call,\n"
		"                 0 = no recurse() call (default 3)\n"
		"  --exit-inside  one extra thread calls exit_inside(),\n"
		"                 which sleeps U us, then pthread_exit()\n"
		"  --hang-ms H    after printing the ground truth, call\n"
		"                 hang(), which sleeps H ms (default 0:\n"
		"                 do not call hang())\n"
		"  --pin-cpu C    run every worker thread on CPU C only\n"
		"  --long-every K every K-th spin_inner() of a thread spins\n"
		"                 --long-spin-us L instead of S\n"
		"  --help         show this help\n",
		prog);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * spin_inner.pQ_ns: nearest-rank quantiles (the value of rank ceil(q * n))
 * of every spin_inner() call's own duration, as iprof's histogram defines
 * them; the same numbers a tracer should report, within its error.
 */
static void print_spin_quantiles(const struct worker *workers)
{
	static const struct {
		const char *name;
		double q;
	} qs[] = { { "p50", 0.50 }, { "p90", 0.90 }, { "p99", 0.99 } };
	uint64_t *all, n = (uint64_t)opt_threads * opt_calls, rank;
	unsigned long i;

	if (!n)
		return;
	all = malloc(n * sizeof(*all));
	if (!all)
		return;
	for (i = 0; i < opt_threads; i++)
		memcpy(all + i * opt_calls, workers[i].spin_ns,
		       opt_calls * sizeof(*all));
	qsort(all, n, sizeof(*all), cmp_u64);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		rank = (uint64_t)(qs[i].q * (double)n);
		if ((double)rank < qs[i].q * (double)n)
			rank++;
		if (rank < 1)
			rank = 1;
		printf("spin_inner.%s_ns=%" PRIu64 "\n", qs[i].name,
		       all[rank - 1]);
	}
	free(all);
}

static void add_stats(struct stats *sum, const struct stats *s)
{
	sum->outer_count += s->outer_count;
	sum->spin_inner_count += s->spin_inner_count;
	sum->spin_inner_long += s->spin_inner_long;
	sum->sleep_inner_count += s->sleep_inner_count;
	sum->recurse_count += s->recurse_count;
	sum->exit_inside_count += s->exit_inside_count;
	sum->outer_ns += s->outer_ns;
	sum->spin_inner_ns += s->spin_inner_ns;
	sum->spin_inner_cpu_ns += s->spin_inner_cpu_ns;
	sum->sleep_inner_ns += s->sleep_inner_ns;
	sum->recurse_ns += s->recurse_ns;
}

int main(int argc, char **argv)
{
	enum {
		OPT_THREADS = 256,
		OPT_CALLS,
		OPT_SPIN_US,
		OPT_SLEEP_US,
		OPT_DEPTH,
		OPT_EXIT_INSIDE,
		OPT_HANG_MS,
		OPT_PIN_CPU,
		OPT_LONG_EVERY,
		OPT_LONG_SPIN_US,
		OPT_HELP,
	};
	static const struct option opts[] = {
		{"threads", required_argument, NULL, OPT_THREADS},
		{"calls", required_argument, NULL, OPT_CALLS},
		{"spin-us", required_argument, NULL, OPT_SPIN_US},
		{"sleep-us", required_argument, NULL, OPT_SLEEP_US},
		{"depth", required_argument, NULL, OPT_DEPTH},
		{"exit-inside", no_argument, NULL, OPT_EXIT_INSIDE},
		{"hang-ms", required_argument, NULL, OPT_HANG_MS},
		{"pin-cpu", required_argument, NULL, OPT_PIN_CPU},
		{"long-every", required_argument, NULL, OPT_LONG_EVERY},
		{"long-spin-us", required_argument, NULL, OPT_LONG_SPIN_US},
		{"help", no_argument, NULL, OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	struct worker *workers;
	struct stats sum;
	pthread_t exit_thread;
	unsigned long i;
	int c, err = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_THREADS:
			if (parse_uint("threads", optarg, 1, 4096,
				       &opt_threads))
				return EXIT_USAGE;
			break;
		case OPT_CALLS:
			if (parse_uint("calls", optarg, 0, 100000000,
				       &opt_calls))
				return EXIT_USAGE;
			break;
		case OPT_SPIN_US:
			if (parse_uint("spin-us", optarg, 0, 60000000,
				       &opt_spin_us))
				return EXIT_USAGE;
			break;
		case OPT_SLEEP_US:
			if (parse_uint("sleep-us", optarg, 0, 60000000,
				       &opt_sleep_us))
				return EXIT_USAGE;
			break;
		case OPT_DEPTH:
			if (parse_uint("depth", optarg, 0, 10000, &opt_depth))
				return EXIT_USAGE;
			break;
		case OPT_EXIT_INSIDE:
			opt_exit_inside = 1;
			break;
		case OPT_HANG_MS:
			if (parse_uint("hang-ms", optarg, 0, 86400000,
				       &opt_hang_ms))
				return EXIT_USAGE;
			break;
		case OPT_PIN_CPU: {
			unsigned long cpu;

			if (parse_uint("pin-cpu", optarg, 0, 4095, &cpu))
				return EXIT_USAGE;
			opt_pin_cpu = (long)cpu;
			break;
		}
		case OPT_LONG_EVERY:
			if (parse_uint("long-every", optarg, 1, 1000000,
				       &opt_long_every))
				return EXIT_USAGE;
			break;
		case OPT_LONG_SPIN_US:
			if (parse_uint("long-spin-us", optarg, 0, 60000000,
				       &opt_long_spin_us))
				return EXIT_USAGE;
			break;
		case 'h':
		case OPT_HELP:
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
		usage(stderr, argv[0]);
		return EXIT_USAGE;
	}

	workers = calloc(opt_threads, sizeof(*workers));
	if (!workers) {
		fprintf(stderr, "error: out of memory\n");
		return 1;
	}
	for (i = 0; i < opt_threads; i++) {
		workers[i].spin_ns =
			calloc(opt_calls ? opt_calls : 1, sizeof(uint64_t));
		if (!workers[i].spin_ns) {
			fprintf(stderr, "error: out of memory\n");
			return 1;
		}
	}

	for (i = 0; i < opt_threads; i++) {
		err = pthread_create(&workers[i].thread, NULL, worker_thread,
				     &workers[i]);
		if (err) {
			fprintf(stderr, "error: pthread_create: %s\n",
				strerror(err));
			break;
		}
		workers[i].started = 1;
	}
	if (!err && opt_exit_inside) {
		err = pthread_create(&exit_thread, NULL, exit_inside_thread,
				     NULL);
		if (err)
			fprintf(stderr, "error: pthread_create: %s\n",
				strerror(err));
		else
			pthread_join(exit_thread, NULL);
	}
	for (i = 0; i < opt_threads; i++)
		if (workers[i].started)
			pthread_join(workers[i].thread, NULL);
	if (err) {
		free(workers);
		return 1;
	}

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < opt_threads; i++)
		add_stats(&sum, &workers[i].st);
	print_spin_quantiles(workers);
	add_stats(&sum, &exit_inside_stats);

	printf("pid=%d\n", (int)getpid());
	printf("threads=%lu\n", opt_threads);
	printf("calls=%lu\n", opt_calls);
	printf("spin_us=%lu\n", opt_spin_us);
	printf("sleep_us=%lu\n", opt_sleep_us);
	printf("depth=%lu\n", opt_depth);
	printf("hang_ms=%lu\n", opt_hang_ms);
	printf("outer.count=%" PRIu64 "\n", sum.outer_count);
	printf("spin_inner.count=%" PRIu64 "\n", sum.spin_inner_count);
	printf("spin_inner.long_count=%" PRIu64 "\n", sum.spin_inner_long);
	printf("sleep_inner.count=%" PRIu64 "\n", sum.sleep_inner_count);
	printf("recurse.count=%" PRIu64 "\n", sum.recurse_count);
	printf("exit_inside.count=%" PRIu64 "\n", sum.exit_inside_count);
	printf("outer.total_ns=%" PRIu64 "\n", sum.outer_ns);
	printf("spin_inner.total_ns=%" PRIu64 "\n", sum.spin_inner_ns);
	printf("spin_inner.cpu_ns=%" PRIu64 "\n", sum.spin_inner_cpu_ns);
	printf("sleep_inner.total_ns=%" PRIu64 "\n", sum.sleep_inner_ns);
	printf("recurse.total_ns=%" PRIu64 "\n", sum.recurse_ns);
	for (i = 0; i < opt_threads; i++)
		printf("thread%lu.tid=%d\n", i, (int)workers[i].tid);
	printf("exit_inside.tid=%d\n", (int)exit_inside_tid);
	for (i = 0; i < opt_threads; i++)
		free(workers[i].spin_ns);
	free(workers);

	/* The ground truth is complete before hang() is called. */
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "error: writing stdout: %s\n", strerror(errno));
		return 1;
	}
	if (opt_hang_ms)
		hang();
	return 0;
}
