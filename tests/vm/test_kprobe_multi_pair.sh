#!/usr/bin/env bash
# vm-suite: bookworm-backports
# test_kprobe_multi.sh's cases on the older path that kernels with kprobe
# sessions (6.10+) no longer take by default: each kprobe_multi set as an
# entry link and a return link (fn_entry_km, fn_return_km), as on 5.18-6.9
# (issue 28: the newer feature used, the older path kept and tested).
KIND=kprobe
export IPROF_KPROBE_MULTI=1 IPROF_KPROBE_SESSION=0
. "$(dirname "$0")/kfunc.sh"
