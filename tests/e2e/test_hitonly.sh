#!/usr/bin/env bash
# A user function whose return iprof cannot see, though it returns (an
# indirect jmp that is no bounded jump table, and no uretprobe: --returns
# sites), is counted where it is called and never becomes a parent
# (IPROF_REC_HIT; issue 43, the new user's ExecutorRun, Perl_leave_scope,
# PyObject_Malloc): exact counts against tests/e2e/helpers/hitonly.c, no
# times ("-", JSON null), in every format.  Before, its frame never popped:
# count 0, and the getppid span after it nested under it.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-hitonly
[ -x "$W" ] || { bad "e2e-hitonly not built"; finish; }
N=40
M=5
P=(--returns sites -e "uprobe:$W:parent" -e "uprobe:$W:hop" -e "uprobe:$W:other"
	-e 'span getppid = tp:syscalls:sys_enter_getppid -> tp:syscalls:sys_exit_getppid')

"$IPROF" --dry-run "${P[@]}" >"$TMP/plan" 2>&1
check "dry-run: hop counted only, with why" \
	"$(grep -c '^hop .*(counted only (its return cannot be seen: no return sites, an indirect jmp at +0x7 (jmp rax) that is no bounded jump table' "$TMP/plan")" 1

"$IPROF" record -o "$TMP/r.rec" "${P[@]}" -- "$W" $N $M >"$TMP/out" 2>"$TMP/err"
check "exit status" "$?" 0
check "the program's own count" "$(truth hop "$TMP/out")" $N
"$IPROF" report -f json -o "$TMP/j.json" "$TMP/r.rec" 2>>"$TMP/err"
check "report: exit status" "$?" 0
check "stderr says hop is counted only" \
	"$(grep -c '^iprof: hop: counted only (its return cannot be seen' "$TMP/err")" 1

# five counted-only timers (hop under five names): two warned of in full,
# the other three in one line that names them (newcomer trial 5: a glob
# over libtcl printed 50 lines of 470 bytes)
"$IPROF" -q -o /dev/null --returns sites -e "uprobe:$W:hop as h1" -e "uprobe:$W:hop as h2" \
	-e "uprobe:$W:hop as h3" -e "uprobe:$W:hop as h4" -e "uprobe:$W:hop as h5" \
	-- "$W" 1 0 >/dev/null 2>"$TMP/err5"
check "five counted only: exit status" "$?" 0
check "five counted only: two in full" "$(grep -c '^iprof: h[0-9]: counted only (its return' "$TMP/err5")" 2
check "five counted only: the others in one line" \
	"$(grep -c '^iprof: 3 more timers counted only (their returns cannot be seen): h3, h4, h5 (--dry-run' "$TMP/err5")" 1
J=$TMP/j.json
check "parent count" "$(jnode "$J" parent count)" "$(truth parent "$TMP/out")"
check "parent>hop count: every call, where it was made" "$(jnode "$J" "parent>hop" count)" "$(truth hop "$TMP/out")"
check "parent>hop counted_only" "$(jnode "$J" "parent>hop" counted_only)" "$(truth hop "$TMP/out")"
check "parent>hop: no time (null)" "$(jq -c '[.tree[] | .. | objects | select(.path? == ["parent","hop"]) | .total_ns, .self_ns, .avg_ns, .max_ns][0:4]' "$J")" "[null,null,null,null]"
check "parent>hop: none unwound" "$(jnode "$J" "parent>hop" unwound)" 0
check "parent>getppid count: beside hop" "$(jnode "$J" "parent>getppid" count)" "$N"
check "parent>other count: beside hop" "$(jnode "$J" "parent>other" count)" "$(truth other "$TMP/out")"
check "hop at the top level: counted there" "$(jnode "$J" hop count)" "$(truth root_hop "$TMP/out")"
check "getppid at the top level: not under hop" "$(jnode "$J" getppid count)" "$M"
check "nothing under hop" "$(jq '[.tree[] | .. | objects | select(.path? != null and (.path | index("hop")) != null and (.path | last) != "hop")] | length' "$J")" 0
check "nothing lost or unwound" "$(jq -c '[.loss | to_entries[] | select(.value != 0) | .key]' "$J")" "[]"
check "probes: hop's count" "$(jq -r '.probes[] | select(.name == "hop") | .count' "$J")" $((N + M))

# the table: COUNT, "-" times, the summary line; the recording replayed
"$IPROF" report -f table "$TMP/r.rec" >"$TMP/t" 2>&1
check "table: hop under parent" "$(awk '$1 == "hop" && /^  / { print $2, $3, $4 }' "$TMP/t")" "$N - -"
check "table: summary line" "$(grep -c "^counted only: hop $((N + M)) calls (return not seen: " "$TMP/t")" 1
"$IPROF" report -f seed "$TMP/r.rec" >"$TMP/s" 2>&1
check "seed: hop's count under parent" "$(grep -c "^  hop, .*count = $N," "$TMP/s")" 1
"$IPROF" report -f folded --weight count "$TMP/r.rec" >"$TMP/f" 2>&1
check "folded --weight count: parent;hop" "$(awk '$1 ~ /;hop$/ { print $2 }' "$TMP/f")" "$N"
"$IPROF" report -f openmetrics "$TMP/r.rec" >"$TMP/om" 2>&1
check "openmetrics: counted only" "$(grep -c "^iprof_counted_only_total{.*} $N\$" "$TMP/om")" 1
"$IPROF" report -f chrome -o "$TMP/c.json" "$TMP/r.rec" >/dev/null 2>&1
check "chrome: an instant event per call" "$(jq '[.traceEvents[] | select(.name == "hop" and .ph == "i")] | length' "$TMP/c.json")" $((N + M))
cat "$TMP/err"
finish
