#!/usr/bin/env bash
# vm-suite: bookworm-backports
# Over 1000 kernel functions from one glob (issue 16, item 2):
# kprobe:*_show (the show functions of sysfs, procfs and seq_files: about
# 1200 on 6.12's cloud kernel) in kprobe_multi links, and the glob's first
# 50 functions one kprobe each (IPROF_KPROBE_MULTI=0) in the same boot.
# Ground truth: vm-read-workload reading /proc/version with 4096-byte
# reads: each read() returns the whole file and the workload rewinds
# (seq_lseek()), so each read() is one version_proc_show() call.  Checks:
# exact counts nested under the workload's read_group() in both modes; the
# names that several functions share refused up front on one line, alike
# in both modes.  The times are printed, not checked (a test does not
# time; tests/vm/bench_kmulti.sh compares the whole glob both ways).
. "$(dirname "$0")/../e2e/lib.sh"
need_root

R=$BUILD/vm-read-workload
G='*_show'
"$IPROF" list kernel "$G" 2>/dev/null | awk '{print $1}' >"$TMP/funcs"
nf=$(wc -l <"$TMP/funcs")
[ "$nf" -ge 1000 ] && ok "$G: $nf kernel functions" || bad "$G: only $nf kernel functions"
grep -qx version_proc_show "$TMP/funcs" && ok "version_proc_show is one of them" ||
	bad "no version_proc_show in $G"
{ echo version_proc_show; grep -vx version_proc_show "$TMP/funcs" | head -49; } |
	sed 's/^/kprobe:/' >"$TMP/sample.conf"

# run NAME PROBE [ENV=V...]: iprof on PROBE (-e or -P FILE) and read_group;
# sets ms_NAME (attach + detach) and n_NAME (kernel timers attached)
run() {
	local name=$1 rc i a d n m
	shift
	local probe=("$1" "$2")
	shift 2
	env "$@" "$IPROF" -f seed -o "$TMP/$name.rep" "${probe[@]}" -e "uprobe:$R:read_group" -- \
		"$R" /proc/version 25:4096 15:4096 >"$TMP/$name.truth" 2>"$TMP/$name.err"
	rc=$?
	# with many probes the detach runs in a background child: its line
	attach_times "$TMP/$name.err" >"$TMP/$name.att"
	echo "--- $name: $* iprof ${probe[*]} -e uprobe:...:read_group"
	grep -v '^iprof: attaching' "$TMP/$name.err" | sed 's/^/stderr: /'
	grep -v '^# no hits' "$TMP/$name.rep" | cut -c1-300
	# 3: traced, but the repeated names were not attached
	check "$name: exit status" "$rc" 3
	check "$name: workload reads" "$(truth reads "$TMP/$name.truth")" 40
	check "$name: read_group>version_proc_show count" \
		"$(seed_field 'read_group>version_proc_show' count "$TMP/$name.rep")" 40
	check "$name: read_group count" "$(seed_field read_group count "$TMP/$name.rep")" 2
	check "$name: no record lost" "$(lost_field "$TMP/$name.rep" records)" 0
	grep -q '^# not attached: [0-9]* timers (.*: several kernel functions have this name' "$TMP/$name.rep" &&
		ok "$name: repeated names refused, on one line" || bad "$name: no 'several kernel functions' line"
	# (no process substitution: the VM has no /dev/fd)
	read -r n m a d <"$TMP/$name.att"
	[ "$a" != - ] && [ "$d" != - ] || { bad "$name: no attach or detach time"; a=0 d=0 n=1; }
	echo "$name: $((n - 1)) kernel functions attached in $a ms, detached in $d ms"
	eval "ms_$name=$(awk -v a="$a" -v d="$d" 'BEGIN { print a + d }') n_$name=$((n - 1))"
}

run multi -e "kprobe:$G"
run single -P "$TMP/sample.conf" IPROF_KPROBE_MULTI=0
[ "$n_multi" -ge 900 ] && ok "multi: $n_multi functions attached" || bad "multi: only $n_multi attached"
[ "$n_single" -ge 40 ] && ok "single: $n_single functions attached" || bad "single: only $n_single attached"
echo "attach+detach: kprobe_multi $ms_multi ms for $n_multi functions, one kprobe each $ms_single ms for $n_single (not checked: TCG on a shared host)"
finish
