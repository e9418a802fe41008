#!/usr/bin/env bash
# The VM itself: the static iprof runs, the kernel has what the VM tier is
# for (BTF, kprobes, tracefs), and --dry-run resolves kernel-function probes.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

v=$("$IPROF" --version 2>&1)
check "iprof --version exit" "$?" 0
case $v in iprof\ [0-9]*) ok "version: $v" ;; *) bad "version: '$v'" ;; esac
echo "kernel: $(uname -r)"
[ -r /sys/kernel/btf/vmlinux ] && ok "kernel BTF" || bad "no /sys/kernel/btf/vmlinux"
[ -e /sys/bus/event_source/devices/kprobe/type ] && ok "kprobe PMU" ||
	bad "no kprobe PMU (/sys/bus/event_source/devices/kprobe/type)"
[ -e /sys/kernel/tracing/events/syscalls ] && ok "tracefs" || bad "no tracefs events"
grep -qw vfs_read /sys/kernel/tracing/available_filter_functions &&
	ok "vfs_read is traceable" || bad "vfs_read not in available_filter_functions"
"$IPROF" --dry-run -e 'fentry:vfs_read' -e 'kprobe:vfs_read as kp' \
	-e 'func:vfs_read as fn' >"$TMP/plan" 2>&1
check "--dry-run exit" "$?" 0
cat "$TMP/plan"
finish
