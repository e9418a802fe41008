// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof's BPF programs.  One program per mechanism, attached many times;
 * each attachment's BPF cookie is the index of its action (start or stop
 * of one timer, with its conditions) in the `actions` map.
 */
#include "iprof.bpf.h"
/* usdt.bpf.h wants C23's bool (vmlinux_min.h has _Bool only) */
typedef _Bool bool;
#include <bpf/usdt.bpf.h>

char LICENSE[] SEC("license") = "GPL";

/* A condition's left operand: a tracepoint field or a function argument
 * (a USDT probe's argN: as its note says, bpf_usdt_arg(); @from: enum
 * chain_from, a constant at each call) */
static __always_inline __u64 cond_value(void *ctx, const struct iprof_cond *c,
					int from)
{
	long v = 0;

	if (from == FROM_USDT && c->src == IPROF_SRC_ARG) {
		bpf_usdt_arg(ctx, c->off, &v);
		return narrow(c, (__u64)v);
	}
	if (c->src == IPROF_SRC_ARG)
		return narrow(c, regs_arg(ctx, c->off));
	return tp_field(ctx, c);
}

/*
 * name_arm() - a named timer's start (IPROF_A_NAMED), in task context:
 * read its name (cond[ncond]: where, as a condition's operand) into the
 * thread's state for timer_start(), which sends it before the START.
 */
static __always_inline void name_arm(void *ctx, const struct iprof_action *a,
				     __u32 cx, int from)
{
	struct task_state *st;

	if (cx != IPROF_CTX_TASK || !tracing_on())
		return;
	st = state_get(cx, 1);
	if (!st)
		return;
	st->name_val = cond_value(
		ctx, &a->cond[a->ncond & (IPROF_MAX_COND - 1)], from);
	st->name_parts = 0;
	if (a->flags & IPROF_A_NAMESTR) {
		/* text: name_val (and name_val2) are user addresses */
		st->name_parts = 1;
		if (a->cond[a->ncond & (IPROF_MAX_COND - 1)].op == 2) {
			st->name_parts = 2;
			st->name_val2 = cond_value(
				ctx,
				&a->cond[(a->ncond + 1) & (IPROF_MAX_COND - 1)],
				from);
		}
	}
	st->name_key = st->name_val;
	if (a->xflags & IPROF_AX_NAMEKEY && st->name_parts)
		name_key_str(st, st->name_val, st->name_val2, st->name_parts,
			     0);
	st->name_for = a->timer + 1;
}

/*
 * stop_arm() - a stop that names the call it ends (IPROF_AX_STOPNAME): its
 * name's key (cond[ncond], as name_arm() reads a start's) into st->skey
 * for timer_stop(), which compares it with the open frames'.
 */
static __always_inline void stop_arm(void *ctx, const struct iprof_action *a,
				     __u32 cx, int from)
{
	const struct iprof_cond *c = &a->cond[a->ncond & (IPROF_MAX_COND - 1)];
	struct task_state *st;
	__u64 v, v2 = 0;

	st = state_get(cx, 0);
	if (!st || !st->depth)
		return;
	v = cond_value(ctx, c, from);
	st->skey = v;
	if (!(a->xflags & IPROF_AX_STOPSTR))
		return;
	if (c->op == 2)
		v2 = cond_value(
			ctx, &a->cond[(a->ncond + 1) & (IPROF_MAX_COND - 1)],
			from);
	name_key_str(st, v, v2, c->op == 2 ? 2 : 1, 1);
}

/*
 * Run the chain of actions of one attachment (cookie: the first action):
 * timers on the same tracepoint or user function share one attachment,
 * starts in file order, stops innermost first.  Conditions first: they
 * reject most hits of a filtered timer.  A stop needs no target check: it
 * only closes a frame that a traced start opened.
 */
/* hit_vals()'s values, per CPU: a thread's probe program is not entered
 * again on its CPU before it ends (an interrupt's runs with cx != 0) */
struct slow_vals {
	__u64 v[IPROF_NARGS + 1];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slow_vals);
} slow_scratch SEC(".maps");

/*
 * --slowest (slow_args): the hit's arguments into @v (IPROF_NARGS) and its
 * return value into v[IPROF_NARGS], as @from reads them: a user or kernel
 * function's registers (x86-64 SysV: rdi rsi rdx rcx r8 r9, rax), a USDT
 * probe's arguments (bpf_usdt_arg(), 0 past its count), a syscall's from
 * its rebuilt record (arguments at sys_enter, return value at sys_exit).
 * Returns 0, or -1 where there are none (tracepoints).
 */
static __always_inline int hit_vals(void *ctx, int from, __u64 *v)
{
	long x;
	int i;

	if (from == FROM_USER || from == FROM_KERNEL) {
		struct pt_regs *r = ctx;

#if defined(__TARGET_ARCH_x86)
		v[0] = PT_REGS_PARM1(r);
		v[1] = PT_REGS_PARM2(r);
		v[2] = PT_REGS_PARM3(r);
		v[3] = PT_REGS_PARM4(r);
		v[4] = PT_REGS_PARM5(r);
		v[5] = r->r9;
		v[IPROF_NARGS] = PT_REGS_RC(r);
#else
		for (i = 0; i < IPROF_NARGS; i++)
			v[i] = regs_arg(r, i);
		v[IPROF_NARGS] = 0;
#endif
		return 0;
	}
	if (from == FROM_USDT) {
		for (i = 0; i < IPROF_NARGS; i++) {
			x = 0;
			bpf_usdt_arg(ctx, i, &x);
			v[i] = (__u64)x;
		}
		v[IPROF_NARGS] = 0;
		return 0;
	}
	if (from == FROM_SYSCALL) {
		for (i = 0; i < IPROF_NARGS; i++)
			v[i] = ((__u64 *)ctx)[2 + i];
		v[IPROF_NARGS] = ((__u64 *)ctx)[2];
		return 0;
	}
	return -1;
}

static __always_inline int run_chain_at(void *ctx, __u32 key, __u32 cx,
					__u64 sp, __u64 usp, int from)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	const struct iprof_action *a;
	const __u64 *args = NULL, *ret = NULL;
	struct slow_vals *v;
	int n, i, ok;

	/* the thread's own hits only (timer_start() sends none else) */
	if (slow_args && cx == IPROF_CTX_TASK) {
		/* not &i: a loop counter whose address is taken lives on
		 * the stack, and 7.x's verifier loses its bounds there */
		__u32 zero = 0;

		v = bpf_map_lookup_elem(&slow_scratch, &zero);
		if (v && !hit_vals(ctx, from, v->v)) {
			args = v->v;
			ret = &v->v[IPROF_NARGS];
		}
	}

	for (n = 0; n < IPROF_MAX_CHAIN; n++) {
		a = bpf_map_lookup_elem(&actions, &key);
		if (!a)
			break;
		ok = 1;
		for (i = 0; i < IPROF_MAX_COND; i++) {
			if (i >= a->ncond)
				break;
			if (!cond_holds(&a->cond[i],
					cond_value(ctx, &a->cond[i], from))) {
				ok = 0;
				break;
			}
		}
		if (!ok || (a->role == IPROF_ROLE_START &&
			    !is_target(pid_tgid >> 32)))
			; /* a keyed span's start counts in the target only */
		else if ((from == FROM_TP || from == FROM_SYSCALL) &&
			 a->flags & IPROF_A_KEYED) {
			if (tracing_on())
				act_keyed(ctx, a, pid_tgid, cx);
		} else {
			if (a->flags & IPROF_A_NAMED &&
			    a->role == IPROF_ROLE_START)
				name_arm(ctx, a, cx, from);
			if (a->xflags & IPROF_AX_STOPNAME &&
			    a->role == IPROF_ROLE_STOP)
				stop_arm(ctx, a, cx, from);
			act(a, pid_tgid, cx, sp, usp, from, args, ret);
		}
		key = a->next;
		if (key == IPROF_NO_NEXT)
			break;
	}
	return 0;
}

/* @sp, @usp: as for timer_start() (@usp of a stop: timer_stop()); @from:
 * what probe runs it, enum chain_from (a constant at each call): keyed
 * spans only at tracepoints, frames a child inherits marked */
static __always_inline int run_chain(void *ctx, __u32 cx, __u64 sp, __u64 usp,
				     int from)
{
	return run_chain_at(ctx, (__u32)bpf_get_attach_cookie(ctx), cx, sp,
			    usp, from);
}

/* Tracepoint hit: ctx is the raw trace record; fields at the offsets given
 * by the event's format file. */
SEC("tracepoint")
int tp_hit(void *ctx)
{
	__u32 cx;

	preempt_off(); /* a syscall's tracepoint faults (6.14+) */
	cx = cur_ctx();
	drop_returned(cx, 0, SV_OTHER, bpf_get_current_pid_tgid());
	run_chain(ctx, cx, 0, 0, FROM_TP);
	preempt_on();
	return 0;
}

/* A USDT probe hit (a uprobe on its nop, attached by libbpf's
 * bpf_program__attach_usdt(), src/kernel/attach_usdt.c): the chain is its
 * USDT cookie, its arguments decoded as its note says (usdt.bpf.h); an
 * event of the thread, in user mode: a span's start or stop as a
 * tracepoint's. */
SEC("usdt")
int usdt_hit(struct pt_regs *ctx)
{
	preempt_off();
	drop_returned(IPROF_CTX_TASK, 0, SV_USER, bpf_get_current_pid_tgid());
	run_chain_at(ctx, (__u32)bpf_usdt_cookie(ctx), IPROF_CTX_TASK, 0, 0,
		     FROM_USDT);
	preempt_on();
	return 0;
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
	return run_chain_at(rec, head - 1, IPROF_CTX_TASK, 0, 0, FROM_SYSCALL);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sc_enter, struct pt_regs *regs, long nr)
{
	__u32 head = sc_head(nr, 0);

	if (!head)
		return 0;
	preempt_off(); /* before the stack is used: see preempt_off() */
	{
		__u64 rec[SC_REC_WORDS] = {};

#if defined(__TARGET_ARCH_x86)
		/* the x86-64 syscall ABI: rdi rsi rdx r10 r8 r9.  Plain
		 * loads at the UAPI struct's offsets, which the kernel's
		 * struct pt_regs shares (the verifier checks them against
		 * its BTF) */
		rec[2] = regs->rdi;
		rec[3] = regs->rsi;
		rec[4] = regs->rdx;
		rec[5] = regs->r10;
		rec[6] = regs->r8;
		rec[7] = regs->r9;
#endif
		sc_run(rec, nr, head);
	}
	preempt_on();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sc_exit, struct pt_regs *regs, long ret)
{
	long nr = -1;
	__u32 head;

#if defined(__TARGET_ARCH_x86)
	nr = regs->orig_rax; /* syscall_get_nr() */
#endif
	head = sc_head(nr, IPROF_NR_SYSCALLS);
	if (!head)
		return 0;
	preempt_off();
	{
		__u64 rec[SC_REC_WORDS] = {};

		rec[2] = (__u64)ret;
		sc_run(rec, nr, head);
	}
	preempt_on();
	return 0;
}

/*
 * Function entry and return through pt_regs: uprobes (user mode, in the
 * thread) and kprobes (kernel mode; may interrupt the thread).  Each body
 * exists once; each kind of attachment gets its own program so that the
 * verifier walks only its mode (a program serving both modes cost it 3x
 * the instructions), and iprof loads only the programs its plan uses
 * (choose_programs() in src/kernel/loader.c):
 *   fn_entry_u, fn_return_u    uprobe/uretprobe perf events
 *   fn_rsite                   a user function's return site (uprobe)
 *   fn_entry_m, fn_return_m,   uprobe_multi links (6.6+: the section gives
 *   fn_rsite_m                 them expected_attach_type
 *                              BPF_TRACE_UPROBE_MULTI)
 *   fn_entry, fn_return        kprobe/kretprobe perf events
 *   fn_entry_km, fn_return_km  kprobe_multi links (5.18+, CONFIG_FPROBE:
 *                              BPF_TRACE_KPROBE_MULTI)
 * Each attachment's cookie is its chain (bpf_get_attach_cookie() reads a
 * multi link's per-function cookie).  On x86 a kprobe entry's stack
 * pointer points at the return address (fprobe passes the registers
 * ftrace saved at the entry, the same): it finds frames whose kretprobe
 * missed (drop_returned()); elsewhere (arm64 keeps the return address in
 * a register) only the syscall count does.  A uprobe's user stack pointer
 * finds user frames that were left without a return (drop_left()).
 */
static __always_inline __u64 user_sp(struct pt_regs *ctx)
{
#if defined(__TARGET_ARCH_x86)
	return PT_REGS_SP(ctx);
#else
	return 0;
#endif
}

static __always_inline int user_entry(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), sp = user_sp(ctx);

	drop_returned(IPROF_CTX_TASK, 0, SV_USER, id);
	drop_left(sp, LV_ENTRY, id);
	return run_chain(ctx, IPROF_CTX_TASK, 0, sp, FROM_USER);
}

/*
 * A return's actions have no conditions: ncond is 0.  It stops the frame
 * whose entry slot it returns from (sp - 8): a deeper frame of the same
 * timer still open got no uretprobe (the kernel installs 64 nested at
 * most, MAX_URETPROBE_DEPTH in kernel/events/uprobes.c) and is closed
 * above it, unwound, instead of taking this return's time.
 */
static __always_inline int user_return_at(struct pt_regs *ctx, __u32 key)
{
	__u64 sp = user_sp(ctx);

	drop_left(sp, LV_URETPROBE, bpf_get_current_pid_tgid());
	return run_chain_at(ctx, key, IPROF_CTX_TASK, 0, sp ? sp - 8 : 0,
			    FROM_USER);
}

static __always_inline int user_return(struct pt_regs *ctx)
{
	return user_return_at(ctx, (__u32)bpf_get_attach_cookie(ctx));
}

/*
 * A user function's return site (a ret, or a jmp that leaves it: a tail
 * call), a plain uprobe whose chain holds the function's stops: the stack
 * pointer is the one of the frame's entry (src/probe/retsite.c).  An
 * inlined instance's entry and exits too (src/probe/inline.c): its frame
 * is its caller's, at the register and offset of the cookie
 * (IPROF_SITE_REG, IPROF_SITE_ADJ; 0 for a return site).
 */
/*
 * The start of a split entry (IPROF_REC_GAP() of abi.h) at user stack
 * pointer @sp (rebuilt: its function's entry's), now: the time since
 * the thread's mark there, for the START its chain sends (timer_start()
 * takes it); none where the mark is not this call's (a signal handler's
 * call between them took it, tracing began between them).  Returns the
 * thread's state (NULL: none), whose gap the caller clears after its
 * chain.
 */
static __always_inline struct task_state *split_gap(__u64 sp)
{
	__u64 now = bpf_ktime_get_ns(), g;
	struct task_state *st = state_get(IPROF_CTX_TASK, 0);

	if (!st)
		return NULL;
	st->gap = 0;
	if (st->mark_sp == sp && now > st->mark_ts) {
		g = (now - st->mark_ts + IPROF_GAP_UNIT - 1) >> IPROF_GAP_SHIFT;
		st->gap = g > IPROF_GAP_MAX ? IPROF_GAP_MAX : (__u32)g;
	}
	st->mark_sp = 0;
	return st;
}

static __always_inline int user_rsite(struct pt_regs *ctx)
{
	__u64 sp = user_sp(ctx), id = bpf_get_current_pid_tgid();
	struct task_state *st = NULL;
	int view = LV_RETSITE;
#if defined(__TARGET_ARCH_x86)
	__u64 c = bpf_get_attach_cookie(ctx);

	if (sp && IPROF_EMU_KIND(c) == IPROF_EMU_NONE)
		sp = (IPROF_SITE_REG(c) ? PT_REGS_FP(ctx) : sp) +
		     IPROF_SITE_ADJ(c);
	if (sp && IPROF_EMU_KIND(c) == IPROF_EMU_NONE && IPROF_SITE_SPLIT(c))
		st = split_gap(sp);
	/* a function's start moved past its entry: the entry's checks */
	if (sp && IPROF_EMU_KIND(c) == IPROF_EMU_NONE && IPROF_SITE_ENTRY(c)) {
		drop_returned(IPROF_CTX_TASK, 0, SV_USER, id);
		view = LV_ENTRY;
	}
#endif

	drop_left(sp, view, id);
	run_chain(ctx, IPROF_CTX_TASK, 0, sp, FROM_USER);
	if (st)
		st->gap = 0; /* its chain sent no start: not the next one's */
	return 0;
}

/*
 * A split entry's mark (IPROF_REC_GAP() of abi.h), at a user function's
 * first instruction beside its uretprobe: what a function entry checks
 * (user_entry(): frames returned or left), then the thread's mark, for
 * its start at the site after it.  Target processes only, while tracing.
 */
static __always_inline int user_mark(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), sp = user_sp(ctx);
	struct task_state *st;

	drop_returned(IPROF_CTX_TASK, 0, SV_USER, id);
	drop_left(sp, LV_ENTRY, id);
	if (!sp || !tracing_on() || !is_target(id >> 32))
		return 0;
	st = state_get(IPROF_CTX_TASK, 1);
	if (!st) {
		count(IPROF_CNT_NO_STORAGE);
		return 0;
	}
	st->mark_sp = sp;
	st->mark_ts = bpf_ktime_get_ns();
	return 0;
}

/*
 * Run the instruction this uprobe sits on in the kernel's place, as the
 * cookie says (IPROF_EMU_* of abi.h; 0: leave it to the kernel), after
 * the chain has run.  Where it does not (a shadow stack, ip moved by
 * another program, a return address it cannot read), it leaves ip alone
 * and the kernel single-steps the instruction as it always did: never
 * wrong, only slower.  Only the *_x programs call it: they write their
 * context, which kernels before 6.19 refuse to load.
 */
static __always_inline void emulate(struct pt_regs *ctx)
{
#if defined(__TARGET_ARCH_x86)
	__u64 c = bpf_get_attach_cookie(ctx), ra = 0;
	struct task_struct *t;
	__u32 k = IPROF_EMU_KIND(c);

	if (k == IPROF_EMU_NONE)
		return;
	/* ARCH_SHSTK_SHSTK (uapi asm/prctl.h): a ret emulated here would
	 * leave the shadow stack's entry behind, a skipped instruction is
	 * harmless but kept with the rets for one rule */
	t = bpf_get_current_task_btf();
	if (bpf_core_field_exists(t->thread.features) &&
	    (BPF_CORE_READ(t, thread.features) & 1)) {
		count(IPROF_CNT_EMU_SHSTK);
		return;
	}
	/* ip still at this probe's breakpoint (bpf_get_func_ip(): the
	 * uprobe's address, 6.4+), not moved by another program there:
	 * no read of user memory for it */
	if ((PT_REGS_IP(ctx) & 4095) != IPROF_EMU_PGOFF(c) ||
	    PT_REGS_IP(ctx) != bpf_get_func_ip(ctx)) {
		count(IPROF_CNT_EMU_MOVED);
		return;
	}
	if (k == IPROF_EMU_SKIP) {
		PT_REGS_IP(ctx) += IPROF_EMU_LEN(c);
	} else {
		if (bpf_probe_read_user(&ra, sizeof(ra),
					(void *)PT_REGS_SP(ctx))) {
			count(IPROF_CNT_EMU_FAULT);
			return;
		}
		/* returning to the probe itself (a call just before a
		 * ret): the kernel would see ip unmoved and run the ret
		 * again; its own step does it right */
		if (ra == PT_REGS_IP(ctx)) {
			count(IPROF_CNT_EMU_MOVED);
			return;
		}
		PT_REGS_IP(ctx) = ra;
		PT_REGS_SP(ctx) += 8 + IPROF_EMU_POP(c);
	}
	count(IPROF_CNT_EMU_DONE);
#endif
}

static __always_inline int kernel_entry(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), sp = 0;
	__u32 cx = cur_ctx();

#if defined(__TARGET_ARCH_x86)
	sp = PT_REGS_SP(ctx);
#endif
	drop_returned(cx, sp, sp ? SV_KPROBE : SV_OTHER, id);
	return run_chain(ctx, cx, sp, 0, FROM_KERNEL);
}

SEC("uprobe")
int fn_entry_u(struct pt_regs *ctx)
{
	preempt_off();
	user_entry(ctx);
	preempt_on();
	return 0;
}

SEC("uretprobe")
int fn_return_u(struct pt_regs *ctx)
{
	preempt_off();
	user_return(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe")
int fn_rsite(struct pt_regs *ctx)
{
	preempt_off();
	user_rsite(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe")
int fn_mark_u(struct pt_regs *ctx)
{
	preempt_off();
	user_mark(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe.multi")
int fn_mark_m(struct pt_regs *ctx)
{
	preempt_off();
	user_mark(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe.multi")
int fn_entry_m(struct pt_regs *ctx)
{
	preempt_off();
	user_entry(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe.multi")
int fn_return_m(struct pt_regs *ctx)
{
	preempt_off();
	user_return(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe.multi")
int fn_rsite_m(struct pt_regs *ctx)
{
	preempt_off();
	user_rsite(ctx);
	preempt_on();
	return 0;
}

/* the same, and the probed instruction run here (emulate()) */
SEC("uprobe")
int fn_entry_ux(struct pt_regs *ctx)
{
	preempt_off();
	user_entry(ctx);
	emulate(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe")
int fn_rsite_x(struct pt_regs *ctx)
{
	preempt_off();
	user_rsite(ctx);
	emulate(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe.multi")
int fn_entry_mx(struct pt_regs *ctx)
{
	preempt_off();
	user_entry(ctx);
	emulate(ctx);
	preempt_on();
	return 0;
}

SEC("uprobe.multi")
int fn_rsite_mx(struct pt_regs *ctx)
{
	preempt_off();
	user_rsite(ctx);
	emulate(ctx);
	preempt_on();
	return 0;
}

/*
 * glibc's x86-64 ucontext_t: uc_flags, uc_link, uc_stack (stack_t, 24
 * bytes), then uc_mcontext.gregs[], of which REG_RSP is 15
 * (sysdeps/unix/sysv/linux/x86_64/sys/ucontext.h); its getcontext and
 * swapcontext save there the stack pointer after their return (the
 * entry's + 8), makecontext a new stack's top.
 */
#define IPROF_UC_RSP (40 + 15 * 8)

/* the stack of a context whose stack pointer is @rsp: the one a context
 * saved at @rsp on this thread was on, else a new one */
static __always_inline __u16 stk_find(struct task_state *st, __u64 rsp)
{
	__u32 i;

	for (i = 0; i < IPROF_STK_SAVED; i++)
		if (st->stk_sp[i] == rsp)
			return st->stk_sid[i];
	if (!++st->stk_next) /* 0 is the thread's first stack */
		st->stk_next = 1;
	return st->stk_next;
}

/* keep the context saved at @rsp as on the current stack (the slot of the
 * same stack pointer, else the oldest) */
static __always_inline void stk_save(struct task_state *st, __u64 rsp)
{
	__u32 i, w = st->stk_pos % IPROF_STK_SAVED;

	for (i = 0; i < IPROF_STK_SAVED; i++)
		if (st->stk_sp[i] == rsp) {
			w = i;
			break;
		}
	if (w == st->stk_pos % IPROF_STK_SAVED)
		st->stk_pos++;
	st->stk_sp[w & (IPROF_STK_SAVED - 1)] = rsp;
	st->stk_sid[w & (IPROF_STK_SAVED - 1)] = st->stk_cur;
}

/*
 * A uprobe on the entry of libc's getcontext, setcontext or swapcontext
 * (cookie: enum iprof_ctx_fn) in a traced process: a saved context is
 * kept with the stack it was saved on, and a switch makes the target
 * context's stack the thread's (stk_cur): frames opened before it are on
 * the stack left, and no hit on the other stack closes them
 * (drop_left()), however close the two stacks are.  x86 only.
 */
SEC("uprobe")
int ctx_switch(struct pt_regs *ctx)
{
#if defined(__TARGET_ARCH_x86)
	__u64 kind = bpf_get_attach_cookie(ctx), sp = user_sp(ctx), rsp;
	/* both read: a context pointer chosen, then read, is refused */
	__u64 p1 = PT_REGS_PARM1(ctx), p2 = PT_REGS_PARM2(ctx), uc;
	struct task_state *st;

	barrier_var(p1);
	barrier_var(p2);
	/* tracing on or off: a uprobe session's entry reads stk_cur from
	 * its first hit (fn_session_u) */
	if (!sp || !is_target(bpf_get_current_pid_tgid() >> 32))
		return 0;
	st = state_get(IPROF_CTX_TASK, 1);
	if (!st)
		return 0;
	if (kind != IPROF_CTXFN_SET)
		stk_save(st, sp + 8);
	if (kind == IPROF_CTXFN_GET)
		return 0;
	uc = kind == IPROF_CTXFN_SWAP ? p2 : p1;
	/* an unreadable context: a switch to a stack not known (a new id),
	 * which a uprobe session takes no return probe on */
	if (bpf_probe_read_user(&rsp, sizeof(rsp), (void *)(uc + IPROF_UC_RSP)))
		rsp = 0;
	st->stk_cur = rsp ? stk_find(st, rsp) : stk_find(st, ~0ull);
#endif
	return 0;
}

extern _Bool bpf_session_is_return___v1(void) __ksym __weak;
extern _Bool bpf_session_is_return___v2(void *ctx) __ksym __weak;

/* in a session program: 1 at the return, 0 at the entry, -1 where the
 * kernel has neither prototype (see fn_session_km) */
static __always_inline int session_is_return(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_is_return___v2))
		return bpf_session_is_return___v2(ctx);
	if (bpf_ksym_exists(bpf_session_is_return___v1))
		return bpf_session_is_return___v1();
	return -1;
}

/*
 * User function timers in uprobe sessions (Linux 6.13+,
 * BPF_TRACE_UPROBE_SESSION; plan_att.session): one uprobe_multi link
 * whose program runs at each function's entry and, unless the entry
 * returned 1, at its return, as a uretprobe does.  The cookie holds both
 * chains: the entry's in the low 32 bits, the return's in the high.
 * The entry takes no return probe (returns 1: the kernel leaves the
 * return address alone) where a uretprobe could harm or serves nothing:
 * in a process that is not a target, while tracing is off, and in a
 * thread running on a stack it switched to (stk_cur, told by libc's
 * setcontext and swapcontext: ctx_switch()); there the call's starts
 * are sent as IPROF_REC_HIT (sess_hit: counted where made, not timed).
 * A uretprobe's trampoline on another stack than the thread's first is
 * what kills: the kernel drops the return instances whose stack pointer
 * lies below the next call's, by address, whatever stack they are on.
 */
SEC("uprobe.multi")
int fn_session_u(struct pt_regs *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx), id = bpf_get_current_pid_tgid();
	int r = session_is_return(ctx), decline = 1;
	struct task_state *st;

	if (r < 0)
		return 1;
	preempt_off();
	if (r) {
		user_return_at(ctx, (__u32)(c >> 32));
	} else if (tracing_on() && is_target(id >> 32)) {
		st = state_get(IPROF_CTX_TASK, 0);
		decline = st && st->stk_cur;
		if (decline)
			st->sess_hit = 1;
		user_entry(ctx);
		if (decline)
			st->sess_hit = 0;
	}
	preempt_on();
	return decline;
}

SEC("kprobe")
int fn_entry(struct pt_regs *ctx)
{
	return kernel_entry(ctx);
}

SEC("kretprobe")
int fn_return(struct pt_regs *ctx)
{
	return run_chain(ctx, cur_ctx(), 0, 0, FROM_KERNEL);
}

/*
 * A kernel function's inlined instance: a kprobe at its entry or at one
 * of its exits (src/probe/inline.c), whose frame is its caller's: the
 * caller's return address slot, at the register and offset of the
 * cookie (IPROF_SITE_REG, IPROF_SITE_ADJ), which is also the stack
 * pointer a kprobe at the caller's entry sees.  So it is kept as the
 * frame's kernel stack pointer too: drop_returned() closes the frame
 * when its caller has returned without passing an exit.
 */
SEC("kprobe")
int fn_ksite(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), f = 0;
	__u32 cx = cur_ctx();
#if defined(__TARGET_ARCH_x86)
	__u64 c = bpf_get_attach_cookie(ctx);

	/* (as user_rsite(): the stack pointer read apart, so that clang
	 * does not pick the context's field by an offset the verifier
	 * refuses, "dereference of modified ctx ptr") */
	f = PT_REGS_SP(ctx);
	barrier_var(f);
	f = (IPROF_SITE_REG(c) ? PT_REGS_FP(ctx) : f) + IPROF_SITE_ADJ(c);
#endif
	drop_returned(cx, f, f ? SV_KSITE : SV_OTHER, id);
	/* its match key as a user frame's (timer_stop()), without the top
	 * byte, all ones in a kernel address: the instance's number goes
	 * there (act()); drop_left() takes it for a frame on another stack */
	return run_chain(ctx, cx, f, IPROF_USP_ADDR(f), FROM_KERNEL);
}

SEC("kprobe")
int fn_entry_km(struct pt_regs *ctx)
{
	return kernel_entry(ctx);
}

SEC("kprobe")
int fn_return_km(struct pt_regs *ctx)
{
	return run_chain(ctx, cur_ctx(), 0, 0, FROM_KERNEL);
}

/*
 * kprobe sessions (Linux 6.10+, BPF_TRACE_KPROBE_SESSION): one
 * kprobe_multi link whose one program runs at each function's entry and,
 * unless the entry returned 1, at its return: one fprobe where the pair
 * above registers two, one ftrace update to attach, and a function that
 * never returns costs no return hook at all.  bpf_session_is_return()
 * tells the two apart; Linux 7.0 gave it the program's context as an
 * argument (before: none).  The kernel's BTF holds one of the two
 * prototypes, libbpf resolves the flavor (___v1, ___v2) that matches it,
 * the other stays 0 and its call is dead code.  The cookie holds both
 * chains: the entry's in the low 32 bits, the return's in the high
 * (IPROF_NO_NEXT there: never returns, no return hook).
 * src/kernel/loader.c loads this program only where the kernel makes
 * session links (loader_ksession_supported(): a probe link), 6.10+.
 */
SEC("kprobe")
int fn_session_km(struct pt_regs *ctx)
{
	__u64 c = bpf_get_attach_cookie(ctx);
	int ret = session_is_return(ctx);

	if (ret < 0)
		return 1;
	if (ret)
		return run_chain_at(ctx, (__u32)(c >> 32), cur_ctx(), 0, 0,
				    FROM_KERNEL);
	kernel_entry(ctx);
	return (__u32)(c >> 32) == IPROF_NO_NEXT;
}

/*
 * A frame a child inherits at fork (fork_copy()): IPROF_REC_FORKED of the
 * child (@id), at @depth, stamped @ts, the fork's; aux: the parent's
 * thread, the current task.  A global function: called in a loop.
 */
__noinline int emit_forked(struct task_state *st, __u32 timer, __u32 depth,
			   __u64 id, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec *r;
	void *rb;

	if (!st)
		return 0;
	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		st->lost = 1;
		return 0;
	}
	r->type = IPROF_REC_FORKED;
	r->flags = st->lost ? IPROF_F_RESYNC : 0;
	r->size = sizeof(*r);
	r->timer = timer;
	r->tid = (__u32)id;
	r->tgid = id >> 32;
	r->ts = ts;
	r->depth = depth;
	r->cpu = cpu;
	r->aux = (__u32)bpf_get_current_pid_tgid();
	st->lost = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/*
 * Copy the frames of parent thread @p that child @c (@id) inherits, in
 * order, each sent as IPROF_REC_FORKED at one timestamp: user function and
 * syscall span frames; not a kernel function's (nofork[], or a kprobe
 * frame's kernel stack pointer): the child leaves the kernel by
 * ret_from_fork, never through its parent's kernel frames; nor a
 * tracepoint span's (enum chain_from).  Frames past IPROF_MAX_DEPTH
 * (p->over) are not inherited: the child's stops of them are orphans.
 */
__noinline int fork_copy(struct task_state *p, struct task_state *c, __u64 id)
{
	__u64 ts = bpf_ktime_get_ns();
	__u32 d, i, w;

	if (!p || !c)
		return 0;
	d = p->depth;
	c->depth = 0;
	c->over = 0;
	c->stk_cur = p->stk_cur; /* on the stack the parent was on */
	c->stk_next = p->stk_next;
	for (i = 0; i < IPROF_MAX_DEPTH; i++) {
		if (i >= d)
			break;
		if (p->nofork[i] || p->sp[i])
			continue;
		w = *(volatile __u32 *)&c->depth & (IPROF_MAX_DEPTH - 1);
		c->timers[w] = p->timers[i];
		c->usp[w] = p->usp[i];
		c->sp[w] = 0;
		c->kseq[w] = 0;
		c->nofork[w] = 0;
		c->stk[w] = p->stk[i];
		c->fname[w] = p->fname[i];
		c->depth = w + 1;
		emit_forked(c, c->timers[w], w + 1, id, ts);
	}
	return 0;
}

/*
 * A new process (@child: its first thread) goes on from the fork where its
 * parent thread (@parent, the current task) is, on a copy of its stack
 * (fork) or on that stack itself (vfork: the parent waits until the child
 * execs or exits): it is inside the frames its parent had open, and gets
 * them (fork_copy()), after its name.  A child that clone gave a stack of
 * its own (posix_spawn, clone with a stack) starts in a new function, as
 * a thread does, and inherits nothing; so does a thread (CLONE_THREAD).
 * x86 only (its user stack pointer is read); elsewhere nothing is
 * inherited.
 */
static __always_inline void fork_inherit(struct task_struct *parent,
					 struct task_struct *child, __u32 ctgid)
{
#if defined(__TARGET_ARCH_x86)
	struct task_state *ps, *cs;
	struct pt_regs *pr, *cr;
	__u64 id;

	ps = bpf_task_storage_get(&tstate, parent, 0, 0);
	if (!ps || !ps->depth)
		return;
	/* the child's registers are set (copy_thread()) before this
	 * tracepoint; its stack pointer is its parent's unless clone was
	 * given a stack */
	pr = (struct pt_regs *)bpf_task_pt_regs(parent);
	cr = (struct pt_regs *)bpf_task_pt_regs(child);
	if (!pr || !cr || pr->rsp != cr->rsp)
		return;
	cs = bpf_task_storage_get(&tstate, child, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!cs) {
		count(IPROF_CNT_NO_STORAGE);
		return;
	}
	id = (__u64)ctgid << 32 | (__u32)BPF_CORE_READ(child, pid);
	/* its name is its parent's (copied at fork): the current task's */
	emit_comm(cs, id);
	cs->seen = 1; /* its exit is reported */
	fork_copy(ps, cs, id);
#endif
}

/* Follow children of traced processes: a new process of a target tgid is a
 * target before it runs its first instruction (no race with exec).  Then
 * the frames it inherits (fork_inherit()). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid, ctgid;
	__u8 one = 1;

	ptgid = BPF_CORE_READ(parent, tgid);
	ctgid = BPF_CORE_READ(child, tgid);
	if (ptgid == ctgid)
		return 0; /* a thread */
	if (filter_tgid && bpf_map_lookup_elem(&targets, &ptgid))
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_NOEXIST);
	if (tracing_on())
		fork_inherit(parent, child, ctgid);
	return 0;
}

/*
 * --offcpu-stacks (issue 47 item 2): where a thread inside a timer blocked
 * and who woke it.  At sched_switch a thread that blocks sends the kernel
 * stack it blocked on (IPROF_REC_OFFSTACK, before its SWITCH_OUT); at
 * sched_waking the waker sends, under the wakee's tid, its own tid, comm,
 * context and kernel stack (IPROF_REC_WAKER).
 *
 * The stacks go in the records (bpf_get_stack() into a per-CPU buffer,
 * two frames a record), not in a BPF_MAP_TYPE_STACK_TRACE map: records
 * are what recordings keep and what the per-thread merge orders, so
 * `iprof report` re-reads them with nothing more; a stack map would have
 * to be read out at the end (ids of a map that may have dropped stacks on
 * hash collisions) and written into the recording beside the records.
 * Cost: the helper walk and up to IPROF_OFF_FRAMES / 2 reserves per
 * blocking switch and per wake-up of a traced thread (bench/offcpu.sh).
 * With offcpu_stacks 0 (rodata) the verifier drops the code from
 * on_switch and on_waking is not loaded.
 */

/* --offcpu-stacks: set by the loader before load; IPROF_OFF_KSTACK, with
 * IPROF_OFF_USTACK also the user stack (--offcpu-stacks=user) */
const volatile __u32 offcpu_stacks = 0;

struct off_buf {
	__u64 ip[IPROF_OFF_FRAMES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct off_buf);
} offbuf SEC(".maps");

/*
 * emit_part() - one OFFSTACK or WAKER record of thread @tid: @part (0..15)
 * with values @v0, @v1 at @ts.  A loss is counted and leaves every
 * thread's sync alone: the aggregator keeps what came of a stack.
 */
static __always_inline void emit_part(__u8 type, __u32 part, __u32 tid,
				      __u64 v0, __u64 v1, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec_val *r;
	void *rb;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		return;
	}
	r->type = type;
	r->flags = (__u8)((part & 15u) << IPROF_VAL_PAIR_SHIFT);
	r->size = sizeof(*r);
	r->lo0 = (__u32)v0;
	r->tid = tid;
	r->hi0 = v0 >> 32;
	r->ts = ts;
	r->lo1 = (__u32)v1;
	r->hi1 = v1 >> 32;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/*
 * off_stack() - the current kernel stack into the CPU's buffer; returns
 * it (NULL: none) and its frames in *@n.
 */
static __always_inline struct off_buf *off_stack(void *ctx, __u32 *n)
{
	__u32 zero = 0;
	struct off_buf *b = bpf_map_lookup_elem(&offbuf, &zero);
	long len;

	*n = 0;
	if (!b)
		return NULL;
	len = bpf_get_stack(ctx, b->ip, sizeof(b->ip), 0);
	if (len > 0)
		*n = (__u32)len / 8;
	return b;
}

/* emit_frames() - @b's @n frames as records @type, parts @first.. */
static __always_inline void emit_frames(__u8 type, __u32 first, __u32 tid,
					struct off_buf *b, __u32 n, __u64 ts)
{
	__u32 p;

	for (p = 0; p < IPROF_OFF_FRAMES / 2; p++) {
		if (2 * p >= n)
			break;
		emit_part(type, first + p, tid, b->ip[2 * p],
			  2 * p + 1 < n ? b->ip[2 * p + 1] : 0, ts);
	}
}

/*
 * off_blocked() - the current thread (@tid) blocks inside a timer: its
 * stack, just before its SWITCH_OUT at @ts (on_switch); with
 * IPROF_OFF_USTACK also its user stack as parts IPROF_OFF_UPART.. (the
 * kernel's user callchain: the syscall's user ip, then the frame-pointer
 * chain from its rbp, read without faulting pages in)
 */
static __always_inline void off_blocked(void *ctx, __u32 tid, __u64 ts)
{
	struct off_buf *b;
	long len;
	__u32 n;

	b = off_stack(ctx, &n);
	if (!b)
		return;
	emit_frames(IPROF_REC_OFFSTACK, 0, tid, b, n, ts);
	if (!(offcpu_stacks & IPROF_OFF_USTACK))
		return;
	len = bpf_get_stack(ctx, b->ip, sizeof(b->ip), BPF_F_USER_STACK);
	if (len > 0)
		emit_frames(IPROF_REC_OFFSTACK, IPROF_OFF_UPART, tid, b,
			    (__u32)len / 8, ts);
}

/*
 * off_woken() - @p, blocked inside a timer, is being woken by the current
 * task or interrupt: who, and its stack (on_waking).
 */
static __always_inline void off_woken(void *ctx, struct task_struct *p)
{
	struct task_state *st = bpf_task_storage_get(&tstate, p, 0, 0);
	__u64 ts, id, comm[2] = {};
	struct off_buf *b;
	__u32 tid, n;

	if (!st || !st->depth || !tracing_on())
		return;
	tid = (__u32)BPF_CORE_READ(p, pid);
	ts = bpf_ktime_get_ns();
	id = bpf_get_current_pid_tgid(); /* tid | tgid << 32 */
	b = off_stack(ctx, &n);
	/* v1: the context, the frames, the CPU (-f chrome's interrupt
	 * track of a waker in an interrupt) */
	emit_part(IPROF_REC_WAKER, 0, tid, id,
		  cur_ctx() | (__u64)n << 8 |
			  (__u64)bpf_get_smp_processor_id() << 32,
		  ts);
	bpf_get_current_comm(comm, sizeof(comm));
	emit_part(IPROF_REC_WAKER, 1, tid, comm[0], comm[1], ts);
	if (b)
		emit_frames(IPROF_REC_WAKER, 2, tid, b, n, ts);
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
	__u64 id, ts;
	__u32 kind;

	if (!tracing_on())
		return 0;
	st = bpf_task_storage_get(&tstate, prev, 0, 0);
	if (st && st->depth) {
		kind = preempt || BPF_CORE_READ(prev, __state) == 0 ?
			       IPROF_OFF_RUNQ :
			       IPROF_OFF_BLOCKED;
		id = bpf_get_current_pid_tgid();
		ts = bpf_ktime_get_ns();
		if (offcpu_stacks && kind == IPROF_OFF_BLOCKED)
			off_blocked(ctx, (__u32)id, ts);
		emit_at(st, IPROF_REC_SWITCH_OUT, 0, st->depth, id, kind, ts);
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
 * --offcpu-stacks: a thread blocked inside a timer is being woken; the
 * waker (this task, or the interrupt running) says who it is and where
 * (off_woken()).  Loaded only with offcpu_stacks.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	if (offcpu_stacks)
		off_woken(ctx, p);
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
 * exec replaces the program image.  Its user function frames can never
 * return (their code is gone): each is closed at the exec, top first, as
 * IPROF_REC_EXECED (counted, not timed to the thread's exit, and never the
 * parent of the new image's frames); kernel function and span frames
 * (execve itself) go on across the exec and move down in their place.
 * Then the new name (comm is set by now), for --by comm.
 *
 * Global functions: the verifier checks each loop once.
 */
__noinline int exec_emit(struct task_state *st, __u64 id)
{
	__u32 d, i, k;

	if (!st)
		return 0;
	d = st->depth;
	for (k = 0; k < IPROF_MAX_DEPTH; k++) {
		if (k >= d)
			break;
		i = (d - 1 - k) & (IPROF_MAX_DEPTH - 1);
		/* a user frame: a user stack key, no kernel stack pointer
		 * (an inlined kernel instance's frame has both) */
		if (st->usp[i] && !st->sp[i])
			emit_g(st, IPROF_REC_EXECED, st->timers[i], i + 1, id);
	}
	return 0;
}

/* the frames kept move down; their count lives in st->depth, not in a
 * register: a load from the map is a value the verifier does not track,
 * so the paths of kept and closed frames meet again at each turn */
__noinline int exec_compact(struct task_state *st)
{
	__u32 d, i, w;

	if (!st)
		return 0;
	d = st->depth;
	st->depth = 0;
	for (i = 0; i < IPROF_MAX_DEPTH; i++) {
		if (i >= d)
			break;
		if (st->usp[i] && !st->sp[i])
			continue; /* a user frame (exec_emit()) */
		w = *(volatile __u32 *)&st->depth & (IPROF_MAX_DEPTH - 1);
		st->timers[w] = st->timers[i];
		st->sp[w] = st->sp[i];
		st->kseq[w] = st->kseq[i];
		st->usp[w] = st->usp[i];
		st->nofork[w] = st->nofork[i];
		st->fname[w] = st->fname[i];
		st->depth = w + 1;
	}
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, int old_pid,
	     struct linux_binprm *bprm)
{
	__u64 id = bpf_get_current_pid_tgid();
	/* a thread other than the leader that execs has taken the leader's
	 * pid by now (de_thread()): its frames are its old tid's */
	__u64 old = (id & 0xffffffff00000000ULL) | (__u32)old_pid;
	struct task_state *st;
	__u32 i;

	/* --comm, --exe: the new image may make it a target */
	select_at_exec(p, bprm);
	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!st)
		return 0;
	if (st->depth > IPROF_MAX_DEPTH)
		st->depth = IPROF_MAX_DEPTH;
	if (tracing_on())
		exec_emit(st, old);
	exec_compact(st);
	/* the new image starts on a new stack, its first: the contexts
	 * saved before are gone, and a uprobe session takes its returns
	 * again (fn_session_u) */
	st->stk_cur = 0;
	for (i = 0; i < IPROF_STK_SAVED; i++)
		st->stk_sp[i] = 0;
	/* the frames kept go on under the leader's tid: user space moves
	 * them there (after the leader's EXIT, which came first) */
	if (tracing_on() && st->seen && old != id)
		emit_aux(st, IPROF_REC_NEWTID, 0, st->depth, id,
			 (__u32)old_pid);
	if (tracing_on() && st->seen)
		emit_comm(st, id);
	return 0;
}

/*
 * A thread renamed (prctl(PR_SET_NAME), a write to /proc/.../comm, exec;
 * kernel/fs: __set_task_comm()) by itself or another thread: the kernel
 * copies the name after this tracepoint, so it is not read here.  The
 * thread's next START sends its name first (emit_comm()), in its own ring
 * just before the START, so --by comm files the timers from the rename
 * onward under the new name, in order with the thread's other records.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(on_rename, struct task_struct *task)
{
	struct task_state *st;

	st = bpf_task_storage_get(&tstate, task, 0, 0);
	if (st && st->seen)
		st->renamed = 1;
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
