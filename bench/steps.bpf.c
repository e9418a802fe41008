// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the time of iprof's tracepoint program goes (bench/README.md, "Probe
 * overhead"): iprof's tracepoint program (bpf/iprof.bpf.c tp_hit with the
 * helpers of bpf/iprof.bpf.h, as of commit 6ad2249) rebuilt one step at a
 * time.  A copy, not an #include: the benchmark must build while bpf/
 * changes, and iprof itself is measured end to end by bench/run.sh.
 *
 * bench_probe attaches one program to syscalls:sys_enter_getppid (cookie 0:
 * the START action) and sys_exit_getppid (cookie 1: the STOP action), as
 * iprof attaches tp_hit for a span.  Each step adds to the one before:
 *
 *   s_lookup   pid/tgid, cookie, the action lookup (what every hit does)
 *   s_target   + the `targets` hash lookup on a START (iprof -p / -- CMD)
 *   s_storage  + the task-storage lookup (create on START), push / pop
 *   s_full     + one 32-byte ring-buffer record per hit, no wakeup: iprof
 *   s_rb       s_lookup + the record only (no target, no task storage)
 *   s_rb_nots  s_rb without bpf_ktime_get_ns()
 *   s_ktime    s_lookup + bpf_ktime_get_ns() only
 *   s_raw_*    s_full as raw tracepoints on raw_syscalls:sys_enter /
 *              sys_exit, filtered on the syscall number in BPF
 *
 * and proposed changes, measured on the same probes:
 *
 *   s_cached   s_full with the target verdict cached in task storage: the
 *              `targets` hash is looked up once per thread, not per START
 *   s_pair     s_cached sending one record per timer instead of two: a
 *              START keeps its time in task storage and sends nothing; the
 *              STOP sends start and stop time in one 32-byte record
 *   s_full with edge = 1: the reader is woken once when the ring crosses
 *              wakeup_bytes, not on every record while it is above
 *
 * Loaded with wakeup_bytes = 0, s_full wakes the reader on every record.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <asm/ptrace.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_DEPTH 32
#define ROLE_START 1
#define ROLE_STOP 2
#define CNT_RB_DROP 0

/* the layout of struct iprof_rec (include/iprof/abi.h) */
struct rec {
	__u8 type;
	__u8 flags;
	__u16 size;
	__u32 timer;
	__u32 tid;
	__u32 tgid;
	__u64 ts;
	__u16 depth;
	__u16 cpu;
	__u32 aux;
};

/* what bench_probe puts in `actions` (iprof's is larger, same first use) */
struct action {
	__u32 timer;
	__u32 role;
};

struct task_state {
	__u32 depth;
	__u32 over;
	__u8 lost;
	__u8 seen;
	__u8 target; /* s_cached, s_pair: 0 unknown, 1 yes, 2 no */
	__u8 pad[5];
	__u32 timers[MAX_DEPTH];
	__u64 start_ns[MAX_DEPTH]; /* s_pair: start times of open timers */
};

struct task_struct;

/* set by bench_probe before load */
const volatile __u64 wakeup_bytes = 4 << 20; /* iprof: rb size / 4 */
const volatile long raw_nr = -1; /* syscall number for s_raw_* */
/* proposed: wake the reader when the ring crosses wakeup_bytes, not on
 * every record while it is above (s_full loaded with edge = 1) */
const volatile int edge = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* iprof's default */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tstate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct action);
} actions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32); /* tgid */
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* keeps results the compiler would otherwise drop */
__u64 sink;

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		*c += 1;
}

static __always_inline int is_target(__u32 tgid)
{
	return bpf_map_lookup_elem(&targets, &tgid) != 0;
}

static __always_inline void emit(struct task_state *st, __u8 type, __u32 timer,
				 __u32 depth, __u64 pid_tgid)
{
	struct rec *r;
	__u64 q;

	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count(CNT_RB_DROP);
		st->lost = 1;
		return;
	}
	r->type = type;
	r->flags = st->lost;
	r->size = sizeof(*r);
	r->timer = timer;
	r->tid = (__u32)pid_tgid;
	r->tgid = pid_tgid >> 32;
	r->ts = bpf_ktime_get_ns();
	r->depth = depth;
	r->cpu = bpf_get_smp_processor_id();
	r->aux = 0;
	st->lost = 0;
	st->seen = 1;
	q = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
	/* a record takes sizeof(*r) + an 8-byte header in the ring */
	if (q > wakeup_bytes && (!edge || q - (sizeof(*r) + 8) <= wakeup_bytes))
		bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	else
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void timer_start(const struct action *a, __u64 pid_tgid)
{
	struct task_state *st;
	__u32 d;

	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return;
	d = st->depth;
	if (d >= MAX_DEPTH) {
		st->over++;
		return;
	}
	st->timers[d & (MAX_DEPTH - 1)] = a->timer;
	st->depth = d + 1;
	emit(st, ROLE_START, a->timer, d + 1, pid_tgid);
}

static __always_inline void timer_stop(const struct action *a, __u64 pid_tgid)
{
	struct task_state *st;
	__u32 d, i, found = 0;

	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!st || !st->depth)
		return;
	if (st->over) {
		st->over--;
		return;
	}
	d = st->depth;
	for (i = 0; i < MAX_DEPTH; i++) {
		if (i >= d)
			break;
		if (st->timers[(d - 1 - i) & (MAX_DEPTH - 1)] == a->timer) {
			found = d - i;
			break;
		}
	}
	if (!found)
		return;
	st->depth = found - 1;
	emit(st, ROLE_STOP, a->timer, found, pid_tgid);
}

static __always_inline void act(const struct action *a, __u64 pid_tgid)
{
	if (a->role == ROLE_START)
		timer_start(a, pid_tgid);
	else if (a->role == ROLE_STOP)
		timer_stop(a, pid_tgid);
}

SEC("tracepoint")
int s_lookup(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	if (a->role == ROLE_START)
		sink = pid_tgid;
	return 0;
}

SEC("tracepoint")
int s_target(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	if (a->role == ROLE_START && is_target(pid_tgid >> 32))
		sink = pid_tgid;
	return 0;
}

SEC("tracepoint")
int s_storage(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;
	struct task_state *st;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	if (a->role == ROLE_START) {
		if (!is_target(pid_tgid >> 32))
			return 0;
		st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(),
					  0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!st || st->depth >= MAX_DEPTH)
			return 0;
		st->timers[st->depth & (MAX_DEPTH - 1)] = a->timer;
		st->depth++;
	} else {
		st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(),
					  0, 0);
		if (!st || !st->depth)
			return 0;
		if (st->timers[(st->depth - 1) & (MAX_DEPTH - 1)] == a->timer)
			st->depth--;
	}
	return 0;
}

SEC("tracepoint")
int s_ktime(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	sink = bpf_ktime_get_ns() + pid_tgid;
	return 0;
}

SEC("tracepoint")
int s_rb_nots(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;
	struct rec *r;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count(CNT_RB_DROP);
		return 0;
	}
	r->type = a->role;
	r->flags = 0;
	r->size = sizeof(*r);
	r->timer = a->timer;
	r->tid = (__u32)pid_tgid;
	r->tgid = pid_tgid >> 32;
	r->ts = pid_tgid;
	r->depth = 1;
	r->cpu = bpf_get_smp_processor_id();
	r->aux = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tracepoint")
int s_rb(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;
	struct rec *r;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count(CNT_RB_DROP);
		return 0;
	}
	r->type = a->role;
	r->flags = 0;
	r->size = sizeof(*r);
	r->timer = a->timer;
	r->tid = (__u32)pid_tgid;
	r->tgid = pid_tgid >> 32;
	r->ts = bpf_ktime_get_ns();
	r->depth = 1;
	r->cpu = bpf_get_smp_processor_id();
	r->aux = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* tp_hit for an action without conditions or chain */
SEC("tracepoint")
int s_full(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	if (a->role != ROLE_START || is_target(pid_tgid >> 32))
		act(a, pid_tgid);
	return 0;
}

/*
 * Proposed: the target verdict cached in task storage.  A thread seen for
 * the first time costs the hash lookup (and, if it is no target, a small
 * storage entry: cheaper than the hash on its next hits too).
 */
static __always_inline struct task_state *cached_start_state(__u64 pid_tgid)
{
	struct task_state *st;

	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return 0;
	if (!st->target)
		st->target = is_target(pid_tgid >> 32) ? 1 : 2;
	return st->target == 1 ? st : 0;
}

SEC("tracepoint")
int s_cached(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;
	struct task_state *st;
	__u32 d;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	if (a->role != ROLE_START) {
		timer_stop(a, pid_tgid);
		return 0;
	}
	st = cached_start_state(pid_tgid);
	if (!st)
		return 0;
	d = st->depth;
	if (d >= MAX_DEPTH) {
		st->over++;
		return 0;
	}
	st->timers[d & (MAX_DEPTH - 1)] = a->timer;
	st->depth = d + 1;
	emit(st, ROLE_START, a->timer, d + 1, pid_tgid);
	return 0;
}

/*
 * Proposed: one record per timer.  The STOP record carries the start time
 * in place of tgid + aux here; a real format would grow the record to 40
 * bytes: what costs is the reserve and the cache lines, not the size.
 */
SEC("tracepoint")
int s_pair(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 key = (__u32)bpf_get_attach_cookie(ctx);
	const struct action *a;
	struct task_state *st;
	__u32 d, i, found = 0;
	struct rec *r;

	a = bpf_map_lookup_elem(&actions, &key);
	if (!a)
		return 0;
	if (a->role == ROLE_START) {
		st = cached_start_state(pid_tgid);
		if (!st)
			return 0;
		d = st->depth;
		if (d >= MAX_DEPTH) {
			st->over++;
			return 0;
		}
		st->timers[d & (MAX_DEPTH - 1)] = a->timer;
		st->start_ns[d & (MAX_DEPTH - 1)] = bpf_ktime_get_ns();
		st->depth = d + 1;
		return 0;
	}
	st = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!st || !st->depth)
		return 0;
	if (st->over) {
		st->over--;
		return 0;
	}
	d = st->depth;
	for (i = 0; i < MAX_DEPTH; i++) {
		if (i >= d)
			break;
		if (st->timers[(d - 1 - i) & (MAX_DEPTH - 1)] == a->timer) {
			found = d - i;
			break;
		}
	}
	if (!found)
		return 0;
	st->depth = found - 1;
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		count(CNT_RB_DROP);
		st->lost = 1;
		return 0;
	}
	r->type = ROLE_STOP;
	r->flags = st->lost;
	r->size = sizeof(*r);
	r->timer = a->timer;
	r->tid = (__u32)pid_tgid;
	r->ts = st->start_ns[(found - 1) & (MAX_DEPTH - 1)];
	r->tgid = (__u32)r->ts; /* start time, low and high halves */
	r->aux = r->ts >> 32;
	r->ts = bpf_ktime_get_ns();
	r->depth = found;
	r->cpu = bpf_get_smp_processor_id();
	st->lost = 0;
	if (bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) > wakeup_bytes)
		bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	else
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

#ifdef __TARGET_ARCH_x86
/*
 * Raw tracepoints: args[1] is the syscall number at sys_enter, the return
 * value at sys_exit (the number is then in regs->orig_rax).  No cookie: the
 * action is fixed (0 = START, 1 = STOP).
 */
static __always_inline int raw_act(__u32 key)
{
	const struct action *a = bpf_map_lookup_elem(&actions, &key);
	__u64 pid_tgid;

	if (!a)
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	if (a->role != ROLE_START || is_target(pid_tgid >> 32))
		act(a, pid_tgid);
	return 0;
}

SEC("raw_tp")
int s_raw_enter(struct bpf_raw_tracepoint_args *ctx)
{
	if ((long)ctx->args[1] != raw_nr)
		return 0;
	return raw_act(0);
}

SEC("raw_tp")
int s_raw_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	long nr = -1;

	bpf_probe_read_kernel(&nr, sizeof(nr), &regs->orig_rax);
	if (nr != raw_nr)
		return 0;
	return raw_act(1);
}
#endif /* __TARGET_ARCH_x86 */
