#!/usr/bin/env bash
# Not a test (no vm-suite line: run it by name): what a user-function
# timer costs per call under each way its ret can run, and what its entry
# uprobe alone costs, in one boot (bench/README.md, "Emulated return
# sites"; TCG: traps are slow and noisy, read the ratios):
#
#   sudo VM_TEST_TIMEOUT=1800 VM_TIMEOUT=2400 IPROF_VM_SUITE=unstable \
#     tests/vm/run.sh bench_emulate
#
# ROUNDS (3) rounds; each number is bench_probe's (bench_cxx's) best of
# REPS (15) loops of N (2000) calls, in ns per call less the untraced loop
# of the same workload.  Three timed functions:
#   push   bench_probe's bench_target (`push %rbp`, bench/target.h)
#   endbr  bench_probe's bench_target_endbr (endbr64, then the same)
#   c++    bench_cxx's bench::Acc::add(int) (bench/bench_cxx.cpp: C++
#          -O2, `push %rbp`, in a program that imports __cxa_throw)
# each timed with iprof's defaults (emulated: iprof's programs run the ret),
# --no-emulate --returns sites (the kernel single-steps the ret; for c++
# that is what --returns auto picks: checked below) and --returns
# uretprobe.
#
# The entry alone.  iprof has no option for an entry-only timer of a
# function that returns, but it times one from its entry only when it
# finds no return site and may not use a uretprobe (--returns sites):
# bench_target_entry and bench_target_endbr_entry (bench/target.h) begin
# with the same instructions as bench_target and bench_target_endbr and
# return by `pop %rcx; jmp *%rcx`, a jmp iprof cannot explain.  Their
# uprobe is the entry uprobe of the timers above (same first instruction,
# same iprof program fn_entry_mx, the endbr64 skipped by it), measured
# two ways that bracket the entry half of a timer:
#   entry  the timer as iprof makes it: each call starts a frame (a
#          START record) and closes the previous call's frame, which the
#          stack shows was left (drop_left(): a LEFT record, an unwound
#          frame): the entry's work plus one record, an upper bound
#   cond   the same with `if arg0:s32 < 0`, never true: the entry program
#          runs and starts nothing (no record): a lower bound
# The return half of a timer is its cost less the entry's: "ret/entry" is
# (timer - entry) / entry .. (timer - cond) / cond; the question is
# whether an emulated ret costs at most 1.2x the entry (issue 28).
# "endbr/push" compares the two entries (entry, cond), "emu/uret" the
# emulated timer with the uretprobe one.  For c++ the entry is
# bench_cxx's bench_target_entry (the same instructions as bench_probe's,
# in the C++ program).
#
# The floor (bench/scale.sh's, one thread): bench_scale percpu ucall, a
# uprobe + uretprobe on bench_target writing a 24-byte record each into
# its CPU's ring, against iprof's default timer on the same loop
# (bench_scale loop ucall under iprof): "ucall/floor".
#
# Then, once, where the time goes: with kernel.bpf_stats_enabled=1, the
# run time per run of iprof's BPF programs that ran once a call or more
# (read from iprof's /proc/PID/fdinfo at the loop's end: a program is
# known by its tag, the entry's the same in each run), and -v's count of
# rets run by iprof's programs, for the push and endbr timers, the push
# entry (entry, cond) and the endbr one (cond).  Their entry program is
# the same (by its tag) with and without a return site, and the trap too:
# the entry half of a timer is cond's cost plus what its entry program
# takes more than cond's, and the return half the rest (the loops' ns per
# call there include the stats' cost).
#
# Checks that each run counted every call (a timer's count, an entry's
# unwound + exited frames, nothing for cond); the times are not judged.
. "$(dirname "$0")/../e2e/lib.sh"
need_root
B=$BUILD/bench_probe
X=$BUILD/bench_cxx
S=$BUILD/bench_scale
N=${BENCH_N:-2000}
REPS=${BENCH_REPS:-15}
ROUNDS=${ROUNDS:-3}
NS=${BENCH_SCALE_N:-10000}
calls=$((N * REPS))
for f in "$B" "$X" "$S"; do
	[ -x "$f" ] || { echo "FAIL: no $f"; exit 1; }
done
field() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$2"; }

# t BIN WORKLOAD SPEC EXPECT OPTIONS...: iprof's ns per call (the loop's
# best), the frames it saw checked against EXPECT (calls, or 0)
t() {
	local b=$1 w=$2 spec=$3 want=$4 out seen
	shift 4
	rm -f "$TMP/rep.json"
	out=$("$IPROF" -q "$@" -f json -o "$TMP/rep.json" -e "uprobe:$b:$spec" -- \
		"$b" loop "$w" "$N" "$REPS" 2>"$TMP/err")
	seen=$(jq '[.tree[]? | .count + (.unwound // 0) + (.exited // 0)] | add // 0' \
		"$TMP/rep.json" 2>/dev/null)
	[ "$seen" = "$want" ] ||
		bad "$spec $*: $seen frames, expected $want: $(tail -2 "$TMP/err" | tr '\n' ' ')"
	field ns_per_iter "$out"
}

# the plans the rows stand for: c++ keeps return sites without emulation,
# the entry functions get no return probe, the default emulates
p=$("$IPROF" --dry-run --no-emulate -e "uprobe:$X:bench::Acc::add" -- "$X" loop cxx 1 2>&1)
if grep -Eq 'auto chose them: [^)]*bench_cxx (imports|defines) __cxa_' <<<"$p"; then
	ok "c++: --returns auto keeps its return sites"
else
	bad "c++: not return sites under --returns auto: $p"
fi
p=$("$IPROF" --dry-run --returns sites -e "uprobe:$B:bench_target_entry" \
	-e "uprobe:$B:bench_target_endbr_entry" -e "uprobe:$X:bench_target_entry as cxx_entry" \
	-- "$B" loop ucall 1 2>&1)
check "entry functions timed from their entry only" "$(grep -c '(entry only: ' <<<"$p")" 3
p=$("$IPROF" --dry-run -e "uprobe:$X:bench::Acc::add" -- "$X" loop cxx 1 2>&1)
if grep -q 'no single step' <<<"$p"; then
	ok "c++: emulated by default"
else
	bad "c++: not emulated by default: $p"
fi

echo "kernel $(uname -r), N=$N REPS=$REPS ROUNDS=$ROUNDS"
# row NAME BIN TIMER_WORKLOAD FUNC ENTRY_WORKLOAD ENTRY_FUNC ROUND
row() {
	local b=$2 e s u en co
	e=$(t "$b" "$3" "$4" "$calls")
	s=$(t "$b" "$3" "$4" "$calls" --no-emulate --returns sites)
	u=$(t "$b" "$3" "$4" "$calls" --returns uretprobe)
	en=$(t "$b" "$5" "$6" "$calls" --returns sites)
	co=$(t "$b" "$5" "$6 if arg0:s32 < 0" 0 --returns sites)
	echo "$1 $7 ${base[$1]} ${ebase[$1]} $e $s $u $en $co" >>"$TMP/rows"
	echo "$1 round $7: emulated $e single-stepped $s uretprobe $u entry $en cond $co (untraced ${base[$1]}, ${ebase[$1]})"
}
declare -A base ebase
while read -r name b w f ew; do
	base[$name]=$(field ns_per_iter "$("$b" loop "$w" "$N" "$REPS")")
	ebase[$name]=$(field ns_per_iter "$("$b" loop "$ew" "$N" "$REPS")")
done <<EOF
push $B ucall bench_target ucall-entry
endbr $B ucall-endbr bench_target_endbr ucall-endbr-entry
c++ $X cxx bench::Acc::add cxx-entry
EOF
for r in $(seq "$ROUNDS"); do
	t0=$(cut -d' ' -f1 /proc/uptime)
	row push "$B" ucall bench_target ucall-entry bench_target_entry "$r"
	row endbr "$B" ucall-endbr bench_target_endbr ucall-endbr-entry bench_target_endbr_entry "$r"
	row c++ "$X" cxx bench::Acc::add cxx-entry bench_target_entry "$r"
	fl=$(field ns_per_call "$("$S" percpu ucall "$NS" 1)")
	ip=$(field ns_per_call "$("$IPROF" -q -o /dev/null -e "uprobe:$S:bench_target" -- "$S" loop ucall "$NS" 1 2>/dev/null)")
	echo "floor $r $fl $ip" >>"$TMP/rows"
	echo "floor round $r: bench_scale percpu $fl, iprof $ip ($(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }') s this round)"
done

# progs NAME BIN WORKLOAD SPEC OPTIONS...: the BPF programs' time per run,
# said and kept in $TMP/progs ("NAME loop NS", "NAME prog TAG NS")
progs() {
	local name=$1 b=$2 w=$3 spec=$4
	shift 4
	# shellcheck disable=SC2016 # for bash -c
	"$IPROF" -q -v "$@" -o /dev/null -e "uprobe:$b:$spec" -- bash -c \
		'"$0" loop "$1" "$2" "$3"; grep -E "^(prog_tag|run_time_ns|run_cnt):" /proc/$PPID/fdinfo/*' \
		"$b" "$w" "$N" "$REPS" 2>&1 |
		awk -v min="$calls" -v name="$name" -v keep="$TMP/progs" '
		/\/fdinfo\// {
			split($0, a, ":"); v = a[3]; gsub(/[ \t]/, "", v)
			d[a[1], a[2]] = v; f[a[1]] = 1; next
		}
		/ns_per_iter=/ {
			sub(/.* ns_per_iter=/, ""); sub(/ .*/, "")
			printf "%s: loop %s ns per call (stats on)\n", name, $0
			print name, "loop", $0 >>keep
		}
		/run by iprof/ { printf "%s: %s\n", name, $0 }
		END {
			for (k in f)
				if (d[k, "run_cnt"] + 0 >= min + 0) {
					r = d[k, "run_time_ns"] / d[k, "run_cnt"]
					printf "%s: prog %s: %d runs, %.0f ns per run\n", name,
						d[k, "prog_tag"], d[k, "run_cnt"], r
					print name, "prog", d[k, "prog_tag"], r >>keep
				}
		}'
}
echo
if echo 1 >/proc/sys/kernel/bpf_stats_enabled; then
	progs "push timer" "$B" ucall bench_target
	progs "push entry" "$B" ucall-entry bench_target_entry --returns sites
	progs "push cond" "$B" ucall-entry "bench_target_entry if arg0:s32 < 0" --returns sites
	progs "endbr timer" "$B" ucall-endbr bench_target_endbr
	progs "endbr cond" "$B" ucall-endbr-entry "bench_target_endbr_entry if arg0:s32 < 0" --returns sites
	echo 0 >/proc/sys/kernel/bpf_stats_enabled
	# the entry half: cond's loop (the same trap) plus what the timer's
	# entry program costs more than cond's (the same program, by its tag)
	awk -v pb="${base[push]}" -v peb="${ebase[push]}" -v eb="${base[endbr]}" \
		-v eeb="${ebase[endbr]}" '
	{ k = $1 " " $2 }
	$3 == "loop" { loop[k] = $4 }
	$3 == "prog" { p[k, $4] = $5; if (k ~ /cond$/) tag[$1] = $4; else other[k] = other[k] " " $4 }
	function half(w, tb, eb,   e, t, r, x, n, i, rp) {
		t = tag[w]
		e = loop[w " cond"] - eb + p[w " timer", t] - p[w " cond", t]
		r = loop[w " timer"] - tb - e
		n = split(other[w " timer"], x, " ")
		for (i = 1; i <= n; i++) if (x[i] != t) rp = p[w " timer", x[i]]
		printf "%s, stats on: entry half %.0f ns (cond %.0f + entry program %.0f - %.0f), return half %.0f (return program %.0f), ret/entry %.2f\n", \
			w, e, loop[w " cond"] - eb, p[w " timer", t], p[w " cond", t], r, rp, r / e
		return e
	}
	END {
		a = half("push", pb, peb); b = half("endbr", eb, eeb)
		printf "endbr/push entry half, stats on: %.2f\n", b / a
	}' "$TMP/progs"
fi

# the table: ns per call over the untraced loop, one value per round
echo
awk '
function over(v, b) { return v == "" ? "-" : sprintf("%.0f", v - b) }
function add(k, v) { col[k] = col[k] (col[k] == "" ? "" : ", ") v }
function rat(a, b) { return (a == "" || b == "" || b <= 0) ? "-" : sprintf("%.2f", a / b) }
$1 == "floor" { add("floor", $3); add("ucall", $4); add("uf", rat($4, $3)); next }
{
	k = $1; tb = $3; eb = $4
	e = $5 - tb; s = $6 - tb; u = $7 - tb; en = $8 - eb; co = $9 - eb
	add(k " e", over($5, tb)); add(k " s", over($6, tb)); add(k " u", over($7, tb))
	add(k " en", over($8, eb)); add(k " co", over($9, eb))
	add(k " r", rat(e - en, en) ".." rat(e - co, co))
	add(k " eu", rat(e, u)); add(k " es", rat(e, s))
	ent[k, $2] = en; con[k, $2] = co
	if (k == "endbr")
		add("eb", rat(en, ent["push", $2]) " / " rat(co, con["push", $2]))
}
END {
	print "| timer | emulated ret | single-stepped ret | uretprobe | entry | cond | ret/entry (emulated) | emulated / uretprobe | emulated / single-stepped |"
	print "|---|---|---|---|---|---|---|---|---|"
	n = split("push endbr c++", ks, " ")
	for (i = 1; i <= n; i++) {
		k = ks[i]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, col[k " e"], \
			col[k " s"], col[k " u"], col[k " en"], col[k " co"], col[k " r"], \
			col[k " eu"], col[k " es"]
	}
	print ""
	print "endbr/push entry (entry / cond): " col["eb"]
	print "floor (bench_scale percpu ucall, ns per call): " col["floor"] "; iprof: " col["ucall"] "; ucall/floor: " col["uf"]
}' "$TMP/rows"
finish
