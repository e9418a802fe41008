#!/usr/bin/env bash
# The second half of tests/e2e/test_select.sh, the same scenario: --exe,
# and -p with --comm.
# Targets that survive restarts (issue 12): --comm NAME and --exe PATH
# select processes present and future, in BPF, and one iprof keeps counting
# across a daemon's lives.  The daemon is tools/churn-workload with one
# child process (--procs-per-s 0: its calls run in a forked child, which
# only fork-following catches); it counts every call of its 16 traced
# functions.
#  - a "present" instance, started before iprof and waiting (--wait FILE)
#    until tracing runs: found by the scan of /proc;
#  - two lives started one after the other while iprof runs: found at exec;
#  - a bystander running the same file through a symbolic link named
#    "bystander" (so its name differs, its executable does not).
# --comm churn-workload counts the present instance and both lives, never
# the bystander; --exe (given as another symbolic link to the same file)
# counts the bystander too.  And the errors: a missing --exe, a --cgroup
# that is not on cgroup2, too many selectors.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq"

W=$BUILD/churn-workload
SUMCOUNT='[.tree | .. | objects | select(has("count")) | .count] | add // 0'
ln -s "$W" "$TMP/bystander"
ln -s "$W" "$TMP/link"

# run_case NAME SELECTOR...: the scenario above under iprof SELECTOR...;
# leaves $TMP/NAME.json and the workloads' truths $TMP/NAME.{p,b,1,2}
run_case() {
	local name=$1 ipid p b
	shift
	rm -f "$TMP/go"
	"$W" --wait "$TMP/go" --procs-per-s 0 --threads 3 --calls 30 \
		>"$TMP/$name.p" &
	p=$!
	"$TMP/bystander" --wait "$TMP/go" --procs-per-s 0 --threads 2 \
		--calls 25 >"$TMP/$name.b" &
	b=$!
	: >"$TMP/$name.err"
	"$IPROF" -f json -o "$TMP/$name.json" -e "uprobe:$W:churn_f*" "$@" \
		-d 120s 2>"$TMP/$name.err" &
	ipid=$!
	if ! wait_tracing "$TMP/$name.err"; then
		bad "$name: iprof did not start tracing:"
		cat "$TMP/$name.err"
		kill $ipid $p $b 2>/dev/null
		return 1
	fi
	touch "$TMP/go"
	wait $p $b
	# the daemon's two lives
	"$W" --procs-per-s 0 --threads 2 --calls 40 >"$TMP/$name.1"
	"$W" --procs-per-s 0 --threads 5 --calls 10 >"$TMP/$name.2"
	kill -INT $ipid
	wait $ipid
	check "$name: iprof exit" "$?" 0
	cat "$TMP/$name.err"
}

calls() { truth calls "$TMP/$1"; }

run_case exe --exe "$TMP/link"
check "--exe (a link to the file): present + both lives + the bystander" \
	"$(jq "$SUMCOUNT" "$TMP/exe.json")" \
	$(($(calls exe.p) + $(calls exe.b) + $(calls exe.1) + $(calls exe.2)))

# -p and --comm add up: a shell given with -p runs a workload under
# another name (counted as -p's child), the daemon runs by name
: >"$TMP/u.err"
(wait_tracing "$TMP/u.err" && "$TMP/bystander" --procs-per-s 0 --calls 15 \
	>"$TMP/u.b") &
sh_pid=$!
"$IPROF" -f json -o "$TMP/u.json" -e "uprobe:$W:churn_f*" -p $sh_pid \
	--comm churn-workload -d 120s 2>"$TMP/u.err" &
ipid=$!
wait_tracing "$TMP/u.err" || bad "-p with --comm: iprof did not start tracing"
wait $sh_pid
"$W" --procs-per-s 0 --calls 12 >"$TMP/u.1"
kill -INT $ipid
wait $ipid
check "-p with --comm: both counted" "$(jq "$SUMCOUNT" "$TMP/u.json")" \
	$(($(calls u.b) + $(calls u.1)))

finish
