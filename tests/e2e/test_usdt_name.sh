#!/usr/bin/env bash
# Timers named by an argument (issue 46 item 2), against
# tools/usdt-workload's own counts: a USDT span named by req__start's
# arg1 (the request's kind, i % 3) is a node per kind with exactly that
# kind's requests; a uprobe timer named by an integer argument
# (kind_hit(k)) nests under the span of the same kind; --max-paths caps
# the names ([other] beyond it); a recording replays the names; chrome,
# JSON and folded carry them; a name past the probe's arguments and a
# named keyed span are refused with file:line:col.
. "$(dirname "$0")/lib.sh"
need_root
W=$BUILD/usdt-workload
[ -x "$W" ] || skip "no $W (sys/sdt.h missing at build time: systemtap-sdt-dev)"

N=61
SPAN="span req = usdt:$W:iprofw:req__start -> usdt:$W:iprofw:req__done name arg1"
"$IPROF" -q -f seed -o "$TMP/rep" -e "$SPAN" \
	-e "uprobe:$W:kind_hit name arg0:s32" -e "uprobe:$W:work" \
	-- "$W" --calls $N --spin-us 50 >"$TMP/truth" 2>"$TMP/err"
check "iprof exit status" "$?" 0
cat "$TMP/rep" "$TMP/err"
k0=$(truth kind0.count "$TMP/truth")
k1=$(truth kind1.count "$TMP/truth")
k2=$(truth kind2.count "$TMP/truth")
check "workload: kinds" "$k0 $k1 $k2" "21 20 20"
for k in 0 1 2; do
	want=$(truth kind$k.count "$TMP/truth")
	check "req($k) count" "$(seed_field "req($k)" count "$TMP/rep")" "$want"
	check "req($k)>kind_hit($k) count" "$(seed_field "req($k)>kind_hit($k)" count "$TMP/rep")" "$want"
	check "req($k)>work count" "$(seed_field "req($k)>work" count "$TMP/rep")" "$want"
done
check "no unnamed req" "$(seed_field req count "$TMP/rep")" ""
check "no other names" "$(grep -c '^ *\(req\|kind_hit\)(' "$TMP/rep")" 6

# --max-paths 2: two names, the third kind's requests in [other]
"$IPROF" -q -f seed -o "$TMP/cap" --max-paths 2 -e "$SPAN" \
	-- "$W" --calls $N --spin-us 10 >"$TMP/truth2" 2>"$TMP/err2"
check "--max-paths: exit status" "$?" 0
cat "$TMP/cap" "$TMP/err2"
check "--max-paths: req(0)" "$(seed_field "req(0)" count "$TMP/cap")" "$k0"
check "--max-paths: req(1)" "$(seed_field "req(1)" count "$TMP/cap")" "$k1"
check "--max-paths: req(2) in [other]" "$(seed_field "[other]" count "$TMP/cap")" "$k2"
check "--max-paths: no req(2)" "$(seed_field "req(2)" count "$TMP/cap")" ""

# a recording replays the names; chrome and JSON from it, folded
"$IPROF" record -q -o "$TMP/r.rec" -e "$SPAN" -e "uprobe:$W:kind_hit name arg0:s32" \
	-- "$W" --calls $N --spin-us 10 >/dev/null 2>"$TMP/err3"
check "record: exit status" "$?" 0
"$IPROF" report -f seed -o "$TMP/replay" "$TMP/r.rec" 2>>"$TMP/err3"
check "report: exit status" "$?" 0
cat "$TMP/replay" "$TMP/err3"
check "replay: req(0)>kind_hit(0)" "$(seed_field "req(0)>kind_hit(0)" count "$TMP/replay")" "$k0"
check "replay: req(2)" "$(seed_field "req(2)" count "$TMP/replay")" "$k2"
"$IPROF" report -f chrome -o "$TMP/tl.json" "$TMP/r.rec" 2>/dev/null
check "chrome: req(1) events" "$(grep -o '"name":"req(1)"' "$TMP/tl.json" | wc -l)" "$k1"
check "chrome: kind_hit(2) events" "$(grep -o '"name":"kind_hit(2)"' "$TMP/tl.json" | wc -l)" "$k2"
"$IPROF" report -f json -o "$TMP/r.json" "$TMP/r.rec" 2>/dev/null
check "json: req(0)'s count" "$(jq -r '[.. | objects | select(.name? == "req(0)") | .count] | .[0]' "$TMP/r.json")" "$k0"
"$IPROF" report -f folded -o "$TMP/r.folded" "$TMP/r.rec" 2>/dev/null
# (a call's own time may be compensated to 0: such a line is left out)
check "folded: req(1)" "$(grep -c '^req(1) [0-9]*$' "$TMP/r.folded")" 1
check "folded: names only" "$(grep -c '^req[ ;]' "$TMP/r.folded")" 0

# refusals: a name past the probe's arguments; a named keyed span
"$IPROF" -q -e "span x = usdt:$W:req__start -> usdt:$W:req__done name arg2" -- "$W" --calls 1 >/dev/null 2>"$TMP/bad"
check "name arg2: exit status" "$?" 2
cat "$TMP/bad"
check "name arg2: message" "$(grep -c -- "-e:1:$((2 * ${#W} + 51)): name arg2: USDT probe iprofw:req__start has 2 arguments" "$TMP/bad")" 1
"$IPROF" -q -e "span b = tp:block:block_rq_issue -> tp:block:block_rq_complete name sector key dev" -- true >/dev/null 2>"$TMP/bad2"
check "named keyed span: exit status" "$?" 2
cat "$TMP/bad2"
check "named keyed span: message" "$(grep -c -- "-e:1:[0-9]*: name applies to spans on one thread" "$TMP/bad2")" 1
finish
