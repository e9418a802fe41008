// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan.c - resolve a probe list into timers, BPF actions and attachments.
 * See include/iprof/plan.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/plan.h"

/*
 * One line of an event's format file looks like
 *   "\tfield:unsigned int cmd;\toffset:24;\tsize:8;\tsigned:0;"
 * (Documentation/trace/events.rst).  The field name is the last word of the
 * declaration, with any [N] array suffix.
 */
static int parse_format_line(const char *line, char *name, size_t name_len,
			     unsigned *off, unsigned *size, int *is_signed,
			     int *is_array)
{
	const char *decl, *semi, *end, *w;
	size_t n;

	decl = strstr(line, "field:");
	if (!decl)
		return -1;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return -1;
	end = semi;
	*is_array = 0;
	if (end > decl && end[-1] == ']') {
		*is_array = 1;
		while (end > decl && *end != '[')
			end--;
	}
	w = end;
	while (w > decl && w[-1] != ' ' && w[-1] != '*')
		w--;
	n = (size_t)(end - w);
	if (!n || n >= name_len)
		return -1;
	memcpy(name, w, n);
	name[n] = '\0';
	if (sscanf(semi, "; offset:%u; size:%u; signed:%d;", off, size,
		   is_signed) != 3 &&
	    sscanf(semi, ";\toffset:%u;\tsize:%u;\tsigned:%d;", off, size,
		   is_signed) != 3)
		return -1;
	return 0;
}

int plan_tp_field(const char *tracefs, const char *cat, const char *event,
		  const char *field, uint16_t *off, uint8_t *size,
		  uint8_t *is_signed, char *fields, size_t fields_len)
{
	char path[PATH_MAX], line[512], name[128];
	unsigned o, sz;
	int sg, arr, ret = -ESRCH;
	size_t used = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, cat,
		 event);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	if (fields && fields_len)
		fields[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (parse_format_line(line, name, sizeof(name), &o, &sz, &sg,
				      &arr))
			continue;
		if (!strncmp(name, "common_", 7))
			continue;
		if (!field || strcmp(name, field)) {
			if (fields && used + strlen(name) + 3 < fields_len)
				used += (size_t)snprintf(fields + used,
						 fields_len - used, "%s%s",
						 used ? ", " : "", name);
			continue;
		}
		if (arr || (sz != 1 && sz != 2 && sz != 4 && sz != 8) ||
		    o > 0xfff) {
			ret = -EINVAL;
			break;
		}
		*off = (uint16_t)o;
		*size = (uint8_t)sz;
		*is_signed = (uint8_t)!!sg;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Append "if a == 1 && b & 0x4" for @pt to @buf. */
static void cond_str(char *buf, size_t len, const struct probe_point *pt)
{
	size_t used = strlen(buf);
	int i;

	for (i = 0; i < pt->ncond && used < len; i++) {
		const struct probe_cond *c = &pt->cond[i];
		char arg[16];

		if (c->arg >= 0)
			snprintf(arg, sizeof(arg), "arg%d", c->arg);
		used += (size_t)snprintf(buf + used, len - used,
				 "%s%s %s %#llx", i ? " && " : " if ",
				 c->arg >= 0 ? arg : c->field,
				 probe_op_str(c->op),
				 (unsigned long long)c->value);
	}
}

static char *describe(const struct probe *pr)
{
	char a[512] = "", b[512] = "";

	switch (pr->kind) {
	case PROBE_SPAN:
		snprintf(a, sizeof(a), "tracepoint:%s:%s", pr->start.category,
			 pr->start.event);
		cond_str(a, sizeof(a), &pr->start);
		snprintf(b, sizeof(b), "tracepoint:%s:%s", pr->stop.category,
			 pr->stop.event);
		cond_str(b, sizeof(b), &pr->stop);
		return xasprintf("%s -> %s", a, b);
	case PROBE_UPROBE:
		snprintf(a, sizeof(a), "uprobe:%s:%s", pr->path, pr->func);
		break;
	default:
		snprintf(a, sizeof(a), "%s:%s", probe_kind_str(pr->kind),
			 pr->func);
		break;
	}
	cond_str(a, sizeof(a), &pr->start);
	return xasprintf("%s", a);
}

static int add_action(struct plan *p, uint32_t timer, uint8_t role,
		      uint8_t flags, uint32_t *idx)
{
	struct iprof_action *v, *a;

	v = realloc(p->actions, (p->nactions + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->actions = v;
	a = &v[p->nactions];
	memset(a, 0, sizeof(*a));
	a->timer = timer;
	a->role = role;
	a->flags = flags;
	a->next = IPROF_NO_NEXT;
	*idx = p->nactions++;
	return 0;
}

/*
 * A tracepoint takes a BPF program once, so a second use of the same
 * tracepoint joins the chain of actions of the first one's attachment:
 * stops first (a stop and a start on one event close one timer, then open
 * the next), innermost first (reverse file order), then starts in file
 * order.  Returns 1 if chained, 0 if @ev is new, or
 * -E2BIG past IPROF_MAX_CHAIN actions.
 */
static int chain_tp(struct plan *p, uint32_t action, const char *cat,
		    const char *ev)
{
	struct iprof_action *a = &p->actions[action];
	uint32_t i, *link, n = 0;

	for (i = 0; i < p->natt; i++) {
		if (p->att[i].mech != MECH_TRACEPOINT ||
		    strcmp(p->att[i].category, cat) || strcmp(p->att[i].event, ev))
			continue;
		link = &p->att[i].action;
		for (i = *link; i != IPROF_NO_NEXT; i = p->actions[i].next)
			n++;
		/* a start goes last; a stop goes first, before the stops of
		 * timers defined earlier: those started earlier on the same
		 * event, so they are further down the stack */
		if (a->role == IPROF_ROLE_START)
			while (*link != IPROF_NO_NEXT)
				link = &p->actions[*link].next;
		if (n + 1 > IPROF_MAX_CHAIN)
			return -E2BIG;
		a->next = *link;
		*link = action;
		return 1;
	}
	return 0;
}

static int add_att(struct plan *p, enum plan_mech mech, uint32_t timer,
		   uint32_t action, const char *cat, const char *ev,
		   const char *path, const char *func)
{
	struct plan_att *v, *t;
	int ret;

	if (mech == MECH_TRACEPOINT) {
		ret = chain_tp(p, action, cat, ev);
		if (ret)
			return ret < 0 ? ret : 0;
	}

	v = realloc(p->att, (p->natt + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->att = v;
	t = &v[p->natt];
	memset(t, 0, sizeof(*t));
	t->mech = mech;
	t->timer = timer;
	t->action = action;
	if ((cat && !(t->category = strdup(cat))) ||
	    (ev && !(t->event = strdup(ev))) ||
	    (path && !(t->path = strdup(path))) ||
	    (func && !(t->func = strdup(func)))) {
		free(t->category);
		free(t->event);
		free(t->path);
		free(t->func);
		return -ENOMEM;
	}
	p->natt++;
	return 0;
}

/*
 * Resolve the conditions of one side into @a.  Returns NULL on success, or
 * an error message (malloc'ed; NULL-on-ENOMEM is reported as "out of memory"
 * by the caller's check of errno).
 */
static char *resolve_conds(const char *tracefs, const struct probe *pr,
			   const struct probe_point *pt, int tracepoint,
			   struct iprof_action *a)
{
	char fields[512];
	int i, err;

	a->ncond = (uint8_t)pt->ncond;
	for (i = 0; i < pt->ncond; i++) {
		const struct probe_cond *c = &pt->cond[i];
		struct iprof_cond *k = &a->cond[i];

		k->op = (uint8_t)c->op;
		k->val = c->value;
		if (c->arg >= 0) {
			if (tracepoint)
				return xasprintf("%s:%d:%d: argN is for function probes; a tracepoint condition names a field of %s:%s",
						 pr->file, pr->line, c->col,
						 pt->category, pt->event);
			if (c->arg > 5)
				return xasprintf("%s:%d:%d: arg%d: only arg0..arg5 (passed in registers) can be tested",
						 pr->file, pr->line, c->col,
						 c->arg);
			k->src = IPROF_SRC_ARG;
			k->off = (uint16_t)c->arg;
			k->size = 8;
			/* arguments compare as signed 64-bit: a negative VALUE
			 * in the probe file means what it says */
			k->is_signed = 1;
			continue;
		}
		if (!tracepoint)
			return xasprintf("%s:%d:%d: '%s': conditions on function probes name arguments as argN (arg0 is the first)",
					 pr->file, pr->line, c->col, c->field);
		k->src = IPROF_SRC_TP;
		err = plan_tp_field(tracefs, pt->category, pt->event, c->field,
				    &k->off, &k->size, &k->is_signed, fields,
				    sizeof(fields));
		if (err == -ESRCH)
			return xasprintf("%s:%d:%d: tracepoint %s:%s has no field '%s' (its fields: %s)",
					 pr->file, pr->line, c->col,
					 pt->category, pt->event, c->field,
					 fields);
		if (err == -EINVAL)
			return xasprintf("%s:%d:%d: field '%s' of %s:%s is an array or not 1, 2, 4 or 8 bytes: it cannot be compared",
					 pr->file, pr->line, c->col, c->field,
					 pt->category, pt->event);
		if (err)
			return xasprintf("%s:%d:%d: tracepoint %s:%s not found (%s/events/%s/%s/format: %s)",
					 pr->file, pr->line, pt->col,
					 pt->category, pt->event, tracefs,
					 pt->category, pt->event,
					 strerror(-err));
	}
	return NULL;
}

static char *check_tp(const char *tracefs, const struct probe *pr,
		      const struct probe_point *pt)
{
	char path[PATH_MAX];
	FILE *f;

	if (!tracefs)
		return xasprintf("%s:%d:%d: tracepoint %s:%s: tracefs is not mounted (mount -t tracefs tracefs /sys/kernel/tracing)",
				 pr->file, pr->line, pt->col, pt->category,
				 pt->event);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs,
		 pt->category, pt->event);
	f = fopen(path, "r");
	if (!f)
		return xasprintf("%s:%d:%d: tracepoint %s:%s not found (%s: %s)",
				 pr->file, pr->line, pt->col, pt->category,
				 pt->event, path, strerror(errno));
	fclose(f);
	return NULL;
}

static int has_glob(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

static int plan_probe(struct plan *p, const struct probe *pr, uint32_t id,
		      const char *tracefs)
{
	struct plan_timer *t = &p->timers[id];
	uint32_t start, stop;
	char *msg = NULL;
	int err;

	if (pr->kind == PROBE_SPAN) {
		msg = check_tp(tracefs, pr, &pr->start);
		if (!msg)
			msg = check_tp(tracefs, pr, &pr->stop);
	} else if (has_glob(pr->func)) {
		msg = xasprintf("%s:%d:%d: '%s': function globs are not supported yet; name each function",
				pr->file, pr->line, pr->start.col, pr->func);
	}
	if (msg) {
		t->error = msg;
		return 0;
	}

	/* spans do not nest in themselves: see IPROF_A_NO_REENTER */
	err = add_action(p, id, IPROF_ROLE_START,
			 pr->kind == PROBE_SPAN ? IPROF_A_NO_REENTER : 0,
			 &start);
	if (!err)
		err = add_action(p, id, IPROF_ROLE_STOP,
				 pr->start.ncond ? IPROF_A_UNMATCHED_OK : 0,
				 &stop);
	if (err)
		return err;
	msg = resolve_conds(tracefs, pr, &pr->start, pr->kind == PROBE_SPAN,
			    &p->actions[start]);
	if (!msg && pr->kind == PROBE_SPAN)
		msg = resolve_conds(tracefs, pr, &pr->stop, 1,
				    &p->actions[stop]);
	if (msg) {
		t->error = msg;
		/* the actions stay, unused: no attachment refers to them */
		return 0;
	}

	switch (pr->kind) {
	case PROBE_SPAN:
		err = add_att(p, MECH_TRACEPOINT, id, start,
			      pr->start.category, pr->start.event, NULL, NULL);
		if (!err)
			err = add_att(p, MECH_TRACEPOINT, id, stop,
				      pr->stop.category, pr->stop.event, NULL,
				      NULL);
		if (err == -E2BIG) {
			t->error = xasprintf("%s:%d: span %s: more than %d timers use one tracepoint",
					     pr->file, pr->line, pr->name,
					     IPROF_MAX_CHAIN);
			return 0;
		}
		break;
	case PROBE_UPROBE:
		err = add_att(p, MECH_UPROBE, id, start, NULL, NULL, pr->path,
			      pr->func);
		if (!err)
			err = add_att(p, MECH_URETPROBE, id, stop, NULL, NULL,
				      pr->path, pr->func);
		break;
	default:
		err = add_att(p, MECH_FUNC_ENTRY, id, start, NULL, NULL, NULL,
			      pr->func);
		if (!err)
			err = add_att(p, MECH_FUNC_RETURN, id, stop, NULL, NULL,
				      NULL, pr->func);
		break;
	}
	return err;
}

int plan_build(struct plan *p, const struct probe_list *pl,
	       const char *tracefs)
{
	uint32_t i;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (!pl->n)
		return 0;
	p->timers = calloc(pl->n, sizeof(*p->timers));
	if (!p->timers)
		return -ENOMEM;
	p->ntimers = (uint32_t)pl->n;
	for (i = 0; i < p->ntimers && !err; i++) {
		const struct probe *pr = &pl->v[i];
		struct plan_timer *t = &p->timers[i];

		t->probe = pr;
		t->kind = pr->kind;
		t->name = strdup(pr->name);
		t->where = describe(pr);
		if (!t->name || !t->where)
			err = -ENOMEM;
		else
			err = plan_probe(p, pr, i, tracefs);
	}
	if (err)
		plan_free(p);
	return err;
}

void plan_free(struct plan *p)
{
	uint32_t i;

	if (!p)
		return;
	for (i = 0; i < p->ntimers; i++) {
		free(p->timers[i].name);
		free(p->timers[i].where);
		free(p->timers[i].error);
	}
	for (i = 0; i < p->natt; i++) {
		free(p->att[i].category);
		free(p->att[i].event);
		free(p->att[i].path);
		free(p->att[i].func);
	}
	free(p->timers);
	free(p->actions);
	free(p->att);
	memset(p, 0, sizeof(*p));
}
