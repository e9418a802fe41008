#!/usr/bin/env bash
# Not a test: the main job for tools/demo.sh on a host that cannot run it
# whole (tests/vm/run.sh vm/demo_kvm).  probes.d/kvm.conf on kvm-msr-exit
# in the VM's KVM; the workload's own counts and iprof's table are printed
# between "== demo:" marker lines, which tools/demo.sh cuts out of the
# console log.
. "$(dirname "$0")/../e2e/lib.sh"
need_root
. "$(dirname "$0")/kvm.sh"
load_kvm || exit 1
args="--vcpus 2 --iterations ${DEMO_ITERATIONS:-300}"
echo "== demo: iprof --probes probes.d/kvm.conf -- kvm-msr-exit $args"
"$IPROF" -q --probes "$SRC/probes.d/kvm.conf" -o "$TMP/report" -- \
	"$BUILD/kvm-msr-exit" $args >"$TMP/truth"
rc=$?
echo "== demo: the workload's own counts (total.*):"
grep '^total\.' "$TMP/truth"
echo "== demo: iprof's report:"
cat "$TMP/report"
echo "== demo: end (iprof exit $rc)"
exit $rc
