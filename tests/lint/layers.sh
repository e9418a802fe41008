#!/usr/bin/env bash
# layers.sh [SRC]: no upward include.  A folder of src/ includes only from
# itself and the folders below it (core and probe at the bottom, cli on
# top; each folder's README.md), an include of a src/ header names its
# folder ("kernel/loader.h"), and include/iprof/NAME.h counts as the
# folder whose code it declares.  Prints each include that breaks the
# order; exit 1 if any.
set -euo pipefail
src=${1:-$(dirname "$0")/../../src}
declare -A may=(
	[core]="core"
	[probe]="probe core"
	[report]="report core"
	[kernel]="kernel probe core"
	[cli]="cli kernel report probe core"
)
declare -A pub=(
	[abi]=core [agg]=core [fold]=core [hist]=core [stream]=core [rec]=core
	[pipeline]=core [output]=core [util]=core [report]=core [calib_cost]=core [mech]=core [noise]=core
	[slow]=core [offcpu]=core
	[probe]=probe [plan]=probe [sym]=probe [retsite]=probe [inline]=probe [kmod]=probe [ksym]=probe
	[syscall]=probe [umaps]=probe [unwind]=probe [emu]=probe [usdt]=probe [report_fmt]=report [chrome]=report
)
bad=0
for d in "${!may[@]}"; do
	while IFS=: read -r f line inc; do
		inc=${inc#*\"}; inc=${inc%%\"*}
		case $inc in
		iprof/*.h)
			n=${inc#iprof/}; n=${n%.h}
			to=${pub[$n]:-}
			[ -n "$to" ] || { echo "$f:$line: $inc: not in layers.sh's pub[]"; bad=1; continue; } ;;
		*/*) to=${inc%%/*} ;;
		*.skel.h|syscalls.h) continue ;; # generated, in the build
		*) [ -e "$(dirname "$f")/$inc" ] || continue # a system header
		   echo "$f:$line: \"$inc\": name its folder (\"$d/$inc\")"; bad=1; continue ;;
		esac
		case " ${may[$d]} " in
		*" $to "*) ;;
		*) echo "$f:$line: $d/ includes $inc ($to/): only ${may[$d]}"; bad=1 ;;
		esac
	done < <(grep -Hn '^#[[:space:]]*include[[:space:]]*"' "$src/$d"/*.[ch] || true)
done
exit $bad
