#!/usr/bin/env bash
# Kernel-function probe overhead in the VM (bench/README.md, "Kernel
# functions (VM)"): per vfs_read() event, iprof's fentry/fexit and
# kprobe/kretprobe timers against empty BPF programs on the same probes
# (bench/empty.bpf.c), all in one run, as ratios: TCG's times are not a real
# CPU's.  Not a test_*.sh, so not in the default VM run:
#
#   sudo tests/vm/run.sh bench_kfunc
#
# ROUNDS (3) interleaved rounds of: `bench_probe loop read N` (the
# baseline), `bench_probe empty-fentry read N`, `bench_probe empty-kprobe
# read N`, and iprof -e fentry:vfs_read / -e kprobe:vfs_read running
# `bench_probe loop read N`.  Each bench_probe times REPS (15) loops of N
# (BENCH_N, 5000) read(2)s of 1 byte and keeps the best.  Prints a table;
# exits 0 if everything ran (the numbers are not judged), 1 if something
# failed to run or iprof's vfs_read count is not the loop's calls.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

BP=$BUILD/bench_probe
N=${BENCH_N:-5000}
REPS=${BENCH_REPS:-15}
ROUNDS=${ROUNDS:-3}
[ -x "$BP" ] || { echo "FAIL: no $BP"; exit 1; }
calls=$((N * REPS))

# field KEY LINE: value of KEY=... in a bench_probe output line
field() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$2"; }

# bp NAME MODE: one bench_probe run, ns_per_iter appended to $TMP/NAME
bp() {
	local out
	if ! out=$("$BP" "$2" read "$N" "$REPS" 2>"$TMP/err"); then
		bad "bench_probe $2 read $N: $(tail -3 "$TMP/err" | tr '\n' ' ')"
		return
	fi
	field ns_per_iter "$out" >>"$TMP/$1"
}

# ip NAME SPEC [OPTION...]: bench_probe loop under iprof -e SPEC OPTION...;
# checks the count
ip() {
	local out rc count lost
	out=$("$IPROF" -q -f seed -o "$TMP/$1.rep" "${@:3}" -e "$2" -- \
		"$BP" loop read "$N" "$REPS" 2>"$TMP/err")
	rc=$?
	if [ "$rc" != 0 ] || [ -z "$(field ns_per_iter "$out")" ]; then
		bad "iprof -e $2: exit $rc: $(tail -3 "$TMP/err" | tr '\n' ' ')"
		return
	fi
	field ns_per_iter "$out" >>"$TMP/$1"
	count=$(seed_field vfs_read count "$TMP/$1.rep")
	lost=$(sed -n 's/^# lost: //p' "$TMP/$1.rep")
	echo "$count/$calls ${lost%% *}" >>"$TMP/$1.counts"
	[ "$count" = "$calls" ] ||
		bad "iprof -e $2: vfs_read count '$count', the loop made $calls calls"
}

echo "# kernel-function probe overhead: $(uname -r), $(nproc) CPUs, N=$N REPS=$REPS ROUNDS=$ROUNDS"
for r in $(seq "$ROUNDS"); do
	t0=$(cut -d' ' -f1 /proc/uptime)
	bp base loop
	bp fe_empty empty-fentry
	bp kp_empty empty-kprobe
	ip fe_iprof fentry:vfs_read
	ip kp_iprof kprobe:vfs_read
	# --slowest: the arguments and return value sent per call
	ip fe_slow fentry:vfs_read --slowest 8
	ip kp_slow kprobe:vfs_read --slowest 8
	awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" \
		-v r="$r" 'BEGIN { printf "# round %d: %.1f s\n", r, b - a }'
done

# best NAME / median NAME: over the rounds
best() { sort -g "$TMP/$1" 2>/dev/null | head -1; }
median() {
	sort -g "$TMP/$1" 2>/dev/null |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# per_event PROBED BASE: (probed - base) / 2 ns
per_event() {
	awk -v p="$1" -v b="$2" 'BEGIN { if (p != "" && b != "") printf "%.1f", (p - b) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b }'; }

B=$(best base)
fe_e=$(per_event "$(best fe_empty)" "$B")
fe_i=$(per_event "$(best fe_iprof)" "$B")
kp_e=$(per_event "$(best kp_empty)" "$B")
kp_i=$(per_event "$(best kp_iprof)" "$B")
fe_s=$(per_event "$(best fe_slow)" "$B")
kp_s=$(per_event "$(best kp_slow)" "$B")
echo
printf '%-17s %-9s %10s %10s %9s %8s  %s\n' probes attached ns/iter "(median)" \
	ns/event "x empty" "count/calls lost (per round)"
row() { # PROBES ATTACHED NAME PER_EVENT X_EMPTY
	printf '%-17s %-9s %10s %10s %9s %8s  %s\n' "$1" "$2" "$(best "$3")" \
		"$(median "$3")" "${4:--}" "${5:--}" \
		"$(cat "$TMP/$3.counts" 2>/dev/null | tr '\n' ' ')"
}
row - baseline base
row fentry/fexit empty fe_empty "$fe_e" 1.00
row fentry/fexit iprof fe_iprof "$fe_i" "$(ratio "$fe_i" "$fe_e")"
row "fentry --slowest" iprof fe_slow "$fe_s" "$(ratio "$fe_s" "$fe_e")"
row kprobe/kretprobe empty kp_empty "$kp_e" 1.00
row kprobe/kretprobe iprof kp_iprof "$kp_i" "$(ratio "$kp_i" "$kp_e")"
row "kprobe --slowest" iprof kp_slow "$kp_s" "$(ratio "$kp_s" "$kp_e")"
echo
echo "ns/event = (ns/iter - baseline) / 2 (best of $ROUNDS rounds); x empty = iprof / empty per event"
echo "fentry/fexit vs kprobe/kretprobe per event: empty $(ratio "$fe_e" "$kp_e"), iprof $(ratio "$fe_i" "$kp_i")"
echo "iprof fentry vs empty kprobe per event: $(ratio "$fe_i" "$kp_e")"
echo "--slowest 8 vs off per event: fentry $(ratio "$fe_s" "$fe_i"), kprobe $(ratio "$kp_s" "$kp_i")"
echo
if [ "$fails" -gt 0 ]; then
	echo "$fails run(s) failed or miscounted"
	exit 1
fi
exit 0
