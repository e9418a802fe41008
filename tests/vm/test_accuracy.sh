#!/usr/bin/env bash
# vm-timeout: 420
# Runs on 6.1 alone (no vm-suite line; lane 2 in CI).
# Accuracy of kernel-function timers against the program's own clock (issue
# 45 item 5, the VM tier's half: e2e_test_split and bench/accuracy.sh have
# the uprobe half).  vm-knested (tests/vm/knested.c) makes 4 N read(2)s of
# SIZE bytes of /dev/zero; its untraced copies, interleaved, make the same
# calls as pread64(2) (through none of the timed functions) and getpid(2)
# (the syscall entry and exit), timed by the program: the truth of a read's
# kernel part is pread64's time less getpid's.  Timers: fentry or kprobe
# on __x64_sys_read and, nested in it, ksys_read; default options
# (compensated).  iprof and the workload run on CPU 0, the workload
# SCHED_FIFO: under TCG one host thread runs both vCPUs, so the other
# vCPU's turns (iprof's consumer) would stretch the calls it times.
# Checked, per mechanism and size (64 B: a kernel call a fifth of its
# probes' cost; 4 KiB: on 6.1 twice, on 6.12 and 7.2 a third (TCG clears
# the pages faster there: 0.7 us); 64 KiB: 76 us on 6.1, 7 us later):
#   counts exact: 4 N on both paths (exit status 0: nothing lost);
#   each path's compensated avg within its error bar of the truth: the
#   bar's compensation part (avg_err_ns - avg_se_ns) plus 3 standard
#   errors of the difference (iprof's avg_se_ns and the truth's, combined)
#   plus 10% (at least 200 ns) for what differs between the truth's calls
#   and the timed ones (the syscall wrappers, getpid's own body);
#   4 KiB and 64 KiB: each path's compensated median within 10% (at least
#   200 ns) and one histogram slot (1/16 of its octave) of the truth's
#   median (a size whose medians are off is run once more, said: a
#   loaded host stretches TCG's calls unevenly; a bias stays in both);
#   the test's power, 4 KiB: the parent's median plus its probes'
#   calibrated cost (3-4 us here) would not be.
# Not judged, as measured in TCG (where the times are the emulator's, not a
# CPU's): 64 B's medians (a kprobe leaf's read 265-553 ns above its truth of
# 230-390 ns: what the probes cost beside other code varies by more than the
# call); the means are judged by bars that hold TCG's timer ticks (up to
# 3 ms each, inside a timed call in proportion to its wall time, probes
# included).
. "$(dirname "$0")/../e2e/lib.sh"
need_root
unset IPROF_NO_COMPENSATE # the VM tier's init sets it for the others

W=$BUILD/vm-knested
S='__x64_sys_read' K='__x64_sys_read>ksys_read'

# judge DESC AVG ERR SE TRUTH TRUTH_SE (jq: busybox awk has no sqrt)
judge() {
	local lim
	lim=$(jq -n --argjson e "$3" --argjson se "$4" --argjson t "$5" --argjson tse "$6" \
		'([$t * 0.10, 200] | max) as $sl |
		 (($e - $se) + 3 * ($se * $se + $tse * $tse | sqrt) + $sl) | floor')
	within "$1: avg $2 +- $3 (se $4) against the truth $5 (se $6)" \
		"$2" "$(($5 - lim))" "$(($5 + lim))"
}

# p50_lim TRUTH_P50: 10% (at least 200 ns) and one histogram slot
p50_lim() { jq -n --argjson t "$1" '([$t * 0.10, 200] | max) + $t / 16 | floor'; }

# medians_off JSON TRUTH: the paths whose median is outside p50_lim
medians_off() {
	local p tp lim p50 off=
	for p in "$S" "$K"; do
		tp=$(truth kread.p50_ns "$2")
		lim=$(p50_lim "$tp")
		p50=$(jnode "$1" "$p" p50_ns)
		[ "${p50:-0}" -ge $((tp - lim)) ] && [ "${p50:-0}" -le $((tp + lim)) ] ||
			off="$off $p ($p50 against $tp)"
	done
	echo "$off"
}

for KIND in fentry kprobe; do
	for SIZE in 64 4096 65536; do
		N=$((SIZE > 4096 ? 100 : 300))
		t=$KIND.$SIZE j=$TMP/$KIND.$SIZE.json
		# once more where a median is off (4 KiB, 64 KiB): a fresh-clone
		# CI's lanes side by side once stretched the truth's calls and
		# the timed ones apart (qemu 426 s where it takes 70-100, the
		# truth's se 701 ns where it is ~100: the parent's median 8447
		# against 7040); a bias stays in both runs, said
		for try in 1 2; do
			taskset -c 0 "$IPROF" -q -f json -o "$j" --rb-size 16M \
				-e "$KIND:__x64_sys_read" -e "$KIND:ksys_read" -- "$W" $N $SIZE fifo \
				>"$TMP/$t.truth" 2>"$TMP/err"
			rc=$?
			[ "$SIZE" = 64 ] || [ "$rc" != 0 ] && break
			off=$(medians_off "$j" "$TMP/$t.truth")
			[ -z "$off" ] && break
			[ "$try" = 1 ] && echo "$t: medians off in run 1:$off; run 2 judged (its truth: $(tr "\n" " " <"$TMP/$t.truth"))"
		done
		check "$t: iprof exit status" "$rc" 0
		echo "$t: truth: $(tr "\n" " " <"$TMP/$t.truth")"
		jq -c '.calibration.mechanisms[] | {mech, in_ns, out_ns, in_mean_ns, out_mean_ns, cold_ns, sd_ns}' "$j"
		for p in "$S" "$K"; do
			check "$t: $p count" "$(jnode "$j" "$p" count)" $((4 * N))
			avg=$(jnode "$j" "$p" avg_ns)
			p50=$(jnode "$j" "$p" p50_ns)
			raw=$(($(jnode "$j" "$p" raw_total_ns) / (4 * N)))
			echo "$t: $p: avg $avg (raw $raw), p50 $p50, max $(jnode "$j" "$p" max_ns)"
			judge "$t: $p" "$avg" "$(jnode "$j" "$p" avg_err_ns)" \
				"$(jnode "$j" "$p" avg_se_ns)" \
				"$(truth kread.mean_ns "$TMP/$t.truth")" "$(truth kread.se_ns "$TMP/$t.truth")"
			[ "$SIZE" = 64 ] && continue
			tp=$(truth kread.p50_ns "$TMP/$t.truth")
			lim=$(p50_lim "$tp")
			within "$t: $p: p50 $p50 against the truth's $tp" "$p50" $((tp - lim)) $((tp + lim))
			[ "$SIZE" = 4096 ] && [ "$p" = "$S" ] || continue
			# the power: the parent's median plus what the calibration
			# says the probes cost inside it (its own entry's in part, its
			# child's in and out), as uncompensated, is not within
			c=$(jq --arg k "$KIND" '[.calibration.mechanisms[] | select(.mech | startswith($k))][0] | 2 * .in_ns + .out_ns' "$j")
			within "$t: $p: the test's power: p50 + its probes' cost ($c ns) is not within" \
				$((p50 + c - tp)) $((lim + 1)) 1e12
		done
	done
done
finish
