#!/usr/bin/env bash
# The main job, from a fresh Debian machine, as root: install the build
# dependencies, build iprof, and profile the bundled KVM workload
# (tools/kvm-msr-exit: 2 vCPUs doing RDMSR/WRMSR exits to user space) with
# probes.d/kvm.conf, printing the call tree.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$src/build}
bash "$src/tools/install-deps.sh"
cmake -S "$src" -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
echo "== iprof --probes probes.d/kvm.conf -- kvm-msr-exit --vcpus 2 --iterations 2000" >&2
echo "== (the workload's own counts on stderr, iprof's report on stdout)" >&2
exec "$build/iprof" --probes "$src/probes.d/kvm.conf" -- \
	sh -c 'exec "$0" --vcpus 2 --iterations 2000 >&2' "$build/kvm-msr-exit"
