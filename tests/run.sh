#!/usr/bin/env bash
# Build iprof and run every test: unit (cmocka, no root) and end-to-end
# (root: tracepoints, uprobes, KVM).  End-to-end tests that cannot run here
# say SKIP with the reason; set IPROF_REQUIRE_E2E=1 to make a skip fail.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build}
cmake -S "$src" -B "$build" -DIPROF_WERROR="${IPROF_WERROR:-ON}" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
cd "$build"
ctest --output-on-failure --timeout 600 "$@"
