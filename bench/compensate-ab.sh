#!/usr/bin/env bash
# compensate-ab.sh OLD_IPROF NEW_IPROF [RUNS] [SPIN_NS]: overhead
# compensation of two iprof builds, paired run by run on the same workload
# binary (BUILD/e2e-nested: tests/e2e/helpers/nested.c, as
# bench/compensate.sh), default options.  Prints each run's compensated
# mean / truth mean per path for both, then per path the median over the
# runs (single-stepped probes' cost moves by several percent from one run
# to the next, and a path with dozens of timed calls inside multiplies
# that: one run says little).  Root.
set -u
OLD=$1 NEW=$2 RUNS=${3:-6} SPIN=${4:-1000}
B=$(realpath "${BUILD:-build}")
W=$B/e2e-nested
SPAN='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'
T=$(mktemp -d /tmp/compensate-ab.XXXXXX)
trap 'rm -rf "$T"' EXIT
probes=(-e "uprobe:$W:outer" -e "uprobe:$W:mid" -e "uprobe:$W:leaf" -e "uprobe:$W:gp" -e "$SPAN")
paths="outer outer>mid outer>mid>leaf outer>gp"
for r in $(seq "$RUNS"); do
	for side in old new; do
		bin=$OLD
		[ "$side" = new ] && bin=$NEW
		"$bin" -q -f json -o "$T/j" "${probes[@]}" -- "$W" 2000 "$SPIN" >"$T/t" || exit 1
		printf '%s run %d:' "$side" "$r"
		for p in $paths; do
			k=${p##*>}
			t=$(sed -n "s/^$k.mean_ns=//p" "$T/t")
			v=$(jq -r --arg p "$p" --arg t "$t" '[.tree | .. | objects |
				select(.path? and ((.path | join(">")) == $p))][0] |
				.avg_ns / ($t | tonumber) * 100 | round / 100' "$T/j")
			printf ' %s %sx' "$p" "$v"
			echo "$v" >>"$T/$side.$k"
		done
		echo
	done
done
echo
for side in old new; do
	printf '%s, median over %d runs:' "$side" "$RUNS"
	for p in $paths; do
		k=${p##*>}
		printf ' %s %sx' "$p" "$(sort -n "$T/$side.$k" | sed -n "$(((RUNS + 1) / 2))p")"
	done
	echo
done
