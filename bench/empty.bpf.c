// SPDX-License-Identifier: GPL-2.0-only
/*
 * The floor of bench_probe (bench/README.md, "Probe overhead"): BPF programs
 * that do nothing but return 0, on the probes iprof uses for the same
 * timers.  Attached one pair at a time by bench_probe, never all at once.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* syscalls:sys_enter_getppid / sys_exit_getppid, as iprof attaches a span
 * (a perf-event tracepoint link) */
SEC("tracepoint")
int tp_empty(void *ctx)
{
	return 0;
}

/* raw_syscalls:sys_enter / sys_exit as raw tracepoints: every syscall, no
 * perf trace record built; the cheapest way to see a syscall */
SEC("raw_tp")
int rawtp_empty(void *ctx)
{
	return 0;
}

/* uprobe + uretprobe on bench_target */
SEC("uprobe")
int uprobe_empty(void *ctx)
{
	return 0;
}

SEC("uretprobe")
int uretprobe_empty(void *ctx)
{
	return 0;
}

/*
 * vfs_read() (bench_probe's `read` workload), as iprof attaches
 * fentry:vfs_read and kprobe:vfs_read.  Not loaded by the other modes
 * (bench_probe sets their autoload off): fentry needs kernel BTF and a
 * kernel that allows it, kprobes CONFIG_KPROBES; see tests/vm/bench_kfunc.sh.
 */
SEC("fentry/vfs_read")
int fentry_empty(void *ctx)
{
	return 0;
}

SEC("fexit/vfs_read")
int fexit_empty(void *ctx)
{
	return 0;
}

SEC("kprobe/vfs_read")
int kprobe_empty(void *ctx)
{
	return 0;
}

SEC("kretprobe/vfs_read")
int kretprobe_empty(void *ctx)
{
	return 0;
}
