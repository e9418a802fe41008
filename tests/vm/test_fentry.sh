#!/usr/bin/env bash
# fentry/fexit timers on vfs_read: exact counts, a condition on an argument, nesting
# under a uprobe timer.  Needs a kernel that allows them (tests/vm/run.sh).
# vm-timeout: 480 (kfunc.sh: many iprof runs; 120 s ran out on 7.2 under TCG
# once it named vfs_read's calls too, as test_kprobe's)
KIND=fentry
. "$(dirname "$0")/kfunc.sh"
