// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_build.c - plan_build(): each line of a probe list to its kind's
 * shape (plan_kfunc.c, plan_ufunc.c, plan_span.c).  See
 * include/iprof/plan.h and src/probe/plan_int.h.
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
#include "iprof/calib_cost.h"

#include "probe/plan_int.h"

/* the shape of each probe_at: what a kind's row says its lines time */
static const struct plan_shape *const shapes[] = {
	[PROBE_AT_KFUNC] = &plan_kfunc_shape,
	[PROBE_AT_UFUNC] = &plan_ufunc_shape,
	[PROBE_AT_SPAN] = &plan_span_shape,
};

/* @pr's shape: its kind's row's (probe_kind_at()) */
static const struct plan_shape *shape_of(const struct probe *pr)
{
	return shapes[probe_kind_at(pr->kind)];
}

int plan_calib_class(const struct plan *p, uint32_t timer)
{
	const struct plan_timer *t = &p->timers[timer];
	const struct plan_shape *sh = shapes[probe_kind_at(t->kind)];

	if (t->error || !sh->calib_class)
		return CALIB_NONE;
	return sh->calib_class(p, timer);
}

/* the probe class of an action of attachment @a (@inst: an inlined
 * instance's), by its site's single step (plan_att.no_step) where the
 * site's own class says it */
static uint8_t pclass_of(const struct plan_att *a, uint32_t inst)
{
	switch (a->mech) {
	case MECH_TRACEPOINT:
		return IPROF_PC_TP;
	case MECH_UPROBE:
		return !inst	     ? IPROF_PC_UENTRY :
		       a->no_step ? IPROF_PC_UINLINE_EMU :
				    IPROF_PC_UINLINE;
	case MECH_URETPROBE:
		return IPROF_PC_URETPROBE;
	case MECH_RETSITE:
		if (inst)
			return a->no_step ? IPROF_PC_UINLINE_EMU :
					    IPROF_PC_UINLINE;
		return a->split == PLAN_SPLIT_GAP   ? IPROF_PC_USPLIT :
		       a->split == PLAN_SPLIT_ENTRY ? IPROF_PC_UENTRY :
		       a->no_step		    ? IPROF_PC_RETSITE_EMU :
						      IPROF_PC_RETSITE;
	case MECH_UMARK: /* (its program runs no chain) */
		return IPROF_PC_UENTRY;
	case MECH_KSITE:
		return IPROF_PC_KINLINE;
	case MECH_FUNC_ENTRY:
		return IPROF_PC_KENTRY;
	case MECH_FUNC_RETURN:
		return IPROF_PC_KRETURN;
	case MECH_SYSCALL:
		return IPROF_PC_SYSCALL;
	case MECH_USDT:
		return IPROF_PC_USDT;
	}
	return IPROF_PC_NONE;
}

/* every action's iprof_action.pclass, from the attachment whose chain
 * runs it (an action is in one chain) */
static void plan_pclass(struct plan *p)
{
	uint32_t i, k, n;

	for (i = 0; i < p->natt; i++)
		for (k = p->att[i].action, n = 0;
		     k < p->nactions && n < p->nactions;
		     k = p->actions[k].next, n++)
			p->actions[k].pclass =
				pclass_of(&p->att[i], p->actions[k].inst);
}

int plan_calib_inline_class(const struct plan *p, uint32_t timer)
{
	const struct plan_timer *t = &p->timers[timer];

	if (t->error || !t->inl)
		return CALIB_NONE;
	switch (probe_kind_at(t->kind)) {
	case PROBE_AT_KFUNC:
		return CALIB_KPROBE;
	case PROBE_AT_UFUNC:
		return plan_ufunc_inline_class(p, timer);
	default:
		return CALIB_NONE;
	}
}

/* sc_param()'s string of a syscall's arguments, plan_params_fn's format */
struct sc_params {
	char buf[1024];
	size_t used;
};

/* one argument of a syscalls:sys_enter_NAME format (its __syscall_nr
 * left out): "NAME:FMT:TYPE;" */
static int sc_param(const char *name, const struct plan_tp_field_info *fi,
		    void *ctx)
{
	struct sc_params *s = ctx;
	int n;

	if (!strcmp(name, "__syscall_nr") || s->used >= sizeof(s->buf))
		return 0;
	if (strchr(fi->type, '*'))
		n = snprintf(s->buf + s->used, sizeof(s->buf) - s->used,
			     ";%s:p:%s", name, fi->type);
	else
		n = snprintf(s->buf + s->used, sizeof(s->buf) - s->used,
			     ";%s:%c%u:%s", name, fi->is_signed ? 's' : 'u',
			     (unsigned int)fi->size, fi->type);
	s->used += n > 0 ? (size_t)n : 0;
	return 0;
}

/*
 * The syscall a span timer @id starts at (its start action on
 * syscalls:sys_enter_NAME, raw or not): its event, or NULL.
 */
static const char *span_syscall(const struct plan *p, uint32_t id)
{
	uint32_t i, k, n;

	for (i = 0; i < p->natt; i++) {
		const struct plan_att *a = &p->att[i];

		if (!a->category || !a->event || strcmp(a->category, "syscalls") ||
		    strncmp(a->event, "sys_enter_", 10))
			continue;
		for (k = a->action, n = 0; k != IPROF_NO_NEXT && n++ < p->nactions;
		     k = p->actions[k].next)
			if (p->actions[k].timer == id &&
			    p->actions[k].role == IPROF_ROLE_START)
				return a->event;
	}
	return NULL;
}

/*
 * plan_params() - env->params' names and types of each kernel function
 * timer's arguments into its plan_timer.params (a function without BTF
 * keeps NULL); a syscall span's from its sys_enter event's format, its
 * return value a long (--slowest shows them by name, and only as many as
 * the syscall takes).  Returns 0 or -ENOMEM.
 */
static int plan_params(struct plan *p, const struct plan_env *env)
{
	struct sc_params s;
	const char *ev;
	uint32_t i;

	for (i = 0; i < p->ntimers; i++) {
		struct plan_timer *t = &p->timers[i];

		if (t->error)
			continue;
		if (probe_kind_at(t->kind) == PROBE_AT_SPAN && env->tracefs &&
		    (ev = span_syscall(p, i))) {
			snprintf(s.buf, sizeof(s.buf), ":s8:long");
			s.used = strlen(s.buf);
			if (plan_tp_fields(env->tracefs, "syscalls", ev,
					   sc_param, &s) == 0 &&
			    !(t->params = strdup(s.buf)))
				return -ENOMEM;
			continue;
		}
		if (!env->params || !t->func ||
		    probe_kind_at(t->kind) != PROBE_AT_KFUNC)
			continue;
		if (env->params(env->arg_ctx, t->func, &t->params) == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

int plan_build(struct plan *p, const struct probe_list *pl,
	       const struct plan_env *env)
{
	const char *tracefs = env->tracefs;
	struct hsearch_data ht = { 0 };
	struct ksyms ks = { 0 };
	int err = 0, id, made = 0;
	uint32_t i, nglobs = 0;
	size_t scanned = 0;
	char filter[4096];

	memset(p, 0, sizeof(*p));
	p->pn = planner_new();
	if (!p->pn)
		return -ENOMEM;
	for (i = 0; i < pl->n; i++)
		if (shape_of(&pl->v[i])->ksyms)
			break;
	if (i < pl->n) {
		snprintf(filter, sizeof(filter),
			 "%s/available_filter_functions", tracefs ? tracefs : "");
		err = ksyms_load(&ks, env->kallsyms, tracefs ? filter : NULL);
		if (err) {
			planner_free(p->pn);
			p->pn = NULL;
			return err;
		}
	}
	for (i = 0; i < pl->n; i++)
		nglobs += plan_has_glob(pl->v[i].func);
	if (nglobs) {
		/* names of the lines and of every timer a glob may add */
		if (!hcreate_r(pl->n + (size_t)PLAN_MAX_GLOB *
					       (nglobs < PLAN_MAX_GLOB_LINES ?
							nglobs :
							PLAN_MAX_GLOB_LINES),
			       &ht))
			err = -ENOMEM;
		made = !err;
		for (i = 0; i < pl->n && !err; i++)
			if (!plan_has_glob(pl->v[i].name))
				err = plan_name_add(&ht, pl->v[i].name);
	}
	for (i = 0, nglobs = 0; i < pl->n && !err; i++) {
		const struct probe *pr = &pl->v[i];
		const struct plan_shape *sh = shape_of(pr);

		if (plan_has_glob(pr->func) && ++nglobs > PLAN_MAX_GLOB_LINES) {
			err = plan_add_failed(p, sh, pr,
					 plan_perr(pr, pr->start.col, "more than %d glob lines in all: name the functions",
						   PLAN_MAX_GLOB_LINES));
			continue;
		}
		if (plan_has_glob(pr->func) && strcmp(pr->name, pr->func)) {
			/* 'as' names one timer; it would be dropped */
			err = plan_add_failed(p, sh, pr,
					 plan_perr(pr, pr->name_col, "'as %s' names one timer: a glob makes one per function, each named by its function",
						   pr->name));
			continue;
		}
		if (plan_has_glob(pr->func) && sh->glob) {
			err = sh->glob(p, pl, pr, env, &ks, &ht, &scanned);
			continue;
		}
		id = plan_add_timer(p, sh, pr, pr->name,
			       sh->tracepoints ? NULL : pr->func);
		if (id < 0)
			err = -ENOMEM;
		else
			err = sh->plan(p, pr, (uint32_t)id, env, &ks);
	}
	ksyms_free(&ks);
	inl_forget();
	if (made)
		hdestroy_r(&ht);
	if (!err) {
		p->uregs = env->uregs;
		p->shstk_pid = env->shstk_pid;
		err = plan_split(p);
	}
	if (!err) {
		plan_emu(p, env);
		plan_pclass(p);
		err = plan_params(p, env);
	}
	planner_free(p->pn);
	p->pn = NULL;
	if (err)
		plan_free(p);
	return err;
}
