# Sourced by tests/e2e/test_select.sh and test_select_exe.sh (not a test
# itself): the scenario they share, described in test_select.sh.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq"

W=$BUILD/churn-workload
SUMCOUNT='[.tree | .. | objects | select(has("count")) | .count] | add // 0'
ln -s "$W" "$TMP/bystander"
ln -s "$W" "$TMP/link"

# run_case NAME SELECTOR...: the scenario above under iprof SELECTOR...;
# leaves $TMP/NAME.json and the workloads' truths $TMP/NAME.{p,b,1,2}
run_case() {
	local name=$1 ipid p b
	shift
	rm -f "$TMP/go"
	"$W" --wait "$TMP/go" --procs-per-s 0 --threads 3 --calls 30 \
		>"$TMP/$name.p" &
	p=$!
	"$TMP/bystander" --wait "$TMP/go" --procs-per-s 0 --threads 2 \
		--calls 25 >"$TMP/$name.b" &
	b=$!
	: >"$TMP/$name.err"
	"$IPROF" -f json -o "$TMP/$name.json" -e "uprobe:$W:churn_f*" "$@" \
		-d 120s 2>"$TMP/$name.err" &
	ipid=$!
	if ! wait_tracing "$TMP/$name.err"; then
		bad "$name: iprof did not start tracing:"
		cat "$TMP/$name.err"
		kill $ipid $p $b 2>/dev/null
		return 1
	fi
	touch "$TMP/go"
	wait $p $b
	# the daemon's two lives
	"$W" --procs-per-s 0 --threads 2 --calls 40 >"$TMP/$name.1"
	"$W" --procs-per-s 0 --threads 5 --calls 10 >"$TMP/$name.2"
	kill -INT $ipid
	wait $ipid
	check "$name: iprof exit" "$?" 0
	cat "$TMP/$name.err"
}

calls() { truth calls "$TMP/$1"; }
