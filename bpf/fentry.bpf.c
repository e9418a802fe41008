// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry/fexit programs for kernel function timers.  A tracing program's
 * target is fixed at load time, so the loader opens one copy of this object
 * per IPROF_FE_SLOTS functions (the clone technique, batched: one libbpf
 * object and one parse of the kernel's BTF serve them all), points slot
 * K's two programs at function K with bpf_program__set_attach_target(),
 * turns unused slots off, shares the maps of iprof.bpf.c with
 * bpf_map__reuse_fd(), and sets each slot's actions in .rodata.
 */
#include "iprof.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Functions per object; src/kernel/loader.c names the programs fe_entry_K and
 * fe_exit_K, K < IPROF_FE_SLOTS. */
#define IPROF_FE_SLOTS 16

const volatile __u32 entry_action[IPROF_FE_SLOTS] = {};
const volatile __u32 return_action[IPROF_FE_SLOTS] = {};

/*
 * --slowest (slow_args): the call's first IPROF_NARGS arguments into @v as
 * the trampoline saved them (one 8-byte slot each, 0 past the function's
 * count), so a kept call shows them (named from BTF in user space);
 * returns @v, or NULL where they are not sent (off, or not in task
 * context: timer_start() sends them in task context only)
 */
static __always_inline const __u64 *fe_args(unsigned long long *ctx,
					     __u32 cx, __u64 *v)
{
	int i;

	if (!slow_args || cx != IPROF_CTX_TASK)
		return NULL;
	for (i = 0; i < IPROF_NARGS; i++) {
		v[i] = 0;
		bpf_get_func_arg(ctx, i, &v[i]);
	}
	return v;
}

/*
 * fe_name() - a named timer's start (`name ARG`, IPROF_A_NAMED: never
 * text on a kernel function), in task context: its argument as the
 * trampoline saved it, narrowed to its type, for timer_start(), which
 * sends it before the START (as name_arm() does for the other programs)
 */
static __always_inline void fe_name(unsigned long long *ctx,
				    const struct iprof_action *a)
{
	const struct iprof_cond *c = &a->cond[a->ncond & (IPROF_MAX_COND - 1)];
	struct task_state *st = state_get(IPROF_CTX_TASK, 1);
	__u64 v = 0;

	if (!st)
		return;
	bpf_get_func_arg(ctx, c->off, &v);
	st->name_val = narrow(c, v);
	st->name_key = st->name_val;
	st->name_parts = 0;
	st->name_for = a->timer + 1;
}

static __always_inline int fe_entry_run(unsigned long long *ctx, __u32 key)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	const struct iprof_action *a;
	__u64 args[IPROF_NARGS];
	__u32 cx = cur_ctx();
	__u64 v;
	int i;

	drop_returned(cx, 0, SV_OTHER, pid_tgid);
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
	/* an entry only starts (or is disabled: role 0); the verifier's
	 * work per program is what attaching many functions costs */
	if (a->role != IPROF_ROLE_START || !is_target(pid_tgid >> 32) ||
	    !tracing_on())
		return 0;
	if (a->flags & IPROF_A_NAMED && cx == IPROF_CTX_TASK)
		fe_name(ctx, a);
	timer_start(a, pid_tgid, cx, 0, 0, 0, 1, fe_args(ctx, cx, args));
	return 0;
}

static __always_inline int fe_exit_run(unsigned long long *ctx, __u32 key)
{
	const struct iprof_action *a;
	__u32 cx = cur_ctx();
	__u64 ret = 0;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a || a->role != IPROF_ROLE_STOP || !tracing_on())
		return 0;
	/* --slowest: the return value (timer_stop() sends it in task
	 * context only) */
	if (slow_args && cx == IPROF_CTX_TASK)
		bpf_get_func_ret(ctx, &ret);
	timer_stop(a, bpf_get_current_pid_tgid(), cx, 0,
		   slow_args && cx == IPROF_CTX_TASK ? &ret : NULL);
	return 0;
}

#define FE_SLOT(k)                                                         \
	SEC("fentry")                                                      \
	int fe_entry_##k(unsigned long long *ctx)                          \
	{                                                                  \
		return fe_entry_run(ctx, entry_action[k]);                 \
	}                                                                  \
	SEC("fexit")                                                       \
	int fe_exit_##k(unsigned long long *ctx)                           \
	{                                                                  \
		return fe_exit_run(ctx, return_action[k]);                 \
	}

FE_SLOT(0)
FE_SLOT(1)
FE_SLOT(2)
FE_SLOT(3)
FE_SLOT(4)
FE_SLOT(5)
FE_SLOT(6)
FE_SLOT(7)
FE_SLOT(8)
FE_SLOT(9)
FE_SLOT(10)
FE_SLOT(11)
FE_SLOT(12)
FE_SLOT(13)
FE_SLOT(14)
FE_SLOT(15)
