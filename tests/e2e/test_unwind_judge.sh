#!/usr/bin/env bash
# --returns auto's judgment of a C program linked with a C++ library
# (issue 43 items 1, 2, 7; src/probe/unwind.c): an unwind harms a
# uretprobe'd function only where it crosses the function's frame on its
# way to a catch (or, forced, to a cleanup) above it, so a catch or a
# cleanup counts only in a file whose code can be above the program's:
# the program itself, a library it calls (it may call back), one that
# calls into it.
#   e2e-judge-catch: the library calls the program back inside its try
#     block and timed() throws through it: return sites, the program lives
#     (under --returns uretprobe it dies: std::terminate, 134);
#   e2e-judge-clean: the library has destructors only; libstdc++ (beside
#     the library, not the program) catches: a uretprobe, nothing harmed;
#   e2e-judge-force: the same beside pthread_exit (a forced unwind skips
#     the library's cleanups above a trampoline): return sites.
. "$(dirname "$0")/lib.sh"
need_root

C=$BUILD/e2e-judge-catch K=$BUILD/e2e-judge-clean F=$BUILD/e2e-judge-force
[ -x "$C" ] && [ -x "$K" ] && [ -x "$F" ] || skip "e2e-judge-* not built (no C++ compiler)"
LC=$(realpath "$BUILD/libe2e-judge-libcatch.so") LK=$(realpath "$BUILD/libe2e-judge-libclean.so")
N=10

# where iprof's programs run a return site's ret (Linux 6.19+), --returns
# auto keeps return sites for every program: no single step to spare
"$IPROF" --dry-run -e "uprobe:$K:timed" -- "$K" >"$TMP/k.plan" 2>&1
emu=0
grep -q 'no single step)' "$TMP/k.plan" && emu=1

"$IPROF" --dry-run -e "uprobe:$C:timed" -- "$C" >"$TMP/c.plan" 2>&1
"$IPROF" --dry-run -e "uprobe:$F:timed" -- "$F" >"$TMP/f.plan" 2>&1
if [ $emu = 0 ]; then
	check "catch: return sites, the evidence named" \
		"$(grep -c "(--returns auto chose them: $LC imports __cxa_begin_catch (a catch that may be above the function) and $LC imports __cxa_throw)" "$TMP/c.plan")" 1
	check "clean: a uretprobe, why" \
		"$(grep -c "stops by uretprobe: .*no unwind that can cross it and no stack switch in the [0-9]* files of the program ($K and its libraries): .* but no file that catches (.*libstdc++.* defines __cxa_begin_catch) calls into $K or is called by it)\$" "$TMP/k.plan")" 1
	check "force: return sites, the evidence named" \
		"$(grep -c "(--returns auto chose them: $LK imports _Unwind_Resume (a cleanup that may be above the function, which a forced unwind through it skips) and $F imports pthread_exit)" "$TMP/f.plan")" 1
else
	echo "info: this kernel ($(uname -r)) runs return sites' ret: auto keeps them for every program"
	check "clean: return sites" "$(grep -c 'stops by uretprobe' "$TMP/k.plan")" 0
fi

# the programs live and are counted whole: timed()'s returns, the calls
# the exception unwound (closed by the next call's entry or at the exit)
for p in catch clean force; do
	b=$BUILD/e2e-judge-$p
	"$IPROF" -q -f json -o "$TMP/$p.json" -e "uprobe:$b:timed" -- "$b" $N >"$TMP/$p.out" 2>"$TMP/$p.err"
	check "$p: exit status (the program's too)" "$?" 0
	caught=0
	[ $p = catch ] && caught=$((N / 2))
	check "$p: the program's own line" "$(cat "$TMP/$p.out")" "calls=$N caught=$caught"
	calls=$N
	[ $p = force ] && calls=$((N + 1))
	check "$p: timed, every call" \
		"$(jq '[.tree[] | select(.path == ["timed"]) | .count + (.unwound // 0) + (.exited // 0)] | add' "$TMP/$p.json")" $calls
	check "$p: returned" "$(jq '[.tree[] | select(.path == ["timed"]) | .count] | add' "$TMP/$p.json")" \
		$((calls - caught))
done

# --slowest ranks the calls that returned and says how many it could not
# rank: the 5 that threw (4 closed by the next call's entry, the last
# open when the program exited)
"$IPROF" --slowest 3 -e "uprobe:$C:timed" -- "$C" $N >/dev/null 2>"$TMP/slow.err"
check "catch, --slowest: 3 ranked" "$(grep -c '^  [123]\. ' "$TMP/slow.err")" 3
check "catch, --slowest: the calls not ranked, and why" \
	"$(grep -c "^  not ranked, their end not known: $((N / 2)) calls ($((N / 2 - 1)) unwound, 1 open at their thread's exit)\$" "$TMP/slow.err")" 1

# what the return sites save it from: the same exception through a
# uretprobe's trampoline (not run where uretprobes are not what auto
# avoided; the judgment above is the test, this is its reason)
"$IPROF" -q -f json -o "$TMP/u.json" --returns uretprobe -e "uprobe:$C:timed" -- "$C" $N >"$TMP/u.out" 2>"$TMP/u.err"
check "catch, --returns uretprobe: the program dies (std::terminate)" "$?" 134
check "catch, --returns uretprobe: warned beforehand" \
	"$(grep -c "timed: --returns uretprobe, but $LC imports __cxa_begin_catch (a catch that may be above the function)" "$TMP/u.err")" 1
finish
