/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The insides of uprobe binaries' symbols (include/iprof/sym.h), shared by
 * the files that read them, each calling only those below it: sym_elf.c
 * (an ELF file opened and checked), sym_names.c (C++ and Rust names:
 * demangling, matching), sym_path.c (a binary's path, and whether it is
 * an executable), sym_debug.c (separate debug files), sym.c (a file's
 * symbol tables read with libelf: a function's candidates chosen and made
 * targets, the names a file defines, its functions' starts), sym_cache.c
 * (the planner's cache, struct sym_cache: each file opened and its symbols
 * indexed once) and, on top, sym_lookup.c (a function's targets and a
 * glob's names, through the cache or not).  Nothing outside these files
 * includes it: the interface is include/iprof/sym.h.
 */
#ifndef IPROF_SYM_INT_H
#define IPROF_SYM_INT_H

#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "iprof/sym.h"

/* A defined function symbol named like the one asked for. */
struct cand {
	const char *name;   /* the symbol's name (in the ELF's string table) */
	const char *ver;    /* its version ("GLIBC_2.2.5"), NULL if none */
	char *dem;	    /* C++: the demangled name, malloc'ed; else NULL */
	int clone;	    /* 1: a compiler clone of the function asked for
			     * (f.isra.0, f.constprop.1, f.part.0, ...) */
	uint64_t value;	    /* st_value: a virtual address */
	uint64_t size;	    /* st_size: bytes, 0 if unknown */
	uint16_t shndx;	    /* st_shndx: the section holding it */
	unsigned char type; /* STT_FUNC or STT_GNU_IFUNC */
	unsigned char bind; /* STB_LOCAL, STB_GLOBAL, STB_WEAK, ... */
	bool hidden;	    /* a non-default version (f@VER, versym bit 15) */
	bool dropped;	    /* ruled out while choosing */
};

struct lookup {
	const char *func; /* the name asked for, without its version */
	const char *ver;  /* the version asked for (f@VER, f@@VER), or NULL */
	bool ver_default; /* f@@VER: the default version */
	bool cxx;	  /* match demangled C++ names (second pass) */
	Elf *elf;	  /* the ELF whose symbols are scanned */
	Elf_Data *verdef; /* its .gnu.version_d, or NULL */
	size_t verdef_str; /* the string table of .gnu.version_d */
	size_t colds;	  /* cold parts of the function seen (f.cold) */
	struct cand cold; /* the first of them: value, size, shndx */
	bool have_cold;
	struct cand *v;
	size_t n, cap;
	int other_type; /* STT_* of a non-function symbol of that name, or -1 */
	size_t dyn_funcs; /* defined functions in .dynsym */
	bool has_symtab;  /* .symtab with at least one symbol */
};

/*
 * A symbol the planner's cache picked for a lookup (sym_cache): its index
 * in table @tab (0: .symtab, 1: .dynsym, sym_collect()'s order) and, for C++
 * names, its demangled name (sym_demangle_raw(): owned by the cache) and whether
 * it is a cold part.
 */
struct sym_pick {
	size_t idx;
	int tab;
	const char *dem;
	bool cold;
};

/* A defined symbol of one table, as the cache indexes it. */
struct sym_ent {
	const char *name; /* in the ELF's string table */
	char *dem;	  /* a function's demangled name (sym_demangle_raw(): clone
			   * suffixes cut), malloc'ed once sym_cxx_index() ran;
			   * NULL: not mangled */
	char *key;	  /* @dem's name part without white space
			   * (sym_cxx_name_part()), malloc'ed, or NULL */
	uint32_t nm, paren; /* with @key: where sym_cxx_name_part() found
			     * the name and its parameters in @dem */
	bool tried;	  /* demangled (sym_cxx_index()): @dem, @key, @cold set */
	size_t idx;	  /* its index in its table */
	int tab;	  /* 0: .symtab, 1: .dynsym (sym_collect()'s) */
	bool func;	  /* STT_FUNC or STT_GNU_IFUNC */
	bool cold;	  /* @dem is a cold part's */
};

/* A hash table of @nb buckets: each an entry chain through @next (index
 * into @v, ~0u ends it), entry i keyed by @len[i] bytes at @key[i] and
 * naming symbol @ent[i] of the index. */
struct sym_hash {
	uint32_t *head, nb;
	uint32_t *next, *ent, *len;
	const char **key;
	size_t n;
};

/* The symbols of one ELF (a file, or its debug file), in table order. */
struct sym_index {
	struct sym_ent *v;
	size_t n;
	/* by name up to its first '@' (name_matches()); by each name a
	 * clone suffix follows (sym_clone_of()); by C++ key (sym_cxx_index()) */
	struct sym_hash byname, byclone, bycxx;
	/* sym_cxx_index(): every function demangled (@cxx_all), or those
	 * whose names hold one of the @ntok tokens (malloc'ed) */
	bool cxx_all;
	char **tok;
	size_t ntok;
	size_t dyn_funcs; /* defined functions of .dynsym (scan_symbols()) */
};

/* One ELF file, open for the cache's life. */
struct sym_file {
	char *path; /* as asked for */
	int fd, dfd;
	Elf *elf, *dbg; /* the file; its debug file (as sym_func_targets()
			 * finds it when the file has no .symtab), or NULL */
	char dpath[PATH_MAX]; /* @dbg's path, or "" */
	struct sym_index ix[2]; /* of @elf and @dbg */
	uint64_t *starts; /* sym_func_starts()'s, once asked */
	size_t nstarts;
	bool starts_done;
};

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @v's @n addresses sorted, each once; returns how many are left */
static inline size_t sort_unique(uint64_t *v, size_t n)
{
	size_t i, j;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = j = 1; i < n; i++)
		if (v[i] != v[j - 1])
			v[j++] = v[i];
	return j;
}

/* What one file calls of another's (each described where it is defined). */

/* sym.c */
int sym_clone_suffix(const char *sfx);
int sym_file_offset(Elf *elf, const struct cand *c, uint64_t *off);
int sym_not_found(const struct lookup *lk, const char *path, const char *dbg,
	      char *err, size_t errlen);
int sym_collect(Elf *elf, struct lookup *lk, const struct sym_pick *pk, size_t npk,
	    size_t dyn_funcs);
void sym_lookup_reset(struct lookup *lk);
int sym_make_targets(struct lookup *lk, Elf *layout, const char *path,
		 struct sym_target **v, size_t *n, char *err, size_t errlen);
bool sym_cxx_name(const char *func);
int sym_insn_check_bytes(const char *path, const unsigned char *insn, ssize_t n,
	       uint64_t offset, char *err, size_t errlen);
int sym_starts_of(Elf *elf, bool symtab_only, uint64_t **v, size_t *n,
	      bool *has_symtab);

/* sym_cache.c */
int sym_cxx_index(struct sym_index *ix, const char *tok);
int sym_file_get(struct sym_cache *c, const char *path, struct sym_file **out,
	     char *err, size_t errlen);
int sym_collect_cached(struct sym_file *f, struct lookup *lk);
const struct sym_ent *sym_ent_of(struct sym_file *f, const char *name);
bool sym_ent_tried(const struct sym_ent *e);
bool sym_ent_cxx(const struct sym_ent *e, bool *mangled, const char **dem,
	     const char **name, const char **paren);

/* sym_debug.c */
int sym_find_debug_file(Elf *elf, const char *path, int *fd, Elf **dbg, char *out,
		    size_t outlen);

/* sym_elf.c */
int sym_check_ehdr(Elf *elf, const char *path, char *err, size_t errlen);
int sym_open_elf(const char *path, int *fd, Elf **elf, char *err, size_t errlen);
bool sym_has_symtab(Elf *elf);
void sym_close_elfs(Elf *elf, int fd, Elf *dbg, int dfd);

/* sym_ifunc.c: the implementation of IFUNC @func of @path (symbols in
 * @elf, @dbg: its debug file or NULL) that ld.so picks on this CPU, its
 * name into @name (@len bytes) and address into *@vaddr: 0, -ENODATA
 * (*@vaddr set, no sized FUNC symbol there), sym_ifunc_resolve()'s
 * errors */
int sym_ifunc_impl(Elf *elf, Elf *dbg, const char *path, const char *func,
		   char *name, size_t len, uint64_t *vaddr);

/* sym_names.c */
bool sym_squeeze(const char *s, char *buf, size_t len);
bool sym_cxx_name_part(const char *dem, char *d, size_t len, const char **name_out,
		   const char **paren_out);
bool sym_cxx_matches(const char *dem, const char *func);
int sym_demangle_raw(const char *name, char **out, bool *cold);
bool sym_name_token(const char *s, char *tok, size_t len);

#endif /* IPROF_SYM_INT_H */
