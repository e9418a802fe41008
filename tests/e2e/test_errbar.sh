#!/usr/bin/env bash
# The error bars cover the truth (issue 45 item 1): a node's compensated
# average lies within its own avg_err_ns of the program's own mean, for a
# short function (2 us: its probes cost ten times its time) and a long one
# (100 us).  tests/e2e/helpers/selftime.c: shortf() and longf() spin and
# time themselves from inside (their probes outside the clock reads, the
# preemptions inside them in both), interleaved.  The workload runs
# SCHED_FIFO (chrt -f 10) where chrt is, so that no other task of a loaded
# host comes between its calls (the average keeps each call's runnable
# time, and a preemption that falls in the probes is taken out only by its
# share: doc/json.md "Error bars", not counted).  Default options (a
# uretprobe or return sites).  The bias the error bar must hold is the
# probes' cost in this process against the calibration's in iprof's: the
# same in every call, so it does not shrink with the count.  A bound
# check with the error bar itself, not a timed test; its slack, 100 ns, is
# what the calls' own clock reads leave out of their calls (a call and a
# ret, a clock read's half, the sum's add).
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-selftime
[ -x "$W" ] || { bad "e2e-selftime not built"; finish; }
pre=()
command -v chrt >/dev/null && chrt -f 10 true 2>/dev/null && pre=(chrt -f 10)
# 20000 calls of 2 us, one of 100 us after every 100th; three runs, each
# a calibration and a process of its own (the bias is a run's: main's
# error bars, the calibration's rounds and skew alone, held in 1 of 4
# runs here)
for r in 1 2 3; do
	"$IPROF" -q -f json -o "$TMP/e.json" -e "uprobe:$W:shortf" -e "uprobe:$W:longf" \
		-- "${pre[@]}" "$W" 20000 2000 100 100000 >"$TMP/truth" 2>"$TMP/err"
	check "run $r: exit status" "$?" 0
	cat "$TMP/err"
	jq -c '.calibration.mechanisms[] | {mech, in_mean_ns, out_mean_ns, sd_ns, drift_ns, drift_rounds_ns, skew_ns, proc_drift_ns}' "$TMP/e.json"
	check "run $r: compensated" "$(jq -r .calibration.compensated "$TMP/e.json")" true
	for f in shortf longf; do
		check "run $r: $f count" "$(jnode "$TMP/e.json" "$f" count)" "$(truth $f.count "$TMP/truth")"
		t=$(truth $f.mean_ns "$TMP/truth")
		avg=$(jnode "$TMP/e.json" "$f" avg_ns)
		err=$(jnode "$TMP/e.json" "$f" avg_err_ns)
		echo "# run $r: $f: truth $t ns, iprof $avg +- $err ns (avg_drift_ns $(jnode "$TMP/e.json" "$f" avg_drift_ns), raw $(jq -r --arg f "$f" '[.tree[] | select(.name == $f)][0] | .raw_total_ns / .count | floor' "$TMP/e.json"))"
		within "run $r: $f: compensated avg within its error bar (+ 100 ns) of the truth ($t)" \
			"$avg" $((t - err - 100)) $((t + err + 100))
		# the error bar is no blanket: its compensation's part (less
		# the average's standard error and the runnable time kept)
		# below the probes' whole cost a call (their in + out means,
		# and a split entry's gap)
		comp=$(jq -r --arg f "$f" '[.tree[] | select(.name == $f)][0] |
			.avg_err_ns - .avg_se_ns - (.runq_ns / .count) | floor' "$TMP/e.json")
		within "run $r: $f: its error bar's compensation part below the probes' cost a call" "$comp" 1 \
			"$(jq '[.calibration.mechanisms[] | .in_mean_ns + .out_mean_ns + (.gap_mean_ns // 0)] | max' "$TMP/e.json")"
	done
	# 100 us is resolved: no statistic of longf within its error bar of 0
	check "run $r: longf: nothing below resolution" \
		"$(jq -c '[.tree[] | select(.name == "longf")][0].below_resolution_keys' "$TMP/e.json")" "[]"
done
finish
