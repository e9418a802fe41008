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
check "iprof exit status" "$rc" 0
cat "$TMP/rep"

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
grep -q '^# lost: records=0 ' "$TMP/rep" && ok "loss line, no loss" ||
	bad "loss line missing or records lost: $(grep '^# lost' "$TMP/rep")"
# kernel function timers: attached (fentry/kprobe) or skipped with a reason each
for f in kvm_arch_vcpu_ioctl_run kvm_vcpu_block kvm_mmu_page_fault \
	kvm_arch_vcpu_load kvm_arch_vcpu_put kvm_sched_in kvm_sched_out; do
	if grep -q "cannot attach $f: .*kvm.conf:[0-9]*: " "$TMP/err"; then
		ok "$f skipped with a reason: $(grep -m1 "cannot attach $f: " "$TMP/err" | cut -c1-120)"
	elif grep -q "^# not attached: $f" "$TMP/rep"; then
		bad "$f not attached but no skip message on stderr"
	else
		ok "$f attached"
	fi
done
finish
