#!/usr/bin/env bash
# tests/e2e/test_rename.sh on the VM tier's stock 6.1 kernel (its subject is
# the kernel's behaviour: see that file).
exec bash "$(dirname "$0")/../e2e/test_rename.sh"
