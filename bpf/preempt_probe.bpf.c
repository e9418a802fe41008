// SPDX-License-Identifier: GPL-2.0-only
/*
 * Feature probe (src/kernel/uprobe_emu.c preempt_hold_supported()): may a
 * program call a global function with preemption held off?  6.10 to 6.14
 * verifiers refuse it ("global function calls are not allowed with
 * preemption disabled"), 6.15+ allow it; iprof's programs call global
 * functions (frame_find(), drop_left(), ...), so they hold preemption off
 * (bpf/iprof.bpf.h preempt_off()) only where this loads.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

extern void bpf_preempt_disable(void) __ksym __weak;
extern void bpf_preempt_enable(void) __ksym __weak;

__noinline int probe_global(int x)
{
	return x + 1;
}

SEC("kprobe")
int probe_preempt(void *ctx)
{
	int r;

	if (!bpf_ksym_exists(bpf_preempt_disable))
		return 1;
	bpf_preempt_disable();
	r = probe_global(1);
	bpf_preempt_enable();
	return r;
}
