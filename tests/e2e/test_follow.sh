#!/usr/bin/env bash
# Target filtering: -- CMD follows the processes CMD forks (a BPF hash of
# tgids extended at sched_process_fork, so no child escapes by racing
# ahead), -p PID follows its children too, and a process outside the
# targets running the same traced binary at the same time is not counted.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/uprobe-workload
# a bystander running the same binary, not a target: must not be counted
"$W" --calls 400 --spin-us 0 --sleep-us 2000 --depth 1 >/dev/null &
by=$!

# the shell forks two workloads in turn, then one more in a subshell
"$IPROF" -q -f seed -o "$TMP/rep" -e "uprobe:$W:outer" \
	-- sh -c "'$W' --calls 5 >/dev/null; '$W' --calls 7 --threads 2 >/dev/null; ( '$W' --calls 3 >/dev/null )" \
	2>"$TMP/err"
check "iprof -- sh: exit" "$?" 0
cat "$TMP/rep"
check "children of the command followed, bystander ignored: outer count" \
	"$(seed_field outer count "$TMP/rep")" $((5 + 7 * 2 + 3))
check "outer thread_count (1 + 2 + 1 threads)" "$(seed_field outer thread_count "$TMP/rep")" 4

# -p PID: a shell that forks workloads once iprof says it is tracing (no
# fixed sleep: on a loaded machine attaching can take seconds)
: >"$TMP/err2"
( wait_tracing "$TMP/err2"; "$W" --calls 4 >/dev/null; "$W" --calls 6 >/dev/null ) &
sh_pid=$!
"$IPROF" -f seed -o "$TMP/rep2" -e "uprobe:$W:outer" -p $sh_pid -d 60s 2>"$TMP/err2"
check "iprof -p: exit when the process and its children are gone" "$?" 0
check "-p follows the children: outer count" "$(seed_field outer count "$TMP/rep2")" 10
# -p PID whose child outlives it: iprof goes on until the child is done
: >"$TMP/err3"
( wait_tracing "$TMP/err3"; "$W" --calls 9 --sleep-us 100000 >/dev/null & ) &
sh_pid=$!
"$IPROF" -f seed -o "$TMP/rep3" -e "uprobe:$W:outer" -p $sh_pid -d 60s 2>"$TMP/err3"
check "iprof -p: waits for the orphaned child: outer count" "$(seed_field outer count "$TMP/rep3")" 9
kill $by 2>/dev/null
wait 2>/dev/null
finish
