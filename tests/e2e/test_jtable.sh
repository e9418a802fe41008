#!/usr/bin/env bash
# A function whose switch compiles to a jump table gets return sites
# (issue 43 item 3): liblzma's lzma_code (its bound checked on memory,
# then loaded into the index: src/probe/retsite.c, "Jump tables") is
# timed under --returns sites, every call closed at its ret, none unwound,
# as many calls as its uretprobe run counts; zlib's inflate planned so.
# Needs xz linked with liblzma.so.5 (SKIP otherwise).
. "$(dirname "$0")/lib.sh"
need_root

XZ=$(command -v xz) || skip "no xz here"
LZ=$(ldd "$XZ" | awk '$1 ~ /^liblzma\.so\.5/ { print $3 }')
[ -n "$LZ" ] && [ -f "$LZ" ] || skip "xz is not linked with liblzma.so.5"
seq 1 300000 >"$TMP/in"
run_xz() { "$IPROF" -q -f json -o "$TMP/$1.json" --returns "$1" -e "uprobe:$LZ:lzma_code" \
	-- "$XZ" -T1 -kfc "$TMP/in" >"$TMP/$1.xz" 2>>"$TMP/err"; }

# the plan: its return sites, not "counted, never timed"
"$IPROF" --dry-run --returns sites -e "uprobe:$LZ:lzma_code" -- "$XZ" -T1 -kfc "$TMP/in" \
	>"$TMP/dry" 2>>"$TMP/err"
check "dry-run: exit status" "$?" 0
check "dry-run: lzma_code stops at its return sites" \
	"$(grep -cE '^lzma_code .*\(stops at [0-9]+ return sites?\)' "$TMP/dry")" 1

run_xz sites
check "return sites: exit status" "$?" 0
run_xz uretprobe
check "uretprobe: exit status" "$?" 0
n=$(jnode "$TMP/uretprobe.json" lzma_code count)
within "uretprobe: lzma_code calls" "$n" 2 1e9
check "return sites: lzma_code count (the uretprobe run's)" "$(jnode "$TMP/sites.json" lzma_code count)" "$n"
check "return sites: none unwound (each closed at its ret)" "$(jnode "$TMP/sites.json" lzma_code unwound)" 0
within "return sites: lzma_code total_ns" "$(jnode "$TMP/sites.json" lzma_code total_ns)" 1 1e18
check "the output is xz's" "$(xz -dc "$TMP/sites.xz" | cmp - "$TMP/in" && echo same)" same
# zlib's inflate (a 32-bit compare of an index a 32-bit write zeroed, at
# its state machine's loop head): its plan too
LIBZ=$(ldconfig -p 2>/dev/null | awk '$1 == "libz.so.1" && /x86-64/ { print $NF; exit }')
if [ -n "$LIBZ" ]; then
	"$IPROF" --dry-run --returns sites -e "uprobe:$LIBZ:inflate" -- "$XZ" -T1 -kfc "$TMP/in" \
		>"$TMP/dryz" 2>>"$TMP/err"
	check "dry-run: inflate stops at its return sites" \
		"$(grep -cE '^inflate .*\(stops at [0-9]+ return sites?\)' "$TMP/dryz")" 1
fi
cat "$TMP/err"
finish
