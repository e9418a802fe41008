#!/usr/bin/env bash
# Build iprof and run every test: unit (cmocka, no root), end-to-end (root:
# tracepoints, uprobes, KVM) and the VM tier (root: Debian's stock kernel in
# qemu for fentry/fexit and kprobes, tests/vm/run.sh).  Tests that cannot
# run here say SKIP with the reason; IPROF_REQUIRE_E2E=1 makes a skip fail.
# IPROF_SKIP_VM=1 leaves out the VM tier (about a minute and a half).
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build}
cmake -S "$src" -B "$build" -DIPROF_WERROR="${IPROF_WERROR:-ON}" >/dev/null || exit 1
cmake --build "$build" -j"$(nproc)" >/dev/null || exit 1
(cd "$build" && ctest --output-on-failure --timeout 600 "$@")
rc=$?
if [ "${IPROF_SKIP_VM:-0}" != 1 ]; then
	if [ "$(id -u)" = 0 ]; then
		bash "$src/tests/vm/run.sh" || rc=1
	elif [ "${IPROF_REQUIRE_E2E:-0}" = 1 ]; then
		echo "FAIL: the VM tier needs root"
		rc=1
	else
		echo "SKIP: the VM tier (tests/vm/run.sh) needs root"
	fi
fi
exit $rc
