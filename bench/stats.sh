#!/usr/bin/env bash
# stats.sh [BUILD...]: are a path's statistics alike and its times within
# their error bars (issue 45 items 2, 3, 5)?  For each BUILD (default
# build), tests/e2e/helpers/nested.c with uprobe timers on outer, mid,
# leaf and gp and a getppid span, default options (uretprobes here):
#  - one call of outer() (spin 1 us): its min, avg, max, p50 and total;
#  - 2000 x outer() with 1 us leaves and 500 x with 20 us leaves: per path
#    the program's own mean (untraced copies in the same run), iprof's
#    avg, its error bar (avg_err_ns), the ratio, and whether the truth
#    lies within the bar (or 10%, or 200 ns);
#  - 2500 x outer() with leaves of ~50 ns (spin 1 ns: two clock reads),
#    20000 leaf() calls: leaf's on-CPU share of its total.
# Prints Markdown tables.  Root.
set -u
SPAN='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'
T=$(mktemp -d /tmp/stats.XXXXXX)
trap 'rm -rf "$T"' EXIT
node='[.tree | .. | objects | select(.path? and ((.path | join(">")) == $p))][0]'
for b in "${@:-build}"; do
	B=$(realpath "$b")
	W=$B/e2e-nested
	probes=(-e "uprobe:$W:outer" -e "uprobe:$W:mid" -e "uprobe:$W:leaf" -e "uprobe:$W:gp" -e "$SPAN")
	echo "### $B"
	"$B/iprof" -q -f json -o "$T/one.json" "${probes[@]}" -- "$W" 1 1000 >/dev/null || exit 1
	echo "one call of outer: $(jq -r --arg p outer "$node"' | "min \(.min_ns) avg \(.avg_ns) max \(.max_ns) p50 \(.p50_ns) total \(.total_ns)"' "$T/one.json")"
	echo
	echo "| leaf spin | path | truth mean | avg | avg_err | avg / truth | within |"
	echo "|---|---|---|---|---|---|---|"
	for run in "2000 1000" "500 20000"; do
		set -- $run
		"$B/iprof" -q -f json -o "$T/c.json" "${probes[@]}" -- "$W" "$1" "$2" >"$T/c.truth" || exit 1
		for row in "outer outer" "outer>mid mid" "outer>mid>leaf leaf" "outer>gp gp"; do
			set -- $row
			t=$(sed -n "s/^$2.mean_ns=//p" "$T/c.truth")
			jq -r --arg p "$1" --argjson t "$t" --arg s "${run#* }" "$node"' |
				(.avg_err_ns // 0) as $e | ([$e, $t * 0.1, 200] | max) as $tol |
				"| \($s) | \($p) | \($t) | \(.avg_ns) | \(.avg_err_ns) | \(.avg_ns / $t * 100 | round / 100) | \(if ((.avg_ns - $t) | fabs) <= $tol then "yes" else "no" end) |"' "$T/c.json"
		done
	done
	"$B/iprof" -q -f json -o "$T/cpu.json" "${probes[@]}" -- "$W" 2500 1 >/dev/null || exit 1
	echo
	echo "CPU-bound leaf (20000 calls): $(jq -r --arg p 'outer>mid>leaf' "$node"' | "avg \(.avg_ns) ns +- \(.avg_err_ns) below_resolution \(.below_resolution); on-CPU \(.oncpu_ns) of total \(.total_ns): \(if .total_ns > 0 then (.oncpu_ns / .total_ns * 100 | round) else "-" end)%; runq \(.runq_ns)"' "$T/cpu.json")"
	jq -c '.calibration.mechanisms[] | {mech, in_mean_ns, out_mean_ns, sd_ns, drift_ns}' "$T/cpu.json"
	echo
done
