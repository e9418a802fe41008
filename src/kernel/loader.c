// SPDX-License-Identifier: GPL-2.0-only
/*
 * loader.c - load iprof's BPF programs and attach a plan: the BPF object's
 * life cycle, the order of attachment, the fentry-or-kprobe choice per
 * function timer, the counters, detaching.  The mechanisms are in
 * src/kernel/attach_*.c, the rings in src/kernel/rings.c.  See src/kernel/loader.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "iprof/ksym.h"
#include "iprof/stream.h"
#include "iprof/util.h"
#include "kernel/kspans.h"
#include "kernel/loader_int.h"
#include "kernel/attach.h"
#include "kernel/attach_ctx.h"
#include "kernel/attach_fentry.h"
#include "kernel/attach_kprobe.h"
#include "kernel/attach_tp.h"
#include "kernel/attach_usdt.h"
#include "kernel/rings.h"
#include "kernel/uprobe_emu.h"
#include "kernel/uprobe_multi.h"
#include "kernel/klog.h"
#include "kernel/kmech.h"

/* a long attach says how far it is this often (stderr, unless -q) */
#define PROGRESS_NS 500000000ull

/* Is @p one of the interrupt-edge programs (irq_*_in / irq_*_out)? */
static int is_irq_prog(const struct bpf_program *p)
{
	return !strncmp(bpf_program__name(p), "irq_", 4);
}

static int is_irq_entry(const struct bpf_program *p)
{
	const char *n = bpf_program__name(p);
	size_t len = strlen(n);

	return len > 3 && !strcmp(n + len - 3, "_in");
}

/*
 * Load only the interrupt-edge programs whose tracepoint this kernel has
 * (the x86 irq_vectors ones exist on x86 only): a tp_btf program needs the
 * btf_trace_<tracepoint> typedef in the kernel's BTF.
 */
static void irq_autoload(struct bpf_object *obj)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct bpf_program *p;
	char name[128];
	const char *tp;

	bpf_object__for_each_program(p, obj) {
		if (!is_irq_prog(p))
			continue;
		tp = strchr(bpf_program__section_name(p), '/');
		snprintf(name, sizeof(name), "btf_trace_%s", tp ? tp + 1 : "");
		if (!btf || btf__find_by_name(btf, name) < 0)
			bpf_program__set_autoload(p, false);
	}
	btf__free(btf);
}

static void irq_flags_clear(struct loader *l)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 zero = 0;
	void *v;

	if (ncpu <= 0)
		return;
	/* struct irq_depth of iprof.bpf.h: two __u32, 8 bytes per CPU */
	v = calloc((size_t)ncpu, 8);
	if (!v)
		return;
	bpf_map_update_elem(bpf_map__fd(l->skel->maps.irqctx), &zero, v,
			    BPF_ANY);
	free(v);
}

/* Can @p have kprobe timers (kprobe:, or func: falling back to kprobes)? */
static int plan_has_kprobes(const struct plan *p)
{
	uint32_t i;

	for (i = 0; i < p->ntimers; i++)
		if (p->timers[i].via & PLAN_VIA_KPROBE)
			return 1;
	return 0;
}

/* Attach the loaded interrupt-edge programs: entries or exits. */
static int attach_irq_edges(struct loader *l, int entries)
{
	struct bpf_program *p;
	struct bpf_link *ln;

	bpf_object__for_each_program(p, l->skel->obj) {
		if (!is_irq_prog(p) || !bpf_program__autoload(p) ||
		    is_irq_entry(p) != entries || l->nirq == IRQ_PROGS_MAX)
			continue;
		ln = bpf_program__attach(p);
		if (!ln)
			return -errno;
		l->irq_links[l->nirq++] = ln;
	}
	return 0;
}

/* Does @plan have two kprobe timers on one kernel function?  O(n^2)
 * string compares, as kmulti_layer_of(): 2000 timers take a few ms. */
static int kprobe_func_twice(const struct plan *plan)
{
	const struct plan_timer *t, *u;
	uint32_t i, j;

	for (i = 0; i < plan->ntimers; i++) {
		t = &plan->timers[i];
		if (t->error || !(t->via & PLAN_VIA_KPROBE) || t->inl_only)
			continue;
		for (j = 0; j < i; j++) {
			u = &plan->timers[j];
			if (!u->error && (u->via & PLAN_VIA_KPROBE) &&
			    !u->inl_only && !strcmp(t->func, u->func))
				return 1;
		}
	}
	return 0;
}

/* Load program @p (and give it expected attach type @type, if not 0) or
 * not. */
static void want_prog(struct bpf_program *p, int on, int type)
{
	bpf_program__set_autoload(p, on);
	if (on && type)
		bpf_program__set_expected_attach_type(p, type);
}

/*
 * Load only the programs that @plan can use: verifying them is most of
 * iprof's start (each pt_regs program is 65,000 to 220,000 verified
 * instructions, 0.1 to 0.3 s on a 2 GHz core, ten times that under TCG;
 * iprof -v prints the figures).  kprobe timers (kprobe:, and func:
 * in case fentry refuses) take the kprobe_multi programs where the kernel
 * has them and the count asks for them (loader_kmulti_wanted()), and the
 * plain kprobe programs only where some timer may need one: a function
 * that cannot go in a kprobe_multi link (kmulti_ok), or too few for one.
 * The other mechanisms' programs: their rows' (kmech_choose()).
 */
static void choose_programs(struct loader *l, const struct plan *plan)
{
	struct iprof *s = l->skel;
	size_t nk = 0;
	int km, ks, us, fn, all_ok = 1;
	uint32_t i;

	for (i = 0; i < plan->ntimers; i++) {
		const struct plan_timer *t = &plan->timers[i];

		if (t->error || !(t->via & PLAN_VIA_KPROBE) || t->inl_only)
			continue;
		nk++;
		all_ok &= t->kmulti_ok;
	}
	/* a second timer on one function attaches one by one
	 * (attach_kprobe_multi()) */
	if (all_ok && kprobe_func_twice(plan))
		all_ok = 0;
	km = nk && loader_kmulti_wanted(&nk) && loader_kmulti_supported();
	ks = km && loader_ksession_supported();
	fn = nk && (!km || !all_ok);
	kmech_choose(l, kmech_plan(plan));
	want_prog(s->progs.fn_entry, fn, 0);
	want_prog(s->progs.fn_return, fn, 0);
	want_prog(s->progs.fn_entry_km, km && !ks, BPF_TRACE_KPROBE_MULTI);
	want_prog(s->progs.fn_return_km, km && !ks, BPF_TRACE_KPROBE_MULTI);
	want_prog(s->progs.fn_session_km, ks, IPROF_TRACE_KPROBE_SESSION);
	/* user functions in uprobe sessions (plan_att.session), where the
	 * uprobe_multi programs load (kmech_choose()) */
	for (i = 0, us = 0; i < plan->natt; i++)
		us |= plan->att[i].session;
	us = us && (bpf_program__autoload(s->progs.fn_entry_m) ||
		    bpf_program__autoload(s->progs.fn_entry_mx)) &&
	     uprobe_session_supported();
	want_prog(s->progs.fn_session_u, us, IPROF_TRACE_UPROBE_SESSION);
}

/* The kernel's bpf_prog_info of @p into @info: 0, or -1 if @p is not
 * loaded or the kernel says nothing. */
static int prog_info(const struct bpf_program *p, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	if (bpf_program__fd(p) < 0 ||
	    bpf_obj_get_info_by_fd(bpf_program__fd(p), info, &len))
		return -1;
	return 0;
}

/*
 * -v: what the kernel verified, per program loaded (bpf_prog_info's
 * verified_insns, 5.16+), and how long loading took in all (@ns): the
 * verifier's share of a slow start.
 */
static void print_load_stats(struct bpf_object *obj, uint64_t ns)
{
	struct bpf_prog_info info;
	struct bpf_program *p;
	unsigned int n = 0;
	uint64_t v = 0;

	bpf_object__for_each_program(p, obj) {
		if (prog_info(p, &info))
			continue;
		klog(KLOG_DEBUG, "BPF program %s: %u instructions, %u verified",
			  bpf_program__name(p), info.xlated_prog_len / 8,
			  info.verified_insns);
		v += info.verified_insns;
		n++;
	}
	klog(KLOG_DEBUG, 
		"%u BPF programs loaded in %.1f ms (%llu instructions verified)",
		n, (double)ns / 1e6, (unsigned long long)v);
	klog(KLOG_DEBUG, "return sites: %s",
	     uprobe_emu_supported() ? "iprof's programs run their ret (uprobe register writes)" :
	     uprobe_emu_kernel()    ? "the kernel single-steps their ret (--no-emulate)" :
				      "the kernel single-steps their ret: it refuses uprobe register writes (Linux 6.19+ allows them)");
	klog(KLOG_DEBUG, "uprobe and syscall programs hold preemption off: %s",
	     preempt_hold_supported() ?
		     "yes" :
		     "no (this verifier refuses global function calls meanwhile)");
}

/* --comm, --exe, --cgroup: the BPF side's constants, before the load */
static void set_selectors(struct loader *l, const struct target_sel *sel)
{
	unsigned int k;

	l->skel->rodata->sel_ncomm = sel->ncomm;
	for (k = 0; k < sel->ncomm; k++)
		/* two words, as bpf_get_current_comm() writes them */
		memcpy((void *)l->skel->rodata->sel_comm[k], sel->comm[k],
		       IPROF_COMM_LEN);
	l->skel->rodata->sel_nexe = sel->nexe;
	for (k = 0; k < sel->nexe; k++) {
		l->skel->rodata->sel_exe_dev[k] = sel->exe_dev[k];
		l->skel->rodata->sel_exe_ino[k] = sel->exe_ino[k];
	}
	l->skel->rodata->sel_ncg = sel->ncg;
	for (k = 0; k < sel->ncg; k++)
		l->skel->rodata->sel_cg_level[k] = sel->cg_level[k];
}

int loader__open(struct loader **out, const struct plan *plan,
		 const struct loader_opts *o, loader_rec_fn fn, void *ctx,
		 char *err, size_t errlen)
{
	struct klog_catch cat;
	struct loader *l;
	uint64_t t_load;
	uint32_t i;
	int ret;

	*out = NULL;
	klog_libbpf_debug(o->verbose);
	klog_take_libbpf();
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->plan = plan;
	l->opts = *o;
	l->links = calloc(plan->ntimers ? plan->ntimers : 1,
			  sizeof(*l->links));
	l->att_links = calloc(plan->natt ? plan->natt : 1,
			      sizeof(*l->att_links));
	l->timers = calloc(plan->ntimers ? plan->ntimers : 1,
			   sizeof(*l->timers));
	l->skel = iprof__open();
	if (!l->links || !l->att_links || !l->timers || !l->skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open BPF object: %s",
			 strerror(errno));
		goto fail;
	}
	l->fn = fn;
	l->fn_ctx = ctx;
	ret = libbpf_num_possible_cpus();
	if (ret <= 0) {
		snprintf(err, errlen, "cannot count the possible CPUs: %s",
			 strerror(ret ? -ret : EINVAL));
		goto fail;
	}
	l->nrings = (unsigned int)ret;
	ret = 0;
	l->opts.rb_bytes = loader_rb_cpu_bytes(o->rb_bytes, l->nrings);
	l->skel->rodata->filter_tgid = !!o->filter;
	/* preemption held off where the verifier allows it (bpf/iprof.bpf.h) */
	l->skel->rodata->hold_preempt = (__u32)preempt_hold_supported();
	if (o->sel)
		set_selectors(l, o->sel);
	/* iprof never traces itself, but in its calibration (src/cli/calib.c) */
	l->skel->rodata->self_tgid = o->trace_self ? 0 : (__u32)getpid();
	l->skel->rodata->wakeup_bytes = l->opts.rb_bytes / 4;
	l->skel->rodata->slow_args = !!o->slow_args;
	l->skel->rodata->offcpu_stacks =
		(__u32)o->offcpu_stacks & (IPROF_OFF_KSTACK | IPROF_OFF_USTACK);
	if (!o->offcpu_stacks)
		bpf_program__set_autoload(l->skel->progs.on_waking, false);
	if (plan_has_kprobes(plan)) {
		/* the kretprobe return trampoline: 6.0+ (rethook), 5.15+,
		 * older kernels */
		static const char *const tramp[] = {
			"arch_rethook_trampoline", "__kretprobe_trampoline",
			"kretprobe_trampoline", NULL
		};

		l->skel->rodata->rethook_tramp =
			ksym_addr("/proc/kallsyms", tramp);
		l->skel->rodata->has_kprobes = 1;
		tracefs_kprobe_gc();
	} else {
		bpf_program__set_autoload(l->skel->progs.on_sys_enter, false);
	}
	choose_programs(l, plan);
	bpf_map__set_max_entries(l->skel->maps.rings, l->nrings);
	ret = rings_create(l, err, errlen);
	if (ret)
		goto fail;
	bpf_map__set_max_entries(l->skel->maps.actions,
				 plan->nactions ? plan->nactions : 1);
	bpf_map__set_max_entries(l->skel->maps.orphans,
				 plan->ntimers ? plan->ntimers : 1);
	kspans_size(l, plan, o->span_keys);
	l->keyed = plan_keyed(plan);
	irq_autoload(l->skel->obj);
	t_load = util_now_ns();
	klog_catch_begin(&cat);
	ret = iprof__load(l->skel);
	klog_catch_end(&cat);
	if (ret) {
		snprintf(err, errlen,
			 "cannot load BPF programs: %s%s%s (iprof needs root, kernel BTF and BPF ring buffers, task storage)",
			 strerror(-ret), cat.msg[0] ? ": " : "", cat.msg);
		goto fail;
	}
	if (o->verbose)
		print_load_stats(l->skel->obj, util_now_ns() - t_load);
	for (i = 0; i < plan->nactions; i++) {
		ret = bpf_map_update_elem(bpf_map__fd(l->skel->maps.actions), &i,
					  &plan->actions[i], BPF_ANY);
		if (ret) {
			ret = -errno;
			snprintf(err, errlen, "cannot fill the actions map: %s",
				 strerror(errno));
			goto fail;
		}
	}
	for (i = 0; o->sel && i < o->sel->ncg; i++) {
		ret = loader__set_cgroup(l, i, o->sel->cg_id[i]);
		if (ret) {
			snprintf(err, errlen, "cannot fill the cgroup map: %s",
				 strerror(-ret));
			goto fail;
		}
	}
	ret = rings_open(l, err, errlen);
	if (ret)
		goto fail;
	*out = l;
	return 0;
fail:
	loader__close(l);
	return ret ? ret : -EINVAL;
}

int loader__add_target(struct loader *l, pid_t tgid)
{
	__u32 k = (__u32)tgid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.targets), &k, &one,
				BPF_ANY))
		return -errno;
	return 0;
}

int loader__set_cgroup(struct loader *l, unsigned int i, uint64_t id)
{
	__u32 k = i;
	__u64 v = id;

	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.sel_cgid), &k, &v,
				BPF_ANY))
		return -errno;
	return 0;
}

/* attach_func_timer() returns it for a timer left to kprobes */
#define KPROBE_LATER 1

/*
 * fentry/fexit on function timer @id where its kind allows.  Returns 0
 * (attached), KPROBE_LATER (kprobe:, or func: that fentry refused: its
 * reason kept in @fwhy) or -errno with @why.
 */
static int attach_func_timer(struct loader *l, uint32_t id, char *why,
			     size_t len, char **fwhy_out)
{
	const struct plan_timer *t = &l->plan->timers[id];
	struct timer_links *tl = &l->links[id];
	char fwhy[384] = "";
	uint32_t ae = 0, ar = IPROF_NO_NEXT; /* no return: entry-only */
	int err;

	attach_func_actions(l->plan, id, &ae, &ar);
	if (!(t->via & PLAN_VIA_FENTRY))
		return KPROBE_LATER;
	err = attach_fentry(l, tl, id, ar, fwhy, sizeof(fwhy));
	if (!err) {
		l->timers[id].mech = mech_label_fentry(t->entry_only);
		return 0;
	}
	attach_drop_links(tl);
	if (!(t->via & PLAN_VIA_KPROBE)) {
		snprintf(why, len, "%s", fwhy);
		return err;
	}
	*fwhy_out = strdup(fwhy);
	return *fwhy_out ? KPROBE_LATER : -ENOMEM;
}

/*
 * kprobe/kretprobe on timer @id (after attach_func_timer()), unless
 * attach_kprobe_multi() has it already.  @fwhy: why fentry did not do
 * (func:), or NULL.
 */
static int attach_kprobe_timer(struct loader *l, uint32_t id,
			       const char *fwhy, char *why, size_t len)
{
	const struct plan_timer *t = &l->plan->timers[id];
	struct timer_links *tl = &l->links[id];
	uint32_t ae = 0, ar = IPROF_NO_NEXT;
	char kwhy[384] = "";
	int err = 0;

	if (!tl->kmulti && bpf_program__fd(l->skel->progs.fn_entry) >= 0) {
		attach_func_actions(l->plan, id, &ae, &ar);
		err = attach_kprobe(l, tl, id, t->func, ae, ar, kwhy,
				    sizeof(kwhy));
	} else if (!tl->kmulti) {
		/* only the kprobe_multi programs are loaded (choose_programs()) */
		err = tl->kmulti_err ? tl->kmulti_err : -EINVAL;
		snprintf(kwhy, sizeof(kwhy), "kprobe_multi: %s",
			 strerror(-err));
	}
	if (!err) {
		l->nkprobe_timers++;
		l->timers[id].mech = mech_label_kprobe(tl->kmulti,
						       t->entry_only);
		return 0;
	}
	attach_drop_links(tl);
	if (fwhy)
		snprintf(why, len, "fentry: %s; kprobe: %s", fwhy, kwhy);
	else
		snprintf(why, len, "%s", kwhy);
	return err;
}

/* Turn @timer's actions off in BPF: its attachment is partial. */
static void disable_timer(struct loader *l, uint32_t timer)
{
	const struct plan *p = l->plan;
	struct iprof_action off;
	uint32_t i;

	for (i = 0; i < p->nactions; i++) {
		if (p->actions[i].timer != timer)
			continue;
		off = p->actions[i];
		off.role = 0;
		bpf_map_update_elem(bpf_map__fd(l->skel->maps.actions), &i,
				    &off, BPF_ANY);
	}
}

/*
 * Timer @id is not attached: its actions off, @why (with its probe's
 * file:line:col, the column of its FUNC or first tracepoint) kept as its
 * error, @on_skip told.  Returns 0 or -ENOMEM.
 */
static int timer_failed(struct loader *l, uint32_t id, const char *why,
			loader_skip_fn on_skip)
{
	const struct plan_timer *t = &l->plan->timers[id];
	struct loader_timer *st = &l->timers[id];
	char *e;

	disable_timer(l, id);
	st->attached = 0;
	if (asprintf(&e, "%s:%d:%d: %s", t->probe->file, t->probe->line,
		     t->probe->start.col, why) < 0)
		return -ENOMEM;
	if (st->error != t->error)
		free((char *)st->error);
	st->error = e;
	if (on_skip)
		on_skip(t, st);
	return 0;
}

/*
 * The outcome of timer @id: attached (@err 0: counted in @n) or not
 * (timer_failed()).  Returns 0 or -ENOMEM.
 */
static int timer_done(struct loader *l, uint32_t id, int err, const char *why,
		      loader_skip_fn on_skip, int *n)
{
	if (!err) {
		l->timers[id].attached = 1;
		(*n)++;
		return 0;
	}
	return timer_failed(l, id, why, on_skip);
}

/* One loader__attach(): what its steps share. */
struct attach_pass {
	struct loader *l;
	loader_skip_fn on_skip;
	char **att_why; /* per plan attachment: why it failed, or NULL */
	char **fwhy; /* per timer: why fentry refused it, or NULL */
	uint32_t *later; /* the timers left to kprobes, nlater of them */
	size_t nlater;
	uint64_t t_start, t_shown; /* for the progress lines */
	int n; /* timers attached so far, or -errno: stop */
	char why[1024];
};

/* a long attach says how far it is (@i of @n @what) */
static void progress(struct attach_pass *ps, size_t i, size_t n,
		     const char *what)
{
	if (!ps->l->opts.progress || util_now_ns() - ps->t_shown <= PROGRESS_NS)
		return;
	ps->t_shown = util_now_ns();
	klog(KLOG_INFO, "attaching: %zu of %zu %s, %.1f s", i, n, what,
	     (double)(ps->t_shown - ps->t_start) / 1e9);
}

/* is the attach asked to stop?  Then ps->n is -EINTR */
static int cancelled(struct attach_pass *ps)
{
	if (ps->l->opts.cancel && *ps->l->opts.cancel) {
		ps->n = -EINTR;
		return 1;
	}
	return 0;
}

static void pass_free(struct attach_pass *ps)
{
	const struct plan *p = ps->l->plan;
	uint32_t i;

	for (i = 0; ps->att_why && i < p->natt; i++)
		free(ps->att_why[i]);
	free(ps->att_why);
	for (i = 0; ps->fwhy && i < p->ntimers; i++)
		free(ps->fwhy[i]);
	free(ps->fwhy);
	free(ps->later);
}

/*
 * The links that timers share, through each mechanism's row (kernel/kmech.h):
 * once per mechanism (the raw syscall programs, uprobe_multi links), then
 * each attachment that is not a function timer's own nor in a uprobe_multi
 * link (one link each, a syscall span's chain), the reason of one that
 * failed in ps->att_why.  0 or -ENOMEM.
 */
static int attach_shared(struct attach_pass *ps)
{
	struct loader *l = ps->l;
	const struct plan *p = l->plan;
	unsigned int used = kmech_plan(p), m;
	uint32_t i;
	int err;

	for (m = 0; used >> m; m++) {
		if (!(used & (1u << m)) || !kmech(m)->prepare)
			continue;
		err = kmech(m)->prepare(l);
		if (err)
			return err;
	}
	for (i = 0; i < p->natt; i++) {
		const struct kmech *r = kmech(p->att[i].mech);

		if (!r->attach || (l->att_multi && l->att_multi[i]))
			continue;
		if (r->attach(l, i, ps->why, sizeof(ps->why)))
			ps->att_why[i] = strdup(ps->why);
	}
	return 0;
}

/* what a span or uprobe timer's mechanism is called (loader_timer.mech) */
static const char *span_mech(const struct loader *l, uint32_t id)
{
	const struct plan_timer *t = &l->plan->timers[id];

	if (probe_kind_at(t->kind) == PROBE_AT_KFUNC && t->inl_only)
		return mech_label(MLABEL_KPROBE_INLINED);
	if (probe_kind_at(t->kind) == PROBE_AT_UFUNC)
		return mech_label_ufunc(t->inl_only, t->ret_entry,
					t->entry_only, t->ret_sites,
					attach_tp_timer_in_umulti(l, id));
	if (attach_usdt_timer(l->plan, id))
		return mech_label(MLABEL_USDT);
	if (attach_uside_timer(l->plan, id))
		return mech_label(MLABEL_ATT_UPROBE);
	return mech_label(attach_tp_timer_on_syscalls(l->plan, id) ?
				  MLABEL_TP_SYSCALLS :
				  MLABEL_TRACEPOINT);
}

/* a span or uprobe timer: are its shared attachments in place?  0, or
 * -EINVAL with why the first one is not in ps->why */
static int span_timer(struct attach_pass *ps, uint32_t id)
{
	struct loader *l = ps->l;
	const struct plan *p = l->plan;
	int err = 0;
	uint32_t i;

	for (i = 0; i < p->natt && !err; i++) {
		const struct plan_att *a = &p->att[i];

		if (!attach_tp_att_uses(p, a, id) ||
		    attach_tp_att_attached(l, i))
			continue;
		if (kmech(a->mech)->raw_syscalls)
			ps->att_why[i] = strdup(l->sc_why ? l->sc_why : "failed");
		kmech_why(a, ps->att_why[i], ps->why, sizeof(ps->why));
		err = -EINVAL;
	}
	l->timers[id].mech = span_mech(l, id);
	return err;
}

/* a kernel function timer's kprobes where it is inlined too (beside its
 * out-of-line copy): all in place?  0, or -EINVAL with why the first one
 * is not in ps->why (the timer is not attached: it would miss calls) */
static int ksites_ok(struct attach_pass *ps, uint32_t id)
{
	const struct plan *p = ps->l->plan;
	uint32_t i;

	if (!p->timers[id].inl)
		return 0;
	for (i = 0; i < p->natt; i++) {
		const struct plan_att *a = &p->att[i];

		if (!kmech(a->mech)->at_offset || !attach_tp_att_uses(p, a, id) ||
		    attach_tp_att_attached(ps->l, i))
			continue;
		kmech_why(a, ps->att_why[i], ps->why, sizeof(ps->why));
		return -EINVAL;
	}
	return 0;
}

/* every timer in plan order; kernel function timers left to kprobes go
 * to ps->later */
static void attach_timers(struct attach_pass *ps)
{
	struct loader *l = ps->l;
	const struct plan *p = l->plan;
	uint32_t id;
	int err;

	for (id = 0; id < p->ntimers; id++) {
		const struct plan_timer *t = &p->timers[id];

		if (cancelled(ps))
			break;
		progress(ps, id, p->ntimers, "timers");
		ps->why[0] = '\0';
		if (t->error) {
			disable_timer(l, id);
			l->timers[id].error = t->error;
			if (ps->on_skip)
				ps->on_skip(t, &l->timers[id]);
			continue;
		}
		/* (an inlined kernel function: kprobes that it shares
		 * with others, as a uprobe's) */
		if (probe_kind_at(t->kind) != PROBE_AT_KFUNC || t->inl_only) {
			err = span_timer(ps, id);
		} else {
			err = attach_func_timer(l, id, ps->why, sizeof(ps->why),
						&ps->fwhy[id]);
			if (err == KPROBE_LATER) {
				ps->later[ps->nlater++] = id;
				continue;
			}
			if (!err)
				err = ksites_ok(ps, id);
		}
		err = timer_done(l, id, err, ps->why, ps->on_skip, &ps->n);
		if (err) {
			ps->n = err;
			break;
		}
	}
}

/* the kprobe timers: in kprobe_multi links where the kernel has them,
 * the others (and those a link refused) one by one */
static void attach_later(struct attach_pass *ps)
{
	struct loader *l = ps->l;
	size_t k;
	int err;

	if (ps->n >= 0 && ps->nlater &&
	    (bpf_program__fd(l->skel->progs.fn_entry_km) >= 0 ||
	     bpf_program__fd(l->skel->progs.fn_session_km) >= 0) &&
	    (loader_kmulti_wanted(&ps->nlater) ||
	     bpf_program__fd(l->skel->progs.fn_entry) < 0)) {
		err = attach_kprobe_multi(l, ps->later, ps->nlater);
		if (err < 0)
			ps->n = err;
	}
	for (k = 0; ps->n >= 0 && k < ps->nlater; k++) {
		uint32_t id = ps->later[k];

		if (cancelled(ps))
			break;
		progress(ps, k, ps->nlater, "kprobe timers");
		ps->why[0] = '\0';
		err = attach_kprobe_timer(l, id, ps->fwhy[id], ps->why,
					  sizeof(ps->why));
		if (!err)
			err = ksites_ok(ps, id);
		err = timer_done(l, id, err, ps->why, ps->on_skip, &ps->n);
		if (err)
			ps->n = err;
	}
}

/*
 * The fexit programs of timers on one function, in reverse order of
 * their fentry programs: a trampoline runs both kinds in the same
 * order of attachment (kernel/bpf/trampoline.c), so the stops come
 * innermost first, as the returns of nested calls do.  (kretprobes
 * on one function return in reverse order by themselves.)  Returns @n
 * less the timers whose fexit failed, or -ENOMEM.
 */
static int attach_fexits(struct loader *l, loader_skip_fn on_skip, int n)
{
	char why[1024], fwhy[sizeof(why) + 8];
	uint32_t id;

	for (id = l->plan->ntimers; id-- > 0;) {
		if (!l->links[id].exit_pending)
			continue;
		l->links[id].exit_pending = 0;
		if (!l->timers[id].attached ||
		    !attach_fentry_slot(&l->links[id], 1, why, sizeof(why)))
			continue;
		attach_drop_links(&l->links[id]);
		n--;
		snprintf(fwhy, sizeof(fwhy), "fexit: %s", why);
		if (timer_failed(l, id, fwhy, on_skip))
			return -ENOMEM;
	}
	return n;
}

/* the programs of every task: fork, exit, exec, rename, switch (and the
 * syscall entry of kprobe timers), then the interrupt exits.  0/-errno. */
static int attach_task_progs(struct loader *l)
{
	int err;

	l->fork_link = bpf_program__attach(l->skel->progs.on_fork);
	l->exit_link = bpf_program__attach(l->skel->progs.on_exit);
	l->exec_link = bpf_program__attach(l->skel->progs.on_exec);
	l->rename_link = bpf_program__attach(l->skel->progs.on_rename);
	l->switch_link = bpf_program__attach(l->skel->progs.on_switch);
	if (!l->fork_link || !l->exit_link || !l->switch_link ||
	    !l->exec_link || !l->rename_link)
		return -errno;
	if (l->skel->rodata->offcpu_stacks) {
		l->waking_link = bpf_program__attach(l->skel->progs.on_waking);
		if (!l->waking_link)
			return -errno;
	}
	if (l->nkprobe_timers) {
		l->sysenter_link =
			bpf_program__attach(l->skel->progs.on_sys_enter);
		if (!l->sysenter_link)
			return -errno;
	}
	err = attach_irq_edges(l, 0);
	if (err)
		return err;
	/* an interrupt that began while only the entry programs were attached
	 * left its CPU flagged; clear all (a CPU inside an interrupt right now
	 * is counted as task context until that interrupt ends) */
	irq_flags_clear(l);
	return 0;
}

int loader__attach(struct loader *l, loader_skip_fn on_skip)
{
	const struct plan *p = l->plan;
	struct attach_pass ps = { .l = l, .on_skip = on_skip };
	int err;

	/* interrupt entries before the timers' probes, exits after: see
	 * irq_edge() in bpf/iprof.bpf.c */
	err = attach_irq_edges(l, 1);
	if (err)
		return err;
	/* before the timers: a uprobe session takes the return probe only
	 * on the stack a thread started on, which a switch unseen would
	 * hide (the plan's files say which libc's switches to see) */
	if (attach_ctx_switches(l) < 0)
		return -ENOMEM;
	ps.att_why = calloc(p->natt ? p->natt : 1, sizeof(*ps.att_why));
	ps.fwhy = calloc(p->ntimers ? p->ntimers : 1, sizeof(*ps.fwhy));
	ps.later = calloc(p->ntimers ? p->ntimers : 1, sizeof(*ps.later));
	err = ps.att_why && ps.fwhy && ps.later ? attach_shared(&ps) :
						  -ENOMEM;
	if (!err) {
		ps.t_start = util_now_ns();
		ps.t_shown = ps.t_start;
		attach_timers(&ps);
		attach_later(&ps);
		err = ps.n < 0 ? ps.n : 0;
	}
	pass_free(&ps);
	if (err)
		return err;
	ps.n = attach_fexits(l, on_skip, ps.n);
	if (ps.n < 0)
		return ps.n;
	err = attach_task_progs(l);
	return err ? err : ps.n;
}

int loader__set_tracing(struct loader *l, int on)
{
	__u32 zero = 0, v = !!on;

	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.ctl), &zero, &v,
				BPF_ANY))
		return -errno;
	return 0;
}

/* Sum of bpf_prog_info.recursion_misses over the programs of @obj. */
static uint64_t recursion_misses(struct bpf_object *obj)
{
	struct bpf_prog_info info;
	struct bpf_program *p;
	uint64_t n = 0;

	bpf_object__for_each_program(p, obj) {
		if (!prog_info(p, &info))
			n += info.recursion_misses;
	}
	return n;
}

unsigned int loader__nprobes(const struct loader *l)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < l->plan->natt; i++)
		n += l->att_links[i] != NULL;
	for (i = 0; i < l->plan->ntimers; i++)
		n += (unsigned int)l->links[i].n;
	return n + (l->sc_links[0] != NULL) + (l->sc_links[1] != NULL) +
	       l->numulti + l->nkmulti + l->nksess + l->nusess;
}

/*
 * Releasing a tracepoint's last perf event waits for RCU grace periods
 * under the kernel's event_mutex, so detaching is serial and slow with many
 * tracepoints (about 50 ms each); main.c leaves that to a background child
 * once the report is out.
 */
void loader__detach(struct loader *l)
{
	uint32_t i;
	size_t j;

	if (!l)
		return;
	for (i = 0; i < l->plan->ntimers; i++) {
		attach_drop_links(&l->links[i]);
		l->links[i].fobj = NULL;
	}
	for (j = 0; j < l->nkmulti; j++)
		bpf_link__destroy(l->kmulti_links[j]);
	free(l->kmulti_links);
	l->kmulti_links = NULL;
	l->nkmulti = 0;
	for (j = 0; j < l->nksess; j++)
		close(l->ksess_fds[j]);
	free(l->ksess_fds);
	l->ksess_fds = NULL;
	l->nksess = 0;
	for (j = 0; j < l->nusess; j++)
		close(l->usess_fds[j]);
	free(l->usess_fds);
	l->usess_fds = NULL;
	l->nusess = 0;
	for (j = 0; j < l->nfobjs; j++) {
		l->clone_misses += recursion_misses(l->fobjs[j]->obj);
		fentry__destroy(l->fobjs[j]);
	}
	free(l->fobjs);
	l->fobjs = NULL;
	l->nfobjs = 0;
	for (i = 0; i < l->plan->natt; i++) {
		bpf_link__destroy(l->att_links[i]);
		l->att_links[i] = NULL;
	}
	bpf_link__destroy(l->fork_link);
	bpf_link__destroy(l->exit_link);
	bpf_link__destroy(l->exec_link);
	bpf_link__destroy(l->rename_link);
	bpf_link__destroy(l->sysenter_link);
	l->sysenter_link = NULL;
	bpf_link__destroy(l->sc_links[0]);
	bpf_link__destroy(l->sc_links[1]);
	l->sc_links[0] = l->sc_links[1] = NULL;
	for (i = 0; i < l->numulti; i++)
		bpf_link__destroy(l->umulti_links[i]);
	l->numulti = 0;
	bpf_link__destroy(l->switch_link);
	bpf_link__destroy(l->waking_link);
	l->waking_link = NULL;
	l->fork_link = l->exit_link = l->switch_link = l->exec_link = NULL;
	l->rename_link = NULL;
	for (i = 0; i < (uint32_t)l->nirq; i++)
		bpf_link__destroy(l->irq_links[i]);
	l->nirq = 0;
	attach_ctx_detach(l);
}

int loader__targets_alive(struct loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.targets), n = 0;
	__u32 key, next, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (util_proc_alive((int)key)) {
			n++;
			continue;
		}
		/* deleting the current key is safe: get_next_key(deleted)
		 * restarts from the first key, which we have counted or
		 * removed already */
		bpf_map_delete_elem(fd, &key);
		prev = NULL;
		n = 0;
	}
	return n;
}

int loader__targets_signal(struct loader *l, int sig)
{
	int fd = bpf_map__fd(l->skel->maps.targets), n = 0;
	__u32 key, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if ((pid_t)key != getpid() && !kill((pid_t)key, sig))
			n++;
		prev = &key;
	}
	return n;
}

/* counter @k of the "counters" map summed over CPUs (0 if unreadable) */
static uint64_t counter_sum(struct loader *l, __u32 k)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	uint64_t sum = 0;
	__u64 *v;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.counters), &k, v))
		for (c = 0; c < ncpu; c++)
			sum += v[c];
	free(v);
	return sum;
}

int loader__emu(struct loader *l, struct loader_emu *e)
{
	memset(e, 0, sizeof(*e));
	if (!l->emu)
		return -ENOENT;
	e->done = counter_sum(l, IPROF_CNT_EMU_DONE);
	e->shstk = counter_sum(l, IPROF_CNT_EMU_SHSTK);
	e->moved = counter_sum(l, IPROF_CNT_EMU_MOVED);
	e->fault = counter_sum(l, IPROF_CNT_EMU_FAULT);
	return 0;
}

void loader__loss(struct loader *l, struct report_loss *loss)
{
	size_t j;

	memset(loss, 0, sizeof(*loss));
	loss->rb_drops = counter_sum(l, IPROF_CNT_RB_DROP);
	loss->depth_overflow = counter_sum(l, IPROF_CNT_DEPTH_OVERFLOW);
	loss->no_storage = counter_sum(l, IPROF_CNT_NO_STORAGE);
	loss->key_full = counter_sum(l, IPROF_CNT_KEY_FULL);
	loss->recursion_misses = recursion_misses(l->skel->obj) +
				 l->clone_misses;
	/* the kprobe_multi links' (the callers add each kretprobe's) */
	if (attach_kprobe_multi_missed(l, &loss->kprobe_misses))
		loss->kprobe_misses = 0;
	for (j = 0; j < l->nfobjs; j++)
		loss->recursion_misses += recursion_misses(l->fobjs[j]->obj);
}

uint64_t loader__kprobe_misses(struct loader *l, uint32_t timer)
{
	unsigned long long hits, misses;

	if (l->links[timer].kev[0] &&
	    !tracefs_kprobe_profile(l->links[timer].kev, &hits, &misses))
		return misses;
	return 0;
}

unsigned int loader__kretprobe_maxactive(struct loader *l, uint32_t timer)
{
	return l->links[timer].kev[0] ? l->opts.maxactive : 0;
}

uint64_t loader__kfull(struct loader *l, uint32_t timer)
{
	return kspans_full(l, timer);
}

uint64_t loader__orphans(struct loader *l, uint32_t timer)
{
	__u64 v = 0;

	bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.orphans), &timer, &v);
	return v;
}

void loader__close(struct loader *l)
{
	unsigned int i;

	if (!l)
		return;
	if (l->links && l->att_links)
		loader__detach(l);
	ring_buffer__free(l->rb);
	for (i = 0; l->ring_fds && i < l->nrings; i++)
		if (l->ring_fds[i] >= 0)
			close(l->ring_fds[i]);
	free(l->ring_fds);
	free(l->ring_src);
	stream__free(l->stream);
	free(l->sc_why);
	free(l->umulti_links);
	free(l->att_multi);
	iprof__destroy(l->skel);
	free(l->links);
	free(l->att_links);
	for (i = 0; l->timers && l->plan && i < l->plan->ntimers; i++)
		if (l->timers[i].error != l->plan->timers[i].error)
			free((char *)l->timers[i].error);
	free(l->timers);
	free(l);
}

const struct loader_timer *loader__timer(const struct loader *l, uint32_t id)
{
	return &l->timers[id];
}
