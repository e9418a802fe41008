#!/usr/bin/env bash
# Functions the compiler inlined (src/probe/inline.c): tests/e2e/helpers/
# inline.c built -O2 -g, spin() inlined in a loop (loop_site), once
# (one_site) and inside another inlined function (twice, in nest_site),
# and out of line through a pointer (main).  Exact counts of each
# instance under its caller, against the program's own; times between
# what the program spins (its lower bound: the uncompensated time holds
# the whole spin) and what its caller measured around each call (the
# upper bound: the probes fire inside that interval); the same from a
# stripped copy with a separate debug file (.gnu_debuglink); --dry-run's
# account of the instances; a function neither in the symbol table nor
# inlined, and a stripped binary without its debug file, refused with why.
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-inline
[ -x "$W" ] || { bad "missing $W (cmake --build)"; finish; }
ROUNDS=50
SPIN_US=200

# --dry-run: where each instance is
"$IPROF" --dry-run -f json -e "uprobe:$W:spin" -e "uprobe:$W:twice" \
	-- "$W" >"$TMP/plan.json" 2>"$TMP/plan.err"
check "dry-run: exit" "$?" 0
check "dry-run: spin inlined, timed" \
	"$(jq -r '.probes[] | select(.name == "spin") | "\(.inlined) \(.inlined_not_timed)"' "$TMP/plan.json")" "3 0"
check "dry-run: spin's callers" \
	"$(jq -r '.probes[] | select(.name == "spin") | .inlined_where' "$TMP/plan.json" |
		sed 's/ at 0x[0-9a-f]*//g')" \
	"in loop_site (inline.c:60); in one_site (inline.c:69); in twice (inline.c:49)"
check "dry-run: twice inlined once, no out-of-line copy" \
	"$(jq -r '.probes[] | select(.name == "twice") | "\(.inlined) \(.where)"' "$TMP/plan.json")" \
	"1 uprobe:$W:twice (inlined only)"

run() { # BINARY OUT: trace it, the truth in OUT.truth
	"$IPROF" -f json -o "$2" -e "uprobe:$1:spin" -e "uprobe:$1:twice" \
		-e "uprobe:$1:loop_site" -e "uprobe:$1:one_site" \
		-e "uprobe:$1:nest_site" -- "$1" "$ROUNDS" "$SPIN_US" \
		>"$2.out" 2>"$2.err"
	check "$(basename "$1"): exit" "$?" 0
	tr ' ' '\n' <"$2.out" >"$2.truth"
}

judge() { # REPORT: counts and times against the program's truth
	local r=$1 t=$1.truth b=$(basename "$1") spin_ns=$((SPIN_US * 1000))
	check "$b: loop_site>spin count (in a loop)" "$(jnode "$r" 'loop_site>spin' count)" "$(truth loop_spin "$t")"
	check "$b: one_site>spin count" "$(jnode "$r" 'one_site>spin' count)" "$(truth one_spin "$t")"
	check "$b: nest_site>twice count" "$(jnode "$r" 'nest_site>twice' count)" "$(truth twice "$t")"
	check "$b: nest_site>twice>spin count (inlined in an inlined one)" \
		"$(jnode "$r" 'nest_site>twice>spin' count)" "$(truth nest_spin "$t")"
	check "$b: spin out of line (through a pointer, from main)" "$(jnode "$r" 'spin' count)" "$(truth outl_spin "$t")"
	check "$b: loop_site count" "$(jnode "$r" 'loop_site' count)" "$(truth loop_site "$t")"
	check "$b: spin under nothing else" \
		"$(jq -r '[.tree | .. | objects | select(has("path") and .name == "spin") | .path | join(">")] | sort | join(" ")' "$r")" \
		"loop_site>spin nest_site>twice>spin one_site>spin spin"
	# each timed call holds its whole spin, and lies inside its caller's
	# own measurement of it
	within "$b: loop_site>spin raw time (ns) between its spins and its caller's clock" \
		"$(jnode "$r" 'loop_site>spin' raw_total_ns)" \
		"$(($(truth loop_spin "$t") * spin_ns))" "$(truth loop_ns "$t")"
	within "$b: one_site>spin raw time (ns)" "$(jnode "$r" 'one_site>spin' raw_total_ns)" \
		"$(($(truth one_spin "$t") * 2 * spin_ns))" "$(truth one_ns "$t")"
	within "$b: nest_site>twice raw time (ns)" "$(jnode "$r" 'nest_site>twice' raw_total_ns)" \
		"$(($(truth twice "$t") * spin_ns))" "$(truth twice_ns "$t")"
	within "$b: nest_site>twice>spin raw time (ns), within twice's" \
		"$(jnode "$r" 'nest_site>twice>spin' raw_total_ns)" \
		"$(($(truth nest_spin "$t") * spin_ns))" "$(jnode "$r" 'nest_site>twice' raw_total_ns)"
	within "$b: spin out of line raw time (ns)" "$(jnode "$r" 'spin' raw_total_ns)" \
		"$(($(truth outl_spin "$t") * spin_ns))" "$(truth outl_ns "$t")"
	# compensated, each probe by the class of the site it fired at (an
	# instance's entry emulated or single-stepped): spin's calls within
	# 10% of its own clock, or within their error bar of it (a loaded
	# host's runnable time)
	local own=$(truth spin_ns "$t") tol
	echo "$b: spin's paths (path count total_ns total_err_ns): $(jq -r '[.tree | .. | objects | select(has("path") and .name == "spin") | "\(.path | join(">")) \(.count) \(.total_ns) \(.total_err_ns)"] | join("; ")' "$r")"
	if [ "$(jq -r '.calibration.compensated // false' "$r")" != true ]; then
		# raw (the VM tier's init sets IPROF_NO_COMPENSATE: its
		# calibration under TCG takes seconds a run; tests/vm's
		# test_compensate and test_accuracy check compensation there)
		within "$b: raw (not compensated): spin's total (ns) at least its own clock, $own" \
			"$(jq '[.tree | .. | objects | select(has("path") and .name == "spin") | .total_ns] | add' "$r")" \
			"$own" 1e18
	else
		tol=$(jq --argjson o "$own" '[.tree | .. | objects | select(has("path") and .name == "spin") | .total_err_ns] | add | if . > $o / 10 then . else $o / 10 | floor end' "$r")
		within "$b: spin's compensated total (ns) against its own clock, $own, within 10% or its bar" \
			"$(jq '[.tree | .. | objects | select(has("path") and .name == "spin") | .total_ns] | add' "$r")" \
			"$((own - tol))" "$((own + tol))"
	fi
	check "$b: no frame unwound or left open" \
		"$(jq '[.tree | .. | objects | select(has("unwound")) | .unwound + .incomplete] | add' "$r")" 0
	check "$b: nothing lost" "$(jq -r '.loss | [.[]? | numbers] | add // 0' "$r")" 0
}

run "$W" "$TMP/full.json"
judge "$TMP/full.json"
# each instance's probes by their own sites' kind (issue 45 item 1): at
# 20 us spins, loop_site's instance entered at a single-stepped
# instruction, the others at an emulated call, spin's compensated total
# within its error bar of its own clock (one class for all, the stepped
# one, read it 23% low: 12.3 ms against 15.9, its bar 3.3 ms, 65a1641)
# (the VM tier runs raw: IPROF_NO_COMPENSATE, said)
if [ "${IPROF_NO_COMPENSATE:-0}" = 1 ]; then
	echo "SKIP (this check): 20 us spins against their own clock: IPROF_NO_COMPENSATE=1, raw times (the VM tier)"
else
	"$IPROF" -q -f json -o "$TMP/s20.json" -e "uprobe:$W:spin" -- "$W" 100 20 >"$TMP/s20.out" 2>>"$TMP/s20.err"
	check "20 us spins: exit" "$?" 0
	own=$(tr ' ' '\n' <"$TMP/s20.out" | sed -n 's/^spin_ns=//p')
	got=$(jq '[.tree | .. | objects | select(has("path") and .name == "spin") | .total_ns] | add' "$TMP/s20.json")
	bar=$(jq '[.tree | .. | objects | select(has("path") and .name == "spin") | .total_err_ns] | add' "$TMP/s20.json")
	within "20 us spins: spin's compensated total (ns) within its error bar ($bar) of its own clock, $own" \
		"$got" "$((own - bar))" "$((own + bar))"
fi
check "twice: stop and mechanism" \
	"$(jq -r '.probes[] | select(.name == "twice") | "\(.stop) \(.mech)"' "$TMP/full.json" | sed 's/, uprobe_multi//')" \
	"inlined uprobe (inlined)"

# stripped, its DWARF and symbols in a separate file (.gnu_debuglink)
S=$BUILD/e2e-inline-stripped
if command -v readelf >/dev/null; then
	check "stripped copy: no .debug_info" "$(readelf -S "$S" | grep -c debug_info)" 0
else
	echo "(the stripped copy's sections not checked: no readelf here)"
fi
run "$S" "$TMP/stripped.json"
judge "$TMP/stripped.json"

# the shapes that once went wrong (tests/e2e/helpers/inline_shapes.c,
# -O3), with --returns sites so that instances' exits and ordinary
# return sites share addresses: exact counts, no orphan stop, nothing
# unwound, the tail-call entry refused with its reason
X=$BUILD/e2e-inline_shapes
xs=()
for f in cond then early early_site tailext tail_site big rec; do xs+=(-e "uprobe:$X:$f"); done
"$IPROF" -f json -o "$TMP/x.json" --returns sites "${xs[@]}" -- "$X" 100 >"$TMP/x.out" 2>"$TMP/x.err"
xrc=$?
tr ' ' '\n' <"$TMP/x.out" >"$TMP/x.truth"
check "shapes: cond (its exit is then's entry)" "$(jnode "$TMP/x.json" cond count)" "$(truth cond "$TMP/x.truth")"
check "shapes: then" "$(jnode "$TMP/x.json" then count)" "$(truth then "$TMP/x.truth")"
check "shapes: early_site" "$(jnode "$TMP/x.json" early_site count)" "$(truth early_site "$TMP/x.truth")"
check "shapes: early_site>early (its exit at early_site's ret)" "$(jnode "$TMP/x.json" 'early_site>early' count)" "$(truth early "$TMP/x.truth")"
check "shapes: tail_site" "$(jnode "$TMP/x.json" tail_site count)" "$(truth tail_site "$TMP/x.truth")"
check "shapes: big (partially inlined), once per call" "$(jnode "$TMP/x.json" big count)" "$(truth big "$TMP/x.truth")"
check "shapes: big never under big" "$(jnode "$TMP/x.json" 'big>big' count)" ""
check "shapes: rec (inlined into itself), all levels" \
	"$(jq '[.tree | .. | objects | select(has("path") and .name == "rec") | .count] | add' "$TMP/x.json")" "$(truth rec "$TMP/x.truth")"
check "shapes: no orphan stop" "$(jq '[.probes[].orphan_stops] | add' "$TMP/x.json")" 0
check "shapes: nothing unwound or left open" \
	"$(jq '[.tree | .. | objects | select(has("unwound")) | .unwound + .incomplete + .exited] | add' "$TMP/x.json")" 0
# tailext: where the compiler made its call a tail call (GCC; not under
# ASan), its one instance is refused with that reason and the run exits 3
# (a timer not attached); else it is timed exactly
if jq -r '.probes[] | select(.name == "tailext") | .inlined_where' "$TMP/x.json" | grep -q "is a jump (a tail call) out of its caller"; then
	check "shapes: tailext's tail-call entry refused, said: exit" "$xrc" 3
else
	check "shapes: exit" "$xrc" 0
	check "shapes: tailext (no tail call in this build)" "$(jnode "$TMP/x.json" 'tail_site>tailext' count)" "$(truth tailext "$TMP/x.truth")"
fi

# --debuginfo DIR: a stripped copy without a debuglink, its debug file in a
# build-id tree of DIR (libdwfl for the DWARF, iprof's symbol lookup for
# its out-of-line copy)
if command -v readelf >/dev/null && command -v objcopy >/dev/null; then
	id=$(readelf -n "$W" | sed -n 's/.*Build ID: //p')
	mkdir -p "$TMP/dbg/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$W" "$TMP/dbg/.build-id/${id:0:2}/${id:2}.debug"
	objcopy --strip-all "$W" "$TMP/bare"
	"$IPROF" -f json -o "$TMP/bare.json" --debuginfo "$TMP/dbg" \
		-e "uprobe:$TMP/bare:spin" -e "uprobe:$TMP/bare:twice" \
		-e "uprobe:$TMP/bare:nest_site" -- "$TMP/bare" 5 10 >/dev/null 2>&1
	check "--debuginfo DIR (build ID): exit" "$?" 0
	check "--debuginfo DIR: nest_site>twice>spin count" "$(jnode "$TMP/bare.json" 'nest_site>twice>spin' count)" 5
	check "--debuginfo DIR: spin out of line and in loop_site, one_site" "$(jnode "$TMP/bare.json" spin count)" 25
	# a debug file of another build behind the debuglink: not used (its
	# addresses would put probes in the middle of instructions)
	(cd "$TMP" && objcopy --only-keep-debug "$X" w.debug &&
		objcopy --strip-all --add-gnu-debuglink=w.debug "$X" w &&
		cp "$BUILD/e2e-inline-stripped.debug" w.debug)
	"$IPROF" --dry-run -e "uprobe:$TMP/w:rec" -- true >"$TMP/w.out" 2>&1
	check "another build's debug file: exit" "$?" 2
	grep -q "no separate debug file" "$TMP/w.out" &&
		ok "another build's debug file: not taken" || bad "another build's debug file: $(cat "$TMP/w.out")"
else
	echo "(--debuginfo and debug files of other builds not checked: no readelf or objcopy here)"
fi

# without its debug file: nothing to find it with, said
cp "$S" "$TMP/alone"
"$IPROF" --dry-run -e "uprobe:$TMP/alone:twice" -- true >"$TMP/alone.out" 2>&1
check "stripped, no debug file: exit" "$?" 2
grep -q "no separate debug file" "$TMP/alone.out" &&
	ok "stripped, no debug file: said" || bad "stripped, no debug file: $(cat "$TMP/alone.out")"
"$IPROF" --dry-run -e "uprobe:$W:no_such_fn" -- true >"$TMP/none.out" 2>&1
check "no such function: exit" "$?" 2
grep -q "no function 'no_such_fn'.*nor is it inlined anywhere (DWARF)" "$TMP/none.out" &&
	ok "no such function: DWARF looked at" || bad "no such function: $(cat "$TMP/none.out")"
# iprof list functions: the inlined-only ones from DWARF, marked
"$IPROF" list functions "$W" >"$TMP/list" 2>/dev/null
check "list functions: twice, inlined only" "$(grep -c '^twice (inlined only)$' "$TMP/list")" 1
check "list functions: spin, a symbol (its copy), unmarked" "$(grep -c '^spin' "$TMP/list")" 1
check "list functions GLOB" "$("$IPROF" list functions "$W" 'twi*' 2>/dev/null)" "twice (inlined only)"
# --no-inline: the out-of-line copy alone
"$IPROF" -f json -o "$TMP/noinl.json" --no-inline -e "uprobe:$W:spin" -- "$W" 5 10 >/dev/null 2>&1
check "--no-inline: exit" "$?" 0
check "--no-inline: the out-of-line calls only" "$(jnode "$TMP/noinl.json" spin count)" 5
check "--no-inline: no other spin" "$(jq '[.tree | .. | objects | select(has("path") and .name == "spin")] | length' "$TMP/noinl.json")" 1
finish
