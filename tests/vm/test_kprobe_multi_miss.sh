#!/usr/bin/env bash
# vm-suite: bookworm-backports
# Missed calls in a kprobe_multi link (issue 16): the link's return
# probes share a pool of 2 instances per function and possible CPU (the
# VM has 2: 4 for one function), not --maxactive.  Eight threads blocked in
# hrtimer_nanosleep() at once miss for sure.  Ground truth:
# vm-sleep-workload's calls=.  The kernel's own count of the links' misses
# (bpf_link_info.kprobe_multi.missed, Linux 6.7+) is reported as
# kprobe_missed, exit status 3.  Where a miss falls depends on how the
# timer is attached (both run here, the same workload):
#  - an entry link and a return link (IPROF_KPROBE_SESSION=0, or a kernel
#    before 6.10): the entry program ran, the return had no instance;
#    every call is timed (count) or closed untimed as a missed return:
#    count + missed_returns = calls, missed_returns = kprobe_missed;
#  - a kprobe session (6.10+): the rethook-based fprobe (6.12:
#    kernel/trace/fprobe.c, fprobe_handler()) takes the return's instance
#    before the entry program runs and, with none left, runs neither:
#    the call is not seen at all (not a missed return):
#    count + kprobe_missed = calls, missed_returns = 0.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

S=$BUILD/vm-sleep-workload
F=hrtimer_nanosleep
export IPROF_KPROBE_MULTI=1

IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
session=0
{ [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 10 ]; }; } && session=1

# run MODE (pair|session): the workload under a kprobe_multi timer on $F
run() {
	local mode=$1 env=() want calls count missed kmissed rc
	[ "$mode" = pair ] && env=(IPROF_KPROBE_SESSION=0)
	env "${env[@]}" "$IPROF" --dry-run -e "kprobe:$F" >"$TMP/$mode.plan" 2>&1
	check "$mode: the timer goes in a kprobe_multi link" \
		"$(grep -c '^# kprobe_multi: these kprobe timers attach in batched links' "$TMP/$mode.plan")" 1
	env "${env[@]}" "$IPROF" -f json -o "$TMP/$mode.json" -e "kprobe:$F" -- "$S" 8 10 2000 \
		>"$TMP/$mode.truth" 2>"$TMP/$mode.err"
	rc=$?
	sed "s/^/$mode: stderr: /" "$TMP/$mode.err"
	want="kprobe/kretprobe (kprobe_multi)"
	[ "$mode" = session ] && want="kprobe/kretprobe (kprobe session)"
	check "$mode: attached as" \
		"$(jq -r --arg f "$F" '.probes[] | select(.name == $f) | .mech' "$TMP/$mode.json")" "$want"
	check "$mode: iprof exit status (3: calls missed)" "$rc" 3
	calls=$(truth calls "$TMP/$mode.truth")
	check "$mode: workload calls" "$calls" 88
	count=$(jnode "$TMP/$mode.json" "$F" count)
	missed=$(jq '.loss.missed_returns' "$TMP/$mode.json")
	kmissed=$(jq '.loss.kprobe_misses' "$TMP/$mode.json")
	echo "$mode: calls=$calls count=$count missed_returns=$missed kprobe_missed=$kmissed"
	[ "${kmissed:-0}" -gt 0 ] && ok "$mode: the kernel counted misses ($kmissed)" ||
		bad "$mode: no miss with 8 threads and a pool of 4"
	if [ "$mode" = pair ]; then
		check "pair: count + missed_returns = calls" "$((${count:-0} + ${missed:-0}))" "$calls"
		check "pair: missed_returns = the links' misses (the kernel's count)" "${missed:-0}" "${kmissed:-0}"
	else
		check "session: count + kprobe_missed = calls" "$((${count:-0} + ${kmissed:-0}))" "$calls"
		check "session: no missed return (a missed call has no entry either)" "${missed:-0}" 0
	fi
	check "$mode: no $F nested in $F" "$(jnode "$TMP/$mode.json" "$F>$F" count)" ""
}

run pair
if [ $session = 1 ]; then
	run session
else
	echo "SKIP-PART: session: kprobe sessions need Linux 6.10+ ($(uname -r))"
fi
finish
