#!/usr/bin/env bash
# The systemd unit's command line (packaging/iprof@.service.in): iprof runs
# system-wide until systemd stops it with SIGTERM, then writes the whole
# report to its -o file.  Checks that the unit's ExecStart is what we run.
. "$(dirname "$0")/lib.sh"
need_root

unit="$BUILD/iprof@.service"
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
case "$exec_line" in
*"/iprof --quiet --probes /etc/iprof/probes.d/%i.conf -o /var/lib/iprof/%i.txt"*) ok "unit ExecStart: $exec_line" ;;
*) bad "unexpected ExecStart in $unit: $exec_line" ;;
esac

W=$BUILD/uprobe-workload
printf 'uprobe:%s:outer\nuprobe:%s:sleep_inner\n' "$W" "$W" >"$TMP/svc.conf"
# as the unit runs it, but without --quiet: its progress line says when
# the probes are attached
"$IPROF" --probes "$TMP/svc.conf" -o "$TMP/svc.txt" -f seed 2>"$TMP/err" &
ipid=$!
wait_tracing "$TMP/err" || bad "iprof did not start tracing"
"$W" --calls 25 >"$TMP/truth"
kill -TERM $ipid
wait $ipid
check "exit status after SIGTERM" "$?" 0
cat "$TMP/svc.txt"
check "outer count in the report file" "$(seed_field outer count "$TMP/svc.txt")" 25
check "outer>sleep_inner count" "$(seed_field 'outer>sleep_inner' count "$TMP/svc.txt")" 25
check "loss line in the file, no record lost" "$(lost_field "$TMP/svc.txt" records)" 0

# --interval with -o: the file always holds the latest complete report;
# delta mode: each report covers its own interval only
# (1 s intervals: the loop below, jq included, must see every report even
# on a loaded machine, where a 300 ms report could be replaced unseen)
"$IPROF" --probes "$TMP/svc.conf" -f json -o "$TMP/iv.json" --interval 1s \
	--interval-mode delta 2>"$TMP/err2" &
ipid=$!
wait_tracing "$TMP/err2" || bad "iprof did not start tracing (interval mode)"
"$W" --calls 10 --sleep-us 1000 >/dev/null
# new_report: wait (up to 30 s) until iv.json holds a report not seen yet;
# its outer count in $c
last=
new_report() {
	local sum
	for _ in $(seq 300); do
		sum=$(md5sum <"$TMP/iv.json" 2>/dev/null)
		if [ -s "$TMP/iv.json" ] && [ "$sum" != "$last" ]; then
			last=$sum
			c=$(jq '[.tree[] | select(.name == "outer")][0].count // 0' "$TMP/iv.json")
			return 0
		fi
		sleep 0.1
	done
	return 1
}
# the interval that saw the calls (the workload takes ~20 ms: one or two)
seen=0 n=0
while [ "$seen" -lt 10 ] && [ $n -lt 5 ] && new_report; do
	seen=$((seen + ${c:-0})) n=$((n + 1))
done
jq -e .schema_version "$TMP/iv.json" >/dev/null && ok "interval report is complete JSON" ||
	bad "interval report missing or not JSON"
check "delta: the calls show up in an interval report" "$seen" 10
new_report || bad "no later interval report"
check "delta: a later interval holds no calls" "${c:-}" 0
kill -TERM $ipid
wait $ipid
check "exit status after SIGTERM (interval mode)" "$?" 0
ls "$TMP"/iv.json.?????? 2>/dev/null && bad "a temporary file was left behind" || ok "no temporary file left"

# --interval -f json on stdout: NDJSON, one document per line, numbered
# 1..N in order, only the last one final; the last covers the whole run
"$IPROF" -q --probes "$TMP/svc.conf" -f json --interval 100ms -- \
	"$W" --calls 6 --sleep-us 60000 >"$TMP/nd.json" 2>"$TMP/err3"
check "ndjson: exit" "$?" 0
sed -i '/^{/!d' "$TMP/nd.json" # the workload's own key=value lines
n=$(wc -l <"$TMP/nd.json")
[ "$n" -ge 3 ] && ok "ndjson: $n reports" || bad "ndjson: $n reports, expected 3 or more"
check "ndjson: every line one document, numbered in order, only the last final" \
	"$(jq -c '[.interval, .final, .interval_mode]' "$TMP/nd.json" | tr '\n' ' ')" \
	"$(for i in $(seq "$n"); do printf '[%d,%s,"cumulative"] ' "$i" "$([ "$i" = "$n" ] && echo true || echo false)"; done)"
check "ndjson: the final report counts every call" \
	"$(tail -n1 "$TMP/nd.json" | jq '[.tree[] | select(.name == "outer")][0].count')" 6
finish
