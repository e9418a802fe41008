#!/usr/bin/env bash
# A function still running when iprof stops is reported as incomplete, with
# its elapsed time, and kept out of the statistics; SIGINT still prints the
# whole report.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/uprobe-workload
# (4 s: iprof must be tracing before hang() returns, and attaching takes
# seconds on a loaded machine)
"$W" --calls 10 --hang-ms 4000 >"$TMP/truth" &
wpid=$!
for _ in $(seq 100); do grep -q hang.started "$TMP/truth" 2>/dev/null && break; sleep 0.05; done
# hang() sleeps in clock_nanosleep, entered before tracing began: the
# syscall's exit is an orphan stop, counted and never nested.  (A uretprobe
# cannot fire for a call entered before it was attached, so this uses a
# tracepoint span.)  iprof stops when the process exits.
"$IPROF" -q -f seed -o "$TMP/rep0" -p $wpid -d 10s \
	-e 'span nanosleep = tracepoint:syscalls:sys_enter_clock_nanosleep -> tracepoint:syscalls:sys_exit_clock_nanosleep' \
	2>"$TMP/err0"
check "iprof -p on a running process: exit" "$?" 0
cat "$TMP/rep0"
check "a syscall running before tracing began is not a completed timer" \
	"$(seed_field nanosleep count "$TMP/rep0")" ""
grep -q '^# orphan stops: nanosleep 1$' "$TMP/rep0" && ok "orphan stop counted" ||
	bad "no orphan stop line for nanosleep"
wait $wpid 2>/dev/null

# Now start the workload under iprof and stop iprof with SIGINT during hang().
"$IPROF" -q -f seed -o "$TMP/rep" -e "uprobe:$W:outer" -e "uprobe:$W:hang" \
	-- "$W" --calls 10 --hang-ms 8000 >"$TMP/truth" 2>"$TMP/err" &
ipid=$!
for _ in $(seq 200); do grep -q hang.started "$TMP/truth" 2>/dev/null && break; sleep 0.05; done
sleep 1
kill -INT $ipid
wait $ipid
check "iprof exit status after SIGINT" "$?" 0
cat "$TMP/rep"
check "outer completed" "$(seed_field outer count "$TMP/rep")" 10
check "hang not in the statistics" "$(seed_field hang count "$TMP/rep")" ""
line=$(grep '^# incomplete: hang' "$TMP/rep")
[ -n "$line" ] && ok "hang reported incomplete: $line" || bad "no incomplete line for hang"
el=$(echo "$line" | sed -n 's/.*elapsed=\([0-9.]*\)ms.*/\1/p')
near "hang elapsed at stop (ms)" "${el:-0}" 1000 0.3 300
finish
