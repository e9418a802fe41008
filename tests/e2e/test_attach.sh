#!/usr/bin/env bash
# Many user functions attached and released at once (issue 16, item 3):
# uprobe_multi links, one per binary and direction, where the kernel has
# them (6.6+), with the same results as one uprobe per function (at return
# sites, --returns sites: --returns auto gives this program uretprobes on a
# kernel that single-steps a ret, whose links are uprobe_multi too)
# (IPROF_NO_UPROBE_MULTI=1), against tools/uprobe-workload's own counts;
# and a glob of 1000 functions held in a handful of links.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/uprobe-workload
F=${IPROF_GLOB_FIXTURE:-$BUILD/glob-fixture}
multi=1
"$IPROF" --dry-run -e "uprobe:$W:outer" >/dev/null 2>&1 || bad "dry-run of a uprobe"
# the kernel's verdict, as iprof sees it: a uprobe timer's mechanism
"$IPROF" -q -f json -o "$TMP/probe.json" --returns sites -e "uprobe:$W:outer" -- "$W" --calls 1 >/dev/null
case $(jq -r '.probes[0].mech' "$TMP/probe.json") in
"uprobe/return sites (uprobe_multi)") ok "uprobe_multi links on this kernel" ;;
"uprobe/return sites")
	multi=0
	echo "this kernel has no uprobe_multi links ($(uname -r)): one uprobe per function"
	;;
*) bad "mech: $(jq -r '.probes[0].mech' "$TMP/probe.json")" ;;
esac

for mode in multi single; do
	env=()
	[ $mode = single ] && env=(IPROF_NO_UPROBE_MULTI=1)
	env "${env[@]}" "$IPROF" -q -f json -o "$TMP/$mode.json" --returns sites \
		-e "uprobe:$W:outer" -e "uprobe:$W:s*_inner" -e "uprobe:$W:recurse" \
		-- "$W" --threads 2 --calls 30 --spin-us 50 --sleep-us 50 --depth 3 >"$TMP/$mode.truth"
	check "$mode: exit status" "$?" 0
	f=$TMP/$mode.json
	check "$mode: outer = the workload's" "$(jnode "$f" outer count)" "$(truth outer.count "$TMP/$mode.truth")"
	check "$mode: outer>spin_inner" "$(jnode "$f" 'outer>spin_inner' count)" "$(truth spin_inner.count "$TMP/$mode.truth")"
	check "$mode: outer>sleep_inner" "$(jnode "$f" 'outer>sleep_inner' count)" "$(truth sleep_inner.count "$TMP/$mode.truth")"
	check "$mode: outer>recurse>recurse>recurse" \
		"$(jnode "$f" 'outer>recurse>recurse>recurse' count)" "$(truth outer.count "$TMP/$mode.truth")"
	check "$mode: nothing lost" "$(jq -c '[.loss | to_entries[] | select(.value != 0) | .key]' "$f")" "[]"
done
check "single: one uprobe per function" "$(jq -r '[.probes[].mech] | unique | join(",")' "$TMP/single.json")" \
	"uprobe/return sites"
check "multi and single: the same tree" \
	"$(jq -c '[.tree[] | .. | objects | select(.path?) | [(.path | join(">")), .count]] | sort' "$TMP/multi.json")" \
	"$(jq -c '[.tree[] | .. | objects | select(.path?) | [(.path | join(">")), .count]] | sort' "$TMP/single.json")"

# 1000 functions of one binary: 2 links with uprobe_multi (released in the
# foreground, at most 16 links), 2000 perf events without
"$IPROF" -f json -o "$TMP/many.json" -e "uprobe:$F:many_1*" -- true 2>"$TMP/many.err"
check "many: exit status" "$?" 0
cat "$TMP/many.err"
check "many: timers attached" "$(jq '[.probes[] | select(.attached)] | length' "$TMP/many.json")" 1000
if [ $multi = 1 ]; then
	grep -q '^iprof: detached in ' "$TMP/many.err" && ok "many: two links, detached in the foreground" ||
		bad "many: $(grep detach "$TMP/many.err")"
fi
finish
