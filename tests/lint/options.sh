#!/usr/bin/env bash
# options.sh IPROF SRC: every long option that a command's --help names
# (iprof, iprof record, report, diff, list) is in iprof(8) and is offered
# by the bash completion (packaging/bash-completion/iprof, which asks
# iprof: --list-opts), and the completion offers an option's words
# (--list-values) and the subcommands (--list-cmds).  The completion runs
# in this bash with bash-completion's helpers stubbed (_init_completion as
# it splits the line; no file or process is offered).  Exit 1 if any
# check fails.
set -uo pipefail
IPROF=${1:?usage: options.sh IPROF SRC}
SRC=${2:?usage: options.sh IPROF SRC}
fails=0
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
ok() { echo "ok   - $*"; }

_init_completion() {
	words=("${COMP_WORDS[@]}")
	cword=$COMP_CWORD
	cur=${words[cword]}
	prev=${words[cword - 1]}
}
_filedir() { :; }
_pids() { :; }
_command_offset() { :; }
compopt() { :; }
complete() { :; }
. "$SRC/packaging/bash-completion/iprof"

# offered WORD...: what the completion offers for the line "iprof WORD..."
# (the last word is the one completed), one a line, sorted
offered() {
	COMP_WORDS=("$IPROF" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_iprof
	[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

# the man page's option names, its \- read as -
man_opts=$(sed 's/\\-/-/g' "$SRC/doc/iprof.8" | grep -o -- '--[a-z][a-z-]*' | sort -u)

for cmd in "" record report diff list; do
	name="iprof${cmd:+ $cmd}"
	help=$("$IPROF" $cmd --help 2>&1 | grep -o -- '--[a-z][a-z-]*[a-z]' | sort -u)
	[ -n "$help" ] || { bad "$name --help names no option"; continue; }
	words=()
	[ -n "$cmd" ] && words=("$cmd")
	comp=$(offered "${words[@]}" --)
	miss=$(comm -23 <(echo "$help") <(echo "$comp") | tr '\n' ' ')
	[ -z "$miss" ] && ok "$name: the completion offers every option --help names" ||
		bad "$name: the completion lacks $miss"
	miss=$(comm -23 <(echo "$help") <(echo "$man_opts") | tr '\n' ' ')
	[ -z "$miss" ] && ok "$name: iprof(8) has every option --help names" ||
		bad "$name: iprof(8) lacks $miss"
done

# an option's words, as iprof parses them
check_words() {
	local want=$1 got
	shift
	got=$(offered "$@" | tr '\n' ' ')
	[ "$got" = "$want" ] && ok "completion of 'iprof $*': $want" ||
		bad "completion of 'iprof $*': got '$got', expected '$want'"
}
check_words "auto sites uretprobe " --returns ""
check_words "cumulative delta " --interval-mode ""
check_words "flat nested " report --json-tree ""
check_words "json " -f js
check_words "json " --format=js
check_words "comm pid tgid tid " diff --by ""
check_words "$(for f in $("$IPROF" --list-values -f); do echo "$f"; done | sort | tr '\n' ' ')" --format ""
check_words "$("$IPROF" --list-cmds | sort | tr '\n' ' ')" ""
check_words "report " -q rep
check_words "--max-depth --max-keys --max-paths --maxactive --min-total " --m
# diff refuses the report's shape options: not offered
check_words "--max-keys --max-paths " diff --m
# values with no list: nothing offered, not the options
check_words "" --duration ""
check_words "" -d ""
# the subcommands, each its own table: list's has --debuginfo only;
# "iprof list OPTIONS" is the live run's plan (--dry-run): its options
check_words "--debuginfo " list functions --d
check_words "--debuginfo --dry-run --duration " list --d
# a command that is not iprof's: --list-values says so
"$IPROF" --list-values --no-such-option >/dev/null 2>&1
[ $? = 2 ] && ok "--list-values of an unknown option: exit 2" || bad "--list-values of an unknown option: not exit 2"
"$IPROF" --list-opts nosuch >/dev/null 2>&1
[ $? = 2 ] && ok "--list-opts of an unknown command: exit 2" || bad "--list-opts of an unknown command: not exit 2"
if [ "$fails" -gt 0 ]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "all checks passed"
