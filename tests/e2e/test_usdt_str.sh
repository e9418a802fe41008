#!/usr/bin/env bash
# vm-timeout: 400 (many jq runs: 110 s under TCG on 7.2, a loaded host)
# Timers named by a string (issue 46 item 2, `name str(argN)`), against
# tools/usdt-strings' own counts: a USDT span named by req__start's path is
# a node per distinct path with exactly that path's requests, nested under
# a python-like span named by two strings (file:function) and holding the
# inner one; a uprobe timer named by str(arg0) nests under the span of the
# same name; a path longer than iprof reads is cut to 63 bytes, marked
# "…" after them (JSON "truncated": true), one of exactly 63 bytes is not;
# a NULL path is "(fault)"; a name with a quote, a backslash, ';', a space and
# bytes that are not UTF-8 is escaped in every format (JSON, folded,
# OpenMetrics, chrome, seed); --max-paths caps the names ([other]); a
# recording replays them; errors name file:line:col.
. "$(dirname "$0")/lib.sh"
need_root
W=$BUILD/usdt-strings
[ -x "$W" ] || skip "no $W (sys/sdt.h missing at build time: systemtap-sdt-dev)"

N=22
K=3
REQ="span req = usdt:$W:iprofs:req__start -> usdt:$W:iprofs:req__done name str(arg0)"
FN="span fn = usdt:$W:fn__entry -> usdt:$W:fn__return name str(arg0):str(arg1)"
LONG=L12345678901234567890123456789012345678901234567890123456789012
CUT="$LONG…" # the label of a string cut after its first 63 bytes
ODD='odd"q\\b;c d\xff\x01'
"$IPROF" record -q -o "$TMP/r.rec" -e "$REQ" -e "$FN" \
	-e "uprobe:$W:handle name str(arg0)" \
	-- "$W" --calls $N --inner $K >"$TMP/truth" 2>"$TMP/err"
check "record: exit status" "$?" 0
cat "$TMP/truth" "$TMP/err"
k=()
for i in 0 1 2 3; do k[i]=$(truth kind$i.count "$TMP/truth"); done
check "workload: kinds" "${k[*]}" "6 6 5 5"
"$IPROF" report -f json -o "$TMP/r.json" "$TMP/r.rec" 2>>"$TMP/err"
check "report json: exit status" "$?" 0
# count of the node at path (names joined by '>')
jcount() {
	jq -r --arg p "$1" '[.. | objects | select(.path? and (.path | join(">")) == $p) | .count] | add // empty' "$TMP/r.json"
}
M="fn(app.py:main)"
check "main count" "$(jcount "$M")" "$N"
i=0
for name in "GET /index" "POST /api;v=1" "$ODD" "$CUT"; do
	check "req($name) count" "$(jcount "$M>req($name)")" "${k[i]}"
	check "req($name)>handle count" "$(jcount "$M>req($name)>handle($name)")" "${k[i]}"
	check "req($name)>fetch count" "$(jcount "$M>req($name)>fn(lib/util.py:fetch)")" "$((k[i] * K))"
	i=$((i + 1))
done
check "NULL path: req((fault))" "$(jcount "req((fault))")" 1
check "NULL path: handle((fault))" "$(jcount "req((fault))>handle((fault))")" 1
check "NULL path: counted (req and handle)" "$(jq -r '.loss.name_faults' "$TMP/r.json")" 2
check "names: req, handle, fn" "$(jq -r '[.. | objects | select(.path?) | .name] | unique | length' "$TMP/r.json")" 12
check "no unnamed req" "$(jcount req)" ""
check "cut names: JSON truncated, on those only" \
	"$(jq -c '[.. | objects | select(.path? and .truncated) | .name] | unique' "$TMP/r.json")" \
	"$(jq -nc --arg c "$CUT" '["handle(\($c))", "req(\($c))"]')"
check "cut names: truncated true or absent" \
	"$(jq '[.. | objects | select(.path?) | .truncated] | unique' "$TMP/r.json" | tr -d ' \n')" "[null,true]"

# every format: the odd name escaped as it must be there (raw times: a
# node whose self time compensates to 0 has no folded line)
"$IPROF" report --no-compensate -f folded -o "$TMP/r.folded" "$TMP/r.rec" 2>/dev/null
check "folded: odd name ('_' for ';' and space)" \
	"$(grep -c '^fn(app.py:main);req(odd"q\\\\b_c_d\\xff\\x01) [0-9]*$' "$TMP/r.folded")" 1
check "folded: long name cut, marked" "$(grep -c "^fn(app.py:main);req($CUT) " "$TMP/r.folded")" 1
"$IPROF" report --no-compensate -f openmetrics -o "$TMP/r.om" "$TMP/r.rec" 2>/dev/null
# (label values escape '"' and '\' with a '\')
OMODD='timer="req(odd\"q\\\\b;c d\\xff\\x01)"} '
check "openmetrics: odd timer label" \
	"$(grep '^iprof_duration_seconds_count{' "$TMP/r.om" | grep -cF "$OMODD${k[2]}")" 1
if command -v iconv >/dev/null; then # (not in the VM tier)
	check "openmetrics: valid UTF-8" "$(iconv -f UTF-8 -t UTF-8 "$TMP/r.om" >/dev/null 2>&1; echo $?)" 0
fi
"$IPROF" report -f chrome -o "$TMP/tl.json" "$TMP/r.rec" 2>/dev/null
check "chrome: odd events" "$(jq -r --arg n "req($ODD)" '[.traceEvents[] | select(.name == $n)] | length' "$TMP/tl.json")" "${k[2]}"
check "chrome: cut name marked" "$(jq -r --arg n "req($CUT)" '[.traceEvents[] | select(.name == $n)] | length' "$TMP/tl.json")" "${k[3]}"
check "chrome: fetch events" "$(jq -r '[.traceEvents[] | select(.name == "fn(lib/util.py:fetch)")] | length' "$TMP/tl.json")" "$((N * K))"
"$IPROF" report --no-compensate -f seed -o "$TMP/r.seed" "$TMP/r.rec" 2>/dev/null
check "seed: odd name" "$(grep -cF "  req($ODD), " "$TMP/r.seed")" 1
"$IPROF" report --no-compensate -f pprof -o "$TMP/r.pb" "$TMP/r.rec" 2>/dev/null
check "pprof: exit status" "$?" 0
# (awk's index(): busybox's grep -F misreads a backslash in the pattern)
check "pprof: odd name in its strings" \
	"$(zcat "$TMP/r.pb" | S="req($ODD)" awk 'index($0, ENVIRON["S"]) { n++ } END { print n + 0 }')" 1

# live, --max-paths 6: the four kinds and p0, p1 named, the rest in [other]
"$IPROF" -q -f json -o "$TMP/cap.json" --max-paths 6 -e "$REQ" \
	-- "$W" --calls 4 --distinct 4 >/dev/null 2>"$TMP/err2"
check "--max-paths: exit status" "$?" 0
cat "$TMP/err2"
check "--max-paths: names" "$(jq -r '[.tree[] | .name] | sort | join(",")' "$TMP/cap.json")" \
	"[other],req(GET /index),req($CUT),req(POST /api;v=1),req($ODD),req(p0),req(p1)"
check "--max-paths: p0" "$(jq -r '[.tree[] | select(.name == "req(p0)") | .count] | add' "$TMP/cap.json")" 2
check "--max-paths: [other] (p2, p3 twice, NULL)" "$(jq -r '[.tree[] | select(.name == "[other]") | .count] | add' "$TMP/cap.json")" 5

# a tracepoint's filename: 63 bytes whole, 64 and 100 cut to the same
# 63 and marked (the byte after the 63 read tells them apart)
p63=$TMP/$(printf '%*s' $((62 - ${#TMP})) '' | tr ' ' x)
for f in "$p63" "${p63}y" "${p63}$(printf '%37s' '' | tr ' ' z)"; do : >"$f"; done
"$IPROF" -q -f json -o "$TMP/open.json" \
	-e 'span op = tp:syscalls:sys_enter_openat -> tp:syscalls:sys_exit_openat name str(filename)' \
	-- cat "$p63" "${p63}y" "${p63}$(printf '%37s' '' | tr ' ' z)" 2>"$TMP/err3"
check "openat: exit status" "$?" 0
check "openat: 63 bytes: whole, once" \
	"$(jq -c --arg n "op($p63)" '[.tree[] | select(.name == $n) | [.count, .truncated]]' "$TMP/open.json")" "[[1,null]]"
check "openat: 64 and 100 bytes: cut, marked, twice" \
	"$(jq -c --arg n "op($p63…)" '[.tree[] | select(.name == $n) | [.count, .truncated]]' "$TMP/open.json")" "[[2,true]]"

# str() of a number that is no address (req__start's arg1 is the request's
# index, 0 included): every call named (fault), counted and said
"$IPROF" -q --no-compensate -o "$TMP/num.txt" -f json \
	-e "span req = usdt:$W:iprofs:req__start -> usdt:$W:iprofs:req__done name str(arg1)" \
	-- "$W" --calls 5 --inner 0 >/dev/null 2>"$TMP/err4"
check "str(index): exit status" "$?" 0
check "str(index): req((fault)) = every request" \
	"$(jq -r '[.tree[] | select(.name == "req((fault))") | .count] | add' "$TMP/num.txt")" 6
check "str(index): loss.name_faults" "$(jq -r '.loss.name_faults' "$TMP/num.txt")" 6
"$IPROF" report -o "$TMP/num.tab" "$TMP/r.rec" 2>/dev/null
check "table: names not read" \
	"$(grep -c '^names not read: 2 calls named (fault): str() of an address that could not be read' "$TMP/num.tab")" 1

# errors: file:line:col
"$IPROF" -q -e "span x = usdt:$W:req__start -> usdt:$W:req__done name str(arg2)" -- "$W" --calls 1 >/dev/null 2>"$TMP/bad"
check "str(arg2): exit status" "$?" 2
cat "$TMP/bad"
check "str(arg2): message" "$(grep -c -- "-e:1:$((2 * ${#W} + 55)): name str(arg2): USDT probe iprofs:req__start has 2 arguments" "$TMP/bad")" 1
"$IPROF" -q -e "span x = usdt:$W:fn__entry -> usdt:$W:fn__return name str(arg0):str(arg3)" -- "$W" --calls 1 >/dev/null 2>"$TMP/bad"
check "str(arg3) second: exit status" "$?" 2
cat "$TMP/bad"
check "str(arg3) second: message" "$(grep -c -- "-e:1:[0-9]*: name str(arg3): USDT probe iprofs:fn__entry has 2 arguments" "$TMP/bad")" 1
UNCLOSED="uprobe:$W:handle name str(arg0"
"$IPROF" -q -e "$UNCLOSED" -- "$W" --calls 1 >/dev/null 2>"$TMP/bad"
check "str(arg0 unclosed: exit status" "$?" 2
cat "$TMP/bad"
check "str(arg0 unclosed: message" "$(grep -c -- "-e:1:$((${#UNCLOSED} + 1)): .*')' after str(argN" "$TMP/bad")" 1
finish
