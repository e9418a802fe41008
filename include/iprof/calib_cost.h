/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Calibration of the probes' own cost, for overhead compensation
 * (agg__set_costs(), include/iprof/agg.h; the method: Malony and Shende,
 * "Overhead compensation in performance profiling", Euro-Par 2004).
 *
 * For each mechanism a plan uses, iprof times a call of its own under the
 * same BPF programs: functions of its own for user functions, one for each
 * way the kernel handles the entry instruction (iprof_calib_push: `push
 * %rbp; mov %rsp,%rbp; pop %rbp; ret`, an instruction x86 uprobes emulate
 * on newer kernels; iprof_calib_step: `sub $8,%rsp; add $8,%rsp; ret`, one
 * they single-step, after the entry's timestamp, so inside the call;
 * iprof_calib_split: `sub $8,%rsp; jmp 1f; 1: add $8,%rsp; ret`, the same
 * entry split, its start on the jmp, the single step before it),
 * its own getppid(2) calls for spans, a call of iprof_calib_usdt (two
 * USDT sites, iprof:calib_start and iprof:calib_stop, on its two nops)
 * for spans with a USDT side, getpid(2) for kernel functions (a
 * timer on __task_pid_nr_ns, which getpid calls), traced by a plan of
 * their own, filtered to iprof's process.  Per call, in ns:
 *   B  the call's time untraced, by iprof's clock (CLOCK_MONOTONIC)
 *   T  the same call traced, by the same clock
 *   D  the traced call's duration as the records say (BPF timestamps)
 * Each the median over the same CALIB_ROUNDS x CALIB_CALLS calls (a
 * median: preemptions and interrupts in a few calls do not count), in
 * rounds run on each CPU iprof may use in turn, pinned (src/cli/calib.c,
 * struct pin): each CPU's factor, its rounds' mean cost over all
 * rounds' (calib_rounds_on()), scales the cost of every probe that fires
 * on it (agg__set_cpu_scale()), and T is measured on the calls scaled to
 * the all-CPU mean.  Then
 *   in  = D           the probes' parts between the call's timestamps
 *                     (for getppid this includes the syscall's own
 *                     body between its tracepoints, tens of ns)
 *   out = T - B - D   the rest, which falls in the caller
 * split evenly between the start and the stop probe.  The same from the
 * means of B, T and D (calib_mean(): without the calls far above the
 * median, preemptions) give in_mean and out_mean: a probe's cost is
 * skewed (a single-stepped one costs twice its median in a few percent of
 * calls on this project's hosts), so the median suits one call (min, max,
 * percentiles) and the mean the sums (total, self, avg), which it leaves
 * unbiased (struct agg_cost).
 *
 * This part is pure arithmetic and tables (no kernel): the loop that
 * measures lives in src/cli/calib.c with the loader.
 */
#ifndef IPROF_CALIB_COST_H
#define IPROF_CALIB_COST_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/agg.h"
#include "iprof/report.h"

#define CALIB_ROUNDS 5u
#define CALIB_CALLS 2000u /* calls a round */
/* the cold calls after the rounds (calib_result.cold_ns): each after a
 * spin of this many ns: a call's stop fires as long after its start as
 * the call lasts, its start after its caller's last probe (beside a
 * fresh-clone CI's load, tests/e2e/helpers/selftime.c's 100 us function
 * read its probes' inside part at 1090 ns against 450 back to back) */
#define CALIB_COLD_CALLS 400u
#define CALIB_COLD_SPIN_NS 50000u

/* What is calibrated: one per mechanism that costs differently. */
enum calib_class {
	CALIB_RETSITE, /* uprobe entry emulated (push, jmp, call, jcc, nop) + return sites */
	CALIB_RETSITE_STEP, /* ... entry on another instruction */
	CALIB_URETPROBE, /* uprobe entry emulated + uretprobe */
	CALIB_URETPROBE_STEP, /* ... entry on another instruction */
	/* uprobe entry on another instruction split (IPROF_REC_GAP() of
	 * abi.h): the mark there, the start at the next instruction the
	 * kernel emulates, a uretprobe; its gap measured per call */
	CALIB_URETPROBE_SPLIT,
	CALIB_SYSCALL, /* span on syscall tracepoints (raw-syscall dispatch) */
	CALIB_TRACEPOINT, /* span on tracepoints (tp_hit) */
	CALIB_USDT, /* span with a USDT side (a uprobe on the site's nop) */
	CALIB_FENTRY, /* kernel function, fentry/fexit */
	CALIB_KPROBE, /* kernel function, kprobe/kretprobe */
	CALIB_FUNC, /* kernel function, fentry or else kprobes (func:) */
	CALIB_NCLASS,
	CALIB_NONE = -1,
};

/* One class's outcome. */
struct calib_result {
	int needed; /* a timer of the plan uses it */
	int done; /* measured: in_ns, out_ns hold */
	uint32_t in_ns, out_ns; /* per call (start + stop probes), medians */
	uint32_t in_mean_ns, out_mean_ns; /* ... from the means */
	uint64_t b_ns, t_ns, d_ns; /* the medians measured (see above) */
	uint64_t b_mean_ns, t_mean_ns, d_mean_ns; /* ... and means */
	uint64_t calls; /* traced calls that gave a duration (D's sample) */
	/* a split entry's class: G, the gap from the mark to the start
	 * (IPROF_REC_GAP()), median and mean over the same calls, which
	 * out leaves out (out = T - B - D - G): the run measures each
	 * call's own; 0 for the other classes */
	uint64_t g_ns, g_mean_ns;
	/* how much more the probes' part inside a call (D) costs when they
	 * fire far apart (CALIB_COLD_CALLS calls, each after
	 * CALIB_COLD_SPIN_NS of other work) than back to back: the mean of
	 * those less D's mean, at least 0, ns; 0: not measured */
	uint32_t cold_ns;
	/* the cold calls' means (CALIB_COLD_CALLS, as cold_ns's), ns, each
	 * timed by iprof's clock untraced (before the probes attach) and
	 * traced, and as recorded, and a split entry's gap (else 0); 0: not
	 * measured */
	uint64_t bc_mean_ns, tc_mean_ns, dc_mean_ns, gc_mean_ns;
	/* what the probes' part outside a call costs more fired cold: their
	 * tc - bc - dc - gc less out_mean_ns, at least 0, ns; 0: not
	 * measured */
	uint32_t cold_out_ns;
	/* the spread of T (calib_spread()): one call's standard deviation,
	 * and how far its mean may be off while it was measured (0: not
	 * measured) */
	uint32_t sd_ns, drift_ns;
	/* calib_derive(): the mean cost less the median one, (in_mean_ns +
	 * out_mean_ns) - (in_ns + out_ns), at least 0: the slow hits' share,
	 * which moves with the host's load between runs (calib_drift()) */
	uint32_t skew_ns;
	/* its calibration timer's stops fired at instructions the kernel
	 * single-steps (IPROF_PC_RETSITE: a ret): its out part holds their
	 * step (AGG_COST_STOP_STEP); measure() of src/cli/calib.c */
	uint8_t stop_step;
	const char *mech; /* "uprobe/return site", ... (static) */
	char why[256]; /* when needed but not done: why */
	/* the traced calls' mean cost (t_mean - b_mean) on CPU i, per mille
	 * of the mean over all CPUs, i < ncpu (0: not measured per CPU;
	 * calib_cpu_scale()); t_ns, t_mean_ns and the spread are of the
	 * calls scaled to the all-CPU mean */
	uint16_t cpu_pm[AGG_CPU_SCALE_MAX];
	uint32_t ncpu;
};

struct calib {
	struct calib_result r[CALIB_NCLASS];
	uint64_t took_ns; /* the whole calibration, loads included */
	/* per CPU, what the probes cost of the calibrated cost, per mille
	 * (agg__set_cpu_scale()): the classes' cpu_pm weighted by their mean
	 * cost; ncpu_pm 0: not measured per CPU (one CPU allowed, or a CPU
	 * number from AGG_CPU_SCALE_MAX up) */
	uint16_t cpu_pm[AGG_CPU_SCALE_MAX];
	uint32_t ncpu_pm;
};

/*
 * calib_cpu_scale() - @cal's cpu_pm and ncpu_pm from its classes'
 * (those done and measured per CPU), each weighted by its mean cost per
 * call; a CPU no class measured gets 1000.
 */
void calib_cpu_scale(struct calib *cal);

/*
 * calib_rounds_on() - the factor per mille of @n rounds' means @m (ns, of
 * the traced calls, each run on CPU @cpu[r] < AGG_CPU_SCALE_MAX) less
 * @b_ns (the untraced call) on each CPU against all rounds' (equal
 * weight a round), into @pm (ncpu entries, those with no round 1000),
 * clamped to [250, 4000].  Returns 0, or -1 where the mean cost over all
 * rounds is not above 0 (@pm untouched).
 */
int calib_rounds_on(const uint64_t *m, const uint16_t *cpu, unsigned int n,
		    uint64_t b_ns, uint16_t *pm, uint32_t ncpu);

/* calib_class_name() - "uprobe/return site", "fentry/fexit", ... */
const char *calib_class_name(enum calib_class c);

/*
 * calib_median() - the median of @n (> 0) values (sorted in place), the
 * lower middle one for an even @n.
 */
uint64_t calib_median(uint64_t *v, size_t n);

/*
 * calib_mean() - the mean of the @n (> 0) values of @v, sorted ascending
 * (calib_median() sorts them), leaving out those above CALIB_MEAN_CUT
 * times the median plus CALIB_MEAN_SLACK_NS: a preemption or a time slice
 * of another task in a call (they are off-CPU time, never compensated),
 * not the probes' own slow hits (twice their median, or a few times).
 */
uint64_t calib_mean(const uint64_t *v, size_t n);
#define CALIB_MEAN_CUT 4u
#define CALIB_MEAN_SLACK_NS 50000u

/*
 * calib_derive() - in_ns and out_ns of @r from its b_ns, t_ns, d_ns and
 * g_ns: in = d, out = t - b - d - g, each clamped at 0 (and into 32 bits);
 * in_mean_ns and out_mean_ns the same from b_mean_ns, t_mean_ns, d_mean_ns,
 * g_mean_ns; skew_ns from both; sets done.
 */
void calib_derive(struct calib_result *r);

/*
 * How far a class's mean cost may differ between two processes, of the
 * cost (calib_proc_drift()): a traced call costs one of two regimes, and
 * a process, the calibration's (iprof) or the traced program, lands in
 * either (the factors per CPU do not take it out: doc/json.md, "Per
 * CPU"); measured by
 * bench/probe-drift.sh, 28% (single-stepped entry)
 * and 34% (emulated entry) between the cheapest and the dearest of 5
 * processes (bench/README.md), so a run's probes may cost a quarter more
 * or less than the calibration measured, whatever the calibration's own
 * rounds saw.
 */
#define CALIB_PROC_DRIFT 0.25

/*
 * calib_proc_drift() - CALIB_PROC_DRIFT of @r's mean cost per call
 * (in_mean_ns + out_mean_ns), ns, rounded down: the between-process part
 * of calib_drift(); 0 when @r is not measured.
 */
uint32_t calib_proc_drift(const struct calib_result *r);

/*
 * calib_drift() - how far the mean cost per call of @r's class (in + out,
 * ns) may be off in a run, the error bars' bias (struct agg_cost
 * drift_ns): drift_ns (how the cost moved while it was measured, and the
 * mean's standard error) plus skew_ns (the slow hits' share of the mean:
 * how many calls hit slow depends on the host's load, which differs
 * between the calibration and the run), and at least
 * calib_proc_drift() (the traced process's probes against iprof's own:
 * no calibration of iprof's sees it; doc/json.md, "Error bars").
 * Clamped into 32 bits.
 */
uint32_t calib_drift(const struct calib_result *r);

/*
 * calib_step() - what a probe at an instruction the kernel single-steps
 * costs more than one at an instruction it emulates, by @cal: the in part
 * of a class whose entry is single-stepped less its twin's whose entry is
 * emulated (CALIB_RETSITE_STEP and CALIB_RETSITE, else CALIB_URETPROBE_STEP
 * and CALIB_URETPROBE: their calibration functions differ in their first
 * instruction only), medians into *@med_ns, means into *@mean_ns, ns.
 * Returns 1, or 0 where no such pair was measured (both 0 then).
 */
int calib_step(const struct calib *cal, uint32_t *med_ns, uint32_t *mean_ns);

/*
 * calib_cost() - the cost of one call of a timer of class @c (CALIB_NONE:
 * none, zero) by @cal: the start and stop probes share in and out evenly
 * but for a single step (calib_step()), which is the start's inside part
 * in a class whose entry is single-stepped (AGG_COST_START_STEP) and the
 * stop's outside part in one whose stops are (AGG_COST_STOP_STEP); the
 * medians and the means (AGG_COST_MEAN); an @entry_only timer has only its
 * start probe.  A class not measured gives AGG_COST_UNKNOWN.
 */
struct agg_cost calib_cost(const struct calib *cal, int c, int entry_only);

/*
 * calib_cost_inline() - @k's inl_* fields (struct agg_cost): the cost of a
 * call through the timer's inlined instances' probes, class @c's
 * (plan_calib_inline_class()), with AGG_COST_START_STEP and
 * AGG_COST_STOP_STEP as calib_cost() says them; AGG_COST_UNKNOWN in
 * inl_flags where @c was not measured; nothing for CALIB_NONE.
 */
void calib_cost_inline(const struct calib *cal, int c, struct agg_cost *k);

/*
 * calib_report() - the classes of @cal in @used (bit 1 << class: those of
 * the timers that attached), as the report and the recording say them,
 * into @out (CALIB_NCLASS entries; the strings point into @cal).  Returns
 * how many.
 */
size_t calib_report(const struct calib *cal, unsigned int used,
		    struct report_calib *out);

/*
 * calib_spread() - the spread of @n (> 0) calls' times @v, in the order
 * they ran, @rounds (> 0) rounds of n / rounds each (each round's slice is
 * sorted in place): *@sd_ns, one call's standard deviation (pooled over
 * the rounds, without the calls calib_mean() leaves out); *@drift_ns, how
 * far their mean may be off: the standard deviation of the rounds' means
 * (calib_mean() each: how the cost moved while it was measured) plus the
 * mean's standard error (sd over the square root of n).  In ns.
 */
void calib_spread(uint64_t *v, size_t n, unsigned int rounds,
		  uint32_t *sd_ns, uint32_t *drift_ns);

#endif /* IPROF_CALIB_COST_H */
