#!/usr/bin/env bash
# A Go program (issue 28, item 3): Go's runtime unwinds and copies
# goroutine stacks, so --returns auto must keep return sites (never a
# uretprobe: it rewrites return addresses the runtime walks), and the
# program must run as without iprof, its calls counted exactly: main.mid
# CALLS times from the main goroutine, main.leaf twice under each
# (tests/e2e/helpers/go/main.go, built here by Debian's golang-go).
# Calls whose goroutine moves to another thread mid-call are not timed
# exactly (doc/probes.md, Go): this program's do not block, and it runs
# with GOMAXPROCS=1, so that a goroutine preempted mid-call (sysmon's
# signal, more often under load) resumes on the thread it left rather
# than on an idle P's.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh)"
command -v go >/dev/null || skip "needs go to build the Go program (tools/install-deps.sh installs golang-go)"

# offline, in the test's own folder: the program uses the standard
# library only
mkdir -p "$TMP/src"
cp "$SRC/tests/e2e/helpers/go/main.go" "$TMP/src/"
printf 'module gotest\n\ngo 1.19\n' >"$TMP/src/go.mod"
(cd "$TMP/src" && HOME=$TMP GOCACHE=$TMP/cache GOPATH=$TMP/gopath GOFLAGS=-mod=mod \
	GOPROXY=off GOTOOLCHAIN=local go build -o "$TMP/gox" .) >"$TMP/build.log" 2>&1
check "go build: exit status" "$?" 0
cat "$TMP/build.log"
W=$TMP/gox
P=(-e "uprobe:$W:main.mid" -e "uprobe:$W:main.leaf")
calls=2000

# --returns auto (the default) picks return sites, and says why
"$IPROF" --dry-run -f json "${P[@]}" -- "$W" "$calls" >"$TMP/plan.json" 2>"$TMP/plan.err"
check "dry run: exit status" "$?" 0
for f in main.mid main.leaf; do
	check "$f: stops at return sites" \
		"$(jq -r --arg n "$f" '.probes[] | select(.name == $n) | .stop' "$TMP/plan.json")" return_sites
done
"$IPROF" --dry-run "${P[@]}" -- "$W" "$calls" 2>&1 | grep -q 'returns auto chose them: .*gox defines runtime\.' &&
	ok "--dry-run says the Go runtime chose them" ||
	bad "--dry-run does not name the Go runtime: $("$IPROF" --dry-run "${P[@]}" -- "$W" "$calls" 2>&1 | tail -2)"

for r in 1 2 3; do
	GOMAXPROCS=1 "$IPROF" -q -f json -o "$TMP/r$r.json" "${P[@]}" -- "$W" "$calls" >"$TMP/truth$r" 2>"$TMP/err$r"
	check "run $r: exit status (the program ran as without iprof)" "$?" 0
	# -q keeps warnings: the Go caveat is said at the start, once
	check "run $r: the Go warning, once" "$(grep -c "$W is a Go program: goroutines share threads" "$TMP/err$r")" 1
	check "run $r: the program's own count" "$(truth mid_calls "$TMP/truth$r")" "$calls"
	check "run $r: main.mid = the program's calls" "$(jnode "$TMP/r$r.json" main.mid count)" "$calls"
	check "run $r: main.mid>main.leaf = 2 per call" \
		"$(jnode "$TMP/r$r.json" main.mid\>main.leaf count)" "$(truth leaf_calls "$TMP/truth$r")"
	check "run $r: no main.leaf outside main.mid" "$(jnode "$TMP/r$r.json" main.leaf count)" ""
	check "run $r: no mismatch, nothing lost" \
		"$(jq -c '[.loss | to_entries[] | select(.value != 0 and .key != "unwound_frames") | .key]' "$TMP/r$r.json")" "[]"
	# a call that grew the stack: its entry ran on the old stack, then
	# again on the new one (runtime.morestack runs the function from its
	# entry); the first frame is closed untimed, never counted
	within "run $r: frames left by stack growth (unwound, not counted)" \
		"$(jq -r '.loss.unwound_frames' "$TMP/r$r.json")" 0 16
done
finish
