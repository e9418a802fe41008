/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's compensation (include/iprof/agg.h, agg__set_costs()): a
 * frame closed by its stop is folded into its node (agg_complete(),
 * agg_fold_call()) less the probes' calibrated cost that fell inside it, by
 * their median cost for the call's own place (min, max, histogram) and by
 * their mean cost for the sums, which a thread's debt keeps unbiased
 * (agg_settle()); a frame closed without a stop charges its parent
 * (agg_charge_open()).  Also the set of nodes a thread completed (struct
 * nodeset), which holds that debt and counts agg_node.threads.
 */
#include <errno.h>
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
	val = calloc((size_t)1 << nbits, sizeof(*val));
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
		val[j] = s->val[i];
	}
	free(s->slot);
	free(s->val);
	s->slot = slot;
	s->val = val;
	s->bits = nbits;
	return 0;
}

/* agg_nodeset_val() - @n's value in @s, or NULL when @n is not in it. */
uint64_t *agg_nodeset_val(struct nodeset *s, const struct agg_node *n)
{
	uint32_t i, mask;

	if (!s->bits)
		return NULL;
	mask = (1u << s->bits) - 1;
	for (i = hash_u64((uintptr_t)n, s->bits); s->slot[i];
	     i = (i + 1) & mask)
		if (s->slot[i] == n)
			return &s->val[i];
	return NULL;
}

/* agg_nodeset_clear() - empty @s, its memory kept. */
void agg_nodeset_clear(struct nodeset *s)
{
	if (s->slot) {
		memset(s->slot, 0, ((size_t)1 << s->bits) * sizeof(*s->slot));
		memset(s->val, 0, ((size_t)1 << s->bits) * sizeof(*s->val));
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

/*
 * agg_charge_open() - frame @i of @t is closed without a stop (unwound, left,
 * a missed return, ended by exec): its start probe and the probes inside
 * it ran within frame @i - 1, which is charged with them and marked
 * uncertain (the stop that never came may have cost something too).
 */
void agg_charge_open(const struct agg *a, struct athread *t, uint32_t i)
{
	const struct agg_cost *c;
	struct frame *p;
	uint64_t v[4];
	int k;

	if (!i || i >= t->len)
		return;
	c = t->stack[i].forked ? NULL : agg_cost_of(a, t->stack[i].timer);
	p = &t->stack[i - 1];
	for (k = 0; k < CM_N; k++) {
		p->cm[k].ovh_ns += t->stack[i].cm[k].ovh_ns;
		if (c) {
			agg_cost_parts(c, k, v);
			p->cm[k].ovh_ns += v[0] + v[1];
		}
	}
	p->uncertain = 1;
}

/*
 * agg_fold_call() - count one call of @n from @start_ns to @ts_ns, by thread
 * @tid, lasting @dur ns compensated by the probes' median cost (its
 * histogram place) and @sum ns by their mean cost (its share of the
 * total, mean and spread; the same without compensation): min and max
 * bound both, so that min <= avg <= max and every percentile lies within
 * them; the count, first/last and thread count too (@t: the thread's
 * state for its set of completed nodes; NULL when it is gone: counted as
 * a new thread where the node's last one differs).  Self, raw and
 * on/off-CPU times are the caller's.  Returns 0 or -ENOMEM (histogram,
 * thread set).
 */
int agg_fold_call(struct agg_node *n, struct athread *t, uint32_t tid, uint64_t dur,
	      uint64_t sum, uint64_t start_ns, uint64_t ts_ns)
{
	uint64_t lo = dur < sum ? dur : sum, hi = dur < sum ? sum : dur;
	double delta;
	int err = 0, rc;

	n->count++;
	n->total_ns += sum;
	delta = (double)sum - n->mean_ns;
	n->mean_ns += delta / (double)n->count;
	n->m2_ns += delta * ((double)sum - n->mean_ns);
	if (n->count == 1) {
		n->min_ns = lo;
		n->max_ns = hi;
		n->first_start_ns = start_ns;
		n->last_stop_ns = ts_ns;
	} else {
		if (lo < n->min_ns)
			n->min_ns = lo;
		if (hi > n->max_ns)
			n->max_ns = hi;
		if (start_ns < n->first_start_ns)
			n->first_start_ns = start_ns;
		if (ts_ns > n->last_stop_ns)
			n->last_stop_ns = ts_ns;
	}
	if (!n->hist)
		n->hist = calloc(1, sizeof(*n->hist));
	if (n->hist)
		hist_add(n->hist, dur);
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

/*
 * agg_complete() - fold the frame @f, just popped from @t (t->len already below
 * it), ended at @ts_ns >= f->start_ns.  Returns 0 or -ENOMEM when the
 * histogram or the thread set could not grow (the times are folded anyway).
 */
int agg_complete(const struct agg *a, struct athread *t, const struct frame *f,
	     uint64_t ts_ns)
{
	struct agg_node *n = f->node;
	uint64_t raw = ts_ns - f->start_ns, dur[CM_N], on[CM_N], ovh[CM_N];
	uint64_t out[CM_N], v[4], debt, *dp;
	struct agg_node **slot0;
	uint64_t runq = t->off_ns[IPROF_OFF_RUNQ] - f->off0[IPROF_OFF_RUNQ];
	uint64_t blocked = t->off_ns[IPROF_OFF_BLOCKED] -
			   f->off0[IPROF_OFF_BLOCKED];
	const struct agg_cost *c = agg_cost_of(a, f->timer);
	int uncertain = f->uncertain, k;
	uint64_t irq;
	int err;

	/* the off-CPU parts as the switch records said, within raw */
	if (runq > raw)
		runq = raw;
	if (blocked > raw - runq)
		blocked = raw - runq;
	if (c)
		uncertain |= !!(c->flags & AGG_COST_UNKNOWN);
	/*
	 * Compensated, by the median costs and by the mean ones: the raw
	 * duration less the probe cost inside it (its own probes' parts
	 * between its timestamps, and every probe that fired in its
	 * children).  The probes ran on the CPU: their cost comes off the
	 * on-CPU part, never below the children's on-CPU time; the call
	 * never below its children's time.  The parts still add up to dur.
	 */
	for (k = 0; k < CM_N; k++) {
		ovh[k] = f->cm[k].ovh_ns;
		out[k] = 0;
		if (c) {
			/* an inherited frame had no start probe here */
			agg_cost_parts(c, k, v);
			ovh[k] += (f->forked ? 0 : v[0]) + v[2];
			out[k] = (f->forked ? 0 : v[1]) + v[3];
		}
		on[k] = raw - runq - blocked;
		on[k] = on[k] > ovh[k] ? on[k] - ovh[k] : 0;
		if (on[k] < f->cm[k].child_on_ns)
			on[k] = f->cm[k].child_on_ns;
		dur[k] = on[k] + runq + blocked;
		if (dur[k] < f->cm[k].child_ns) {
			on[k] += f->cm[k].child_ns - dur[k];
			dur[k] = f->cm[k].child_ns;
		}
	}
	/* raw times (no costs): nothing clamped, nothing owed */
	slot0 = t->done.slot;
	dp = c ? agg_nodeset_val(&t->done, n) : NULL;
	debt = dp ? *dp : 0;
	if (c)
		agg_settle(n, &debt, &f->cm[CM_SUM], raw - runq - blocked,
		       ovh[CM_SUM], &on[CM_SUM], &dur[CM_SUM]);
	if (uncertain)
		n->uncertain++;
	if (ovh[CM_CALL] > dur[CM_CALL])
		n->dominated++;
	n->raw_total_ns += raw;
	n->raw_self_ns += raw > f->child_ns ? raw - f->child_ns : 0;
	n->runq_ns += runq;
	n->blocked_ns += blocked;
	n->oncpu_ns += on[CM_SUM];
	irq = t->irq_ns - f->irq0;
	n->irq_ns += irq < on[CM_SUM] ? irq : on[CM_SUM];
	n->self_ns += dur[CM_SUM] - f->cm[CM_SUM].child_ns;
	err = agg_fold_call(n, t, t->tid, dur[CM_CALL], dur[CM_SUM], f->start_ns,
			ts_ns);
	/* the thread's debt here, kept in its done set: agg_fold_call() put the
	 * node there on its first call, and a set that grew moved (looked up
	 * again then only) */
	if (c && (!dp || t->done.slot != slot0))
		dp = agg_nodeset_val(&t->done, n);
	if (dp)
		*dp = debt;
	if (t->len) {
		struct frame *p = &t->stack[t->len - 1];

		p->child_ns += raw;
		for (k = 0; k < CM_N; k++) {
			p->cm[k].child_ns += dur[k];
			p->cm[k].child_on_ns += on[k];
			/* all of this call's probe cost fell inside its
			 * parent */
			p->cm[k].ovh_ns += ovh[k] + out[k];
		}
		p->uncertain |= uncertain;
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
