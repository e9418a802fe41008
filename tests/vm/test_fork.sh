#!/usr/bin/env bash
# vm-suite: default unstable
# vm-timeout: 420 (tests/e2e/test_fork.sh's iprof runs: 235 s under TCG on 7.2 on a loaded host)
# tests/e2e/test_fork.sh on the VM tier's stock kernels (6.1, 7.x): a
# forked child starts inside the frames its parent thread had open
# (IPROF_REC_FORKED, sent by BPF's sched_process_fork program, which
# copies them into the child's task storage).
exec bash "$(dirname "$0")/../e2e/test_fork.sh"
