// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_cond.c - a timer's pair of actions and the conditions on them
 * (function arguments, tracepoint fields), for every shape.
 * See src/probe/plan_int.h.
 */
#include <errno.h>
#include <fnmatch.h>
#include <search.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "iprof/inline.h"
#include "iprof/kmod.h"
#include "iprof/ksym.h"
#include "iprof/plan.h"
#include "iprof/retsite.h"
#include "iprof/unwind.h"
#include "iprof/sym.h"
#include "iprof/syscall.h"
#include "iprof/util.h"

#include "probe/plan_int.h"

/*
 * resolve_strconds() - the string conditions of @pt (`str(F) OP "TEXT"`,
 * their operands resolved as numbers into @a) made so: F must hold a user
 * address (8 bytes; not a kernel function's argument), the constant's
 * length and hash in the condition (IPROF_OP_STR* of abi.h).  NULL or
 * the error.
 */
static char *resolve_strconds(const struct plan_shape *sh,
			      const struct probe *pr,
			      const struct probe_point *pt,
			      struct iprof_action *a)
{
	int i;

	for (i = 0; i < pt->ncond; i++) {
		const struct probe_cond *c = &pt->cond[i];
		struct iprof_cond *k = &a->cond[i];

		if (!c->str)
			continue;
		if (!sh->user && !sh->tracepoints)
			return plan_perr(pr, c->col, "str() reads a string at a user address: a kernel function's arguments point to kernel memory");
		if (k->size != 8)
			return plan_perr(pr, c->col, "str() reads a string at a user address: its field must be one (8 bytes)");
		k->op = (uint8_t)c->op;
		k->pad = (uint16_t)c->str_len;
		k->val = iprof_strhash(c->str, (unsigned int)c->str_len);
	}
	return NULL;
}

/* "argN is for function probes ..." for condition @c of tracepoint side
 * @pt, with the fields it has */
static char *tp_argn_error(const char *tracefs, const struct probe *pr,
			   const struct probe_point *pt,
			   const struct probe_cond *c)
{
	struct plan_tp_field_info fi;
	char fields[512];

	plan_tp_field(tracefs, pt->category, pt->event, NULL, &fi, fields,
		      sizeof(fields));
	return plan_perr(pr, c->col, "argN is for function probes; a tracepoint condition names a field of %s:%s (its fields: %s)",
			 pt->category, pt->event,
			 fields[0] ? fields : "none");
}

static char *resolve_conds(const struct plan_shape *sh,
			   const struct plan_env *env, const char *func,
			   const struct probe *pr, const struct probe_point *pt,
			   int tracepoint, struct iprof_action *a)
{
	const char *tracefs = env->tracefs;
	char fields[512], what[160], type[80], *err_s;
	int i, err, idx, width, sgn;

	a->ncond = (uint8_t)pt->ncond;
	for (i = 0; i < pt->ncond; i++) {
		const struct probe_cond *c = &pt->cond[i];
		struct iprof_cond *k = &a->cond[i];

		k->op = (uint8_t)c->op;
		k->val = c->value;
		if (pt->usdt || pt->uprobe) {
			err_s = pt->usdt ? plan_usdt_cond(pr, pt, c, k) :
					   plan_uside_cond(pr, pt, c, k);
			if (err_s)
				return err_s;
			continue;
		}
		if (c->arg >= 0) {
			if (tracepoint)
				return tp_argn_error(tracefs, pr, pt, c);
			if (c->arg > 5)
				return plan_perr(pr, c->col, "arg%d: only arg0..arg5 (passed in registers) can be tested",
						 c->arg);
			k->src = IPROF_SRC_ARG;
			k->off = (uint16_t)c->arg;
			/* without a type, arguments compare as signed 64-bit:
			 * a negative VALUE means what it says */
			k->size = 8;
			k->is_signed = 1;
			if (!c->has_type)
				continue;
			/* argN:TYPE: BPF truncates the register to size
			 * bytes, then sign- or zero-extends it */
			k->size = (uint8_t)c->width;
			k->is_signed = (uint8_t)c->is_signed;
			if (plan_fit_value(&k->val, k->size, k->is_signed)) {
				snprintf(what, sizeof(what), "arg%d", c->arg);
				snprintf(type, sizeof(type), "%c%d",
					 c->is_signed ? 's' : 'u',
					 c->width * 8);
				return plan_range_error(pr, c, what, type, k->size);
			}
			continue;
		}
		if (!tracepoint && (sh->user || !env->arg))
			return plan_perr(pr, c->col, "'%s': conditions on %s name arguments as argN (arg0 is the first)", c->field,
					 sh->user ?
						 "user functions" :
						 "kernel functions without BTF");
		if (!tracepoint) {
			/* a kernel function's argument by name, from BTF */
			err = env->arg(env->arg_ctx, func, c->field, &idx,
				       &width, &sgn, fields, sizeof(fields));
			if (err == -ESRCH)
				return plan_perr(pr, c->col, "%s has no argument '%s' (%s%s)",
						 func, c->field,
						 fields[0] ? "its arguments: " :
							     "it takes none",
						 fields);
			if (err)
				return plan_perr(pr, c->col, "'%s': %s has no BTF to name its arguments; use argN",
						 c->field, func);
			if (idx > 5)
				return plan_perr(pr, c->col, "%s is argument %d of %s: only arg0..arg5 (passed in registers) can be tested",
						 c->field, idx, func);
			k->src = IPROF_SRC_ARG;
			k->off = (uint16_t)idx;
			k->size = (uint8_t)(c->has_type ? c->width : width);
			k->is_signed =
				(uint8_t)(c->has_type ? c->is_signed : sgn);
			if (plan_fit_value(&k->val, k->size, k->is_signed)) {
				snprintf(type, sizeof(type), "%c%d",
					 k->is_signed ? 's' : 'u',
					 k->size * 8);
				return plan_range_error(pr, c, c->field, type,
						   k->size);
			}
			continue;
		}
		err_s = plan_resolve_tp_cond(tracefs, pr, pt, c, k);
		if (err_s)
			return err_s;
	}
	return resolve_strconds(sh, pr, pt, a);
}

/*
 * field_absent() - 1 if condition (or name) @c of side @pt names what its
 * probe does not have (a typo: its error lists what there is): a field
 * its tracepoint lacks, or an argN (a tracepoint names fields); an
 * argument kernel function @func's BTF does not name (@func NULL: a user
 * function, whose arguments have no names: a name is absent).  A USDT
 * side's are checked against its probe's notes as it is attached
 * (plan_usdt.c); a uretprobe side has no arguments to name.
 */
static int field_absent(const struct plan_env *env,
			const struct plan_shape *sh, const char *func,
			const struct probe_point *pt,
			const struct probe_cond *c)
{
	struct plan_tp_field_info fi;
	char names[512];
	int idx, width, sgn;

	if (pt->usdt)
		return 0;
	if (pt->uprobe)
		return !pt->ret && c->arg < 0;
	if (sh->tracepoints)
		return c->arg >= 0 ||
		       (c->field && plan_tp_field(env->tracefs, pt->category,
						  pt->event, c->field, &fi,
						  names, sizeof(names)) ==
					    -ESRCH);
	if (c->arg >= 0 || !c->field)
		return 0;
	if (!func)
		return 1;
	return env->arg &&
	       env->arg(env->arg_ctx, func, c->field, &idx, &width, &sgn, names,
			sizeof(names)) == -ESRCH;
}

/* cond_absent() - 1 if a condition of @pt names a field or argument that
 * is not there (field_absent()) */
static int cond_absent(const struct plan_env *env,
		       const struct plan_shape *sh, const char *func,
		       const struct probe_point *pt)
{
	for (int i = 0; i < pt->ncond; i++)
		if (field_absent(env, sh, func, pt, &pt->cond[i]))
			return 1;
	return 0;
}

/* src_absent() - 1 if the name @pr's side @pt reads (@c, and @c2 for a
 * second str() part) is not there */
static int src_absent(const struct plan_env *env, const struct plan_shape *sh,
		      const char *func, const struct probe *pr,
		      const struct probe_point *pt, const struct probe_cond *c,
		      const struct probe_cond *c2)
{
	return field_absent(env, sh, func, pt, c) ||
	       (pr->name_parts > 1 && field_absent(env, sh, func, pt, c2));
}

/*
 * timer_absent() - 1 if any clause of @pr (shape @sh; @func: a kernel
 * function's name, NULL for a user function or a span) names a field or
 * argument its side does not have: a start's or stop's condition, an
 * alternative stop's, name's, stop's (each stop's); a key's field is the
 * span shape's to say (plan_span.c).
 */
static int timer_absent(const struct plan_env *env,
			const struct plan_shape *sh, const char *func,
			const struct probe *pr)
{
	int i;

	if (cond_absent(env, sh, func, &pr->start) ||
	    (pr->named && src_absent(env, sh, func, pr, &pr->start,
				     &pr->name_src, &pr->name_src2)))
		return 1;
	if (!sh->tracepoints)
		return 0;
	if (cond_absent(env, sh, func, &pr->stop) ||
	    (pr->stop_named && src_absent(env, sh, func, pr, &pr->stop,
					  &pr->stop_src, &pr->stop_src2)))
		return 1;
	for (i = 0; i < pr->nalt; i++)
		if (cond_absent(env, sh, func, &pr->alt[i]) ||
		    (pr->stop_named &&
		     src_absent(env, sh, func, pr, &pr->alt[i], &pr->stop_src,
				&pr->stop_src2)))
			return 1;
	return 0;
}

/*
 * resolve_name() - where a named timer's start (@a) reads its name
 * (`name FIELD`): resolved as one more condition of the start, then kept
 * one past its conditions (IPROF_A_NAMED).  NULL or the error.
 */
static char *resolve_name(const struct plan_shape *sh,
			  const struct plan_env *env, const char *func,
			  const struct probe *pr, int tracepoint,
			  struct iprof_action *a)
{
	struct probe_point pt = pr->start;
	int nsrc = pr->name_parts > 1 ? 2 : 1;
	char *msg;

	if (pr->name_parts && !sh->user && !sh->tracepoints)
		return plan_perr(pr, pr->name_src.col, "str() reads a string at a user address: a kernel function's arguments point to kernel memory");
	if (pt.ncond + nsrc > IPROF_MAX_COND)
		return plan_perr(pr, pr->name_src.col, "a named timer's start takes at most %d comparisons (its name is read as %d more)",
				 IPROF_MAX_COND - nsrc, nsrc);
	pt.cond[pt.ncond] = pr->name_src;
	pt.cond[pt.ncond].op = IPROF_OP_EQ;
	pt.cond[pt.ncond].value = 0;
	pt.ncond++;
	if (nsrc > 1) {
		pt.cond[pt.ncond] = pr->name_src2;
		pt.cond[pt.ncond].op = IPROF_OP_EQ;
		pt.cond[pt.ncond].value = 0;
		pt.ncond++;
	}
	msg = resolve_conds(sh, env, func, pr, &pt, tracepoint, a);
	a->ncond = (uint8_t)pr->start.ncond;
	a->flags |= IPROF_A_NAMED;
	if (!msg && pr->name_parts &&
	    (a->cond[a->ncond].size != 8 ||
	     a->cond[(a->ncond + nsrc - 1) & (IPROF_MAX_COND - 1)].size != 8))
		return plan_perr(pr, pr->name_src.col, "str() reads a string at a user address: its field must be one (8 bytes)");
	if (pr->name_parts) {
		/* text: the number of parts where the first is read */
		a->flags |= IPROF_A_NAMESTR;
		a->cond[a->ncond].op = (uint8_t)nsrc;
	}
	return msg;
}

/*
 * resolve_stopname() - where a span's stop (@a, at @stop) reads the name of
 * the call it ends (`name ARG stop ARG2`): one past its conditions, as
 * resolve_name() keeps a start's (IPROF_AX_STOPNAME, with
 * IPROF_AX_STOPSTR for text).  NULL or the error.
 */
static char *resolve_stopname(const struct plan_shape *sh,
			      const struct plan_env *env, const char *func,
			      const struct probe *pr,
			      const struct probe_point *stop,
			      struct iprof_action *a)
{
	struct probe_point pt = *stop;
	int nsrc = pr->name_parts > 1 ? 2 : 1;
	char *msg;

	if (pt.ncond + nsrc > IPROF_MAX_COND)
		return plan_perr(pr, pr->stop_src.col, "a stop that names its call takes at most %d comparisons (its name is read as %d more)",
				 IPROF_MAX_COND - nsrc, nsrc);
	pt.cond[pt.ncond] = pr->stop_src;
	pt.cond[pt.ncond].op = IPROF_OP_EQ;
	pt.cond[pt.ncond].value = 0;
	pt.ncond++;
	if (nsrc > 1) {
		pt.cond[pt.ncond] = pr->stop_src2;
		pt.cond[pt.ncond].op = IPROF_OP_EQ;
		pt.cond[pt.ncond].value = 0;
		pt.ncond++;
	}
	msg = resolve_conds(sh, env, func, pr, &pt, 1, a);
	a->ncond = (uint8_t)stop->ncond;
	a->xflags |= IPROF_AX_STOPNAME;
	if (!msg && pr->name_parts &&
	    (a->cond[a->ncond].size != 8 ||
	     a->cond[(a->ncond + nsrc - 1) & (IPROF_MAX_COND - 1)].size != 8))
		return plan_perr(pr, pr->stop_src.col, "str() reads a string at a user address: its field must be one (8 bytes)");
	if (pr->name_parts) {
		a->xflags |= IPROF_AX_STOPSTR;
		a->cond[a->ncond].op = (uint8_t)nsrc;
	}
	return msg;
}

/* does every side of span @pr run in user code, a USDT probe or a user
 * function's entry or return (a span between them nests in itself, as
 * the calls they mark)? */
static int usdt_only(const struct probe *pr)
{
	int i;

	if (!(pr->start.usdt || pr->start.uprobe) ||
	    !(pr->stop.usdt || pr->stop.uprobe))
		return 0;
	for (i = 0; i < pr->nalt; i++)
		if (!pr->alt[i].usdt && !pr->alt[i].uprobe)
			return 0;
	return 1;
}

/* a stop action of timer @id per alternative stop of span @pr (after
 * @stop's, so at stop + 1 + i: the shape's attach finds them there),
 * each with its own conditions and @flags.  NULL, the error, or
 * "out of memory" */
static char *alt_actions(struct plan *p, const struct plan_shape *sh,
			 const struct plan_env *env, const struct probe *pr,
			 uint32_t id, uint32_t stop, uint8_t flags)
{
	uint32_t a;
	char *msg = NULL;
	int i;

	for (i = 0; i < pr->nalt && !msg; i++) {
		if (plan_add_action(p, id, IPROF_ROLE_STOP, flags, &a) ||
		    a != stop + 1 + (uint32_t)i)
			return plan_asprintf("out of memory");
		/* its number in its STOP records (IPROF_REC_STOPNO) */
		p->actions[a].xflags |=
			(uint8_t)((i + 1) << IPROF_AX_STOPNO_SHIFT);
		msg = resolve_conds(sh, env, p->timers[id].func, pr,
				    &pr->alt[i], 1, &p->actions[a]);
		if (!msg && pr->stop_named)
			msg = resolve_stopname(sh, env, p->timers[id].func, pr,
					       &pr->alt[i], &p->actions[a]);
	}
	return msg;
}

/* The actions and attachments of @pr (timer @id), resolved: @at, the
 * entry of a user function timer (else NULL).  A span's alternative
 * stops (pr->nalt) get stop actions of their own right after @stop's. */
int plan_actions(struct plan *p, const struct plan_shape *sh,
		 const struct probe *pr, uint32_t id, const struct plan_env *env,
		 const struct uplace *at)
{
	struct plan_timer *t = &p->timers[id];
	int tp = sh->tracepoints;
	uint32_t start, stop;
	uint8_t sflags;
	char *msg;
	int err;

	/* spans do not nest in themselves: see IPROF_A_NO_REENTER; a
	 * keyed span pushes no frame, and BPF ignores a keyed stop whose
	 * key is not open (IPROF_A_KEYED) */
	/* ... but a span between two USDT probes does, as the calls
	 * they mark (python's function__entry -> function__return) */
	err = plan_add_action(p, id, IPROF_ROLE_START,
			 pr->nkey ? IPROF_A_KEYED :
			 tp && !usdt_only(pr) ? IPROF_A_NO_REENTER : 0,
			 &start);
	/* a span of several stops: a stop that finds it closed is
	 * expected (another alternative closed it), never an orphan */
	sflags = pr->nkey ? IPROF_A_KEYED :
		 pr->nalt ? IPROF_A_UNMATCHED_OK :
		 !pr->start.ncond ? 0 :
		 tp ? IPROF_A_UNMATCHED_OK :
		      IPROF_A_UNMATCHED_OK | IPROF_A_TOP_ONLY;
	if (!err)
		err = plan_add_action(p, id, IPROF_ROLE_STOP, sflags, &stop);
	if (err)
		return err;
	msg = resolve_conds(sh, env, t->func, pr, &pr->start,
			    tp, &p->actions[start]);
	if (!msg && pr->named)
		msg = resolve_name(sh, env, t->func, pr, tp,
				   &p->actions[start]);
	if (!msg && tp)
		msg = resolve_conds(sh, env, t->func, pr, &pr->stop, 1,
				    &p->actions[stop]);
	if (!msg && tp && pr->stop_named) {
		/* the frame keeps its name's key for the stops */
		p->actions[start].xflags |= IPROF_AX_NAMEKEY;
		msg = resolve_stopname(sh, env, t->func, pr, &pr->stop,
				       &p->actions[stop]);
	}
	if (!msg && tp)
		msg = alt_actions(p, sh, env, pr, id, stop, sflags);
	if (!msg && sh->keys && pr->nkey)
		msg = sh->keys(env->tracefs, pr, &p->actions[start],
			       &p->actions[stop]);
	if (msg) {
		t->error = msg;
		/* a field or argument that is not there: a typo, as a
		 * function that is not (plan_timer.missing) */
		t->missing = timer_absent(env, sh, sh->user ? NULL : t->func,
					  pr);
		/* the actions stay, unused: no attachment refers to them */
		return 0;
	}

	return sh->attach(p, pr, id, env, start, stop, at);
}
