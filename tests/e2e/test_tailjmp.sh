#!/usr/bin/env bash
# A tail jump to a local function without a symbol (issue 43: liblzma's
# lzma_physmem, postgres's CommitTransactionCommand, python's
# PyDict_SetItem into insertdict) is a tail call like one to a named
# function: with the frame gone (.eh_frame's CFA = rsp+8 at the jmp) the
# timed call stops at the jmp (src/probe/retsite.c, entry_sp()); the
# local function's rets are no sites, so its other callers' calls stop
# nothing (no trap, no orphan stop: python3.11's dict inserts each
# trapped and counted as orphans before).  A thunk (the jmp its first
# instruction: tj_only) and a jmp into a cold part entered with the
# frame set up (tj_hot) still take the code's rets in (fde_range()).
# tests/e2e/helpers/tailjmp.c's tj_only, tj_mixed (a ret and that jmp
# after a test) and tj_hot under --returns sites: exact counts, none
# unwound or left open at exit, and tj_after, called after them, a root
# beside them, never under them; tj_direct, a call of the local
# function, closes none of their frames (an orphan stop of tj_only's,
# whose site its ret is, and of nobody else's).  tj_only's entry (its jmp,
# which the kernel emulates) is compensated as an emulated entry.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-tailjmp
[ -x "$W" ] || { bad "e2e-tailjmp not built"; finish; }
N=300
"$IPROF" -q -f json -o "$TMP/r.json" --returns sites \
	-e "uprobe:$W:tj_only" -e "uprobe:$W:tj_mixed" -e "uprobe:$W:tj_hot" \
	-e "uprobe:$W:tj_after" -e "uprobe:$W:tj_direct" -- "$W" $N >"$TMP/out" 2>"$TMP/err"
check "exit status" "$?" 0
"$IPROF" --dry-run --returns sites -e "uprobe:$W:tj_only" -- "$W" 1 >"$TMP/dry" 2>>"$TMP/err"
"$IPROF" --dry-run --returns sites -e "uprobe:$W:tj_mixed" -- "$W" 1 >>"$TMP/dry" 2>>"$TMP/err"
check "dry-run: tj_only, a thunk, stops at the ret it jumps to" \
	"$(grep -cE '^tj_only .*\(stops at 1 return site\)' "$TMP/dry")" 1
check "dry-run: tj_mixed stops at its ret and its jmp, a tail call" \
	"$(grep -cE '^tj_mixed .*\(stops at 2 return sites, 1 of them a tail call' "$TMP/dry")" 1
for f in tj_only tj_mixed tj_hot tj_after tj_direct; do
	want=$(truth "$f" "$TMP/out")
	check "$f: calls (the workload's count)" "$(jnode "$TMP/r.json" "$f" count)" "$want"
	check "$f: none unwound" "$(jnode "$TMP/r.json" "$f" unwound)" 0
	within "$f: raw_total_ns (timed)" "$(jnode "$TMP/r.json" "$f" raw_total_ns)" 1 1e18
	check "$f: none left open at exit" "$(jnode "$TMP/r.json" "$f" exited)" 0
done
check "tj_after never under tj_only" "$(jnode "$TMP/r.json" 'tj_only>tj_after' count)" ""
# .Ltj_local's ret is a site of the thunk tj_only only: each call of it
# not from tj_only (tj_mixed(0)'s tail call, tj_direct's) is an orphan
# stop of tj_only's; tj_mixed's and tj_hot's sites are their own
probe() { jq -r --arg n "$1" ".probes[] | select(.name == \$n) | .$2" "$TMP/r.json"; }
check "tj_only: orphan stops (tj_mixed(0)'s and tj_direct's calls of it)" "$(probe tj_only orphan_stops)" $((2 * N))
check "tj_mixed: no orphan stop" "$(probe tj_mixed orphan_stops)" 0
check "tj_hot: no orphan stop" "$(probe tj_hot orphan_stops)" 0
check "no frame open at exit" "$(jq .exited.timers "$TMP/r.json")" 0
# a thunk's first instruction, its jmp, is one the kernel emulates, as a
# push: its entry's class is the emulated one, not the single-stepped one
# (whose ~17 us a call taken off, on this host, read a 20 us thunk into
# spin() as <res: a newcomer's trial)
for r in sites uretprobe; do
	"$IPROF" -q -f json -o "$TMP/only-$r.json" --returns $r -e "uprobe:$W:tj_only" \
		-- "$W" 20 >/dev/null 2>>"$TMP/err"
	check "tj_only --returns $r: the emulated entry's class" \
		"$(jq -r '[.calibration.mechanisms[].mech] | join(",")' "$TMP/only-$r.json")" \
		"uprobe (entry emulated)/$([ $r = sites ] && echo "return sites" || echo uretprobe)"
done
cat "$TMP/err"
finish
