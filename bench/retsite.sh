#!/usr/bin/env bash
# Which switches get return sites (issue 43, bench/README.md "Return sites
# found"): bench/retsite-switch.c's 12 functions built by each compiler
# (GCC, clang) at -O2 and -O3, as a shared library (-fPIC), a PIE and a
# non-PIC program, with and without -fcf-protection=full (notrack jump
# tables), then bench_retsite on each: how many of the 12 it refuses.
# A benchmark, not a test.
#
#   bench/retsite.sh [BUILD_DIR]      (default: $BUILD, else ./build)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$SRC/build}}
B=$BUILD/bench_retsite
[ -x "$B" ] || { echo "bench/retsite.sh: $B is not built" >&2; exit 1; }
T=$(mktemp -d /tmp/iprof-retsite.XXXXXX)
trap 'rm -rf "$T"' EXIT
printf 'int ext(int v) { return v * 2 + 1; }\nint main(void) { return 0; }\n' >"$T/ext.c"
printf '| compiler | -O | code | -fcf-protection | switches refused (of 12) |\n|---|---|---|---|---|\n'
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for o in -O2 -O3; do
		for code in "-fPIC -shared" "-fPIE -pie" "-fno-pic -no-pie"; do
			for cet in none full; do
				f=$T/sw
				if [ "$code" = "-fPIC -shared" ]; then
					$cc $o $code -fcf-protection=$cet -o $f "$SRC/bench/retsite-switch.c"
				else
					$cc $o $code -fcf-protection=$cet -o $f "$SRC/bench/retsite-switch.c" "$T/ext.c"
				fi || exit 1
				n=$(BENCH_RETSITE_WHY=1 "$B" "$f" | grep -c '^  sw_')
				printf '| %s | %s | %s | %s | %s |\n' $cc $o "$code" $cet "$n"
			done
		done
	done
done
