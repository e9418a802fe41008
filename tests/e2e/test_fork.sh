#!/usr/bin/env bash
# A forked child starts inside the frames its parent had open at the fork
# (IPROF_REC_FORKED, sent by the sched_process_fork program), against the
# workload's own truth (tests/e2e/helpers/forker.c): after fork() in main,
# the child's a > b > c is main > a > b > c and its return from main is
# main's second call, no orphan stop; a forking server's children are
# inside serve(), open in each, which they exit without returning; a
# vfork child inherits main and exits in it; a posix_spawn child (a stack
# of its own) inherits nothing; a syscall span open at the fork (clone) is
# stopped in the child by its own return from the syscall.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-forker
[ -x "$W" ] || skip "$W not built"
fns=(main serve handle a b c)
args=()
for f in "${fns[@]}"; do args+=(-e "uprobe:$W:$f"); done

# every timer's orphan stops, summed (a child's return from a frame it did
# not know it was in)
orphans() { jq '[.probes[].orphan_stops] | add' "$1"; }

# --- fork in main: both sides call a > b > c, under main; with uretprobes
# (the kernel copies their return instances to the child) and return sites
# (up to 3 runs where the kernel dropped hits in BPF recursion)
for ret in uretprobe sites; do
	for try in 1 2 3; do
		"$IPROF" -q --returns $ret -f json -o "$TMP/f.json" "${args[@]}" \
			-e 'span clone = tp:syscalls:sys_enter_clone -> tp:syscalls:sys_exit_clone' \
			-- "$W" fork >"$TMP/f.out" 2>"$TMP/err"
		rc=$?
		[ $try -lt 3 ] && recursion_rerun "$TMP/f.json" || break
	done
	check "fork ($ret): exit status" "$rc" 0
	p=main
	for f in main a b c; do
		[ $f != main ] && p="$p>$f"
		check "fork ($ret): $p count" "$(jnode "$TMP/f.json" "$p" count)" "$(truth $f "$TMP/f.out")"
		check "fork ($ret): $p threads" "$(jnode "$TMP/f.json" "$p" threads)" 2
		check "fork ($ret): $p exited" "$(jnode "$TMP/f.json" "$p" exited)" 0
	done
	check "fork ($ret): a is no root" "$(jnode "$TMP/f.json" a count)" ""
	check "fork ($ret): no orphan stops" "$(orphans "$TMP/f.json")" 0
	check "fork ($ret): the child inherited main and the clone span" \
		"$(jq .aggregator.forked "$TMP/f.json")" 2
	check "fork ($ret): main>clone: parent's and child's returns" \
		"$(jnode "$TMP/f.json" "main>clone" count)" 2
	check "fork ($ret): nothing discarded" "$(jq .loss.discarded_frames "$TMP/f.json")" 0
done

# --- a recording reads the same (and draws the child's main from the fork)
"$IPROF" record -q -o "$TMP/f.rec" -e "uprobe:$W:main" -e "uprobe:$W:a" -- "$W" fork >/dev/null 2>>"$TMP/err"
check "fork, record: exit status" "$?" 0
"$IPROF" report -f json -o "$TMP/fr.json" "$TMP/f.rec" 2>>"$TMP/err"
check "fork, report: main>a count" "$(jnode "$TMP/fr.json" "main>a" count)" 2
"$IPROF" report -f chrome -o "$TMP/f.chrome" "$TMP/f.rec" 2>>"$TMP/err"
check "fork, chrome: main drawn in both processes" \
	"$(jq '[.traceEvents[] | select(.ph == "X" and .name == "main") | .pid] | unique | length' "$TMP/f.chrome")" 2

# --- a forking server: 3 children, each inside main > serve, exiting there
"$IPROF" -q -f json -o "$TMP/s.json" "${args[@]}" -- "$W" server 3 >"$TMP/s.out" 2>>"$TMP/err"
check "server: exit status" "$?" 0
p=main
for f in main serve handle a b c; do
	[ $f != main ] && p="$p>$f"
	check "server: $p count" "$(jnode "$TMP/s.json" "$p" count)" "$(truth $f "$TMP/s.out")"
done
check "server: main exited in each child" "$(jnode "$TMP/s.json" main exited)" "$(truth main.exited "$TMP/s.out")"
check "server: main>serve exited in each child" "$(jnode "$TMP/s.json" "main>serve" exited)" "$(truth serve.exited "$TMP/s.out")"
check "server: handle is no root" "$(jnode "$TMP/s.json" handle count)" ""
check "server: no orphan stops" "$(orphans "$TMP/s.json")" 0

# --- vfork: the child shares main's stack and exits in it
"$IPROF" -q -f json -o "$TMP/v.json" "${args[@]}" -- "$W" vfork >"$TMP/v.out" 2>>"$TMP/err"
check "vfork: exit status" "$?" 0
check "vfork: main count" "$(jnode "$TMP/v.json" main count)" "$(truth main "$TMP/v.out")"
check "vfork: main exited in the child" "$(jnode "$TMP/v.json" main exited)" "$(truth main.exited "$TMP/v.out")"
check "vfork: main>a>b>c count" "$(jnode "$TMP/v.json" "main>a>b>c" count)" "$(truth c "$TMP/v.out")"
check "vfork: no orphan stops" "$(orphans "$TMP/v.json")" 0

# --- posix_spawn: glibc's child runs on a stack of its own and execs
"$IPROF" -q -f json -o "$TMP/p.json" "${args[@]}" -- "$W" spawn >"$TMP/p.out" 2>>"$TMP/err"
check "spawn: exit status" "$?" 0
check "spawn: main count" "$(jnode "$TMP/p.json" main count)" "$(truth main "$TMP/p.out")"
check "spawn: main not inherited (exited)" "$(jnode "$TMP/p.json" main exited)" "$(truth main.exited "$TMP/p.out")"
check "spawn: main not inherited (execed)" "$(jnode "$TMP/p.json" main execed)" "$(truth main.execed "$TMP/p.out")"
check "spawn: main>a>b>c count" "$(jnode "$TMP/p.json" "main>a>b>c" count)" "$(truth c "$TMP/p.out")"
check "spawn: nothing inherited" "$(jq .aggregator.forked "$TMP/p.json")" 0
check "spawn: no orphan stops" "$(orphans "$TMP/p.json")" 0
[ "$fails" -gt 0 ] && cat "$TMP/err"
finish
