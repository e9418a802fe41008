#!/usr/bin/env bash
# func: timers (fentry/fexit where allowed, else kprobe) on vfs_read: exact
# counts, a condition on an argument, nesting under a uprobe timer.  Needs a
# kernel that allows them (tests/vm/run.sh).
KIND=func
. "$(dirname "$0")/kfunc.sh"
