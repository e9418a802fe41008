#!/usr/bin/env bash
# function-length.sh [MAX] [DIR]: no function in DIR's C files (src/, and
# its folders) longer than MAX lines (120): a long one is a saga, to be
# told as named stages.  Kernel style (.clang-format): a body opens with
# '{' alone at column 0 and closes with '}' at column 0; its length is the
# lines between them.  Prints each function over the limit; exit 1 if any.
set -euo pipefail
max=${1:-120}
dir=${2:-$(dirname "$0")/../../src}
find "$dir" -name '*.c' -print0 | sort -z | xargs -0 awk -v max="$max" '
FNR == 1 { sig = ""; infn = 0 }
!infn && /^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
!infn && /^\{/ && sig != "" { infn = 1; start = FNR; name = sig; next }
infn && /^\}/ {
	len = FNR - start - 1
	if (len > max) {
		n = name; sub(/\(.*/, "", n); sub(/.*[ *]/, "", n)
		printf "%s:%d: %s() is %d lines (at most %d)\n", FILENAME,
			sigline, n, len, max
		bad++
	}
	infn = 0; sig = ""
}
END { exit bad ? 1 : 0 }'
