#!/usr/bin/env bash
# How long attaching and detaching many kernel functions takes (issue:
# hundreds of functions in seconds): `sudo tests/vm/run.sh bench_attach`.
# Every vfs_* function with fentry/fexit, with kprobe/kretprobe
# one by one (the kretprobe a tracefs event: --maxactive, miss counts),
# with kprobe/kretprobe --maxactive 0 (both through the kprobe PMU) and in
# kprobe_multi links where the kernel has them (IPROF_VM_SUITE=
# bookworm-backports), twice in turn, in one boot: TCG times drift between boots.  Prints iprof's own
# "N of M timers attached in T ms", its detach time and the whole run.  A
# benchmark, not a test: exit 1 only if nothing attached.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

glob='vfs_*'
for round in 1 2; do
	for cfg in "fentry" "kprobe" "kprobe --maxactive 0" "kprobe_multi"; do
		set -- $cfg
		kind=$1
		shift
		km=0
		if [ "$kind" = kprobe_multi ]; then
			kind=kprobe km=1
			"$IPROF" --dry-run -e "kprobe:vfs_read" 2>&1 | grep -q '^# kprobe_multi: \(these\|available\)' ||
				{ echo "round $round: kprobe_multi: not on this kernel ($(uname -r))"; continue; }
		fi
		t0=$(date +%s.%N)
		IPROF_KPROBE_MULTI=$km "$IPROF" -f seed -o "$TMP/r" "$@" -e "$kind:$glob" -d 1s 2>"$TMP/err"
		rc=$?
		t1=$(date +%s.%N)
		# the detach runs in a background child with many probes: wait
		# for its line
		for i in $(seq 100); do
			grep -q 'detach.* done in\|detached in' "$TMP/err" && break
			sleep 0.2
		done
		echo "round $round: $kind:$glob $*$([ $km = 1 ] && echo ' (kprobe_multi)'): $(grep -o '[0-9]* of [0-9]* timers attached in [0-9.]* ms' "$TMP/err"); $(grep -o 'done in [0-9.]* ms\|detached in [0-9.]* ms' "$TMP/err"); exit $rc; whole run $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; report lines $(grep -c . "$TMP/r")"
		grep -q "timers attached" "$TMP/err" || { cat "$TMP/err"; exit 1; }
	done
done
exit 0
