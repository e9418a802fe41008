#!/usr/bin/env bash
# Not a test (no vm-suite line: run it by name): what a user-function
# timer costs per call under each way its ret can run, in one boot,
# best of 5 x 2000 calls (bench_probe), ns per call less the untraced loop:
#   sudo IPROF_VM_SUITE=unstable tests/vm/run.sh bench_emulate
# (bench/README.md, "Emulated return sites"; TCG: traps are slow and noisy)
. "$(dirname "$0")/../e2e/lib.sh"
need_root
B=$BUILD/bench_probe
ns() { sed -n 's/.* ns_per_iter=\([0-9.]*\).*/\1/p'; }
t() { # WORKLOAD FUNC OPTIONS...: iprof's ns per call
	local w=$1 f=$2
	shift 2
	"$IPROF" -q "$@" -o /dev/null -e "uprobe:$B:$f" -- "$B" loop "$w" 2000 5 2>/dev/null | ns
}
echo "kernel $(uname -r)"
for w in ucall:bench_target ucall-endbr:bench_target_endbr; do
	wl=${w%%:*} f=${w#*:}
	base=$("$B" loop "$wl" 2000 5 | ns)
	for r in 1 2 3; do
		e=$(t "$wl" "$f")
		# (sites: without emulation --returns auto may pick a uretprobe)
		s=$(t "$wl" "$f" --no-emulate --returns sites)
		u=$(t "$wl" "$f" --returns uretprobe)
		echo "$wl round $r: untraced $base emulated $e single-stepped $s uretprobe $u" |
			awk '{ printf "%s (ns per call over untraced: emulated %.0f, single-stepped %.0f, uretprobe %.0f)\n", $0, $7 - $5, $9 - $5, $11 - $5 }'
	done
done
ok "measured"
finish
