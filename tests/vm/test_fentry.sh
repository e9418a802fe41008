#!/usr/bin/env bash
# fentry/fexit timers on vfs_read: exact counts, a condition on an argument, nesting
# under a uprobe timer.  Needs a kernel that allows them (tests/vm/run.sh).
KIND=fentry
. "$(dirname "$0")/kfunc.sh"
