#!/usr/bin/env bash
# Probe overhead of iprof (bench/README.md, "Probe overhead").
#
#   sudo bench/run.sh [BUILD_DIR]        (default: $BUILD, else ./build)
#
# In one run on this host: a tight getppid loop (a syscall tracepoint pair)
# and a loop of calls of bench_target() (a uprobe + uretprobe pair), each
# with nothing attached (baseline), with an empty BPF program on the same
# probes (the floor) and under iprof; then iprof with a small ring buffer
# (loss), iprof's tracepoint program rebuilt step by step (bench/steps.bpf.c)
# and the kernel's per-program run times (kernel.bpf_stats_enabled, restored
# afterwards).  Configurations are interleaved round by round, so that what
# else runs on the host hits them alike; each number is the best of ROUNDS
# rounds, each round the best of REPS loops of N iterations in one process.
#
#   per-event cost (ns) = (ns/iter probed - ns/iter baseline) / 2
#
# Prints a table and the goals; a benchmark, not a test: exit status 0 unless
# something could not run.  Environment: ROUNDS (5), REPS (10), N_TP
# (200000), N_UP (50000), STEPS=0 skips the step-by-step part, STATS=0 the
# BPF run-time statistics.
set -u
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root"
	exit 0
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$SRC/build}}
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || {
	echo "bench/run.sh: no build directory '$1'" >&2
	exit 1
}
IPROF=$BUILD/iprof
BP=$BUILD/bench_probe
for f in "$IPROF" "$BP"; do
	[ -x "$f" ] || {
		echo "bench/run.sh: $f is not built (cmake --build $BUILD)" >&2
		exit 1
	}
done
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-10}
N_TP=${N_TP:-200000}
N_UP=${N_UP:-50000}
STEPS=${STEPS:-1}
STATS=${STATS:-1}
TP_SPAN='span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid'
TMP=$(mktemp -d /tmp/iprof-bench.XXXXXX)
OLD_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
	echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! [ -e /sys/kernel/tracing/events ] && ! [ -e /sys/kernel/debug/tracing/events ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
fi
echo 0 >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null # timing passes: off
T0=$(date +%s)

# ---- helpers -----------------------------------------------------------------

# field KEY LINE: value of KEY=... in a bench_probe line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

# BPF tracing programs loaded by anyone (ours included): other tracers on
# the host change every number below
tracing_progs() {
	bpftool prog show 2>/dev/null |
		grep -cE '^[0-9]+: (tracepoint|kprobe|raw_tracepoint|tracing|perf_event) '
}

# bp NAME MODE WORKLOAD N: one bench_probe process; appends ns/iter to
# $TMP/NAME.ns
bp() {
	local name=$1 out
	shift
	if out=$("$BP" "$@" "$REPS" 2>"$TMP/$name.err"); then
		field ns_per_iter "$out" >>"$TMP/$name.ns"
		field prog_ns "$out" | grep -v '^-' >>"$TMP/$name.pns"
		echo "$out" >"$TMP/$name.last"
	else
		echo "bench/run.sh: bench_probe $*: $(tail -1 "$TMP/$name.err")" >&2
	fi
}

# ip NAME LABEL WORKLOAD N [IPROF OPTIONS...]: bench_probe loop under iprof;
# appends ns/iter to $TMP/NAME.ns, the count and loss fields to NAME.runs
ip() {
	local name=$1 label=$2 wl=$3 n=$4 out rc count calls lost
	local run=("$IPROF" -q -f seed -o "$TMP/$name.rep")
	shift 4
	# IP_RECORD=1: iprof record, with the live report beside the recording
	[ "${IP_RECORD:-0}" = 1 ] && run=("$IPROF" record -q -f seed \
		-o "$TMP/$name.rec" --report-output "$TMP/$name.rep")
	out=$("${run[@]}" "$@" -- \
		"$BP" loop "$wl" "$n" "$REPS" 2>"$TMP/$name.err")
	rc=$?
	if [ $rc != 0 ] || [ -z "$out" ]; then
		echo "bench/run.sh: iprof $*: exit $rc: $(tail -2 "$TMP/$name.err")" >&2
		echo "rc=$rc" >>"$TMP/$name.runs"
		return
	fi
	field ns_per_iter "$out" >>"$TMP/$name.ns"
	calls=$(field calls "$out")
	count=$(sed -n "s/^$label, .*count = \([0-9]*\),.*/\1/p" "$TMP/$name.rep")
	lost=$(sed -n 's/^# lost: //p' "$TMP/$name.rep")
	echo "rc=0 calls=$calls count=${count:-0} $lost" >>"$TMP/$name.runs"
	cp "$TMP/$name.rep" "$TMP/$name.lastrep"
}

# best NAME / median NAME: of the values in $TMP/NAME.ns ("" if none)
best() { [ -s "$TMP/$1.ns" ] && sort -g "$TMP/$1.ns" | head -1; }
best_pns() { [ -s "$TMP/$1.pns" ] && sort -g "$TMP/$1.pns" | head -1; }
median() {
	[ -s "$TMP/$1.ns" ] || return
	sort -g "$TMP/$1.ns" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# per_event PROBED BASE: (probed - base) / 2
per_event() {
	[ -n "$1" ] && [ -n "$2" ] || return
	awk -v p="$1" -v b="$2" 'BEGIN { printf "%.1f", (p - b) / 2 }'
}
ratio() {
	[ -n "$1" ] && [ -n "$2" ] || return
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b }'
}
# sum of KEY=V over the lines of $TMP/NAME.runs
runs_sum() { sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$TMP/$1.runs" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
# rounds where iprof's count equals the loop's calls / all rounds
count_ok() {
	awk '{ c = ""; n = ""; for (i = 1; i <= NF; i++) {
		if ($i ~ /^calls=/) n = substr($i, 7); if ($i ~ /^count=/) c = substr($i, 7) }
		t++; if (n != "" && c == n) k++ } END { printf "%d/%d", k, t }' "$TMP/$1.runs" 2>/dev/null
}

# ---- the runs ----------------------------------------------------------------

echo "# iprof probe overhead: $(uname -r), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
echo "# build $BUILD; ROUNDS=$ROUNDS REPS=$REPS N_TP=$N_TP N_UP=$N_UP"
OTHER0=$(tracing_progs)
LOAD0=$(cut -d' ' -f1 /proc/loadavg)

HAVE_NOP5=0
"$BP" loop ucall-nop5 1 1 >/dev/null 2>&1 && HAVE_NOP5=1
for r in $(seq 1 "$ROUNDS"); do
	echo "# round $r/$ROUNDS ($(($(date +%s) - T0)) s)" >&2
	bp tp_base loop getppid "$N_TP"
	bp tp_raw empty-rawtp getppid "$N_TP"
	bp tp_empty empty getppid "$N_TP"
	ip tp_iprof getppid getppid "$N_TP" -e "$TP_SPAN"
	IP_RECORD=1 ip tp_record getppid getppid "$N_TP" -e "$TP_SPAN"
	bp up_base loop ucall "$N_UP"
	bp up_empty empty ucall "$N_UP"
	ip up_iprof bench_target ucall "$N_UP" -e "uprobe:$BP:bench_target"
	if [ $HAVE_NOP5 = 1 ]; then
		bp n5_base loop ucall-nop5 "$N_UP"
		bp n5_empty empty ucall-nop5 "$N_UP"
		ip n5_iprof bench_target_nop5 ucall-nop5 "$N_UP" \
			-e "uprobe:$BP:bench_target_nop5"
	fi
	# loss: a ring of 256K holds ~6500 records, ~2 ms of this loop
	if [ "$r" -le 3 ]; then
		ip tp_small getppid getppid "$N_TP" --rb-size 256K -e "$TP_SPAN"
	fi
done

# MODE REFERENCE DESCRIPTION: each step is compared with its reference
STEP_TABLE="steps-lookup|empty|+ pid/tgid, cookie, action lookup (every hit)
steps-target|steps-lookup|+ targets hash lookup on START
steps-storage|steps-target|+ task storage get (create on START), push/pop
steps-full|steps-storage|+ a ring-buffer record per hit: iprof's tp_hit
steps-ktime|steps-lookup|lookup + bpf_ktime_get_ns() alone
steps-rb-nots|steps-lookup|lookup + a ring-buffer record, no clock read
steps-rb|steps-lookup|lookup + a ring-buffer record with the clock read
steps-wake|steps-full|tp_hit waking the reader on every record
steps-rawtp|steps-full|tp_hit on raw_syscalls:sys_enter/sys_exit, nr filtered in BPF
steps-cached|steps-full|proposed: target verdict cached in task storage
steps-pair|steps-full|proposed: cached + one record per timer (at STOP)"
STEP_MODES=$(cut -d'|' -f1 <<<"$STEP_TABLE" | tr '\n' ' ')
SROUNDS=${SROUNDS:-3}
# steps_round PREFIX: every step once (N_TP / 4 iterations x REPS)
steps_round() {
	bp "$1_base" loop getppid "$((N_TP / 4))"
	bp "$1_empty" empty getppid "$((N_TP / 4))"
	for m in $STEP_MODES; do
		n=$((N_TP / 4))
		[ $m = steps-wake ] && n=$((N_TP / 40)) # ~3 us an iteration
		bp "$1_$m" "$m" getppid "$n"
	done
}
if [ "$STEPS" = 1 ]; then
	for r in $(seq 1 "$SROUNDS"); do
		echo "# steps round $r/$SROUNDS ($(($(date +%s) - T0)) s)" >&2
		steps_round st
		# a reader held up for 50 ms every 200 ms: iprof's wakeup rule
		# (every record while the ring is past a quarter) against waking
		# once when it crosses the quarter
		for m in steps-full steps-edge; do
			BENCH_STALL_MS=50 bp "stall_$m" "$m" getppid "$((N_TP / 2))"
			cat "$TMP/stall_$m.last" >>"$TMP/stall_$m.lines" 2>/dev/null
		done
	done
fi

# kernel.bpf_stats_enabled: mean ns per run of each program (it adds two
# clock reads per run: compare programs with each other, not with the
# ns/event above)
declare -A PNS
IPROF_PROGS=""
if [ "$STATS" = 1 ] && echo 1 >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null; then
	echo "# BPF statistics ($(($(date +%s) - T0)) s)" >&2
	for r in $(seq 1 "$SROUNDS"); do
		[ "$STEPS" = 1 ] && steps_round sp
		bp sp_up_empty empty ucall "$N_UP"
	done
	for m in empty up_empty $STEP_MODES; do
		PNS[$m]=$(best_pns "sp_$m")
	done
	# iprof's own programs: run_time_ns / run_cnt from /proc/PID/fdinfo,
	# sampled twice while the loop runs (the difference: steady state)
	sample() {
		local fd id
		for fd in /proc/"$1"/fdinfo/*; do
			id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$fd" 2>/dev/null)
			[ -n "$id" ] || continue
			echo "$id $(sed -n 's/^run_time_ns:[[:space:]]*//p' "$fd") $(sed -n 's/^run_cnt:[[:space:]]*//p' "$fd")"
		done
	}
	for w in getppid ucall; do
		if [ $w = getppid ]; then
			spec=$TP_SPAN n=$((N_TP * 4))
		else
			spec="uprobe:$BP:bench_target" n=$((N_UP * 4))
		fi
		"$IPROF" -q -f seed -o "$TMP/stats.rep" -e "$spec" -- "$BP" loop $w $n "$REPS" \
			>/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 100); do # until the loop runs
			pgrep -P $pid >/dev/null && break
			sleep 0.02
		done
		sleep 0.3
		sample $pid >"$TMP/s1"
		sleep 0.8
		sample $pid >"$TMP/s2"
		: >"$TMP/s3"
		while read -r id ns cnt; do # while iprof's programs are loaded
			read -r _ ns0 cnt0 < <(grep "^$id " "$TMP/s1") || continue
			[ "$cnt" -gt "$cnt0" ] 2>/dev/null || continue
			name=$(bpftool prog show id "$id" 2>/dev/null |
				sed -n 's/.* name \([^ ]*\) .*/\1/p')
			echo "$((cnt - cnt0)) $((ns - ns0)) ${name:-id$id}" >>"$TMP/s3"
		done <"$TMP/s2"
		wait $pid
		# programs run at least 1/10 as often as the busiest, then the rest
		IPROF_PROGS+=$(sort -rn "$TMP/s3" | awk -v w=$w '
			NR == 1 { max = $1 }
			$1 * 10 >= max { printf "%s: %s %.1f ns x %d runs;", w, $3, $2 / $1, $1; next }
			{ on++; oc += $1; ons += $2 }
			END { if (on) printf "%s: %d other programs (sched, irq, fork/exit) %.1f ns x %d runs;", w, on, ons / oc, oc }')
	done
	echo 0 >/proc/sys/kernel/bpf_stats_enabled
fi
OTHER1=$(tracing_progs)
LOAD1=$(cut -d' ' -f1 /proc/loadavg)

# ---- the table ---------------------------------------------------------------

echo
printf '%-11s %-12s %11s %11s %10s %8s %15s  %s\n' probes attached \
	"ns/iter" "(median)" "ns/event" "x empty" "count/calls" "iprof loss (last round)"
row() { # SECTION LABEL NAME BASE EMPTY
	local b m pe pe_empty x cnt loss
	b=$(best "$3")
	m=$(median "$3")
	[ -n "$b" ] || {
		printf '%-11s %-12s %11s\n' "$1" "$2" "n/a"
		return
	}
	pe="-" x="-" cnt="" loss=""
	if [ "$3" != "$4" ]; then
		pe=$(per_event "$b" "$(best "$4")")
		if [ -n "$5" ]; then
			pe_empty=$(per_event "$(best "$5")" "$(best "$4")")
			x=$(ratio "$pe" "$pe_empty")
		fi
	fi
	if [ -s "$TMP/$3.runs" ]; then
		cnt=$(count_ok "$3")
		loss=$(sed -n 's/^# lost: //p' "$TMP/$3.lastrep" 2>/dev/null)
	fi
	printf '%-11s %-12s %11.2f %11.2f %10s %8s %15s  %s\n' "$1" "$2" "$b" "$m" \
		"$pe" "$x" "$cnt" "$loss"
}
row tracepoint baseline tp_base tp_base ""
row tracepoint empty-rawtp tp_raw tp_base tp_empty
row tracepoint empty tp_empty tp_base tp_empty
row tracepoint iprof tp_iprof tp_base tp_empty
row tracepoint "iprof record" tp_record tp_base tp_empty
row uprobe baseline up_base up_base ""
row uprobe empty up_empty up_base up_empty
row uprobe iprof up_iprof up_base up_empty
if [ $HAVE_NOP5 = 1 ]; then
	row uprobe-nop5 baseline n5_base n5_base ""
	row uprobe-nop5 empty n5_empty n5_base n5_empty
	row uprobe-nop5 iprof n5_iprof n5_base n5_empty
fi
echo "(ns/iter: best of $ROUNDS rounds x $REPS loops; median of the rounds' bests in parentheses;"
echo " ns/event = (ns/iter - baseline) / 2; x empty = iprof or raw tp per event / empty per event;"
echo " count/calls: rounds where iprof's count = the loop's calls)"

# loss with a small ring buffer
if [ -s "$TMP/tp_small.runs" ]; then
	echo
	echo "iprof --rb-size 256K, tracepoint pair (every round):"
	while read -r line; do
		calls=$(sed -n 's/.*calls=\([0-9]*\).*/\1/p' <<<"$line")
		count=$(sed -n 's/.*count=\([0-9]*\).*/\1/p' <<<"$line")
		lost=$(sed -n 's/.*records=\([0-9]*\).*/\1/p' <<<"$line")
		disc=$(sed -n 's/.*discarded_frames=\([0-9]*\).*/\1/p' <<<"$line")
		skip=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$line")
		rc=$(sed -n 's/^rc=\([0-9]*\).*/\1/p' <<<"$line")
		# the loss line leaves out counters that are 0
		lost=${lost:-0} disc=${disc:-0} skip=${skip:-0}
		if [ "$rc" != 0 ]; then
			echo "  iprof exit status $rc"
			continue
		fi
		# missing iterations (calls - count) come from lost records: a lost
		# START -> its STOP is skipped; a lost STOP -> the frame is
		# discarded at the thread's next record; both lost -> neither.
		# A lost record of another kind inside a timer (sched switch,
		# interrupt) -> that timer is discarded and its STOP skipped.  So
		# lost + discarded + skipped - 2 x missing = the records lost that
		# were not START/STOP, between 0 and lost.
		missing=$((calls - count))
		other=$((lost + disc + skip - 2 * missing))
		if [ $missing -ge 0 ] && [ $missing -le "$lost" ] && [ $other -ge 0 ] && [ $other -le "$lost" ]; then
			verdict=consistent
		else
			verdict=INCONSISTENT
		fi
		echo "  calls=$calls count=$count missing=$missing lost=$lost discarded=$disc skipped=$skip" \
			"-> other records lost=$other: $verdict"
	done <"$TMP/tp_small.runs"
	echo "  exit status 0 in $(grep -c '^rc=0' "$TMP/tp_small.runs")/$(wc -l <"$TMP/tp_small.runs") runs"
fi

# step by step
if [ "$STEPS" = 1 ] && [ -s "$TMP/st_base.ns" ]; then
	echo
	echo "iprof's tracepoint program step by step (bench/steps.bpf.c, getppid pair; best of $SROUNDS rounds each):"
	printf '  %-14s %9s %9s %8s %8s %8s  %s\n' step "ns/iter" "ns/event" "+ event" "prog ns" "+ prog" "(+: over the reference) what"
	sb=$(best st_base)
	declare -A PE
	PE[empty]=$(per_event "$(best st_empty)" "$sb")
	printf '  %-14s %9.2f %9s %8s %8s %8s  %s\n' empty "$(best st_empty)" "${PE[empty]}" - \
		"${PNS[empty]:--}" - "return 0"
	while IFS='|' read -r m ref what; do
		b=$(best "st_$m")
		[ -n "$b" ] || {
			printf '  %-14s %9s\n' "$m" n/a
			continue
		}
		PE[$m]=$(per_event "$b" "$sb")
		d=$(awk -v a="${PE[$m]}" -v b="${PE[$ref]:-}" 'BEGIN { if (b != "") printf "%+.1f", a - b; else printf "-" }')
		dp=$(awk -v a="${PNS[$m]:-}" -v b="${PNS[$ref]:-}" 'BEGIN { if (a != "" && b != "" && a != "-" && b != "-") printf "%+.1f", a - b; else printf "-" }')
		printf '  %-14s %9.2f %9s %8s %8s %8s  (%s) %s\n' "$m" "$b" "${PE[$m]}" "$d" \
			"${PNS[$m]:--}" "$dp" "${ref#steps-}" "$what"
	done <<<"$STEP_TABLE"
	echo "  (ns/event from the loop time, over the same baseline; prog ns: kernel BPF statistics,"
	echo "   mean run time of the program, which the clock reads of the statistics inflate by ~20-40 ns)"
fi
if [ "$STEPS" = 1 ] && [ -s "$TMP/stall_steps-full.lines" ]; then
	echo
	echo "reader held up 50 ms every 200 ms (BENCH_STALL_MS=50), tp_hit's wakeup rule:"
	for m in steps-full steps-edge; do
		[ -s "$TMP/stall_$m.lines" ] || continue
		[ $m = steps-full ] && what="iprof: wake on every record while the ring is > 1/4 full" ||
			what="proposed: wake once, when the ring crosses 1/4"
		printf '  %-11s ns/iter %8.2f  IRQ-work interrupts %s  drops %s  (%s)\n' "$m" "$(best "stall_$m")" \
			"$(sed -n 's/.* iwi=\([0-9]*\).*/\1/p' "$TMP/stall_$m.lines" | tr '\n' ' ')" \
			"$(sed -n 's/.* drops=\([0-9]*\).*/\1/p' "$TMP/stall_$m.lines" | tr '\n' ' ')" "$what"
	done
fi
if [ -n "$IPROF_PROGS" ]; then
	echo
	echo "BPF run time per program run of iprof itself (kernel.bpf_stats_enabled, /proc/PID/fdinfo):"
	[ -n "${PNS[empty]:-}" ] && echo "  empty tracepoint program: ${PNS[empty]} ns; empty uprobe programs: ${PNS[up_empty]:--} ns"
	tr ';' '\n' <<<"$IPROF_PROGS" | sed '/^$/d; s/^/  iprof /'
fi

# ---- goals -------------------------------------------------------------------

echo
tp_pe=$(per_event "$(best tp_iprof)" "$(best tp_base)")
up_pe=$(per_event "$(best up_iprof)" "$(best up_base)")
up_e=$(per_event "$(best up_empty)" "$(best up_base)")
up_x=$(ratio "$up_pe" "$up_e")
rate=$(awk -v t="$(best tp_iprof)" 'BEGIN { if (t > 0) printf "%.1f", 2e3 / t }')
lost_tp=$(runs_sum tp_iprof records)
lost_up=$(runs_sum up_iprof records)
met() { awk "BEGIN { exit !($1) }" && echo met || echo MISSED; }
echo "goal: tracepoint pair <= 250 ns/event: iprof $tp_pe ns/event: $(met "${tp_pe:-1e9} <= 250")"
rec_pe=$(per_event "$(best tp_record)" "$(best tp_base)")
rec_x=$(ratio "$rec_pe" "$tp_pe")
echo "goal: iprof record <= 1.2x live per event (tracepoint pair): $rec_pe ns/event, ${rec_x}x: $(met "${rec_x:-1e9} <= 1.2")"
echo "goal: uprobe pair <= 1.15x empty: iprof $up_pe / empty $up_e ns/event = ${up_x}x: $(met "${up_x:-1e9} <= 1.15")"
if [ $HAVE_NOP5 = 1 ]; then
	n5_pe=$(per_event "$(best n5_iprof)" "$(best n5_base)")
	n5_e=$(per_event "$(best n5_empty)" "$(best n5_base)")
	n5_x=$(ratio "$n5_pe" "$n5_e")
	echo "      (optimized nop5 uprobe: iprof $n5_pe / empty $n5_e ns/event = ${n5_x}x: $(met "${n5_x:-1e9} <= 1.15"))"
fi
echo "goal: zero loss at the loop's rate (~$rate M events/s): lost records $lost_tp (tracepoint), $lost_up (uprobe), counts exact in $(count_ok tp_iprof) and $(count_ok up_iprof) rounds: $(met "$lost_tp + $lost_up == 0")"
echo
echo "# other BPF tracing programs loaded: $OTHER0 at start, $OTHER1 at end; load average $LOAD0 -> $LOAD1"
[ "$OTHER0" -gt 0 ] || [ "$OTHER1" -gt 0 ] &&
	echo "# (other tracers were running: syscall tracepoints and sched_switch programs of others slow every row)"
echo "# $(($(date +%s) - T0)) s"
exit 0
