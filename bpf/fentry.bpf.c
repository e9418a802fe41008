// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry/fexit programs for kernel function timers.  A tracing program's
 * target is fixed at load time, so the loader opens one copy of this object
 * per function (the clone technique), points it at the function with
 * bpf_program__set_attach_target(), shares the maps of iprof.bpf.c with
 * bpf_map__reuse_fd(), and sets the two actions below in .rodata.
 */
#include "iprof.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 entry_action = 0;
const volatile __u32 return_action = 0;

SEC("fentry")
int fe_entry(unsigned long long *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = entry_action;
	const struct iprof_action *a;
	__u64 v;
	int i;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	for (i = 0; i < IPROF_MAX_COND; i++) {
		if (i >= a->ncond)
			break;
		v = 0;
		if (bpf_get_func_arg(ctx, a->cond[i].off, &v))
			return 0;
		if (!cond_holds(&a->cond[i], narrow(&a->cond[i], v)))
			return 0;
	}
	if (!is_target(pid_tgid >> 32))
		return 0;
	act(a, pid_tgid, cur_ctx(), 0);
	return 0;
}

SEC("fexit")
int fe_exit(unsigned long long *ctx)
{
	__u32 key = return_action;
	const struct iprof_action *a;

	a = bpf_map_lookup_elem(&actions, &key);
	if (a)
		act(a, bpf_get_current_pid_tgid(), cur_ctx(), 0);
	return 0;
}
