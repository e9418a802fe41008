#!/usr/bin/env bash
# Not a test (no vm-suite line: run it by name): what a longjmp or a
# siglongjmp across frames timed by uretprobes does to the program and to
# iprof's tree (bench/README.md, "longjmp across uretprobes"), on this
# host or in the VM tier's kernels:
#
#   sudo BUILD=build tests/vm/bench_longjmp.sh
#   sudo IPROF_VM_SUITE=unstable tests/vm/run.sh bench_longjmp
#
# tools/longjmp-workload --calls N (10) --depth D (50), every function of
# it timed, once per --returns mode in MODES ("uretprobe sites"); one line
# per scenario (the workload's drivers: one, two, deep, sig, tail):
#   exit      iprof's exit status, and whether the program printed its
#             ground truth (it ran to its end: "lived")
#   unwound   frames of the scenario closed as unwound / frames its
#             longjmps left (N x 1, 2, D, 2; 0 for tail)
#   after     after() calls under the driver / N (a call nested under a
#             frame left open is not); for tail, under tail_after (its
#             tail callee: under it by uretprobe, beside it at return sites)
#   deepest   the scenario's deepest path / its deepest real one (2, 3,
#             D+1, 3, 3: drv_tail > tail_after > after)
. "$(dirname "$0")/../e2e/lib.sh"
need_root

W=$BUILD/longjmp-workload
[ -x "$W" ] || skip "$W not built"
N=${N:-10} D=${D:-50}
args=()
for f in drv_one leaf_one drv_two mid_two leaf_two drv_deep rec_deep drv_sig \
	work_sig on_sig drv_tail tail_after after; do
	args+=(-e "uprobe:$W:$f")
done
echo "kernel $(uname -r), N=$N D=$D, $("$IPROF" --version 2>&1 | head -1)"
for m in ${MODES:-uretprobe sites}; do
	"$IPROF" -q -f json --json-tree flat -o "$TMP/r.json" --returns "$m" "${args[@]}" \
		-- "$W" --calls "$N" --depth "$D" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	lived=died
	[ -n "$(truth calls "$TMP/out")" ] && lived=lived
	for s in one:$N:2 two:$((2 * N)):3 deep:$((D * N)):$((D + 1)) sig:$((2 * N)):3 tail:0:3; do
		IFS=: read -r sc left deep <<<"$s"
		a=after
		[ "$sc" = tail ] && a=tail_after,after
		jq -r --arg d "drv_$sc" --arg a "$a" '[.nodes[] | select(.path[0] == $d)] |
			"\([.[].unwound] | add) \([.[] | select(.path == [$d] + ($a | split(","))) | .count] | add // 0) \([.[].depth] | max)"' \
			"$TMP/r.json" 2>/dev/null >"$TMP/s" || echo "- - -" >"$TMP/s"
		read -r u a dd <"$TMP/s"
		printf '%-9s %-4s exit %s %s  unwound %s/%s  after %s/%s  deepest %s/%s\n' \
			"$m" "$sc" "$rc" "$lived" "$u" "$left" "$a" "$N" "$dd" "$deep"
	done
done
