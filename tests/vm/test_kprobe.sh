#!/usr/bin/env bash
# kprobe/kretprobe timers on vfs_read: exact counts, a condition on an argument, nesting
# under a uprobe timer.  Needs a kernel that allows them (tests/vm/run.sh).
# vm-timeout: 480 (kfunc.sh: many iprof runs, 70 s under TCG on a loaded host;
# 360 s ran out on a 2-CPU host shared with five builds)
KIND=kprobe
. "$(dirname "$0")/kfunc.sh"
