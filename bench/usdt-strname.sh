#!/usr/bin/env bash
# What naming a timer by a string adds per call (issue 46 item 2): the
# mean run time of iprof's usdt_hit program (kernel.bpf_stats_enabled,
# run_time_ns / run_cnt from iprof's /proc/PID/fdinfo, sampled twice while
# tools/usdt-strings --inner 0 runs: the difference, steady state) for
#   plain  span req = usdt:W:req__start -> usdt:W:req__done
#   int    the same, name arg1 (an integer: IPROF_REC_NAME)
#   str    the same, name str(arg0) (the path, 10 to 63 bytes, 1 in 4 of
#          them 63: bpf_probe_read_user_str into a 160-byte ring sample)
# Each of usdt_hit's runs is one start or one stop: a named call costs two
# runs' worth of the difference (the stop's run is unchanged).  Rounds
# interleaved, medians printed.  The stats add two clock reads per run:
# compare the lines with each other.  The reader's share (cutting the
# sample into records, interning the text) is not in these numbers.
#
#   sudo bench/usdt-strname.sh [ROUNDS]  (default 5; IPROF=path, W=path)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
IPROF=${IPROF:-$src/build/iprof}
W=${W:-$src/build/usdt-strings}
ROUNDS=${1:-5}
[ -x "$W" ] || { echo "no $W (build it: sys/sdt.h)" >&2; exit 2; }
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
out=$(mktemp -d)
trap 'echo "$old" >/proc/sys/kernel/bpf_stats_enabled; rm -rf "$out"' EXIT
echo 1 >/proc/sys/kernel/bpf_stats_enabled || exit 2
sample() { # PID: "run_time_ns run_cnt" of its usdt_hit program
	local fd id
	for fd in /proc/"$1"/fdinfo/*; do
		id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$fd" 2>/dev/null)
		[ -n "$id" ] || continue
		bpftool prog show id "$id" 2>/dev/null | grep -q ' name usdt_hit ' || continue
		echo "$(sed -n 's/^run_time_ns:[[:space:]]*//p' "$fd") $(sed -n 's/^run_cnt:[[:space:]]*//p' "$fd")"
		return
	done
}
run() { # SPEC: mean ns per usdt_hit run
	"$IPROF" -q -o /dev/null -e "$1" -- "$W" --calls 1000000 --inner 0 >/dev/null 2>&1 &
	local pid=$! s1= s2 w=
	for _ in $(seq 300); do # until usdt_hit runs (planning may take seconds)
		s1=$(sample $pid)
		[ -n "$s1" ] && [ "${s1#* }" != 0 ] && break
		sleep 0.1
	done
	w=$(pgrep -P $pid)
	sleep 0.3
	s1=$(sample $pid)
	sleep 1.5
	s2=$(sample $pid)
	[ -n "$w" ] && kill "$w" 2>/dev/null # the workload iprof started
	wait $pid 2>/dev/null
	echo "$s1 $s2" | awk '{ if ($4 > $2) printf "%.1f\n", ($3 - $1) / ($4 - $2) }'
}
span="span req = usdt:$W:req__start -> usdt:$W:req__done"
for ((r = 0; r < ROUNDS; r++)); do
	run "$span" >>"$out/plain"
	run "$span name arg1" >>"$out/int"
	run "$span name str(arg0)" >>"$out/str"
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf "%-6s %16s   %s\n" spec "ns/usdt_hit run" "runs (each round)"
for t in plain int str; do
	printf "%-6s %16s   %s\n" $t "$(med "$out/$t")" "$(tr '\n' ' ' <"$out/$t")"
done
