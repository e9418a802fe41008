#!/usr/bin/env bash
# vm-suite: default unstable
# tests/e2e/test_hitonly.sh on the VM tier's stock kernels (6.1, 7.x): a
# user function whose return iprof cannot see is counted where it is
# called, never a parent (IPROF_REC_HIT, sent by the uprobe entry program
# for a start with IPROF_A_HIT instead of a push).
exec bash "$(dirname "$0")/../e2e/test_hitonly.sh"
