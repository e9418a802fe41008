#!/usr/bin/env bash
# Run the libFuzzer harnesses of tests/fuzz for longer than the tests do:
# each for SECONDS (default 300), one after the other, with ASan+UBSan, in
# a clang build (default ./build-san, configured here if needed).  The
# corpus grows in BUILD/fuzz-corpus/NAME across runs; a crash is saved as
# BUILD/fuzz-crash-NAME-* and makes the exit status 1.
#
#   bench/fuzz.sh [SECONDS] [probe|agg|sym|rec ...]
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_SAN:-$src/build-san}
secs=${1:-300}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(probe agg sym rec)
CC=clang cmake -S "$src" -B "$build" -DIPROF_SANITIZE=ON -DIPROF_FUZZ=ON \
	-DIPROF_WERROR=OFF >/dev/null && cmake --build "$build" -j"$(nproc)" >/dev/null || exit 1
rc=0
for n in "${names[@]}"; do
	echo "== fuzz_$n for $secs s"
	bash "$src/tests/fuzz/run.sh" "$build" "$n" "$secs" 2>&1 |
		grep -E '^(Done|stat::|SUMMARY|==[0-9]+==ERROR)|Test unit written|deadly' || true
	ls "$build"/fuzz-crash-"$n"-* >/dev/null 2>&1 && rc=1
done
exit $rc
