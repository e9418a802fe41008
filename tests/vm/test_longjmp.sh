#!/usr/bin/env bash
# vm-suite: default bookworm-backports unstable
# tests/e2e/test_longjmp.sh on the VM tier's stock kernels (6.1, 6.12,
# 7.x): frames timed by uretprobes that a longjmp skipped close as unwound
# (the BPF side reads the uretprobe trampoline's address by CO-RE), by
# uretprobe and at return sites; --returns auto keeps return sites here
# (the static workload holds libgcc's unwinder; on 7.x they are emulated).
exec bash "$(dirname "$0")/../e2e/test_longjmp.sh"
