#!/usr/bin/env bash
# kprobe_multi against one kprobe per function, on a glob of over 1000
# kernel functions (issue 16, item 2), in one boot:
#   sudo IPROF_VM_SUITE=bookworm-backports VM_TEST_TIMEOUT=900 \
#        tests/vm/run.sh bench_kmulti
# kprobe:*_show (about 1200 functions on 6.12's cloud kernel) traced while
# vm-read-workload reads /proc/version 40 times, both ways, each run's
# attach and detach time (iprof's own lines; the detach of many probes runs
# in a background child: its line is awaited) and the ratio.  One kprobe
# per function for all of them takes minutes under TCG.  A benchmark, not
# a test: exit 1 only if a run traced nothing.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

R=$BUILD/vm-read-workload
G=${1:-'*_show'}
"$IPROF" --dry-run -e "kprobe:vfs_read" 2>&1 | grep -q '^# kprobe_multi: \(these\|available\)' ||
	{ echo "kprobe_multi: not on this kernel ($(uname -r))"; exit 1; }
for mode in 1 0; do
	IPROF_KPROBE_MULTI=$mode "$IPROF" -f seed -o "$TMP/r$mode" -e "kprobe:$G" -- \
		"$R" /proc/version 40:4096 >/dev/null 2>"$TMP/e$mode"
	read -r n t a d <<<"$(attach_times "$TMP/e$mode" 600)"
	c=$(seed_field version_proc_show count "$TMP/r$mode")
	echo "IPROF_KPROBE_MULTI=$mode kprobe:$G: $n of $t timers attached in $a ms, detached in $d ms; version_proc_show count ${c:-none} (40 reads)"
	eval "t$mode=$(awk -v a="$a" -v d="$d" 'BEGIN { print a + d }')"
	[ -n "$c" ] || exit 1
done
echo "attach + detach: kprobe_multi $t1 ms, one kprobe per function $t0 ms: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", a / b }')x"
exit 0
