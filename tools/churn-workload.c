/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * churn-workload - creates processes and threads without end, each thread
 * calling traced functions along random paths, and counts every call: the
 * ground truth of iprof's memory soak (bench/soak.sh, tests/e2e/
 * test_soak.sh) and of following a restarted daemon (tests/e2e/
 * test_select.sh).
 *
 * Every 1/--procs-per-s seconds (until --seconds have passed; 0: until
 * killed) the main process forks a child that starts --threads threads and
 * exits once they are done.  Each thread makes --calls calls; a call is a
 * path of 1..--depth nested calls of the 16 functions churn_f00 ..
 * churn_f15 (each calls the next function of the path, or returns), drawn
 * at random per thread (xorshift seeded by the thread's id), so --depth 4
 * draws among 16 + 16^2 + 16^3 + 16^4 = 69904 distinct paths.  With
 * --procs-per-s 0 the main process makes one child and exits with it.
 *
 * Ground truth, printed on stdout at the end (key=value, tools/README.md):
 * calls (function calls in all, nested ones included: the timers iprof
 * completes), threads, procs.  With --tid-log FILE each thread appends
 * "TID CALLS" to FILE at its end (one write(2) with O_APPEND).  With
 * --wait FILE the main process waits until FILE exists before it starts.
 *
 * Counts are kept in memory shared with the children (MAP_SHARED), added
 * with atomics.  Exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "opt.h"

#define EXIT_USAGE 2
#define NFUNC 16
#define MAX_DEPTH 8

#define TRACED __attribute__((noinline, used))

struct shared {
	uint64_t calls, threads, procs;
};

static struct shared *sh;
static unsigned long opt_threads = 4, opt_calls = 20, opt_depth = 4;
static int tid_log = -1;
static volatile sig_atomic_t stop;

/* one path being called: the functions in order, and how deep it goes */
struct path {
	uint8_t f[MAX_DEPTH];
	unsigned int n;
	uint64_t *calls;
};

static void call_at(struct path *p, unsigned int i);

/* distinct bodies (the index stored), so that no two are merged */
static volatile unsigned int sink;

#define CHURN_F(k)                                                             \
	TRACED void churn_f##k(struct path *p, unsigned int i)                 \
	{                                                                      \
		sink = 1##k;                                                    \
		(*p->calls)++;                                                 \
		if (i + 1 < p->n)                                              \
			call_at(p, i + 1);                                     \
		__asm__ volatile("" ::: "memory"); /* no tail call */          \
	}

CHURN_F(00) CHURN_F(01) CHURN_F(02) CHURN_F(03)
CHURN_F(04) CHURN_F(05) CHURN_F(06) CHURN_F(07)
CHURN_F(08) CHURN_F(09) CHURN_F(10) CHURN_F(11)
CHURN_F(12) CHURN_F(13) CHURN_F(14) CHURN_F(15)

static void (*const funcs[NFUNC])(struct path *, unsigned int) = {
	churn_f00, churn_f01, churn_f02, churn_f03, churn_f04, churn_f05,
	churn_f06, churn_f07, churn_f08, churn_f09, churn_f10, churn_f11,
	churn_f12, churn_f13, churn_f14, churn_f15,
};

static void call_at(struct path *p, unsigned int i)
{
	funcs[p->f[i]](p, i);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *thread_main(void *arg)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)gettid() << 20, calls = 0;
	struct path p = { .calls = &calls };
	unsigned long c;
	unsigned int i;
	char line[64];
	int n;

	(void)arg;
	for (c = 0; c < opt_calls; c++) {
		p.n = 1 + (unsigned int)(xorshift(&seed) % opt_depth);
		for (i = 0; i < p.n; i++)
			p.f[i] = (uint8_t)(xorshift(&seed) % NFUNC);
		call_at(&p, 0);
	}
	__atomic_add_fetch(&sh->calls, calls, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->threads, 1, __ATOMIC_RELAXED);
	if (tid_log >= 0) {
		n = snprintf(line, sizeof(line), "%d %" PRIu64 "\n", gettid(),
			     calls);
		if (write(tid_log, line, (size_t)n) != n)
			perror("churn-workload: --tid-log");
	}
	return NULL;
}

/* a child process: its threads, then exit */
static int child_main(void)
{
	pthread_t t[64];
	unsigned long i;
	int err;

	for (i = 0; i < opt_threads; i++) {
		err = pthread_create(&t[i], NULL, thread_main, NULL);
		if (err) {
			fprintf(stderr, "churn-workload: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	for (i = 0; i < opt_threads; i++)
		pthread_join(t[i], NULL);
	__atomic_add_fetch(&sh->procs, 1, __ATOMIC_RELAXED);
	return 0;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: churn-workload [--seconds S] [--procs-per-s P] [--threads T]\n"
		"                      [--calls C] [--depth D] [--tid-log FILE] [--wait FILE]\n"
		"Forks P processes a second (0: one) for S seconds (0: until SIGTERM),\n"
		"each with T threads (at most 64) making C calls of random paths of\n"
		"1..D (at most 8) nested calls of churn_f00..churn_f15; prints\n"
		"calls=, threads=, procs= at the end.\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "procs-per-s", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "calls", required_argument, NULL, 'c' },
		{ "depth", required_argument, NULL, 'd' },
		{ "tid-log", required_argument, NULL, 'l' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long seconds = 10, pps = 20;
	const char *wait_file = NULL;
	uint64_t t0, next, period;
	struct sigaction sa = { .sa_handler = on_term };
	struct timespec ts;
	int c, status, ret = 0;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_uint("seconds", optarg, 0, 1000000, &seconds))
				return EXIT_USAGE;
			break;
		case 'p':
			if (parse_uint("procs-per-s", optarg, 0, 1000, &pps))
				return EXIT_USAGE;
			break;
		case 't':
			if (parse_uint("threads", optarg, 1, 64, &opt_threads))
				return EXIT_USAGE;
			break;
		case 'c':
			if (parse_uint("calls", optarg, 0, 1000000, &opt_calls))
				return EXIT_USAGE;
			break;
		case 'd':
			if (parse_uint("depth", optarg, 1, MAX_DEPTH, &opt_depth))
				return EXIT_USAGE;
			break;
		case 'l':
			tid_log = open(optarg,
				       O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
				       0644);
			if (tid_log < 0) {
				fprintf(stderr, "churn-workload: %s: %s\n",
					optarg, strerror(errno));
				return 1;
			}
			break;
		case 'w':
			wait_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("churn-workload: mmap");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (wait_file && access(wait_file, F_OK) && !stop)
		usleep(10000);

	t0 = now_ns();
	period = pps ? 1000000000ull / pps : 0;
	next = t0;
	do {
		pid = fork();
		if (pid < 0) {
			perror("churn-workload: fork");
			ret = 1;
			break;
		}
		if (!pid)
			_exit(child_main());
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "churn-workload: a child failed\n");
			ret = 1;
			break;
		}
		if (!pps)
			break;
		next += period;
		while (!stop && now_ns() < next) {
			uint64_t d = next - now_ns();

			ts.tv_sec = (time_t)(d / 1000000000ull);
			ts.tv_nsec = (long)(d % 1000000000ull);
			nanosleep(&ts, NULL);
		}
	} while (!stop && (!seconds || now_ns() - t0 < seconds * 1000000000ull));

	printf("calls=%" PRIu64 "\nthreads=%" PRIu64 "\nprocs=%" PRIu64 "\n",
	       sh->calls, sh->threads, sh->procs);
	return ret;
}
