#!/usr/bin/env bash
# vm-suite: default bookworm-backports unstable
# tests/e2e/test_exec.sh on the VM tier's stock kernels (6.1, 6.12, 7.x):
# an exec by a thread other than the leader, whose kept frames go on
# under the leader's tid (IPROF_REC_NEWTID, sent by BPF at
# sched_process_exec).
exec bash "$(dirname "$0")/../e2e/test_exec.sh"
