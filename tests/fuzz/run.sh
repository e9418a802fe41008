#!/usr/bin/env bash
# Fuzz the recording reader (tests/fuzz/fuzz_rec.c) for SECONDS (default 60):
#
#   tests/fuzz/run.sh [SECONDS] [BUILD_DIR]     (default build-fuzz)
#
# Builds with clang, -DIPROF_FUZZ=ON (libFuzzer + AddressSanitizer + UBSan),
# seeds the corpus with small recordings written by the unit test's
# writer (tests/fuzz/make_seeds), then runs libFuzzer.  Exit status 0 when
# no crash, hang or leak was found; a crash leaves crash-* in the build dir.
set -eu
SECS=${1:-60}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
B=${2:-$SRC/build-fuzz}
CC=clang cmake -S "$SRC" -B "$B" -DIPROF_FUZZ=ON -DIPROF_TESTS=OFF >/dev/null
cmake --build "$B" -j2 --target fuzz_rec fuzz_rec_seeds >/dev/null
mkdir -p "$B/corpus"
"$B/fuzz_rec_seeds" "$B/corpus"
cd "$B"
./fuzz_rec -max_total_time="$SECS" -timeout=5 -rss_limit_mb=1024 \
	-max_len=65536 corpus
