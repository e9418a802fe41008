#!/usr/bin/env bash
# same-output.sh OLD NEW [DIR]: a refactor changes no behaviour.  Runs a few
# hundred commands that need no live tracing (--help, --dry-run of every
# probe file and of the tests' probe lines, bad input, iprof report and
# iprof diff of recordings) with two builds' iprof (their build folders OLD
# and NEW) and compares stdout, stderr and exit status of each.  The
# recordings are made once, by OLD (root: a short live run).  The commands
# name OLD's workloads, so both see the same paths.  Prints each command
# that differs and a count; exit 1 if any differs.
set -u
OLD=$(realpath "$1")
NEW=$(realpath "$2")
DIR=${3:-$(mktemp -d /tmp/same-output.XXXXXX)}
mkdir -p "$DIR"
SRC=$(realpath "$(dirname "$0")/..")
W=$OLD/uprobe-workload
FIX=$OLD/glob-fixture
n=0
bad=0
cmds=()

add() { cmds+=("$*"); }

# --help and friends
for a in "" --help -h --version -V "list --help" "record --help" \
	"report --help" "diff --help" "list" "bogus" "record" "report" "diff" \
	"list functions" "list tracepoints kvm" "list functions $W" \
	"list functions $FIX many_1*"; do
	add "$a"
done
# every probe file, in each format the dry run writes
for f in "$SRC"/probes.d/*.conf "$SRC"/packaging/etc/probes.d/*.conf \
	"$SRC"/tests/unit/data/probe/*; do
	[ -f "$f" ] || continue
	add "--dry-run --probes $f"
	add "--dry-run -f json --probes $f"
done
# the tests' probe lines, with their variables filled in
while IFS= read -r spec; do
	add "--dry-run -e $spec"
	add "--dry-run -f json -e $spec"
done < <(grep -hoE -- "-e ('[^']*'|\"[^\"]*\"|[a-z]+:[^ \"']+)" \
	"$SRC"/tests/e2e/*.sh "$SRC"/tests/vm/*.sh 2>/dev/null |
	sed -E 's/^-e //' | grep -v '^"\$[A-Za-z_]*"$' |
	sed -E "s#\\\$BUILD#$OLD#g; s#\\\$W\b#$W#g; s#\\\$(FIX|F)\b#$FIX#g;
		s#\\\$C\b#$OLD/e2e-cold#g; s#\\\$b#uprobe-workload#g;
		s#\\\$i#1#g; s#\\\$G#iprof_test#g" | sort -u)
# every format with every report option, and the combinations checked
E="-e uprobe:$W:outer -e uprobe:$W:spin_inner"
for f in table seed json folded chrome openmetrics xml; do
	for o in "" "--columns count,total" "--columns +p50" "--weight total" \
		"--sort name" "--min-total 1ms" "--max-depth 2" "--by tid" \
		"--by comm" "--interval 1s" "--interval 1s --interval-mode delta" \
		"--interval 1s --by tgid" "--listen :0" \
		"--listen :0 --interval 1s --interval-mode delta"; do
		add "--dry-run $E -f $f $o"
		add "record -o $DIR/x.rec --dry-run $E -f $f $o"
	done
done
# bad values of every option
for o in "-d abc" "-d 0" "--interval 5ms" "--interval x" "--rb-size 12Q" \
	"--rb-size 1" "--maxactive 4097" "--maxactive -1" "-p x1" "-p 0" \
	"--fold-threads 0" "--fold-threads 99999" "--interval-mode x" \
	"--comm ''" "--sort bogus" "--weight bogus" "--columns bogus" \
	"--columns count,count" "--by bogus" "--max-depth 0" "--max-paths x" \
	"--max-keys -1" "--min-total 1q" "-o ''" "--report-output x" \
	"-p 1 -- true" "--" "--interval-mode delta" "--bogus" "-Z"; do
	add "--dry-run $E $o"
done
for p in typo:vfs_read "uprobe:$W:" "uprobe:$W:outer if arg0 == zz" \
	"span a = tracepoint:kvm:kvm_fpu ->" "func:vfs_read as" \
	"uprobe:$W:o* as x" "uprobe:/nonexistent:f" "kprobe:" "fentry:" \
	"span x = tracepoint:kvm:kvm_nope -> tracepoint:kvm:kvm_fpu"; do
	add "--dry-run -e '$p'"
done

# recordings, made once by OLD
if [ "$(id -u)" = 0 ] && [ ! -s "$DIR/a.rec" ]; then
	"$OLD/iprof" record -q -o "$DIR/a.rec" $E -- "$W" >/dev/null 2>&1
	"$OLD/iprof" record -q -o "$DIR/b.rec" $E --by tid -- "$W" \
		>/dev/null 2>&1
	"$OLD/iprof" report -q -f json -o "$DIR/a.json" "$DIR/a.rec" \
		>/dev/null 2>&1
	"$OLD/iprof" report -q -f json -o "$DIR/b.json" "$DIR/b.rec" \
		>/dev/null 2>&1
	head -c 3000 "$DIR/a.rec" >"$DIR/cut.rec"
fi
for r in a.rec b.rec cut.rec missing.rec; do
	for f in table seed json folded chrome openmetrics xml; do
		for o in "" "--columns count,total" "--weight total" \
			"--sort name" "--max-depth 1" "--by tid" \
			"--from 1ms" "--to 1ms" "--from 2ms --to 1ms" \
			"--min-total 1us" "-q"; do
			add "report -f $f $o $DIR/$r"
		done
	done
done
for a in a.rec a.json b.json cut.rec missing.json; do
	for b in a.rec b.rec b.json; do
		for o in "" "-f json" "-f folded" "--sort name" "--by tid"; do
			add "diff $o $DIR/$a $DIR/$b"
		done
	done
done
add "diff $DIR/a.rec"
add "diff - - "
add "diff -o $DIR/a.json $DIR/a.json $DIR/b.json"

for c in "${cmds[@]}"; do
	n=$((n + 1))
	for side in OLD NEW; do
		bin=${!side}/iprof
		(cd "$DIR" && eval "timeout 30 '$bin' $c" \
			>"$DIR/out.$side" 2>"$DIR/err.$side" </dev/null)
		echo $? >"$DIR/rc.$side"
		# the binary's own path may appear in a message
		sed -i "s#$OLD#BUILD#g; s#$NEW#BUILD#g" "$DIR/out.$side" "$DIR/err.$side"
	done
	if ! cmp -s "$DIR/out.OLD" "$DIR/out.NEW" ||
	   ! cmp -s "$DIR/err.OLD" "$DIR/err.NEW" ||
	   ! cmp -s "$DIR/rc.OLD" "$DIR/rc.NEW"; then
		bad=$((bad + 1))
		echo "DIFFERS: iprof $c"
		diff "$DIR/err.OLD" "$DIR/err.NEW" | head -5
		diff "$DIR/out.OLD" "$DIR/out.NEW" | head -5
		echo "rc $(cat "$DIR/rc.OLD") -> $(cat "$DIR/rc.NEW")"
	fi
done
echo "$n commands, $bad differ (in $DIR)"
[ "$bad" = 0 ]
