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
};

/*
 * btfarg_resolve() - plan_arg_fn: argument @name of @func: index, width
 * (bytes: the type's size, pointers 8) and signedness (BTF_INT_SIGNED;
 * enums per their BTF kind flag).  @ctx is a struct btfarg.  Returns 0,
 * -ENOENT (no BTF for @func), -ESRCH (no such argument; @names lists them).
 */
int btfarg_resolve(void *ctx, const char *func, const char *name, int *index,
		   int *width, int *is_signed, char *names, size_t len);

/* btfarg_free() - free the BTF loaded; @b may be NULL. */
void btfarg_free(struct btfarg *b);

#endif
