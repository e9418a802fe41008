// SPDX-License-Identifier: GPL-2.0-only
/*
 * --slowest K (include/iprof/slow.h): per node the K slowest completed
 * calls, each with its own children.
 *
 * Each open frame of a thread has a level (struct slow_lvl, same index as
 * the frame): the timed calls completed inside it so far, summed by their
 * path below it, at most SLOW_KIDS_MAX paths.  When a frame closes, its
 * call is offered to its node's set: a min-heap of K calls, the least slow
 * at its top, so that a call is kept iff the heap has room or it is slower
 * than the top (which it then replaces): after any sequence, exactly the K
 * slowest.  Only a kept call copies its level's paths; the frame's call
 * and its level's paths then go to its parent's level (one deeper).  The
 * levels are reused frame after frame: a call costs no allocation unless
 * it is kept.  Keyed spans (agg_kspan.c) are offered without children,
 * with their key values and stopping side where their stop sent them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"
#include "iprof/slow.h"

struct slow_lvl {
	uint32_t nargs; /* IPROF_NARGS when args[] holds the arguments of
			 * the frame opened at this index next (or now) */
	uint32_t argmask; /* IPROF_REC_ARGS pairs received (bits 0-2) */
	uint32_t has_ret; /* ret holds the open frame's return value */
	uint64_t args[IPROF_NARGS];
	uint64_t ret;
	uint32_t n; /* paths in kid, each after its parent path */
	uint64_t more; /* timed calls inside the frame on no path of kid */
	struct slow_kid kid[SLOW_KIDS_MAX];
};

int slow_slower(const struct slow_call *x, const struct slow_call *y)
{
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns;
	return x->tid < y->tid;
}

/* heap order: the parent is less slow than its children */
static void sift_down(struct slow_set *s, uint32_t i)
{
	struct slow_call tmp;
	uint32_t l, m;

	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < s->n && slow_slower(&s->call[m], &s->call[l]))
			m = l;
		if (l + 1 < s->n && slow_slower(&s->call[m], &s->call[l + 1]))
			m = l + 1;
		if (m == i)
			return;
		tmp = s->call[i];
		s->call[i] = s->call[m];
		s->call[m] = tmp;
		i = m;
	}
}

static void sift_up(struct slow_set *s, uint32_t i)
{
	struct slow_call tmp;
	uint32_t p;

	while (i) {
		p = (i - 1) / 2;
		if (!slow_slower(&s->call[p], &s->call[i]))
			return;
		tmp = s->call[i];
		s->call[i] = s->call[p];
		s->call[p] = tmp;
		i = p;
	}
}

/*
 * offer() - @c (its kids at @kids, c->nkids of them, copied if kept) into
 * @n's set of at most @k.  Returns 0 (kept or not) or -ENOMEM.
 */
static int offer(struct agg_node *n, uint32_t k, const struct slow_call *c,
		 const struct slow_kid *kids)
{
	struct slow_set *s = n->slow;
	struct slow_kid *copy = NULL;
	uint32_t i;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->call = calloc(k, sizeof(*s->call));
		if (!s->call) {
			free(s);
			return -ENOMEM;
		}
		s->k = k;
		n->slow = s;
	}
	if (s->n == s->k && !slow_slower(c, &s->call[0]))
		return 0;
	if (c->nkids) {
		copy = malloc(c->nkids * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, kids, c->nkids * sizeof(*copy));
	}
	if (s->n < s->k) {
		i = s->n++;
	} else {
		i = 0;
		free(s->call[0].kids);
	}
	s->call[i] = *c;
	s->call[i].kids = copy;
	if (i)
		sift_up(s, i);
	else
		sift_down(s, 0);
	return 0;
}

int agg__set_slowest(struct agg *a, uint32_t k)
{
	if (k > SLOW_K_MAX)
		return -EINVAL;
	a->slow_k = k;
	return 0;
}

/*
 * agg_slow_open() - frame @i of @t opened: its level, empty.  Without
 * memory the level is missing and the call is kept without its children.
 */
/* lvl_grow() - room for level @i of @t; 0 or -ENOMEM (counted) */
static int lvl_grow(struct agg *a, struct athread *t, uint32_t i)
{
	struct slow_lvl *l;
	uint32_t cap;

	if (i >= t->slow_cap) {
		cap = t->slow_cap ? 2 * t->slow_cap : STACK_MIN;
		if (cap <= i)
			cap = i + 1;
		l = realloc(t->slow, (size_t)cap * sizeof(*l));
		if (!l) {
			a->stats.nomem++;
			return -ENOMEM;
		}
		memset(&l[t->slow_cap], 0,
		       (size_t)(cap - t->slow_cap) * sizeof(*l));
		t->slow = l;
		t->slow_cap = cap;
	}
	return 0;
}

void agg_slow_open(struct agg *a, struct athread *t, uint32_t i)
{
	if (!a->slow_k || lvl_grow(a, t, i))
		return;
	t->slow[i].n = 0;
	t->slow[i].more = 0;
	t->slow[i].has_ret = 0;
	if (t->slow[i].argmask != 7)
		t->slow[i].nargs = 0; /* a pair was lost */
	t->slow[i].argmask = 0;
}

/*
 * agg_slow_val() - an IPROF_REC_ARGS or IPROF_REC_RETVAL record @r of
 * thread @t: the arguments go to the level of the frame its next START
 * opens (t->len), the return value to the open frame at depth v1's low
 * 32 bits (its STOP follows).  Ignored without --slowest.  Returns 0 or
 * -ENOMEM.
 */
int agg_slow_val(struct agg *a, struct athread *t,
		 const struct iprof_rec_val *r)
{
	uint64_t v0 = r->lo0 | (uint64_t)r->hi0 << 32;
	uint64_t v1 = r->lo1 | (uint64_t)r->hi1 << 32;
	uint32_t pair = IPROF_VAL_PAIR(r->flags), d = r->lo1;
	struct slow_lvl *l;

	if (!a->slow_k)
		return 0;
	if (r->type == IPROF_REC_RETVAL) {
		if (!d || d > t->len || d - 1 >= t->slow_cap)
			return 0;
		l = &t->slow[d - 1];
		l->ret = v0;
		l->has_ret = 1;
		return 0;
	}
	if (pair > 2)
		return 0;
	if (lvl_grow(a, t, t->len))
		return -ENOMEM;
	l = &t->slow[t->len];
	if (!pair)
		l->argmask = 0;
	l->argmask |= 1u << pair;
	l->args[2 * pair] = v0;
	l->args[2 * pair + 1] = v1;
	l->nargs = l->argmask == 7 ? IPROF_NARGS : 0;
	return 0;
}

/*
 * kid_add() - @n calls of @timer (@dur, @raw ns summed, the first at
 * @start) on the path under entry @parent of level @p: summed into that
 * path's entry, or a new one.  Returns its index, or SLOW_KID_TOP when
 * the table is full (the calls counted in p->more).
 */
static uint32_t kid_add(struct slow_lvl *p, uint32_t parent, uint32_t timer,
			uint32_t depth, uint64_t start, uint64_t dur,
			uint64_t raw, uint64_t n)
{
	struct slow_kid *e;
	uint32_t i;

	for (i = 0; i < p->n; i++) {
		e = &p->kid[i];
		if (e->parent == parent && e->timer == timer) {
			e->count += n;
			e->dur_ns += dur;
			e->raw_ns += raw;
			if (start < e->start_ns)
				e->start_ns = start;
			return i;
		}
	}
	if (p->n == SLOW_KIDS_MAX) {
		p->more += n;
		return SLOW_KID_TOP;
	}
	e = &p->kid[p->n];
	*e = (struct slow_kid){ .start_ns = start, .dur_ns = dur,
				.raw_ns = raw, .count = n, .timer = timer,
				.depth = depth, .parent = parent };
	return p->n++;
}

/*
 * append() - the call of frame @f (@dur, @raw) and the paths of its own
 * level @own (may be NULL) into its parent's level @p: its path at depth
 * 1, each of its own one deeper under it (an entry comes after its
 * parent's, so that map[] is filled before it is read).
 */
static void append(struct slow_lvl *p, const struct frame *f, uint64_t dur,
		   uint64_t raw, const struct slow_lvl *own)
{
	uint32_t map[SLOW_KIDS_MAX], j, top, up;
	const struct slow_kid *k;

	top = kid_add(p, SLOW_KID_TOP, f->timer, 1, f->start_ns, dur, raw, 1);
	if (!own)
		return;
	p->more += own->more;
	for (j = 0; j < own->n; j++) {
		k = &own->kid[j];
		up = k->parent == SLOW_KID_TOP ? top : map[k->parent];
		if (up == SLOW_KID_TOP) {
			/* its parent path did not fit */
			p->more += k->count;
			map[j] = SLOW_KID_TOP;
			continue;
		}
		map[j] = kid_add(p, up, k->timer, k->depth + 1, k->start_ns,
				 k->dur_ns, k->raw_ns, k->count);
	}
}

/*
 * agg_slow_close() - the frame @f of @t, just popped (at index t->len),
 * completed in @raw ns, of which @runq runnable and @blocked blocked, and
 * @on on-CPU less the probes' median cost: offered to its node's slowest
 * by on + runq + blocked, then added to its parent frame's level.
 * Returns 0 or -ENOMEM (the call not kept).
 */
int agg_slow_close(const struct agg *a, struct athread *t,
		   const struct frame *f, uint64_t on, uint64_t runq,
		   uint64_t blocked, uint64_t raw)
{
	uint32_t i = t->len;
	struct slow_lvl *own = i < t->slow_cap ? &t->slow[i] : NULL;
	struct slow_call c = {0};
	int err;

	if (!a->slow_k)
		return 0;
	if (on > raw - runq - blocked)
		on = raw - runq - blocked;
	c.start_ns = f->start_ns;
	c.dur_ns = on + runq + blocked;
	c.raw_ns = raw;
	c.on_ns = on;
	c.runq_ns = runq;
	c.blocked_ns = blocked;
	c.has_split = 1;
	c.tid = t->tid;
	c.tgid = t->tgid;
	memcpy(c.comm, t->comm, sizeof(c.comm));
	if (own) {
		c.nkids = own->n;
		c.kids_more = own->more;
		c.nargs = own->nargs;
		memcpy(c.args, own->args, sizeof(c.args));
		c.has_ret = own->has_ret;
		c.ret = own->ret;
		own->nargs = 0;
		own->has_ret = 0;
	}
	err = offer(f->node, a->slow_k, &c, own ? own->kid : NULL);
	if (i && i - 1 < t->slow_cap)
		append(&t->slow[i - 1], f, c.dur_ns, raw, own);
	return err;
}

/* span_info() - @ki's parts (its stop's IPROF_REC_KINFO) into @c: the
 * key values from the first on while they came, the stopping side where
 * both its parts came, its comm where both of those did */
static void span_info(struct slow_call *c, const struct kinfo *ki)
{
	uint32_t i;

	for (i = 0; i < IPROF_MAX_KEY; i++) {
		if (!(ki->mask & 1u << (IPROF_KI_KEY + i)))
			break;
		c->key[i] = ki->v[IPROF_KI_KEY + i];
	}
	c->nkey = i;
	if ((~ki->mask & (1u << IPROF_KI_BY | 1u << IPROF_KI_CTX)) == 0) {
		c->has_stop = 1;
		c->stop_tid = (uint32_t)ki->v[IPROF_KI_BY];
		c->stop_tgid = (uint32_t)(ki->v[IPROF_KI_BY] >> 32);
		c->stop_ctx = (uint32_t)ki->v[IPROF_KI_CTX] & 0xff;
		c->stop_cpu = (uint32_t)(ki->v[IPROF_KI_CTX] >> 32);
	}
	if (c->has_stop && (~ki->mask & 3u << IPROF_KI_COMM) == 0) {
		memcpy(c->stop_comm, &ki->v[IPROF_KI_COMM], 8);
		memcpy(c->stop_comm + 8, &ki->v[IPROF_KI_COMM + 1], 8);
		c->stop_comm[IPROF_COMM_LEN - 1] = '\0';
	}
}

/*
 * agg_slow_span() - a keyed span of node @n, number @id, started at
 * @start by thread @t (NULL, or an interrupt context's), @dur ns less its
 * probes' median cost (@raw raw), @ki what its stop sent (NULL: nothing):
 * offered to @n's slowest.  Returns 0 or -ENOMEM (not kept).
 */
int agg_slow_span(const struct agg *a, struct agg_node *n,
		  const struct athread *t, uint32_t id, uint64_t start,
		  uint64_t dur, uint64_t raw, const struct kinfo *ki)
{
	struct slow_call c = {0};

	if (!a->slow_k)
		return 0;
	c.start_ns = start;
	c.dur_ns = dur;
	c.raw_ns = raw;
	c.is_span = 1;
	c.span_id = id;
	if (t && t->tid < AGG_CTX_TIMER(0, 0)) {
		c.tid = t->tid;
		c.tgid = t->tgid;
		memcpy(c.comm, t->comm, sizeof(c.comm));
	}
	if (ki)
		span_info(&c, ki);
	return offer(n, a->slow_k, &c, NULL);
}

/* agg_slow_free() - free @n's kept calls (n->slow NULL after). */
void agg_slow_free(struct agg_node *n)
{
	struct slow_set *s = n->slow;
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->call[i].kids);
	free(s->call);
	free(s);
	n->slow = NULL;
}

/*
 * agg_slow_merge() - offer @s's kept calls to @d's (of @s's K when @d has
 * none): the K slowest of both.  Returns 0 or -ENOMEM.
 */
int agg_slow_merge(struct agg_node *d, const struct agg_node *s)
{
	const struct slow_set *ss = s->slow;
	uint32_t i, k;
	int err = 0;

	if (!ss)
		return 0;
	k = d->slow ? d->slow->k : ss->k;
	for (i = 0; i < ss->n && !err; i++)
		err = offer(d, k, &ss->call[i], ss->call[i].kids);
	return err;
}

static int cmp_slower(const void *x, const void *y)
{
	const struct slow_call *const *a = x, *const *b = y;

	return slow_slower(*a, *b) ? -1 : slow_slower(*b, *a);
}

size_t slow_sorted(const struct slow_set *s, const struct slow_call **out)
{
	uint32_t i;

	if (!s)
		return 0;
	for (i = 0; i < s->n; i++)
		out[i] = &s->call[i];
	qsort(out, s->n, sizeof(*out), cmp_slower);
	return s->n;
}
