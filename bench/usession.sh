#!/usr/bin/env bash
# The cost per call of a uprobe session against return sites (issue 43
# items 1, 2, 7): build/e2e-usession, a C program whose library runs its
# timed() on a makecontext coroutine (tests/e2e/helpers/session/), under
# iprof's default (--returns auto: a uprobe session where the kernel has
# them, 6.13+), under --returns sites (the return sites auto chose before:
# on a kernel that single-steps them, a second trap per call), and under
# bpftrace with a uprobe and a uretprobe on timed() (which that program
# does not survive: its status is shown).  Each tool runs the program
# with N and with N/10 calls on main's stack (E2E_PLAIN) before 10
# coroutine rounds; the cost per call is the difference of the two times
# over the difference of their calls, less the program's own the same
# way, so that each tool's fixed start-up and exit cost drops out (and
# the coroutine's switches, each a uprobe on libc's swapcontext in the
# session's case).  Interleaved rounds, medians.
#
# Then a real program: python3.11 from Debian, which once it has imported
# hashlib maps libcrypto (its setcontext: a uprobe session under -p, the
# process one thread asleep on its stack), PyObject_Str timed while the
# program calls str() on an int NPY times in a loop it times itself (its own
# perf_counter: no start-up in it): untraced, iprof -p by default (a
# session), --returns sites, and bpftrace's uprobe + uretprobe -p (which
# python survives: it never switches stacks); us per call over the
# untraced loop, medians; counts checked against each other.
#
#   sudo bench/usession.sh [ROUNDS]   (default 5; BUILD=build dir, N=20000, NPY=200000)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$src/build}
IPROF=${IPROF:-$BUILD/iprof}
B=$BUILD/e2e-usession
ROUNDS=${1:-5}
N=${N:-20000}
n=$((N / 10))
[ -x "$B" ] && [ -x "$IPROF" ] || { echo "bench/usession.sh: build $B and $IPROF first" >&2; exit 2; }
T=$(mktemp -d /tmp/iprof-usession.XXXXXX)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
run() { # TOOL ROUNDS: seconds, the program's line checked
	local t0 t1 out
	t0=$(now)
	export E2E_PLAIN=$2
	case $1 in
	untraced) out=$("$B" 10) ;;
	default) out=$("$IPROF" -q -o /dev/null -e "uprobe:$B:timed" -- "$B" 10 2>/dev/null) ;;
	sites) out=$("$IPROF" -q -o /dev/null --returns sites -e "uprobe:$B:timed" -- "$B" 10 2>/dev/null) ;;
	esac
	t1=$(now)
	[ "$out" = "main=$(($2 + 10)) coro=10" ] || echo "bench/usession.sh: $1 $2: the program said '$out'" >&2
	echo "$t0 $t1" | awk '{ printf "%.6f\n", $2 - $1 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
"$IPROF" --dry-run -e "uprobe:$B:timed" -- "$B" 2>&1 | grep -o '(stops [^;]*' | cut -c1-100
tools=(untraced default sites)
for r in $(seq "$ROUNDS"); do
	for k in 0 1 2; do
		tool=${tools[$(((k + r) % 3))]}
		echo "$tool $(run $tool $N) $(run $tool $n)" >>"$T/runs"
	done
done
per() { awk -v t="$1" -v d=$((N - n)) '$1 == t { printf "%.9f\n", ($2 - $3) / d }' "$T/runs" | median; }
u=$(per untraced)
c=()
printf '%-9s %12s\n' tool "us per call"
for tool in default sites; do
	c[${#c[@]}]=$(awk -v a="$(per $tool)" -v u="$u" 'BEGIN { printf "%.2f", (a - u) * 1e6 }')
	printf '%-9s %12s\n' "$tool" "${c[-1]}"
done
echo "default / sites: $(awk -v a="${c[0]}" -v b="${c[1]}" 'BEGIN { printf "%.2fx", a / b }')"
if command -v bpftrace >/dev/null; then
	E2E_PLAIN=10 bpftrace -e "uprobe:$B:timed { @s[tid] = nsecs; } uretprobe:$B:timed /@s[tid]/ { delete(@s[tid]); }" \
		-c "$B 10" >"$T/bt" 2>&1
	echo "bpftrace (uprobe + uretprobe): the program $(grep -q "main=20 coro=10" "$T/bt" && echo lived || echo "did not finish (dmesg: $(dmesg 2>/dev/null | grep -c 'failed to handle uretprobe') 'failed to handle uretprobe, sending SIGILL' lines so far)")"
fi

# ---- python3.11 -p, PyObject_Str --------------------------------------
PY=/usr/bin/python3.11
NPY=${NPY:-200000}
[ -x "$PY" ] || { echo "bench/usession.sh: no $PY: the python part left out" >&2; exit 0; }
pyrun() { # TOOL: "TOOL SECONDS CALLS"
	local tool=$1 pid tp=0 calls=0
	rm -f "$T/in"
	mkfifo "$T/in"
	"$PY" -c 'import hashlib, sys, time
sys.stdin.readline()
n = int(sys.argv[1]); s = str
t = time.perf_counter()
for i in range(n):
    s(i)
print("%.6f" % (time.perf_counter() - t))' "$NPY" <"$T/in" >"$T/py.out" &
	pid=$!
	exec 9>"$T/in"
	# asleep in read(2) on its first stack, hashlib imported (-p's
	# session needs it so: /proc/PID/syscall)
	for _ in $(seq 600); do [ "$(cut -d' ' -f1 /proc/$pid/syscall 2>/dev/null)" = 0 ] && break; sleep 0.05; done
	case $tool in
	default | sites)
		extra=()
		[ $tool = sites ] && extra=(--returns sites)
		"$IPROF" -q -f json -o "$T/py-$tool.json" "${extra[@]}" -e "uprobe:$PY:PyObject_Str" -p $pid 2>"$T/py.err" &
		tp=$!
		for _ in $(seq 600); do grep -q '; tracing' "$T/py.err" && break; sleep 0.05; done ;;
	bpftrace)
		bpftrace -p $pid -e "uprobe:$PY:PyObject_Str { @s[tid] = nsecs; } uretprobe:$PY:PyObject_Str /@s[tid]/ { @calls = count(); delete(@s[tid]); }" >"$T/bt" 2>&1 &
		tp=$!
		for _ in $(seq 600); do grep -q Attaching "$T/bt" && break; sleep 0.05; done
		sleep 1 ;;
	esac
	echo go >&9
	exec 9>&-
	wait $pid
	[ $tp != 0 ] && { kill -INT $tp 2>/dev/null; wait $tp; }
	case $tool in
	default | sites) calls=$(jq '[.tree[] | .count] | add' "$T/py-$tool.json") ;;
	bpftrace) calls=$(sed -n 's/^@calls: //p' "$T/bt") ;;
	esac
	echo "$tool $(cat "$T/py.out") $calls"
}
declare -A pc
ptools=(untraced default sites bpftrace)
command -v bpftrace >/dev/null || ptools=(untraced default sites)
np=${#ptools[@]}
for r in $(seq "$ROUNDS"); do
	for k in $(seq 0 $((np - 1))); do
		pyrun "${ptools[$(((k + r) % np))]}" >>"$T/pyruns"
	done
done
pu=$(awk '$1 == "untraced" { print $2 }' "$T/pyruns" | median)
echo
echo "python3.11 -p, PyObject_Str, $NPY str() calls a round (the loop's own clock; untraced $(awk -v u="$pu" -v n="$NPY" 'BEGIN { printf "%.3f", u / n * 1e6 }') us a call):"
echo "iprof's default there: $(jq -r '.probes[0].stop' "$T/py-default.json" 2>/dev/null)"
printf '%-9s %12s %12s\n' tool "us per call" "calls"
for tool in "${ptools[@]:1}"; do
	t=$(awk -v t=$tool '$1 == t { print $2 }' "$T/pyruns" | median)
	c=$(awk -v t=$tool '$1 == t { print $3 }' "$T/pyruns" | sort -u | paste -sd,)
	pc[$tool]=$(awk -v a="$t" -v u="$pu" -v n="$NPY" 'BEGIN { printf "%.2f", (a - u) / n * 1e6 }')
	printf '%-9s %12s %12s\n' "$tool" "${pc[$tool]}" "$c"
done
[ -n "${pc[bpftrace]:-}" ] && echo "default / bpftrace: $(awk -v a="${pc[default]}" -v b="${pc[bpftrace]}" 'BEGIN { printf "%.2fx", a / b }'), sites / bpftrace: $(awk -v a="${pc[sites]}" -v b="${pc[bpftrace]}" 'BEGIN { printf "%.2fx", a / b }')"
