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
#include <sys/stat.h>
#include <sys/types.h>

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
 * sym_suggest_near() - for @name that is not there, the names nearest to
 * it (ksym_suggest(): by edit distance, at most 3) appended to the string
 * in @buf (@len bytes) as KSYM_SUGGEST_PFX "a or b?": with a '/', the
 * entries of its folder, written with that folder as @name gives it
 * ("/usr/bin/gitt": "/usr/bin/git"); without one, the names in $PATH's
 * folders (a command).  Returns how many (0: @buf as it was).
 */
size_t sym_suggest_near(const char *name, char *buf, size_t len);

/*
 * sym_func_offset() - the file offset of function @func in the ELF
 * executable or shared object @path, as the kernel's uprobe API wants it:
 * the first of sym_func_targets() (the function itself, else its only
 * clone or overload).
 *
 * Candidates are the defined STT_FUNC and STT_GNU_IFUNC symbols named
 * @func in .symtab and .dynsym, version suffixes ignored ("f@VER" and
 * "f@@VER" in .symtab; .dynsym versions come from .gnu.version).  If they
 * do not all share one address, hidden (non-default) versions are dropped
 * (they are further entries of sym_func_targets()), then local symbols if
 * global ones remain; more than one address left is
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

/* Where a uprobe FUNC is entered: see sym_func_targets(). */
struct sym_target {
	char *name; /* the symbol (f, f.isra.0; C++: "ns::f(int) (_ZN...)"),
		     * malloc'ed */
	uint64_t offset; /* file offset of its first instruction (bytes) */
	uint64_t addr; /* its virtual address (st_value): for messages */
	uint64_t size; /* its code's length (st_size, bytes), 0 if unknown */
	int clone; /* 1: a compiler clone of the function named */
	/* the function has a cold part (f.cold: blocks the compiler moved
	 * out of it, entered by a jump): its code is not all in @size; the
	 * first one found is @cold_size bytes at file offset @cold_off,
	 * virtual address @cold_addr (0, 0, 0 if unknown) */
	int cold;
	uint64_t cold_off, cold_size, cold_addr;
	/* 1: the implementation of the indirect function (STT_GNU_IFUNC)
	 * named that this CPU runs (sym_ifunc_resolve(); @name is the
	 * implementation's: __strlen_evex for strlen) */
	int ifunc;
};

/*
 * sym_func_targets() - the entries of user function @func of ELF
 * executable or shared object @path: where a uprobe timing it goes.
 *
 * @func is written as a programmer does:
 *  - NAME: its symbol (chosen as sym_func_offset() does), and the compiler
 *    clones NAME.isra.N, NAME.constprop.N, NAME.part.N, NAME.lto_priv.N
 *    (and combinations: gcc's cgraphclones.cc clone_function_name, clang's
 *    NAME.llvm.N), each an entry of its own: a call of any of them is a
 *    call of NAME.  NAME.part.N (the outlined rest of NAME after partial
 *    inlining, called by NAME itself) only when NAME has no symbol.  A cold part (NAME.cold, any suffix with "cold") is
 *    never an entry: the compiler moved blocks of NAME there, entered by a
 *    jump from NAME.  If only clones exist, they are the entries.
 *    A NAME with versions at several addresses (f@VER_1 beside the
 *    default f@@VER_2) has an entry per version, the default first, each
 *    target named "f@@VER_2", "f@VER_1"; an IFUNC among the other
 *    versions is left out.
 *  - NAME@VERSION, NAME@@VERSION: that version of a versioned symbol
 *    (f@@V is the default one; .dynsym versions from .gnu.version and
 *    .gnu.version_d, .symtab ones from the name); no clones.
 *  - C++ and Rust (when NAME is not a symbol, or looks like C++: "::",
 *    "(", "<", "~"): demangled names (libiberty's cplus_demangle(): the
 *    Itanium C++ ABI's names, Rust's legacy ones without their hash,
 *    "_ZN2rs5parse17h516047a969b77145E" is rs::parse, and Rust v0 ones,
 *    "_RNvCs1234_2rs5parse" too): "ns::foo" matches every overload, and
 *    more than one is -ENOTUNIQ listing them; "ns::foo(int)" (compared
 *    without white space) one.  Clones of it (" [clone .constprop.0]")
 *    are entries too, cold ones not.
 *  - A binary without .symtab (stripped): its .dynsym and the .symtab of
 *    its separate debug file, by build ID
 *    (/usr/lib/debug/.build-id/XX/YYYY.debug) or by .gnu_debuglink
 *    (DIR/NAME, DIR/.debug/NAME, /usr/lib/debug/DIR/NAME), as gdb and
 *    elfutils look for it, read together: an exported function's clones
 *    and cold part come from the debug file; offsets from the binary
 *    itself.
 *
 * On success returns 0 and *@v (malloc'ed, free with sym_targets_free()),
 * *@n >= 1 targets at distinct offsets, the function itself first.
 * Errors as sym_func_offset(), and -EINVAL (a malformed NAME@VERSION).
 */
int sym_func_targets(const char *path, const char *func,
		     struct sym_target **v, size_t *n, char *err,
		     size_t errlen);

/*
 * struct sym_cache - what one caller (the planner, for one plan_build())
 * keeps of the ELF files it asks about: each file opened once, its
 * symbols indexed by name in one pass, its functions demangled once (when
 * a C++ name or glob is first asked for), its function starts
 * (sym_func_starts()) read once, so that a glob's thousand functions cost
 * one pass over the symbol table, not one per function.  The answers are
 * those of the uncached calls, for the files as they were when first
 * asked.  Not shared between threads.  Holds an open file descriptor per
 * file (at most 64 files; further ones are read uncached).
 */
struct sym_cache;
struct Elf; /* libelf.h */

/* sym_cache_new() - an empty cache, or NULL (out of memory). */
struct sym_cache *sym_cache_new(void);

/* sym_cache_free() - close its files and free it; NULL ok. */
void sym_cache_free(struct sym_cache *c);

/*
 * sym_cache_targets() - sym_func_targets() through cache @c (NULL: none):
 * the same returns, targets and messages.  The first call for a file
 * indexes its symbols (and its debug file's); a C++ or Rust name's first
 * lookup demangles its functions, once each; every lookup then costs
 * O(log n + its matches).
 */
int sym_cache_targets(struct sym_cache *c, const char *path, const char *func,
		      struct sym_target **v, size_t *n, char *err,
		      size_t errlen);

/*
 * sym_cache_func_starts() - sym_func_starts() of @path, read once into
 * @c: *@starts is the cache's (valid until sym_cache_free(), not to be
 * freed), *@n of them.  Returns 0, or the errors of opening @path as
 * sym_func_starts() (-EMFILE: the cache is full, ask sym_func_starts()).
 */
int sym_cache_func_starts(struct sym_cache *c, const char *path,
			  const uint64_t **starts, size_t *n, char *err,
			  size_t errlen);

/*
 * sym_cache_elf() - ELF file @path as @c holds it open (read only): its
 * descriptor into *@fd and its libelf handle into *@elf, both the
 * cache's (valid until sym_cache_free(); not to be closed).  Returns 0,
 * or the errors of opening it (sym_func_offset()'s, -EMFILE: full).
 */
int sym_cache_elf(struct sym_cache *c, const char *path, int *fd,
		  struct Elf **elf);

/*
 * sym_cache_pread() - pread(2) of @n bytes at file offset @off of @path,
 * from the descriptor @c holds open.  Returns the bytes read, or a
 * negative errno (those of opening @path, -EMFILE: the cache is full).
 */
ssize_t sym_cache_pread(struct sym_cache *c, const char *path, void *buf,
			size_t n, uint64_t off);

/*
 * sym_cache_insn_check() - sym_insn_check() of @path through @c (NULL:
 * none): its bytes read from the descriptor the cache holds.
 */
int sym_cache_insn_check(struct sym_cache *c, const char *path,
			 uint64_t offset, char *err, size_t errlen);

/*
 * sym_cache_resolve_path() - sym_resolve_path() of @name through @c
 * (NULL: none), each name's answer (the path, or the error and its
 * message) kept after the first.
 */
int sym_cache_resolve_path(struct sym_cache *c, const char *name, char **out,
			   char *err, size_t errlen);

/*
 * sym_cache_stat() - stat(2) of @path through @c (NULL: none): *@st kept
 * after the first success.  Returns 0 or -errno.
 */
int sym_cache_stat(struct sym_cache *c, const char *path, struct stat *st);

/*
 * sym_cache_glob_names() - sym_glob_names() over sym_glob_func_names() of
 * @path: what uprobe glob @glob is matched against, into @out (free with
 * ksyms_free()); its C++ and Rust names demangled through @c (NULL:
 * none), each once for the whole plan, and for a glob that begins with an
 * identifier and "::" ("hot::*") only those whose symbols hold it
 * ("3hot"): the names it cannot match may be left out.  Returns 0 or
 * sym_func_names()'s errors, with a message in @err.
 */
int sym_cache_glob_names(struct sym_cache *c, const char *path,
			 const char *glob, struct ksyms *out, char *err,
			 size_t errlen);

/* sym_targets_free() - free what sym_func_targets() returned; NULL ok. */
void sym_targets_free(struct sym_target *v, size_t n);

/*
 * sym_clone_of() - is symbol @name a compiler clone of function @func
 * (func.isra.0, func.constprop.1.isra.0, ...)?  1: a clone, an entry of
 * its own; 2: a cold part (func.cold, func.part.0.cold), not an entry;
 * 0: neither.
 */
int sym_clone_of(const char *name, const char *func);

/*
 * sym_demangle() - C++ or Rust symbol @name demangled ("_ZN2ns3fooEi" ->
 * "ns::foo(int)"; Rust legacy without its hash,
 * "_ZN2rs5parse17h516047a969b77145E" -> "rs::parse"; Rust v0,
 * "_RNvCs1234_2rs5parse" -> "rs::parse"; clone suffixes
 * " [clone .isra.0]" cut), malloc'ed (the caller frees it); NULL when
 * @name is no mangled name libiberty's cplus_demangle() knows (or out of
 * memory).
 */
char *sym_demangle(const char *name);

/*
 * sym_cxx_names() - the C++ functions among @names (symbols, as
 * sym_func_names() gives them) by the names a programmer writes for all
 * their overloads: demangled, without parameter list, a template
 * function's return type or white space ("_ZN2ns3fooEi" -> "ns::foo",
 * "_ZN2ns5twiceIiEET_S1_" -> "ns::twice<int>", "_ZNK2ns3Box3getEv" ->
 * "ns::Box::get"), each once, sorted; a name with overloads once per
 * overload, with its parameter list as demangled ("ns::foo(int)",
 * "ns::foo(double)"): what a C++ glob ("ns::*") is matched against; each
 * is a NAME sym_func_targets() takes.  Cold parts are left out, clones
 * fold into their function.  Fills @out (free with
 * ksyms_free(); empty, not NULL, when none).  Returns 0 or -ENOMEM.
 */
int sym_cxx_names(const struct ksyms *names, struct ksyms *out);

/*
 * sym_glob_names() - the names uprobe glob @glob is matched against among
 * @names (symbols, as sym_func_names() gives them): a C++ glob (with
 * "::") the C++ functions' names (sym_cxx_names()); one that starts
 * with '_' ("_Z*", "_[RZ]*", "__libc_*") the symbols as they are; any
 * other both the names that are not mangled (C, assembly, Go) and the
 * C++ and Rust functions' (sym_cxx_names(): "plain*" matches
 * _ZL12plain_statici as "plain_static"), so one function is matched
 * once.  Fills @out (free
 * with ksyms_free()).  Returns 0 or -ENOMEM.
 */
int sym_glob_names(const struct ksyms *names, const char *glob,
		   struct ksyms *out);

/*
 * sym_func_range() - sym_func_offset(), and the function's size in bytes
 * (its symbol's st_size; 0 when the symbol does not say) in *@size (NULL:
 * not wanted): the function's code is the @size bytes from file offset
 * *@offset.  The first entry of sym_func_targets().  Same returns and
 * errors as sym_func_offset().
 */
int sym_func_range(const char *path, const char *func, uint64_t *offset,
		   uint64_t *size, char *err, size_t errlen);

/*
 * sym_func_starts() - where the functions of ELF file @path begin: the
 * st_value (virtual addresses, bytes) of every FUNC and IFUNC symbol of
 * its .symtab and .dynsym, and of its separate debug file's .symtab when
 * @path has none (found as sym_func_targets() finds it), so that a
 * stripped binary with a debug file gives what its unstripped build does;
 * cold parts (f.cold) left out: they are no function.  Sorted, without
 * duplicates, into *@starts (malloc'ed, the caller frees it; NULL when
 * *@n is 0).  Returns 0, or -errno with a message naming @path in @err
 * (@errlen bytes): open_elf()'s errors, -ENOEXEC (not ELF), -ENOMEM.
 */
int sym_func_starts(const char *path, uint64_t **starts, size_t *n,
		    char *err, size_t errlen);

/*
 * sym_set_debugdir() - look for separate debug files in @dir too
 * (--debuginfo DIR), before /usr/lib/debug: DIR/.build-id/XX/YYYY.debug
 * and, for a .gnu_debuglink NAME of /BINDIR/BIN, DIR/BINDIR/NAME.  Kept
 * (absolute, realpath(3)) for the process; NULL: none.  Returns 0 or
 * -errno of realpath(3).
 */
int sym_set_debugdir(const char *dir);

/*
 * sym_debug_file() - the separate debug file of ELF file @path, as
 * sym_func_targets() looks for it (by build ID under
 * /usr/lib/debug/.build-id/, by .gnu_debuglink), into @out (@outlen
 * bytes).  Returns 0 when one exists and is ELF, -ENOENT when none does,
 * or the errors of opening @path (no message).
 */
int sym_debug_file(const char *path, char *out, size_t outlen);

/*
 * sym_is_executable() - 1 if ELF file @path can only run as a program's
 * main executable: ET_EXEC, or a PIE marked so (ET_DYN with DF_1_PIE in
 * DT_FLAGS_1, which binutils' ld -pie and lld write); glibc's dlopen
 * refuses both (elf/dl-load.c: "cannot dynamically load executable",
 * "cannot dynamically load position-independent executable", 2.30 on).
 * 0 if it may be loaded as a library or cannot be read.  A PT_INTERP
 * proves nothing: libc.so.6 has one and runs as a program, yet every
 * program loads it.
 */
int sym_is_executable(const char *path);

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
 * sym_glob_func_names() - what a uprobe glob is matched against in @path:
 * sym_func_names()'s list, with the indirect functions whose
 * implementation on this CPU is known and has a symbol
 * (sym_ifunc_resolve(): each timed by that implementation) and without
 * their resolvers (FUNC symbols at an
 * IFUNC's address: glibc's strlen_ifunc, run once at relocation).  The
 * same returns and errors as sym_func_names().
 */
int sym_glob_func_names(const char *path, struct ksyms *k, char *err,
			size_t errlen);

/*
 * sym_ifunc_resolve() - where indirect function @func (STT_GNU_IFUNC) of
 * ELF shared object @path goes on this CPU: the virtual address in @path
 * of the implementation its resolver returns (glibc's strlen ->
 * __strlen_evex), into *@vaddr.  Asked of ld.so in iprof's own process,
 * and only for a file that process has loaded already (libc.so.6 and the
 * libraries iprof links: dlopen(RTLD_NOLOAD) finds it by device and
 * inode, loads nothing and runs no constructor; dlsym() calls the
 * resolver as a relocation does).  A traced program picks the same on
 * this CPU unless its environment tunes ld.so otherwise
 * (GLIBC_TUNABLES=glibc.cpu.hwcaps=...).  Returns 0, -ENOENT (@path not
 * loaded here, or no symbol @func), -ERANGE (it resolves into another
 * file).
 */
int sym_ifunc_resolve(const char *path, const char *func, uint64_t *vaddr);

/*
 * sym_func_names() - the functions a uprobe can name in ELF executable or
 * shared object @path: the defined STT_FUNC symbols of .symtab and
 * .dynsym (and of its separate debug file's, as sym_func_targets() finds
 * it, when @path has no .symtab), version suffixes cut off ("f@@VER" is
 * f), sorted, each once,
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

/*
 * User stacks' names (--offcpu-stacks=user, src/probe/sym_addr.c): the
 * functions of ELF file @path by address, loaded once by sym_addrs_load()
 * (its FUNC and IFUNC symbols: .symtab, or its separate debug file's
 * where it has none, and .dynsym; C++ and Rust names demangled).  NULL
 * with errno set: those of opening it (ENOENT, ENOEXEC: not ELF), ENOMEM.
 * Free with sym_addrs_free() (NULL ok).
 */
struct sym_addrs;
struct sym_addrs *sym_addrs_load(const char *path);
void sym_addrs_free(struct sym_addrs *t);

/*
 * sym_addrs_name() - the function at file offset @off (bytes) of @t's
 * file: the one whose symbol starts at or below its virtual address and,
 * where the symbol has a size, covers it; its name into @buf (@size
 * bytes).  Returns @buf, or NULL where no loaded segment or function
 * holds @off (or @t is NULL).
 */
const char *sym_addrs_name(const struct sym_addrs *t, uint64_t off,
			   char *buf, size_t size);

#endif /* IPROF_SYM_H */
