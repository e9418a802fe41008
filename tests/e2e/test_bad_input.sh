#!/usr/bin/env bash
# Bad input: each case must give a clear error (the expected text) and a
# non-zero exit status (2 for bad input, 1 when nothing could be traced).
. "$(dirname "$0")/lib.sh"

W=$BUILD/uprobe-workload
printf 'fentri:vfs_read\n' >"$TMP/typo.conf"
printf 'span a = tracepoint:kvm:kvm_fpu -> \n' >"$TMP/nostop.conf"
printf 'func:vfs_read\nfunc:vfs_read\n' >"$TMP/dup.conf"
printf 'include missing.conf\n' >"$TMP/inc.conf"
printf 'uprobe:%s:outer if arg0 == zz\n' "$W" >"$TMP/val.conf"
printf '# nothing\n' >"$TMP/empty.conf"

# exit  expected-stderr-text  args...
cases=(
"2|typo.conf:1:1: found 'fentri:'|--probes $TMP/typo.conf"
"2|nostop.conf:1:|--probes $TMP/nostop.conf"
"2|timer 'vfs_read' already defined|--probes $TMP/dup.conf"
"2|missing.conf': No such file or directory|--probes $TMP/inc.conf"
"2|val.conf:1:|--probes $TMP/val.conf"
"2|define no timer|--probes $TMP/empty.conf"
"2|No such file or directory|--probes $TMP/does-not-exist.conf"
"2|no probes|-d 1s"
"2|--duration 'abc'|-e uprobe:$W:outer -d abc"
"2|--format 'xml'|-e uprobe:$W:outer -f xml"
"2|-p 'x1'|-e uprobe:$W:outer -p x1"
"2|-p 999999999: no such process|-e uprobe:$W:outer -p 999999999"
"2|cannot write '/nonexistent/dir/out'|-e uprobe:$W:outer -o /nonexistent/dir/out -d 1s"
"2|--rb-size|-e uprobe:$W:outer --rb-size 12Q"
"2|--maxactive '4097': expected a number from 0 to 4096|-e uprobe:$W:outer --maxactive 4097"
"2|--maxactive '-1'|-e uprobe:$W:outer --maxactive -1"
"2|--maxactive '8x'|-e uprobe:$W:outer --maxactive 8x"
"2|-o: an empty file name|-e uprobe:$W:outer -o ''"
"2|exclude each other|-e uprobe:$W:outer -p 1 -- true"
"2|must be followed by a command|-e uprobe:$W:outer --"
"2|--interval-mode delta needs --interval|-e uprobe:$W:outer --interval-mode delta"
"2|--interval 'x'|-e uprobe:$W:outer --interval x"
)
root_cases=(
"2|no_such_function|-e uprobe:$W:no_such_function -d 1s"
"2|tracepoint kvm:kvm_nope not found|-e 'span x = tracepoint:kvm:kvm_nope -> tracepoint:kvm:kvm_fpu' -d 1s"
"2|tracepoint kvm:kvm_nope not found|--strict -e uprobe:$W:outer -e 'span x = tracepoint:kvm:kvm_nope -> tracepoint:kvm:kvm_fpu' -d 1s"
"2|no probe could be attached|-e uprobe:/nonexistent/binary:f -d 1s"
"2|cannot run '/nonexistent/cmd': No such file or directory|-e uprobe:$W:outer -- /nonexistent/cmd"
"2|cannot run '/etc/passwd': Permission denied|-e uprobe:$W:outer -- /etc/passwd"
)
[ "$(id -u)" = 0 ] && cases+=("${root_cases[@]}")

for c in "${cases[@]}"; do
	IFS='|' read -r want text args <<<"$c"
	eval "\"\$IPROF\" -q $args" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$text" "$TMP/err"; then
		ok "iprof $args -> $rc: $(head -1 "$TMP/err" | cut -c1-110)"
	else
		bad "iprof $args -> exit $rc (want $want), stderr: $(head -3 "$TMP/err")"
	fi
done
[ "$(id -u)" = 0 ] || echo "note: the ${#root_cases[@]} root-only cases were not run (not root)"

# A failed run leaves the previous report in -o FILE as it was.
if [ "$(id -u)" = 0 ]; then
	echo "previous report" >"$TMP/keep.txt"
	"$IPROF" -q -e "uprobe:$W:no_such_function" -o "$TMP/keep.txt" -d 1s 2>/dev/null
	check "failed run: exit" "$?" 2
	check "failed run: -o FILE untouched" "$(cat "$TMP/keep.txt")" "previous report"
	# an output that cannot be written: the report comes out on stdout
	"$IPROF" -q -f seed -e "uprobe:$W:outer" -o /dev/full -- "$W" --calls 3 >"$TMP/full.out" 2>"$TMP/full.err"
	check "-o /dev/full: exit" "$?" 1
	check "-o /dev/full: report on stdout instead" "$(seed_field outer count "$TMP/full.out")" 3
	grep -q "cannot write '/dev/full'" "$TMP/full.err" && ok "-o /dev/full: says so" || bad "-o /dev/full: no message"
	# a file or symlink planted beside the output is never opened
	echo "precious" >"$TMP/victim"
	ln -s "$TMP/victim" "$TMP/rep.txt.tmp"
	ln -s "$TMP/victim" "$TMP/rep.txt.XXXXXX"
	"$IPROF" -q -f seed -e "uprobe:$W:outer" -o "$TMP/rep.txt" -- "$W" --calls 2 >/dev/null 2>&1
	check "planted symlinks: exit" "$?" 0
	check "planted symlinks: their target untouched" "$(cat "$TMP/victim")" precious
	check "planted symlinks: report written" "$(seed_field outer count "$TMP/rep.txt")" 2
fi

# A probe file with a good and a bad line still traces the good one.
if [ "$(id -u)" = 0 ]; then
	"$IPROF" -q -f seed -o "$TMP/rep" -e "uprobe:$W:outer" \
		-e "uprobe:$W:no_such_function" -- "$W" --calls 7 >/dev/null 2>"$TMP/err"
	check "mixed good/bad: exit" "$?" 0
	check "mixed good/bad: good timer traced" "$(seed_field outer count "$TMP/rep")" 7
	grep -q "cannot attach no_such_function: -e:2:" "$TMP/err" && ok "bad line reported" ||
		bad "bad line not reported: $(cat "$TMP/err")"
fi
finish
