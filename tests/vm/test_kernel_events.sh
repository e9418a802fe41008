#!/usr/bin/env bash
# The e2e tests whose subject is the kernel's behaviour, on the VM tier's
# stock 6.1 kernel: --by comm across renames (tp_btf/task_rename;
# tests/e2e/test_rename.sh), uprobe and kprobe events refused as span
# tracepoints (kprobe_events exists here; tests/e2e/test_probe_events.sh),
# and a replaced binary traced through /proc/PID/map_files
# (tests/e2e/test_file.sh).  Each runs whole; this fails if one does.
. "$(dirname "$0")/../e2e/lib.sh"
need_root

for t in rename probe_events file; do
	echo "== tests/e2e/test_$t.sh"
	bash "$(dirname "$0")/../e2e/test_$t.sh"
	rc=$?
	[ $rc = 77 ] && skip "tests/e2e/test_$t.sh skipped"
	check "tests/e2e/test_$t.sh" $rc 0
done
finish
