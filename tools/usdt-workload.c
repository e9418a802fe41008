/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usdt-workload - USDT probes (systemtap's sys/sdt.h) with known counts,
 * for iprof's usdt: spans.
 *
 * The main thread makes N requests.  Request i fires
 * iprofw:req__start(i, i % 3), calls work() (busy-spins S us: a function
 * a uprobe timer can time inside the span), then fires
 * iprofw:req__done(i).  Before work() it calls kind_hit(i % 3), an
 * empty function (a uprobe timer named by its argument).  It counts each kind (i % 3), times each request
 * with CLOCK_MONOTONIC from before its start probe to after its done
 * probe, and checks the semaphore of iprofw:guarded, a probe guarded by
 * it (STAP_PROBE only runs when a tracer set it): each request where it
 * is set fires the guarded probe once.
 *
 * --wait-sema MS: before the requests, wait up to MS ms for the semaphore
 * to be set (a tracer attached), then sleep --settle-ms (default 300: the
 * kernel sets it when the probe is attached, a tracer may turn tracing on
 * after all its probes are); after them, wait up to MS ms for it to be
 * reset (the tracer gone).  Output (tools/README.md): key=value lines.
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#include "opt.h"

#define EXIT_USAGE 2
#define NSEC_PER_SEC 1000000000ull
#define NSEC_PER_USEC 1000ull

/* the probes' semaphores (with _SDT_HAS_SEMAPHORES every probe of the
 * file has one: sys/sdt.h names them PROVIDER_NAME_semaphore, in section
 * .probes); the kernel counts one up while a uprobe with its
 * ref_ctr_offset is attached.  Only iprofw:guarded is tested by its
 * caller: the others fire whether traced or not */
#define SEMA __attribute__((unused, section(".probes")))
unsigned short iprofw_guarded_semaphore SEMA;
unsigned short iprofw_req__start_semaphore SEMA;
unsigned short iprofw_req__done_semaphore SEMA;

static unsigned long opt_calls = 100;
static unsigned long opt_spin_us = 100;
static unsigned long opt_wait_ms;
static unsigned long opt_settle_ms = 300;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* busy-spin @us microseconds */
__attribute__((noinline, used)) void work(unsigned long us)
{
	uint64_t end = now_ns() + us * NSEC_PER_USEC;

	while (now_ns() < end)
		__asm__ __volatile__("" ::: "memory");
}

/* called once a request with its kind: kinds are counted (kindK.count);
 * a store before its ret, so that a return site is no entry (a kernel
 * that single-steps a ret at the entry probe leaves it untimed) */
static volatile long last_kind;

__attribute__((noinline, used)) void kind_hit(long k)
{
	last_kind = k;
}

/* wait up to opt_wait_ms for the semaphore to be @set (non-zero) or not;
 * 1 if it became so */
static int wait_sema(int set)
{
	uint64_t end = now_ns() + opt_wait_ms * 1000000ull;

	do {
		if (!!*(volatile unsigned short *)&iprofw_guarded_semaphore ==
		    set)
			return 1;
		usleep(1000);
	} while (now_ns() < end);
	return 0;
}

static int parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"calls", required_argument, 0, 'n'},
		{"spin-us", required_argument, 0, 's'},
		{"wait-sema", required_argument, 0, 'w'},
		{"settle-ms", required_argument, 0, 'S'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'n' &&
		    !parse_uint("calls", optarg, 0, 100000000, &opt_calls))
			continue;
		if (c == 's' &&
		    !parse_uint("spin-us", optarg, 0, 10000000, &opt_spin_us))
			continue;
		if (c == 'w' &&
		    !parse_uint("wait-sema", optarg, 0, 600000, &opt_wait_ms))
			continue;
		if (c == 'S' &&
		    !parse_uint("settle-ms", optarg, 0, 600000, &opt_settle_ms))
			continue;
		if (c == 'h') {
			printf("usage: usdt-workload [--calls N] [--spin-us S] "
			       "[--wait-sema MS [--settle-ms MS]]\n");
			exit(0);
		}
		return -1;
	}
	return optind == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t kind[3] = {0}, guarded = 0, req_ns = 0, t0;
	int set_seen = 1, reset_seen = 1;
	unsigned long i;

	if (parse_args(argc, argv))
		return EXIT_USAGE;
	if (opt_wait_ms) {
		set_seen = wait_sema(1);
		usleep((useconds_t)(opt_settle_ms * 1000));
	}
	for (i = 0; i < opt_calls; i++) {
		long k = (long)(i % 3);

		t0 = now_ns();
		DTRACE_PROBE2(iprofw, req__start, i, k);
		kind_hit(k);
		work(opt_spin_us);
		if (iprofw_guarded_semaphore) {
			DTRACE_PROBE1(iprofw, guarded, i);
			guarded++;
		}
		DTRACE_PROBE1(iprofw, req__done, i);
		req_ns += now_ns() - t0;
		kind[k]++;
	}
	if (opt_wait_ms)
		reset_seen = wait_sema(0);
	printf("req.count=%lu\n", opt_calls);
	printf("req.ns=%" PRIu64 "\n", req_ns);
	printf("kind0.count=%" PRIu64 "\nkind1.count=%" PRIu64
	       "\nkind2.count=%" PRIu64 "\n",
	       kind[0], kind[1], kind[2]);
	printf("guarded.count=%" PRIu64 "\n", guarded);
	if (opt_wait_ms)
		printf("sema.set=%d\nsema.reset=%d\n", set_seen, reset_seen);
	return 0;
}
