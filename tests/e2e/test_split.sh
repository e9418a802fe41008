#!/usr/bin/env bash
# Split entries (issue 45 item 5): tests/e2e/helpers/nested.c's functions
# start with `sub $8,%rsp`, an instruction x86 uprobes single-step (about
# 17 us a hit on this project's hosts, sd 3.4-3.7 us), after the entry's
# timestamp: inside every call.  With uretprobes (--returns auto gives this
# C program them), iprof keeps the uretprobe's breakpoint there, marking the
# time only, and starts each timer at the function's first `call`, the
# single step in the caller, measured per call (the gap) and taken off it.
#
#  - --dry-run says which entries are split, and where;
#  - the calibration's class is "uprobe (entry split)/uretprobe", its gap
#    measured and out of its in + out;
#  - counts exact against the program's own;
#  - a 1 us leaf is resolved (not "<res"), its error bar below a third
#    of IPROF_SPLIT=0's (the single step inside made it 4.5 us idle:
#    bench/README.md; a loaded host widens both, cold_ns); each
#    path's median within 10% or 300 ns of the untraced truth, plus, of
#    what compensation took off one call less the gaps (the probes' other
#    parts), a quarter below (drift_ns's floor; at most half the truth)
#    and half above (a loaded host makes the probes dearer in the run
#    than in the calibration: a CI's VMs beside once put outer's median
#    53% high): a gap left inside outer (13 x 17 us) or taken twice (0)
#    fails it;
#  - IPROF_SPLIT=0: the single-stepped class, nothing split.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-nested
[ -x "$W" ] || { bad "e2e-nested not built"; finish; }
SPAN='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'
probes=(-e "uprobe:$W:outer" -e "uprobe:$W:mid" -e "uprobe:$W:leaf" -e "uprobe:$W:gp" -e "$SPAN")
SPLIT='uprobe (entry split)/uretprobe'

"$IPROF" --dry-run "${probes[@]}" -- "$W" 1 1000 >"$TMP/dry" 2>&1
check "dry-run: exit status" "$?" 0
# each function's first call, from its start (objdump's addresses)
first_call() {
	objdump -d --no-show-raw-insn "$W" | awk -v f="<$1>:" '
		$2 == f { s = $1; p = 1; next }
		p && /call/ { sub(":", "", $1); print s, $1; exit }'
}
for f in outer mid leaf gp; do
	set -- $(first_call $f)
	check "dry-run: $f's entry split at its first call" \
		"$(grep "^$f " "$TMP/dry" | grep -o 'its start is at +0x[0-9a-f]*, the first it emulates' | head -1)" \
		"its start is at +$(printf '%#x' $((0x$2 - 0x$1))), the first it emulates"
done

n=2000
# the workload SCHED_FIFO (an idle host's, which item 5 asks for): no
# other job's task comes between its calls, iprof's and the truth's alike
# (ctest -j2 beside a CI's VMs put +2.5 us in outer's median otherwise)
"$IPROF" -q -f json -o "$TMP/s.json" "${probes[@]}" -- chrt -f 10 "$W" $n 1000 >"$TMP/s.truth" 2>"$TMP/err"
check "exit status" "$?" 0
jq -c '.calibration.mechanisms' "$TMP/s.json"
check "the split class calibrated" \
	"$(jq -r --arg m "$SPLIT" '[.calibration.mechanisms[] | select(.mech == $m) | .measured] | .[0]' "$TMP/s.json")" true
gap=$(jq -r --arg m "$SPLIT" '[.calibration.mechanisms[] | select(.mech == $m)][0].gap_mean_ns // 0' "$TMP/s.json")
inout=$(jq -r --arg m "$SPLIT" '[.calibration.mechanisms[] | select(.mech == $m)][0] | .in_mean_ns + .out_mean_ns' "$TMP/s.json")
# the gap is the single step and the traps around it: more than the
# rest of the probes' cost, which leaves it out
within "its gap ($gap ns) measured, above in + out ($inout ns)" "$gap" "$((inout + 1))" 1e9
for row in "outer outer" "outer>mid mid" "outer>mid>leaf leaf" "outer>gp gp" \
	"outer>gp>getppid getppid"; do
	set -- $row
	check "$1 count" "$(jnode "$TMP/s.json" "$1" count)" "$(truth "$2.count" "$TMP/s.truth")"
done
check "leaf resolved (below_resolution)" \
	"$(jq -r '[.tree | .. | objects | select(.path? == ["outer", "mid", "leaf"])][0].below_resolution' "$TMP/s.json")" false
split_err=$(jnode "$TMP/s.json" 'outer>mid>leaf' avg_err_ns)
# what compensation took off one call of each path, less the gaps of the
# split calls inside it (they were the probes' too, measured, not
# calibrated: no error of the calibration's in them)
for row in "outer outer 13" "outer>mid mid 2" "outer>mid>leaf leaf 0" "outer>gp gp 0"; do
	set -- $row
	t=$(truth "$2.p50_ns" "$TMP/s.truth")
	got=$(jnode "$TMP/s.json" "$1" p50_ns)
	sub=$(jq -r --arg p "$1" --argjson g "$gap" --argjson k "$3" \
		'[.tree | .. | objects | select(.path? and ((.path | join(">")) == $p))][0] |
		((.raw_total_ns - .total_ns) / .count - $k * $g | floor)' "$TMP/s.json")
	read -r lo hi < <(awk -v t="$t" -v s="$sub" 'BEGIN {
		a = t * 0.10; if (a < 300) a = 300; if (s < 0) s = 0
		l = a + 0.25 * s; if (l > t * 0.5 && t * 0.5 > a) l = t * 0.5
		printf "%d %d\n", t - l, t + a + 0.5 * s }')
	within "$1 p50 ($got) vs untraced truth ($t), less gaps $sub ns taken a call" \
		"$got" "$lo" "$hi"
done

IPROF_SPLIT=0 "$IPROF" --dry-run "${probes[@]}" -- "$W" 1 1000 >"$TMP/dry0" 2>&1
check "IPROF_SPLIT=0: nothing split" "$(grep -c 'entry split' "$TMP/dry0")" 0
IPROF_SPLIT=0 "$IPROF" -q -f json -o "$TMP/s0.json" -e "uprobe:$W:leaf" -- "$W" 200 1000 >"$TMP/s0.truth" 2>>"$TMP/err"
check "IPROF_SPLIT=0: exit status" "$?" 0
check "IPROF_SPLIT=0: the single-stepped class" \
	"$(jq -r '[.calibration.mechanisms[].mech] | join(",")' "$TMP/s0.json")" \
	"uprobe (entry single-stepped)/uretprobe"
check "IPROF_SPLIT=0: leaf count" "$(jnode "$TMP/s0.json" leaf count)" "$(truth leaf.count "$TMP/s0.truth")"
step_err=$(jnode "$TMP/s0.json" leaf avg_err_ns)
within "leaf's error bar split ($split_err ns) below a third of IPROF_SPLIT=0's ($step_err ns)" \
	"$split_err" 0 $((step_err / 3))
finish
