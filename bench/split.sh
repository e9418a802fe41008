#!/usr/bin/env bash
# The cost per timed call of split entries (issue 45 item 5): build/
# e2e-nested (tests/e2e/helpers/nested.c: outer() calls mid() 4 times and
# gp() once, mid() calls leaf() twice; each starts with `sub $8,%rsp`, an
# instruction x86 uprobes single-step) with uprobe timers on its four
# functions (14 timed calls an outer() call), spin 1 ns (the least it takes), under iprof with a
# uretprobe (--returns uretprobe: a mark at the entry and the start at the
# first call, the single step measured in the caller) and with return
# sites (--returns sites: the start at the first call, nothing at the
# entry), each split (the default) and not (IPROF_SPLIT=0), and under
# bpftrace with a uprobe and a uretprobe on the four.  Each runs the
# program with N and N/10 outer() calls; the cost per timed call is the
# difference of the two times over the difference of their timed calls,
# less the program's own the same way (start-up and exit drop out).
# Interleaved rounds, medians, us per timed call.
#
#   sudo bench/split.sh [ROUNDS]   (default 5; BUILD=build dir, N=4000)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$src/build}
IPROF=${IPROF:-$BUILD/iprof}
W=$BUILD/e2e-nested
ROUNDS=${1:-5}
N=${N:-4000}
n=$((N / 10))
[ -x "$W" ] && [ -x "$IPROF" ] || { echo "bench/split.sh: build $W and $IPROF first" >&2; exit 2; }
T=$(mktemp -d /tmp/iprof-split.XXXXXX)
trap 'rm -rf "$T"' EXIT
fns=(outer mid leaf gp)
probes=()
for f in "${fns[@]}"; do probes+=(-e "uprobe:$W:$f"); done
bt=""
for f in "${fns[@]}"; do
	bt+="uprobe:$W:$f { @s[tid, \"$f\"] = nsecs; } uretprobe:$W:$f { @t[\"$f\"] = count(); } "
done
now() { date +%s.%N; }
# TOOL CALLS: the seconds the program ran under TOOL
run() {
	local t0 t1
	t0=$(now)
	case $1 in
	untraced) "$W" "$2" 1 >/dev/null ;;
	uret-split) "$IPROF" -q --returns uretprobe -o /dev/null "${probes[@]}" -- "$W" "$2" 1 >/dev/null 2>&1 ;;
	uret-step) IPROF_SPLIT=0 "$IPROF" -q --returns uretprobe -o /dev/null "${probes[@]}" -- "$W" "$2" 1 >/dev/null 2>&1 ;;
	sites-split) "$IPROF" -q --returns sites -o /dev/null "${probes[@]}" -- "$W" "$2" 1 >/dev/null 2>&1 ;;
	sites-step) IPROF_SPLIT=0 "$IPROF" -q --returns sites -o /dev/null "${probes[@]}" -- "$W" "$2" 1 >/dev/null 2>&1 ;;
	bpftrace) bpftrace -e "$bt" -c "$W $2 1" >/dev/null 2>&1 ;;
	esac
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}
tools=(untraced uret-split uret-step sites-split sites-step)
command -v bpftrace >/dev/null && tools+=(bpftrace)
for r in $(seq "$ROUNDS"); do
	for tool in "${tools[@]}"; do
		big=$(run "$tool" "$N")
		small=$(run "$tool" "$n")
		echo "$tool $(echo "$big - $small" | bc -l)" >>"$T/d"
	done
done
med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(awk '$1 == "untraced" { print $2 }' "$T/d" | med)
echo "| tool | us per timed call (median of $ROUNDS) |"
echo "|---|---|"
for tool in "${tools[@]}"; do
	[ "$tool" = untraced ] && continue
	d=$(awk -v t="$tool" '$1 == t { print $2 }' "$T/d" | med)
	printf '| %s | %.2f |\n' "$tool" "$(echo "($d - $base) * 1000000 / (($N - $n) * 14)" | bc -l)"
done
