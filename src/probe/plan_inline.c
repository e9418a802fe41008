// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_inline.c - inlined instances of a function, kernel or user: one
 * pair of actions per instance, shared by the two function shapes.
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
/* the MECH_RETSITE attachment at @s of @path (NULL: the MECH_KSITE one
 * at kernel function @func, MOD:SYM, and @s's offset): its frame is found as the inlined
 * instance's site says (every site at one address has the same rule: the
 * caller's CFI there) */
static void att_key(struct plan *p, const char *path, const char *func,
		    const struct inl_site *s)
{
	uint32_t i;

	for (i = p->natt; i-- > 0;)
		if ((path && p->att[i].mech == MECH_RETSITE &&
		     p->att[i].offset == s->off &&
		     !strcmp(p->att[i].path, path)) ||
		    (!path && p->att[i].mech == MECH_KSITE &&
		     p->att[i].offset == s->symoff &&
		     !strcmp(p->att[i].func, func))) {
			p->att[i].key_reg = s->reg;
			p->att[i].key_adj = s->adj;
			p->att[i].inl = 1;
			return;
		}
}

/* append to *@w (malloc'ed) "; " and printf @fmt; 0 or -ENOMEM */
static int inl_note(char **w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int inl_note(char **w, const char *fmt, ...)
{
	char *add = NULL, *n = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = asprintf(&n, "%s%s%s", *w ? *w : "", *w ? "; " : "", add);
	free(add);
	if (r < 0)
		return -ENOMEM;
	free(*w);
	*w = n;
	return 0;
}

/* instances named in plan_timer.inl_where; the others are counted */
#define INL_LISTED 16

/* where instance @in is, for plan_timer.inl_where: "in CALLER at ADDR
 * (FILE:LINE)" (@user), a kernel module's at SYM+OFF (its addresses are
 * the debug file's layout, of no use to a reader), and @why (NULL: it
 * is timed) */
static int inl_where_add(char **w, const struct inl_inst *in, int user,
			 const char *why)
{
	char at[320] = "";

	if (in->entry.sym)
		snprintf(at, sizeof(at), " at %s+%#llx", in->entry.sym,
			 (unsigned long long)in->entry.symoff);
	else if (user)
		snprintf(at, sizeof(at), " at %#llx",
			 (unsigned long long)in->entry.addr);
	return inl_note(w, "in %s%s%s%s%s%s%s", in->caller, at,
			in->call[0] ? " (" : "", in->call,
			in->call[0] ? ")" : "", why ? ": not timed: " : "",
			why ? why : "");
}

/* the attachment of site @s of an inlined instance of timer @id: a
 * uprobe in @path at its file offset (MECH_RETSITE), or with @path NULL
 * a kprobe at MOD:SYM + offset of module @kx (MECH_KSITE) */
static int inl_att(struct plan *p, uint32_t id, uint32_t action,
		   const char *path, const struct inl_kctx *kx,
		   const struct inl_site *s)
{
	char *f = NULL;
	int err;

	if (path) {
		err = plan_add_att(p, MECH_RETSITE, id, action, NULL, NULL, path,
			      p->timers[id].func, s->off);
	} else if (!strcmp(kx->mod, "vmlinux")) {
		f = strdup(s->sym);
		err = f ? plan_add_att(p, MECH_KSITE, id, action, NULL, NULL, NULL,
				  f, s->symoff) :
			  -ENOMEM;
	} else {
		f = plan_asprintf("%s:%s", kx->mod, s->sym);
		err = f ? plan_add_att(p, MECH_KSITE, id, action, NULL, NULL, NULL,
				  f, s->symoff) :
			  -ENOMEM;
	}
	if (!err)
		att_key(p, path, f, s);
	free(f);
	return err;
}

/* why instance @in of module @kx cannot be timed though inl_find() found
 * its sites: one is in a function the kernel has no symbol of now (an
 * init function, freed once the module loaded), that ftrace cannot
 * patch (kprobe events refuse it), or, in vmlinux, whose name is not
 * unique (a kprobe at SYM+OFF takes the first); NULL if none */
static const char *ksite_why(const struct inl_kctx *kx,
			     const struct inl_inst *in, char *buf, size_t len)
{
	const char *sym = in->entry.sym;
	size_t k;

	int vml = !strcmp(kx->mod, "vmlinux");

	for (k = 0; sym; k++) {
		if (ksyms_exists(kx->ks, sym) == 0) {
			snprintf(buf, len, "its probes' function %s is no kernel symbol now (not in /proc/kallsyms: an init function of the module, freed after it loaded?)",
				 sym);
			return buf;
		}
		/* the kernel image's SYM+OFF is the first SYM kallsyms
		 * has: one of several static functions of that name
		 * would be another's code (newer kernels refuse it) */
		/* kprobe events refuse a function ftrace cannot patch
		 * (kernel/trace/trace_kprobe.c within_notrace_func(),
		 * unless CONFIG_KPROBE_EVENTS_ON_NOTRACE) */
		if (ksyms_traceable(kx->ks, sym) == 0) {
			snprintf(buf, len, "its probes' function %s is notrace (not in available_filter_functions): kprobe events refuse it",
				 sym);
			return buf;
		}
		if (vml && ksyms_repeated(kx->ks, sym) > 0) {
			snprintf(buf, len, "its probes' function %s is not the only kernel symbol of that name (a kprobe at %s+OFFSET could land in another)",
				 sym, sym);
			return buf;
		}
		sym = k < in->nexits ? in->exits[k].sym : NULL;
	}
	return NULL;
}

/*
 * Instances @v (@n, and @more only counted) of timer @id, planned: each
 * a start at its entry and a stop at each exit (inl_att(): uprobes in
 * @path, kprobes with @path NULL).  drop_left() sees a uprobe site as a
 * return site (the frame is the caller's): its start is
 * IPROF_A_RETSITES.  t->inl, inl_exits, inl_refused, inl_where say what
 * was found.  Conditions read arguments, which an inlined instance does
 * not pass: with conditions every instance is refused.  Returns 0 or
 * -ENOMEM (a chain too long is the timer's error).
 */
int plan_instances(struct plan *p, const struct probe *pr, uint32_t id,
			  const char *path, const struct inl_kctx *kx,
			  const struct inl_inst *v, size_t n, size_t more)
{
	struct plan_timer *t = &p->timers[id];
	uint32_t start, stop;
	size_t i, k, listed = 0;
	char kwhy[512];
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct inl_inst *in = &v[i];
		const char *why = in->why;

		if (!why && pr->start.ncond)
			why = "conditions read arguments, which an inlined call does not pass";
		if (!why && pr->named)
			why = "its name is an argument, which an inlined call does not pass";
		if (!why && kx)
			why = ksite_why(kx, in, kwhy, sizeof(kwhy));
		if (why) {
			t->inl_refused++;
			if (++listed <= INL_LISTED)
				err = inl_where_add(&t->inl_where, in, !!path, why);
			continue;
		}
		/* its number tells its frames from another instance's in
		 * the same caller's frame (iprof_action.inst) */
		err = plan_add_action(p, id, IPROF_ROLE_START,
				 path ? IPROF_A_RETSITES : 0, &start);
		if (err)
			break;
		p->actions[start].inst = t->inl + 1;
		p->prio[start] = in->depth + 1;
		err = inl_att(p, id, start, path, kx, &in->entry);
		/* a stop per exit: an action is in one chain only (another
		 * timer's action chained at one exit would run at all), and
		 * an exit reached where the instance did not run (a join
		 * point of the caller) is no orphan */
		for (k = 0; !err && k < in->nexits; k++) {
			err = plan_add_action(p, id, IPROF_ROLE_STOP,
					 IPROF_A_UNMATCHED_OK, &stop);
			if (err)
				break;
			p->actions[stop].inst = t->inl + 1;
			p->prio[stop] = in->depth + 1;
			err = inl_att(p, id, stop, path, kx, &in->exits[k]);
		}
		if (err == -E2BIG) {
			t->error = plan_asprintf("%s:%d:%d: %s %s: more than %d timers at one address of an inlined instance",
					     pr->file, pr->line, pr->start.col,
					     probe_kind_str(pr->kind), pr->name,
					     IPROF_MAX_CHAIN);
			err = t->error ? 0 : -ENOMEM;
			break;
		}
		if (err)
			break;
		t->inl++;
		t->inl_exits += (uint32_t)in->nexits;
		if (++listed <= INL_LISTED)
			err = inl_where_add(&t->inl_where, in, !!path, NULL);
	}
	if (listed > INL_LISTED && !err)
		err = inl_note(&t->inl_where, "%zu more", listed - INL_LISTED);
	if (more && !err) {
		t->inl_refused += (uint32_t)more;
		err = inl_note(&t->inl_where, "%zu more not timed: more than %d instances",
			       more, INL_MAX_INSTANCES);
	}
	return err;
}

/*
 * The inlined instances of user function timer @id in @path
 * (inl_find()), planned (plan_instances()).  *@nodwarf: 1 when @path
 * has no DWARF.  Returns 0 or -ENOMEM.
 */
int plan_inline(struct plan *p, const struct probe *pr, uint32_t id,
		       const struct plan_env *env, const char *path,
		       int *nodwarf)
{
	struct plan_timer *t = &p->timers[id];
	struct inl_inst *v = NULL;
	size_t n = 0, more = 0;
	char e[PATH_MAX + 256];
	int err;

	err = inl_find(path, t->func, env->debuginfo, &v, &n, &more, nodwarf,
		       e, sizeof(e));
	if (err)
		return err == -ENOMEM ? err : 0; /* unreadable: as none */
	err = plan_instances(p, pr, id, path, NULL, v, n, more);
	inl_free(v, n);
	return err;
}
