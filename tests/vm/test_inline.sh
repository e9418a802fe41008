#!/usr/bin/env bash
# vm-suite: default unstable
# Inlined functions (tests/e2e/test_inline.sh) in the VM: the static -O2
# workload (glibc's static clock_gettime, another caller code) on 6.1,
# and on 7.x where iprof's programs run the rets themselves (an inlined
# instance's ret exits emulated, its other probes single-stepped).  Its
# times are checked against the workload's own clock only, which TCG
# stretches alike.
exec bash "$(dirname "$0")/../e2e/test_inline.sh"
