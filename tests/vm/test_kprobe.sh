#!/usr/bin/env bash
# kprobe/kretprobe timers on vfs_read: exact counts, a condition on an argument, nesting
# under a uprobe timer.  Needs a kernel that allows them (tests/vm/run.sh).
# vm-timeout: 360 (kfunc.sh: many iprof runs, 70 s under TCG on a loaded host)
KIND=kprobe
. "$(dirname "$0")/kfunc.sh"
