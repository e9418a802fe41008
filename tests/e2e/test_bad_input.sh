#!/usr/bin/env bash
# Bad input: each case must give a clear error (the expected text) and a
# non-zero exit status (2 for bad input, 1 when nothing could be traced, 3
# when traced but some timers were not attached).
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
"2|--duration '10000000000s': expected a time above 0 and below 292 years|-e uprobe:$W:outer -d 10000000000s"
"2|--interval '10000000000s': expected a time from 10ms to 292 years|-e uprobe:$W:outer --interval 10000000000s"
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
"2|--duraton: unknown option; did you mean --duration?|-e uprobe:$W:outer --duraton 1s"
"2|--colums: unknown option; did you mean --columns?|-e uprobe:$W:outer --colums=count"
"2|option '-d' needs an argument|-e uprobe:$W:outer -d"
"2|option '--duration' needs an argument|-e uprobe:$W:outer --duration"
"2|option '-Z': unknown|-e uprobe:$W:outer -Z"
)
root_cases=(
"2|no_such_function|-e uprobe:$W:no_such_function -d 1s"
"2|tracepoint kvm:kvm_nope not found|-e 'span x = tracepoint:kvm:kvm_nope -> tracepoint:kvm:kvm_fpu' -d 1s"
"2|tracepoint kvm:kvm_nope not found|--strict -e uprobe:$W:outer -e 'span x = tracepoint:kvm:kvm_nope -> tracepoint:kvm:kvm_fpu' -d 1s"
"2|1 probe names what does not exist: nothing attached|-e uprobe:/nonexistent/binary:f -d 1s"
"2|cannot run '/nonexistent/cmd': No such file or directory|-e uprobe:$W:outer -- /nonexistent/cmd"
"2|cannot run '/etc/passwd': Permission denied|-e uprobe:$W:outer -- /etc/passwd"
)
# a function whose first instruction uprobes cannot take (x86-64 only)
[ "$(uname -m)" = x86_64 ] && root_cases+=(
"2|lock_first: -e:1:$((9 + ${#W})): its first instruction has a lock prefix|-e uprobe:$W:lock_first -d 1s")
[ "$(id -u)" = 0 ] && cases+=("${root_cases[@]}")

# run_cases CASE...: each "EXIT|TEXT|ARGS" run as iprof -q ARGS (under
# timeout 60: a hang fails instead of hanging) must exit EXIT with TEXT in
# its stderr
run_cases() {
	local c want text args rc
	for c in "$@"; do
		IFS='|' read -r want text args <<<"$c"
		eval "timeout 60 \"\$IPROF\" -q $args" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ "$rc" = "$want" ] && grep -qF -- "$text" "$TMP/err"; then
			ok "iprof $args -> $rc: $(head -1 "$TMP/err" | cut -c1-110)"
		else
			bad "iprof $args -> exit $rc (want $want), stderr: $(head -3 "$TMP/err")"
		fi
	done
}
run_cases "${cases[@]}"
# one line per refusal (getopt_long(3)'s own message was a second one)
"$IPROF" -e "uprobe:$W:outer" --duraton 1s 2>"$TMP/err"
check "an unknown option: one line" "$(wc -l <"$TMP/err")" 1
# a subcommand's typo (the first word): was "no probes"
"$IPROF" repot x.rec 2>"$TMP/err"
check "iprof repot: exit" "$?" 2
check "iprof repot: did you mean" "$(cat "$TMP/err")" "iprof: 'repot': no such command or program; did you mean report? (iprof --help lists the commands)"
"$IPROF" list functoins 2>"$TMP/err"
check "iprof list functoins: exit" "$?" 2
check "iprof list functoins: did you mean" "$(cat "$TMP/err")" "iprof: list 'functoins': no such list; did you mean iprof list functions? (try 'iprof list --help')"
[ "$(id -u)" = 0 ] || echo "note: the ${#root_cases[@]} root-only cases were not run (not root)"

# A command that cannot run is refused before any probe is loaded (was:
# after attaching, a second or more): stderr says nothing of timers
if [ "$(id -u)" = 0 ]; then
	for c in /nonexistent/cmd /etc; do
		"$IPROF" -e "uprobe:$W:outer" -- "$c" >/dev/null 2>"$TMP/err"
		check "$c: refused (exit)" "$?" 2
		check "$c: refused before attaching" "$(cat "$TMP/err")" \
			"iprof: cannot run '$c': $([ "$c" = /etc ] && echo Permission denied || echo No such file or directory)"
	done
fi

# A failed run leaves the previous report in -o FILE as it was.
if [ "$(id -u)" = 0 ]; then
	echo "previous report" >"$TMP/keep.txt"
	"$IPROF" -q -e "uprobe:$W:no_such_function" -o "$TMP/keep.txt" -d 1s 2>/dev/null
	check "failed run: exit" "$?" 2
	check "failed run: -o FILE untouched" "$(cat "$TMP/keep.txt")" "previous report"
	# an output that cannot be written: the report comes out on stderr
	# (stdout is the traced command's)
	"$IPROF" -q -f seed -e "uprobe:$W:outer" -o /dev/full -- "$W" --calls 3 >"$TMP/full.out" 2>"$TMP/full.err"
	check "-o /dev/full: exit" "$?" 1
	check "-o /dev/full: report on stderr instead" "$(seed_field outer count "$TMP/full.err")" 3
	check "-o /dev/full: not into the command's stdout" "$(seed_field outer count "$TMP/full.out")" ""
	grep -q "cannot write '/dev/full'" "$TMP/full.err" && ok "-o /dev/full: says so" || bad "-o /dev/full: no message"
	# -o /dev/stdout on a pipe whose reader left: said once, not retried
	# into the same pipe as if it were another output
	("$IPROF" -q -f seed -e "uprobe:$W:outer" -o /dev/stdout -d 1s 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.rc") |
		(exec 0<&-; sleep 3)
	check "-o /dev/stdout, reader gone: exit" "$(cat "$TMP/pipe.rc")" 1
	check "-o /dev/stdout, reader gone: the error, no retry into it" \
		"$(grep -c "^iprof: cannot write '/dev/stdout': Broken pipe$" "$TMP/pipe.err") $(grep -c 'follows on' "$TMP/pipe.err")" "1 0"
	# a file or symlink planted beside the output is never opened
	echo "precious" >"$TMP/victim"
	ln -s "$TMP/victim" "$TMP/rep.txt.tmp"
	ln -s "$TMP/victim" "$TMP/rep.txt.XXXXXX"
	"$IPROF" -q -f seed -e "uprobe:$W:outer" -o "$TMP/rep.txt" -- "$W" --calls 2 >/dev/null 2>&1
	check "planted symlinks: exit" "$?" 0
	check "planted symlinks: their target untouched" "$(cat "$TMP/victim")" precious
	check "planted symlinks: report written" "$(seed_field outer count "$TMP/rep.txt")" 2
fi

# Hostile files: nothing iprof opens by name can block it or redirect its
# output (run_cases: under timeout)
mkfifo "$TMP/fifo"
printf 'include fifo\n' >"$TMP/incfifo.conf"
hostile=(
"2|fifo: a named FIFO, not a regular file|--probes $TMP/fifo -d 1s"
"2|incfifo.conf:1:9: cannot open '$TMP/fifo': a named FIFO, not a regular file|--probes $TMP/incfifo.conf -d 1s"
"2|cannot write '$TMP/fifo': a FIFO that no process reads|-e uprobe:$W:outer -o $TMP/fifo -d 1s"
"2|/dev/null: not a regular file|--probes /dev/null -d 1s"
)
[ "$(id -u)" = 0 ] && hostile+=("2|$TMP/fifo: a named FIFO, not a regular file|-e uprobe:$TMP/fifo:main -d 1s")
run_cases "${hostile[@]}"
# a pipe from a running command is still a fine probe file
out=$(printf 'uprobe:%s:outer\n' "$W" | timeout 60 "$IPROF" --dry-run -f json -P /dev/stdin | jq -r '.probes[0].name')
check "probe file from a pipe" "$out" outer
out=$(printf 'uprobe:%s:outer\n' "$W" | timeout 60 "$IPROF" --dry-run -f json -P - | jq -r '.probes[0].name')
check "probe file -P - (stdin)" "$out" outer

if [ "$(id -u)" = 0 ]; then
	# -o through a symbolic link planted by another user to a FIFO that
	# someone reads: refused (exit 2), and the reader receives nothing.
	# The reader is this shell (fd 3, opened read-write so that it never
	# blocks): always there, so a regression would write, not fail
	ln -s "$TMP/fifo" "$TMP/planted"
	chown -h nobody "$TMP/planted"
	exec 3<>"$TMP/fifo"
	timeout 60 "$IPROF" -q -f seed -e "uprobe:$W:outer" -o "$TMP/planted" -- "$W" --calls 2 >/dev/null 2>"$TMP/err"
	check "planted link to a FIFO: exit" "$?" 2
	check "planted link to a FIFO: message" "$(cat "$TMP/err")" \
		"iprof: cannot write '$TMP/planted': a symbolic link owned by uid $(id -u nobody), not followed (name its target)"
	timeout 1 cat <&3 >"$TMP/fifo.got"
	check "planted link to a FIFO: the FIFO received nothing (bytes)" "$(wc -c <"$TMP/fifo.got")" 0
	# our own link to a FIFO with a reader is followed (like /dev/stdout)
	ln -s "$TMP/fifo" "$TMP/ours"
	timeout 60 "$IPROF" -q -f seed -e "uprobe:$W:outer" -o "$TMP/ours" -- "$W" --calls 2 >/dev/null 2>&1
	check "own link to a FIFO: exit" "$?" 0
	timeout 1 cat <&3 >"$TMP/fifo.got"
	exec 3<&-
	check "own link to a FIFO: the report came through" "$(seed_field outer count "$TMP/fifo.got")" 2
	# a replaced report keeps its mode (and owner)
	echo old >"$TMP/ro.txt"
	chmod 0440 "$TMP/ro.txt"
	chown nobody "$TMP/ro.txt"
	timeout 60 "$IPROF" -q -f seed -e "uprobe:$W:outer" -o "$TMP/ro.txt" -- "$W" --calls 1 >/dev/null 2>&1
	check "0440 report replaced: exit" "$?" 0
	check "0440 report replaced: mode and owner kept" "$(stat -c '%a %U' "$TMP/ro.txt")" "440 nobody"
	check "0440 report replaced: new report" "$(seed_field outer count "$TMP/ro.txt")" 1
	# temporaries of a killed run (dead pid, ours) are removed; others kept
	dead=$(sh -c 'echo $$')
	touch "$TMP/st.txt.$dead.aB3xYz" "$TMP/st.txt.$$.aB3xYz" "$TMP/st.txt.$dead.short" "$TMP/st.txt.$dead.nobody"
	mv "$TMP/st.txt.$dead.nobody" "$TMP/st.txt.$dead.Nob0dy"
	chown nobody "$TMP/st.txt.$dead.Nob0dy"
	timeout 60 "$IPROF" -q -f seed -e "uprobe:$W:outer" -o "$TMP/st.txt" -- "$W" --calls 1 >/dev/null 2>&1
	check "stale temporaries: exit" "$?" 0
	check "stale temporaries: only the dead run's own one removed" \
		"$(cd "$TMP" && ls st.txt* | LC_ALL=C sort | tr '\n' ' ')" \
		"$(printf '%s\n' st.txt st.txt.$$.aB3xYz st.txt.$dead.Nob0dy st.txt.$dead.short | LC_ALL=C sort | tr '\n' ' ')"
fi

# Output is valid UTF-8 whatever the bytes of argv and thread names: a
# command run through a link named w<0xff>x (its comm too) shows as w<U+FFFD>x
if [ "$(id -u)" = 0 ]; then
	bad_name=$(printf 'w\377x')
	ln -s "$W" "$TMP/$bad_name"
	utf8() { python3 -c 'import sys; print(ascii(open(sys.argv[1], "rb").read().decode("utf-8")))' "$1" 2>&1 | tail -1; }
	for fmt in json folded seed table; do
		timeout 60 "$IPROF" -q -f $fmt --by comm -o "$TMP/u8.$fmt" -e "uprobe:$W:outer" -- "$TMP/$bad_name" --calls 2 >/dev/null 2>&1
		check "invalid UTF-8 in argv and comm, -f $fmt: exit" "$?" 0
		case $(utf8 "$TMP/u8.$fmt") in
		*'w\ufffdx'*) ok "-f $fmt: valid UTF-8, the bad byte as U+FFFD" ;;
		*) bad "-f $fmt: $(utf8 "$TMP/u8.$fmt" | cut -c1-200)" ;;
		esac
	done
	# chrome (no --by): argv in otherData, comm in the thread's name
	timeout 60 "$IPROF" -q -f chrome -o "$TMP/u8.chrome" -e "uprobe:$W:outer" -- "$TMP/$bad_name" --calls 2 >/dev/null 2>&1
	check "invalid UTF-8 in argv and comm, -f chrome: exit" "$?" 0
	check "-f chrome: parses, the bad byte as U+FFFD in argv and the thread's name" \
		"$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1], encoding="utf-8")); print(ascii(d["otherData"]["command"][0][-3:]), ascii([e["args"]["name"] for e in d["traceEvents"] if e.get("name") == "thread_name"]))' "$TMP/u8.chrome" 2>&1 | tail -1)" \
		"'w\ufffdx' ['w\ufffdx']"
	check "json: run.command[0]" "$(jq -r '.run.command[0]' "$TMP/u8.json")" "$TMP/w$(printf '\357\277\275')x"
	check "json: the --by comm root" "$(jnode "$TMP/u8.json" "w$(printf '\357\277\275')x>outer" count)" 2
	check "folded: the line" "$(cut -d' ' -f1 "$TMP/u8.folded")" "w$(printf '\357\277\275')x;outer"
fi

# --rb-size is rounded up to a power of two per CPU: the reports say so
if [ "$(id -u)" = 0 ]; then
	ncpu=$(jq -r '.options.rb_rings' < <(timeout 60 "$IPROF" -q -f json -o - --rb-size 5000 -e "uprobe:$W:outer" -- "$W" --calls 1 2>/dev/null | sed -n '/^{/,$p'))
	within "--rb-size: rings (one per possible CPU)" "$ncpu" 1 4096
	timeout 60 "$IPROF" -q -f seed --rb-size 5000 -o "$TMP/rb.seed" -e "uprobe:$W:outer" -- "$W" --calls 1 >/dev/null 2>&1
	check "--rb-size 5000, seed: the size it got" "$(grep '^# rb_size' "$TMP/rb.seed")" \
		"# rb_size: requested=5000 per_cpu=8192 rings=$ncpu"
	timeout 60 "$IPROF" -q --rb-size 5000 -o "$TMP/rb.table" -e "uprobe:$W:outer" -- "$W" --calls 1 >/dev/null 2>&1
	check "--rb-size 5000, table" "$(grep '^ring buffer' "$TMP/rb.table")" \
		"ring buffer: 8192 bytes per CPU x $ncpu (--rb-size 5000, rounded up to a power of two)"
	timeout 60 "$IPROF" -q -f json --rb-size 64K -o "$TMP/rb.json" -e "uprobe:$W:outer" -- "$W" --calls 1 >/dev/null 2>&1
	check "--rb-size 64K, json options" \
		"$(jq -c '.options | [.rb_size_requested, .rb_bytes_per_cpu, .rb_rings]' "$TMP/rb.json")" "[65536,65536,$ncpu]"
	timeout 60 "$IPROF" -q -f seed -o "$TMP/rb.seed" -e "uprobe:$W:outer" -- "$W" --calls 1 >/dev/null 2>&1
	check "no --rb-size: no rb_size line" "$(grep -c '^# rb_size' "$TMP/rb.seed")" 0
fi

# typo_case WHAT LINE FIRST: LINE beside a good probe is a typo: exit 2,
# the command not run, no report, FIRST the first line of stderr, the
# last one the count
typo_case() {
	rm -f "$TMP/ran"
	"$IPROF" -e "uprobe:$W:outer" -e "$2" -- touch "$TMP/ran" >"$TMP/out" 2>"$TMP/err"
	check "$1: exit" "$?" 2
	check "$1: the command never ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" no
	check "$1: no report" "$(cat "$TMP/out")" ""
	# a USDT probe's argument specs are the compiler's (gcc: 8@%rbx,
	# clang's sanitizer build: 8@88(%rsp)): said as "(SPECS)" here
	check "$1: stderr" "$(head -1 "$TMP/err" | sed -E 's/(has [0-9]+ arguments? )\(([^()]|\([^()]*\))*\)/\1(SPECS)/')" "$3"
	check "$1: counted" "$(tail -1 "$TMP/err")" \
		"iprof: 1 probe names what does not exist: nothing attached, the command not run (--keep-going traces the others)"
}

# A probe naming a function that does not exist beside a good one: an
# error before anything is attached or the command started (exit 2, the
# typo named on stderr with FILE:LINE:COL and "did you mean"; issue 43:
# it ran the whole command, then exit 3); a file path that does not exist
# too; a glob that matches nothing and a library not found by name are
# not (exit 3).  With --keep-going, a file with a good and a bad line
# still traces the good one, exits 3 (traced, not all) and lists the bad
# one once: in the report, with FILE:LINE; stderr only counts it (-v:
# names it as it is skipped)
if [ "$(id -u)" = 0 ]; then
	rm -f "$TMP/ran"
	"$IPROF" -e "uprobe:$W:outer" -e "uprobe:$W:outter" -- touch "$TMP/ran" >"$TMP/out" 2>"$TMP/err"
	check "typo beside a good probe: exit" "$?" 2
	check "typo beside a good probe: the command never ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" no
	check "typo beside a good probe: stderr" "$(cat "$TMP/err")" \
		"iprof: -e:2:$((${#W} + 9)): no function 'outter' in $W (its symbol table has no such FUNC symbol); nor is it inlined anywhere (DWARF); did you mean outer?
iprof:   uprobe:$W:outter
iprof:   $(printf '%*s' $((${#W} + 8)) '')^
iprof: 1 probe names what does not exist: nothing attached, the command not run (--keep-going traces the others)"
	check "typo beside a good probe: no report" "$(cat "$TMP/out")" ""
	"$IPROF" -q -e "uprobe:$W:outer" -e "uprobe:$TMP/no/such/file:f" -- touch "$TMP/ran" >/dev/null 2>"$TMP/err"
	check "missing file path: exit" "$?" 2
	check "missing file path: the command never ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" no
	check "missing file path: stderr" "$(head -1 "$TMP/err")" \
		"iprof: -e:2:8: $TMP/no/such/file: No such file or directory"
	"$IPROF" -q -e "uprobe:$W:outer" -e "uprobe:$W:no_such_*" -- touch "$TMP/ran" >/dev/null 2>&1
	check "a glob that matches nothing: exit" "$?" 3
	check "a glob that matches nothing: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	rm -f "$TMP/ran"
	"$IPROF" -q -e "uprobe:$W:outer" -e "uprobe:libno_such_lib.so:f" -- touch "$TMP/ran" >/dev/null 2>&1
	check "a library not found by name: exit" "$?" 3
	check "a library not found by name: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	# alone: nothing attached, the reason said first, then the verdict
	# (a newcomer read "no probe could be attached" above its cause)
	"$IPROF" -e "uprobe:libcc.so.6:malloc" -- true >/dev/null 2>"$TMP/err"
	check "only a library not found by name: exit" "$?" 2
	check "only a library not found by name: the reason, then the verdict" \
		"$(sed 's/\(not found in\) .*/\1 .../' "$TMP/err")" \
		"iprof: not attached: malloc: -e:1:8: libcc.so.6 not found in ...
iprof: no probe could be attached"
	# the same for kernel names (issue 43): a kernel function that
	# kallsyms does not have (nor a clone of it, nor an instance inlined)
	# and a tracepoint that tracefs does not have, named explicitly, stop
	# the run before anything attaches; a kernel function that exists is
	# never that, attached or refused (fentry refused and no kprobes on
	# the build hosts: exit 3 there), nor is a glob matching nothing
	rm -f "$TMP/ran"
	"$IPROF" -e "uprobe:$W:outer" -e "func:vfs_raed" -- touch "$TMP/ran" >"$TMP/out" 2>"$TMP/err"
	check "kernel function typo: exit" "$?" 2
	check "kernel function typo: the command never ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" no
	check "kernel function typo: no report" "$(cat "$TMP/out")" ""
	check "kernel function typo: stderr names it" \
		"$(head -1 "$TMP/err" | grep -c '^iprof: -e:2:6: no such kernel function (not in /proc/kallsyms: .*; did you mean vfs_read[,? ]')" 1
	check "kernel function typo: stderr counts it" "$(tail -1 "$TMP/err")" \
		"iprof: 1 probe names what does not exist: nothing attached, the command not run (--keep-going traces the others)"
	"$IPROF" -e "uprobe:$W:outer" -e "span t = tracepoint:sched:sched_swtch -> tracepoint:sched:sched_switch" \
		-- touch "$TMP/ran" >"$TMP/out" 2>"$TMP/err"
	check "tracepoint typo: exit" "$?" 2
	check "tracepoint typo: the command never ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" no
	check "tracepoint typo: stderr" "$(head -1 "$TMP/err" | sed 's|(/[^ ]*/events/|(TRACEFS/events/|')" \
		"iprof: -e:2:10: tracepoint sched:sched_swtch not found (TRACEFS/events/sched/sched_swtch/format: No such file or directory); did you mean sched:sched_switch?"
	"$IPROF" -q -e "uprobe:$W:outer" -e "span t = tracepoint:sched:sched_switch -> tracepoint:sched:sched_wakup" \
		-- touch "$TMP/ran" >/dev/null 2>"$TMP/err"
	check "tracepoint typo on the stop side: exit" "$?" 2
	check "tracepoint typo on the stop side: stderr" "$(head -1 "$TMP/err" | sed 's|(/[^ ]*/events/|(TRACEFS/events/|')" \
		"iprof: -e:2:43: tracepoint sched:sched_wakup not found (TRACEFS/events/sched/sched_wakup/format: No such file or directory); did you mean sched:sched_wakeup?"
	# a condition on a field the tracepoint does not have, beside a good
	# probe: the same (it attached the good one, ran, exit 3); the
	# message lists its fields; with -p, no "command not run"
	rm -f "$TMP/ran"
	"$IPROF" -e "uprobe:$W:outer" \
		-e "span r = tracepoint:syscalls:sys_enter_read -> tracepoint:syscalls:sys_exit_read if fdd == 3" \
		-- touch "$TMP/ran" >"$TMP/out" 2>"$TMP/err"
	check "condition field typo: exit" "$?" 2
	check "condition field typo: the command never ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" no
	check "condition field typo: no report" "$(cat "$TMP/out")" ""
	check "condition field typo: stderr" "$(cat "$TMP/err")" \
		"iprof: -e:2:85: tracepoint syscalls:sys_exit_read has no field 'fdd' (its fields: __syscall_nr, ret)
iprof:   span r = tracepoint:syscalls:sys_enter_read -> tracepoint:syscalls:sys_exit_read if fdd == 3
iprof:   $(printf '%*s' 84 '')^
iprof: 1 probe names what does not exist: nothing attached, the command not run (--keep-going traces the others)"
	"$IPROF" -e "uprobe:$W:outer" \
		-e "span r = tracepoint:syscalls:sys_enter_read if fdd == 3 -> tracepoint:syscalls:sys_exit_read" \
		-p $$ -d 1s >"$TMP/out" 2>"$TMP/err"
	check "condition field typo, start side, -p: exit" "$?" 2
	check "condition field typo, start side, -p: stderr" "$(tail -1 "$TMP/err")" \
		"iprof: 1 probe names what does not exist: nothing attached (--keep-going traces the others)"
	"$IPROF" -q -e "uprobe:$W:outer" \
		-e "span r = tracepoint:syscalls:sys_enter_read -> tracepoint:syscalls:sys_exit_read if ret == 3" \
		-- touch "$TMP/ran" >/dev/null 2>&1
	check "a condition field that exists: exit" "$?" 0
	check "a condition field that exists: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	# the same for every clause on every side (issue 46): a stop's
	# name, a second stop's condition, a key's stop field, an argN on a
	# tracepoint, an argument a USDT probe does not pass (start, stop,
	# second stop, the stop's name) or a name for one, a name for a user
	# function's argument: each a typo, exit 2 before anything is
	# attached or the command started, its fields or arguments listed
	U=$BUILD/usdt-workload
	RD="span r = tracepoint:syscalls:sys_enter_read -> tracepoint:syscalls:sys_exit_read"
	RQ="span q = usdt:$U:req__start -> usdt:$U:req__done"
	RET="(its fields: __syscall_nr, ret)"
	typo_case "stop's name typo" "$RD name fd stop rett" \
		"iprof: -e:2:$((${#RD} + 15)): tracepoint syscalls:sys_exit_read has no field 'rett' $RET"
	typo_case "second stop's condition typo" "$RD | tracepoint:syscalls:sys_exit_write if rett == 3" \
		"iprof: -e:2:$((${#RD} + 42)): tracepoint syscalls:sys_exit_write has no field 'rett' $RET"
	typo_case "key's stop field typo" "$RD key fd=fdd" \
		"iprof: -e:2:$((${#RD} + 9)): span r: key fd: tracepoint syscalls:sys_exit_read has no field 'fdd' (its fields: __syscall_nr, ret; pseudo-fields: pid, tid, cpu)"
	typo_case "argN on a tracepoint stop" "$RD if arg0 == 3" \
		"iprof: -e:2:$((${#RD} + 5)): argN is for function probes; a tracepoint condition names a field of syscalls:sys_exit_read $RET"
	typo_case "USDT argument past the start's" "span q = usdt:$U:req__start if arg2 == 1 -> usdt:$U:req__done" \
		"iprof: -e:2:$((${#U} + 30)): arg2: USDT probe iprofw:req__start has 2 arguments (SPECS)"
	typo_case "USDT argument past the stop's" "$RQ if arg1 == 1" \
		"iprof: -e:2:$((${#RQ} + 5)): arg1: USDT probe iprofw:req__done has 1 argument (SPECS)"
	typo_case "USDT argument past a second stop's" "$RQ | usdt:$U:guarded if arg1 == 1" \
		"iprof: -e:2:$((${#RQ} + ${#U} + 21)): arg1: USDT probe iprofw:guarded has 1 argument (SPECS)"
	typo_case "USDT stop's name past its arguments" "$RQ name arg0 stop arg1" \
		"iprof: -e:2:$((${#RQ} + 17)): stop arg1: USDT probe iprofw:req__done has 1 argument (SPECS)"
	typo_case "USDT argument by a name, stop side" "$RQ if id == 1" \
		"iprof: -e:2:$((${#RQ} + 5)): 'id': USDT probe iprofw:req__done has 1 argument (SPECS), named arg0"
	typo_case "USDT argument by a name, start's name" "$RQ name id" \
		"iprof: -e:2:$((${#RQ} + 7)): name 'id': USDT probe iprofw:req__start has 2 arguments (SPECS), named arg0..arg1"
	typo_case "user function argument by a name, stop side" \
		"span u = uprobe:$W:outer -> uprobe:$W:recurse if n == 1" \
		"iprof: -e:2:$((2 * ${#W} + 46)): 'n': conditions on a uprobe side (recurse) name its arguments as argN (arg0 is the first)"
	# what is there is no typo; --keep-going traces the others
	rm -f "$TMP/ran"
	"$IPROF" -q -e "uprobe:$W:outer" -e "$RQ if arg0 == 1 name arg0 stop arg0" \
		-- touch "$TMP/ran" >/dev/null 2>&1
	check "USDT arguments that exist: exit" "$?" 0
	check "USDT arguments that exist: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	rm -f "$TMP/ran"
	"$IPROF" -q --keep-going -e "uprobe:$W:outer" -e "$RQ if arg1 == 1" -e "$RD name fd stop rett" \
		-- touch "$TMP/ran" >/dev/null 2>&1
	check "stop-side typos, --keep-going: exit" "$?" 3
	check "stop-side typos, --keep-going: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	"$IPROF" -q --keep-going -e "uprobe:$W:outer" -e "func:vfs_raed" \
		-e "span t = tracepoint:sched:sched_swtch -> tracepoint:sched:sched_switch" -- touch "$TMP/ran" >/dev/null 2>&1
	check "kernel typos, --keep-going: exit" "$?" 3
	check "kernel typos, --keep-going: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	rm -f "$TMP/ran"
	"$IPROF" -q -e "uprobe:$W:outer" -e "func:vfs_read" -- touch "$TMP/ran" >/dev/null 2>&1
	rc=$?
	check "a kernel function that exists: not a typo (exit 0 or 3)" "$([ $rc = 0 ] || [ $rc = 3 ] && echo ok || echo "$rc")" ok
	check "a kernel function that exists: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	rm -f "$TMP/ran"
	"$IPROF" -q -e "uprobe:$W:outer" -e "func:vfs_raed*" -- touch "$TMP/ran" >/dev/null 2>&1
	check "a kernel glob that matches nothing: exit" "$?" 3
	check "a kernel glob that matches nothing: the command ran" "$([ -e "$TMP/ran" ] && echo ran || echo no)" ran
	"$IPROF" --keep-going -f seed -o "$TMP/rep" -e "uprobe:$W:outer" \
		-e "uprobe:$W:no_such_function" -- "$W" --calls 7 >/dev/null 2>"$TMP/err"
	check "mixed good/bad: exit" "$?" 3
	check "mixed good/bad: good timer traced" "$(seed_field outer count "$TMP/rep")" 7
	check "mixed good/bad: bad line in the report" \
		"$(grep '^# not attached' "$TMP/rep" | cut -d: -f1-4)" \
		"# not attached: no_such_function: -e:2"
	grep -q "^iprof: 1 of 2 timers attached in [0-9.]* ms (1 not attached: listed in the report); tracing the command" "$TMP/err" &&
		ok "mixed good/bad: stderr counts it" || bad "mixed good/bad: stderr: $(cat "$TMP/err")"
	grep -q no_such_function "$TMP/err" && bad "mixed good/bad: listed twice (stderr)" ||
		ok "mixed good/bad: listed once"
	"$IPROF" -v --keep-going -f seed -o "$TMP/rep" -e "uprobe:$W:outer" \
		-e "uprobe:$W:no_such_function" -- "$W" --calls 1 >/dev/null 2>"$TMP/err"
	check "mixed good/bad -v: exit" "$?" 3
	grep -q "^iprof: cannot attach no_such_function: -e:2:" "$TMP/err" &&
		ok "-v: the bad line on stderr" || bad "-v: $(grep -v libbpf "$TMP/err" | head -3)"
	# every timer attached: 0
	"$IPROF" -q -f seed -o "$TMP/rep" -e "uprobe:$W:outer" -- "$W" --calls 1 >/dev/null 2>&1
	check "all attached: exit" "$?" 0
	check "all attached: nothing lost" "$(grep '^# lost' "$TMP/rep")" "# lost: none"

	# where the kernel refuses fentry and has no kprobes (our build hosts),
	# kernel functions cannot attach: grouped on stderr when no report
	# follows, and --strict still exits 2
	k=$("$IPROF" --dry-run -f json -e func:vfs_read | jq -c '[.kernel.fentry, .kernel.kprobes]')
	if [ "$k" = "[false,true]" ] || [ "$k" = "[true,true]" ]; then
		"$IPROF" --dry-run -e kprobe:vfs_read >"$TMP/dry" 2>&1
		check "dry run, kprobes here: exit" "$?" 0
		check "dry run, kprobes here: not refused" "$(grep -c '^ *refused' "$TMP/dry")" 0
	fi
	if [ "$k" = "[false,false]" ]; then
		why="fentry: the kernel refuses fentry/fexit programs (Operation not permitted); kprobe: the kernel has no kprobes (CONFIG_KPROBES off)"
		# --dry-run exits as the run would: 1 none, 3 some, --strict 2
		"$IPROF" --dry-run -e func:vfs_read >"$TMP/dry" 2>&1
		check "dry run, nothing would attach: exit" "$?" 1
		check "dry run, nothing would attach: says so" "$(tail -1 "$TMP/dry")" \
			"# would not attach here: 1 of 1 timers"
		# each timer refused says so under its own line (a newcomer
		# read 'kprobe:vfs_read' in the plan as if it would work)
		"$IPROF" --dry-run -e func:vfs_read -e kprobe:vfs_write -e "uprobe:$W:outer" >"$TMP/dry" 2>&1
		check "dry run, refused per timer: exit" "$?" 3
		check "dry run, refused per timer: why, under each" \
			"$(grep -A1 '^vfs_' "$TMP/dry" | sed 's/  */ /g')" \
			"vfs_read func func:vfs_read
 refused $why
vfs_write kprobe kprobe:vfs_write
 refused the kernel has no kprobes (CONFIG_KPROBES off)"
		check "dry run, refused per timer: not the uprobe" "$(grep -c '^ *refused' "$TMP/dry")" 2
		"$IPROF" --dry-run -f json -e func:vfs_read -e "uprobe:$W:outer" >"$TMP/dry" 2>&1
		check "dry run, some would not attach: exit" "$?" 3
		check "dry run, some would not attach: attached" \
			"$(jq -c '[.probes[].attached]' "$TMP/dry")" "[false,true]"
		"$IPROF" --dry-run --strict -e func:vfs_read -e "uprobe:$W:outer" >/dev/null 2>&1
		check "dry run --strict, some would not attach: exit" "$?" 2
		"$IPROF" -q -e func:vfs_read -e func:vfs_write -d 1s >/dev/null 2>"$TMP/err"
		check "nothing attached (kernel): exit" "$?" 1
		check "nothing attached (kernel): stderr, the reason first" "$(cat "$TMP/err")" \
			"iprof: not attached: 2 timers (vfs_read at -e:1:6, vfs_write at -e:2:6): $why
iprof: no probe could be attached"
		"$IPROF" -q --strict -e "uprobe:$W:outer" -e func:vfs_read -e func:vfs_write \
			-- "$W" --calls 1 >/dev/null 2>"$TMP/err"
		check "--strict, refused by the kernel: exit" "$?" 2
		check "--strict, refused by the kernel: stderr" "$(cat "$TMP/err")" \
			"iprof: --strict: not attached: 2 timers (vfs_read at -e:2:6, vfs_write at -e:3:6): $why
iprof: --strict: 2 of 3 timers could not be attached"
		# a probe that does not resolve and two the kernel refuses:
		# --strict names all three (it named the first only), each
		# with its file:line:col
		printf 'func:vfs_read\nuprobe:%s:no_such_function\nfunc:vfs_write\n' "$W" >"$TMP/strict.conf"
		"$IPROF" -q --strict -P "$TMP/strict.conf" -e "uprobe:$W:outer" \
			-- "$W" --calls 1 >/dev/null 2>"$TMP/err"
		check "--strict, unresolved and refused: exit" "$?" 2
		check "--strict, unresolved and refused: every one named" \
			"$(sed 's/\(no_such_function: [^ ]*\) .*/\1 .../' "$TMP/err")" \
			"iprof: --strict: not attached: 2 timers (vfs_read at $TMP/strict.conf:1:6, vfs_write at $TMP/strict.conf:3:6): $why
iprof: --strict: not attached: no_such_function: $TMP/strict.conf:2:$((9 + ${#W})): ...
iprof: --strict: 3 of 4 timers could not be attached"
		"$IPROF" -q --strict -e func:vfs_read -d 1s >/dev/null 2>"$TMP/err"
		check "--strict, nothing attached: exit" "$?" 2
		check "--strict, nothing attached: stderr" "$(cat "$TMP/err")" \
			"iprof: --strict: not attached: vfs_read: -e:1:6: $why
iprof: no probe could be attached"
	else
		echo "note: fentry or kprobes work here ($k): the refused-kernel-function cases were not run"
	fi
fi

# --dry-run -f json: the plan, per probe where it came from and why not
"$IPROF" --dry-run -f json -e "uprobe:$W:outer" -e "uprobe:$W:no_such_function" \
	>"$TMP/plan.json" 2>"$TMP/err"
check "dry-run json: exit (a bad line)" "$?" 2
check "dry-run json: plan" "$(jq -c '[.dry_run, (.probes | length), .probes[0].mech, .probes[0].attached, .probes[0].error, .probes[0].file, .probes[0].line, .probes[1].mech, .probes[1].attached, .probes[1].file, .probes[1].line]' "$TMP/plan.json")" \
	'[true,2,"uprobe/return sites",true,null,"-e",1,null,false,"-e",2]'
check "dry-run json: error, FILE:LINE:COL first" "$(jq -r '.probes[1].error' "$TMP/plan.json")" \
	"-e:2:$((${#W} + 9)): no function 'no_such_function' in $W (its symbol table has no such FUNC symbol); nor is it inlined anywhere (DWARF)"
check "dry-run json: reason, the error without its location" "$(jq -r '.probes[1].reason' "$TMP/plan.json")" \
	"no function 'no_such_function' in $W (its symbol table has no such FUNC symbol); nor is it inlined anywhere (DWARF)"
# --dry-run -o FILE: the plan there, not on stdout; a format with no form
# of a plan refused (both were ignored: a first-use tester)
"$IPROF" --dry-run -f json -o "$TMP/plan-o.json" -e "uprobe:$W:outer" >"$TMP/out" 2>&1
check "dry-run -o: exit" "$?" 0
check "dry-run -o: the plan in the file" "$(jq -c '[.dry_run, .probes[0].mech]' "$TMP/plan-o.json")" \
	'[true,"uprobe/return sites"]'
check "dry-run -o: nothing on stdout" "$(cat "$TMP/out")" ""
"$IPROF" --dry-run -o /dev/full -e "uprobe:$W:outer" 2>"$TMP/err"
check "dry-run -o /dev/full: exit" "$?" 1
check "dry-run -o /dev/full: said" "$(cat "$TMP/err")" \
	"iprof: cannot write '/dev/full': No space left on device"
for f in folded chrome openmetrics pprof; do
	"$IPROF" --dry-run -f $f -e "uprobe:$W:outer" >"$TMP/out" 2>"$TMP/err"
	check "dry-run -f $f: refused" "$?" 2
	check "dry-run -f $f: said" "$(cat "$TMP/err")" \
		"iprof: --dry-run prints the plan as text, or as JSON with -f json: -f $f has no form of it"
done
# a typo in a function's name: the nearest names of the file, last
"$IPROF" --dry-run -f json -e "uprobe:$W:outter" >"$TMP/typo.json" 2>/dev/null
check "typo: did you mean" "$(jq -r '.probes[0].reason' "$TMP/typo.json")" \
	"no function 'outter' in $W (its symbol table has no such FUNC symbol); nor is it inlined anywhere (DWARF); did you mean outer?"
# a typo in a tracepoint's event or category: the nearest of tracefs
# (issue 48: it said only that the format file is missing)
for tp in sched:sched_swich schde:sched_switch; do
	"$IPROF" --dry-run -f json -e "span s = tracepoint:$tp -> tracepoint:sched:sched_switch" \
		>"$TMP/tptypo.json" 2>/dev/null
	check "tracepoint typo $tp: exit" "$?" 2
	check "tracepoint typo $tp: did you mean" \
		"$(jq -r '.probes[0].reason' "$TMP/tptypo.json" | grep -o '; did you mean.*')" \
		"; did you mean sched:sched_switch?"
done
# an IFUNC (libc's strlen): timed by the implementation ld.so picks here
# where its symbol is known (libc6-dbg: tests/e2e/test_ifunc.sh counts
# it), else refused with where the candidates would be and the code's
# address (issue 48)
"$IPROF" --dry-run -f json -e 'uprobe:libc.so.6:strlen' >"$TMP/ifunc.json" 2>/dev/null
rc=$?
impls=$("$IPROF" list functions libc.so.6 '__strlen_*' 2>/dev/null | paste -sd, | sed 's/,/, /g')
if [ -n "$impls" ]; then
	check "ifunc: exit" "$rc" 0
	check "ifunc: timed by one of its implementations" \
		"$(jq -r '.probes[0].where' "$TMP/ifunc.json" | grep -c ' = __strlen_')" 1
else
	check "ifunc: exit" "$rc" 2
	want="probe the implementation instead (their symbols, __strlen_*, are not in this file: for glibc, in libc6-dbg's debug file)"
	check "ifunc: its implementations named" \
		"$(jq -r '.probes[0].reason' "$TMP/ifunc.json" | grep -cF "$want")" 1
fi
# -o never overwrites an input: the probe file, the command to trace, the
# recording; and is given once (first-use review: each was overwritten)
cp "$W" "$TMP/w"
echo "uprobe:$TMP/w:spin_inner" >"$TMP/self.conf"
cp "$TMP/self.conf" "$TMP/self.orig"
"$IPROF" -P "$TMP/self.conf" -o "$TMP/self.conf" -- "$TMP/w" --calls 1 >/dev/null 2>"$TMP/err"
check "-o the probe file: exit status" "$?" 2
check "-o the probe file: message" "$(cat "$TMP/err")" \
	"iprof: output '$TMP/self.conf' is the probe file '$TMP/self.conf': it would be overwritten"
cmp -s "$TMP/self.conf" "$TMP/self.orig" && ok "-o the probe file: left as it was" || bad "-o the probe file: changed"
(cd "$TMP" && "$IPROF" -e "uprobe:$TMP/w:spin_inner" -o w -- ./w --calls 1 >/dev/null 2>"$TMP/err")
check "-o the command: exit status" "$?" 2
cmp -s "$TMP/w" "$W" && ok "-o the command: left as it was" || bad "-o the command: changed"
"$IPROF" -e "uprobe:$TMP/w:spin_inner" -o "$TMP/a" -o "$TMP/b" -- "$TMP/w" --calls 1 >/dev/null 2>"$TMP/err"
check "-o twice: exit status" "$?" 2
check "-o twice: message" "$(cat "$TMP/err")" "iprof: -o given twice ('$TMP/a', '$TMP/b'): one output file"
"$IPROF" record -q -o "$TMP/x.rec" -e "uprobe:$TMP/w:spin_inner" -- "$TMP/w" --calls 1 >/dev/null 2>&1
cp "$TMP/x.rec" "$TMP/x.orig"
"$IPROF" report -o "$TMP/x.rec" "$TMP/x.rec" 2>"$TMP/err"
check "report -o the recording: exit status" "$?" 2
cmp -s "$TMP/x.rec" "$TMP/x.orig" && ok "report -o the recording: left as it was" || bad "report -o the recording: changed"
# a library timer with 0 hits because the program has the function linked
# in (Debian's perl and libperl): the hint names the probe line that times
# it (issue 48 item 4)
printf 'int hf(int x) { return x + 1; }\n' >"$TMP/hint_lib.c"
printf 'int hf(int x) { return x + 1; }\nint main(void) { int s = 0; for (int i = 0; i < 5; i++) s += hf(i); return s == 15 ? 0 : 1; }\n' >"$TMP/hint_prog.c"
if cc -O0 -shared -fPIC -o "$TMP/libhint.so" "$TMP/hint_lib.c" && cc -O0 -o "$TMP/hintprog" "$TMP/hint_prog.c"; then
	"$IPROF" -e "uprobe:$TMP/libhint.so:hf" -o "$TMP/hint.rep" -- "$TMP/hintprog" 2>"$TMP/hint.err"
	check "0 hits in a library: exit" "$?" 0
	check "0 hits in a library: the hint" "$(grep '^iprof: hint:' "$TMP/hint.err")" \
		"iprof: hint: hf had 0 hits: $TMP/hintprog defines hf itself (linked in, not called in $TMP/libhint.so); time it there: -e 'uprobe:$TMP/hintprog:hf'"
	"$IPROF" -q -f json -o "$TMP/hint2.json" -e "uprobe:$TMP/hintprog:hf" -- "$TMP/hintprog" 2>"$TMP/hint2.err"
	check "the hinted probe line: its count" "$(jnode "$TMP/hint2.json" hf count)" 5
	check "the hinted probe line: no hint" "$(grep -c 'hint:' "$TMP/hint2.err")" 0
	# the program neither loads the library nor defines the function
	# (zstd has libzstd linked in, stripped: a newcomer read "0 hits"
	# and nothing more)
	cc -O0 -o "$TMP/nolib" -x c - <<<'int main(void) { return 0; }'
	"$IPROF" -e "uprobe:$TMP/libhint.so:hf" -o "$TMP/hint3.rep" -- "$TMP/nolib" 2>"$TMP/hint3.err"
	check "0 hits in a library the program does not load: exit" "$?" 0
	check "0 hits in a library the program does not load: the hint" "$(grep '^iprof: hint:' "$TMP/hint3.err")" \
		"iprof: hint: hf had 0 hits: $TMP/nolib does not load $TMP/libhint.so at its start (not among its libraries: it has the code linked in, or loads it later with dlopen(3)); -p PID of a running one, or --dry-run, shows what it maps"
else
	bad "cc cannot build the hint fixture"
fi

# a library timer with 0 hits beside one that fired, the command not
# defining the library's function (hint_zero_hits() asks the command's
# file whether it does: that lookup segfaulted, exit 139, after the report)
"$IPROF" -q -f json -o "$TMP/zero.json" -e "uprobe:$W:outer" -e 'uprobe:libc.so.6:mkfifo' \
	-- "$W" --calls 2 >/dev/null 2>"$TMP/err"
check "0 hits in a library the command does not define: exit status" "$?" 0
check "0 hits in a library the command does not define: the report" \
	"$(jnode "$TMP/zero.json" outer count)" 2

# -p of a process that does not map the probed file (a pyenv shim's
# python is not /usr/bin/python3): said at start, not only "0 hits"
sleep 30 &
sp=$!
"$IPROF" -e "uprobe:$W:outer" -e 'uprobe:libc.so.6:getpid' -p $sp -d 1s -o "$TMP/unmapped.rep" 2>"$TMP/unmapped.err"
check "-p, a file it does not map: exit" "$?" 0
check "-p, a file it does not map: said, with what it runs" \
	"$(grep -c "^iprof: -p $sp does not map $W (it runs $(readlink -f "$(command -v sleep)")): its probes there fire only if it loads it later$" "$TMP/unmapped.err")" 1
check "-p, a file it maps (libc): nothing said" "$(grep -c 'does not map' "$TMP/unmapped.err")" 1
kill $sp 2>/dev/null
wait $sp 2>/dev/null
# A probe list with errors on several lines: every one said in one run,
# syntax and names alike (a missing function, a duplicate, an include that
# is not there, a -e line), each with FILE:LINE:COL, its line and a caret;
# past 20, "N more"; exit 2 before anything runs (was: the first syntax
# error only, then one phase per rerun: a newcomer's 4 rounds)
cat >"$TMP/many.conf" <<EOF
uprobe:$W:outer
kprobe vfs_read
uprobe:$W:outre
fentri:vfs_write
uprobe:$W:outer
include nope.conf
EOF
"$IPROF" -P "$TMP/many.conf" -e 'span s = tp:syscalls:sys_enter_read ->' \
	-- "$W" --calls 1 >"$TMP/out" 2>"$TMP/err"
check "several bad lines: exit" "$?" 2
check "several bad lines: each said with its line and caret" "$(cat "$TMP/err")" \
"iprof: $TMP/many.conf:2:7: missing ':' after 'kprobe' (kprobe:FUNCTION)
iprof:   kprobe vfs_read
iprof:         ^
iprof: $TMP/many.conf:4:1: found 'fentri:', expected a probe kind (fentry:, kprobe:, func:, uprobe:, span, include); did you mean fentry:?
iprof:   fentri:vfs_write
iprof:   ^
iprof: $TMP/many.conf:6:9: cannot open '$TMP/nope.conf': No such file or directory
iprof:   include nope.conf
iprof:           ^
iprof: -e:1:39: found end of line, expected a tracepoint (tracepoint:CAT:EVENT or tp:CAT:EVENT)
iprof:   span s = tp:syscalls:sys_enter_read ->
iprof:                                         ^
iprof: $TMP/many.conf:5:$((9 + ${#W})): timer 'outer' already defined at $TMP/many.conf:1
iprof: $TMP/many.conf:3:$((9 + ${#W})): no function 'outre' in $W (its symbol table has no such FUNC symbol); nor is it inlined anywhere (DWARF); did you mean outer?
iprof:   uprobe:$W:outre
iprof:   $(printf '%*s' $((8 + ${#W})) '')^
iprof: 6 errors in the probe list: nothing attached, the command not run"
check "several bad lines: nothing ran" "$(wc -c <"$TMP/out")" 0
for i in $(seq 25); do echo "fentri:f$i"; done >"$TMP/many25.conf"
"$IPROF" -P "$TMP/many25.conf" -d 1s >/dev/null 2>"$TMP/err"
check "25 bad lines: exit" "$?" 2
check "25 bad lines: 20 said" "$(grep -c "found 'fentri:'" "$TMP/err")" 20
check "25 bad lines: the rest counted" "$(tail -1 "$TMP/err")" \
	"iprof: 5 more errors not shown (the first 20 are above)"

# A file or command that is not there: "No such file", and the names near
# it in its folder (a command without '/': in $PATH); a tracepoint GLOB
# that matches none: the names, else the categories near it (a newcomer's
# /usr/bin/gitt and 'sycalls:*' got no did-you-mean)
mkdir -p "$TMP/nbin"
cp "$W" "$TMP/nbin/mytool"
"$IPROF" -e "uprobe:$TMP/nbin/mytol:outer" -d 1s >/dev/null 2>"$TMP/err"
check "a probe's file not there: exit" "$?" 2
check "a probe's file not there: the near names" "$(head -1 "$TMP/err")" \
	"iprof: -e:1:8: $TMP/nbin/mytol: No such file or directory; did you mean $TMP/nbin/mytool?"
"$IPROF" -e "uprobe:$W:outer" -- "$TMP/nbin/mytoool" >/dev/null 2>"$TMP/err"
check "a command path not there: exit" "$?" 2
check "a command path not there: the near names" "$(cat "$TMP/err")" \
	"iprof: cannot run '$TMP/nbin/mytoool': No such file or directory; did you mean $TMP/nbin/mytool?"
PATH="$TMP/nbin:$PATH" "$IPROF" -e "uprobe:$W:outer" -- mytol >/dev/null 2>"$TMP/err"
check "a command not in \$PATH: exit" "$?" 2
check "a command not in \$PATH: the near names" "$(cat "$TMP/err")" \
	"iprof: cannot run 'mytol': not found in \$PATH; did you mean mytool?"
if [ "$(id -u)" = 0 ]; then
	"$IPROF" list tracepoints 'sycalls:*' >"$TMP/out" 2>"$TMP/err"
	check "list tracepoints, a category typo: exit" "$?" 1
	check "list tracepoints, a category typo: the near one" "$(cat "$TMP/err")" \
		"iprof: 0 tracepoints matching 'sycalls:*'; did you mean syscalls:*?"
	"$IPROF" list tracepoints 'sched:sched_swich' >"$TMP/out" 2>"$TMP/err"
	check "list tracepoints, an event typo: the near one" "$(cat "$TMP/err")" \
		"iprof: 0 tracepoints matching 'sched:sched_swich'; did you mean sched:sched_switch?"
fi

finish
