#!/usr/bin/env bash
# The first real job: probes.d/kvm.conf on the KVM workload (tools/kvm-msr-exit).
# Ground truth is the workload's own count of KVM_RUN ioctls per vCPU.
. "$(dirname "$0")/lib.sh"
need_root
[ -c /dev/kvm ] || skip_vm_covers test_kvm "no /dev/kvm on this host"

vcpus=3
"$IPROF" -q --probes "$SRC/probes.d/kvm.conf" -f seed -o "$TMP/rep" \
	-- "$BUILD/kvm-msr-exit" --vcpus $vcpus --iterations 400 \
	>"$TMP/truth" 2>"$TMP/err"
rc=$?
[ $rc = 77 ] && skip_vm_covers test_kvm "the KVM workload cannot run here: $(grep -m1 SKIP "$TMP/err")"
cat "$TMP/rep"
# 0 when every timer was attached, 3 when some were not (listed in the report)
if grep -q '^# not attached: ' "$TMP/rep"; then
	check "iprof exit status (some timers not attached)" "$rc" 3
else
	check "iprof exit status" "$rc" 0
fi

runs=$(truth total.kvm_run "$TMP/truth")
[ -n "$runs" ] || bad "the workload printed no total.kvm_run"
check "KVM_RUN count = the workload's KVM_RUN calls" \
	"$(seed_field KVM_RUN count "$TMP/rep")" "$runs"
check "KVM_RUN thread_count = vCPUs" \
	"$(seed_field KVM_RUN thread_count "$TMP/rep")" "$vcpus"
check "guest_fpu nested under KVM_RUN, once per KVM_RUN" \
	"$(seed_field 'KVM_RUN>guest_fpu' count "$TMP/rep")" "$runs"
check "guest_fpu thread_count" \
	"$(seed_field 'KVM_RUN>guest_fpu' thread_count "$TMP/rep")" "$vcpus"
check "no guest_fpu outside KVM_RUN" "$(seed_field guest_fpu count "$TMP/rep")" ""
# run_guest's tracepoints (kvm_entry/kvm_exit) never fire on a nested,
# paravirtual host: the report must list it as attached with 0 hits.
if [ "$(seed_field 'KVM_RUN>guest_fpu>run_guest' count "$TMP/rep")" = "" ]; then
	grep -q '^# no hits: run_guest' "$TMP/rep" &&
		ok "run_guest listed with 0 hits" || bad "run_guest not listed as 0 hits"
else
	ok "run_guest fired (bare-metal host)"
fi
check "loss line, no record lost ($(grep '^# lost' "$TMP/rep"))" \
	"$(lost_field "$TMP/rep" records)" 0
# kernel function timers: attached (fentry/kprobe) or listed once, in the
# report, with the reason: alone ("NAME: FILE:LINE: why") or with others
# refused alike ("K timers (A, B, ...): why")
funcs="kvm_arch_vcpu_ioctl_run kvm_vcpu_block kvm_mmu_page_fault kvm_arch_vcpu_load kvm_arch_vcpu_put kvm_sched_in kvm_sched_out"
for f in $funcs; do
	if grep -q "^# not attached: $f: .*kvm.conf:[0-9]*: " "$TMP/rep" ||
		grep -Eq "^# not attached: [0-9]+ timers \((.*, )?$f(, .*)?\): " "$TMP/rep"; then
		ok "$f not attached, with a reason"
	elif grep -q "$f" "$TMP/rep"; then
		ok "$f attached"
	else
		bad "$f neither in the report nor listed as not attached"
	fi
done
grep -q 'cannot attach\|not attached' "$TMP/err" &&
	bad "not-attached timers also on stderr: $(head -3 "$TMP/err")" ||
	ok "not-attached timers listed once (in the report)"
# where the kernel refuses fentry and has no kprobes (our build hosts):
# the seven share one line
k=$("$IPROF" --dry-run -f json --probes "$SRC/probes.d/kvm.conf" | jq -c '[.kernel.fentry, .kernel.kprobes]')
if [ "$k" = "[false,false]" ]; then
	# each name with its probe's file:line:col (FUNC after "func:")
	named=
	for f in $funcs; do
		n=$(grep -n "^func:$f\$" "$SRC/probes.d/kvm.conf" | cut -d: -f1)
		named="${named:+$named, }$f at $SRC/probes.d/kvm.conf:$n:6"
	done
	check "one line for the seven refused alike" \
		"$(grep '^# not attached: ' "$TMP/rep")" \
		"# not attached: 7 timers ($named): fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)"
fi
finish
