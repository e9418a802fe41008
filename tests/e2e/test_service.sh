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
for _ in $(seq 200); do grep -q "timers attached" "$TMP/err" && break; sleep 0.05; done
"$W" --calls 25 >"$TMP/truth"
kill -TERM $ipid
wait $ipid
check "exit status after SIGTERM" "$?" 0
cat "$TMP/svc.txt"
check "outer count in the report file" "$(seed_field outer count "$TMP/svc.txt")" 25
check "outer>sleep_inner count" "$(seed_field 'outer>sleep_inner' count "$TMP/svc.txt")" 25
grep -q '^# lost: records=0 ' "$TMP/svc.txt" && ok "loss line in the file" || bad "no loss line"
finish
