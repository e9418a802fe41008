#!/usr/bin/env bash
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
# counts the bystander too (tests/e2e/test_select_exe.sh; split so that
# each runs within the VM tier's time per test).  And the errors: a
# missing --exe, a --cgroup that is not on cgroup2, too many selectors.
. "$(dirname "$0")/select_case.sh"

run_case comm --comm churn-workload
check "--comm: present + both lives, bystander not counted" \
	"$(jq "$SUMCOUNT" "$TMP/comm.json")" \
	$(($(calls comm.p) + $(calls comm.1) + $(calls comm.2)))
check "--comm: nothing lost" "$(jq '.loss.ring_buffer_drops' "$TMP/comm.json")" 0
# (at least ours: another churn-workload may be running on this machine)
grep -Eq '^iprof: [1-9][0-9]* process(es)? selected by --comm/--exe running now$' "$TMP/comm.err"
check "--comm: the present process found in /proc" "$?" 0

# bad input: exit 2, one line naming the option
"$IPROF" -e "uprobe:$W:churn_f00" --exe "$TMP/nonexistent" -d 1s \
	>/dev/null 2>"$TMP/bad1"
check "--exe missing file: exit 2" "$?" 2
check "--exe missing file: message" \
	"$(grep -c "^iprof: --exe '$TMP/nonexistent': No such file or directory$" "$TMP/bad1")" 1
"$IPROF" -e "uprobe:$W:churn_f00" --cgroup "$TMP" -d 1s >/dev/null 2>"$TMP/bad2"
check "--cgroup not cgroup2: exit 2" "$?" 2
check "--cgroup not cgroup2: message" \
	"$(grep -c "^iprof: --cgroup '$TMP': not a directory of the cgroup v2 file system" "$TMP/bad2")" 1
"$IPROF" -e "uprobe:$W:churn_f00" --comm a --comm b --comm c --comm d \
	--comm e --comm f --comm g --comm h --comm i -d 1s >/dev/null 2>"$TMP/bad3"
check "nine --comm: exit 2" "$?" 2
"$IPROF" -e "uprobe:$W:churn_f00" --exe /etc/passwd -d 1s >/dev/null 2>"$TMP/bad4"
check "--exe of a file that is not an executable ELF file: exit 2" "$?" 2
check "--exe not ELF: message" "$(grep -c "^iprof: --exe '/etc/passwd': not an executable ELF file" "$TMP/bad4")" 1
check "nine --comm: message" "$(grep -c "^iprof: --comm 'i': at most 8 --comm options$" "$TMP/bad3")" 1
finish
