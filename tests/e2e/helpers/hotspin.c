// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU-bound calls with their own truth, for where the probes' cost is
 * taken from (tests/e2e/test_oncpu_share.sh): ROUNDS rounds, each TINY
 * calls of tiny() (a few ns: the probes are nearly all of its traced time)
 * then one spin() of SPIN_US microseconds of busy loop.  Neither ever
 * blocks: their time is on-CPU, or runnable where another task holds the
 * CPU.  With COMPETE 1 this process and a child of it are pinned to CPU 0,
 * and the child, SCHED_FIFO 20 (run this one SCHED_FIFO 10: chrt -f 10,
 * so that no other task of the host comes between), takes the CPU for
 * the first half of every millisecond until the end (killed then): this
 * one waits for the CPU half the time, in many short preemptions that
 * fall in tiny() and spin() as their time does.
 *
 *   e2e-hotspin ROUNDS TINY SPIN_US COMPETE
 *
 * Prints key=value: tiny.count, spin.count, and spin.wall_ns and
 * spin.cpu_ns (this thread's CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID
 * time inside spin(), summed: its own on-CPU share).
 */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static uint64_t spin_ns, wall_ns, cpu_ns;

static uint64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void tiny(void)
{
	sink++;
}

__attribute__((noinline)) void spin(void)
{
	uint64_t t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
	uint64_t t;

	while ((t = now(CLOCK_MONOTONIC)) - t0 < spin_ns)
		;
	cpu_ns += now(CLOCK_THREAD_CPUTIME_ID) - c0;
	wall_ns += t - t0;
}

/* the competitor: FIFO 20, busy the first 500 us of every 1 ms */
static void compete(void)
{
	struct timespec next;
	uint64_t t0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		for (t0 = now(CLOCK_MONOTONIC);
		     now(CLOCK_MONOTONIC) - t0 < 500000;)
			sink++;
	}
}

static void pin0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

int main(int argc, char **argv)
{
	struct sched_param sp = {.sched_priority = 20};
	long rounds, ntiny, r, i;
	pid_t comp = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s ROUNDS TINY SPIN_US COMPETE\n",
			argv[0]);
		return 2;
	}
	rounds = atol(argv[1]);
	ntiny = atol(argv[2]);
	spin_ns = (uint64_t)atol(argv[3]) * 1000;
	if (atoi(argv[4])) {
		pin0();
		comp = fork();
		if (comp == 0)
			compete();
		/* by the parent: a FIFO child of equal priority would never
		 * run to raise its own */
		if (comp > 0 && sched_setscheduler(comp, SCHED_FIFO, &sp))
			perror("sched_setscheduler");
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < ntiny; i++)
			tiny();
		spin();
	}
	if (comp > 0) {
		kill(comp, SIGKILL);
		waitpid(comp, NULL, 0);
	}
	printf("tiny.count=%ld\nspin.count=%ld\n", rounds * ntiny, rounds);
	printf("spin.wall_ns=%llu\nspin.cpu_ns=%llu\n",
	       (unsigned long long)wall_ns, (unsigned long long)cpu_ns);
	return 0;
}
