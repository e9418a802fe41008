#!/usr/bin/env bash
# -f pprof: a gzipped profile.proto that `go tool pprof` (Debian's
# golang-go) reads, whose flat and cumulative values are iprof's self and
# total time and whose flat calls are iprof's counts, node for node
# (workload timers with distinct names: pprof sums a function's samples).
# The same recording reported as JSON and as pprof; and a live run.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq (tools/install-deps.sh)"
command -v go >/dev/null || skip "needs go for go tool pprof (tools/install-deps.sh installs golang-go)"

W=$BUILD/uprobe-workload
P=(-e "uprobe:$W:outer" -e "uprobe:$W:spin_inner" -e "uprobe:$W:sleep_inner")
WL=(-- "$W" --threads 2 --calls 20 --spin-us 200 --sleep-us 300)
"$IPROF" record -q -o "$TMP/r.rec" "${P[@]}" "${WL[@]}" >"$TMP/truth" 2>"$TMP/err"
check "record: exit status" "$?" 0
"$IPROF" report -q -f json -o "$TMP/r.json" "$TMP/r.rec"
check "report -f json: exit status" "$?" 0
"$IPROF" report -q -f pprof -o "$TMP/r.pb.gz" "$TMP/r.rec"
check "report -f pprof: exit status" "$?" 0
gzip -t "$TMP/r.pb.gz" && ok "gzip reads it" || bad "not gzip"
# binary on a terminal (script(1) gives it one): refused, as a live run
script -qec "'$IPROF' report -q -f pprof '$TMP/r.rec'" /dev/null >"$TMP/tty" 2>&1
check "report -f pprof on a terminal: exit status" "$?" 2
check "report -f pprof on a terminal: says why, writes nothing else" "$(tr -d '\r' <"$TMP/tty")" \
	"iprof report: --format pprof is a gzipped binary profile: give -o FILE or redirect stdout"

# go tool pprof -top in ns: "FLATns pct pct CUMns pct NAME"
HOME=$TMP GOCACHE=$TMP/go go tool pprof -top -unit=ns "$TMP/r.pb.gz" >"$TMP/top" 2>"$TMP/top.err"
check "go tool pprof -top: exit status" "$?" 0
cat "$TMP/top"
HOME=$TMP GOCACHE=$TMP/go go tool pprof -top -sample_index=calls "$TMP/r.pb.gz" >"$TMP/calls" 2>>"$TMP/top.err"
check "go tool pprof -top -sample_index=calls: exit status" "$?" 0
top() { awk -v n="$2" -v c="$3" '$NF == n { v = $c; sub(/ns$/, "", v); print v }' "$1"; }
for p in outer outer\>spin_inner outer\>sleep_inner; do
	n=${p##*>}
	check "$n: pprof flat = iprof self_ns" "$(top "$TMP/top" "$n" 1)" "$(jnode "$TMP/r.json" "$p" self_ns)"
	check "$n: pprof cum = iprof total_ns" "$(top "$TMP/top" "$n" 4)" "$(jnode "$TMP/r.json" "$p" total_ns)"
	check "$n: pprof flat calls = iprof count" "$(top "$TMP/calls" "$n" 1)" "$(jnode "$TMP/r.json" "$p" count)"
done
check "outer: calls = the workload's" "$(top "$TMP/calls" outer 1)" "$(truth outer.count "$TMP/truth")"
grep -q '^calls/count time/nanoseconds\[dflt\] on_cpu/nanoseconds off_cpu/nanoseconds$' <(HOME=$TMP GOCACHE=$TMP/go go tool pprof -raw "$TMP/r.pb.gz" 2>/dev/null | tr -s ' ') &&
	ok "sample types calls/count time/ns on_cpu/ns off_cpu/ns" || bad "sample types: $(HOME=$TMP GOCACHE=$TMP/go go tool pprof -raw "$TMP/r.pb.gz" 2>&1 | head -3)"

# a live run writes the same kind of file
"$IPROF" -q -f pprof -o "$TMP/live.pb.gz" "${P[@]}" "${WL[@]}" >/dev/null 2>&1
check "live -f pprof: exit status" "$?" 0
HOME=$TMP GOCACHE=$TMP/go go tool pprof -top -sample_index=calls "$TMP/live.pb.gz" >"$TMP/live.top" 2>/dev/null
check "live: outer calls" "$(top "$TMP/live.top" outer 1)" 40
finish
