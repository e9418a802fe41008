/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ELF symbol resolution for uprobes: which file a uprobe PATH names, and
 * the file offset of a function in it.  Kernel-free (libelf only): the
 * planner calls it, so `iprof list`, --dry-run and --strict see a bad
 * binary or a missing function before anything is loaded.
 *
 * Error messages written to @err have no "file:line:col: " prefix; the
 * caller adds where the probe was defined.
 */
#ifndef IPROF_SYM_H
#define IPROF_SYM_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/ksym.h"

/*
 * sym_resolve_path() - the absolute path of the binary that uprobe PATH
 * @name names.
 *
 * A @name containing '/' is a path, relative to the current directory
 * when it does not start with '/'; it is made absolute with realpath(3)
 * (symbolic links resolved).  A bare NAME is searched in $PATH (a regular
 * file with execute permission; empty $PATH entries are ignored, so the
 * current directory is never searched implicitly), then in the library
 * directories /lib, /usr/lib, /lib/<multiarch>, /usr/lib/<multiarch>,
 * /usr/local/lib, /lib64 and /usr/lib64 (a regular file).
 *
 * On success returns 0 and stores a malloc'ed absolute path in *@out (the
 * caller frees it).  Errors: -ENOENT (not found), -ENOMEM, or the -errno
 * of realpath(3); @err (size @errlen, may be NULL) receives a message.
 */
int sym_resolve_path(const char *name, char **out, char *err, size_t errlen);

/*
 * sym_func_offset() - the file offset of function @func in the ELF
 * executable or shared object @path, as the kernel's uprobe API wants it.
 *
 * Candidates are the defined STT_FUNC and STT_GNU_IFUNC symbols named
 * @func in .symtab and .dynsym, version suffixes ignored ("f@VER" and
 * "f@@VER" in .symtab; .dynsym versions come from .gnu.version).  If they
 * do not all share one address, hidden (non-default) versions are dropped,
 * then local symbols if global ones remain; more than one address left is
 * an error (-ENOTUNIQ).  An IFUNC is refused (-EOPNOTSUPP): its symbol is
 * the resolver, not the function.  The offset is st_value - sh_addr +
 * sh_offset of the section holding the symbol (as libbpf computes it),
 * or, if that section does not hold it, from the PT_LOAD segment.
 *
 * Returns 0 and sets *@offset (bytes), or a negative errno with a message
 * in @err (size @errlen, may be NULL): -EISDIR, -EINVAL (not a regular
 * file), -ENOEXEC (not an ELF executable or shared object), -ENODATA (no
 * symbol table at all: stripped, no .symtab and no function in .dynsym),
 * -ENOENT (no such function), -ENOTUNIQ, -EOPNOTSUPP, -ENOMEM, or the
 * -errno of open(2).
 */
int sym_func_offset(const char *path, const char *func, uint64_t *offset,
		    char *err, size_t errlen);

/*
 * sym_func_range() - sym_func_offset(), and the function's size in bytes
 * (its symbol's st_size; 0 when the symbol does not say) in *@size: the
 * function's code is the @size bytes from file offset *@offset.  Same
 * returns and errors as sym_func_offset().
 */
int sym_func_range(const char *path, const char *func, uint64_t *offset,
		   uint64_t *size, char *err, size_t errlen);

/*
 * sym_noreturn() - 1 if user function @name never returns to its caller:
 * the process entry point (_start: it has no caller, and a uretprobe would
 * overwrite argc where a return address would be), exit paths (exit,
 * _exit, abort, pthread_exit, __stack_chk_fail, __assert_fail, ...) and
 * non-local jumps (longjmp family).  Such timers get no uretprobe: their
 * frames end at thread exit, as a kernel do_exit timer's.
 */
int sym_noreturn(const char *name);

/*
 * sym_insn_check() - can a uprobe at file offset @offset of @path ever
 * fire?  On x86-64 the kernel accepts a uprobe on any instruction but, when
 * it installs it, silently refuses one with a lock, cs, ds, es or ss prefix
 * (arch/x86/kernel/uprobes.c, uprobe_init_insn(): is_prefix_bad()): such a
 * probe is "attached" and never hit.  This reads the instruction's prefix
 * bytes.  Returns 0 (probeable, or not known: another architecture, a
 * short read), or -EOPNOTSUPP with a message in @err naming the prefix.
 */
int sym_insn_check(const char *path, uint64_t offset, char *err,
		   size_t errlen);

/*
 * sym_func_names() - the functions a uprobe can name in ELF executable or
 * shared object @path: the defined STT_FUNC symbols of .symtab and
 * .dynsym, version suffixes cut off ("f@@VER" is f), sorted, each once,
 * into @k->funcs (@k->traceable stays NULL; free with ksyms_free()).
 * Indirect functions (STT_GNU_IFUNC) are left out: they cannot be probed.
 * Compiler clones (f.isra.0, f.cold) are there under their own names.
 *
 * Returns 0, or a negative errno with a message in @err (size @errlen,
 * may be NULL): those of sym_func_offset() for the file (-EISDIR,
 * -EINVAL, -ENOEXEC, open(2)'s), -ENODATA (no function symbol at all:
 * stripped), -ENOMEM.
 */
int sym_func_names(const char *path, struct ksyms *k, char *err,
		   size_t errlen);

#endif /* IPROF_SYM_H */
