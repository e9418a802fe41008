#!/usr/bin/env bash
# Run one libFuzzer harness of tests/fuzz for SECONDS (built with
# -DIPROF_FUZZ=ON, clang), from a seed corpus: probes.d and the unit tests'
# probe files for `probe`; the workloads and test fixtures (ELF files) for
# `sym`; small recordings written by tests/fuzz/make_seeds for `rec`;
# nothing for `agg` (records are cheap to find).  New inputs are kept
# in BUILD/fuzz-corpus/NAME, so later runs start further; a crash is saved
# as BUILD/fuzz-crash-NAME-* and fails the run.
#
#   tests/fuzz/run.sh BUILD NAME SECONDS     (ctest: 5 s; bench/fuzz.sh: longer)
set -u
build=$1 name=$2 secs=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
bin=$build/fuzz_$name
[ -x "$bin" ] || { echo "FAIL: $bin is not built (-DIPROF_FUZZ=ON)"; exit 1; }
corpus=$build/fuzz-corpus/$name
seeds=$build/fuzz-seeds/$name
mkdir -p "$corpus" "$seeds"
case $name in
probe) cp "$src"/probes.d/*.conf "$src"/tests/unit/data/*.conf "$seeds"/ 2>/dev/null ;;
sym) for f in uprobe-workload glob-fixture; do
	[ -f "$build/$f" ] && cp "$build/$f" "$seeds/$f"
     done ;;
rec) "$build/fuzz_rec_seeds" "$seeds" >/dev/null ;;
esac
# -rss_limit_mb: a harness that grows without bound is a finding too
exec "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
	-artifact_prefix="$build/fuzz-crash-$name-" -print_final_stats=1 \
	"$corpus" "$seeds"
