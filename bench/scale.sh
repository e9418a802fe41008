#!/usr/bin/env bash
# Scaling of iprof over CPUs (bench/README.md, "Scaling"; issue 8).
#
#   sudo bench/scale.sh [BUILD_DIR]        (default: $BUILD, else ./build)
#
# For 1, 2, 4, ... threads up to nproc (and nproc itself), each thread
# pinned to its own CPU, the same loop (bench_scale):
#   getppid  a span sys_enter_getppid -> sys_exit_getppid (N_TP calls per
#            thread)
#   ucall    a uprobe timer on bench_target(), `push %rbp` (N_UP calls)
# with nothing attached (loop), the empty BPF programs (empty), the floors
# of bench/floor.bpf.c that write a 24-byte record per event into one ring
# shared by all CPUs (shared) or into each CPU's own ring (percpu), and
# under iprof (its default options).  Each number is the best of ROUNDS
# runs.  Columns: ns per call per thread, events/s of all threads together,
# iprof's lost records, whether its count + lost stops = the calls, and the
# ratio iprof / percpu floor (the goal at 16 threads: <= 1.5).
#
# A benchmark, not a test: exit status 0 unless something could not run.
# Environment: ROUNDS (3), N_TP (1000000), N_UP (200000), THREADS (the list
# of thread counts, default 1 2 4 ... nproc).
set -u
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root"
	exit 0
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$SRC/build}}
IPROF=$BUILD/iprof
BS=$BUILD/bench_scale
for f in "$IPROF" "$BS"; do
	[ -x "$f" ] || { echo "bench/scale.sh: $f is not built" >&2; exit 1; }
done
ROUNDS=${ROUNDS:-3}
N_TP=${N_TP:-1000000}
N_UP=${N_UP:-200000}
ncpu=$(nproc)
if [ -z "${THREADS:-}" ]; then
	THREADS=""
	for ((t = 1; t < ncpu; t *= 2)); do THREADS="$THREADS $t"; done
	THREADS="$THREADS $ncpu"
fi
TMP=$(mktemp -d /tmp/iprof-scale.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
# best MODE WORKLOAD N T: the run with the lowest ns_per_call of ROUNDS
best() {
	local b="" line r
	for ((r = 0; r < ROUNDS; r++)); do
		line=$("$BS" "$1" "$2" "$3" "$4") || return 1
		if [ -z "$b" ] || awk -v a="$(field ns_per_call "$line")" \
			-v c="$(field ns_per_call "$b")" 'BEGIN { exit !(a < c) }'; then
			b=$line
		fi
	done
	echo "$b"
}
# iprof_best WORKLOAD N T SPEC: under iprof; prints "ns eps lost count_ok"
iprof_best() {
	local b="" bl="" line r lost count calls ok
	for ((r = 0; r < ROUNDS; r++)); do
		line=$("$IPROF" -q -f json -o "$TMP/rep.json" -e "$4" -- "$BS" loop "$1" "$2" "$3") || return 1
		lost=$(jq -r .loss.ring_buffer_drops "$TMP/rep.json")
		count=$(jq -r '[.tree[] | .count] | add // 0' "$TMP/rep.json")
		calls=$(field calls "$line")
		# every call is counted or lost: a lost record loses one call
		ok=no
		[ $((count + lost)) -ge "$calls" ] && [ "$count" -le "$calls" ] && ok=yes
		if [ -z "$b" ] || awk -v a="$(field ns_per_call "$line")" \
			-v c="$(field ns_per_call "$b")" 'BEGIN { exit !(a < c) }'; then
			b=$line
			bl="$lost $ok"
		fi
	done
	echo "$(field ns_per_call "$b") $(field events_per_s "$b") $bl"
}

echo "iprof scaling: $(uname -r), $ncpu CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), best of $ROUNDS"
for w in getppid ucall; do
	if [ $w = getppid ]; then
		n=$N_TP
		spec='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'
	else
		n=$N_UP
		spec="uprobe:$BS:bench_target"
	fi
	echo
	echo "$w ($n calls per thread): ns per call per thread (events/s in all)"
	printf '%-8s %16s %16s %16s %16s %16s %8s %6s %8s\n' threads "no tracing" "empty prog" \
		"shared ring" "per-CPU ring" iprof lost count "iprof/pcpu"
	for t in $THREADS; do
		row=()
		for m in loop empty shared percpu; do
			line=$(best $m $w "$n" "$t") || { echo "bench_scale $m $w failed" >&2; exit 1; }
			row+=("$(printf '%.0f (%.1fM)' "$(field ns_per_call "$line")" \
				"$(awk -v e="$(field events_per_s "$line")" 'BEGIN { print e / 1e6 }')")")
			[ $m = percpu ] && floor=$(field ns_per_call "$line")
		done
		read -r ins ieps ilost iok <<<"$(iprof_best $w "$n" "$t" "$spec")"
		printf '%-8s %16s %16s %16s %16s %16s %8s %6s %8s\n' "$t" "${row[@]}" \
			"$(printf '%.0f (%.1fM)' "$ins" "$(awk -v e="$ieps" 'BEGIN { print e / 1e6 }')")" \
			"$ilost" "$iok" "$(awk -v a="$ins" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')"
	done
done
