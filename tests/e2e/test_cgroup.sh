#!/usr/bin/env bash
# --cgroup PATH (issue 12): the processes in a cgroup v2 directory, or a
# cgroup below it, are targets, decided in BPF at each timer start
# (bpf_get_current_ancestor_cgroup_id()).  A daemon (tools/churn-workload,
# its calls in a forked child) is started in the cgroup twice while one
# iprof runs, once more in a child cgroup, and a bystander runs the same
# binary outside it: the count is the three lives' calls exactly.  Then the
# cgroup is removed and made anew (as systemd does when a unit restarts):
# iprof reads the new id and counts a fourth life started after that.
# Where fentry works (the VM tier), an fentry timer with --cgroup too.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq"

W=$BUILD/churn-workload
SUMCOUNT='[.tree | .. | objects | select(has("count")) | .count] | add // 0'

# a cgroup2 mount: the system's, else one of our own
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CG2" ]; then
	mkdir -p "$TMP/cg2"
	mount -t cgroup2 none "$TMP/cg2" 2>/dev/null ||
		skip "no cgroup2 mount and none can be made"
	CG2=$TMP/cg2
	trap 'rmdir "$CG"/sub "$CG" 2>/dev/null; umount "$TMP/cg2"; rm -rf "$TMP"' EXIT
else
	trap 'rmdir "$CG"/sub "$CG" 2>/dev/null; rm -rf "$TMP"' EXIT
fi
CG=$CG2/iprof-test-$$
mkdir "$CG" 2>/dev/null || skip "cannot make a cgroup in $CG2"

# in_cg DIR CMD...: run CMD inside cgroup DIR (the shell moves itself in,
# then execs CMD)
in_cg() {
	local d=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$d" "$@"
}

: >"$TMP/err"
"$IPROF" -v -f json -o "$TMP/rep.json" -e "uprobe:$W:churn_f*" --cgroup "$CG" \
	-d 120s 2>"$TMP/err" &
ipid=$!
if ! wait_tracing "$TMP/err"; then
	bad "iprof --cgroup did not start tracing:"
	tail -40 "$TMP/err"
	kill $ipid 2>/dev/null
	finish
fi
"$W" --procs-per-s 0 --threads 3 --calls 20 >"$TMP/by" &
by=$!
in_cg "$CG" "$W" --procs-per-s 0 --threads 2 --calls 30 >"$TMP/l1"
check "life 1 in the cgroup: exit" "$?" 0
in_cg "$CG" "$W" --procs-per-s 0 --threads 4 --calls 10 >"$TMP/l2"
mkdir "$CG/sub"
in_cg "$CG/sub" "$W" --procs-per-s 0 --threads 1 --calls 50 >"$TMP/l3"
check "life 3 in a child cgroup: exit" "$?" 0
wait $by
# made anew: a new id, read again within 0.2 s
rmdir "$CG/sub" "$CG"
mkdir "$CG"
sleep 1
in_cg "$CG" "$W" --procs-per-s 0 --threads 2 --calls 15 >"$TMP/l4"
kill -INT $ipid
wait $ipid
check "iprof exit" "$?" 0
grep -v '^libbpf' "$TMP/err"
c() { truth calls "$TMP/$1"; }
check "--cgroup: the four lives, not the bystander" "$(jq "$SUMCOUNT" "$TMP/rep.json")" \
	$(($(c l1) + $(c l2) + $(c l3) + $(c l4)))
check "nothing lost" "$(jq '.loss.ring_buffer_drops' "$TMP/rep.json")" 0

# fentry objects carry the cgroup check too (their own rodata): where the
# kernel allows fentry (the VM tier), a timer in a process of the cgroup
if [ "$("$IPROF" --dry-run -f json -e fentry:ksys_read 2>/dev/null | jq -r '.kernel.fentry')" = true ]; then
	: >"$TMP/ferr"
	"$IPROF" -f json -o "$TMP/frep.json" -e fentry:ksys_read --cgroup "$CG" \
		-d 120s 2>"$TMP/ferr" &
	ipid=$!
	if wait_tracing "$TMP/ferr"; then
		# 40 reads of 1 byte in the cgroup; dd's own reads (its
		# loader, if any) come before them, so at least 40
		in_cg "$CG" dd if=/dev/zero of=/dev/null bs=1 count=40 2>/dev/null
		kill -INT $ipid
		wait $ipid
		check "fentry with --cgroup: exit" "$?" 0
		within "fentry with --cgroup: ksys_read in the cgroup" \
			"$(jq "$SUMCOUNT" "$TMP/frep.json")" 40 400
	else
		bad "fentry with --cgroup did not start tracing:"
		tail -20 "$TMP/ferr"
		kill $ipid 2>/dev/null
	fi
else
	echo "note: fentry refused here: the fentry part runs in the VM tier"
fi
finish
