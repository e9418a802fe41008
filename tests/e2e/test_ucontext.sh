#!/usr/bin/env bash
# Stack switches told by the switch itself (issue 43 item 5): uftrace's
# ucontext test shape, swapcontext onto a stack buffer less than 64 KiB
# from the stack left (tests/e2e/helpers/ucoro.c): in main's frame, in
# foo's own frame, and two nested coroutines (B switches to C and back).
# The BPF side sees libc's getcontext, setcontext and swapcontext
# (bpf/iprof.bpf.c ctx_switch()), so no hit on the coroutine's stack
# closes the frames of the stack it left, however close: the exact tree
# main > foo > {bar | b1, c1, b2}, every call returned, nothing unwound
# (main's build: foo count 0, unwound 1, bar under main).
. "$(dirname "$0")/lib.sh"
need_root

U=$BUILD/e2e-ucoro
[ -x "$U" ] || skip "$U not built"
N=7
args=()
for f in main foo bar b1 c1 b2; do args+=(-e "uprobe:$U:$f"); done

for mode in main foo nested; do
	"$IPROF" -q -f json -o "$TMP/$mode.json" "${args[@]}" -- "$U" "$mode" $N \
		>"$TMP/$mode.out" 2>"$TMP/err"
	check "$mode: exit status" "$?" 0
	check "$mode: the program's own count of foo" "$(truth foo "$TMP/$mode.out")" $N
	check "$mode: main" "$(jnode "$TMP/$mode.json" main count)" 1
	check "$mode: main > foo" "$(jnode "$TMP/$mode.json" "main>foo" count)" $N
	if [ "$mode" = nested ]; then
		kids="b1 c1 b2"
	else
		kids=bar
	fi
	for k in $kids; do
		check "$mode: main > foo > $k" "$(jnode "$TMP/$mode.json" "main>foo>$k" count)" \
			"$(truth "$k" "$TMP/$mode.out")"
	done
	# the whole tree: those paths and no other, nothing unwound,
	# nothing left open
	check "$mode: the paths" \
		"$(jq -r '[.tree[] | recurse(.children[]?) | .path | join(">")] | sort | join(" ")' "$TMP/$mode.json")" \
		"$( (printf 'main\nmain>foo\n'; for k in $kids; do echo "main>foo>$k"; done) | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
	check "$mode: unwound, exited, incomplete" \
		"$(jq -r '[.tree[] | recurse(.children[]?) | (.unwound // 0) + (.exited // 0) + (.incomplete // 0)] | add' "$TMP/$mode.json")" 0
done
finish
