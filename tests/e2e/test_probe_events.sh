#!/usr/bin/env bash
# A "tracepoint" that is a uprobe event (uprobe_events, perf probe) is
# refused up front, in --dry-run too, with a message saying what it is;
# the run traces the other timers (exact counts) and exits 3.  A kprobe
# event the same way where this kernel has kprobes.
. "$(dirname "$0")/lib.sh"
need_root

TR=/sys/kernel/tracing
[ -e $TR/uprobe_events ] || TR=/sys/kernel/debug/tracing
[ -w $TR/uprobe_events ] || skip "no writable uprobe_events (CONFIG_UPROBE_EVENTS off)"
W=$BUILD/uprobe-workload
G=iprof_e2e_$$
# where the event is does not matter (it is never enabled): outer's
# offset where nm(1) is there, else a page into the file (the VM)
off=0x$(nm "$W" 2>/dev/null | awk '$3 == "outer" { print $1 }')
[ "$off" = 0x ] && off=0x1000
cleanup() {
	echo "-:$G/uev" >>$TR/uprobe_events 2>/dev/null
	[ -w $TR/kprobe_events ] && echo "-:$G/kev" >>$TR/kprobe_events 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
echo "p:$G/uev $W:$off" >>$TR/uprobe_events || skip "cannot define a uprobe event"

span="span s = tracepoint:$G:uev -> tracepoint:syscalls:sys_exit_read"
"$IPROF" --dry-run -e "$span" >"$TMP/dry" 2>&1
check "--dry-run: bad input" "$?" 2
cat "$TMP/dry"
check "--dry-run says it is a uprobe event" \
	"$(grep -c "$G:uev is not a kernel tracepoint but a uprobe event ('p:$G/uev $W:0x0*${off#0x}' in $TR/uprobe_events" "$TMP/dry")" 1

"$IPROF" -q -f json -o "$TMP/rep.json" -e "$span" -e "uprobe:$W:outer" \
	-- "$W" --calls 4 >"$TMP/truth" 2>"$TMP/err"
check "run: some timers not attached" "$?" 3
check "run: no bare Invalid argument" "$(grep -c 'Invalid argument' "$TMP/err" "$TMP/rep.json" | awk -F: '{ s += $2 } END { print s }')" 0
check "run: the span's error" "$(jq -r '.probes[] | select(.name == "s") | .error' "$TMP/rep.json" | grep -c 'is not a kernel tracepoint but a uprobe event')" 1
check "run: outer traced" "$(jnode "$TMP/rep.json" outer count)" "$(truth outer.count "$TMP/truth")"

if [ -w $TR/kprobe_events ] && echo "p:$G/kev vfs_read" >>$TR/kprobe_events 2>/dev/null; then
	"$IPROF" --dry-run -e "span k = tracepoint:$G:kev -> tracepoint:syscalls:sys_exit_read" >"$TMP/kdry" 2>&1
	check "kprobe event: --dry-run: bad input" "$?" 2
	check "kprobe event: says so" "$(grep -c "$G:kev is not a kernel tracepoint but a kprobe event" "$TMP/kdry")" 1
else
	echo "(no kprobe events on this kernel: the kprobe case is in the unit tests, tests/unit/test_plan.c)"
fi
finish
