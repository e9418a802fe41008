#!/usr/bin/env bash
# The seed's second job, whole (issue 14): probes.d/vfio.conf, unchanged, on
# the VFIO workload (tools/vfio-dma) inside the VM, whose emulated NVMe
# controller (FLR-capable) sits behind an emulated Intel IOMMU and is bound
# to vfio-pci here.  Ground truth: the workload's own counts.
#   vfio_group_ioctl_get_device_fd    = its device opens, each with an FLR
#                                       (pcie_flr) below it
#   pcie_flr at the top               = the closes (vfio-pci resets again)
#   vfio_iommu_type1_map_dma          = its DMA maps, pinning below it
#   vfio_iommu_type1_unmap_dma        = its DMA unmaps, vfio_unmap_unpin below
# With func: as written (fentry here) and with a kprobe: copy.
# vm-timeout: 480 (several iprof runs of kernel timers: over 120 s under TCG on a loaded host)
. "$(dirname "$0")/../e2e/lib.sh"
need_root
. "$(dirname "$0")/vfio.sh"
bind_vfio && ok "$VFIO_BDF bound to vfio-pci" || { bad "VFIO in the VM: $(bind_vfio 2>&1)"; finish; }
command -v jq >/dev/null || { bad "no jq in the VM (tests/vm/run.sh copies it)"; finish; }

conf=$SRC/probes.d/vfio.conf
opens=3 maps=4
# under FILE ROOT NAME: the calls of timer NAME anywhere below root ROOT
under() {
	jq -r --arg r "$2" --arg n "$3" \
		'[.tree[] | select(.name == $r) | .children | .. | objects | select(.name? == $n) | .count] | add // 0' "$1"
}

run() {
	local name=$1 file=$2 f=$TMP/$1.json t=$TMP/$1.truth rc n
	"$IPROF" -f json -o "$f" --probes "$file" -- \
		"$BUILD/vfio-dma" --device "$VFIO_BDF" --opens $opens --maps $maps \
		--size 1048576 >"$t" 2>"$TMP/$name.err"
	rc=$?
	echo "--- $name: iprof exit $rc"
	sed 's/^/stderr: /' "$TMP/$name.err"
	cat "$t"
	jq -e .tree "$f" >/dev/null || { bad "$name: no JSON report"; return; }
	jq -r 'def w: .[] | ("  " * (.depth - 1) + .name + "  count=" +
		(.count | tostring) + " total_ns=" + (.total_ns | tostring)),
		(.children | w); .tree | w' "$f"
	jq -r '.probes[] | select(.attached | not) | "not attached: \(.name): \(.reason)"' "$f"
	# 3: traced, with timers of vfio.conf this kernel does not have
	n=$(jq '[.probes[] | select(.attached | not)] | length' "$f")
	if [ "$n" = 0 ]; then check "$name: exit status" "$rc" 0; else check "$name: exit status ($n not attached)" "$rc" 3; fi
	check "$name: the workload's opens" "$(truth device_opens "$t")" $opens
	check "$name: the workload's maps" "$(truth dma_maps "$t")" $maps
	check "$name: device-fd ioctl = opens" "$(jnode "$f" vfio_group_ioctl_get_device_fd count)" $opens
	# vfio_df_open (6.6+) was vfio_device_open, which 6.1.y inlines into
	# the group ioctl: timed there by kprobes from the module's debug
	# file (tests/vm/run.sh puts Debian's in the VM), with its FLR
	local dbg=/usr/lib/debug/lib/modules/$(uname -r)
	if [ "$(jq -r '.probes[] | select(.name == "vfio_df_open") | .attached' "$f")" = true ]; then
		check "$name: vfio_df_open under it" \
			"$(jnode "$f" vfio_group_ioctl_get_device_fd\>vfio_df_open count)" $opens
		check "$name: an FLR under each vfio_df_open" \
			"$(jnode "$f" vfio_group_ioctl_get_device_fd\>vfio_df_open\>pcie_flr count)" $opens
		if ! grep -qwE 'vfio_df_open|vfio_device_open' /proc/kallsyms; then
			check "$name: vfio_df_open timed where inlined" \
				"$(jq -r '.probes[] | select(.name == "vfio_df_open") | .mech' "$f")" "kprobe (inlined)"
		fi
	elif [ -d "$dbg" ]; then
		bad "$name: vfio_df_open not attached although $dbg has debug files: $(jq -r '.probes[] | select(.name == "vfio_df_open") | .reason' "$f")"
	else
		bad "$name: no debug files in $dbg (tests/vm/run.sh fetches them from the kernel's -dbg package)"
	fi
	# vfio_pin_map_dma: inlined into vfio_dma_do_map (itself inlined into
	# the ioctl) on 6.1; its loop pins each map
	check "$name: vfio_pin_map_dma attached ($(jq -r '.probes[] | select(.name == "vfio_pin_map_dma") | .mech // .reason' "$f"))" \
		"$(jq -r '.probes[] | select(.name == "vfio_pin_map_dma") | .attached' "$f")" true
	check "$name: vfio_pin_map_dma under each map" \
		"$(jnode "$f" vfio_iommu_type1_map_dma\>vfio_pin_map_dma count)" $maps
	within "$name: vfio_pin_pages_remote under vfio_pin_map_dma" \
		"$(jnode "$f" vfio_iommu_type1_map_dma\>vfio_pin_map_dma\>vfio_pin_pages_remote count)" $maps 1e18
	check "$name: an FLR under each open" "$(under "$f" vfio_group_ioctl_get_device_fd pcie_flr)" $opens
	within "$name: pci_dev_wait under the FLRs" "$(under "$f" vfio_group_ioctl_get_device_fd pci_dev_wait)" $opens 1e18
	check "$name: an FLR at each close (top level)" "$(jnode "$f" pcie_flr count)" $opens
	check "$name: map ioctl = maps" "$(jnode "$f" vfio_iommu_type1_map_dma count)" $maps
	within "$name: vfio_pin_pages_remote under the maps" \
		"$(under "$f" vfio_iommu_type1_map_dma vfio_pin_pages_remote)" $maps 1e18
	within "$name: vaddr_get_pfns under the maps" \
		"$(under "$f" vfio_iommu_type1_map_dma vaddr_get_pfns)" 1 1e18
	check "$name: unmap ioctl = unmaps" "$(jnode "$f" vfio_iommu_type1_unmap_dma count)" $maps
	check "$name: vfio_unmap_unpin under each unmap" \
		"$(jnode "$f" vfio_iommu_type1_unmap_dma\>vfio_unmap_unpin count)" $maps
	# vfio_sync_unpin exists only as a compiler clone on 6.1: traced
	# under its name all the same
	check "$name: vfio_sync_unpin attached (clone: $(jq -r '.probes[] | select(.name == "vfio_sync_unpin") | .where' "$f"))" \
		"$(jq -r '.probes[] | select(.name == "vfio_sync_unpin") | .attached' "$f")" true
	check "$name: nothing lost" \
		"$(jq -c '[.loss | to_entries[] | select(.value != 0) | .key]' "$f")" "[]"
	check "$name: nothing incomplete" "$(jq -r .incomplete.timers "$f")" 0
}

# --dry-run says where they are inlined
"$IPROF" --dry-run --probes "$conf" >"$TMP/dry" 2>&1
grep -E '^vfio_pin_map_dma|^vfio_df_open' "$TMP/dry"
grep '^vfio_pin_map_dma ' "$TMP/dry" | grep -q '(inlined only, in module vfio_iommu_type1) (inlined 1 time, 1 timed, at [0-9]* exits\{0,1\}: in vfio_dma_do_map at vfio_iommu_type1_ioctl+0x[0-9a-f]* (vfio_iommu_type1.c:[0-9]*))' &&
	ok "--dry-run: vfio_pin_map_dma inlined in vfio_dma_do_map, at SYM+OFF" ||
	bad "--dry-run: vfio_pin_map_dma's line: $(grep '^vfio_pin_map_dma ' "$TMP/dry")"

# compensated (the VM tier's init turns it off for speed): every mechanism
# of the job calibrated, none "unknown", its inlined functions' kprobes
# too (issue 45)
IPROF_NO_COMPENSATE=0 run func "$conf"
jq -c '.calibration' "$TMP/func.json"
check "func: every mechanism calibrated" \
	"$(jq -c '[.calibration.mechanisms[] | select(.measured != true) | .mech + ": " + (.why // "")]' "$TMP/func.json")" "[]"
within "func: calibrated mechanisms" \
	"$(jq -r '.calibration.mechanisms | length' "$TMP/func.json")" 2 4
check "func: the inlined vfio_pin_map_dma's class (kprobes) calibrated" \
	"$(jq -r '[.calibration.mechanisms[] | select(.mech == "kprobe/kretprobe") | .measured] | tostring' "$TMP/func.json")" \
	"[true]"
sed 's/^func:/kprobe:/' "$conf" >"$TMP/vfio-kprobe.conf"
run kprobe "$TMP/vfio-kprobe.conf"

# put_pfn: a symbol of vfio_iommu_type1, and inlined in it too (into
# vfio_unpin_pages_remote, which unpins each page at the unmaps): timed
# at both, every pinned page's unpin is counted; out of line only
# (--no-inline), those inlined calls are missed
printf '%s\n' 'func:vfio_iommu_type1_ioctl as unmap if cmd == 0x3b72' \
	'func:put_pfn' >"$TMP/put.conf"
for mode in inline no-inline; do
	o=()
	[ $mode = inline ] || o=(--no-inline)
	"$IPROF" -q "${o[@]}" -f json -o "$TMP/put-$mode.json" --probes "$TMP/put.conf" -- \
		"$BUILD/vfio-dma" --device "$VFIO_BDF" --opens 1 --maps $maps \
		--size 1048576 >"$TMP/put-$mode.truth" 2>"$TMP/put-$mode.err"
	echo "--- put_pfn ($mode): exit $?; $(jq -c '.probes[] | select(.name == "put_pfn") | {mech, inlined, inlined_not_timed, inlined_where}' "$TMP/put-$mode.json")"
	jq -r 'def w: .[] | ("  " * (.depth - 1) + .name + "  count=" + (.count | tostring)), (.children | w); .tree | w' "$TMP/put-$mode.json"
done
pages=$(truth pages_pinned "$TMP/put-inline.truth")
check "put_pfn: each pinned page unpinned under the unmaps (out of line and inlined)" \
	"$(under "$TMP/put-inline.json" unmap put_pfn)" "$pages"
within "put_pfn --no-inline: fewer (the inlined calls missed)" \
	"$(under "$TMP/put-no-inline.json" unmap put_pfn)" 0 $((pages - 1))
finish
