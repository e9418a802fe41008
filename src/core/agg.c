/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator (see include/iprof/agg.h): per-thread stacks of open
 * frames folded into a call tree of timer paths.
 *
 * Data structures:
 *  - threads: an open-addressing (linear probing, backward-shift deletion)
 *    hash tid -> struct athread, plus a one-entry cache of the last thread
 *    looked up, since records come in bursts per thread;
 *  - nodes: allocated from chunks (stable pointers), linked as a tree in
 *    first-seen order, and indexed by an open-addressing hash on
 *    (parent, timer) so that a START finds its node in O(1) whatever the
 *    fan-out (mass-attach of thousands of functions at one level);
 *  - per thread: a stack of open frames and the set of nodes the thread
 *    completed (for agg_node.threads).
 *
 * In steady state (known threads, known paths, histograms allocated) the
 * per-record path allocates nothing.
 *
 * Caps (agg__set_limits()): nodes of --by roots folded into [other] go to
 * a free list and are reused (with their histograms); --by roots with no
 * live thread wait on an idle list, oldest first, to be folded when a new
 * root needs room.  A thread's set of completed nodes only ever holds
 * nodes below its current root, so a root with no thread is referenced by
 * nothing but the tree.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/agg.h"

/* agg_node.last_tid when no live thread completed the node last. */
#define NO_TID UINT32_MAX
#define NODE_CHUNK 64
/* the hash tables start at 1 << *_TAB_BITS slots and double when half full */
#define THREAD_TAB_BITS 6
#define THREAD_TAB_MIN (1u << THREAD_TAB_BITS)
#define NODE_TAB_BITS 6
#define NODE_TAB_MIN (1u << NODE_TAB_BITS)
#define STACK_MIN 8
#define SET_MIN 8

/*
 * The two overhead compensations a frame keeps (struct agg_cost): by the
 * probes' median cost, for each call's own place (min, max, histogram),
 * and by their mean cost, for the sums (total, self, avg, on-CPU).
 */
enum { CM_CALL, CM_SUM, CM_N };

struct comp {
	/* the probe cost that fell inside the frame so far (its children's
	 * probes and what their children's left in them) */
	uint64_t ovh_ns;
	uint64_t child_ns; /* its completed children's compensated durations */
	uint64_t child_on_ns; /* ... and of their on-CPU parts */
};

struct frame {
	struct agg_node *node;
	uint64_t start_ns; /* START timestamp */
	uint64_t child_ns; /* sum of the raw durations of completed children */
	struct comp cm[CM_N]; /* overhead compensation (agg__set_costs()) */
	int uncertain; /* a child's probes could not be counted exactly */
	uint64_t off0[2]; /* the thread's off_ns[] at START */
	uint64_t irq0; /* the thread's irq_ns at START */
	uint32_t timer; /* the START's timer (node->timer, but for [other]) */
	/* inherited at a fork (IPROF_REC_FORKED): opened at the fork, by
	 * no start probe of this thread, whose cost is not taken off */
	int forked;
};

/*
 * Open-addressing set of node pointers (NULL = empty), each with a value:
 * in a thread's done set, the sums' compensation debt the thread left
 * there (settle()).
 */
struct nodeset {
	struct agg_node **slot;
	uint64_t *val; /* [1 << bits], beside slot */
	uint32_t bits; /* capacity 1 << bits, 0 when slot == NULL */
	uint32_t used;
};

struct athread {
	uint32_t tid;
	uint32_t len; /* open frames */
	uint32_t cap; /* frames allocated */
	int waiting;  /* frames discarded: skip until a root START */
	/* find the --by root anew at the thread's next top-level START in
	 * task context (a rename, an exec, a folded root) */
	int reroot;
	int gone;     /* agg__prune() found it gone once */
	int off_kind; /* -1 on CPU, else enum iprof_off_kind since off_since */
	uint64_t off_since; /* SWITCH_OUT timestamp */
	/* off-CPU ns accumulated over the thread's life, by iprof_off_kind:
	 * a frame's share is the growth between its START and its end */
	uint64_t off_ns[2];
	uint32_t irq_depth; /* nested IRQ_ENTERs not yet exited */
	uint64_t irq_since; /* outermost IRQ_ENTER timestamp */
	uint64_t irq_ns; /* interrupted time accumulated over the thread's life */
	struct agg_node *root; /* parent of depth-1 frames: the tree's root,
				* an interrupt context's per-CPU root, or a
				* --by root; NULL until the first START */
	uint32_t tgid;
	char comm[IPROF_COMM_LEN]; /* from IPROF_REC_COMM, "" if none came */
	struct frame *stack;
	struct nodeset done; /* nodes this thread completed */
};

/*
 * A keyed span waiting for its stop (or, early, a stop waiting for its
 * start), by id and starting side (who: the tid, or AGG_CTX_TIMER of an
 * interrupt context), chained in agg.ktab.
 */
struct kspan {
	struct kspan *next;
	uint32_t id, who, timer;
	/* a record that came before its KSTART (merged ahead from another
	 * CPU, or a replacing start's program ran between the older one's
	 * update and its record): 0, or its type (KSTOP: ts its stop;
	 * KREPLACED, KEXPIRED: the span is dropped when its start comes) */
	int early;
	uint64_t ts; /* the start (or, early, the stop), ns */
	struct agg_node *node; /* where it is filed (NULL when early) */
	struct agg_node *root; /* its thread's root then: held (root_ref) */
};

/* Most early stops held at once; beyond it they are unmatched. */
#define KEARLY_MAX 65536u

struct tslot {
	uint32_t tid;
	struct athread *t; /* NULL = empty slot */
};

struct node_chunk {
	struct node_chunk *next;
	unsigned int used;
	struct agg_node n[NODE_CHUNK];
};

struct agg {
	uint32_t ntimers;
	struct agg_cost *costs; /* [ntimers] or NULL: agg__set_costs() */
	uint8_t *started; /* [ntimers]: 1 once a start of the timer came,
			   * wherever it was filed ([other] too) */
	enum agg_by by;
	char (*comms)[IPROF_COMM_LEN]; /* --by comm: the names seen */
	uint32_t ncomms, comms_cap;
	struct agg_node root;
	struct agg_stats stats;

	struct tslot *ttab; /* threads, 1 << tbits slots */
	uint32_t tbits;
	struct athread *last; /* cache of the last thread looked up */

	struct agg_node **ntab; /* (parent, timer) -> node, 1 << nbits */
	uint32_t nbits;
	struct node_chunk *chunks; /* newest first */
	struct agg_node *free_nodes; /* folded nodes to reuse, by ->next */

	uint32_t max_paths, max_keys; /* agg__set_limits(); 0: no cap */
	uint32_t nkeys; /* --by roots in the tree */
	uint32_t other_nodes; /* nodes below [other] */
	struct agg_node *other; /* [other], NULL until needed */
	struct agg_node *idle_head, *idle_tail; /* --by roots with refs 0 */
	/* a thread's old root while it finds its new one: set to NULL when
	 * folded (its memory may come back as the new root) */
	struct agg_node *leaving;
	struct kspan **ktab; /* keyed spans open, 1 << kbits chains */
	uint32_t kbits;
	uint64_t nkspans; /* entries in ktab, early ones included */
};

static inline uint32_t hash_u32(uint32_t v, uint32_t bits)
{
	return (uint32_t)(v * 0x9e3779b1u) >> (32 - bits);
}

static inline uint32_t hash_u64(uint64_t v, uint32_t bits)
{
	return (uint32_t)((v * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static inline uint32_t node_hash(const struct agg_node *parent, uint32_t timer,
				 uint32_t bits)
{
	return hash_u64((uint64_t)(uintptr_t)parent ^
				((uint64_t)timer << 32 | timer),
			bits);
}

/* seen() - @n was on the path of a record at @ts_ns (first-seen order) */
static inline void seen(struct agg_node *n, uint64_t ts_ns)
{
	if (!n->seen_ns || ts_ns < n->seen_ns)
		n->seen_ns = ts_ns;
}

/* ---- node sets ---- */

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

/* nodeset_val() - @n's value in @s, or NULL when @n is not in it. */
static uint64_t *nodeset_val(struct nodeset *s, const struct agg_node *n)
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

/* nodeset_clear() - empty @s, its memory kept. */
static void nodeset_clear(struct nodeset *s)
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

/* ---- nodes ---- */

static struct agg_node *node_alloc(struct agg *a)
{
	struct node_chunk *c = a->chunks;
	struct agg_node *n = a->free_nodes;

	if (n) {
		/* a folded node: zeroed when freed, its histogram kept */
		a->free_nodes = n->next;
		n->next = NULL;
		return n;
	}

	if (!c || c->used == NODE_CHUNK) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
	}
	return &c->n[c->used++];
}

static int ntab_grow(struct agg *a)
{
	uint32_t nbits = a->nbits + 1, mask = (1u << nbits) - 1, i, j;
	struct agg_node **tab, *n;

	tab = calloc((size_t)1 << nbits, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < (1u << a->nbits); i++) {
		n = a->ntab[i];
		if (!n)
			continue;
		j = node_hash(n->parent, n->timer, nbits);
		while (tab[j])
			j = (j + 1) & mask;
		tab[j] = n;
	}
	free(a->ntab);
	a->ntab = tab;
	a->nbits = nbits;
	return 0;
}

/*
 * child_get() - the child of @parent for @timer, created (appended to the
 * children in first-seen order) if new.  NULL on ENOMEM.
 */
static struct agg_node *child_get(struct agg *a, struct agg_node *parent,
				  uint32_t timer)
{
	uint32_t mask = (1u << a->nbits) - 1, i;
	struct agg_node *n, **pp;

	for (i = node_hash(parent, timer, a->nbits); (n = a->ntab[i]);
	     i = (i + 1) & mask) {
		if (n->parent == parent && n->timer == timer)
			return n;
	}

	/* new path: not the steady state */
	if ((a->stats.nodes + 1) * 2 > (1u << a->nbits)) {
		if (ntab_grow(a))
			return NULL;
		mask = (1u << a->nbits) - 1;
		for (i = node_hash(parent, timer, a->nbits); a->ntab[i];
		     i = (i + 1) & mask)
			;
	}
	n = node_alloc(a);
	if (!n)
		return NULL;
	n->timer = timer;
	n->depth = parent->depth + 1;
	n->parent = parent;
	n->last_tid = NO_TID;
	n->in_other = parent->in_other || timer == AGG_OTHER_TIMER;
	if (parent->in_other)
		a->other_nodes++;
	for (pp = &parent->child; *pp; pp = &(*pp)->next)
		;
	*pp = n;
	a->ntab[i] = n;
	a->stats.nodes++;
	return n;
}

/* child_find() - the child of @parent for @timer, or NULL. */
static struct agg_node *child_find(const struct agg *a,
				   const struct agg_node *parent, uint32_t timer)
{
	uint32_t mask = (1u << a->nbits) - 1, i;
	struct agg_node *n;

	for (i = node_hash(parent, timer, a->nbits); (n = a->ntab[i]);
	     i = (i + 1) & mask) {
		if (n->parent == parent && n->timer == timer)
			return n;
	}
	return NULL;
}

/* at_cap() - the tree holds max_paths paths ([other] not counted). */
static int at_cap(const struct agg *a)
{
	return a->max_paths &&
	       a->stats.nodes - (a->other != NULL) >= a->max_paths;
}

/* other_full() - [other]'s subtree has its share of the paths (half). */
static int other_full(const struct agg *a)
{
	return a->max_paths && a->other_nodes >= a->max_paths / 2;
}

/* other_get() - [other], created (whatever the cap) if new; NULL: ENOMEM */
static struct agg_node *other_get(struct agg *a)
{
	if (!a->other)
		a->other = child_get(a, &a->root, AGG_OTHER_TIMER);
	return a->other;
}

static int fold_root(struct agg *a, struct agg_node *r);

/*
 * make_room() - at the path cap, fold idle --by roots, oldest first, until
 * the tree is below the cap or none is idle.  Folding never adds nodes at
 * the cap (what does not fit is flattened into [other]).
 */
static void make_room(struct agg *a)
{
	while (at_cap(a) && a->idle_head)
		fold_root(a, a->idle_head);
}

/*
 * path_get() - the child of @parent for @timer; at the path cap, a new
 * path first folds idle --by roots (make_room()), and if none is left is
 * [other] (counted in folded_paths).  NULL on ENOMEM.
 */
static struct agg_node *path_get(struct agg *a, struct agg_node *parent,
				 uint32_t timer)
{
	struct agg_node *n;

	if (parent->in_other && other_full(a)) {
		/* [other] keeps its share: flattened into [other] itself */
		n = child_find(a, parent, timer);
		if (n)
			return n;
		a->stats.folded_paths++;
		return other_get(a);
	}
	if (at_cap(a)) {
		n = child_find(a, parent, timer);
		if (n)
			return n;
		/* old threads make room for new paths: fold the roots idle
		 * longest (never @parent's: a thread files under it) */
		make_room(a);
		if (at_cap(a)) {
			a->stats.folded_paths++;
			return other_get(a);
		}
	}
	return child_get(a, parent, timer);
}

/* ntab_del() - remove @n from the (parent, timer) index. */
static void ntab_del(struct agg *a, const struct agg_node *n)
{
	uint32_t mask = (1u << a->nbits) - 1, i, j, k;

	for (i = node_hash(n->parent, n->timer, a->nbits); a->ntab[i] != n;
	     i = (i + 1) & mask)
		;
	/* backward-shift deletion, as thread_del() */
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!a->ntab[j])
			break;
		k = node_hash(a->ntab[j]->parent, a->ntab[j]->timer, a->nbits);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		a->ntab[i] = a->ntab[j];
		i = j;
	}
	a->ntab[i] = NULL;
}

/*
 * merge_into() - add the statistics of @s to @d: sums, min/max, the wall
 * span, the histogram, and the mean and squared deviations (Chan, Golub
 * and LeVeque's pairwise update).  Returns 0 or -ENOMEM (histogram).
 */
static int merge_into(struct agg_node *d, const struct agg_node *s)
{
	uint64_t n = d->count + s->count;
	double delta;

	if (s->seen_ns && (!d->seen_ns || s->seen_ns < d->seen_ns))
		d->seen_ns = s->seen_ns;
	if (s->count) {
		if (!d->count || s->min_ns < d->min_ns)
			d->min_ns = s->min_ns;
		if (!d->count || s->max_ns > d->max_ns)
			d->max_ns = s->max_ns;
		if (!d->count || s->first_start_ns < d->first_start_ns)
			d->first_start_ns = s->first_start_ns;
		if (!d->count || s->last_stop_ns > d->last_stop_ns)
			d->last_stop_ns = s->last_stop_ns;
		delta = s->mean_ns - d->mean_ns;
		d->m2_ns += s->m2_ns + delta * delta * (double)d->count *
					       (double)s->count / (double)n;
		d->mean_ns += delta * (double)s->count / (double)n;
	}
	d->count = n;
	d->total_ns += s->total_ns;
	d->self_ns += s->self_ns;
	d->raw_total_ns += s->raw_total_ns;
	d->raw_self_ns += s->raw_self_ns;
	d->uncertain += s->uncertain;
	d->dominated += s->dominated;
	d->clamped_ns += s->clamped_ns;
	d->threads += s->threads;
	d->exited += s->exited;
	d->exited_ns += s->exited_ns;
	d->oncpu_ns += s->oncpu_ns;
	d->runq_ns += s->runq_ns;
	d->blocked_ns += s->blocked_ns;
	d->irq_ns += s->irq_ns;
	d->unwound += s->unwound;
	d->execed += s->execed;
	d->missed_returns += s->missed_returns;
	d->discarded += s->discarded;
	d->replaced += s->replaced;
	d->expired += s->expired;
	d->incomplete += s->incomplete;
	d->incomplete_ns += s->incomplete_ns;
	if (!s->hist)
		return 0;
	if (!d->hist)
		d->hist = calloc(1, sizeof(*d->hist));
	if (!d->hist)
		return -ENOMEM;
	hist_merge(d->hist, s->hist);
	return 0;
}

/*
 * node_release() - @n (unlinked from its parent's children, or about to be
 * with its parent) leaves the index and goes to the free list, zeroed,
 * with its histogram kept for reuse.
 */
static void node_release(struct agg *a, struct agg_node *n)
{
	struct hist *h = n->hist;

	ntab_del(a, n);
	if (n->in_other)
		a->other_nodes--;
	if (h)
		memset(h, 0, sizeof(*h));
	memset(n, 0, sizeof(*n));
	n->hist = h;
	n->next = a->free_nodes;
	a->free_nodes = n;
	a->stats.nodes--;
}

/*
 * fold_subtree() - merge @s (not in @dparent's subtree) and its
 * descendants into the child of @dparent for the same timer ([other] when
 * the tree is full), then free them.  Recursion depth: the tree's depth.
 */
static int fold_subtree(struct agg *a, struct agg_node *s,
			struct agg_node *dparent)
{
	struct agg_node *d, *c, *next;
	int err = 0;

	d = child_find(a, dparent, s->timer);
	if (!d && !at_cap(a) && !other_full(a))
		d = child_get(a, dparent, s->timer);
	if (!d) /* full (or ENOMEM): flattened into [other] itself */
		d = a->other;
	if (merge_into(d, s))
		err = -ENOMEM;
	for (c = s->child; c; c = next) {
		next = c->next;
		if (fold_subtree(a, c, d))
			err = -ENOMEM;
	}
	node_release(a, s);
	return err;
}

static void idle_unlink(struct agg *a, struct agg_node *n)
{
	if (n->idle_prev)
		n->idle_prev->idle_next = n->idle_next;
	else if (a->idle_head == n)
		a->idle_head = n->idle_next;
	else
		return; /* not on the list */
	if (n->idle_next)
		n->idle_next->idle_prev = n->idle_prev;
	else
		a->idle_tail = n->idle_prev;
	n->idle_prev = n->idle_next = NULL;
}

/* A thread files under --by root @n (a split root; else nothing to do). */
static void root_ref(struct agg *a, struct agg_node *n)
{
	if (!n || !AGG_TIMER_IS_SPLIT(n->timer))
		return;
	if (!n->refs++)
		idle_unlink(a, n);
}

/* A thread no longer files under @n: with no thread left, it goes idle. */
static void root_unref(struct agg *a, struct agg_node *n)
{
	if (!n || !AGG_TIMER_IS_SPLIT(n->timer) || !n->refs)
		return;
	if (--n->refs)
		return;
	n->idle_next = NULL;
	n->idle_prev = a->idle_tail;
	if (a->idle_tail)
		a->idle_tail->idle_next = n;
	else
		a->idle_head = n;
	a->idle_tail = n;
}

/*
 * fold_root() - fold the --by root @r (no thread files under it) into
 * [other]: its paths merged below [other], its nodes freed, its name slot
 * (--by comm) freed.  Returns 0 or -ENOMEM (part of a histogram lost).
 */
static int fold_root(struct agg *a, struct agg_node *r)
{
	struct agg_node **pp, *c, *next;
	uint32_t v = r->timer & ~0x80000000u;
	int err = 0;

	if (!other_get(a))
		return -ENOMEM;
	idle_unlink(a, r);
	if (a->leaving == r)
		a->leaving = NULL;
	for (pp = &a->root.child; *pp != r; pp = &(*pp)->next)
		;
	*pp = r->next;
	r->next = NULL;
	/* the root's children merge into [other]'s; the root's own
	 * statistics (none: no frame is ever on a --by root) are dropped */
	for (c = r->child; c; c = next) {
		next = c->next;
		if (fold_subtree(a, c, a->other))
			err = -ENOMEM;
	}
	node_release(a, r);
	a->nkeys--;
	a->stats.folded_keys++;
	if (a->by == AGG_BY_COMM && v < a->ncomms)
		a->comms[v][0] = '\0'; /* free for another name */
	return err;
}

/* ---- threads ---- */

static int ttab_resize(struct agg *a, uint32_t nbits)
{
	uint32_t mask = (1u << nbits) - 1, i, j;
	struct tslot *tab;

	tab = calloc((size_t)1 << nbits, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < (1u << a->tbits); i++) {
		if (!a->ttab[i].t)
			continue;
		j = hash_u32(a->ttab[i].tid, nbits);
		while (tab[j].t)
			j = (j + 1) & mask;
		tab[j] = a->ttab[i];
	}
	free(a->ttab);
	a->ttab = tab;
	a->tbits = nbits;
	return 0;
}

/*
 * thread_get() - the state of thread @tid; if unknown, created when
 * @create, else NULL.  NULL with @create means ENOMEM.
 */
static struct athread *thread_get(struct agg *a, uint32_t tid, int create)
{
	uint32_t mask = (1u << a->tbits) - 1, i;
	struct athread *t = a->last;

	if (t && t->tid == tid)
		return t;
	for (i = hash_u32(tid, a->tbits); a->ttab[i].t; i = (i + 1) & mask) {
		if (a->ttab[i].tid == tid) {
			a->last = a->ttab[i].t;
			return a->last;
		}
	}
	if (!create)
		return NULL;

	if ((a->stats.threads_live + 1) * 2 > (1u << a->tbits)) {
		if (ttab_resize(a, a->tbits + 1))
			return NULL;
		mask = (1u << a->tbits) - 1;
		for (i = hash_u32(tid, a->tbits); a->ttab[i].t;
		     i = (i + 1) & mask)
			;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->stack = malloc(STACK_MIN * sizeof(*t->stack));
	if (!t->stack) {
		free(t);
		return NULL;
	}
	t->cap = STACK_MIN;
	t->tid = tid;
	t->off_kind = -1;
	a->ttab[i].tid = tid;
	a->ttab[i].t = t;
	a->last = t;
	a->stats.threads_live++;
	a->stats.threads_seen++;
	return t;
}

/* done_clear() - forget the nodes @t completed (its root changes). */
static void done_clear(struct athread *t)
{
	uint32_t i;

	for (i = 0; t->done.bits && i < (1u << t->done.bits); i++) {
		struct agg_node *n = t->done.slot[i];

		if (n && n->last_tid == t->tid)
			n->last_tid = NO_TID;
	}
	nodeset_clear(&t->done);
}

static void thread_destroy(struct athread *t)
{
	uint32_t i;

	for (i = 0; t->done.bits && i < (1u << t->done.bits); i++) {
		struct agg_node *n = t->done.slot[i];

		/* a later thread reusing this tid is a new thread */
		if (n && n->last_tid == t->tid)
			n->last_tid = NO_TID;
	}
	free(t->done.slot);
	free(t->done.val);
	free(t->stack);
	free(t);
}

/* thread_del() - remove @t from the hash and free it. */
static void thread_del(struct agg *a, struct athread *t)
{
	uint32_t mask = (1u << a->tbits) - 1, i, j, k;

	for (i = hash_u32(t->tid, a->tbits); a->ttab[i].t != t;
	     i = (i + 1) & mask)
		;
	/* backward-shift deletion: no tombstones */
	for (j = i;;) {
		j = (j + 1) & mask;
		if (!a->ttab[j].t)
			break;
		k = hash_u32(a->ttab[j].tid, a->tbits);
		/* the entry at j stays if its home k is cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		a->ttab[i] = a->ttab[j];
		i = j;
	}
	a->ttab[i].t = NULL;
	a->ttab[i].tid = 0;

	if (a->last == t)
		a->last = NULL;
	root_unref(a, t->root);
	thread_destroy(t);
	a->stats.threads_live--;

	/* shrink after a burst of threads; failure just keeps the table */
	if (a->tbits > THREAD_TAB_BITS &&
	    a->stats.threads_live * 8 < (1u << a->tbits))
		ttab_resize(a, a->tbits - 1);
}

/* discard() - drop the thread's open frames (lost records). */
/* cost_of() - the calibrated probe cost of @timer's calls, or NULL. */
static const struct agg_cost *cost_of(const struct agg *a, uint32_t timer)
{
	return a->costs && timer < a->ntimers ? &a->costs[timer] : NULL;
}

/*
 * cost_parts() - @c's parts for compensation @k (CM_*), in ns: [0] start
 * in, [1] start out, [2] stop in, [3] stop out; CM_SUM takes the means
 * where @c has them (AGG_COST_MEAN), else both take the medians.
 */
static void cost_parts(const struct agg_cost *c, int k, uint64_t v[4])
{
	int mean = k == CM_SUM && (c->flags & AGG_COST_MEAN);

	v[0] = mean ? c->mean_start_in_ns : c->start_in_ns;
	v[1] = mean ? c->mean_start_out_ns : c->start_out_ns;
	v[2] = mean ? c->mean_stop_in_ns : c->stop_in_ns;
	v[3] = mean ? c->mean_stop_out_ns : c->stop_out_ns;
}

/*
 * charge_open() - frame @i of @t is closed without a stop (unwound, left,
 * a missed return, ended by exec): its start probe and the probes inside
 * it ran within frame @i - 1, which is charged with them and marked
 * uncertain (the stop that never came may have cost something too).
 */
static void charge_open(const struct agg *a, struct athread *t, uint32_t i)
{
	const struct agg_cost *c;
	struct frame *p;
	uint64_t v[4];
	int k;

	if (!i || i >= t->len)
		return;
	c = t->stack[i].forked ? NULL : cost_of(a, t->stack[i].timer);
	p = &t->stack[i - 1];
	for (k = 0; k < CM_N; k++) {
		p->cm[k].ovh_ns += t->stack[i].cm[k].ovh_ns;
		if (c) {
			cost_parts(c, k, v);
			p->cm[k].ovh_ns += v[0] + v[1];
		}
	}
	p->uncertain = 1;
}

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
 * fold_call() - count one call of @n from @start_ns to @ts_ns, by thread
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
static int fold_call(struct agg_node *n, struct athread *t, uint32_t tid,
		     uint64_t dur, uint64_t sum, uint64_t start_ns,
		     uint64_t ts_ns)
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
 * settle() - keep the sums' compensation unbiased: a call's @on (on-CPU)
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
static void settle(struct agg_node *n, uint64_t *debt, const struct comp *cm,
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
 * complete() - fold the frame @f, just popped from @t (t->len already below
 * it), ended at @ts_ns >= f->start_ns.  Returns 0 or -ENOMEM when the
 * histogram or the thread set could not grow (the times are folded anyway).
 */
static int complete(const struct agg *a, struct athread *t,
		    const struct frame *f, uint64_t ts_ns)
{
	struct agg_node *n = f->node;
	uint64_t raw = ts_ns - f->start_ns, dur[CM_N], on[CM_N], ovh[CM_N];
	uint64_t out[CM_N], v[4], debt, *dp;
	struct agg_node **slot0;
	uint64_t runq = t->off_ns[IPROF_OFF_RUNQ] - f->off0[IPROF_OFF_RUNQ];
	uint64_t blocked = t->off_ns[IPROF_OFF_BLOCKED] -
			   f->off0[IPROF_OFF_BLOCKED];
	const struct agg_cost *c = cost_of(a, f->timer);
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
			cost_parts(c, k, v);
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
	dp = c ? nodeset_val(&t->done, n) : NULL;
	debt = dp ? *dp : 0;
	if (c)
		settle(n, &debt, &f->cm[CM_SUM], raw - runq - blocked,
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
	err = fold_call(n, t, t->tid, dur[CM_CALL], dur[CM_SUM], f->start_ns,
			ts_ns);
	/* the thread's debt here, kept in its done set: fold_call() put the
	 * node there on its first call, and a set that grew moved (looked up
	 * again then only) */
	if (c && (!dp || t->done.slot != slot0))
		dp = nodeset_val(&t->done, n);
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

/*
 * do_start() - open a frame at depth r->depth: a START, or a FORKED frame
 * (a child's, inherited from its parent at the fork: opened at the fork's
 * time, its start probe's cost never taken off).
 */
static int do_start(struct agg *a, struct athread *t, const struct iprof_rec *r)
{
	struct agg_node *parent, *n;
	struct frame *f;
	uint32_t d = r->depth;

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
	n = path_get(a, parent, r->timer);
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
	f->off0[0] = t->off_ns[0];
	f->off0[1] = t->off_ns[1];
	f->irq0 = t->irq_ns;
	f->forked = r->type == IPROF_REC_FORKED;
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
		charge_open(a, t, j);
	}
	a->stats.unwound += t->len - (i + 1);
	f = t->stack[i];
	t->len = i;
	err = complete(a, t, &f, r->ts);
	if (err)
		a->stats.nomem++;
	return err;
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
	charge_open(a, t, i);
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
	if (i + 1 != t->len || t->stack[i].node->timer != r->timer) {
		a->stats.mismatches++;
		a->stats.skipped++;
		lose_sync(a, t);
		return 0;
	}
	t->stack[i].node->unwound++;
	a->stats.unwound++;
	charge_open(a, t, i);
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
	if (i >= t->len || t->stack[i].node->timer != r->timer) {
		a->stats.mismatches++;
		a->stats.skipped++;
		lose_sync(a, t);
		return 0;
	}
	t->stack[i].node->execed++;
	a->stats.execed++;
	charge_open(a, t, i);
	memmove(&t->stack[i], &t->stack[i + 1],
		(t->len - i - 1) * sizeof(t->stack[0]));
	t->len--;
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
	struct athread *t = thread_get(a, r->tid, 0);
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
	thread_del(a, t);
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
	struct athread *old = thread_get(a, r->aux, 0), *t, tmp;
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
	t = thread_get(a, r->tid, 1);
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
	thread_del(a, old);
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
	struct athread *t = thread_get(a, r->tid, 0);

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
		return 0;
	}
	if (t->off_kind >= 0 && r->ts >= t->off_since)
		t->off_ns[t->off_kind] += r->ts - t->off_since;
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
	struct athread *t = thread_get(a, r->tid, 0);

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
		t = thread_get(a, AGG_CTX_TIMER(r->aux, r->cpu), 0);
	} else {
		t = thread_get(a, r->tid, 0);
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
	t = thread_get(a, c.tid, 1);
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

/*
 * key_root() - the --by root of key @v (a tid, a tgid or a name's index),
 * created if new: beyond max_keys, the root idle longest is folded into
 * [other] first; with none idle, or beyond max_paths, [other] itself.
 * NULL on ENOMEM.
 */
static struct agg_node *key_root(struct agg *a, uint32_t v)
{
	struct agg_node *n = child_find(a, &a->root, AGG_SPLIT_TIMER(v));

	if (n)
		return n;
	if (a->max_keys && a->nkeys >= a->max_keys) {
		if (!a->idle_head) {
			a->stats.folded_keys++;
			return other_get(a);
		}
		fold_root(a, a->idle_head);
	}
	make_room(a);
	if (at_cap(a)) {
		a->stats.folded_paths++;
		return other_get(a);
	}
	n = child_get(a, &a->root, AGG_SPLIT_TIMER(v));
	if (n)
		a->nkeys++;
	return n;
}

/* comm_index() - the slot of name @name in a->comms (reused, or a free one,
 * or a new one); UINT32_MAX on ENOMEM. */
static uint32_t comm_index(struct agg *a, const char *name)
{
	uint32_t i, hole = UINT32_MAX;

	for (i = 0; i < a->ncomms; i++) {
		if (!a->comms[i][0])
			hole = hole == UINT32_MAX ? i : hole;
		else if (!strncmp(a->comms[i], name, IPROF_COMM_LEN))
			return i;
	}
	if (hole != UINT32_MAX)
		i = hole;
	else if (a->ncomms == a->comms_cap) {
		uint32_t cap = a->comms_cap ? 2 * a->comms_cap : 16;
		void *p = realloc(a->comms, cap * sizeof(*a->comms));

		if (!p)
			return UINT32_MAX;
		a->comms = p;
		a->comms_cap = cap;
	}
	snprintf(a->comms[i], IPROF_COMM_LEN, "%s", name);
	if (i == a->ncomms)
		a->ncomms++;
	return i;
}

/* comm_root() - the --by comm root of @name, as key_root(); NULL: ENOMEM */
static struct agg_node *comm_root(struct agg *a, const char *name)
{
	uint32_t i = comm_index(a, name);
	struct agg_node *n;

	if (i == UINT32_MAX)
		return NULL;
	n = key_root(a, i);
	/* a name that got no root of its own keeps no slot */
	if (n != child_find(a, &a->root, AGG_SPLIT_TIMER(i)))
		a->comms[i][0] = '\0';
	return n;
}

/* The parent of @t's top-level frames: the root, or its --by root. */
static struct agg_node *split_root(struct agg *a, struct athread *t)
{
	const char *name = t->comm[0] ? t->comm : "?";

	switch (a->by) {
	case AGG_BY_TID:
		return key_root(a, t->tid);
	case AGG_BY_TGID:
		return key_root(a, t->tgid);
	case AGG_BY_COMM:
		return comm_root(a, name);
	default:
		return &a->root;
	}
}

/* ---- merge ---- */

/* seen_key() - a child's place in first-seen order (never seen: last) */
static inline uint64_t seen_key(const struct agg_node *n)
{
	return n->seen_ns ? n->seen_ns : UINT64_MAX;
}

/*
 * merge_seen() - merge two lists sorted by seen_key(), @older's nodes
 * first on ties (stable).  Returns the head.
 */
static struct agg_node *merge_seen(struct agg_node *older,
				   struct agg_node *newer)
{
	struct agg_node *head = NULL, **tail = &head, **p;

	while (older && newer) {
		p = seen_key(newer) < seen_key(older) ? &newer : &older;
		*tail = *p;
		tail = &(*p)->next;
		*p = (*p)->next;
	}
	*tail = older ? older : newer;
	return head;
}

/*
 * sort_seen() - order the children of @n and of its descendants by
 * seen_ns: a stable merge sort of each sibling list, so that a merged
 * tree keeps the order of one aggregator fed the records in time order.
 * Recursion depth: the tree's depth.
 */
static void sort_seen(struct agg_node *n)
{
	/* bottom-up: run[i] holds a sorted list of 2^i nodes or NULL, the
	 * higher the older */
	struct agg_node *c, *run[64] = {0}, *l;
	unsigned int i;

	for (c = n->child; c;) {
		l = c;
		c = c->next;
		l->next = NULL;
		for (i = 0; i < 63 && run[i]; i++) {
			l = merge_seen(run[i], l);
			run[i] = NULL;
		}
		run[i] = run[i] ? merge_seen(run[i], l) : l;
	}
	for (l = NULL, i = 0; i < 64; i++)
		if (run[i])
			l = merge_seen(run[i], l);
	n->child = l;
	for (c = n->child; c; c = c->next)
		sort_seen(c);
}

/*
 * merge_target() - the node of @a for the source node @s, whose parent's
 * node in @a is @dparent: the same path, created if new under @a's caps
 * (path_get(), key_root(): [other] beyond them).  A --by comm root is
 * matched by its name, the others by their timer id.  NULL on ENOMEM.
 */
static struct agg_node *merge_target(struct agg *a, const struct agg *src,
				     const struct agg_node *s,
				     struct agg_node *dparent)
{
	uint32_t v;

	if (s->depth != 1)
		return path_get(a, dparent, s->timer);
	if (s->timer == AGG_OTHER_TIMER)
		return other_get(a);
	if (AGG_TIMER_IS_CTX(s->timer))
		return child_get(a, &a->root, s->timer);
	if (!AGG_TIMER_IS_SPLIT(s->timer))
		return path_get(a, dparent, s->timer);
	v = s->timer & ~0x80000000u;
	if (a->by != AGG_BY_COMM)
		return key_root(a, v);
	return comm_root(a, v < src->ncomms ? src->comms[v] : "?");
}

/*
 * merge_subtree() - add @s and its descendants to @a below @dparent.  A
 * --by root of @a is held (a reference, as a thread's) while its subtree
 * is merged, so that making room never folds it; it is idle afterwards
 * unless a thread of @a files under it.
 */
static int merge_subtree(struct agg *a, const struct agg *src,
			 const struct agg_node *s, struct agg_node *dparent)
{
	const struct agg_node *c;
	struct agg_node *d = merge_target(a, src, s, dparent);
	int err = 0;

	if (!d)
		return -ENOMEM;
	if (merge_into(d, s))
		err = -ENOMEM;
	root_ref(a, d);
	for (c = s->child; c; c = c->next)
		if (merge_subtree(a, src, c, d))
			err = -ENOMEM;
	root_unref(a, d);
	return err;
}

int agg__merge(struct agg *dst, const struct agg *src)
{
	const struct agg_stats *s;
	struct agg_stats *d;
	const struct agg_node *c;
	int err = 0;
	uint32_t i;

	if (!dst || !src || dst == src || dst->ntimers != src->ntimers ||
	    dst->by != src->by)
		return -EINVAL;
	s = &src->stats;
	d = &dst->stats;
	for (i = 0; i < src->ntimers; i++)
		dst->started[i] |= src->started[i];
	for (c = src->root.child; c; c = c->next)
		if (merge_subtree(dst, src, c, &dst->root))
			err = -ENOMEM;
	sort_seen(&dst->root);

	d->records += s->records;
	d->starts += s->starts;
	d->forked += s->forked;
	d->stops += s->stops;
	d->exits += s->exits;
	d->switches += s->switches;
	d->irqs += s->irqs;
	d->malformed += s->malformed;
	d->resyncs += s->resyncs;
	d->discarded += s->discarded;
	d->skipped += s->skipped;
	d->unwound += s->unwound;
	d->execed += s->execed;
	d->exited += s->exited;
	d->missed_returns += s->missed_returns;
	d->threads_live += s->threads_live;
	d->threads_seen += s->threads_seen;
	d->mismatches += s->mismatches;
	d->nomem += s->nomem + (err != 0);
	d->folded_paths += s->folded_paths;
	d->folded_keys += s->folded_keys;
	d->pruned += s->pruned;
	d->kstarts += s->kstarts;
	d->kstops += s->kstops;
	d->kreplaced += s->kreplaced;
	d->kexpired += s->kexpired;
	d->kunmatched += s->kunmatched;
	d->kearly += s->kearly;
	return err;
}

int agg__set_limits(struct agg *a, uint32_t max_paths, uint32_t max_keys)
{
	if (a->stats.records)
		return -EINVAL;
	a->max_paths = max_paths;
	a->max_keys = max_keys;
	return 0;
}

void agg__limits(const struct agg *a, uint32_t *max_paths, uint32_t *max_keys)
{
	*max_paths = a->max_paths;
	*max_keys = a->max_keys;
}

int agg__set_by(struct agg *a, enum agg_by by)
{
	if (by > AGG_BY_COMM || a->stats.records)
		return -EINVAL;
	a->by = by;
	return 0;
}

const char *agg__split_name(const struct agg *a, uint32_t timer, char *buf,
			    size_t len)
{
	uint32_t v = timer & ~0x80000000u;

	if (timer == AGG_OTHER_TIMER)
		snprintf(buf, len, "[other]");
	else if (a->by == AGG_BY_COMM && v < a->ncomms) {
		char *c;

		snprintf(buf, len, "%s", a->comms[v]);
		/* a comm is any bytes: keep reports one line per node */
		for (c = buf; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	else
		snprintf(buf, len, "%s %u", a->by == AGG_BY_TGID ? "pid" : "tid",
			 v);
	return buf;
}

/* ---- API ---- */

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
			thread_destroy(a->ttab[i].t);
	}
	for (c = a->chunks; c; c = next) {
		next = c->next;
		for (i = 0; i < c->used; i++)
			free(c->n[i].hist);
		free(c);
	}
	for (i = 0; a->ktab && i < (1u << a->kbits); i++) {
		struct kspan *e, *next;

		for (e = a->ktab[i]; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(a->ktab);
	free(a->ttab);
	free(a->ntab);
	free(a->comms);
	free(a);
}

/*
 * thread_root() - find @t's root (the parent of its depth-1 frames) at its
 * first record, or anew after a rename, an exec or a fold (@r a START in
 * task context with no frame open).  Returns 0, or -ENOMEM (counted; @t
 * freed).
 */
static int thread_root(struct agg *a, struct athread *t,
		       const struct iprof_rec *r)
{
	if (!t->root || (t->reroot && !t->len && r->type == IPROF_REC_START &&
			 !(r->flags & IPROF_F_CTX))) {
		struct agg_node *old = t->root, *root;

		t->tgid = r->tgid;
		/* leave the old root first: idle, it may be folded to make
		 * room for the new one.  The set of completed nodes stays
		 * below the root: cleared when the root changes */
		root_unref(a, old);
		t->root = NULL;
		a->leaving = old;
		root = r->flags & IPROF_F_CTX ?
			       child_get(a, &a->root, (uint32_t)r->tid) :
			       split_root(a, t);
		if (a->leaving != old || root != old)
			done_clear(t);
		a->leaving = NULL;
		if (!root) {
			a->stats.nomem++;
			thread_del(a, t);
			return -ENOMEM;
		}
		t->reroot = 0;
		root_ref(a, root);
		t->root = root;
		seen(root, r->ts);
	}
	return 0;
}

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
	root_unref(a, e->root);
	free(e);
	a->nkspans--;
}

/*
 * Time keyed span @e (a start) stopped at @stop_ns by its starting thread
 * @tid's node: its whole duration is its own (self = total), none of it
 * its parent's; compensated (agg__set_costs()) for its own two probes'
 * parts inside it (the probes of other timers that fired meanwhile ran
 * on other threads' time, not the span's).  Returns 0, -EINVAL (the stop precedes the start) or
 * -ENOMEM.
 */
static int kfold(struct agg *a, const struct kspan *e, uint32_t tid,
		 uint64_t stop_ns)
{
	const struct agg_cost *c = cost_of(a, e->timer);
	struct athread *t = thread_get(a, e->who, 0);
	static const struct comp none; /* a keyed span has no children */
	struct agg_node *n = e->node;
	uint64_t raw, dur[CM_N], in[CM_N] = { 0 }, v[4], debt, *dp, on;
	int err, k;

	if (stop_ns < e->ts) {
		a->stats.malformed++;
		return -EINVAL;
	}
	raw = stop_ns - e->ts;
	/* compensated (median and mean costs, as complete() does): its own
	 * probes' parts between its timestamps */
	if (c && (c->flags & AGG_COST_UNKNOWN))
		n->uncertain++;
	for (k = 0; k < CM_N; k++) {
		if (c) {
			cost_parts(c, k, v);
			in[k] = v[0] + v[2];
		}
		dur[k] = raw > in[k] ? raw - in[k] : 0;
	}
	if (in[CM_CALL] > raw)
		n->dominated++;
	/* the clamp at 0 owed back as complete() does, on the starting
	 * thread's debt while it is known */
	dp = c && t ? nodeset_val(&t->done, n) : NULL;
	debt = dp ? *dp : 0;
	if (c) {
		on = dur[CM_SUM];
		settle(n, &debt, &none, raw, in[CM_SUM], &on, &dur[CM_SUM]);
	}
	a->stats.kstops++;
	n->raw_total_ns += raw;
	n->raw_self_ns += raw;
	n->self_ns += dur[CM_SUM];
	err = fold_call(n, t, tid, dur[CM_CALL], dur[CM_SUM], e->ts, stop_ns);
	dp = c && t ? nodeset_val(&t->done, n) : NULL;
	if (dp)
		*dp = debt;
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
	const struct agg_cost *c = cost_of(a, k->timer);
	struct kspan **pp = kfind(a, k->id, who), *e;
	struct agg_node *parent, *n;
	struct athread *t;
	uint64_t stop = 0;
	int early = 0, err;

	a->stats.kstarts++;
	if (pp && (*pp)->early) {
		/* its stop (or its drop) came first */
		stop = (*pp)->ts;
		early = (*pp)->early;
	}
	if (pp)
		kdel(a, pp); /* else an id that wrapped: the old one is lost */
	t = thread_get(a, who, 1);
	if (!t || thread_root(a, t, &r)) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	a->started[k->timer] = 1;
	parent = t->len ? t->stack[t->len - 1].node : t->root;
	n = path_get(a, parent, k->timer);
	if (!n) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	seen(n, k->ts);
	/* the start's probe ran inside the frame open on its thread */
	for (int m = 0; t->len && c && m < CM_N; m++) {
		uint64_t v[4];

		cost_parts(c, m, v);
		t->stack[t->len - 1].cm[m].ovh_ns += v[0] + v[1];
	}
	e = kadd(a, k->id, who, k->timer, k->ts);
	if (!e) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	e->node = n;
	e->root = t->root;
	root_ref(a, e->root);
	if (!early)
		return 0;
	err = 0;
	if (early == IPROF_REC_KSTOP)
		err = kfold(a, e, k->tid ? k->tid : who, stop);
	else
		kdrop(a, e, early);
	kdel(a, kfind(a, k->id, who));
	return err;
}

/* KSTART, KSTOP, KREPLACED, KEXPIRED (struct iprof_rec_key). */
static int do_key(struct agg *a, const void *rec)
{
	struct iprof_rec_key k;
	struct kspan **pp;
	uint32_t who;
	int err;

	memcpy(&k, rec, sizeof(k));
	if (k.timer >= a->ntimers || k.ctx >= IPROF_CTX_MAX) {
		a->stats.malformed++;
		return -EINVAL;
	}
	who = k.ctx != IPROF_CTX_TASK ? AGG_CTX_TIMER(k.ctx, k.cpu) : k.tid;
	if (k.type == IPROF_REC_KSTART)
		return kstart(a, &k, who);
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
		(*kfind(a, k.id, who))->early = k.type;
		a->stats.kearly++;
		return 0;
	}
	if (k.type != IPROF_REC_KSTOP) {
		kdrop(a, *pp, k.type);
		kdel(a, pp);
		return 0;
	}
	err = kfold(a, *pp, k.tid ? k.tid : who, k.ts);
	kdel(a, pp);
	return err;
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
		if (r.timer >= a->ntimers || r.depth == 0)
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
		return do_key(a, rec);
	default:
		goto bad;
	}

	if (r.flags & IPROF_F_CTX) {
		/* an interrupt context of one CPU is a thread of its own */
		if (r.aux == IPROF_CTX_TASK || r.aux >= IPROF_CTX_MAX)
			goto bad;
		r.tid = AGG_CTX_TIMER(r.aux, r.cpu);
	}
	t = thread_get(a, r.tid, 1);
	if (!t) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	if (thread_root(a, t, &r))
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
		thread_del(a, dead[i]);
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
			nodeset_clear(&t->done);
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
