#!/bin/bash
# The checks of tests/vm/systemd.sh, run inside its VM: a Debian 12 system
# booted with systemd as PID 1, no network.  From the payload disk
# (/run/payload): iprof's .deb, the static svc-workload (tests/vm/
# svc-workload.c) and env (the counts and time limits).  It installs the
# package with dpkg and runs iprof@syscalls as a user would, through
# systemctl: readiness (Type=notify), interval reports with exact counts,
# a kill -9 and systemd's restart, stop, a traced service restarted twice
# (iprof@myd with --cgroup: spans, a uprobe, fentry and kprobe timers under
# the unit's sandbox), the journal's priorities, the unit's hardening.  One
# line per check on stdout (the serial console):
#
#   VMTEST: ok   - what | VMTEST: FAIL - what: got '...', expected '...'
#   VMTEST: info - a measurement | VMTEST: time - a phase took N s
#   VMTEST: done: N passed, N failed
#
# Every wait is bounded (env: T_START, T_REPORT, T_STOP, T_RESTART).
# Exit status: 0 every check passed, 1 one failed.
set -u
export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
P=${VMTEST_PAYLOAD:-/run/payload}
# shellcheck source=/dev/null
. "$P/env"
U=iprof@syscalls
REP=/var/lib/iprof/syscalls.json
MYD=vmtest-myd
MYD_REP=/var/lib/iprof/myd.json
npass=0 nfail=0

say() { echo "VMTEST: $*"; }
ok() { say "ok   - $*"; npass=$((npass + 1)); }
bad() { say "FAIL - $*"; nfail=$((nfail + 1)); }
info() { say "info - $*"; }
check() { if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: got '$2', expected '$3'"; fi; }
ms() { date +%s%3N; }
# secs T0: seconds since T0 (ms), e.g. 1.234
secs() {
	local d=$(($(ms) - $1))
	printf '%d.%03d' $((d / 1000)) $((d % 1000))
}
phase_t=$(ms)
phase() {
	say "time - $1: $(secs "$phase_t") s"
	phase_t=$(ms)
}
prop() { systemctl show -p "$2" --value "$1" 2>/dev/null; }
state() { echo "$(prop "$1" ActiveState) $(prop "$1" SubState)"; }
# wait_until SECONDS CMD...: CMD polled every 0.1 s until it succeeds; 1 on
# timeout
wait_until() {
	local end=$(($(ms) + $1 * 1000))
	shift
	until "$@"; do
		[ "$(ms)" -lt "$end" ] || return 1
		sleep 0.1
	done
}
# pid_counts FILE PID [TIMER...]: the counts of a --by tgid root, "pid
# PID", in report FILE, one per TIMER (default: read write ppoll), summed
# over its nodes at any depth below the root (0 for none), "none" without
# the root
pid_counts() {
	local f=$1 p=$2
	shift 2
	[ $# -gt 0 ] || set -- read write ppoll
	jq -r --arg r "pid $p" --args '
		[.tree[] | select(.name == $r)][0] as $n |
		if $n == null then "none" else
		($ARGS.positional | map(. as $t |
			[$n.children[] | .. | objects | select(.name? == $t) | .count] | add // 0) |
		 map(tostring) | join(" ")) end' "$@" <"$f" 2>/dev/null
}
# jnode_count FILE PATH...: the counts of the nodes at PATHs (names joined
# by '>' from the root, as tests/e2e/lib.sh's jnode), one line, "-" for a
# path without a node
jnode_count() {
	local f=$1
	shift
	jq -r --args 'def nodes: .[] | (., (.children | nodes));
		[.tree | nodes | {p: (.path | join(">")), c: .count}] as $all |
		$ARGS.positional | map(. as $p | [$all[] | select(.p == $p) | .c][0] // "-" | tostring) |
		join(" ")' "$@" <"$f" 2>/dev/null
}
# report_no FILE: the report's number (.interval), 0 without a report
report_no() {
	local n
	n=$(jq -r '.interval // 0' "$1" 2>/dev/null)
	echo "${n:-0}"
}
# wait_counts DESC FILE PID WANT [TIMER...]: until PID's root in FILE has
# the counts WANT ("R W P" as pid_counts; a field '*' takes any count), or
# three more reports or $T_REPORT s went by without them; the counts last
# seen in $counts
wait_counts() {
	local d=$1 f=$2 p=$3 want=$4 got n0 t
	shift 4
	t=$(ms)
	n0=$(report_no "$f")
	while :; do
		got=$(pid_counts "$f" "$p" "$@")
		# shellcheck disable=SC2053
		[[ $got == $want ]] && break
		[ "$(report_no "$f")" -le $((n0 + 3)) ] || break
		[ $(($(ms) - t)) -lt $((T_REPORT * 1000)) ] || break
		sleep 0.2
	done
	counts=$got
	# shellcheck disable=SC2053
	if [[ $got == $want ]]; then
		ok "$d (${*:-read write ppoll} of pid $p, seen in $(secs "$t") s): $got"
	else
		bad "$d (${*:-read write ppoll} of pid $p): got '${got:-no report}', expected '$want' (waited $(secs "$t") s)"
	fi
}
# bpf_ids PID KIND: the ids of the BPF objects (KIND prog, link or map)
# that process PID holds, from its fds' fdinfo; sorted, one line
bpf_ids() {
	sed -n "s/^$2_id:[[:space:]]*//p" /proc/"$1"/fdinfo/* 2>/dev/null | sort -nu | tr '\n' ' '
}
# left KIND IDS...: those of the BPF objects KIND (prog, link, map) of
# these ids that still exist, one line (one bpftool run: each takes a
# while under TCG)
left() {
	local k=$1
	shift
	bpftool "$k" show -j 2>/dev/null | jq -r --arg ids " $* " \
		'.[] | . as $o | select($ids | contains(" \($o.id) ")) | .id' 2>/dev/null | tr '\n' ' '
}
# gone KIND IDS...: no BPF object KIND of these ids exists any more
gone() { [ -z "$(left "$@")" ]; }
# workload R W P: run svc-workload, which makes exactly that many calls;
# its pid in $wpid
workload() {
	local out
	out=$(timeout 60 "$P/svc-workload" calls "$1" "$2" "$3")
	wpid=$(echo "$out" | sed -n 's/^pid=\([0-9]*\) .*/\1/p')
	[ -n "$wpid" ] || bad "svc-workload calls $*: no pid in its output '$out'"
}
# journal_cursor: where the journal ends now (for --after-cursor)
journal_cursor() { journalctl -n 0 --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p'; }
# iprof_lines UNIT CURSOR: iprof's own journal lines of UNIT after CURSOR,
# "PRIORITY MESSAGE" each (not systemd's lines about the unit)
iprof_lines() {
	journalctl -u "$1" ${2:+--after-cursor="$2"} -o json --no-pager 2>/dev/null |
		jq -r 'select(.SYSLOG_IDENTIFIER == "iprof") | "\(.PRIORITY) \(.MESSAGE)"'
}
finish() {
	if [ "$nfail" -gt 0 ]; then
		say "---- the journal (tail) ----"
		journalctl -b --no-pager -o short-monotonic 2>&1 | tail -n 120 | sed 's/^/VMTEST: journal: /'
		say "---- systemctl --failed ----"
		systemctl --failed --no-pager 2>&1 | sed 's/^/VMTEST: /'
	fi
	say "done: $npass passed, $nfail failed"
	[ "$nfail" = 0 ]
	exit
}

say "start: kernel $(uname -r), $(systemctl --version | head -1), PID 1 $(cat /proc/1/comm), uptime $(cut -d' ' -f1 /proc/uptime) s"
info "$(systemd-analyze time 2>&1 | head -1)"
info "slowest units: $(systemd-analyze blame --no-pager 2>/dev/null | head -n 6 | sed 's/^ *//' | tr '\n' ';')"
[ "${VM_DEBUG:-0}" = 1 ] && systemd-analyze critical-chain --no-pager 2>&1 | sed 's/^/VMTEST:   | /'
check "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
check "the system came up" "$(systemctl is-active multi-user.target)" active

# ---- the package ---------------------------------------------------------
deb=$(ls "$P"/iprof_*.deb 2>/dev/null | head -1)
if ! timeout "$T_START" dpkg -i "$deb" >/tmp/dpkg.log 2>&1; then
	sed 's/^/VMTEST: dpkg: /' /tmp/dpkg.log
	bad "dpkg -i $(basename "$deb") failed (a dependency missing from the image?)"
	finish
fi
check "dpkg -i $(basename "$deb")" "$(dpkg-query -W -f='${Status}' iprof)" "install ok installed"
check "the unit file" "$(systemctl cat iprof@.service 2>/dev/null | sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p')" /usr/sbin/iprof
phase "dpkg -i"

# ---- enable --now: ready once every probe is attached ----------------------
printf 'IPROF_INTERVAL=%s\nIPROF_OPTS=--by tgid\n' "$INTERVAL" >/etc/iprof/syscalls.env
t=$(ms)
timeout "$T_START" systemctl enable --now "$U" >/tmp/enable.log 2>&1
check "systemctl enable --now $U: exit" "$?" 0
start_s=$(secs "$t")
# a workload at once: a probe attached after READY=1 would miss calls
workload "$WL_READS" "$WL_WRITES" "$WL_PPOLLS"
check "$U state when enable --now returned" "$(state "$U")" "active running"
check "$U is enabled" "$(systemctl is-enabled "$U" 2>/dev/null)" enabled
check "$U Type" "$(prop "$U" Type)" notify
check "$U StatusText" "$(prop "$U" StatusText)" "tracing system-wide: 3 of 3 timers attached (/etc/iprof/probes.d/syscalls.conf)"
systemctl status --no-pager "$U" 2>&1 | head -n 8 | sed 's/^/VMTEST:   | /'
systemctl status --no-pager "$U" 2>&1 | grep -q 'Active: active (running)' &&
	ok "systemctl status: Active: active (running)" || bad "systemctl status does not say 'Active: active (running)'"
info "iprof@syscalls started (enable --now) in $start_s s"
pid1=$(prop "$U" MainPID)
progs1=$(bpf_ids "$pid1" prog) links1=$(bpf_ids "$pid1" link) maps1=$(bpf_ids "$pid1" map)
set -- $links1
nlinks=$#
[ "$nlinks" -gt 0 ] && ok "iprof (pid $pid1) holds $nlinks BPF links and $(echo $progs1 | wc -w) programs at READY" ||
	bad "iprof (pid $pid1) holds no BPF link at READY"
# the capabilities it runs with: the unit's set, no more, less CAP_SYSLOG,
# which ProtectKernelLogs= takes (CAP_SYS_ADMIN 21, CAP_PERFMON 38,
# CAP_BPF 39)
check "iprof's effective capabilities" "$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/"$pid1"/status)" 000000c000200000
check "iprof's bounding set" "$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/"$pid1"/status)" 000000c000200000
wait_counts "the calls made right after READY" "$REP" "$wpid" "$WL_READS $WL_WRITES $WL_PPOLLS"
check "nothing attached after READY (its links then and now)" "$(bpf_ids "$pid1" link)" "$links1"
phase "enable --now and the first counts"

# ---- the report is rewritten every interval --------------------------------
# the file is replaced (through a rename) once per interval: four new
# reports seen, by the number at the document's head (jq takes too long
# under TCG to see each one), in order; never sooner than the interval,
# and on time as far as the VM keeps up (under a loaded host TCG falls
# behind: the gaps are shown)
head_no() { head -c 200 "$REP" 2>/dev/null | sed -n 's/.*"interval":\([0-9]*\),.*/\1/p'; }
n1=$(head_no) t=$(ms) prev=$t gaps="" nos="" k=0 back=0 late=0 skipped=0 last=$n1
while [ $k -lt 4 ] && [ $(($(ms) - t)) -lt $((T_REPORT * 1000)) ]; do
	n=$(head_no)
	if [ -n "$n" ] && [ "$n" != "$last" ]; then
		g=$(($(ms) - prev))
		k=$((k + 1)) gaps="$gaps $(secs "$prev")" nos="$nos $n"
		prev=$(ms)
		[ "$n" -gt "${last:-0}" ] || back=$((back + 1))
		[ "$n" = $((${last:-0} + 1)) ] || skipped=$((skipped + 1))
		last=$n
		[ $g -le $((INTERVAL_S * 1500 + 300)) ] || late=$((late + 1))
	fi
	sleep 0.05
done
[ $k = 4 ] && ok "the report file was replaced 4 times in $(secs "$t") s (interval $INTERVAL; after$gaps s)" ||
	bad "the report file was replaced $k times in $(secs "$t") s (interval $INTERVAL; after$gaps s)"
check "each replacement a newer report (after report $n1:$nos)" "$back" 0
n2=$last
# not more reports than intervals went by (the first may come at once)
[ $((n2 - n1)) -le $((($(ms) - t) / (INTERVAL_S * 1000) + 1)) ] &&
	ok "reports $n1 to $n2 in $(secs "$t") s: none sooner than the interval" ||
	bad "reports $n1 to $n2 in $(secs "$t") s: more than one per interval"
[ $late = 0 ] && [ $skipped = 0 ] ||
	info "$late gap(s) longer than 1.5 intervals, $skipped report(s) replaced unseen: the VM did not keep up (a loaded host?)"
jq -e '.schema_version == 1 and .final == false and .interval_mode == "cumulative"' "$REP" >/dev/null &&
	ok "report $n2: a complete interval report" || bad "report $n2: not a complete interval report"
check "the counts stay in the cumulative reports" "$(pid_counts "$REP" "$wpid")" "$WL_READS $WL_WRITES $WL_PPOLLS"
check "the report traced the whole system" "$(jq -r .run.target "$REP")" system
check "ring buffer drops" "$(jq -r .loss.ring_buffer_drops "$REP")" 0
ls /var/lib/iprof/syscalls.json.?????? >/dev/null 2>&1 && bad "a temporary report file is left: $(ls /var/lib/iprof/)" ||
	ok "no temporary report file left"
phase "interval reports"

# ---- kill -9: systemd restarts it, nothing of the dead one stays ------------
nr0=$(prop "$U" NRestarts)
start0=$(jq -r .run.start_time "$REP")
t=$(ms)
systemctl kill -s KILL "$U"
check "systemctl kill -s KILL $U: exit" "$?" 0
wait_until 10 test ! -e /proc/"$pid1" || bad "iprof (pid $pid1) still alive 10 s after SIGKILL"
jq -e '.schema_version == 1' "$REP" >/dev/null && ok "the dead instance's last report is whole" ||
	bad "the report file is not a whole JSON document after the kill"
ls /var/lib/iprof/syscalls.json.?????? >/dev/null 2>&1 && info "the kill left a temporary report file: $(ls /var/lib/iprof/)"
restarted() {
	local p
	p=$(prop "$U" MainPID)
	[ "$p" != 0 ] && [ "$p" != "$pid1" ] && [ "$(state "$U")" = "active running" ]
}
if wait_until "$T_RESTART" restarted; then
	ok "systemd restarted $U ($(prop "$U" RestartUSec) later, running again $(secs "$t") s after the kill)"
else
	bad "$U not running again $T_RESTART s after the kill: $(state "$U"), MainPID $(prop "$U" MainPID), Result $(prop "$U" Result)"
fi
check "NRestarts" "$(prop "$U" NRestarts)" $((nr0 + 1))
check "StatusText after the restart" "$(prop "$U" StatusText)" "tracing system-wide: 3 of 3 timers attached (/etc/iprof/probes.d/syscalls.conf)"
pid2=$(prop "$U" MainPID)
# the dead instance's programs, links and maps are freed (by RCU: wait)
for k in prog link map; do
	case $k in prog) ids=$progs1 ;; link) ids=$links1 ;; *) ids=$maps1 ;; esac
	# shellcheck disable=SC2086
	if wait_until 10 gone "$k" $ids; then
		ok "no BPF $k of the killed instance left ($(echo $ids | wc -w) were)"
	else
		# shellcheck disable=SC2086
		bad "BPF ${k}s of the killed instance still there 10 s later: ids $(left "$k" $ids)"
	fi
done
new_report() { [ "$(jq -r .run.start_time "$REP" 2>/dev/null)" != "$start0" ] && [ "$(report_no "$REP")" -ge 1 ]; }
if wait_until "$T_REPORT" new_report; then
	jq -e '.schema_version == 1 and .final == false and (.probes | length == 3 and all(.attached)) and (.tree | type == "array") and (.loss | type == "object")' "$REP" >/dev/null &&
		ok "the restarted instance's first report (number $(report_no "$REP")) is complete" ||
		bad "the restarted instance's first report is not complete: $(head -c 300 "$REP")"
else
	bad "no report of the restarted instance in $T_REPORT s"
fi
workload "$WL2_READS" "$WL2_WRITES" "$WL2_PPOLLS"
wait_counts "after the restart: the calls" "$REP" "$wpid" "$WL2_READS $WL2_WRITES $WL2_PPOLLS"
wpid2=$wpid
phase "kill -9 and restart"

# ---- stop: the final report ---------------------------------------------
progs2=$(bpf_ids "$pid2" prog) links2=$(bpf_ids "$pid2" link)
t=$(ms)
timeout "$T_STOP" systemctl stop "$U"
check "systemctl stop $U: exit" "$?" 0
stop_ms=$(($(ms) - t))
[ "$stop_ms" -le $((STOP_MAX * 1000)) ] && ok "stopped in $(secs "$t") s (at most $STOP_MAX s)" ||
	bad "stop took $(secs "$t") s, more than $STOP_MAX s"
check "$U after stop" "$(state "$U")" "inactive dead"
check "its exit: Result, status" "$(prop "$U" Result) $(prop "$U" ExecMainStatus)" "success 0"
check "the final report" "$(jq -r '.final' "$REP")" true
check "the final report's counts" "$(pid_counts "$REP" "$wpid2")" "$WL2_READS $WL2_WRITES $WL2_PPOLLS"
ls /var/lib/iprof/syscalls.json.?????? >/dev/null 2>&1 && bad "a temporary report file is left after stop" ||
	ok "no temporary report file left after stop"
# shellcheck disable=SC2086
wait_until 10 gone prog $progs2 && wait_until 10 gone link $links2 &&
	ok "no BPF program or link left after stop" || bad "BPF programs or links left after stop"
phase "stop"

# ---- a traced service, restarted twice, traced in each life ----------------
# iprof@myd traces the daemon's cgroup; --by tgid gives each life a root of
# its own.  Each life: STARTUP_WRITES writes at once (before iprof may have
# seen the new cgroup: iprof(8) says it reads a cgroup's id again every
# 0.2 s), then, once iprof has the new cgroup's id (its map sel_cgid),
# SIGUSR1: one call of do_reads, MYD_READS reads, which must all be counted
install -m 755 "$P/svc-workload" /usr/local/bin/svc-workload
cat >/etc/systemd/system/$MYD.service <<EOF
[Unit]
Description=a daemon traced by iprof@myd (tests/vm/systemd.sh)
[Service]
# ready (sd_notify) once its startup writes are made and it takes SIGUSR1
Type=notify
ExecStart=/usr/local/bin/svc-workload daemon $MYD_STARTUP_WRITES $MYD_READS
EOF
# probes.d/myd.conf: the example's spans; a uprobe (the unit keeps
# CAP_SYS_ADMIN for it) on the daemon's function that makes a batch of
# reads; kernel functions by fentry and kprobe (the 6.1 kernel has both),
# the first of them an alternative NAME|OLDNAME whose first name does not
# exist, which iprof can tell only from /proc/kallsyms (the unit must
# leave it readable: names; addresses need CAP_SYSLOG, which
# ProtectKernelLogs= takes away: the capability check above).  They nest:
# do_reads > read > vfs_read
cp /etc/iprof/probes.d/syscalls.conf /etc/iprof/probes.d/myd.conf
printf '%s\n' "uprobe:/usr/local/bin/svc-workload:do_reads" \
	"fentry:iprof_no_such_function|vfs_read as vfs_read" "kprobe:vfs_write" >>/etc/iprof/probes.d/myd.conf
cg=/sys/fs/cgroup/system.slice/$MYD.service
printf 'IPROF_INTERVAL=%s\nIPROF_OPTS="--cgroup %s --by tgid"\n' "$INTERVAL" "$cg" >/etc/iprof/myd.env
systemctl daemon-reload
timeout 60 systemctl start $MYD
check "systemctl start $MYD" "$(state $MYD)" "active running"
t=$(ms)
timeout "$T_START" systemctl start iprof@myd
check "systemctl start iprof@myd: exit" "$?" 0
info "iprof@myd started in $(secs "$t") s"
check "iprof@myd StatusText" "$(prop iprof@myd StatusText)" "tracing the selected processes: 6 of 6 timers attached (/etc/iprof/probes.d/myd.conf)"
check "/proc/kallsyms in the unit's namespace" \
	"$(nsenter -t "$(prop iprof@myd MainPID)" -m sed -n 's/^[0-9a-f]* T \(vfs_read\)$/\1/p' /proc/kallsyms 2>&1)" vfs_read
has_cgid() { bpftool map dump name sel_cgid -j 2>/dev/null | jq -e --argjson v "$1" '[.. | numbers] | index($v) != null' >/dev/null; }
lives=""
for life in 1 2 3; do
	if [ "$life" -gt 1 ]; then
		timeout 60 systemctl restart $MYD
		check "life $life: systemctl restart $MYD" "$(state $MYD)" "active running"
	fi
	mpid=$(prop $MYD MainPID)
	ino=$(stat -c %i "$cg" 2>/dev/null)
	wait_until 10 has_cgid "${ino:-0}" && ok "life $life (pid $mpid): iprof has the cgroup's id ($ino)" ||
		bad "life $life: iprof's map sel_cgid lacks the cgroup's id $ino after 10 s"
	systemctl kill -s USR1 --kill-who=main $MYD
	wait_counts "life $life of $MYD: its batch" "$MYD_REP" "$mpid" "1 $MYD_READS $MYD_READS * 0" \
		do_reads read vfs_read write ppoll
	check "life $life: the reads in do_reads, vfs_read in them" \
		"$(jnode_count "$MYD_REP" "pid $mpid>do_reads>read" "pid $mpid>do_reads>read>vfs_read")" \
		"$MYD_READS $MYD_READS"
	# shellcheck disable=SC2086
	set -- $counts
	info "life $life: ${4:-?} writes traced before its reads (its $MYD_STARTUP_WRITES at start, if iprof saw the new cgroup first, and systemd's in the child before exec)"
	lives="$lives $mpid"
done
timeout "$T_STOP" systemctl stop iprof@myd
check "systemctl stop iprof@myd" "$(prop iprof@myd Result) $(prop iprof@myd ExecMainStatus)" "success 0"
n=0
for p in $lives; do
	# shellcheck disable=SC2046
	set -- $(pid_counts "$MYD_REP" "$p")
	[ "${1:-}" = "$MYD_READS" ] && n=$((n + 1))
done
check "the final report of iprof@myd: a root per life with its $MYD_READS reads" "$n" 3
check "iprof@myd traced the selection" "$(jq -r '.run.target + " " + (.run.select | join(","))' "$MYD_REP")" "select cgroup:$cg"
check "the alternative iprof chose" "$(jq -r '.probes[] | select(.name == "vfs_read") | .where' "$MYD_REP")" \
	"fentry:vfs_read (fentry:iprof_no_such_function|vfs_read)"
check "how the kernel functions were attached" \
	"$(jq -r '[.probes[] | select(.name | startswith("vfs_")) | .mech] | join(" ")' "$MYD_REP")" "fentry/fexit kprobe/kretprobe"
timeout 60 systemctl stop $MYD
phase "a traced service restarted twice"

# ---- the journal: iprof's messages at their priorities ----------------------
# in the lives above, no warning or error from iprof (it runs --quiet)
check "iprof's warnings and errors in the journal so far" \
	"$(iprof_lines "$U" "" | grep -c '^[0-4] ')" 0
# a bad configuration: a warning, then an error; exit 2 (bad input), which
# a restart cannot mend: failed, not restarted
c=$(journal_cursor)
printf 'IPROF_INTERVAL=%s\nIPROF_OPTS=-p 2 -p 999999\n' "$INTERVAL" >/etc/iprof/syscalls.env
timeout "$T_START" systemctl start "$U" >/dev/null 2>&1
check "start with a bad IPROF_OPTS: state" "$(state "$U")" "failed failed"
check "its exit: Result, status" "$(prop "$U" Result) $(prop "$U" ExecMainStatus)" "exit-code 2"
check "exit 2 (bad input) is not restarted" "$(prop "$U" NRestarts)" 0
wait_until 5 sh -c "journalctl -u $U --after-cursor='$c' -o cat | grep -q 'no such process'"
iprof_lines "$U" "$c" >/tmp/prio
sed 's/^/VMTEST:   | /' /tmp/prio
check "the warning's priority (4: warning)" "$(sed -n 's/^\([0-9]\) .*kernel thread.*/\1/p' /tmp/prio)" 4
check "the error's priority (3: err)" "$(sed -n 's/^\([0-9]\) .*no such process.*/\1/p' /tmp/prio)" 3
systemctl reset-failed "$U"
printf 'IPROF_INTERVAL=%s\nIPROF_OPTS=--by tgid\n' "$INTERVAL" >/etc/iprof/syscalls.env
phase "the journal"

# ---- the unit's hardening, on this system -----------------------------------
systemd-analyze security --no-pager "$U" >/tmp/sec 2>&1
score=$(sed -n 's/.*Overall exposure level for iprof@syscalls.service: \([0-9.]*\) .*/\1/p' /tmp/sec)
# one decimal, as systemd-analyze prints it: compared in tenths
tenths() { case $1 in [0-9].[0-9] | [0-9][0-9].[0-9]) echo $((10#${1%.*} * 10 + ${1#*.})) ;; *) echo 999 ;; esac; }
if [ "$(tenths "$score")" -le "$(tenths "$MAX_EXPOSURE")" ]; then
	ok "systemd-analyze security $U: $score <= $MAX_EXPOSURE"
else
	sed 's/^/VMTEST:   | /' /tmp/sec
	bad "systemd-analyze security $U: '$score' (more than $MAX_EXPOSURE, or none)"
fi
phase "systemd-analyze security"
finish
