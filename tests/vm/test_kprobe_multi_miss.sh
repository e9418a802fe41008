#!/usr/bin/env bash
# vm-suite: bookworm-backports
# Missed returns in a kprobe_multi link (issue 16): the link's return
# probes share a pool of 2 instances per function and possible CPU (the
# VM has 2: 4 for one function), not --maxactive.  Eight threads blocked in
# hrtimer_nanosleep() at once miss returns for sure.  Ground truth:
# vm-sleep-workload's calls=.  Every call is timed (count) or closed
# untimed as a missed return (missed_returns: the entry link saw it, the
# return link had no instance); and the kernel's own count of the links'
# misses (bpf_link_info.kprobe_multi.missed, Linux 6.7+), reported as
# kprobe_missed, is the same number.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

S=$BUILD/vm-sleep-workload
F=hrtimer_nanosleep
export IPROF_KPROBE_MULTI=1

"$IPROF" --dry-run -e "kprobe:$F" >"$TMP/plan" 2>&1
check "the timer goes in a kprobe_multi link" \
	"$(grep -c '^# kprobe_multi: these kprobe timers attach in batched links' "$TMP/plan")" 1
"$IPROF" -f seed -o "$TMP/miss.rep" -e "kprobe:$F" -- "$S" 8 10 2000 \
	>"$TMP/miss.truth" 2>"$TMP/miss.err"
rc=$?
sed 's/^/stderr: /' "$TMP/miss.err"
cat "$TMP/miss.rep"
check "iprof exit status (3: calls missed)" "$rc" 3
calls=$(truth calls "$TMP/miss.truth")
check "workload calls" "$calls" 88
count=$(seed_field $F count "$TMP/miss.rep")
missed=$(lost_field "$TMP/miss.rep" missed_returns)
kmissed=$(lost_field "$TMP/miss.rep" kprobe_missed)
echo "calls=$calls count=$count missed_returns=$missed kprobe_missed=$kmissed"
[ "${missed:-0}" -gt 0 ] && ok "returns were missed ($missed)" ||
	bad "no return missed with 8 threads and a pool of 4"
check "count + missed_returns = calls" "$((${count:-0} + ${missed:-0}))" "$calls"
check "missed_returns = the links' misses (the kernel's count)" "${missed:-0}" "${kmissed:-0}"
check "no $F nested in $F" "$(seed_field "$F>$F" count "$TMP/miss.rep")" ""
finish
