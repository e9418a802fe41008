// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry/fexit timers: their programs loaded in batches of FE_SLOTS
 * functions per clone of bpf/fentry.bpf.c, sharing the main object's maps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/klog.h"
#include "kernel/loader_int.h"
#include "kernel/attach.h"
#include "kernel/attach_fentry.h"

/* Programs per fentry object: IPROF_FE_SLOTS in bpf/fentry.bpf.c. */
#define FE_SLOTS                                                           \
	(sizeof(((struct fentry *)0)->rodata->entry_action) /              \
	 sizeof(((struct fentry *)0)->rodata->entry_action[0]))

/* Slot @k's fentry (@ret 0) or fexit program of @fe. */
static struct bpf_program *fe_prog(struct fentry *fe, size_t k, int ret)
{
	char name[32];

	snprintf(name, sizeof(name), "fe_%s_%zu", ret ? "exit" : "entry", k);
	return bpf_object__find_program_by_name(fe->obj, name);
}

/*
 * Turn off the programs of slots @from.. of @fe.  Returns 0, or -ENOENT
 * if a slot's program is missing (bpf/fentry.bpf.c's FE_SLOT list does
 * not match IPROF_FE_SLOTS).
 */
static int fe_slots_off(struct fentry *fe, size_t from)
{
	size_t k;

	for (k = 0; k < FE_SLOTS; k++)
		if (!fe_prog(fe, k, 0) || !fe_prog(fe, k, 1))
			return -ENOENT;
	for (k = from; k < FE_SLOTS; k++) {
		bpf_program__set_autoload(fe_prog(fe, k, 0), false);
		bpf_program__set_autoload(fe_prog(fe, k, 1), false);
	}
	return 0;
}

int loader_try_fentry(const char *func, char *why, size_t len)
{
	struct klog_catch cat;
	struct fentry *fe;
	int err;

	klog_take_libbpf();
	fe = fentry__open();
	if (!fe) {
		err = -errno;
		klog_reason(NULL, err, why, len);
		return err;
	}
	err = fe_slots_off(fe, 1);
	klog_catch_begin(&cat);
	if (!err)
		err = bpf_program__set_attach_target(fe_prog(fe, 0, 0), 0,
						     func);
	if (!err)
		err = bpf_program__set_attach_target(fe_prog(fe, 0, 1), 0,
						     func);
	if (err)
		snprintf(why, len, "no kernel function '%s' in BTF", func);
	else if ((err = fentry__load(fe)))
		klog_reason(&cat, err, why, len);
	klog_catch_end(&cat);
	fentry__destroy(fe);
	return err;
}

/*
 * Load the fentry/fexit programs of timers @ids (@n <= FE_SLOTS) in one
 * object: one open, one parse of the kernel's BTF, one verification per
 * program.  A function not in BTF gets fnobtf and its slot is left out; on
 * success the others' links get the object and their slot.  Returns 0 or
 * -errno with the reason in @why: a load fails as a whole.
 */
static int fentry_load(struct loader *l, const uint32_t *ids, size_t n,
		       char *why, size_t len)
{
	struct fentry *fe, **v;
	struct bpf_map *m, *own;
	struct klog_catch cat;
	uint32_t ae, ar;
	size_t k, used;
	int err = 0;

	fe = fentry__open();
	if (!fe) {
		err = -errno;
		klog_reason(NULL, err, why, len);
		return err;
	}
	fe->rodata->filter_tgid = l->skel->rodata->filter_tgid;
	fe->rodata->self_tgid = l->skel->rodata->self_tgid;
	fe->rodata->wakeup_bytes = l->skel->rodata->wakeup_bytes;
	fe->rodata->has_kprobes = l->skel->rodata->has_kprobes;
	fe->rodata->slow_args = l->skel->rodata->slow_args; /* --slowest */
	/* is_target(): --cgroup (the ids are in the shared map sel_cgid) */
	fe->rodata->sel_ncg = l->skel->rodata->sel_ncg;
	for (k = 0; k < IPROF_MAX_SEL; k++)
		fe->rodata->sel_cg_level[k] = l->skel->rodata->sel_cg_level[k];
	err = fe_slots_off(fe, n);
	if (err) {
		snprintf(why, len, "bpf/fentry.bpf.c has fewer than %zu slots",
			 (size_t)FE_SLOTS);
		goto fail;
	}
	klog_catch_begin(&cat);
	for (k = 0, used = 0; k < n; k++) {
		const char *func = l->plan->timers[ids[k]].func;

		ae = 0;
		ar = IPROF_NO_NEXT; /* no return: entry-only */
		attach_func_actions(l->plan, ids[k], &ae, &ar);
		fe->rodata->entry_action[k] = ae;
		fe->rodata->return_action[k] = ar;
		err = bpf_program__set_attach_target(fe_prog(fe, k, 0), 0, func);
		if (ar == IPROF_NO_NEXT) /* never returns: entry only */
			bpf_program__set_autoload(fe_prog(fe, k, 1), false);
		else if (!err)
			err = bpf_program__set_attach_target(fe_prog(fe, k, 1),
							     0, func);
		if (err) {
			/* not in BTF: this slot off, the batch goes on */
			snprintf(why, len, "no kernel function '%s' in BTF",
				 func);
			l->links[ids[k]].fnobtf = 1;
			bpf_program__set_autoload(fe_prog(fe, k, 0), false);
			bpf_program__set_autoload(fe_prog(fe, k, 1), false);
			continue;
		}
		used++;
	}
	if (!used) {
		err = -ENOENT;
		goto fail_caught;
	}
	err = 0;
	/* every map the clone shares by name with the main object is the
	 * main object's (rings, tstate, actions, ...); its own internal maps
	 * (.rodata: the slots' actions) stay its own */
	bpf_object__for_each_map(m, fe->obj) {
		if (err || bpf_map__is_internal(m))
			continue;
		own = bpf_object__find_map_by_name(l->skel->obj,
						   bpf_map__name(m));
		if (own)
			err = bpf_map__reuse_fd(m, bpf_map__fd(own));
	}
	if (!err)
		err = fentry__load(fe);
	klog_catch_end(&cat);
	if (err) {
		klog_reason(&cat, err, why, len);
		goto fail;
	}
	v = realloc(l->fobjs, (l->nfobjs + 1) * sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		klog_reason(&cat, err, why, len);
		goto fail;
	}
	l->fobjs = v;
	l->fobjs[l->nfobjs++] = fe;
	for (k = 0; k < n; k++) {
		if (l->links[ids[k]].fnobtf)
			continue;
		l->links[ids[k]].fobj = fe;
		l->links[ids[k]].fslot = (int)k;
	}
	return 0;
fail_caught:
	klog_catch_end(&cat);
fail:
	fentry__destroy(fe);
	return err;
}

/* Attach the fentry (@ret 0) or fexit program of @tl's slot. */
int attach_fentry_slot(struct timer_links *tl, int ret, char *why, size_t len)
{
	struct klog_catch cat;
	struct bpf_link *ln;
	int err;

	klog_catch_begin(&cat);
	ln = bpf_program__attach(fe_prog(tl->fobj, (size_t)tl->fslot, ret));
	klog_catch_end(&cat);
	if (!ln || attach_keep_link(tl, ln)) {
		err = ln ? -ENOMEM : -errno;
		klog_reason(&cat, err, why, len);
		return err;
	}
	return 0;
}

/* Is a later fentry/func timer (id > @id) on the same kernel function? */
static int later_on_same_function(const struct loader *l, uint32_t id)
{
	const struct plan *p = l->plan;
	uint32_t j;

	for (j = id + 1; j < p->ntimers; j++)
		if ((p->timers[j].via & PLAN_VIA_FENTRY) &&
		    !p->timers[j].error &&
		    !strcmp(p->timers[j].func, p->timers[id].func))
			return 1;
	return 0;
}

/*
 * fentry/fexit on timer @id's function.  Its programs are loaded with
 * those of the next fentry/func timers (up to FE_SLOTS); if that batch
 * fails, each of them is loaded alone, so one function the kernel refuses
 * costs only its own timer.
 */
int attach_fentry(struct loader *l, struct timer_links *tl, uint32_t id,
		  uint32_t a_ret, char *why, size_t len)
{
	const struct plan *p = l->plan;
	uint32_t ids[FE_SLOTS], j;
	size_t n = 0;
	int err;

	if (!tl->fobj && l->fentry_errno) {
		snprintf(why, len, "%s", l->fentry_why);
		return -l->fentry_errno;
	}
	if (!tl->fobj && !tl->fnobtf) {
		ids[n++] = id;
		for (j = id + 1; !tl->fsingle && j < p->ntimers && n < FE_SLOTS;
		     j++) {
			const struct plan_timer *t = &p->timers[j];

			if ((t->via & PLAN_VIA_FENTRY) && !t->error && !l->links[j].fobj &&
			    !l->links[j].fsingle && !l->links[j].fnobtf)
				ids[n++] = j;
		}
		err = fentry_load(l, ids, n, why, len);
		if (err && n > 1) {
			for (j = 0; j < n; j++)
				l->links[ids[j]].fsingle = 1;
			if (!tl->fnobtf)
				err = fentry_load(l, &id, 1, why, len);
		}
		if (err && err != -ENOENT &&
		    (err == -EPERM || err == -EACCES || err == -ENOTSUPP ||
		     err == -EOPNOTSUPP)) {
			/* the kernel refuses fentry itself: stop trying */
			l->fentry_errno = -err;
			snprintf(l->fentry_why, sizeof(l->fentry_why),
				 "the kernel refuses fentry/fexit programs (%s)",
				 strerror(-err));
			snprintf(why, len, "%s", l->fentry_why);
		}
		if (err && !tl->fnobtf)
			return err;
	}
	if (tl->fnobtf) {
		snprintf(why, len, "no kernel function '%s' in BTF",
			 p->timers[id].func);
		return -ENOENT;
	}
	err = attach_fentry_slot(tl, 0, why, len);
	if (err || a_ret == IPROF_NO_NEXT)
		return err;
	if (later_on_same_function(l, id)) {
		tl->exit_pending = 1; /* see attach_fexits(), loader.c */
		return 0;
	}
	return attach_fentry_slot(tl, 1, why, len);
}
