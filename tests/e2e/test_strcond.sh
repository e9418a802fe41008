#!/usr/bin/env bash
# String conditions (issue 46 item 2): `if str(ARG) == "TEXT"`, `!=` and
# the prefix `=~ "TEXT*"`, compared in BPF, against tools/usdt-strings'
# own counts: USDT arguments, a uprobe's argument, escapes (a quote, a
# backslash, \xNN bytes), a string longer than the read (its prefix
# matches, no constant equals it), an unreadable address (NULL: != holds);
# a syscall tracepoint's filename; bad syntax exits 2 with file:line:col.
. "$(dirname "$0")/lib.sh"
need_root
S=$BUILD/usdt-strings
[ -x "$S" ] || skip "no $S (sys/sdt.h missing at build time: systemtap-sdt-dev)"
command -v jq >/dev/null || skip "no jq"

# count TIMER: the calls of TIMER over every path of $TMP/rep.json
count() {
	jq --arg n "$1" '[.tree | .. | objects | select(has("path")) |
		select(.path[-1] == $n) | .count] | add // 0' "$TMP/rep.json"
}

N=40 D=5
L=L123456789012345678901234567890123456789012345678901234567890123 # 64 bytes
run() { # SPEC...: iprof -f json over usdt-strings
	"$IPROF" -q -f json -o "$TMP/rep.json" "$@" \
		-- "$S" --calls $N --distinct $D >"$TMP/truth" 2>"$TMP/err"
	check "iprof exit status" "$?" 0
	cat "$TMP/err"
}
START="usdt:$S:req__start"
DONE="usdt:$S:req__done"
run -e "span get = $START if str(arg0) == \"GET /index\" -> $DONE" \
	-e "span post = $START if str(arg0) =~ \"POST*\" -> $DONE" \
	-e "span odd = $START if str(arg0) == \"odd\\\"q\\\\b;c d\\xff\\x01\" -> $DONE" \
	-e "span long = $START if str(arg0) =~ \"$L*\" -> $DONE" \
	-e "span longeq = $START if str(arg0) == \"$L\" -> $DONE" \
	-e "span p3 = $START if str(arg0) == \"p3\" && arg1 >= 0 -> $DONE" \
	-e "uprobe:$S:handle if str(arg0) != \"GET /index\""
k=$(truth kind0.count "$TMP/truth")
check "workload: kinds" "$k $(truth distinct.count "$TMP/truth") $(truth null.count "$TMP/truth")" "$((N / 4)) $((2 * D)) 1"
check "get (== GET /index)" "$(count get)" "$k"
check "post (=~ POST*)" "$(count post)" "$k"
check "odd (escapes)" "$(count odd)" "$k"
check "long (=~ its first 64 bytes)" "$(count long)" "$k"
check "longeq (== its first 64 bytes: a longer string)" "$(count longeq)" 0
check "p3 (and an integer condition)" "$(count p3)" 2
# every request but the GET ones: the three other kinds, the distinct
# ones and the NULL path (unreadable: != holds)
check "handle (!= GET /index)" "$(count handle)" $((N - k + 2 * D + 1))

# a syscall tracepoint's filename: the files opened, by name and prefix
mkdir "$TMP/f" && echo >"$TMP/f/a1" && echo >"$TMP/f/a2" && echo >"$TMP/f/b1"
"$IPROF" -q -f json -o "$TMP/rep.json" \
	-e "span a = tp:syscalls:sys_enter_openat if str(filename) =~ \"$TMP/f/a*\" -> tp:syscalls:sys_exit_openat" \
	-e "span b = tp:syscalls:sys_enter_openat if str(filename) == \"$TMP/f/b1\" -> tp:syscalls:sys_exit_openat" \
	-- cat "$TMP/f/a1" "$TMP/f/a2" "$TMP/f/b1" >/dev/null 2>"$TMP/err"
check "openat: iprof exit status" "$?" 0
check "openat a* (a1, a2)" "$(count a)" 2
check "openat b1" "$(count b)" 1

# refusals: exit 2, file:line:col
refused() { # NAME WANT SPEC
	"$IPROF" -q -e "$3" -- true >/dev/null 2>"$TMP/$1.bad"
	check "$1: exit status" "$?" 2
	cat "$TMP/$1.bad"
	check "$1: message" "$(grep -cF -- "$2" "$TMP/$1.bad")" 1
}
refused op "-e:1:$((${#S} + 29)): found '<', expected '==', '!=' or '=~' after str(...)" \
	"uprobe:$S:handle if str(arg0) < \"a\""
refused quote "-e:1:$((${#S} + 32)): found 'a', expected a string in double quotes" \
	"uprobe:$S:handle if str(arg0) == a"
refused prefix "-e:1:$((${#S} + 32)): found '\"a*b\"', expected a prefix after '=~': \"TEXT*\"" \
	"uprobe:$S:handle if str(arg0) =~ \"a*b\""
refused close "-e:1:$((${#S} + 36)): found end of line, expected '\"' closing the string" \
	"uprobe:$S:handle if str(arg0) == \"abc"
refused escape "-e:1:$((${#S} + 33)): found '\\q', expected an escape" \
	"uprobe:$S:handle if str(arg0) == \"\\q\""
refused long "expected at most 64 bytes in a string" \
	"uprobe:$S:handle if str(arg0) == \"${L}x\""
refused narrow "-e:1:45: field 'pid' of sched:sched_process_exec is 4 bytes (pid_t)" \
	"span x = tp:sched:sched_process_exec if str(pid) == \"a\" -> tp:sched:sched_process_exit"
refused kernel "-e:1:22: str() reads a string at a user address: a kernel function's arguments point to kernel memory" \
	'func:vfs_read if str(arg1) == "a"'
finish
