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
# the same plan as JSON: here fentry loads and kprobes exist
"$IPROF" --dry-run -f json -e 'fentry:vfs_read' -e 'kprobe:vfs_read as kp' \
	-e 'func:vfs_read as fn' >"$TMP/plan.json" 2>&1
check "--dry-run -f json exit" "$?" 0
cat "$TMP/plan.json"
# (no jq in the VM: the pretty JSON has one key per line)
check "--dry-run -f json: kernel features" \
	"$(grep -o '"\(dry_run\|fentry\|kprobes\)": [a-z]*' "$TMP/plan.json" | tr '\n' ' ')" \
	'"dry_run": true "fentry": true "kprobes": true '
check "--dry-run -f json: per probe name, mechanism, would attach, line" \
	"$(grep -o '"\(name\|mech\|attached\|line\)": [^,]*' "$TMP/plan.json" | tr '\n' ' ')" \
	'"name": "vfs_read" "mech": "fentry/fexit" "attached": true "line": 1 "name": "kp" "mech": "kprobe/kretprobe" "attached": true "line": 2 "name": "fn" "mech": "fentry/fexit" "attached": true "line": 3 '
finish
