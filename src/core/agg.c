/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator (see include/iprof/agg.h): per-thread stacks of open
 * frames folded into a call tree of timer paths.  This file takes the
 * records in (agg__push()) and keeps each thread's stack of open frames,
 * and the aggregator's life cycle (new, snapshot, prune, reset, free); the
 * files below it (agg_int.h lists them, and describes the data
 * structures) fold a closed frame, keep the nodes, the caps, the --by
 * roots, the threads and keyed spans, and merge trees.
 *
 * In steady state (known threads, known paths, histograms allocated) the
 * per-record path allocates nothing.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

/* discard() - drop the thread's open frames (lost records). */
static void discard(struct agg *a, struct athread *t)
{
	uint32_t i;

	for (i = 0; i < t->len; i++)
		t->stack[i].node->discarded++;
	a->stats.discarded += t->len;
	t->len = 0;
}

/* lose_sync() - discard the frames and skip until the next root START. */
static void lose_sync(struct agg *a, struct athread *t)
{
	discard(a, t);
	t->waiting = 1;
}

/*
 * split_gap() - the gap split entry START @r of thread @t measured from its
 * mark (IPROF_REC_GAP() of abi.h), ns, less the thread's last off-CPU
 * interval where it fell in it (a preemption at one of the single step's
 * traps: the switch records counted it off-CPU already); 0 where none was
 * measured, at least 1 where one was.
 */
static uint32_t split_gap(const struct athread *t, const struct iprof_rec *r)
{
	uint64_t g = (uint64_t)IPROF_REC_GAP(r->aux) << IPROF_GAP_SHIFT;
	uint64_t from = r->ts > g ? r->ts - g : 0, lo, hi;

	if (g && t->last_in_ns > from && t->last_out_ns < r->ts) {
		lo = t->last_out_ns > from ? t->last_out_ns : from;
		hi = t->last_in_ns < r->ts ? t->last_in_ns : r->ts;
		g -= hi - lo < g ? hi - lo : g - 1;
	}
	return (uint32_t)g;
}

/*
 * do_start() - open a frame at depth r->depth: a START, or a FORKED frame
 * (a child's, inherited from its parent at the fork: opened at the fork's
 * time, its start probe's cost never taken off).
 */
static int do_start(struct agg *a, struct athread *t, const struct iprof_rec *r)
{
	struct agg_node *parent, *n;
	struct frame *f;
	uint32_t d = r->depth, nt = r->timer;

	/* a named timer's call: the name its IPROF_REC_NAME just gave */
	if (t->name_set && r->type == IPROF_REC_START &&
	    t->name_timer == r->timer && t->name_depth == d)
		nt = t->name_id;
	t->name_set = 0;
	if (t->waiting) {
		if (d != 1) {
			a->stats.skipped++;
			return 0;
		}
		t->waiting = 0;
	} else if (d != t->len + 1) {
		a->stats.mismatches++;
		discard(a, t);
		if (d != 1) {
			t->waiting = 1;
			a->stats.skipped++;
			return 0;
		}
	}

	if (t->len == t->cap) {
		f = realloc(t->stack, 2 * (size_t)t->cap * sizeof(*f));
		if (!f)
			goto nomem;
		t->stack = f;
		t->cap *= 2;
	}
	a->started[r->timer] = 1;
	parent = t->len ? t->stack[t->len - 1].node : t->root;
	if (nt == AGG_OTHER_TIMER) {
		/* a new name beyond --max-paths names (agg_name_intern()) */
		a->stats.folded_paths++;
		n = agg_other_get(a);
	} else {
		n = agg_path_get(a, parent, nt);
	}
	if (!n)
		goto nomem;
	seen(n, r->ts);
	f = &t->stack[t->len++];
	f->node = n;
	f->timer = r->timer;
	f->start_ns = r->ts;
	f->child_ns = 0;
	memset(f->cm, 0, sizeof(f->cm));
	f->uncertain = 0;
	f->var_ns2 = f->sys_ns = f->sv_ns2 = f->ss_ns = 0;
	f->off0[0] = t->off_ns[0];
	f->off0[1] = t->off_ns[1];
	f->irq0 = t->irq_ns;
	f->forked = r->type == IPROF_REC_FORKED;
	f->pc_start = r->type == IPROF_REC_START ?
			      (uint8_t)IPROF_REC_PCLASS(r->aux) :
			      IPROF_PC_NONE;
	f->pc_stop = IPROF_PC_NONE;
	f->gap_ns = f->pc_start == IPROF_PC_USPLIT ? split_gap(t, r) : 0;
	f->cpu_start = f->cpu_stop = r->cpu;
	if (a->slow_k)
		agg_slow_open(a, t, t->len - 1);
	return 0;

nomem:
	/* the start is lost: do not mis-nest what follows */
	a->stats.nomem++;
	lose_sync(a, t);
	return -ENOMEM;
}

static int do_stop(struct agg *a, struct athread *t, const struct iprof_rec *r)
{
	uint32_t i = r->depth - 1u, j;
	struct frame f;
	int err;

	if (t->waiting) {
		a->stats.skipped++;
		return 0;
	}
	if (i >= t->len || t->stack[i].timer != r->timer) {
		a->stats.mismatches++;
		a->stats.skipped++;
		lose_sync(a, t);
		return 0;
	}
	if (r->ts < t->stack[i].start_ns) {
		/* time went backwards: never fold a wrapped duration */
		a->stats.malformed++;
		lose_sync(a, t);
		return -EINVAL;
	}
	for (j = t->len; j-- > i + 1;) {
		t->stack[j].node->unwound++;
		agg_charge_open(a, t, j);
	}
	a->stats.unwound += t->len - (i + 1);
	f = t->stack[i];
	f.pc_stop = (uint8_t)IPROF_REC_PCLASS(r->aux);
	f.cpu_stop = r->cpu;
	t->len = i;
	err = agg_complete(a, t, &f, r->ts);
	if (err)
		a->stats.nomem++;
	else
		f.node->stops[IPROF_REC_STOPNO(r->aux)]++;
	return err;
}

/*
 * do_namemiss() - a span's stop named another call than its innermost
 * open frame (depth r->depth) and than any open frame of its timer
 * (IPROF_REC_NAMEMISS): it closed nothing; counted on that frame's node,
 * which stays open.  A frame not on the thread's stack (records lost
 * before) is counted in the run's total only: nothing is out of sync.
 */
static int do_namemiss(struct agg *a, struct athread *t,
		       const struct iprof_rec *r)
{
	uint32_t i = r->depth - 1u;

	a->stats.name_mismatch++;
	if (!t->waiting && i < t->len && t->stack[i].timer == r->timer)
		t->stack[i].node->name_mismatch++;
	return 0;
}

/*
 * do_returned() - the thread's top frame returned without its return probe
 * (BPF saw the stack back above it): close it untimed.  Anything but the
 * top frame of that timer means the thread's stack is out of sync.
 */
static int do_returned(struct agg *a, struct athread *t,
		       const struct iprof_rec *r)
{
	uint32_t i = r->depth - 1u;

	if (t->waiting) {
		a->stats.skipped++;
		return 0;
	}
	if (i + 1 != t->len || t->stack[i].timer != r->timer) {
		a->stats.mismatches++;
		a->stats.skipped++;
		lose_sync(a, t);
		return 0;
	}
	t->stack[i].node->missed_returns++;
	a->stats.missed_returns++;
	agg_charge_open(a, t, i);
	t->len = i;
	return 0;
}

/*
 * do_left() - the thread's top frame, a user function's, was left without
 * returning (longjmp, an exception: BPF saw the user stack above its
 * entry): close it untimed, counted as unwound.
 */
static int do_left(struct agg *a, struct athread *t, const struct iprof_rec *r)
{
	uint32_t i = r->depth - 1u;

	if (t->waiting) {
		a->stats.skipped++;
		return 0;
	}
	if (i + 1 != t->len || t->stack[i].timer != r->timer) {
		a->stats.mismatches++;
		a->stats.skipped++;
		lose_sync(a, t);
		return 0;
	}
	t->stack[i].node->unwound++;
	a->stats.unwound++;
	agg_charge_open(a, t, i);
	t->len = i;
	return 0;
}

/*
 * do_execed() - frame depth - 1 (a user function's, anywhere in the
 * stack) ended with its program image at exec: removed untimed, counted
 * in execed; the frames above it move down one (their paths stay).
 */
static int do_execed(struct agg *a, struct athread *t,
		     const struct iprof_rec *r)
{
	uint32_t i = r->depth - 1u;

	if (t->waiting) {
		a->stats.skipped++;
		return 0;
	}
	if (i >= t->len || t->stack[i].timer != r->timer) {
		a->stats.mismatches++;
		a->stats.skipped++;
		lose_sync(a, t);
		return 0;
	}
	t->stack[i].node->execed++;
	a->stats.execed++;
	agg_charge_open(a, t, i);
	memmove(&t->stack[i], &t->stack[i + 1],
		(t->len - i - 1) * sizeof(t->stack[0]));
	t->len--;
	return 0;
}

/*
 * do_hit() - a call of a timer whose return cannot be seen
 * (IPROF_REC_HIT): counted in hits under the thread's frame at r->depth
 * (0: a root call), never pushed, never timed; its entry probe ran inside
 * that frame, which is charged with its cost.
 */
static int do_hit(struct agg *a, struct athread *t, const struct iprof_rec *r)
{
	struct agg_cost tmp;
	const struct agg_cost *c =
		agg_cost_on_cpu(a, agg_cost_of(a, r->timer), r->cpu, r->cpu,
				&tmp);
	struct agg_node *parent, *n;
	uint64_t v[4];
	int k;

	if (t->waiting) {
		if (r->depth) {
			a->stats.skipped++;
			return 0;
		}
		t->waiting = 0; /* the thread's stack is empty: in sync */
	} else if (r->depth != t->len) {
		a->stats.mismatches++;
		discard(a, t);
		if (r->depth) {
			t->waiting = 1;
			a->stats.skipped++;
			return 0;
		}
	}
	a->started[r->timer] = 1;
	parent = t->len ? t->stack[t->len - 1].node : t->root;
	n = agg_path_get(a, parent, r->timer);
	if (!n) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	seen(n, r->ts);
	n->hits++;
	a->stats.hits++;
	for (k = 0; t->len && c && k < CM_N; k++) {
		agg_cost_parts(c, k, v);
		t->stack[t->len - 1].cm[k].ovh_ns += v[0] + v[1];
	}
	if (t->len && c) {
		/* ... and with its share of the compensation's uncertainty,
		 * in its time and in its self time (a hit is no child that
		 * carries its own): 20000 hits of 20 us probes inside one
		 * call read +-2 us before */
		struct frame *p = &t->stack[t->len - 1];

		agg_cost_parts(c, CM_SUM, v);
		agg_cost_err(c, v[0] + v[1], &p->var_ns2, &p->sys_ns);
		agg_cost_err(c, v[0] + v[1], &p->sv_ns2, &p->ss_ns);
	}
	return 0;
}

/* close_exited() - close @t's open frames as exited at @ts (ns); 1 if
 * one began after @ts (discarded, malformed input), else 0 */
static int close_exited(struct agg *a, struct athread *t, uint64_t ts)
{
	struct frame f;
	int bad = 0;

	while (t->len) {
		f = t->stack[--t->len];
		if (ts < f.start_ns) {
			f.node->discarded++;
			a->stats.discarded++;
			bad = 1;
			continue;
		}
		f.node->exited++;
		f.node->exited_ns += ts - f.start_ns;
		a->stats.exited++;
	}
	return bad;
}

/*
 * do_exit() - the thread exited with frames open: none of them returned, so
 * none is a call.  Each is counted in exited with its elapsed time, apart
 * from the counts and times, and its parent's self time is not charged.
 */
static int do_exit(struct agg *a, const struct iprof_rec *r)
{
	struct athread *t = agg_thread_get(a, r->tid, 0);
	int bad = 0;

	a->stats.exits++;
	if (r->flags & IPROF_F_RESYNC) {
		a->stats.resyncs++;
		if (t)
			discard(a, t);
	}
	if (!t)
		return 0;
	bad = close_exited(a, t, r->ts);
	agg_thread_del(a, t);
	if (bad) {
		a->stats.malformed++;
		return -EINVAL;
	}
	return 0;
}

/*
 * do_newtid() - a thread other than the leader exec'd (IPROF_REC_NEWTID):
 * its frames, tid r->aux's, go on as tid r->tid's (the leader's, whose
 * own frames its EXIT closed before; any still open close as exited).
 * The whole thread moves: its on/off-CPU and interrupt clocks, its --by
 * root, the nodes it completed.
 */
static int do_newtid(struct agg *a, const struct iprof_rec *r)
{
	struct athread *old = agg_thread_get(a, r->aux, 0), *t, tmp;
	int bad;

	if (!old || r->aux == r->tid)
		return 0; /* nothing of it open here */
	if (r->flags & IPROF_F_RESYNC) {
		a->stats.resyncs++;
		lose_sync(a, old);
	} else if (!old->waiting && old->len != r->depth) {
		a->stats.mismatches++;
		lose_sync(a, old);
	}
	t = agg_thread_get(a, r->tid, 1);
	if (!t) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	bad = close_exited(a, t, r->ts);
	tmp = *t;
	*t = *old;
	*old = tmp;
	t->tid = r->tid;
	old->tid = r->aux;
	agg_thread_del(a, old);
	if (bad) {
		a->stats.malformed++;
		return -EINVAL;
	}
	return 0;
}

/*
 * do_switch() - the thread left or regained its CPU while inside timers.
 * Unknown threads (their START was lost) are ignored; a SWITCH_IN without
 * its SWITCH_OUT (lost) charges nothing.
 */
static int do_switch(struct agg *a, const struct iprof_rec *r)
{
	struct athread *t = agg_thread_get(a, r->tid, 0);

	a->stats.switches++;
	if (!t)
		return 0;
	if (r->flags & IPROF_F_RESYNC) {
		a->stats.resyncs++;
		lose_sync(a, t);
	}
	if (r->type == IPROF_REC_SWITCH_OUT) {
		if (r->aux > IPROF_OFF_RUNQ)
			goto bad;
		t->off_kind = (int)r->aux;
		t->off_since = r->ts;
		if (a->off_on)
			agg_off_out(t, r);
		return 0;
	}
	if (t->off_kind >= 0 && r->ts >= t->off_since) {
		t->off_ns[t->off_kind] += r->ts - t->off_since;
		t->last_out_ns = t->off_since;
		t->last_in_ns = r->ts;
		if (a->off_on && t->off_kind == IPROF_OFF_BLOCKED &&
		    agg_off_in(a, t, r->ts - t->off_since))
			return -ENOMEM;
	}
	t->off_kind = -1;
	return 0;
bad:
	a->stats.malformed++;
	return -EINVAL;
}

/*
 * do_irq() - the thread, inside timers, was interrupted (IRQ_ENTER) or the
 * interrupt ended (IRQ_EXIT).  Nested interrupts count once, from the
 * outermost enter to its exit.  Unknown threads are ignored.
 */
static int do_irq(struct agg *a, const struct iprof_rec *r)
{
	struct athread *t = agg_thread_get(a, r->tid, 0);

	a->stats.irqs++;
	if (!t)
		return 0;
	if (r->type == IPROF_REC_IRQ_ENTER) {
		if (!t->irq_depth++)
			t->irq_since = r->ts;
		return 0;
	}
	if (!t->irq_depth)
		return 0; /* its enter was lost or came before the timer */
	if (!--t->irq_depth && r->ts >= t->irq_since)
		t->irq_ns += r->ts - t->irq_since;
	return 0;
}

/*
 * An interrupt ended (IPROF_F_CTX), or a thread's frames can never stop:
 * close them as unwound (counted, never timed).  A thread then gets its
 * --by root anew (its name may have changed).
 */
static int do_unwind(struct agg *a, const struct iprof_rec *r)
{
	struct athread *t;
	uint32_t i;

	if (r->flags & IPROF_F_CTX) {
		if (r->aux == IPROF_CTX_TASK || r->aux >= IPROF_CTX_MAX)
			goto bad;
		t = agg_thread_get(a, AGG_CTX_TIMER(r->aux, r->cpu), 0);
	} else {
		t = agg_thread_get(a, r->tid, 0);
	}
	if (!t)
		return 0;
	for (i = 0; i < t->len; i++)
		t->stack[i].node->unwound++;
	a->stats.unwound += t->len;
	t->len = 0;
	t->waiting = 0;
	if (!(r->flags & IPROF_F_CTX))
		t->reroot = 1;
	return 0;
bad:
	a->stats.malformed++;
	return -EINVAL;
}

/* The thread's name: kept for --by comm. */
static int do_comm(struct agg *a, const void *rec)
{
	struct iprof_rec_comm c;
	struct athread *t;

	memcpy(&c, rec, sizeof(c));
	t = agg_thread_get(a, c.tid, 1);
	if (!t) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	memcpy(t->comm, c.comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
	t->tgid = c.tgid;
	/* a new name (exec, a rename) files the thread's next timers under
	 * it; timers open at the rename stay under the old one, and the
	 * thread's next top-level timer goes under the new (below) */
	if (a->by == AGG_BY_COMM)
		t->reroot = 1;
	return 0;
}

struct agg *agg__new(uint32_t ntimers)
{
	struct agg *a;

	if (!ntimers) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		goto nomem;
	a->ntimers = ntimers;
	a->root.timer = AGG_ROOT_TIMER;
	a->root.last_tid = NO_TID;
	a->tbits = THREAD_TAB_BITS;
	a->ttab = calloc(THREAD_TAB_MIN, sizeof(*a->ttab));
	a->nbits = NODE_TAB_BITS;
	a->ntab = calloc(NODE_TAB_MIN, sizeof(*a->ntab));
	a->started = calloc(ntimers, 1);
	if (!a->ttab || !a->ntab || !a->started)
		goto nomem;
	return a;

nomem:
	agg__free(a);
	errno = ENOMEM;
	return NULL;
}

int agg__timer_started(const struct agg *a, uint32_t timer)
{
	return timer < a->ntimers && a->started[timer];
}

void agg__free(struct agg *a)
{
	struct node_chunk *c, *next;
	unsigned int i;

	if (!a)
		return;
	free(a->started);
	free(a->costs);
	for (i = 0; a->ttab && i < (1u << a->tbits); i++) {
		if (a->ttab[i].t)
			agg_thread_destroy(a->ttab[i].t);
	}
	for (c = a->chunks; c; c = next) {
		next = c->next;
		for (i = 0; i < c->used; i++) {
			free(c->n[i].hist);
			agg_slow_free(&c->n[i]);
			agg_off_free(&c->n[i]);
		}
		free(c);
	}
	for (i = 0; a->ktab && i < (1u << a->kbits); i++) {
		struct kspan *e, *next;

		for (e = a->ktab[i]; e; e = next) {
			next = e->next;
			free(e->info);
			free(e);
		}
	}
	free(a->ktab);
	free(a->ttab);
	free(a->ntab);
	free(a->comms);
	agg_names_free(a);
	free(a);
}

/* do_val() - IPROF_REC_ARGS, IPROF_REC_RETVAL: to --slowest's levels
 * (agg_slow_val()); nothing without --slowest */
static int do_val(struct agg *a, const void *rec)
{
	struct iprof_rec_val v;
	struct athread *t;

	if (!a->slow_k)
		return 0;
	memcpy(&v, rec, sizeof(v));
	t = agg_thread_get(a, v.tid, 1);
	if (!t) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	return agg_slow_val(a, t, &v);
}

/* do_off() - IPROF_REC_OFFSTACK, IPROF_REC_WAKER: from now on blocked
 * periods are charged to stacks and wakers (agg_offcpu.c); a thread never
 * seen inside a timer is ignored */
static int do_off(struct agg *a, const void *rec)
{
	struct iprof_rec_val v;
	struct athread *t;

	memcpy(&v, rec, sizeof(v));
	a->off_on = 1;
	t = agg_thread_get(a, v.tid, 0);
	return t ? agg_off_rec(a, t, rec) : 0;
}

int agg__push(struct agg *a, const void *rec, size_t size)
{
	struct athread *t;
	struct iprof_rec r;

	a->stats.records++;
	if (!rec || size != sizeof(r))
		goto bad;
	memcpy(&r, rec, sizeof(r)); /* @rec may be unaligned */
	if (r.size != sizeof(r))
		goto bad;
	switch (r.type) {
	case IPROF_REC_START:
	case IPROF_REC_FORKED:
	case IPROF_REC_STOP:
	case IPROF_REC_RETURNED:
	case IPROF_REC_LEFT:
	case IPROF_REC_EXECED:
	case IPROF_REC_NAMEMISS:
		if (r.timer >= a->ntimers || r.depth == 0)
			goto bad;
		break;
	case IPROF_REC_HIT:
		if (r.timer >= a->ntimers)
			goto bad;
		break;
	case IPROF_REC_EXIT:
		return do_exit(a, &r);
	case IPROF_REC_NEWTID:
		return do_newtid(a, &r);
	case IPROF_REC_SWITCH_OUT:
	case IPROF_REC_SWITCH_IN:
		return do_switch(a, &r);
	case IPROF_REC_IRQ_ENTER:
	case IPROF_REC_IRQ_EXIT:
		return do_irq(a, &r);
	case IPROF_REC_COMM:
		return do_comm(a, rec);
	case IPROF_REC_UNWIND:
		return do_unwind(a, &r);
	case IPROF_REC_KSTART:
	case IPROF_REC_KSTOP:
	case IPROF_REC_KREPLACED:
	case IPROF_REC_KEXPIRED:
	case IPROF_REC_KINFO:
		return agg_do_key(a, rec);
	case IPROF_REC_NAME:
		return agg_do_name(a, rec);
	case IPROF_REC_NAMESTR:
		return agg_do_namestr(a, rec);
	case IPROF_REC_ARGS:
	case IPROF_REC_RETVAL:
		return do_val(a, rec);
	case IPROF_REC_OFFSTACK:
	case IPROF_REC_WAKER:
		return do_off(a, rec);
	default:
		goto bad;
	}

	if (r.flags & IPROF_F_CTX) {
		/* an interrupt context of one CPU is a thread of its own */
		uint32_t cx = IPROF_REC_CTX(r.aux); /* bits 8-15: a pclass */

		if (cx == IPROF_CTX_TASK || cx >= IPROF_CTX_MAX)
			goto bad;
		r.tid = AGG_CTX_TIMER(cx, r.cpu);
	}
	t = agg_thread_get(a, r.tid, 1);
	if (!t) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	if (agg_thread_root(a, t, &r))
		return -ENOMEM;
	if (r.flags & IPROF_F_RESYNC) {
		a->stats.resyncs++;
		lose_sync(a, t);
	}
	if (r.type == IPROF_REC_START) {
		a->stats.starts++;
		return do_start(a, t, &r);
	}
	if (r.type == IPROF_REC_FORKED) {
		a->stats.forked++;
		return do_start(a, t, &r);
	}
	if (r.type == IPROF_REC_RETURNED)
		return do_returned(a, t, &r);
	if (r.type == IPROF_REC_LEFT)
		return do_left(a, t, &r);
	if (r.type == IPROF_REC_EXECED)
		return do_execed(a, t, &r);
	if (r.type == IPROF_REC_HIT)
		return do_hit(a, t, &r);
	if (r.type == IPROF_REC_NAMEMISS)
		return do_namemiss(a, t, &r);
	a->stats.stops++;
	return do_stop(a, t, &r);

bad:
	a->stats.malformed++;
	return -EINVAL;
}

unsigned int agg__prune(struct agg *a, int (*alive)(uint32_t tid, void *ctx),
			void *ctx)
{
	struct athread *t, **dead = NULL;
	unsigned int n = 0, cap = 0, i;

	for (i = 0; i < (1u << a->tbits); i++) {
		t = a->ttab[i].t;
		if (!t || (t->tid & 0xc0000000u) == 0xc0000000u)
			continue; /* none, or an interrupt context */
		if (alive(t->tid, ctx)) {
			t->gone = 0;
			continue;
		}
		if (!t->gone) {
			t->gone = 1; /* its EXIT may still be on its way */
			continue;
		}
		if (n == cap) {
			struct athread **v;

			cap = cap ? 2 * cap : 64;
			v = realloc(dead, cap * sizeof(*v));
			if (!v)
				break;
			dead = v;
		}
		dead[n++] = t;
	}
	/* deleted after the walk: deletion moves entries of the table */
	for (i = 0; i < n; i++) {
		discard(a, dead[i]);
		agg_thread_del(a, dead[i]);
	}
	a->stats.pruned += n;
	free(dead);
	return n;
}

void agg__snapshot(struct agg *a, uint64_t now_ns)
{
	struct node_chunk *c;
	struct athread *t;
	unsigned int i, j;

	for (c = a->chunks; c; c = c->next) {
		for (i = 0; i < c->used; i++) {
			c->n[i].incomplete = 0;
			c->n[i].incomplete_ns = 0;
		}
	}
	for (i = 0; i < (1u << a->tbits); i++) {
		t = a->ttab[i].t;
		if (!t)
			continue;
		for (j = 0; j < t->len; j++) {
			struct frame *f = &t->stack[j];

			f->node->incomplete++;
			if (now_ns > f->start_ns)
				f->node->incomplete_ns += now_ns - f->start_ns;
		}
	}
	for (i = 0; a->ktab && i < (1u << a->kbits); i++) {
		struct kspan *e;

		for (e = a->ktab[i]; e; e = e->next) {
			if (e->early)
				continue;
			e->node->incomplete++;
			if (now_ns > e->ts)
				e->node->incomplete_ns += now_ns - e->ts;
		}
	}
}

static void node_reset(struct agg_node *n)
{
	struct hist *h = n->hist;

	agg_slow_free(n);
	agg_off_free(n);
	/* keep the tree links and the identity, zero the rest */
	memset(&n->count, 0,
	       sizeof(*n) - offsetof(struct agg_node, count));
	if (h)
		memset(h, 0, sizeof(*h));
	n->hist = h;
	n->last_tid = NO_TID;
}

void agg__reset(struct agg *a)
{
	struct node_chunk *c;
	struct athread *t;
	uint64_t live = a->stats.threads_live, nodes = a->stats.nodes;
	struct agg_stats keep;
	unsigned int i;

	for (c = a->chunks; c; c = c->next)
		for (i = 0; i < c->used; i++)
			node_reset(&c->n[i]);
	/* threads count anew: forget which nodes each thread completed */
	for (i = 0; i < (1u << a->tbits); i++) {
		t = a->ttab[i].t;
		if (t)
			agg_nodeset_clear(&t->done);
	}
	/* the counters of the loss line stay cumulative, as the kernel's */
	keep = a->stats;
	memset(&a->stats, 0, sizeof(a->stats));
	a->stats.threads_live = live;
	a->stats.nodes = nodes;
	a->stats.malformed = keep.malformed;
	a->stats.resyncs = keep.resyncs;
	a->stats.discarded = keep.discarded;
	a->stats.skipped = keep.skipped;
	a->stats.unwound = keep.unwound;
	a->stats.execed = keep.execed;
	a->stats.missed_returns = keep.missed_returns;
	a->stats.mismatches = keep.mismatches;
	a->stats.nomem = keep.nomem;
	a->stats.kunmatched = keep.kunmatched;
	a->stats.kearly = keep.kearly; /* held now, not an interval's */
}

void agg__count_nomem(struct agg *a, uint64_t n)
{
	a->stats.nomem += n;
}

const struct agg_node *agg__root(const struct agg *a)
{
	return &a->root;
}

const struct agg_stats *agg__stats(const struct agg *a)
{
	return &a->stats;
}

uint32_t agg__ntimers(const struct agg *a)
{
	return a->ntimers;
}
