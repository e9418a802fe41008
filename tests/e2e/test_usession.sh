#!/usr/bin/env bash
# --returns auto's uprobe sessions (issue 43 items 1, 2, 7; src/probe/
# unwind.c's 2, bpf/iprof.bpf.c fn_session_u): a C program whose only risk
# is a library's stack switch by libc's context functions (e2e-usession:
# its library runs the program's timed() on a makecontext coroutine, and
# timed() yields there with its frame open) gets, where the kernel has
# uprobe sessions (Linux 6.13+) and single-steps return sites, one link
# whose entry takes the return probe only on the stack the thread started
# on: the N calls on the coroutine are counted where made, not timed; the
# 2N on main's stack are timed; the program lives.  (A plain uretprobe
# there kills it: the kernel drops the coroutine's return instance at
# main's next call, and its return through the trampoline finds none.)
# Elsewhere: return sites (or, 6.19+, iprof's own), the same counts all
# timed.  -p of a process asleep on its own stack: the same choice.
. "$(dirname "$0")/lib.sh"
need_root

B=$BUILD/e2e-usession
[ -x "$B" ] || skip "e2e-usession not built"
L=$(realpath "$BUILD/libe2e-usession-lib.so")
N=40

"$IPROF" --dry-run -e "uprobe:$B:timed" -- "$B" >"$TMP/plan" 2>&1
sess=0
if grep -q "stops by uretprobe: --returns auto: a uprobe session's" "$TMP/plan"; then
	sess=1
	check "the evidence named" \
		"$(grep -c "; $L imports swapcontext (a stack switch by libc's context functions, which iprof sees))\$" "$TMP/plan")" 1
else
	echo "info: no uprobe session here ($(uname -r): sessions are Linux 6.13+, and 6.19+ runs return sites' ret itself): return sites"
	check "return sites" "$(grep -c "(stops at [0-9]* return site" "$TMP/plan")" 1
fi

"$IPROF" -q -f json -o "$TMP/r.json" -e "uprobe:$B:timed" -- "$B" $N >"$TMP/out" 2>"$TMP/err"
check "exit status (the program's too)" "$?" 0
check "the program's own line" "$(cat "$TMP/out")" "main=$((2 * N)) coro=$N"
tm() { jq "[.tree[] | select(.path == [\"timed\"]) | .$1 // 0] | add" "$TMP/r.json"; }
if [ $sess = 1 ]; then
	check "every call counted" "$(tm count)" $((3 * N))
	check "the coroutine's counted only" "$(tm counted_only)" $N
	check "JSON: the stop, why" \
		"$(jq -r '.probes[] | select(.name == "timed") | .stop + " " + .no_return_sites_why[0:34]' "$TMP/r.json")" \
		"uprobe_session --returns auto: a uprobe session's"
	"$IPROF" -q -e "uprobe:$B:timed" -- "$B" 5 >/dev/null 2>"$TMP/text"
	check "summary: why, and no --returns uretprobe offered" \
		"$(grep -c "^counted only: timed 5 calls (return not seen: --returns auto: a uprobe session's, .*never a parent\$" "$TMP/text")" 1
	check "no loss, no unwound" "$(jq '[.tree[] | select(.path == ["timed"]) | (.unwound // 0) + (.exited // 0)] | add' "$TMP/r.json")" 0
else
	check "every call timed" "$(tm count)" $((3 * N))
	check "none counted only" "$(tm counted_only)" 0
fi

# the library with the switch is one the plan judged: no warning that
# the process mapped it later (it lives a second, iprof looks at its maps)
"$IPROF" -q -o /dev/null -e "uprobe:$B:timed" -- "$B" 5 1 >/dev/null 2>"$TMP/late.err"
check "no late-runtime warning for a library the plan judged" "$(grep -c 'mapped .* after timed got a uretprobe' "$TMP/late.err")" 0

# -p: a process asleep in a system call on its first stack
"$B" $N 4 >"$TMP/p.out" &
pid=$!
for _ in $(seq 100); do grep -q ready "$TMP/p.out" && break; sleep 0.05; done
"$IPROF" --dry-run -e "uprobe:$B:timed" -p $pid >"$TMP/pplan" 2>&1
if [ $sess = 1 ]; then
	check "-p: a session too" "$(grep -c "stops by uretprobe: --returns auto: a uprobe session's" "$TMP/pplan")" 1
else
	check "-p: return sites" "$(grep -c "(stops at [0-9]* return site" "$TMP/pplan")" 1
fi
"$IPROF" -q -f json -o "$TMP/p.json" -e "uprobe:$B:timed" -p $pid 2>"$TMP/perr"
check "-p: exit status" "$?" 0
wait $pid
check "-p: the program lived" "$?" 0
check "-p: its own line" "$(tail -1 "$TMP/p.out")" "main=$((2 * N)) coro=$N"
check "-p: every call counted" \
	"$(jq '[.tree[] | select(.path == ["timed"]) | .count] | add' "$TMP/p.json")" $((3 * N))
finish
