// SPDX-License-Identifier: GPL-2.0-only
#include "vmlinux_min.h"
char LICENSE[] SEC("license") = "GPL";
