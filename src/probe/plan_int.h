/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * plan_int.h - the planner's own: what plan.c and the shape files
 * (plan_kfunc.c, plan_ufunc.c, plan_span.c, plan_inline.c,
 * plan_tracefs.c) share while plan_build() runs.  Not a public API.
 */
#ifndef IPROF_PLAN_INT_H
#define IPROF_PLAN_INT_H

#include <limits.h>
#include <stddef.h>

#include "iprof/plan.h"

struct sym_cache;
struct retsite_ctx;
struct kmod_debug;

/* old_copy()'s answers kept per build (a glob asks once per function) */
#define PLAN_OLD_COPIES 8

/* one old_copy() answer: (pid, path) -> ret, deleted, out */
struct plan_old_copy {
	int pid, ret, deleted;
	char *path; /* owned; NULL: an empty slot */
	char out[PATH_MAX];
};

/*
 * struct planner - all plan_build() reads once and reuses, owned by the
 * plan while it is built (plan.pn; NULL after), so that plan_build() is
 * reentrant: no file-scope state.
 */
struct planner {
	/* the ELF files of its uprobes, each read and indexed once */
	struct sym_cache *syms;
	struct retsite_ctx *rsx; /* retsite_find()'s over @syms */
	/* the last few (pid, path) old copies looked for (-p) */
	struct plan_old_copy old[PLAN_OLD_COPIES];
	unsigned int old_next;
	/* --returns auto's judgment of the last file (a glob's functions
	 * share it): its path, the evidence, and whether a uretprobe */
	char *auto_path, *auto_risk;
	int auto_uret;
	/* the loaded kernel modules' debug files, read at the first need */
	struct kmod_debug *kdbg;
	size_t nkdbg, kdbg_stale;
	int kdbg_read;
};

#endif /* IPROF_PLAN_INT_H */
