#!/usr/bin/env bash
# iprof list tracepoints|functions|kernel, exact output against what the
# system and the binaries say (tracefs, readelf, kallsyms), and uprobe globs:
# one timer per function, exact counts against uprobe-workload's ground
# truth, the cap of 2000 functions per glob.
. "$(dirname "$0")/lib.sh"
need_root
command -v readelf >/dev/null || skip "readelf (binutils) is not installed"

W=$BUILD/uprobe-workload
FIX=${IPROF_GLOB_FIXTURE:-$BUILD/glob-fixture}
TFS=/sys/kernel/tracing
[ -e $TFS/events ] || TFS=/sys/kernel/debug/tracing

# --- list functions ----------------------------------------------------------
"$IPROF" list functions "$W" 'spin_*' >"$TMP/out" 2>"$TMP/err"
check "list functions spin_*: exit" "$?" 0
check "list functions spin_*: output" "$(cat "$TMP/out")" "spin_inner"
check "list functions spin_*: count on stderr" "$(cat "$TMP/err")" \
	"iprof: 1 function in $(realpath "$W") matching 'spin_*'"

# every function, against readelf: defined FUNC symbols, versions cut off
readelf -sW "$W" | awk '$4 == "FUNC" && $7 != "UND" { sub(/@.*/, "", $8); print $8 }' |
	LC_ALL=C sort -u >"$TMP/want"
[ -s "$TMP/want" ] || bad "readelf found no function in $W"
"$IPROF" list functions -q "$W" | cut -d' ' -f1 >"$TMP/all"
check "list functions (all) = readelf's FUNC symbols" "$(diff "$TMP/want" "$TMP/all" && echo same)" same
for f in outer spin_inner sleep_inner recurse exit_inside hang; do
	grep -qx "$f" "$TMP/all" && ok "workload function $f listed" || bad "workload function $f not listed"
done

"$IPROF" list functions -q "$FIX" 'handle_*' >"$TMP/out"
check "list functions handle_*: exit" "$?" 0
check "list functions handle_*: clones with their function, no IFUNC" "$(cat "$TMP/out")" \
"handle_get
handle_put
handle_put.cold (clone of handle_put)
handle_put.isra.0 (clone of handle_put)
handle_static"
check "a function's clones match with it" "$("$IPROF" list functions -q "$FIX" handle_put | tr '\n' ,)" \
	"handle_put,handle_put.cold (clone of handle_put),handle_put.isra.0 (clone of handle_put),"
check "many_* count" "$("$IPROF" list functions -q "$FIX" 'many_*' | wc -l)" 2001

out=$("$IPROF" list functions "$W" 'zz*' 2>"$TMP/err")
check "nothing matched: exit" "$?" 1
check "nothing matched: no output" "$out" ""
check "nothing matched: stderr" "$(cat "$TMP/err")" "iprof: 0 functions in $(realpath "$W") matching 'zz*'"
"$IPROF" list functions /etc/passwd >"$TMP/out" 2>"$TMP/err"
check "not an ELF file: exit" "$?" 2
check "not an ELF file: message" "$(cat "$TMP/err")" "iprof: /etc/passwd: not an ELF file"
"$IPROF" list functions "$TMP/nope" 2>"$TMP/err"
check "missing binary: exit" "$?" 2
check "missing binary: message" "$(cat "$TMP/err")" "iprof: $TMP/nope: No such file or directory"
"$IPROF" list functions 2>"$TMP/err"
check "no BINARY: exit" "$?" 2
check "no BINARY: message" "$(cat "$TMP/err")" "iprof: list functions: expected BINARY [GLOB]"

# --- list tracepoints --------------------------------------------------------
"$IPROF" list tracepoints -v 'syscalls:sys_enter_getppid' >"$TMP/out" 2>"$TMP/err"
check "list tracepoints -v getppid: exit" "$?" 0
check "list tracepoints -v getppid: fields" "$(cat "$TMP/out")" \
"syscalls:sys_enter_getppid
    int __syscall_nr"
check "list tracepoints: count" "$(cat "$TMP/err")" "iprof: 1 tracepoint matching 'syscalls:sys_enter_getppid'"
check "list tracepoints -v sys_enter_close" "$("$IPROF" list tracepoints -q -v syscalls:sys_enter_close)" \
"syscalls:sys_enter_close
    int __syscall_nr
    unsigned int fd"
want=$(cd $TFS/events && for d in syscalls/sys_enter_*/; do d=${d%/}; echo "${d%%/*}:${d#*/}"; done | LC_ALL=C sort)
[ -n "$want" ] || bad "no syscalls:sys_enter_* events in $TFS"
check "list tracepoints 'syscalls:sys_enter_*' = tracefs's" \
	"$("$IPROF" list tracepoints -q 'syscalls:sys_enter_*')" "$want"
check "all tracepoints, each once, sorted" \
	"$("$IPROF" list tracepoints -q | LC_ALL=C sort -uc && echo sorted)" sorted
"$IPROF" list tracepoints 'nosuchcat:*' >"$TMP/out" 2>/dev/null
check "no tracepoint matched: exit" "$?" 1

# --- list kernel -------------------------------------------------------------
"$IPROF" list kernel 'vfs_rea*' >"$TMP/out" 2>"$TMP/err"
check "list kernel vfs_rea*: exit" "$?" 0
if [ -r $TFS/available_filter_functions ] && head -c1 $TFS/available_filter_functions >/dev/null 2>&1; then
	want=$(awk '$1 ~ /^vfs_rea/ { print $1 }' $TFS/available_filter_functions | LC_ALL=C sort -u)
else
	want=$(awk '$2 ~ /^[tT]$/ && $3 ~ /^vfs_rea/ { print $3 }' /proc/kallsyms | LC_ALL=C sort -u)
fi
check "list kernel vfs_rea* = the kernel's list" "$(cut -d' ' -f1 "$TMP/out")" "$want"
grep -qx vfs_read "$TMP/out" && ok "vfs_read listed" || bad "vfs_read not listed"
grep -q '^iprof: fentry/fexit: ' "$TMP/err" && ok "fentry status said" || bad "no fentry line: $(cat "$TMP/err")"
grep -q '^iprof: kprobes: ' "$TMP/err" && ok "kprobes status said" || bad "no kprobes line: $(cat "$TMP/err")"
check "denied functions marked" "$("$IPROF" list kernel -q _raw_spin_lock)" \
	"_raw_spin_lock (iprof does not time it: spinlock internals)"
"$IPROF" list kernel 'no_such_kernel_fn_*' >/dev/null 2>&1
check "no kernel function matched: exit" "$?" 1

# --- the plan (iprof list -e) keeps working ---------------------------------
"$IPROF" list -e "uprobe:$W:s*_inner" >"$TMP/plan" 2>&1
check "plan of a uprobe glob: exit" "$?" 0
check "plan of a uprobe glob: timers" "$(grep -v '^#' "$TMP/plan" | awk '{ print $1 }' | tr '\n' ,)" \
	"sleep_inner,spin_inner,"
"$IPROF" list -e "uprobe:$FIX:many_*" >"$TMP/plan" 2>&1
check "a glob over the cap: exit" "$?" 2
grep -qF "'many_*' matches 2001 functions in $(realpath "$FIX"), more than 2000: narrow it" "$TMP/plan" &&
	ok "a glob over the cap: message" || bad "a glob over the cap: $(cat "$TMP/plan")"
"$IPROF" list -e "uprobe:$FIX:many_1*" 2>&1 | grep -c ' uprobe ' >"$TMP/n"
check "many_1* plans 1000 timers" "$(cat "$TMP/n")" 1000

# --- a uprobe glob traced: exact counts against the ground truth -------------
N=30 T=2
"$IPROF" -q -f seed -o "$TMP/rep" -e "uprobe:$W:outer" -e "uprobe:$W:s*_inner" \
	-- "$W" --threads $T --calls $N --spin-us 100 --sleep-us 100 --depth 1 \
	>"$TMP/truth" 2>"$TMP/err"
check "uprobe glob traced: exit" "$?" 0
cat "$TMP/rep"
check "outer count" "$(seed_field outer count "$TMP/rep")" "$(truth outer.count "$TMP/truth")"
check "outer>spin_inner count (glob)" "$(seed_field 'outer>spin_inner' count "$TMP/rep")" \
	"$(truth spin_inner.count "$TMP/truth")"
check "outer>sleep_inner count (glob)" "$(seed_field 'outer>sleep_inner' count "$TMP/rep")" \
	"$(truth sleep_inner.count "$TMP/truth")"
check "ground truth is threads x calls" "$(truth spin_inner.count "$TMP/truth")" $((T * N))
check "no timer but the glob's two and outer" \
	"$(grep -v '^#' "$TMP/rep" | grep -v '^$' | sed 's/^ *//; s/,.*//' | LC_ALL=C sort | tr '\n' ,)" \
	"outer,sleep_inner,spin_inner,"
# an unknown list, or none: said, exit 2 (not taken for a command to run)
for a in bogus ""; do
	"$IPROF" list $a >"$TMP/out" 2>"$TMP/err"
	check "list ${a:-(nothing)}: exit status" "$?" 2
	grep -q "^iprof: list .*: expected tracepoints \[GLOB\], functions BINARY \[GLOB\], kernel \[GLOB\], usdt BINARY \[GLOB\], or probes" "$TMP/err" &&
		ok "list ${a:-(nothing)}: says what it takes" || bad "list ${a:-(nothing)}: $(cat "$TMP/err")"
done
finish
