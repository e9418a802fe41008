#!/usr/bin/env bash
# A frame that did not return is never a call (issue 25 item 3): frames
# open when their thread exits (killed, exit() inside the function) are
# counted apart (exited, with their elapsed time), never in count, total,
# self, min/avg/max, percentiles, on/off-CPU or the parent's self time.
# Ground truth: tests/e2e/helpers/noreturn.c.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-noreturn
[ -x "$W" ] || { bad "e2e-noreturn not built"; finish; }
N=200

# 1. children killed inside hang(): hang count 0, exited N; work() (which
# returned in each child before hang) exact
"$IPROF" -q -f json -o "$TMP/k.json" -e "uprobe:$W:work" -e "uprobe:$W:hang" \
	-- "$W" kill $N >"$TMP/k.out" 2>"$TMP/err"
check "kill: iprof exit status" "$?" 0
check "kill: the children were killed inside hang" "$(truth killed "$TMP/k.out")" $N
check "kill: work count" "$(jnode "$TMP/k.json" work count)" "$(truth work "$TMP/k.out")"
check "kill: hang count (none returned)" "$(jnode "$TMP/k.json" hang count)" 0
check "kill: hang exited" "$(jnode "$TMP/k.json" hang exited)" "$(truth hang "$TMP/k.out")"
check "kill: hang total_ns" "$(jnode "$TMP/k.json" hang total_ns)" 0
check "kill: hang max_ns (no call: null)" "$(jnode "$TMP/k.json" hang max_ns)" ""
check "kill: hang oncpu_ns" "$(jnode "$TMP/k.json" hang oncpu_ns)" 0
check "kill: hang threads (none completed)" "$(jnode "$TMP/k.json" hang threads)" 0
within "kill: hang exited_ns (their time to the kill, apart)" \
	"$(jnode "$TMP/k.json" hang exited_ns)" 1 1e18
check "kill: the document's exited timers" "$(jq -r .exited.timers "$TMP/k.json")" $N
check "kill: exited frames are no loss" \
	"$(jq -c '[.loss | to_entries[] | select(.value != 0) | .key]' "$TMP/k.json")" "[]"
# the table's EXITED column and summary line, the seed's notes
"$IPROF" report -f table "$TMP/k.json" >"$TMP/k.tab" 2>&1 ||
	"$IPROF" -q -f table -o "$TMP/k.tab" -e "uprobe:$W:work" -e "uprobe:$W:hang" -- "$W" kill $N >/dev/null 2>&1
grep -q "^exited: hang count=$N elapsed=" "$TMP/k.tab" && ok "table: exited line for hang" ||
	{ bad "table: no 'exited: hang count=$N' line"; cat "$TMP/k.tab"; }
awk '$1 == "hang" { print $2 }' "$TMP/k.tab" | grep -qx 0 && ok "table: hang COUNT 0" ||
	bad "table: hang COUNT is not 0"

# 2. exit(3) inside die(): die count 0, exited N
"$IPROF" -q -f seed -o "$TMP/d.rep" -e "uprobe:$W:work" -e "uprobe:$W:die" \
	-- "$W" die $N >"$TMP/d.out" 2>>"$TMP/err"
check "die: iprof exit status" "$?" 0
check "die: the children exited with 3" "$(truth died "$TMP/d.out")" $N
check "die: work count" "$(seed_field work count "$TMP/d.rep")" "$(truth work "$TMP/d.out")"
check "die: no die row (no call completed)" "$(seed_field die count "$TMP/d.rep")" ""
grep -q "^# exited: die count=$N elapsed=" "$TMP/d.rep" && ok "seed: '# exited: die count=$N'" ||
	{ bad "seed: no '# exited: die count=$N' line"; cat "$TMP/d.rep"; }

# 3. a span whose stop never comes on its thread (fork in the parent, exec
# in the child): never a "call" of the parent's life
"$IPROF" -q -f json -o "$TMP/f.json" \
	-e 'span forkexec = tracepoint:sched:sched_process_fork -> tracepoint:sched:sched_process_exec' \
	-- "$W" fork 3 >"$TMP/f.out" 2>>"$TMP/err"
check "fork: iprof exit status" "$?" 0
check "fork: the children exec'ed" "$(truth execs "$TMP/f.out")" 3
check "fork: no span completed" \
	"$(jq '[.tree | .. | objects | select(.name? == "forkexec") | .count] | add // 0' "$TMP/f.json")" 0
# (a span's START while it is open on the thread is ignored: one start)
check "fork: the start closed by the parent's exit" \
	"$(jq '[.tree | .. | objects | select(.name? == "forkexec") | .exited] | add // 0' "$TMP/f.json")" 1
check "fork: no time in the statistics" \
	"$(jq '[.tree | .. | objects | select(.name? == "forkexec") | .total_ns] | add // 0' "$TMP/f.json")" 0

# 4. exec from a thread other than the leader: the leader, blocked in
# main's pthread_join, is ended by the exec: main is no call
E=$BUILD/e2e-execer
"$IPROF" -q -f json -o "$TMP/x.json" -e "uprobe:$E:main" -e "uprobe:$E:inner" \
	-- "$E" thread 3 >"$TMP/x.out" 2>>"$TMP/err"
check "exec by a thread: iprof exit status" "$?" 0
check "exec by a thread: inner under the new image's main" "$(jnode "$TMP/x.json" "main>inner" count)" 3
# the new image's main returns (count 1); the old leader's main did not
check "exec by a thread: main completed once (the new image's)" "$(jnode "$TMP/x.json" main count)" 1
check "exec by a thread: the old leader's main exited" "$(jnode "$TMP/x.json" main exited)" 1
cat "$TMP/err"
finish
