/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --offcpu-stacks (issue 47 item 2): where a thread inside a timer blocked
 * and who woke it.  At sched_switch a thread that blocks sends the kernel
 * stack it blocked on (IPROF_REC_OFFSTACK, before its SWITCH_OUT); at
 * sched_waking the waker sends, under the wakee's tid, its own tid, comm,
 * context and kernel stack (IPROF_REC_WAKER).  Included by iprof.bpf.c
 * only.
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
#ifndef IPROF_OFFCPU_BPF_H
#define IPROF_OFFCPU_BPF_H

/* --offcpu-stacks: set by the loader before load */
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

/* off_blocked() - the current thread (@tid) blocks inside a timer: its
 * stack, just before its SWITCH_OUT at @ts (on_switch) */
static __always_inline void off_blocked(void *ctx, __u32 tid, __u64 ts)
{
	struct off_buf *b;
	__u32 n;

	b = off_stack(ctx, &n);
	if (b)
		emit_frames(IPROF_REC_OFFSTACK, 0, tid, b, n, ts);
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
	emit_part(IPROF_REC_WAKER, 0, tid, id, cur_ctx() | (__u64)n << 8, ts);
	bpf_get_current_comm(comm, sizeof(comm));
	emit_part(IPROF_REC_WAKER, 1, tid, comm[0], comm[1], ts);
	if (b)
		emit_frames(IPROF_REC_WAKER, 2, tid, b, n, ts);
}

#endif /* IPROF_OFFCPU_BPF_H */
