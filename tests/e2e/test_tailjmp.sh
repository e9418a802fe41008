#!/usr/bin/env bash
# A tail jump to a local function without a symbol (issue 43: liblzma's
# lzma_physmem, postgres's CommitTransactionCommand) is timed at the rets
# of the code it jumps to, read whole as its .eh_frame FDE bounds it
# (src/probe/retsite.c, fde_range()): tests/e2e/helpers/tailjmp.c's
# tj_only (one jmp), tj_mixed (a ret and that jmp) and tj_hot (a jmp into
# its cold part, entered with its frame set up) under --returns sites:
# exact counts, none unwound or left open at exit, and tj_after, called
# after them, a root beside them, never under them; tj_direct, a call
# of the local function, closes none of their frames.
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
check "dry-run: tj_only stops at its return site" \
	"$(grep -cE '^tj_only .*\(stops at 1 return site\)' "$TMP/dry")" 1
for f in tj_only tj_mixed tj_hot tj_after tj_direct; do
	want=$(truth "$f" "$TMP/out")
	check "$f: calls (the workload's count)" "$(jnode "$TMP/r.json" "$f" count)" "$want"
	check "$f: none unwound" "$(jnode "$TMP/r.json" "$f" unwound)" 0
	within "$f: raw_total_ns (timed)" "$(jnode "$TMP/r.json" "$f" raw_total_ns)" 1 1e18
	check "$f: none left open at exit" "$(jnode "$TMP/r.json" "$f" exited)" 0
done
check "tj_after never under tj_only" "$(jnode "$TMP/r.json" 'tj_only>tj_after' count)" ""
# .Ltj_local's ret is a site of both: each call of it closes a frame of
# one of them (or of neither: tj_direct's calls), and is an orphan stop
# of the other, never a wrong frame closed
probe() { jq -r --arg n "$1" ".probes[] | select(.name == \$n) | .$2" "$TMP/r.json"; }
check "tj_only: orphan stops (tj_mixed(0)'s and tj_direct's calls of it)" "$(probe tj_only orphan_stops)" $((2 * N))
check "tj_mixed: orphan stops (tj_only's and tj_direct's calls of it)" "$(probe tj_mixed orphan_stops)" $((2 * N))
check "tj_hot: no orphan stop" "$(probe tj_hot orphan_stops)" 0
check "no frame open at exit" "$(jq .exited.timers "$TMP/r.json")" 0
cat "$TMP/err"
finish
