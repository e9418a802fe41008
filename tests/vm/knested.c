/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * knested - nested user and kernel-function calls with their own truth,
 * for the VM tier's accuracy test (tests/vm/test_accuracy.sh, issue 45
 * item 5): outer() makes 4 read(2) calls of SIZE bytes of /dev/zero, each
 * one __x64_sys_read() -> ksys_read() -> vfs_read() in the kernel.
 *
 * Untraced copies run interleaved with it, each timed alone by the program
 * (CLOCK_MONOTONIC around one call): outer_p() makes the same 4 calls as
 * pread64(2) (__x64_sys_pread64() -> ksys_pread64() -> vfs_read(): the same
 * work, through none of the kernel functions the test times but vfs_read,
 * which it leaves untimed), one pread64(2) call alone, and one getpid(2)
 * call (a syscall that does nothing: the entry and exit around the kernel
 * function's time).  So the truth of
 *   outer                                 outer.mean_ns
 *   outer>__x64_sys_read (and ksys_read)  kread.mean_ns = the pread64
 *                                         call's mean less getpid's
 * the kernel ones within the few instructions of the syscall wrapper and
 * getpid's own body (the entry's and exit's variation is in the copies'
 * standard errors, printed as LEVEL.se_ns).
 *
 *   vm-knested N SIZE [fifo]
 *
 * fifo: run SCHED_FIFO 10 (sched_setscheduler(2); busybox has no chrt):
 * with the tracer pinned to the same CPU (taskset -c 0) nothing runs
 * beside the calls, which under TCG's one thread for all vCPUs would
 * stretch them by the other vCPU's turns (the tracer's consumer).
 *
 * Prints key=value: outer.count, read.count (4 N), and for outer, pread,
 * getpid and kread: LEVEL.mean_ns, LEVEL.se_ns (standard error of the
 * mean), LEVEL.p50_ns (kread: pread's median less getpid's).
 * Exit status: 0 success, 1 a read failed, 2 usage error.
 */
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE 65536
#define MAXS 100000

static char buf[MAX_SIZE];
static int fd;
static unsigned long size;
static uint64_t n_outer, n_read;
static int failed;
enum { L_OUTER, L_PREAD, L_GETPID, L_N };
static double u_sum[L_N], u_sq[L_N];
static uint64_t u_n[L_N];
static uint64_t *u_v[L_N];

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the traced one */
__attribute__((noinline, used)) void outer(void)
{
	int i;

	n_outer++;
	for (i = 0; i < 4; i++) {
		if (syscall(SYS_read, fd, buf, size) != (long)size)
			failed = 1;
		n_read++;
	}
}

/* the untraced copies: pread64 where outer() reads */
__attribute__((noinline)) void outer_p(void)
{
	int i;

	for (i = 0; i < 4; i++)
		if (syscall(SYS_pread64, fd, buf, size, 0) != (long)size)
			failed = 1;
}

__attribute__((noinline)) void pread_p(void)
{
	if (syscall(SYS_pread64, fd, buf, size, 0) != (long)size)
		failed = 1;
}

__attribute__((noinline)) void getpid_p(void)
{
	syscall(SYS_getpid);
}

static void timed(int level, void (*fn)(void))
{
	uint64_t t0 = now();
	uint64_t d;

	fn();
	d = now() - t0;
	u_sum[level] += (double)d;
	u_sq[level] += (double)d * (double)d;
	if (u_n[level] < MAXS)
		u_v[level][u_n[level]] = d;
	u_n[level]++;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const char *const names[L_N] = { "outer", "pread", "getpid" };
	unsigned long n = argc > 2 ? strtoul(argv[1], NULL, 10) : 0, i;
	double mean[L_N], se[L_N];
	uint64_t p50[L_N];

	size = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	if (!n || !size || size > MAX_SIZE) {
		fprintf(stderr, "usage: %s N SIZE (SIZE <= %d)\n", argv[0],
			MAX_SIZE);
		return 2;
	}
	for (i = 0; i < L_N; i++)
		if (!(u_v[i] = calloc(MAXS, sizeof(uint64_t))))
			return 1;
	if (argc > 3 && !strcmp(argv[3], "fifo")) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("sched_setscheduler SCHED_FIFO");
			return 1;
		}
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	for (i = 0; i < n && !failed; i++) {
		outer();
		timed(L_OUTER, outer_p);
		timed(L_PREAD, pread_p);
		timed(L_GETPID, getpid_p);
	}
	if (failed) {
		perror("read /dev/zero");
		return 1;
	}
	printf("outer.count=%llu\nread.count=%llu\n",
	       (unsigned long long)n_outer, (unsigned long long)n_read);
	for (i = 0; i < L_N; i++) {
		uint64_t m = u_n[i] < MAXS ? u_n[i] : MAXS;
		double var;

		mean[i] = u_sum[i] / (double)u_n[i];
		var = u_sq[i] / (double)u_n[i] - mean[i] * mean[i];
		se[i] = u_n[i] > 1 && var > 0 ?
				sqrt(var / (double)(u_n[i] - 1)) : 0;
		qsort(u_v[i], m, sizeof(uint64_t), cmp);
		p50[i] = u_v[i][(m - 1) / 2];
		printf("%s.mean_ns=%.0f\n%s.se_ns=%.0f\n%s.p50_ns=%llu\n",
		       names[i], mean[i], names[i], se[i], names[i],
		       (unsigned long long)p50[i]);
	}
	printf("kread.mean_ns=%.0f\nkread.se_ns=%.0f\nkread.p50_ns=%lld\n",
	       mean[L_PREAD] - mean[L_GETPID],
	       sqrt(se[L_PREAD] * se[L_PREAD] + se[L_GETPID] * se[L_GETPID]),
	       (long long)p50[L_PREAD] - (long long)p50[L_GETPID]);
	return 0;
}
