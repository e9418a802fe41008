/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_probe: the workloads and the floors of the probe-overhead benchmark
 * (bench/README.md, "Probe overhead"; bench/run.sh runs it).
 *
 * usage: bench_probe MODE WORKLOAD N [REPS]
 *
 * WORKLOAD is the loop that is timed, N iterations, REPS times (default 3):
 *   getppid     syscall(SYS_getppid): one sys_enter + one sys_exit event
 *   ucall       a call of bench_target(), an exported, never inlined
 *               function of this binary that starts with `push %rbp`:
 *               one uprobe + one uretprobe event
 *   ucall-nop5  (x86-64) a call of bench_target_nop5(), which starts with a
 *               5-byte nop like a USDT probe site: the kernel (6.18+) turns
 *               its uprobe into a call, the cheapest uprobe there is
 *   ucall-endbr (x86-64, MODE loop only) a call of bench_target_endbr(),
 *               which starts with endbr64 (bench/target.h)
 *   ucall-entry, ucall-endbr-entry
 *               (x86-64, MODE loop only) a call of bench_target_entry() or
 *               bench_target_endbr_entry(): bench_target's and
 *               bench_target_endbr's entries, returning through an
 *               indirect jmp where iprof finds no return site (an entry
 *               uprobe alone: tests/vm/bench_emulate.sh)
 *   read        read(2) of 1 byte from $BENCH_READ_FILE (default
 *               /proc/self/exe), rewinding at end of file: one vfs_read()
 *               call per iteration (a read that returns 0 at the end is
 *               one too), i.e. one fentry + one fexit, or one kprobe + one
 *               kretprobe event
 *
 * MODE says what is attached while the loop runs, in this process:
 *   loop         nothing: the baseline, and what iprof runs
 *                ("iprof ... -- bench_probe loop getppid N")
 *   empty        bench/empty.bpf.c programs that only return 0, attached as
 *                iprof attaches its own: a perf-event tracepoint link on
 *                syscalls:sys_enter_getppid and sys_exit_getppid, or a
 *                uprobe and a uretprobe on the target (every process)
 *   empty-rawtp  (getppid) the empty program as raw tracepoints on
 *                raw_syscalls:sys_enter / sys_exit (every syscall)
 *   steps-lookup, steps-target, steps-storage, steps-full, steps-ktime,
 *   steps-rb-nots, steps-rb
 *                (getppid) bench/steps.bpf.c: a copy of iprof's tracepoint
 *                program built up step by step, with a reader thread that
 *                drains the ring buffer every 10 ms as iprof does;
 *                steps-full is iprof's tp_hit
 *   steps-wake   steps-full, waking the reader on every record
 *   steps-rawtp  steps-full's work on raw_syscalls:sys_enter / sys_exit
 *   steps-cached, steps-pair, steps-edge
 *                proposed changes (see bench/steps.bpf.c)
 *   empty-fentry (read) the empty programs as fentry + fexit on vfs_read,
 *                as iprof attaches fentry:vfs_read
 *   empty-rsite (ucall, ucall-nop5) the empty uprobe program on the
 *                target's entry and on its ret (a return site: iprof's
 *                stop of a user function, src/probe/retsite.c) instead of a
 *                uretprobe (BENCH_RSITE_OFF=N: at byte N of it instead of
 *                the ret, 8)
 *   empty-kprobe (read) the empty programs as kprobe + kretprobe (perf
 *                event links) on vfs_read, as iprof attaches kprobe:vfs_read
 * (The kernel-function programs of bench/empty.bpf.c load only in these two
 * modes: other kernels refuse fentry or have no kprobes.  tests/vm/
 * bench_kfunc.sh runs them in the VM.)
 *
 * Environment (steps-*): BENCH_RB_SIZE=BYTES sets the ring-buffer size
 * (default 16M, iprof's default; a power of 2, at least a page);
 * BENCH_STALL_MS=MS makes the reader stop reading for MS ms every 200 ms,
 * as a reader does that the scheduler or its own work holds up.
 *
 * Output, one line on stdout:
 *   mode=M workload=W n=N reps=R calls=N*R ns_per_iter=BEST median=MEDIAN
 *   prog_ns=P [records=C drops=D iwi=I]
 * ns_per_iter is the best of the REPS repetitions (CLOCK_MONOTONIC around
 * each loop); calls is how many times the loop ran in total, i.e. the count
 * a tracer of this process must report.  prog_ns is the mean run time of
 * the attached BPF programs per run, from the kernel's BPF statistics
 * ("-" unless sysctl kernel.bpf_stats_enabled=1).  records and drops
 * (steps-*): ring-buffer records read and reserves that failed; iwi
 * (x86): IRQ-work interrupts on the host during the loops (/proc/interrupts
 * IWI): each wakeup of the reader from BPF is one.  Exit status 0, 1 on a
 * BPF error, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "empty.skel.h"
#include "steps.skel.h"

#define MAX_REPS 64

volatile int bench_sink;

#include "target.h"

enum kind {
	K_LOOP,
	K_EMPTY,
	K_EMPTY_RAWTP,
	K_STEPS,
	K_STEPS_RAWTP,
	K_EMPTY_FENTRY,
	K_EMPTY_KPROBE,
	K_EMPTY_RSITE
};

static const struct mode {
	const char *name;
	enum kind kind;
	const char *prog; /* steps.bpf.c program */
	int wake; /* 1: wake on every record, 2: on crossing wakeup_bytes */
} modes[] = {
	{"loop", K_LOOP, NULL, 0},
	{"empty", K_EMPTY, NULL, 0},
	{"empty-rawtp", K_EMPTY_RAWTP, NULL, 0},
	{"steps-lookup", K_STEPS, "s_lookup", 0},
	{"steps-target", K_STEPS, "s_target", 0},
	{"steps-storage", K_STEPS, "s_storage", 0},
	{"steps-ktime", K_STEPS, "s_ktime", 0},
	{"steps-rb-nots", K_STEPS, "s_rb_nots", 0},
	{"steps-rb", K_STEPS, "s_rb", 0},
	{"steps-full", K_STEPS, "s_full", 0},
	{"steps-wake", K_STEPS, "s_full", 1},
	{"steps-edge", K_STEPS, "s_full", 2},
	{"steps-rawtp", K_STEPS_RAWTP, NULL, 0},
	{"steps-cached", K_STEPS, "s_cached", 0},
	{"steps-pair", K_STEPS, "s_pair", 0},
	{"empty-fentry", K_EMPTY_FENTRY, NULL, 0},
	{"empty-kprobe", K_EMPTY_KPROBE, NULL, 0},
	{"empty-rsite", K_EMPTY_RSITE, NULL, 0},
};

enum workload { W_GETPPID, W_UCALL, W_UCALL_NOP5, W_UCALL_ENDBR, W_READ };

/* the ucall workloads' targets (x86-64 beyond ucall; loop_only: MODE
 * loop alone, W_UCALL_ENDBR's checks) */
static const struct ucall {
	const char *name;
	enum workload w;
	int (*fn)(int);
} ucalls[] = {
	{"ucall", W_UCALL, bench_target},
#ifdef __x86_64__
	{"ucall-nop5", W_UCALL_NOP5, bench_target_nop5},
	{"ucall-endbr", W_UCALL_ENDBR, bench_target_endbr},
	{"ucall-entry", W_UCALL_ENDBR, bench_target_entry},
	{"ucall-endbr-entry", W_UCALL_ENDBR, bench_target_endbr_entry},
#endif
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t run_getppid(long n)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return now_ns() - t0;
}

static uint64_t run_ucall(long n, int (*fn)(int))
{
	uint64_t t0 = now_ns();
	int acc = 0;
	long i;

	for (i = 0; i < n; i++)
		acc += fn((int)i);
	bench_sink = acc;
	return now_ns() - t0;
}

/* read workload: one read(2), one vfs_read(), per iteration */
static int read_fd = -1;
static char read_buf[1];

static uint64_t run_read(long n)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		ssize_t r = read(read_fd, read_buf, 1);

		if (r <= 0 && (r < 0 || lseek(read_fd, 0, SEEK_SET) < 0)) {
			fprintf(stderr, "bench_probe: read: %s\n",
				strerror(errno));
			exit(1);
		}
	}
	return now_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int usage(void)
{
	size_t i;

	fprintf(stderr, "usage: bench_probe MODE WORKLOAD N [REPS]\n"
			"  MODE:");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		fprintf(stderr, " %s", modes[i].name);
	fprintf(stderr, "\n  WORKLOAD: getppid ucall ucall-nop5 ucall-endbr "
			"ucall-entry ucall-endbr-entry read\n");
	return 2;
}

/* ---- what is attached ---------------------------------------------------- */

#define MAX_LINKS 2

struct attached {
	struct empty_bpf *empty;
	struct steps_bpf *steps;
	struct bpf_link *links[MAX_LINKS];
	struct bpf_program *progs[MAX_LINKS]; /* for the run-time stats */
	/* steps: the ring-buffer reader */
	struct ring_buffer *rb;
	pthread_t reader;
	int reader_started;
	volatile int stop;
	uint64_t records;
};

static int link_ok(struct attached *at, int i, struct bpf_program *p,
		   struct bpf_link *l)
{
	if (!l)
		return -errno;
	at->links[i] = l;
	at->progs[i] = p;
	return 0;
}

static int attach_tp_pair(struct attached *at, struct bpf_program *p,
			  int cookies)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, to);
	int err;

	to.bpf_cookie = 0; /* steps: actions[0] is the START */
	err = link_ok(at, 0, p,
		      bpf_program__attach_tracepoint_opts(
			      p, "syscalls", "sys_enter_getppid",
			      cookies ? &to : NULL));
	if (err)
		return err;
	to.bpf_cookie = 1; /* actions[1] is the STOP */
	return link_ok(at, 1, p,
		       bpf_program__attach_tracepoint_opts(
			       p, "syscalls", "sys_exit_getppid",
			       cookies ? &to : NULL));
}

static int attach_raw_pair(struct attached *at, struct bpf_program *enter,
			   struct bpf_program *exit)
{
	int err;

	err = link_ok(at, 0, enter,
		      bpf_program__attach_raw_tracepoint(enter, "sys_enter"));
	if (err)
		return err;
	return link_ok(at, 1, exit,
		       bpf_program__attach_raw_tracepoint(exit, "sys_exit"));
}

/* offset of the ret in bench_target and bench_target_nop5 (target.h) */
#define TARGET_RET_OFF 8

static int attach_uprobe_pair(struct attached *at, struct bpf_program *entry,
			      struct bpf_program *ret, const char *func,
			      int rsite)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	char exe[4096];
	ssize_t len;
	int err;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -errno;
	exe[len] = '\0';
	/* every process (pid -1), as iprof attaches */
	uo.func_name = func;
	err = link_ok(at, 0, entry,
		      bpf_program__attach_uprobe_opts(entry, -1, exe, 0, &uo));
	if (err)
		return err;
	if (rsite) /* a plain uprobe on the ret instruction */
		return link_ok(at, 1, entry,
			       bpf_program__attach_uprobe_opts(
				       entry, -1, exe,
				       getenv("BENCH_RSITE_OFF") ?
					       strtoul(getenv("BENCH_RSITE_OFF"), NULL, 0) :
					       TARGET_RET_OFF,
				       &uo));
	uo.retprobe = true;
	return link_ok(at, 1, ret,
		       bpf_program__attach_uprobe_opts(ret, -1, exe, 0, &uo));
}

/* fentry + fexit, or kprobe + kretprobe, on vfs_read */
static int attach_kfunc_pair(struct attached *at, struct bpf_program *entry,
			     struct bpf_program *ret, int kprobe)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko);
	int err;

	if (!kprobe) {
		err = link_ok(at, 0, entry, bpf_program__attach(entry));
		if (err)
			return err;
		return link_ok(at, 1, ret, bpf_program__attach(ret));
	}
	err = link_ok(at, 0, entry,
		      bpf_program__attach_kprobe_opts(entry, "vfs_read", &ko));
	if (err)
		return err;
	ko.retprobe = true;
	return link_ok(at, 1, ret,
		       bpf_program__attach_kprobe_opts(ret, "vfs_read", &ko));
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct attached *at = ctx;

	at->records++;
	return 0;
}

static long stall_ms;

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* IRQ-work interrupts so far, all CPUs (x86 /proc/interrupts IWI), or 0 */
static uint64_t irq_work_count(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096], *p, *end;
	uint64_t sum = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "IWI:", 4))
			continue;
		p += 4;
		for (;;) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	fclose(f);
	return sum;
}

static void *reader(void *arg)
{
	struct attached *at = arg;
	uint64_t next = now_ns() + 200000000ull;

	/* as iprof's loader__poll(): records come without a wakeup (unless
	 * the ring fills past wakeup_bytes), so poll() mostly times out and
	 * the ring is drained every 10 ms */
	while (!at->stop) {
		ring_buffer__poll(at->rb, 10);
		ring_buffer__consume(at->rb);
		if (stall_ms && now_ns() >= next) {
			sleep_ms(stall_ms);
			next = now_ns() + 200000000ull;
		}
	}
	ring_buffer__consume(at->rb);
	return NULL;
}

/* bench/steps.bpf.c's struct action; 0 START, 1 STOP of timer 0 */
struct step_action {
	__u32 timer;
	__u32 role;
};

static int load_steps(struct attached *at, const struct mode *m, int wake)
{
	struct step_action act[2] = {{0, 1}, {0, 2}};
	__u32 key, tgid = (__u32)getpid();
	__u8 one = 1;
	struct bpf_program *p, *p2;
	int err;

	at->steps = steps_bpf__open();
	if (!at->steps)
		return -errno;
	/* iprof's default: 16M ring, wake the reader past a quarter */
	at->steps->rodata->wakeup_bytes = wake == 1 ? 0 : (16u << 20) / 4;
	at->steps->rodata->edge = wake == 2;
	at->steps->rodata->raw_nr = SYS_getppid;
	if (getenv("BENCH_RB_SIZE")) {
		unsigned long sz = strtoul(getenv("BENCH_RB_SIZE"), NULL, 0);

		bpf_map__set_max_entries(at->steps->maps.rb, (__u32)sz);
		if (wake != 1)
			at->steps->rodata->wakeup_bytes = sz / 4;
	}
	err = steps_bpf__load(at->steps);
	if (err)
		return err;

	for (key = 0; key < 2; key++)
		if (bpf_map_update_elem(bpf_map__fd(at->steps->maps.actions),
					&key, &act[key], BPF_ANY))
			return -errno;
	if (bpf_map_update_elem(bpf_map__fd(at->steps->maps.targets), &tgid,
				&one, BPF_ANY))
		return -errno;

	at->rb = ring_buffer__new(bpf_map__fd(at->steps->maps.rb), on_record,
				  at, NULL);
	if (!at->rb)
		return -errno;
	err = pthread_create(&at->reader, NULL, reader, at);
	if (err)
		return -err;
	at->reader_started = 1;

	if (m->kind == K_STEPS_RAWTP) {
		/* x86 only (syscall number from pt_regs) */
		p = bpf_object__find_program_by_name(at->steps->obj,
						     "s_raw_enter");
		p2 = bpf_object__find_program_by_name(at->steps->obj,
						      "s_raw_exit");
		if (!p || !p2)
			return -EOPNOTSUPP;
		return attach_raw_pair(at, p, p2);
	}
	p = bpf_object__find_program_by_name(at->steps->obj, m->prog);
	if (!p)
		return -ENOENT;
	return attach_tp_pair(at, p, 1);
}

static int setup(struct attached *at, const struct mode *m, enum workload w)
{
	const char *func =
		w == W_UCALL_NOP5 ? "bench_target_nop5" : "bench_target";
	int err;

	switch (m->kind) {
	case K_LOOP:
		return 0;
	case K_STEPS:
	case K_STEPS_RAWTP:
		return load_steps(at, m, m->wake);
	default:
		break;
	}
	at->empty = empty_bpf__open();
	if (!at->empty)
		return -errno;
	/* the kernel-function programs only in their own modes */
	bpf_program__set_autoload(at->empty->progs.fentry_empty,
				  m->kind == K_EMPTY_FENTRY);
	bpf_program__set_autoload(at->empty->progs.fexit_empty,
				  m->kind == K_EMPTY_FENTRY);
	bpf_program__set_autoload(at->empty->progs.kprobe_empty,
				  m->kind == K_EMPTY_KPROBE);
	bpf_program__set_autoload(at->empty->progs.kretprobe_empty,
				  m->kind == K_EMPTY_KPROBE);
	err = empty_bpf__load(at->empty);
	if (err)
		return err;
	if (m->kind == K_EMPTY_FENTRY)
		return attach_kfunc_pair(at, at->empty->progs.fentry_empty,
					 at->empty->progs.fexit_empty, 0);
	if (m->kind == K_EMPTY_KPROBE)
		return attach_kfunc_pair(at, at->empty->progs.kprobe_empty,
					 at->empty->progs.kretprobe_empty, 1);
	if (m->kind == K_EMPTY_RAWTP)
		return attach_raw_pair(at, at->empty->progs.rawtp_empty,
				       at->empty->progs.rawtp_empty);
	if (w == W_GETPPID)
		return attach_tp_pair(at, at->empty->progs.tp_empty, 0);
	return attach_uprobe_pair(at, at->empty->progs.uprobe_empty,
				  at->empty->progs.uretprobe_empty, func,
				  m->kind == K_EMPTY_RSITE);
}

/* Mean ns per run of the attached programs, or -1 without BPF stats. */
static double prog_ns(struct attached *at)
{
	__u64 ns = 0, cnt = 0;
	int i, j;

	for (i = 0; i < MAX_LINKS; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (!at->progs[i])
			continue;
		for (j = 0; j < i; j++)
			if (at->progs[j] == at->progs[i])
				break;
		if (j < i)
			continue; /* the same program on both probes */
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(at->progs[i]), &info,
					   &len))
			return -1;
		ns += info.run_time_ns;
		cnt += info.run_cnt;
	}
	return cnt ? (double)ns / (double)cnt : -1;
}

static uint64_t drops(struct attached *at)
{
	__u32 key = 0; /* steps.bpf.c CNT_RB_DROP */
	uint64_t sum = 0, *v;
	int ncpu, i;

	/* not for the other modes: reading /sys would add a vfs_read() to
	 * the read workload's */
	if (!at->steps)
		return 0;
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return 0;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(at->steps->maps.counters), &key,
				 v))
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

static void teardown(struct attached *at)
{
	int i;

	for (i = 0; i < MAX_LINKS; i++)
		bpf_link__destroy(at->links[i]);
	if (at->reader_started) {
		at->stop = 1;
		pthread_join(at->reader, NULL);
	}
	ring_buffer__free(at->rb);
	empty_bpf__destroy(at->empty);
	steps_bpf__destroy(at->steps);
}

int main(int argc, char **argv)
{
	struct attached at;
	const struct mode *m = NULL;
	uint64_t t[MAX_REPS], best, med, nd = 0, iwi;
	int (*fn)(int) = bench_target;
	const struct ucall *u = NULL;
	enum workload w;
	long n, reps = 3, r;
	double pns;
	char pbuf[32];
	size_t i;
	char *end;
	int err, steps;

	if (argc < 4 || argc > 5)
		return usage();
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			m = &modes[i];
	if (!m)
		return usage();
	w = !strcmp(argv[2], "getppid") ? W_GETPPID :
	    !strcmp(argv[2], "read")	? W_READ :
					  W_UCALL;
	for (i = 0; w == W_UCALL && i < sizeof(ucalls) / sizeof(ucalls[0]); i++)
		if (!strcmp(argv[2], ucalls[i].name)) {
			u = &ucalls[i];
			fn = u->fn;
		}
	if (w == W_UCALL && !u)
		return usage();
	if (u)
		w = u->w;
	/* (ucall-nop5 and ucall-endbr* are x86-64's alone: see ucalls[]) */
	if (w == W_UCALL_ENDBR && m->kind != K_LOOP)
		return usage();
	if (m->kind == K_EMPTY_FENTRY || m->kind == K_EMPTY_KPROBE ||
	    w == W_READ) {
		if (w != W_READ || (m->kind != K_LOOP &&
				    m->kind != K_EMPTY_FENTRY &&
				    m->kind != K_EMPTY_KPROBE)) {
			fprintf(stderr, "bench_probe: %s %s: read goes with "
					"loop, empty-fentry, empty-kprobe\n",
				m->name, argv[2]);
			return 2;
		}
	} else if (m->kind == K_EMPTY_RSITE) {
		if (w != W_UCALL && w != W_UCALL_NOP5) {
			fprintf(stderr, "bench_probe: empty-rsite: ucall or "
					"ucall-nop5 only\n");
			return 2;
		}
	} else if (w != W_GETPPID && m->kind != K_LOOP && m->kind != K_EMPTY) {
		fprintf(stderr, "bench_probe: %s: getppid only\n", m->name);
		return 2;
	}
	errno = 0;
	n = strtol(argv[3], &end, 10);
	if (errno || *end || n <= 0)
		return usage();
	if (argc == 5) {
		reps = strtol(argv[4], &end, 10);
		if (*end || reps <= 0 || reps > MAX_REPS)
			return usage();
	}

	if (w == W_READ) {
		const char *f = getenv("BENCH_READ_FILE");

		if (!f || !*f)
			f = "/proc/self/exe";
		read_fd = open(f, O_RDONLY);
		if (read_fd < 0) {
			fprintf(stderr, "bench_probe: %s: %s\n", f,
				strerror(errno));
			return 1;
		}
	}
	if (getenv("BENCH_STALL_MS"))
		stall_ms = strtol(getenv("BENCH_STALL_MS"), NULL, 10);
	memset(&at, 0, sizeof(at));
	libbpf_set_print(libbpf_quiet);
	err = setup(&at, m, w);
	if (err) {
		fprintf(stderr, "bench_probe: %s: cannot load or attach: %s\n",
			m->name, strerror(-err));
		teardown(&at);
		return 1;
	}

	/* /proc/interrupts is read only where iwi is printed: the read
	 * workload's vfs_read() calls must be the loop's alone */
	steps = m->kind == K_STEPS || m->kind == K_STEPS_RAWTP;
	iwi = steps ? irq_work_count() : 0;
	for (r = 0; r < reps; r++)
		t[r] = w == W_GETPPID ? run_getppid(n)
		       : w == W_READ  ? run_read(n)
				      : run_ucall(n, fn);
	iwi = steps ? irq_work_count() - iwi : 0;

	pns = prog_ns(&at);
	nd = drops(&at);
	teardown(&at); /* joins the reader: every record is counted */

	qsort(t, (size_t)reps, sizeof(t[0]), cmp_u64);
	best = t[0];
	med = t[reps / 2];
	if (pns >= 0)
		snprintf(pbuf, sizeof(pbuf), "%.1f", pns);
	else
		snprintf(pbuf, sizeof(pbuf), "-");
	printf("mode=%s workload=%s n=%ld reps=%ld calls=%ld ns_per_iter=%.2f "
	       "median=%.2f prog_ns=%s",
	       m->name, argv[2], n, reps, n * reps, (double)best / (double)n,
	       (double)med / (double)n, pbuf);
	if (steps)
		printf(" records=%llu drops=%llu iwi=%llu",
		       (unsigned long long)at.records, (unsigned long long)nd,
		       (unsigned long long)iwi);
	printf("\n");
	return 0;
}
