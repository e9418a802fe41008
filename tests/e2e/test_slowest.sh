#!/usr/bin/env bash
# --slowest K against tests/e2e/helpers/slowcall.c's own truth: 4 worker
# threads call handler() 150 times each; 2 calls of each thread get arg 7,
# whose child wait_for() sleeps (a length unique to the call, 20 ms steps: a
# loaded machine's preemptions of the others stay well below):
#  - live, --slowest 8: handler keeps exactly those 8 calls (tid, comm)
#    but for calls this loaded machine kept waiting (runnable, blocked)
#    for most of a time longer than a sleep (ranked by wall time, they
#    are slower: they push out the shortest sleeps),
#    each at least its sleep, with its own children wait_for (at least the
#    sleep) and prepare, one call each; its on-CPU, runnable and blocked
#    parts add up to its time, the sleep blocked; wait_for's node keeps
#    the same 8;
#  - recorded: iprof report --slowest 8 of the recording has the live JSON
#    report's tree; --slowest 3 keeps the first 3 of those 8;
#  - --fold-threads 2 keeps the same (shards merged), and so do --by tid
#    roots with [other];
#  - each kept call has its arguments (7 and its sleep) and its return
#    value (handler 701, wait_for 1), in the JSON, the table, the
#    recording's report and its Chrome timeline's slices;
#  - the table has a section per path; without --slowest no "slowest";
#  - -f chrome marks each kept call with an instant event at its slice's
#    start (recorded and live).
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh)"

W=$BUILD/e2e-slowcall
PROBES=(-e "uprobe:$W:handler" -e "uprobe:$W:prepare" -e "uprobe:$W:wait_for")
WL=(-- "$W" 4 150 2 20000)

"$IPROF" record -q -o "$TMP/a.rec" -f json --slowest 8 --report-output "$TMP/a.json" \
	"${PROBES[@]}" "${WL[@]}" >"$TMP/a.truth" 2>"$TMP/err"
check "record: exit status" "$?" 0
check "handler count" "$(jnode "$TMP/a.json" handler count)" "$(truth handler.count "$TMP/a.truth")"
check "slow calls made" "$(grep -c '^slow ' "$TMP/a.truth")" 8

# A call is ranked by its wall time: one that this loaded machine kept
# waiting (runnable or blocked) longer than a sleep call slept outranks
# it, rightly.  So the kept calls are the slow ones but for such calls,
# each of which waited most of its time, and they push out the shortest
# sleeps.  slowest PATH: its kept calls' array
slowest() {
	jq -c --arg p "$2" '[.tree[] | .. | objects | select(has("path")) |
		select((.path | join(">")) == $p)][0].slowest' "$1"
}
# waited FILE PATH: the kept calls that are no sleep call (arg 7)
waited() { slowest "$1" "$2" | jq '[.[] | select(.args[0] != 7)] | length'; }
# waited_bad FILE PATH: of those, the ones shorter than the shortest sleep
# (20 ms) or that did not wait for most (90%) of it
waited_bad() {
	slowest "$1" "$2" | jq '[.[] | select(.args[0] != 7) |
		select(.duration_ns < 20000000 or
		       (.runq_ns + .blocked_ns) * 10 < .duration_ns * 9)] | length'
}
# truth_top TRUTH N FMT: the N longest sleep calls of the truth, each as
# FMT (a sed replacement of \1 tid, \2 sleep_us, \3 comm), sorted
truth_top() {
	sed -n 's/^slow tid=\([0-9]*\) sleep_us=\([0-9]*\) comm=\(.*\)/\2 &/p' "$1" |
		sort -rn | head -n "$2" | cut -d' ' -f2- |
		sed "s/^slow tid=\([0-9]*\) sleep_us=\([0-9]*\) comm=\(.*\)/$3/" | sort
}
# kept7 FILE PATH: the kept sleep calls as "tid comm", sorted
kept7() {
	slowest "$1" "$2" | jq -r '.[] | select(.args[0] == 7) | "\(.tid) \(.comm)"' | sort
}
for p in handler 'handler>wait_for'; do
	w=$(waited "$TMP/a.json" "$p")
	check "$p: kept calls that are no sleep call waited most of their >= 20 ms ($w)" \
		"$(waited_bad "$TMP/a.json" "$p")" 0
	check "$p: kept calls are the slow ones (tid comm), the $((8 - w)) longest" \
		"$(kept7 "$TMP/a.json" "$p")" "$(truth_top "$TMP/a.truth" $((8 - w)) '\1 \3')"
done

# each kept sleep call: at least its own sleep, its child wait_for too,
# and its children are exactly wait_for then prepare (most time first),
# one call each, called by it (depth 1)
short=$(jq '[.tree[] | select(.path == ["handler"]) | .slowest[] |
	select(.args[0] == 7 and .raw_duration_ns < .args[1] * 1000)] | length' "$TMP/a.json")
check "each slow call kept with at least its sleep" "$short" 0
kids_bad=$(jq '[.tree[] | select(.path == ["handler"]) | .slowest[] |
	select(.args[0] == 7) |
	select(([.children[].name] != ["wait_for", "prepare"]) or
	       .children[0].raw_duration_ns < 20000000 or
	       .children[0].start_ns < .start_ns or
	       ([.children[].count] != [1, 1]) or
	       .children_more != 0 or (.children[1].children | length) != 0)] |
	length' "$TMP/a.json")
check "each kept call: children wait_for (>= 20 ms, most time first) and prepare" "$kids_bad" 0
# its parts: on-CPU + runnable + blocked is its time, and the sleep is
# blocked time
split_bad=$(jq '[.tree[] | select(.path == ["handler"]) | .slowest[] |
	select(.on_cpu_ns + .runq_ns + .blocked_ns != .duration_ns or
	       (.args[0] == 7 and .blocked_ns < .args[1] * 1000) or
	       .duration_ns > .raw_duration_ns)] | length' "$TMP/a.json")
check "each kept call: on-CPU + runq + blocked = its time, its sleep blocked" "$split_bad" 0
[ "$split_bad" = 0 ] || jq -c '[.tree[] | select(.path == ["handler"]) | .slowest[] |
	{args, duration_ns, raw_duration_ns, on_cpu_ns, runq_ns, blocked_ns}]' "$TMP/a.json"
# each kept sleep call's arguments and return value: handler(7, US)
# returned 701, wait_for(7, US) returned 1 (rdi, rsi: the workload's own)
vals() {
	jq -r --arg p "$2" '[.tree[] | .. | objects | select(has("path")) |
		select((.path | join(">")) == $p)][0].slowest[] |
		"\(.tid) \(.args[0]) \(.args[1]) \(.ret)"' "$1" | sort
}
w=$(waited "$TMP/a.json" handler)
check "handler: each kept call's args 7 US and return value" \
	"$(vals "$TMP/a.json" handler | grep ' 7 [0-9]* [0-9]*$')" \
	"$(truth_top "$TMP/a.truth" $((8 - w)) "\\1 7 \\2 $(truth handler.slow_ret "$TMP/a.truth")")"
w=$(waited "$TMP/a.json" 'handler>wait_for')
check "handler>wait_for: each kept call's args 7 US, returned 1" \
	"$(vals "$TMP/a.json" 'handler>wait_for' | grep ' 7 [0-9]* [0-9]*$')" \
	"$(truth_top "$TMP/a.truth" $((8 - w)) '\1 7 \2 1')"
check "each kept call: six arguments" \
	"$(jq '[.tree[0].slowest[] | select((.args | length) != 6)] | length' "$TMP/a.json")" 0
check "prepare keeps its 8 slowest" \
	"$(jq '[.tree[] | .children[] | select(.path == ["handler", "prepare"]) | .slowest[]] | length' "$TMP/a.json")" 8

# sharded folding: the shards' slowest merged are the run's
"$IPROF" -q -f json --fold-threads 2 --slowest 8 -o "$TMP/f.json" "${PROBES[@]}" \
	"${WL[@]}" >"$TMP/f.truth" 2>>"$TMP/err"
check "--fold-threads 2: exit status" "$?" 0
w=$(waited "$TMP/f.json" handler)
check "--fold-threads 2: kept calls that are no sleep call waited ($w)" \
	"$(waited_bad "$TMP/f.json" handler)" 0
check "--fold-threads 2: kept calls are the slow ones" "$(kept7 "$TMP/f.json" handler)" \
	"$(truth_top "$TMP/f.truth" $((8 - w)) '\1 \3')"

# the recording re-read: the same report; a smaller K keeps the first ones
"$IPROF" report -q -f json --slowest 8 "$TMP/a.rec" >"$TMP/b.json" 2>>"$TMP/err"
check "report --slowest 8: exit status" "$?" 0
if cmp -s <(jq .tree "$TMP/a.json") <(jq .tree "$TMP/b.json"); then
	ok "report of the recording: the live report's tree"
else
	bad "report of the recording: its tree differs from the live report's"
fi
"$IPROF" report -q -f json --slowest 3 "$TMP/a.rec" >"$TMP/c.json" 2>>"$TMP/err"
check "report --slowest 3: the first 3 of 8" \
	"$(jq -c '.tree[0].slowest | map(.start_ns)' "$TMP/c.json")" \
	"$(jq -c '.tree[0].slowest[:3] | map(.start_ns)' "$TMP/a.json")"
# the timeline: every handler slice has its call's arguments and return
# value; those with arg 7 are the slow calls (tid, sleep) and returned 701
"$IPROF" report -q -f chrome "$TMP/a.rec" >"$TMP/a.chrome" 2>>"$TMP/err"
check "chrome: every handler slice has args and ret" \
	"$(jq '[.traceEvents[] | select(.ph == "X" and .name == "handler" and
		(.args.args | length) == 6 and .args.ret != null)] | length' "$TMP/a.chrome")" \
	"$(truth handler.count "$TMP/a.truth")"
check "chrome: the arg-7 slices are the slow calls, returned 701" \
	"$(jq -r '.traceEvents[] | select(.ph == "X" and .name == "handler" and .args.args[0] == 7) |
		"\(.tid) 7 \(.args.args[1]) \(.args.ret)"' "$TMP/a.chrome" | sort)" \
	"$(truth_top "$TMP/a.truth" 8 "\\1 7 \\2 $(truth handler.slow_ret "$TMP/a.truth")")"
# the timeline marks the kept calls: an instant event "slowest #RANK
# handler" (cat slowest) per kept call, at the start of its slice on its
# thread, ranks 1..8 per path, the JSON's calls (tid, raw duration)
"$IPROF" report -q -f chrome --slowest 8 "$TMP/a.rec" >"$TMP/m.chrome" 2>>"$TMP/err"
check "chrome --slowest 8: exit status" "$?" 0
check "chrome: handler's marks ranked 1..8, named by rank" \
	"$(jq -c '[.traceEvents[] | select(.cat == "slowest" and .args.path == "handler")] |
		[(map(.args.slowest) | sort), (map(select(.ph != "i" or .name != "slowest #\(.args.slowest) handler")) | length)]' "$TMP/m.chrome")" \
	'[[1,2,3,4,5,6,7,8],0]'
check "chrome: each handler mark at the start of a handler slice of its thread" \
	"$(jq '[.traceEvents[] | select(.ph == "X" and .name == "handler") | "\(.tid) \(.ts)"] as $x |
		[.traceEvents[] | select(.cat == "slowest" and .args.path == "handler") |
		 select(("\(.tid) \(.ts)") as $k | $x | index($k) | not)] | length' "$TMP/m.chrome")" 0
check "chrome: the marks are the kept calls (tid, raw duration)" \
	"$(jq -r '.traceEvents[] | select(.cat == "slowest" and .args.path == "handler > wait_for") |
		"\(.tid) \(.args.raw_duration_ns)"' "$TMP/m.chrome" | sort)" \
	"$(slowest "$TMP/a.json" 'handler>wait_for' | jq -r '.[] | "\(.tid) \(.raw_duration_ns)"' | sort)"
check "chrome without --slowest: no marks" \
	"$(jq '[.traceEvents[] | select(.cat == "slowest")] | length' "$TMP/a.chrome")" 0
"$IPROF" -q -f chrome -o "$TMP/live.chrome" --slowest 2 "${PROBES[@]}" -- "$W" 2 20 1 20000 \
	>"$TMP/live.truth" 2>>"$TMP/err"
check "live -f chrome --slowest 2: 2 marks per path (3 paths)" \
	"$(jq -c '[.traceEvents[] | select(.cat == "slowest") | .args.path] | group_by(.) | map(length)' "$TMP/live.chrome")" \
	'[2,2,2]'
# --by tid --max-keys 1: threads beyond the first root go under [other];
# over the handler nodes of both, the 8 slowest are the run's
"$IPROF" report -q -f json --slowest 8 --by tid --max-keys 1 "$TMP/a.rec" >"$TMP/e.json" 2>>"$TMP/err"
check "--by tid --max-keys 1: the 8 slowest over its roots" \
	"$(jq -c '[.tree[].children[] | select(.path[1] == "handler") | .slowest[]] |
		sort_by(-.duration_ns) | .[:8] | map(.start_ns) | sort' "$TMP/e.json")" \
	"$(jq -c '.tree[0].slowest | map(.start_ns) | sort' "$TMP/a.json")"
"$IPROF" report -q --slowest 2 "$TMP/a.rec" >"$TMP/c.txt" 2>>"$TMP/err"
check "table: section header" "$(grep -c '^slowest calls (--slowest 2)' "$TMP/c.txt")" 1
check "table: a section per path" "$(grep -cx 'handler\|handler > wait_for\|handler > prepare' "$TMP/c.txt")" 3
check "table: 2 calls per path" "$(grep -c '^  [12]\. ' "$TMP/c.txt")" 6
check "table: each call's on-CPU, runq, blocked parts" \
	"$(grep -c '^  [12]\. .*  on-CPU [0-9.]*[mun]*s, runq [0-9.]*[mun]*s, blocked [0-9.]*[mun]*s  at +' "$TMP/c.txt")" 6
check "table: handler's paths inside, most time first" \
	"$(sed -n '/^handler$/,/^$/p' "$TMP/c.txt" | sed -n 's/^      \([a-z_]*\)  1 call .*/\1/p' | paste -sd' ')" \
	"wait_for prepare wait_for prepare"
# the table's arguments and return values are the JSON's (decimal below
# 2^20, as the workload's are)
"$IPROF" report -q --slowest 8 "$TMP/a.rec" >"$TMP/t8.txt" 2>>"$TMP/err"
check "table: handler's args and ret as the JSON's" \
	"$(sed -n '/^handler$/,/^$/p' "$TMP/t8.txt" |
		sed -n 's/.*tid \([0-9]*\) .*  args \([0-9]*\) \([0-9]*\) .*  ret \([0-9]*\)$/\1 \2 \3 \4/p' | sort)" \
	"$(vals "$TMP/a.json" handler)"
"$IPROF" report -q -f json "$TMP/a.rec" >"$TMP/d.json" 2>>"$TMP/err"
check "off: no slowest" "$(jq '[.. | objects | select(has("slowest"))] | length' "$TMP/d.json")" 0
check "no error output" "$(grep -v '^$' "$TMP/err" | head -3)" ""

# an int -1 returned in eax leaves rax's upper half 0: the table shows
# the hex and its reading as an int (a newcomer read "ret 0xffffffff")
printf '%s\n' '__attribute__((noinline)) int neg(volatile int x) { return x - 5; }' \
	'int main(void) { return neg(4) == -1 ? 0 : 1; }' >"$TMP/neg.c"
if cc -O2 -o "$TMP/neg" "$TMP/neg.c" 2>/dev/null; then
	"$IPROF" -q --slowest 1 -o "$TMP/neg.out" -e "uprobe:$TMP/neg:neg" -- "$TMP/neg" 2>>"$TMP/err"
	check "an int -1: exit status" "$?" 0
	check "an int -1: ret shown as the int it may be" \
		"$(grep -c '  args 4 .*  ret 0xffffffff (int -1)$' "$TMP/neg.out")" 1
else
	bad "cc cannot build the int -1 fixture"
fi

# a syscall span's arguments by the names its sys_enter format gives,
# only as many as the syscall takes (write: 3; all 6 were shown)
"$IPROF" -q --slowest 2 -o "$TMP/w.out" -e 'span w = tp:syscalls:sys_enter_write -> tp:syscalls:sys_exit_write' -- sh -c 'printf ab; printf abcd' >/dev/null 2>>"$TMP/err"
check "syscall span: exit status" "$?" 0
check "syscall span: write's 3 arguments by name, its return value" \
	"$(grep -o '  args fd=1 buf=0x[0-9a-f]* count=[0-9]*  ret [0-9]*$' "$TMP/w.out" | sed 's/buf=0x[0-9a-f]*/buf/' | sort)" \
	"$(printf '  args fd=1 buf count=2  ret 2\n  args fd=1 buf count=4  ret 4')"
finish
