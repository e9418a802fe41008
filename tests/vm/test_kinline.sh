#!/usr/bin/env bash
# A kernel function the compiler inlined into vmlinux (issue 24): 6.1's
# task_tgid_vnr (include/linux/sched.h, static inline) has no symbol; it
# is inlined into kill(2)'s prepare_kill_siginfo (itself inlined into
# __x64_sys_kill) and 18 other callers, and iprof times it with kprobes at
# each instance's entry and exits, read from the kernel image's debug
# file (Debian's linux-image-RELEASE-dbg vmlinux; tests/vm/run.sh puts a
# reduced copy with the same build ID at /usr/lib/debug/boot/vmlinux-RELEASE).
# Instances in functions kprobe events refuse (notrace: 6.1's
# __x64_sys_getppid) are refused and say so.  Ground truth: a shell's
# loop of `kill -0 $$`, one kill(2) each, each with exactly one
# task_tgid_vnr in it; with --no-inline the timer is not attached.
. "$(dirname "$0")/../e2e/lib.sh"
need_root
command -v jq >/dev/null || { bad "no jq in the VM (tests/vm/run.sh copies it)"; finish; }
dbg=/usr/lib/debug/boot/vmlinux-$(uname -r)
[ -r "$dbg" ] || { bad "no $dbg (tests/vm/run.sh fetches it from the kernel's -dbg package)"; finish; }
grep -qw task_tgid_vnr /proc/kallsyms &&
	skip "task_tgid_vnr is a function of its own in $(uname -r), not inlined"

n=200
span='span kill = tracepoint:syscalls:sys_enter_kill -> tracepoint:syscalls:sys_exit_kill'
work=(bash -c "i=0; while [ \$i -lt \$1 ]; do kill -0 \$\$; i=\$((i + 1)); done" kills)

# the plan: instances in vmlinux, one in kill(2)'s, named SYM+OFF
"$IPROF" --dry-run -e func:task_tgid_vnr >"$TMP/plan" 2>&1
sed 's/^/dry-run: /' "$TMP/plan"
grep -q 'task_tgid_vnr.*inlined only, in vmlinux' "$TMP/plan" &&
	ok "dry-run: timed where inlined, in vmlinux" || bad "dry-run: no 'inlined only, in vmlinux'"
grep -qE 'in prepare_kill_siginfo at __x64_sys_kill\+0x[0-9a-f]+ \(signal\.c:[0-9]+\)(;|\))' "$TMP/plan" &&
	ok "dry-run: the instance in kill(2)'s prepare_kill_siginfo, at __x64_sys_kill+OFF" ||
	bad "dry-run: no timed instance at __x64_sys_kill+OFF"
for f in __x64_sys_getppid __x64_sys_getpid; do
	if [ -r /sys/kernel/tracing/available_filter_functions ] &&
		! grep -qx "$f" /sys/kernel/tracing/available_filter_functions; then
		grep -q "its probes' function $f is notrace" "$TMP/plan" &&
			ok "dry-run: the instance at $f+OFF refused: notrace" ||
			bad "dry-run: the instance at $f+OFF (notrace here) not refused"
	fi
done

t0=$(date +%s)
"$IPROF" -f json -o "$TMP/r.json" -e "$span" -e func:task_tgid_vnr -- \
	"${work[@]}" $n >"$TMP/out" 2>"$TMP/err"
rc=$?
echo "--- iprof exit $rc, $(( $(date +%s) - t0 )) s"
sed 's/^/stderr: /' "$TMP/err"
cat "$TMP/out"
check "exit status" "$rc" 0
jq -e .tree "$TMP/r.json" >/dev/null || { bad "no JSON report"; finish; }
jq -r '.probes[] | "probe \(.name): attached=\(.attached) mech=\(.mech // "-") \(.reason // "")"' "$TMP/r.json"
check "task_tgid_vnr attached" \
	"$(jq -r '.probes[] | select(.name == "task_tgid_vnr") | .attached' "$TMP/r.json")" true
check "task_tgid_vnr timed where inlined" \
	"$(jq -r '.probes[] | select(.name == "task_tgid_vnr") | .mech' "$TMP/r.json")" "kprobe (inlined)"
check "kill spans = the loop's kills" "$(jnode "$TMP/r.json" kill count)" $n
check "one task_tgid_vnr in each kill" \
	"$(jnode "$TMP/r.json" kill\>task_tgid_vnr count)" $n
within "task_tgid_vnr shorter than its kill (total ns)" \
	"$(jnode "$TMP/r.json" kill\>task_tgid_vnr total_ns)" 1 \
	"$(jnode "$TMP/r.json" kill total_ns)"

# --no-inline: no symbol, not looked up in DWARF: not attached, and why
"$IPROF" -q --no-inline -f json -o "$TMP/n.json" -e "$span" -e func:task_tgid_vnr -- \
	"${work[@]}" $n >/dev/null 2>"$TMP/nerr"
rc=$?
check "--no-inline: exit status (a timer not attached)" "$rc" 3
check "--no-inline: task_tgid_vnr not attached" \
	"$(jq -r '.probes[] | select(.name == "task_tgid_vnr") | .attached' "$TMP/n.json")" false
check "--no-inline: the spans still counted" "$(jnode "$TMP/n.json" kill count)" $n
finish
