#!/usr/bin/env bash
# --offcpu-stacks=user against tests/e2e/helpers/offcpu.c's own truth (2
# workers call handler() 2 x 8 times: half wait on a mutex the "holder"
# thread holds, through lock_wait(), half nanosleep, through sleep_us();
# built with frame pointers, libc without them):
#  - live, JSON: the futex stack's user frames begin in libc's lock wait
#    and then name handler, then worker (lock_wait, the function that
#    called libc, is not seen: libc's frame has no frame pointer, so the
#    walk goes from lock_wait's frame to its return address in handler);
#    the nanosleep stack's begin in libc's nanosleep, then handler,
#    worker; both of the workload's process (pid); each stack with at most
#    one wait per lock call or nap, at least half (test_offcpu.sh's
#    within());
#  - the table shows the user frames under the kernel ones;
#  - the recording keeps the process's mappings: `iprof report` names the
#    same frames after the process is gone;
#  - --offcpu-stacks without =user sends none; a wrong word exits 2.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh)"

W=$BUILD/e2e-offcpu
PROBE=(-e "uprobe:$W:handler")
WL=(-- "$W" 2 8 20000 3000)

"$IPROF" record -q -o "$TMP/a.rec" -f json --offcpu-stacks=user --report-output "$TMP/a.json" \
	"${PROBE[@]}" "${WL[@]}" >"$TMP/a.truth" 2>"$TMP/err"
check "record: exit status" "$?" 0
cat "$TMP/err"
check "handler count" "$(jq '.tree[0].count' "$TMP/a.json")" "$(truth handler.count "$TMP/a.truth")"
locks=$(truth lock.count "$TMP/a.truth")
naps=$(truth nap.count "$TMP/a.truth")

# the user frames of the stacks whose kernel frames match $2, joined by
# ' < ' (one line per process and user frames: a wait may block through
# two kernel paths, two stacks with the same user frames; a CI run once
# split the futex waits 10 + 6), and their waits summed
ustacks() {
	jq -r --arg re "$2" '[.tree[0].offcpu.stacks[] | select(any(.frames[]; test($re))) |
		{waits, pid, u: (.user_frames // [] | join(" < "))}] |
		group_by([.pid, .u])[] | "\(map(.waits) | add) \(.[0].pid) \(.[0].u)"' "$1"
}
ustacks "$TMP/a.json" . | tee "$TMP/a.ustacks"
within() { [ -n "$2" ] && [ "$2" -ge $(($3 / 2)) ] && [ "$2" -le "$3" ] && echo "$2 of $3" || echo "$2 not in [$(($3 / 2)), $3]"; }
# a stack's user frames: its libc function where it entered the kernel,
# then handler and worker
shape() { sed -E "s/^[0-9]+ [0-9]+ //; s/^[^ ]*($2)[^ ]* < handler < worker( < .*)?\$/LIBC < handler < worker/" <<<"$1"; }
fut=$(ustacks "$TMP/a.json" '^futex_wait|^futex_do_wait|^__futex_wait')
nap=$(ustacks "$TMP/a.json" 'nanosleep')
check "futex: one stack" "$(grep -c . <<<"$fut")" 1
check "futex: libc's lock wait < handler < worker" "$(shape "$fut" 'lll_lock_wait|futex_wait|mutex_lock')" "LIBC < handler < worker"
check "futex: a wait per lock call" "$(within futex "$(cut -d' ' -f1 <<<"$fut")" "$locks")" "$(cut -d' ' -f1 <<<"$fut") of $locks"
check "nanosleep: one stack" "$(grep -c . <<<"$nap")" 1
check "nanosleep: libc's nanosleep < handler < worker" "$(shape "$nap" 'nanosleep')" "LIBC < handler < worker"
check "nanosleep: a wait per nap" "$(within nap "$(cut -d' ' -f1 <<<"$nap")" "$naps")" "$(cut -d' ' -f1 <<<"$nap") of $naps"
pids=$(jq '[.tree[0].offcpu.stacks[].pid] | unique | length' "$TMP/a.json")
check "one process (pid) for the user stacks" "$pids" 1
check "the pid is the workload's (its threads' tgid)" \
	"$(jq '.tree[0].offcpu.stacks[0].pid' "$TMP/a.json")" \
	"$(jq --argjson t "$(truth holder.tid "$TMP/a.truth")" '[.tree[0].offcpu.wakers[] | select(.tid == $t) | .pid][0]' "$TMP/a.json")"

# the recording, its process long gone: the same frames named
"$IPROF" report -f json "$TMP/a.rec" >"$TMP/b.json" 2>"$TMP/err"
check "report: exit status" "$?" 0
ustacks "$TMP/b.json" . >"$TMP/b.ustacks"
check "report of the recording: the same user frames" \
	"$(cmp -s "$TMP/a.ustacks" "$TMP/b.ustacks" && echo same || { diff "$TMP/a.ustacks" "$TMP/b.ustacks"; echo differs; })" same
"$IPROF" report "$TMP/a.rec" >"$TMP/b.txt" 2>"$TMP/err"
sed -n '/^off-CPU/,$p' "$TMP/b.txt"
# (any user stack: a page fault in worker's own code, beside handler's
# waits, once read "user: worker <- start_thread")
check "table: the user frames under each of the stacks" \
	"$(grep -cE '^ {28}user: [^ ]+( <- [^ ]+)*$' "$TMP/b.txt")" \
	"$(jq '[.tree[0].offcpu.stacks[] | select(.user_frames)] | length' "$TMP/b.json")"
check "table: the first stack's user frames in handler, called by worker" \
	"$(grep -m1 -E '^ {28}user: ' "$TMP/b.txt" | grep -cE '^ {28}user: [^ ]+ <- handler <- worker')" 1

# kernel stacks only: no user frames; a wrong word
"$IPROF" -q -f json -o "$TMP/c.json" --offcpu-stacks "${PROBE[@]}" "${WL[@]}" >/dev/null 2>"$TMP/err"
check "--offcpu-stacks: exit status" "$?" 0
check "--offcpu-stacks: stacks, no user frames" \
	"$(jq '[.tree[0].offcpu.stacks[] | has("user_frames")] | (length > 0) and (any | not)' "$TMP/c.json")" true
"$IPROF" -q --offcpu-stacks=kernel "${PROBE[@]}" "${WL[@]}" >/dev/null 2>"$TMP/err"
check "--offcpu-stacks=kernel: exit status" "$?" 2
check "--offcpu-stacks=kernel: said" "$(grep -c "expected =user" "$TMP/err")" 1
finish
