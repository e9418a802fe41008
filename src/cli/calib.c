// SPDX-License-Identifier: GPL-2.0-only
/*
 * Overhead calibration, the measuring part (include/iprof/calib_cost.h): the
 * classes of mechanism a plan uses get a plan of iprof's own, a timer
 * each (its iprof_calib_push() and iprof_calib_step() functions, its
 * getppid(2) or getpid(2) calls, its iprof_calib_usdt() with two USDT
 * sites), loaded with the same BPF programs in at
 * most two loads (one per setting of --returns and of syscall spans) and
 * one per kernel function class (they time the same kernel function),
 * filtered to iprof's own process, and each call timed untraced, then
 * traced, by iprof's clock and by the records.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cli/calib.h"
#include "iprof/abi.h"
#include "iprof/pipeline.h"
#include "iprof/probe.h"
#include "iprof/util.h"
#include "kernel/loader.h"
#include "kernel/kmech.h"
#include "cli/log.h"

/*
 * The user functions of the calibration, one per way the kernel treats a
 * function's first instruction (uprobes emulate `push`, as they do jmp,
 * call, jcc and nop: iprof_calib_push's class is theirs; they single-step
 * most others, after the entry's timestamp), and one whose
 * single-stepped entry iprof splits (at the `call` after it, which the
 * kernel emulates: IPROF_REC_GAP() of abi.h), each ending in `ret`.
 * Global and in .text, so that iprof's own symbol table names them with
 * their sizes.
 */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl iprof_calib_push\n"
	".type iprof_calib_push, @function\n"
	"iprof_calib_push:\n"
	"\tpush %rbp\n"
	"\tmov %rsp, %rbp\n"
	"\tpop %rbp\n"
	"\tret\n"
	".size iprof_calib_push, .-iprof_calib_push\n"
	".globl iprof_calib_step\n"
	".type iprof_calib_step, @function\n"
	"iprof_calib_step:\n"
	"\tsub $8, %rsp\n"
	"\tadd $8, %rsp\n"
	"\tret\n"
	".size iprof_calib_step, .-iprof_calib_step\n"
	".globl iprof_calib_split\n"
	".type iprof_calib_split, @function\n"
	"iprof_calib_split:\n"
	"\tsub $8, %rsp\n"
	"\tcall iprof_calib_ret\n"
	"\tadd $8, %rsp\n"
	"\tret\n"
	".size iprof_calib_split, .-iprof_calib_split\n"
	".type iprof_calib_ret, @function\n"
	"iprof_calib_ret:\n"
	"\tret\n"
	".size iprof_calib_ret, .-iprof_calib_ret\n"
	/* two USDT probes, iprof:calib_start and iprof:calib_stop, on the
	 * nops sys/sdt.h puts at a site (written out: iprof builds without
	 * the header), in SDT notes version 3 (8-byte words) */
	".globl iprof_calib_usdt\n"
	".type iprof_calib_usdt, @function\n"
	"iprof_calib_usdt:\n"
	"990:\tnop\n"
	"989:\tnop\n"
	"\tret\n"
	".size iprof_calib_usdt, .-iprof_calib_usdt\n"
	".pushsection .note.stapsdt,\"\",\"note\"\n"
	".balign 4\n"
	".4byte 992f-991f, 994f-993f, 3\n"
	"991:\t.asciz \"stapsdt\"\n"
	"992:\t.balign 4\n"
	"993:\t.8byte 990b, 0, 0\n"
	"\t.asciz \"iprof\"\n"
	"\t.asciz \"calib_start\"\n"
	"\t.asciz \"\"\n"
	"994:\t.balign 4\n"
	".4byte 996f-995f, 998f-997f, 3\n"
	"995:\t.asciz \"stapsdt\"\n"
	"996:\t.balign 4\n"
	"997:\t.8byte 989b, 0, 0\n"
	"\t.asciz \"iprof\"\n"
	"\t.asciz \"calib_stop\"\n"
	"\t.asciz \"\"\n"
	"998:\t.balign 4\n"
	".popsection\n");
void iprof_calib_push(void);
void iprof_calib_step(void);
void iprof_calib_split(void);
void iprof_calib_usdt(void);
#define HAVE_CALIB_USDT 1
#else
#define HAVE_CALIB_USDT 0
__attribute__((noinline, used)) void iprof_calib_push(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void iprof_calib_step(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline, used)) void iprof_calib_split(void)
{
	__asm__ volatile("" ::: "memory");
}
#endif

/* through volatile pointers: the calls are never inlined or moved */
static void (*volatile leaf_push)(void) = iprof_calib_push;
static void (*volatile leaf_step)(void) = iprof_calib_step;
static void (*volatile leaf_split)(void) = iprof_calib_split;

static void call_push(void)
{
	leaf_push();
}

static void call_step(void)
{
	leaf_step();
}

static void call_split(void)
{
	leaf_split();
}

static void call_usdt(void)
{
#if HAVE_CALIB_USDT
	static void (*volatile usdt)(void) = iprof_calib_usdt;

	usdt();
#endif
}

static void call_getppid(void)
{
	syscall(SYS_getppid);
}

static void call_getpid(void)
{
	syscall(SYS_getpid);
}

/* The probe line that times one call of class @c, and the call. */
static const char *class_spec(enum calib_class c, void (**call)(void))
{
	*call = call_getppid;
	switch (c) {
	case CALIB_RETSITE:
	case CALIB_URETPROBE:
		*call = call_push;
		return "uprobe:/proc/self/exe:iprof_calib_push";
	case CALIB_RETSITE_STEP:
	case CALIB_URETPROBE_STEP:
		*call = call_step;
		return "uprobe:/proc/self/exe:iprof_calib_step";
	case CALIB_URETPROBE_SPLIT:
		*call = call_split;
		return "uprobe:/proc/self/exe:iprof_calib_split";
	case CALIB_USDT:
		*call = call_usdt;
		/* (no USDT site of iprof's own on other architectures: a
		 * plan error, the class not measured, said why) */
		return "span calib_usdt = usdt:/proc/self/exe:iprof:calib_start "
		       "-> usdt:/proc/self/exe:iprof:calib_stop";
	case CALIB_SYSCALL:
	case CALIB_TRACEPOINT:
		return "span calib_span = tracepoint:syscalls:sys_enter_getppid -> "
		       "tracepoint:syscalls:sys_exit_getppid";
	/* getpid(2), not getppid: not nested in the span's calls; what
	 * it calls, not the syscall wrapper, which ftrace cannot trace */
	case CALIB_FENTRY:
		*call = call_getpid;
		return "fentry:__task_pid_nr_ns as calib_fentry";
	case CALIB_KPROBE:
		*call = call_getpid;
		return "kprobe:__task_pid_nr_ns as calib_kprobe";
	case CALIB_FUNC:
		*call = call_getpid;
		return "func:__task_pid_nr_ns as calib_func";
	default:
		return NULL;
	}
}

/*
 * The CPUs the rounds run on in turn, so that each CPU's probes are
 * measured (calib_rounds_on()): every CPU iprof may run on, each as many
 * rounds, together at least CALIB_ROUNDS, of CALIB_ROUNDS x CALIB_CALLS
 * calls in all.  Not pinned (CALIB_ROUNDS rounds where the scheduler puts
 * them, no factor per CPU) with one CPU allowed, or a CPU number from
 * AGG_CPU_SCALE_MAX up.
 */
struct pin {
	cpu_set_t orig; /* the thread's affinity before, restored after */
	int have_orig;
	uint16_t cpu[AGG_CPU_SCALE_MAX];
	unsigned int ncpu; /* CPUs in cpu[]; 0: not pinned */
	uint32_t top; /* the highest CPU number in cpu[] + 1 */
	unsigned int rounds, per; /* rounds, and calls a round */
};

static void pin_init(struct pin *p)
{
	unsigned int c;

	memset(p, 0, sizeof(*p));
	p->rounds = CALIB_ROUNDS;
	p->per = CALIB_CALLS;
	if (sched_getaffinity(0, sizeof(p->orig), &p->orig))
		return;
	p->have_orig = 1;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &p->orig))
			continue;
		if (c >= AGG_CPU_SCALE_MAX) {
			p->ncpu = 0;
			return;
		}
		p->cpu[p->ncpu++] = (uint16_t)c;
		p->top = c + 1;
	}
	if (p->ncpu < 2) {
		p->ncpu = 0;
		return;
	}
	p->rounds = p->ncpu * ((CALIB_ROUNDS + p->ncpu - 1) / p->ncpu);
	p->per = CALIB_ROUNDS * CALIB_CALLS / p->rounds;
}

/* round @r runs on its CPU (a failure leaves it where it is) */
static void pin_round(const struct pin *p, unsigned int r)
{
	cpu_set_t one;

	if (!p->ncpu)
		return;
	CPU_ZERO(&one);
	CPU_SET(p->cpu[r % p->ncpu], &one);
	sched_setaffinity(0, sizeof(one), &one);
}

static void pin_done(const struct pin *p)
{
	if (p->ncpu && p->have_orig)
		sched_setaffinity(0, sizeof(p->orig), &p->orig);
}

/*
 * per_cpu() - @spread's cpu_pm from the @p->rounds rounds of @v (each
 * round's slice sorted in place) against the untraced call @b_ns, and
 * each call's time scaled to the all-CPU mean cost (b + (v - b) / factor)
 * so that the spread measured after is the one left once each call is
 * compensated by its CPU's cost.  Nothing where @p is not pinned.
 */
static void per_cpu(const struct pin *p, uint64_t *v, uint64_t b_ns,
		    struct calib_result *spread)
{
	uint64_t m[AGG_CPU_SCALE_MAX + CALIB_ROUNDS];
	uint16_t cpu[AGG_CPU_SCALE_MAX + CALIB_ROUNDS];
	unsigned int r, i;
	uint64_t *s;
	uint16_t f;

	if (!p->ncpu || p->rounds > AGG_CPU_SCALE_MAX + CALIB_ROUNDS)
		return;
	for (r = 0; r < p->rounds; r++) {
		s = v + (size_t)r * p->per;
		calib_median(s, p->per);
		m[r] = calib_mean(s, p->per);
		cpu[r] = p->cpu[r % p->ncpu];
	}
	if (calib_rounds_on(m, cpu, p->rounds, b_ns, spread->cpu_pm, p->top))
		return;
	spread->ncpu = p->top;
	for (r = 0; r < p->rounds; r++) {
		s = v + (size_t)r * p->per;
		f = spread->cpu_pm[cpu[r]];
		for (i = 0; i < p->per; i++)
			if (s[i] > b_ns)
				s[i] = b_ns + (s[i] - b_ns) * 1000u / f;
	}
}

/*
 * time_calls() - @p's rounds of calls of @call, each timed alone into @v
 * (at most CALIB_ROUNDS x CALIB_CALLS), each round on its CPU: their
 * median (ns), as D's is over the same calls, and their mean into @mean
 * (calib_mean()).  @l (may be NULL): drained after each round, so that no
 * ring fills.  @spread (may be NULL): its cpu_pm and ncpu (per_cpu(),
 * against @b_ns), then its sd_ns and drift_ns set (calib_spread()).
 * @raw (may be NULL): each call's time too, in call order (@v is sorted).
 */
static uint64_t time_calls(void (*call)(void), struct loader *l, uint64_t *v,
			   uint64_t *mean, struct calib_result *spread,
			   const struct pin *p, uint64_t b_ns, uint64_t *raw)
{
	const size_t n = (size_t)p->rounds * p->per;
	uint64_t med;
	unsigned int r, i;
	uint64_t t0;

	for (r = 0; r < p->rounds; r++) {
		pin_round(p, r);
		for (i = 0; i < p->per; i++) {
			t0 = util_now_ns();
			call();
			v[r * p->per + i] = util_now_ns() - t0;
		}
		if (l)
			loader__poll(l, 0);
	}
	pin_done(p);
	if (raw)
		memcpy(raw, v, n * sizeof(*v));
	if (spread) { /* the traced calls' spread, before the sort */
		per_cpu(p, v, b_ns, spread);
		calib_spread(v, n, p->rounds, &spread->sd_ns,
			     &spread->drift_ns);
	}
	med = calib_median(v, n);
	*mean = calib_mean(v, n);
	return med;
}

/*
 * cold_calls() - CALIB_COLD_CALLS calls of @call, each after
 * CALIB_COLD_SPIN_NS of spinning, after the rounds (traced: their records
 * are the last of the timer's, cold_of() reads them; @l drained as they
 * go) or before the probes attach (@l NULL): their mean time by iprof's
 * clock (calib_mean()), each call's in @v (CALIB_COLD_CALLS, sorted).  The
 * host's other tasks touch the caches meanwhile as they do in the run (a
 * 2 MiB write between the calls read 1.2-1.3 us here, against 92 ns
 * without: too cold for a run's probes microseconds apart).
 */
static uint64_t cold_calls(void (*call)(void), struct loader *l,
			   uint64_t *v)
{
	unsigned int k;
	uint64_t t0;

	for (k = 0; k < CALIB_COLD_CALLS; k++) {
		t0 = util_now_ns();
		while (util_now_ns() - t0 < CALIB_COLD_SPIN_NS)
			;
		t0 = util_now_ns();
		call();
		v[k] = util_now_ns() - t0;
		if (l && k % 64 == 63)
			loader__poll(l, 0);
	}
	calib_median(v, CALIB_COLD_CALLS);
	return calib_mean(v, CALIB_COLD_CALLS);
}

/* A calibration timer's durations, from its records (one thread). */
struct durs {
	uint64_t *v;
	size_t n, cap;
	uint64_t start; /* the open START's timestamp, 0: none */
	/* a split entry's: each call's gap (IPROF_REC_GAP() of its START,
	 * ns; 0: none measured), in call order, g[i] v[i]'s; NULL for the
	 * other classes */
	uint64_t *g;
	size_t ng;
	uint64_t start_gap; /* the open START's */
};

/* The records of one calibration plan: timer i is group class i. */
struct group {
	enum calib_class cls[CALIB_NCLASS];
	unsigned int n;
	struct durs d[CALIB_NCLASS];
};

/* the collector: a sink of the record pipeline (include/iprof/pipeline.h) */
static void collect(void *ctx, const void *rec, size_t size)
{
	const struct iprof_rec *r = rec;
	struct group *g = ctx;
	struct durs *d;

	if (size != sizeof(*r) || r->timer >= g->n || r->depth != 1)
		return;
	d = &g->d[r->timer];
	if (r->type == IPROF_REC_START) {
		d->start = r->ts;
		d->start_gap = (uint64_t)IPROF_REC_GAP(r->aux)
			       << IPROF_GAP_SHIFT;
	} else if (r->type == IPROF_REC_STOP && d->start && r->ts >= d->start) {
		/* a gap beside each duration: a START whose STOP never
		 * came leaves none */
		if (d->n < d->cap) {
			d->v[d->n++] = r->ts - d->start;
			if (d->g)
				d->g[d->ng++] = d->start_gap;
		}
		d->start = 0;
	} else {
		d->start = 0; /* anything else closes it untimed */
	}
}

/* the group is measure()'s: the pipeline does not free it */
static const struct sink_ops collector_ops = {
	.name = "calibration",
	.push = collect,
};

/* every class of @g did not get measured, for @why */
static void group_fail(struct calib *cal, const struct group *g,
		       const char *why)
{
	for (unsigned int i = 0; i < g->n; i++)
		if (!cal->r[g->cls[i]].why[0])
			snprintf(cal->r[g->cls[i]].why,
				 sizeof(cal->r[0].why), "%s", why);
}

/*
 * cold_of() - @r's cold_ns from @d's durations: its last CALIB_COLD_CALLS
 * (cold_calls()'s) against the rest, each's mean (calib_mean(), sorted in
 * place), at least 0; @d->n then counts the rest only (the rounds' calls,
 * D's sample).  Nothing where fewer were recorded.
 */
static void cold_of(struct calib_result *r, struct durs *d)
{
	uint64_t hot, cold;
	size_t n;

	if (d->n <= 2 * CALIB_COLD_CALLS)
		return;
	n = d->n - CALIB_COLD_CALLS;
	calib_median(d->v + n, CALIB_COLD_CALLS);
	cold = calib_mean(d->v + n, CALIB_COLD_CALLS);
	calib_median(d->v, n);
	hot = calib_mean(d->v, n);
	r->dc_mean_ns = cold;
	if (d->g && d->ng == d->n) {
		calib_median(d->g + n, CALIB_COLD_CALLS);
		r->gc_mean_ns = calib_mean(d->g + n, CALIB_COLD_CALLS);
	}
	r->cold_ns = cold > hot ? (uint32_t)(cold - hot > UINT32_MAX ?
						     UINT32_MAX :
						     cold - hot) :
				  0;
	d->n = n;
	if (d->ng > n)
		d->ng = n;
}

/*
 * split_gaps() - a split entry's class @r: its gaps @d->g (d->ng, in call
 * order) into g_ns and g_mean_ns (median, mean), and where each traced
 * call @raw (in call order, @p's rounds) has its gap, the spread of the
 * calls less their gaps instead of the calls' (sd_ns, drift_ns, cpu_pm:
 * the run measures each call's gap, so its error bars hold the rest
 * only), through @w (room for as many).
 */
static void split_gaps(struct calib_result *r, struct durs *d,
		       const uint64_t *raw, uint64_t *w, const struct pin *p)
{
	const size_t n = (size_t)p->rounds * p->per;
	size_t i;

	if (!d->ng)
		return;
	for (i = 0; i < n && d->ng == n; i++)
		w[i] = raw[i] > d->g[i] ? raw[i] - d->g[i] : 0;
	if (d->ng == n) {
		per_cpu(p, w, r->b_mean_ns, r);
		calib_spread(w, n, p->rounds, &r->sd_ns, &r->drift_ns);
	}
	r->g_ns = calib_median(d->g, d->ng);
	r->g_mean_ns = calib_mean(d->g, d->ng);
}

/* @d's room for class @c's calls (a split entry's: their gaps, and
 * *@raw for its traced calls' times); 0 or -ENOMEM */
static int durs_alloc(struct durs *d, enum calib_class c, uint64_t **raw)
{
	d->cap = (size_t)CALIB_ROUNDS * CALIB_CALLS + CALIB_COLD_CALLS;
	d->v = malloc(d->cap * sizeof(uint64_t));
	if (!d->v)
		return -ENOMEM;
	if (c != CALIB_URETPROBE_SPLIT)
		return 0;
	d->g = malloc(d->cap * sizeof(uint64_t));
	*raw = malloc(d->cap * sizeof(uint64_t));
	return d->g && *raw ? 0 : -ENOMEM;
}

/* @r's D, cold_ns and a split entry's gaps from its records @d (@raw,
 * @w, @p: split_gaps()), then in and out (calib_derive()) and
 * cold_out_ns */
static void from_records(struct calib_result *r, struct durs *d,
			 const uint64_t *raw, uint64_t *w, const struct pin *p)
{
	if (r->why[0])
		return;
	if (!d->n) {
		snprintf(r->why, sizeof(r->why),
			 "no call of its calibration timer was recorded");
		return;
	}
	cold_of(r, d);
	r->calls = d->n;
	r->d_ns = calib_median(d->v, d->n);
	r->d_mean_ns = calib_mean(d->v, d->n);
	if (d->g)
		split_gaps(r, d, raw, w, p);
	calib_derive(r);
	/* the cold calls' outside part less the rounds' */
	if (r->dc_mean_ns && r->tc_mean_ns > r->bc_mean_ns + r->dc_mean_ns +
						     r->gc_mean_ns) {
		uint64_t oc = r->tc_mean_ns - r->bc_mean_ns - r->dc_mean_ns -
			      r->gc_mean_ns;

		r->cold_out_ns = oc > r->out_mean_ns ?
					 (uint32_t)(oc - r->out_mean_ns) :
					 0;
	}
}

/* whether timer @t of @p stops at an instruction the kernel single-steps
 * (a return site's ret: agg_pc_step()) */
static uint8_t stops_stepped(const struct plan *p, uint32_t t)
{
	for (uint32_t k = 0; k < p->nactions; k++)
		if (p->actions[k].timer == t &&
		    p->actions[k].role == IPROF_ROLE_STOP &&
		    agg_pc_step(p->actions[k].pclass) == 1)
			return 1;
	return 0;
}

/*
 * measure() - calibrate the classes of @g in one plan of their own, one
 * timer each, under @env (one load of the BPF programs): every call timed
 * untraced first, then traced.
 */
static void measure(struct calib *cal, struct group *g,
		    const struct plan_env *env, uint64_t *v)
{
	struct probe_list pl = { 0 };
	struct plan cp = { 0 };
	struct loader_opts lo = { 0 };
	struct loader *l = NULL;
	struct pipeline_cfg pcfg = { 0 }; /* no tree */
	struct pipeline *pipe = NULL;
	void (*call[CALIB_NCLASS])(void);
	struct calib_result *r;
	uint64_t *raw = NULL; /* the split class's traced calls, in order */
	struct pin pin;
	char err[200];
	unsigned int i;
	int e;

	pin_init(&pin);
	for (i = 0; i < g->n; i++) {
		if (probe_parse_line(&pl, class_spec(g->cls[i], &call[i]),
				     "calibration", (int)i + 1, err,
				     sizeof(err))) {
			group_fail(cal, g, err);
			goto out;
		}
	}
	if (plan_build(&cp, &pl, env) || cp.ntimers != g->n) {
		group_fail(cal, g, "out of memory");
		goto out;
	}
	for (i = 0; i < g->n; i++) {
		r = &cal->r[g->cls[i]];
		if (cp.timers[i].error)
			snprintf(r->why, sizeof(r->why), "%s",
				 cp.timers[i].error);
		else if (plan_calib_class(&cp, i) != (int)g->cls[i])
			snprintf(r->why, sizeof(r->why),
				 "its calibration timer did not plan as %s",
				 calib_class_name(g->cls[i]));
		r->stop_step = stops_stepped(&cp, i);
		if (durs_alloc(&g->d[i], g->cls[i], &raw)) {
			group_fail(cal, g, "out of memory");
			goto out;
		}
		/* untraced first: nothing of this plan is attached yet */
		r->b_ns = time_calls(call[i], NULL, v, &r->b_mean_ns, NULL,
				     &pin, 0, NULL);
		r->bc_mean_ns = cold_calls(call[i], NULL, v);
	}

	for (i = 0; i < g->n && cal->r[g->cls[i]].why[0]; i++)
		;
	if (i == g->n)
		goto out; /* nothing of it can be planned: no load */
	lo.filter = 1;
	lo.trace_self = 1;
	/* breakpoints in iprof's own process only: another iprof calibrating
	 * at once times the same functions untraced (a CI's tests in
	 * parallel once read one untraced at 18.5 us: this one's uprobe) */
	lo.upid = getpid();
	lo.rb_bytes = 1u << 20;
	pipe = pipeline__new(&pcfg);
	if (!pipe || pipeline__add(pipe, &collector_ops, g)) {
		group_fail(cal, g, "out of memory");
		goto out;
	}
	if ((e = loader__open(&l, &cp, &lo, pipeline__on_record, pipe, err,
			      sizeof(err)))) {
		group_fail(cal, g, err);
		goto out;
	}
	if ((e = loader__add_target(l, getpid()))) {
		group_fail(cal, g, "cannot trace iprof itself");
		goto out;
	}
	e = loader__attach(l, NULL);
	if (e < 0 || (e = loader__set_tracing(l, 1))) {
		group_fail(cal, g, strerror(-e));
		goto out;
	}
	for (i = 0; i < g->n; i++) {
		const struct loader_timer *st = loader__timer(l, i);

		r = &cal->r[g->cls[i]];
		if (r->why[0])
			continue;
		if (!st->attached) {
			snprintf(r->why, sizeof(r->why), "%s",
				 st->error ? st->error : "not attached");
			continue;
		}
		r->t_ns = time_calls(call[i], l, v, &r->t_mean_ns, r, &pin,
				     r->b_mean_ns, g->d[i].g ? raw : NULL);
		r->tc_mean_ns = cold_calls(call[i], l, v);
	}
	loader__set_tracing(l, 0);
	loader__drain(l);
	for (i = 0; i < g->n; i++)
		from_records(&cal->r[g->cls[i]], &g->d[i], raw, v, &pin);
out:
	if (l) {
		loader__detach(l);
		loader__close(l);
	}
	pipeline__free(pipe);
	for (i = 0; i < g->n; i++) {
		free(g->d[i].v);
		free(g->d[i].g);
	}
	free(raw);
	plan_free(&cp);
	probe_list_free(&pl);
}

int calib_needs_step(const struct plan *p)
{
	for (uint32_t k = 0; k < p->nactions; k++)
		if (p->actions[k].role &&
		    (p->actions[k].pclass == IPROF_PC_RETSITE_EMU ||
		     p->actions[k].pclass == IPROF_PC_UINLINE ||
		     p->actions[k].pclass == IPROF_PC_UINLINE_EMU))
			return 1;
	return 0;
}

/* the calibration pass of kernel function class @c (calib_run()) */
static unsigned int kpass(int c, int kfirst)
{
	return c == kfirst ? 0u : 2u + (unsigned int)(c - CALIB_FENTRY);
}

int calib_run(struct calib *cal, const struct plan *p,
	      const struct plan_env *penv)
{
	uint64_t t0 = util_now_ns(), *v;
	struct plan_env env = *penv;
	struct group g;
	unsigned int pass;
	int uretp, spans, kfirst;
	uint32_t i;
	int c;

	memset(cal, 0, sizeof(*cal));
	for (i = 0; i < p->ntimers; i++) {
		c = plan_calib_class(p, i);
		if (c >= 0)
			cal->r[c].needed = 1;
		c = plan_calib_inline_class(p, i);
		if (c >= 0)
			cal->r[c].needed = 1;
	}
	/* a site single-stepped or not where its class's is the other way
	 * costs one step more or less (calib_step(): the twins it takes) */
	if (calib_needs_step(p))
		cal->r[CALIB_RETSITE].needed =
			cal->r[CALIB_RETSITE_STEP].needed = 1;
	for (c = 0; c < CALIB_NCLASS; c++)
		cal->r[c].mech = calib_class_name((enum calib_class)c);
	v = malloc((size_t)CALIB_ROUNDS * CALIB_CALLS * sizeof(*v));
	if (!v)
		return -ENOMEM;
	env.pids = NULL;
	env.npids = 0;
	/*
	 * Pass 0 plans as the run does (uretprobes with --returns
	 * uretprobe, else return sites; its syscall tracepoint setting);
	 * pass 1 the other way, for the classes a timer's fallback needs (a
	 * uretprobe where return sites are found, ...); the first kernel
	 * function class in pass 0 where no span is calibrated, each other
	 * one in a pass of its own, 2 + its place after CALIB_FENTRY: they
	 * all time __task_pid_nr_ns, so that two in one load would nest,
	 * each call's traced time holding both classes' probes (a func:
	 * timer's and a kprobe for an inlined instance's), and getppid(2)
	 * calls it as getpid does: the kernel timer would fire inside a
	 * span's calls.  One load of the programs a pass.
	 */
	spans = cal->r[CALIB_SYSCALL].needed || cal->r[CALIB_TRACEPOINT].needed;
	for (c = CALIB_FENTRY; c < CALIB_NCLASS && !cal->r[c].needed; c++)
		;
	kfirst = spans ? CALIB_NCLASS : c;
	for (pass = 0; pass < 2u + CALIB_NCLASS - CALIB_FENTRY; pass++) {
		memset(&g, 0, sizeof(g));
		uretp = penv->returns == PLAN_RETURNS_URETPROBE;
		if (pass == 1)
			uretp = !uretp;
		env.returns = uretp ? PLAN_RETURNS_URETPROBE : PLAN_RETURNS_SITES;
		env.exe = NULL;
		env.syscall_tracepoints = pass == 1 ?
						  !penv->syscall_tracepoints :
						  penv->syscall_tracepoints;
		for (c = 0; c < CALIB_NCLASS; c++) {
			if (!cal->r[c].needed || cal->r[c].done ||
			    ((c == CALIB_RETSITE || c == CALIB_RETSITE_STEP) &&
			     uretp) ||
			    ((c == CALIB_URETPROBE ||
			      c == CALIB_URETPROBE_STEP ||
			      c == CALIB_URETPROBE_SPLIT) &&
			     !uretp) ||
			    (c == CALIB_SYSCALL && env.syscall_tracepoints) ||
			    (c == CALIB_TRACEPOINT && !env.syscall_tracepoints) ||
			    (c >= CALIB_FENTRY && pass != kpass(c, kfirst)) ||
			    (c < CALIB_FENTRY && pass >= 2))
				continue;
			cal->r[c].why[0] = '\0';
			g.cls[g.n++] = (enum calib_class)c;
		}
		if (g.n)
			measure(cal, &g, &env, v);
	}
	free(v);
	calib_cpu_scale(cal);
	cal->took_ns = util_now_ns() - t0;
	return 0;
}

static void *calib_thread(void *arg)
{
	struct calib_job *j = arg;

	j->err = calib_run(j->cal, j->plan, &j->env);
	return NULL;
}

int calib_start(struct calib_job *j, struct calib *cal, const struct plan *p,
		const struct plan_env *env)
{
	int e;

	j->cal = cal;
	j->plan = p;
	j->env = *env;
	j->err = 0;
	j->started = 0;
	j->t0_ns = util_now_ns();
	e = pthread_create(&j->th, NULL, calib_thread, j);
	if (e) {
		/* no thread: measure here and now */
		j->err = calib_run(cal, p, env);
		return j->err;
	}
	j->started = 1;
	return 0;
}

int calib_join(struct calib_job *j)
{
	if (j->started) {
		pthread_join(j->th, NULL);
		j->started = 0;
	}
	return j->err;
}

int calib_wait(struct calib_job *j)
{
	uint64_t now, left;
	struct timespec ts;

	if (!j->started)
		return j->err;
	now = util_now_ns();
	left = now - j->t0_ns < CALIB_SAY_NS ? CALIB_SAY_NS - (now - j->t0_ns) :
					       0;
	/* pthread_timedjoin_np(3) takes a CLOCK_REALTIME deadline */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(left / 1000000000ull);
	ts.tv_nsec += (long)(left % 1000000000ull);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(j->th, NULL, &ts)) {
		log_info("calibrating the probes' cost: %.1f s so far (tracing begins after it; a loaded host makes it slow; --no-compensate skips it, times then raw)",
			 (double)(util_now_ns() - j->t0_ns) / 1e9);
		pthread_join(j->th, NULL);
	}
	j->started = 0;
	return j->err;
}

void calib_log(const struct calib *cal)
{
	const struct calib_result *r;
	int c, any = 0;

	for (c = 0; c < CALIB_NCLASS; c++) {
		r = &cal->r[c];
		if (!r->needed)
			continue;
		any = 1;
		if (r->done)
			log_debug("calibration: %s: %u ns inside a call, %u ns outside (in its caller), medians (means: %u and %u ns); untraced %llu ns, traced %llu ns, recorded %llu ns (means %llu, %llu, %llu) of %llu calls",
				  r->mech, r->in_ns, r->out_ns, r->in_mean_ns,
				  r->out_mean_ns, (unsigned long long)r->b_ns,
				  (unsigned long long)r->t_ns,
				  (unsigned long long)r->d_ns,
				  (unsigned long long)r->b_mean_ns,
				  (unsigned long long)r->t_mean_ns,
				  (unsigned long long)r->d_mean_ns,
				  (unsigned long long)r->calls);
		if (r->done && r->dc_mean_ns)
			log_debug("calibration: %s: fired cold (%d calls, each after %d us of spinning): %u ns more inside a call, %u ns more outside",
				  r->mech, CALIB_COLD_CALLS,
				  (int)(CALIB_COLD_SPIN_NS / 1000), r->cold_ns,
				  r->cold_out_ns);
		else if (!r->done)
			/* the report's summary says it too, where its timers
			 * attached (the same reason often keeps them out) */
			log_debug("calibration: %s: not measured (%s): its timers' times are not compensated",
				  calib_class_name((enum calib_class)c), r->why);
	}
	for (uint32_t i = 0; any && i < cal->ncpu_pm; i++)
		log_debug("calibration: the probes on CPU %u cost %.3f x the mean",
			  i, cal->cpu_pm[i] / 1000.0);
	if (any)
		log_debug("calibration took %.1f ms",
			  (double)cal->took_ns / 1e6);
}
