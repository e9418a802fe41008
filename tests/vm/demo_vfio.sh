#!/usr/bin/env bash
# Not a test: the VFIO job for tools/demo.sh vfio (tests/vm/run.sh
# vm/demo_vfio).  probes.d/vfio.conf on vfio-dma with the VM's NVMe
# controller bound to vfio-pci; the workload's own counts and iprof's table
# are printed between "== demo:" marker lines, which tools/demo.sh cuts out
# of the console log.
. "$(dirname "$0")/../e2e/lib.sh"
need_root
. "$(dirname "$0")/vfio.sh"
bind_vfio || exit 1
args="--device $VFIO_BDF --opens 4 --maps 4"
echo "== demo: iprof --probes probes.d/vfio.conf -- vfio-dma $args"
"$IPROF" -q --probes "$SRC/probes.d/vfio.conf" -o "$TMP/report" -- \
	"$BUILD/vfio-dma" $args >"$TMP/truth"
rc=$?
echo "== demo: the workload's own counts:"
cat "$TMP/truth"
echo "== demo: iprof's report:"
cat "$TMP/report"
echo "== demo: end (iprof exit $rc)"
# 3: traced, but some timers of vfio.conf are not in this kernel
[ $rc = 0 ] || [ $rc = 3 ]
