#!/usr/bin/env bash
# The main job, from a fresh Debian machine, as root: install the build
# dependencies, build iprof, and profile the bundled KVM workload
# (tools/kvm-msr-exit: 2 vCPUs doing RDMSR/WRMSR exits to user space, APIC
# timer halts and a page fault) with probes.d/kvm.conf, printing the call
# tree.
#
# Where this host cannot run the whole job (no usable /dev/kvm, or the
# kernel refuses both fentry and kprobes, so kvm.conf's kernel functions
# cannot attach), it says why in one line and runs the same job in the VM
# tier's VM instead (Debian's stock kernel under qemu, with KVM on emulated
# AMD SVM: tests/vm/run.sh vm/demo_kvm), which shows the whole tree.
#
# `tools/demo.sh vfio` runs the seed's second job instead: probes.d/vfio.conf
# on tools/vfio-dma (VFIO device opens with their FLR, DMA map and unmap
# with the pinning path), always in the VM, whose emulated NVMe controller
# behind an emulated Intel IOMMU is bound to vfio-pci there.
#
# Each stage (the dependencies, the build, the VM run) says on stderr
# when it starts and how long it took; its output goes to a log under
# /tmp/iprof-demo.*, kept and named where the stage fails (its last lines
# shown), removed when the demo ends well.
#
# Environment: BUILD (build dir, default build), IPROF_DEMO_VM=1 (always
# the VM) or 0 (always this host; kvm only).  Exit status: iprof's, or 1 if
# a stage (the dependencies, the build, the VM run) failed.
set -euo pipefail
job=${1:-kvm}
case $job in
kvm | vfio) ;;
*) echo "usage: $0 [kvm|vfio]" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build}
say() { echo "demo: $*" >&2; }
logs=$(mktemp -d /tmp/iprof-demo.XXXXXX)

# stage WHAT LOG CMD...: CMD's stdout and stderr into $logs/LOG, a line
# before and one after with its time; where it fails, the log's last
# lines and path, exit 1 (the log kept)
stage() {
	local what=$1 log=$logs/$2 t0=$SECONDS rc=0
	shift 2
	say "$what (log: $log) ..."
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 20 "$log" | sed 's/^/  /' >&2
		say "$what failed (exit $rc) after $((SECONDS - t0)) s; its log: $log"
		exit 1
	fi
	say "$what: done in $((SECONDS - t0)) s"
}

stage "installing the build dependencies (apt-get)" deps.log \
	bash "$src/tools/install-deps.sh"
stage "configuring the build in $build (cmake)" cmake.log \
	cmake -S "$src" -B "$build"
stage "building iprof and the workloads (the first time: minutes)" build.log \
	cmake --build "$build" -j"$(nproc)"
rm -rf "$logs"

# host_can_run: 0 if this host can run the whole job, else 1 with the
# reason in $why
why=""
host_can_run() {
	local out plan
	if [ "$(id -u)" != 0 ]; then
		why="not root"
		return 1
	fi
	if ! out=$("$build/kvm-msr-exit" --vcpus 1 --iterations 1 --halts 1 2>&1 >/dev/null); then
		why="KVM cannot run here: $(printf '%s\n' "$out" | head -1 | sed 's/^SKIP: //')"
		return 1
	fi
	plan=$("$build/iprof" --dry-run -e func:kvm_vcpu_block 2>&1 || true)
	if ! grep -q '^# fentry/fexit: the kernel loads' <<<"$plan" &&
		! grep -q '^# kprobes: available' <<<"$plan"; then
		why="this kernel refuses fentry and has no kprobes, so kvm.conf's kernel functions cannot attach"
		return 1
	fi
}

mode=${IPROF_DEMO_VM:-}
[ "$job" = kvm ] || { mode=1; why="the VFIO job needs an IOMMU and a device to give to vfio-pci"; }
if [ "$mode" != 1 ] && { [ "$mode" = 0 ] || host_can_run; }; then
	echo "== iprof --probes probes.d/kvm.conf -- kvm-msr-exit --vcpus 2 --iterations 2000" >&2
	echo "== (the workload's own counts on stderr, iprof's report on stdout)" >&2
	exec "$build/iprof" --probes "$src/probes.d/kvm.conf" -- \
		sh -c 'exec "$0" --vcpus 2 --iterations 2000 >&2' "$build/kvm-msr-exit"
fi

[ -n "$why" ] || why="IPROF_DEMO_VM=1"
say "running the $job job in a VM (Debian's stock kernel under qemu) instead: $why"
say "(the first time it downloads the kernel and builds the VM's static iprof: minutes; its steps follow as vm: lines)"
log=$(mktemp /tmp/iprof-demo.XXXXXX)
rc=0
t0=$SECONDS
bash "$src/tests/vm/run.sh" "vm/demo_$job" >"$log" || rc=$?
# the demo's lines: indented by four spaces between its marker lines (the
# console log interleaves kernel messages, which are not indented)
awk '/^    == demo: /{ on = 1 } on && /^    /{ print substr($0, 5) } /^    == demo: end/{ on = 0 }' "$log"
if [ "$rc" != 0 ]; then
	say "the VM run failed (exit $rc) after $((SECONDS - t0)) s; its output: $log, its console log: tests/vm/cache/console.log"
	exit 1
fi
rm -f "$log"
say "the VM run: done in $((SECONDS - t0)) s"
