#!/usr/bin/env bash
# Cancelling (issue 15, item 5): SIGINT while attaching many tracepoint
# spans (or just after: attaching is quick here) ends iprof at once and
# detaches in the background, after a cancel as after a normal stop; a
# second signal ends iprof at once.  And a span
# whose START and STOP fire on different threads is flagged with a hint.
. "$(dirname "$0")/lib.sh"
need_root

# 150 spans over distinct syscall tracepoints, each on its own tracepoints
# (IPROF_SYSCALL_TRACEPOINTS=1): 300 attachments, seconds of
# attaching and of detaching in the foreground
ls /sys/kernel/tracing/events/syscalls 2>/dev/null | sed -n 's/^sys_enter_//p' | head -150 |
	awk '{ printf "span s_%s = tracepoint:syscalls:sys_enter_%s -> tracepoint:syscalls:sys_exit_%s\n", $1, $1, $1 }' \
	>"$TMP/many.conf"
[ "$(wc -l <"$TMP/many.conf")" = 150 ] || skip "fewer than 150 syscall tracepoints"

# wait_attaching FILE: until iprof's stderr says it is attaching (progress,
# after 0.5 s) or tracing, 30 s at most
wait_attaching() {
	for _ in $(seq 600); do
		grep -q 'attaching:\|; tracing' "$1" && return
		sleep 0.05
	done
}

IPROF_SYSCALL_TRACEPOINTS=1 "$IPROF" -f seed -o "$TMP/rep" --probes "$TMP/many.conf" -d 60s 2>"$TMP/err" &
pid=$!
wait_attaching "$TMP/err"
t0=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
sed 's/^/stderr: /' "$TMP/err"
# attaching is fast here (a few hundred ms): the signal may come after it
if grep -q 'interrupted before tracing began' "$TMP/err"; then
	check "SIGINT while attaching: exit" "$rc" 130
	[ -s "$TMP/rep" ] && bad "a report was written" || ok "no report"
else
	check "SIGINT once tracing: exit" "$rc" 0
	check "SIGINT once tracing: the report's loss line" "$(lost_field "$TMP/rep" records)" 0
fi
bg=$(sed -n 's/^iprof: detaching [0-9]* probes in the background (pid \([0-9]*\))$/\1/p' "$TMP/err")
[ -n "$bg" ] && ok "detached in the background (pid $bg)" || bad "no background detach"
# the foreground ends within the current attach step, not after detaching
# (seconds for 300 tracepoints)
within "SIGINT to exit (ms)" "$ms" 0 3000
for _ in $(seq 1200); do kill -0 "$bg" 2>/dev/null || break; sleep 0.1; done
kill -0 "$bg" 2>/dev/null && bad "background detach still running after 120 s" ||
	ok "background detach finished"

# a signal before tracing began (issue 43 item 6): iprof reads its probes
# from a pipe that stays empty (-P -), so it waits before its plan; a
# signal there ends it at once with 128 + N, nothing started, though a
# background job of a script starts with SIGINT ignored (it was lost: the
# plan went on, the command ran, exit 0)
sh -c 'grep "^SigIgn:" /proc/self/status' >"$TMP/sigign" &
wait $!
check "a script's background job starts with SIGINT ignored (the premise)" \
	"$((0x$(awk '{ print $2 }' "$TMP/sigign") & 2))" 2
early() {
	local sig=$1 want=$2 pid i
	rm -f "$TMP/started" "$TMP/early.rep"
	coproc HOLD { sleep 60; }
	# (a coprocess's fds are closed in background jobs: a copy)
	exec 5<&"${HOLD[0]}"
	"$IPROF" -f seed -o "$TMP/early.rep" -P - -- touch "$TMP/started" \
		<&5 2>"$TMP/early.err" &
	pid=$!
	exec 5<&-
	# until it waits in read(2) on the pipe
	for i in $(seq 200); do
		grep -q pipe_read "/proc/$pid/wchan" 2>/dev/null && break
		sleep 0.05
	done
	kill -"$sig" $pid
	for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		bad "SIG$sig while planning: iprof still runs 5 s later"
		kill -KILL $pid
	fi
	wait $pid
	check "SIG$sig while planning: exit" "$?" "$want"
	check "SIG$sig while planning: said" "$(cat "$TMP/early.err")" \
		"iprof: interrupted before tracing began: nothing traced"
	[ -e "$TMP/started" ] && bad "SIG$sig while planning: the command ran" ||
		ok "SIG$sig while planning: the command never ran"
	[ -e "$TMP/early.rep" ] && bad "SIG$sig while planning: a report" ||
		ok "SIG$sig while planning: no report"
	kill "$HOLD_PID" 2>/dev/null
	wait "$HOLD_PID" 2>/dev/null
}
early INT 130
early TERM 143

# two signals: the second ends iprof at once.  After the first, iprof
# reports and gives a command that ignores SIGTERM 2 s before SIGKILL; a
# second signal in that time ends it now, with 130
"$IPROF" -f seed -o "$TMP/rep2" -e 'span nano = tracepoint:syscalls:sys_enter_clock_nanosleep -> tracepoint:syscalls:sys_exit_clock_nanosleep' \
	-- sh -c "echo \$\$ >'$TMP/cmd.pid'; trap '' TERM INT; exec sleep 60" 2>"$TMP/err2" &
pid=$!
wait_tracing "$TMP/err2"
for _ in $(seq 100); do [ -s "$TMP/cmd.pid" ] && break; sleep 0.05; done
t0=$(date +%s%N)
kill -TERM $pid
sleep 0.3
kill -INT $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "two signals: exit" "$rc" 130
within "two signals: first signal to exit (ms), not the 2 s wait" "$ms" 0 1500
kill -KILL "$(cat "$TMP/cmd.pid")" 2>/dev/null

# the same signal twice from one sender (GNU timeout(1) sends it to iprof
# and then to its process group): one request, the report is written
# (0.1 s apart: sent at once, the kernel merges them into one pending;
# a command that ignores SIGTERM holds iprof 2 s, where the copy came)
"$IPROF" -f seed -o "$TMP/rep3" -e 'span nano = tracepoint:syscalls:sys_enter_clock_nanosleep -> tracepoint:syscalls:sys_exit_clock_nanosleep' \
	-- sh -c "echo \$\$ >'$TMP/cmd3.pid'; trap '' TERM INT; exec sleep 60" 2>"$TMP/err3" &
pid=$!
wait_tracing "$TMP/err3"
for _ in $(seq 100); do [ -s "$TMP/cmd3.pid" ] && break; sleep 0.05; done
kill -INT $pid
sleep 0.1
kill -INT $pid
wait $pid
check "one signal sent twice by one process: exit (a report)" "$?" 0
check "one signal sent twice by one process: not taken for a second" "$(grep -c 'second signal' "$TMP/err3")" 0
check "one signal sent twice by one process: the report's loss line" "$(grep -c '^# lost: ' "$TMP/rep3")" 1
kill -KILL "$(cat "$TMP/cmd3.pid")" 2>/dev/null
# a span from fork (in the parent) to exec (in the child) never matches
"$IPROF" -q -f seed -o "$TMP/fe" \
	-e 'span fe = tracepoint:sched:sched_process_fork -> tracepoint:sched:sched_process_exec' \
	-- sh -c '/bin/true; /bin/true' 2>/dev/null
check "fork -> exec span: exit" "$?" 0
cat "$TMP/fe"
grep -q '^# span never matched: fe starts=1 stops=[1-9][0-9]*: never on one thread .*START and STOP must fire on the same thread' "$TMP/fe" &&
	ok "fork -> exec span flagged with a hint" || bad "fork -> exec span not flagged"
# a span that does match is not flagged
"$IPROF" -q -f seed -o "$TMP/ok" \
	-e 'span nano = tracepoint:syscalls:sys_enter_clock_nanosleep -> tracepoint:syscalls:sys_exit_clock_nanosleep' \
	-- sleep 0.1 2>/dev/null
check "matching span: count" "$(seed_field nano count "$TMP/ok")" 1
check "matching span: not flagged" "$(grep -c 'never matched' "$TMP/ok")" 0

# A command that dies of a signal N: exit status 128 + N, as shells say
# it (it was 0), before 3 (a timer not attached), and the report written;
# one iprof stops itself (-d: SIGTERM) leaves the status iprof's own
W=$BUILD/uprobe-workload
"$IPROF" -f seed -o "$TMP/sig" -e "uprobe:$W:outer" \
	-- sh -c "$W --calls 2 >/dev/null; kill -ABRT \$\$" 2>"$TMP/err"
check "command killed by SIGABRT: exit" "$?" 134
check "command killed by SIGABRT: the report" "$(seed_field outer count "$TMP/sig")" 2
check "command killed by SIGABRT: stderr" "$(grep 'the command was' "$TMP/err")" \
	"iprof: the command was killed by signal 6 (SIGABRT): exit status 128 + the signal"
"$IPROF" -q --keep-going -f seed -o "$TMP/sig" -e "uprobe:$W:outer" -e "uprobe:$W:no_such_function" \
	-- sh -c "$W --calls 2 >/dev/null; kill -SEGV \$\$" 2>/dev/null
check "killed by SIGSEGV with a timer not attached: exit" "$?" 139
check "killed by SIGSEGV with a timer not attached: the report" \
	"$(seed_field outer count "$TMP/sig")" 2
"$IPROF" -q -f seed -o "$TMP/sig" -e "uprobe:$W:outer" -d 200ms -- sleep 10 2>/dev/null
check "command stopped by iprof (-d): exit" "$?" 0
# ... and its children with it (they were left running, untraced): a
# shell's sleep, and a sleep the shell put in the background
tag=iprof-tree-$$
"$IPROF" -q -f seed -o "$TMP/tree" -e "uprobe:$W:outer" -d 300ms \
	-- bash -c "(exec -a $tag-bg sleep 30) & exec -a $tag-fg sleep 31; echo never" >/dev/null 2>&1
check "command stopped by iprof (-d): exit, its children too" "$?" 0
sleep 0.3
check "command stopped by iprof (-d): none of its children left" \
	"$(pgrep -fc "^$tag-")" 0
pkill -f "^$tag-" 2>/dev/null
finish
