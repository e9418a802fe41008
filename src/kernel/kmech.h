/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/kernel/kmech.c: one row per attachment mechanism of the plan (enum
 * plan_mech, include/iprof/plan.h): its words (include/iprof/mech.h), its
 * BPF programs, its attach function.  The loader loads the programs of the
 * rows a plan uses and attaches each attachment through its row; the
 * calibration tells a syscall span by its row (raw_syscalls).  Adding a
 * mechanism is a row here and its attach function in
 * src/kernel/attach_*.c.  Internal to src/kernel/ and the CLI's
 * calibration.
 */
#ifndef IPROF_KERNEL_KMECH_H
#define IPROF_KERNEL_KMECH_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/mech.h"
#include "iprof/plan.h"

struct loader;
struct bpf_program;

struct kmech {
	/* one attachment's words, in why it failed (kmech_why()) */
	enum mech_label label;
	/* a uprobe (user functions): may go in a uprobe_multi link;
	 * any_user: the functions' entries, whose plain program loads
	 * whenever the plan has user functions and whose presence puts them
	 * in uprobe_multi links; retprobe: a uretprobe */
	int user, any_user, retprobe;
	/* its cookie: a site's (IPROF_SITE_COOKIE: the frame's register and
	 * offset) where its instruction is not run by the program (emu: one
	 * that may be, uprobe_emu.c) */
	int site, emu;
	/* a kprobe at a kernel function + offset: its words say FUNC+OFF */
	int at_offset;
	/* its attachments ride on the loader's two raw syscall links (in
	 * place with them; why not: loader.sc_why) */
	int raw_syscalls;
	/* its programs: offsets in the skeleton's struct iprof (0: none),
	 * [multi][emu]: one link each (0) or in a uprobe_multi link (1), the
	 * plain or the emulating ones (loader.emu); prog2: loaded and
	 * attached beside prog[0][0] (the raw syscall exit) */
	size_t prog[2][2];
	size_t prog2;
	/* once before the plan's attachments, when the plan has any of this
	 * mechanism: 0, or -errno to stop the attach (out of memory) */
	int (*prepare)(struct loader *l);
	/* attachment @i (plan.att[i]): 0 (in place, or its failure kept
	 * where raw_syscalls says), or -errno with why in @why (@len
	 * bytes).  NULL: a function timer's own, attached per timer
	 * (attach_fentry(), attach_kprobe()) */
	int (*attach)(struct loader *l, uint32_t i, char *why, size_t len);
};

/* kmech() - the row of mechanism @m (a valid enum plan_mech) */
const struct kmech *kmech(enum plan_mech m);
/* kmech_plan() - the mechanisms @p has attachments of: bit 1u << m */
unsigned int kmech_plan(const struct plan *p);
/* kmech_prog() - @m's program in @l's skeleton (@multi: for a
 * uprobe_multi link; the emulating one where l->emu), or NULL */
struct bpf_program *kmech_prog(const struct loader *l, const struct kmech *m,
			       int multi);
/*
 * kmech_choose() - load only the programs of the mechanisms in @used
 * (kmech_plan()), and decide @l->emu (uprobe_emu_supported()) and whether
 * user functions go in uprobe_multi links (uprobe_multi_supported(), not
 * IPROF_NO_UPROBE_MULTI).  Before bpf_object__load(); the function
 * timers' programs are the loader's (choose_programs()).
 */
void kmech_choose(struct loader *l, unsigned int used);
/*
 * kmech_why() - why attachment @a (of plan @p) is not in place, in @why
 * (@len bytes): "uprobe PATH:FUNC: REASON", "kprobe (inlined)
 * FUNC+0xOFF: REASON"; @reason NULL: "failed".
 */
void kmech_why(const struct plan_att *a, const char *reason, char *why,
	       size_t len);

#endif /* IPROF_KERNEL_KMECH_H */
