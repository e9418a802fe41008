// SPDX-License-Identifier: GPL-2.0-only
/*
 * e2e-offcpu WORKERS ROUNDS HOLD_US NAP_US: a thread named "holder" takes
 * one mutex per worker, ROUNDS times, holding them HOLD_US each time;
 * WORKERS threads (workerN) each call handler(kind) 2 * ROUNDS times:
 * kind 1 (once per round, after the holder took the mutexes) locks the
 * worker's mutex, so that it waits on the holder, who alone ever holds it
 * beside it and wakes it at its unlock; kind 2 sleeps NAP_US in
 * nanosleep.  So handler's blocked time is futex waits woken by the
 * holder and nanosleeps.  Ground truth on stdout: "holder.tid=TID",
 * "handler.count=N", "lock.count=N" (lock calls that found the mutex
 * held: each waits once), "nap.count=N".
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAXW 16

static int nworkers, rounds, hold_us, nap_us;
static pthread_mutex_t mu[MAXW];
static atomic_int held_round, done_round[MAXW];
static atomic_int locks, naps; /* lock calls that waited, naps */

static void sleep_us(int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* the lock that waits, out of line (-fno-inline): with frame pointers
 * (CMakeLists.txt) a user stack walked from inside libc, which has none,
 * skips the function that called libc and shows its caller, handler
 * (as sleep_us() for the naps; tests/e2e/test_offcpu_user.sh) */
static void lock_wait(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

__attribute__((noinline)) int handler(int kind, int w)
{
	if (kind == 1) {
		/* a wait only if the holder still holds it (a loaded machine
		 * may run the worker after the holder let go) */
		if (pthread_mutex_trylock(&mu[w])) {
			lock_wait(&mu[w]);
			atomic_fetch_add(&locks, 1);
		}
		pthread_mutex_unlock(&mu[w]);
		return 1;
	}
	sleep_us(nap_us);
	atomic_fetch_add(&naps, 1);
	return 2;
}

static void *holder(void *arg)
{
	int r, w;

	(void)arg;
	pthread_setname_np(pthread_self(), "holder");
	printf("holder.tid=%ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (r = 1; r <= rounds; r++) {
		for (w = 0; w < nworkers; w++)
			pthread_mutex_lock(&mu[w]);
		atomic_store(&held_round, r);
		sleep_us(hold_us);
		for (w = 0; w < nworkers; w++)
			pthread_mutex_unlock(&mu[w]);
		/* the next round once every worker got past this one */
		for (w = 0; w < nworkers; w++)
			while (atomic_load(&done_round[w]) < r)
				sleep_us(200);
	}
	return NULL;
}

static void *worker(void *arg)
{
	int w = (int)(long)arg, r;
	char name[16];

	snprintf(name, sizeof(name), "worker%d", w);
	pthread_setname_np(pthread_self(), name);
	for (r = 1; r <= rounds; r++) {
		while (atomic_load(&held_round) < r)
			sleep_us(100); /* outside handler: not timed */
		handler(1, w);
		atomic_store(&done_round[w], r);
		handler(2, w);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t h, t[MAXW];
	int i;

	if (argc != 5)
		return 2;
	nworkers = atoi(argv[1]);
	rounds = atoi(argv[2]);
	hold_us = atoi(argv[3]);
	nap_us = atoi(argv[4]);
	if (nworkers < 1 || nworkers > MAXW || rounds < 1)
		return 2;
	for (i = 0; i < nworkers; i++)
		pthread_mutex_init(&mu[i], NULL);
	pthread_create(&h, NULL, holder, NULL);
	for (i = 0; i < nworkers; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (i = 0; i < nworkers; i++)
		pthread_join(t[i], NULL);
	pthread_join(h, NULL);
	printf("handler.count=%d\nlock.count=%d\nnap.count=%d\n",
	       nworkers * rounds * 2, atomic_load(&locks), atomic_load(&naps));
	return 0;
}
