// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_usdt.c - a span's user sides: USDT probes
 * (usdt:PATH[:PROVIDER]:NAME): the binary resolved as a uprobe's, the
 * probe checked against its SDT notes (include/iprof/usdt.h), conditions
 * on its arguments, and its attachment (MECH_USDT: libbpf attaches it,
 * src/kernel/attach_usdt.c).  A USDT probe is a point, as a tracepoint:
 * no return, so it is a side of a span, not a timer of its own.  And a
 * user function's entry or return as such a point (uprobe:PATH:FUNC,
 * uretprobe:PATH:FUNC: MECH_UPROBE, MECH_URETPROBE, IPROF_AX_POINT).
 * See src/probe/plan_int.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/plan.h"
#include "iprof/sym.h"
#include "iprof/usdt.h"

#include "probe/plan_int.h"

/* bpf_usdt_arg() reads at most this many (BPF_USDT_MAX_ARG_CNT) */
#define USDT_MAX_ARGS 12

/*
 * The condition @c on argument c->arg (checked in range) into @k: the
 * whole argument as a signed 64-bit value, or as its argN:TYPE says
 * (bpf_usdt_arg() extends a USDT argument as its spec says, -4@: a signed
 * int; a uprobe side's is the whole register).  NULL, or the error for a
 * VALUE out of the type's range (malloc'ed).
 */
static char *arg_cond(const struct probe *pr, const struct probe_cond *c,
		      struct iprof_cond *k)
{
	char what[32], type[16];

	k->src = IPROF_SRC_ARG;
	k->off = (uint16_t)c->arg;
	k->size = 8;
	k->is_signed = 1;
	if (!c->has_type)
		return NULL;
	k->size = (uint8_t)c->width;
	k->is_signed = (uint8_t)c->is_signed;
	if (plan_fit_value(&k->val, k->size, k->is_signed)) {
		snprintf(what, sizeof(what), "arg%d", c->arg);
		snprintf(type, sizeof(type), "%c%d", c->is_signed ? 's' : 'u',
			 c->width * 8);
		return plan_range_error(pr, c, what, type, k->size);
	}
	return NULL;
}

char *plan_usdt_cond(const struct probe *pr, const struct probe_point *pt,
		     const struct probe_cond *c, struct iprof_cond *k)
{
	(void)pt;
	if (c->arg >= 0 && c->arg < USDT_MAX_ARGS)
		return arg_cond(pr, c, k);
	/* a name, or an argN past any probe's: its probe's notes say
	 * which it has as it is attached (check_args()) */
	k->src = IPROF_SRC_ARG;
	k->size = 8;
	k->is_signed = 1;
	return NULL;
}

/* "span S: PATH has no USDT probe P:N (its probes: ...); did you mean
 * ...?" or the ambiguity of a NAME of several providers */
static char *missing(const struct probe *pr, const struct probe_point *pt,
		     const char *path, const struct usdt_note *v, size_t n,
		     int nprov)
{
	char list[1024], hint[320];

	usdt_probe_list(v, n, list, sizeof(list));
	if (nprov > 1)
		return plan_perr(pr, pt->col, "span %s: %s has probe %s in %d providers: name one (usdt:%s:PROVIDER:%s; its probes: %s)",
				 pr->name, path, pt->event, nprov, pt->usdt,
				 pt->event, list);
	if (!n)
		return plan_perr(pr, pt->col, "span %s: %s has no USDT probes (no .note.stapsdt section)",
				 pr->name, path);
	usdt_suggest(v, n, pt->event, hint, sizeof(hint));
	return plan_perr(pr, pt->col, "span %s: %s has no USDT probe %s%s%s (its probes: %s)%s",
			 pr->name, path, pt->category ? pt->category : "",
			 pt->category ? ":" : "", pt->event, list, hint);
}

/* does @c name an argument USDT probe @u does not pass: an argN past its
 * arguments (or past what bpf_usdt_arg() reads), or a name (its
 * arguments have none)? */
static int arg_absent(const struct probe_cond *c, const struct usdt_note *u)
{
	return c->arg < 0 || c->arg >= u->nargs || c->arg >= USDT_MAX_ARGS;
}

/* "@pre argN: USDT probe P:N has K arguments (SPECS)" for clause @c of
 * @pr (argN inside str() where @str), or "'FIELD'" for a name, with how
 * its arguments are named */
static char *arg_error(const struct probe *pr, const struct probe_cond *c,
		       const struct usdt_note *u, const char *pre, int str)
{
	char what[160];

	if (c->arg >= 0)
		snprintf(what, sizeof(what), "%s%sarg%d%s", pre,
			 str ? "str(" : "", c->arg, str ? ")" : "");
	else
		snprintf(what, sizeof(what), "%s%s'%s'%s", pre,
			 str ? "str(" : "", c->field ? c->field : "",
			 str ? ")" : "");
	if (c->arg < 0 && u->nargs == 1)
		return plan_perr(pr, c->col, "%s: USDT probe %s:%s has 1 argument (%s), named arg0",
				 what, u->provider, u->name, u->args);
	if (c->arg < 0 && u->nargs)
		return plan_perr(pr, c->col, "%s: USDT probe %s:%s has %d arguments (%s), named arg0..arg%d",
				 what, u->provider, u->name, u->nargs, u->args,
				 u->nargs - 1);
	return plan_perr(pr, c->col, "%s: USDT probe %s:%s has %d argument%s (%s)",
			 what, u->provider, u->name, u->nargs,
			 u->nargs == 1 ? "" : "s", u->nargs ? u->args : "none");
}

/* the conditions of @pt name arguments its probe @u has, and so do the
 * name its start reads and each stop's: NULL or the error */
static char *check_args(const struct probe *pr, const struct probe_point *pt,
			const struct usdt_note *u)
{
	const struct probe_cond *c;
	int i;

	for (i = 0; i < pt->ncond; i++)
		if (arg_absent(&pt->cond[i], u))
			return arg_error(pr, &pt->cond[i], u, "", 0);
	if (pt == &pr->start && pr->named && arg_absent(&pr->name_src, u))
		return arg_error(pr, &pr->name_src, u, "name ",
				 pr->name_parts != 0);
	if (pt == &pr->start && pr->name_parts > 1 &&
	    arg_absent(&pr->name_src2, u))
		return arg_error(pr, &pr->name_src2, u, "name ", 1);
	if (pt == &pr->start || !pr->stop_named)
		return NULL;
	c = arg_absent(&pr->stop_src, u) ? &pr->stop_src :
	    pr->name_parts > 1 && arg_absent(&pr->stop_src2, u) ?
					   &pr->stop_src2 :
					   NULL;
	return c ? arg_error(pr, c, u, "stop ", pr->name_parts != 0) : NULL;
}

int plan_usdt_att(struct plan *p, const struct probe *pr, uint32_t id,
		  uint32_t action, const struct probe_point *pt)
{
	char err[PATH_MAX + 256], *path = NULL, *msg = NULL;
	struct usdt_note *v = NULL;
	size_t n = 0;
	int ret, nprov = 0;
	long i = -1;

	ret = sym_cache_resolve_path(p->pn->syms, pt->usdt, &path, err,
				     sizeof(err));
	if (!ret)
		ret = usdt_notes_read(path, &v, &n, err, sizeof(err));
	if (ret == -ENOMEM)
		goto out;
	if (ret)
		msg = plan_perr(pr, pt->col, "span %s: %s", pr->name, err);
	else
		i = usdt_find(v, n, pt->category, pt->event, &nprov);
	if (!ret && (i < 0 || (!pt->category && nprov > 1)))
		msg = missing(pr, pt, path, v, n, nprov);
	else if (!ret) {
		msg = check_args(pr, pt, &v[i]);
		/* an argument the probe does not pass: a typo, as a field
		 * a tracepoint lacks (plan_timer.missing) */
		p->timers[id].missing = msg != NULL;
	}
	ret = 0;
	if (msg || (!msg && i < 0)) {
		p->timers[id].error = msg ? msg : plan_asprintf("out of memory");
		goto out;
	}
	/* the provider the note names where the line left it out:
	 * libbpf attaches by both */
	ret = plan_add_att(p, MECH_USDT, id, action, v[i].provider,
			   v[i].name, path, NULL, v[i].pc);
out:
	usdt_notes_free(v, n);
	free(path);
	return ret;
}

char *plan_uside_cond(const struct probe *pr, const struct probe_point *pt,
		      const struct probe_cond *c, struct iprof_cond *k)
{
	if (pt->ret && c->arg >= 0)
		return plan_perr(pr, c->col, "arg%d: a uretprobe side (%s) fires after the return: its arguments are gone; put the condition on the start",
				 c->arg, pt->event);
	if (pt->ret)
		return plan_perr(pr, c->col, "'%s': a uretprobe side (%s) fires after the return: its arguments are gone; put the condition on the start",
				 c->field, pt->event);
	if (c->arg < 0)
		return plan_perr(pr, c->col, "'%s': conditions on a uprobe side (%s) name its arguments as argN (arg0 is the first)",
				 c->field, pt->event);
	if (c->arg > 5)
		return plan_perr(pr, c->col, "arg%d: only arg0..arg5 (passed in registers) can be tested",
				 c->arg);
	return arg_cond(pr, c, k);
}

int plan_uside_att(struct plan *p, const struct probe *pr, uint32_t id,
		   uint32_t action, const struct probe_point *pt)
{
	char err[PATH_MAX + 512], *path = NULL, *msg = NULL;
	struct sym_target *v = NULL;
	size_t n = 0, i;
	uint32_t a = action;
	int ret, infunc;

	ret = sym_cache_resolve_path(p->pn->syms, pt->uprobe, &path, err,
				     sizeof(err));
	infunc = !ret;
	if (!ret)
		ret = sym_cache_targets(p->pn->syms, path, pt->event, &v, &n,
					err, sizeof(err));
	for (i = 0; !ret && i < n; i++)
		ret = sym_cache_insn_check(p->pn->syms, path, v[i].offset, err,
					   sizeof(err));
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		/* the function's problem, not the file's: point at FUNC */
		int col = pt->col + (pt->ret ? 10 : 7);

		if (infunc && (ret == -ENOENT || ret == -ENOTUNIQ ||
			       ret == -EOPNOTSUPP))
			col += (int)strlen(pt->uprobe) + 1;
		msg = plan_perr(pr, col, "span %s: %s", pr->name, err);
		p->timers[id].error = msg ? msg : plan_asprintf("out of memory");
		p->timers[id].missing = ret == -ENOENT;
		ret = 0;
		goto out;
	}
	/* each entry (versions, clones) its own copy of the action: an
	 * action is in one chain only */
	for (i = 0; !ret && i < n; i++) {
		if (i)
			ret = plan_clone_action(p, action, &a);
		if (!ret) {
			p->actions[a].xflags |= IPROF_AX_POINT;
			ret = plan_add_att(p, pt->ret ? MECH_URETPROBE :
							MECH_UPROBE,
					   id, a, NULL, NULL, path, v[i].name,
					   v[i].offset);
		}
	}
out:
	sym_targets_free(v, n);
	free(path);
	return ret;
}
