#!/usr/bin/env bash
# The traced command's end in the JSON report's run (exit_status, or signal
# and signal_name), live and from a recording, and --command-status making
# it iprof's exit status (issue 48 item 3: a command that exited 7 left
# iprof at 0 and the JSON without a word of it).
. "$(dirname "$0")/lib.sh"
need_root
W=$BUILD/uprobe-workload
E="uprobe:$W:outer"
run_w() { echo "\"$W\" --calls 3 >/dev/null; $1"; }

"$IPROF" -q -f json -o - -e "$E" -- sh -c "$(run_w 'exit 7')" >"$TMP/a.json"
check "exit 7: iprof's status" "$?" 0
check "exit 7: run" "$(jq -c '.run | [.exit_status, .signal, .signal_name]' "$TMP/a.json")" '[7,null,null]'
check "exit 7: the workload's calls" "$(jnode "$TMP/a.json" outer count)" 3

"$IPROF" -q -f json -o - -e "$E" -- sh -c "$(run_w 'kill -SEGV $$')" >"$TMP/b.json"
check "SIGSEGV: iprof's status (128 + 11)" "$?" 139
check "SIGSEGV: run" "$(jq -c '.run | [.exit_status, .signal, .signal_name]' "$TMP/b.json")" '[null,11,"SEGV"]'

"$IPROF" -q -f json -o - -e "$E" -- sh -c "$(run_w 'exit 0')" >"$TMP/c.json"
check "exit 0: run" "$(jq -c '.run.exit_status' "$TMP/c.json")" 0

# stopped by iprof (-d): no status of its own
"$IPROF" -q -f json -o - -d 1s -e "$E" -- sleep 10 >"$TMP/d.json"
check "-d stops it: iprof's status" "$?" 0
check "-d stops it: run" "$(jq -c '.run | [.exit_status, .signal]' "$TMP/d.json")" '[null,null]'

# --command-status: iprof exits as the command did, where its own is 0
"$IPROF" -q --command-status -o /dev/null -e "$E" -- sh -c "$(run_w 'exit 7')"
check "--command-status, exit 7" "$?" 7
"$IPROF" -q --command-status -o /dev/null -e "$E" -- sh -c "$(run_w 'exit 0')"
check "--command-status, exit 0" "$?" 0
"$IPROF" -q --keep-going --command-status -o /dev/null -e "$E" -e 'uprobe:/nonexistent:f' -- sh -c "$(run_w 'exit 7')" 2>/dev/null
check "--command-status: iprof's own 3 (a timer not attached) first" "$?" 3

# a recording keeps it: iprof report says the same as the live run
"$IPROF" record -q -o "$TMP/e.rec" -e "$E" -- sh -c "$(run_w 'exit 5')"
check "record, exit 5: iprof's status" "$?" 0
"$IPROF" report -f json "$TMP/e.rec" >"$TMP/e.json"
check "report of the recording: run" "$(jq -c '.run | [.exit_status, .signal]' "$TMP/e.json")" '[5,null]'
# The command's open files are its own: iprof's copies of its stderr (the
# report's), a timeline's temporary file and the recording are
# close-on-exec (a newcomer's `-- sh -c 'echo x >&3'` wrote into iprof's
# stderr, and zstd's fds were numbered one higher than under strace).
# The same shell's fds untraced, from the same parent, are the truth.
# Listed by the shell's own glob, sorted outside it: a pipeline in the
# listing shell opens and closes its pipes while ls reads (a race that
# once showed an fd 4 in one run and not in the other).
lsfd='for f in /proc/$$/fd/*; do echo "${f##*/}"; done'
sorted() { sort -n | tr '\n' ' '; }
own=$(sh -c "$lsfd" | sorted)
for m in "" "-f json" "-f chrome -o $TMP/fd.ctf" "-f folded -o $TMP/fd.folded" "record -o $TMP/fd.rec" "--interval 1s -o $TMP/fd.txt"; do
	# shellcheck disable=SC2086
	got=$("$IPROF" $m -q -e "$E" -- sh -c "$lsfd" 2>/dev/null | sorted)
	check "the command's fds with '${m:-the report on stderr}'" "$got" "$own"
done
finish
