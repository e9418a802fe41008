#!/usr/bin/env bash
# probe-drift.sh [BUILD] [PROCS] [ROUNDS]: how steady is one uprobe
# timer's cost, within one process and from one process to the next?
# (issue 21: what a calibration can know.)  A program of its own (built
# here, in a temporary folder) calls two functions shaped as iprof's
# calibration functions, `step` (`sub $8,%rsp; add $8,%rsp; ret`: its
# entry single-stepped by kernels that cannot emulate it) and `push`
# (`push %rbp; mov %rsp,%rbp; pop %rbp; ret`: emulated), ROUNDS rounds of
# 2000 calls each, 50 ms apart, timing every call by CLOCK_MONOTONIC; an
# untraced copy of each, called alternately, gives the call's own time.
# iprof times `step` and `push` with its defaults.  Per process: each
# round's median cost (traced - untraced median, ns: the probes' in + out,
# what compensation takes out of a caller per call).  PROCS processes one
# after another, then two at once (one per CPU).  Then the spreads:
# within a process, (max - min) / median of its rounds; between
# processes, of their medians.  Root.
set -u
B=$(realpath "${1:-build}")
PROCS=${2:-5}
ROUNDS=${3:-8}
T=$(mktemp -d /tmp/probe-drift.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/drift.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#define FN(n, body) ".globl " #n "\n.type " #n ",@function\n" #n ":\n" body \
	".size " #n ",.-" #n "\n"
#define STEP "\tsub $8,%rsp\n\tadd $8,%rsp\n\tret\n"
#define PUSH "\tpush %rbp\n\tmov %rsp,%rbp\n\tpop %rbp\n\tret\n"
__asm__(".text\n" FN(step, STEP) FN(step_u, STEP) FN(push, PUSH) FN(push_u, PUSH));
void step(void), step_u(void), push(void), push_u(void);
static void (*volatile f[4])(void) = { step, step_u, push, push_u };
static uint64_t now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}
static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}
#define N 2000
static uint64_t v[4][N];
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 8;

	usleep(200000);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < N; i++)
			for (int k = 0; k < 4; k++) {
				uint64_t t0 = now();

				f[k]();
				v[k][i] = now() - t0;
			}
		for (int k = 0; k < 4; k++)
			qsort(v[k], N, sizeof(v[k][0]), cmp);
		printf("%llu %llu\n", (unsigned long long)(v[0][N / 2] - v[1][N / 2]),
		       (unsigned long long)(v[2][N / 2] - v[3][N / 2]));
		fflush(stdout);
		usleep(50000);
	}
	return 0;
}
C
cc -O2 -o "$T/drift" "$T/drift.c" || exit 1
P=(-e "uprobe:$T/drift:step" -e "uprobe:$T/drift:push")
for p in $(seq "$PROCS"); do
	"$B/iprof" -q -o /dev/null "${P[@]}" -- "$T/drift" "$ROUNDS" >"$T/seq$p" || exit 1
done
"$B/iprof" -q -o /dev/null "${P[@]}" -- sh -c \
	"taskset -c 0 $T/drift $ROUNDS >$T/par1 & taskset -c 1 $T/drift $ROUNDS >$T/par2; wait" || exit 1
# one line per process: its rounds' median and range, and their spread
summary() { # FILE COLUMN LABEL
	cut -d' ' -f"$2" "$1" | sort -n | awk -v l="$3" '{ v[NR] = $1 } END {
		med = v[int((NR + 1) / 2)]
		printf "%s median %d, rounds %d..%d (spread %.1f%%)\n", l, med, v[1], v[NR], 100 * (v[NR] - v[1]) / med
	}'
}
for col in 1 2; do
	[ "$col" = 1 ] && echo "step (entry single-stepped where the kernel cannot emulate it): ns per call" ||
		echo "push (entry emulated by the kernel): ns per call"
	for p in $(seq "$PROCS"); do summary "$T/seq$p" "$col" "  process $p alone:"; done
	for p in 1 2; do summary "$T/par$p" "$col" "  two at once, $p:"; done
	for p in $(seq "$PROCS"); do summary "$T/seq$p" "$col" x; done | awk '{ print $3 }' | sort -n |
		awk '{ m[NR] = $1 } END { printf "  between processes alone: medians %d..%d (spread %.1f%%)\n", m[1], m[NR], 100 * (m[NR] - m[1]) / m[int((NR + 1) / 2)] }'
done
