#!/usr/bin/env bash
# The cost of probes.d/postgres.conf on PostgreSQL 15 (issue 46 item 5):
# pgbench -S (one client, SECS seconds, simple protocol) on a cluster made
# here (scale 1, autovacuum off), untraced, under iprof -P
# probes.d/postgres.conf -p POSTMASTER, and under a bpftrace script with
# the same USDT probes (each span: a start time per thread in a map, a
# histogram of the differences and a count at the stop; generated from
# postgres.conf's span lines; --usdt-file-activation sets the semaphores,
# system-wide).  Rounds interleaved (every tool once per round), medians;
# the cost per span from the transactions' rate: (1/tps - 1/untraced tps)
# / spans per transaction, the spans counted by each tool.
#
#   sudo bench/postgres.sh [ROUNDS] [SECS]   (default 5 rounds of 5 s;
#                                             IPROF=path, default build/iprof)
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
IPROF=${IPROF:-$src/build/iprof}
CONF=$src/probes.d/postgres.conf
ROUNDS=${1:-5}
SECS=${2:-5}
PGBIN=/usr/lib/postgresql/15/bin
[ -x $PGBIN/postgres ] || { echo "no $PGBIN/postgres (postgresql-15)" >&2; exit 2; }
tools="untraced iprof"
command -v bpftrace >/dev/null && tools="$tools bpftrace"
TMP=$(mktemp -d)
D=$TMP/pg
pg_stop() { [ -e "$D/data/postmaster.pid" ] &&
	runuser -u postgres -- $PGBIN/pg_ctl -D "$D/data" -m immediate -w stop >/dev/null 2>&1; }
trap 'pg_stop; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$TMP" && mkdir "$D" && chown postgres: "$D" || exit 2
runuser -u postgres -- $PGBIN/initdb -D "$D/data" -A trust -U postgres --no-sync >/dev/null &&
	runuser -u postgres -- $PGBIN/pg_ctl -D "$D/data" -l "$D/log" -w -o \
		"-p 5432 -k $D -c listen_addresses= -c autovacuum=off" start >/dev/null &&
	$PGBIN/pgbench -h "$D" -p 5432 -U postgres -i -s 1 -q postgres >/dev/null 2>&1 ||
	{ cat "$D/log" >&2; exit 2; }
PM=$(head -1 "$D/data/postmaster.pid")
pg_run() { # transactions per second
	$PGBIN/pgbench -h "$D" -p 5432 -U postgres -n -S -M simple -c 1 -T "$SECS" postgres 2>/dev/null |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}
# bpftrace's script: per span line of postgres.conf, its start and stop
# probes (a condition on the stop kept: argN as bpftrace's argN)
awk '/^span / {
	n = $2; st = $4; sp = $6; cond = ""
	for (i = 8; i <= NF; i++) cond = cond " " $i
	sub(/^ /, "", cond)
	printf "%s { @s_%s[tid] = nsecs; }\n", st, n
	printf "%s /@s_%s[tid]%s/ { @h_%s = hist(nsecs - @s_%s[tid]); @n = count(); delete(@s_%s[tid]); }\n",
		sp, n, cond == "" ? "" : " && " cond, n, n, n
}' "$CONF" | sed 's/arg\([0-9]\):u8/(arg\1 \& 0xff)/g' >"$TMP/pg.bt"
spans_of() { # the spans counted in a seed report
	awk '!/^#/ && /count = / { match($0, /count = [0-9]+/); s += substr($0, RSTART + 8, RLENGTH - 8) }
		END { print s + 0 }' "$1"
}
for ((r = 0; r < ROUNDS; r++)); do
	for t in $tools; do
		spans=0
		case $t in
		untraced) tps=$(pg_run) ;;
		iprof)
			"$IPROF" -f seed -o "$TMP/ip.rep" -P "$CONF" -p "$PM" >/dev/null 2>"$TMP/ip.err" &
			ip=$!
			for _ in $(seq 600); do grep -q '; tracing' "$TMP/ip.err" && break; sleep 0.05; done
			tps=$(pg_run)
			kill -INT $ip
			wait $ip
			spans=$(spans_of "$TMP/ip.rep") ;;
		bpftrace)
			bpftrace --usdt-file-activation -o "$TMP/bt.out" "$TMP/pg.bt" >/dev/null 2>"$TMP/bt.err" &
			bp=$!
			for _ in $(seq 600); do grep -q Attaching "$TMP/bt.out" 2>/dev/null && break; sleep 0.05; done
			sleep 1
			tps=$(pg_run)
			kill -INT $bp
			wait $bp
			spans=$(sed -n 's/^@n: //p' "$TMP/bt.out") ;;
		esac
		echo "$t $tps ${spans:-0}" >>"$TMP/runs"
	done
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ut=$(awk '$1 == "untraced" { print $2 }' "$TMP/runs" | med)
printf "%-9s %10s %14s %12s\n" tool tps spans/tx "us/span"
for t in $tools; do
	tps=$(awk -v t=$t '$1 == t { print $2 }' "$TMP/runs" | med)
	# spans per transaction: each run's spans over its transactions
	spt=$(awk -v t=$t -v s="$SECS" '$1 == t && $2 > 0 { print $3 / ($2 * s) }' "$TMP/runs" | med)
	awk -v t=$t -v tps="$tps" -v ut="$ut" -v spt="$spt" 'BEGIN {
		c = "-"
		if (spt > 0)
			c = sprintf("%.2f", (1 / tps - 1 / ut) / spt * 1e6)
		printf "%-9s %10.0f %14.2f %12s\n", t, tps, spt, c }'
done
echo "runs (tool tps spans):"
cat "$TMP/runs"
