#!/usr/bin/env bash
# AVX and AVX-512 code (tests/e2e/helpers/avx.c; issue 43 item 3, what
# harms nothing): a uprobe on an EVEX-encoded instruction makes the kernel
# single-step it and corrupts it (glibc's __strchr_evex then missed every
# match, in every process: bench/README.md "EVEX"), so iprof refuses a
# function that starts with one, named; and the VEX and EVEX instructions
# Capstone 4 cannot decode no longer hide a function's return sites.
. "$(dirname "$0")/lib.sh"
need_root

A=$BUILD/e2e-avx
N=200
[ -x "$A" ] || skip "$A not built"
"$IPROF" --dry-run --returns sites -e "uprobe:$A:bcast_evex" -e "uprobe:$A:bcast_mid" -- "$A" >"$TMP/plan" 2>&1
check "bcast_evex: refused, why named" \
	"$(grep -c "its first instruction is EVEX-encoded (AVX-512, 0x62 at offset 0x[0-9a-f]* of $A): a uprobe there makes the kernel single-step it, which corrupts what it computes, in every process that runs it" "$TMP/plan")" 1
check "bcast_mid: its return sites past the EVEX and VEX instructions" \
	"$(grep -c "uprobe:$A:bcast_mid (stops at 2 return sites)" "$TMP/plan")" 1

if [ "$("$A" 1 | head -1)" != avx512=1 ]; then
	echo "info: this CPU lacks AVX-512 (F, BW, VL): the program's runs are not checked"
	finish
fi
"$A" $N >"$TMP/untraced.out"
check "untraced: every result right" "$(truth bad "$TMP/untraced.out"),$(truth same "$TMP/untraced.out")" "0,$N"
# the refused timer is said and iprof exits 3; the other is timed, and
# the program's results are its own
"$IPROF" -q -f json -o "$TMP/a.json" --returns sites -e "uprobe:$A:bcast_evex" -e "uprobe:$A:bcast_mid" \
	-- "$A" $N >"$TMP/a.out" 2>"$TMP/a.err"
check "traced: exit status (a timer not attached)" "$?" 3
check "traced: every result right" "$(truth bad "$TMP/a.out"),$(truth same "$TMP/a.out")" "0,$N"
check "traced: bcast_mid timed at its return sites, every call" \
	"$(jq -c '[.tree[] | select(.path == ["bcast_mid"]) | .count, .counted_only]' "$TMP/a.json")" "[$((2 * N)),0]"
check "traced: the refusal in the report" \
	"$(jq -c '[.probes[] | [.name, .attached, (.error // "" | test("EVEX-encoded"))]]' "$TMP/a.json")" \
	'[["bcast_evex",false,true],["bcast_mid",true,false]]'
finish
