/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's compensation (include/iprof/agg.h, agg__set_costs()): a
 * frame closed by its stop is folded into its node (agg_complete(),
 * agg_fold_call()) less the probes' calibrated mean cost that fell inside
 * it, which a thread's debt keeps unbiased (agg_settle()): one compensated
 * duration per call, which every statistic takes (count, total, min, max,
 * mean, stddev, histogram), so that min <= avg <= max <= total; with the
 * uncertainty of what was taken out (agg_cost_err()).  A frame closed
 * without a stop charges its parent (agg_charge_open()).  Also the set of
 * nodes a thread completed (struct nodeset), which holds that debt and
 * counts agg_node.threads.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

static int nodeset_grow(struct nodeset *s)
{
	uint32_t nbits = s->bits ? s->bits + 1 : 3; /* SET_MIN = 1 << 3 */
	struct agg_node **slot;
	uint64_t *val;
	uint32_t i, j, mask = (1u << nbits) - 1;

	slot = calloc((size_t)1 << nbits, sizeof(*slot));
	val = calloc((size_t)NODESET_VALS << nbits, sizeof(*val));
	if (!slot || !val) {
		free(slot);
		free(val);
		return -ENOMEM;
	}
	for (i = 0; s->bits && i < (1u << s->bits); i++) {
		if (!s->slot[i])
			continue;
		j = hash_u64((uintptr_t)s->slot[i], nbits);
		while (slot[j])
			j = (j + 1) & mask;
		slot[j] = s->slot[i];
		memcpy(&val[NODESET_VALS * j], &s->val[NODESET_VALS * i],
		       NODESET_VALS * sizeof(*val));
	}
	free(s->slot);
	free(s->val);
	s->slot = slot;
	s->val = val;
	s->bits = nbits;
	return 0;
}

/* agg_nodeset_val() - @n's values in @s (NODESET_VALS of them: [0] the
 * debt, ...), or NULL when @n is not in it. */
uint64_t *agg_nodeset_val(struct nodeset *s, const struct agg_node *n)
{
	uint32_t i, mask;

	if (!s->bits)
		return NULL;
	mask = (1u << s->bits) - 1;
	for (i = hash_u64((uintptr_t)n, s->bits); s->slot[i];
	     i = (i + 1) & mask)
		if (s->slot[i] == n)
			return &s->val[NODESET_VALS * i];
	return NULL;
}

/* agg_nodeset_clear() - empty @s, its memory kept. */
void agg_nodeset_clear(struct nodeset *s)
{
	if (s->slot) {
		memset(s->slot, 0, ((size_t)1 << s->bits) * sizeof(*s->slot));
		memset(s->val, 0,
		       ((size_t)NODESET_VALS << s->bits) * sizeof(*s->val));
	}
	s->used = 0;
}

/* nodeset_add() - 1 if @n was added, 0 if present, -ENOMEM. */
static int nodeset_add(struct nodeset *s, struct agg_node *n)
{
	uint32_t i, mask;

	if ((s->used + 1) * 2 > (s->bits ? 1u << s->bits : 0)) {
		if (nodeset_grow(s))
			return -ENOMEM;
	}
	mask = (1u << s->bits) - 1;
	for (i = hash_u64((uintptr_t)n, s->bits); s->slot[i];
	     i = (i + 1) & mask) {
		if (s->slot[i] == n)
			return 0;
	}
	s->slot[i] = n;
	s->used++;
	return 1;
}

/* agg_cost_of() - the calibrated probe cost of @timer's calls, or NULL. */
const struct agg_cost *agg_cost_of(const struct agg *a, uint32_t timer)
{
	return a->costs && timer < a->ntimers ? &a->costs[timer] : NULL;
}

/*
 * agg_cost_parts() - @c's parts for compensation @k (CM_*), in ns: [0] start
 * in, [1] start out, [2] stop in, [3] stop out; CM_SUM takes the means
 * where @c has them (AGG_COST_MEAN), else both take the medians.
 */
void agg_cost_parts(const struct agg_cost *c, int k, uint64_t v[4])
{
	int mean = k == CM_SUM && (c->flags & AGG_COST_MEAN);

	v[0] = mean ? c->mean_start_in_ns : c->start_in_ns;
	v[1] = mean ? c->mean_start_out_ns : c->start_out_ns;
	v[2] = mean ? c->mean_stop_in_ns : c->stop_in_ns;
	v[3] = mean ? c->mean_stop_out_ns : c->stop_out_ns;
}

/* @v scaled by @pm / 1000, rounded, into 32 bits */
static uint32_t scale32(uint32_t v, uint32_t pm)
{
	uint64_t x = ((uint64_t)v * pm + 500) / 1000;

	return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

static uint32_t cpu_pm(const struct agg *a, uint16_t cpu)
{
	return cpu < a->ncpu_pm ? a->cpu_pm[cpu] : 1000u;
}

/*
 * agg_cost_on_cpu() - @c (NULL: NULL) as it costs with its start probe on
 * @cpu_start and its stop probe on @cpu_stop (agg__set_cpu_scale()): @c
 * itself where both CPUs' factors are 1000, else @tmp filled.
 */
const struct agg_cost *agg_cost_on_cpu(const struct agg *a,
				       const struct agg_cost *c,
				       uint16_t cpu_start, uint16_t cpu_stop,
				       struct agg_cost *tmp)
{
	uint32_t s = cpu_pm(a, cpu_start), e = cpu_pm(a, cpu_stop);

	if (!c || (s == 1000u && e == 1000u))
		return c;
	if (c != tmp)
		*tmp = *c;
	tmp->start_in_ns = scale32(c->start_in_ns, s);
	tmp->start_out_ns = scale32(c->start_out_ns, s);
	tmp->mean_start_in_ns = scale32(c->mean_start_in_ns, s);
	tmp->mean_start_out_ns = scale32(c->mean_start_out_ns, s);
	tmp->stop_in_ns = scale32(c->stop_in_ns, e);
	tmp->stop_out_ns = scale32(c->stop_out_ns, e);
	tmp->mean_stop_in_ns = scale32(c->mean_stop_in_ns, e);
	tmp->mean_stop_out_ns = scale32(c->mean_stop_out_ns, e);
	tmp->sd_ns = scale32(c->sd_ns, (s + e) / 2);
	tmp->drift_ns = scale32(c->drift_ns, (s + e) / 2);
	return tmp;
}

int agg__set_cpu_scale(struct agg *a, const uint16_t *pm, uint32_t n)
{
	uint32_t i;

	if (!pm)
		n = 0;
	if (n > AGG_CPU_SCALE_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!pm[i])
			return -EINVAL;
	if (n)
		memcpy(a->cpu_pm, pm, n * sizeof(*pm));
	a->ncpu_pm = n;
	return 0;
}

static int pc_inline(uint8_t pc)
{
	return pc == IPROF_PC_UINLINE || pc == IPROF_PC_UINLINE_EMU ||
	       pc == IPROF_PC_KINLINE;
}

int agg_pc_step(unsigned int pc)
{
	switch (pc) {
	case IPROF_PC_RETSITE:
	case IPROF_PC_UINLINE:
		return 1;
	case IPROF_PC_RETSITE_EMU:
	case IPROF_PC_UINLINE_EMU:
		return 0;
	default:
		return -1;
	}
}

void agg_cost_halves(uint32_t total, uint32_t d_first, uint32_t d_second,
		     uint32_t *first, uint32_t *second)
{
	uint32_t rest;

	if (d_first > total)
		d_first = total;
	if (d_second > total - d_first)
		d_second = total - d_first;
	rest = total - d_first - d_second;
	*first = rest / 2 + d_first;
	*second = total - *first;
}

/* @v moved by a single step @d: up (@more), else down, at least 0 */
static void step_move(uint32_t *v, uint32_t d, int more)
{
	if (more)
		*v = *v > UINT32_MAX - d ? UINT32_MAX : *v + d;
	else
		*v = *v > d ? *v - d : 0;
}

/* the mean parts' sum of @k, ns */
static double mean_sum(const struct agg_cost *k)
{
	uint64_t v[4];

	agg_cost_parts(k, CM_SUM, v);
	return (double)(v[0] + v[1] + v[2] + v[3]);
}

/*
 * step_sides() - @k (a frame's cost, its sides from @c's classes) one
 * single step (c->step_ns) more (@ss 1) or less (0) in its start's inside
 * part, and in its stop's outside part by @es (-1: neither), its spread
 * scaled alike: the variance and the bias per ns of cost stay its
 * class's (a call with one step less has about half the variance of one
 * with two).
 */
static void step_sides(struct agg_cost *k, const struct agg_cost *c, int ss,
		       int es)
{
	double m0 = mean_sum(k), m1;

	if (ss >= 0) {
		step_move(&k->start_in_ns, c->step_ns, ss);
		step_move(&k->mean_start_in_ns, c->mean_step_ns, ss);
	}
	if (es >= 0) {
		step_move(&k->stop_out_ns, c->step_ns, es);
		step_move(&k->mean_stop_out_ns, c->mean_step_ns, es);
	}
	m1 = mean_sum(k);
	if (m0 > 0 && m1 > 0) {
		k->sd_ns = (uint32_t)(k->sd_ns * sqrt(m1 / m0) + 0.5);
		k->drift_ns = (uint32_t)(k->drift_ns * (m1 / m0) + 0.5);
	}
}

/* @k's inside and outside parts from its inlined instances' class
 * (struct agg_cost inl_*): the start's (@start) or the stop's side */
static void inline_side(struct agg_cost *k, const struct agg_cost *c,
			int start)
{
	uint32_t f = c->inl_flags, s_in, e_in, s_out, e_out;
	uint32_t ds = f & AGG_COST_START_STEP ? c->step_ns : 0;
	uint32_t de = f & AGG_COST_STOP_STEP ? c->step_ns : 0;
	uint32_t mds = f & AGG_COST_START_STEP ? c->mean_step_ns : 0;
	uint32_t mde = f & AGG_COST_STOP_STEP ? c->mean_step_ns : 0;

	if (start) {
		agg_cost_halves(c->inl_in_ns, ds, 0, &k->start_in_ns, &e_in);
		agg_cost_halves(c->inl_out_ns, 0, de, &k->start_out_ns,
				&e_out);
		agg_cost_halves(c->inl_mean_in_ns, mds, 0,
				&k->mean_start_in_ns, &e_in);
		agg_cost_halves(c->inl_mean_out_ns, 0, mde,
				&k->mean_start_out_ns, &e_out);
		return;
	}
	agg_cost_halves(c->inl_in_ns, ds, 0, &s_in, &k->stop_in_ns);
	agg_cost_halves(c->inl_out_ns, 0, de, &s_out, &k->stop_out_ns);
	agg_cost_halves(c->inl_mean_in_ns, mds, 0, &s_in, &k->mean_stop_in_ns);
	agg_cost_halves(c->inl_mean_out_ns, 0, mde, &s_out,
			&k->mean_stop_out_ns);
}

/*
 * agg_frame_cost() - the calibrated cost of @f's call, by the classes of
 * the probes that started and stopped it (frame.pc_start, pc_stop): its
 * timer's cost, or @tmp filled with each side's from its own class: a
 * side at an inlined instance from the instances' class (struct agg_cost
 * inl_*; the spread's variance and bias half from each side's class),
 * and a side whose site was single-stepped where its class's was not (or
 * the reverse: agg_pc_step()) one step more (less) there (agg_cost
 * step_ns): in the start's inside part, in the stop's outside part.  NULL
 * when the timer has none.
 */
const struct agg_cost *agg_frame_cost(const struct agg *a,
				      const struct frame *f,
				      struct agg_cost *tmp)
{
	const struct agg_cost *c = agg_cost_of(a, f->timer);
	int is, ie, ss, es, cs, ce;
	double vs, ve;

	if (!c)
		return NULL;
	is = c->inl_flags && pc_inline(f->pc_start);
	ie = c->inl_flags && pc_inline(f->pc_stop);
	cs = !!((is ? c->inl_flags : c->flags) & AGG_COST_START_STEP);
	ce = !!((ie ? c->inl_flags : c->flags) & AGG_COST_STOP_STEP);
	ss = c->step_ns ? agg_pc_step(f->pc_start) : -1;
	es = c->step_ns ? agg_pc_step(f->pc_stop) : -1;
	if (ss == cs)
		ss = -1;
	if (es == ce)
		es = -1;
	if (!is && !ie && ss < 0 && es < 0)
		return agg_cost_on_cpu(a, c, f->cpu_start, f->cpu_stop, tmp);
	*tmp = *c;
	if (is || ie) {
		tmp->flags |= c->inl_flags & AGG_COST_UNKNOWN;
		if (is)
			inline_side(tmp, c, 1);
		if (ie)
			inline_side(tmp, c, 0);
		vs = is ? c->inl_sd_ns : c->sd_ns;
		ve = ie ? c->inl_sd_ns : c->sd_ns;
		tmp->sd_ns = (uint32_t)sqrt((vs * vs + ve * ve) / 2);
		tmp->drift_ns = ((is ? c->inl_drift_ns : c->drift_ns) +
				 (ie ? c->inl_drift_ns : c->drift_ns)) /
				2;
	}
	if (ss >= 0 || es >= 0)
		step_sides(tmp, c, ss, es);
	return agg_cost_on_cpu(a, tmp, f->cpu_start, f->cpu_stop, tmp);
}

/*
 * agg_frame_gap() - the part of @f's start probe's cost outside it that a
 * split entry measured (IPROF_REC_GAP() of abi.h), ns, for compensation
 * @k (CM_*): its own gap, or where it has none or one longer than
 * AGG_GAP_CUT times the calibrated median plus AGG_GAP_SLACK_NS (a
 * preemption between the mark and the start: off-CPU time, never the
 * probes'), @c's calibrated gap (the mean for CM_SUM); 0 for a frame
 * started otherwise.
 */
uint64_t agg_frame_gap(const struct agg_cost *c, const struct frame *f,
		       int k)
{
	if (!c || f->forked || f->pc_start != IPROF_PC_USPLIT)
		return 0;
	if (f->gap_ns && (uint64_t)f->gap_ns <= (uint64_t)c->gap_ns *
							 AGG_GAP_CUT +
						 AGG_GAP_SLACK_NS)
		return f->gap_ns;
	return k == CM_SUM ? c->mean_gap_ns : c->gap_ns;
}

/*
 * agg_charge_open() - frame @i of @t is closed without a stop (unwound, left,
 * a missed return, ended by exec): its start probe and the probes inside
 * it ran within frame @i - 1, which is charged with them and marked
 * uncertain (the stop that never came may have cost something too).
 */
void agg_charge_open(const struct agg *a, struct athread *t, uint32_t i)
{
	const struct agg_cost *c;
	struct agg_cost tmp;
	struct frame *p;
	uint64_t v[4];
	int k;

	if (!i || i >= t->len)
		return;
	c = t->stack[i].forked ? NULL : agg_frame_cost(a, &t->stack[i], &tmp);
	p = &t->stack[i - 1];
	for (k = 0; k < CM_N; k++) {
		p->cm[k].ovh_ns += t->stack[i].cm[k].ovh_ns;
		if (c) {
			agg_cost_parts(c, k, v);
			p->cm[k].ovh_ns += v[0] + v[1] +
					   agg_frame_gap(c, &t->stack[i], k);
		}
	}
	p->var_ns2 += t->stack[i].var_ns2;
	p->sys_ns += t->stack[i].sys_ns;
	if (c) {
		agg_cost_parts(c, CM_SUM, v);
		agg_cost_err(c, v[0] + v[1], &p->var_ns2, &p->sys_ns);
		agg_cost_err(c, v[0] + v[1], &p->sv_ns2, &p->ss_ns);
		/* its start's half of both parts, fired cold */
		p->sys_ns += (c->cold_ns + c->cold_out_ns) / 2.0;
		p->ss_ns += (c->cold_ns + c->cold_out_ns) / 2.0;
	}
	p->uncertain = 1;
}

/*
 * agg_cost_err() - add the uncertainty of @part_ns of @c's mean cost (a
 * sum of its mean parts) to *@var (ns^2: its share of c->sd_ns^2) and
 * *@sys (ns: its share of c->drift_ns); nothing when @c has no spread.
 */
void agg_cost_err(const struct agg_cost *c, uint64_t part_ns, double *var,
		  double *sys)
{
	uint64_t v[4], m;

	if (!c || (!c->sd_ns && !c->drift_ns) || !part_ns)
		return;
	agg_cost_parts(c, CM_SUM, v);
	m = v[0] + v[1] + v[2] + v[3];
	if (!m)
		return;
	*var += (double)c->sd_ns * c->sd_ns * (double)part_ns / (double)m;
	*sys += (double)c->drift_ns * (double)part_ns / (double)m;
}

/*
 * agg_fold_call() - count one call of @n from @start_ns to @ts_ns, by thread
 * @tid, lasting @sum ns compensated (the probes' mean cost taken out, what
 * the thread owed given back: agg_settle(); without costs raw): its share
 * of the total, mean and spread, min and max, its histogram place, the
 * count, first/last and thread count too (@t: the thread's state for its
 * set of completed nodes; NULL when it is gone: counted as a new thread
 * where the node's last one differs).  Every statistic takes the same
 * duration, so that min <= avg <= max <= total and a node of one call has
 * them all equal.  Self, raw and on/off-CPU times are the caller's.
 * Returns 0 or -ENOMEM (histogram, thread set).
 */
int agg_fold_call(struct agg_node *n, struct athread *t, uint32_t tid,
		  uint64_t sum, uint64_t start_ns, uint64_t ts_ns)
{
	double delta;
	int err = 0, rc;

	n->count++;
	n->total_ns += sum;
	delta = (double)sum - n->mean_ns;
	n->mean_ns += delta / (double)n->count;
	n->m2_ns += delta * ((double)sum - n->mean_ns);
	if (n->count == 1) {
		n->min_ns = sum;
		n->max_ns = sum;
		n->first_start_ns = start_ns;
		n->last_stop_ns = ts_ns;
	} else {
		if (sum < n->min_ns)
			n->min_ns = sum;
		if (sum > n->max_ns)
			n->max_ns = sum;
		if (start_ns < n->first_start_ns)
			n->first_start_ns = start_ns;
		if (ts_ns > n->last_stop_ns)
			n->last_stop_ns = ts_ns;
	}
	if (!n->hist)
		n->hist = calloc(1, sizeof(*n->hist));
	if (n->hist)
		hist_add(n->hist, sum);
	else
		err = -ENOMEM;
	if (n->last_tid != tid) {
		rc = t ? nodeset_add(&t->done, n) : 1;
		if (rc > 0)
			n->threads++;
		else if (rc < 0)
			err = rc;
		n->last_tid = tid;
	}
	return err;
}

/*
 * agg_settle() - keep the sums' compensation unbiased: a call's @on (on-CPU)
 * and @dur, clamped to its children's (@cm) and to 0, lost less than its
 * @raw_on on-CPU time less the probes' cost @ovh when a clamp held (the
 * probes' spread: a call whose probes cost less than the mean): that much
 * goes on @debt, the thread's at this node; a later call with room above
 * its children gives it back, as much as the room allows.  The clamps
 * stay per call (no call below its children or 0), and the node's sums
 * lose the probes' mean cost over its calls, unbiased, as far as its
 * calls leave room (what is left on the debt makes them an upper bound).
 * Per thread, so that folding in shards by thread (-j) adds up the same.
 */
void agg_settle(struct agg_node *n, uint64_t *debt, const struct comp *cm,
	    uint64_t raw_on, uint64_t ovh, uint64_t *on, uint64_t *dur)
{
	/* what the clamps added: the call less the probes' cost, below 0
	 * or below its children (both the probes' spread) */
	int64_t added = (int64_t)*on - ((int64_t)raw_on - (int64_t)ovh);
	uint64_t room, give;

	if (added > 0) {
		*debt += (uint64_t)added;
		n->clamped_ns += (uint64_t)added;
		return;
	}
	room = *on - cm->child_on_ns;
	if (*dur - cm->child_ns < room)
		room = *dur - cm->child_ns;
	give = *debt < room ? *debt : room;
	*on -= give;
	*dur -= give;
	*debt -= give;
	/* the node's own share first: a debt left by a thread whose node
	 * was reset (--interval-mode delta) is not counted there again */
	n->clamped_ns -= give < n->clamped_ns ? give : n->clamped_ns;
}

/* A closed frame's times, compensated (agg_complete()), per CM_*. */
struct ctimes {
	uint64_t dur[CM_N], on[CM_N], rq[CM_N], ovh[CM_N], out[CM_N];
};

/*
 * comp_times() - @f's raw @raw ns, of which @runq runnable and @blocked
 * blocked, less the probes' cost inside it (its own probes' parts between
 * its timestamps, and every probe that fired in its children), by the
 * median costs and by the mean ones, into @ct.  The probes ran on the CPU:
 * their cost comes off the on-CPU part, never below the children's
 * on-CPU time; the preemptions that fell in them go too (the runnable
 * time scaled by the on-CPU time left over the raw one: a thread is
 * preempted as often in a probe as in its own code), by the thread's
 * calls there so far and this one (@h: NULL, or its done set's values,
 * [1] raw and [2] compensated on-CPU ns: one call's own share is as noisy
 * as its probes' cost, and a preemption leaves the probes after it
 * slower); the call never below its children's time.  The parts still
 * add up to dur.
 */
static void comp_times(const struct agg_cost *c, const struct frame *f,
		       uint64_t raw, uint64_t runq, uint64_t blocked,
		       const uint64_t *h, struct ctimes *ct)
{
	uint64_t v[4], raw_on = raw - runq - blocked, hr, ho;
	int k;

	for (k = 0; k < CM_N; k++) {
		ct->ovh[k] = f->cm[k].ovh_ns;
		ct->out[k] = 0;
		if (c) {
			/* an inherited frame had no start probe here */
			agg_cost_parts(c, k, v);
			ct->ovh[k] += (f->forked ? 0 : v[0]) + v[2];
			ct->out[k] = (f->forked ? 0 : v[1]) + v[3] +
				     agg_frame_gap(c, f, k);
		}
		ct->on[k] = raw_on > ct->ovh[k] ? raw_on - ct->ovh[k] : 0;
		if (ct->on[k] < f->cm[k].child_on_ns)
			ct->on[k] = f->cm[k].child_on_ns;
		hr = raw_on + (h ? h[1] : 0);
		ho = ct->on[k] + (h ? h[2] : 0);
		ct->rq[k] = runq;
		if (ho < hr)
			ct->rq[k] = (uint64_t)((unsigned __int128)runq * ho /
					       hr);
		ct->dur[k] = ct->on[k] + ct->rq[k] + blocked;
		if (ct->dur[k] < f->cm[k].child_ns) {
			ct->on[k] += f->cm[k].child_ns - ct->dur[k];
			ct->dur[k] = f->cm[k].child_ns;
		}
	}
}

/*
 * comp_err() - the uncertainty of @f's compensation (cost @c, NULL: none)
 * into its node @n, and what of it falls inside its parent @p (NULL at the
 * top): its own probes' parts inside it count in its total and self, those
 * outside it in its parent's total and self.
 */
static void comp_err(const struct agg_cost *c, const struct frame *f,
		     struct agg_node *n, struct frame *p)
{
	double var = f->var_ns2, sys = f->sys_ns, ov = 0, os = 0;
	double sv = f->sv_ns2, ss = f->ss_ns;
	uint64_t v[4];

	if (c) {
		agg_cost_parts(c, CM_SUM, v);
		agg_cost_err(c, (f->forked ? 0 : v[0]) + v[2], &var, &sys);
		agg_cost_err(c, (f->forked ? 0 : v[0]) + v[2], &sv, &ss);
		agg_cost_err(c, (f->forked ? 0 : v[1]) + v[3], &ov, &os);
		/* its probes' inside part, fired cold (agg_cost.cold_ns):
		 * its own time's bias, and so its callers'; their outside
		 * part (cold_out_ns): its caller's */
		sys += f->forked ? c->cold_ns / 2.0 : c->cold_ns;
		ss += f->forked ? c->cold_ns / 2.0 : c->cold_ns;
		os += f->forked ? c->cold_out_ns / 2.0 : c->cold_out_ns;
	}
	n->err_var_ns2 += var;
	n->err_sys_ns += sys;
	n->self_err_var_ns2 += sv;
	n->self_err_sys_ns += ss;
	if (p) {
		p->var_ns2 += var + ov;
		p->sys_ns += sys + os;
		p->sv_ns2 += ov;
		p->ss_ns += os;
	}
}

/*
 * agg_complete() - fold the frame @f, just popped from @t (t->len already below
 * it), ended at @ts_ns >= f->start_ns.  Returns 0 or -ENOMEM when the
 * histogram or the thread set could not grow (the times are folded anyway).
 */
int agg_complete(const struct agg *a, struct athread *t, const struct frame *f,
	     uint64_t ts_ns)
{
	struct agg_node *n = f->node;
	uint64_t raw = ts_ns - f->start_ns, debt, *dp;
	struct agg_node **slot0;
	uint64_t runq = t->off_ns[IPROF_OFF_RUNQ] - f->off0[IPROF_OFF_RUNQ];
	uint64_t blocked = t->off_ns[IPROF_OFF_BLOCKED] -
			   f->off0[IPROF_OFF_BLOCKED];
	struct agg_cost tmp;
	const struct agg_cost *c = agg_frame_cost(a, f, &tmp);
	struct frame *p = t->len ? &t->stack[t->len - 1] : NULL;
	int uncertain = f->uncertain, k;
	struct ctimes ct;
	uint64_t irq;
	int err;

	/* the off-CPU parts as the switch records said, within raw */
	if (runq > raw)
		runq = raw;
	if (blocked > raw - runq)
		blocked = raw - runq;
	if (c)
		uncertain |= !!(c->flags & AGG_COST_UNKNOWN);
	/* raw times (no costs): nothing clamped, nothing owed */
	slot0 = t->done.slot;
	dp = c ? agg_nodeset_val(&t->done, n) : NULL;
	debt = dp ? *dp : 0;
	comp_times(c, f, raw, runq, blocked, dp, &ct);
	if (c)
		agg_settle(n, &debt, &f->cm[CM_SUM], raw - runq - blocked,
		       ct.ovh[CM_SUM], &ct.on[CM_SUM], &ct.dur[CM_SUM]);
	if (uncertain)
		n->uncertain++;
	if (ct.ovh[CM_CALL] > ct.dur[CM_CALL])
		n->dominated++;
	n->raw_total_ns += raw;
	n->raw_self_ns += raw > f->child_ns ? raw - f->child_ns : 0;
	n->runq_ns += ct.rq[CM_SUM];
	n->runq_out_ns += runq - ct.rq[CM_SUM];
	n->blocked_ns += blocked;
	n->oncpu_ns += ct.on[CM_SUM];
	irq = t->irq_ns - f->irq0;
	n->irq_ns += irq < ct.on[CM_SUM] ? irq : ct.on[CM_SUM];
	n->self_ns += ct.dur[CM_SUM] - f->cm[CM_SUM].child_ns;
	comp_err(c, f, n, p);
	err = agg_fold_call(n, t, t->tid, ct.dur[CM_SUM], f->start_ns, ts_ns);
	/* the thread's debt here, kept in its done set: agg_fold_call() put the
	 * node there on its first call, and a set that grew moved (looked up
	 * again then only) */
	if (c && (!dp || t->done.slot != slot0))
		dp = agg_nodeset_val(&t->done, n);
	if (dp) {
		dp[0] = debt;
		dp[1] += raw - runq - blocked;
		dp[2] += ct.on[CM_SUM];
	}
	if (p) {
		p->child_ns += raw;
		for (k = 0; k < CM_N; k++) {
			p->cm[k].child_ns += ct.dur[k];
			p->cm[k].child_on_ns += ct.on[k];
			/* all of this call's probe cost fell inside its
			 * parent */
			p->cm[k].ovh_ns += ct.ovh[k] + ct.out[k];
		}
		p->uncertain |= uncertain;
	}
	if (a->slow_k) {
		/* the call's own wall time, less its probes' cost only */
		int e = agg_slow_close(a, t, f, ct.on[CM_CALL], runq, blocked,
				       raw);

		err = err ? err : e;
	}
	return err;
}

int agg__set_costs(struct agg *a, const struct agg_cost *costs)
{
	struct agg_cost *c = NULL;

	if (costs) {
		c = malloc((size_t)a->ntimers * sizeof(*c));
		if (!c)
			return -ENOMEM;
		memcpy(c, costs, (size_t)a->ntimers * sizeof(*c));
	}
	free(a->costs);
	a->costs = c;
	return 0;
}
