#!/usr/bin/env bash
# An exec by a thread other than the leader (issue 43 item 6): de_thread()
# gives the thread the leader's tid, and the frames it keeps across the
# exec (the execve span) go on under that tid (IPROF_REC_NEWTID from
# bpf/iprof.bpf.c's on_exec): the execve is a call under the function that
# exec'd, the leader's main exited, the new image's main a call with its
# inner()s (tests/e2e/helpers/execer.c's ground truth), nothing skipped:
# exit 0 (it read as a skipped record, exit 3).  By one aggregator and by
# two --fold-threads shards, and on the chrome timeline.  The VM tier runs
# it too (tests/vm/test_exec.sh).
. "$(dirname "$0")/lib.sh"
need_root

X=$BUILD/e2e-execer
ex='span ex = tracepoint:syscalls:sys_enter_execve -> tracepoint:syscalls:sys_exit_execve'
run_ex() {
	"$IPROF" -q -f json -o "$TMP/ex.json" --fold-threads $1 \
		-e "uprobe:$X:main" -e "uprobe:$X:outer" -e "uprobe:$X:inner" -e "$ex" \
		-- "$X" thread 3 >"$TMP/ex.out" 2>"$TMP/err"
}
for fold in 1 2; do
	d="exec by a thread (--fold-threads $fold)"
	run_ex $fold
	rc=$?
	# A known race with two shards: the exec'ing thread's records after
	# the exec go to its old tid's shard from its NEWTID on, but a record
	# of the new image from another CPU's ring may reach the router
	# before that NEWTID (the 6.1 VM once in about a dozen runs: 3
	# records skipped, 1 mismatch).  Said, and tried once more; a second
	# miss fails
	if [ $fold = 2 ] && [ $rc != 0 ]; then
		echo "info - $d: exit $rc ($(jq -c .loss "$TMP/ex.json" 2>/dev/null)): the shards' exec race; once more"
		run_ex $fold
		rc=$?
	fi
	check "$d: exit status" "$rc" 0
	cat "$TMP/err"
	check "$d: outer ended by the exec" "$(jnode "$TMP/ex.json" outer execed)" "$(truth outer "$TMP/ex.out")"
	check "$d: the execve a call under outer" \
		"$(jnode "$TMP/ex.json" "outer>ex" count),$(jnode "$TMP/ex.json" "outer>ex" incomplete)" 1,0
	check "$d: the old main exited, the new one returned" \
		"$(jnode "$TMP/ex.json" main exited),$(jnode "$TMP/ex.json" main count)" 1,1
	check "$d: inner under the new main" \
		"$(jnode "$TMP/ex.json" "main>inner" count)" "$(truth inner "$TMP/ex.out")"
	check "$d: nothing skipped or mismatched" \
		"$(jq -c '[.loss.skipped_records, .loss.mismatches]' "$TMP/ex.json")" "[0,0]"
done
# the timeline: the execve drawn whole on the leader's track
"$IPROF" -q -f chrome -o "$TMP/ex.trace" -e "uprobe:$X:outer" -e "$ex" \
	-- "$X" thread 3 >/dev/null 2>"$TMP/err"
check "exec by a thread, timeline: exit status" "$?" 0
check "exec by a thread, timeline: two execve calls, none discarded, both the process's" \
	"$(jq -c '[.traceEvents[] | select(.ph == "X" and .name == "ex") | [.args.end // "", .tid == .pid]]' "$TMP/ex.trace")" \
	'[["",true],["",true]]'
finish
