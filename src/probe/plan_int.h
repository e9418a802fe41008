/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * plan_int.h - the planner's own: what plan.c (the plan object and the
 * API the shapes append with), plan_cond.c, plan_build.c and the shape
 * files (plan_kfunc.c, plan_ufunc.c, plan_span.c; plan_inline.c and
 * plan_tracefs.c shared) share while plan_build() runs.  Not a public
 * API.  Errors are 0 or -errno; a line's own problem is its timer's
 * error text (malloc'ed, "FILE:LINE:COL: ..."), not an error code.
 */
#ifndef IPROF_PLAN_INT_H
#define IPROF_PLAN_INT_H

#include <limits.h>
#include <search.h>
#include <stddef.h>
#include <stdint.h>

#include "iprof/inline.h"
#include "iprof/ksym.h"
#include "iprof/plan.h"
#include "iprof/probe.h"

struct sym_cache;
struct retsite_ctx;
struct kmod_debug;

/* old_copy()'s answers kept per build (a glob asks once per function) */
#define PLAN_OLD_COPIES 8

/* one old_copy() answer: (pid, path) -> ret, deleted, out */
struct plan_old_copy {
	int pid, ret, deleted;
	char *path; /* owned; NULL: an empty slot */
	char out[PATH_MAX];
};

/*
 * struct planner - all plan_build() reads once and reuses, owned by the
 * plan while it is built (plan.pn; NULL after), so that plan_build() is
 * reentrant: no file-scope state.
 */
struct planner {
	/* the ELF files of its uprobes, each read and indexed once */
	struct sym_cache *syms;
	struct retsite_ctx *rsx; /* retsite_find()'s over @syms */
	/* the last few (pid, path) old copies looked for (-p) */
	struct plan_old_copy old[PLAN_OLD_COPIES];
	unsigned int old_next;
	/* --returns auto's judgment of the last file (a glob's functions
	 * share it): its path, the evidence, and whether a uretprobe */
	char *auto_path, *auto_risk;
	int auto_uret; /* 0 return sites, 1 a uretprobe, 2 a uprobe session */
	/* the loaded kernel modules' debug files, read at the first need */
	struct kmod_debug *kdbg;
	size_t nkdbg, kdbg_stale;
	int kdbg_read;
};

/* One entry of a user function timer, where its uprobe goes: a binary
 * the kernel opens by path, the symbol and its file offset. */
struct uplace {
	char *path, *sym; /* the binary (absolute) and the symbol, owned */
	uint64_t off, dev, ino; /* file offset (bytes); the file's identity */
	uint64_t size; /* the code's length from @off (bytes), 0 unknown */
	int cold;      /* the function has a cold part elsewhere (f.cold) */
	uint64_t cold_off, cold_size; /* where (sym_target), 0 0 unknown */
	uint64_t addr, cold_addr; /* virtual addresses of both, for messages */
};

struct uplaces {
	struct uplace *v;
	size_t n;
	char *note; /* what the user should know (an older copy traced) */
};

/* a kernel module's instances: the module (its kprobes name their
 * functions MOD:SYM, as kallsyms_lookup_name() takes them: a static
 * function's name may be another module's too; "vmlinux": the kernel
 * image, SYM alone) and the kernel's symbols */
struct inl_kctx {
	const char *mod;
	const struct ksyms *ks;
};

/*
 * struct plan_shape - how the planner plans what a probe kind's line
 * times (a kernel function, a user function, a span): the row its kind
 * points at (its probe_kind_info.at, src/probe/probe.c's kinds[], indexes
 * plan_build.c's shapes[]).  One per shape file; a new kind of a known
 * shape is a row of kinds[], a new shape a new file defining one of these
 * and its row of shapes[].
 */
struct plan_shape {
	/* both sides are tracepoints (spans): the start does not nest in
	 * itself (IPROF_A_NO_REENTER), the stop has its own conditions,
	 * key fields may pair them */
	int tracepoints;
	/* functions of ELF files: a glob folds clones (f.isra.0) into their
	 * function, the kernel's deny list does not apply, conditions name
	 * arguments only as argN */
	int user;
	/* plan_build() reads kallsyms when a line of this shape is there */
	int ksyms;
	/* plan timer @id of line @pr: check what it names (kallsyms in @ks),
	 * then its actions (plan_actions()).  A line's own problem is its
	 * timer's error; returns 0 or -ENOMEM */
	int (*plan)(struct plan *p, const struct probe *pr, uint32_t id,
		    const struct plan_env *env, const struct ksyms *ks);
	/* the attachments of actions @start and @stop of timer @id (@at:
	 * a user function's entry, else NULL); too many timers on one point
	 * is the timer's error.  0 or -ENOMEM */
	int (*attach)(struct plan *p, const struct probe *pr, uint32_t id,
		      const struct plan_env *env, uint32_t start, uint32_t stop,
		      const struct uplace *at);
	/* expand glob line @pr: one timer per matching function, named by
	 * it, unless @ht has the name (plan_glob()); NULL: no globs.
	 * 0 or -ENOMEM */
	int (*glob)(struct plan *p, const struct probe_list *pl,
		    const struct probe *pr, const struct plan_env *env,
		    const struct ksyms *ks, struct hsearch_data *ht,
		    size_t *scanned);
	/* --dry-run's "what it attaches to" for function @func of @pr (at
	 * binary @path: user functions; @glob: @func is a match of the
	 * line's glob, which follows in parentheses); malloc'ed, NULL when
	 * out of memory */
	char *(*describe)(const struct probe *pr, const char *path,
			  const char *func, int glob);
	/* timer @timer's calibration class (enum calib_class,
	 * include/iprof/calib_cost.h): which probes' cost its times carry, read
	 * from its attachments in @p; NULL: CALIB_NONE */
	int (*calib_class)(const struct plan *p, uint32_t timer);
	/* a keyed line's key as --dry-run shows it (malloc'ed, NULL when
	 * out of memory), and its fields resolved into actions @a (start)
	 * and @b (stop): NULL, or the timer's error; NULL: no keys */
	char *(*key)(const struct probe *pr);
	char *(*keys)(const char *tracefs, const struct probe *pr,
		      struct iprof_action *a, struct iprof_action *b);
};

extern const struct plan_shape plan_kfunc_shape; /* plan_kfunc.c */
extern const struct plan_shape plan_ufunc_shape; /* plan_ufunc.c */
extern const struct plan_shape plan_span_shape; /* plan_span.c */

/* plan_cond.c: a pair of actions and their conditions */
/* plan_actions() - the actions of timer @id of @pr (shape @sh), their
 * conditions and keys resolved, then @sh's attachments (@at: a user
 * function's entry, else NULL).  0 or -ENOMEM */
int plan_actions(struct plan *p, const struct plan_shape *sh,
		 const struct probe *pr, uint32_t id,
		 const struct plan_env *env, const struct uplace *at);

/* plan.c: the plan object and the API the shapes append with (each
 * function's comment is at its definition) */
/* plan_cond_str() - append @pt's conditions ("if a == 1 && b & 0x4")
 * to @buf (@len bytes) */
void plan_cond_str(char *buf, size_t len, const struct probe_point *pt);
/* plan_add_tp_att() - attach action @action of timer @timer to the
 * tracepoint (or raw syscall) of @pt; 0, -E2BIG or -ENOMEM */
int plan_add_tp_att(struct plan *p, const struct plan_env *env, uint32_t timer,
		    uint32_t action, const struct probe_point *pt);
char *plan_hint_last(char *m);
/* plan_describe() - what @pr (shape @sh) attaches to, for --dry-run:
 * @path the uprobe binary to show, @func the function timed (one a glob
 * matched: the glob follows in parentheses); malloc'ed or NULL */
char *plan_describe(const struct plan_shape *sh, const struct probe *pr,
		    const char *path, const char *func);
/* plan_add_timer() - append a timer of @pr (shape @sh) named @name timing
 * @func (NULL: none); its id, or -1 when out of memory */
int plan_add_timer(struct plan *p, const struct plan_shape *sh,
		   const struct probe *pr, const char *name, const char *func);
/* plan_has_glob() - @s (NULL: no) has a * or ? */
int plan_has_glob(const char *s);
/* plan_name_add() - @name (not copied) into @ht: 0 or -ENOMEM */
int plan_name_add(struct hsearch_data *ht, char *name);
/* planner_new(), planner_free() - a planner with nothing read yet (NULL:
 * no memory); free one and all it read (NULL is fine) */
struct planner *planner_new(void);
void planner_free(struct planner *pn);
int plan_add_action(struct plan *p, uint32_t timer, uint8_t role, uint8_t flags,
		    uint32_t *idx);
int plan_clone_action(struct plan *p, uint32_t idx, uint32_t *out);
int plan_add_failed(struct plan *p, const struct plan_shape *sh,
		    const struct probe *pr, char *msg);
int plan_glob(struct plan *p, const struct plan_shape *sh,
	      const struct probe_list *pl, const struct probe *pr,
	      const struct plan_env *env, const struct ksyms *ks,
	      const struct ksyms *names, struct hsearch_data *ht,
	      size_t *scanned, int col, const char *what, const char *none);
/* vasprintf() that returns the string, or NULL when out of memory. */
char *plan_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * An error in probe @pr at column @col of its line: "FILE:LINE:COL: "
 * and the message (printf @fmt), malloc'ed; NULL when out of memory.
 */
char *plan_perr(const struct probe *pr, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int plan_add_att(struct plan *p, enum plan_mech mech, uint32_t timer,
		 uint32_t action, const char *cat, const char *ev,
		 const char *path, const char *func, uint64_t offset);
/* plan_drop_att() - remove attachment @i of @p (its strings freed; the
 * later ones move down one), its actions kept: for the planner, before
 * anything holds an attachment's index */
void plan_drop_att(struct plan *p, uint32_t i);

/* plan_tracefs.c: tracefs formats */
int plan_fit_value(iprof_u64 *v, unsigned int width, int is_signed);
char *plan_range_error(const struct probe *pr, const struct probe_cond *c,
		       const char *what, const char *type, unsigned int width);
char *plan_resolve_tp_cond(const char *tracefs, const struct probe *pr,
			   const struct probe_point *pt,
			   const struct probe_cond *c, struct iprof_cond *k);
char *plan_check_tp(const char *tracefs, const struct probe *pr,
		    const struct probe_point *pt);

/* plan_ufunc.c: user functions (uprobe_emu's decisions, after the build) */
void plan_emu(struct plan *p, const struct plan_env *env);
/*
 * plan_split() - once every timer is planned, split the user function
 * entries their timers asked for (plan_att.split_site, IPROF_REC_GAP() of
 * abi.h): each entry attachment whose chain's timers all asked, the same,
 * with no other probe of its file between the entry and the site; the
 * others' timers say why not (plan_timer.split_why).  Returns 0 or
 * -ENOMEM.
 */
int plan_split(struct plan *p);
/*
 * plan_ufunc_inline_class() - the calibration class of user function
 * timer @timer's calls through its inlined instances: CALIB_RETSITE where
 * the kernel emulates every instance's first instruction (a call, jmp,
 * jcc, nop or push: the start's trap alone inside the call, as a pushing
 * entry's), else CALIB_RETSITE_STEP (a single step inside each call).
 */
int plan_ufunc_inline_class(const struct plan *p, uint32_t timer);

/* plan_usdt.c: a span's USDT sides */
/* plan_usdt_cond() - condition @c of USDT side @pt (an argN) into @k:
 * NULL, or the error (as plan_perr()) */
char *plan_usdt_cond(const struct probe *pr, const struct probe_point *pt,
		     const struct probe_cond *c, struct iprof_cond *k);
/* plan_usdt_att() - attach action @action of timer @id (line @pr) to USDT
 * side @pt: its binary resolved, its probe found in the SDT notes (else
 * the timer's error, naming the file's probes and the nearest).  0 or
 * -ENOMEM */
int plan_usdt_att(struct plan *p, const struct probe *pr, uint32_t id,
		  uint32_t action, const struct probe_point *pt);

/* plan_uside_cond() - condition @c of user function side @pt (an argN of
 * a uprobe side; none on a uretprobe side) into @k: NULL, or the error */
char *plan_uside_cond(const struct probe *pr, const struct probe_point *pt,
		      const struct probe_cond *c, struct iprof_cond *k);
/* plan_uside_att() - attach action @action of timer @id (line @pr) to
 * user function side @pt: a uprobe at each entry of FUNC in PATH (each
 * version and clone; an action cloned per entry), or a uretprobe, its
 * actions marked IPROF_AX_POINT; a binary or function not there is the
 * timer's error.  0, -E2BIG or -ENOMEM */
int plan_uside_att(struct plan *p, const struct probe *pr, uint32_t id,
		   uint32_t action, const struct probe_point *pt);

/* plan_inline.c: inlined instances */
int plan_instances(struct plan *p, const struct probe *pr, uint32_t id,
		   const char *path, const struct inl_kctx *kx,
		   const struct inl_inst *v, size_t n, size_t more);
int plan_inline(struct plan *p, const struct probe *pr, uint32_t id,
		const struct plan_env *env, const char *path, int *nodwarf);

#endif /* IPROF_PLAN_INT_H */
