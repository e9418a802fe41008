#!/usr/bin/env bash
# Syscall spans on the raw syscall tracepoints (issue 16, item 1): the same
# results as on their own tracepoints (IPROF_SYSCALL_TRACEPOINTS=1), fields
# by name and conditions included, against the workload's own counts; and a
# file of a span per system call rides on two programs.
# Ground truth (tools/migrate-workload): each leg() calls
# sched_setaffinity(0, 128, set) once (glibc passes sizeof(cpu_set_t)) and
# getppid() C times.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/migrate-workload
cat >"$TMP/sc.conf" <<EOF
uprobe:$W:leg
span getppid = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid
span setaff = tracepoint:syscalls:sys_enter_sched_setaffinity if len == 128 && pid == 0 -> tracepoint:syscalls:sys_exit_sched_setaffinity if ret == 0
span never = tracepoint:syscalls:sys_enter_sched_setaffinity if len == 1 -> tracepoint:syscalls:sys_exit_sched_setaffinity
span getppid_ok = tracepoint:syscalls:sys_enter_getppid -> tracepoint:syscalls:sys_exit_getppid if ret > 0
EOF
for mode in raw classic; do
	env=()
	[ $mode = classic ] && env=(IPROF_SYSCALL_TRACEPOINTS=1)
	env "${env[@]}" "$IPROF" -q -f json -o "$TMP/$mode.json" -P "$TMP/sc.conf" \
		-- "$W" --threads 2 --iterations 50 --legs 3 --spin-us 0 --calls 4 >"$TMP/$mode.truth"
	check "$mode: exit status" "$?" 0
	legs=$(truth leg.count "$TMP/$mode.truth")
	calls=$(truth getppid.count "$TMP/$mode.truth")
	f=$TMP/$mode.json
	check "$mode: leg count" "$(jnode "$f" leg count)" "$legs"
	check "$mode: leg>getppid = the workload's getppid calls" "$(jnode "$f" 'leg>getppid' count)" "$calls"
	check "$mode: leg>setaff (len == 128 && pid == 0, ret == 0) = legs" \
		"$(jnode "$f" 'leg>setaff' count)" "$legs"
	check "$mode: never (len == 1)" "$(jq -r '.probes[] | select(.name == "never") | .count' "$f")" 0
	# two timers on one syscall's tracepoints share its chain: the
	# second nests in the first, its stop (ret > 0: a parent pid) first
	check "$mode: leg>getppid>getppid_ok" "$(jnode "$f" 'leg>getppid>getppid_ok' count)" "$calls"
	check "$mode: nothing lost" "$(jq -c '[.loss | to_entries[] | select(.value != 0) | .key]' "$f")" "[]"
done
check "raw: syscall spans on the raw tracepoints" \
	"$(jq -r '[.probes[] | select(.kind == "span") | .mech] | unique | join(",")' "$TMP/raw.json")" \
	"tracepoint (raw syscalls)"
check "classic: syscall spans on their own tracepoints" \
	"$(jq -r '[.probes[] | select(.kind == "span") | .mech] | unique | join(",")' "$TMP/classic.json")" \
	"tracepoint"
check "raw and classic: the same tree" \
	"$(jq -c '[.tree[] | .. | objects | select(.path?) | [(.path | join(">")), .count]] | sort' "$TMP/raw.json")" \
	"$(jq -c '[.tree[] | .. | objects | select(.path?) | [(.path | join(">")), .count]] | sort' "$TMP/classic.json")"

# A span per system call: every one attached, on two raw programs (and
# their own tracepoints for the few syscalls this build has no number of)
ev=/sys/kernel/tracing/events/syscalls
[ -d $ev ] || ev=/sys/kernel/debug/tracing/events/syscalls
for e in $(ls $ev | sed -n 's/^sys_enter_//p'); do
	[ -d "$ev/sys_exit_$e" ] &&
		echo "span sc_$e = tracepoint:syscalls:sys_enter_$e -> tracepoint:syscalls:sys_exit_$e"
done >"$TMP/all.conf"
n=$(wc -l <"$TMP/all.conf")
within "spans in the file" "$n" 300 1000
"$IPROF" -f json -o "$TMP/all.json" -P "$TMP/all.conf" -- "$W" --threads 2 --iterations 20 \
	--legs 2 --calls 3 >"$TMP/all.truth" 2>"$TMP/all.err"
check "all: exit status" "$?" 0
cat "$TMP/all.err"
check "all: every span attached" "$(jq '[.probes[] | select(.attached)] | length' "$TMP/all.json")" "$n"
raw=$(jq '[.probes[] | select(.mech == "tracepoint (raw syscalls)")] | length' "$TMP/all.json")
within "all: spans on the raw syscall tracepoints" "$raw" $((n - 4)) "$n"
# detached in the foreground: at most 16 attachments (2 raw programs and
# the few syscalls without a number), not 2 per span
grep -q '^iprof: detached in ' "$TMP/all.err" && ok "all: few attachments, detached in the foreground" ||
	bad "all: $(grep detach "$TMP/all.err")"
check "all: sc_getppid" "$(jnode "$TMP/all.json" sc_getppid count)" "$(truth getppid.count "$TMP/all.truth")"
# alternative stops (issue 46): a write span ends at a write of 2 bytes
# or at one of 3, two stops on one tracepoint; writes of 2, 3, 4 and 2
# bytes make 3 spans (the 4-byte one goes on into the last: its start is
# ignored while it is open); with the first stop alone, 2
for mode in raw classic; do
	[ $mode = classic ] && export IPROF_SYSCALL_TRACEPOINTS=1
	for stops in "if ret == 2 | tracepoint:syscalls:sys_exit_write if ret == 3" "if ret == 2"; do
		"$IPROF" -q -f seed -o "$TMP/alt" \
			-e "span w = tracepoint:syscalls:sys_enter_write -> tracepoint:syscalls:sys_exit_write $stops" \
			-- sh -c 'printf ab; printf abc; printf abcd; printf ab' >/dev/null 2>"$TMP/alt.err"
		check "$mode: alternative stops: exit status" "$?" 0
		check "$mode: w count, stops: $stops" "$(seed_field w count "$TMP/alt")" \
			"$(case $stops in *'|'*) echo 3 ;; *) echo 2 ;; esac)"
	done
	unset IPROF_SYSCALL_TRACEPOINTS
done
finish
