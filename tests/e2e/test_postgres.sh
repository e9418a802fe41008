#!/usr/bin/env bash
# probes.d/postgres.conf against PostgreSQL's own account (issue 46 item
# 4), on a cluster of Debian's postgresql-15 that the test starts (initdb
# as the postgres user, a private socket directory, no TCP), traced with
# -p of its postmaster, so in the backends it forks:
# - query spans = pg_stat_statements' calls (reset before each traced
#   part), over pgbench -i, over pgbench's select-only transactions and
#   over a lock wait's statements;
# - transactions: one per pgbench transaction under its query (each
#   statement commits alone) and one per connection at the top (the
#   backend's start-up reads the catalogs in one), against pgbench's own
#   count of transactions and the connections the server logged;
# - a lock wait (session 1 holds a row lock in BEGIN until session 2,
#   updating the row, waits, and 1 s more) is one lock_wait span, under a
#   query span,
#   as long as the wait the server itself logs (log_lock_waits: "acquired
#   ShareLock on transaction T after X ms") within 5% or 20 ms.
# - failed statements (divisions by zero, unique violations) and
#   aborted transactions (outside BEGIN, a BEGIN block rolled back, one
#   with a failed statement): query spans = pg_stat_statements' calls +
#   the statements psql saw fail, no query nested under another, txn spans
#   = commits + aborts outside BEGIN, nothing left open.
# The cluster is stopped and its directory removed on any exit.
. "$(dirname "$0")/lib.sh"
need_root
PGBIN=/usr/lib/postgresql/15/bin
CONF=$SRC/probes.d/postgres.conf
[ -x $PGBIN/postgres ] || skip "no $PGBIN/postgres (Debian's postgresql-15: tools/install-deps.sh)"
[ -e /usr/lib/postgresql/15/lib/pg_stat_statements.so ] ||
	skip "no pg_stat_statements in /usr/lib/postgresql/15/lib"
id postgres >/dev/null 2>&1 || skip "no postgres user (Debian's postgresql-common creates it)"
"$IPROF" list usdt $PGBIN/postgres 'postgresql:query__start' >/dev/null 2>&1 ||
	skip "$PGBIN/postgres has no USDT probes (built without --enable-dtrace)"

D=$TMP/pg
ipid=
cleanup() {
	[ -n "$ipid" ] && kill -INT "$ipid" 2>/dev/null && wait "$ipid"
	[ -e "$D/data/postmaster.pid" ] &&
		runuser -u postgres -- $PGBIN/pg_ctl -D "$D/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 755 "$TMP"
mkdir "$D" && chown postgres: "$D" || { bad "cannot make $D for postgres"; finish; }
runuser -u postgres -- $PGBIN/initdb -D "$D/data" -A trust -U postgres --no-sync \
	>"$TMP/initdb" 2>&1 || { cat "$TMP/initdb"; bad "initdb"; finish; }
# log_lock_waits logs a wait past deadlock_timeout when it ends;
# log_connections each connection, once authenticated
runuser -u postgres -- $PGBIN/pg_ctl -D "$D/data" -l "$D/log" -w -o \
	"-p 5432 -k $D -c listen_addresses= -c shared_preload_libraries=pg_stat_statements -c autovacuum=off -c fsync=off -c log_lock_waits=on -c deadlock_timeout=100ms -c log_connections=on" \
	start >"$TMP/start" 2>&1 || { cat "$TMP/start" "$D/log"; bad "pg_ctl start"; finish; }
PM=$(head -1 "$D/data/postmaster.pid")
sql() { $PGBIN/psql -X -q -At -v ON_ERROR_STOP=1 -h "$D" -p 5432 -U postgres postgres "$@"; }
bench() { $PGBIN/pgbench -h "$D" -p 5432 -U postgres "$@" postgres; }
sql -c 'CREATE EXTENSION pg_stat_statements' || { bad "pg_stat_statements"; finish; }

# trace_start NAME: reset pg_stat_statements, then iprof with postgres.conf
# on the postmaster in the background until trace_stop
trace_start() {
	sql -c 'SELECT pg_stat_statements_reset()' >/dev/null
	"$IPROF" -f seed -o "$TMP/$1" -P "$CONF" -p "$PM" 2>"$TMP/$1.err" &
	ipid=$!
	wait_tracing "$TMP/$1.err" || bad "$1: iprof started"
}
trace_stop() {
	kill -INT "$ipid"
	wait "$ipid"
	check "$1: iprof exit status" "$?" 0
	ipid=
	cat "$TMP/$1" "$TMP/$1.err"
}
# the statements pg_stat_statements counted since the reset, read before
# any other statement after the trace: the reset's own call and these
# queries' left out (a query is counted when it is over)
pgss_calls() {
	sql -c "SELECT calls, left(query, 60) FROM pg_stat_statements ORDER BY calls DESC" >&2
	sql -c "SELECT sum(calls) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'"
}
# paths FILE: every node of a seed report as "a>b>c COUNT"
paths() {
	awk '/^#/ || /^$/ { next }
	{
		match($0, /^ */); d = RLENGTH / 2; line = substr($0, RLENGTH + 1)
		s[d] = substr(line, 1, index(line, ",") - 1)
		p = s[0]; for (i = 1; i <= d; i++) p = p ">" s[i]
		match(line, /count = [0-9]+/)
		print p, substr(line, RSTART + 8, RLENGTH - 8)
	}' "$1"
}
# count_of FILE NAME: the calls of timer NAME summed over its paths
count_of() { paths "$1" | awk -v n="$2" '{ k = $1; sub(/.*>/, "", k) } k == n { s += $2 } END { print s + 0 }'; }

# 1. pgbench -i: tables created, filled by COPY, vacuumed, indexed
trace_start init
bench -i -s 1 -q >"$TMP/init.out" 2>&1 || { cat "$TMP/init.out"; bad "pgbench -i"; }
trace_stop init
want=$(pgss_calls)
check "pgbench -i: query spans = pg_stat_statements calls" "$(count_of "$TMP/init" query)" "$want"
within "pgbench -i: statements" "$want" 5 100

# 2. pgbench's select-only transaction (-S's statement as a script: -S
# runs two queries of its own first), 2 clients of T each
T=300
echo '\set aid random(1, 100000)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;' >"$TMP/select.sql"
trace_start sel
conn0=$(grep -c 'connection authorized' "$D/log")
bench -n -M simple -f "$TMP/select.sql" -c 2 -t $T >"$TMP/sel.out" 2>&1 || bad "pgbench"
conns=$(($(grep -c 'connection authorized' "$D/log") - conn0))
trace_stop sel
cat "$TMP/sel.out"
check "select: query spans = pg_stat_statements calls" "$(count_of "$TMP/sel" query)" "$(pgss_calls)"
done_tx=$(sed -n 's|^number of transactions actually processed: \([0-9]*\)/.*|\1|p' "$TMP/sel.out")
check "pgbench: transactions processed" "$done_tx" $((2 * T))
check "select: query spans = pgbench's transactions" "$(seed_field query count "$TMP/sel")" "$done_tx"
check "select: query>txn = pgbench's transactions" "$(seed_field 'query>txn' count "$TMP/sel")" "$done_tx"
# pgbench's clients and its own first connection, as the server logged them
check "pgbench: connections" "$conns" 3
check "select: txn at the top = connections" "$(seed_field txn count "$TMP/sel")" "$conns"
check "select: no lost records" "$(lost_field "$TMP/sel" records)" 0

# 3. a lock wait: session 1 updates row 1 in a transaction, waits until
# a lock is waited for (up to 20 s) and sleeps 1 s more; once it holds
# the row, session 2 updates the same row and waits for session 1's
# transaction to end
trace_start lock
printf '%s\n' 'BEGIN;' 'UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1;' \
	'DO $$ BEGIN FOR i IN 1..2000 LOOP EXIT WHEN EXISTS (SELECT FROM pg_locks WHERE NOT granted); PERFORM pg_sleep(0.01); END LOOP; PERFORM pg_sleep(1); END $$;' \
	'COMMIT;' | sql >/dev/null 2>"$TMP/s1.err" &
s1=$!
for ((i = 0; i < 200; i++)); do
	[ "$(sql -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'DO %' AND state = 'active'")" = 1 ] && break
	sleep 0.05
done
sql -c 'UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1' 2>"$TMP/s2.err" || bad "session 2's update"
wait $s1 || { cat "$TMP/s1.err"; bad "session 1"; }
trace_stop lock
check "lock: query spans = pg_stat_statements calls" "$(count_of "$TMP/lock" query)" "$(pgss_calls)"
check "lock: both updates done" "$(sql -c 'SELECT abalance FROM pgbench_accounts WHERE aid = 1')" 2
check "lock: one lock_wait span" "$(count_of "$TMP/lock" lock_wait)" 1
waited=$(paths "$TMP/lock" | awk '$1 ~ /(^|>)lock_wait$/ && $2 > 0 { print $1 }')
check "lock: the lock_wait span under a query" "$(echo "$waited" | grep -c '^query>')" 1
logged=$(sed -n 's/.*acquired ShareLock on transaction [0-9]* after \([0-9.]*\) ms.*/\1/p' "$D/log" | tail -1)
[ -n "$logged" ] || { cat "$D/log"; bad "the server logged the lock wait"; }
near "lock: lock_wait's time (ms) = the server's logged wait" \
	"$(seed_field "$waited" thread_time "$TMP/lock")" "${logged:-0}" 0.05 20
within "lock: the wait is session 1's last sleep and more (ms)" "${logged:-0}" 1000 5000

# 4. failed statements and aborted transactions (one psql session, each
# statement a query of its own; no ON_ERROR_STOP): 3 divisions by zero
# and 2 unique violations, each its own transaction, aborted; 4 good
# statements that commit alone; BEGIN, INSERT, ROLLBACK (aborted in
# ROLLBACK); BEGIN, a division by zero (aborted there), ROLLBACK.  Each
# failed query ends at its transaction__abort: counted once, its later
# queries beside it, never under it
trace_start fail
printf '%s\n' 'CREATE TABLE fail_t (k int PRIMARY KEY);' 'INSERT INTO fail_t VALUES (1);' \
	'SELECT 1/0;' 'INSERT INTO fail_t VALUES (1);' 'SELECT 2/0;' 'INSERT INTO fail_t VALUES (1);' \
	'SELECT 3/0;' 'SELECT count(*) FROM fail_t;' \
	'BEGIN;' 'INSERT INTO fail_t VALUES (2);' 'ROLLBACK;' \
	'BEGIN;' 'SELECT 4/0;' 'ROLLBACK;' 'SELECT k FROM fail_t;' |
	$PGBIN/psql -X -q -At -h "$D" -p 5432 -U postgres postgres >"$TMP/fail.out" 2>"$TMP/fail.sqlerr"
trace_stop fail
failed=$(grep -c '^ERROR:' "$TMP/fail.sqlerr")
check "fail: the statements that failed" "$failed" 6
check "fail: query spans = pg_stat_statements calls + the failed ones" \
	"$(count_of "$TMP/fail" query)" $(($(pgss_calls) + failed))
check "fail: query spans at the top = the session's statements" "$(seed_field query count "$TMP/fail")" 15
check "fail: no query under another" "$(paths "$TMP/fail" | grep -c 'query>.*query')" 0
# the 9 statements outside BEGIN: 4 committed, 5 aborted; a BEGIN block's
# transaction starts in BEGIN's query and ends in a later one: closed
# (unwound) by BEGIN's query__done, and its abort (ROLLBACK's, or the
# failed query's) finds it closed
check "fail: query>txn = commits + aborts outside BEGIN" "$(seed_field 'query>txn' count "$TMP/fail")" 9
check "fail: txn at the top = the connection's start-up" "$(seed_field txn count "$TMP/fail")" 1
# unwound: the 2 BEGIN blocks' transactions, and what each failed query
# had open under it at its error (closed when the abort ended it): a
# division by zero fails in plan (constant folding), 4 frames; a unique
# violation in an execute inside execute (the portal's run), 2 x 2
check "fail: unwound = BEGIN blocks' txn + the failed queries' frames" "$(lost_field "$TMP/fail" unwound)" $((2 + 4 + 2 * 2))
check "fail: nothing left open, no backend exited inside a span" \
	"$(grep -c '^# \(incomplete\|exited\):' "$TMP/fail")" 0
check "fail: no lost records" "$(lost_field "$TMP/fail" records)" 0
finish
