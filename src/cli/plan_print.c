// SPDX-License-Identifier: GPL-2.0-only
/*
 * The plan as the user sees it before tracing: the report's view of each
 * timer, the timers that will not attach, and --dry-run (iprof list) as
 * text or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts.h"
#include "cli/plan_print.h"
#include "kernel/uprobe_emu.h"
#include "cli/log.h"
#include "iprof/mech.h"
#include "iprof/util.h"

/*
 * What the report says of each timer of @plan (plan->ntimers entries,
 * malloc'ed, owned by the caller; the strings belong to @plan and @l),
 * with the loader's outcome and counts when @l is not NULL, else the
 * plan's errors alone (attached: every timer without one).  NULL when out
 * of memory.
 */
struct report_timer *plan_print_timers(const struct plan *plan,
				       struct loader *l)
{
	struct report_timer *rt =
		calloc(plan->ntimers ? plan->ntimers : 1, sizeof(*rt));
	uint32_t i;

	if (!rt)
		return NULL;
	for (i = 0; i < plan->ntimers; i++) {
		const struct plan_timer *t = &plan->timers[i];
		int ufunc = probe_kind_at(t->kind) == PROBE_AT_UFUNC;

		rt[i].name = t->name;
		rt[i].kind = probe_kind_str(t->kind);
		rt[i].where = t->where;
		rt[i].key = t->key;
		if (l) {
			const struct loader_timer *st = loader__timer(l, i);

			rt[i].attached = st->attached;
			rt[i].error = st->error ? st->error : t->error;
			rt[i].mech = st->mech;
		} else {
			rt[i].attached = !t->error;
			rt[i].error = t->error;
		}
		rt[i].file = t->probe ? t->probe->file : NULL;
		rt[i].line = t->probe ? t->probe->line : 0;
		rt[i].entry_only = t->entry_only;
		rt[i].uretprobe_why = t->ret_entry ? NULL : t->ret_why;
		rt[i].stop = !ufunc || t->error ? NULL :
			     t->ret_entry			  ? "entry" :
			     t->entry_only			  ? NULL :
			     t->inl_only			  ? "inlined" :
			     t->ret_sites			  ? "return_sites" :
			     t->ret_session			  ? "uprobe_session" :
								    "uretprobe";
		rt[i].tail_calls = t->ret_tail;
		/* only a timer without return sites was judged for them */
		rt[i].stop_why = !ufunc || t->ret_sites ? NULL : t->ret_risk;
		rt[i].no_sites_why = !ufunc || t->ret_sites ? NULL : t->ret_why;
		rt[i].return_sites = t->ret_sites;
		rt[i].emulated_sites = t->emu_sites;
		rt[i].emulated_entry = t->emu_entry;
		rt[i].single_step_why = plan_print_step_why(plan, t);
		rt[i].orphans = l ? loader__orphans(l, i) : 0;
		rt[i].key_full = l ? loader__kfull(l, i) : 0;
		rt[i].inlined = t->inl;
		rt[i].inlined_refused = t->inl_refused;
		rt[i].inlined_where = t->inl_where;
		rt[i].params = t->params;
		rt[i].kprobe_misses = l ? loader__kprobe_misses(l, i) : 0;
		rt[i].maxactive = l ? loader__kretprobe_maxactive(l, i) : 0;
	}
	return rt;
}

/*
 * The timers of @plan not attached (by @l; NULL: before attaching, those
 * with an error in the plan), grouped by reason, on stderr.
 */
void plan_print_not_attached(const struct plan *plan, struct loader *l,
			     const char *pfx)
{
	struct report_timer *rt = plan_print_timers(plan, l);
	uint32_t i;

	if (!rt) {
		for (i = 0; i < plan->ntimers; i++) {
			const char *e = l ? loader__timer(l, i)->error
					  : plan->timers[i].error;

			if (e)
				fprintf(stderr, "%snot attached: %s: %s\n", pfx,
					plan->timers[i].name, e);
		}
		return;
	}
	report_not_attached(stderr, rt, plan->ntimers, pfx);
	free(rt);
}

const char *plan_print_step_why(const struct plan *p,
				const struct plan_timer *t)
{
	static char shstk[160];

	if (probe_kind_at(t->kind) == PROBE_AT_UFUNC && t->ret_sites &&
	    p->uregs && p->shstk_pid) {
		snprintf(shstk, sizeof(shstk),
			 "process %d runs with a user shadow stack (x86_Thread_features: shstk): iprof leaves its rets to the kernel",
			 p->shstk_pid);
		return shstk;
	}
	if (probe_kind_at(t->kind) != PROBE_AT_UFUNC || !t->ret_sites ||
	    t->emu_sites >= t->ret_sites)
		return NULL;
	if (p->uregs)
		return "a tail call's jmp: the kernel emulates a direct one, single-steps an indirect one";
	if (uprobe_emu_is_off() && uprobe_emu_kernel())
		return "--no-emulate: the kernel single-steps each ret";
	return "the kernel single-steps each ret: it does not let a uprobe program run it (Linux 6.19+ does)";
}

/* --dry-run: where timer @t's function is inlined (user or kernel) */
static void print_inlined(const struct plan_timer *t)
{
	if (t->inl || t->inl_refused)
		printf(" (inlined %u time%s, %u timed, at %u exit%s: %s)",
		       t->inl + t->inl_refused,
		       t->inl + t->inl_refused == 1 ? "" : "s", t->inl,
		       t->inl_exits, t->inl_exits == 1 ? "" : "s",
		       t->inl_where);
}

/* --dry-run: how user function timer @t of @p stops, and what of its
 * probed instructions iprof runs itself */
static void print_stops(const struct plan *p, const struct plan_timer *t)
{
	if (t->split_off && !t->ret_sites)
		printf(" (entry split: the kernel single-steps its first instruction, so its start is at +%#x, the first it emulates, the single step timed per call and taken off its caller)",
		       t->split_at);
	else if (t->split_off)
		printf(" (entry split: the kernel single-steps its first instruction, so its start is at +%#x, the first it emulates, and nothing is at its entry)",
		       t->split_at);
	else if (t->split_why)
		printf(" (entry single-stepped inside each call: not split: %s)",
		       t->split_why);
	if (t->ret_sites && t->ret_tail)
		printf(" (stops at %u return site%s, %u of them a tail call: the callee's time is not in it)",
		       t->ret_sites, t->ret_sites == 1 ? "" : "s", t->ret_tail);
	else if (t->ret_sites)
		printf(" (stops at %u return site%s)", t->ret_sites,
		       t->ret_sites == 1 ? "" : "s");
	else if (t->ret_why)
		printf(" (stops by uretprobe: %s%s%s)", t->ret_why,
		       t->ret_risk ? "; " : "", t->ret_risk ? t->ret_risk : "");
	/* why --returns auto kept return sites where a uretprobe is cheaper */
	if (t->ret_sites && t->ret_risk)
		printf(" (--returns auto chose them: %s)", t->ret_risk);
	if (t->ret_sites && t->emu_sites && !p->shstk_pid)
		printf(" (iprof runs %u of their ret%s: no single step)",
		       t->emu_sites, t->emu_sites == 1 ? "" : "s");
	if (plan_print_step_why(p, t))
		printf(" (%u single-stepped: %s)",
		       p->shstk_pid ? t->ret_sites :
				      t->ret_sites - t->emu_sites,
		       plan_print_step_why(p, t));
	if (t->emu_entry)
		printf(" (iprof skips its entry's no-op instruction: no single step)");
	print_inlined(t);
}

/*
 * Would kernel function timer @t attach here, where fentry programs load
 * (@fentry: 1; 0 refused; -1 not tried) and the kernel has kprobes
 * (@kprobes)?  An instance where inlined needs a kprobe; the rest take
 * fentry where they may, else a kprobe (the loader's order,
 * attach_func_timer()).
 */
static int kfunc_attaches(const struct plan_timer *t, int fentry,
			  int kprobes)
{
	return ((t->via & PLAN_VIA_KPROBE) && kprobes) ||
	       ((t->via & PLAN_VIA_FENTRY) && fentry != 0 && !t->inl_only);
}


/* What this kernel takes for kernel function timers (--dry-run) */
struct kfeat {
	const char *first; /* the first kernel function: fentry tried on it */
	int fentry; /* 1: fentry programs load; 0: refused (why) */
	int kprobes; /* 1: the kernel has kprobes */
	int err; /* fentry's -errno */
	char why[512];
};

/* @p's kfeat, tried once (static); NULL without a kernel function timer */
static const struct kfeat *kfeat_get(const struct plan *p)
{
	static struct kfeat kf;
	static const struct plan *done;
	uint32_t i;

	if (done == p)
		return kf.first ? &kf : NULL;
	done = p;
	memset(&kf, 0, sizeof(kf));
	for (i = 0; i < p->ntimers; i++)
		if (p->timers[i].func &&
		    probe_kind_at(p->timers[i].kind) == PROBE_AT_KFUNC &&
		    !p->timers[i].error)
			break;
	if (i == p->ntimers)
		return NULL;
	kf.first = p->timers[i].func;
	kf.err = loader_try_fentry(kf.first, kf.why, sizeof(kf.why));
	kf.fentry = !kf.err;
	kf.kprobes = loader_kprobes();
	return &kf;
}

/* --dry-run: the line under kernel function timer @t that this kernel
 * would refuse, with why (the loader's words, attach_func_timer(), as
 * the JSON plan and the run's "not attached" say it) */
static void print_refused(const struct plan *p, const struct plan_timer *t,
			  int w)
{
	const struct kfeat *kf = kfeat_get(p);
	static const char nokp[] =
		"the kernel has no kprobes (CONFIG_KPROBES off)";

	if (!kf || t->error || probe_kind_at(t->kind) != PROBE_AT_KFUNC ||
	    kfunc_attaches(t, kf->fentry, kf->kprobes))
		return;
	if (t->inl_only)
		printf("%-*s  refused inlined: its instances need kprobes: %s\n",
		       w, "", nokp);
	else if (t->via == (PLAN_VIA_FENTRY | PLAN_VIA_KPROBE))
		printf("%-*s  refused fentry: the kernel refuses fentry/fexit programs (%s); kprobe: %s\n",
		       w, "", strerror(-kf->err), nokp);
	else if (t->via & PLAN_VIA_FENTRY)
		printf("%-*s  refused the kernel refuses fentry/fexit programs (%s)\n",
		       w, "", strerror(-kf->err));
	else
		printf("%-*s  refused %s\n", w, "", nokp);
}

int plan_print_text(const struct plan *p)
{
	int w = 8, bad = 0;
	uint32_t i;

	for (i = 0; i < p->ntimers; i++)
		if ((int)util_utf8_width(p->timers[i].name) > w)
			w = (int)util_utf8_width(p->timers[i].name);
	for (i = 0; i < p->ntimers; i++) {
		const struct plan_timer *t = &p->timers[i];
		int ufunc = probe_kind_at(t->kind) == PROBE_AT_UFUNC;

		/* padded to the columns its characters take, not its bytes */
		printf("%s%*s  %-7s %s%s", t->name,
		       w - (int)util_utf8_width(t->name), "",
		       probe_kind_str(t->kind),
		       t->where,
		       !t->entry_only || t->ret_entry ? "" :
		       ufunc ?
				" (never returns: entry only; closed untimed when the stack shows it left or at exec, else timed until the thread exits)" :
				" (never returns: entry only, timed until the thread exits)");
		if (t->key)
			printf(" key %s", t->key);
		if (ufunc && !t->error && !t->entry_only)
			print_stops(p, t);
		else if (!ufunc && !t->error)
			print_inlined(t); /* a kernel function's: kprobes */
		if (t->ret_entry)
			printf(" (counted only (its return cannot be seen: no return sites, %s; no uretprobe, which could kill the program: %s): each call counted where it is made, never timed, never a parent; --returns uretprobe times it anyway)",
			       t->ret_why, t->ret_risk);
		putchar('\n');
		if (t->error) {
			printf("%-*s  error   %s\n", w, "", t->error);
			bad++;
		}
		print_refused(p, t, w);
	}
	return bad;
}

/* Would the loader put @p's kprobe timers (kprobe:, and func: when
 * fentry is refused) in kprobe_multi links? */
static int kmulti_used(const struct plan *p, int fentry)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < p->ntimers; i++)
		n += !p->timers[i].error && !p->timers[i].inl_only &&
		     (p->timers[i].via & PLAN_VIA_KPROBE) &&
		     (!(p->timers[i].via & PLAN_VIA_FENTRY) || !fentry);
	return n && loader_kmulti_supported() && loader_kmulti_wanted(&n);
}

/* The exit status a run would have: 0 when @nbad of @n timers would not
 * attach is 0, EXIT_PARTIAL for some, EXIT_RUNTIME for all. */
static int attach_status(uint32_t nbad, uint32_t n)
{
	return !nbad ? 0 : nbad < n ? EXIT_PARTIAL : EXIT_RUNTIME;
}

int plan_print_kernel_features(const struct plan *p)
{
	const struct kfeat *kf = kfeat_get(p);
	const char *first, *why;
	int fentry, kprobes;
	uint32_t i, nbad = 0;

	if (!kf)
		return 0;
	first = kf->first;
	why = kf->why;
	fentry = kf->fentry;
	kprobes = kf->kprobes;
	for (i = 0; i < p->ntimers; i++)
		nbad += !p->timers[i].error &&
			probe_kind_at(p->timers[i].kind) == PROBE_AT_KFUNC &&
			!kfunc_attaches(&p->timers[i], fentry, kprobes);
	if (fentry)
		printf("# fentry/fexit: the kernel loads them (tried on %s)\n",
		       first);
	else
		printf("# fentry/fexit: refused (%s): fentry: timers cannot attach\n",
		       why);
	printf("# kprobes: %s\n",
	       kprobes ? "available" :
			 "absent (CONFIG_KPROBES off): kprobe: timers cannot attach");
	printf("# func: timers: %s\n",
	       fentry ? mech_label(MLABEL_FENTRY) :
	       kprobes ? "kprobes (fentry refused)" :
			 "cannot attach here (no fentry, no kprobes)");
	if (kprobes)
		printf("# kprobe_multi: %s\n",
		       !loader_kmulti_supported() ?
			       "absent (before 5.18, or CONFIG_FPROBE off): one kprobe per function" :
		       kmulti_used(p, fentry) ?
			       (loader_ksession_supported() ?
				"these kprobe timers attach in batched links (kprobe sessions: entry and return in one link; IPROF_KPROBE_SESSION=0: a link each)" :
				"these kprobe timers attach in batched links") :
			       "available; used from 16 kprobe timers on (IPROF_KPROBE_MULTI=1: always)");
	if (nbad)
		printf("# would not attach here: %u of %u timers\n", nbad,
		       p->ntimers);
	return attach_status(nbad, p->ntimers);
}

/*
 * --dry-run -f json: the plan, with what each timer would get here: a kernel
 * function timer's mechanism follows whether fentry loads (tried on the
 * first such function, as plan_print_kernel_features() does) and whether the
 * kernel has kprobes.  Returns the exit status: 0, EXIT_USAGE when a probe
 * has an error in the files, EXIT_RUNTIME when out of memory or stdout
 * cannot be written.
 */
/* has span @timer a side attached by @m or @m2 (MECH_USDT: a USDT side) */
static int span_has_mech(const struct plan *p, uint32_t timer,
			 enum plan_mech m, enum plan_mech m2)
{
	uint32_t i, a, n;

	for (i = 0; i < p->natt; i++) {
		if (p->att[i].mech != m && p->att[i].mech != m2)
			continue;
		for (a = p->att[i].action, n = 0;
		     a != IPROF_NO_NEXT && n++ < p->nactions;
		     a = p->actions[a].next)
			if (p->actions[a].timer == timer)
				return 1;
	}
	return 0;
}

int plan_print_json(const struct plan *p)
{
	struct report_kernel k = { .fentry = -1 };
	struct report_timer *rt = plan_print_timers(p, NULL);
	char why[512], fwhy[560] = "", **msg = NULL;
	int bad = 0, ret = EXIT_RUNTIME, e;
	uint32_t i, nbad = 0;

	if (!rt)
		goto out;
	msg = calloc(p->ntimers ? p->ntimers : 1, sizeof(*msg));
	if (!msg)
		goto out;
	k.kprobes = loader_kprobes();
	for (i = 0; i < p->ntimers && k.fentry < 0; i++) {
		const struct plan_timer *t = &p->timers[i];

		if (t->error || !(t->via & PLAN_VIA_FENTRY))
			continue;
		e = loader_try_fentry(t->func, why, sizeof(why));
		k.fentry = !e;
		/* as the loader says it (attach_fentry()) */
		snprintf(fwhy, sizeof(fwhy),
			 "the kernel refuses fentry/fexit programs (%s)",
			 strerror(-e));
		k.fentry_error = k.fentry ? NULL : fwhy;
	}
	for (i = 0; i < p->ntimers; i++) {
		const struct plan_timer *t = &p->timers[i];
		int fe = (t->via & PLAN_VIA_FENTRY) && k.fentry != 0;
		int kp = (t->via & PLAN_VIA_KPROBE) && k.kprobes;
		static const char nokp[] =
			"the kernel has no kprobes (CONFIG_KPROBES off)";

		if (t->error) {
			bad++;
			continue;
		}
		rt[i].attached = 1;
		if (probe_kind_at(t->kind) == PROBE_AT_SPAN) {
			rt[i].mech = mech_label(
				span_has_mech(p, (uint32_t)i, MECH_USDT,
					      MECH_USDT) ?
					MLABEL_USDT :
				span_has_mech(p, (uint32_t)i, MECH_UPROBE,
					      MECH_URETPROBE) ?
					MLABEL_ATT_UPROBE :
					MLABEL_TRACEPOINT);
			continue;
		}
		if (probe_kind_at(t->kind) == PROBE_AT_UFUNC) {
			/* (not "inlined", nor uprobe_multi: as it always
			 * said) */
			rt[i].mech = mech_label_ufunc(0, t->ret_entry,
						      t->entry_only,
						      t->ret_sites, 0);
			continue;
		}
		if (!kfunc_attaches(t, k.fentry, k.kprobes))
			goto not_here;
		if (t->inl_only && kp) {
			rt[i].mech = mech_label(MLABEL_KPROBE_INLINED);
			continue;
		}
		if (fe && !t->inl_only) {
			rt[i].mech = mech_label_fentry(t->entry_only);
			continue;
		}
		if (kp) {
			int m = kmulti_used(p, k.fentry > 0);

			rt[i].mech = mech_label_kprobe(
				m ? 1 + loader_ksession_supported() : 0,
				t->entry_only);
			continue;
		}
not_here:
		/* the loader's words (attach_func_timer()) */
		rt[i].attached = 0;
		nbad++;
		if (t->via == (PLAN_VIA_FENTRY | PLAN_VIA_KPROBE))
			e = asprintf(&msg[i], "%s:%d: fentry: %s; kprobe: %s",
				     rt[i].file, rt[i].line, fwhy, nokp);
		else
			e = asprintf(&msg[i], "%s:%d: %s", rt[i].file,
				     rt[i].line,
				     t->via & PLAN_VIA_FENTRY ? fwhy : nokp);
		if (e < 0) {
			msg[i] = NULL;
			goto out;
		}
		rt[i].error = msg[i];
	}
	if (report_plan_json(stdout, rt, p->ntimers, &k))
		goto out;
	ret = bad ? EXIT_USAGE : attach_status(nbad, p->ntimers);
out:
	if (ret == EXIT_RUNTIME)
		log_error("cannot print the plan: %s",
			  strerror(errno ? errno : ENOMEM));
	for (i = 0; msg && i < p->ntimers; i++)
		free(msg[i]);
	free(msg);
	free(rt);
	return ret;
}
