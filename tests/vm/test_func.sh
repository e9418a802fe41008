#!/usr/bin/env bash
# func: timers (fentry/fexit where allowed, else kprobe) on vfs_read: exact
# counts, a condition on an argument, nesting under a uprobe timer.  Needs a
# kernel that allows them (tests/vm/run.sh).
# vm-timeout: 360 (kfunc.sh: many iprof runs, 90 s under TCG on a loaded host)
KIND=func
. "$(dirname "$0")/kfunc.sh"
