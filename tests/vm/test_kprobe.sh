#!/usr/bin/env bash
# kprobe/kretprobe timers on vfs_read: exact counts, a condition on an argument, nesting
# under a uprobe timer.  Needs a kernel that allows them (tests/vm/run.sh).
KIND=kprobe
. "$(dirname "$0")/kfunc.sh"
