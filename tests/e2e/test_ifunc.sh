#!/usr/bin/env bash
# Indirect functions (STT_GNU_IFUNC: glibc's strlen, memchr) against
# tests/e2e/helpers/ifunc.c's ground truth (issue 43, a newcomer's
# findings): a name or a glob times the implementation ld.so picks on this
# CPU, counted exactly, and that implementation is the one of all of
# glibc's candidates (__strlen_*, each probed) that the calls reach; a
# glob leaves out the resolvers (strlen_ifunc, resolve_handle_ifunc: run
# once, at relocation); a library timer that had 0 hits ends the run
# without a crash (the 0-hit hint's lookup in the command's own file
# called strlen(NULL): iprof died after the command, rc 139).
. "$(dirname "$0")/lib.sh"
need_root

W=$BUILD/e2e-ifunc
FIX=${IPROF_GLOB_FIXTURE:-$BUILD/glob-fixture}
[ -x "$W" ] || skip "$W not built"
[ -x "$FIX" ] || skip "$FIX not built"
N=300

# a glob skips a resolver: the FUNC symbol at an IFUNC's address
res=$(readelf -sW "$FIX" | awk '$4 == "IFUNC" && $8 == "handle_ifunc" { print $2 }')
check "fixture: handle_ifunc's resolver is resolve_handle_ifunc" \
	"$(readelf -sW "$FIX" | awk -v a="$res" '$2 == a && $4 == "FUNC" { print $8 }')" resolve_handle_ifunc
"$IPROF" --dry-run -f json -e "uprobe:$FIX:*ifunc*" >"$TMP/fix.json"
check "glob *ifunc*: the implementation, not the resolver" \
	"$(jq -r '[.probes[].name] | join(",")' "$TMP/fix.json")" ifunc_impl
"$IPROF" --dry-run -f json -e "uprobe:$FIX:resolve_handle_ifunc" >"$TMP/res.json"
check "a resolver named: planned" "$(jq -r '.probes[0].error' "$TMP/res.json")" null

# a library timer with 0 hits, the command's own file unstripped
"$IPROF" -q -f json -o "$TMP/zero.json" -e 'uprobe:libc.so.6:strfry' -- "$W" 1 >/dev/null 2>"$TMP/zero.err"
check "0 hits in a library: exit" "$?" 0
check "0 hits in a library: count" "$(jq -r '.probes[0].count' "$TMP/zero.json")" 0

"$W" "$N" >"$TMP/truth"
for f in strlen memchr; do
	"$IPROF" -q -f json -o "$TMP/$f.json" -e "uprobe:libc.so.6:$f" \
		-e "uprobe:libc.so.6:__${f}_*" -- "$W" "$N" >/dev/null 2>"$TMP/$f.err"
	rc=$?
	where=$(jq -r '.probes[0].where' "$TMP/$f.json" 2>/dev/null)
	impl=${where##* = }
	# the candidates' symbols: in libc6-dbg's debug file
	ncand=$(jq '.probes | length' "$TMP/$f.json" 2>/dev/null)
	if [ "$rc" = 2 ] && grep -q "ld.so picks the code at 0x" "$TMP/$f.err"; then
		ok "$f: no symbol for its implementation here (no libc6-dbg): refused, the address named"
		continue
	fi
	check "$f: exit" "$rc" 0
	case $where in
	*" = __${f}_"*) ok "$f: timed by $impl" ;;
	*) bad "$f: where is '$where', not an implementation" ;;
	esac
	check "$f: count" "$(jq -r '.probes[0].count' "$TMP/$f.json")" "$(truth $f.count "$TMP/truth")"
	[ "${ncand:-0}" -gt 2 ] || bad "$f: only ${ncand:-0} probes: the __${f}_* candidates"
	# the one candidate the calls reach is the implementation timed
	check "$f: the candidate the calls reach" \
		"$(jq -r '[.probes[1:][] | select(.count > 0) | "\(.name)=\(.count)"] | join(",")' "$TMP/$f.json")" \
		"$impl=$(truth $f.count "$TMP/truth")"
done

# a glob over libc: the IFUNCs in, their resolvers out
"$IPROF" --dry-run -f json -e 'uprobe:libc.so.6:str*' >"$TMP/glob.json"
names=$(jq -r '.probes[].name' "$TMP/glob.json")
if jq -e '.probes[] | select(.name == "strlen") | .error == null' "$TMP/strlen.json" >/dev/null 2>&1; then
	grep -qx strlen <<<"$names" && ok "glob str*: strlen in it" || bad "glob str*: no strlen"
else # its implementation has no symbol here: left out, as before
	check "glob str*: strlen left out" "$(grep -cx strlen <<<"$names")" 0
fi
# (but where this CPU's variant starts with an EVEX instruction, which a
# uprobe corrupts: glibc's __strchr_evex, tests/e2e/test_avx.sh)
check "glob str*: nothing refused but EVEX entries" \
	"$(jq '[.probes[] | select(.error != null and (.error | test("EVEX-encoded") | not))] | length' "$TMP/glob.json")" 0
check "glob str*: no resolver" "$(grep -c '_ifunc$' <<<"$names")" 0
finish
