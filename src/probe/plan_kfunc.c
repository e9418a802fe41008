// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan_kfunc.c - the kernel function shape (fentry:, kprobe:, func:):
 * kallsyms checks and instances inlined in the kernel and its modules.
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
/*
 * The kernel symbol that a kernel function timer's FUNC (NAME or
 * NAME|OTHER|..., its names in different kernel versions) stands for here:
 * the first name that exists, else the only compiler clone of one
 * (NAME.isra.0, NAME.constprop.1, ...; a .cold part never: it is not a
 * function anyone calls).  Returns a new string; NULL when none or several
 * clones fit, with the clones of the first name that has any in @clones
 * (@len bytes, comma-separated, "" if none), or with errno ENOMEM.
 */
static char *pick_kfunc(const struct ksyms *ks, const char *spec,
			char *clones, size_t len)
{
	/* KSYM_NAME_LEN: include/linux/kallsyms.h (512 since 6.1) */
	char alt[512], buf[256], *one = NULL, *tok, *save;
	const char *p;
	size_t n;
	int ok;

	clones[0] = '\0';
	for (p = spec; *p; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)n, p);
		if (ksyms_exists(ks, alt) != 0)
			return strdup(alt);
	}
	for (p = spec; *p; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)n, p);
		if (!ksyms_clones(ks, alt, buf, sizeof(buf)))
			continue;
		if (!clones[0])
			snprintf(clones, len, "%s", buf);
		ok = 0;
		free(one);
		one = NULL;
		for (tok = strtok_r(buf, ", ", &save); tok;
		     tok = strtok_r(NULL, ", ", &save)) {
			if (strstr(tok, ".cold") || !strcmp(tok, "..."))
				continue;
			ok++;
			if (ok == 1)
				one = strdup(tok);
		}
		if (ok == 1)
			return one;
	}
	free(one);
	errno = 0;
	return NULL;
}

/*
 * A kernel function timer's checks against the kernel's symbols: which
 * symbol it names here (pick_kfunc(): t->func becomes it), the deny
 * list, existence (with the compiler's clones as a hint), ftrace
 * traceability (fentry needs it; kprobes do not), never-returning
 * functions (entry-only).  Returns an error message or NULL.
 */
static char *plan_check_kfunc(const struct probe *pr, struct plan_timer *t,
			 const struct ksyms *ks)
{
	char clones[256], *sym, *where;
	const char *why;

	sym = pick_kfunc(ks, t->func, clones, sizeof(clones));
	if (!sym && errno == ENOMEM)
		return plan_perr(pr, pr->start.col, "%s: out of memory", t->func);
	if (sym && strcmp(sym, t->func)) {
		/* show which symbol is traced: "func:f.isra.0 (func:f)" */
		where = plan_describe(&plan_kfunc_shape, pr, NULL, sym);
		if (where) {
			free(t->where);
			t->where = where;
		}
	}
	if (sym) {
		free(t->func);
		t->func = sym;
	}
	why = ksym_denied(t->func);
	if (why)
		return plan_perr(pr, pr->start.col, "%s: iprof does not time it: the tracer itself runs it (%s)", t->func,
				 why);
	if (!sym) {
		if (clones[0])
			return plan_perr(pr, pr->start.col, "no kernel function '%s': the compiler made clones of it: %s (name one, e.g. %s:%.*s)",
					 t->func, clones,
					 probe_kind_str(pr->kind),
					 (int)strcspn(clones, ","), clones);
		/* the name only where it says more than the timer's own,
		 * so that such timers share one "not attached" line */
		if (strchr(t->func, '|'))
			return plan_perr(pr, pr->start.col, "none of %s is a kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)",
					 t->func);
		if (ksym_suggest(ks->funcs, ks->nfuncs, t->func, clones,
				 sizeof(clones)))
			return plan_perr(pr, pr->start.col, "no such kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)" KSYM_SUGGEST_PFX "%s?",
					 clones);
		return plan_perr(pr, pr->start.col, "no such kernel function (not in /proc/kallsyms: a typo, a function inlined into its callers, or a module not loaded)");
	}
	/* a kind that cannot fall back to kprobes needs ftrace, one that
	 * cannot use fentry a name the kernel has once */
	if (!(probe_kind(pr->kind)->via & PROBE_VIA_KPROBE) &&
	    ksyms_traceable(ks, t->func) == 0)
		return plan_perr(pr, pr->start.col, "%s is not traceable by ftrace (notrace, or not in available_filter_functions): fentry cannot attach; kprobe: or func: may", t->func);
	/* without the name: such timers of a glob share one line */
	if (!(probe_kind(pr->kind)->via & PROBE_VIA_FENTRY) &&
	    ksyms_repeated(ks, t->func) == 1)
		return plan_perr(pr, pr->start.col, "several kernel functions have this name (static functions of different files): a kprobe by name cannot tell them apart");
	t->entry_only = ksym_noreturn(t->func);
	/* func: where fentry is refused falls back to kprobes (the loader
	 * learns which at attach time: fentry's refusal is per kernel) */
	t->via = probe_kind(pr->kind)->via;
	/* a kprobe_multi link takes functions that ftrace patches, each
	 * name once in the kernel */
	t->kmulti_ok = ksyms_traceable(ks, t->func) != 0 &&
		       ksyms_repeated(ks, t->func) != 1;
	return NULL;
}

/* the modules' debug files, read at the first need; 0 or -ENOMEM */
static int kdbg_load(struct planner *pn, const struct plan_env *env)
{
	int err = 0;

	if (!pn->kdbg_read)
		err = kmod_debug_files(env->kmod_root, env->debuginfo,
				       &pn->kdbg, &pn->nkdbg, &pn->kdbg_stale);
	pn->kdbg_read = !err;
	return err;
}

/*
 * The instances of @name in loaded module @k's debug file, planned for
 * timer @id (plan_instances()).  *@found is set when it has any; @err
 * (@errlen bytes) keeps the first reason a file could not be read.
 * Returns 0 or -ENOMEM.
 */
static int kinl_module(struct plan *p, const struct probe *pr, uint32_t id,
		       const struct kmod_debug *k, const char *name,
		       const struct ksyms *ks, int *found, char *err,
		       size_t errlen)
{
	const struct inl_kctx kx = { .mod = k->mod, .ks = ks };
	struct inl_inst *v = NULL;
	size_t n = 0, more = 0;
	char e[PATH_MAX + 256];
	int r;

	if (!kmod_mentions(k->path, name))
		return 0;
	r = inl_find(k->path, name, NULL, &v, &n, &more, NULL, e, sizeof(e));
	if (r == -ENOMEM)
		return r;
	if (r) {
		if (!err[0])
			snprintf(err, errlen, "%s", e);
		return 0;
	}
	if (n || more)
		*found = 1;
	r = plan_instances(p, pr, id, NULL, &kx, v, n, more);
	inl_free(v, n);
	return r;
}

/* where @mods ("vmlinux, kvm", the files' names as kdbg has them) are,
 * in words ("vmlinux and module kvm") into @buf (@len bytes) */
static const char *kinl_where(const char *mods, char *buf, size_t len)
{
	int vml = !strncmp(mods, "vmlinux", 7) &&
		  (!mods[7] || mods[7] == ',');
	const char *rest = vml ? mods + 7 + (mods[7] ? 2 : 0) : mods;

	snprintf(buf, len, "%s%s%s%s%s", vml ? "vmlinux" : "",
		 vml && *rest ? " and " : "", *rest ? "module" : "",
		 strchr(rest, ',') ? "s " : *rest ? " " : "", rest);
	return buf;
}

/* what plan_kinline() says when no instance is timed (*@msg replaced) */
static int kinl_none(const struct planner *pn, struct plan_timer *t,
		     int found, const char *mods, const char *e, char **msg)
{
	struct utsname u;
	char w[600], *m;
	int vml = pn->nkdbg && !strcmp(pn->kdbg[0].mod, "vmlinux");
	size_t nm = pn->nkdbg - (size_t)vml;

	if (found)
		m = plan_asprintf("%s; inlined %u time%s in %s, none timed: %s",
			      *msg, t->inl_refused,
			      t->inl_refused == 1 ? "" : "s",
			      kinl_where(mods, w, sizeof(w)), t->inl_where);
	else if (pn->nkdbg)
		m = plan_asprintf("%s; nor inlined in %sa loaded module (%s%zu %s debug files looked at%s%s)",
			      *msg, vml ? "vmlinux or " : "",
			      vml ? "vmlinux's and " : "", nm,
			      nm == 1 ? "module's" : "modules'",
			      e[0] ? "; one could not be read: " : "", e);
	else
		m = plan_asprintf("%s; no debug file of the kernel or a loaded module says whether it was inlined (%s: Debian's linux-image-%s-dbg has them, or --debuginfo DIR)",
			      *msg,
			      pn->kdbg_stale ? "only other builds' were found" :
					   "none found",
			      uname(&u) ? "RELEASE" : u.release);
	m = plan_hint_last(m);
	if (!m)
		return -ENOMEM;
	free(*msg);
	*msg = m;
	return 0;
}

/*
 * Kernel function timer @id (@pr), whose name (each alternative of
 * NAME|OLD in turn, the first found) is no kernel symbol: timed where
 * the compiler inlined it in the kernel image and the loaded modules
 * (every one that has it), from their debug files (kmod_debug_files():
 * --debuginfo DIR, then Debian's places), with kprobes at each instance's entry and exits
 * (plan_instances(); fentry cannot attach inside a function).  Timed:
 * t->func is the alternative found, t->inl_only is set and *@msg goes;
 * else *@msg says what was looked at.  Returns 0 or -ENOMEM; a timer
 * error (t->error) frees *@msg.
 */
static int plan_kinline(struct plan *p, const struct probe *pr, uint32_t id,
			const struct plan_env *env, const struct ksyms *ks,
			char **msg)
{
	struct plan_timer *t = &p->timers[id];
	char alt[512] = "", mods[512] = "", e[PATH_MAX + 256] = "", *m, *d, *f;
	char w[600];
	const char *a;
	size_t k, len, used = 0;
	int err, found = 0;

	err = kdbg_load(p->pn, env);
	for (a = t->func; !err && !found && *a; a += len + (a[len] == '|')) {
		len = strcspn(a, "|");
		snprintf(alt, sizeof(alt), "%.*s", (int)len, a);
		for (k = 0; !err && !t->error && k < p->pn->nkdbg; k++) {
			int here = 0;

			err = kinl_module(p, pr, id, &p->pn->kdbg[k], alt, ks, &here, e,
					  sizeof(e));
			if (here && used < sizeof(mods))
				used += (size_t)snprintf(mods + used,
							 sizeof(mods) - used,
							 "%s%s", found ? ", " : "",
							 p->pn->kdbg[k].mod);
			found |= here;
		}
	}
	if (err)
		return err;
	if (t->error) {
		free(*msg);
		*msg = NULL;
		return 0;
	}
	if (!t->inl)
		return kinl_none(p->pn, t, found, mods, e, msg);
	d = plan_describe(&plan_kfunc_shape, pr, NULL, alt);
	m = d ? plan_asprintf("%s (inlined only, in %s)", d,
			  kinl_where(mods, w, sizeof(w))) :
		NULL;
	f = strdup(alt);
	free(d);
	if (!m || !f) {
		free(m);
		free(f);
		return -ENOMEM;
	}
	free(t->where);
	t->where = m;
	free(t->func);
	t->func = f;
	t->inl_only = 1;
	t->via = PLAN_VIA_KPROBE;
	free(*msg);
	*msg = NULL;
	return 0;
}

/*
 * Kernel function timer @id, a symbol of module @mod ("" in vmlinux:
 * not looked at, its DWARF is not read): its instances where the
 * compiler inlined it in that module too (a static function inlined in
 * some callers and kept out of line for others), timed as
 * plan_kinline()'s beside the out-of-line copy.  Returns 0 or -ENOMEM.
 */
static int plan_kinline_more(struct plan *p, const struct probe *pr,
			     uint32_t id, const struct plan_env *env,
			     const struct ksyms *ks, const char *mod)
{
	char e[PATH_MAX + 256] = "";
	size_t k;
	int err, found = 0;

	if (!mod[0])
		return 0;
	err = kdbg_load(p->pn, env);
	if (err)
		return err;
	for (k = 0; k < p->pn->nkdbg && strcmp(p->pn->kdbg[k].mod, mod); k++)
		;
	return k == p->pn->nkdbg ? 0 :
			    kinl_module(p, pr, id, &p->pn->kdbg[k], p->timers[id].func,
					ks, &found, e, sizeof(e));
}

/* is kernel function timer @t's name (NAME|OLD) no symbol at all (not a
 * clone's either)?  Then it may be inlined. */
static int plan_kfunc_absent(const struct ksyms *ks, const struct plan_timer *t)
{
	char clones[256], *sym = pick_kfunc(ks, t->func, clones, sizeof(clones));
	int e = errno;

	free(sym);
	/* (a function the tracer runs is never timed, inlined or not) */
	return !sym && !clones[0] && e != ENOMEM && !ksym_denied(t->func);
}

/*
 * kernel function: a symbol kallsyms has (plan_check_kfunc()), or else
 * the instances it was inlined as (kprobes); a module's function may be
 * inlined in it too.  A name that is none of these is t->missing (a
 * typo: the run stops before anything is attached); one that exists but
 * that this kernel cannot attach (fentry refused, no kprobes) is not.
 */
static int kfunc_plan(struct plan *p, const struct probe *pr, uint32_t id,
		      const struct plan_env *env, const struct ksyms *ks)
{
	int kprobes = !env->no_inline && env->kmodules &&
		      probe_kind(pr->kind)->via & PROBE_VIA_KPROBE;
	struct plan_timer *t = &p->timers[id];
	char *msg;
	int err = 0, absent;

	msg = plan_check_kfunc(pr, t, ks);
	absent = msg && plan_kfunc_absent(ks, t);
	/* not a symbol: maybe inlined, timed by kprobes there */
	if (absent && kprobes) {
		err = plan_kinline(p, pr, id, env, ks, &msg);
		if (err || t->error)
			return err;
	}
	if (msg) {
		t->error = msg;
		/* no symbol, no clone, no inlined instance found (one that
		 * cannot be timed is a refusal), and a near name: a typo,
		 * most likely.  With nothing near, or inlined instances not
		 * looked for (--no-inline), it may be another kernel's
		 * (vfio.conf's 6.6+ vfio_df_* lines on 6.1): a refusal */
		t->missing = absent && !t->inl_where && !env->no_inline &&
			     strstr(msg, KSYM_SUGGEST_PFX);
		return 0;
	}
	if (!t->inl_only)
		err = plan_actions(p, &plan_kfunc_shape, pr, id, env, NULL);
	/* a module's function may be inlined in it too: kprobes */
	if (!err && !t->inl_only && !t->error && kprobes)
		err = plan_kinline_more(p, pr, id, env, ks,
					ksyms_module_of(ks, t->func));
	return err;
}

/* the start at the function's entry, the stop at its return */
static int kfunc_attach(struct plan *p, const struct probe *pr, uint32_t id,
			const struct plan_env *env, uint32_t start,
			uint32_t stop, const struct uplace *at)
{
	struct plan_timer *t = &p->timers[id];
	int err;

	(void)pr;
	(void)env;
	(void)at;
	err = plan_add_att(p, MECH_FUNC_ENTRY, id, start, NULL, NULL, NULL,
			   t->func, 0);
	/* a function that never returns has no return to attach:
	 * its frames end at thread exit */
	if (!err && !t->entry_only)
		err = plan_add_att(p, MECH_FUNC_RETURN, id, stop, NULL, NULL,
				   NULL, t->func, 0);
	return err;
}

/* a glob over the kernel's functions (@ks) */
static int kfunc_glob(struct plan *p, const struct probe_list *pl,
		      const struct probe *pr, const struct plan_env *env,
		      const struct ksyms *ks, struct hsearch_data *ht,
		      size_t *scanned)
{
	return plan_glob(p, &plan_kfunc_shape, pl, pr, env, ks, ks, ht, scanned, pr->start.col,
			 "kernel functions",
			 ks->traceable ? "traceable kernel function" :
			 ks->funcs     ? "kernel function" :
					 "kernel function (kallsyms unreadable)");
}

/* "KIND:FUNC[ if ...][ (KIND:GLOB)]" */
static char *kfunc_describe(const struct probe *pr, const char *path,
			    const char *func, int glob)
{
	char a[512] = "", b[512] = "";

	(void)path;
	snprintf(a, sizeof(a), "%s:%s", probe_kind_str(pr->kind), func);
	if (glob)
		snprintf(b, sizeof(b), " (%s:%s)", probe_kind_str(pr->kind),
			 pr->func);
	plan_cond_str(a, sizeof(a), &pr->start);
	return plan_asprintf("%s%s", a, b);
}

/* A kernel function's class: by the mechanisms its kind may take (kprobes
 * where it is inlined) */
static int kfunc_calib_class(const struct plan *p, uint32_t timer)
{
	const struct plan_timer *t = &p->timers[timer];

	if (t->inl_only)
		return CALIB_KPROBE;
	switch (probe_kind(t->kind)->via) {
	case PROBE_VIA_FENTRY:
		return CALIB_FENTRY;
	case PROBE_VIA_KPROBE:
		return CALIB_KPROBE;
	default:
		return CALIB_FUNC;
	}
}

const struct plan_shape plan_kfunc_shape = {
	.ksyms = 1,
	.plan = kfunc_plan,
	.attach = kfunc_attach,
	.glob = kfunc_glob,
	.describe = kfunc_describe,
	.calib_class = kfunc_calib_class,
};
