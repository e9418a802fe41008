#!/usr/bin/env bash
# A real Prometheus (Debian's prometheus package) scrapes --listen on
# 127.0.0.1 every second; after a workload with known calls has finished
# and a scrape of its final counts has landed, Prometheus' HTTP API
# (/api/v1/query at that scrape's time) gives the workload's exact call
# counts, and the duration histogram's _count, _sum, every _bucket and the
# self-time counter equal iprof's own JSON report of the same run, to the
# ns.  Prometheus took the OpenMetrics text (the histogram's unit in its
# metadata, no scrape error, every sample of the text ingested), and
# promtool check metrics finds no problem in the text format that /metrics
# serves to a client asking for text/plain (names, types, units).
# Prometheus runs on its own free port (never 9090) with its storage in
# the test's temp dir: a prometheus.service of the package is neither
# needed nor disturbed.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh)"
command -v curl >/dev/null || skip "needs curl (tools/install-deps.sh)"
command -v ss >/dev/null || skip "needs ss (iproute2, tools/install-deps.sh)"
for b in prometheus promtool; do
	[ -x /usr/bin/$b ] ||
		skip "needs /usr/bin/$b (Debian's prometheus package, tools/install-deps.sh)"
done

W=$BUILD/uprobe-workload
PROBES=(-e "uprobe:$W:outer" -e "uprobe:$W:sleep_inner" -e "uprobe:$W:spin_inner")
PATHS=(outer "outer;sleep_inner" "outer;spin_inner")
ipid= ppid=
cleanup() {
	local p
	for p in $ipid $ppid; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $ipid $ppid; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# wait_for SECONDS WHAT CMD...: run CMD every 0.2 s until it succeeds; on
# timeout a FAIL naming WHAT, iprof's and Prometheus' last words, exit 1
wait_for() {
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * 5; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	bad "timed out after $secs s waiting for $what"
	echo "--- iprof:" && tail -5 "$TMP/ierr"
	echo "--- prometheus:" && tail -5 "$TMP/prom.log" 2>/dev/null
	exit 1
}

# same DESC GOT EXPECTED: multi-line texts are equal (ok with their line
# count; the difference on failure)
same() {
	if [ "$2" = "$3" ]; then
		ok "$1: $(wc -l <<<"$2") lines"
	else
		bad "$1: they differ (< expected, > got):"
		diff <(echo "$3") <(echo "$2") | head -10
	fi
}

# 1. iprof, system-wide, serving /metrics on a free port of 127.0.0.1
# (its stderr names the port before the probes attach)
"$IPROF" "${PROBES[@]}" --listen 127.0.0.1:0 --interval 200ms \
	-f json -o "$TMP/rep.json" 2>"$TMP/ierr" &
ipid=$!
iprof_port() {
	iport=$(sed -n 's/^iprof: serving \/metrics on port \([0-9]*\) .*/\1/p' "$TMP/ierr")
	[ -n "$iport" ]
}
wait_for 20 "iprof's 'serving /metrics on port' line" iprof_port
M=http://127.0.0.1:$iport/metrics

# 2. Prometheus, while iprof attaches: scrape every 1 s, its own storage
# and a free port (ss names it)
cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: iprof
    static_configs:
      - targets: ['127.0.0.1:$iport']
EOF
/usr/bin/promtool check config "$TMP/prom.yml" >"$TMP/cfg.out" 2>&1
check "promtool check config" "$?" 0
/usr/bin/prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address=127.0.0.1:0 >"$TMP/prom.log" 2>&1 &
ppid=$!
prom_port() {
	pport=$(ss -Hltnp | sed -n "s/.* 127\.0\.0\.1:\([0-9]*\) .*pid=$ppid,.*/\1/p" | head -1)
	[ -n "$pport" ]
}
wait_for 20 "Prometheus (pid $ppid) to listen" prom_port
A=http://127.0.0.1:$pport/api/v1
wait_for 20 "Prometheus to be ready (/-/ready)" \
	curl -sf -o /dev/null "http://127.0.0.1:$pport/-/ready"
ok "Prometheus on 127.0.0.1:$pport scrapes iprof's $M"
wait_tracing "$TMP/ierr" 30 || { bad "iprof did not start tracing"; cat "$TMP/ierr"; exit 1; }

# q EXPR [TIME]: the instant query's result vector (JSON)
q() {
	curl -sf --max-time 5 -G "$A/query" --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"} | jq -c '.data.result'
}
target_up() { [ "$(q 'up{job="iprof"}' | jq -r '.[0].value[1]')" = 1 ]; }
wait_for 20 "the iprof target to be up" target_up
ok "target up"

# 3. the workload; then its final counts in what iprof publishes
"$W" --calls 25 --sleep-us 2000 --spin-us 300 >"$TMP/truth" || bad "workload failed"
declare -A want=(
	[outer]=$(truth outer.count "$TMP/truth")
	["outer;sleep_inner"]=$(truth sleep_inner.count "$TMP/truth")
	["outer;spin_inner"]=$(truth spin_inner.count "$TMP/truth")
)
published() {
	local p
	curl -sf --max-time 5 "$M" -o "$TMP/final.om" || return 1
	for p in "${PATHS[@]}"; do
		grep -qxF "iprof_duration_seconds_count{path=\"$p\",timer=\"${p##*;}\"} ${want[$p]}" \
			"$TMP/final.om" || return 1
	done
}
wait_for 10 "iprof to publish the workload's counts" published
t0=$(date +%s.%N)

# 4. a scrape that began after that: its time is the queries' time (10 ms
# after t0 at least: Prometheus may move a scrape's timestamp by up to
# 2 ms to align it with the interval)
scraped() {
	ts=$(q 'timestamp(up{job="iprof"})' | jq -r '.[0].value[1] // empty')
	[ -n "$ts" ] && awk -v a="$ts" -v b="$t0" 'BEGIN { exit !(a > b + 0.01) }'
}
wait_for 15 "a scrape after the workload" scraped
ok "a scrape at $ts, $(awk -v a="$ts" -v b="$t0" 'BEGIN { printf "%.3f", a - b }') s after the final counts were published"

# 5. that scrape: healthy, the OpenMetrics text, every sample
curl -sf --max-time 5 "$A/targets" |
	jq -r '.data.activeTargets[] | select(.labels.job == "iprof") |
		"\(.health) lastError=\"\(.lastError)\""' >"$TMP/target"
check "target health" "$(cat "$TMP/target")" 'up lastError=""'
check "metadata of iprof_duration_seconds (type, unit: OpenMetrics)" \
	"$(curl -sf --max-time 5 -G "$A/metadata" --data-urlencode metric=iprof_duration_seconds |
		jq -r '.data.iprof_duration_seconds[0] | "\(.type) \(.unit)"')" "histogram seconds"
check "scrape_samples_scraped = the text's sample lines" \
	"$(q 'scrape_samples_scraped{job="iprof"}' "$ts" | jq -r '.[0].value[1]')" \
	"$(grep -vc '^#' "$TMP/final.om")"
q '{job="iprof",__name__=~"iprof_duration_seconds_(count|sum|bucket)|iprof_self_seconds_total"}' \
	"$ts" >"$TMP/at_ts.json"

# 6. names, types and units: promtool check metrics on the text format,
# which /metrics serves to a client asking for text/plain (promtool 2.42
# reads no OpenMetrics: it takes # UNIT for a comment and a counter's
# _total samples for a family of their own); the same samples
curl -sf --max-time 5 -H 'Accept: text/plain; version=0.0.4' -D "$TMP/hdr" \
	"$M" -o "$TMP/final.txt"
check "GET /metrics, Accept: text/plain: content type" \
	"$(grep -i '^content-type:' "$TMP/hdr" | tr -d '\r')" \
	"Content-Type: text/plain; version=0.0.4; charset=utf-8"
/usr/bin/promtool check metrics <"$TMP/final.txt" >"$TMP/lint" 2>&1
check "promtool check metrics: exit" "$?" 0
check "promtool check metrics: problems" "$(cat "$TMP/lint")" ""
same "text format: the histogram's samples = the OpenMetrics text's" \
	"$(grep '^iprof_duration_seconds_' "$TMP/final.txt")" \
	"$(grep '^iprof_duration_seconds_' "$TMP/final.om")"
check "text format: counters typed as their samples" \
	"$(grep -c '^# TYPE iprof_[a-z_]*_total counter$' "$TMP/final.txt")" \
	"$(grep -c '^# TYPE iprof_[a-z_]* counter$' "$TMP/final.om")"

# 7. iprof's own report of the run (SIGTERM: the final JSON)
kill -TERM "$ipid"
wait "$ipid"
check "iprof: exit after SIGTERM" "$?" 0
ipid=

# 8. Prometheus' values at that scrape = the workload's counts and the
# JSON report's count, total, self time and histogram (in ns)
for p in "${PATHS[@]}"; do
	# count, sum and self in ns, then the buckets (le in ns, count)
	got=$(jq -r --arg p "$p" 'map(select(.metric.path == $p)) |
		def v(n): [.[] | select(.metric.__name__ == n) | .value[1] | tonumber][0];
		"\(v("iprof_duration_seconds_count")) \(v("iprof_duration_seconds_sum") * 1e9 | round) \(v("iprof_self_seconds_total") * 1e9 | round)",
		(map(select(.metric.__name__ == "iprof_duration_seconds_bucket") |
		     [(.metric.le | if . == "+Inf" then 1e300 else tonumber * 1e9 | round end),
		      (.value[1] | tonumber)]) | sort | .[] |
		 "\(.[0] | if . == 1e300 then "+Inf" else . end) \(.[1])")' "$TMP/at_ts.json")
	exp=$(jq -r --arg p "${p//;/>}" '
		def walk_nodes: .[] | (., (.children | walk_nodes));
		[.tree | walk_nodes | select((.path | join(">")) == $p)][0] as $n |
		"\($n.count) \($n.total_ns) \($n.self_ns)",
		([range(8; 37)] | .[] | (pow(2; .) - 1) as $b |
		 "\($b) \([$n.histogram[] | select(.[1] <= $b) | .[2]] | add // 0)"),
		"+Inf \($n.count)"' "$TMP/rep.json")
	read -r n sum self <<<"$got"
	read -r jn jsum jself <<<"$exp"
	check "$p: _count = the workload's calls" "$n" "${want[$p]}"
	check "$p: _count = the report's count" "$n" "$jn"
	check "$p: _sum = the report's total_ns" "$sum" "$jsum"
	check "$p: iprof_self_seconds_total = the report's self_ns" "$self" "$jself"
	same "$p: the buckets (le in ns, count) = the report's histogram" \
		"$(tail -n +2 <<<"$got")" "$(tail -n +2 <<<"$exp")"
done

# 9. -f prometheus (for node_exporter's textfile collector): the text
# format, promtool clean, the same samples as -f openmetrics of the same
# recording
"$IPROF" record -q -o "$TMP/r.iprof" -e "uprobe:$W:outer" -- "$W" --calls 3 >/dev/null 2>&1
check "record for -f prometheus: exit" "$?" 0
"$IPROF" report -f prometheus -o "$TMP/r.prom" "$TMP/r.iprof" 2>"$TMP/r.err"
check "iprof report -f prometheus: exit" "$?" 0
/usr/bin/promtool check metrics <"$TMP/r.prom" >"$TMP/r.lint" 2>&1
check "-f prometheus: promtool check metrics: exit" "$?" 0
check "-f prometheus: promtool check metrics: problems" "$(cat "$TMP/r.lint")" ""
"$IPROF" report -f openmetrics -o "$TMP/r.om" "$TMP/r.iprof" 2>/dev/null
same "-f prometheus: the samples of -f openmetrics" \
	"$(grep -v '^#' "$TMP/r.prom")" "$(grep -v '^#' "$TMP/r.om")"
check "-f prometheus: outer's count" \
	"$(sed -n 's/^iprof_duration_seconds_count{path="outer".*} //p' "$TMP/r.prom")" 3
finish
