#!/usr/bin/env bash
# Deep recursion exact on the 6.1 kernel (its verifier takes the loops over
# IPROF_MAX_DEPTH = 128 frames): outer > recurse x 100, 10 calls: 10 at
# every level, nothing lost, none over the depth.  At return sites
# (--returns sites): a uretprobe, --returns auto's choice here, nests 64
# deep at most (MAX_URETPROBE_DEPTH, doc/probes.md).
. "$(dirname "$0")/../e2e/lib.sh"
need_root

W=$BUILD/uprobe-workload
N=10 D=100
"$IPROF" -q -f seed -o "$TMP/rep" --returns sites -e "uprobe:$W:outer" -e "uprobe:$W:recurse" \
	-- "$W" --calls $N --depth $D --spin-us 10 --sleep-us 10 >"$TMP/truth" 2>"$TMP/err"
check "iprof exit status" "$?" 0
cat "$TMP/err"
check "outer count" "$(seed_field outer count "$TMP/rep")" $N
p=outer
for lvl in $(seq 1 $D); do
	p="$p>recurse"
	c=$(seed_field "$p" count "$TMP/rep")
	[ "$c" = $N ] || bad "level $lvl: count '$c', expected $N"
done
ok "levels 1..$D: count $N each"
check "no level deeper than $D" "$(seed_field "$p>recurse" count "$TMP/rep")" ""
check "nothing lost ($(grep '^# lost' "$TMP/rep"))" "$(grep -c '^# lost: none' "$TMP/rep")" 1
"$IPROF" --dry-run --returns sites -e "uprobe:$W:recurse" >"$TMP/plan" 2>&1
check "recurse stops at return sites" "$(grep -c 'return site' "$TMP/plan")" 1
finish
