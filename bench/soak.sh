#!/usr/bin/env bash
# Memory soak of iprof (bench/README.md, "Soak"; issue 12): does iprof's
# memory stay flat in a long run under churn?
#
#   sudo bench/soak.sh [--seconds N] [--warmup N] [--bound-kb K] [--out DIR]
#                      [--procs-per-s P] [--threads T] [--calls C]
#                      [--max-paths N] [--max-keys N] [--every N]
#                      [--window S] [--iprof-opts 'OPTIONS'] [BUILD_DIR]
#
# iprof traces tools/churn-workload (`-- churn-workload`: it forks P
# processes a second, each with T threads making C calls along random paths
# of 1..4 nested calls of 16 functions, 69904 distinct paths) with uprobe
# timers on its 16 functions, `--by tid` (a root per thread: thread churn),
# `--interval 1s` and `-f json -o DIR/report.json` (a report written every
# second), for N seconds (default 3600).  Its RSS (VmRSS of
# /proc/PID/status) is sampled about five times a second into DIR/rss.txt
# ("SECONDS KB").  A report builds and frees its JSON (json-c objects for
# every path, about 14 times the text), so RSS swings every second between
# the memory iprof holds and a peak while it writes a report.  Per window
# of --window seconds (default 10 when N <= 120, else 60: on a loaded
# machine reports can follow each other without a pause for a while):
# "held", the lowest sample (what iprof keeps between reports), and
# "peak", the highest; printed every --every seconds (default: the
# window).
#
# Verdict: held at the warm-up (--warmup, default N/6, at least 20 s) is
# the held of the window that ends there; the growth is the highest held
# of two windows in a row after it (the lower of their two helds: on a
# loaded machine one window may see no pause between reports, and under
# stress-ng --cpu 2 one 10 s window held 6 MB over its neighbours; a
# leak stays) minus that.  "flat" when the growth is at most
# --bound-kb (default 4096 kB), else "not flat".  The peak's growth is
# printed too (it follows the size of the report: histograms fill up).
# Then the counts: the sum of every node's count in the final report must
# equal the workload's calls, with nothing lost (ring buffer), and the
# folded counters are printed.  Lines "soak: held_warm_kb=...
# held_max_kb=... growth_kb=... bound_kb=... peak_warm_kb=...
# peak_max_kb=... verdict=flat|not flat" and "soak: calls=... counted=...
# other=... folded_paths=... folded_keys=... nodes=... lost=...
# counts=exact|WRONG" are for scripts (tests/e2e/test_soak.sh).
#
# Exit status: 0 flat and exact, 1 not (or iprof failed), 2 bad usage,
# 77 cannot run (not root).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_RUN=3600 WARMUP= BOUND_KB=4096 OUT= PPS=20 THREADS=4 CALLS=20
MAX_PATHS= MAX_KEYS= EVERY= IOPTS= WINDOW=
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
	--iprof-opts) IOPTS=$2; shift 2 ;;
	--window) WINDOW=$2; shift 2 ;;
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
[ -n "$WINDOW" ] || WINDOW=$((SECONDS_RUN <= 120 ? 10 : 60))
[ -n "$EVERY" ] || EVERY=$WINDOW
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
# shellcheck disable=SC2206 # word splitting wanted: more iprof options
[ -n "$IOPTS" ] && caps+=($IOPTS)

echo "soak: ${SECONDS_RUN}s, warm-up ${WARMUP}s, bound ${BOUND_KB} kB; churn-workload: $PPS processes/s x $THREADS threads x $CALLS calls; iprof --by tid --interval 1s ${caps[*]}; files in $OUT"
"$IPROF" -q -f json --interval 1s -o "$OUT/report.json" --by tid "${caps[@]}" \
	-e "uprobe:$W:churn_f*" -- "$W" --seconds "$SECONDS_RUN" \
	--procs-per-s "$PPS" --threads "$THREADS" --calls "$CALLS" --depth 4 \
	>"$OUT/truth" 2>"$OUT/iprof.err" &
ipid=$!
: >"$OUT/rss.txt"
# time since the start from the clock (the loop's own work would make a
# count of sleeps run slow), in tenths of a second
us0=${EPOCHREALTIME/./}
next_print=$EVERY
while kill -0 "$ipid" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$ipid/status" 2>/dev/null)
	[ -n "$rss" ] || break
	us=${EPOCHREALTIME/./}
	t10=$(((us - us0) / 100000))
	echo "$((t10 / 10)).$((t10 % 10)) $rss" >>"$OUT/rss.txt"
	t=$((t10 / 10))
	if [ "$t" -ge "$next_print" ]; then
		awk -v t="$next_print" -v W="$WINDOW" '$1 >= t - W && $1 < t {
			if (!n++ || $2 < lo) lo = $2; if ($2 > hi) hi = $2 }
			END { if (n) printf "soak: t=%ds held=%d kB peak=%d kB\n", t, lo, hi }' "$OUT/rss.txt"
		next_print=$((next_print + EVERY))
	fi
	sleep 0.2
done
wait "$ipid"
rc=$?
if [ "$rc" != 0 ]; then
	echo "soak: iprof exited with $rc:"
	cat "$OUT/iprof.err"
	exit 1
fi

# windows ending at the warm-up: (w-W, w], (w, w+W], ...; the samples
# after the run's N seconds are left out: iprof then writes its final
# report (a peak) and a short last window may hold no sample between
# reports
verdict=$(awk -v w="$WARMUP" -v b="$BOUND_KB" -v W="$WINDOW" -v n="$SECONDS_RUN" '
	$1 > n { next }
	{ x = ($1 - w) / W; k = x == int(x) || x < 0 ? int(x) : int(x) + 1
	  if (!(k in lo) || $2 < lo[k]) lo[k] = $2
	  if ($2 > hi[k]) hi[k] = $2
	  if (k > last) last = k }
	END {
		if (!(0 in lo) || last < 1) { print "held_warm_kb=0 held_max_kb=0 growth_kb=0 bound_kb=" b " peak_warm_kb=0 peak_max_kb=0 verdict=too short"; exit }
		hm = 0; pm = 0
		for (k = 1; k <= last; k++) {
			if ((k in hi) && hi[k] > pm) pm = hi[k]
			# held over two windows in a row, k and k + 1:
			# the lower of the two (one window alone when
			# there is only one)
			if (!(k in lo) || (k == last && last > 1)) continue
			h = lo[k]
			if ((k + 1 in lo) && lo[k + 1] < h) h = lo[k + 1]
			if (h > hm) hm = h
		}
		g = hm - lo[0]; if (g < 0) g = 0
		printf "held_warm_kb=%d held_max_kb=%d growth_kb=%d bound_kb=%d peak_warm_kb=%d peak_max_kb=%d verdict=%s\n",
			lo[0], hm, g, b, hi[0], pm, g <= b ? "flat" : "not flat"
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
