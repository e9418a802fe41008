#!/usr/bin/env bash
# uprobe timers against tools/uprobe-workload's own ground truth: exact
# counts and thread counts, nesting (incl. recursion), a thread that exits
# inside a timer; times within 10% or 3 ms of what the workload measured.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/uprobe-workload
T=3 N=40 D=4
"$IPROF" -q -f seed -o "$TMP/rep" \
	-e "uprobe:$W:outer" -e "uprobe:$W:spin_inner" \
	-e "uprobe:$W:sleep_inner" -e "uprobe:$W:recurse" \
	-e "uprobe:$W:exit_inside" \
	-- "$W" --threads $T --calls $N --spin-us 300 --sleep-us 500 --depth $D \
	--exit-inside >"$TMP/truth" 2>"$TMP/err"
check "iprof exit status" "$?" 0
cat "$TMP/rep"
calls=$((T * N))
check "outer count" "$(seed_field outer count "$TMP/rep")" "$(truth outer.count "$TMP/truth")"
check "outer count = threads x calls" "$(seed_field outer count "$TMP/rep")" $calls
check "outer thread_count" "$(seed_field outer thread_count "$TMP/rep")" $T
check "outer>spin_inner count" "$(seed_field 'outer>spin_inner' count "$TMP/rep")" "$(truth spin_inner.count "$TMP/truth")"
check "outer>sleep_inner count" "$(seed_field 'outer>sleep_inner' count "$TMP/rep")" "$(truth sleep_inner.count "$TMP/truth")"
check "outer>spin_inner thread_count" "$(seed_field 'outer>spin_inner' thread_count "$TMP/rep")" $T
p=outer
for lvl in $(seq 1 $D); do
	p="$p>recurse"
	check "recursion level $lvl ($p) count" "$(seed_field "$p" count "$TMP/rep")" $calls
done
check "no level deeper than $D" "$(seed_field "$p>recurse" count "$TMP/rep")" ""
check "spin_inner only under outer" "$(seed_field spin_inner count "$TMP/rep")" ""
# exit_inside() calls exit(): it never returns, so it is no call (no row)
# but one frame open at its thread's exit, in the seed's notes
check "exit_inside: no call completed" "$(seed_field exit_inside count "$TMP/rep")" ""
check "exit_inside: open at its thread's exit" \
	"$(sed -n 's/^# exited: exit_inside count=\([0-9]*\) .*/\1/p' "$TMP/rep")" 1

ms() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e6 }'; }
# own DESC ACTUAL TRUTH_MS: within 10% or 3 ms of the workload's own time,
# and below it by up to 0.15 ms a call more: the workload times each call
# from outside, with the probes' own cost (the entry trap before iprof's
# start timestamp, the return site's single-step of its ret after its stop:
# 30-110 us a call on a paravirtualized guest, bench/README.md)
own() {
	within "$1, the workload's own $3" "$2" \
		"$(awk -v o="$3" -v n=$calls 'BEGIN { d = o * 0.10; if (d < 3) d = 3; printf "%.2f", o - d - n * 0.15 }')" \
		"$(awk -v o="$3" 'BEGIN { d = o * 0.10; if (d < 3) d = 3; printf "%.2f", o + d }')"
}
# the probes' cost per call (its "# compensated:" line: in + out ns, the
# dearest class, with a split entry's gap (gap_mean=), measured per call
# and taken off the caller too)
# (the sums lose the means: in_mean=/out_mean=, the larger pair counts)
cost=$(grep -oE 'in(_mean)?=[0-9]+ns out(_mean)?=[0-9]+ns( gap=[0-9]+ns gap_mean=[0-9]+ns)?' "$TMP/rep" |
	sed -E 's/in(_mean)?=([0-9]+)ns out(_mean)?=([0-9]+)ns( gap=[0-9]+ns gap_mean=([0-9]+)ns)?/\2 \4 \6/' |
	awk '{ c = $1 + $2 + $3; if (c > m) m = c } END { print m + 0 }')
# spin_inner: against the workload's own clock above, and below by no
# more than its own CPU time less 10% and twice the probes' cost a call:
# a loaded machine preempts the workload where a trap returns to it, after
# iprof's stop, so its wall clock holds waits iprof cannot see (a CI run
# at load 14: 1.01 ms a call by the workload's clock, 0.52 by iprof's);
# its CPU time holds none of them
cpu=$(ms "$(truth spin_inner.cpu_ns "$TMP/truth")")
spin_lo=$(awk -v c="$cpu" -v n=$calls -v k="$cost" 'BEGIN { printf "%.2f", c * 0.9 - 2 * n * k / 1e6 }')
spin_hi=$(awk -v o="$(ms "$(truth spin_inner.total_ns "$TMP/truth")")" 'BEGIN { d = o * 0.10; if (d < 3) d = 3; printf "%.2f", o + d }')
within "spin_inner thread_time (ms), the workload's own $(ms "$(truth spin_inner.total_ns "$TMP/truth")") (CPU $cpu)" \
	"$(seed_field 'outer>spin_inner' thread_time "$TMP/rep")" "$spin_lo" "$spin_hi"
own "sleep_inner thread_time (ms)" "$(seed_field 'outer>sleep_inner' thread_time "$TMP/rep")" \
	"$(ms "$(truth sleep_inner.total_ns "$TMP/truth")")"
# outer: the workload's clock around each call holds its 2 + D timed
# children's probes, which iprof takes out (its "# compensated:" line: in
# + out ns per call, the dearest class): within 10% or 3 ms, and below by
# up to that cost a child more (a loaded machine makes probes dearer:
# 20 us in + out seen, against 4 us idle)
o=$(ms "$(truth outer.total_ns "$TMP/truth")")
within "outer thread_time (ms), the workload's own $o less its children's probes (${cost} ns each)" \
	"$(seed_field outer thread_time "$TMP/rep")" \
	"$(awk -v o="$o" -v n=$calls -v k=$((2 + D)) -v c="$cost" 'BEGIN { d = o * 0.10; if (d < 3) d = 3; printf "%.2f", o - d - n * k * c / 1e6 }')" \
	"$(awk -v o="$o" 'BEGIN { d = o * 0.10; if (d < 3) d = 3; printf "%.2f", o + d }')"
# avg against the workload's own mean per call: the bounds of thread_time
# above, per call, but no more than 10% or 20 us above the workload's
own=$(awk -v t="$(truth spin_inner.total_ns "$TMP/truth")" -v n=$calls 'BEGIN { printf "%.3f", t / n / 1e6 }')
within "spin_inner avg (ms), the workload's own $own" "$(seed_field 'outer>spin_inner' avg "$TMP/rep")" \
	"$(awk -v l="$spin_lo" -v n=$calls 'BEGIN { printf "%.3f", l / n }')" \
	"$(awk -v o="$own" 'BEGIN { d = o * 0.10; if (d < 0.02) d = 0.02; printf "%.3f", o + d }')"
check "loss line, no record lost ($(grep '^# lost' "$TMP/rep"))" \
	"$(lost_field "$TMP/rep" records)" 0

# two timers on one function, one filtered: both exact, none unwound (their
# uprobes share one attachment, stops innermost first)
"$IPROF" -q -f seed -o "$TMP/two" -e "uprobe:$W:outer" \
	-e "uprobe:$W:recurse as r_all" -e "uprobe:$W:recurse as r_top if arg0 == 4" \
	-- "$W" --calls 10 --depth 4 --spin-us 10 --sleep-us 10 >"$TMP/two.truth" 2>>"$TMP/err"
check "two timers on recurse: exit" "$?" 0
check "r_all at the first level" "$(seed_field 'outer>r_all' count "$TMP/two")" 10
check "r_top (arg0 == 4) inside it" "$(seed_field 'outer>r_all>r_top' count "$TMP/two")" 10
check "r_all below r_top" "$(seed_field 'outer>r_all>r_top>r_all' count "$TMP/two")" 10
check "nothing unwound ($(grep '^# lost' "$TMP/two"))" \
	"$(lost_field "$TMP/two" unwound)" 0

# _start never returns: no uretprobe, which would overwrite argc where a
# return address would be; the program must see its own arguments
"$IPROF" -q -f json -o "$TMP/start.json" -e "uprobe:$W:_start" -e "uprobe:$W:outer" \
	-- "$W" --calls 7 >"$TMP/start.truth"
check "_start: exit status" "$?" 0
check "_start: the program saw its arguments" "$(truth outer.count "$TMP/start.truth")" 7
check "_start: entry only" "$(jq -r '.probes[0].mech' "$TMP/start.json")" "uprobe (never returns)"
# (outer runs in a worker thread, not under the main thread's _start)
check "outer beside it" "$(jnode "$TMP/start.json" outer count)" 7
check "_start: closed at its thread's exit" "$(jnode "$TMP/start.json" _start exited)" 1
# --max-paths 2: the third timer's calls are counted in [other], and the
# summary does not call it a timer with 0 hits (first-use review)
"$IPROF" -e "uprobe:$W:outer" -e "uprobe:$W:spin_inner" -e "uprobe:$W:sleep_inner" \
	--max-paths 2 -- "$W" --threads 1 --calls 5 >"$TMP/cap.out" 2>&1
check "--max-paths 2: exit status" "$?" 0
check "--max-paths 2: [other] holds sleep_inner's calls" \
	"$(awk '$1 == "[other]" { print $2 }' "$TMP/cap.out")" "$(truth sleep_inner.count "$TMP/cap.out")"
check "--max-paths 2: sleep_inner not called a timer with 0 hits" \
	"$(grep -c '0 hits: sleep_inner' "$TMP/cap.out")" 0
"$IPROF" -q -f json -o "$TMP/cap.json" -e "uprobe:$W:outer" -e "uprobe:$W:spin_inner" \
	-e "uprobe:$W:sleep_inner" --max-paths 2 -- "$W" --threads 1 --calls 5 >/dev/null 2>&1
check "--max-paths 2, json: sleep_inner in [other]" \
	"$(jq -c '.probes[] | select(.name == "sleep_inner") | [.paths, .in_other]' "$TMP/cap.json")" "[0,true]"
check "--max-paths 2, json: outer not" \
	"$(jq -c '.probes[] | select(.name == "outer") | .in_other' "$TMP/cap.json")" false
# a binary whose path holds a space: uprobe:"PATH":FUNC (no way to name it
# before; a first-use tester)
mkdir -p "$TMP/my app"
cp "$W" "$TMP/my app/w"
"$IPROF" -q -f json -o "$TMP/space.json" -e "uprobe:\"$TMP/my app/w\":outer" \
	-- "$TMP/my app/w" --calls 6 >"$TMP/space.truth"
check "quoted path: exit status" "$?" 0
check "quoted path: every call" "$(jnode "$TMP/space.json" outer count)" \
	"$(truth outer.count "$TMP/space.truth")"
finish
