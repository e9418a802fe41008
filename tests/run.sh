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
san_on=0
[ "${IPROF_SANITIZE_TESTS:-1}" != 0 ] && [ $# = 0 ] && san_on=1
# The VM tier in two lanes, each qemu (TCG, one host thread) on a CPU of
# its own where the machine has two, so that they end together (before:
# the sanitizer beside the 6.1 suite, then 6.12, 7.2 and the systemd VM
# three at once: 954 + 434 s in a fresh-clone CI run, one CPU idle once
# the sanitizer was done):
#   lane 1: the 6.1 suite but lane 2's tests (it fetches the kernel and
#           its debug files and makes the static build), then 7.2 (Debian
#           unstable: emulated return sites, the user-function tests
#           again), then the systemd VM (tests/vm/systemd.sh: a booted
#           Debian 12 on 6.1, the .deb with dpkg, iprof@.service's life
#           cycle; 77: skipped, and it says why; its image made by
#           --prepare at the start, mmdebstrap, about a minute uncached)
#   lane 2: the sanitizer build and its tests, then lane 2's 6.1 tests
#           (the static build lane 1 made, VM_PREBUILT=1, once lane 1's
#           VM boots), then 6.12 (bookworm-backports: kprobe_multi; an
#           iprof run there takes 10 to 20 s, its verifier under TCG
#           without CX16)
# Each step's lines are printed when both lanes are done, in this order.
# Lane 2's 6.1 tests: the longest under TCG (287 + 57 s of 759), and
# test_accuracy (70 s; a 6.1 test alone, no vm-suite line: it passed on
# 6.12 and 7.2 when it was written, bench/README.md "Kernel timers in the
# VM")
VM_LANE2=${VM_LANE2:-test_deep test_fork test_hitonly test_kprobe test_kvm test_vfio test_accuracy}
vm_lane1() {
	local b=$build prep
	BUILD=$b bash "$src/tests/vm/systemd.sh" --prepare >"$b/vm-systemd-prepare.log" 2>&1 &
	prep=$!
	VM_EXCLUDE="$VM_LANE2" bash "$src/tests/vm/run.sh" >"$b/vm-6.1.log" 2>&1
	echo $? >"$b/vm-6.1.rc"
	IPROF_VM_SUITE=unstable VM_PREBUILT=1 VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-360} \
		bash "$src/tests/vm/run.sh" >"$b/vm-unstable.log" 2>&1
	echo $? >"$b/vm-unstable.rc"
	wait "$prep"
	BUILD=$b bash "$src/tests/vm/systemd.sh" >"$b/vm-systemd.log" 2>&1
	echo $? >"$b/vm-systemd.rc"
}
vm_lane2() {
	local b=$build
	if [ $san_on = 1 ]; then
		sanitize >"$b/sanitize.log" 2>&1
		echo $? >"$b/sanitize.rc"
	fi
	# lane 1's VM has booted: the kernel is fetched and iprof built
	until grep -qE '^vm: (booting|error|FAIL)' "$b/vm-6.1.log" 2>/dev/null ||
		[ -f "$b/vm-6.1.rc" ]; do
		sleep 2
	done
	# shellcheck disable=SC2086
	VM_PREBUILT=1 VM_TAG=lane2 bash "$src/tests/vm/run.sh" $VM_LANE2 \
		>"$b/vm-6.1-lane2.log" 2>&1
	echo $? >"$b/vm-6.1-lane2.rc"
	IPROF_VM_SUITE=bookworm-backports VM_PREBUILT=1 VM_TEST_TIMEOUT=${VM_TEST_TIMEOUT:-360} \
		bash "$src/tests/vm/run.sh" >"$b/vm-bookworm-backports.log" 2>&1
	echo $? >"$b/vm-bookworm-backports.rc"
}
# a step's lines, and its status into rc (77: skipped, for the systemd VM)
vm_step() {
	local name=$1 log=$build/$2.log r
	[ "$name" = sanitizer ] && echo "=== sanitizer build (build-san) ==="
	cat "$log" 2>/dev/null
	r=$(cat "$build/$2.rc" 2>/dev/null || echo 1)
	[ "$r" = 0 ] || { [ "$2" = vm-systemd ] && [ "$r" = 77 ]; } || {
		echo "FAIL: $name (exit $r)"
		rc=1
	}
}
if [ "${IPROF_SKIP_VM:-0}" != 1 ] && [ "$(id -u)" = 0 ]; then
	rm -f "$build"/vm-*.rc "$build"/sanitize.rc "$build"/vm-6.1.log
	vm_lane1 &
	l1=$!
	vm_lane2 &
	l2=$!
	wait $l1 $l2
	vm_step "the 6.1 VM (lane 1)" vm-6.1
	vm_step "the 6.1 VM (lane 2)" vm-6.1-lane2
	[ $san_on = 1 ] && vm_step sanitizer sanitize
	vm_step "the 6.12 VM" vm-bookworm-backports
	vm_step "the 7.2 VM" vm-unstable
	vm_step "the systemd VM" vm-systemd
else
	if [ $san_on = 1 ]; then
		sanitize || rc=1
	fi
	if [ "${IPROF_SKIP_VM:-0}" != 1 ] && [ "${IPROF_REQUIRE_E2E:-0}" = 1 ]; then
		echo "FAIL: the VM tier needs root"
		rc=1
	elif [ "${IPROF_SKIP_VM:-0}" != 1 ]; then
		echo "SKIP: the VM tier (tests/vm/run.sh, tests/vm/systemd.sh) needs root"
	fi
fi
exit $rc
