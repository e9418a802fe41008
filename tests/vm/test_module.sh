#!/usr/bin/env bash
# Kernel function timers on a module's functions (issue 3, item 1): the
# cpuid module (arch/x86/kernel/cpuid.c, from the kernel package), loaded
# here.  Ground truth: busybox dd reading /dev/cpu/0/cpuid N times with
# bs=16 makes N read(2) calls, each one vfs_read() -> cpuid_read() call
# (the module's read handler; the file offset is the CPUID leaf).
. "$(dirname "$0")/../e2e/lib.sh"
need_root

M=/iprof/modules/cpuid.ko
[ -f "$M" ] || { bad "no $M in the initramfs (tests/vm/run.sh vm_modules)"; finish; }
insmod "$M" && ok "insmod cpuid" || bad "insmod cpuid"
[ -r /sys/kernel/btf/cpuid ] && ok "module BTF (/sys/kernel/btf/cpuid)" ||
	bad "no module BTF"
grep -q ' cpuid_read	\[cpuid\]$' /proc/kallsyms && ok "cpuid_read [cpuid] in kallsyms" ||
	bad "cpuid_read [cpuid] not in kallsyms"
[ -c /dev/cpu/0/cpuid ] && ok "/dev/cpu/0/cpuid" || bad "no /dev/cpu/0/cpuid"

N=40
for kind in fentry kprobe func; do
	"$IPROF" -f seed -o "$TMP/$kind.rep" -e "$kind:vfs_read" -e "$kind:cpuid_read" -- \
		dd if=/dev/cpu/0/cpuid of=/dev/null bs=16 count=$N 2>"$TMP/$kind.err"
	rc=$?
	echo "--- $kind"
	sed 's/^/stderr: /' "$TMP/$kind.err"
	cat "$TMP/$kind.rep"
	check "$kind: iprof exit status" "$rc" 0
	check "$kind: vfs_read>cpuid_read count" \
		"$(seed_field 'vfs_read>cpuid_read' count "$TMP/$kind.rep")" $N
	check "$kind: cpuid_read outside vfs_read" "$(seed_field cpuid_read count "$TMP/$kind.rep")" ""
	check "$kind: no record lost ($(grep '^# lost' "$TMP/$kind.rep"))" \
		"$(lost_field "$TMP/$kind.rep" records)" 0
done
# the mechanism func: chose, from the plan
"$IPROF" --dry-run -e 'func:cpuid_read' >"$TMP/plan" 2>&1
cat "$TMP/plan"

# a glob over the module's functions: one timer each, named by the function
"$IPROF" -f seed -o "$TMP/glob.rep" -e 'fentry:cpuid_*' -- \
	dd if=/dev/cpu/0/cpuid of=/dev/null bs=16 count=$N 2>"$TMP/glob.err"
check "glob: iprof exit status" "$?" 0
sed 's/^/stderr: /' "$TMP/glob.err"
cat "$TMP/glob.rep"
check "glob: cpuid_read count" "$(seed_field cpuid_read count "$TMP/glob.rep")" $N
check "glob: cpuid_open count" "$(seed_field cpuid_open count "$TMP/glob.rep")" 1
finish
