# VFIO inside the VM, sourced by test_vfio.sh and demo_vfio.sh.  The VM
# (tests/vm/run.sh) has an emulated Intel IOMMU (intel_iommu=on) and an
# emulated NVMe controller, which has an FLR.  bind_vfio loads the VFIO
# modules of the booted kernel's package (vm_modules), unbinds the NVMe
# function from its driver and binds it to vfio-pci (driver_override), and
# sets $VFIO_BDF.  Returns 1 with the reason on stderr when it cannot.
VFIO_BDF=""
bind_vfio() {
	local m d
	for m in irqbypass vfio vfio_virqfd vfio_iommu_type1 vfio-pci-core vfio-pci; do
		[ -f "/iprof/modules/$m.ko" ] ||
			{ echo "no /iprof/modules/$m.ko (tests/vm/run.sh vm_modules)" >&2; return 1; }
		grep -q "^${m//-/_} " /proc/modules && continue
		insmod "/iprof/modules/$m.ko" || { echo "insmod $m failed" >&2; return 1; }
	done
	# the NVMe function: class 0x010802 (mass storage, NVM, NVMe)
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/class")" = 0x010802 ] && VFIO_BDF=${d##*/} && break
	done
	[ -n "$VFIO_BDF" ] || { echo "no NVMe function (qemu -device nvme?)" >&2; return 1; }
	d=/sys/bus/pci/devices/$VFIO_BDF
	[ -e "$d/iommu_group" ] || { echo "$VFIO_BDF has no IOMMU group (intel_iommu=on?)" >&2; return 1; }
	echo vfio-pci >"$d/driver_override"
	[ -e "$d/driver" ] && echo "$VFIO_BDF" >"$d/driver/unbind"
	echo "$VFIO_BDF" >/sys/bus/pci/drivers_probe
	[ "$(basename "$(readlink "$d/driver")")" = vfio-pci ] ||
		{ echo "$VFIO_BDF did not bind to vfio-pci" >&2; return 1; }
	[ -c "/dev/vfio/$(basename "$(readlink "$d/iommu_group")")" ] ||
		{ echo "no /dev/vfio group node for $VFIO_BDF" >&2; return 1; }
}
