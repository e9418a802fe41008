// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof's BPF programs.  One program per mechanism, attached many times;
 * each attachment's BPF cookie is the index of its action (start or stop
 * of one timer, with its conditions) in the `actions` map.
 */
#include "iprof.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Did the probe of @regs fire in user mode (a uprobe)? */
static __always_inline int regs_user(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	__u64 cs = 0;

	bpf_probe_read_kernel(&cs, sizeof(cs),
			      (char *)regs + __builtin_offsetof(struct pt_regs, cs));
	return cs & 3;
#else
	return 0;
#endif
}

/* A condition's left operand: a tracepoint field or a function argument. */
static __always_inline __u64 cond_value(void *ctx, const struct iprof_cond *c)
{
	if (c->src == IPROF_SRC_ARG)
		return narrow(c, regs_arg(ctx, c->off));
	return tp_field(ctx, c);
}

/*
 * Run the chain of actions of one attachment (cookie: the first action):
 * timers on the same tracepoint or user function share one attachment,
 * starts in file order, stops innermost first.  Conditions first: they
 * reject most hits of a filtered timer.  A stop needs no target check: it
 * only closes a frame that a traced start opened.
 */
static __always_inline int run_chain_at(void *ctx, __u32 key, __u32 cx,
					__u64 sp)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	const struct iprof_action *a;
	int n, i, ok;

	for (n = 0; n < IPROF_MAX_CHAIN; n++) {
		a = bpf_map_lookup_elem(&actions, &key);
		if (!a)
			break;
		ok = 1;
		for (i = 0; i < IPROF_MAX_COND; i++) {
			if (i >= a->ncond)
				break;
			if (!cond_holds(&a->cond[i],
					cond_value(ctx, &a->cond[i]))) {
				ok = 0;
				break;
			}
		}
		if (ok && (a->role != IPROF_ROLE_START ||
			   is_target(pid_tgid >> 32)))
			act(a, pid_tgid, cx, sp);
		key = a->next;
		if (key == IPROF_NO_NEXT)
			break;
	}
	return 0;
}

static __always_inline int run_chain(void *ctx, __u32 cx, __u64 sp)
{
	return run_chain_at(ctx, (__u32)bpf_get_attach_cookie(ctx), cx, sp);
}

/* Tracepoint hit: ctx is the raw trace record; fields at the offsets given
 * by the event's format file. */
SEC("tracepoint")
int tp_hit(void *ctx)
{
	__u32 cx = cur_ctx();

	drop_returned(cx, 0, SV_OTHER, bpf_get_current_pid_tgid());
	return run_chain(ctx, cx, 0);
}

/*
 * Syscall spans on the raw syscall tracepoints: one pair of programs for
 * any number of syscall tracepoints (a perf-event tracepoint attachment
 * each costs the kernel ~37 ms to release, and its program runs about
 * twice as long per hit).  The chain of syscall @nr's tracepoint runs on
 * a rebuilt copy of that tracepoint's record, so conditions read the same
 * fields at the same offsets (kernel/trace/trace_syscalls.c: common
 * fields, int __syscall_nr at 8, then the arguments in 8-byte slots from
 * 16, or long ret at 16).  As the syscall tracepoints do, ia32 syscalls are
 * left out (their numbers are another table).
 */
#define SC_REC_WORDS 8 /* 16 bytes of header + 6 arguments */

/*
 * The chain head (first action + 1) of syscall @nr's tracepoint at @slot
 * (0: sys_enter, IPROF_NR_SYSCALLS: sys_exit), or 0 when no span uses it:
 * the only work every other system call of the machine pays.
 */
static __always_inline __u32 sc_head(long nr, __u32 slot)
{
	__u32 *head;

	if ((unsigned long)nr >= IPROF_NR_SYSCALLS)
		return 0; /* x32 (bit 30) or unknown */
	slot += (__u32)nr;
	head = bpf_map_lookup_elem(&sc_chain, &slot);
	return head ? *head : 0;
}

/* Run chain @head on @rec, the rebuilt record of syscall @nr. */
static __always_inline int sc_run(__u64 *rec, long nr, __u32 head)
{
	struct task_struct *task;
	__u64 id;

#if defined(__TARGET_ARCH_x86)
	task = bpf_get_current_task_btf();
	if (bpf_core_field_exists(task->thread_info.status) &&
	    (BPF_CORE_READ(task, thread_info.status) & 0x0002 /* TS_COMPAT */))
		return 0;
#endif
	id = bpf_get_current_pid_tgid();
	rec[0] = (__u64)(__u32)id << 32; /* common_pid at 4 (little-endian) */
	rec[1] = (__u32)nr;
	drop_returned(IPROF_CTX_TASK, 0, SV_OTHER, id);
	return run_chain_at(rec, head - 1, IPROF_CTX_TASK, 0);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sc_enter, struct pt_regs *regs, long nr)
{
	__u32 head = sc_head(nr, 0);
	__u64 rec[SC_REC_WORDS] = {};

	if (!head)
		return 0;
#if defined(__TARGET_ARCH_x86)
	/* the x86-64 syscall ABI: rdi rsi rdx r10 r8 r9.  Plain loads at the
	 * UAPI struct's offsets, which the kernel's struct pt_regs shares
	 * (the verifier checks them against its BTF) */
	rec[2] = regs->rdi;
	rec[3] = regs->rsi;
	rec[4] = regs->rdx;
	rec[5] = regs->r10;
	rec[6] = regs->r8;
	rec[7] = regs->r9;
#endif
	return sc_run(rec, nr, head);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sc_exit, struct pt_regs *regs, long ret)
{
	__u64 rec[SC_REC_WORDS] = {};
	long nr = -1;
	__u32 head;

#if defined(__TARGET_ARCH_x86)
	nr = regs->orig_rax; /* syscall_get_nr() */
#endif
	head = sc_head(nr, IPROF_NR_SYSCALLS);
	if (!head)
		return 0;
	rec[2] = (__u64)ret;
	return sc_run(rec, nr, head);
}

/*
 * Function entry and return through pt_regs: uprobes and kprobes.  A uprobe
 * fires in its thread (user mode); a kprobe may interrupt it.  On x86 a
 * kprobe entry's stack pointer points at the return address: it finds
 * frames whose kretprobe missed (drop_returned()); elsewhere (arm64 keeps
 * the return address in a register) only the syscall count does.
 */
SEC("kprobe")
int fn_entry(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), sp = 0;
	__u32 cx;

	if (regs_user(ctx)) {
		drop_returned(IPROF_CTX_TASK, 0, SV_USER, id);
		return run_chain(ctx, IPROF_CTX_TASK, 0);
	}
	cx = cur_ctx();
#if defined(__TARGET_ARCH_x86)
	sp = PT_REGS_SP(ctx);
#endif
	drop_returned(cx, sp, sp ? SV_KPROBE : SV_OTHER, id);
	return run_chain(ctx, cx, sp);
}

SEC("kretprobe")
int fn_return(struct pt_regs *ctx)
{
	/* a return's actions have no conditions: ncond is 0 */
	return run_chain(ctx, regs_user(ctx) ? IPROF_CTX_TASK : cur_ctx(), 0);
}

/*
 * The same for many user functions at once: uprobe_multi links (6.6+), one
 * per binary for the entries and one for the returns, each function's
 * cookie its chain (bpf_get_attach_cookie() reads the multi-link cookie).
 * The loader loads them with expected_attach_type BPF_TRACE_UPROBE_MULTI
 * where the kernel has it, else not at all.  User mode only.
 */
SEC("kprobe")
int fn_entry_m(struct pt_regs *ctx)
{
	drop_returned(IPROF_CTX_TASK, 0, SV_USER, bpf_get_current_pid_tgid());
	return run_chain(ctx, IPROF_CTX_TASK, 0);
}

SEC("kprobe")
int fn_return_m(struct pt_regs *ctx)
{
	return run_chain(ctx, IPROF_CTX_TASK, 0);
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

	if (!tracing_on())
		return 0;
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

/*
 * Interrupt edges.  Each keeps the CPU's interrupt depth (irqctx, read by
 * cur_ctx()) and, when the interrupted thread is inside a timer, sends
 * IRQ_ENTER/IRQ_EXIT so user space shows the interrupt's time on the
 * thread's open frames as IRQ time.  The loader attaches the entry programs
 * before the timers' probes and the exit programs after them, so a timer on
 * the edge tracepoints themselves (softirq_entry -> softirq_exit) sees the
 * interrupt context on both edges.
 */
/*
 * An interrupt ends: timers it opened and did not stop cannot stop in a
 * later interrupt (that would time the gap between two ticks); close them
 * as unwound.
 */
static __always_inline void ctx_end(__u32 ctx)
{
	struct task_state *st = bpf_map_lookup_elem(&cstate, &ctx);

	if (!st || !st->depth)
		return;
	if (tracing_on())
		emit_aux(st, IPROF_REC_UNWIND, 0, st->depth, 0, ctx);
	st->depth = 0;
	st->over = 0;
}

static __always_inline void irq_edge(int enter, int hard)
{
	struct task_state *st;
	struct irq_depth *d;
	__u32 zero = 0, *v;

	/* a flag, not a depth: hardirq handlers run with interrupts off and
	 * softirqs do not nest, so an edge missed while attaching heals at
	 * the next edge of its kind instead of skewing the count forever */
	d = bpf_map_lookup_elem(&irqctx, &zero);
	if (d) {
		v = hard ? &d->hard : &d->soft;
		*v = enter;
	}
	if (!enter)
		ctx_end(hard ? IPROF_CTX_HARDIRQ : IPROF_CTX_SOFTIRQ);
	if (!tracing_on())
		return;
	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (st && st->depth)
		emit_aux(st, enter ? IPROF_REC_IRQ_ENTER : IPROF_REC_IRQ_EXIT,
			 0, st->depth, bpf_get_current_pid_tgid(),
			 hard ? IPROF_CTX_HARDIRQ : IPROF_CTX_SOFTIRQ);
}

#define IRQ_EDGE(name, tp, enter, hard)                                        \
	SEC("tp_btf/" tp)                                                      \
	int BPF_PROG(name)                                                     \
	{                                                                      \
		irq_edge(enter, hard);                                         \
		return 0;                                                      \
	}

IRQ_EDGE(irq_hard_in, "irq_handler_entry", 1, 1)
IRQ_EDGE(irq_hard_out, "irq_handler_exit", 0, 1)
IRQ_EDGE(irq_soft_in, "softirq_entry", 1, 0)
IRQ_EDGE(irq_soft_out, "softirq_exit", 0, 0)
/* x86 system vectors (arch/x86/include/asm/trace/irq_vectors.h) */
IRQ_EDGE(irq_tmr_in, "local_timer_entry", 1, 1)
IRQ_EDGE(irq_tmr_out, "local_timer_exit", 0, 1)
IRQ_EDGE(irq_resch_in, "reschedule_entry", 1, 1)
IRQ_EDGE(irq_resch_out, "reschedule_exit", 0, 1)
IRQ_EDGE(irq_cf_in, "call_function_entry", 1, 1)
IRQ_EDGE(irq_cf_out, "call_function_exit", 0, 1)
IRQ_EDGE(irq_cfs_in, "call_function_single_entry", 1, 1)
IRQ_EDGE(irq_cfs_out, "call_function_single_exit", 0, 1)
IRQ_EDGE(irq_work_in, "irq_work_entry", 1, 1)
IRQ_EDGE(irq_work_out, "irq_work_exit", 0, 1)

/*
 * exec gives the thread a new name: send it (comm is set by now), for
 * --by comm.  Frames stay: kernel functions and spans (execve itself) go on
 * across exec; a user function open across it never returns and ends with
 * the thread (counted as exited).
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, int old_pid,
	     struct linux_binprm *bprm)
{
	struct task_state *st;

	select_at_exec(p, bprm);
	if (!tracing_on())
		return 0;
	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (st && st->seen)
		emit_comm(st, bpf_get_current_pid_tgid());
	return 0;
}

/*
 * Count the syscalls of threads that have timer state, for
 * frame_returned(): attached only when a kprobe timer is.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter)
{
	struct task_state *st;

	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (st)
		st->kentry++;
	return 0;
}

/* A thread that emitted records exits: tell user space, which closes its
 * open frames at this time and frees the thread's state. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	struct task_state *st;

	target_exit(task);
	if (!tracing_on())
		return 0;
	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!st || !st->seen)
		return 0;
	emit(st, IPROF_REC_EXIT, 0, st->depth, bpf_get_current_pid_tgid());
	st->depth = 0;
	return 0;
}
