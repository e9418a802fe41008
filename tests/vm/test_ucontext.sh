#!/usr/bin/env bash
# vm-suite: default bookworm-backports unstable
# tests/e2e/test_ucontext.sh on the VM tier's stock kernels (6.1, 6.12,
# 7.x): swapcontext onto a stack less than 64 KiB from the one left, and
# nested coroutines, told by uprobes on the static workload's own
# getcontext, setcontext and swapcontext (ctx_switch): the exact tree,
# nothing unwound.
exec bash "$(dirname "$0")/../e2e/test_ucontext.sh"
