#!/usr/bin/env bash
# The cost of a USDT span per call (issue 46 item 5): tools/usdt-workload's
# requests (no spin: each request is its two USDT probes around a call of
# work()), each tool's cost per request from the workload's own clock
# around it (req.ns / N) against the untraced run:
#   usdt       iprof: span req = usdt:W:req__start -> usdt:W:req__done
#   usdtname   the same span named by req__start's arg1 (name arg1: three
#              names, req(0) req(1) req(2))
#   uprobe     iprof: uprobe:W:work (its default, --returns auto)
#   uretprobe  iprof: uprobe:W:work --returns uretprobe
#   bpftrace   usdt:W:req__start / usdt:W:req__done, a start time per
#              thread in a map, a histogram of the differences
# Rounds interleaved (every tool once per round), medians printed.
#
#   sudo bench/usdt.sh [ROUNDS] [N]     (default 5 rounds of 50000 requests;
#                                        IPROF=path, default build/iprof)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
IPROF=${IPROF:-$src/build/iprof}
W=${W:-$src/build/usdt-workload}
ROUNDS=${1:-5}
N=${2:-50000}
[ -x "$W" ] || { echo "no $W (build it: sys/sdt.h)" >&2; exit 2; }
tools="none usdt usdtname uprobe uretprobe"
command -v bpftrace >/dev/null && tools="$tools bpftrace"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # TOOL: the workload's ns per request
	local w=("$W" --calls "$N" --spin-us 0)
	case $1 in
	none) "${w[@]}" ;;
	usdt) "$IPROF" -q -o /dev/null \
		-e "span req = usdt:$W:req__start -> usdt:$W:req__done" -- "${w[@]}" ;;
	usdtname) "$IPROF" -q -o /dev/null \
		-e "span req = usdt:$W:req__start -> usdt:$W:req__done name arg1" -- "${w[@]}" ;;
	uprobe) "$IPROF" -q -o /dev/null -e "uprobe:$W:work" -- "${w[@]}" ;;
	uretprobe) "$IPROF" -q -o /dev/null --returns uretprobe \
		-e "uprobe:$W:work" -- "${w[@]}" ;;
	bpftrace) bpftrace -q -e "usdt:$W:iprofw:req__start { @s[tid] = nsecs; }
		usdt:$W:iprofw:req__done /@s[tid]/ { @h = hist(nsecs - @s[tid]); delete(@s[tid]); }" \
		-c "${w[*]}" ;;
	esac 2>/dev/null | sed -n 's/^req.ns=//p' | awk -v n="$N" '{ printf "%.0f\n", $1 / n }'
}
for ((r = 0; r < ROUNDS; r++)); do
	for t in $tools; do run "$t" >>"$out/$t"; done
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
base=$(med "$out/none")
printf "%-10s %12s %14s\n" tool "ns/request" "cost/request"
for t in $tools; do
	m=$(med "$out/$t")
	printf "%-10s %12s %14s\n" "$t" "$m" "$((m - base))"
done
