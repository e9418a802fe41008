#!/usr/bin/env bash
# How long attaching many kernel functions takes (issue: hundreds of
# functions in seconds): `sudo tests/vm/run.sh bench_attach`.  Prints
# iprof's own "N of M timers attached in T ms" for fentry and kprobe globs
# and the time to the report; a benchmark, not a test: exit 1 only if
# nothing attached.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

for kind in fentry kprobe; do
	for glob in 'vfs_*'; do
		t0=$(date +%s.%N)
		"$IPROF" -f seed -o "$TMP/r" -e "$kind:$glob" -d 1s 2>"$TMP/err"
		rc=$?
		t1=$(date +%s.%N)
		n=$(grep -c . "$TMP/r")
		echo "$kind:$glob: $(grep -o '[0-9]* of [0-9]* timers attached in [0-9.]* ms' "$TMP/err") ; exit $rc; whole run $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; report lines $n"
		grep -q "timers attached" "$TMP/err" || { cat "$TMP/err"; exit 1; }
	done
done
exit 0
