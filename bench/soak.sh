#!/usr/bin/env bash
# Memory soak of iprof (bench/README.md, "Soak"; issue 12): does iprof's
# memory stay flat in a long run under churn?
#
#   sudo bench/soak.sh [--seconds N] [--warmup N] [--bound-kb K] [--out DIR]
#                      [--procs-per-s P] [--threads T] [--calls C]
#                      [--max-paths N] [--max-keys N] [--every N] [BUILD_DIR]
#
# iprof traces tools/churn-workload (`-- churn-workload`: it forks P
# processes a second, each with T threads making C calls along random paths
# of 1..4 nested calls of 16 functions, 69904 distinct paths) with uprobe
# timers on its 16 functions, `--by tid` (a root per thread: thread churn),
# `--interval 1s` and `-f json -o DIR/report.json` (a report written every
# second), for N seconds (default 3600).  Its RSS (VmRSS of
# /proc/PID/status) is sampled every second into DIR/rss.txt ("SECONDS KB")
# and printed every --every seconds (default 60, 5 when N <= 120).
#
# Verdict: the RSS after warm-up (--warmup, default N/6, at least 20 s) is
# the highest sample of the 5 s before the warm-up ends; the growth is the
# highest sample after it minus that.  "flat" when the growth is at most
# --bound-kb (default 4096 kB), else "not flat".  Then the counts: the sum
# of every node's count in the final report must equal the workload's
# calls, with nothing lost (ring buffer), and the folded counters are
# printed.  Lines "soak: rss_warm_kb=... rss_max_kb=... growth_kb=...
# bound_kb=... verdict=flat|not flat" and "soak: calls=... counted=...
# other=... folded_paths=... folded_keys=... lost=... counts=exact|WRONG"
# are for scripts (tests/e2e/test_soak.sh).
#
# Exit status: 0 flat and exact, 1 not (or iprof failed), 2 bad usage,
# 77 cannot run (not root).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_RUN=3600 WARMUP= BOUND_KB=4096 OUT= PPS=20 THREADS=4 CALLS=20
MAX_PATHS= MAX_KEYS= EVERY=
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) SECONDS_RUN=$2; shift 2 ;;
	--warmup) WARMUP=$2; shift 2 ;;
	--bound-kb) BOUND_KB=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--procs-per-s) PPS=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--calls) CALLS=$2; shift 2 ;;
	--max-paths) MAX_PATHS=$2; shift 2 ;;
	--max-keys) MAX_KEYS=$2; shift 2 ;;
	--every) EVERY=$2; shift 2 ;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	-*) echo "soak.sh: unknown option $1" >&2; exit 2 ;;
	*) BUILD=$1; shift ;;
	esac
done
BUILD=${BUILD:-$SRC/build}
IPROF=${IPROF:-$BUILD/iprof}
W=$BUILD/churn-workload
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (BPF, uprobes)"
	exit 77
fi
for f in "$IPROF" "$W"; do
	[ -x "$f" ] || { echo "soak.sh: $f not built" >&2; exit 2; }
done
[ -n "$WARMUP" ] || WARMUP=$((SECONDS_RUN / 6 > 20 ? SECONDS_RUN / 6 : 20))
[ -n "$EVERY" ] || EVERY=$((SECONDS_RUN <= 120 ? 5 : 60))
if [ "$WARMUP" -ge "$SECONDS_RUN" ]; then
	echo "soak.sh: --warmup $WARMUP must be below --seconds $SECONDS_RUN" >&2
	exit 2
fi
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d /tmp/iprof-soak.XXXXXX)
fi
mkdir -p "$OUT"
caps=()
[ -n "$MAX_PATHS" ] && caps+=(--max-paths "$MAX_PATHS")
[ -n "$MAX_KEYS" ] && caps+=(--max-keys "$MAX_KEYS")

echo "soak: ${SECONDS_RUN}s, warm-up ${WARMUP}s, bound ${BOUND_KB} kB; churn-workload: $PPS processes/s x $THREADS threads x $CALLS calls; iprof --by tid --interval 1s ${caps[*]}; files in $OUT"
"$IPROF" -q -f json --interval 1s -o "$OUT/report.json" --by tid "${caps[@]}" \
	-e "uprobe:$W:churn_f*" -- "$W" --seconds "$SECONDS_RUN" \
	--procs-per-s "$PPS" --threads "$THREADS" --calls "$CALLS" --depth 4 \
	>"$OUT/truth" 2>"$OUT/iprof.err" &
ipid=$!
: >"$OUT/rss.txt"
t=0
while kill -0 "$ipid" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$ipid/status" 2>/dev/null)
	[ -n "$rss" ] || break
	echo "$t $rss" >>"$OUT/rss.txt"
	if [ $((t % EVERY)) = 0 ]; then
		echo "soak: t=${t}s rss=${rss} kB"
	fi
	sleep 1
	t=$((t + 1))
done
wait "$ipid"
rc=$?
if [ "$rc" != 0 ]; then
	echo "soak: iprof exited with $rc:"
	cat "$OUT/iprof.err"
	exit 1
fi

verdict=$(awk -v w="$WARMUP" -v b="$BOUND_KB" '
	$1 >= w - 5 && $1 <= w { if ($2 > warm) warm = $2 }
	$1 > w { if ($2 > max) max = $2; after++ }
	END {
		if (!warm || !after) { print "rss_warm_kb=0 rss_max_kb=0 growth_kb=0 bound_kb=" b " verdict=too short"; exit }
		g = max - warm; if (g < 0) g = 0
		printf "rss_warm_kb=%d rss_max_kb=%d growth_kb=%d bound_kb=%d verdict=%s\n",
			warm, max, g, b, g <= b ? "flat" : "not flat"
	}' "$OUT/rss.txt")
echo "soak: $verdict"

calls=$(sed -n 's/^calls=//p' "$OUT/truth")
counted=$(jq '[.tree | .. | objects | select(has("count")) | .count] | add // 0' "$OUT/report.json")
other=$(jq '[.tree[] | select(.name == "[other]") | .. | objects | select(has("count")) | .count] | add // 0' "$OUT/report.json")
read -r fpaths fkeys lost <<<"$(jq -r '"\(.folded.paths) \(.folded.keys) \(.loss.ring_buffer_drops)"' "$OUT/report.json")"
nodes=$(jq '.aggregator.nodes // empty' "$OUT/report.json")
exact=WRONG
[ -n "$calls" ] && [ "$calls" = "$counted" ] && [ "$lost" = 0 ] && exact=exact
echo "soak: calls=$calls counted=$counted other=$other folded_paths=$fpaths folded_keys=$fkeys nodes=$nodes lost=$lost counts=$exact"
case $verdict in *"verdict=flat") ;; *) exit 1 ;; esac
[ "$exact" = exact ] || exit 1
exit 0
