#!/usr/bin/env bash
# Startup time, phase by phase, as iprof says it ("started in X s: ...,
# calibration Y s (Z after the load)"), on the host as it is and then with
# two busy loops on its CPUs: N rounds each (default 3), one line per run.
# Run as root from the source tree with a build in build/:
#   sudo bash bench/startup.sh [N]
set -u
B=${BUILD:-$(dirname "$0")/../build}
IPROF=${IPROF:-$B/iprof}
W=$B/uprobe-workload
N=${1:-3}
rounds() {
	local i
	for i in $(seq "$N"); do
		echo "  load $(cut -d' ' -f1 /proc/loadavg): $("$IPROF" -e "uprobe:$W:outer" \
			-e 'span g = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid' \
			-o /dev/null -- "$W" --calls 1 2>&1 >/dev/null | grep -E '^iprof: (calibrating|started)' | sed 's/^iprof: //' | paste -sd'|')"
	done
}
echo "as the host is:"
rounds
echo "with 2 busy loops:"
pids=()
for i in 1 2; do
	(while :; do :; done) &
	pids+=($!)
done
rounds
for p in "${pids[@]}"; do kill "$p"; done
wait 2>/dev/null
