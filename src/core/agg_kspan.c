/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's keyed spans (IPROF_REC_KSTART, KSTOP, KREPLACED,
 * KEXPIRED): a span opened by one record and closed by another, matched
 * by (id, starting side) in a chained hash (struct kspan, agg.ktab) rather
 * than on a thread's stack; a stop merged ahead of its start waits early
 * (at most KEARLY_MAX); a span closed is folded as a call of its timer,
 * compensated as a frame is (agg_comp.c).  With --slowest a KSTOP comes
 * after its IPROF_REC_KINFO parts (its key values, who stopped it), kept
 * with the span's call where it is among the slowest.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

/* The chain of keyed span (@id, @who) in a->ktab (kbits > 0). */
static struct kspan **kchain(const struct agg *a, uint32_t id, uint32_t who)
{
	return &a->ktab[hash_u64((uint64_t)who << 32 | id, a->kbits)];
}

/* The entry of (@id, @who), as the link that points at it, or NULL. */
static struct kspan **kfind(const struct agg *a, uint32_t id, uint32_t who)
{
	struct kspan **pp;

	if (!a->ktab)
		return NULL;
	for (pp = kchain(a, id, who); *pp; pp = &(*pp)->next)
		if ((*pp)->id == id && (*pp)->who == who)
			return pp;
	return NULL;
}

/* Grow ktab to keep chains short (load at most 1).  Returns 0 or -ENOMEM. */
static int kgrow(struct agg *a)
{
	uint32_t bits = a->kbits ? a->kbits + 1 : 10, i;
	struct kspan **old = a->ktab, *e, *next, **pp;
	uint32_t obits = a->kbits;

	if (a->ktab && a->nkspans < (1ull << a->kbits))
		return 0;
	a->ktab = calloc((size_t)1 << bits, sizeof(*a->ktab));
	if (!a->ktab) {
		a->ktab = old;
		return old ? 0 : -ENOMEM; /* longer chains, still correct */
	}
	a->kbits = bits;
	for (i = 0; old && i < (1u << obits); i++) {
		for (e = old[i]; e; e = next) {
			next = e->next;
			pp = kchain(a, e->id, e->who);
			e->next = *pp;
			*pp = e;
		}
	}
	free(old);
	return 0;
}

/* Add an entry; returns it, or NULL (-ENOMEM). */
static struct kspan *kadd(struct agg *a, uint32_t id, uint32_t who,
			  uint32_t timer, uint64_t ts)
{
	struct kspan *e, **pp;

	if (kgrow(a))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->id = id;
	e->who = who;
	e->timer = timer;
	e->ts = ts;
	pp = kchain(a, id, who);
	e->next = *pp;
	*pp = e;
	a->nkspans++;
	return e;
}

/* Unlink and free the entry at @pp, letting go of its root. */
static void kdel(struct agg *a, struct kspan **pp)
{
	struct kspan *e = *pp;

	*pp = e->next;
	if (e->early)
		a->stats.kearly--;
	agg_root_unref(a, e->root);
	free(e->info);
	free(e);
	a->nkspans--;
}

/*
 * Time keyed span @e (a start) stopped at @stop_ns by its starting thread
 * @tid's node: its whole duration is its own (self = total), none of it
 * its parent's; compensated (agg__set_costs()) for its own two probes'
 * parts inside it (the probes of other timers that fired meanwhile ran
 * on other threads' time, not the span's); offered to --slowest's (less
 * its probes' median cost) with what its stop sent @ki (NULL: nothing).
 * Returns 0, -EINVAL (the stop precedes the start) or -ENOMEM.
 */
static int kfold(struct agg *a, const struct kspan *e, uint32_t tid,
		 uint64_t stop_ns, const struct kinfo *ki)
{
	const struct agg_cost *c = agg_cost_of(a, e->timer);
	struct athread *t = agg_thread_get(a, e->who, 0);
	static const struct comp none; /* a keyed span has no children */
	struct agg_node *n = e->node;
	uint64_t raw, dur[CM_N], in[CM_N] = { 0 }, v[4], debt, *dp, on;
	int err, k;

	if (stop_ns < e->ts) {
		a->stats.malformed++;
		return -EINVAL;
	}
	raw = stop_ns - e->ts;
	/* compensated (median and mean costs, as agg_complete() does): its own
	 * probes' parts between its timestamps */
	if (c && (c->flags & AGG_COST_UNKNOWN))
		n->uncertain++;
	for (k = 0; k < CM_N; k++) {
		if (c) {
			agg_cost_parts(c, k, v);
			in[k] = v[0] + v[2];
		}
		dur[k] = raw > in[k] ? raw - in[k] : 0;
	}
	if (in[CM_CALL] > raw)
		n->dominated++;
	agg_cost_err(c, in[CM_SUM], &n->err_var_ns2, &n->err_sys_ns);
	agg_cost_err(c, in[CM_SUM], &n->self_err_var_ns2, &n->self_err_sys_ns);
	/* the clamp at 0 owed back as agg_complete() does, on the starting
	 * thread's debt while it is known */
	dp = c && t ? agg_nodeset_val(&t->done, n) : NULL;
	debt = dp ? *dp : 0;
	if (c) {
		on = dur[CM_SUM];
		agg_settle(n, &debt, &none, raw, in[CM_SUM], &on, &dur[CM_SUM]);
	}
	a->stats.kstops++;
	n->raw_total_ns += raw;
	n->raw_self_ns += raw;
	n->self_ns += dur[CM_SUM];
	err = agg_fold_call(n, t, tid, dur[CM_SUM], e->ts, stop_ns);
	dp = c && t ? agg_nodeset_val(&t->done, n) : NULL;
	if (dp)
		*dp = debt;
	if (a->slow_k) {
		int e2 = agg_slow_span(a, n, t, e->id, e->ts, dur[CM_CALL], raw,
				       ki);

		err = err ? err : e2;
	}
	if (err)
		a->stats.nomem++;
	return err;
}

/* Count span @e dropped by @type (KREPLACED or KEXPIRED). */
static void kdrop(struct agg *a, struct kspan *e, int type)
{
	if (type == IPROF_REC_KREPLACED) {
		e->node->replaced++;
		a->stats.kreplaced++;
	} else {
		e->node->expired++;
		a->stats.kexpired++;
	}
}

/* KSTART: file the span under the starting side's open frame. */
static int kstart(struct agg *a, const struct iprof_rec_key *k, uint32_t who)
{
	struct iprof_rec r = {
		.type = IPROF_REC_START, .size = sizeof(r), .timer = k->timer,
		.tid = who, .tgid = k->tgid, .ts = k->ts, .cpu = k->cpu,
		.aux = k->ctx,
		.flags = k->ctx != IPROF_CTX_TASK ? IPROF_F_CTX : 0,
	};
	const struct agg_cost *c = agg_cost_of(a, k->timer);
	struct kspan **pp = kfind(a, k->id, who), *e;
	struct kinfo *info = NULL;
	struct agg_node *parent, *n;
	struct athread *t;
	uint64_t stop = 0;
	int early = 0, err;

	a->stats.kstarts++;
	if (pp && (*pp)->early) {
		/* its stop (or its drop) came first */
		stop = (*pp)->ts;
		early = (*pp)->early;
		info = (*pp)->info;
		(*pp)->info = NULL;
	}
	if (pp)
		kdel(a, pp); /* else an id that wrapped: the old one is lost */
	t = agg_thread_get(a, who, 1);
	if (!t || agg_thread_root(a, t, &r)) {
		free(info);
		a->stats.nomem++;
		return -ENOMEM;
	}
	a->started[k->timer] = 1;
	parent = t->len ? t->stack[t->len - 1].node : t->root;
	n = agg_path_get(a, parent, k->timer);
	if (!n) {
		free(info);
		a->stats.nomem++;
		return -ENOMEM;
	}
	seen(n, k->ts);
	/* the start's probe ran inside the frame open on its thread */
	for (int m = 0; t->len && c && m < CM_N; m++) {
		uint64_t v[4];

		agg_cost_parts(c, m, v);
		t->stack[t->len - 1].cm[m].ovh_ns += v[0] + v[1];
	}
	e = kadd(a, k->id, who, k->timer, k->ts);
	if (!e) {
		free(info);
		a->stats.nomem++;
		return -ENOMEM;
	}
	e->node = n;
	e->root = t->root;
	agg_root_ref(a, e->root);
	if (!early)
		return 0;
	err = 0;
	if (early == IPROF_REC_KSTOP)
		err = kfold(a, e, k->tid ? k->tid : who, stop, info);
	else
		kdrop(a, e, early);
	free(info);
	kdel(a, kfind(a, k->id, who));
	return err;
}

/*
 * KINFO (--slowest): part of what the KSTOP that follows sends of span
 * (@k->id, @who), kept in a->kpend until it comes; a part of another
 * span starts over.  Ignored without --slowest.
 */
static int kinfo(struct agg *a, const struct iprof_rec_key *k, uint32_t who)
{
	struct kinfo *p = &a->kpend;
	uint32_t part = IPROF_VAL_PART(k->flags);

	if (!a->slow_k || part >= IPROF_KI_PARTS)
		return 0;
	if (p->id != k->id || p->who != who || !p->mask) {
		memset(p, 0, sizeof(*p));
		p->id = k->id;
		p->who = who;
	}
	p->mask |= 1u << part;
	p->v[part] = IPROF_KINFO_VAL(k);
	return 0;
}

/*
 * kinfo_take() - the KINFO parts met for span (@id, @who), whose KSTOP
 * came, into @out: @out, or NULL where they were another span's (or none
 * came); a->kpend empty after
 */
static const struct kinfo *kinfo_take(struct agg *a, uint32_t id, uint32_t who,
				      struct kinfo *out)
{
	struct kinfo *p = &a->kpend;

	if (!p->mask)
		return NULL;
	*out = *p;
	p->mask = 0;
	return out->mask && out->id == id && out->who == who ? out : NULL;
}

/* KSTART, KSTOP, KREPLACED, KEXPIRED, KINFO (struct iprof_rec_key). */
int agg_do_key(struct agg *a, const void *rec)
{
	const struct kinfo *ki;
	struct kinfo info;
	struct iprof_rec_key k;
	struct kspan **pp, *e;
	uint32_t who;
	int err;

	memcpy(&k, rec, sizeof(k));
	if ((k.type != IPROF_REC_KINFO && k.timer >= a->ntimers) ||
	    k.ctx >= IPROF_CTX_MAX) {
		a->stats.malformed++;
		return -EINVAL;
	}
	who = k.ctx != IPROF_CTX_TASK ? AGG_CTX_TIMER(k.ctx, k.cpu) : k.tid;
	if (k.type == IPROF_REC_KINFO)
		return kinfo(a, &k, who);
	if (k.type == IPROF_REC_KSTART)
		return kstart(a, &k, who);
	ki = k.type == IPROF_REC_KSTOP ? kinfo_take(a, k.id, who, &info) : NULL;
	pp = kfind(a, k.id, who);
	if (pp && ((*pp)->early || (*pp)->timer != k.timer)) {
		a->stats.kunmatched++; /* a second stop, or another timer's */
		return 0;
	}
	if (!pp) {
		/* hold it for its start, which another CPU's ring may still
		 * bring; beyond the cap it is unmatched */
		if (a->stats.kearly >= KEARLY_MAX ||
		    !kadd(a, k.id, who, k.timer, k.ts)) {
			a->stats.kunmatched++;
			return 0;
		}
		e = *kfind(a, k.id, who);
		e->early = k.type;
		a->stats.kearly++;
		if (ki) {
			/* kept for its start (without memory: not shown) */
			e->info = malloc(sizeof(*e->info));
			if (e->info)
				*e->info = *ki;
		}
		return 0;
	}
	if (k.type != IPROF_REC_KSTOP) {
		kdrop(a, *pp, k.type);
		kdel(a, pp);
		return 0;
	}
	err = kfold(a, *pp, k.tid ? k.tid : who, k.ts, ki);
	kdel(a, pp);
	return err;
}
