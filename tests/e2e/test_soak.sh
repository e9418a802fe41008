#!/usr/bin/env bash
# Memory stays bounded under churn (issue 12): tools/churn-workload creates
# processes and threads without end, each thread calling 16 traced
# functions along random paths, and counts every call.
#  1. --by tid --max-keys 20: the 20 newest threads keep their roots, every
#     other thread is folded into [other]; each kept root counts exactly its
#     thread's calls (the workload's --tid-log), [other] exactly the calls
#     of the folded threads, and folded keys = threads - 20.  The same
#     recording reported in table, seed, folded and OpenMetrics shows the
#     folded counters and [other] alike.
#  2. bench/soak.sh for 60 s (--interval 1s, --by tid, default caps): the
#     memory iprof holds between reports grows by at most 4096 kB after a
#     20 s warm-up, and the counts of the tree add up to the workload's
#     calls, nothing lost.
. "$(dirname "$0")/lib.sh"
need_root
command -v jq >/dev/null || skip "needs jq"

W=$BUILD/churn-workload
SUMCOUNT='[.. | objects | select(has("count")) | .count] | add // 0'

"$IPROF" record -q -o "$TMP/run.iprof" --report-output "$TMP/rep.json" \
	-f json --by tid --max-keys 20 --max-paths 0 -e "uprobe:$W:churn_f*" \
	-- "$W" --seconds 4 --procs-per-s 10 --threads 4 --calls 20 \
	--tid-log "$TMP/tids" >"$TMP/truth" 2>"$TMP/err"
check "iprof record: exit" "$?" 0
cat "$TMP/truth"
calls=$(truth calls "$TMP/truth")
threads=$(truth threads "$TMP/truth")
within "workload threads" "$threads" 100 1000
check "nothing lost" "$(jq '.loss.ring_buffer_drops' "$TMP/rep.json")" 0
check "sum of all counts = the workload's calls" \
	"$(jq ".tree | $SUMCOUNT" "$TMP/rep.json")" "$calls"
jq -r ".tree[] | select(.name | startswith(\"tid \")) | \"\(.name[4:]) \(. | $SUMCOUNT)\"" \
	"$TMP/rep.json" >"$TMP/kept"
check "kept --by roots = --max-keys" "$(wc -l <"$TMP/kept")" 20
# each kept thread's count against its own calls; a tid used twice is
# summed in both (the workload's log and iprof's root)
check "each kept root counts its thread's calls" "$(awk '
	NR == FNR { truth[$1] += $2; next }
	{ if (!($1 in truth) || truth[$1] != $2) bad++ }
	END { print bad + 0 }' "$TMP/tids" "$TMP/kept")" 0
other_truth=$(awk 'NR == FNR { kept[$1] = 1; next } !($1 in kept) { s += $2 } END { print s + 0 }' \
	"$TMP/kept" "$TMP/tids")
check "[other] counts exactly the folded threads' calls" \
	"$(jq "[.tree[] | select(.name == \"[other]\") | $SUMCOUNT] | add // 0" "$TMP/rep.json")" \
	"$other_truth"
check "folded keys = threads - 20 (JSON)" "$(jq '.folded.keys' "$TMP/rep.json")" $((threads - 20))
check "folded paths (no path cap)" "$(jq '.folded.paths' "$TMP/rep.json")" 0
fk=$((threads - 20))

# every format says it, from the same recording
R=(--by tid --max-keys 20 --max-paths 0)
"$IPROF" report "${R[@]}" "$TMP/run.iprof" >"$TMP/table" 2>/dev/null
check "table: the folded line" \
	"$(grep -c "^folded into \[other\]: $fk --by roots (--max-keys 20)$" "$TMP/table")" 1
"$IPROF" report -f seed "${R[@]}" "$TMP/run.iprof" >"$TMP/seed" 2>/dev/null
check "seed: the folded line" \
	"$(grep -c "^# folded: paths=0 keys=$fk max_paths=0 max_keys=20$" "$TMP/seed")" 1
check "seed: [other] at the top" "$(grep -c '^\[other\], thread_time' "$TMP/seed")" 1
"$IPROF" report -f folded --weight count "${R[@]}" "$TMP/run.iprof" \
	>"$TMP/folded" 2>"$TMP/folded.err"
check "folded: [other]'s lines add up to its count" \
	"$(awk '/^\[other\]/ { s += $NF } END { print s + 0 }' "$TMP/folded")" "$other_truth"
check "folded: the folded line on stderr" \
	"$(grep -c "^folded into \[other\]: $fk --by roots" "$TMP/folded.err")" 1
"$IPROF" report -f openmetrics "${R[@]}" "$TMP/run.iprof" >"$TMP/om" 2>/dev/null
check "openmetrics: iprof_folded_keys_total" \
	"$(sed -n 's/^iprof_folded_keys_total //p' "$TMP/om")" "$fk"
check "openmetrics: iprof_folded_paths_total" \
	"$(sed -n 's/^iprof_folded_paths_total //p' "$TMP/om")" 0
check "openmetrics: [other]'s paths" \
	"$(grep -c '^iprof_duration_seconds_count{path="\[other\];' "$TMP/om")" \
	"$(jq '[.tree[] | select(.name == "[other]") | .. | objects | select(has("count")) | select(.name != "[other]")] | length' "$TMP/rep.json")"

# the soak, 60 s
"$SRC/bench/soak.sh" --seconds 60 --warmup 20 --bound-kb 4096 \
	--out "$TMP/soak" "$BUILD" >"$TMP/soak.log" 2>&1
rc=$?
cat "$TMP/soak.log"
check "soak.sh: exit" "$rc" 0
check "soak: held memory flat after warm-up (growth <= 4096 kB)" \
	"$(grep -c 'verdict=flat$' "$TMP/soak.log")" 1
check "soak: counts exact, nothing lost" "$(grep -c 'counts=exact$' "$TMP/soak.log")" 1
finish
