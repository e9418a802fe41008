/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named arguments of kernel functions, from the kernel's BTF
 * (/sys/kernel/btf/vmlinux and the modules' split BTF beside it): the
 * plan_arg_fn of include/iprof/plan.h.
 */
#ifndef IPROF_BTFARG_H
#define IPROF_BTFARG_H

#include <stddef.h>

struct btf;

struct btfarg {
	struct btf *vmlinux; /* loaded on first use */
	struct btf **mods; /* module BTFs, split on vmlinux */
	size_t nmods;
	int loaded; /* 1 once loading was tried */
	/* btfarg_params()'s index of the functions and its type printers,
	 * made on its first call (src/kernel/btfarg.c) */
	struct btfarg_idx *idx;
};

/*
 * btfarg_resolve() - plan_arg_fn: argument @name of @func: index, width
 * (bytes: the type's size, pointers 8) and signedness (BTF_INT_SIGNED;
 * enums per their BTF kind flag).  @ctx is a struct btfarg.  Returns 0,
 * -ENOENT (no BTF for @func), -ESRCH (no such argument; @names lists them).
 */
int btfarg_resolve(void *ctx, const char *func, const char *name, int *index,
		   int *width, int *is_signed, char *names, size_t len);

/*
 * btfarg_params() - plan_params_fn: @func's return value and first
 * IPROF_NARGS arguments, named and typed from BTF, into *@out (malloc'ed,
 * the caller's; the format is plan_params_fn's).  @ctx is a struct
 * btfarg.  Returns 0, -ENOENT (no BTF for @func), -E2BIG (too long),
 * -ENOMEM; *@out is NULL on error.
 */
int btfarg_params(void *ctx, const char *func, char **out);

/* btfarg_free() - free the BTF loaded; @b may be NULL. */
void btfarg_free(struct btfarg *b);

#endif
