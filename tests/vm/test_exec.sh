#!/usr/bin/env bash
# vm-suite: default unstable
# An exec by a thread other than the leader on a stock kernel (issue 43
# item 6): de_thread() gives the thread the leader's tid, and the frames
# it keeps across the exec (the execve span) go on under that tid
# (IPROF_REC_NEWTID from bpf/iprof.bpf.c's on_exec): the execve is a call
# under the function that exec'd, the leader's main exited, the new
# image's main a call with its inner()s, nothing skipped: exit 0.
# (tests/e2e/test_frames.sh does the same on the build host.)
. "$(dirname "$0")/../e2e/lib.sh"
need_root

X=$BUILD/e2e-execer
for fold in 1 2; do
	"$IPROF" -q -f json -o "$TMP/ex.json" --fold-threads $fold \
		-e "uprobe:$X:main" -e "uprobe:$X:outer" -e "uprobe:$X:inner" \
		-e 'span ex = tracepoint:syscalls:sys_enter_execve -> tracepoint:syscalls:sys_exit_execve' \
		-- "$X" thread 3 >"$TMP/ex.out" 2>"$TMP/err"
	check "exec by a thread (--fold-threads $fold): exit status" "$?" 0
	cat "$TMP/err"
	check "exec by a thread (--fold-threads $fold): outer ended by the exec" \
		"$(jnode "$TMP/ex.json" outer execed)" "$(truth outer "$TMP/ex.out")"
	check "exec by a thread (--fold-threads $fold): the execve a call under outer" \
		"$(jnode "$TMP/ex.json" "outer>ex" count),$(jnode "$TMP/ex.json" "outer>ex" incomplete)" 1,0
	check "exec by a thread (--fold-threads $fold): the old main exited, the new one returned" \
		"$(jnode "$TMP/ex.json" main exited),$(jnode "$TMP/ex.json" main count)" 1,1
	check "exec by a thread (--fold-threads $fold): inner under the new main" \
		"$(jnode "$TMP/ex.json" "main>inner" count)" "$(truth inner "$TMP/ex.out")"
	check "exec by a thread (--fold-threads $fold): nothing skipped or mismatched" \
		"$(jq -c '[.loss.skipped_records, .loss.mismatches]' "$TMP/ex.json")" "[0,0]"
done
finish
