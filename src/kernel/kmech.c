// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attachment mechanisms, one row each (src/kernel/kmech.h): their
 * words, programs and attach functions, and the choice of programs a
 * plan loads.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "kernel/loader_int.h"
#include "kernel/attach_kprobe.h"
#include "kernel/attach_tp.h"
#include "kernel/attach_usdt.h"
#include "kernel/kmech.h"
#include "kernel/uprobe_emu.h"
#include "kernel/uprobe_multi.h"

/* program @name of the skeleton, as a row holds it */
#define P(name) offsetof(struct iprof, progs.name)

static const struct kmech rows[] = {
	[MECH_TRACEPOINT] = {
		.label = MLABEL_TRACEPOINT,
		.prog = { { P(tp_hit), P(tp_hit) } },
		.attach = attach_tp_tracepoint,
	},
	[MECH_UPROBE] = {
		.label = MLABEL_ATT_UPROBE,
		.user = 1,
		.any_user = 1, /* a uprobe_multi link refused: one each */
		.emu = 1,
		.prog = { { P(fn_entry_u), P(fn_entry_ux) },
			  { P(fn_entry_m), P(fn_entry_mx) } },
		.prepare = attach_tp_umulti,
		.attach = attach_tp_uprobe,
	},
	[MECH_URETPROBE] = {
		.label = MLABEL_ATT_URETPROBE,
		.user = 1,
		.retprobe = 1,
		.prog = { { P(fn_return_u), P(fn_return_u) },
			  { P(fn_return_m), P(fn_return_m) } },
		.attach = attach_tp_uprobe,
	},
	[MECH_RETSITE] = {
		.label = MLABEL_ATT_RETSITE,
		.user = 1,
		.site = 1,
		.emu = 1,
		.prog = { { P(fn_rsite), P(fn_rsite_x) },
			  { P(fn_rsite_m), P(fn_rsite_mx) } },
		.attach = attach_tp_uprobe,
	},
	[MECH_KSITE] = {
		.label = MLABEL_KPROBE_INLINED,
		.site = 1,
		.at_offset = 1,
		.prog = { { P(fn_ksite), P(fn_ksite) } },
		.attach = attach_kprobe_site,
	},
	/* a function timer's: its programs are chosen per timer (fentry
	 * objects, kprobe or kprobe_multi: loader.c choose_programs()) */
	[MECH_FUNC_ENTRY] = { .label = MLABEL_FENTRY },
	[MECH_FUNC_RETURN] = { .label = MLABEL_FENTRY },
	[MECH_SYSCALL] = {
		.label = MLABEL_TRACEPOINT,
		.raw_syscalls = 1,
		.prog = { { P(sc_enter), P(sc_enter) } },
		.prog2 = P(sc_exit),
		.prepare = attach_tp_syscalls,
		.attach = attach_tp_syscall,
	},
	[MECH_USDT] = {
		.label = MLABEL_USDT,
		.prog = { { P(usdt_hit), P(usdt_hit) } },
		.attach = attach_usdt,
	},
	[MECH_UMARK] = {
		.label = MLABEL_ATT_UMARK,
		.user = 1,
		.prog = { { P(fn_mark_u), P(fn_mark_u) },
			  { P(fn_mark_m), P(fn_mark_m) } },
		.attach = attach_tp_uprobe,
	},
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

const struct kmech *kmech(enum plan_mech m)
{
	return &rows[(unsigned int)m < NROWS ? m : MECH_FUNC_ENTRY];
}

unsigned int kmech_plan(const struct plan *p)
{
	unsigned int used = 0;
	uint32_t i;

	for (i = 0; i < p->natt; i++)
		used |= 1u << p->att[i].mech;
	return used;
}

/* the program at offset @off of @l's skeleton, or NULL (@off 0) */
static struct bpf_program *prog_at(const struct loader *l, size_t off)
{
	return off ? *(struct bpf_program **)((char *)l->skel + off) : NULL;
}

struct bpf_program *kmech_prog(const struct loader *l, const struct kmech *m,
			       int multi)
{
	return prog_at(l, m->prog[!!multi][!!l->emu]);
}

static void want(const struct loader *l, size_t off, int on)
{
	struct bpf_program *p = prog_at(l, off);

	if (p)
		bpf_program__set_autoload(p, on);
}

/*
 * The user rows' programs: the *_x ones where a uprobe program may write
 * its registers (they run a return site's ret and skip an entry's
 * endbr64 themselves; a cookie of kind IPROF_EMU_NONE: as the plain
 * ones); where the kernel has uprobe_multi links, only their programs:
 * a link that fails falls back to a link of one uprobe each, made of the
 * same program (attach_tp.c uprobe_link()).  The verifier takes each
 * program apart (70-370 ms on this 2-CPU host, seconds under TCG): the
 * plain ones loaded beside them doubled a uprobe run's BPF load.
 */
void kmech_choose(struct loader *l, unsigned int used)
{
	unsigned int m, fu = 0, um = 0;
	int x;

	for (m = 0; m < NROWS; m++) {
		fu |= rows[m].user && (used & (1u << m));
		um |= rows[m].any_user && (used & (1u << m));
	}
	um = um && uprobe_multi_supported() &&
	     !getenv("IPROF_NO_UPROBE_MULTI");
	l->emu = fu && uprobe_emu_supported();
	for (m = 0; m < NROWS; m++) { /* every row's off, then the used on */
		for (x = 0; x < 4; x++)
			want(l, rows[m].prog[x / 2][x % 2], 0);
		want(l, rows[m].prog2, 0);
	}
	for (m = 0; m < NROWS; m++) {
		const struct kmech *r = &rows[m];

		if (!(used & (1u << m)) && !(r->any_user && fu))
			continue;
		want(l, r->prog[r->user && um][l->emu], 1);
		want(l, r->prog2, 1);
	}
	/* stack switches told by libc's context functions: with user
	 * timers only (kernel/attach_ctx.h) */
	want(l, offsetof(struct iprof, progs.ctx_switch), (int)fu);
}

void kmech_why(const struct plan_att *a, const char *reason, char *why,
	       size_t len)
{
	const struct kmech *m = kmech(a->mech);

	if (!reason)
		reason = "failed";
	if (m->at_offset) /* MOD:SYM+OFF */
		snprintf(why, len, "%s %s+%#llx: %s", mech_label(m->label),
			 a->func, (unsigned long long)a->offset, reason);
	else
		snprintf(why, len, "%s %s:%s: %s", mech_label(m->label),
			 a->category ? a->category : a->path,
			 a->event ? a->event : a->func, reason);
}
