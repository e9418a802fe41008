/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's insides, shared by the files that make it up, each
 * calling only those below it: agg_comp.c (a closed frame folded into its
 * node, less the probes' cost), agg_tree.c (the nodes and their index),
 * agg_caps.c (a new path under the --max-paths and --max-keys caps:
 * [other], idle --by roots folded), agg_by.c (the --by roots),
 * agg_thread.c (the threads and their roots), agg_kspan.c (keyed spans),
 * agg_merge.c (agg__merge()) and, on top, agg.c (the records and each
 * thread's stack of open frames, the API's life cycle).  Nothing outside
 * these files includes it: the interface is include/iprof/agg.h.
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
 */
#ifndef IPROF_AGG_INT_H
#define IPROF_AGG_INT_H

#include <stddef.h>
#include <stdint.h>

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
	/* the probe classes of its START and (once stopped) STOP records
	 * (enum iprof_pclass, 0: not said): agg_frame_cost() */
	uint8_t pc_start, pc_stop;
	/* a split entry's START (pc_start IPROF_PC_USPLIT): the gap it
	 * measured from the mark (IPROF_REC_GAP() of abi.h), ns; 0: none
	 * measured (agg_frame_gap()) */
	uint32_t gap_ns;
	/* the CPUs its START and STOP records came from (iprof_rec.cpu):
	 * each probe costs what its CPU's probes cost (agg__set_cpu_scale) */
	uint16_t cpu_start, cpu_stop;
	/* the compensation's uncertainty inside it (agg_node.err_var_ns2):
	 * every probe part that fell inside, its own aside; sv_, ss_: of
	 * those, its direct children's parts outside them (its self time) */
	double var_ns2, sys_ns, sv_ns2, ss_ns;
};

/*
 * Open-addressing set of node pointers (NULL = empty), each with
 * NODESET_VALS values: in a thread's done set, [0] the sums' compensation
 * debt the thread left there (agg_settle()), [1] and [2] its calls' raw
 * and compensated on-CPU time there (the share of its runnable time kept:
 * agg_complete()).
 */
#define NODESET_VALS 3
struct nodeset {
	struct agg_node **slot;
	uint64_t *val; /* [NODESET_VALS << bits], beside slot */
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
	/* the thread's last off-CPU interval: its SWITCH_OUT and SWITCH_IN
	 * timestamps (0: none), which a split entry's gap leaves out
	 * (agg.c split_gap()) */
	uint64_t last_out_ns, last_in_ns;
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
	/* --slowest: per open frame (same index as stack) the timed calls
	 * completed inside it so far (agg_slow.c), slow_cap allocated */
	struct slow_lvl *slow;
	uint32_t slow_cap;
	/* IPROF_REC_NAME just received (agg_name.c): the next START of
	 * name_timer at name_depth is filed under name_id; 0 when none */
	int name_set;
	uint32_t name_timer, name_depth, name_id;
	/* IPROF_REC_NAMESTR's head received, its text chunks coming
	 * (agg_name.c); NULL when none */
	struct name_text *ntext;
	/* --offcpu-stacks: its pending stack and waker (agg_offcpu.c),
	 * NULL until one came */
	struct off_thr *off;
};

/*
 * A keyed span waiting for its stop (or, early, a stop waiting for its
 * start), by id and starting side (who: the tid, or AGG_CTX_TIMER of an
 * interrupt context), chained in agg.ktab.
 */
/*
 * What --slowest keeps of a keyed span from its stop's IPROF_REC_KINFO
 * parts (span id, starting side who): the raw values of the parts that
 * came (bit p of mask: v[p], IPROF_KI_*).
 */
struct kinfo {
	uint32_t id, who, mask;
	uint64_t v[IPROF_KI_PARTS];
};

struct kspan {
	struct kspan *next;
	/* an early stop's IPROF_REC_KINFO (--slowest), owned; else NULL */
	struct kinfo *info;
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
	/* per CPU, what its probes cost of the calibrated cost, per mille
	 * (agg__set_cpu_scale(); ncpu_pm 0: the same everywhere) */
	uint16_t cpu_pm[AGG_CPU_SCALE_MAX];
	uint32_t ncpu_pm;
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
	uint32_t slow_k; /* --slowest K (agg__set_slowest()), 0: off */
	/* the IPROF_REC_KINFO parts met since the last KSTOP (mask 0: none):
	 * for the KSTOP of the same span that follows them */
	struct kinfo kpend;
	/* an IPROF_REC_OFFSTACK or IPROF_REC_WAKER came: blocked periods
	 * are charged to stacks and wakers (agg_offcpu.c) */
	int off_on;
	/* named timers' names (agg_name.c): nnames (timer, value) pairs,
	 * indexed by an open-addressing hash of 1 << name_bits slots
	 * holding index + 1 (0: empty) */
	struct agg_name *names;
	uint32_t nnames, names_cap;
	uint32_t *name_tab;
	uint32_t name_bits;
};

struct agg_name {
	uint32_t timer;
	uint64_t value; /* an integer name; a text name's hash */
	char *text;	/* a text name (IPROF_REC_NAMESTR), value bytes, the
			 * parts joined by ':'; NULL for an integer name */
	uint32_t tlen;
	int cut; /* a part of the text was cut (agg__name_cut()) */
};

/* An IPROF_REC_NAMESTR whose text chunks are coming (athread.ntext) */
struct name_text {
	struct iprof_rec_namestr head;
	uint32_t need, have; /* text bytes announced, received */
	char text[IPROF_NAME_PARTS * IPROF_NAME_STR];
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

/* at_cap() - the tree holds max_paths paths ([other] not counted). */
static inline int at_cap(const struct agg *a)
{
	return a->max_paths &&
	       a->stats.nodes - (a->other != NULL) >= a->max_paths;
}

/* other_full() - [other]'s subtree has its share of the paths (half). */
static inline int other_full(const struct agg *a)
{
	return a->max_paths && a->other_nodes >= a->max_paths / 2;
}

/* What one file calls of another's (each described where it is defined). */

/* agg_by.c */
struct agg_node *agg_key_root(struct agg *a, uint32_t v);
struct agg_node *agg_comm_root(struct agg *a, const char *name);
struct agg_node *agg_split_root(struct agg *a, struct athread *t);

/* agg_caps.c */
struct agg_node *agg_other_get(struct agg *a);
void agg_make_room(struct agg *a);
struct agg_node *agg_path_get(struct agg *a, struct agg_node *parent,
			  uint32_t timer);
void agg_root_ref(struct agg *a, struct agg_node *n);
void agg_root_unref(struct agg *a, struct agg_node *n);
int agg_fold_root(struct agg *a, struct agg_node *r);

/* agg_comp.c */
uint64_t *agg_nodeset_val(struct nodeset *s, const struct agg_node *n);
void agg_nodeset_clear(struct nodeset *s);
const struct agg_cost *agg_cost_of(const struct agg *a, uint32_t timer);
const struct agg_cost *agg_cost_on_cpu(const struct agg *a,
				       const struct agg_cost *c,
				       uint16_t cpu_start, uint16_t cpu_stop,
				       struct agg_cost *tmp);
void agg_cost_parts(const struct agg_cost *c, int k, uint64_t v[4]);
const struct agg_cost *agg_frame_cost(const struct agg *a,
				      const struct frame *f,
				      struct agg_cost *tmp);
void agg_charge_open(const struct agg *a, struct athread *t, uint32_t i);
/* a split entry's measured gap kept up to this many times the calibrated
 * median, plus AGG_GAP_SLACK_NS (calib_mean()'s cut) */
#define AGG_GAP_CUT 4u
#define AGG_GAP_SLACK_NS 50000u
uint64_t agg_frame_gap(const struct agg_cost *c, const struct frame *f,
		       int k);
int agg_fold_call(struct agg_node *n, struct athread *t, uint32_t tid,
		  uint64_t sum, uint64_t start_ns, uint64_t ts_ns);
void agg_cost_err(const struct agg_cost *c, uint64_t part_ns, double *var,
		  double *sys);
void agg_settle(struct agg_node *n, uint64_t *debt, const struct comp *cm,
	    uint64_t raw_on, uint64_t ovh, uint64_t *on, uint64_t *dur);
int agg_complete(const struct agg *a, struct athread *t, const struct frame *f,
	     uint64_t ts_ns);

/* agg_name.c */
int agg_do_name(struct agg *a, const void *rec);
uint32_t agg_name_intern(struct agg *a, uint32_t timer, uint64_t value);
uint32_t agg_name_intern_text(struct agg *a, uint32_t timer, const char *text,
			      uint32_t len);
int agg_do_namestr(struct agg *a, const void *rec);
/* agg_name_set_cut() - with @cut, name @id's text holds a cut part (an id
 * that is no name, AGG_OTHER_TIMER or AGG_ROOT_TIMER: nothing) */
void agg_name_set_cut(struct agg *a, uint32_t id, int cut);
void agg_names_free(struct agg *a);

/* agg_kspan.c */
int agg_do_key(struct agg *a, const void *rec);

/*
 * agg_offcpu.c (include/iprof/offcpu.h), below the others: it calls none
 * of them.  agg_off_rec(): an OFFSTACK or WAKER record of thread @t (the
 * caller sets a->off_on); agg_off_out(): thread @t's SWITCH_OUT
 * @r; agg_off_in(): its SWITCH_IN ended a blocked period of @ns, charged
 * to the nodes open on it.  0 or -ENOMEM.
 */
int agg_off_rec(struct agg *a, struct athread *t, const void *rec);
void agg_off_out(struct athread *t, const struct iprof_rec *r);
int agg_off_in(struct agg *a, struct athread *t, uint64_t ns);
void agg_off_free(struct agg_node *n);
void agg_off_thread_free(struct athread *t);
int agg_off_merge(struct agg_node *d, const struct agg_node *s);

/* agg_slow.c */
void agg_slow_open(struct agg *a, struct athread *t, uint32_t i);
int agg_slow_close(const struct agg *a, struct athread *t,
		   const struct frame *f, uint64_t on, uint64_t runq,
		   uint64_t blocked, uint64_t raw);
int agg_slow_span(const struct agg *a, struct agg_node *n,
		  const struct athread *t, uint32_t id, uint64_t start,
		  uint64_t dur, uint64_t raw, const struct kinfo *ki);
void agg_slow_free(struct agg_node *n);
int agg_slow_val(struct agg *a, struct athread *t,
		 const struct iprof_rec_val *r);
int agg_slow_merge(struct agg_node *d, const struct agg_node *s);

/* agg_thread.c */
struct athread *agg_thread_get(struct agg *a, uint32_t tid, int create);
void agg_thread_destroy(struct athread *t);
void agg_thread_del(struct agg *a, struct athread *t);
int agg_thread_root(struct agg *a, struct athread *t, const struct iprof_rec *r);

/* agg_tree.c */
struct agg_node *agg_child_get(struct agg *a, struct agg_node *parent,
			   uint32_t timer);
struct agg_node *agg_child_find(const struct agg *a, const struct agg_node *parent,
			    uint32_t timer);
void agg_ntab_del(struct agg *a, const struct agg_node *n);
int agg_merge_into(struct agg_node *d, const struct agg_node *s);

#endif /* IPROF_AGG_INT_H */
