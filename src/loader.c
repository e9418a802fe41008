// SPDX-License-Identifier: GPL-2.0-only
/*
 * loader.c - load iprof's BPF programs, attach a plan, poll the ring buffers
 * (one per CPU, merged per thread in time order by src/stream.c).
 * See src/loader.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "iprof/ksym.h"
#include "iprof/stream.h"
#include "iprof/util.h"
#include "loader.h"
#include "tracefs.h"
#include "uprobe_multi.h"
#include "iprof.skel.h"
#include "fentry.skel.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* kernel-internal errno, include/linux/errno.h */
#endif

#define IRQ_PROGS_MAX 32

/*
 * Default size of each CPU's ring: RB_TOTAL_DEFAULT shared out over the
 * possible CPUs, each a power of two within [RB_CPU_MIN, RB_CPU_MAX]:
 * 8 MiB each on 2 CPUs (16 MiB, one shared ring's old default), 4 MiB on
 * 16, 256 KiB on 256 CPUs (64 MiB in all).
 */
#define RB_TOTAL_DEFAULT (64ull << 20)
#define RB_CPU_MIN (256ull << 10)
#define RB_CPU_MAX (8ull << 20)

struct timer_links {
	struct bpf_link **v;
	size_t n;
	/* fentry: the object (owned by struct loader) and slot whose two
	 * programs are loaded for this timer's function; fsingle: its batch
	 * failed to load, load it alone */
	struct fentry *fobj;
	int fslot;
	int fsingle;
	int fnobtf; /* the function is not in BTF: no fentry */
	int exit_pending; /* fexit attached after the loop (exit_order()) */
	/* this timer's kretprobe as a tracefs kprobe event, removed after
	 * its link; "" when unused */
	char kev[TRACEFS_EVENT_NAME];
};

/* a CPU's ring: its index is the stream's source number */
struct ring_src {
	struct loader *l;
	unsigned int idx;
};

struct loader {
	struct iprof *skel;
	struct plan *plan;
	struct ring_buffer *rb; /* every CPU's ring, one epoll set */
	int *ring_fds; /* nrings BPF_MAP_TYPE_RINGBUF maps, index = CPU */
	struct ring_src *ring_src;
	unsigned int nrings;
	struct stream *stream; /* merges the rings per thread in time order */
	loader_rec_fn fn; /* where merged records go */
	void *fn_ctx;
	struct timer_links *links; /* one per timer: function timers */
	struct bpf_link **att_links; /* one per plan.att: spans, uprobes */
	struct bpf_link *fork_link, *exit_link, *switch_link, *exec_link;
	struct bpf_link *sysenter_link; /* with kprobe timers only */
	/* user functions in uprobe_multi links: one per binary and
	 * direction (their fds), and which attachments they hold */
	int *umulti_fds;
	unsigned int numulti;
	char *att_multi;
	/* syscall spans (MECH_SYSCALL): sc_enter, sc_exit, attached once */
	struct bpf_link *sc_links[2];
	char *sc_why; /* why they could not be attached, or NULL */
	uint32_t nkprobe_timers; /* timers attached with kprobes */
	struct bpf_link *irq_links[IRQ_PROGS_MAX]; /* interrupt edges */
	int nirq;
	struct loader_opts opts;
	struct fentry **fobjs; /* fentry objects, FE_SLOTS functions each */
	size_t nfobjs;
	uint64_t clone_misses; /* recursion misses of destroyed fentry objects */
	int fentry_errno; /* 0: untried or works; else why fentry fails */
	char fentry_why[256];
};

/* The last libbpf warning, kept to explain a failed attach or load. */
static char last_msg[512];
static int verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	va_list cp;
	size_t n;

	if (level == LIBBPF_DEBUG && !verbose_libbpf)
		return 0;
	va_copy(cp, ap);
	if (level <= LIBBPF_WARN) {
		vsnprintf(last_msg, sizeof(last_msg), fmt, cp);
		n = strlen(last_msg);
		while (n && last_msg[n - 1] == '\n')
			last_msg[--n] = '\0';
	}
	va_end(cp);
	if (verbose_libbpf)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = (uint64_t)sysconf(_SC_PAGESIZE);

	while (p < v)
		p <<= 1;
	return p;
}

uint64_t loader_rb_cpu_bytes(uint64_t want, unsigned int ncpus)
{
	uint64_t b;

	if (want)
		return pow2_at_least(want);
	b = RB_CPU_MAX;
	while (b > RB_CPU_MIN && b * (ncpus ? ncpus : 1) > RB_TOTAL_DEFAULT)
		b >>= 1;
	return pow2_at_least(b);
}

/* the stream's sink: a merged record to the caller's callback */
static void ring_sink(void *ctx, const void *rec, size_t len)
{
	struct loader *l = ctx;

	l->fn(l->fn_ctx, (void *)rec, len);
}

/* ring_buffer callback of one CPU's ring: queue the record for merging */
static int ring_rec(void *ctx, void *data, size_t size)
{
	struct ring_src *rs = ctx;

	return stream__push(rs->l->stream, rs->idx, data, size);
}

/*
 * Before the object is loaded: create one ring per possible CPU, the first
 * one also the outer map's inner-map template (libbpf 1.1 cannot resize
 * the template it would make from the BPF side's definition).  Returns 0
 * or -errno with @err set.
 */
static int rings_create(struct loader *l, char *err, size_t errlen)
{
	unsigned int i;
	int fd, ret;

	l->ring_fds = malloc(l->nrings * sizeof(*l->ring_fds));
	l->ring_src = calloc(l->nrings, sizeof(*l->ring_src));
	l->stream = stream__new(l->nrings, ring_sink, l);
	if (!l->ring_fds || !l->ring_src || !l->stream) {
		snprintf(err, errlen, "cannot allocate the ring buffers");
		return -ENOMEM;
	}
	for (i = 0; i < l->nrings; i++)
		l->ring_fds[i] = -1;
	for (i = 0; i < l->nrings; i++) {
		fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "iprof_rb", 0, 0,
				    (__u32)l->opts.rb_bytes, NULL);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen,
				 "cannot create ring buffer %u of %u (%llu bytes each): %s",
				 i + 1, l->nrings,
				 (unsigned long long)l->opts.rb_bytes,
				 strerror(errno));
			return ret;
		}
		l->ring_fds[i] = fd;
	}
	ret = bpf_map__set_inner_map_fd(l->skel->maps.rings, l->ring_fds[0]);
	if (ret) {
		snprintf(err, errlen, "cannot set the rings' template: %s",
			 strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * After loading: put each CPU's ring in its slot of the outer map and open
 * one ring_buffer epoll set over them.  Returns 0 or -errno with @err set.
 */
static int rings_open(struct loader *l, char *err, size_t errlen)
{
	int outer = bpf_map__fd(l->skel->maps.rings);
	unsigned int i;
	int fd, ret;

	for (i = 0; i < l->nrings; i++) {
		fd = l->ring_fds[i];
		if (bpf_map_update_elem(outer, &i, &fd, BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "cannot install ring buffer %u: %s",
				 i, strerror(errno));
			return ret;
		}
		l->ring_src[i].l = l;
		l->ring_src[i].idx = i;
		if (!l->rb)
			l->rb = ring_buffer__new(fd, ring_rec, &l->ring_src[i],
						 NULL);
		else if (ring_buffer__add(l->rb, fd, ring_rec,
					  &l->ring_src[i]))
			l->rb = NULL;
		if (!l->rb) {
			ret = -errno;
			snprintf(err, errlen, "cannot open ring buffer %u: %s",
				 i, strerror(errno));
			return ret;
		}
	}
	return 0;
}

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

/* Does @plan have an attachment of mechanism @m? */
static int plan_has_mech(const struct plan *plan, enum plan_mech m)
{
	uint32_t i;

	for (i = 0; i < plan->natt; i++)
		if (plan->att[i].mech == m)
			return 1;
	return 0;
}

/* Attach the loaded interrupt-edge programs: entries or exits. */
/* Can @p have kprobe timers (kprobe:, or func: falling back to kprobes)? */
static int plan_has_kprobes(const struct plan *p)
{
	uint32_t i;

	for (i = 0; i < p->ntimers; i++)
		if (p->timers[i].kind == PROBE_KPROBE ||
		    p->timers[i].kind == PROBE_FUNC)
			return 1;
	return 0;
}

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

int loader_open(struct loader **out, struct plan *plan,
		const struct loader_opts *o, loader_rec_fn fn, void *ctx,
		char *err, size_t errlen)
{
	struct loader *l;
	uint32_t i;
	int ret;

	*out = NULL;
	verbose_libbpf = o->verbose;
	libbpf_set_print(libbpf_print);
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->plan = plan;
	l->opts = *o;
	l->links = calloc(plan->ntimers ? plan->ntimers : 1,
			  sizeof(*l->links));
	l->att_links = calloc(plan->natt ? plan->natt : 1,
			      sizeof(*l->att_links));
	l->skel = iprof__open();
	if (!l->links || !l->att_links || !l->skel) {
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
	l->skel->rodata->self_tgid = (__u32)getpid();
	l->skel->rodata->wakeup_bytes = l->opts.rb_bytes / 4;
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
	if (!plan_has_mech(plan, MECH_SYSCALL)) {
		bpf_program__set_autoload(l->skel->progs.sc_enter, false);
		bpf_program__set_autoload(l->skel->progs.sc_exit, false);
	}
	if (plan_has_mech(plan, MECH_UPROBE) && umulti_supported() &&
	    !getenv("IPROF_NO_UPROBE_MULTI")) {
		bpf_program__set_expected_attach_type(l->skel->progs.fn_entry_m,
						      UMULTI_ATTACH_TYPE);
		bpf_program__set_expected_attach_type(
			l->skel->progs.fn_return_m, UMULTI_ATTACH_TYPE);
	} else {
		bpf_program__set_autoload(l->skel->progs.fn_entry_m, false);
		bpf_program__set_autoload(l->skel->progs.fn_return_m, false);
	}
	bpf_map__set_max_entries(l->skel->maps.rings, l->nrings);
	ret = rings_create(l, err, errlen);
	if (ret)
		goto fail;
	bpf_map__set_max_entries(l->skel->maps.actions,
				 plan->nactions ? plan->nactions : 1);
	bpf_map__set_max_entries(l->skel->maps.orphans,
				 plan->ntimers ? plan->ntimers : 1);
	irq_autoload(l->skel->obj);
	last_msg[0] = '\0';
	ret = iprof__load(l->skel);
	if (ret) {
		snprintf(err, errlen,
			 "cannot load BPF programs: %s%s%s (iprof needs root, kernel BTF and BPF ring buffers, task storage)",
			 strerror(-ret), last_msg[0] ? ": " : "", last_msg);
		goto fail;
	}
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
	ret = rings_open(l, err, errlen);
	if (ret)
		goto fail;
	*out = l;
	return 0;
fail:
	loader_close(l);
	return ret ? ret : -EINVAL;
}

int loader_add_target(struct loader *l, pid_t tgid)
{
	__u32 k = (__u32)tgid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.targets), &k, &one,
				BPF_ANY))
		return -errno;
	return 0;
}

static int keep_link(struct timer_links *tl, struct bpf_link *link)
{
	struct bpf_link **v = realloc(tl->v, (tl->n + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	tl->v = v;
	tl->v[tl->n++] = link;
	return 0;
}

static void drop_links(struct timer_links *tl)
{
	size_t i;

	for (i = 0; i < tl->n; i++)
		bpf_link__destroy(tl->v[i]);
	free(tl->v);
	tl->v = NULL;
	tl->n = 0;
	/* after the links: an event in use cannot be removed */
	if (tl->kev[0])
		tracefs_kprobe_del(tl->kev);
	tl->kev[0] = '\0';
}

/* Why the last libbpf call failed, as one line. */
static void reason(char *buf, size_t len, int err)
{
	if (err < 0)
		err = -err;
	snprintf(buf, len, "%s%s%s", strerror(err), last_msg[0] ? " (" : "",
		 last_msg[0] ? last_msg : "");
	if (last_msg[0])
		strncat(buf, ")", len - strlen(buf) - 1);
}

int loader_kprobes(void)
{
	return access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0;
}

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
	struct fentry *fe;
	int err;

	libbpf_set_print(libbpf_print);
	fe = fentry__open();
	if (!fe) {
		err = -errno;
		reason(why, len, err);
		return err;
	}
	err = fe_slots_off(fe, 1);
	last_msg[0] = '\0';
	if (!err)
		err = bpf_program__set_attach_target(fe_prog(fe, 0, 0), 0,
						     func);
	if (!err)
		err = bpf_program__set_attach_target(fe_prog(fe, 0, 1), 0,
						     func);
	if (err)
		snprintf(why, len, "no kernel function '%s' in BTF", func);
	else if ((err = fentry__load(fe)))
		reason(why, len, err);
	fentry__destroy(fe);
	return err;
}

/* The two actions of a function timer: its entry and return attachments. */
static void func_actions(const struct plan *p, uint32_t timer, uint32_t *ae,
			 uint32_t *ar)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++) {
		if (p->att[i].timer != timer)
			continue;
		if (p->att[i].mech == MECH_FUNC_ENTRY)
			*ae = p->att[i].action;
		else if (p->att[i].mech == MECH_FUNC_RETURN)
			*ar = p->att[i].action;
	}
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
	uint32_t ae, ar;
	size_t k, used;
	int err = 0;

	fe = fentry__open();
	if (!fe) {
		err = -errno;
		reason(why, len, err);
		return err;
	}
	fe->rodata->filter_tgid = l->skel->rodata->filter_tgid;
	fe->rodata->self_tgid = l->skel->rodata->self_tgid;
	fe->rodata->wakeup_bytes = l->skel->rodata->wakeup_bytes;
	fe->rodata->has_kprobes = l->skel->rodata->has_kprobes;
	err = fe_slots_off(fe, n);
	if (err) {
		snprintf(why, len, "bpf/fentry.bpf.c has fewer than %zu slots",
			 (size_t)FE_SLOTS);
		goto fail;
	}
	last_msg[0] = '\0';
	for (k = 0, used = 0; k < n; k++) {
		const char *func = l->plan->timers[ids[k]].func;

		ae = 0;
		ar = IPROF_NO_NEXT; /* no return: entry-only */
		func_actions(l->plan, ids[k], &ae, &ar);
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
		goto fail;
	}
	err = 0;
#define REUSE(m)                                                            \
	do {                                                                 \
		if (!err)                                                    \
			err = bpf_map__reuse_fd(fe->maps.m,                  \
						bpf_map__fd(l->skel->maps.m)); \
	} while (0)
	REUSE(rings);
	REUSE(tstate);
	REUSE(actions);
	REUSE(orphans);
	REUSE(targets);
	REUSE(counters);
	REUSE(ctl);
	REUSE(cstate);
	REUSE(irqctx);
#undef REUSE
	if (!err)
		err = fentry__load(fe);
	if (err) {
		reason(why, len, err);
		goto fail;
	}
	v = realloc(l->fobjs, (l->nfobjs + 1) * sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		reason(why, len, err);
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
fail:
	fentry__destroy(fe);
	return err;
}

/* Attach the fentry (@ret 0) or fexit program of @tl's slot. */
static int attach_slot(struct timer_links *tl, int ret, char *why, size_t len)
{
	struct bpf_link *ln;
	int err;

	last_msg[0] = '\0';
	ln = bpf_program__attach(fe_prog(tl->fobj, (size_t)tl->fslot, ret));
	if (!ln || keep_link(tl, ln)) {
		err = ln ? -ENOMEM : -errno;
		reason(why, len, err);
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
		if ((p->timers[j].kind == PROBE_FENTRY ||
		     p->timers[j].kind == PROBE_FUNC) &&
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
static int attach_fentry(struct loader *l, struct timer_links *tl,
			 uint32_t id, uint32_t a_ret, char *why, size_t len)
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

			if ((t->kind == PROBE_FENTRY || t->kind == PROBE_FUNC) &&
			    !t->error && !l->links[j].fobj &&
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
	err = attach_slot(tl, 0, why, len);
	if (err || a_ret == IPROF_NO_NEXT)
		return err;
	if (later_on_same_function(l, id)) {
		tl->exit_pending = 1; /* see attach_pending_exits() */
		return 0;
	}
	return attach_slot(tl, 1, why, len);
}

/*
 * One kprobe (@ret 0) or kretprobe on @func as a tracefs event of our own
 * (tracefs_kprobe_add(): it takes maxactive and counts misses), opened as
 * a perf tracepoint event and given @prog with BPF cookie @cookie.  The
 * event's name goes to @ev (removed by drop_links()).
 */
static struct bpf_link *attach_kprobe_event(struct loader *l,
					    struct bpf_program *prog,
					    const char *func, int ret,
					    uint64_t cookie, char *ev,
					    const char *suffix)
{
	LIBBPF_OPTS(bpf_perf_event_opts, po);
	struct perf_event_attr attr;
	struct bpf_link *ln;
	int id, pfd, err;

	tracefs_kprobe_name(ev, suffix);
	id = tracefs_kprobe_add(ev, func, ret, l->opts.maxactive);
	if (id < 0) {
		ev[0] = '\0';
		errno = -id;
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	pfd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1,
			   PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		goto fail;
	po.bpf_cookie = cookie;
	ln = bpf_program__attach_perf_event_opts(prog, pfd, &po);
	if (ln)
		return ln;
	err = errno;
	close(pfd);
	errno = err;
fail:
	/* the caller may fall back to the PMU: no event of ours stays */
	err = errno;
	tracefs_kprobe_del(ev);
	ev[0] = '\0';
	errno = err;
	return NULL;
}

/*
 * kprobe/kretprobe on @func.  The kprobe through libbpf and the kprobe PMU;
 * the kretprobe through a tracefs kprobe event where the kernel has them
 * (maxactive, miss count), else the PMU too.  A tracefs event costs more
 * to make and remove (its tracefs directory), so the kprobe, which has no
 * maxactive and rarely misses, does without.
 */
static int attach_kprobe(struct loader *l, struct timer_links *tl,
			 uint32_t id, const char *func, uint32_t a_entry,
			 uint32_t a_ret, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko);
	char sfx[24];
	struct bpf_link *ln;
	int err, tfs = 0;

	if (!loader_kprobes()) {
		snprintf(why, len,
			 "the kernel has no kprobes (CONFIG_KPROBES off)");
		return -EOPNOTSUPP;
	}
	last_msg[0] = '\0';
	/*
	 * The return probe first: kprobes on one address run newest first
	 * (add_new_kprobe(), kernel/kprobes.c), so fn_entry then runs before
	 * the kretprobe replaces the return address, as frame_returned() in
	 * bpf/iprof.bpf.h expects.
	 */
	if (a_ret != IPROF_NO_NEXT) { /* else never returns: entry only */
		tfs = l->opts.maxactive && tracefs_kprobe_ok();
		ln = NULL;
		if (tfs) {
			snprintf(sfx, sizeof(sfx), "%ur", id);
			ln = attach_kprobe_event(l, l->skel->progs.fn_return,
						 func, 1, a_ret, tl->kev, sfx);
			if (!ln && errno == ENOENT)
				goto fail; /* no such function */
			/* else (EEXIST, EBUSY, ...): try the PMU */
			tfs = ln != NULL;
		}
		if (!ln) {
			ko.bpf_cookie = a_ret;
			ko.retprobe = true;
			ln = bpf_program__attach_kprobe_opts(
				l->skel->progs.fn_return, func, &ko);
		}
		if (!ln || keep_link(tl, ln))
			goto fail;
	}
	ko.bpf_cookie = a_entry;
	ko.retprobe = false;
	ln = bpf_program__attach_kprobe_opts(l->skel->progs.fn_entry, func,
					     &ko);
	if (!ln || keep_link(tl, ln))
		goto fail;
	return 0;
fail:
	err = -errno;
	if (err == -ENOENT && tfs)
		snprintf(why, len, "no kernel function '%s' to kprobe", func);
	else
		reason(why, len, err);
	return err;
}

static int attach_func_timer(struct loader *l, uint32_t id, char *why,
			     size_t len)
{
	struct plan_timer *t = &l->plan->timers[id];
	struct timer_links *tl = &l->links[id];
	const char *func = t->func;
	char fwhy[384] = "", kwhy[384] = "";
	uint32_t ae = 0, ar = IPROF_NO_NEXT; /* no return: entry-only */
	int err = -EINVAL;

	func_actions(l->plan, id, &ae, &ar);
	if (t->kind == PROBE_FENTRY || t->kind == PROBE_FUNC) {
		err = attach_fentry(l, tl, id, ar, fwhy, sizeof(fwhy));
		if (!err) {
			t->mech = t->entry_only ? "fentry (never returns)" :
						  "fentry/fexit";
			return 0;
		}
		drop_links(tl);
		if (t->kind == PROBE_FENTRY) {
			snprintf(why, len, "%s", fwhy);
			return err;
		}
	}
	err = attach_kprobe(l, tl, id, func, ae, ar, kwhy, sizeof(kwhy));
	if (!err) {
		l->nkprobe_timers++;
		t->mech = t->entry_only ? "kprobe (never returns)" :
					  "kprobe/kretprobe";
		return 0;
	}
	drop_links(tl);
	if (t->kind == PROBE_FUNC)
		snprintf(why, len, "fentry: %s; kprobe: %s", fwhy, kwhy);
	else
		snprintf(why, len, "%s", kwhy);
	return err;
}

/*
 * Syscall spans: the two raw syscall programs, once, before any chain is
 * put in sc_chain.  Returns 0 or -errno, the reason kept in l->sc_why for
 * every syscall attachment.
 */
static int attach_syscalls(struct loader *l)
{
	char why[512];
	int err;

	l->sc_links[0] = bpf_program__attach(l->skel->progs.sc_enter);
	if (l->sc_links[0])
		l->sc_links[1] = bpf_program__attach(l->skel->progs.sc_exit);
	if (l->sc_links[1])
		return 0;
	err = -errno;
	reason(why, sizeof(why), err);
	bpf_link__destroy(l->sc_links[0]);
	l->sc_links[0] = NULL;
	free(l->sc_why);
	l->sc_why = NULL;
	if (asprintf(&l->sc_why, "raw syscall tracepoints: %s", why) < 0)
		l->sc_why = NULL;
	return err;
}

/* Is attachment @i in place (its link, a uprobe_multi link, or its
 * sc_chain slot)? */
static int att_attached(const struct loader *l, uint32_t i)
{
	if (l->plan->att[i].mech == MECH_SYSCALL)
		return l->sc_links[1] != NULL;
	return l->att_links[i] != NULL || (l->att_multi && l->att_multi[i]);
}

/*
 * User functions in uprobe_multi links where the kernel has them: one link
 * per binary for the entries and one for the returns, each function's
 * cookie the first action of its chain.  A link the kernel refuses leaves
 * its functions to attach_att(), one perf event each.  Returns 0 or
 * -ENOMEM.
 */
static int attach_umulti(struct loader *l)
{
	struct plan *p = l->plan;
	uint64_t *offs = NULL, *cookies = NULL;
	struct bpf_program *prog;
	uint32_t i, j, n;
	int fd, *fds, ret = 0;

	if (bpf_program__fd(l->skel->progs.fn_entry_m) < 0)
		return 0; /* not loaded: no uprobe_multi here */
	l->att_multi = calloc(p->natt ? p->natt : 1, 1);
	offs = calloc(p->natt ? p->natt : 1, sizeof(*offs));
	cookies = calloc(p->natt ? p->natt : 1, sizeof(*cookies));
	if (!l->att_multi || !offs || !cookies) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->natt; i++) {
		if ((p->att[i].mech != MECH_UPROBE &&
		     p->att[i].mech != MECH_URETPROBE) ||
		    l->att_multi[i])
			continue;
		for (n = 0, j = i; j < p->natt; j++)
			if (p->att[j].mech == p->att[i].mech &&
			    !strcmp(p->att[j].path, p->att[i].path)) {
				offs[n] = p->att[j].offset;
				cookies[n++] = p->att[j].action;
			}
		prog = p->att[i].mech == MECH_UPROBE ?
			       l->skel->progs.fn_entry_m :
			       l->skel->progs.fn_return_m;
		fd = umulti_attach(bpf_program__fd(prog), p->att[i].path, offs,
				   cookies, n, p->att[i].mech == MECH_URETPROBE);
		if (fd < 0)
			continue; /* one perf event each, as before */
		fds = realloc(l->umulti_fds, (l->numulti + 1) * sizeof(*fds));
		if (!fds) {
			close(fd);
			ret = -ENOMEM;
			goto out;
		}
		l->umulti_fds = fds;
		fds[l->numulti++] = fd;
		for (j = i; j < p->natt; j++)
			if (p->att[j].mech == p->att[i].mech &&
			    !strcmp(p->att[j].path, p->att[i].path))
				l->att_multi[j] = 1;
	}
out:
	free(offs);
	free(cookies);
	return ret;
}

static struct bpf_link *attach_att(struct loader *l, const struct plan_att *a)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, to);
	LIBBPF_OPTS(bpf_uprobe_opts, uo);

	last_msg[0] = '\0';
	switch (a->mech) {
	case MECH_TRACEPOINT:
		to.bpf_cookie = a->action;
		return bpf_program__attach_tracepoint_opts(
			l->skel->progs.tp_hit, a->category, a->event, &to);
	case MECH_UPROBE:
	case MECH_URETPROBE:
		/* the planner resolved path (absolute) and the function's
		 * file offset (src/sym.c): attach by offset, not by name */
		uo.bpf_cookie = a->action;
		uo.func_name = NULL;
		uo.retprobe = a->mech == MECH_URETPROBE;
		return bpf_program__attach_uprobe_opts(
			uo.retprobe ? l->skel->progs.fn_return :
				      l->skel->progs.fn_entry,
			-1, a->path, (size_t)a->offset, &uo);
	default:
		errno = EINVAL;
		return NULL;
	}
}

/* Does attachment @a run an action of @timer? */
static int att_uses(const struct plan *p, const struct plan_att *a,
		    uint32_t timer);

/* Is @timer in a uprobe_multi link? */
static int timer_in_umulti(const struct loader *l, uint32_t timer)
{
	uint32_t i;

	for (i = 0; l->att_multi && i < l->plan->natt; i++)
		if (l->att_multi[i] && att_uses(l->plan, &l->plan->att[i], timer))
			return 1;
	return 0;
}

/* Does @timer ride on the raw syscall tracepoints (a syscall span)? */
static int timer_on_syscalls(const struct plan *p, uint32_t timer)
{
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		if (p->att[i].mech == MECH_SYSCALL &&
		    att_uses(p, &p->att[i], timer))
			return 1;
	return 0;
}

/* Does attachment @a run an action of @timer? */
static int att_uses(const struct plan *p, const struct plan_att *a,
		    uint32_t timer)
{
	uint32_t i, n = 0;

	for (i = a->action; i != IPROF_NO_NEXT && n++ < p->nactions;
	     i = p->actions[i].next)
		if (p->actions[i].timer == timer)
			return 1;
	return 0;
}

/* Turn @timer's actions off in BPF: its attachment is partial. */
static void disable_timer(struct loader *l, uint32_t timer)
{
	struct plan *p = l->plan;
	uint32_t i;

	for (i = 0; i < p->nactions; i++) {
		if (p->actions[i].timer != timer)
			continue;
		p->actions[i].role = 0;
		bpf_map_update_elem(bpf_map__fd(l->skel->maps.actions), &i,
				    &p->actions[i], BPF_ANY);
	}
}

int loader_attach(struct loader *l, void (*on_skip)(const struct plan_timer *t))
{
	uint64_t t_start, t_shown;
	struct plan *p = l->plan;
	char why[1024], **att_why;
	uint32_t id, i;
	int n = 0, err;

	/* interrupt entries before the timers' probes, exits after: see
	 * irq_edge() in bpf/iprof.bpf.c */
	err = attach_irq_edges(l, 1);
	if (err)
		return err;
	/* spans and uprobes: one link per attachment (shared tracepoints) */
	att_why = calloc(p->natt ? p->natt : 1, sizeof(*att_why));
	if (!att_why)
		return -ENOMEM;
	if (plan_has_mech(p, MECH_SYSCALL) && !l->sc_links[1])
		attach_syscalls(l);
	if (!l->att_multi && attach_umulti(l)) {
		free(att_why);
		return -ENOMEM;
	}
	for (i = 0; i < p->natt; i++) {
		__u32 head = p->att[i].action + 1;

		if (p->att[i].mech == MECH_FUNC_ENTRY ||
		    p->att[i].mech == MECH_FUNC_RETURN ||
		    (l->att_multi && l->att_multi[i]))
			continue;
		if (p->att[i].mech == MECH_SYSCALL) {
			/* its chain in the syscall's slot */
			if (l->sc_links[1] &&
			    bpf_map_update_elem(bpf_map__fd(l->skel->maps.sc_chain),
						&p->att[i].sc_slot, &head,
						BPF_ANY)) {
				bpf_link__destroy(l->sc_links[0]);
				bpf_link__destroy(l->sc_links[1]);
				l->sc_links[0] = l->sc_links[1] = NULL;
				if (asprintf(&l->sc_why, "sc_chain: %s",
					     strerror(errno)) < 0)
					l->sc_why = NULL;
			}
			continue;
		}
		l->att_links[i] = attach_att(l, &p->att[i]);
		if (!l->att_links[i]) {
			reason(why, sizeof(why), -errno);
			att_why[i] = strdup(why);
		}
	}

	t_start = util_now_ns();
	t_shown = t_start;
	for (id = 0; id < p->ntimers; id++) {
		struct plan_timer *t = &p->timers[id];

		if (l->opts.cancel && *l->opts.cancel) {
			n = -EINTR;
			break;
		}
		if (l->opts.progress && util_now_ns() - t_shown > 500000000ull) {
			t_shown = util_now_ns();
			fprintf(stderr, "iprof: attaching: %u of %u timers, %.1f s\n",
				id, p->ntimers, (double)(t_shown - t_start) / 1e9);
		}
		why[0] = '\0';
		err = 0;
		if (t->error) {
			disable_timer(l, id);
			if (on_skip)
				on_skip(t);
			continue;
		}
		if (t->kind == PROBE_SPAN || t->kind == PROBE_UPROBE) {
			for (i = 0; i < p->natt && !err; i++) {
				if (!att_uses(p, &p->att[i], id) ||
				    att_attached(l, i))
					continue;
				if (p->att[i].mech == MECH_SYSCALL)
					att_why[i] = strdup(l->sc_why ? l->sc_why : "failed");
				snprintf(why, sizeof(why), "%s %s%s%s: %s",
					 p->att[i].mech == MECH_TRACEPOINT ||
							 p->att[i].mech ==
								 MECH_SYSCALL ?
						 "tracepoint" :
					 p->att[i].mech == MECH_UPROBE ?
						 "uprobe" :
						 "uretprobe",
					 p->att[i].category ?
						 p->att[i].category :
						 p->att[i].path,
					 ":",
					 p->att[i].event ? p->att[i].event :
							   p->att[i].func,
					 att_why[i] ? att_why[i] : "failed");
				err = -EINVAL;
			}
			t->mech = t->kind == PROBE_UPROBE ?
					  (timer_in_umulti(l, id) ?
						   "uprobe/uretprobe (uprobe_multi)" :
						   "uprobe/uretprobe") :
				  timer_on_syscalls(p, id) ?
					  "tracepoint (raw syscalls)" :
					  "tracepoint";
		} else {
			err = attach_func_timer(l, id, why, sizeof(why));
		}
		if (err) {
			disable_timer(l, id);
			if (asprintf(&t->error, "%s:%d: %s", t->probe->file,
				     t->probe->line, why) < 0) {
				t->error = NULL;
				n = -ENOMEM;
				break;
			}
			if (on_skip)
				on_skip(t);
			continue;
		}
		t->attached = 1;
		n++;
	}
	for (i = 0; i < p->natt; i++)
		free(att_why[i]);
	free(att_why);
	if (n < 0)
		return n;
	/*
	 * The fexit programs of timers on one function, in reverse order of
	 * their fentry programs: a trampoline runs both kinds in the same
	 * order of attachment (kernel/bpf/trampoline.c), so the stops come
	 * innermost first, as the returns of nested calls do.  (kretprobes
	 * on one function return in reverse order by themselves.)
	 */
	for (id = p->ntimers; id-- > 0;) {
		struct plan_timer *t = &p->timers[id];

		if (!l->links[id].exit_pending)
			continue;
		l->links[id].exit_pending = 0;
		if (!t->attached || !attach_slot(&l->links[id], 1, why,
						 sizeof(why)))
			continue;
		drop_links(&l->links[id]);
		disable_timer(l, id);
		t->attached = 0;
		n--;
		if (asprintf(&t->error, "%s:%d: fexit: %s", t->probe->file,
			     t->probe->line, why) < 0) {
			t->error = NULL;
			return -ENOMEM;
		}
		if (on_skip)
			on_skip(t);
	}
	l->fork_link = bpf_program__attach(l->skel->progs.on_fork);
	l->exit_link = bpf_program__attach(l->skel->progs.on_exit);
	l->exec_link = bpf_program__attach(l->skel->progs.on_exec);
	l->switch_link = bpf_program__attach(l->skel->progs.on_switch);
	if (!l->fork_link || !l->exit_link || !l->switch_link ||
	    !l->exec_link)
		return -errno;
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
	return n;
}

int loader_set_tracing(struct loader *l, int on)
{
	__u32 zero = 0, v = !!on;

	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.ctl), &zero, &v,
				BPF_ANY))
		return -errno;
	return 0;
}

int loader_poll(struct loader *l, int timeout_ms)
{
	struct epoll_event ev;
	uint64_t w;
	int n, m;

	n = epoll_wait(ring_buffer__epoll_fd(l->rb), &ev, 1, timeout_ms);
	if (n < 0)
		return -errno;
	/*
	 * The watermark: every record that a thread committed before one of
	 * its records stamped earlier than w is in its ring by now, so the
	 * stream may deliver everything stamped before w (src/stream.h).
	 */
	w = util_now_ns();
	m = ring_buffer__consume(l->rb);
	if (m < 0)
		return m;
	n = stream__flush(l->stream, w);
	if (n < 0)
		return n;
	return m;
}

int loader_drain(struct loader *l)
{
	int m, n;

	m = ring_buffer__consume(l->rb);
	if (m < 0)
		return m;
	n = stream__drain(l->stream);
	return n < 0 ? n : m;
}

/* Sum of bpf_prog_info.recursion_misses over the programs of @obj. */
static uint64_t recursion_misses(struct bpf_object *obj)
{
	struct bpf_prog_info info;
	struct bpf_program *p;
	__u32 len;
	uint64_t n = 0;

	bpf_object__for_each_program(p, obj) {
		if (bpf_program__fd(p) < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

unsigned int loader_nprobes(const struct loader *l)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < l->plan->natt; i++)
		n += l->att_links[i] != NULL;
	for (i = 0; i < l->plan->ntimers; i++)
		n += (unsigned int)l->links[i].n;
	return n + (l->sc_links[0] != NULL) + (l->sc_links[1] != NULL) +
	       l->numulti;
}

/*
 * Releasing a tracepoint's last perf event waits for RCU grace periods
 * under the kernel's event_mutex, so detaching is serial and slow with many
 * tracepoints (about 50 ms each); main.c leaves that to a background child
 * once the report is out.
 */
void loader_detach(struct loader *l)
{
	uint32_t i;
	size_t j;

	if (!l)
		return;
	for (i = 0; i < l->plan->ntimers; i++) {
		drop_links(&l->links[i]);
		l->links[i].fobj = NULL;
	}
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
	bpf_link__destroy(l->sysenter_link);
	l->sysenter_link = NULL;
	bpf_link__destroy(l->sc_links[0]);
	bpf_link__destroy(l->sc_links[1]);
	l->sc_links[0] = l->sc_links[1] = NULL;
	for (i = 0; i < l->numulti; i++)
		close(l->umulti_fds[i]);
	l->numulti = 0;
	bpf_link__destroy(l->switch_link);
	l->fork_link = l->exit_link = l->switch_link = l->exec_link = NULL;
	for (i = 0; i < (uint32_t)l->nirq; i++)
		bpf_link__destroy(l->irq_links[i]);
	l->nirq = 0;
}

int loader_targets_alive(struct loader *l)
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

uint64_t loader_rb_bytes(const struct loader *l, unsigned int *nrings)
{
	if (nrings)
		*nrings = l->nrings;
	return l->opts.rb_bytes;
}

void loader_loss(struct loader *l, struct report_loss *loss)
{
	size_t j;
	int ncpu = libbpf_num_possible_cpus(), c;
	__u64 *v;
	__u32 k;

	memset(loss, 0, sizeof(*loss));
	if (ncpu <= 0)
		return;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return;
	for (k = 0; k < IPROF_CNT_MAX; k++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.counters), &k,
					v))
			continue;
		for (c = 0; c < ncpu; c++)
			sum += v[c];
		if (k == IPROF_CNT_RB_DROP)
			loss->rb_drops = sum;
		else if (k == IPROF_CNT_DEPTH_OVERFLOW)
			loss->depth_overflow = sum;
		else if (k == IPROF_CNT_NO_STORAGE)
			loss->no_storage = sum;
	}
	free(v);
	loss->recursion_misses = recursion_misses(l->skel->obj) +
				 l->clone_misses;
	for (j = 0; j < l->nfobjs; j++)
		loss->recursion_misses += recursion_misses(l->fobjs[j]->obj);
}

uint64_t loader_kprobe_misses(struct loader *l, uint32_t timer)
{
	unsigned long long hits, misses;

	if (l->links[timer].kev[0] &&
	    !tracefs_kprobe_profile(l->links[timer].kev, &hits, &misses))
		return misses;
	return 0;
}

unsigned int loader_kretprobe_maxactive(struct loader *l, uint32_t timer)
{
	return l->links[timer].kev[0] ? l->opts.maxactive : 0;
}

uint64_t loader_orphans(struct loader *l, uint32_t timer)
{
	__u64 v = 0;

	bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.orphans), &timer, &v);
	return v;
}

void loader_close(struct loader *l)
{
	unsigned int i;

	if (!l)
		return;
	if (l->links && l->att_links)
		loader_detach(l);
	ring_buffer__free(l->rb);
	for (i = 0; l->ring_fds && i < l->nrings; i++)
		if (l->ring_fds[i] >= 0)
			close(l->ring_fds[i]);
	free(l->ring_fds);
	free(l->ring_src);
	stream__free(l->stream);
	free(l->sc_why);
	free(l->umulti_fds);
	free(l->att_multi);
	iprof__destroy(l->skel);
	free(l->links);
	free(l->att_links);
	free(l);
}
