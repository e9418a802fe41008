#!/usr/bin/env bash
# --by comm follows renames: a thread named alpha calls work() 5 times,
# renames itself beta (prctl(PR_SET_NAME), then a write to
# /proc/self/task/TID/comm), calls it 7 times (tests/e2e/helpers/rename.c
# prints the counts): work is 5 under alpha and 7 under beta.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-rename
[ -x "$W" ] || skip "$W not built"
for how in prctl proc; do
	arg=; [ $how = proc ] && arg=--proc
	"$IPROF" -q -f json --by comm -o "$TMP/$how.json" -e "uprobe:$W:work" \
		-- "$W" $arg 5 7 >"$TMP/$how.truth" 2>"$TMP/$how.err"
	check "$how: iprof exit status" "$?" 0
	check "$how: work under alpha" "$(jnode "$TMP/$how.json" 'alpha>work' count)" \
		"$(truth alpha.count "$TMP/$how.truth")"
	check "$how: work under beta" "$(jnode "$TMP/$how.json" 'beta>work' count)" \
		"$(truth beta.count "$TMP/$how.truth")"
	check "$how: nothing else" "$(jq '[.tree[] | .children[] | .count] | add' "$TMP/$how.json")" 12
done
finish
