#!/usr/bin/env bash
# A traced function is identified by its file (device, inode), not by the
# path typed (tests/e2e/helpers/replaced.c prints its own count):
#  - a binary replaced on disk (a new file renamed over the path, even a
#    script) while the old process runs: -p PID -e uprobe:PATH:f counts the old
#    process's calls, through /proc/PID/map_files, and the plan says so;
#    the same with uprobe:/proc/PID/exe:f;
#  - two paths of one file (a hard link, a bind mount): one uprobe, two
#    timers chained on it (exact counts, nothing unwound).
. "$(dirname "$0")/lib.sh"
need_root

H=$BUILD/e2e-replaced
[ -x "$H" ] || skip "$H not built"
N=50

# run_replaced SPEC NAME [rm]: start a copy of the helper waiting on a
# FIFO, rename a new copy over its path (rm: delete the file), trace it
# with -p and SPEC, release it
run_replaced() {
	local spec=$1 name=$2 how=${3:-mv} pid ipid i
	rm -f "$TMP/prog" "$TMP/fifo"
	cp "$H" "$TMP/prog"
	mkfifo "$TMP/fifo"
	"$TMP/prog" $N "$TMP/fifo" >"$TMP/$name.truth" &
	pid=$!
	# wait for its exec (before it, /proc/PID is the shell's fork)
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink /proc/$pid/exe 2>/dev/null)" = "$TMP/prog" ] && break
		sleep 0.05
	done
	if [ "$how" = rm ]; then
		rm "$TMP/prog"
	elif [ "$how" = script ]; then
		# the new file is no ELF file at all: f only in the old copy
		printf '#!/bin/sh\nexit 0\n' >"$TMP/prog.new"
		chmod +x "$TMP/prog.new"
		mv "$TMP/prog.new" "$TMP/prog"
	else
		cp "$H" "$TMP/prog.new"
		printf '\0' >>"$TMP/prog.new" # another file, not the same bytes
		mv "$TMP/prog.new" "$TMP/prog"
	fi
	check "$name: the process maps a deleted copy" \
		"$(grep -c "$TMP/prog (deleted)" /proc/$pid/maps | awk '{ print ($1 > 0) }')" 1
	spec=${spec//PID/$pid}
	"$IPROF" -f json -o "$TMP/$name.json" -p $pid -e "$spec" 2>"$TMP/$name.err" &
	ipid=$!
	wait_tracing "$TMP/$name.err" || bad "$name: iprof did not start tracing"
	printf x >"$TMP/fifo"
	wait $pid
	wait $ipid
	check "$name: iprof exit status" "$?" 0
	check "$name: f of the old process" "$(jnode "$TMP/$name.json" f count)" "$(truth f.count "$TMP/$name.truth")"
}

run_replaced "uprobe:$TMP/prog:f" path
check "path: the plan says where" \
	"$(jq -r '.probes[0].where' "$TMP/path.json" | grep -c "maps a deleted copy of $TMP/prog: traced there through /proc/[0-9]*/map_files/")" 1
check "path: said on stderr" \
	"$(grep -c "^iprof: f: process [0-9]* maps a deleted copy of $TMP/prog: traced there through /proc/[0-9]*/map_files/" "$TMP/path.err")" 1
check "path: not said to be unmapped (it is traced in its copy)" \
	"$(grep -c "does not map $TMP/prog" "$TMP/path.err")" 0
run_replaced "uprobe:/proc/PID/exe:f" exe
# deleted, nothing at the path now: traced in the copy the process maps
run_replaced "uprobe:$TMP/prog:f" deleted rm
# replaced by a script (no ELF file, no f): traced in the copy, and said
run_replaced "uprobe:$TMP/prog:f" script script
check "script: said on stderr" \
	"$(grep -c "^iprof: f: $TMP/prog on disk is not traced ($TMP/prog: not an ELF file); process [0-9]* maps a deleted copy of $TMP/prog: traced there through /proc/[0-9]*/map_files/" "$TMP/script.err")" 1

# a hard link: one file, one uprobe; both timers exact
cp "$H" "$TMP/a"
ln "$TMP/a" "$TMP/b"
"$IPROF" -q -f json -o "$TMP/hl.json" -e "uprobe:$TMP/a:f" -e "uprobe:$TMP/b:f as f_b" \
	-- "$TMP/a" 20 - >"$TMP/hl.truth" 2>>"$TMP/err"
check "hard link: exit status" "$?" 0
check "hard link: f" "$(jnode "$TMP/hl.json" f count)" 20
check "hard link: f_b inside it" "$(jnode "$TMP/hl.json" 'f>f_b' count)" 20
check "hard link: nothing unwound" "$(jq '.loss.unwound_frames' "$TMP/hl.json")" 0

# a bind mount: the same file under another directory
mkdir -p "$TMP/m1" "$TMP/m2"
cp "$H" "$TMP/m1/prog"
if mount --bind "$TMP/m1" "$TMP/m2" 2>/dev/null; then
	"$IPROF" -q -f json -o "$TMP/bind.json" -e "uprobe:$TMP/m1/prog:f" \
		-e "uprobe:$TMP/m2/prog:f as f_m2" -- "$TMP/m2/prog" 15 - \
		>/dev/null 2>>"$TMP/err"
	check "bind mount: exit status" "$?" 0
	umount "$TMP/m2"
	check "bind mount: f" "$(jnode "$TMP/bind.json" f count)" 15
	check "bind mount: f_m2 inside it" "$(jnode "$TMP/bind.json" 'f>f_m2' count)" 15
	check "bind mount: nothing unwound" "$(jq '.loss.unwound_frames' "$TMP/bind.json")" 0
else
	echo "(no bind mount here: mount --bind failed; the hard link shows the same)"
fi
finish
