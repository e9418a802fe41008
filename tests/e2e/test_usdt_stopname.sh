#!/usr/bin/env bash
# vm-timeout: 300 (jq runs: slow under TCG)
# A span whose stops name the call they end (issue 46 item 2's last
# sentence, `name ARG stop ARG2`), against tools/usdt-strings' own counts:
# a req__done that names another request than the open one ("MISMATCH",
# the last M requests) pairs with nothing, is counted per path
# (name_mismatch) and in the run (loss.name_mismatches), and its frame is
# closed as unwound by the fn__return around it; an fn__entry without its
# return ("lost", the first L requests) is closed as unwound when
# fn__return("app.py", "main") finds main's frame further up, so every
# main is one call at the top, never a parent of the next request.  A
# recording replays it; the table and seed summaries say it; without
# `stop` the same run pairs the mismatched stops as before.
. "$(dirname "$0")/lib.sh"
need_root
W=$BUILD/usdt-strings
[ -x "$W" ] || skip "no $W (sys/sdt.h missing at build time: systemtap-sdt-dev)"

N=22
K=3
M=3
L=2
REQ="span req = usdt:$W:iprofs:req__start -> usdt:$W:iprofs:req__done name str(arg0)"
FN="span fn = usdt:$W:fn__entry -> usdt:$W:fn__return name str(arg0):str(arg1)"
"$IPROF" record -q --no-compensate -o "$TMP/r.rec" -e "$REQ stop str(arg0)" \
	-e "$FN stop str(arg0):str(arg1)" \
	-- "$W" --calls $N --inner $K --mismatch $M --lost $L >"$TMP/truth" 2>"$TMP/err"
check "record: exit status" "$?" 0
cat "$TMP/truth" "$TMP/err"
k=()
for i in 0 1 2 3; do k[i]=$(truth kind$i.count "$TMP/truth"); done
check "workload: kinds" "${k[*]}" "6 6 5 5"
check "workload: mismatches, lost" "$(truth mismatch.count "$TMP/truth") $(truth lost.count "$TMP/truth")" "$M $L"
# the last M requests (i = 19, 20, 21) are of kinds 3, 0, 1
mis=(1 1 0 1)
"$IPROF" report -f json -o "$TMP/r.json" "$TMP/r.rec" 2>>"$TMP/err"
check "report json: exit status" "$?" 0
# FIELD of the node at path (names joined by '>'), 0 where absent
jf() {
	jq -r --arg p "$1" --arg f "$2" '[.. | objects | select(.path? and (.path | join(">")) == $p) | .[$f] // 0] | add // empty' "$TMP/r.json"
}
MAIN="fn(app.py:main)"
# the long path is cut at 63 bytes and marked (…: its label ends there)
LONG=L12345678901234567890123456789012345678901234567890123456789012…
ODD='odd"q\\b;c d\xff\x01'
check "main: $N calls at the top" "$(jf "$MAIN" count)" "$N"
check "main: none unwound, open or mismatched" \
	"$(jf "$MAIN" unwound) $(jf "$MAIN" incomplete) $(jf "$MAIN" exited) $(jf "$MAIN" name_mismatch)" "0 0 0 0"
check "no main under main" "$(jf "$MAIN>$MAIN" count)" ""
i=0
for name in "GET /index" "POST /api;v=1" "$ODD" "$LONG"; do
	check "req($name): calls" "$(jf "$MAIN>req($name)" count)" "$((k[i] - mis[i]))"
	check "req($name): name mismatches" "$(jf "$MAIN>req($name)" name_mismatch)" "${mis[i]}"
	check "req($name): unwound (by main's stop)" "$(jf "$MAIN>req($name)" unwound)" "${mis[i]}"
	check "req($name)>fetch: calls" "$(jf "$MAIN>req($name)>fn(lib/util.py:fetch)" count)" "$((k[i] * K))"
	i=$((i + 1))
done
check "lost: no call, $L unwound" "$(jf "$MAIN>fn(lib/util.py:lost)" count) $(jf "$MAIN>fn(lib/util.py:lost)" unwound)" "0 $L"
check "NULL path: paired ((fault) both sides)" "$(jf "req((fault))" count) $(jf "req((fault))" name_mismatch)" "1 0"
check "run: loss.name_mismatches" "$(jq -r '.loss.name_mismatches' "$TMP/r.json")" "$M"
check "run: nothing out of sync" "$(jq -c '[.loss.mismatches, .loss.skipped_records, .loss.discarded_frames]' "$TMP/r.json")" "[0,0,0]"

"$IPROF" report -o "$TMP/r.txt" "$TMP/r.rec" 2>/dev/null
check "table: summary line" \
	"$(grep -cxF "name mismatch: $MAIN > req(GET /index): 1 stop of another name, not paired (the frame stays open)" "$TMP/r.txt")" 1
check "table: note under the row" \
	"$(grep -cE '^ +\(1 stop of another name, not paired\)$' "$TMP/r.txt")" 3
"$IPROF" report -f seed -o "$TMP/r.seed" "$TMP/r.rec" 2>/dev/null
check "seed: summary line" \
	"$(grep -cxF "# name mismatch: $MAIN > req(POST /api;v=1) count=1" "$TMP/r.seed")" 1

# without `stop`: the stops pair with the open frame whatever they name
"$IPROF" -q --no-compensate -f json -o "$TMP/plain.json" -e "$REQ" -e "$FN" \
	-- "$W" --calls $N --inner $K --mismatch $M >/dev/null 2>"$TMP/err2"
check "plain: exit status" "$?" 0
check "plain: req(GET /index) paired ${k[0]} times" \
	"$(jq -r --arg p "$MAIN>req(GET /index)" '[.. | objects | select(.path? and (.path | join(">")) == $p) | .count] | add' "$TMP/plain.json")" "${k[0]}"
check "plain: no name_mismatches" "$(jq -r '.loss.name_mismatches // 0' "$TMP/plain.json")" 0

# errors: file:line:col
"$IPROF" -q -e "$REQ stop str(arg1)" -- "$W" --calls 1 >/dev/null 2>"$TMP/bad"
check "stop str(arg1): exit status" "$?" 2
cat "$TMP/bad"
check "stop str(arg1): message" "$(grep -c -- "-e:1:$((${#REQ} + 11)): stop str(arg1): USDT probe iprofs:req__done has 1 argument" "$TMP/bad")" 1
"$IPROF" -q -e "$REQ stop arg0" -- "$W" --calls 1 >/dev/null 2>"$TMP/bad"
check "stop arg0 (shape): exit status" "$?" 2
cat "$TMP/bad"
check "stop arg0 (shape): message" "$(grep -c -- "-e:1:$((${#REQ} + 7)): stop names the call as name does: str(ARG), one string" "$TMP/bad")" 1
finish
