/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel function names, for planning fentry:/kprobe:/func: timers before
 * anything is loaded.  Kernel-free: reads two text files whose paths the
 * caller gives (fixtures in tests):
 *  - kallsyms (proc(5) /proc/kallsyms): "ADDR TYPE NAME [MODULE]"; the text
 *    symbols (t, T) are the functions that exist;
 *  - available_filter_functions (Documentation/trace/ftrace.rst): "NAME" or
 *    "NAME [MODULE]"; the functions ftrace can patch, so fentry and
 *    kprobes-on-ftrace can attach.  Often unreadable under lockdown: then
 *    traceability is unknown and the kernel decides at attach time.
 * The same list serves the functions of a user ELF file (sym_func_names()
 * in iprof/sym.h), so globs, their cap and clone hints work alike for
 * kernel and user functions.
 */
#ifndef IPROF_KSYM_H
#define IPROF_KSYM_H

#include <stddef.h>

/*
 * Each entry is "NAME\0MODULE\0" and a flag byte (KSYM_F_*) (MODULE empty
 * when none: see ksyms_module()), so the entries compare and print as
 * their names.
 */
/* more than one text symbol has this name (static functions of different
 * files, or of a module and the kernel) */
#define KSYM_F_REPEATED 0x1

struct ksyms {
	char **funcs; /* sorted, unique text symbol names; owned */
	size_t nfuncs;
	char **traceable; /* sorted, unique; NULL when unknown */
	size_t ntraceable;
};

/*
 * ksyms_load() - read @kallsyms and @filter_functions (either may be NULL
 * or unreadable: that list stays empty/unknown).  Returns 0 or -ENOMEM;
 * free with ksyms_free().
 */
int ksyms_load(struct ksyms *k, const char *kallsyms,
	       const char *filter_functions);

/*
 * ksyms_add() - append function @name (@len bytes, need not be
 * NUL-terminated) of @module (NULL: none) to @k->funcs, a copy owned by
 * @k; call ksyms_sort() when done.  Returns 0 or -ENOMEM.
 */
int ksyms_add(struct ksyms *k, const char *name, size_t len,
	      const char *module);

/* ksyms_sort() - sort @k->funcs by name and drop repeated names. */
void ksyms_sort(struct ksyms *k);

/* ksyms_module() - the module of list entry @entry ("kvm"), "" if none. */
const char *ksyms_module(const char *entry);

/*
 * ksym_clone_suffix() - is @sfx (what follows a function's name in a
 * symbol) a compiler clone's suffix: '.' and dot-separated parts that GCC
 * (cgraphclones.cc: clone_function_name) and clang give clones, the first
 * a word (isra, constprop, part, lto_priv, localalias, cold, llvm,
 * specialized), the rest words or numbers (".constprop.0.isra.0")?
 * Returns 1 for a clone, 2 for a cold part (a part "cold": split-off
 * blocks entered by a jump, never called), 0 otherwise: Go's closures and
 * methods (main.main.func1, pkg.f.func2.1, main.(*T).M) are no clones.
 */
int ksym_clone_suffix(const char *sfx);

/* ksym_base_len() - length of the function name that @name is a compiler
 * clone of (bytes before the first '.' that starts a clone suffix,
 * ksym_clone_suffix()); strlen(@name) if not a clone. */
size_t ksym_base_len(const char *name);

/* ksyms_free() - free what ksyms_load() allocated; @k may be NULL. */
void ksyms_free(struct ksyms *k);

/* ksyms_exists() - 1 if @name is a kernel text symbol, 0 if not, -1 if
 * kallsyms could not be read. */
int ksyms_exists(const struct ksyms *k, const char *name);

/*
 * ksyms_repeated() - 1 if more than one kernel text symbol is named @name
 * (a kprobe by name is then refused: EADDRNOTAVAIL, see
 * number_of_same_symbols() in kernel/trace/trace_kprobe.c), 0 if one or
 * none, -1 if kallsyms could not be read.
 */
int ksyms_repeated(const struct ksyms *k, const char *name);

/* ksyms_module_of() - the module kernel text symbol @name is in ("kvm"),
 * "" when in vmlinux, not a symbol, or in several places. */
const char *ksyms_module_of(const struct ksyms *k, const char *name);

/* ksyms_traceable() - 1 if ftrace can patch @name, 0 if not, -1 unknown. */
int ksyms_traceable(const struct ksyms *k, const char *name);

/*
 * ksyms_match() - the functions matching glob @pattern (fnmatch(3)), from
 * the traceable list when known, else from kallsyms; each passed to @fn
 * (in name order) until it returns non-zero, which is returned.
 * Returns 0 when all were passed.  A NULL @pattern matches every name.
 */
int ksyms_match(const struct ksyms *k, const char *pattern,
		int (*fn)(const char *name, void *ctx), void *ctx);

/*
 * ksyms_candidates() - how many names ksyms_match() tries for @pattern:
 * those that begin with its literal prefix (the part before the first
 * "*?[\\"), all of them for "*..." or NULL.  A measure of its cost.
 */
size_t ksyms_candidates(const struct ksyms *k, const char *pattern);

/*
 * ksyms_match_clones() - as ksyms_match(), but a compiler clone
 * (NAME.isra.0, NAME.cold) also matches when NAME does: for listings,
 * where each function shows with its clones.
 */
int ksyms_match_clones(const struct ksyms *k, const char *pattern,
		       int (*fn)(const char *name, void *ctx), void *ctx);

/*
 * ksyms_clones() - names of compiler clones of @name (NAME.isra.N,
 * NAME.constprop.N, NAME.part.N, NAME.cold, ...), comma-separated into
 * @buf (@len bytes, truncated with "..."); returns how many exist.
 */
int ksyms_clones(const struct ksyms *k, const char *name, char *buf,
		 size_t len);

/*
 * ksym_denied() - why iprof refuses to time kernel function @name, or NULL:
 * functions the tracer itself runs (spinlock and RCU internals, preempt
 * count helpers, BPF trampoline entry/exit), which would recurse into it.
 */
const char *ksym_denied(const char *name);

/*
 * ksym_noreturn() - 1 if @name never returns (do_exit, make_task_dead ...,
 * as the BPF verifier's noreturn_deny list in kernel/bpf/verifier.c): fexit
 * is refused there, so such a timer is entry-only and ends at thread exit.
 */
int ksym_noreturn(const char *name);

/*
 * ksym_addr() - the address of the first of @names (NULL-terminated list,
 * tried in order) that @kallsyms defines, or 0 when none is there or the
 * file is unreadable (addresses read as 0 without CAP_SYSLOG:
 * kptr_restrict, Documentation/admin-guide/sysctl/kernel.rst).
 */
unsigned long long ksym_addr(const char *kallsyms, const char *const *names);

/*
 * ksym_suggest() - for a name that is no function, up to 3 of @names
 * (@n entries, as struct ksyms holds them) nearest to @want by edit
 * distance (optimal string alignment: an insertion, deletion, substitution
 * or swap of two neighbours is one edit): within 1 edit for a name of up
 * to 4 bytes, else a quarter of its length, at least 2.  Written as
 * "a, b or c" into @buf (@len bytes), nearest first, then in @names'
 * order; "" when none is that near.  Returns how many it chose (all of
 * them written unless @len cut the text).  Messages put them after
 * KSYM_SUGGEST_PFX, ending with '?'.
 */
#define KSYM_SUGGEST_PFX "; did you mean "
size_t ksym_suggest(char *const *names, size_t n, const char *want,
		    char *buf, size_t len);

/* ksym_suggest_pfx() - ksym_suggest(), each name written after @pfx (a
 * folder: "/usr/bin/"). */
size_t ksym_suggest_pfx(char *const *names, size_t n, const char *want,
			const char *pfx, char *buf, size_t len);

/*
 * Kernel addresses to names (--offcpu-stacks' stacks): the text symbols of
 * a kallsyms file by address.  Addresses are this boot's (KASLR): a
 * recording reported after a reboot names the wrong functions.
 */
struct ksym_addrs;

/*
 * ksym_addrs_load() - read the text symbols of @kallsyms (proc(5)).
 * Returns a table to free with ksym_addrs_free(), or NULL with errno
 * (ENOENT: no symbols with addresses: unreadable, or all 0 without root).
 */
struct ksym_addrs *ksym_addrs_load(const char *kallsyms);

/*
 * ksym_addr_name() - the function containing @addr ("name" or
 * "name [module]", into @buf of @size bytes), *@off its offset in it;
 * NULL when below every symbol (@t may be NULL: always NULL).
 */
const char *ksym_addr_name(const struct ksym_addrs *t, unsigned long long addr,
			   char *buf, size_t size, unsigned long long *off);

/* ksym_addrs_free() - free @t (may be NULL). */
void ksym_addrs_free(struct ksym_addrs *t);

#endif /* IPROF_KSYM_H */
