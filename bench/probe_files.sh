#!/usr/bin/env bash
# Resolving hostile probe files (issue 15): for each kind of line, a probe
# file of distinct lines just under 1 MiB (the largest a probe file may be),
# resolved with `iprof --dry-run`; prints lines, wall seconds (best of 3)
# and peak RSS.  The goal: every file under 1 s.  A benchmark, not a test.
#
#   bench/probe_files.sh [BUILD_DIR]       (default: $BUILD, else ./build)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$SRC/build}}
IPROF=$BUILD/iprof
[ -x "$IPROF" ] || { echo "bench/probe_files.sh: $IPROF is not built" >&2; exit 1; }
TMP=$(mktemp -d /tmp/iprof-bench-pf.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# gen NAME FORMAT: FORMAT with %d the line number, up to 1 MiB
gen() {
	awk -v fmt="$2\n" 'BEGIN { for (i = 0;; i++) {
		l = sprintf(fmt, i); n += length(l); if (n > 1048576) exit
		printf "%s", l } }' >"$TMP/$1.conf"
}
gen func_missing 'func:a%d'
gen func_as 'func:vfs_read as t%d'
gen uprobe_as "uprobe:$BUILD/uprobe-workload:outer as u%d"
gen span 'span s%d = tracepoint:sched:sched_switch -> tracepoint:sched:sched_wakeup'
gen glob_noprefix 'func:*x%d'
gen glob_prefix 'func:vfs_%d*'
gen duplicate_last 'func:a%d' && echo 'func:a0' >>"$TMP/duplicate_last.conf"

printf '%-16s %8s %8s %9s %s\n' file lines seconds rss_kb exit
for f in "$TMP"/*.conf; do
	name=$(basename "$f" .conf)
	best=
	for r in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$TMP/time" "$IPROF" --dry-run -P "$f" >/dev/null 2>&1
		rc=$?
		read -r s kb < <(tail -1 "$TMP/time")
		if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$s rss=$kb
		fi
	done
	printf '%-16s %8d %8s %9s %s\n' "$name" "$(wc -l <"$f")" "$best" "$rss" "$rc"
done
