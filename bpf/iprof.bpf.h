/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPF-only helpers shared by every iprof program object: the maps, the
 * per-thread state in task storage, condition evaluation and the start/stop
 * logic.  Records and actions are defined in include/iprof/abi.h.
 *
 * Per thread (BPF task storage, freed by the kernel at task exit) we keep
 * the stack of open timer ids.  It lets BPF
 *  - drop a stop whose start was never emitted (no ring-buffer traffic),
 *  - tell user space at which depth a stop closes (inner frames unwound),
 *  - mark a thread that lost a record, so its next record carries
 *    IPROF_F_RESYNC and user space discards its frames instead of
 *    mis-nesting them.
 */
#ifndef IPROF_BPF_H
#define IPROF_BPF_H

#include "vmlinux_min.h"
#include "iprof/abi.h"

/* Set by the loader before load (rodata). */
const volatile int filter_tgid = 0; /* only targets are traced: the tgids
				      * in `targets`, and with --cgroup the
				      * processes in sel_cgid's cgroups */
/*
 * --comm and --exe: a process whose exec (sched_process_exec) runs one of
 * these names (the new comm, zero-padded to 16 bytes, as two words) or
 * executables (the kernel's dev_t of the file's superblock and its inode
 * number) becomes a target, and with it what it forks.
 */
const volatile __u32 sel_ncomm = 0, sel_nexe = 0;
const volatile __u64 sel_comm[IPROF_MAX_SEL][2] = {};
const volatile __u64 sel_exe_dev[IPROF_MAX_SEL] = {};
const volatile __u64 sel_exe_ino[IPROF_MAX_SEL] = {};
/* --cgroup: the level of each cgroup (its depth below the root); its id,
 * which changes when the cgroup is made anew, is in the map sel_cgid */
const volatile __u32 sel_ncg = 0;
const volatile __u32 sel_cg_level[IPROF_MAX_SEL] = {};
const volatile __u32 self_tgid = 0; /* iprof itself: never traced */
const volatile __u64 wakeup_bytes = 1 << 20; /* wake the reader past this */
/* address of the kretprobe return trampoline (kallsyms), 0 if unknown */
const volatile __u64 rethook_tramp = 0;
/* the plan has kprobe timers: look for frames whose return was missed */
const volatile int has_kprobes = 0;

/* contexts' stack pointers a thread keeps (struct task_state stk_sp[]):
 * coroutines switched between on one thread, nested */
#define IPROF_STK_SAVED 8

struct task_state {
	__u32 depth; /* open timers tracked in timers[] */
	__u32 over; /* starts refused beyond IPROF_MAX_DEPTH, still open */
	__u8 lost; /* a record of this thread was lost: resync next */
	__u8 seen; /* this thread emitted a record: report its exit */
	__u8 renamed; /* renamed (task_rename): send the name before the
		       * next START (--by comm) */
	__u8 pad[1];
	/* syscalls entered (on_sys_enter, loaded with kprobe timers only):
	 * a kernel function entered before the thread's latest syscall has
	 * returned, its kernel stack unwound on the way back to user mode */
	__u32 kentry;
	__u32 timers[IPROF_MAX_DEPTH];
	/* kernel stack pointer at the entry of each kprobe frame, else 0 */
	__u64 sp[IPROF_MAX_DEPTH];
	__u32 kseq[IPROF_MAX_DEPTH]; /* kentry at each kprobe frame's entry */
	/* user function frames: the user stack pointer at the entry (it
	 * points at the return address), bit 0 set when the frame ends at
	 * return sites (IPROF_A_RETSITES); an inlined kernel instance's
	 * frame: its caller's frame (fn_ksite; sp[] is set too, a user
	 * frame's is 0); 0 for every other frame */
	__u64 usp[IPROF_MAX_DEPTH];
	/* 1: a frame a child never inherits at fork (fork_copy()): a
	 * kernel function's (kprobe, fentry, an inlined kernel instance) or
	 * a tracepoint span's; 0: a user function's or a syscall span's */
	__u8 nofork[IPROF_MAX_DEPTH];
	/* stack switches told by the switch itself (ctx_switch()): the
	 * stack each frame was opened on (stk_cur then), the stack the
	 * thread runs on (0 until a switch is seen), the last id given, and
	 * the stack pointers of the contexts saved on this thread
	 * (getcontext, swapcontext) with their stacks, IPROF_STK_SAVED
	 * kept, the oldest replaced */
	__u16 stk[IPROF_MAX_DEPTH];
	__u16 stk_cur;
	__u16 stk_next;
	/* 1 while a uprobe session's entry that took no return probe runs
	 * its chain (fn_session_u): its starts are sent as IPROF_A_HIT's */
	__u8 sess_hit;
	__u32 stk_pos;
	__u64 stk_sp[IPROF_STK_SAVED];
	__u16 stk_sid[IPROF_STK_SAVED];
	/* a named timer's start (IPROF_A_NAMED): the value its chain read
	 * (name_arm()) for timer name_for - 1; 0: none pending */
	__u32 name_for;
	__u64 name_val;
	/* IPROF_A_NAMESTR: name_val and name_val2 are the user addresses
	 * of the name's name_parts strings (0: an integer name) */
	__u64 name_val2;
	__u32 name_parts;
	/* IPROF_AX_NAMEKEY: the key of the pending name (name_arm()), and
	 * each frame's (0: a frame whose stops name nothing); skey: the
	 * key a stop with IPROF_AX_STOPNAME read just before its
	 * timer_stop() (stop_arm()) */
	__u64 name_key;
	__u64 skey;
	__u64 fname[IPROF_MAX_DEPTH];
	/* a split entry (IPROF_REC_GAP() of abi.h): the time and user
	 * stack pointer of the thread's last mark at a function's first
	 * instruction (fn_mark_*; mark_sp 0: none pending), and the gap its
	 * start measured, sent in the next START's aux (0: none) */
	__u64 mark_ts;
	__u64 mark_sp;
	__u32 gap;
};

/*
 * One ring buffer per possible CPU: a program writes to its CPU's ring, so
 * CPUs never contend on one ring's spinlock (one shared ring made 16
 * threads 26x slower: bench/README.md).  User space merges the rings per
 * thread in time order (src/core/stream.c).  The loader sizes the template and
 * creates the rings, one per index, before any program runs.
 */
struct rb_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16); /* resized by the loader */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* resized by the loader: possible CPUs */
	__type(key, __u32);
	__array(values, struct rb_inner);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tstate SEC(".maps");

/* Per-CPU state of the interrupt contexts, indexed by enum iprof_ctx. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IPROF_CTX_MAX);
	__type(key, __u32);
	__type(value, struct task_state);
} cstate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized by the loader: one per action */
	__type(key, __u32);
	__type(value, struct iprof_action);
} actions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized by the loader: one per timer */
	__type(key, __u32);
	__type(value, __u64);
} orphans SEC(".maps");

/* processes traced at once (-p, -- COMMAND, and what they fork) */
#define IPROF_MAX_TARGETS 65536

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IPROF_MAX_TARGETS);
	__type(key, __u32); /* tgid */
	__type(value, __u8);
} targets SEC(".maps");

/* Syscall spans: the first action + 1 of each syscall's sys_enter chain
 * (at nr) and sys_exit chain (at IPROF_NR_SYSCALLS + nr); 0: none. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * IPROF_NR_SYSCALLS);
	__type(key, __u32);
	__type(value, __u32);
} sc_chain SEC(".maps");

/*
 * ctl[0] != 0 while tracing: the loader sets it once every probe is
 * attached and clears it at the stop time, before draining the ring.  So
 * nothing is recorded while probes are being attached (a start whose stop
 * is not attached yet) or detached, and the report ends at the stop time.
 * A map, not a global: the fentry clones share it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ctl SEC(".maps");

static __always_inline int tracing_on(void)
{
	__u32 zero = 0, *on = bpf_map_lookup_elem(&ctl, &zero);

	return on && *on;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IPROF_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Preemption.  A uprobe program runs preemptible (migrate_disable() only:
 * bpf_prog_run_array_uprobe(), 6.0+), syscall tracepoints fault and so
 * do theirs (6.14+), and a preemptible kernel (PREEMPT_LAZY, the default
 * from 7.x) does preempt them; since 6.13 a kprobe-type program (uprobes
 * among them) may run on a per-CPU private stack, which the program that
 * runs next on that CPU overwrites.  Seen on 7.2 as lost frames and
 * orphan stops once threads share a CPU.  So the programs of uprobes and
 * syscalls hold preemption off for their whole run where the kernel has
 * the kfuncs (6.10+) and lets a program call global functions meanwhile
 * (6.15+: the loader sets hold_preempt from bpf/preempt_probe.bpf.c);
 * before 6.13 programs were not preempted this way.
 */
extern void bpf_preempt_disable(void) __ksym __weak;
extern void bpf_preempt_enable(void) __ksym __weak;
const volatile __u32 hold_preempt = 0;

static __always_inline void preempt_off(void)
{
	if (hold_preempt && bpf_ksym_exists(bpf_preempt_disable))
		bpf_preempt_disable();
}

static __always_inline void preempt_on(void)
{
	if (hold_preempt && bpf_ksym_exists(bpf_preempt_enable))
		bpf_preempt_enable();
}

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += 1;
}

/* the cgroup v2 ids of the --cgroup cgroups, by index; 0: none now */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IPROF_MAX_SEL);
	__type(key, __u32);
	__type(value, __u64);
} sel_cgid SEC(".maps");

/*
 * Is the current task in one of the --cgroup cgroups, or below one?
 * Unrolled with constant indices: the 6.1 verifier refused the loop's
 * variable index into sel_cg_level after the helper call (EACCES).
 */
#define SEL_CG(k)                                                              \
	if ((k) < sel_ncg) {                                                   \
		key = (k);                                                     \
		id = bpf_map_lookup_elem(&sel_cgid, &key);                     \
		if (id && *id &&                                               \
		    bpf_get_current_ancestor_cgroup_id(sel_cg_level[(k)]) ==   \
			    *id)                                               \
			return 1;                                              \
	}

static __always_inline int in_sel_cgroup(void)
{
	__u32 key;
	__u64 *id;

	_Static_assert(IPROF_MAX_SEL == 8, "SEL_CG(0..7) below");
	SEL_CG(0) SEL_CG(1) SEL_CG(2) SEL_CG(3)
	SEL_CG(4) SEL_CG(5) SEL_CG(6) SEL_CG(7)
	return 0;
}

/* @tgid is the current task's process. */
static __always_inline int is_target(__u32 tgid)
{
	if (tgid == self_tgid)
		return 0;
	if (!filter_tgid || bpf_map_lookup_elem(&targets, &tgid))
		return 1;
	return sel_ncg && in_sel_cgroup();
}

/*
 * The current task, @task, ran exec of @bprm: with --comm or --exe, a
 * match makes its process a target (its later forks follow).
 */
static __always_inline void select_at_exec(struct task_struct *task,
					   struct linux_binprm *bprm)
{
	__u64 comm[2] = {}, dev, ino;
	__u32 i, tgid;
	__u8 one = 1;
	int hit = 0;

	if (!filter_tgid || (!sel_ncomm && !sel_nexe))
		return;
	if (sel_ncomm) {
		bpf_get_current_comm(comm, sizeof(comm));
		for (i = 0; i < IPROF_MAX_SEL; i++) {
			if (i >= sel_ncomm)
				break;
			if (comm[0] == sel_comm[i][0] &&
			    comm[1] == sel_comm[i][1])
				hit = 1;
		}
	}
	if (!hit && sel_nexe) {
		dev = BPF_CORE_READ(bprm, file, f_inode, i_sb, s_dev);
		ino = BPF_CORE_READ(bprm, file, f_inode, i_ino);
		for (i = 0; i < IPROF_MAX_SEL; i++) {
			if (i >= sel_nexe)
				break;
			if (dev == sel_exe_dev[i] && ino == sel_exe_ino[i])
				hit = 1;
		}
	}
	if (!hit)
		return;
	tgid = BPF_CORE_READ(task, tgid);
	bpf_map_update_elem(&targets, &tgid, &one, BPF_ANY);
}

/*
 * A process ends (@task, its last thread, exits): it leaves the targets,
 * so that a target forking without end never fills the map, and a later
 * process given the same tgid is not traced for it.
 */
static __always_inline void target_exit(struct task_struct *task)
{
	__u32 tgid;

	if (!filter_tgid || BPF_CORE_READ(task, signal, live.counter))
		return;
	tgid = BPF_CORE_READ(task, tgid);
	bpf_map_delete_elem(&targets, &tgid);
}

/* str_match()'s read of a string, per CPU (a program is not entered
 * again on its CPU before it ends; an interrupt's may, and compares its
 * own string after this one's) */
struct str_buf {
	char s[IPROF_STRCOND_READ];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct str_buf);
} str_scratch SEC(".maps");

/*
 * A string condition (IPROF_OP_STREQ, STRNE, STRPRE of abi.h): the string
 * at user address @addr against a constant of @len bytes whose FNV-1a hash
 * is @h.  A global function: the verifier checks its loop once, not in
 * every condition of every action of a chain.  1 if it holds.
 */
__noinline int str_match(__u64 addr, __u64 h, __u32 len, __u32 op)
{
	__u64 x = 0xcbf29ce484222325ull;
	struct str_buf *b;
	__u32 zero = 0, i;
	long n;
	int eq;

	b = bpf_map_lookup_elem(&str_scratch, &zero);
	if (!b || len > IPROF_STRCOND_MAX)
		return op == IPROF_OP_STRNE;
	n = bpf_probe_read_user_str(b->s, sizeof(b->s), (void *)addr);
	/* n counts the NUL: the string is n - 1 bytes (cut at
	 * IPROF_STRCOND_READ - 1, longer than any constant) */
	if (n <= 0 || (op == IPROF_OP_STRPRE ? n - 1 < len : n - 1 != len))
		return op == IPROF_OP_STRNE;
	for (i = 0; i < IPROF_STRCOND_MAX; i++) {
		if (i >= len)
			break;
		x ^= (unsigned char)b->s[i];
		x *= 0x100000001b3ull;
	}
	eq = x == h;
	return op == IPROF_OP_STRNE ? !eq : eq;
}

/* FNV-1a of one name part into @h: the string at user address @addr as
 * emit_namestr() reads it (at most IPROF_NAME_STR - 1 bytes), or one
 * 0xff byte where it cannot be read (a part no string of that length
 * gives) */
static __always_inline __u64 part_hash(struct str_buf *b, __u64 h, __u64 addr)
{
	long n;
	__u32 i;

	n = bpf_probe_read_user_str(b->s, IPROF_NAME_STR, (void *)addr);
	if (n <= 0) {
		h ^= 0xff;
		return h * 0x100000001b3ull;
	}
	for (i = 0; i < IPROF_NAME_STR - 1; i++) {
		if (i >= n - 1)
			break;
		h ^= (unsigned char)b->s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * name_key_str() - the key of a text name (IPROF_AX_NAMEKEY, STOPNAME):
 * the FNV-1a hash of the string at user address @a0 and (@parts 2) ':'
 * and the one at @a1, as the name's parts are read; into st->skey when
 * @stop, else st->name_key.  A global function: its loops are checked
 * once.  Returns 0.
 */
__noinline int name_key_str(struct task_state *st, __u64 a0, __u64 a1,
			    __u32 parts, __u32 stop)
{
	__u64 h = 0xcbf29ce484222325ull;
	struct str_buf *b;
	__u32 zero = 0;

	if (!st)
		return 0;
	b = bpf_map_lookup_elem(&str_scratch, &zero);
	if (b) {
		h = part_hash(b, h, a0);
		if (parts == 2) {
			h ^= ':';
			h *= 0x100000001b3ull;
			h = part_hash(b, h, a1);
		}
	}
	if (stop)
		st->skey = h;
	else
		st->name_key = h;
	return 0;
}

static __always_inline int cond_holds(const struct iprof_cond *c, __u64 v)
{
	__s64 sv = (__s64)v, sc = (__s64)c->val;

	switch (c->op) {
	case IPROF_OP_STREQ:
	case IPROF_OP_STRNE:
	case IPROF_OP_STRPRE:
		return str_match(v, c->val, c->pad, c->op);
	case IPROF_OP_EQ:
		return v == c->val;
	case IPROF_OP_NE:
		return v != c->val;
	case IPROF_OP_AND:
		return (v & c->val) != 0;
	case IPROF_OP_LT:
		return c->is_signed ? sv < sc : v < c->val;
	case IPROF_OP_LE:
		return c->is_signed ? sv <= sc : v <= c->val;
	case IPROF_OP_GT:
		return c->is_signed ? sv > sc : v > c->val;
	case IPROF_OP_GE:
		return c->is_signed ? sv >= sc : v >= c->val;
	}
	return 0;
}

/*
 * A value narrowed to its condition's type: iprof_cond.size low bytes,
 * sign- or zero-extended as is_signed says; size 8 keeps it whole.  For a
 * function argument (argN:TYPE) this drops the undefined upper bits of a
 * register holding a narrower type (x86-64 SysV ABI).
 */
static __always_inline __u64 narrow(const struct iprof_cond *c, __u64 v)
{
	switch (c->size) {
	case 1:
		return c->is_signed ? (__u64)(__s64)(__s8)v : (__u64)(__u8)v;
	case 2:
		return c->is_signed ? (__u64)(__s64)(__s16)v : (__u64)(__u16)v;
	case 4:
		return c->is_signed ? (__u64)(__s64)(__s32)v : (__u64)(__u32)v;
	}
	return v;
}

/* the verifier wants the offset into the record bounded: a tracepoint's
 * fields lie in its first 4 KiB */
#define TP_FIELD_OFF_MASK 0xfff

/* Read a tracepoint field of 1, 2, 4 or 8 bytes (little endian: its bytes
 * are the low ones of v), zero-extended; tp_field() narrows it to its
 * type. */
static __always_inline __u64 tp_read(void *ctx, __u16 off, __u8 size)
{
	void *p = (char *)ctx + (off & TP_FIELD_OFF_MASK);
	__u64 v = 0;

	switch (size) {
	case 1:
		bpf_probe_read_kernel(&v, 1, p);
		break;
	case 2:
		bpf_probe_read_kernel(&v, 2, p);
		break;
	case 4:
		bpf_probe_read_kernel(&v, 4, p);
		break;
	default:
		bpf_probe_read_kernel(&v, 8, p);
		break;
	}
	return v;
}

static __always_inline __u64 tp_field(void *ctx, const struct iprof_cond *c)
{
	return narrow(c, tp_read(ctx, c->off, c->size));
}

/*
 * Function argument @n (0-based) from pt_regs: kprobes and uprobes.  Read
 * with bpf_probe_read_kernel(): the verifier refuses a ctx load at an offset
 * the compiler computed from @n.  x86-64 SysV ABI: rdi rsi rdx rcx r8 r9.
 */
static const __u16 regs_arg_off[6] = {
	__builtin_offsetof(struct pt_regs, __PT_PARM1_REG),
	__builtin_offsetof(struct pt_regs, __PT_PARM2_REG),
	__builtin_offsetof(struct pt_regs, __PT_PARM3_REG),
	__builtin_offsetof(struct pt_regs, __PT_PARM4_REG),
	__builtin_offsetof(struct pt_regs, __PT_PARM5_REG),
	__builtin_offsetof(struct pt_regs, r9),
};

static __always_inline __u64 regs_arg(struct pt_regs *regs, __u16 n)
{
	__u64 v = 0;

	/* an argument past the sixth (the plan refuses them) reads r9 */
	bpf_probe_read_kernel(&v, sizeof(v),
			      (char *)regs + regs_arg_off[n < 5 ? n : 5]);
	return v;
}

/*
 * Emit one record.  The reader drains the ring on a short timer, so records
 * are submitted without a wakeup unless the ring fills past wakeup_bytes.
 */
static __always_inline void emit_at(struct task_state *st, __u8 type,
				    __u32 timer, __u32 depth, __u64 pid_tgid,
				    __u32 aux, __u64 ts);

static __always_inline void emit_aux(struct task_state *st, __u8 type,
				     __u32 timer, __u32 depth, __u64 pid_tgid,
				     __u32 aux)
{
	emit_at(st, type, timer, depth, pid_tgid, aux, bpf_ktime_get_ns());
}

/* emit_aux() with the record's time @ts (bpf_ktime_get_ns(), ns) */
static __always_inline void emit_at(struct task_state *st, __u8 type,
				    __u32 timer, __u32 depth, __u64 pid_tgid,
				    __u32 aux, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec *r;
	void *rb;
	__u64 q;

	/* callers check tracing_on() (act(), the sched and irq programs) */
	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		st->lost = 1;
		return;
	}
	r->type = type;
	r->flags = st->lost ? IPROF_F_RESYNC : 0;
	if (IPROF_REC_CTX(aux) &&
	    (type == IPROF_REC_START || type == IPROF_REC_STOP ||
	     type == IPROF_REC_UNWIND || type == IPROF_REC_RETURNED ||
	     type == IPROF_REC_NAMEMISS))
		r->flags |= IPROF_F_CTX; /* aux: the interrupt context */
	r->size = sizeof(*r);
	r->timer = timer;
	r->tid = (__u32)pid_tgid;
	r->tgid = pid_tgid >> 32;
	r->ts = ts;
	r->depth = depth;
	r->cpu = cpu;
	r->aux = aux;
	st->lost = 0;
	st->seen = 1;
	/*
	 * Wake the reader once, when this record takes the ring past
	 * wakeup_bytes; not on every record past it: each wakeup is a
	 * self-interrupt costing ~1 us, ten times this program (bench/).
	 * A crossing missed by concurrent producers is caught by the
	 * reader's 10 ms drain.  AVAIL_DATA counts this reserved record and
	 * its 8-byte header.
	 */
	q = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);
	if (q > wakeup_bytes && q - (sizeof(*r) + 8) <= wakeup_bytes)
		bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	else
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/*
 * emit_name() - IPROF_REC_NAME: @value names the START of @timer at @depth
 * that the caller sends next (task context only).
 */
static __always_inline void emit_name(struct task_state *st, __u32 timer,
				      __u32 depth, __u64 pid_tgid, __u64 value)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec_name *r;
	void *rb;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		st->lost = 1;
		return;
	}
	r->type = IPROF_REC_NAME;
	r->flags = st->lost ? IPROF_F_RESYNC : 0;
	r->size = sizeof(*r);
	r->timer = timer;
	r->tid = (__u32)pid_tgid;
	r->value_lo = (__u32)value;
	r->ts = bpf_ktime_get_ns();
	r->depth = depth;
	r->cpu = cpu;
	r->value_hi = value >> 32;
	st->lost = 0;
	/* the START that follows wakes the reader if need be */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/*
 * str_longer() - the string at user address @p, of which
 * bpf_probe_read_user_str() filled IPROF_NAME_STR bytes (NUL included),
 * goes on past them: its byte IPROF_NAME_STR - 1 is no NUL (a string of
 * exactly IPROF_NAME_STR - 1 bytes has it there).  0 where unreadable.
 */
static __always_inline int str_longer(__u64 p)
{
	char c = 0;

	if (bpf_probe_read_user(&c, 1, (const void *)(p + IPROF_NAME_STR - 1)))
		return 0;
	return c != 0;
}

/*
 * emit_namestr() - IPROF_REC_NAMESTR: the strings at user addresses @p0 and
 * (@nparts 2) @p1 name the START of @timer at @depth that the caller sends
 * next (task context only); one struct iprof_ring_namestr, which the
 * ring reader cuts into 32-byte records.  A string longer than
 * IPROF_NAME_STR - 1 bytes is cut there, its bit set in head.cut.
 */
static __always_inline void emit_namestr(struct task_state *st, __u32 timer,
					 __u32 depth, __u64 pid_tgid,
					 __u32 nparts, __u64 p0, __u64 p1)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_ring_namestr *r;
	void *rb;
	long n;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		st->lost = 1;
		return;
	}
	r->head.type = IPROF_REC_NAMESTR;
	r->head.flags = st->lost ? IPROF_F_RESYNC : 0;
	r->head.size = sizeof(r->head);
	r->head.timer = timer;
	r->head.tid = (__u32)pid_tgid;
	r->head.nparts = nparts == 2 ? 2 : 1;
	r->head.cut = 0;
	r->head.pad2 = 0;
	r->head.ts = bpf_ktime_get_ns();
	r->head.depth = depth;
	r->head.cpu = cpu;
	n = bpf_probe_read_user_str(r->text[0], IPROF_NAME_STR,
				    (const void *)p0);
	r->head.len[0] = n > 0 ? n - 1 : IPROF_NAME_FAULT;
	r->head.len[1] = 0;
	if (n == IPROF_NAME_STR && str_longer(p0))
		r->head.cut |= 1;
	if (nparts == 2) {
		n = bpf_probe_read_user_str(r->text[1], IPROF_NAME_STR,
					    (const void *)p1);
		r->head.len[1] = n > 0 ? n - 1 : IPROF_NAME_FAULT;
		if (n == IPROF_NAME_STR && str_longer(p1))
			r->head.cut |= 2;
	}
	st->lost = 0;
	/* the START that follows wakes the reader if need be */
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/*
 * emit() as a global function, for loops that emit: the verifier checks
 * it once instead of at each turn of each loop that calls it (an exec
 * closing 128 frames, a hit closing 16 left frames).  Returns 0.
 */
__noinline int emit_g(struct task_state *st, __u32 type, __u32 timer,
		      __u32 depth, __u64 pid_tgid)
{
	if (st)
		emit_aux(st, (__u8)type, timer, depth, pid_tgid, 0);
	return 0;
}

/* --slowest: the loader sets it; starts send their arguments and stops
 * their return values (IPROF_REC_ARGS, IPROF_REC_RETVAL) */
const volatile __u32 slow_args = 0;

/*
 * One IPROF_REC_ARGS or IPROF_REC_RETVAL record of the thread (@pair: the
 * ARGS pair, 0..2), values @v0 and @v1, time @ts.  It leaves st->lost as
 * it was (and sets it on a loss), so that the START or STOP that follows
 * carries IPROF_F_RESYNC; no wakeup: that record's check does it.
 */
static __always_inline void emit_val(struct task_state *st, __u8 type,
				     __u8 pair, __u64 pid_tgid, __u64 v0,
				     __u64 v1, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec_val *r;
	void *rb;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		st->lost = 1;
		return;
	}
	r->type = type;
	r->flags = (st->lost ? IPROF_F_RESYNC : 0) |
		   (__u8)(pair << IPROF_VAL_PAIR_SHIFT);
	r->size = sizeof(*r);
	r->lo0 = (__u32)v0;
	r->tid = (__u32)pid_tgid;
	r->hi0 = v0 >> 32;
	r->ts = ts;
	r->lo1 = (__u32)v1;
	r->hi1 = v1 >> 32;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* The thread's name, before its first START and its first START after a
 * rename (for --by comm). */
static __always_inline void emit_comm(struct task_state *st, __u64 pid_tgid)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec_comm *r;
	void *rb;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		st->lost = 1;
		return;
	}
	st->renamed = 0;
	r->type = IPROF_REC_COMM;
	r->flags = 0;
	r->size = sizeof(*r);
	r->timer = 0;
	r->tid = (__u32)pid_tgid;
	r->tgid = pid_tgid >> 32;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void emit(struct task_state *st, __u8 type, __u32 timer,
				 __u32 depth, __u64 pid_tgid)
{
	emit_aux(st, type, timer, depth, pid_tgid, 0);
}

/*
 * Interrupt state of each CPU, kept by the irq programs of iprof.bpf.c
 * (irq_handler_*, softirq_*, x86 irq_vectors:*_entry/exit): in a hardirq,
 * in a softirq (1 or 0 each).  Interrupts without tracepoints (NMIs, some
 * vectors) are not seen: their hits count as the interrupted context.
 * (The preempt count is not used: __preempt_count is not in kallsyms on
 * every kernel, and a tracepoint's common_flags are overwritten by a
 * pt_regs pointer for syscall tracepoints.)
 */
struct irq_depth {
	__u32 hard;
	__u32 soft;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_depth);
} irqctx SEC(".maps");

static __always_inline __u32 cur_ctx(void)
{
	__u32 zero = 0;
	struct irq_depth *d = bpf_map_lookup_elem(&irqctx, &zero);

	if (!d)
		return IPROF_CTX_TASK;
	if (d->hard)
		return IPROF_CTX_HARDIRQ;
	if (d->soft)
		return IPROF_CTX_SOFTIRQ;
	return IPROF_CTX_TASK;
}

/*
 * The stack of open timers of where the probe fired: the current thread's
 * task storage, or in interrupt context the CPU's state for that context
 * (an interrupt never nests into the thread it interrupted).
 */
static __always_inline struct task_state *state_get(__u32 ctx, int create)
{
	if (ctx == IPROF_CTX_TASK)
		return bpf_task_storage_get(&tstate, bpf_get_current_task_btf(),
					    0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE :
						     0);
	return bpf_map_lookup_elem(&cstate, &ctx);
}

/*
 * Kernel stacks are THREAD_SIZE bytes and aligned to it (16 KiB on x86-64
 * without KASAN: arch/x86/include/asm/page_64_types.h; vmap stacks are
 * allocated THREAD_ALIGN-aligned in kernel/fork.c), so two stack pointers
 * are on the same stack if they share this block.  With bigger stacks
 * (KASAN) some pairs fail the test: a missed return is then not detected,
 * never invented.
 */
#define IPROF_KSTACK_SHIFT 14

/* What a probe hit knows of the kernel stack (drop_returned()). */
enum stack_view {
	SV_KPROBE = 0, /* a kprobe at a function entry: its stack pointer */
	SV_USER, /* a uprobe: the thread runs in user mode */
	SV_OTHER, /* fentry, a tracepoint: only the syscall count */
	/* a kprobe inside a function (an inlined instance's): the stack
	 * pointer of that function's entry (its frame) */
	SV_KSITE,
};

/*
 * Has frame @i (a kprobe frame: sp[i] != 0) returned, seen from a probe hit
 * in context @ctx, at kernel stack pointer @sp for SV_KPROBE?
 *  - SV_USER: yes, a thread in user mode has an empty kernel stack.
 *  - Entered in an earlier syscall of the thread (kseq): yes, for the same
 *    reason.  Syscalls start their stack at a random offset
 *    (CONFIG_RANDOMIZE_KSTACK_OFFSET), so stack pointers of two syscalls
 *    cannot be compared.
 *  - SV_KPROBE, within one syscall, exception, kernel thread or interrupt:
 *    the stack grows down, so a call made inside the frame has a lower
 *    sp, and a hit above it (@sp > sp[i]) comes after its return.  A hit
 *    at the same sp is a new call from the same caller, unless the frame
 *    tail-called this function (jmp): then the return address slot at
 *    @sp holds the kretprobe trampoline that the frame's own kretprobe put
 *    there (arch_rethook_prepare()).  The new call's own kretprobe has not
 *    replaced it yet: the loader attaches each kretprobe before its
 *    kprobe, and kprobes on one address run newest first.  Trampoline
 *    unknown: an equal sp counts as a tail call (nothing closed).
 *  - SV_KSITE: as SV_KPROBE, but a hit at the same sp is inside the
 *    frame's own function (an inlined instance's probe): still open.
 * A frame that is open across the sys_enter tracepoint would be taken for
 * returned: the functions that run it are on ksym_denied()'s list.
 */
static __always_inline int frame_returned(const struct task_state *st,
					  __u32 i, __u64 sp, __u32 ctx,
					  int view)
{
	__u64 fsp = st->sp[i & (IPROF_MAX_DEPTH - 1)], slot = 0;

	if (!fsp)
		return 0;
	if (ctx == IPROF_CTX_TASK &&
	    (view == SV_USER ||
	     st->kseq[i & (IPROF_MAX_DEPTH - 1)] != st->kentry))
		return 1;
	if ((view != SV_KPROBE && view != SV_KSITE) || fsp > sp ||
	    fsp >> IPROF_KSTACK_SHIFT != sp >> IPROF_KSTACK_SHIFT)
		return 0;
	if (fsp < sp)
		return 1;
	if (view == SV_KSITE)
		return 0; /* in the same function's frame: still open */
	if (!rethook_tramp)
		return 0;
	bpf_probe_read_kernel(&slot, sizeof(slot), (void *)sp);
	return slot != rethook_tramp;
}

/*
 * At a probe hit, before its conditions: close the top frames of the
 * thread (or interrupt context @ctx) that returned without their return
 * probe firing (a kretprobe has maxactive instances; a call made while
 * all are in use gets no return probe), so that what follows does not
 * nest under calls that are over, and a filtered call's return
 * (IPROF_A_TOP_ONLY) does not close one.  At most 4 per hit, each sent
 * as IPROF_REC_RETURNED.  Only kprobe frames have a stack pointer: a
 * no-op unless the plan has kprobe timers (has_kprobes).
 */
/* a bounded loop for the verifier; more returned frames wait for the
 * next hit */
#define RETURNED_PER_HIT 4

static __always_inline void drop_returned(__u32 ctx, __u64 sp, int view,
					  __u64 pid_tgid)
{
	struct task_state *st;
	__u32 d;
	int k;

	if (!has_kprobes || !tracing_on())
		return;
	st = state_get(ctx, 0);
	if (!st || st->over)
		return;
	d = st->depth;
	for (k = 0; k < RETURNED_PER_HIT; k++) {
		if (!d)
			break;
		if (!frame_returned(st, d - 1, sp, ctx, view))
			break;
		emit_aux(st, IPROF_REC_RETURNED,
			 st->timers[(d - 1) & (IPROF_MAX_DEPTH - 1)], d,
			 ctx ? 0 : pid_tgid, ctx);
		d--;
	}
	st->depth = d;
}

/*
 * The innermost open frame of @timer in @st below depth @d, as its depth
 * (position + 1), or 0 if none.  @usp as for timer_stop() (0: any frame).
 * A global function: the verifier checks its loop over IPROF_MAX_DEPTH
 * frames once, not at each of the up to IPROF_MAX_CHAIN actions of each
 * program that inline a stop (a million instructions otherwise).
 */
__noinline int frame_find(struct task_state *st, __u32 d, __u32 timer,
			  __u64 usp)
{
	__u32 i, j;

	if (!st)
		return 0;
	for (i = 0; i < IPROF_MAX_DEPTH; i++) {
		if (i >= d)
			break;
		j = (d - 1 - i) & (IPROF_MAX_DEPTH - 1);
		if (st->timers[j] != timer)
			continue;
		/* another call's frame; with @usp, one that has none (a
		 * kernel function's out-of-line frame for an inlined
		 * instance's stop) too */
		if (usp && (st->usp[j] & ~1ull) != usp)
			continue;
		return (int)(d - i);
	}
	return 0;
}

/*
 * The innermost open frame of @timer in @st below depth @d whose name's
 * key is @key (fname[]), as its depth, or 0 if none: where a stop that
 * names its call (IPROF_AX_STOPNAME) closes.  Global, as frame_find().
 */
__noinline int frame_find_key(struct task_state *st, __u32 d, __u32 timer,
			      __u64 key)
{
	__u32 i, j;

	if (!st)
		return 0;
	for (i = 0; i < IPROF_MAX_DEPTH; i++) {
		if (i >= d)
			break;
		j = (d - 1 - i) & (IPROF_MAX_DEPTH - 1);
		if (st->timers[j] == timer && st->fname[j] == key)
			return (int)(d - i);
	}
	return 0;
}

/*
 * Open @a's timer on the thread (or interrupt context @ctx).  @sp: the
 * kernel stack pointer at a kprobe's function entry, else 0 (kept for
 * drop_returned(), which the probe program calls first).  @usp: the user
 * stack pointer at a uprobe's function entry, else 0 (kept for
 * drop_left() and the stop's match).  @spans: 0 if @a is known not to be
 * a span's start (IPROF_A_NO_REENTER unset), which spares the verifier a
 * loop (constant at each call site).  @nofork: 1 for a frame a child
 * does not inherit at fork (kept in nofork[]).
 */
static __always_inline void timer_start(const struct iprof_action *a,
					__u64 pid_tgid, __u32 ctx, __u64 sp,
					__u64 usp, int spans, int nofork,
					const __u64 *args)
{
	struct task_state *st;
	__u32 d;

	st = state_get(ctx, 1);
	if (!st) {
		count(IPROF_CNT_NO_STORAGE);
		return;
	}
	d = st->depth;
	if (spans && a->flags & IPROF_A_NO_REENTER &&
	    frame_find(st, d, a->timer, 0))
		return;
	if (a->flags & IPROF_A_HIT || st->sess_hit) {
		/* counted where it is called, no frame (IPROF_REC_HIT); past
		 * IPROF_MAX_DEPTH its caller's frame was never sent */
		if (st->over) {
			count(IPROF_CNT_DEPTH_OVERFLOW);
			return;
		}
		if ((!st->seen || st->renamed) && ctx == IPROF_CTX_TASK)
			emit_comm(st, pid_tgid);
		emit_aux(st, IPROF_REC_HIT, a->timer, d, ctx ? 0 : pid_tgid,
			 ctx);
		return;
	}
	if (d >= IPROF_MAX_DEPTH) {
		st->over++;
		count(IPROF_CNT_DEPTH_OVERFLOW);
		return;
	}
	if ((!st->seen || st->renamed) && ctx == IPROF_CTX_TASK)
		emit_comm(st, pid_tgid);
	/* keep the mask: after the check above clang knows d < 128 and
	 * may drop it, and the 6.1 verifier then rejects the store */
	barrier_var(d);
	st->timers[d & (IPROF_MAX_DEPTH - 1)] = a->timer;
	st->sp[d & (IPROF_MAX_DEPTH - 1)] = sp;
	st->kseq[d & (IPROF_MAX_DEPTH - 1)] = st->kentry;
	st->usp[d & (IPROF_MAX_DEPTH - 1)] =
		usp ? (usp & ~1ull) | !!(a->flags & IPROF_A_RETSITES) : 0;
	st->nofork[d & (IPROF_MAX_DEPTH - 1)] = nofork;
	st->stk[d & (IPROF_MAX_DEPTH - 1)] = st->stk_cur;
	st->fname[d & (IPROF_MAX_DEPTH - 1)] =
		st->name_for == a->timer + 1 ? st->name_key : 0;
	st->depth = d + 1;
	if (args && ctx == IPROF_CTX_TASK) {
		/* before the START, whose time is read after them: the
		 * call's time does not include them */
		__u64 ts = bpf_ktime_get_ns();

		emit_val(st, IPROF_REC_ARGS, 0, pid_tgid, args[0], args[1], ts);
		emit_val(st, IPROF_REC_ARGS, 1, pid_tgid, args[2], args[3], ts);
		emit_val(st, IPROF_REC_ARGS, 2, pid_tgid, args[4], args[5], ts);
	}
	if (st->name_for == a->timer + 1 && ctx == IPROF_CTX_TASK) {
		if (st->name_parts)
			emit_namestr(st, a->timer, d + 1, pid_tgid,
				     st->name_parts, st->name_val,
				     st->name_val2);
		else
			emit_name(st, a->timer, d + 1, pid_tgid, st->name_val);
	}
	st->name_for = 0;
	/* aux: the context, the probe class that fired (ABI 11) and a
	 * split entry's gap (ABI 15), sent with the first start of its
	 * chain only */
	emit_aux(st, IPROF_REC_START, a->timer, d + 1, ctx ? 0 : pid_tgid,
		 ctx | (__u32)a->pclass << 8 | (st->gap & IPROF_GAP_MAX) << 16);
	st->gap = 0;
}

static __always_inline void orphan(const struct iprof_action *a, __u32 tgid)
{
	__u64 *c;

	if (a->flags & IPROF_A_UNMATCHED_OK || !is_target(tgid))
		return;
	c = bpf_map_lookup_elem(&orphans, &a->timer);
	if (c)
		__sync_fetch_and_add(c, 1);
}

/* two user stack pointers this close are on one stack (see drop_left()) */
#define IPROF_USTACK_GAP (64ull << 10)

/*
 * Frames past IPROF_MAX_DEPTH (st->over, never emitted) are deeper than
 * the top frame: a user stop at @usp, on the top frame's stack (within
 * IPROF_USTACK_GAP) at or above its slot, shows them all left.
 */
static __always_inline int over_left(const struct task_state *st, __u32 d,
				     __u64 usp)
{
	__u64 u = st->usp[(d - 1) & (IPROF_MAX_DEPTH - 1)], a, t;

	if (!u || st->stk[(d - 1) & (IPROF_MAX_DEPTH - 1)] != st->stk_cur)
		return 0; /* a kernel frame, or on a stack left: nothing to
			   * compare */
	a = IPROF_USP_ADDR(usp);
	t = IPROF_USP_ADDR(u);
	return a >= t && a - t <= IPROF_USTACK_GAP;
}

/*
 * Close the innermost open frame of @a's timer.  @usp: for a stop at a
 * return site, the user stack pointer there (for a uretprobe, the slot it
 * returned from), else 0: a user function's frame is then stopped only at
 * its own entry stack pointer (a ret pops the return address the entry
 * saw), so the return of a call whose entry was not traced (filtered,
 * before tracing began), of a frame on another stack (coroutines), or of
 * an outer call while deeper ones of the same function got no uretprobe,
 * never closes the wrong frame.
 */
static __always_inline void timer_stop(const struct iprof_action *a,
				       __u64 pid_tgid, __u32 ctx, __u64 usp,
				       const __u64 *ret)
{
	__u32 d, found, stopno = IPROF_AX_STOPNO(a->xflags);
	struct task_state *st;

	st = state_get(ctx, 0);
	if (!st || !st->depth) {
		orphan(a, pid_tgid >> 32);
		return;
	}
	d = st->depth;
	if (st->over) {
		/* at return sites stops come in LIFO order: this one closes
		 * a frame that was never emitted (counted as depth_overflow
		 * at its start), deeper than the top one.  A user stop at or
		 * above the top frame's slot (a uretprobe: the kernel gives
		 * none to calls past 64 nested, so deeper calls returned
		 * without a stop) shows every deeper frame left */
		if (!usp || !over_left(st, d, usp)) {
			st->over--;
			return;
		}
		st->over = 0;
	}
	if (a->flags & IPROF_A_TOP_ONLY &&
	    st->timers[(d - 1) & (IPROF_MAX_DEPTH - 1)] != a->timer)
		return; /* the return of a call whose entry was filtered out */
	found = (__u32)frame_find(st, d, a->timer, usp);
	if (!found || found > d) {
		orphan(a, pid_tgid >> 32);
		return;
	}
	if (a->xflags & IPROF_AX_STOPNAME &&
	    st->fname[(found - 1) & (IPROF_MAX_DEPTH - 1)] != st->skey) {
		/* the stop names another call than the innermost open one:
		 * the innermost of its name, or none (counted on the
		 * innermost's node, left open) */
		d = (__u32)frame_find_key(st, found - 1, a->timer, st->skey);
		if (!d || d >= found) {
			emit_aux(st, IPROF_REC_NAMEMISS, a->timer, found,
				 ctx ? 0 : pid_tgid,
				 ctx | (__u32)a->pclass << 8 | stopno << 16);
			return;
		}
		found = d;
	}
	st->depth = found - 1;
	if (ret && ctx == IPROF_CTX_TASK) {
		/* the return value, then the STOP at the same time: the
		 * call's time does not include it */
		__u64 ts = bpf_ktime_get_ns();

		emit_val(st, IPROF_REC_RETVAL, 0, pid_tgid, *ret,
			 found | (__u64)a->timer << 32, ts);
		emit_at(st, IPROF_REC_STOP, a->timer, found, pid_tgid,
			(__u32)a->pclass << 8 | stopno << 16, ts);
		return;
	}
	emit_aux(st, IPROF_REC_STOP, a->timer, found, ctx ? 0 : pid_tgid,
		 ctx | (__u32)a->pclass << 8 | stopno << 16);
}

/*
 * Keyed spans (IPROF_A_KEYED): started and stopped by a key read from the
 * tracepoint (a request, a work item, a pid), wherever each side runs.
 * The start keeps its side in `kspans` until a stop with the same key
 * takes it out; the records name the starting side (struct
 * iprof_rec_key), so the stop's record goes where the start's went.
 * Size: --span-keys (the loader resizes max_entries); preallocated, so
 * an update from an interrupt never allocates.  A start that finds the
 * map full is counted per timer in `kfull` and sends nothing.
 */
struct kspan_val {
	__u64 ts; /* the start's timestamp, ns */
	__u32 tid, tgid; /* starting thread (0, 0 in interrupt context) */
	__u32 id; /* span number */
	__u16 ctx, cpu; /* starting side's enum iprof_ctx and CPU */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* resized by the loader: --span-keys */
	__type(key, struct iprof_kkey);
	__type(value, struct kspan_val);
} kspans SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized by the loader: one per timer */
	__type(key, __u32);
	__type(value, __u64);
} kfull SEC(".maps");

/* the span numbers: one counter for all CPUs */
__u64 kspan_seq = 0;

/* One key value: a tracepoint field's bytes, zero-extended, or a
 * pseudo-field. */
static __always_inline __u64 key_value(void *ctx, const struct iprof_keyf *f,
				       __u64 pid_tgid)
{
	switch (f->src) {
	case IPROF_KEY_PID:
		return pid_tgid >> 32;
	case IPROF_KEY_TID:
		return (__u32)pid_tgid;
	case IPROF_KEY_CPU:
		return bpf_get_smp_processor_id();
	}
	return tp_read(ctx, f->off, f->size);
}

static __always_inline void key_of(void *ctx, const struct iprof_action *a,
				   __u64 pid_tgid, struct iprof_kkey *k)
{
	int i;

	k->timer = a->timer;
	k->pad = 0;
	for (i = 0; i < IPROF_MAX_KEY; i++)
		k->v[i] = i < a->nkey ? key_value(ctx, &a->key[i], pid_tgid) : 0;
}

/* Send keyed-span record @type for span @v of @timer, at @ts. */
static __always_inline void emit_key(__u8 type, __u32 timer,
				     const struct kspan_val *v, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec_key *r;
	void *rb;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		/* the thread's frames are not touched: no resync */
		count(IPROF_CNT_RB_DROP);
		return;
	}
	r->type = type;
	r->flags = 0;
	r->size = sizeof(*r);
	r->timer = timer;
	r->tid = v->tid;
	r->tgid = v->tgid;
	r->ts = ts;
	r->ctx = v->ctx;
	r->cpu = v->cpu;
	r->id = v->id;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/*
 * A keyed span's start: a start with a live key replaces the older span
 * (sent as IPROF_REC_KREPLACED).  The thread's name goes first, as a
 * frame's start sends it (--by comm).
 */
static __always_inline void key_start(void *ctx, const struct iprof_action *a,
				      __u64 pid_tgid, __u32 cx)
{
	struct kspan_val v = {}, old;
	struct iprof_kkey k;
	struct kspan_val *o;
	struct task_state *st;
	__u64 *c;
	int had;
	long ret;

	key_of(ctx, a, pid_tgid, &k);
	if (cx == IPROF_CTX_TASK) {
		v.tid = (__u32)pid_tgid;
		v.tgid = pid_tgid >> 32;
		st = state_get(IPROF_CTX_TASK, 1);
		if (st && (!st->seen || st->renamed)) {
			emit_comm(st, pid_tgid);
			st->seen = 1;
		}
	}
	v.ctx = cx;
	v.cpu = bpf_get_smp_processor_id();
	v.id = (__u32)__sync_fetch_and_add(&kspan_seq, 1);
	v.ts = bpf_ktime_get_ns();
	/*
	 * A new key first (BPF_NOEXIST): of two starts of one key at once
	 * on two CPUs one gets it, the other finds it live and replaces
	 * it, so that the first is not overwritten uncounted.  (A replace
	 * racing a stop or a third start of the same key can still copy a
	 * span that is gone: a key should name one thing in flight.)
	 */
	had = 0;
	ret = bpf_map_update_elem(&kspans, &k, &v, BPF_NOEXIST);
	if (ret == -17 /* EEXIST: a live key */) {
		o = bpf_map_lookup_elem(&kspans, &k);
		had = o != NULL;
		if (o)
			old = *o;
		ret = bpf_map_update_elem(&kspans, &k, &v, BPF_ANY);
	}
	if (ret) {
		/* E2BIG: full (or ENOMEM, EBUSY: not kept either) */
		count(IPROF_CNT_KEY_FULL);
		c = bpf_map_lookup_elem(&kfull, &a->timer);
		if (c)
			__sync_fetch_and_add(c, 1);
		return;
	}
	/* stamped after the update: later than the older span's start,
	 * whose program may still be between its own update and its
	 * KSTART (user space holds a drop that comes first: agg.c) */
	if (had)
		emit_key(IPROF_REC_KREPLACED, a->timer, &old,
			 bpf_ktime_get_ns());
	emit_key(IPROF_REC_KSTART, a->timer, &v, v.ts);
}

/* --slowest: part @part (IPROF_KI_*) of span @v's IPROF_REC_KINFO, value
 * @x, at @ts (its KSTOP's) */
static __always_inline void emit_kinfo(__u32 part, __u64 x,
				       const struct kspan_val *v, __u64 ts)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iprof_rec_key *r;
	void *rb;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : NULL;
	if (!r) {
		count(IPROF_CNT_RB_DROP);
		return;
	}
	r->type = IPROF_REC_KINFO;
	r->flags = (__u8)(part << IPROF_VAL_PAIR_SHIFT);
	r->size = sizeof(*r);
	r->timer = (__u32)x;
	r->tid = v->tid;
	r->tgid = (__u32)(x >> 32);
	r->ts = ts;
	r->ctx = v->ctx;
	r->cpu = v->cpu;
	r->id = v->id;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/*
 * --slowest (slow_args): what a kept keyed span shows, sent by its stop
 * before its KSTOP: its key values (@nkey of @k), the stopping side (@cx,
 * @pid_tgid) and, in a task, its comm.
 */
static __always_inline void key_info(const struct iprof_kkey *k, __u32 nkey,
				     const struct kspan_val *v, __u64 pid_tgid,
				     __u32 cx, __u64 ts)
{
	char comm[IPROF_COMM_LEN] = {};
	__u64 c0, c1;
	int i;

	for (i = 0; i < IPROF_MAX_KEY; i++)
		if (i < nkey)
			emit_kinfo(IPROF_KI_KEY + i, k->v[i], v, ts);
	emit_kinfo(IPROF_KI_BY, cx == IPROF_CTX_TASK ? pid_tgid : 0, v, ts);
	emit_kinfo(IPROF_KI_CTX, cx | (__u64)bpf_get_smp_processor_id() << 32,
		   v, ts);
	if (cx != IPROF_CTX_TASK)
		return;
	bpf_get_current_comm(comm, sizeof(comm));
	__builtin_memcpy(&c0, comm, 8);
	__builtin_memcpy(&c1, comm + 8, 8);
	emit_kinfo(IPROF_KI_COMM, c0, v, ts);
	emit_kinfo(IPROF_KI_COMM + 1, c1, v, ts);
}

/* A keyed span's stop: only the one that takes the key out sends it. */
static __always_inline void key_stop(void *ctx, const struct iprof_action *a,
				     __u64 pid_tgid, __u32 cx)
{
	struct iprof_kkey k;
	struct kspan_val *o, v;
	__u64 ts;

	key_of(ctx, a, pid_tgid, &k);
	o = bpf_map_lookup_elem(&kspans, &k);
	if (!o)
		return; /* not started while traced, or started elsewhere */
	v = *o;
	if (bpf_map_delete_elem(&kspans, &k))
		return; /* another stop (or the loader's expiry) took it */
	ts = bpf_ktime_get_ns();
	if (slow_args)
		key_info(&k, a->nkey, &v, pid_tgid, cx, ts);
	emit_key(IPROF_REC_KSTOP, a->timer, &v, ts);
}

/* Run keyed action @a on tracepoint record @ctx (tracing_on() checked). */
static __always_inline void act_keyed(void *ctx, const struct iprof_action *a,
				      __u64 pid_tgid, __u32 cx)
{
	if (a->role == IPROF_ROLE_START)
		key_start(ctx, a, pid_tgid, cx);
	else if (a->role == IPROF_ROLE_STOP)
		key_stop(ctx, a, pid_tgid, cx);
}

/* Where a chain runs: a tracepoint's, a syscall's (both may hold keyed
 * spans), a user function's probe, a kernel function's.  A child inherits
 * the frames of a syscall's or a user function's (it returns from them),
 * not a tracepoint span's (its start and stop are events of the parent
 * thread; the child's own events start its own) nor a kernel function's
 * (it leaves the kernel by ret_from_fork). */
enum chain_from {
	FROM_TP = 0,
	FROM_SYSCALL,
	FROM_USER,
	FROM_KERNEL,
	/* a USDT probe's (usdt_hit): an event of the thread, as a
	 * tracepoint's; its arguments read by bpf_usdt_arg() */
	FROM_USDT,
};

/* Run action @a; @sp and @usp as for timer_start() (@usp for a stop: as
 * for timer_stop()); @from: enum chain_from. */
/* @args: NULL or the call's IPROF_NARGS arguments (for a start); @ret:
 * NULL or its return value (for a stop): --slowest (slow_args) only */
static __always_inline void act(const struct iprof_action *a, __u64 pid_tgid,
				__u32 ctx, __u64 sp, __u64 usp, int from,
				const __u64 *args, const __u64 *ret)
{
	int point = a->xflags & IPROF_AX_POINT;

	if (!tracing_on())
		return;
	/* a span's side at a user function: a point, no frame of its own */
	if (point)
		usp = 0;
	/* an inlined instance's frame: its caller's, with its number */
	if (usp && a->inst)
		usp |= (__u64)a->inst << IPROF_USP_INST_SHIFT;
	if (a->role == IPROF_ROLE_START)
		timer_start(a, pid_tgid, ctx, sp, usp, 1,
			    from == FROM_KERNEL || from == FROM_TP ||
				    from == FROM_USDT || point,
			    args);
	else if (a->role == IPROF_ROLE_STOP)
		timer_stop(a, pid_tgid, ctx, usp, ret);
}

/*
 * User frames checked against the stack.  A frame of a user function
 * keeps the user stack pointer of its entry (usp[]: the address of its
 * return address).  The stack grows down, so while the call runs every
 * user-mode probe hit of the thread on that stack has a lower stack
 * pointer; one above it comes after the frame was left (longjmp, a C++
 * exception, a stack unwound: no return site or uretprobe fired).
 *
 * Stacks: a thread may run on several (swapcontext coroutines, sigaltstack
 * signal handlers, green threads), and two stack pointers of different
 * stacks say nothing about each other.  A switch by libc's swapcontext or
 * setcontext is told by the switch itself (ctx_switch(): each frame keeps
 * the stack it was opened on, stk[]): a hit on another stack than the top
 * frame's closes nothing, whatever the distance.  Else (a switch by hand-
 * written code, Go's) iprof takes two stack pointers as
 * on one stack when they are less than IPROF_USTACK_GAP apart; a hit
 * farther from the top frame's entry is on another stack and closes
 * nothing: the walk stops there.  So a switch to a coroutine never closes
 * the frames of the stack it left, and their returns (matched by stack
 * pointer, timer_stop()) close them when it switches back.  The price: a
 * longjmp or throw over more than IPROF_USTACK_GAP of stack leaves its
 * frames open (stopped later as unwound under an outer frame's stop, or
 * closed at thread exit), and two coroutine stacks closer than that are
 * taken for one.  (IPROF_USTACK_GAP is defined above, with over_left().)
 */

/* What a user-mode hit is (drop_left()). */
enum left_view {
	LV_ENTRY = 0, /* a function entry: sp at the new call's return address */
	LV_RETSITE, /* a ret or tail-call jmp: sp at the frame's own slot */
	LV_URETPROBE, /* after a return: sp 8 bytes above the frame's slot */
};

/* most frames one hit closes: a bounded loop for the verifier, as deep
 * as the stack of frames (a longjmp out of 50 nested calls closes them
 * all before the next call nests under them) */
#define LEFT_PER_HIT IPROF_MAX_DEPTH

/*
 * Whether the user stack slot at @sp (a function entry's: it holds the new
 * call's return address) was reused since a frame timed by a uretprobe was
 * entered at it: 1 if it holds anything but the uretprobe trampoline
 * (which the kernel put there at that entry, and which a tail call from
 * that frame keeps), 0 if it holds the trampoline or cannot be read.  So
 * a call from the slot a longjmp skipped closes the frame left there; a
 * tail call does not.  (A frame past the kernel's 64 nested uretprobes got
 * none, and its tail call is taken for a new call: closed as unwound.)
 */
static __always_inline int slot_reused(__u64 sp)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 ra, tramp;

	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)sp))
		return 0;
	tramp = BPF_CORE_READ(t, mm, uprobes_state.xol_area, vaddr);
	return ra != tramp;
}

/*
 * At a user-mode probe hit at user stack pointer @sp: close the top frames
 * of the thread that the stack shows were left, each sent as
 * IPROF_REC_LEFT (user space counts them as unwound, untimed): a user
 * frame on the same stack (see IPROF_USTACK_GAP) whose entry slot is
 * below @sp, or, at a function entry, at @sp: a frame that ends at return
 * sites (one that left by a return site was stopped there; a tail call
 * has a return site of its own), or one timed by a uretprobe whose slot
 * no longer holds the trampoline (slot_reused(): a longjmp left it, and
 * the slot's new call is this one; a tail call from it keeps the
 * trampoline there and the frame open).  Stops at the first frame that
 * was not left, or not a user frame.  A global function: the verifier
 * checks its loop once, and the program goes on from one state instead
 * of one per turn the loop may end at.
 */
__noinline int drop_left(__u64 sp, int view, __u64 pid_tgid)
{
	struct task_state *st;
	__u64 u, top = sp;
	__u32 d, j;
	int k, reused = -1;

	if (!sp || !tracing_on())
		return 0;
	st = state_get(IPROF_CTX_TASK, 0);
	if (!st)
		return 0;
	if (view == LV_URETPROBE)
		top = sp - 8; /* the returning frame's own slot */
	d = st->depth;
	for (k = 0; k < LEFT_PER_HIT; k++) {
		if (!d)
			break;
		j = (d - 1) & (IPROF_MAX_DEPTH - 1);
		u = st->usp[j];
		if (!u)
			break; /* not a user function's frame */
		if (st->stk[j] != st->stk_cur)
			break; /* opened on a stack the thread switched from */
		if (top - IPROF_USP_ADDR(u) > IPROF_USTACK_GAP &&
		    IPROF_USP_ADDR(u) - top > IPROF_USTACK_GAP)
			break; /* another stack */
		if (IPROF_USP_ADDR(u) != top || view != LV_ENTRY) {
			if (IPROF_USP_ADDR(u) >= top)
				break;
		} else if (!(u & 1)) {
			if (reused < 0)
				reused = slot_reused(top);
			if (!reused)
				break;
		}
		/* the top frame left: so were the deeper ones past
		 * IPROF_MAX_DEPTH (st->over), never emitted */
		st->over = 0;
		emit_g(st, IPROF_REC_LEFT, st->timers[j], d, pid_tgid);
		d--;
	}
	st->depth = d;
	return 0;
}

#endif /* IPROF_BPF_H */
