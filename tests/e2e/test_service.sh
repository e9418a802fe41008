#!/usr/bin/env bash
# The systemd unit (packaging/iprof@.service.in): its command line, what
# systemd-analyze says of it (verify clean, security exposure <= 2.5, as
# tests/vm/systemd.sh checks it on a booted system), its
# capability set enough for uprobes and tracepoints, sd_notify readiness
# once every probe is attached; iprof run as the unit runs it writes its
# report file every interval and at SIGTERM.
. "$(dirname "$0")/lib.sh"
need_root

unit="$BUILD/iprof@.service"
exec_line=$(sed -n 's/^ExecStart=//p' "$unit")
check "unit ExecStart" "$exec_line" \
	"$BUILD/iprof --quiet --probes /etc/iprof/probes.d/%i.conf -f \${IPROF_FORMAT} --interval \${IPROF_INTERVAL} -o /var/lib/iprof/%i.\${IPROF_FORMAT} \$IPROF_OPTS"
check "unit Type" "$(sed -n 's/^Type=//p' "$unit")" notify

if command -v systemd-analyze >/dev/null; then
	# a template needs an instance name; man:iprof(8) is looked up
	mkdir -p "$TMP/u" "$TMP/man/man8"
	cp "$unit" "$TMP/u/iprof@test.service"
	ln -s "$SRC/doc/iprof.8" "$TMP/man/man8/iprof.8"
	(cd "$TMP/u" && MANPATH=$TMP/man systemd-analyze verify ./iprof@test.service) >"$TMP/verify" 2>&1
	check "systemd-analyze verify: exit" "$?" 0
	check "systemd-analyze verify: says nothing" "$(cat "$TMP/verify")" ""
	(cd "$TMP/u" && systemd-analyze security --offline=true ./iprof@test.service) >"$TMP/sec" 2>&1
	score=$(sed -n 's/.*Overall exposure level for iprof@test.service: \([0-9.]*\) .*/\1/p' "$TMP/sec")
	awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.5) }' &&
		ok "systemd-analyze security: $score <= 2.5" || bad "systemd-analyze security: '$score' (> 2.5 or none)"
else
	echo "SKIP (part): systemd-analyze is not installed (tools/install-deps.sh installs systemd)"
	[ "${IPROF_REQUIRE_E2E:-0}" = 1 ] && bad "systemd-analyze missing"
fi

W=$BUILD/uprobe-workload
# the unit's capabilities, and no others: a uprobe and a tracepoint span
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
if command -v setpriv >/dev/null && [ -n "$caps" ]; then
	setpriv --bounding-set=-all,$caps --inh-caps=-all "$IPROF" -q -f json \
		-e "uprobe:$W:outer" \
		-e "span ppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid" \
		-o "$TMP/caps.json" -- "$W" --calls 5 >/dev/null 2>"$TMP/caps.err"
	check "with only the unit's capabilities ($caps): exit" "$?" 0
	check "with only the unit's capabilities: outer count" \
		"$(jq '[.tree[] | select(.name == "outer")][0].count' "$TMP/caps.json")" 5
fi

# sd_notify: READY=1 once the probes are attached, STOPPING=1 at the end
/usr/bin/python3 - "$TMP/notify" "$TMP/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
with open(sys.argv[2], "w") as log:
    try:
        while True:
            msg = s.recv(4096).decode()
            log.write(msg.replace("\n", "|") + "\n")
            log.flush()
            if "STOPPING=1" in msg:
                break
    except socket.timeout:
        pass
PY
npid=$!
for _ in $(seq 100); do [ -S "$TMP/notify" ] && break; sleep 0.05; done
NOTIFY_SOCKET=$TMP/notify "$IPROF" -q --keep-going -e "uprobe:$W:outer" -e "uprobe:$W:missing_fn" -f json \
	-o "$TMP/n.json" -- "$W" --calls 2 >/dev/null 2>&1
check "Type=notify run: exit (a timer not attached)" "$?" 3
wait $npid
check "sd_notify messages" "$(cat "$TMP/notify.log")" \
	"READY=1|STATUS=tracing the command: 1 of 2 timers attached
STOPPING=1"

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
"$IPROF" -q --probes "$TMP/svc.conf" -f json -o - --interval 100ms -- \
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
