#!/usr/bin/env bash
# kprobe sessions against the kprobe_multi entry/return link pair (issue
# 28, item 5), in one boot of a 6.10+ kernel:
#   sudo IPROF_VM_SUITE=bookworm-backports VM_TEST_TIMEOUT=900 \
#        tests/vm/run.sh bench_ksession
# Each round runs three ways, in turn: no kprobes, the pair
# (IPROF_KPROBE_SESSION=0) and sessions (the default), with
# kprobe:vfs_read and kprobe:GLOB (default '*_show', about 1200
# functions) in kprobe_multi links, while vm-read-workload does N reads
# of /proc/version (default 20000) in one read_group() call, timed by a
# uprobe (--no-compensate: the probes' cost is the point).  Printed per run: timers attached, attach and detach ms (iprof's
# own lines; a long detach runs in a background child, its line is
# awaited), and read_group's wall time / N: ns per read with vfs_read's kprobe
# and kretprobe in it (the no-kprobes run is its floor).  Then the medians
# per mode and session / pair.  A benchmark, not a test: exit 1 only if a
# run traced nothing or the kernel has no sessions.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

R=$BUILD/vm-read-workload
G=${1:-'*_show'}
N=${N:-20000}
ROUNDS=${ROUNDS:-5}
IPROF_KPROBE_MULTI=1 "$IPROF" -v --dry-run -e "kprobe:vfs_read" 2>&1 |
	grep -q 'kprobe sessions: yes' ||
	{ echo "kprobe sessions: not on this kernel ($(uname -r))"; exit 1; }
run() { # MODE ROUND
	local m=$1 o=$TMP/$1.$2 n t a d c per
	local -a e=(-e "uprobe:$R:read_group")
	[ "$m" = none ] || e+=(-e kprobe:vfs_read -e "kprobe:$G")
	IPROF_KPROBE_MULTI=1 IPROF_KPROBE_SESSION=$([ "$m" = pair ] && echo 0 || echo 1) \
		"$IPROF" --no-compensate -f seed -o "$o" "${e[@]}" -- "$R" /proc/version "$N:64" \
		>/dev/null 2>"$o.err"
	read -r n t a d <<<"$(attach_times "$o.err" 600)"
	c=$(seed_field read_group wall_time "$o")
	[ -n "$c" ] || { echo "$m: read_group not traced"; cat "$o.err"; exit 1; }
	per=$(awk -v t="$c" -v n="$N" 'BEGIN { printf "%.0f", t * 1e6 / n }')
	echo "round $2 $m: $n of $t timers attached in $a ms, detached in $d ms; $per ns per read"
	echo "$m $a $d $per" >>"$TMP/all"
}
for r in $(seq "$ROUNDS"); do
	for m in none pair session; do
		run $m "$r"
	done
done
med() { # MODE FIELD
	awk -v m="$1" -v f="$2" '$1 == m { print $f }' "$TMP/all" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
echo "medians of $ROUNDS ($(uname -r)):"
for m in pair session; do
	echo "  $m: attach $(med $m 2) ms, detach $(med $m 3) ms, $(med $m 4) ns per read"
done
echo "  no kprobes: $(med none 4) ns per read"
awk -v ap="$(med pair 2)" -v as="$(med session 2)" -v dp="$(med pair 3)" \
	-v ds="$(med session 3)" -v rp="$(med pair 4)" -v rs="$(med session 4)" \
	-v r0="$(med none 4)" 'BEGIN {
	printf "session / pair: attach %.2fx, detach %.2fx, probe cost per read %.2fx (%d against %d ns over the floor)\n",
		as / ap, ds / dp, (rs - r0) / (rp - r0), rs - r0, rp - r0 }'
exit 0
