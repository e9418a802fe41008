#!/usr/bin/env bash
# The probes' cost comes off the on-CPU time where they ran (issue 45
# item 2): a CPU-bound function reads on-CPU, not runnable, however much
# of its raw time the probes were.  tests/e2e/helpers/hotspin.c: rounds
# of 1000 calls of tiny() (a few ns: its raw time is nearly all probes)
# and one 5 ms busy loop spin(); neither blocks.  Uprobe timers on both.
#  - idle CPU: the workload under SCHED_FIFO (no other task takes its CPU
#    from it, whatever the other CPUs run: this host's idle case): both
#    read at least 95% on-CPU (the issue's figure; measured 99.99-100%).
#  - a competitor on the same CPU: the workload's own child, SCHED_FIFO
#    above it, busy the first half of every millisecond: the workload
#    waits for the CPU about half the time (0.3-0.5 here: the kernel's
#    real-time throttle adds some), in short preemptions that fall in
#    tiny() and spin() as their time does.  spin's on-CPU share is its own
#    (its thread's CPU time over its wall-clock time) within 0.05
#    (measured within 0.005), and tiny's is between 0.5x and 2x spin's
#    (measured 0.73-1.42x in 6 runs; f800d4e, before the probes'
#    preemptions went with their cost: 0.0001-0.15x).  The idle part
#    passes on the old code too: with no preemption there
#    is no runnable time to misplace.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh installs it)"
command -v chrt >/dev/null || skip "needs chrt (util-linux)"

W=$BUILD/e2e-hotspin
[ -x "$W" ] || { bad "e2e-hotspin not built"; finish; }
probes=(-e "uprobe:$W:tiny" -e "uprobe:$W:spin")
share() { jq -r --arg n "$2" '[.tree[] | select(.name == $n)][0] |
	if .total_ns > 0 then .oncpu_ns / .total_ns else 0 end' "$1"; }

# SCHED_FIFO 10: 20 x 5 ms of spin and the probes, well under the
# kernel's real-time throttle (950 ms a second)
"$IPROF" -q -f json -o "$TMP/a.json" "${probes[@]}" -- chrt -f 10 "$W" 20 1000 5000 0 \
	>"$TMP/a.truth" 2>"$TMP/err"
check "idle: iprof exit" "$?" 0
cat "$TMP/err"
check "idle: tiny count" "$(jnode "$TMP/a.json" tiny count)" "$(truth tiny.count "$TMP/a.truth")"
check "idle: spin count" "$(jnode "$TMP/a.json" spin count)" "$(truth spin.count "$TMP/a.truth")"
check "idle: compensated" "$(jq -r .calibration.compensated "$TMP/a.json")" true
within "idle: spin on-CPU share" "$(share "$TMP/a.json" spin)" 0.95 1
within "idle: tiny on-CPU share" "$(share "$TMP/a.json" tiny)" 0.95 1

# One attempt: sets own, s (spin's share), t (tiny's share), r (t / s).
shared_run() {
	"$IPROF" -q -f json -o "$TMP/b.json" "${probes[@]}" -- chrt -f 10 "$W" 40 1000 5000 1 \
		>"$TMP/b.truth" 2>"$TMP/err"
	rc=$?
	cat "$TMP/err"
	s=$(share "$TMP/b.json" spin)
	t=$(share "$TMP/b.json" tiny)
	own=$(awk -F= '/^spin.wall_ns/ { w = $2 } /^spin.cpu_ns/ { c = $2 } END { printf "%.4f", c / w }' "$TMP/b.truth")
	r=$(awk -v t="$t" -v s="$s" 'BEGIN { printf "%.3f", (s > 0) ? t / s : 0 }')
}
# The shares are statistics of a few hundred preemptions: under a loaded
# host (CI runs the sanitizer build beside this) one run in ~20 falls
# outside (seen: spin 0.32 for its own 0.48; tiny/spin 0.276), so up to
# three runs are taken, each one outside printed, and the last must pass.
# The old code read 0.0001-0.15 in every run.
shared_ok() {
	awk -v rc="$rc" -v own="$own" -v s="$s" -v r="$r" 'BEGIN {
		d = s - own; if (d < 0) d = -d
		exit !(rc == 0 && own >= 0.1 && own <= 0.8 && d <= 0.05 && r >= 0.5 && r <= 2) }'
}
shared_run
for again in 2 3; do
	shared_ok && break
	echo "info - shared CPU, a run outside: exit $rc, own $own, spin $s, tiny/spin $r; run $again"
	shared_run
done
check "shared CPU: iprof exit" "$rc" 0
check "shared CPU: tiny count" "$(jnode "$TMP/b.json" tiny count)" "$(truth tiny.count "$TMP/b.truth")"
within "shared CPU: spin waited for the CPU (its own on-CPU share)" "$own" 0.1 0.8
near "shared CPU: spin's on-CPU share = its own ($own)" "$s" "$own" 0 0.05
within "shared CPU: tiny's on-CPU share / spin's" "$r" 0.5 2
finish
