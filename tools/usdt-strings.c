/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usdt-strings - USDT probes (systemtap's sys/sdt.h) and a function that
 * pass strings with known counts, for iprof's timers named by a string
 * (`name str(argN)`).
 *
 * The main thread makes N requests.  Request i has path P = paths[i % 4]:
 * "GET /index", "POST /api;v=1", a name with awkward bytes (a quote, a
 * backslash, a ';', a space, 0xff and 0x01) and a 100-byte name (longer
 * than iprof reads).  It fires iprofs:req__start(P, i), calls handle(P)
 * (a function a uprobe timer names by str(arg0)), then fires
 * iprofs:req__done(P) -- with "MISMATCH" instead of P in --mismatch M of
 * them (the last M).  Around them it fires python-like probes with two
 * strings: iprofs:fn__entry("app.py", "main") and, --inner K times in
 * each request, iprofs:fn__entry("lib/util.py", "fetch") and its
 * fn__return, then fn__return("app.py", "main").  --distinct D: 2 x D
 * more requests after those, request j with path "p" followed by j % D in
 * decimal ("p0", "p1", ...: each name twice), no fn probes.  Last, one
 * request with a NULL path (a string iprof cannot read).  --lost L: the
 * first L requests fire fn__entry("lib/util.py", "lost") after their
 * req__done and never its fn__return, so that fn__return("app.py",
 * "main") follows an entry of another name.
 *
 * Output (tools/README.md): key=value lines.
 * Exit status: 0 success, 2 usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include "opt.h"

#define EXIT_USAGE 2
#define NKIND 4

static const char *const paths[NKIND] = {
	"GET /index",
	"POST /api;v=1",
	"odd\"q\\b;c d\xff\x01",
	"L123456789012345678901234567890123456789012345678901234567890"
	"123456789012345678901234567890123456789",
};

static unsigned long opt_calls = 100;
static unsigned long opt_inner = 2;
static unsigned long opt_mismatch;
static unsigned long opt_distinct;
static unsigned long opt_lost;

/* one call a request: a uprobe timer named by str(arg0) */
static const char *volatile last_path;

__attribute__((noinline, used)) void handle(const char *path)
{
	last_path = path;
}

static void request(const char *path, unsigned long i, int fn, int bad,
		    int lost)
{
	unsigned long k;

	if (fn)
		DTRACE_PROBE2(iprofs, fn__entry, "app.py", "main");
	DTRACE_PROBE2(iprofs, req__start, path, i);
	handle(path);
	for (k = 0; fn && k < opt_inner; k++) {
		DTRACE_PROBE2(iprofs, fn__entry, "lib/util.py", "fetch");
		DTRACE_PROBE2(iprofs, fn__return, "lib/util.py", "fetch");
	}
	DTRACE_PROBE1(iprofs, req__done, bad ? "MISMATCH" : path);
	if (lost)
		DTRACE_PROBE2(iprofs, fn__entry, "lib/util.py", "lost");
	if (fn)
		DTRACE_PROBE2(iprofs, fn__return, "app.py", "main");
}

static int parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{"calls", required_argument, 0, 'n'},
		{"inner", required_argument, 0, 'i'},
		{"mismatch", required_argument, 0, 'm'},
		{"distinct", required_argument, 0, 'd'},
		{"lost", required_argument, 0, 'l'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'n' &&
		    !parse_uint("calls", optarg, 0, 100000000, &opt_calls))
			continue;
		if (c == 'i' && !parse_uint("inner", optarg, 0, 1000, &opt_inner))
			continue;
		if (c == 'm' &&
		    !parse_uint("mismatch", optarg, 0, 100000000, &opt_mismatch))
			continue;
		if (c == 'd' &&
		    !parse_uint("distinct", optarg, 0, 100000, &opt_distinct))
			continue;
		if (c == 'l' &&
		    !parse_uint("lost", optarg, 0, 100000000, &opt_lost))
			continue;
		if (c == 'h') {
			printf("usage: usdt-strings [--calls N] [--inner K] "
			       "[--mismatch M] [--distinct D] [--lost L]\n");
			exit(0);
		}
		return -1;
	}
	return optind == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long kind[NKIND] = {0}, i;
	char name[32];

	if (parse_args(argc, argv) || opt_mismatch > opt_calls ||
	    opt_lost > opt_calls)
		return EXIT_USAGE;
	for (i = 0; i < opt_calls; i++) {
		request(paths[i % NKIND], i, 1, i >= opt_calls - opt_mismatch,
			i < opt_lost);
		kind[i % NKIND]++;
	}
	for (i = 0; opt_distinct && i < opt_distinct * 2; i++) {
		snprintf(name, sizeof(name), "p%lu", i % opt_distinct);
		request(name, i, 0, 0, 0);
	}
	request(NULL, 0, 0, 0, 0);
	printf("req.count=%lu\n", opt_calls);
	for (i = 0; i < NKIND; i++)
		printf("kind%lu.count=%lu\n", i, kind[i]);
	printf("mismatch.count=%lu\n", opt_mismatch);
	printf("lost.count=%lu\n", opt_lost);
	printf("main.count=%lu\nfetch.count=%lu\n", opt_calls,
	       opt_calls * opt_inner);
	printf("distinct.count=%lu\n", opt_distinct * 2);
	printf("null.count=1\n");
	return 0;
}
