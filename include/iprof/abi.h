/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iprof record ABI: the one contract between the BPF programs (bpf/) and
 * user space (src/).  This header includes nothing and uses fixed-width
 * fields only, so the same bytes are seen by clang -target bpf and by the
 * host compiler.  Any change to a layout bumps IPROF_ABI_VERSION.
 *
 * Clock: every timestamp is bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC in ns
 * (see bpf-helpers(7)); user space compares it with
 * clock_gettime(CLOCK_MONOTONIC).
 */
#ifndef IPROF_ABI_H
#define IPROF_ABI_H

#define IPROF_ABI_VERSION 15

typedef unsigned char iprof_u8;
typedef unsigned short iprof_u16;
typedef unsigned int iprof_u32;
typedef unsigned long long iprof_u64;

/* Record types (iprof_rec.type). */
enum iprof_rec_type {
	IPROF_REC_START = 1, /* a timer started on this thread */
	IPROF_REC_STOP = 2, /* a timer stopped on this thread */
	IPROF_REC_EXIT = 3, /* the thread exited (sched_process_exit) */
	IPROF_REC_SWITCH_OUT = 4, /* a thread inside a timer left the CPU */
	IPROF_REC_SWITCH_IN = 5, /* ... and got a CPU again */
	IPROF_REC_IRQ_ENTER = 6, /* a thread inside a timer was interrupted */
	IPROF_REC_IRQ_EXIT = 7, /* ... and the interrupt (aux: iprof_ctx) ended */
	IPROF_REC_COMM = 8, /* struct iprof_rec_comm: a thread's name, sent
			     * before its first START and again after exec */
	IPROF_REC_UNWIND = 9, /* close the thread's (or, with IPROF_F_CTX,
			       * the interrupt context's) open frames as
			       * unwound: the interrupt ended without their
			       * stops */
	IPROF_REC_RETURNED = 10, /* the top frame (depth, timer) returned
				  * unseen: a kprobe start found the kernel
				  * stack back at or above that frame's entry
				  * (its kretprobe had no free instance);
				  * closed as a missed return, never timed */
	IPROF_REC_LEFT = 11, /* the top frame (depth, timer), a user
			      * function's, was left without returning: a
			      * user-mode probe hit found the thread's user
			      * stack pointer above that frame's entry
			      * (longjmp, a C++ exception, a stack
			      * unwound); closed as unwound, never timed */
	IPROF_REC_EXECED = 12, /* frame (depth, timer), a user function's,
				* not necessarily the top one, ended with
				* its program image at exec
				* (sched_process_exec): removed from the
				* thread's stack, the frames above it move
				* down one; counted, never timed */
	/*
	 * Keyed spans (struct iprof_rec_key): a span whose start and stop
	 * are matched by a key read from their tracepoints (a request, a
	 * work item, a pid), not by the thread; they may run on different
	 * threads, CPUs or interrupt contexts.
	 */
	IPROF_REC_KSTART = 13, /* a keyed span started (ts: its start) */
	IPROF_REC_KSTOP = 14, /* ... and stopped (ts: its stop), anywhere */
	IPROF_REC_KREPLACED = 15, /* its key was started again before a
				   * stop: the older span is dropped, the
				   * new one goes on; counted, never timed */
	IPROF_REC_KEXPIRED = 16, /* no stop came within --span-timeout: the
				  * loader removed its key; counted, never
				  * timed (sent by user space, not BPF) */
	IPROF_REC_NEWTID = 17, /* a thread other than its process's leader
				* exec'd (sched_process_exec): de_thread()
				* gave it the leader's pid, tid here; aux is
				* its old tid.  The frames it kept across the
				* exec (kernel function and span frames, depth
				* of them; its user frames were closed by
				* EXECED records under the old tid) go on
				* under tid; the leader's own frames were
				* closed by its EXIT, which came first */
	IPROF_REC_FORKED = 18, /* frame (depth, timer) of a new process's
				* thread, one its parent thread had open
				* at the fork (sched_process_fork): the
				* child goes on inside it from the fork,
				* its time counted from ts, the fork's.
				* Sent, depth 1 first, in the parent's
				* context before the child runs (tid,
				* tgid: the child's; aux: the parent's
				* tid); user function and syscall span
				* frames only, and only for a child that
				* goes on on its parent's stack (ABI 9) */
	IPROF_REC_HIT = 19, /* a call of timer, a user function whose
			     * return iprof cannot see (no return sites,
			     * no uretprobe: IPROF_A_HIT), entered: counted
			     * where it was called, never pushed, never
			     * timed.  depth: the thread's depth at the
			     * call (0: a root call), the frame it is a
			     * child of (ABI 10) */
	IPROF_REC_NAME = 20, /* struct iprof_rec_name: the value that names
			      * the START of the same thread, timer and
			      * depth that follows it (IPROF_A_NAMED) */
	IPROF_REC_ARGS = 21, /* struct iprof_rec_val: two of the arguments
			      * of the call whose START follows on this
			      * thread (pair IPROF_VAL_PAIR(flags): arguments
			      * 2p and 2p+1); sent only with slow_args (the
			      * loader's --slowest), three of them before the
			      * START, from a thread, never an interrupt */
	IPROF_REC_RETVAL = 22, /* struct iprof_rec_val: the return value
				* (v0) of frame (v1: depth | timer << 32)
				* whose STOP follows on this thread; ts is
				* that STOP's; slow_args only */
	IPROF_REC_NAMESTR = 23, /* struct iprof_rec_namestr: the text that
				 * names the START of the same thread, timer
				 * and depth that follows it (IPROF_A_NAMED
				 * with IPROF_A_NAMESTR), then its text in
				 * struct iprof_rec_nametext chunks (ABI 12) */
	IPROF_REC_OFFSTACK = 24, /* struct iprof_rec_val: frames 2p and 2p+1
				  * (p: IPROF_VAL_PART(flags); v0, v1:
				  * return addresses, innermost first, 0:
				  * none) of the kernel stack where a thread
				  * inside a timer blocked; sent just before
				  * its SWITCH_OUT (blocked), ts that
				  * record's; offcpu_stacks only (ABI 12) */
	IPROF_REC_WAKER = 25, /* struct iprof_rec_val: who woke thread tid
			       * (blocked inside a timer: sched_waking),
			       * sent in the waker's context, ts the
			       * wake-up's.  Part 0: v0 the waker's tid |
			       * tgid << 32, v1 its enum iprof_ctx (not
			       * IPROF_CTX_TASK: an interrupt woke it; tid
			       * is the task it interrupted) | frames << 8
			       * | its CPU << 32 (0 before issue 47's flows);
			       * part 1: its comm (v0: bytes 0-7, v1: 8-15);
			       * part 2 + p: frames 2p and 2p+1 of its
			       * kernel stack; offcpu_stacks only (ABI 12) */
	IPROF_REC_NAMEMISS = 26, /* a span's stop that names its call
				  * (`stop ARG`, IPROF_AX_STOPNAME) found
				  * the innermost open frame (depth, timer)
				  * of its timer named otherwise, and no
				  * open frame of its name: it closed
				  * nothing, the frame stays open; aux as
				  * a STOP's (ABI 13) */
	IPROF_REC_KINFO = 27, /* struct iprof_rec_key: one part of what
			       * --slowest keeps of a keyed span, sent by
			       * its stop just before its KSTOP (same CPU,
			       * same ts), naming the span as that KSTOP
			       * does (tid, ctx, cpu, id: the starting
			       * side); its value in timer's and tgid's
			       * places (IPROF_KINFO_VAL()), its part in
			       * flags (IPROF_VAL_PART(), IPROF_KI_*);
			       * slow_args only (ABI 14) */
};

/* --offcpu-stacks: most kernel frames sent per stack (OFFSTACK, WAKER) */
#define IPROF_OFF_FRAMES 16
/* the BPF side's offcpu_stacks (rodata): kernel stacks, and user stacks
 * too (--offcpu-stacks=user) */
#define IPROF_OFF_KSTACK 1u
#define IPROF_OFF_USTACK 2u
/* OFFSTACK parts IPROF_OFF_UPART + p: frames 2p and 2p+1 of the blocking
 * thread's user stack (IPROF_OFF_USTACK only; innermost first, the first
 * its user ip), after its kernel parts and with their ts.  A reader
 * before them left parts past IPROF_OFF_FRAMES / 2 aside, so the record
 * ABI is unchanged */
#define IPROF_OFF_UPART 8u
/* the part of an OFFSTACK or WAKER record (flags bits 4-7) */
#define IPROF_VAL_PART(flags) (((flags) >> IPROF_VAL_PAIR_SHIFT) & 15u)

/*
 * iprof_rec.aux of IPROF_REC_SWITCH_OUT: why the thread left the CPU, from
 * prev's __state at sched_switch (TASK_RUNNING = 0 means it was preempted
 * and waits on a run queue; anything else means it blocked).
 */
enum iprof_off_kind {
	IPROF_OFF_BLOCKED = 0, /* sleeping: waits for an event */
	IPROF_OFF_RUNQ = 1, /* preempted: runnable, waiting for a CPU */
};

/* Record flags (iprof_rec.flags). */
enum iprof_rec_flags {
	/*
	 * Records of this thread were lost before this one (a ring-buffer
	 * reserve failed).  User space discards the thread's open frames
	 * instead of mis-nesting what follows.
	 */
	IPROF_F_RESYNC = 1 << 0,
	/*
	 * The probe fired in interrupt context (aux: enum iprof_ctx): the
	 * record belongs to the CPU's interrupt context, not to the thread
	 * it interrupted; tid and tgid are 0 and cpu names the context.
	 */
	IPROF_F_CTX = 1 << 1,
};

/* Execution contexts (aux of IPROF_F_CTX and IRQ_ENTER/IRQ_EXIT records). */
enum iprof_ctx {
	IPROF_CTX_TASK = 0,
	IPROF_CTX_SOFTIRQ = 1,
	IPROF_CTX_HARDIRQ = 2,
	IPROF_CTX_NMI = 3,
	IPROF_CTX_MAX,
};

/*
 * One start/stop/exit record, 32 bytes, 8-byte aligned.
 *
 * depth: the thread's BPF-side stack depth.  START: depth after the push
 * (1 = a root timer); FORKED: the same, of the inherited frame.  STOP: position of the matched frame plus one; frames
 * above it were never stopped and are closed as unwound.  EXIT: depth at
 * exit (frames still open).  SWITCH_OUT/SWITCH_IN: depth of the thread
 * (> 0: switch records are only sent for threads inside a timer).
 */
struct iprof_rec {
	iprof_u8 type; /* enum iprof_rec_type */
	iprof_u8 flags; /* enum iprof_rec_flags */
	iprof_u16 size; /* sizeof(struct iprof_rec), checked by the reader */
	iprof_u32 timer; /* timer id: index into the attach plan */
	iprof_u32 tid; /* kernel pid of the thread */
	iprof_u32 tgid; /* kernel tgid (process id) */
	iprof_u64 ts; /* bpf_ktime_get_ns(), ns */
	iprof_u16 depth; /* see above */
	iprof_u16 cpu; /* bpf_get_smp_processor_id() */
	iprof_u32 aux; /* SWITCH_OUT: enum iprof_off_kind; IRQ_* or
			* IPROF_F_CTX: enum iprof_ctx (bits 0-7:
			* IPROF_REC_CTX()); NEWTID: the old tid; FORKED:
			* the parent thread's tid; START, STOP: bits 8-15
			* the probe class that fired (enum iprof_pclass,
			* IPROF_REC_PCLASS(), ABI 11; 0 before); START:
			* bits 16-31 a split entry's gap (IPROF_REC_GAP(),
			* ABI 15; 0: not measured); else 0 */
};

/*
 * The probe class of a START or STOP record (aux bits 8-15): which kind of
 * probe sent it, so that user space takes out the cost of the probe that
 * ran for each call (a timer's calls may go through several: its
 * out-of-line entry and its inlined instances).  Set per action by the
 * planner (iprof_action.pclass) from its attachment's mechanism.
 */
enum iprof_pclass {
	IPROF_PC_NONE = 0, /* not said (ABI <= 10): the timer's class */
	IPROF_PC_TP = 1, /* a tracepoint (tp_hit) */
	IPROF_PC_UENTRY = 2, /* a uprobe at a user function's entry */
	IPROF_PC_URETPROBE = 3, /* a uretprobe */
	IPROF_PC_RETSITE = 4, /* a uprobe at a return site the kernel
			       * single-steps (a ret) */
	IPROF_PC_UINLINE = 5, /* a uprobe at an inlined instance's entry
			       * or exit: an instruction the kernel
			       * single-steps */
	IPROF_PC_KENTRY = 6, /* a kernel function's entry (fentry, kprobe) */
	IPROF_PC_KRETURN = 7, /* ... its return (fexit, kretprobe) */
	IPROF_PC_KINLINE = 8, /* a kprobe at a kernel function's inlined
			       * instance's entry or exit (fn_ksite) */
	IPROF_PC_SYSCALL = 9, /* a syscall tracepoint (raw-syscall dispatch) */
	IPROF_PC_USDT = 10, /* a USDT probe */
	IPROF_PC_USPLIT = 11, /* a split entry's start (IPROF_REC_GAP()):
			       * a uprobe after a user function's entry, at
			       * an instruction the kernel emulates (ABI 15) */
	/* ... the same sites at an instruction the kernel emulates (a jmp,
	 * call, jcc, nop, push: arch/x86/kernel/uprobes.c
	 * branch_setup_xol_ops(), push_setup_xol_ops()) or the program runs
	 * itself (IPROF_EMU_*), which costs no single step (ABI 15; 4 and 5
	 * before, for every site) */
	IPROF_PC_RETSITE_EMU = 12, /* a return site: a tail call's jmp */
	IPROF_PC_UINLINE_EMU = 13, /* an inlined instance's entry or exit */
	IPROF_PC_MAX,
};

#define IPROF_REC_CTX(aux) ((aux) & 0xffu)
#define IPROF_REC_PCLASS(aux) (((aux) >> 8) & 0xffu)

/*
 * A split entry's gap (ABI 15): a user function whose first instruction
 * the kernel single-steps keeps its uretprobe's breakpoint there, where a
 * program only marks the time (fn_mark_*), and starts its timer at the
 * first instruction after it that the kernel emulates (a call, jmp, jcc
 * or nop: arch/x86/kernel/uprobes.c branch_setup_xol_ops()), so that the
 * single step falls in the caller's time.  The START record's aux bits
 * 16-31 hold the time from the mark to that start, in units of
 * IPROF_GAP_UNIT ns (rounded up, at least 1, 0xffff when longer; 0: not
 * measured): the part of the probes' cost outside the call that user
 * space takes off its caller per call, measured, not calibrated.
 */
#define IPROF_GAP_SHIFT 4 /* IPROF_GAP_UNIT = 16 ns */
#define IPROF_GAP_UNIT (1u << IPROF_GAP_SHIFT)
#define IPROF_GAP_MAX 0xffffu
#define IPROF_REC_GAP(aux) (((aux) >> 16) & IPROF_GAP_MAX)
/* a STOP's aux bits 16-17: which stop of a span of several closed it, in
 * the order written (0: the first, and every other timer's; sent as the
 * action's IPROF_AX_STOPNO, 0 before) */
#define IPROF_REC_STOPNO(aux) (((aux) >> 16) & 0x3u)

_Static_assert(sizeof(struct iprof_rec) == 32, "iprof_rec must be 32 bytes");

/*
 * IPROF_REC_ARGS, IPROF_REC_RETVAL: two 64-bit values in the 32 bytes of
 * struct iprof_rec, its ts kept where it is (the merge's key); v0 is
 * lo0 | hi0 << 32, v1 lo1 | hi1 << 32.  Bits 4-5 of flags: the ARGS
 * pair (0: rdi rsi, 1: rdx rcx, 2: r8 r9 as the x86-64 SysV ABI passes
 * them; a syscall's, a USDT probe's: its arguments in order).
 */
struct iprof_rec_val {
	iprof_u8 type; /* IPROF_REC_ARGS, IPROF_REC_RETVAL */
	iprof_u8 flags; /* IPROF_F_RESYNC, and the pair */
	iprof_u16 size; /* sizeof(struct iprof_rec_val) */
	iprof_u32 lo0; /* timer's place */
	iprof_u32 tid;
	iprof_u32 hi0; /* tgid's place */
	iprof_u64 ts; /* bpf_ktime_get_ns(), ns */
	iprof_u32 lo1; /* depth and cpu's place */
	iprof_u32 hi1; /* aux's place */
};

#define IPROF_VAL_PAIR_SHIFT 4
#define IPROF_VAL_PAIR(flags) (((flags) >> IPROF_VAL_PAIR_SHIFT) & 3u)
#define IPROF_NARGS 6 /* arguments sent per call (three ARGS records) */

_Static_assert(sizeof(struct iprof_rec_val) == 32,
	       "iprof_rec_val must be 32 bytes");

#define IPROF_COMM_LEN 16 /* TASK_COMM_LEN, include/linux/sched.h */

/* IPROF_REC_COMM: same header as struct iprof_rec, then the task's comm
 * (bpf_get_current_comm(), NUL-terminated) instead of ts..aux. */
struct iprof_rec_comm {
	iprof_u8 type; /* IPROF_REC_COMM */
	iprof_u8 flags;
	iprof_u16 size; /* sizeof(struct iprof_rec_comm) */
	iprof_u32 timer; /* 0 */
	iprof_u32 tid;
	iprof_u32 tgid;
	char comm[IPROF_COMM_LEN];
};

_Static_assert(sizeof(struct iprof_rec_comm) == sizeof(struct iprof_rec),
	       "iprof_rec_comm has the size of iprof_rec");

/*
 * IPROF_REC_KSTART, KSTOP, KREPLACED, KEXPIRED: the 32 bytes of struct
 * iprof_rec with other meanings for depth and aux.  Every one of them
 * names the span's *starting* side (tid, tgid, ctx, cpu), whoever sent it:
 * the stop's program reads them from the key map, so the record goes
 * where the start's went (a --fold shard, a thread's --by root).  A
 * starting side in interrupt context has tid and tgid 0 and ctx its
 * enum iprof_ctx (IPROF_F_CTX is never set on these records).  id is
 * the span's number, from one counter of the BPF program (wraps at
 * 2^32; spans are matched by id and starting side).
 */
struct iprof_rec_key {
	iprof_u8 type; /* IPROF_REC_K* */
	iprof_u8 flags; /* 0 */
	iprof_u16 size; /* sizeof(struct iprof_rec_key) */
	iprof_u32 timer; /* timer id */
	iprof_u32 tid; /* starting thread, 0 in interrupt context */
	iprof_u32 tgid; /* its process */
	iprof_u64 ts; /* bpf_ktime_get_ns(), ns: the start (KSTART), stop
		       * (KSTOP), or when the span was dropped */
	iprof_u16 ctx; /* starting side's enum iprof_ctx (depth's place) */
	iprof_u16 cpu; /* starting CPU */
	iprof_u32 id; /* span number (aux's place) */
};

_Static_assert(sizeof(struct iprof_rec_key) == sizeof(struct iprof_rec),
	       "iprof_rec_key must be the size of iprof_rec");

/*
 * IPROF_REC_KINFO parts (IPROF_VAL_PART(flags)): IPROF_KI_KEY + i, key
 * value i (i < the stop's key fields); IPROF_KI_BY, the stopping thread's
 * tid | tgid << 32 (0 in an interrupt); IPROF_KI_CTX, its enum iprof_ctx
 * | its CPU << 32; IPROF_KI_COMM and IPROF_KI_COMM + 1, its comm, bytes
 * 0-7 and 8-15 (task context only).
 */
#define IPROF_KI_KEY 0u
#define IPROF_KI_BY 4u
#define IPROF_KI_CTX 5u
#define IPROF_KI_COMM 6u
#define IPROF_KI_PARTS 8u
/* an IPROF_REC_KINFO's 64-bit value (struct iprof_rec_key *k) */
#define IPROF_KINFO_VAL(k) ((k)->timer | (iprof_u64)(k)->tgid << 32)

/*
 * IPROF_REC_NAME: sent by a named timer's start (IPROF_A_NAMED) just before
 * its IPROF_REC_START, on the same ring, in task context only: the 64-bit
 * value of the argument (or tracepoint field) that names the call, split in
 * two where iprof_rec has tgid and aux.  The aggregator files the START
 * that follows (same tid, timer and depth) under a node of its own per
 * distinct (timer, value); a NAME with no such START is dropped.
 */
struct iprof_rec_name {
	iprof_u8 type; /* IPROF_REC_NAME */
	iprof_u8 flags; /* 0, or IPROF_F_RESYNC */
	iprof_u16 size; /* sizeof(struct iprof_rec_name) */
	iprof_u32 timer; /* the named timer */
	iprof_u32 tid; /* kernel pid of the thread */
	iprof_u32 value_lo; /* the value's low 32 bits (tgid's place) */
	iprof_u64 ts; /* bpf_ktime_get_ns(), ns: at or before the START's */
	iprof_u16 depth; /* the START's depth */
	iprof_u16 cpu; /* bpf_get_smp_processor_id() */
	iprof_u32 value_hi; /* the value's high 32 bits (aux's place) */
};

_Static_assert(sizeof(struct iprof_rec_name) == sizeof(struct iprof_rec),
	       "iprof_rec_name must be the size of iprof_rec");

/* Most bytes of one string part of a name (`name str(argN)`), the NUL
 * included: a longer string is cut to its first IPROF_NAME_STR - 1 bytes */
#define IPROF_NAME_STR 64
/* Most string parts of a name (`name str(argA):str(argB)`) */
#define IPROF_NAME_PARTS 2
/* iprof_rec_namestr.len[i] of a part whose address could not be read */
#define IPROF_NAME_FAULT 0xff
/* Text bytes that one struct iprof_rec_nametext carries */
#define IPROF_NAME_CHUNK 16
/*
 * Flag of IPROF_REC_NAMESTR records only: a struct iprof_rec_nametext
 * chunk of the text, not the head.
 */
#define IPROF_F_TEXT (1 << 7)

/*
 * IPROF_REC_NAMESTR (ABI 12): a named timer's start whose name is text read
 * from user memory (`name str(argN)`, bpf_probe_read_user_str()), in task
 * context only.  The BPF program sends one struct iprof_ring_namestr; the
 * ring reader (src/kernel/rings.c) cuts it into this head and the
 * ceil(sum of len / IPROF_NAME_CHUNK) struct iprof_rec_nametext chunks that
 * follow it at once, every one 32 bytes with the thread's tid and the
 * head's ts where iprof_rec has them, so that records merge, shard and
 * record as any other.  The text is part 0's len[0] bytes then part 1's
 * len[1] (no NULs; a part that faulted has none); the aggregator joins the
 * parts with ':'.  As IPROF_REC_NAME, it names the START that follows.
 */
struct iprof_rec_namestr {
	iprof_u8 type; /* IPROF_REC_NAMESTR */
	iprof_u8 flags; /* 0, or IPROF_F_RESYNC */
	iprof_u16 size; /* sizeof(struct iprof_rec_namestr) */
	iprof_u32 timer; /* the named timer */
	iprof_u32 tid; /* kernel pid of the thread */
	iprof_u8 nparts; /* 1..IPROF_NAME_PARTS */
	iprof_u8 len[IPROF_NAME_PARTS]; /* each part's bytes, NUL excluded,
					 * or IPROF_NAME_FAULT */
	iprof_u8 cut; /* bit i: part i's string was longer than
		       * IPROF_NAME_STR - 1 bytes, its first ones kept
		       * (len[i] IPROF_NAME_STR - 1); older iprof wrote
		       * 0 (not known) */
	iprof_u64 ts; /* bpf_ktime_get_ns(), ns: at or before the START's */
	iprof_u16 depth; /* the START's depth */
	iprof_u16 cpu; /* bpf_get_smp_processor_id() */
	iprof_u32 pad2;
};

_Static_assert(sizeof(struct iprof_rec_namestr) == sizeof(struct iprof_rec),
	       "iprof_rec_namestr must be the size of iprof_rec");

/*
 * A chunk of an IPROF_REC_NAMESTR's text: IPROF_NAME_CHUNK bytes in the
 * places iprof_rec has timer, tgid and depth..aux (t0, t1, t2 in order).
 */
struct iprof_rec_nametext {
	iprof_u8 type; /* IPROF_REC_NAMESTR */
	iprof_u8 flags; /* IPROF_F_TEXT */
	iprof_u16 size; /* sizeof(struct iprof_rec_nametext) */
	char t0[4];
	iprof_u32 tid; /* the head's */
	char t1[4];
	iprof_u64 ts; /* the head's */
	char t2[8];
};

_Static_assert(sizeof(struct iprof_rec_nametext) == sizeof(struct iprof_rec),
	       "iprof_rec_nametext must be the size of iprof_rec");

/*
 * What the BPF program sends for IPROF_REC_NAMESTR (one ring sample, never
 * a record of the stream): the head, then each part's string as
 * bpf_probe_read_user_str() left it.
 */
struct iprof_ring_namestr {
	struct iprof_rec_namestr head;
	char text[IPROF_NAME_PARTS][IPROF_NAME_STR];
};

/*
 * A keyed span's key: the timer, then up to IPROF_MAX_KEY values, each
 * read from the tracepoint (or pseudo-field) that iprof_action.key[i]
 * names, zero-extended to 64 bits.  Unused values are 0.  The key of the
 * BPF hash map `kspans` (src/kernel/loader.c sizes it: --span-keys).
 */
#define IPROF_MAX_KEY 4
_Static_assert(IPROF_KI_KEY + IPROF_MAX_KEY <= IPROF_KI_BY,
	       "IPROF_REC_KINFO: the key values' parts come before the rest");

struct iprof_kkey {
	iprof_u32 timer;
	iprof_u32 pad;
	iprof_u64 v[IPROF_MAX_KEY];
};

/* Where a key value is read (iprof_keyf.src). */
enum iprof_key_src {
	IPROF_KEY_TP = 0, /* the tracepoint record, at off, size bytes */
	IPROF_KEY_PID = 1, /* the current task's tgid (bpf_get_current_pid_tgid) */
	IPROF_KEY_TID = 2, /* the current task's pid (thread id) */
	IPROF_KEY_CPU = 3, /* bpf_get_smp_processor_id() */
};

/* One field of a keyed span's key, on one side. */
struct iprof_keyf {
	iprof_u8 src; /* enum iprof_key_src */
	iprof_u8 size; /* IPROF_KEY_TP: 1, 2, 4 or 8 bytes, zero-extended */
	iprof_u16 off; /* IPROF_KEY_TP: byte offset in the record */
};

/* Conditions evaluated in BPF on a probe hit (see probes.d/README.md). */
enum iprof_cond_op {
	IPROF_OP_EQ = 0,
	IPROF_OP_NE,
	IPROF_OP_LT,
	IPROF_OP_LE,
	IPROF_OP_GT,
	IPROF_OP_GE,
	IPROF_OP_AND, /* (value & operand) != 0 */
	/*
	 * String conditions, `str(F) == "TEXT"`, `!=`, `=~ "PREFIX*"`: the
	 * operand is a user address (size 8); BPF reads the NUL-terminated
	 * string there (at most IPROF_STRCOND_READ - 1 bytes) and compares
	 * its first pad bytes (the constant's length, at most
	 * IPROF_STRCOND_MAX) by their 64-bit FNV-1a hash, val (iprof_strhash()):
	 * STREQ holds when the string is exactly those bytes, STRPRE when it
	 * starts with them, STRNE when STREQ does not (an address that cannot
	 * be read: STREQ and STRPRE fail, STRNE holds).
	 */
	IPROF_OP_STREQ,
	IPROF_OP_STRNE,
	IPROF_OP_STRPRE,
};

/* the longest string constant of a condition (bytes), and the bytes a
 * string condition reads (its NUL included: longer strings are cut, and
 * then equal no constant) */
#define IPROF_STRCOND_MAX 64
#define IPROF_STRCOND_READ 72

/* FNV-1a, 64-bit, of @n bytes at @s: a string condition's val */
static inline iprof_u64 iprof_strhash(const char *s, unsigned int n)
{
	iprof_u64 h = 0xcbf29ce484222325ull;
	unsigned int i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Where a condition reads its left operand. */
enum iprof_cond_src {
	IPROF_SRC_TP = 0, /* tracepoint record, at off, size bytes */
	IPROF_SRC_ARG = 1, /* function argument number off (0-based) */
};

/*
 * Syscall spans: the BPF map sc_chain holds, for system call number nr
 * (0 <= nr < IPROF_NR_SYSCALLS), the first action + 1 of its sys_enter
 * chain at nr and of its sys_exit chain at IPROF_NR_SYSCALLS + nr (0: no
 * span uses it).  x86-64 numbers are below 512 (arch/x86/entry/syscalls/
 * syscall_64.tbl); x32 syscalls (bit 30 set) and ia32 ones are never
 * looked up.
 */
#define IPROF_NR_SYSCALLS 1024

#define IPROF_MAX_COND 4
/*
 * Max open timers per thread tracked in BPF (a power of two: BPF masks
 * indexes with it); deeper starts are counted (IPROF_CNT_DEPTH_OVERFLOW)
 * and their stops skipped, LIFO.
 */
#define IPROF_MAX_DEPTH 128

/* --comm, --exe and --cgroup: at most this many of each (BPF rodata) */
#define IPROF_MAX_SEL 8

struct iprof_cond {
	iprof_u8 src; /* enum iprof_cond_src */
	iprof_u8 op; /* enum iprof_cond_op */
	iprof_u8 size; /* 1, 2, 4 or 8: bytes read (IPROF_SRC_TP), and the
			* width compared (both: see narrow() in bpf/) */
	iprof_u8 is_signed; /* compare as signed 64-bit after sign extension */
	iprof_u16 off; /* byte offset in the tracepoint record, or arg index */
	iprof_u16 pad; /* IPROF_OP_STR*: the constant's length (bytes) */
	iprof_u64 val; /* right operand (IPROF_OP_STR*: the constant's hash) */
};

_Static_assert(sizeof(struct iprof_cond) == 16, "iprof_cond must be 16 bytes");

/* What a probe hit does (iprof_action.role). */
enum iprof_role {
	IPROF_ROLE_START = 1,
	IPROF_ROLE_STOP = 2,
};

/* iprof_action.flags */
enum iprof_action_flags {
	/*
	 * A stop that finds no open start of its timer is expected (the start
	 * is filtered, e.g. on an ioctl cmd): drop it silently.  Without this
	 * flag such a stop is an orphan (the function was already running when
	 * tracing began) and is counted in the per-timer orphan map.
	 */
	IPROF_A_UNMATCHED_OK = 1 << 0,
	/*
	 * A start of a timer already open on this thread (or interrupt
	 * context) is ignored: spans do not nest in themselves (a syscall
	 * cannot recurse; a stop whose condition failed leaves the span open
	 * and its next start must not stack a tower on it).  Function timers
	 * recurse and do not set it.
	 */
	IPROF_A_NO_REENTER = 1 << 1,
	/*
	 * The stop closes its timer only if it is the innermost open frame.
	 * Set on returns of function timers whose entry is filtered: returns
	 * come in LIFO order, so a return that does not find its timer on
	 * top is the return of a call whose entry was filtered out (in a
	 * recursion, say), not of an outer call.
	 */
	IPROF_A_TOP_ONLY = 1 << 2,
	/*
	 * On the start of a user function timer: its stops are uprobes at
	 * the function's return sites (ret instructions and tail-call jumps,
	 * src/probe/retsite.c), which fire with the user stack pointer where it
	 * was at the entry; a frame is then stopped only by a return site
	 * at its own entry stack pointer, and a new entry at that stack
	 * pointer shows it was left.  Without it the stop is a uretprobe.
	 */
	IPROF_A_RETSITES = 1 << 3,
	/*
	 * A keyed span's start or stop (a tracepoint's, a syscall's): the
	 * start stores its key (nkey values of key[]) in the `kspans` map
	 * and sends IPROF_REC_KSTART; the stop sends IPROF_REC_KSTOP if it
	 * finds and removes the key.  No frame is pushed on the thread.
	 */
	IPROF_A_KEYED = 1 << 4,
	/*
	 * On the start of a user function timer whose return iprof cannot
	 * see (an indirect jmp no bounded table, and no uretprobe allowed)
	 * though it returns: the start sends IPROF_REC_HIT and pushes no
	 * frame, so the call is counted where it was made and never
	 * becomes the parent of later calls.  (A function that never
	 * returns, exit() or abort(), keeps its frame until thread exit.)
	 */
	IPROF_A_HIT = 1 << 5,
	/*
	 * A named timer's start (`name argN`, `name FIELD`): cond[ncond],
	 * one past its conditions (so ncond < IPROF_MAX_COND), is no
	 * condition but where the name's value is read (src, size, off,
	 * is_signed as a condition's left operand; op and val unused).  In
	 * task context the start sends IPROF_REC_NAME with that value
	 * before its IPROF_REC_START; in interrupt context it is unnamed.
	 */
	IPROF_A_NAMED = 1 << 6,
	/*
	 * With IPROF_A_NAMED: the name is text in cond[ncond].op parts
	 * (1..IPROF_NAME_PARTS, ncond + parts <= IPROF_MAX_COND): the value
	 * read at cond[ncond + i] is a user address whose string (at most
	 * IPROF_NAME_STR bytes) is part i.  The start sends
	 * IPROF_REC_NAMESTR instead of IPROF_REC_NAME.
	 */
	IPROF_A_NAMESTR = 1 << 7,
};

/* iprof_action.xflags */
enum iprof_action_xflags {
	/*
	 * A span's side at a user function's entry (uprobe) or return
	 * (uretprobe): a point, as a USDT probe.  Its frame keeps no user
	 * stack pointer (a span outlives the function: neither drop_left()
	 * nor the stop's match look at it), its stop closes the innermost
	 * open frame of its timer wherever the stack is, and a child does
	 * not inherit it at fork.
	 */
	IPROF_AX_POINT = 1 << 0,
	/*
	 * A named span's start whose stops name their call too (`name ARG
	 * stop ARG2`): the frame keeps its name's key (the value; for
	 * text, the FNV-1a hash of its parts' bytes as read, joined by
	 * ':') for the stops to compare.
	 */
	IPROF_AX_NAMEKEY = 1 << 1,
	/*
	 * A span's stop that names the call it ends (`stop ARG2`):
	 * cond[ncond], one past its conditions, is where its name is read
	 * (as IPROF_A_NAMED's; with IPROF_AX_STOPSTR text of cond[ncond].op
	 * parts, as IPROF_A_NAMESTR's).  It closes the innermost open frame
	 * of its timer whose key is its name's (frames above it unwound, as
	 * with any stop); with none, nothing: it sends IPROF_REC_NAMEMISS.
	 */
	IPROF_AX_STOPNAME = 1 << 2,
	IPROF_AX_STOPSTR = 1 << 3,
};

/* iprof_action.xflags bits 4-5: a span stop's number among its stops,
 * `-> STOP | STOP2 | ...` (0: the first), sent in its STOP record
 * (IPROF_REC_STOPNO) */
#define IPROF_AX_STOPNO_SHIFT 4
#define IPROF_AX_STOPNO(x) (((x) >> IPROF_AX_STOPNO_SHIFT) & 0x3u)

/* Where iprof_action.inst goes in a frame's usp, and the address bits
 * (user stack addresses are below 2^56 even with 5-level paging) */
#define IPROF_USP_INST_SHIFT 56
#define IPROF_USP_ADDR(u) ((u) & 0x00fffffffffffffeull)

/* End of an action chain (iprof_action.next). */
#define IPROF_NO_NEXT 0xffffffffu
/* Most actions one tracepoint attachment runs (a chain). */
#define IPROF_MAX_CHAIN 8

/*
 * One entry of the BPF "actions" array map.  Each attachment carries the
 * index of its first action as its BPF cookie.  A tracepoint can hold a BPF
 * program only once (the kernel answers EEXIST), so every timer using the
 * same tracepoint shares one attachment whose actions are chained by next.
 * role 0 disables an action (its timer could not be attached in full).
 */
struct iprof_action {
	iprof_u32 timer; /* timer id */
	iprof_u8 role; /* enum iprof_role, 0 = disabled */
	iprof_u8 flags; /* enum iprof_action_flags */
	iprof_u8 ncond; /* conditions used, 0..IPROF_MAX_COND; all must hold */
	iprof_u8 nkey; /* IPROF_A_KEYED: key fields used, 1..IPROF_MAX_KEY */
	iprof_u32 next; /* next action of the same attachment, or IPROF_NO_NEXT */
	/* an inlined instance's start or stop (src/probe/inline.c): its
	 * number among its timer's instances, 1..255 (0 for every other).
	 * Its frame's user stack pointer slot (usp) is the caller's frame
	 * with this number in bits 56-63 (IPROF_USP_INST), so a stop of one
	 * instance never closes another's in the same caller's frame */
	iprof_u8 inst;
	iprof_u8 pclass; /* enum iprof_pclass: what its attachment is, sent
			  * in its START or STOP record's aux (ABI 11) */
	iprof_u8 xflags; /* enum iprof_action_xflags (flags is full) */
	iprof_u8 pad;
	struct iprof_cond cond[IPROF_MAX_COND];
	struct iprof_keyf key[IPROF_MAX_KEY]; /* IPROF_A_KEYED: this side's
					       * fields, in key order */
};

_Static_assert(sizeof(struct iprof_action) ==
		       16 + 16 * IPROF_MAX_COND + 4 * IPROF_MAX_KEY,
	       "iprof_action layout");

/* Indexes of the per-CPU "counters" array map. */
enum iprof_counter {
	IPROF_CNT_RB_DROP = 0, /* bpf_ringbuf_reserve() failed: record lost */
	IPROF_CNT_DEPTH_OVERFLOW, /* start deeper than IPROF_MAX_DEPTH */
	IPROF_CNT_NO_STORAGE, /* task storage could not be allocated */
	/* uprobe hits whose instruction the program did not run in the
	 * kernel's place (IPROF_EMU_*), so the kernel single-stepped it: */
	IPROF_CNT_EMU_SHSTK, /* the thread has a user shadow stack */
	IPROF_CNT_EMU_MOVED, /* ip was no longer the probe's: another
			      * program at the same address moved it */
	IPROF_CNT_EMU_FAULT, /* the return address could not be read */
	IPROF_CNT_EMU_DONE, /* (not a loss) hits whose instruction the
			     * program ran: no single step */
	IPROF_CNT_KEY_FULL, /* keyed span starts not kept: the kspans map
			     * was full (per timer: the kfull map) */
	IPROF_CNT_MAX,
};

/*
 * A uprobe's BPF cookie: bits 0-31 the first action of its chain (what
 * bpf_get_attach_cookie() gives every program); bits 32-63 how the program
 * may run the instruction the uprobe sits on itself, so that the kernel
 * neither emulates nor single-steps it.  Where a uprobe program may write
 * its registers (Linux 6.19+: "bpf: Allow uprobe program to change context
 * registers" and "uprobe: Do not emulate/sstep original instruction when
 * ip is changed", kernel/events/uprobes.c handle_swbp()), a program that
 * moves ip makes the kernel skip the probed instruction.  Kinds
 * (src/probe/emu.c decodes them):
 *   IPROF_EMU_RET   ret, ret imm16 (with rep/bnd prefixes):
 *                   ip = *(u64 *)sp; sp += 8 + pop
 *   IPROF_EMU_SKIP  an instruction without effect (endbr64, nop): ip += len
 * PGOFF is the probe's file offset modulo 4096, which is its address's
 * (a mapping's file offset and address are page-aligned): the program
 * emulates only while ip is still at the probe (another program there may
 * have moved it): ip's page offset is PGOFF and ip is the breakpoint's
 * address, bpf_get_func_ip() (which uprobe programs have since 6.4).
 */
enum iprof_emu_kind {
	IPROF_EMU_NONE = 0, /* single-stepped (or emulated) by the kernel */
	IPROF_EMU_RET = 1,
	IPROF_EMU_SKIP = 2,
};

#define IPROF_EMU_KIND(c) ((unsigned)((c) >> 32) & 3u)
#define IPROF_EMU_LEN(c) ((unsigned)((c) >> 34) & 15u)
#define IPROF_EMU_PGOFF(c) ((unsigned)((c) >> 38) & 4095u)
#define IPROF_EMU_POP(c) ((unsigned)((c) >> 50) & 16383u)
#define IPROF_EMU_POP_MAX 16383u
/* the cookie of chain @action with kind, length, page offset and pop */
#define IPROF_EMU_COOKIE(action, kind, len, pgoff, pop)                        \
	((iprof_u64)(action) | (iprof_u64)(kind) << 32 |                       \
	 (iprof_u64)(len) << 34 | (iprof_u64)(pgoff) << 38 |                   \
	 (iprof_u64)(pop) << 50)

/*
 * A return site's or an inlined instance's uprobe (programs fn_rsite*)
 * whose instruction the program does not run (kind IPROF_EMU_NONE): bits
 * 34-50 say where the frame it starts or stops is: the stack pointer
 * (IPROF_SITE_REG 0) or the frame pointer (1), plus IPROF_SITE_ADJ bytes:
 * its caller's canonical frame address less 8, from the caller's call
 * frame information (include/iprof/inline.h).  A return site's are 0: the
 * stack pointer at a ret is the frame's, as at its function's entry.
 */
#define IPROF_SITE_REG(c) ((unsigned)((c) >> 34) & 1u)
#define IPROF_SITE_ADJ(c) ((unsigned)((c) >> 35) & 65535u)
#define IPROF_SITE_COOKIE(action, reg, adj)                                    \
	((iprof_u64)(action) | (iprof_u64)(reg) << 34 |                        \
	 (iprof_u64)(adj) << 35)
/* bit 51: the site is a split entry's start (see IPROF_REC_GAP()): its
 * program sends the time since the thread's mark at the function's first
 * instruction, where the stack pointer, rebuilt, is the mark's */
#define IPROF_SITE_SPLIT(c) ((unsigned)((c) >> 51) & 1u)
#define IPROF_SITE_SPLIT_BIT (1ull << 51)
/* bit 52: the site is a function's start moved past its single-stepped
 * first instruction, with nothing at that instruction (its stops are
 * return sites): its program checks what a function entry does (frames
 * returned or left: user_entry()), at the rebuilt stack pointer */
#define IPROF_SITE_ENTRY(c) ((unsigned)((c) >> 52) & 1u)
#define IPROF_SITE_ENTRY_BIT (1ull << 52)

/*
 * The cookie of a uprobe on libc's context functions (program ctx_switch):
 * which one it is on.  getcontext saves the current context, setcontext
 * switches to its argument's, swapcontext does both (saves into its first
 * argument, switches to its second's).
 */
enum iprof_ctx_fn {
	IPROF_CTXFN_GET = 0,
	IPROF_CTXFN_SET = 1,
	IPROF_CTXFN_SWAP = 2,
};

#endif /* IPROF_ABI_H */
