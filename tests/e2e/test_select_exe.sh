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
. "$(dirname "$0")/select_case.sh"

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
