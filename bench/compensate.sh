#!/usr/bin/env bash
# compensate.sh [BUILD] [RUNS]: overhead compensation against the truth
# (doc/report.md, "Probe cost").  tests/e2e/helpers/nested.c (outer() calls
# mid() 4x and gp() once, mid() calls leaf() 2x, leaf() spins 1 us, gp()
# makes two getppid(2) calls) with uprobe timers on the four functions and
# a getppid span, RUNS times (default 3) raw (--no-compensate) and
# compensated (the default), paired run by run; the truth is the program's
# own timing of untraced copies of the same code in the same run.  Prints
# per path (a Markdown table) the truth's and iprof's mean and median
# (ns; of the RUNS runs, the one with the median iprof median) and each
# ratio to its run's truth, then the calibration of the last run.
# Root.
set -u
B=$(realpath "${1:-build}")
RUNS=${2:-3}
W=$B/e2e-nested
SPAN='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'
T=$(mktemp -d /tmp/compensate.XXXXXX)
trap 'rm -rf "$T"' EXIT
probes=(-e "uprobe:$W:outer" -e "uprobe:$W:mid" -e "uprobe:$W:leaf" -e "uprobe:$W:gp" -e "$SPAN")
for r in $(seq "$RUNS"); do
	"$B/iprof" -q --no-compensate -f json -o "$T/raw$r.json" "${probes[@]}" -- "$W" 2000 1000 >"$T/raw$r.truth" || exit 1
	"$B/iprof" -q -f json -o "$T/comp$r.json" "${probes[@]}" -- "$W" 2000 1000 >"$T/comp$r.truth" || exit 1
done
echo "| path | truth mean | raw mean | compensated mean | truth p50 | raw p50 | compensated p50 |"
echo "|---|---|---|---|---|---|---|"
for row in "outer outer" "outer>mid mid" "outer>mid>leaf leaf" "outer>gp gp" "outer>gp>getppid getppid"; do
	set -- $row
	for mode in comp raw; do
		for r in $(seq "$RUNS"); do
			t_avg=$(sed -n "s/^$2.mean_ns=//p" "$T/$mode$r.truth")
			t_p50=$(sed -n "s/^$2.p50_ns=//p" "$T/$mode$r.truth")
			jq -r --arg p "$1" --arg ta "$t_avg" --arg tp "$t_p50" '
				[.tree | .. | objects | select(.path? and ((.path | join(">")) == $p))][0] as $n |
				"\($ta) \($tp) \($n.avg_ns) \($n.p50_ns)"' "$T/$mode$r.json"
		done | sort -n -k4 | sed -n "$(( (RUNS + 1) / 2 ))p" >"$T/$mode.sel"
	done
	read -r ta tp ca cp <"$T/comp.sel"
	read -r rta rtp ra rp <"$T/raw.sel"
	awk -v p="$1" -v ta="$ta" -v tp="$tp" -v ca="$ca" -v cp="$cp" \
		-v rta="$rta" -v rtp="$rtp" -v ra="$ra" -v rp="$rp" 'BEGIN {
		printf "| %s | %d | %d (%.2fx) | %d (%.2fx) | %d | %d (%.2fx) | %d (%.2fx) |\n",
			p, ta, ra, ra / rta, ca, ca / ta, tp, rp, rp / rtp, cp, cp / tp }'
done
echo
# every run: the compensated mean / its run's truth (the table's run is
# one of them; single-stepped probes' cost moves from run to run)
echo "compensated mean / truth, each run:"
for r in $(seq "$RUNS"); do
	printf '  run %d:' "$r"
	for row in "outer outer" "outer>mid mid" "outer>mid>leaf leaf" "outer>gp gp"; do
		set -- $row
		t_avg=$(sed -n "s/^$2.mean_ns=//p" "$T/comp$r.truth")
		jq -r --arg p "$1" --arg ta "$t_avg" '
			[.tree | .. | objects | select(.path? and ((.path | join(">")) == $p))][0] as $n |
			" \($p) \((($n.avg_ns / ($ta | tonumber)) * 100 | round) / 100)x"' "$T/comp$r.json" | tr -d '\n'
	done
	echo
done
echo
echo "calibration (last compensated run):"
jq -r '.calibration.mechanisms[] | "  \(.mech): in \(.in_ns) ns, out \(.out_ns) ns, means \(.in_mean_ns) and \(.out_mean_ns) ns (medians: untraced \(.untraced_ns), traced \(.traced_ns), recorded \(.recorded_ns); \(.calls) calls)"' "$T/comp$RUNS.json"
