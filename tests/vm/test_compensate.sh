#!/usr/bin/env bash
# Overhead compensation with kernel-function timers (issue 21), on the VM
# tier's kernel where fentry/fexit and kprobes work: uprobe read_group() >
# ksys_read() > vfs_read() of vm-read-workload, fentry and kprobe timers.
# Counts exact.  Times are TCG's (not a CPU's), so they are not judged
# against a truth; the arithmetic is: read_group's raw total less its
# compensated total is exactly what the calibration's means say its probes
# and its 2 x 200 kernel calls' probes cost (sums lose the mean costs),
# less what the clamp at its children's time added back (its clamped_ns:
# read_group runs once, so nothing is given back; under load its
# children's probes may cost less than the means say), and each kernel
# mechanism was measured, medians and means.
. "$(dirname "$0")/../e2e/lib.sh"
need_root
unset IPROF_NO_COMPENSATE # the VM tier's init sets it for the others

R=$BUILD/vm-read-workload
F=$TMP/data
head -c 4096 /dev/zero >"$F"
for KIND in fentry kprobe; do
	"$IPROF" -q -f json -o "$TMP/$KIND.json" -e "uprobe:$R:read_group" \
		-e "$KIND:ksys_read" -e "$KIND:vfs_read" -- "$R" "$F" 200:1 \
		>"$TMP/$KIND.truth" 2>"$TMP/$KIND.err"
	check "$KIND: iprof exit status" "$?" 0
	cat "$TMP/$KIND.err"
	jq -c '.calibration' "$TMP/$KIND.json"
	check "$KIND: read_group count" "$(jnode "$TMP/$KIND.json" read_group count)" 1
	check "$KIND: read_group>ksys_read count" \
		"$(jnode "$TMP/$KIND.json" 'read_group>ksys_read' count)" "$(truth reads "$TMP/$KIND.truth")"
	check "$KIND: read_group>ksys_read>vfs_read count" \
		"$(jnode "$TMP/$KIND.json" 'read_group>ksys_read>vfs_read' count)" 200
	m=$(jq -r --arg k "$KIND" '[.calibration.mechanisms[] | select(.mech | startswith($k))][0]' "$TMP/$KIND.json")
	check "$KIND: calibrated" "$(echo "$m" | jq -r .measured)" true
	within "$KIND: in_ns measured" "$(echo "$m" | jq -r .in_ns)" 1 1e9
	# the inside and outside parts with half their class's cold_ns and
	# cold_out_ns (the midpoint between the calibration's calls back to
	# back and its cold ones)
	kin=$(echo "$m" | jq -r '.in_mean_ns + ((.cold_ns // 0) / 2 | floor)')
	kout=$(echo "$m" | jq -r '.out_mean_ns + ((.cold_out_ns // 0) / 2 | floor)')
	within "$KIND: in_mean_ns measured" "$kin" 1 1e9
	uin=$(jq -r '[.calibration.mechanisms[] | select(.mech | startswith("uprobe"))][0] | .in_mean_ns + ((.cold_ns // 0) / 2 | floor)' "$TMP/$KIND.json")
	raw=$(jnode "$TMP/$KIND.json" read_group raw_total_ns)
	comp=$(jnode "$TMP/$KIND.json" read_group total_ns)
	clamped=$(jnode "$TMP/$KIND.json" read_group clamped_ns)
	# the preemptions that fell in the probes went with them
	rqout=$(jnode "$TMP/$KIND.json" read_group runq_out_ns)
	echo "$KIND: read_group raw $raw ns, compensated $comp ns, clamped $clamped ns, runq_out $rqout ns; means: uprobe in $uin, $KIND in $kin out $kout"
	# each probe by its CPU's factor (cost_sum): 401 calls, 2 parts each
	cost_sum "$KIND: read_group: raw - compensated + clamped - runq_out = its probes' in + 400 kernel calls' in + out (means)" \
		$((raw - comp + clamped - rqout)) $((uin + 400 * (kin + kout))) "$TMP/$KIND.json" 802
	check "$KIND: nothing uncertain" "$(jnode "$TMP/$KIND.json" read_group uncertain)" 0
done
finish
