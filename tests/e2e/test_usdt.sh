#!/usr/bin/env bash
# USDT probes as span sides (issue 46 item 1), against
# tools/usdt-workload's own counts: a span between two USDT probes, one
# filtered on an argument, one from a semaphore-guarded probe, a uprobe
# timer nested inside them; the semaphore set while traced and reset
# after; iprof list usdt; a misspelt probe (exit 2, the file's probes and
# the nearest named); python3.11's own semaphore-guarded gc probes against
# the number of collections a script makes.
. "$(dirname "$0")/lib.sh"
need_root
W=$BUILD/usdt-workload
[ -x "$W" ] || skip "no $W (sys/sdt.h missing at build time: systemtap-sdt-dev)"

N=60
"$IPROF" -q -f seed -o "$TMP/rep" \
	-e "span req = usdt:$W:iprofw:req__start -> usdt:$W:iprofw:req__done" \
	-e "span k0 = usdt:$W:req__start if arg1 == 0 -> usdt:$W:req__done" \
	-e "span g = usdt:$W:guarded -> usdt:$W:req__done" \
	-e "uprobe:$W:work" \
	-- "$W" --calls $N --spin-us 200 >"$TMP/truth" 2>"$TMP/err"
check "iprof exit status" "$?" 0
cat "$TMP/rep" "$TMP/err"
k0=$(truth kind0.count "$TMP/truth")
check "workload: kind 0 is a third" "$k0" $((N / 3))
check "workload: requests" "$(truth req.count "$TMP/truth")" $N
check "req count" "$(seed_field req count "$TMP/rep")" $N
# k0 starts after req on the same probe (file order): nested in it
check "req>k0 count (arg1 == 0)" "$(seed_field 'req>k0' count "$TMP/rep")" "$k0"
check "req>work count (kinds 1, 2)" "$(seed_field 'req>work' count "$TMP/rep")" $((N - k0))
check "req>k0>work count" "$(seed_field 'req>k0>work' count "$TMP/rep")" "$k0"
# the guarded probe fires only while its semaphore is set: every request
check "workload: guarded probe fired (semaphore set)" "$(truth guarded.count "$TMP/truth")" $N
check "req>g count" "$(seed_field 'req>g' count "$TMP/rep")" $((N - k0))
check "req>k0>g count" "$(seed_field 'req>k0>g' count "$TMP/rep")" "$k0"
check "no k0 outside req" "$(seed_field k0 count "$TMP/rep")" ""
check "no orphan stops" "$(grep -c 'orphan' "$TMP/rep" "$TMP/err" | awk -F: '{ s += $2 } END { print s }')" 0
# span time against the workload's own clock around each request (its
# time includes the probes' cost outside the span): within 20% or 5 ms
# above, and below by up to 0.1 ms a request more
own=$(awk -v n="$(truth req.ns "$TMP/truth")" 'BEGIN { printf "%.2f", n / 1e6 }')
within "req thread_time (ms), the workload's own $own" \
	"$(seed_field req thread_time "$TMP/rep")" \
	"$(awk -v o="$own" -v n=$N 'BEGIN { d = o * 0.2; if (d < 5) d = 5; printf "%.2f", o - d - n * 0.1 }')" \
	"$(awk -v o="$own" 'BEGIN { d = o * 0.2; if (d < 5) d = 5; printf "%.2f", o + d }')"

# alternative stops (issue 46): a request ends at the guarded probe for
# the first half (arg0 < N/2), at req__done for the rest; the stop that
# finds it closed is dropped, not an orphan; nothing nests in it
"$IPROF" -q -f seed -o "$TMP/alt" \
	-e "span alt = usdt:$W:req__start -> usdt:$W:guarded if arg0 < $((N / 2)) | usdt:$W:req__done" \
	-e "uprobe:$W:work" -- "$W" --calls $N --spin-us 100 >/dev/null 2>"$TMP/alt.err"
check "alt: iprof exit status" "$?" 0
cat "$TMP/alt"
check "alt count" "$(seed_field alt count "$TMP/alt")" $N
check "alt>work count" "$(seed_field 'alt>work' count "$TMP/alt")" $N
check "alt: none under another" "$(seed_field 'alt>alt' count "$TMP/alt")" ""
check "alt: no orphan stops" "$(grep -c 'orphan' "$TMP/alt" "$TMP/alt.err" | awk -F: '{ s += $2 } END { print s }')" 0
check "alt: nothing left open" "$(grep -c '^# \(incomplete\|exited\):' "$TMP/alt")" 0

# untraced, the guarded probe never fires
"$W" --calls 5 >"$TMP/plain"
check "untraced: guarded probe not fired" "$(truth guarded.count "$TMP/plain")" 0

# the semaphore: set while iprof is attached (-p), reset after it detached
"$W" --calls 20 --wait-sema 30000 >"$TMP/sema" &
wpid=$!
"$IPROF" -q -f seed -o "$TMP/rep2" -p $wpid -d 1s \
	-e "span g = usdt:$W:guarded -> usdt:$W:req__done" 2>"$TMP/err2"
check "-p: iprof exit status" "$?" 0
wait $wpid
check "-p: workload exit status" "$?" 0
check "semaphore set while traced" "$(truth sema.set "$TMP/sema")" 1
check "semaphore reset after" "$(truth sema.reset "$TMP/sema")" 1
check "-p: guarded fired each request" "$(truth guarded.count "$TMP/sema")" 20
cat "$TMP/rep2" "$TMP/err2"
check "-p: g count" "$(seed_field g count "$TMP/rep2")" 20

# iprof list usdt
"$IPROF" list usdt "$W" >"$TMP/list" 2>"$TMP/lerr"
check "list usdt: exit" "$?" 0
check "list usdt: req__start" "$(grep '^iprofw:req__start ' "$TMP/list" | sed 's/semaphore 0x[0-9a-f]*/semaphore X/')" \
	"iprofw:req__start  2 args  8@%rbx -8@%rbp  semaphore X"
check "list usdt: probes" "$(cut -d' ' -f1 "$TMP/list" | sort | tr '\n' ' ')" \
	"iprofw:guarded iprofw:req__done iprofw:req__start "
check "list usdt: guarded has a semaphore" "$(grep -c '^iprofw:guarded .*semaphore 0x[1-9a-f]' "$TMP/list")" 1
"$IPROF" list usdt "$W" '*done' >"$TMP/list2" 2>/dev/null
check "list usdt GLOB" "$(cut -d' ' -f1 "$TMP/list2")" "iprofw:req__done"

# a misspelt probe: exit 2, FILE:LINE:COL, the file's probes, the nearest
"$IPROF" -q -e "span x = usdt:$W:req__strat -> usdt:$W:req__done" -- "$W" --calls 1 >/dev/null 2>"$TMP/typo"
check "typo: exit status" "$?" 2
cat "$TMP/typo"
check "typo: where and the probes" "$(grep -c -- "-e:1:10: span x: .*usdt-workload has no USDT probe req__strat (its probes: iprofw:req__done, iprofw:req__start, iprofw:guarded); did you mean req__start?" "$TMP/typo")" 1
"$IPROF" -q -e "span x = usdt:$W:req__start if arg2 == 1 -> usdt:$W:req__done" -- "$W" --calls 1 >/dev/null 2>"$TMP/arg"
check "arg past the probe's: exit status" "$?" 2
check "arg past the probe's: message" "$(grep -c -- "-e:1:$((${#W} + 30)): arg2: USDT probe iprofw:req__start has 2 arguments (8@%rbx -8@%rbp)" "$TMP/arg")" 1

# Debian's python3.11: its gc probes (semaphore-guarded) against the
# collections the script makes (automatic ones off; the interpreter's
# own final collection is of generation 2, filtered out)
PY=/usr/bin/python3.11
if [ -x $PY ] && "$IPROF" list usdt $PY 'python:gc__start' >/dev/null 2>&1; then
	G=7
	"$IPROF" -q -f seed -o "$TMP/py" \
		-e "span gc1 = usdt:$PY:python:gc__start if arg0 == 1 -> usdt:$PY:python:gc__done" \
		-e "span gc = usdt:$PY:gc__start -> usdt:$PY:gc__done" \
		-- $PY -c "import gc
gc.disable()
for i in range($G): gc.collect(1)
gc.collect(0)" 2>"$TMP/pyerr"
	check "python: exit status" "$?" 0
	cat "$TMP/py"
	check "python: gc.collect(1) spans" "$(seed_field gc1 count "$TMP/py")" $G
	# gc (file order after gc1) nests in gc1 for those; collect(0) and
	# the final collection alone
	check "python: gc1>gc spans" "$(seed_field 'gc1>gc' count "$TMP/py")" $G
	check "python: gc.collect(0) and others outside gc1" "$(seed_field gc count "$TMP/py" | awk '{ print ($1 >= 1) }')" 1
	# probes.d/python.conf's imports against the interpreter's own
	# account, -X importtime: one line per module imported, indented two
	# blanks a level of nesting; spans per depth = its lines per depth,
	# and each module a span named by it (name str(arg0)), once, at its
	# depth under its importer
	"$IPROF" -q -f seed -o "$TMP/pyc" -P "$SRC/probes.d/python.conf" \
		-- $PY -X importtime -c "import json, decimal" 2>"$TMP/imptime"
	check "python.conf: exit status" "$?" 0
	cat "$TMP/pyc"
	want=$(sed -n 's/^import time: *[0-9]* | *[0-9]* | \( *\).*/\1/p' "$TMP/imptime" |
		awk '{ n[length($0) / 2]++ } END { for (d = 0; d in n; d++) printf "%d ", n[d] }')
	got=$(awk '/^ *py_import\(/ { match($0, /^ */); d = RLENGTH / 2
		match($0, /count = [0-9]+/); n[d] += substr($0, RSTART + 8, RLENGTH - 8) }
		END { for (d = 0; d in n; d++) printf "%d ", n[d] }' "$TMP/pyc")
	check "python.conf: imports per depth = -X importtime's" "$got" "$want"
	# importtime prints a module after those it imported (its importer
	# is the next line one level out): the paths importer>module, as the
	# seed nests them, sorted, with the times each was imported there
	wantp=$(sed -n 's/^import time: *[0-9]* | *[0-9]* | \( *\)\(.*\)/\1\2/p' "$TMP/imptime" |
		awk '{ match($0, /^ */); p[NR] = RLENGTH / 2; nm[NR] = substr($0, RLENGTH + 1) }
		END { for (i = NR; i >= 1; i--) { s[p[i]] = nm[i]; path = ""
			for (d = 0; d <= p[i]; d++) path = path (d ? ">" : "") "py_import(" s[d] ")"
			c[path]++ }
			for (path in c) print path " " c[path] }' | sort)
	gotp=$(awk '/^#/ || /^$/ { next } { match($0, /^ */); d = RLENGTH / 2
		line = substr($0, RLENGTH + 1); s[d] = substr(line, 1, index(line, ", ") - 1)
		if (s[d] !~ /^py_import\(/) next
		path = ""; for (i = 0; i <= d; i++) path = path (i ? ">" : "") s[i]
		match(line, /count = [0-9]+/); print path " " substr(line, RSTART + 8, RLENGTH - 8) }' "$TMP/pyc" | sort)
	check "python.conf: each import named, at its importer" "$gotp" "$wantp"
	within "python.conf: modules imported (json, decimal and theirs)" \
		"$(echo "$want" | awk '{ for (i = 1; i <= NF; i++) s += $i; print s }')" 10 200
else
	echo "note: no $PY with USDT probes: its part skipped"
fi
finish
