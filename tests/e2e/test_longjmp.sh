#!/usr/bin/env bash
# Frames that a longjmp or siglongjmp skipped, timed by uretprobes (issue 43
# item 2), against tools/longjmp-workload's ground truth: a longjmp across
# 1, 2 and 50 (recursive) frames, a siglongjmp out of a signal handler,
# and a tail call (no longjmp).  The program lives under uretprobes; every
# skipped frame closes as unwound where the stack shows it left (a call
# from its slot, which no longer holds the uretprobe trampoline), never
# timed, and after() nests under its driver, never under a left frame; the
# tail call's callee stays under its caller (beside it at return sites:
# the tail call's jmp stops it).  --returns auto picks uretprobes for this
# program (its only non-local exits are longjmp-style) where the kernel
# single-steps return sites, emulated return sites where iprof's programs
# run the ret (7.x); --returns sites gives the same tree (a longjmp out of
# 50 frames closes all 50 at the next call).  The VM tier runs it on 6.1,
# 6.12 and 7.x (tests/vm/test_longjmp.sh).
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/longjmp-workload
[ -x "$W" ] || skip "$W not built"
N=10 D=50
fns="drv_one leaf_one drv_two mid_two leaf_two drv_deep rec_deep drv_sig work_sig on_sig drv_tail tail_after after"
args=()
for f in $fns; do args+=(-e "uprobe:$W:$f"); done

# the tree of a flat JSON report, one "path count unwound exited" line per
# node, sorted; runs of rec_deep written rec_deep*K
tree() {
	jq -r '.nodes[] | [(.path | join(">")), .count, .unwound, .exited] | @tsv' "$1" |
		awk -F'\t' '{
			n = split($1, a, ">"); out = ""
			for (i = 1; i <= n; i = j + 1) {
				for (j = i; j < n && a[j + 1] == a[i]; j++) ;
				out = out (out == "" ? "" : ">") a[i] (j > i ? "*" (j - i + 1) : "")
			}
			print out, $2, $3, $4
		}' | sort
}

# what the ground truth in $1 says the tree is, stopped by uretprobes or
# at return sites ($2: uretprobe or sites)
expected() {
	local n d k
	n=$(truth calls "$1") d=$(truth depth "$1")
	{
		echo "drv_one 1 0 0"
		echo "drv_one>leaf_one 0 $(truth leaf_one "$1") 0"
		echo "drv_one>after $n 0 0"
		echo "drv_two 1 0 0"
		echo "drv_two>mid_two 0 $(truth mid_two "$1") 0"
		echo "drv_two>mid_two>leaf_two 0 $(truth leaf_two "$1") 0"
		echo "drv_two>after $n 0 0"
		echo "drv_deep 1 0 0"
		echo "drv_deep>rec_deep 0 $((  $(truth rec_deep "$1") / d )) 0"
		for k in $(seq 2 "$d"); do echo "drv_deep>rec_deep*$k 0 $(($(truth rec_deep "$1") / d)) 0"; done
		echo "drv_deep>after $n 0 0"
		echo "drv_sig 1 0 0"
		echo "drv_sig>work_sig 0 $(truth work_sig "$1") 0"
		echo "drv_sig>work_sig>on_sig 0 $(truth on_sig "$1") 0"
		echo "drv_sig>after $n 0 0"
		echo "drv_tail 1 0 0"
		echo "drv_tail>tail_after $(truth tail_after "$1") 0 0"
		if [ "$2" = uretprobe ]; then
			echo "drv_tail>tail_after>after $(($(truth after "$1") - 4 * n)) 0 0"
		else
			echo "drv_tail>after $(($(truth after "$1") - 4 * n)) 0 0"
		fi
	} | sort
}

# where iprof's programs run a return site's ret (Linux 6.19+), --returns
# auto keeps return sites: no single step to spare
"$IPROF" --dry-run --returns sites -e "uprobe:$W:after" >"$TMP/plan.emu" 2>&1
auto=uretprobe
grep -q '(iprof runs 1 of their ret: no single step)' "$TMP/plan.emu" && auto=sites
# the VM tier's workloads are static (tests/vm/run.sh): glibc's archive
# links libgcc's unwinder in (_Unwind_Resume, for thread cancellation),
# evidence that the program can unwind: there --returns auto keeps return
# sites, and --returns uretprobe warns of it
risk=
if [ -n "${IPROF_IN_VM:-}" ]; then
	auto=sites
	risk="$W defines _Unwind_Resume"
fi
echo "this kernel ($(uname -r))${risk:+, a static workload}: --returns auto should stop by $auto"
nf=$(echo $fns | wc -w)
for r in uretprobe auto sites; do
	m=$r
	[ $r = auto ] && m=$auto
	"$IPROF" --dry-run --returns $r "${args[@]}" -- "$W" >"$TMP/plan.$r" 2>&1
	check "--returns $r: functions stopped by uretprobe" \
		"$(grep -c 'stops by uretprobe' "$TMP/plan.$r")" "$([ $m = uretprobe ] && echo $nf || echo 0)"
	"$IPROF" -q -f json --json-tree flat -o "$TMP/$r.json" --returns $r "${args[@]}" \
		-- "$W" --calls $N --depth $D >"$TMP/$r.out" 2>"$TMP/$r.err"
	check "--returns $r: exit status (the program's too)" "$?" 0
	if [ $r = uretprobe ] && [ -n "$risk" ]; then
		# two timers in full, the others in one line (main.c
		# warn_returns()), and no other line
		full=$((nf < 2 ? nf : 2))
		more="^iprof: $((nf - full)) more timers' uretprobes may meet an unwinder or a stack switch: "
		check "--returns $r: warned of the unwinder, not of longjmp (in full, in one line, other lines)" \
			"$(grep -c ", but $risk: an unwinder" "$TMP/$r.err"),$(grep -c "$more" "$TMP/$r.err"),$(grep -v ", but $risk: an unwinder" "$TMP/$r.err" | grep -vc "$more")" \
			"$full,$((nf > full ? 1 : 0)),0"
	else
		check "--returns $r: no warning (a longjmp does not harm it)" "$(cat "$TMP/$r.err")" ""
	fi
	check "--returns $r: the program ran to its end" "$(truth calls "$TMP/$r.out"),$(truth rec_deep "$TMP/$r.out")" "$N,$((N * D))"
	check "--returns $r: the tree" "$(tree "$TMP/$r.json")" "$(expected "$TMP/$r.out" $m)"
	check "--returns $r: [unwound, other loss]" \
		"$(jq -c '[.loss.unwound_frames, ([.loss | to_entries[] | select(.key != "unwound_frames") | .value] | add)]' "$TMP/$r.json")" \
		"[$((N * (1 + 2 + D + 2))),0]"
done
# what does kill a program is said where it is asked for: a stack switch
# (e2e-coro imports swapcontext; its main is on no coroutine's path) or,
# in the VM tier, the static archive's unwinder
if [ -x "$BUILD/e2e-coro" ]; then
	"$IPROF" -q --returns uretprobe -o "$TMP/coro.rep" -e "uprobe:$BUILD/e2e-coro:main" -- "$BUILD/e2e-coro" 2 \
		>/dev/null 2>"$TMP/coro.err"
	check "coroutines, --returns uretprobe: exit status" "$?" 0
	check "coroutines, --returns uretprobe: the warning" "$(sed 's/^iprof: main: --returns uretprobe, but [^:]*: //' "$TMP/coro.err")" \
		"an unwinder (a C++ exception, a Rust panic, a forced thread exit) or a stack switch that meets its uretprobe's trampoline kills the program (a longjmp past it does not)"
fi
finish
