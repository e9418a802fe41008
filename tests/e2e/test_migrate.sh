#!/usr/bin/env bash
# A ring buffer per CPU (issue 8): a thread's records land in the ring of
# whichever CPU it ran on, and user space must merge them per thread in time
# order.  tools/migrate-workload moves each thread to another CPU at the
# start of every leg() (sched_setaffinity), inside hop() > leg() uprobe
# timers, with a getppid span inside each leg: a start on one CPU and its
# stop on another, many times.  Ground truth: the workload's own counts and
# its longest leg().
#
# Then the loss case: 4 KiB rings overflowing on every CPU at once, every
# lost record counted and the counts consistent with them.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/migrate-workload
[ "$(nproc)" -ge 2 ] || skip "one CPU: no migrations possible"
GP='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'

"$IPROF" -q -f json -o "$TMP/m.json" -e "uprobe:$W:hop" -e "uprobe:$W:leg" -e "$GP" \
	-- "$W" --threads 3 --iterations 300 --legs 4 --spin-us 20 >"$TMP/m.truth"
check "iprof exit status" "$?" 0
cat "$TMP/m.truth"
hops=$(truth hop.count "$TMP/m.truth")
legs=$(truth leg.count "$TMP/m.truth")
mig=$(truth migrations "$TMP/m.truth")
within "the workload migrated in most legs" "$mig" $((legs / 2)) "$legs"
check "hop count" "$(jnode "$TMP/m.json" hop count)" "$hops"
check "hop>leg count" "$(jnode "$TMP/m.json" 'hop>leg' count)" "$legs"
check "hop>leg>getppid count" "$(jnode "$TMP/m.json" 'hop>leg>getppid' count)" "$legs"
check "hop threads" "$(jnode "$TMP/m.json" hop threads)" 3
check "no leg outside hop" "$(jnode "$TMP/m.json" leg count)" ""
check "no getppid outside leg" "$(jnode "$TMP/m.json" getppid count)" ""
check "no leg>leg" "$(jnode "$TMP/m.json" 'hop>leg>leg' count)" ""
check "nothing unwound, discarded, skipped or lost" \
	"$(jq -c '[.loss | to_entries[] | select(.value != 0) | .key]' "$TMP/m.json")" "[]"
check "nothing incomplete" "$(jq -r .incomplete.timers "$TMP/m.json")" 0
# No negative, inflated or misordered durations.  Each leg() timer starts
# at leg's entry and stops at its ret, so every call's raw time (the
# probes' timestamps) lies between the workload's two clocks: inside leg()
# (from its first statement) and around the call in hop() (from before the
# call).  That bound holds whatever the probes cost and however often the
# thread is preempted on the way in or out (on a loaded machine a thread
# is often switched out right after the entry uprobe, before leg's own
# clock read: 8% of the total on a lightly loaded 2-CPU machine).  The only
# allowance is for two readings of one clock (bpf_ktime_get_ns vs the
# vDSO's clock_gettime): 1 us per call.  A stop matched to another leg's
# start or another thread's would time across legs and leave the bound.
inner=$(truth leg.total_ns "$TMP/m.truth")
outer=$(truth leg.outer_total_ns "$TMP/m.truth")
omax=$(truth leg.outer_max_ns "$TMP/m.truth")
slack=$((legs * 1000))
within "leg raw_total_ns between the workload's inner ($inner) and outer ($outer) sums" \
	"$(jnode "$TMP/m.json" 'hop>leg' raw_total_ns)" $((inner - slack)) $((outer + slack))
# compensated (the default): each call less its probes' calibrated cost,
# a median; one call's real cost may be below it, so a time may fall under
# the workload's own by at most every calibrated probe cost together
cmax=$(jq '[.calibration.mechanisms[]? | [(.in_ns // 0) + (.out_ns // 0), (.in_mean_ns // 0) + (.out_mean_ns // 0)] | max] | add // 0' "$TMP/m.json")
within "leg total_ns (compensated) within the bounds less the probes' cost ($cmax ns a call)" \
	"$(jnode "$TMP/m.json" 'hop>leg' total_ns)" $((inner - slack - legs * cmax)) $((outer + slack))
within "leg max_ns vs the workload's longest call ($omax from hop)" \
	"$(jnode "$TMP/m.json" 'hop>leg' max_ns)" 20000 $((omax + 1000))
maxns=$omax
within "leg min_ns >= the 20 us spin, less the probes' cost" \
	"$(jnode "$TMP/m.json" 'hop>leg' min_ns)" $((20000 - cmax)) "$maxns"
within "getppid max_ns < the longest leg" "$(jnode "$TMP/m.json" 'hop>leg>getppid' max_ns)" 0 "$maxns"
tot=$(jnode "$TMP/m.json" 'hop>leg' total_ns)
self=$(jnode "$TMP/m.json" 'hop>leg' self_ns)
within "leg self <= total" "$self" 0 "$tot"

# Overflow on every CPU at once: 4 KiB rings, threads on both CPUs making
# bursts of 50 getppid calls as fast as they can.  Missing spans (calls - count) come
# from lost records only: see bench/run.sh (tp_small) for the accounting.
"$IPROF" -q -f json -o "$TMP/l.json" --rb-size 4K -e "$GP" \
	-- "$W" --threads 4 --iterations 500 --legs 8 --spin-us 0 --calls 50 >"$TMP/l.truth"
rc=$?
lost=$(jq -r .loss.ring_buffer_drops "$TMP/l.json")
# records lost: reported, but incomplete (3); none: 0
check "loss run: iprof exit status" "$rc" "$([ "${lost:-0}" -gt 0 ] && echo 3 || echo 0)"
calls=$(truth getppid.count "$TMP/l.truth")
count=$(jnode "$TMP/l.json" getppid count)
disc=$(jq -r .loss.discarded_frames "$TMP/l.json")
skipd=$(jq -r .loss.skipped_records "$TMP/l.json")
echo "calls=$calls count=$count lost=$lost discarded=$disc skipped=$skipd"
within "records lost with 4K rings" "$lost" 1 1e18
missing=$((calls - count))
within "missing spans <= lost records" "$missing" 0 "$lost"
within "other records lost (lost + discarded + skipped - 2 x missing)" \
	$((lost + disc + skipd - 2 * missing)) 0 "$lost"
finish
