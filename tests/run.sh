#!/usr/bin/env bash
# Build iprof and run every test: unit (cmocka, no root), end-to-end (root:
# tracepoints, uprobes, KVM) and the VM tier (root: Debian's stock kernel in
# qemu for fentry/fexit and kprobes, tests/vm/run.sh; a Debian system booted
# with systemd on the same kernel for the package and its unit,
# tests/vm/systemd.sh; then the backported 6.12 kernel for kprobe_multi,
# and Debian unstable's 7.x for emulated return sites).  Tests that cannot
# run here say SKIP with the reason; IPROF_REQUIRE_E2E=1 makes a skip fail.
# IPROF_SKIP_VM=1 leaves out the VM tier (about eight minutes);
# IPROF_SANITIZE_TESTS=0 the ASan+UBSan build and the fuzzers (build-san).
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build}
cmake -S "$src" -B "$build" -DIPROF_WERROR="${IPROF_WERROR:-ON}" >/dev/null || exit 1
cmake --build "$build" -j"$(nproc)" >/dev/null || exit 1
(cd "$build" && ctest --output-on-failure --timeout 600 "$@")
rc=$?
# Sanitizers and fuzzers (IPROF_SANITIZE_TESTS=0 leaves them out): a clang
# build in build-san with ASan+UBSan and the libFuzzer harnesses runs the
# unit tests, a few end-to-end tests and each fuzzer for a few seconds.
# Beside the VM tier (its first suite spends minutes downloading and in one
# qemu CPU) it runs in the background, its lines printed when it is done.
sanitize() {
	local san=${BUILD_SAN:-$src/build-san} fuzz=ON
	if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
		clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
		echo "SKIP: fuzzers: clang's libFuzzer is missing (tools/install-deps.sh installs libclang-rt-dev)"
		fuzz=OFF
	fi
	if CC=clang cmake -S "$src" -B "$san" -DIPROF_SANITIZE=ON -DIPROF_FUZZ=$fuzz \
		-DIPROF_WERROR=OFF >/dev/null && cmake --build "$san" -j"$(nproc)" >/dev/null; then
		(cd "$san" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
			ctest --output-on-failure --timeout 600 \
			-R '^(unit_|fuzz_|e2e_test_bad_input$|e2e_test_uprobe$|e2e_test_list$)')
	else
		echo "FAIL: the sanitizer build (build-san) does not build"
		return 1
	fi
}
san_pid=
if [ "${IPROF_SANITIZE_TESTS:-1}" != 0 ] && [ $# = 0 ]; then
	if [ "${IPROF_SKIP_VM:-0}" != 1 ] && [ "$(id -u)" = 0 ]; then
		sanitize >"$build/sanitize.log" 2>&1 &
		san_pid=$!
	else
		sanitize || rc=1
	fi
fi
# the background sanitizer stage's result and lines
san_wait() {
	[ -n "$san_pid" ] || return 0
	wait "$san_pid" || rc=1
	echo "=== sanitizer build (build-san) ==="
	cat "$build/sanitize.log"
	san_pid=
}
if [ "${IPROF_SKIP_VM:-0}" != 1 ]; then
	if [ "$(id -u)" = 0 ]; then
		# tests/vm/systemd.sh's system image (mmdebstrap: about a
		# minute when not cached) is made while run.sh's VM runs
		BUILD=$build bash "$src/tests/vm/systemd.sh" --prepare \
			>"$build/vm-systemd-prepare.log" 2>&1 &
		prep=$!
		bash "$src/tests/vm/run.sh" || rc=1
		wait $prep
		san_wait
		# a booted Debian 12 with systemd (same kernel): the .deb
		# installed with dpkg, iprof@.service's life cycle
		# (tests/vm/systemd.sh; 77: skipped, and it says why), its VM
		# beside the newer kernels' (qemu TCG takes one CPU each; its
		# lines printed when it is done)
		BUILD=$build bash "$src/tests/vm/systemd.sh" \
			>"$build/vm-systemd.log" 2>&1 &
		sysd=$!
		# the tests that need a newer kernel (kprobe_multi: 6.12 from
		# bookworm-backports; "# vm-suite:" in tests/vm/test_*.sh)
		# (an iprof run there takes 10 to 20 s: the 6.12 verifier under
		# TCG without CX16), and the newest kernel, Debian unstable's
		# (7.x: emulated return sites, the user-function tests again):
		# both at once, each qemu (TCG, one thread) on a CPU of its own
		# where the machine has two, with the static build the first
		# suite made (VM_PREBUILT=1); their lines printed when each is
		# done (before: one after the other, 250 s + 340 s)
		suites=(bookworm-backports unstable)
		pids=()
		for suite in "${suites[@]}"; do
			IPROF_VM_SUITE=$suite VM_PREBUILT=1 VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-360} \
				bash "$src/tests/vm/run.sh" >"$build/vm-$suite.log" 2>&1 &
			pids+=($!)
		done
		for i in "${!suites[@]}"; do
			wait "${pids[$i]}" || rc=1
			cat "$build/vm-${suites[$i]}.log"
		done
		wait $sysd
		r=$?
		cat "$build/vm-systemd.log"
		[ $r = 0 ] || [ $r = 77 ] || rc=1
	elif [ "${IPROF_REQUIRE_E2E:-0}" = 1 ]; then
		echo "FAIL: the VM tier needs root"
		rc=1
	else
		echo "SKIP: the VM tier (tests/vm/run.sh, tests/vm/systemd.sh) needs root"
	fi
fi
san_wait
exit $rc
