#!/usr/bin/env bash
# --fold-threads (issue 8): the records merged from the rings and folded
# by N threads, a thread's records all in one of them, the reports merging
# their trees (with a recording: merged by the reading thread, folded by
# the N).  The same
# multi-threaded workload (tools/migrate-workload: T threads, each N hop()
# calls of L leg() calls with a getppid span in each leg, moving between
# CPUs) traced with --fold-threads 1 and 3 must give the workload's own
# counts, exactly, and the same tree; so must --by tid roots, the
# intervals of --interval-mode delta, which sum to the workload's counts,
# and /metrics of --listen.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh)"
command -v curl >/dev/null || skip "needs curl (tools/install-deps.sh)"

W=$BUILD/migrate-workload
GP='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'
ARGS=(-e "uprobe:$W:hop" -e "uprobe:$W:leg" -e "$GP")
WL=(--threads 4 --iterations 200 --legs 4 --spin-us 20)

# the tree without its times: path, count, threads of every node
shape() {
	jq -c '[.tree | .. | objects | select(has("path")) |
		{p: (.path | join(">")), c: .count, t: .threads}]' "$1"
}

for j in 1 3; do
	"$IPROF" -q -f json -o "$TMP/f$j.json" --fold-threads $j "${ARGS[@]}" \
		-- "$W" "${WL[@]}" >"$TMP/f$j.truth"
	check "--fold-threads $j: exit status" "$?" 0
	hops=$(truth hop.count "$TMP/f$j.truth")
	legs=$(truth leg.count "$TMP/f$j.truth")
	check "--fold-threads $j: hop count" "$(jnode "$TMP/f$j.json" hop count)" "$hops"
	check "--fold-threads $j: hop>leg count" "$(jnode "$TMP/f$j.json" 'hop>leg' count)" "$legs"
	check "--fold-threads $j: hop>leg>getppid count" \
		"$(jnode "$TMP/f$j.json" 'hop>leg>getppid' count)" "$legs"
	check "--fold-threads $j: hop threads" "$(jnode "$TMP/f$j.json" hop threads)" 4
	check "--fold-threads $j: nothing lost, unwound or discarded" \
		"$(jq -c '[.loss | to_entries[] | select(.value != 0) | .key]' "$TMP/f$j.json")" "[]"
	check "--fold-threads $j: nothing incomplete" "$(jq -r .incomplete.timers "$TMP/f$j.json")" 0
	maxns=$(truth leg.max_ns "$TMP/f$j.truth")
	within "--fold-threads $j: leg max_ns vs the workload's ($maxns)" \
		"$(jnode "$TMP/f$j.json" 'hop>leg' max_ns)" 20000 $((maxns + 10000000))
done
check "the same tree with 1 and 3 folding threads" "$(shape "$TMP/f3.json")" "$(shape "$TMP/f1.json")"

# iprof record: the recording needs every record in one order, so the
# rings are merged in the reading thread and only the folding is sharded;
# the live report and the recording replayed count the same
"$IPROF" record -q -o "$TMP/r.rec" --report-output "$TMP/r.json" -f json --fold-threads 3 \
	"${ARGS[@]}" -- "$W" "${WL[@]}" >"$TMP/r.truth"
check "record --fold-threads 3: exit status" "$?" 0
"$IPROF" report -q -f json "$TMP/r.rec" >"$TMP/r.rep"
check "record --fold-threads 3: replay exit status" "$?" 0
legs=$(truth leg.count "$TMP/r.truth")
check "record --fold-threads 3: live hop>leg>getppid count" \
	"$(jnode "$TMP/r.json" 'hop>leg>getppid' count)" "$legs"
check "record --fold-threads 3: the live tree is the replayed one" \
	"$(shape "$TMP/r.json")" "$(shape "$TMP/r.rep")"

# --by tid, reports every 100 ms covering their interval only (NDJSON on
# stdout; the workload's own stdout, its counts, goes to stderr so as not
# to mix into it); while it runs, iprof has its 3 folding threads
"$IPROF" -f json -o - --fold-threads 3 --by tid --interval 100ms --interval-mode delta \
	"${ARGS[@]}" -- "$W" --threads 4 --iterations 200 --legs 4 --spin-us 500 \
	>"$TMP/i.out" 2>"$TMP/i.err" &
pid=$!
wait_tracing "$TMP/i.err"
check "--fold-threads 3: iprof runs 1 + 3 threads" "$(ls /proc/$pid/task | wc -l)" 4
wait $pid
check "--by tid --interval: exit status" "$?" 0
grep -v '^iprof: ' "$TMP/i.err" >"$TMP/i.truth"
check "--by tid --interval: stdout is NDJSON only" "$(grep -vc '^{' "$TMP/i.out")" 0
grep '^{' "$TMP/i.out" >"$TMP/i.ndjson"
within "--by tid --interval: reports" "$(wc -l <"$TMP/i.ndjson")" 2 1000
check "--by tid --interval: hop counts of the intervals add up" \
	"$(jq -s '[.[] | .tree[] | .children[] | select(.path[-1] == "hop") | .count] | add' "$TMP/i.ndjson")" \
	"$(truth hop.count "$TMP/i.truth")"
check "--by tid --interval: getppid counts of the intervals add up" \
	"$(jq -s '[.[] | .. | objects | select(has("path")) | select(.path[-1] == "getppid") | .count] | add' "$TMP/i.ndjson")" \
	"$(truth getppid.count "$TMP/i.truth")"
check "--by tid: a root per thread (final report)" \
	"$(tail -1 "$TMP/i.ndjson" | jq '[.tree[] | select(.path[0] | startswith("tid "))] | length')" 4
check "--by tid: each thread's hops over the intervals: --iterations" \
	"$(jq -s -c '[.[] | .tree[] | .children[] | select(.path[-1] == "hop")] | group_by(.path[0]) | map(map(.count) | add) | unique' "$TMP/i.ndjson")" \
	"[200]"

# --listen: /metrics merges the shards while tracing (system-wide)
port=$((20000 + $$ % 20000))
"$IPROF" -q --fold-threads 3 -e "uprobe:$W:hop" --listen "127.0.0.1:$port" \
	--interval 100ms -d 60s -o /dev/null 2>"$TMP/l.err" &
ipid=$!
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null && break
	sleep 0.1
done
"$W" "${WL[@]}" >"$TMP/l.truth"
sleep 0.5
curl -s "http://127.0.0.1:$port/metrics" -o "$TMP/l.om"
check "--listen: /metrics hop count" \
	"$(grep -F 'iprof_duration_seconds_count{path="hop",timer="hop"}' "$TMP/l.om" | cut -d' ' -f2)" \
	"$(truth hop.count "$TMP/l.truth")"
kill -TERM $ipid
wait $ipid
check "--listen: exit after SIGTERM" "$?" 0
cat "$TMP/l.err"

"$IPROF" --fold-threads 0 -e "$GP" -d 1s >/dev/null 2>"$TMP/bad.err"
check "--fold-threads 0: bad input" "$?" 2
check "--fold-threads 0: says the range" "$(grep -c 'expected a number from 1 to 64' "$TMP/bad.err")" 1
finish
