// SPDX-License-Identifier: GPL-2.0-only
/*
 * pingpong ROUNDS: two threads pass a byte back and forth over two pipes,
 * ROUNDS times, each inside one call of play() the whole time: every
 * round trip is two blocking switches (read on an empty pipe) and two
 * wake-ups (the other thread's write) of threads inside a timed call.
 * Prints "ns_per_round=N" (wall time / ROUNDS).  For bench/offcpu.sh.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2], rounds;

__attribute__((noinline)) int play(int rd, int wr, int first)
{
	char c = 0;
	int i;

	for (i = 0; i < rounds; i++) {
		if (first && write(wr, &c, 1) != 1)
			return -1;
		if (read(rd, &c, 1) != 1)
			return -1;
		if (!first && write(wr, &c, 1) != 1)
			return -1;
	}
	return 0;
}

static void *other(void *arg)
{
	(void)arg;
	play(ab[0], ba[1], 0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t t;

	rounds = argc > 1 ? atoi(argv[1]) : 100000;
	if (rounds < 1 || pipe(ab) || pipe(ba))
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&t, NULL, other, NULL);
	play(ba[0], ab[1], 1);
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("ns_per_round=%lld\n",
	       ((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec) /
		       rounds);
	return 0;
}
