/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named arguments of kernel functions, from the kernel's BTF
 * (/sys/kernel/btf/vmlinux and the modules' split BTF beside it): the
 * plan_arg_fn of include/iprof/plan.h.
 */
#ifndef IPROF_BTFARG_H
#define IPROF_BTFARG_H

#include <stddef.h>
#include <stdint.h>

struct btf;

struct btfarg {
	struct btf *vmlinux; /* loaded on first use */
	struct btf **mods; /* module BTFs, split on vmlinux */
	size_t nmods;
	int loaded; /* 1 once loading was tried */
	/* btfarg_params()'s index of the functions and its type printers,
	 * made on its first call (src/kernel/btfarg.c) */
	struct btfarg_idx *idx;
	/* btfarg_enum_name()'s types looked up so far (src/kernel/btfarg.c) */
	struct btfarg_enum *enums;
	size_t nenums;
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

/*
 * btfarg_enum_name() - the name of value @v of the enum that C type
 * @type declares ("enum hrtimer_mode", "const enum x", or a typedef of
 * an enum), found in the kernel's BTF (vmlinux, then the modules') into
 * @buf (@len bytes).  @v is compared within the enum's size (a 4-byte
 * enum's -1 is 0xffffffff).  Each @type is looked up once (a BTF scan).
 * Returns @buf, or NULL: no BTF, not an enum, no enumerator of that value.
 */
const char *btfarg_enum_name(struct btfarg *b, const char *type, int64_t v,
			     char *buf, size_t len);

#endif
