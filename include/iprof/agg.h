/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator: per-thread stacks of open timers folded into a call tree,
 * live.  Kernel-free: fed with struct iprof_rec records (include/iprof/abi.h)
 * from the ring buffer, a recording, or a unit test.
 *
 * A tree node is a path of timer ids from a root, merged across threads.
 * Times are in ns of the record clock (CLOCK_MONOTONIC).  Memory is bounded
 * by the number of distinct paths and of live threads: a thread's state is
 * freed on its IPROF_REC_EXIT record.  agg__set_limits() caps the paths
 * and the --by roots: beyond the caps, timers are folded into one node,
 * "[other]" (AGG_OTHER_TIMER, a child of the root), and counted
 * (agg_stats.folded_paths, folded_keys).
 */
#ifndef IPROF_AGG_H
#define IPROF_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/abi.h"
#include "iprof/hist.h"

#define AGG_ROOT_TIMER UINT32_MAX

/*
 * Timer id of a per-CPU interrupt-context root (a child of the root): the
 * timers that ran in that context (enum iprof_ctx) on that CPU go below it,
 * never into the stack of the thread they interrupted.
 */
#define AGG_CTX_TIMER(ctx, cpu) (0xc0000000u | (uint32_t)(ctx) << 16 | (cpu))
#define AGG_TIMER_IS_CTX(t)                                                    \
	(((t) & 0xc0000000u) == 0xc0000000u && (t) != AGG_ROOT_TIMER &&        \
	 (t) != AGG_OTHER_TIMER)
#define AGG_CTX_OF(t) (((t) >> 16) & 0xff)
#define AGG_CPU_OF(t) ((t) & 0xffff)

/*
 * --by: every top-level timer goes under a root per thread, process or
 * command name.  Those roots have timer ids AGG_SPLIT_TIMER(v): v is the
 * tid, the tgid, or an index into the aggregator's table of names.
 */
enum agg_by {
	AGG_BY_NONE = 0,
	AGG_BY_TID,
	AGG_BY_TGID,
	AGG_BY_COMM,
};

/*
 * Timer id of "[other]", a child of the root: what the caps of
 * agg__set_limits() keep out of the tree.  Its own count: timers started on
 * a path beyond the path cap (and, below it, their children: everything
 * nested in an [other] frame stays in [other] while the tree is full).  Its
 * children: the paths of --by roots folded into it, merged (a root's
 * timers keep their paths below [other]).  So the counts of the whole tree
 * always add up to every timer completed.
 */
#define AGG_OTHER_TIMER 0xfffffffeu

/* Defaults of agg__set_limits() (iprof's --max-paths and --max-keys). */
#define AGG_MAX_PATHS_DEFAULT 10000u
#define AGG_MAX_KEYS_DEFAULT 1000u

#define AGG_SPLIT_TIMER(v) (0x80000000u | (uint32_t)(v))
#define AGG_TIMER_IS_SPLIT(t) (((t) & 0xc0000000u) == 0x80000000u)

/*
 * Named timers (IPROF_REC_NAME): a call of a named timer is filed under a
 * node of its own per distinct value, whose timer id is AGG_NAME_TIMER(i),
 * i an index into the aggregator's table of (timer, value) pairs
 * (agg__name_of()).  The table holds at most --max-paths names; a call
 * with a new name beyond it is filed under [other] (folded_paths).
 */
#define AGG_NAME_TIMER(i) (0x40000000u | (uint32_t)(i))
#define AGG_TIMER_IS_NAME(t) (((t) & 0xc0000000u) == 0x40000000u)

/* the most stops a span may have (PROBE_MAX_STOPS of include/iprof/probe.h) */
#define AGG_MAX_STOPS 4

struct agg_node {
	uint32_t timer; /* timer id, AGG_ROOT_TIMER for the root */
	uint32_t depth; /* 0 for the root, 1 for top-level timers */
	struct agg_node *parent; /* NULL for the root */
	struct agg_node *child; /* first child, in first-seen (first start) order */
	struct agg_node *next; /* next sibling */
	/* private: threads whose --by root this is; a --by root with none is
	 * on the aggregator's idle list (oldest first), to be folded first */
	uint32_t refs;
	uint32_t in_other; /* private: [other] or below it */
	/* private: earliest record that started a timer here (or filed a
	 * thread under this root): the children's order, kept by agg__merge */
	uint64_t seen_ns;
	struct agg_node *idle_prev, *idle_next;
	/* --slowest (agg__set_slowest(), include/iprof/slow.h): the node's
	 * slowest calls, owned; NULL when off or none completed.  Kept by
	 * agg__reset() no more than the counts below */
	struct slow_set *slow;
	/* --offcpu-stacks (include/iprof/offcpu.h): the stacks and wakers
	 * of its blocked time, owned; NULL when none came.  Kept by
	 * agg__reset() no more than the counts below */
	struct off_set *off;

	/*
	 * Completed timers: their stop came.  A frame that never returned
	 * (its thread exited, was killed or exec'ed, or tracing ended) is no
	 * call: it is counted apart (exited, execed, incomplete below) and is
	 * in none of these counts and times, nor in its parent's self time.
	 */
	uint64_t count;
	/*
	 * Times are compensated for the probes' own cost (agg__set_costs():
	 * the calibrated cost of the probes that fired inside each call
	 * subtracted, never below its children's time); without costs set,
	 * raw.  raw_total_ns/raw_self_ns keep the raw sums beside.
	 */
	uint64_t total_ns; /* sum of durations: thread time */
	uint64_t self_ns; /* total_ns minus the durations of completed children */
	uint64_t raw_total_ns, raw_self_ns; /* the same, uncompensated */
	/* of count: calls whose compensation may be off (a child unwound or
	 * missed its return, or a probe of an uncalibrated mechanism fired
	 * inside: AGG_COST_UNKNOWN) */
	uint64_t uncertain;
	/* of count: calls in which the probes' calibrated cost taken out
	 * was more than the time left: their compensated time is only as
	 * good as the calibration's spread (doc/report.md, "Probe cost") */
	uint64_t dominated;
	/* time the per-call clamps of the sums' compensation added to
	 * total_ns and self_ns here (a call less the probes' mean cost below
	 * its children's time, or below 0) that the same threads' later
	 * calls did not give back (agg_comp.c, agg_settle()): raw_total_ns - total_ns
	 * + clamped_ns is the mean cost taken out; may exceed total_ns */
	uint64_t clamped_ns;
	/* bounds of the calls' durations, less the probes' median cost (as
	 * in hist) and less their mean cost (as in the sums): min_ns <=
	 * total_ns / count <= max_ns; 0 when count == 0 */
	uint64_t min_ns, max_ns;
	uint64_t first_start_ns; /* earliest start of a completed timer */
	uint64_t last_stop_ns; /* latest stop: wall = last_stop - first_start */
	uint64_t threads; /* distinct threads that completed a timer here */
	struct hist *hist; /* distribution of the count durations; owned */
	double mean_ns, m2_ns; /* Welford's running mean and sum of squared
				* deviations of the durations: stddev =
				* sqrt(m2_ns / count) */
	/*
	 * The compensation's uncertainty over the calls (struct agg_cost
	 * sd_ns, drift_ns; 0 without a spread): the variance (ns^2) of the
	 * probe cost taken out, summed over the calls' probes (random: adds
	 * up as a sum of squares), and the bias it may carry (ns, summed
	 * linearly); the self_ ones for self_ns (the call's own probes' parts
	 * inside it and its direct children's parts outside theirs).  Error
	 * bars: report_node_err().
	 */
	double err_var_ns2, err_sys_ns;
	double self_err_var_ns2, self_err_sys_ns;

	/*
	 * total_ns split by where the thread was (sched_switch records):
	 * oncpu_ns + runq_ns + blocked_ns == total_ns exactly.
	 */
	uint64_t oncpu_ns; /* running on a CPU */
	uint64_t runq_ns; /* off-CPU, runnable: preempted, on a run queue */
	/* runnable time taken out with the probes' cost (not in runq_ns):
	 * the preemptions that fell in them, in proportion (agg_comp.c):
	 * raw_total_ns - total_ns = the probes' cost taken out - clamped_ns
	 * + runq_out_ns */
	uint64_t runq_out_ns;
	uint64_t blocked_ns; /* off-CPU, blocked: sleeping */
	/* of oncpu_ns: time the thread spent interrupted (hardirq, softirq)
	 * while this timer was open, from IRQ_ENTER/IRQ_EXIT records */
	uint64_t irq_ns;

	/* Not part of the times above. */
	uint64_t exited; /* open when their thread exited (IPROF_REC_EXIT:
			  * exit(), a kill, a function that never returns,
			  * the old leader at an exec by another thread) */
	uint64_t exited_ns; /* their elapsed time until that exit */
	uint64_t unwound; /* closed because an outer timer stopped first, or
			   * left without returning (IPROF_REC_LEFT:
			   * longjmp, an exception) */
	uint64_t execed; /* user function frames closed by an exec of their
			  * thread (IPROF_REC_EXECED) */
	uint64_t missed_returns; /* closed by IPROF_REC_RETURNED: the call
				  * returned without its return probe */
	uint64_t discarded; /* dropped on resync after lost records */
	/* keyed spans (IPROF_REC_K*): started again with the same key
	 * before their stop (the older one dropped), or not stopped within
	 * --span-timeout (dropped); never timed */
	uint64_t replaced, expired;
	/* calls of a timer whose return iprof cannot see (IPROF_REC_HIT):
	 * counted where they were made, in none of the counts and times
	 * above; the report's count is count + hits, its times only the
	 * timed calls' ("return not seen: counted only") */
	uint64_t hits;
	uint64_t incomplete; /* open at the last agg__snapshot() (a keyed
			      * span: started, not yet stopped) */
	uint64_t incomplete_ns; /* their elapsed time until that snapshot */
	/* of count: the calls of a span of several stops (`-> STOP | STOP2
	 * | ...`) that each stop ended, in the order written
	 * (IPROF_REC_STOPNO); every other timer's in stops[0] */
	uint64_t stops[AGG_MAX_STOPS];
	/* stops of a span that names its stops' calls too (`name ARG stop
	 * ARG2`) that found this path's frame, its timer's innermost open
	 * one, named otherwise and no open frame of their name: paired with
	 * nothing, the frame left open (IPROF_REC_NAMEMISS) */
	uint64_t name_mismatch;

	uint32_t last_tid; /* private: thread-count fast path */
};

/* Whole-run counters of the aggregator. */
struct agg_stats {
	uint64_t records; /* records pushed, malformed included */
	uint64_t starts, stops, exits;
	/* frames new processes inherited from their parent thread at a
	 * fork (IPROF_REC_FORKED), opened at the fork */
	uint64_t forked;
	uint64_t switches; /* SWITCH_OUT + SWITCH_IN records */
	uint64_t irqs; /* IRQ_ENTER + IRQ_EXIT records */
	uint64_t malformed; /* rejected: size, type, timer id or depth invalid */
	uint64_t resyncs; /* records carrying IPROF_F_RESYNC */
	uint64_t discarded; /* frames dropped by a resync or a depth mismatch */
	uint64_t skipped; /* records ignored while a thread waited to resync */
	uint64_t unwound; /* frames closed as unwound (sum over nodes) */
	uint64_t execed; /* frames closed by an exec (sum over nodes) */
	uint64_t exited; /* frames open at their thread's exit (sum over
			  * nodes) */
	uint64_t missed_returns; /* frames closed by RETURNED (sum over nodes) */
	uint64_t hits; /* IPROF_REC_HIT: calls counted, never timed (sum
			* over nodes) */
	uint64_t threads_live; /* threads with state now */
	uint64_t threads_seen; /* threads that ever had state */
	uint64_t nodes; /* tree nodes, root excluded */
	uint64_t mismatches; /* records whose depth or timer disagreed with
			      * the thread's stack (frames discarded) */
	uint64_t nomem; /* records not (fully) folded: allocation failed */
	/* timers started on a new path while the tree had max_paths paths:
	 * filed under [other] (AGG_OTHER_TIMER) */
	uint64_t folded_paths;
	/* --by roots (threads, processes, names) folded into [other]: the
	 * oldest idle root, to make room for a new one beyond max_keys, or a
	 * new one when every root had live threads */
	uint64_t folded_keys;
	/* threads freed by agg__prune(): gone without an EXIT record */
	uint64_t pruned;
	/* keyed spans: starts and stops folded, and records of a span
	 * whose start never came (lost in a full ring, or started before
	 * tracing): stops, replacements, expiries; kearly: stops held now
	 * for a start that may still come (a stop's record can be merged
	 * ahead of its start's, which another CPU sent) */
	uint64_t kstarts, kstops, kreplaced, kexpired, kunmatched, kearly;
	/* IPROF_REC_NAMEMISS: stops that named another call than any open
	 * frame of their span (sum over nodes, and those whose frame was
	 * not found on the thread's stack) */
	uint64_t name_mismatch;
	/* IPROF_REC_NAMESTR names with a part that could not be read
	 * (`name str(ARG)` of NULL, an unmapped address or a page not in
	 * memory): the calls named "(fault)" */
	uint64_t name_faults;
	/* text names (IPROF_REC_NAMESTR) of one timer whose 64-bit hash
	 * (FNV-1a) another text of it has: each its own node (names are
	 * kept by their text), but BPF keys a name by its hash (a stop that
	 * names its call, `stop ARG`, may close the other's frame); each
	 * such text counted once, as it is first seen.  agg__merge() counts
	 * them as it adds names, not from its source's count */
	uint64_t name_collisions;
};

struct agg;
struct slow_set;
struct off_set;

/*
 * What a timer's probes cost each call, in ns, as calibrated for its
 * mechanism: the part of the start probe after its timestamp and of the
 * stop probe before its own (inside the call's timestamps: *_in_ns), and
 * the rest (before the start's timestamp, after the stop's: *_out_ns,
 * which falls in the parent).  The method is Malony and Shende's overhead
 * compensation (Euro-Par 2004, TAU): subtracted at each stop from the call
 * and, with the outside parts, from every open ancestor.
 */
struct agg_cost {
	uint32_t start_in_ns, start_out_ns;
	uint32_t stop_in_ns, stop_out_ns;
	uint32_t flags; /* AGG_COST_* */
	/*
	 * The same parts as means (with AGG_COST_MEAN; without it the
	 * fields above serve both).  A probe's cost is skewed: most calls
	 * cost about the median (the fields above), a few microseconds
	 * more now and then.  Sums (total, self, avg, stddev, on-CPU)
	 * lose the mean, so that they come out unbiased; each call's own
	 * place (min, max, histogram, percentiles) loses the median, the
	 * cost of a typical call.
	 */
	uint32_t mean_start_in_ns, mean_start_out_ns;
	uint32_t mean_stop_in_ns, mean_stop_out_ns;
	/*
	 * The calibration's spread for one call of the timer (its start and
	 * stop probes, in + out; 0: not known, no error bar): sd_ns, the
	 * standard deviation of one call's probe cost; drift_ns, how far the
	 * mean cost may be off (the calibration rounds' means' spread plus
	 * the mean's standard error).  A probe part of m ns (the means
	 * above) carries m / (the four means' sum) of each: sd_ns^2 of the
	 * variance, drift_ns of the bias (agg_node.err_var_ns2).
	 */
	uint32_t sd_ns, drift_ns;
	/*
	 * The calls that go through the probes of its inlined instances
	 * (START and STOP records of probe class IPROF_PC_UINLINE or
	 * IPROF_PC_KINLINE, include/iprof/abi.h), which cost what their
	 * own class does, not the out-of-line entry's and return's: per
	 * call (start + stop probes, half each), in ns, as in_ns and
	 * out_ns of struct calib_result, medians and means, and its spread
	 * as sd_ns and drift_ns above.  inl_flags: AGG_COST_* of these
	 * (0: none set, such calls cost as the fields above).  A call
	 * entered at an instance and left by its out-of-line return (or
	 * the reverse) takes each probe's half from its own class.
	 */
	uint32_t inl_flags;
	uint32_t inl_in_ns, inl_out_ns, inl_mean_in_ns, inl_mean_out_ns;
	uint32_t inl_sd_ns, inl_drift_ns;
	/*
	 * A split entry's class (CALIB_URETPROBE_SPLIT): the calibrated gap
	 * from the mark at the function's first instruction to its start
	 * (IPROF_REC_GAP() of abi.h), median and mean, ns, which the start's
	 * out part above leaves out.  A call started at the split site
	 * (IPROF_PC_USPLIT) puts its own measured gap outside it, in its
	 * caller, or this where its START says none (agg_frame_gap()); 0:
	 * no split.
	 */
	uint32_t gap_ns, mean_gap_ns;
	/*
	 * How much more the probes' parts inside a call may cost when they
	 * fire far apart than the calibration's calls back to back did
	 * (calib_result.cold_ns), ns a call: a bias of the call's own time
	 * (its error bar and its self time's, and its callers'), beside
	 * drift_ns; 0: none known.
	 */
	uint32_t cold_ns;
	/* the same of the probes' parts outside a call
	 * (calib_result.cold_out_ns): a bias of its caller's time alone */
	uint32_t cold_out_ns;
	/*
	 * What a probe at an instruction the kernel single-steps costs more
	 * than one at an instruction it emulates (the single step), median
	 * and mean, ns (calib_step(); 0: not known).  The parts above (and
	 * inl_*) hold a step where their flags (inl_flags) say
	 * AGG_COST_START_STEP (in the start's inside part) or
	 * AGG_COST_STOP_STEP (in the stop's outside part); a call whose
	 * probe fired at a site of the other kind (its record's probe class:
	 * IPROF_PC_RETSITE_EMU, IPROF_PC_UINLINE_EMU, IPROF_PC_RETSITE,
	 * IPROF_PC_UINLINE of include/iprof/abi.h) costs one step less or
	 * more there (agg_frame_cost()).
	 */
	uint32_t step_ns, mean_step_ns;
};

/* The mechanism could not be calibrated: its calls count as uncertain. */
#define AGG_COST_UNKNOWN 0x1u
/* The mean_* fields hold (calibrations since iprof 0.3). */
#define AGG_COST_MEAN 0x2u
/* The start's inside part holds a single step (agg_cost.step_ns). */
#define AGG_COST_START_STEP 0x4u
/* The stop's outside part holds a single step. */
#define AGG_COST_STOP_STEP 0x8u

/*
 * agg_cost_halves() - @total ns of a class's inside (or outside) part per
 * call, split between its start probe (*@first) and its stop probe
 * (*@second): @d_first and @d_second ns each on its own side (a single
 * step that side holds, agg_cost.step_ns; cut to fit @total together),
 * the rest in halves.
 */
void agg_cost_halves(uint32_t total, uint32_t d_first, uint32_t d_second,
		     uint32_t *first, uint32_t *second);

/*
 * agg_pc_step() - whether a probe of class @pc (enum iprof_pclass) fired
 * at an instruction the kernel single-steps: 1 (IPROF_PC_RETSITE,
 * IPROF_PC_UINLINE), 0 (their _EMU twins), -1 where its class does not
 * say (its timer's class does).
 */
int agg_pc_step(unsigned int pc);

/*
 * agg__new() - an empty aggregator for timer ids 0..@ntimers-1.
 * Returns NULL with errno set (ENOMEM, EINVAL for ntimers == 0).
 */
struct agg *agg__new(uint32_t ntimers);

/*
 * agg__set_by() - split the tree by thread, process or command name (see
 * enum agg_by).  Call before the first agg__push().  Returns 0 or -EINVAL.
 */
int agg__set_by(struct agg *a, enum agg_by by);

/*
 * agg__set_limits() - cap the tree: at most @max_paths nodes (paths: --by
 * roots and interrupt roots included, the root and [other] not) and at
 * most @max_keys --by roots; 0 means no cap.  Old threads make room for
 * new ones: a new --by root beyond max_keys, or a new path at max_paths,
 * first folds the --by root that has been idle longest (no live thread
 * files under it; a thread's state ends at its EXIT record) into [other]:
 * its subtree is merged into [other]'s (same paths below it while they
 * fit, and [other]'s subtree keeps at most max_paths / 2 of the paths, so
 * that new threads keep room: else into [other] itself; statistics
 * summed, histograms merged)
 * and its nodes are reused.  With no idle root left, a timer that starts
 * on a path not in the tree goes into [other] (AGG_OTHER_TIMER), and a
 * new thread beyond max_keys files its timers under [other].  Memory then
 * stays below about max_paths * (sizeof(struct agg_node) + sizeof(struct
 * hist)), 8 KiB a path, plus the live threads' stacks.
 * Call before the first agg__push().  Returns 0 or -EINVAL.
 */
int agg__set_limits(struct agg *a, uint32_t max_paths, uint32_t max_keys);

/*
 * agg__set_slowest() - keep, per node, the @k slowest completed calls with
 * their children (include/iprof/slow.h; agg_node.slow); 0: off, the
 * default.  Memory: per node at most @k calls of at most SLOW_KIDS_MAX
 * children (32 bytes each), per open frame SLOW_KIDS_MAX children.  Call
 * before the first agg__push().  Returns 0 or -EINVAL (@k > SLOW_K_MAX).
 */
int agg__set_slowest(struct agg *a, uint32_t k);

/*
 * agg__timer_started() - 1 if a start of @timer was folded in, wherever it
 * was filed (its own node, or [other] beyond the caps), else 0: a timer
 * with hits though no node of its own has a count.
 */
int agg__timer_started(const struct agg *a, uint32_t timer);

/* agg__limits() - the caps set by agg__set_limits() (0: none). */
void agg__limits(const struct agg *a, uint32_t *max_paths, uint32_t *max_keys);

/*
 * agg__split_name() - the label of a --by root (AGG_TIMER_IS_SPLIT):
 * "tid 1234", "pid 1234" or the command name, written into @buf (@len
 * bytes, 32 suffice); "[other]" for AGG_OTHER_TIMER.  Returns @buf.
 */
const char *agg__split_name(const struct agg *a, uint32_t timer, char *buf,
			    size_t len);

/*
 * agg__name_of() - the timer and value a named node's id (AGG_TIMER_IS_NAME)
 * stands for, into *@timer and *@value.  Returns 0, or -ENOENT for an id
 * that is no name of @a.
 */
int agg__name_of(const struct agg *a, uint32_t id, uint32_t *timer,
		 uint64_t *value);

/*
 * agg__name_intern_hashed() - the id (AGG_NAME_TIMER) of timer @timer's
 * name of the @len bytes of @text (any bytes; copied, owned by @a), whose
 * 64-bit hash is @value (the text's FNV-1a as records name it; a test may
 * give two texts one hash): found by its text, whatever its hash, else
 * added, and counted in agg_stats.name_collisions where another text of
 * @timer has @value.  AGG_OTHER_TIMER for a new name when @a holds
 * --max-paths names, AGG_ROOT_TIMER when out of memory.
 */
uint32_t agg__name_intern_hashed(struct agg *a, uint32_t timer,
				 const char *text, uint32_t len, uint64_t value);

/*
 * agg__name_text() - the timer and text of a named node's id whose name is
 * text (IPROF_REC_NAMESTR): *@text points to *@len bytes (no NUL; any
 * byte) owned by @a, valid while @a is.  Returns 0, or -ENOENT for an id
 * that is no text name of @a (agg__name_of() then gives its integer).
 */
int agg__name_text(const struct agg *a, uint32_t id, uint32_t *timer,
		   const char **text, uint32_t *len);

/*
 * agg__name_cut() - 1 when the named node id @id's text name holds a
 * string cut at its bound (IPROF_NAME_STR - 1 bytes: followed by
 * AGG_NAME_CUT_MARK in its text), else 0 (no such id: 0).
 */
int agg__name_cut(const struct agg *a, uint32_t id);

/* The mark after a part of a text name cut at its bound: "…" (U+2026) */
#define AGG_NAME_CUT_MARK "\xe2\x80\xa6"
/* Most bytes of agg__namestr_join()'s text */
#define AGG_NAMESTR_MAX (IPROF_NAME_PARTS * (IPROF_NAME_STR + 8))

/*
 * agg__namestr_join() - a text name's text: the parts of IPROF_REC_NAMESTR
 * head @h, whose bytes are @text (part 0's len[0], then part 1's), joined
 * by ':', a part that could not be read as "(fault)", a part cut at its
 * bound (h->cut, len IPROF_NAME_STR - 1) followed by AGG_NAME_CUT_MARK;
 * into @out (room for AGG_NAMESTR_MAX bytes, no NUL added).  *@cut: 1
 * when a part was cut.  Returns the bytes written.  @h's lengths must be
 * valid (each below IPROF_NAME_STR or IPROF_NAME_FAULT).
 */
uint32_t agg__namestr_join(const struct iprof_rec_namestr *h, const char *text,
			   char *out, int *cut);

/*
 * agg__base_timer() - the timer of node timer id @id: the named timer for
 * a named node's id, @id itself for every other.
 */
uint32_t agg__base_timer(const struct agg *a, uint32_t id);

/*
 * agg__set_costs() - compensate every time folded from now on for the
 * probes' cost: @costs[timer] for timer ids 0..ntimers-1 (copied; NULL:
 * raw times again).  Counts never change.  Returns 0 or -ENOMEM.
 */
int agg__set_costs(struct agg *a, const struct agg_cost *costs);

/*
 * agg__set_cpu_scale() - the probes on CPU i cost @pm[i] / 1000 of what
 * agg__set_costs() gave, for i < @n (at most AGG_CPU_SCALE_MAX; other CPUs
 * 1000): each probe part of a call (its start's on the START record's
 * CPU, iprof_rec.cpu, its stop's on the STOP's) is scaled by its CPU's
 * factor, its spread by the mean of the two.  The calibration measures
 * them (calib_run(): its rounds on each CPU in turn): a hybrid CPU's
 * cores differ, and a vCPU's traps cost more while a neighbour loads its
 * host core (up to 16% here, doc/json.md "Per CPU").  @pm
 * copied; NULL or @n 0: the same on every CPU.  Returns 0 or -EINVAL
 * (@n too large, a factor 0).
 */
#define AGG_CPU_SCALE_MAX 64u
int agg__set_cpu_scale(struct agg *a, const uint16_t *pm, uint32_t n);

/* agg__free() - free the aggregator and its tree; @a may be NULL. */
void agg__free(struct agg *a);

/*
 * agg__push() - fold one record of @size bytes into the tree.
 *
 * COMM names the thread (for agg__set_by(AGG_BY_COMM)).  UNWIND closes
 * every open frame of the thread (or interrupt context) as unwound.
 * SWITCH_OUT/SWITCH_IN mark the thread off/on CPU; every open frame is
 * charged the off-CPU time (runnable or blocked, per SWITCH_OUT's aux).
 * START pushes a frame; STOP closes the frame at depth-1 (frames above it
 * are closed as unwound, never timed); RETURNED closes the top frame (at
 * depth-1, of its timer) as a missed return, never timed; LEFT closes
 * the top frame the same way, counted as unwound (a user function left
 * without returning); EXECED removes the frame at depth-1 (anywhere in
 * the stack), counted in execed, never timed, and moves the frames above
 * it down one; EXIT closes every open frame of the
 * thread untimed (counted in exited, with its elapsed time to the exit in
 * exited_ns) and frees the thread.
 *
 * Keyed spans (struct iprof_rec_key): KSTART files the span under the
 * frame open on its starting thread (or interrupt context) now, or under
 * its root, and waits for the KSTOP of the same id and starting side,
 * which times it there: count, total (= self: a span is not the thread's
 * time and takes nothing from its parent's self time; no on/off-CPU
 * split), min/max, histogram, starting threads.  KREPLACED and KEXPIRED
 * drop it, counted in the node's replaced and expired.  A span open at
 * agg__snapshot() is incomplete.  A thread's exit does not end the spans
 * it started.
 *
 * A record with IPROF_F_RESYNC, or whose depth disagrees with the thread's
 * stack, discards that thread's frames; the thread's records are then
 * skipped until its next root START (depth 1).
 *
 * A record whose timestamp precedes its frame's start is malformed: the
 * thread's frames are discarded, never folded with a wrapped duration.
 *
 * Returns 0, -EINVAL for a malformed record (counted, otherwise ignored),
 * or -ENOMEM when a thread, node, stack or histogram could not be
 * allocated (counted in nomem; a lost START resyncs its thread).
 */
int agg__push(struct agg *a, const void *rec, size_t size);

/*
 * agg__snapshot() - recompute every node's incomplete/incomplete_ns from
 * the frames open now; @now_ns is the record clock (CLOCK_MONOTONIC) at the
 * end of tracing.  Times of completed timers are not touched.
 */
void agg__snapshot(struct agg *a, uint64_t now_ns);

/*
 * agg__reset() - start a new interval: zero every node's statistics
 * (counts, times, histograms, thread counts, unwound/discarded) and the
 * whole-run counters of agg_stats except threads_live, nodes and those of
 * the loss line (malformed, resyncs, discarded, skipped, unwound, execed,
 * missed_returns, mismatches, nomem: cumulative, as the kernel's).  The tree's
 * paths and the frames open now stay: a timer open across the reset counts,
 * with its whole duration, in the interval where it stops.
 */
void agg__reset(struct agg *a);

/*
 * agg__prune() - free the state of the threads whose EXIT record was lost
 * (the ring buffer was full): a thread that @alive(tid, @ctx) said was
 * gone at this call and at the one before is freed, its open frames
 * discarded (counted in discarded).  Two calls apart, so that an EXIT
 * still on its way is folded first.  Interrupt contexts are kept.  Call
 * now and then (iprof: every 30 s); a thread's state otherwise ends at
 * its EXIT.  Returns how many threads were freed (also in pruned).
 */
unsigned int agg__prune(struct agg *a, int (*alive)(uint32_t tid, void *ctx),
			void *ctx);

/*
 * agg__merge() - fold the finished statistics of @src into @dst, as if
 * @dst had been fed @src's records too: for sharded folding, where each
 * shard (its own aggregator) gets a disjoint set of threads, and a report
 * merges the shards into one aggregator.
 *
 * Both must have the same ntimers and agg__set_by(); @src is not changed
 * (and may be freed after); @dst keeps no pointer into it.  Nodes are
 * matched by their path of timer ids from the root (interrupt roots by
 * context and CPU, [other] to [other]); --by roots by their key: the tid
 * or tgid, and for AGG_BY_COMM the name (the index differs between
 * aggregators).  A path new to @dst is created under @dst's caps
 * (agg__set_limits(): its --max-paths and --max-keys; @src's do not
 * matter): beyond them it goes to [other] as agg__push() files a new
 * path or root (idle --by roots of @dst folded first to make room; the
 * --by roots merged in are idle in @dst), so which roots end in [other]
 * can differ from one aggregator fed every record.  Every child list of
 * @dst is then put in first-seen order (the earliest record on each
 * path), the order one aggregator gets from records in time order.
 *
 * Per node: counts, times, on/off-CPU and interrupt splits, unwound,
 * execed, missed_returns, discarded, incomplete (call agg__snapshot() on
 * @src before; on @dst it would recompute them from @dst's own frames)
 * and threads (shards hold disjoint threads: added) are summed; min/max,
 * first_start_ns (min) and last_stop_ns (max) combined; histograms
 * added; mean_ns/m2_ns combined by Chan, Golub and LeVeque's pairwise
 * formula (equal to one aggregator's up to floating-point rounding).
 * agg_stats: every counter summed (threads_live and threads_seen
 * included: disjoint threads), but nodes, which counts @dst's tree.
 * agg__timer_started() afterwards: started in either.  The threads and
 * open frames of @dst are not touched: @src's live threads stay in
 * @src.
 *
 * Returns 0, -EINVAL (NULL, @dst == @src, ntimers or --by differ:
 * nothing merged), or -ENOMEM (a node or histogram could not be
 * allocated: that part of @src is missing, counted once in @dst's nomem).
 */
int agg__merge(struct agg *dst, const struct agg *src);

/*
 * agg__count_nomem() - count @n records lost for lack of memory before
 * they reached the aggregator (a shard's stream, src/core/fold.c) in
 * agg_stats.nomem, with the aggregator's own.
 */
void agg__count_nomem(struct agg *a, uint64_t n);

/* agg__root() - the root pseudo-node; its children are the top-level timers. */
const struct agg_node *agg__root(const struct agg *a);

/* agg__stats() - the whole-run counters (pointer valid until agg__free). */
const struct agg_stats *agg__stats(const struct agg *a);

/* agg__ntimers() - the ntimers given to agg__new(). */
uint32_t agg__ntimers(const struct agg *a);

#endif /* IPROF_AGG_H */
