#!/usr/bin/env bash
# Ctrl-C while attaching (issue 3, item 3): iprof detaches everything (in
# the background when there are many, issue 15), exits 130, and leaves
# nothing behind once that is done: no iprof kprobe event in
# kprobe_events, no vfs_* function still patched in enabled_functions (a
# kprobe on ftrace or a BPF trampoline shows there).  SIGINT is sent once
# iprof reports attach progress (it does after 0.5 s), so mid-attach.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

T=/sys/kernel/tracing
for kind in kprobe fentry; do
	"$IPROF" -f seed -o "$TMP/$kind.rep" -e "$kind:vfs_*" -d 60s 2>"$TMP/$kind.err" &
	pid=$!
	for i in $(seq 300); do
		grep -q 'attaching:' "$TMP/$kind.err" && break
		sleep 0.05
	done
	grep -q 'attaching:' "$TMP/$kind.err" && ok "$kind: attach under way" ||
		bad "$kind: no attach progress seen"
	kill -INT $pid
	wait $pid
	rc=$?
	sed 's/^/stderr: /' "$TMP/$kind.err"
	check "$kind: exit status" "$rc" 130
	grep -q 'interrupted before tracing began' "$TMP/$kind.err" &&
		ok "$kind: interrupted while attaching" || bad "$kind: not interrupted while attaching"
	# detaching goes on in the background after a cancel (issue 15):
	# wait for it before looking for leftovers
	bg=$(sed -n 's/^iprof: detaching [0-9]* probes in the background (pid \([0-9]*\))$/\1/p' "$TMP/$kind.err")
	for _ in $(seq 1200); do
		[ -n "$bg" ] && kill -0 "$bg" 2>/dev/null || break
		sleep 0.1
	done
	check "$kind: iprof kprobe events left" "$(grep -c ':iprof/' $T/kprobe_events)" 0
	check "$kind: vfs_* functions still patched" "$(grep -c '^vfs_' $T/enabled_functions)" 0
	[ -s "$TMP/$kind.rep" ] && bad "$kind: a report was written" || ok "$kind: no report"
done
finish
