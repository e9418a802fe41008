# KVM inside the VM, sourced by test_kvm.sh and demo_kvm.sh: load_kvm loads
# irqbypass.ko, kvm.ko and kvm-amd.ko of the booted kernel's package (put in
# the initramfs by tests/vm/run.sh, vm_modules); TCG's -cpu max emulates AMD
# SVM with nested paging, so /dev/kvm then runs real guests.  Returns 1 with
# the reason on stderr when KVM cannot be had.
load_kvm() {
	local m
	for m in irqbypass kvm kvm-amd; do
		[ -f "/iprof/modules/$m.ko" ] ||
			{ echo "no /iprof/modules/$m.ko (tests/vm/run.sh vm_modules)" >&2; return 1; }
		# loaded already (test_vfio's VFIO takes irqbypass too, and
		# the VM runs its tests in any order: tests/run.sh's lanes)
		grep -q "^${m//-/_} " /proc/modules && continue
		insmod "/iprof/modules/$m.ko" || { echo "insmod $m failed" >&2; return 1; }
	done
	grep -qw svm /proc/cpuinfo || { echo "the VM's CPU has no SVM (qemu -cpu max?)" >&2; return 1; }
	[ -c /dev/kvm ] || { echo "no /dev/kvm after loading kvm-amd" >&2; return 1; }
}
