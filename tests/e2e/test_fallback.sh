#!/usr/bin/env bash
# Return sites where the symbol table falls short, and no uretprobe where
# a program can unwind through it (issue 25 item 1; src/probe/retsite.c,
# src/probe/unwind.c): each program below throws C++ exceptions through timed
# functions and must live (exit 0, its own "caught" line), with exact
# counts against its ground truth (tests/e2e/helpers/fallback/).
#  1. a stripped shared library (strip --strip-unneeded): lthrow.cold is
#     gone from the symbols, found from .eh_frame;
#  2. a switch turned into a jump table (jmp *%rax), read from .rodata;
#  3. a -rdynamic program with a separate debug file: the same decisions
#     as its unstripped build;
#  4. a function no bytes explain (jmp *%rax after a lea): entry only in
#     a C++ program (--returns auto and sites), a uretprobe in a C one;
#  5. a C library's function (cb.c) that a C++ program throws through,
#     started by a wrapper (-- env PROG): a library keeps its return
#     sites whatever the command (a uretprobe is in every process that
#     loads it); an executable is judged as itself, not by the command
#     that starts it (-- sh -c); a C program that imports dlopen gets a
#     uretprobe, a C one linking libstdc++ keeps its return sites, and a
#     C++ library the dlopen program loads while traced is warned of.
#  6. libc.so.6, a library with a PT_INTERP and an entry point (it runs as
#     a program too): its qsort keeps return sites under -- CMD and -p, and
#     an untraced C++ program throwing out of a qsort comparator while
#     iprof traces lives (issue 43 item 1: a uretprobe killed it).
. "$(dirname "$0")/lib.sh"
need_root
command -v g++ >/dev/null || skip "no g++ (build-essential: tools/install-deps.sh)"
[ -x "$BUILD/e2e-unsited" ] || skip "$BUILD/e2e-unsited not built (a C++ compiler: tools/install-deps.sh)"
H=$SRC/tests/e2e/helpers/fallback
N=14

g++ -O2 -fPIC -shared "$H/lib.cc" -o "$TMP/libfb.so" &&
	strip --strip-unneeded "$TMP/libfb.so" &&
	g++ -O2 "$H/main.cc" -L"$TMP" -lfb -Wl,-rpath,"$TMP" -o "$TMP/so" &&
	g++ -O2 "$H/main.cc" "$H/lib.cc" -o "$TMP/full" &&
	g++ -O2 -g -rdynamic "$H/main.cc" "$H/lib.cc" -o "$TMP/rd-full" &&
	cp "$TMP/rd-full" "$TMP/rd" &&
	objcopy --only-keep-debug "$TMP/rd" "$TMP/rd.debug" &&
	strip --strip-debug --strip-unneeded "$TMP/rd" &&
	(cd "$TMP" && objcopy --add-gnu-debuglink=rd.debug rd) &&
	gcc -O1 "$H/hop.c" -o "$TMP/hop" || { bad "the helpers do not build"; finish; }
check "libfb.so has no .symtab" "$(readelf -S "$TMP/libfb.so" | grep -c '\.symtab')" 0
check "rd has no .symtab" "$(readelf -S "$TMP/rd" | grep -c '\.symtab')" 0

# run_case NAME LIB: lmid, lthrow and pick of LIB timed in $TMP/NAME
run_case() {
	local name=$1 lib=$2
	"$IPROF" --dry-run -e "uprobe:$lib:lmid" -e "uprobe:$lib:lthrow" \
		-e "uprobe:$lib:pick" >"$TMP/$name.plan" 2>&1
	check "$name: every timer stops at return sites" \
		"$(grep -c '(stops at [0-9]* return sites\?)\( ([^()]*\(([^()]*)[^()]*\)*)\)*$' "$TMP/$name.plan")" 3
	"$IPROF" -q -f json -o "$TMP/$name.json" -e "uprobe:$lib:lmid" \
		-e "uprobe:$lib:lthrow" -e "uprobe:$lib:pick" \
		-- "$TMP/$name" $N >"$TMP/$name.out" 2>"$TMP/$name.err"
	check "$name: iprof exit status" "$?" 0
	check "$name: the program caught every exception" \
		"$(grep '^caught' "$TMP/$name.out")" \
		"caught $(($(truth lthrow_thrown "$TMP/$name.out") + $(truth pick_thrown "$TMP/$name.out")))"
	local lt pt
	lt=$(truth lthrow_thrown "$TMP/$name.out")
	pt=$(truth pick_thrown "$TMP/$name.out")
	check "$name: lmid count" "$(jnode "$TMP/$name.json" lmid count)" $((N - lt))
	check "$name: lmid unwound" "$(jnode "$TMP/$name.json" lmid unwound)" "$lt"
	check "$name: lmid>lthrow count" "$(jnode "$TMP/$name.json" "lmid>lthrow" count)" $((N - lt))
	check "$name: lmid>lthrow unwound" "$(jnode "$TMP/$name.json" "lmid>lthrow" unwound)" "$lt"
	check "$name: pick count" "$(jnode "$TMP/$name.json" pick count)" $((N - pt))
	check "$name: pick unwound" "$(jnode "$TMP/$name.json" pick unwound)" "$pt"
	check "$name: nothing lost" "$(jq -c '[.loss.ring_buffer_drops, .loss.mismatches]' "$TMP/$name.json")" "[0,0]"
}

# 1. the stripped library
run_case so "$TMP/libfb.so"
# 2. the jump table, in the program itself (unstripped)
run_case full "$TMP/full"
grep -q 'jmp  *\*%rax' <(objdump -d --no-show-raw-insn "$TMP/full" | sed -n '/<pick>:/,/^$/p') ||
	bad "full: pick has no jmp *%rax (the compiler made no jump table)"
# 3. stripped with a debug file, and its unstripped twin: same decisions
run_case rd "$TMP/rd"
"$IPROF" --dry-run -e "uprobe:$TMP/rd-full:lmid" -e "uprobe:$TMP/rd-full:lthrow" \
	-e "uprobe:$TMP/rd-full:pick" >"$TMP/rd-full.plan" 2>&1
check "rd: the same return sites as its unstripped build" \
	"$(sed 's/rd-full/rd/g' "$TMP/rd-full.plan" | diff - "$TMP/rd.plan" && echo same)" same

# 4. no return sites: entry only where the program can unwind
U=$BUILD/e2e-unsited
for mode in auto sites; do
	"$IPROF" --dry-run --returns $mode -e "uprobe:$U:hop" >"$TMP/u.plan" 2>&1
	check "unsited, --returns $mode: hop counted only, with why" \
		"$(grep -o 'counted only (its return cannot be seen: no return sites, an indirect jmp at +0x7 (jmp rax) that is no bounded jump table iprof can read' "$TMP/u.plan")" \
		"counted only (its return cannot be seen: no return sites, an indirect jmp at +0x7 (jmp rax) that is no bounded jump table iprof can read"
done
check "unsited: the evidence named" "$("$IPROF" --dry-run -e "uprobe:$U:hop" 2>&1 | grep -o "$U imports __cxa_throw")" "$U imports __cxa_throw"
check "unsited, --returns sites: why" "$("$IPROF" --dry-run --returns sites -e "uprobe:$U:hop" 2>&1 | grep -o 'no uretprobe, which could kill the program: --returns sites')" \
	"no uretprobe, which could kill the program: --returns sites"
"$IPROF" --dry-run -f json -e "uprobe:$U:hop" >"$TMP/u.pj" 2>&1
check "unsited: JSON plan" "$(jq -c '.probes[0] | [.mech, .stop, .entry_only, (.stop_why | test("imports __cxa_throw$")), .no_return_sites_why]' "$TMP/u.pj")" \
	'["uprobe (entry only)","entry",true,true,"an indirect jmp at +0x7 (jmp rax) that is no bounded jump table iprof can read: a jump table or a tail call, iprof cannot tell"]'
check "unsited, --returns uretprobe: a uretprobe" \
	"$("$IPROF" --dry-run --returns uretprobe -e "uprobe:$U:hop" 2>&1 | grep -c '(stops by uretprobe: --returns uretprobe)$')" 1
"$IPROF" -f json -o "$TMP/u.json" -e "uprobe:$U:mid" -e "uprobe:$U:hop" -e "uprobe:$U:thrower" \
	-- "$U" $N >"$TMP/u.out" 2>"$TMP/u.err"
check "unsited: iprof exit status" "$?" 0
check "unsited: the program caught every exception" "$(grep '^caught' "$TMP/u.out")" "caught $(truth thrown "$TMP/u.out")"
check "unsited: stderr names hop and why" "$(grep -c '^iprof: hop: counted only (its return cannot be seen: no return sites (an indirect jmp' "$TMP/u.err")" 1
T=$(truth thrown "$TMP/u.out")
check "unsited: mid count" "$(jnode "$TMP/u.json" mid count)" $((N - T))
check "unsited: mid has return sites: no why in JSON" \
	"$(jq -c '.probes[] | select(.name == "mid") | [.stop, .stop_why, .no_return_sites_why]' "$TMP/u.json")" '["return_sites",null,null]'
check "unsited: hop's why in the report's JSON" \
	"$(jq -r '.probes[] | select(.name == "hop") | .no_return_sites_why' "$TMP/u.json")" \
	"an indirect jmp at +0x7 (jmp rax) that is no bounded jump table iprof can read: a jump table or a tail call, iprof cannot tell"
check "unsited: mid unwound" "$(jnode "$TMP/u.json" mid unwound)" "$T"
check "unsited: hop counted where called" "$(jnode "$TMP/u.json" "mid>hop" count)" $N
check "unsited: hop never timed" "$(jnode "$TMP/u.json" "mid>hop" total_ns)" ""
check "unsited: hop no frame (none unwound)" "$(jnode "$TMP/u.json" "mid>hop" unwound)" 0
check "unsited: thrower count (beside hop: hop jumped to it)" "$(jnode "$TMP/u.json" "mid>thrower" count)" $((N - T))
check "unsited: thrower unwound" "$(jnode "$TMP/u.json" "mid>thrower" unwound)" "$T"

# ... and a uretprobe where nothing in the program can unwind (C)
"$IPROF" --dry-run -e "uprobe:$TMP/hop:hop" >"$TMP/hop.plan" 2>&1
check "C program: hop by uretprobe, with why" \
	"$(grep -c "stops by uretprobe: an indirect jmp at +0x7 (jmp rax) .*; no unwinder or stack switch in the [0-9]* files of the program ($TMP/hop and its libraries))\$" "$TMP/hop.plan")" 1
"$IPROF" -q -f json -o "$TMP/hop.json" -e "uprobe:$TMP/hop:hop" -- "$TMP/hop" 10 >"$TMP/hop.out" 2>&1
check "C program: exit status" "$?" 0
check "C program: hop count" "$(jnode "$TMP/hop.json" hop count)" "$(truth hop "$TMP/hop.out")"
# 5. the command is not the program: a wrapper, a shell, dlopen
gcc -O2 -fPIC -shared "$H/cb.c" -o "$TMP/libcb.so" &&
	g++ -O2 "$H/cbmain.cc" -L"$TMP" -lcb -Wl,-rpath,"$TMP" -o "$TMP/cbmain" &&
	gcc -O2 "$H/dl.c" -o "$TMP/dl" -ldl || { bad "cb.c, cbmain.cc or dl.c does not build"; finish; }
"$IPROF" --dry-run -e "uprobe:$TMP/libcb.so:call_cb" -- env "$TMP/cbmain" >"$TMP/cb.plan" 2>&1
check "library under -- env: return sites, and why" \
	"$(grep -c "(stops at 1 return site) (--returns auto chose them: $TMP/libcb.so is a library: a uretprobe takes over its returns in every process that loads it, traced or not, and any of them may unwind through it)" "$TMP/cb.plan")" 1
"$IPROF" -q -f json -o "$TMP/cb.json" -e "uprobe:$TMP/libcb.so:call_cb" \
	-- env "$TMP/cbmain" $N >"$TMP/cb.out" 2>"$TMP/cb.err"
check "library under -- env: iprof exit status (the program lived)" "$?" 0
check "library under -- env: the program caught every exception" \
	"$(grep '^caught' "$TMP/cb.out")" "caught $(truth thrown "$TMP/cb.out")"
check "library under -- env: call_cb count" "$(jnode "$TMP/cb.json" call_cb count)" \
	$(($(truth calls "$TMP/cb.out") - $(truth thrown "$TMP/cb.out")))
check "library under -- env: call_cb unwound" "$(jnode "$TMP/cb.json" call_cb unwound)" "$(truth thrown "$TMP/cb.out")"
check "executable under -- sh -c: judged as itself" \
	"$("$IPROF" --dry-run -e "uprobe:$TMP/hop:hop" -- sh -c "$TMP/hop 3" 2>&1 | grep -c "stops by uretprobe: .*no unwinder or stack switch in the [0-9]* files of the program ($TMP/hop and its libraries))\$")" 1
"$IPROF" --dry-run -e "uprobe:$TMP/dl:work" -- "$TMP/dl" 3 >"$TMP/dl.plan" 2>&1
check "a C program that imports dlopen: a uretprobe, and why" \
	"$(grep -c "(stops by uretprobe: .*; no unwinder or stack switch in the [0-9]* files of the program ($TMP/dl and its libraries); $TMP/dl imports dlopen: a C++, Rust or Go runtime it loads later is warned of (what it throws through the function kills the program))\$" "$TMP/dl.plan")" 1
"$IPROF" -q -f json -o "$TMP/dl.json" -e "uprobe:$TMP/dl:work" -- "$TMP/dl" 7 >"$TMP/dl.out" 2>"$TMP/dl.err"
check "dlopen program: exit status" "$?" 0
check "dlopen program: work count" "$(jnode "$TMP/dl.json" work count)" "$(truth work "$TMP/dl.out")"
check "dlopen program: stops by uretprobe in the JSON" \
	"$(jq -r '.probes[] | select(.name == "work") | .stop' "$TMP/dl.json")" uretprobe
check "dlopen program that loads nothing: no warning" "$(grep -c 'after work got a uretprobe' "$TMP/dl.err")" 0
# a C program linking a C++ runtime it calls nothing of (libstdc++): the
# runtime catches, but nothing of the program's runs under its frames, so
# a uretprobe (tests/e2e/test_unwind_judge.sh: one it calls)
gcc -O2 "$H/dl.c" -o "$TMP/dlcxx" -ldl -Wl,--no-as-needed -lstdc++ || bad "dl.c with libstdc++ does not build"
"$IPROF" --dry-run -e "uprobe:$TMP/dlcxx:work" -- "$TMP/dlcxx" 3 >"$TMP/dlcxx.plan" 2>&1
if grep -q 'no single step)' "$TMP/dlcxx.plan"; then
	check "a C program linking libstdc++: return sites run by iprof" "$(grep -c 'stops by uretprobe' "$TMP/dlcxx.plan")" 0
else
	check "a C program linking libstdc++: a uretprobe, and why" \
		"$(grep -c "stops by uretprobe: .*: /[^ ]*libstdc++[^ ]* \(imports\|defines\) [_a-zA-Z]*, but no file that catches (/[^ ]*libstdc++[^ ]* defines __cxa_begin_catch) calls into $TMP/dlcxx or is called by it" "$TMP/dlcxx.plan")" 1
fi
"$IPROF" -q -f json -o "$TMP/dlcxx.json" -e "uprobe:$TMP/dlcxx:work" -- "$TMP/dlcxx" 7 >"$TMP/dlcxx.out" 2>&1
check "C program linking libstdc++: work count" "$(jnode "$TMP/dlcxx.json" work count)" "$(truth work "$TMP/dlcxx.out")"
# the start says the dearer stops, where the kernel single-steps a ret: a
# C program whose C++ library catches above it
JC=$BUILD/e2e-judge-catch
if [ -x "$JC" ]; then
	"$IPROF" -f json -o "$TMP/jc.json" -e "uprobe:$JC:timed" -- "$JC" 2 >/dev/null 2>"$TMP/jc.err"
	hint="^iprof: 1 timer (timed) stops at return sites whose ret the kernel single-steps, dearer than a uretprobe here: --returns auto kept them because /[^ ]*libe2e-judge-libcatch.so imports __cxa_begin_catch (a catch that may be above the function) and [^ ]* imports __cxa_throw; --returns uretprobe is cheaper"
	if grep -q 'single-stepped' "$TMP/dlcxx.plan" "$TMP/jc.err" ||
		! grep -q 'no single step)' "$TMP/dlcxx.plan"; then
		check "C program under a C++ catch: the start says its rets are single-stepped" "$(grep -c "$hint" "$TMP/jc.err")" 1
	else
		check "C program under a C++ catch: rets run by iprof, nothing said" "$(grep -c "$hint" "$TMP/jc.err")" 0
	fi
else
	echo "info: e2e-judge-catch not built (no C++ compiler): the single-step hint not checked"
fi
# the C program dlopen's a C++ library (libfb.so, case 1) while traced,
# then waits on a fifo: iprof names the process and the library
rm -f "$TMP/gate" && mkfifo "$TMP/gate"
"$IPROF" -q -f json -o "$TMP/late.json" -e "uprobe:$TMP/dl:work" \
	-- "$TMP/dl" 9 "$TMP/libfb.so" "$TMP/gate" >"$TMP/late.out" 2>"$TMP/late.err" &
ip=$!
for ((i = 0; i < 600; i++)); do
	grep -q "mapped $TMP/libfb.so after work got a uretprobe" "$TMP/late.err" && break
	sleep 0.05
done
echo go >"$TMP/gate"
wait $ip
check "late C++ runtime: iprof exit status" "$?" 0
check "late C++ runtime: the warning names the process and the library" \
	"$(grep -c "^iprof: process [0-9]* (dl) mapped $TMP/libfb.so after work got a uretprobe: $TMP/libfb.so \(imports\|defines\) [_a-zA-Z]*; a C++ exception, Rust panic or Go unwind through work meets its uretprobe's trampoline and kills the process\$" "$TMP/late.err")" 1
check "late C++ runtime: libstdc++ named too, once" \
	"$(grep -c "^iprof: process [0-9]* (dl) mapped /[^ ]*libstdc++[^ ]* after work got a uretprobe" "$TMP/late.err")" 1
check "late C++ runtime: work count" "$(jnode "$TMP/late.json" work count)" "$(truth work "$TMP/late.out")"
# 6. a library that runs as a program too (libc.so.6) is a library; an
# untraced C++ program throws through the timed qsort while iprof traces
# a -- CMD, then a -p process (sleep: a plain C program)
g++ -O2 "$H/qsort.cc" -o "$TMP/qsort" || { bad "qsort.cc does not build"; finish; }
libc=$(ldd "$TMP/qsort" | awk '$1 == "libc.so.6" { print $3 }')
libc=$(realpath "$libc")
check "libc.so.6 has a PT_INTERP (else this case proves nothing)" \
	"$(readelf -lW "$libc" | grep -c ' INTERP ')" 1
lib_why="(--returns auto chose them: $libc is a library: a uretprobe takes over its returns in every process that loads it, traced or not, and any of them may unwind through it)"
check "libc qsort under -- CMD: return sites, and why" \
	"$("$IPROF" --dry-run -e 'uprobe:libc.so.6:qsort' -- sleep 1 2>&1 | grep -cF "$lib_why")" 1
# untraced_lives DESC ARGS...: iprof ARGS in the background; once it
# traces, the untraced C++ program sorts (its qsort hits the timed libc's
# probes, filtered out in BPF) and must catch every throw
untraced_lives() {
	local desc=$1
	shift
	"$IPROF" -e 'uprobe:libc.so.6:qsort' "$@" >"$TMP/qs.rep" 2>"$TMP/qs.err" &
	local ip=$!
	wait_tracing "$TMP/qs.err" || bad "$desc: iprof never traced"
	"$TMP/qsort" 200 1000 >"$TMP/qs.out" 2>"$TMP/qs.prog.err"
	check "$desc: the untraced program's exit status" "$?" 0
	check "$desc: the untraced program caught every throw" \
		"$(grep '^caught' "$TMP/qs.out")" "caught $(truth sorts "$TMP/qs.out")"
	wait $ip
	check "$desc: iprof exit status" "$?" 0
	cat "$TMP/qs.prog.err"
}
untraced_lives "libc qsort under -- sleep" -- sleep 2.5
sleep 30 &
sp=$!
check "libc qsort under -p of a C program: return sites, and why" \
	"$("$IPROF" --dry-run -e 'uprobe:libc.so.6:qsort' -p $sp 2>&1 | grep -cF "$lib_why")" 1
untraced_lives "libc qsort under -p of a C program" -p $sp --duration 2.5s
kill $sp 2>/dev/null
wait $sp 2>/dev/null
# --- tail calls (issue 25 item 2): said where the numbers are
gcc -O2 "$H/tail.c" -o "$TMP/tail" || bad "tail.c does not build"
objdump -d --no-show-raw-insn "$TMP/tail" | sed -n '/<tailer>:/,/^$/p' | grep -q 'jmp .*<callee>' ||
	bad "tail: tailer makes no tail call (the compiler changed)"
# (--returns sites: a C program that cannot unwind gets uretprobes from
# --returns auto where the kernel single-steps return sites)
tlp=(-e "uprobe:$TMP/tail:tailer" -e "uprobe:$TMP/tail:callee")
tl=(--returns sites "${tlp[@]}")
"$IPROF" -q "${tl[@]}" -- "$TMP/tail" 10 >"$TMP/tail.tab" 2>&1
check "tail: table exit status" "$?" 0
check "tail: tailer marked" "$(grep -c '^tailer\*  *10 ' "$TMP/tail.tab")" 1
check "tail: callee beside it" "$(grep -c '^callee  *10 ' "$TMP/tail.tab")" 1
check "tail: footnote" "$(grep '^\* tailer:' "$TMP/tail.tab")" \
	"* tailer: stops at a tail call (1 of its return sites jmp out of it): its times end at the jump; the function it jumps to runs after it, beside it, not under it (--returns uretprobe times it to its real return)"
"$IPROF" -q -f seed -o "$TMP/tail.seed" "${tl[@]}" -- "$TMP/tail" 10 >/dev/null 2>&1
check "tail: seed rows untouched" "$(seed_field tailer count "$TMP/tail.seed"),$(seed_field callee count "$TMP/tail.seed")" "10,10"
check "tail: seed note" "$(grep -c '^# tail call: tailer stops at a tail call (1 of its return sites jmp out of it)' "$TMP/tail.seed")" 1
"$IPROF" -q -f json -o "$TMP/tail.json" "${tl[@]}" -- "$TMP/tail" 10 >/dev/null 2>&1
check "tail: JSON" "$(jq -c '[.probes[] | [.name, .stop, .tail_calls]]' "$TMP/tail.json")" \
	'[["tailer","return_sites",1],["callee","return_sites",0]]'
"$IPROF" -q --returns uretprobe "${tlp[@]}" -- "$TMP/tail" 10 >"$TMP/tail.ur" 2>&1
check "tail, --returns uretprobe: callee under tailer" "$(grep -c '^  callee  *10 ' "$TMP/tail.ur")" 1
check "tail, --returns uretprobe: what the numbers mean" "$(grep '^tailer:' "$TMP/tail.ur")" \
	"tailer: stops by uretprobe at its real return: its times include what its tail calls (1 jmp out of it) run, shown under it"
cat "$TMP/u.err"
finish
