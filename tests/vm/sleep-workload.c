/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sleep-workload - many threads blocked in the same kernel function at
 * once, with exact ground truth: provokes kretprobe misses (a kretprobe
 * has maxactive instances; a call made while all are in use gets no
 * return probe).
 *
 *   vm-sleep-workload THREADS CALLS SLEEP_US [SLEEP2_US]
 *
 * Phase 1: THREADS threads start together and each makes CALLS nanosleep()
 * calls, all blocked at once: of SLEEP_US, or with SLEEP2_US the odd
 * calls (1, 3, ...) of SLEEP2_US.  Phase 2: once all are done, the threads
 * take turns, each making one more nanosleep(SLEEP_US) alone, so that
 * every thread's last call finds a free kretprobe instance.  Each
 * nanosleep(2) is one hrtimer_nanosleep(rqtp, ...) call with rqtp the
 * sleep in ns, from the same call site.  Threads stay alive until all are
 * done (no frame is left open at a thread's exit).  Prints on stdout
 * calls=THREADS*(CALLS+1), and per sleep length calls.US=N and
 * max.US=NS, the longest such call by the workload's own clock
 * (CLOCK_MONOTONIC, bpf_ktime_get_ns()'s clock, around nanosleep(), so
 * a timer inside it can only be shorter).
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../tools/opt.h"

static unsigned long calls, sleep_us, sleep2_us;
static pthread_barrier_t start, phase2, done;
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t maxlock = PTHREAD_MUTEX_INITIALIZER;
/* the longest call of SLEEP_US ([0]) and of SLEEP2_US ([1]), ns */
static unsigned long long maxns[2];

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull +
	       (unsigned long long)t.tv_nsec;
}

static void nap(unsigned long us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000),
			       .tv_nsec = (long)(us % 1000000) * 1000 };
	unsigned long long t0 = now_ns(), d;
	int k = sleep2_us && us == sleep2_us;

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	d = now_ns() - t0;
	pthread_mutex_lock(&maxlock);
	if (d > maxns[k])
		maxns[k] = d;
	pthread_mutex_unlock(&maxlock);
}

static void *worker(void *arg)
{
	unsigned long i;

	(void)arg;
	pthread_barrier_wait(&start);
	for (i = 0; i < calls; i++)
		nap(sleep2_us && i % 2 ? sleep2_us : sleep_us);
	pthread_barrier_wait(&phase2);
	pthread_mutex_lock(&turn);
	nap(sleep_us);
	pthread_mutex_unlock(&turn);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long nthreads, i;
	pthread_t *t;
	int err;

	if (argc < 4 || argc > 5 ||
	    parse_uint("THREADS", argv[1], 1, 1024, &nthreads) ||
	    parse_uint("CALLS", argv[2], 0, 1000000, &calls) ||
	    parse_uint("SLEEP_US", argv[3], 1, 10000000, &sleep_us) ||
	    (argc == 5 && parse_uint("SLEEP2_US", argv[4], 1, 10000000,
				     &sleep2_us))) {
		fprintf(stderr, "usage: %s THREADS CALLS SLEEP_US [SLEEP2_US]\n",
			argv[0]);
		return 2;
	}
	if (sleep2_us == sleep_us)
		sleep2_us = 0;
	t = calloc(nthreads, sizeof(*t));
	if (!t ||
	    pthread_barrier_init(&start, NULL, (unsigned)nthreads) ||
	    pthread_barrier_init(&phase2, NULL, (unsigned)nthreads) ||
	    pthread_barrier_init(&done, NULL, (unsigned)nthreads)) {
		fprintf(stderr, "error: out of memory\n");
		return 1;
	}
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&t[i], NULL, worker, NULL);
		if (err) {
			fprintf(stderr, "error: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("calls=%lu\n", nthreads * (calls + 1));
	if (sleep2_us) {
		printf("calls.%lu=%lu\n", sleep_us,
		       nthreads * ((calls + 1) / 2 + 1));
		printf("calls.%lu=%lu\n", sleep2_us, nthreads * (calls / 2));
		printf("max.%lu=%llu\n", sleep2_us, maxns[1]);
	} else {
		printf("calls.%lu=%lu\n", sleep_us, nthreads * (calls + 1));
	}
	printf("max.%lu=%llu\n", sleep_us, maxns[0]);
	return 0;
}
