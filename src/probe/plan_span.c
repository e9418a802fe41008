// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_span.c - the span shape: between two points (tracepoints, USDT
 * probes, user functions' entries or returns), keyed or not.
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

#include "iprof/calib_cost.h"
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
/* The pseudo-fields a key may name where its tracepoint has no such field. */
static const struct {
	const char *name;
	enum iprof_key_src src;
	const char *what; /* for messages: "EVENT's pid is the current tgid" */
} key_pseudo[] = {
	{"pid", IPROF_KEY_PID, "the current tgid"},
	{"tid", IPROF_KEY_TID, "the current thread id"},
	{"cpu", IPROF_KEY_CPU, "the current CPU"},
};

/* Bytes of a pseudo-field: an unsigned 32-bit value */
#define KEY_PSEUDO_SIZE 4

/*
 * plan_key_str() - @pr's key as text, normalized: "dev,sector", "pid=next_pid"
 * (=B only where B differs from A).  malloc'ed; NULL when out of memory
 * (or @pr is not keyed).
 */
static char *plan_key_str(const struct probe *pr)
{
	size_t len = 1, used = 0;
	char *s;
	int i;

	if (!pr->nkey)
		return NULL;
	for (i = 0; i < pr->nkey; i++)
		len += strlen(pr->key[i].start) + strlen(pr->key[i].stop) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	for (i = 0; i < pr->nkey; i++) {
		const struct probe_key *k = &pr->key[i];

		used += (size_t)snprintf(s + used, len - used, "%s%s", i ? "," : "",
					 k->start);
		if (strcmp(k->start, k->stop))
			used += (size_t)snprintf(s + used, len - used, "=%s",
						 k->stop);
	}
	return s;
}

/*
 * One side of a key field: @name of tracepoint @pt (its format file under
 * @tracefs) into @kf, its C type (or what a pseudo-field reads) into
 * @type (@type_len bytes).  A field of the tracepoint wins over a
 * pseudo-field of the same name.  NULL, or the error (as plan_perr(), at
 * column @col, "span NAME: key A: ...").
 */
static char *resolve_key_side(const char *tracefs, const struct probe *pr,
			      const struct probe_key *k,
			      const struct probe_point *pt, const char *name,
			      int col, struct iprof_keyf *kf, char *type,
			      size_t type_len)
{
	struct plan_tp_field_info fi;
	char fields[512];
	size_t i;
	int err;

	memset(kf, 0, sizeof(*kf));
	err = plan_tp_field(tracefs, pt->category, pt->event, name, &fi,
			    fields, sizeof(fields));
	if (!err) {
		kf->src = IPROF_KEY_TP;
		kf->off = fi.off;
		kf->size = fi.size;
		snprintf(type, type_len, "%s", fi.type);
		return NULL;
	}
	if (err == -ESRCH)
		for (i = 0; i < sizeof(key_pseudo) / sizeof(key_pseudo[0]); i++)
			if (!strcmp(name, key_pseudo[i].name)) {
				kf->src = (iprof_u8)key_pseudo[i].src;
				kf->size = KEY_PSEUDO_SIZE;
				snprintf(type, type_len, "%s",
					 key_pseudo[i].what);
				return NULL;
			}
	if (err == -ESRCH)
		return plan_perr(pr, col, "span %s: key %s: tracepoint %s:%s has no field '%s' (its fields: %s; pseudo-fields: pid, tid, cpu)",
			    pr->name, k->start, pt->category, pt->event, name,
			    fields[0] ? fields : "none");
	if (err == -EINVAL && fi.is_string)
		return plan_perr(pr, col, "span %s: key %s: field '%s' of %s:%s is a string (%s): a key is made of numbers",
			    pr->name, k->start, name, pt->category, pt->event,
			    fi.type);
	if (err == -EINVAL && fi.is_array)
		return plan_perr(pr, col, "span %s: key %s: field '%s' of %s:%s is an array (%s): a key is made of numbers",
			    pr->name, k->start, name, pt->category, pt->event,
			    fi.type);
	if (err == -EINVAL)
		return plan_perr(pr, col, "span %s: key %s: field '%s' of %s:%s (%s) is %u bytes: a key field is of 1, 2, 4 or 8 bytes",
			    pr->name, k->start, name, pt->category, pt->event,
			    fi.type, (unsigned int)fi.slot);
	return plan_perr(pr, pt->col, "span %s: tracepoint %s:%s not found (%s/events/%s/%s/format: %s)",
		    pr->name, pt->category, pt->event, tracefs, pt->category,
		    pt->event, strerror(-err));
}

/* is @name a field of tracepoint side @pt, or a pseudo-field (a key may
 * name it)?  0 only where tracefs says the event has no such field */
static int key_field_there(const char *tracefs, const struct probe_point *pt,
			   const char *name)
{
	struct plan_tp_field_info fi;
	char fields[512];
	size_t i;

	if (plan_tp_field(tracefs, pt->category, pt->event, name, &fi, fields,
			  sizeof(fields)) != -ESRCH)
		return 1;
	for (i = 0; i < sizeof(key_pseudo) / sizeof(key_pseudo[0]); i++)
		if (!strcmp(name, key_pseudo[i].name))
			return 1;
	return 0;
}

/* 1 if a key field of span @pr names a field its side's tracepoint does
 * not have, nor a pseudo-field (pid, tid, cpu): a typo, as a field of a
 * condition (plan_timer.missing) */
static int key_absent(const char *tracefs, const struct probe *pr)
{
	int i;

	for (i = 0; i < pr->nkey; i++)
		if (!key_field_there(tracefs, &pr->start, pr->key[i].start) ||
		    !key_field_there(tracefs, &pr->stop, pr->key[i].stop))
			return 1;
	return 0;
}

/*
 * The key of keyed span @pr into its start action @a and stop action @b
 * (nkey, key[]): each field from its side's tracepoint or a
 * pseudo-field, both sides of one width (signedness may differ: BPF
 * compares the zero-extended bytes).  NULL, or the error (as plan_perr()).
 */
static char *plan_resolve_keys(const char *tracefs, const struct probe *pr,
			  struct iprof_action *a, struct iprof_action *b)
{
	char ta[80], tb[80], *msg;
	int i;

	for (i = 0; i < pr->nkey; i++) {
		const struct probe_key *k = &pr->key[i];

		msg = resolve_key_side(tracefs, pr, k, &pr->start, k->start,
				       k->col, &a->key[i], ta, sizeof(ta));
		if (!msg)
			msg = resolve_key_side(tracefs, pr, k, &pr->stop,
					       k->stop, k->stop_col, &b->key[i],
					       tb, sizeof(tb));
		if (msg)
			return msg;
		if (a->key[i].size != b->key[i].size)
			return plan_perr(pr, k->col, "span %s: key %s: %s's %s is %s (%u byte%s), %s's %s is %s (%u byte%s): the two sides of a key field must be of one width",
				    pr->name, k->start, pr->start.event,
				    k->start, ta, a->key[i].size,
				    a->key[i].size == 1 ? "" : "s",
				    pr->stop.event, k->stop, tb,
				    b->key[i].size,
				    b->key[i].size == 1 ? "" : "s");
	}
	a->nkey = b->nkey = (iprof_u8)pr->nkey;
	return NULL;
}

/* is tracepoint side @pt absent from the mounted @tracefs (no such event
 * directory: a typo, most likely)?  A USDT side, an unmounted tracefs or
 * another error is not. */
static int tp_absent(const char *tracefs, const struct probe_point *pt)
{
	char path[PATH_MAX];
	struct stat st;

	if (!tracefs || pt->usdt || pt->uprobe)
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs, pt->category,
		 pt->event);
	return stat(path, &st) && errno == ENOENT;
}

/* is @pt a side in user code: a USDT probe, a user function's entry or
 * return (no tracepoint to check in tracefs)? */
static int user_side(const struct probe_point *pt)
{
	return pt->usdt || pt->uprobe;
}

/* span: both tracepoints exist (their conditions and keys are checked
 * with the actions); one absent from tracefs is t->missing */
static int span_plan(struct plan *p, const struct probe *pr, uint32_t id,
		     const struct plan_env *env, const struct ksyms *ks)
{
	const struct probe_point *side = NULL;
	char *msg;
	int i, err;

	(void)ks;
	msg = NULL;
	if (pr->nkey && (user_side(&pr->start) || user_side(&pr->stop)))
		msg = plan_perr(pr, pr->key[0].col, "span %s: a key matches tracepoint fields: a span with a USDT or user function side is matched on its thread",
				pr->name);
	if (!msg && !user_side(&pr->start)) {
		side = &pr->start;
		msg = plan_check_tp(env->tracefs, pr, side);
	}
	if (!msg && !user_side(&pr->stop)) {
		side = &pr->stop;
		msg = plan_check_tp(env->tracefs, pr, side);
	}
	for (i = 0; !msg && i < pr->nalt; i++)
		if (!user_side(&pr->alt[i])) {
			side = &pr->alt[i];
			msg = plan_check_tp(env->tracefs, pr, side);
		}
	if (msg) {
		p->timers[id].error = msg;
		p->timers[id].missing = side && tp_absent(env->tracefs, side);
		return 0;
	}
	err = plan_actions(p, &plan_span_shape, pr, id, env, NULL);
	if (!err && p->timers[id].error && !p->timers[id].missing &&
	    pr->nkey)
		p->timers[id].missing = key_absent(env->tracefs, pr);
	return err;
}

/* action @action of timer @id on side @pt: its tracepoint or USDT probe */
static int side_att(struct plan *p, const struct probe *pr, uint32_t id,
		    const struct plan_env *env, uint32_t action,
		    const struct probe_point *pt)
{
	if (pt->uprobe)
		return plan_uside_att(p, pr, id, action, pt);
	return pt->usdt ? plan_usdt_att(p, pr, id, action, pt) :
			  plan_add_tp_att(p, env, id, action, pt);
}

/* the start on its tracepoint, the stop on its own, each alternative
 * stop on its own (its action at stop + 1 + i: plan_actions()) */
static int span_attach(struct plan *p, const struct probe *pr, uint32_t id,
		       const struct plan_env *env, uint32_t start,
		       uint32_t stop, const struct uplace *at)
{
	int err, i;

	(void)at;
	err = side_att(p, pr, id, env, start, &pr->start);
	if (!err && !p->timers[id].error)
		err = side_att(p, pr, id, env, stop, &pr->stop);
	for (i = 0; i < pr->nalt && !err && !p->timers[id].error; i++)
		err = side_att(p, pr, id, env, stop + 1 + (uint32_t)i,
			       &pr->alt[i]);
	if (err == -E2BIG) {
		p->timers[id].error = plan_asprintf("%s:%d:%d: span %s: more than %d timers use one tracepoint",
						    pr->file, pr->line,
						    pr->start.col, pr->name,
						    IPROF_MAX_CHAIN);
		return 0;
	}
	return err;
}

/* one side as written: "tracepoint:CAT:EV" or "usdt:PATH[:PROV]:NAME",
 * then its conditions */
static void side_str(char *buf, size_t len, const struct probe_point *pt)
{
	if (pt->uprobe)
		snprintf(buf, len, "%s:%s:%s", pt->ret ? "uretprobe" : "uprobe",
			 pt->uprobe, pt->event);
	else if (pt->usdt)
		snprintf(buf, len, "usdt:%s:%s%s%s", pt->usdt,
			 pt->category ? pt->category : "",
			 pt->category ? ":" : "", pt->event);
	else
		snprintf(buf, len, "tracepoint:%s:%s", pt->category,
			 pt->event);
	plan_cond_str(buf, len, pt);
}

/* "tracepoint:CAT:EV[ if ...] -> tracepoint:CAT:EV[ if ...]", each
 * alternative stop after " | " */
static char *span_describe(const struct probe *pr, const char *path,
			   const char *func, int glob)
{
	char a[PATH_MAX + 512] = "", b[PROBE_MAX_STOPS * (PATH_MAX + 520)];
	size_t used;
	int i;

	(void)path;
	(void)func;
	(void)glob;
	side_str(a, sizeof(a), &pr->start);
	side_str(b, sizeof(b), &pr->stop);
	for (i = 0; i < pr->nalt; i++) {
		used = strlen(b);
		used += (size_t)snprintf(b + used, sizeof(b) - used, " | ");
		if (used < sizeof(b))
			side_str(b + used, sizeof(b) - used, &pr->alt[i]);
	}
	return plan_asprintf("%s -> %s", a, b);
}

/* A span's class: its USDT sites' where it has one (a span from a USDT
 * site to a tracepoint: the USDT class for both sides, an approximation;
 * a user function's entry or return as a side likewise: a uprobe hit,
 * its instruction single-stepped or not),
 * else its tracepoints', or the raw syscall tracepoints' that syscall
 * spans share (MECH_SYSCALL) */
static int span_calib_class(const struct plan *p, uint32_t timer)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if (p->att[i].timer == timer &&
		    (p->att[i].mech == MECH_USDT ||
		     p->att[i].mech == MECH_UPROBE ||
		     p->att[i].mech == MECH_URETPROBE))
			return CALIB_USDT;
	for (i = 0; i < p->natt; i++)
		if (p->att[i].timer == timer)
			return p->att[i].mech == MECH_SYSCALL ? CALIB_SYSCALL :
								CALIB_TRACEPOINT;
	return CALIB_NONE;
}

const struct plan_shape plan_span_shape = {
	.tracepoints = 1,
	.plan = span_plan,
	.attach = span_attach,
	.describe = span_describe,
	.calib_class = span_calib_class,
	.key = plan_key_str,
	.keys = plan_resolve_keys,
};
