// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring-buffer floors of bench/scale.sh (bench/README.md, "Scaling"):
 * each hit writes one 24-byte record (timestamp, pid_tgid, cpu and a
 * counter) into a BPF ring buffer, and nothing else: into one ring shared
 * by every CPU (shared_rb, whose spinlock every CPU takes), or into the ring
 * of the CPU it runs on (rings, one per possible CPU, as iprof does since
 * issue 8).  A failed reserve counts a drop.  bench_scale attaches one
 * program pair at a time and drains the rings every millisecond.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct rec {
	__u64 ts;
	__u64 pid_tgid;
	__u32 cpu;
	__u32 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24); /* resized by bench_scale */
} shared_rb SEC(".maps");

struct rb_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16); /* bench_scale sets the template */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* resized: possible CPUs */
	__type(key, __u32);
	__array(values, struct rb_inner);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline int put(void *rb)
{
	__u32 zero = 0;
	struct rec *r;
	__u64 *d;

	r = rb ? bpf_ringbuf_reserve(rb, sizeof(*r), 0) : (void *)0;
	if (!r) {
		d = bpf_map_lookup_elem(&drops, &zero);
		if (d)
			(*d)++;
		return 0;
	}
	r->ts = bpf_ktime_get_ns();
	r->pid_tgid = bpf_get_current_pid_tgid();
	r->cpu = bpf_get_smp_processor_id();
	r->n = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline int put_percpu(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return put(bpf_map_lookup_elem(&rings, &cpu));
}

SEC("tracepoint")
int tp_shared(void *ctx)
{
	return put(&shared_rb);
}

SEC("tracepoint")
int tp_percpu(void *ctx)
{
	return put_percpu();
}

/* attached as uprobe and as uretprobe */
SEC("uprobe")
int up_shared(void *ctx)
{
	return put(&shared_rb);
}

SEC("uprobe")
int up_percpu(void *ctx)
{
	return put_percpu();
}
