#!/usr/bin/env bash
# --format openmetrics and --listen: every document parses with the
# Prometheus client's OpenMetrics parser (python3-prometheus-client), counters
# never go back across --interval reports, histogram buckets and sums are
# exactly the JSON report's histogram and total of the same recording, label
# values are escaped (quote, backslash, newline, invalid UTF-8), and
# /metrics on 127.0.0.1 serves the same text.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh)"
command -v curl >/dev/null || skip "needs curl (tools/install-deps.sh)"
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
	skip "needs python3-prometheus-client (tools/install-deps.sh)"
OMC=(/usr/bin/python3 "$SRC/tests/e2e/helpers/om_check.py" parse)

W=$BUILD/uprobe-workload
PROBES=(-e "uprobe:$W:outer" -e "uprobe:$W:sleep_inner" -e "uprobe:$W:spin_inner")

# 1. an --interval stream on stdout: one document per report
"$IPROF" -q "${PROBES[@]}" -f openmetrics -o - --interval 100ms -- \
	"$W" --calls 12 --sleep-us 40000 --spin-us 100 >"$TMP/iv.om" 2>"$TMP/err"
check "interval stream: exit" "$?" 0
sed -i '/^[a-z_0-9.]*=/d' "$TMP/iv.om" # the workload's key=value lines
"${OMC[@]}" "$TMP/iv.om" >"$TMP/iv.parsed" 2>"$TMP/iv.perr"
check "interval stream: the parser accepts every document" "$?" 0
cat "$TMP/iv.perr"
read -r docs _ decs < <(head -1 "$TMP/iv.parsed")
n=${docs#documents=}
[ "$n" -ge 4 ] && ok "interval stream: $n documents" || bad "interval stream: $n documents, expected 4 or more"
check "interval stream: no counter decreases" "$decs" decreases=0
check "final document: outer count" \
	"$(grep -F "iprof_duration_seconds_count{path='outer',timer='outer'}" "$TMP/iv.parsed" | cut -d' ' -f2)" 12
check "final document: +Inf bucket = count" \
	"$(grep -F "iprof_duration_seconds_bucket{le='+Inf',path='outer;sleep_inner',timer='sleep_inner'}" "$TMP/iv.parsed" | cut -d' ' -f2)" 12
check "final document: loss counter records" \
	"$(grep -F "iprof_lost_records_total{}" "$TMP/iv.parsed" | cut -d' ' -f2)" 0
check "final document: timers attached" \
	"$(grep -c "^iprof_timer_attached{timer='[a-z_]*'} 1$" "$TMP/iv.parsed")" 3
check "every document ends with # EOF" "$(grep -c '^# EOF$' "$TMP/iv.om")" "$n"

# 2. one recording, reported as JSON and as OpenMetrics: exact agreement
"$IPROF" record -q -o "$TMP/r.rec" "${PROBES[@]}" -- "$W" --calls 30 --sleep-us 300 \
	--spin-us 50 >/dev/null 2>>"$TMP/err"
check "record: exit" "$?" 0
"$IPROF" report -q -f json "$TMP/r.rec" >"$TMP/r.json"
"$IPROF" report -q -f openmetrics -o "$TMP/r.om" "$TMP/r.rec"
check "report -f openmetrics -o: exit" "$?" 0
ls "$TMP"/r.om.?????? 2>/dev/null && bad "a temporary file was left behind" || ok "no temporary file left"
"${OMC[@]}" "$TMP/r.om" >"$TMP/r.parsed"
check "report FILE: parses" "$?" 0
for p in outer outer:sleep_inner outer:spin_inner; do
	leaf=${p##*:}
	node=$(jq -c --arg p "$p" '[.tree[] | recurse(.children[]?)] as $all |
		($p | split(":")) as $names |
		.tree[] | select(.name == $names[0]) |
		if ($names | length) > 1 then .children[] | select(.name == $names[1]) else . end' "$TMP/r.json")
	lab="path='${p//:/;}',timer='$leaf'"  # as om_check.py prints it
	raw="path=\"${p//:/;}\",timer=\"$leaf\"" # as iprof writes it
	# expected buckets: le = 2^k-1 ns, k = 8..36, from the JSON histogram
	exp=$(jq -r '[range(8; 37)] | .[] as $k | (pow(2; $k) - 1) as $b |
		"\($b) \([$n.histogram[] | select(.[1] <= $b) | .[2]] | add // 0)"' \
		--argjson n "$node" -n)
	got=$(for k in $(seq 8 36); do
		b=$(((1 << k) - 1))
		le=$(printf '%d.%09d' $((b / 1000000000)) $((b % 1000000000)))
		v=$(grep -F "iprof_duration_seconds_bucket{le='$le',$lab}" "$TMP/r.parsed" | cut -d' ' -f2)
		echo "$b $v"
	done)
	check "$p: 29 buckets = the JSON histogram" "$got" "$exp"
	tot=$(jq '.total_ns' <<<"$node")
	check "$p: _sum = total_ns / 1e9, exact" \
		"$(grep -F "iprof_duration_seconds_sum{$raw}" "$TMP/r.om" | cut -d' ' -f2)" \
		"$(printf '%d.%09d' $((tot / 1000000000)) $((tot % 1000000000)))"
	check "$p: _count = count" \
		"$(grep -F "iprof_duration_seconds_count{$lab}" "$TMP/r.parsed" | cut -d' ' -f2)" \
		"$(jq '.count' <<<"$node")"
	s=$(jq '.self_ns' <<<"$node")
	check "$p: self counter = self_ns" \
		"$(grep -F "iprof_self_seconds_total{$raw}" "$TMP/r.om" | cut -d' ' -f2)" \
		"$(printf '%d.%09d' $((s / 1000000000)) $((s % 1000000000)))"
done

# 3. label escaping: a command named w"b\c<newline>d<0xff> (a symlink to the
# workload: comm is the name it was run by), --by comm; the aggregator
# shows control characters of a comm as '?' (the newline escape: unit test
# test_report's openmetrics cases), 0xff is not UTF-8: U+FFFD, as in every
# format.
weird=$'w"b\\c\nd\xff'
ln -s "$W" "$TMP/$weird"
"$IPROF" -q -e "uprobe:$W:outer" -f openmetrics --by comm -o "$TMP/esc.om" -- \
	"$TMP/$weird" --calls 3 >/dev/null 2>>"$TMP/err"
check "--by comm: exit" "$?" 0
R=$'\xef\xbf\xbd'
grep -F "by=\"w\\\"b\\\\c?d$R\"" "$TMP/esc.om" >/dev/null &&
	ok "escaped label in the text: by=\"w\\\"b\\\\c?d$R\"" || bad "no escaped by label in $(grep outer "$TMP/esc.om" | head -3)"
"${OMC[@]}" "$TMP/esc.om" >"$TMP/esc.parsed"
check "escaped labels parse" "$?" 0
check "the parser reads the name back" \
	"$(grep -F "iprof_duration_seconds_count{by='w\"b\\\\c?d$R',path='outer'" "$TMP/esc.parsed" | cut -d' ' -f2)" 3

# 4. --listen on localhost: /metrics while tracing, 404 elsewhere
port=$((20000 + $$ % 20000))
"$IPROF" -q -e "uprobe:$W:outer" --listen "127.0.0.1:$port" --interval 100ms \
	-f openmetrics -o "$TMP/l.om" 2>"$TMP/lerr" &
ipid=$!
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null && break
	sleep 0.1
done
"$W" --calls 7 >/dev/null
sleep 0.4
curl -s -D "$TMP/hdr" "http://127.0.0.1:$port/metrics" -o "$TMP/http.om"
check "GET /metrics: status" "$(head -1 "$TMP/hdr" | tr -d '\r')" "HTTP/1.1 200 OK"
check "GET /metrics: content type" "$(grep -i '^content-type:' "$TMP/hdr" | tr -d '\r')" \
	"Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8"
"${OMC[@]}" "$TMP/http.om" >"$TMP/http.parsed"
check "/metrics parses" "$?" 0
check "/metrics: outer count" \
	"$(grep -F "iprof_duration_seconds_count{path='outer',timer='outer'}" "$TMP/http.parsed" | cut -d' ' -f2)" 7
check "GET /other: 404" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")" 404
kill -TERM $ipid
wait $ipid
check "--listen: exit after SIGTERM" "$?" 0
check "-o file beside --listen: outer count" \
	"$(grep -F 'iprof_duration_seconds_count{path="outer",timer="outer"}' "$TMP/l.om" | cut -d' ' -f2)" 7
cat "$TMP/lerr"

# 5. bad input: exit 2
"$IPROF" -q -e "uprobe:$W:outer" --listen "127.0.0.1:notaport" -d 1s 2>"$TMP/e1"
check "--listen with a bad port: exit 2" "$?" 2
"$IPROF" -q -e "uprobe:$W:outer" -f openmetrics --interval 1s --interval-mode delta -d 1s 2>"$TMP/e2"
check "openmetrics with delta intervals: exit 2" "$?" 2
finish
