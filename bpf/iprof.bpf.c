// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof's BPF programs.  One program per mechanism, attached many times;
 * each attachment's BPF cookie is the index of its action (start or stop
 * of one timer, with its conditions) in the `actions` map.
 */
#include "iprof.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Tracepoint hit: ctx is the raw trace record; fields at the offsets given
 * by the event's format file. */
SEC("tracepoint")
int tp_hit(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct iprof_action *a;
	int n, i, ok;

	for (n = 0; n < IPROF_MAX_CHAIN; n++) {
		a = bpf_map_lookup_elem(&actions, &key);
		if (!a)
			break;
		/* conditions first: they reject most hits of a filtered span */
		ok = 1;
		for (i = 0; i < IPROF_MAX_COND; i++) {
			if (i >= a->ncond)
				break;
			if (!cond_holds(&a->cond[i], tp_field(ctx, &a->cond[i]))) {
				ok = 0;
				break;
			}
		}
		/* a stop needs no target check: it only closes a frame that a
		 * traced start opened on this thread */
		if (ok && (a->role != IPROF_ROLE_START ||
			   is_target(pid_tgid >> 32)))
			act(a, pid_tgid);
		key = a->next;
		if (key == IPROF_NO_NEXT)
			break;
	}
	return 0;
}

/* Function entry through pt_regs: uprobe and kprobe. */
SEC("kprobe")
int fn_entry(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct iprof_action *a;
	int i;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	for (i = 0; i < IPROF_MAX_COND; i++) {
		if (i >= a->ncond)
			break;
		if (!cond_holds(&a->cond[i], regs_arg(ctx, a->cond[i].off)))
			return 0;
	}
	if (!is_target(pid_tgid >> 32))
		return 0;
	act(a, pid_tgid);
	return 0;
}

/* Function return through pt_regs: uretprobe and kretprobe. */
SEC("kretprobe")
int fn_return(struct pt_regs *ctx)
{
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct iprof_action *a;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	act(a, bpf_get_current_pid_tgid());
	return 0;
}

/* Follow children of traced processes: a new process of a target tgid is a
 * target before it runs its first instruction (no race with exec). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid, ctgid;
	__u8 one = 1;

	if (!filter_tgid)
		return 0;
	ptgid = BPF_CORE_READ(parent, tgid);
	ctgid = BPF_CORE_READ(child, tgid);
	if (ptgid != ctgid && bpf_map_lookup_elem(&targets, &ptgid))
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_NOEXIST);
	return 0;
}

/*
 * On/off-CPU: a thread inside a timer that leaves the CPU sends SWITCH_OUT
 * (runnable if preempted or still TASK_RUNNING, else blocked); when it gets
 * a CPU back, SWITCH_IN.  Threads outside timers cost a storage lookup and
 * send nothing.  Runs in prev's context.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, _Bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct task_state *st;
	__u64 id;
	__u32 kind;

	st = bpf_task_storage_get(&tstate, prev, 0, 0);
	if (st && st->depth) {
		kind = preempt || BPF_CORE_READ(prev, __state) == 0 ?
			       IPROF_OFF_RUNQ :
			       IPROF_OFF_BLOCKED;
		emit_aux(st, IPROF_REC_SWITCH_OUT, 0, st->depth,
			 bpf_get_current_pid_tgid(), kind);
	}
	st = bpf_task_storage_get(&tstate, next, 0, 0);
	if (st && st->depth) {
		id = (__u64)BPF_CORE_READ(next, tgid) << 32 |
		     (__u32)BPF_CORE_READ(next, pid);
		emit_aux(st, IPROF_REC_SWITCH_IN, 0, st->depth, id, 0);
	}
	return 0;
}

/* A thread that emitted records exits: tell user space, which closes its
 * open frames at this time and frees the thread's state. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	struct task_state *st;

	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!st || !st->seen)
		return 0;
	emit(st, IPROF_REC_EXIT, 0, st->depth, bpf_get_current_pid_tgid());
	st->depth = 0;
	return 0;
}
