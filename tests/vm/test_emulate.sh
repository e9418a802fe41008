#!/usr/bin/env bash
# vm-suite: unstable
# Emulated return sites (Linux 6.19+, here Debian unstable's 7.x): a
# uprobe program may write its registers, so iprof's programs run a return
# site's ret themselves (bpf/iprof.bpf.c emulate()) and the kernel does not
# single-step it.  The plan says so per timer; every ret hit is run by the
# program (its own counter, iprof -v), none single-stepped; the programs
# survive with exact counts: nested and recursive calls on 3 threads, a
# C++ exception through five timed frames, swapcontext coroutines,
# longjmp; and --no-emulate single-steps them again, at a cost the same
# run measures (generously: emulated at most 0.85x of single-stepped).
. "$(dirname "$0")/../e2e/lib.sh"
need_root

W=$BUILD/uprobe-workload
# -v's summary: "... run by iprof's programs: N; single-stepped instead: M (...)"
emu_done() { sed -n 's/.*run by iprof.s programs: \([0-9]*\);.*/\1/p' "$1" | tail -1; }
emu_stepped() { sed -n 's/.*single-stepped instead: \([0-9]*\) .*/\1/p' "$1" | tail -1; }

"$IPROF" --dry-run -e "uprobe:$W:outer" -e "uprobe:$W:recurse" >"$TMP/plan" 2>&1
cat "$TMP/plan"
check "plan: outer's ret run by iprof" \
	"$(grep -c '^outer .*(iprof runs 1 of their ret: no single step)' "$TMP/plan")" 1
check "plan: no site single-stepped" "$(grep -c 'single-stepped:' "$TMP/plan")" 0
"$IPROF" --no-emulate --returns sites --dry-run -e "uprobe:$W:outer" >"$TMP/plan2" 2>&1
check "plan, --no-emulate: single-stepped, and why" \
	"$(grep -c '(1 single-stepped: --no-emulate: the kernel single-steps each ret)' "$TMP/plan2")" 1

# nested, recursive, 3 threads on 2 CPUs (so that programs are preempted:
# PREEMPT_LAZY): exact counts, every ret emulated
T=3 N=40 D=4
"$IPROF" -v -f seed -o "$TMP/rep" -e "uprobe:$W:outer" -e "uprobe:$W:spin_inner" \
	-e "uprobe:$W:recurse" \
	-- "$W" --threads $T --calls $N --spin-us 100 --sleep-us 100 --depth $D \
	>"$TMP/truth" 2>"$TMP/err"
check "workload: iprof exit status" "$?" 0
check "programs hold preemption off (bpf_preempt_disable, 6.15+ verifier)" \
	"$(grep -c 'hold preemption off: yes$' "$TMP/err")" 1
grep -v '^iprof: BPF program' "$TMP/err" | tail -5
calls=$((T * N))
check "outer count" "$(seed_field outer count "$TMP/rep")" $calls
check "outer>spin_inner count" "$(seed_field 'outer>spin_inner' count "$TMP/rep")" $calls
check "outer>recurse>recurse>recurse>recurse count" \
	"$(seed_field 'outer>recurse>recurse>recurse>recurse' count "$TMP/rep")" $calls
# each call returns through one emulated ret: outer, spin_inner, D recurse
rets=$((calls * (2 + D)))
d=$(emu_done "$TMP/err")
[ -n "$d" ] && [ "$d" -ge $rets ] && ok "rets run by iprof's programs: $d >= $rets" ||
	bad "rets run by iprof's programs: '$d', expected >= $rets"
check "none single-stepped" "$(emu_stepped "$TMP/err")" 0
check "no record lost" "$(grep -c "^# lost: none$" "$TMP/rep")" 1

# a C++ exception through foo1..foo5: the program lives, exact counts
args=()
for i in 1 2 3 4 5; do args+=(-e "uprobe:$BUILD/e2e-throw:foo$i"); done
"$IPROF" -q -f table --columns count,unwound,exited "${args[@]}" -- "$BUILD/e2e-throw" 10 \
	>"$TMP/throw" 2>&1
check "throw: exit status (the program's too)" "$?" 0
check "throw: caught every exception" "$(grep -c '^caught 10$' "$TMP/throw")" 1
check "throw: foo1..foo5: 0 calls, 9 unwound, 1 exited each" \
	"$(awk '$1 ~ /^foo[1-5]$/ { printf "%s:%s/%s/%s ", $1, $2, $3, $4 }' "$TMP/throw")" \
	"foo1:0/9/1 foo2:0/9/1 foo3:0/9/1 foo4:0/9/1 foo5:0/9/1 "

# swapcontext: work() on two stacks
"$IPROF" -q -f seed -o "$TMP/co" -e "uprobe:$BUILD/e2e-coro:work" \
	-- "$BUILD/e2e-coro" 20 >"$TMP/co.out" 2>&1
check "coroutines: exit status" "$?" 0
check "coroutines: work count" "$(seed_field work count "$TMP/co")" "$(truth work "$TMP/co.out")"
check "coroutines: no work under work" "$(seed_field 'work>work' count "$TMP/co")" ""

# longjmp out of foo
"$IPROF" -q -f seed -o "$TMP/lj" -e "uprobe:$BUILD/e2e-longjmp:run" \
	-e "uprobe:$BUILD/e2e-longjmp:foo" -e "uprobe:$BUILD/e2e-longjmp:bar" \
	-- "$BUILD/e2e-longjmp" 10 >"$TMP/lj.out" 2>&1
check "longjmp: exit status" "$?" 0
check "longjmp: run>bar count" "$(seed_field 'run>bar' count "$TMP/lj")" "$(truth bar "$TMP/lj.out")"
check "longjmp: run>foo never returned" "$(seed_field 'run>foo' count "$TMP/lj")" ""

# the cost: a ret single-stepped is a second trap.  Same boot, best of 5
# (bench_probe), per call of bench_target (push %rbp; ...; ret)
cost() {
	"$IPROF" -q "$@" -o /dev/null -e "uprobe:$BUILD/bench_probe:bench_target" \
		-- "$BUILD/bench_probe" loop ucall 2000 5 2>/dev/null |
		sed -n 's/.* ns_per_iter=\([0-9.]*\).*/\1/p'
}
base=$("$BUILD/bench_probe" loop ucall 2000 5 | sed -n 's/.* ns_per_iter=\([0-9.]*\).*/\1/p')
emu=$(cost)
# (--returns sites: without emulation --returns auto may pick a uretprobe)
step=$(cost --no-emulate --returns sites)
echo "ns per call: untraced $base, emulated ret $emu, single-stepped ret $step"
if [ -n "$emu" ] && [ -n "$step" ] &&
	awk -v e="$emu" -v s="$step" -v b="$base" 'BEGIN { exit !((e - b) <= 0.85 * (s - b)) }'; then
	ok "emulated ret cheaper than single-stepped: $emu vs $step ns per call"
else
	bad "emulated ret not cheaper than single-stepped: '$emu' vs '$step' ns per call (untraced $base)"
fi
finish
