#!/usr/bin/env bash
# Span sides of every kind (issue 46 item 1), and the calls each stop of
# a span of several ended (item 4), against tools/usdt-workload's
# own counts: a USDT start with a user function's entry as the stop
# (uprobe:), a function's entry filtered on its argument with another
# function's return as the stop (uretprobe:), a function's entry with a
# USDT stop; a function timer on the same function beside them, nested
# where its call is inside the span; kernel functions, globs, a function
# that is not there and a condition on a return refused with
# file:line:col (exit 2).
. "$(dirname "$0")/lib.sh"
need_root
W=$BUILD/usdt-workload
[ -x "$W" ] || skip "no $W (sys/sdt.h missing at build time: systemtap-sdt-dev)"

N=30
run() { # NAME SPEC...: iprof -f seed over the workload into $TMP/NAME
	local n=$1
	shift
	"$IPROF" -q -f seed -o "$TMP/$n" "$@" -- "$W" --calls $N --spin-us 100 \
		>"$TMP/$n.truth" 2>"$TMP/$n.err"
	check "$n: iprof exit status" "$?" 0
	cat "$TMP/$n" "$TMP/$n.err"
	check "$n: workload requests" "$(truth req.count "$TMP/$n.truth")" $N
	check "$n: no orphan stops, nothing unwound" \
		"$(grep -c 'orphan\|unwound' "$TMP/$n" "$TMP/$n.err" | awk -F: '{ s += $2 } END { print s }')" 0
}

# req__start -> work's entry: the span ends where work starts, work
# (a function timer on the same entry) outside it
run s -e "span s = usdt:$W:req__start -> uprobe:$W:work" -e "uprobe:$W:work"
check "s count" "$(seed_field s count "$TMP/s")" $N
check "work count (after s)" "$(seed_field work count "$TMP/s")" $N
check "nothing under s" "$(seed_field 's>work' count "$TMP/s")" ""

# kind_hit(1)'s entry -> work's return: work nested in the kind 1 spans
run t -e "span t = uprobe:$W:kind_hit if arg0:s32 == 1 -> uretprobe:$W:work" \
	-e "uprobe:$W:work"
k1=$(truth kind1.count "$TMP/t.truth")
check "workload: kind 1 is a third" "$k1" $((N / 3))
check "t count (kind 1)" "$(seed_field t count "$TMP/t")" "$k1"
check "t>work count" "$(seed_field 't>work' count "$TMP/t")" "$k1"
check "work outside t (kinds 0, 2)" "$(seed_field work count "$TMP/t")" $((N - k1))

check "t: --dry-run's mechanism" "$("$IPROF" --dry-run -f json -e "span t = uprobe:$W:kind_hit -> uretprobe:$W:work" -- true | jq -r '.probes[0].mech')" uprobe

# kind_hit's entry -> req__done: every request, work inside
run u -e "span u = uprobe:$W:kind_hit -> usdt:$W:req__done" -e "uprobe:$W:work"
check "u count" "$(seed_field u count "$TMP/u")" $N
check "u>work count" "$(seed_field 'u>work' count "$TMP/u")" $N
check "no work outside u" "$(seed_field work count "$TMP/u")" ""

# a tracepoint start, a USDT stop: the workload's nanosleeps while it
# waits for the semaphore open one span (a span with a tracepoint side
# does not nest in itself), the first request's start closes it; a USDT
# start (the last request's done), a tracepoint stop (its exit_group)
"$IPROF" -q -f json -o "$TMP/tp.json" \
	-e "span z = tp:syscalls:sys_exit_clock_nanosleep -> usdt:$W:req__start" \
	-e "span q = usdt:$W:req__done if arg0 == $((N - 1)) -> tp:syscalls:sys_enter_exit_group" \
	-- "$W" --calls $N --wait-sema 100 --settle-ms 10 >/dev/null 2>"$TMP/tp.err"
check "tp: iprof exit status" "$?" 0
check "tp -> usdt, usdt -> tp: counts, nothing left open" \
	"$(jq -c '[.tree[] | [.name, .count, .exited, .incomplete]]' "$TMP/tp.json")" \
	'[["z",1,0,0],["q",1,0,0]]'

# per-stop counts (issue 46 item 4): a span of two stops, the guarded
# probe ending requests 0..11, req__done the rest; named by the kind, each
# node's own split, and the summary's line over all of them
"$IPROF" -q -f json -o "$TMP/alt.json" \
	-e "span alt = usdt:$W:req__start -> usdt:$W:guarded if arg0 < 12 | usdt:$W:req__done name arg1" \
	-- "$W" --calls $N --spin-us 10 >/dev/null 2>"$TMP/alt.err"
check "alt: iprof exit status" "$?" 0
check "alt: per kind, [guarded, req__done]" \
	"$(jq -cS '[.tree[] | {(.name): [.stops[].count]}] | add' "$TMP/alt.json")" \
	'{"alt(0)":[4,6],"alt(1)":[4,6],"alt(2)":[4,6]}'
check "alt: the stops named as written" \
	"$(jq -r '.tree[0].stops | map(.stop | sub(".*:"; "")) | join(",")' "$TMP/alt.json")" \
	"guarded if arg0 < 12,req__done"
"$IPROF" -q -f seed -o "$TMP/alt.seed" \
	-e "span alt = usdt:$W:req__start -> usdt:$W:guarded if arg0 < 12 | usdt:$W:req__done" \
	-- "$W" --calls $N --spin-us 10 >/dev/null 2>&1
check "alt: summary line" "$(grep '^# stops: alt:' "$TMP/alt.seed" | sed "s|$W|W|g")" \
	"# stops: alt: 12 at usdt:W:guarded if arg0 < 12, 18 at usdt:W:req__done"
check "alt: one stop, no stops line" "$(grep -c '^# stops:' "$TMP/u")" 0

# refusals: exit 2, where and why
refused() { # NAME WANT SPEC: exit 2 and WANT in the message
	"$IPROF" -q -e "$3" -- "$W" --calls 1 >/dev/null 2>"$TMP/$1.bad"
	check "$1: exit status" "$?" 2
	cat "$TMP/$1.bad"
	check "$1: message" "$(grep -cF -- "$2" "$TMP/$1.bad")" 1
}
refused kfunc "-e:1:$((${#W} + 30)): a kernel function is no span side here" \
	"span k = usdt:$W:req__start -> func:vfs_read"
refused glob "-e:1:$((${#W} + 18)): found 'w*', expected one function (a span's side is one point: no glob)" \
	"span g = uprobe:$W:w* -> usdt:$W:req__done"
refused nofunc "-e:1:$((${#W} + 18)): span n: no function 'nosuch' in $W" \
	"span n = uprobe:$W:nosuch -> usdt:$W:req__done"
refused retcond "-e:1:$((2 * ${#W} + 49)): arg0: a uretprobe side (work) fires after the return: its arguments are gone" \
	"span r = usdt:$W:req__start -> uretprobe:$W:work if arg0 == 1"
finish
