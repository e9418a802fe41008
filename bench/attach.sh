#!/usr/bin/env bash
# Attach and release times of many probes (bench/README.md, "Attach and
# release"; issue 16).
#
#   sudo bench/attach.sh [BUILD_DIR]        (default: $BUILD, else ./build)
#
# For N = 10, 100, 1000 probes of each mechanism this host has:
#   syscall spans   N syscall tracepoints (N/2 spans sys_enter_X ->
#                   sys_exit_X, at most the syscalls there are): iprof on
#                   the raw syscall tracepoints, iprof with
#                   IPROF_SYSCALL_TRACEPOINTS=1 (a tracepoint link each),
#                   and the floor: N empty programs, a tracepoint link each
#                   (bench_attach tp N)
#   user functions  N functions of tests/fixtures/glob-fixture (many_*):
#                   iprof with uprobe_multi links, iprof with
#                   IPROF_NO_UPROBE_MULTI=1 (a uprobe and a uretprobe each),
#                   and the floor: N empty program pairs the same way
#                   (bench_attach uprobe N)
# iprof's times are its own ("attached in", "detached in", or its
# background detach's "done in"); the floor's are bench_attach's.  Ratios
# are iprof / floor.  One perf event per uprobe costs the kernel ~150 ms to
# release: configurations with more than N_PLAIN_MAX (100) such functions
# are left out ("-") unless N_PLAIN_MAX says otherwise.
#
# A benchmark, not a test: exit status 0 unless something could not run.
set -u
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root"
	exit 0
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$SRC/build}}
IPROF=$BUILD/iprof
BA=$BUILD/bench_attach
FIX=$BUILD/glob-fixture
for f in "$IPROF" "$BA" "$FIX"; do
	[ -x "$f" ] || { echo "bench/attach.sh: $f is not built" >&2; exit 1; }
done
N_LIST=${N_LIST:-10 100 1000}
N_PLAIN_MAX=${N_PLAIN_MAX:-100}
TMP=$(mktemp -d /tmp/iprof-attach.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
EV=/sys/kernel/tracing/events/syscalls

# iprof_times ENV... -- PROBEFILE: "attach_ms detach_ms" of one iprof run
iprof_times() {
	local env=() a d i err
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	# a file of its own: a background detach writes to it later
	err=$(mktemp "$TMP/err.XXXXXX")
	env "${env[@]}" "$IPROF" -f json -o "$TMP/rep.json" -P "$2" -- true 2>"$err"
	# a background detach reports when it is done: wait for it
	for ((i = 0; i < 6000; i++)); do
		grep -qE 'detached in|done in' "$err" && break
		sleep 0.1
	done
	a=$(sed -n 's/.* attached in \([0-9.]*\) ms.*/\1/p' "$err" | head -1)
	d=$(sed -n 's/.*detached in \([0-9.]*\) ms.*/\1/p; s/.* done in \([0-9.]*\) ms.*/\1/p' "$err" | head -1)
	echo "${a:--} ${d:--}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }
row() { printf '%-16s %6s %10s %10s %8s %8s\n' "$@"; }

echo "attach and release: $(uname -r), $(nproc) CPUs; times in ms"
row mechanism probes attach detach "att/flr" "det/flr"
for n in $N_LIST; do
	# ---- syscall spans: n tracepoints, n/2 spans
	ls $EV | sed -n 's/^sys_enter_//p' | while read -r e; do
		[ -d "$EV/sys_exit_$e" ] &&
			echo "span sc_$e = tracepoint:syscalls:sys_enter_$e -> tracepoint:syscalls:sys_exit_$e"
	done | head -n $((n / 2)) >"$TMP/sc.conf"
	m=$(($(wc -l <"$TMP/sc.conf") * 2))
	read -r fa fd <<<"$("$BA" tp "$m" | sed -n 's/.*attach_ms=\([0-9.]*\) detach_ms=\([0-9.]*\)/\1 \2/p')"
	row "tp: floor" "$m" "$fa" "$fd" 1.00 1.00
	read -r a d <<<"$(iprof_times -- "$TMP/sc.conf")"
	row "tp: iprof raw" "$m" "$a" "$d" "$(ratio "$a" "$fa")" "$(ratio "$d" "$fd")"
	read -r a d <<<"$(iprof_times IPROF_SYSCALL_TRACEPOINTS=1 -- "$TMP/sc.conf")"
	row "tp: iprof tp" "$m" "$a" "$d" "$(ratio "$a" "$fa")" "$(ratio "$d" "$fd")"
	# ---- user functions: n functions (entry + return each)
	nm --defined-only "$FIX" | awk '$2 ~ /^[Tt]$/ && $3 ~ /^many_/ { print "uprobe:'"$FIX"':" $3 }' |
		head -n "$n" >"$TMP/up.conf"
	if [ "$n" -le "$N_PLAIN_MAX" ]; then
		read -r fa fd <<<"$("$BA" uprobe "$n" "$FIX" 'many_*' | sed -n 's/.*attach_ms=\([0-9.]*\) detach_ms=\([0-9.]*\)/\1 \2/p')"
	else
		fa=- fd=-
	fi
	row "up: floor" "$n" "$fa" "$fd" 1.00 1.00
	read -r a d <<<"$(iprof_times -- "$TMP/up.conf")"
	row "up: iprof multi" "$n" "$a" "$d" "$(ratio "$a" "$fa")" "$(ratio "$d" "$fd")"
	if [ "$n" -le "$N_PLAIN_MAX" ]; then
		read -r a d <<<"$(iprof_times IPROF_NO_UPROBE_MULTI=1 -- "$TMP/up.conf")"
	else
		a=- d=-
	fi
	row "up: iprof single" "$n" "$a" "$d" "$(ratio "$a" "$fa")" "$(ratio "$d" "$fd")"
done
