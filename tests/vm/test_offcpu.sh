#!/usr/bin/env bash
# vm-suite: default unstable
# vm-timeout: 420
# tests/e2e/test_offcpu.sh on the VM tier's stock kernels: --offcpu-stacks'
# sched_switch stacks and sched_waking wakers, named from their kallsyms.
exec bash "$(dirname "$0")/../e2e/test_offcpu.sh"
