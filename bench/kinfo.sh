#!/usr/bin/env bash
# bench/kinfo.sh IPROF BUILD [--slowest 8]: a keyed span's stop with and
# without --slowest (IPROF_REC_KINFO, issue 47): probes.d/sched.conf's runq
# spans over e2e-keyed pingpong 100000, the tracepoint program's run time
# from the kernel's BPF statistics (kernel.bpf_stats_enabled, bpftool prog
# show) sampled while it runs; its runq spans from the JSON report.  As root.
set -u
IPROF=$1 B=$2
shift 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sysctl -q kernel.bpf_stats_enabled=1
"$IPROF" -q -f json -o "$T/kb.json" "$@" -P "$(dirname "$0")/../probes.d/sched.conf" -- "$B/e2e-keyed" pingpong 100000 >"$T/kb.truth" 2>"$T/kb.err" &
pid=$!
last=
while kill -0 $pid 2>/dev/null; do
	s=$(bpftool prog show -j 2>/dev/null)
	[ -n "$s" ] && last=$s
	sleep 0.3
done
wait $pid; rc=$?
sysctl -q kernel.bpf_stats_enabled=0
spans=$(jq -r '[.tree[] | select(.name == "runq") | .count][0]' "$T/kb.json")
echo "$last" | jq -r --arg rc "$rc" --arg sp "$spans" '[.[] | select(.name == "tp_hit" and (.run_cnt // 0) > 1000)] | max_by(.run_cnt) | "rc=\($rc) runq_spans=\($sp) tp_hit runs=\(.run_cnt) ns/run=\(.run_time_ns / .run_cnt | floor) total_ms=\(.run_time_ns / 1000000 | floor)"'
