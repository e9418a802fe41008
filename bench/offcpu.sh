#!/usr/bin/env bash
# offcpu.sh [IPROF] [RUNS] [ROUNDS]: the cost of --offcpu-stacks per
# context switch.  bench/pingpong.c's two threads pass a byte over pipes
# ROUNDS times (default 200000), both inside one timed call of play() the
# whole run, so each round trip is two blocking switches and two wake-ups
# of threads inside a timer.  Two measures (root):
#  1. the BPF programs' own run time (kernel.bpf_stats_enabled, restored
#     after; /proc/PID/fdinfo of iprof, sampled twice while the workload
#     runs): ns per run of on_switch (sched_switch) and on_waking
#     (sched_waking), without and with --offcpu-stacks, and with
#     --offcpu-stacks=user (the workload built with frame pointers: a
#     user stack of 4 frames);
#  2. paired wall-clock runs, RUNS times (default 5), in turn: untraced,
#     traced (on/off-CPU records only), traced with --offcpu-stacks: ns
#     per round trip, their medians, the added cost per switch (a
#     blocking switch and its wake-up: half a round trip).
set -u
IPROF=${1:-build/iprof} RUNS=${2:-5} ROUNDS=${3:-200000}
T=$(mktemp -d /tmp/offcpu-bench.XXXXXX)
OLD_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled)
trap 'echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled; rm -rf "$T"' EXIT
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$T/pingpong" "$(dirname "$0")/pingpong.c" || exit 1
W=$T/pingpong
P=(-e "uprobe:$W:play")

# "id name run_time_ns run_cnt" of each on_switch and on_waking loaded
# after id $1 (the run's; iprof's own fds do not say, and bpftool may not
# know pids)
sample() {
	bpftool -j prog show | jq -r --argjson after "$1" '.[] |
		select((.name == "on_switch" or .name == "on_waking") and
		.id > $after) | "\(.id) \(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"'
}
# stats LABEL [OPTION]: the BPF run time of on_switch and on_waking over
# a whole run of ROUNDS round trips (sampled until iprof exits), per
# blocking switch of the workload (2 x ROUNDS)
stats() {
	local label=$1 pid after
	shift
	after=$(bpftool -j prog show | jq '[.[].id] | max')
	"$IPROF" -q -o /dev/null "$@" "${P[@]}" -- "$W" "$ROUNDS" >/dev/null &
	pid=$!
	: >"$T/s"
	while kill -0 $pid 2>/dev/null; do
		sample "$after" >"$T/s.new"
		[ -s "$T/s.new" ] && mv "$T/s.new" "$T/s"
		sleep 0.1
	done
	wait $pid
	awk -v l="$label" -v r="$ROUNDS" '{ t[$2] += $3; c[$2] += $4 }
		END { for (n in t) printf "%s: %s %.0f ns per run (%d runs), %.0f ns per blocking switch\n",
			l, n, t[n] / c[n], c[n], t[n] / (2 * r) }' "$T/s" | sort
}
echo 1 >/proc/sys/kernel/bpf_stats_enabled
stats "traced"
stats "--offcpu-stacks" --offcpu-stacks
stats "--offcpu-stacks=user" --offcpu-stacks=user
echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled

ns() { sed -n 's/^ns_per_round=//p' "$1"; }
for r in $(seq "$RUNS"); do
	"$W" "$ROUNDS" >"$T/u"
	"$IPROF" -q -o /dev/null "${P[@]}" -- "$W" "$ROUNDS" >"$T/off"
	"$IPROF" -q -o /dev/null --offcpu-stacks "${P[@]}" -- "$W" "$ROUNDS" >"$T/on"
	echo "run $r: untraced $(ns "$T/u") ns, traced $(ns "$T/off") ns, --offcpu-stacks $(ns "$T/on") ns per round trip"
	echo "$(ns "$T/u") $(ns "$T/off") $(ns "$T/on")" >>"$T/all"
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
u=$(cut -d' ' -f1 "$T/all" | med)
off=$(cut -d' ' -f2 "$T/all" | med)
on=$(cut -d' ' -f3 "$T/all" | med)
echo "median ns per round trip: untraced $u, traced $off, --offcpu-stacks $on"
echo "per switch (half a round trip): traced +$(((off - u) / 2)) ns over untraced;" \
	"--offcpu-stacks +$(((on - off) / 2)) ns over traced"
