#!/usr/bin/env bash
# vm-suite: bookworm-backports unstable
# kprobe/kretprobe timers in kprobe_multi links (issue 16): every case of
# test_kprobe (exact counts, a condition, nesting under a uprobe, threads
# blocking, a glob, a function that never returns, two timers on one
# function, a file with a missing function) with IPROF_KPROBE_MULTI=1,
# which puts even one timer in a link.  Needs a kernel with CONFIG_FPROBE:
# Debian 12's backported 6.12 (tests/vm/run.sh with
# IPROF_VM_SUITE=bookworm-backports; tests/run.sh does).
KIND=kprobe
export IPROF_KPROBE_MULTI=1
. "$(dirname "$0")/kfunc.sh"
