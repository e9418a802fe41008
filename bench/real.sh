#!/usr/bin/env bash
# Real programs from Debian, timed by iprof and by bpftrace doing the same
# work (issue 43 item 7): the cost per traced call of iprof's default
# (--returns auto), of --returns uretprobe and of a bpftrace script with a
# uprobe and a uretprobe per function (the seed's START_TIMER/STOP_TIMER,
# a map keyed by thread and function), against the program untraced.
#
#   sudo bench/real.sh [ROUNDS]      (default 5; IPROF=path, default build/iprof)
#
# Workloads (each run once with N calls and once with none, so that each
# tool's fixed start-up and exit cost is measured and shown apart):
#   perl    perl -e 'sub f { print STDOUT "" } f() for 1..N':
#           Perl_pp_entersub + Perl_pp_print in /usr/bin/perl
#   lua     lua5.4: string.gsub with a Lua function over N characters:
#           lua_callk in /usr/bin/lua5.4
#   pgbench pgbench -S (one client, PGSECS seconds) on a PostgreSQL 15
#           cluster made here in a temporary directory: PortalRun,
#           ExecutorRun and index_getnext_slot in the postgres executable,
#           traced by -p of the postmaster (its backends are forked after);
#           the cost per call from the transactions' rate: (1/tps_traced -
#           1/tps_untraced) / calls per transaction
# Rounds are interleaved (every tool once per round, in a rotating order);
# each figure is the median over rounds.  Installs bpftrace, lua5.4 and
# postgresql with apt-get if missing.  Counts are checked: iprof's and
# bpftrace's must agree with each other in every run.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
IPROF=${IPROF:-$src/build/iprof}
ROUNDS=${1:-5}
N_PERL=${N_PERL:-75000}
N_LUA=${N_LUA:-64000}
PGSECS=${PGSECS:-5}
[ "$(id -u)" = 0 ] || { echo "bench/real.sh: needs root" >&2; exit 2; }
[ -x "$IPROF" ] || { echo "bench/real.sh: $IPROF not built" >&2; exit 2; }
need=()
command -v bpftrace >/dev/null || need+=(bpftrace)
command -v lua5.4 >/dev/null || need+=(lua5.4)
command -v pgbench >/dev/null || need+=(postgresql)
command -v jq >/dev/null || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null ||
		{ echo "bench/real.sh: apt-get install ${need[*]} failed" >&2; exit 2; }
fi
TMP=$(mktemp -d /tmp/iprof-real.XXXXXX)
chmod 755 "$TMP"
trap 'pg_stop; rm -rf "$TMP"' EXIT
PERL=/usr/bin/perl LUA=/usr/bin/lua5.4

now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bt_script BINARY FUNC...: a uprobe and a uretprobe per function, its
# time summed and its calls counted per function (printed at exit)
bt_script() {
	local bin=$1 f i=0
	shift
	for f in "$@"; do
		printf 'uprobe:%s:%s { @s[tid, %d] = nsecs; }\n' "$bin" "$f" $i
		printf 'uretprobe:%s:%s /@s[tid, %d]/ { @ns["%s"] = sum(nsecs - @s[tid, %d]); @n["%s"] = count(); delete(@s[tid, %d]); }\n' \
			"$bin" "$f" $i "$f" $i "$f" $i
		i=$((i + 1))
	done
	echo 'END { clear(@s); }'
}

# ip_args BINARY FUNC...: iprof's -e per function
ip_args() {
	local bin=$1 f
	shift
	for f in "$@"; do printf -- '-e\nuprobe:%s:%s\n' "$bin" "$f"; done
}

# counts from iprof's JSON (every node of the timer summed) and from
# bpftrace's @n: "total calls"
ip_calls() { jq '[.tree | .. | objects | select(has("count") and has("path")) | .count] | add // 0' "$1"; }
bt_calls() { sed -n 's/^@n\[.*\]: \([0-9]*\)$/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }'; }

# run_tool TOOL WORKLOAD N: one timed run, "NS CALLS" on stdout
run_tool() {
	local tool=$1 w=$2 n=$3 t0 t1 bin funcs cmd calls=0
	# (scripts in files: bpftrace's -c splits its command at spaces)
	case $w in
	perl) bin=$PERL funcs=(Perl_pp_entersub Perl_pp_print)
	      cmd=("$PERL" "$TMP/w.pl" "$n") ;;
	lua) bin=$LUA funcs=(lua_callk)
	     cmd=("$LUA" "$TMP/w.lua" "$n") ;;
	esac
	mapfile -t ea < <(ip_args "$bin" "${funcs[@]}")
	t0=$(now)
	case $tool in
	untraced) "${cmd[@]}" >/dev/null ;;
	default) "$IPROF" -q -f json -o "$TMP/r.json" "${ea[@]}" -- "${cmd[@]}" >/dev/null ;;
	uretprobe) "$IPROF" -q -f json -o "$TMP/r.json" --returns uretprobe "${ea[@]}" -- "${cmd[@]}" >/dev/null 2>"$TMP/r.err" ;;
	bpftrace) bpftrace -q -o "$TMP/bt.out" -e "$(bt_script "$bin" "${funcs[@]}")" \
		-c "${cmd[*]}" >/dev/null 2>"$TMP/bt.err" ;;
	esac
	t1=$(now)
	case $tool in
	default | uretprobe) calls=$(ip_calls "$TMP/r.json") ;;
	bpftrace) calls=$(bt_calls "$TMP/bt.out") ;;
	esac
	echo "$((t1 - t0)) $calls"
}

echo 'sub f { print STDOUT "" } f() for 1..$ARGV[0];' >"$TMP/w.pl"
echo 'local s = string.rep("x", tonumber(arg[1])); s:gsub(".", function(c) return c end)' >"$TMP/w.lua"
tools=(untraced default uretprobe bpftrace)
for w in perl lua; do
	n=$N_PERL
	[ $w = lua ] && n=$N_LUA
	for r in $(seq "$ROUNDS"); do
		# rotate the order each round
		for k in 0 1 2 3; do
			tool=${tools[$(((k + r) % 4))]}
			for m in 0 "$n"; do
				read -r ns calls < <(run_tool "$tool" $w "$m")
				echo "$w $tool $m $ns $calls" >>"$TMP/runs"
			done
		done
	done
done

# PostgreSQL: a cluster of its own on a socket in $TMP
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PG=$PGBIN/postgres
PGD=$TMP/pg # the cluster and its socket, the postgres user's
pg_stop() { [ -d "$PGD/data" ] && su postgres -c "$PGBIN/pg_ctl -D $PGD/data -m immediate stop" >/dev/null 2>&1; return 0; }
pg_run() { su postgres -c "$PGBIN/pgbench -h $PGD -p 54329 -S -c 1 -T $PGSECS -n bench" 2>/dev/null |
	sed -n 's/^tps = \([0-9.]*\) .*/\1/p'; }
mkdir -p "$PGD" && chown postgres "$PGD"
if su postgres -c "$PGBIN/initdb -D $PGD/data -A trust" >/dev/null 2>&1 &&
	su postgres -c "$PGBIN/pg_ctl -D $PGD/data -o '-k $PGD -p 54329 -c listen_addresses=' -l $PGD/log -w start" >/dev/null &&
	su postgres -c "$PGBIN/createdb -h $PGD -p 54329 bench && $PGBIN/pgbench -h $PGD -p 54329 -i -s 1 bench" >/dev/null 2>&1; then
	pm=$(head -1 "$PGD/data/postmaster.pid")
	pgf=(PortalRun ExecutorRun index_getnext_slot)
	mapfile -t pea < <(ip_args "$PG" "${pgf[@]}")
	for r in $(seq "$ROUNDS"); do
		for k in 0 1 2 3; do
			tool=${tools[$(((k + r) % 4))]}
			calls=0
			case $tool in
			untraced) tps=$(pg_run) ;;
			default | uretprobe)
				extra=()
				[ $tool = uretprobe ] && extra=(--returns uretprobe)
				"$IPROF" -f json -o "$TMP/pg.json" "${extra[@]}" "${pea[@]}" -p "$pm" \
					-d $((PGSECS + 30))s 2>"$TMP/pg.err" &
				ip=$!
				for _ in $(seq 600); do grep -q '; tracing' "$TMP/pg.err" && break; sleep 0.05; done
				tps=$(pg_run)
				kill -INT $ip
				wait $ip
				calls=$(ip_calls "$TMP/pg.json") ;;
			bpftrace)
				bpftrace -o "$TMP/pgbt.out" -e "$(bt_script "$PG" "${pgf[@]}")" 2>"$TMP/pgbt.err" &
				bp=$!
				# "Attaching N probes...", then the attach itself
				for _ in $(seq 600); do grep -q Attaching "$TMP/pgbt.out" 2>/dev/null && break; sleep 0.05; done
				sleep 1
				tps=$(pg_run)
				kill -INT $bp
				wait $bp
				calls=$(bt_calls "$TMP/pgbt.out") ;;
			esac
			echo "pgbench $tool $PGSECS $tps $calls" >>"$TMP/runs"
		done
	done
else
	echo "bench/real.sh: no PostgreSQL cluster could be made here: pgbench left out" >&2
	cat "$PGD/log" >&2 2>/dev/null
fi

# The table
printf '%-8s %-10s %12s %12s %10s %12s\n' workload tool "median(s)" "fixed(s)" calls "us/call"
for w in perl lua; do
	declare -A per=()
	u0=$(awk -v w=$w '$1 == w && $2 == "untraced" && $3 == 0 { print $4 }' "$TMP/runs" | median)
	un=$(awk -v w=$w '$1 == w && $2 == "untraced" && $3 != 0 { print $4 }' "$TMP/runs" | median)
	for tool in "${tools[@]}"; do
		t0=$(awk -v w=$w -v t=$tool '$1 == w && $2 == t && $3 == 0 { print $4 }' "$TMP/runs" | median)
		tn=$(awk -v w=$w -v t=$tool '$1 == w && $2 == t && $3 != 0 { print $4 }' "$TMP/runs" | median)
		calls=$(awk -v w=$w -v t=$tool '$1 == w && $2 == t && $3 != 0 { print $5 }' "$TMP/runs" | median)
		zc=$(awk -v w=$w -v t=$tool '$1 == w && $2 == t && $3 == 0 { print $5 }' "$TMP/runs" | median)
		if [ "$tool" = untraced ]; then
			per[$tool]=0
			printf '%-8s %-10s %12.3f %12s %10s %12s\n' $w $tool "$(echo "$tn" | awk '{ print $1 / 1e9 }')" - - -
			continue
		fi
		# the cost of the calls: (T(N) - T(0)) - (U(N) - U(0)), over
		# the calls that N adds
		per[$tool]=$(awk -v tn="$tn" -v t0="$t0" -v un="$un" -v u0="$u0" -v c="$calls" -v z="$zc" \
			'BEGIN { d = c - z; if (d <= 0) { print "nan"; exit } printf "%.2f", ((tn - t0) - (un - u0)) / d / 1000 }')
		printf '%-8s %-10s %12.3f %12.3f %10s %12s' $w $tool "$(echo "$tn" | awk '{ print $1 / 1e9 }')" \
			"$(awk -v a="$t0" -v b="$u0" 'BEGIN { print (a - b) / 1e9 }')" "$calls" "${per[$tool]}"
		echo
	done
	for tool in default uretprobe; do
		echo "$w: $tool / bpftrace per call: $(awk -v a="${per[$tool]}" -v b="${per[bpftrace]}" 'BEGIN { printf "%.2fx", a / b }')"
	done
	unset per
done
if grep -q '^pgbench' "$TMP/runs"; then
	ut=$(awk '$1 == "pgbench" && $2 == "untraced" { print $4 }' "$TMP/runs" | median)
	declare -A pper=()
	for tool in "${tools[@]}"; do
		tps=$(awk -v t=$tool '$1 == "pgbench" && $2 == t { print $4 }' "$TMP/runs" | median)
		calls=$(awk -v t=$tool '$1 == "pgbench" && $2 == t { print $5 }' "$TMP/runs" | median)
		[ $tool = untraced ] && { printf '%-8s %-10s %10.0f tps\n' pgbench $tool "$tps"; continue; }
		# calls per transaction, from this run's calls and transactions
		pper[$tool]=$(awk -v tps="$tps" -v ut="$ut" -v c="$calls" -v s="$PGSECS" \
			'BEGIN { tx = tps * s; cpt = c / tx; printf "%.2f", (1 / tps - 1 / ut) / cpt * 1e6 }')
		printf '%-8s %-10s %10.0f tps %10s calls %8s us/call\n' pgbench $tool "$tps" "$calls" "${pper[$tool]}"
	done
	for tool in default uretprobe; do
		echo "pgbench: $tool / bpftrace per call: $(awk -v a="${pper[$tool]}" -v b="${pper[bpftrace]}" 'BEGIN { printf "%.2fx", a / b }')"
	done
fi
# counts: every tool saw the same calls (the untraced run counts none)
awk '$2 != "untraced" && $1 != "pgbench" { k = $1 " " $3; if (k in c && c[k] != $5) { print "COUNT MISMATCH: " $0 " (another run: " c[k] ")"; bad = 1 } c[k] = $5 }
	END { exit bad }' "$TMP/runs" && echo "counts: every tool, every round, the same calls"
