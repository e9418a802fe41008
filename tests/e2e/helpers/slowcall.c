// SPDX-License-Identifier: GPL-2.0-only
/*
 * e2e-slowcall THREADS CALLS SLOW SLEEP_US: THREADS worker threads (named
 * workerN) each call handler(arg) CALLS times; SLOW of each thread's
 * calls get arg 7 (the others 0..5), and only with 7 does handler's child
 * wait_for() sleep: SLEEP_US times a number unique to the call (1, 2, ...
 * over all threads), so that the slowest calls and their order are known.
 * handler's other child, prepare(), never sleeps.  handler(arg, us)
 * returns 100 * arg + wait_for()'s 1 or 0.  Ground truth on stdout, one
 * line per slow call, "slow tid=TID sleep_us=US comm=NAME" (its arguments
 * are 7 and US), then "handler.count=N" and "handler.slow_ret=701".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int calls, slow, sleep_us;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int sink;

__attribute__((noinline)) int prepare(int arg)
{
	sink += arg;
	return sink;
}

__attribute__((noinline)) int wait_for(int arg, int us)
{
	struct timespec ts;

	if (arg != 7)
		return 0;
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	nanosleep(&ts, NULL);
	return 1;
}

/* returns 100 * arg + what wait_for() returned: 701 for a slow call */
__attribute__((noinline)) int handler(int arg, int us)
{
	prepare(arg);
	return 100 * arg + wait_for(arg, us);
}

static void *worker(void *p)
{
	int w = (int)(long)p, i, s = 0, every = calls / (slow ? slow : 1);
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w);
	pthread_setname_np(pthread_self(), name);
	for (i = 0; i < calls; i++) {
		int us = 0, arg = i % 6;

		/* the slow ones spread over the run: every every-th call */
		if (s < slow && i % every == every / 2) {
			us = sleep_us * (w * slow + s + 1);
			arg = 7;
			s++;
			pthread_mutex_lock(&mu);
			printf("slow tid=%d sleep_us=%d comm=%s\n", gettid(), us,
			       name);
			pthread_mutex_unlock(&mu);
		}
		handler(arg, us);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n, i;
	pthread_t t[64];

	if (argc != 5)
		return 2;
	n = atoi(argv[1]);
	calls = atoi(argv[2]);
	slow = atoi(argv[3]);
	sleep_us = atoi(argv[4]);
	if (n < 1 || n > 64 || calls < 1 || slow < 0 || slow > calls)
		return 2;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("handler.count=%d\n", n * calls);
	printf("handler.slow_ret=%d\n", 100 * 7 + 1);
	return 0;
}
