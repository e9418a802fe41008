#!/usr/bin/env bash
# What planning a uprobe glob costs (issue 43 item 4, bench/README.md
# "Glob planning"): `iprof --dry-run -e 'uprobe:BIN:hot::*' -- BIN` on a
# generated C++ program of TOTAL functions, HOT of them in namespace hot
# (one timer each: their symbols resolved, return sites found), against
# `iprof list functions BIN` (one pass over the same symbol table: the
# floor), interleaved, ROUNDS rounds, the medians of each (wall, and
# user + system) and their ratios; and a dry run of one function (main),
# what any dry run costs before its probes.
# The program is written and built here (c++ -O1, a few minutes of
# compiling for 20000 functions; kept in $OUT between runs).  A benchmark,
# not a test.
#
#   bench/glob-plan.sh [BUILD_DIR]      (default: $BUILD, else ./build)
#   TOTAL=20000 HOT=1000 ROUNDS=7 OUT=/tmp/iprof-glob-bench
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$SRC/build}}
IPROF=$BUILD/iprof
TOTAL=${TOTAL:-20000}
HOT=${HOT:-1000}
ROUNDS=${ROUNDS:-7}
OUT=${OUT:-/tmp/iprof-glob-bench}
CXX=${CXX:-c++}
[ -x "$IPROF" ] || { echo "bench/glob-plan.sh: $IPROF is not built" >&2; exit 1; }
command -v "$CXX" >/dev/null || { echo "bench/glob-plan.sh: no C++ compiler ($CXX)" >&2; exit 1; }
mkdir -p "$OUT" || exit 1
BIN=$OUT/glob-$TOTAL-$HOT

# the program: HOT functions hot::fN, the others in namespaces coldK of
# 1000 each; each body distinct (no identical-code folding), never inlined
gen() {
	awk -v total="$TOTAL" -v hot="$HOT" 'BEGIN {
		print "namespace hot {";
		for (i = 0; i < hot; i++)
			printf "__attribute__((noinline)) int f%d(int x) { return x * %d + 1; }\n", i, i + 3;
		print "}";
		for (i = hot; i < total; i++)
			printf "namespace cold%d { __attribute__((noinline)) int f%d(int x) { return x * %d + 2; } }\n", int((i - hot) / 1000), i, i + 3;
		print "int main(int argc, char **argv) { (void)argv; return hot::f0(argc) == 4 ? 0 : 1; }";
	}'
}
if [ ! -x "$BIN" ]; then
	gen >"$BIN.cpp" && "$CXX" -O1 -o "$BIN" "$BIN.cpp" || exit 1
fi
# the ground truth: HOT functions in hot::, TOTAL + main in all
n=$(nm -C "$BIN" | grep -c ' T hot::f')
[ "$n" = "$HOT" ] || { echo "bench/glob-plan.sh: $BIN has $n hot:: functions, not $HOT" >&2; exit 1; }
n=$("$IPROF" --dry-run -e "uprobe:$BIN:hot::*" -- "$BIN" 2>/dev/null | grep -c '^hot::f')
[ "$n" = "$HOT" ] || { echo "bench/glob-plan.sh: the plan has $n timers, not $HOT" >&2; exit 1; }

# run CMD...: "WALL CPU" milliseconds of one run (bash's time: wall, and
# user + system of the command; its output thrown away)
run() {
	local TIMEFORMAT='%3R %3U %3S' t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
	awk -v t="$t" 'BEGIN { split(t, v, " "); printf "%d %d\n", v[1] * 1000, (v[2] + v[3]) * 1000 }'
}
AW=() AC=() BW=() BC=() OW=() OC=()
for ((r = 0; r < ROUNDS; r++)); do
	read -r w c < <(run "$IPROF" --dry-run -e "uprobe:$BIN:hot::*" -- "$BIN")
	AW+=("$w") AC+=("$c")
	read -r w c < <(run "$IPROF" list functions "$BIN")
	BW+=("$w") BC+=("$c")
	read -r w c < <(run "$IPROF" --dry-run -e "uprobe:$BIN:main" -- "$BIN")
	OW+=("$w") OC+=("$c")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
aw=$(median "${AW[@]}") ac=$(median "${AC[@]}")
bw=$(median "${BW[@]}") bc=$(median "${BC[@]}")
ow=$(median "${OW[@]}") oc=$(median "${OC[@]}")
printf '# %s, %d functions, %d in hot::, median of %d rounds\n' "$(uname -r)" "$TOTAL" "$HOT" "$ROUNDS"
printf '%-52s %8s %8s\n' case "wall ms" "cpu ms"
printf '%-52s %8s %8s\n' "iprof --dry-run -e 'uprobe:BIN:hot::*' -- BIN" "$aw" "$ac"
printf '%-52s %8s %8s\n' "iprof list functions BIN" "$bw" "$bc"
printf '%-52s %8s %8s\n' ratio "$(ratio "$aw" "$bw")" "$(ratio "$ac" "$bc")"
# what any dry run costs (kernel feature probes, one function): not the glob's
printf '%-52s %8s %8s\n' "(iprof --dry-run -e 'uprobe:BIN:main' -- BIN)" "$ow" "$oc"
