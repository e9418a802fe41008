#!/usr/bin/env bash
# calib-match.sh [BUILD] [RUNS] [CALLS]: does iprof's start-time
# calibration match what the traced program's probes cost?  A program of
# its own (built here, in a temporary folder) calls a function shaped as
# iprof_calib_step (`sub $8,%rsp; add $8,%rsp; ret`, entry single-stepped)
# CALLS times back to back through a pointer, as the calibration calls
# its own; iprof times it with a uprobe timer (default options).  Per run:
# the calibration's median and mean `in` (ns) against the traced calls'
# raw mean and median (the function's own time is a few ns, so raw is
# the probes' in).  Also pinned to each CPU (taskset).  Root.
set -u
B=$(realpath "${1:-build}")
RUNS=${2:-6}
CALLS=${3:-10000}
T=$(mktemp -d /tmp/calib-match.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/b2b.c" <<'C'
#include <stdlib.h>
__asm__(".text\n.globl cstep\n.type cstep,@function\ncstep:\n"
	"\tsub $8,%rsp\n\tadd $8,%rsp\n\tret\n.size cstep,.-cstep\n");
void cstep(void);
static void (*volatile fp)(void) = cstep;
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;

	for (int i = 0; i < n; i++)
		fp();
	return 0;
}
C
cc -O2 -o "$T/b2b" "$T/b2b.c" || exit 1
run() {
	"$B/iprof" -q -f json -o "$T/j" -e "uprobe:$T/b2b:cstep" -- "$@" \
		>/dev/null || exit 1
	jq -r '([.calibration.mechanisms[] | select(.mech | startswith("uprobe"))][0]) as $c |
		([.tree | .. | objects | select(.path?)][0]) as $n |
		"calibration in \($c.in_ns) (mean \($c.in_mean_ns)); traced raw mean \($n.raw_total_ns / $n.count | floor) = \(($n.raw_total_ns / $n.count / $c.in_mean_ns * 100 | round) / 100)x its mean"' "$T/j"
}
for r in $(seq "$RUNS"); do
	printf 'run %d:       ' "$r"
	run "$T/b2b" "$CALLS"
done
for c in $(seq 0 $(($(nproc) - 1))); do
	printf 'cpu %d:       ' "$c"
	run taskset -c "$c" "$T/b2b" "$CALLS"
done
