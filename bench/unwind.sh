#!/usr/bin/env bash
# --returns auto's judgment over a host's programs (issue 43 items 1, 2,
# 7): every ELF executable in DIRS (default /usr/bin /usr/sbin and
# PostgreSQL's bin directories), judged as a program of its own by
# bench_unwind (the DT_NEEDED closure; no -p maps, no dlopen), and the
# programs that keep return sites summed by the file and symbol that keep
# them.  BEFORE=path of another build's bench_unwind: the same files
# judged by it too, and the programs whose judgment changed.
#
#   bench/unwind.sh [DIR...]        (BUILD=build dir, default build)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$src/build}
B=$BUILD/bench_unwind
[ -x "$B" ] || { echo "bench/unwind.sh: $B not built" >&2; exit 2; }
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(/usr/bin /usr/sbin /usr/lib/postgresql/*/bin)
T=$(mktemp -d /tmp/iprof-unwind.XXXXXX)
trap 'rm -rf "$T"' EXIT
for d in "${dirs[@]}"; do
	for f in "$d"/*; do
		[ -f "$f" ] && [ -x "$f" ] && [ "$(head -c4 "$f" 2>/dev/null | tr -d '\0')" = $'\x7fELF' ] && echo "$f"
	done
done >"$T/files"
mapfile -t files <"$T/files"
"$B" "${files[@]}" >"$T/new" 2>/dev/null
n=${#files[@]}
k=$(grep -c '^1 ' "$T/new")
s=$(grep -c '^2 ' "$T/new")
echo "programs: $n, return sites kept: $k, a uprobe session (Linux 6.13+, else return sites): $s, a uretprobe: $((n - k - s))"
echo "kept by (the first file and symbol of the evidence):"
grep '^1 ' "$T/new" | sed -E 's/^1 [^:]*: //; s/^([^ ]*\/)?([^ /]*) (imports|defines) ([^ ,)]*).*/\2 \3 \4/' |
	sort | uniq -c | sort -rn | head -15
if [ -n "${BEFORE:-}" ]; then
	"$BEFORE" "${files[@]}" >"$T/old" 2>/dev/null
	echo "before: return sites kept: $(grep -c '^1 ' "$T/old")"
	echo "now a uretprobe or a uprobe session (were return sites):"
	paste -d'\t' "$T/old" "$T/new" | awk -F'\t' 'substr($1, 1, 1) == "1" && substr($2, 1, 1) != "1" { print "  " $2 }' |
		cut -c1-220
	echo "now return sites (were a uretprobe):"
	paste -d'\t' "$T/old" "$T/new" | awk -F'\t' 'substr($1, 1, 1) == "0" && substr($2, 1, 1) == "1" { print "  " $2 }' |
		cut -c1-220
fi
