// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym.c - uprobe binaries: resolve their path, find a function's file
 * offset with libelf.  See include/iprof/sym.h.
 *
 * libbpf 1.1 can do the lookup itself (bpf_uprobe_opts.func_name) but
 * fails on versioned symbols ("ambiguous match" for clock_nanosleep in
 * glibc, whose two versions share one address) and reports a missing
 * function or a non-ELF file as bare errno values; resolving here gives
 * the planner a clear message and the loader a plain offset.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <zlib.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/sym.h"
#include "iprof/util.h"

/* .gnu.version entries: the version index, and the "not default" bit. */
#define VERSYM_HIDDEN 0x8000

/* $PATH when the environment has none (as confstr(_CS_PATH) for root). */
#define DEFAULT_PATH                                                           \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH "riscv64-linux-gnu"
#endif

/* Where a bare NAME is looked for after $PATH (shared objects). */
static const char *const lib_dirs[] = {
	"/lib",
	"/usr/lib",
#ifdef MULTIARCH
	"/lib/" MULTIARCH,
	"/usr/lib/" MULTIARCH,
#endif
	"/usr/local/lib",
	"/lib64",
	"/usr/lib64",
};

/* ---- paths --------------------------------------------------------------- */

/* Is @path a regular file (with execute permission if @exec)? */
static bool is_file(const char *path, bool exec)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	return !exec || !access(path, X_OK);
}

/* realpath() of @path into *@out. */
static int absolute(const char *path, char **out, char *err, size_t errlen)
{
	int e;

	*out = realpath(path, NULL);
	if (*out)
		return 0;
	e = errno ? errno : ENOENT;
	util_set_err(err, errlen, "%s: %s", path, strerror(e));
	return -e;
}

int sym_resolve_path(const char *name, char **out, char *err, size_t errlen)
{
	char cand[PATH_MAX];
	const char *path, *p, *end;
	size_t i, n;

	*out = NULL;
	if (!*name) {
		util_set_err(err, errlen, "empty binary path");
		return -ENOENT;
	}
	if (strchr(name, '/'))
		return absolute(name, out, err, errlen);

	path = getenv("PATH");
	if (!path)
		path = DEFAULT_PATH;
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		n = (size_t)(end - p);
		/* an empty entry would mean the current directory: skipped */
		if (n &&
		    snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, p, name) <
			    (int)sizeof(cand) &&
		    is_file(cand, true))
			return absolute(cand, out, err, errlen);
		if (!*end)
			break;
	}
	for (i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		if (snprintf(cand, sizeof(cand), "%s/%s", lib_dirs[i], name) <
			    (int)sizeof(cand) &&
		    is_file(cand, false))
			return absolute(cand, out, err, errlen);
	}
	util_set_err(err, errlen,
		"%s not found in $PATH or the library directories; give a "
		"path (./%s)",
		name, name);
	return -ENOENT;
}

/* ---- symbols ------------------------------------------------------------- */

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
 * Does symbol name @name denote @func?  .symtab may carry the version in
 * the name ("f@VER", "f@@VER"); *@at then points at the '@', else NULL.
 */
static bool name_matches(const char *name, const char *func, const char **at)
{
	size_t n = strlen(func);

	if (strncmp(name, func, n) || (name[n] && name[n] != '@'))
		return false;
	*at = name[n] ? name + n : NULL;
	return true;
}

/* A compiler clone's suffix (1), a cold part's (2), or neither (0). */
static int clone_suffix(const char *sfx)
{
	return ksym_clone_suffix(sfx);
}

int sym_clone_of(const char *name, const char *func)
{
	size_t n = strlen(func);

	if (strncmp(name, func, n))
		return 0;
	return clone_suffix(name + n);
}

/* The name of version index @idx (.gnu.version_d), or NULL. */
static const char *verdef_name(const struct lookup *lk, unsigned int idx)
{
	GElf_Verdef vd;
	GElf_Verdaux va;
	size_t off = 0;

	if (!lk->verdef)
		return NULL;
	while (off < lk->verdef->d_size && off <= INT_MAX) {
		if (!gelf_getverdef(lk->verdef, (int)off, &vd))
			return NULL;
		if (vd.vd_ndx == idx && vd.vd_aux &&
		    gelf_getverdaux(lk->verdef, (int)(off + vd.vd_aux), &va))
			return elf_strptr(lk->elf, lk->verdef_str,
					  va.vda_name);
		if (!vd.vd_next)
			return NULL;
		off += vd.vd_next;
	}
	return NULL;
}

/* @s without white space into @buf (@len bytes); false if it did not fit. */
static bool squeeze(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t')
			continue;
		if (n + 1 >= len)
			return false;
		buf[n++] = *s;
	}
	buf[n] = '\0';
	return true;
}

/*
 * Does demangled C++ name @dem (" [clone .x]" suffixes cut) denote @func?
 * With a parameter list, @func names one overload (ns::foo(int)), compared
 * without white space; without, every overload (ns::foo): @dem's name,
 * before its parameter list, without a template function's return type
 * ("void ns::f<int>(int)" is ns::f<int>).
 */
static bool is_cxx_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/*
 * The length of the operator function name at @p, as the Itanium
 * demangler writes them ("operator<<", "operator()", "operator new[]",
 * "operator\"\" _km", a conversion "operator char const*"), or 0 when @p
 * is no operator name.
 */
static size_t cxx_operator_len(const char *p)
{
	/* longest first: "operator<<=" before "operator<<" before "<" */
	static const char *const ops[] = {
		" new[]", " delete[]", " new", " delete", "->*", "<<=", ">>=",
		"<=>", "()", "[]", "->", "<<", ">>", "<=", ">=", "==", "!=",
		"&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=",
		"|=", "^=", "<", ">", "+", "-", "*", "/", "%", "^", "&", "|",
		"~", "!", "=", ",",
	};
	size_t i;

	if (strncmp(p, "operator", 8) || is_cxx_ident(p[8]))
		return 0;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p + 8, ops[i], strlen(ops[i])))
			return 8 + strlen(ops[i]);
	if (!strncmp(p + 8, "\"\"", 2) || p[8] == ' ')
		/* a literal operator, a conversion: up to its parameters */
		return 8 + strcspn(p + 8, "(");
	return 8;
}

/*
 * Split C++ name @s (as demangled, or as a user writes it): the name that
 * every overload shares starts at *@name (after a template function's
 * return type) and ends at *@paren, the top-level parameter list (or the
 * end of @s when it has none).  "(anonymous namespace)", operator names
 * and what <...> and {...} hold (template arguments, "{lambda(int)#1}")
 * are parts of the name.
 */
static void cxx_split(const char *s, const char **name, const char **paren)
{
	const char *p = s;
	size_t n;
	int depth = 0;

	*name = s;
	while (*p) {
		if (!strncmp(p, "(anonymous namespace)", 21)) {
			p += 21;
			continue;
		}
		if ((p == s || !is_cxx_ident(p[-1])) &&
		    (n = cxx_operator_len(p))) {
			p += n;
			continue;
		}
		if (*p == '<' || *p == '{')
			depth++;
		else if ((*p == '>' || *p == '}') && depth)
			depth--;
		else if (*p == ' ' && !depth)
			*name = p + 1; /* after a template's return type */
		else if (*p == '(' && !depth)
			break;
		p++;
	}
	*paren = p;
}

/*
 * The name in demangled @dem that every overload shares (cxx_split()),
 * into @d (@len bytes), without white space.  Its start in @dem in
 * *@name, the parameter list (or the end) in *@paren.  false if it did
 * not fit.
 */
static bool cxx_name_part(const char *dem, char *d, size_t len,
			  const char **name_out, const char **paren_out)
{
	const char *name, *paren;

	cxx_split(dem, &name, &paren);
	*name_out = name;
	*paren_out = paren;
	if ((size_t)(paren - name) >= len)
		return false;
	memcpy(d, name, (size_t)(paren - name));
	d[paren - name] = '\0';
	return squeeze(d, d, len);
}

static bool cxx_matches(const char *dem, const char *func)
{
	char d[1024], f[512];
	const char *name, *paren, *fn, *fp;

	if (!squeeze(func, f, sizeof(f)) ||
	    !cxx_name_part(dem, d, sizeof(d), &name, &paren))
		return false;
	cxx_split(func, &fn, &fp);
	if (*fp) /* with its parameters: one overload */
		return squeeze(name, d, sizeof(d)) && !strcmp(d, f);
	return !strcmp(d, f);
}

/*
 * Could @name be a Rust legacy name: "_ZN", then somewhere the hash
 * segment "17h" and 16 hex digits, then 'E'?  libiberty's rust_demangle()
 * takes none other (rust-demangle.c: it ends with that segment, checked
 * by is_legacy_prefixed_hash()), so a C++ name without it is given to
 * the C++ demangler alone.
 */
static bool rust_legacy_shape(const char *name)
{
	const char *p = name + 3;
	size_t k;

	if (strncmp(name, "_ZN", 3))
		return false;
	while ((p = strstr(p, "17h"))) {
		p += 3;
		for (k = 0; k < 16 && isxdigit((unsigned char)p[k]); k++)
			;
		if (k == 16 && p[16] == 'E')
			return true;
	}
	return false;
}

/*
 * @name demangled, its " [clone .x]" suffixes cut, into *@out
 * (malloc'ed); *@cold when one of them is a cold part.  C++ (Itanium ABI,
 * "_Z...") and Rust, legacy ("_ZN...17h<16 hex>E", shown without its
 * hash: rs::parse) and v0 ("_R..."), through libiberty's cplus_demangle()
 * (GCC's and binutils' demangler): a Rust scheme's name ("_R", or "_ZN"
 * with a legacy hash: rust_legacy_shape()) as Rust, then as C++ where
 * that fails, as DMGL_AUTO does; any other "_Z" name as C++ alone.
 * 0, 1 if @name is no mangled name it knows (or out of memory: it
 * returns NULL for both).
 */
static int demangle(const char *name, char **out, bool *cold)
{
	char *d = NULL, *c;

	*out = NULL;
	*cold = false;
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return 1;
	/* each by its own scheme, as DMGL_AUTO would (Rust, then C++),
	 * without trying Rust on every C++ name */
	if (name[1] == 'R' || rust_legacy_shape(name))
		d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST);
	if (!d && name[1] == 'Z')
		d = cplus_demangle(name,
				   DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
	if (!d)
		return 1;
	while ((c = strstr(d, " [clone "))) {
		if (strstr(c, ".cold"))
			*cold = true;
		*c = '\0';
	}
	*out = d;
	return 0;
}

char *sym_demangle(const char *name)
{
	char *out;
	bool cold;

	if (demangle(name, &out, &cold))
		return NULL;
	return out;
}

struct cxx_fn {
	char *part; /* the name all overloads share */
	const char *full; /* this overload: part and parameter list (in
			   * @own, or the cache's demangled name) */
	char *own;
};

static int cxx_fn_cmp(const void *a, const void *b)
{
	const struct cxx_fn *x = a, *y = b;
	int c = strcmp(x->part, y->part);

	return c ? c : strcmp(x->full, y->full);
}

struct sym_file;
struct sym_ent;
static const struct sym_ent *ent_of(struct sym_file *f, const char *name);
static bool ent_cxx(const struct sym_ent *e, bool *mangled, const char **dem,
		    const char **name, const char **paren);
static bool ent_tried(const struct sym_ent *e);

/* Add C++ name @name (its parameter list at @paren, or its end) to *@v,
 * *@n; @own: the malloc'ed string holding it, freed with *@v, or NULL. */
static int cxx_fn_add(struct cxx_fn **v, size_t *n, const char *name,
		      const char *paren, char *own)
{
	if (util_grow(v, *n, sizeof(**v))) {
		free(own);
		return -ENOMEM;
	}
	/* as demangled: "(anonymous namespace)::f" */
	(*v)[*n].part = strndup(name, (size_t)(paren - name));
	(*v)[*n].full = name;
	(*v)[*n].own = own;
	return (*v)[(*n)++].part ? 0 : -ENOMEM;
}

static int cxx_names(const struct ksyms *names, struct ksyms *out,
		     struct ksyms *plain, struct sym_file *f)
{
	struct cxx_fn *v = NULL;
	const char *name, *paren;
	char d[1024], *dem;
	size_t i, j, n = 0;
	bool cold;
	int err;

	memset(out, 0, sizeof(*out));
	err = util_grow(&out->funcs, 0, sizeof(*out->funcs));
	for (i = 0; !err && i < names->nfuncs; i++) {
		const struct sym_ent *e = ent_of(f, names->funcs[i]);
		const char *cd;
		bool mangled;

		if (e && !ent_tried(e))
			continue; /* it cannot match (cxx_index()'s token) */
		if (e) { /* demangled once, by the cache */
			if (ent_cxx(e, &mangled, &cd, &name, &paren))
				err = cxx_fn_add(&v, &n, name, paren, NULL);
			else if (!mangled && plain)
				err = ksyms_add(plain, names->funcs[i],
						strlen(names->funcs[i]), NULL);
			continue;
		}
		err = demangle(names->funcs[i], &dem, &cold);
		if (err == 1) { /* not C++ */
			err = plain ? ksyms_add(plain, names->funcs[i],
						strlen(names->funcs[i]), NULL) :
				      0;
			continue;
		}
		if (!err && !cold &&
		    cxx_name_part(dem, d, sizeof(d), &name, &paren))
			err = cxx_fn_add(&v, &n, name, paren, dem);
		else
			free(dem);
	}
	if (!err && n)
		qsort(v, n, sizeof(*v), cxx_fn_cmp);
	/* a name once; with its parameters where it has overloads */
	for (i = 0; !err && i < n; i = j) {
		bool overloaded = false;

		for (j = i + 1; j < n && !strcmp(v[j].part, v[i].part); j++)
			overloaded |= strcmp(v[j].full, v[i].full) != 0;
		if (!overloaded) {
			err = ksyms_add(out, v[i].part, strlen(v[i].part), NULL);
			continue;
		}
		for (size_t k = i; !err && k < j; k++)
			if (k == i || strcmp(v[k].full, v[k - 1].full))
				err = ksyms_add(out, v[k].full,
						strlen(v[k].full), NULL);
	}
	for (i = 0; i < n; i++) {
		free(v[i].part);
		free(v[i].own);
	}
	free(v);
	if (err) {
		ksyms_free(out);
		return -ENOMEM;
	}
	ksyms_sort(out);
	return 0;
}

int sym_cxx_names(const struct ksyms *names, struct ksyms *out)
{
	return cxx_names(names, out, NULL, NULL);
}

/* sym_glob_names(), demangling through @f (NULL: none) */
static int glob_names(const struct ksyms *names, const char *glob,
		      struct ksyms *out, struct sym_file *f)
{
	struct ksyms plain = { 0 };
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	if (glob[0] == '_' && !strstr(glob, "::")) {
		for (i = 0, err = 0; !err && i < names->nfuncs; i++)
			err = ksyms_add(out, names->funcs[i],
					strlen(names->funcs[i]), NULL);
		goto out;
	}
	err = cxx_names(names, out, strstr(glob, "::") ? NULL : &plain, f);
	if (err || strstr(glob, "::")) {
		ksyms_free(&plain);
		return err;
	}
	/* and the names that are no mangled ones, as they are */
	for (i = 0; !err && i < plain.nfuncs; i++)
		err = ksyms_add(out, plain.funcs[i], strlen(plain.funcs[i]),
				NULL);
	ksyms_free(&plain);
out:
	if (err) {
		ksyms_free(out);
		return -ENOMEM;
	}
	ksyms_sort(out); /* sorted and each name once */
	return 0;
}

int sym_glob_names(const struct ksyms *names, const char *glob,
		   struct ksyms *out)
{
	return glob_names(names, glob, out, NULL);
}

static int push(struct lookup *lk, const struct cand *c)
{
	struct cand *v;
	size_t cap;

	if (lk->n == lk->cap) {
		cap = lk->cap ? lk->cap * 2 : 8;
		v = realloc(lk->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		lk->v = v;
		lk->cap = cap;
	}
	lk->v[lk->n++] = *c;
	return 0;
}

/* A cold part of the function (f.cold) seen: counted, the first kept
 * (retsite_find() reads it as part of the function). */
static void note_cold(struct lookup *lk, const GElf_Sym *sym)
{
	lk->colds++;
	if (lk->have_cold)
		return;
	lk->have_cold = true;
	lk->cold.value = sym->st_value;
	lk->cold.size = sym->st_size;
	lk->cold.shndx = sym->st_shndx;
}

/*
 * A symbol the planner's cache picked for a lookup (sym_cache): its index
 * in table @tab (0: .symtab, 1: .dynsym, collect()'s order) and, for C++
 * names, its demangled name (demangle(): owned by the cache) and whether
 * it is a cold part.
 */
struct sym_pick {
	size_t idx;
	int tab;
	const char *dem;
	bool cold;
};

/*
 * Weigh symbol @i (@sym, named @name) of one table for @lk: push it as a
 * candidate, note a cold part or a non-function symbol of that name.
 * @pk: the cache's demangled name when it picked the symbol, else NULL
 * (demangled here).  0 or -ENOMEM.
 */
static int scan_one(struct lookup *lk, const GElf_Sym *sym, size_t i,
		    const char *name, Elf_Data *versym, bool dynamic,
		    const struct sym_pick *pk)
{
	int type = GELF_ST_TYPE(sym->st_info), err, clone;
	const char *at;
	struct cand c;
	GElf_Versym vs;
	char *dem = NULL;
	bool cold;

	memset(&c, 0, sizeof(c));
	if (lk->cxx) {
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			return 0;
		if (pk) {
			err = pk->dem ? 0 : 1;
			cold = pk->cold;
			if (pk->dem && !(dem = strdup(pk->dem)))
				return -ENOMEM;
		} else {
			err = demangle(name, &dem, &cold);
		}
		if (err)
			return err < 0 ? err : 0;
		if (cold || !cxx_matches(dem, lk->func)) {
			if (cold && cxx_matches(dem, lk->func))
				note_cold(lk, sym);
			free(dem);
			return 0;
		}
		c.dem = dem;
		at = NULL;
	} else if (name_matches(name, lk->func, &at)) {
		if (type != STT_FUNC && type != STT_GNU_IFUNC) {
			lk->other_type = type;
			return 0;
		}
	} else {
		clone = sym_clone_of(name, lk->func);
		if (!clone || (type != STT_FUNC && type != STT_GNU_IFUNC))
			return 0;
		if (clone == 2) {
			note_cold(lk, sym);
			return 0;
		}
		c.clone = 1;
		at = NULL;
	}
	c.name = name;
	c.value = sym->st_value;
	c.size = sym->st_size;
	c.shndx = sym->st_shndx;
	c.type = (unsigned char)type;
	c.bind = (unsigned char)GELF_ST_BIND(sym->st_info);
	if (dynamic && versym && gelf_getversym(versym, (int)i, &vs)) {
		c.hidden = (vs & VERSYM_HIDDEN) != 0;
		c.ver = verdef_name(lk, vs & ~VERSYM_HIDDEN);
	} else if (at) {
		c.hidden = at[1] != '@'; /* f@VER, not f@@VER */
		c.ver = at + 1 + !c.hidden;
	}
	if (lk->ver && (c.clone || !c.ver || strcmp(c.ver, lk->ver) ||
			(lk->ver_default && c.hidden))) {
		free(c.dem);
		return 0;
	}
	err = push(lk, &c);
	if (err)
		free(c.dem);
	return err;
}

/*
 * Collect the candidates of one symbol table (@dynamic: .dynsym, whose
 * versions are in @versym, or NULL if it has none): symbols named
 * lk->func (of version lk->ver if given) and its compiler clones, or with
 * lk->cxx the C++ functions whose demangled names match.  @pk: the @npk
 * symbols of this table the cache picked (sym_cache: a superset of those
 * that match, in table order), or NULL: every symbol.  The same
 * candidates either way, in the same order.
 */
static int scan_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			Elf_Data *versym, bool dynamic, struct lookup *lk,
			const struct sym_pick *pk, size_t npk)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *name;
	GElf_Sym sym;
	size_t i, k, n;
	int err;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	if (!dynamic && n > 1)
		lk->has_symtab = true;
	if (pk) {
		for (k = 0; k < npk; k++) {
			i = pk[k].idx;
			if (!gelf_getsym(data, (int)i, &sym) ||
			    !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
				continue;
			err = scan_one(lk, &sym, i, name, versym, dynamic,
				       &pk[k]);
			if (err)
				return err;
		}
		return 0;
	}
	for (i = 1; i < n && i <= INT_MAX; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF)
			continue; /* an import */
		if (dynamic && (GELF_ST_TYPE(sym.st_info) == STT_FUNC ||
				GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC))
			lk->dyn_funcs++;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		err = scan_one(lk, &sym, i, name, versym, dynamic, NULL);
		if (err)
			return err;
	}
	return 0;
}

/* Is candidate @i kept, and the first kept one at its address? */
static int first_of_address(const struct lookup *lk, size_t i)
{
	size_t j;

	if (lk->v[i].dropped)
		return 0;
	for (j = 0; j < i; j++)
		if (!lk->v[j].dropped && lk->v[j].value == lk->v[i].value)
			return 0;
	return 1;
}

/* Distinct addresses among the candidates not dropped. */
static size_t distinct(const struct lookup *lk)
{
	size_t i, n = 0;

	for (i = 0; i < lk->n; i++)
		n += first_of_address(lk, i);
	return n;
}

/* Drop the candidates @drop() selects, unless that would drop them all. */
static void drop_if(struct lookup *lk, bool (*drop)(const struct cand *))
{
	size_t i, keep = 0;

	for (i = 0; i < lk->n; i++)
		if (!lk->v[i].dropped && !drop(&lk->v[i]))
			keep++;
	if (!keep)
		return;
	for (i = 0; i < lk->n; i++)
		if (drop(&lk->v[i]))
			lk->v[i].dropped = true;
}

static bool is_hidden(const struct cand *c)
{
	return c->hidden;
}

static bool is_local(const struct cand *c)
{
	return c->bind == STB_LOCAL;
}

/* File offset of virtual address @c->value (see sym_func_offset()). */
static int file_offset(Elf *elf, const struct cand *c, uint64_t *off)
{
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Scn *scn;
	size_t i, nph;

	if (c->shndx < SHN_LORESERVE) {
		scn = elf_getscn(elf, c->shndx);
		if (scn && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    c->value >= sh.sh_addr &&
		    c->value - sh.sh_addr < sh.sh_size) {
			*off = c->value - sh.sh_addr + sh.sh_offset;
			return 0;
		}
	}
	if (elf_getphdrnum(elf, &nph))
		return -ENOENT;
	for (i = 0; i < nph && i <= INT_MAX; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (c->value >= ph.p_vaddr &&
		    c->value - ph.p_vaddr < ph.p_filesz) {
			*off = c->value - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static const char *stt_str(int type)
{
	switch (type) {
	case STT_NOTYPE:
		return "STT_NOTYPE";
	case STT_OBJECT:
		return "STT_OBJECT, data";
	case STT_SECTION:
		return "STT_SECTION";
	case STT_FILE:
		return "STT_FILE";
	case STT_COMMON:
		return "STT_COMMON";
	case STT_TLS:
		return "STT_TLS, thread-local data";
	default:
		return "not STT_FUNC";
	}
}

/* A stripped file with no debug file found: where iprof looked, and
 * how to name another place (--debuginfo DIR, iprof(8)). */
#define STRIPPED_FMT \
	"%s has no symbol table (stripped): no .symtab, no functions in " \
	".dynsym, and no separate debug file (/usr/lib/debug/.build-id/, " \
	".gnu_debuglink; one elsewhere: --debuginfo DIR)"

/* Why @lk found nothing, into @err.  Returns -ENOENT or -ENODATA.
 * @dbg: the separate debug file that was searched too, or "". */
static int not_found(const struct lookup *lk, const char *path,
		     const char *dbg, char *err, size_t errlen)
{
	if (dbg[0]) {
		util_set_err(err, errlen,
			"no function '%s' in %s, nor in its debug file %s",
			lk->func, path, dbg);
	} else if (lk->other_type >= 0) {
		util_set_err(err, errlen,
			"'%s' in %s is not a function (symbol type %s)",
			lk->func, path, stt_str(lk->other_type));
	} else if (!lk->has_symtab && !lk->dyn_funcs) {
		util_set_err(err, errlen,
			STRIPPED_FMT, path);
		return -ENODATA;
	} else if (lk->has_symtab) {
		util_set_err(err, errlen,
			"no function '%s' in %s (its symbol table has no such "
			"FUNC symbol)",
			lk->func, path);
	} else {
		util_set_err(err, errlen,
			"no function '%s' in %s (it has no .symtab and no "
			"separate debug file: stripped binaries keep only "
			"exported functions in .dynsym: check with nm -D; "
			"a debug file elsewhere: --debuginfo DIR)",
			lk->func, path);
	}
	return -ENOENT;
}

/* "; did you mean a or b?" after @err when functions of @path are named
 * nearly as @func (ksym_suggest()), among the names written as @func is:
 * C and demangled, or symbols as they are (sym_glob_names()) */
static void suggest_funcs(const char *path, const char *func, char *err,
			  size_t errlen)
{
	struct ksyms all, names;
	char near[256], why[128];
	size_t used = strlen(err);

	if (sym_func_names(path, &all, why, sizeof(why)))
		return;
	if (!sym_glob_names(&all, func, &names)) {
		if (ksym_suggest(names.funcs, names.nfuncs, func, near,
				 sizeof(near)) && used < errlen)
			snprintf(err + used, errlen - used,
				 KSYM_SUGGEST_PFX "%s?", near);
		ksyms_free(&names);
	}
	ksyms_free(&all);
}

/* "0x1, 0x2, 0x3" for the distinct addresses left, into @buf. */
static void addr_list(const struct lookup *lk, char *buf, size_t len)
{
	size_t i, used = 0, shown = 0;

	buf[0] = '\0';
	for (i = 0; i < lk->n && used < len; i++) {
		if (!first_of_address(lk, i))
			continue;
		if (shown++ == 4) {
			snprintf(buf + used, len - used, ", ...");
			break;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%#llx",
					 used ? ", " : "",
					 (unsigned long long)lk->v[i].value);
	}
}

/* Choose among the candidates of @lk; *@pick on success. */
static int choose(struct lookup *lk, const char *path, const struct cand **pick,
		  char *err, size_t errlen)
{
	char addrs[128];
	size_t i;

	if (distinct(lk) > 1)
		drop_if(lk, is_hidden); /* the default version wins */
	if (distinct(lk) > 1)
		drop_if(lk, is_local); /* a global symbol over static ones */
	if (distinct(lk) > 1) {
		addr_list(lk, addrs, sizeof(addrs));
		util_set_err(err, errlen,
			"'%s' in %s is ambiguous: functions of that name at "
			"%s (static functions of several files?)",
			lk->func, path, addrs);
		return -ENOTUNIQ;
	}
	*pick = NULL;
	for (i = 0; i < lk->n; i++) {
		if (lk->v[i].dropped)
			continue;
		if (lk->v[i].type == STT_GNU_IFUNC) {
			util_set_err(err, errlen,
				"'%s' in %s is an indirect function "
				"(STT_GNU_IFUNC): its symbol is the resolver "
				"that picks an implementation at load time; "
				"iprof cannot probe it: probe the "
				"implementation instead",
				lk->func, path);
			return -EOPNOTSUPP;
		}
		if (!*pick)
			*pick = &lk->v[i];
	}
	return 0;
}

static int check_ehdr(Elf *elf, const char *path, char *err, size_t errlen)
{
	GElf_Ehdr eh;
	size_t size = 0;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		util_set_err(err, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	switch (eh.e_type) {
	case ET_EXEC:
	case ET_DYN:
		/* a cut file (a copy in progress, a full disk) loses its
		 * section headers first: they are at the end */
		if (elf_rawfile(elf, &size) && eh.e_shoff &&
		    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > size) {
			util_set_err(err, errlen,
				"%s: truncated: its section headers end at byte %llu, the file has %zu",
				path,
				(unsigned long long)(eh.e_shoff +
						     (uint64_t)eh.e_shnum *
							     eh.e_shentsize),
				size);
			return -ENOEXEC;
		}
		return 0;
	case ET_REL:
		util_set_err(err, errlen,
			"%s: an ELF object file (.o), not an executable or "
			"shared object",
			path);
		return -ENOEXEC;
	case ET_CORE:
		util_set_err(err, errlen,
			"%s: an ELF core dump, not an executable or shared "
			"object",
			path);
		return -ENOEXEC;
	default:
		util_set_err(err, errlen,
			"%s: ELF type %u, not an executable or shared object",
			path, (unsigned int)eh.e_type);
		return -ENOEXEC;
	}
}

/*
 * Open ELF file @path for reading, without blocking (util_open_read(): a
 * FIFO or device is refused, never waited on): *@fd and *@elf (elf_end()
 * and close() them).  Returns 0 or -errno with a message in @err: -EISDIR,
 * -EINVAL (not a regular file, libelf too old), -ENOEXEC (not ELF),
 * open(2)'s.
 */
static int open_elf(const char *path, int *fd, Elf **elf, char *err,
		    size_t errlen)
{
	const char *why = "";
	struct stat st;
	int ret;

	*elf = NULL;
	*fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &why);
	if (*fd < 0) {
		ret = *fd;
		*fd = -1;
		if (ret == -EISDIR)
			util_set_err(err, errlen, "%s: is a directory", path);
		else
			util_set_err(err, errlen, "%s: %s", path, why);
		return ret;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		util_set_err(err, errlen, "libelf: %s", elf_errmsg(-1));
		ret = -EINVAL;
	} else if (!(*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL))) {
		util_set_err(err, errlen, "%s: not an ELF file (%s)", path,
			elf_errmsg(-1));
		ret = -ENOEXEC;
	} else {
		return 0;
	}
	close(*fd);
	*fd = -1;
	return ret;
}

/* The symbol tables of @elf into @lk (lk->elf, lk->verdef set here):
 * every symbol (@pk NULL), or the @npk the cache picked (struct
 * sym_pick: by table, then index), its table's @dyn_funcs added. */
static int collect(Elf *elf, struct lookup *lk, const struct sym_pick *pk,
		   size_t npk, size_t dyn_funcs)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL, *vsym = NULL;
	GElf_Shdr sh, symtab_sh = {0}, dynsym_sh = {0};
	Elf_Data *versym = NULL;
	size_t nsym = 0;
	int ret = 0;

	lk->elf = elf;
	lk->verdef = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		} else if (sh.sh_type == SHT_GNU_versym && !vsym) {
			vsym = scn;
		} else if (sh.sh_type == SHT_GNU_verdef && !lk->verdef) {
			lk->verdef = elf_getdata(scn, NULL);
			lk->verdef_str = sh.sh_link;
		}
	}
	if (vsym)
		versym = elf_getdata(vsym, NULL);
	if (pk) {
		lk->dyn_funcs += dyn_funcs;
		while (nsym < npk && pk[nsym].tab == 0)
			nsym++;
	}
	if (symtab)
		ret = scan_symbols(elf, symtab, &symtab_sh, NULL, false, lk,
				   pk, nsym);
	if (!ret && dynsym)
		ret = scan_symbols(elf, dynsym, &dynsym_sh, versym, true, lk,
				   pk ? pk + nsym : NULL, npk - nsym);
	return ret;
}

static void lookup_reset(struct lookup *lk)
{
	size_t i;

	for (i = 0; i < lk->n; i++)
		free(lk->v[i].dem);
	lk->n = 0;
	lk->colds = 0;
	lk->have_cold = false;
}

void sym_targets_free(struct sym_target *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].name);
	free(v);
}

/* Append candidate @c (at file offset @off) to *@v unless its address is
 * there already; @func: the function's name, for a version's "f@VER" and
 * "f@@VER" when @versioned (it has versions at several addresses). */
static int add_target(struct sym_target **v, size_t *n, const struct cand *c,
		      uint64_t off, const char *func, bool versioned)
{
	struct sym_target *nv;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].offset == off)
			return 0;
	if (util_grow(v, *n, sizeof(**v)))
		return -ENOMEM;
	nv = *v;
	nv[*n].offset = off;
	nv[*n].addr = c->value;
	nv[*n].size = c->size;
	nv[*n].clone = c->clone;
	nv[*n].cold = 0;
	nv[*n].cold_off = nv[*n].cold_size = nv[*n].cold_addr = 0;
	if (versioned && c->ver && !c->dem && !c->clone) {
		if (asprintf(&nv[*n].name, "%s%s%s", func,
			     c->hidden ? "@" : "@@", c->ver) < 0)
			nv[*n].name = NULL;
	} else {
		nv[*n].name = strdup(c->dem ? c->dem : c->name);
	}
	if (!nv[*n].name)
		return -ENOMEM;
	if (c->dem && c->clone == 0 && strcmp(c->dem, c->name)) {
		/* keep the mangled name too: "ns::foo(int) (_ZN2ns3fooEi)" */
		char *both;

		if (asprintf(&both, "%s (%s)", c->dem, c->name) < 0)
			return -ENOMEM;
		free(nv[*n].name);
		nv[*n].name = both;
	}
	(*n)++;
	return 0;
}

static int ifunc_error(const struct lookup *lk, const char *path, char *err,
		       size_t errlen)
{
	util_set_err(err, errlen,
		"'%s' in %s is an indirect function (STT_GNU_IFUNC): its "
		"symbol is the resolver that picks an implementation at load "
		"time; iprof cannot probe it: probe the implementation instead",
		lk->func, path);
	return -EOPNOTSUPP;
}

/*
 * Is candidate @c another version of the function (f@VER beside f@@VER)
 * that a name without a version times too?  Not an IFUNC (its symbol is
 * a resolver; the default version decides whether that is refused).
 */
static bool other_version(const struct lookup *lk, const struct cand *c)
{
	return !lk->ver && !lk->cxx && !c->clone && c->ver &&
	       c->type != STT_GNU_IFUNC;
}

/* Versions of the function at more than one address? */
static bool versions_apart(const struct lookup *lk)
{
	size_t i, j;

	if (lk->ver || lk->cxx)
		return false;
	for (i = 0; i < lk->n; i++)
		for (j = 0; j < i; j++)
			if (lk->v[i].ver && lk->v[j].ver && !lk->v[i].clone &&
			    !lk->v[j].clone && lk->v[i].value != lk->v[j].value)
				return true;
	return false;
}

/*
 * The targets of @lk's candidates: the function (choose()), its other
 * versions (f@VER beside the default f@@VER: a name without a version
 * times every version, as a program linked against an old one calls it)
 * and its clones; for C++ names the one signature's addresses, or
 * -ENOTUNIQ with the overloads.  Offsets from @layout (the binary, when
 * the symbols came from its debug file).
 */
static int make_targets(struct lookup *lk, Elf *layout, const char *path,
			struct sym_target **v, size_t *n, char *err,
			size_t errlen)
{
	const struct cand *pick = NULL;
	bool versioned = versions_apart(lk);
	char list[512];
	size_t i, j, used = 0, sigs = 0;
	uint64_t off;
	int ret;

	if (lk->cxx) {
		list[0] = '\0';
		for (i = 0; i < lk->n; i++) {
			for (j = 0; j < i; j++)
				if (!strcmp(lk->v[j].dem, lk->v[i].dem))
					break;
			if (j < i)
				continue;
			sigs++;
			if (used + strlen(lk->v[i].dem) + 8 < sizeof(list))
				used += (size_t)snprintf(list + used,
							 sizeof(list) - used,
							 "%s%s", used ? "; " : "",
							 lk->v[i].dem);
		}
		if (sigs > 1) {
			util_set_err(err, errlen,
				"'%s' in %s is ambiguous: %zu overloads: %s "
				"(name one with its parameters: '%s(...)')",
				lk->func, path, sigs, list, lk->func);
			return -ENOTUNIQ;
		}
	} else {
		/* the function itself, among its own symbols: clones aside */
		for (i = 0; i < lk->n; i++)
			if (!lk->v[i].clone)
				break;
		if (i < lk->n) {
			for (j = 0; j < lk->n; j++)
				lk->v[j].dropped = lk->v[j].clone;
			ret = choose(lk, path, &pick, err, errlen);
			if (ret)
				return ret;
		}
		for (j = 0; j < lk->n; j++)
			lk->v[j].dropped = false;
	}
	for (i = 0; i < lk->n + 1; i++) {
		const struct cand *c = i ? &lk->v[i - 1] : pick;

		if (!c || (i && c == pick))
			continue;
		/* another symbol of the function (a static one beside the
		 * global) is not an entry of its own; another version is */
		if (i && pick && !c->clone &&
		    !(other_version(lk, c) && pick->ver))
			continue;
		/* f.part.N is the outlined rest of f after partial inlining:
		 * f itself calls it, so beside f it would time f's calls
		 * twice, nested; it is an entry only when f has no symbol */
		if (i && pick && strstr(c->name, ".part."))
			continue;
		if (c->type == STT_GNU_IFUNC)
			return ifunc_error(lk, path, err, errlen);
		if (file_offset(layout, c, &off)) {
			util_set_err(err, errlen,
				"'%s' in %s: address %#llx is in no section "
				"or segment of the file",
				c->name, path, (unsigned long long)c->value);
			return -ENOENT;
		}
		ret = add_target(v, n, c, off, lk->func, versioned);
		if (ret) {
			util_set_err(err, errlen, "%s: out of memory", path);
			return ret;
		}
	}
	return 0;
}

/* Does @func look like a C++ name (ns::f, f(int), f<int>, ~C)? */
static bool cxx_name(const char *func)
{
	return strstr(func, "::") || strpbrk(func, "(<~ ");
}

/* Has @elf a .symtab with a symbol in it (not stripped)? */
static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_entsize && sh.sh_size / sh.sh_entsize > 1)
			return true;
	return false;
}

/*
 * The separate debug file of @elf (@path), as gdb and elfutils look for
 * it (gdb "Separate Debug Files"; elfutils libdwfl
 * dwfl_standard_find_debuginfo): by build ID,
 * /usr/lib/debug/.build-id/XX/YYYY.debug (the NT_GNU_BUILD_ID note); by
 * .gnu_debuglink NAME: DIR/NAME, DIR/.debug/NAME, /usr/lib/debug/DIR/NAME
 * (DIR: @path's directory).  Opened into *@fd, *@dbg (the caller closes
 * them) and its path into @out; 0, or -ENOENT when there is none.
 */
/* close a file and its debug file (NULL, -1: none) as open_elf() and
 * find_debug_file() opened them */
static void close_elfs(Elf *elf, int fd, Elf *dbg, int dfd)
{
	if (dbg)
		elf_end(dbg);
	if (dfd >= 0)
		close(dfd);
	elf_end(elf);
	close(fd);
}

/* the GNU build ID of @elf in hex into @hex (@len bytes); 1 if it has
 * one, else 0 (@hex empty) */
static int build_id_of(Elf *elf, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t off, noff, doff, i;
	const unsigned char *b;

	hex[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		for (off = 0;
		     (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0;) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz < 2 || 2 * nh.n_descsz + 1 > len)
				continue;
			b = (const unsigned char *)d->d_buf + doff;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", b[i]);
			return 1;
		}
	}
	return 0;
}

/*
 * Is @dbg (open as @fd) the debug file of a binary whose build ID is
 * @hex ("" if none) and whose .gnu_debuglink CRC is @crc (@have_crc)?
 * A different build ID, or without build IDs a different CRC-32 of the
 * whole file, is another build's: its addresses would be wrong.  Neither
 * to compare: taken.
 */
static bool debug_matches(Elf *dbg, int fd, const char *hex, int have_crc,
			  uint32_t crc)
{
	char dhex[128];
	unsigned char buf[65536];
	uLong c = crc32(0L, Z_NULL, 0);
	off_t pos = 0;
	ssize_t r;

	if (hex[0] && build_id_of(dbg, dhex, sizeof(dhex)))
		return !strcmp(hex, dhex);
	if (!have_crc)
		return true;
	while ((r = pread(fd, buf, sizeof(buf), pos)) > 0) {
		c = crc32(c, buf, (uInt)r);
		pos += r;
	}
	return r == 0 && (uint32_t)c == crc;
}

/* --debuginfo DIR (sym_set_debugdir()), absolute, or NULL */
static char *extra_dir;

int sym_set_debugdir(const char *dir)
{
	char *abs = NULL;

	if (dir && !(abs = realpath(dir, NULL)))
		return -errno;
	free(extra_dir);
	extra_dir = abs;
	return 0;
}

static int find_debug_file(Elf *elf, const char *path, int *fd, Elf **dbg,
			   char *out, size_t outlen)
{
	char cand[6][PATH_MAX], link[256] = "", dir[PATH_MAX], id[128] = "";
	char hex[128];
	const char *nm;
	size_t shstr;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t off, noff, doff, i, nc = 0;
	const unsigned char *b;
	const char *slash, *why;
	struct stat st;
	char e[8];
	uint32_t crc = 0;
	int have_crc = 0;

	hex[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		if (sh.sh_type == SHT_NOTE && !id[0]) {
			for (off = 0; (off = gelf_getnote(d, off, &nh, &noff,
							  &doff)) > 0;) {
				if (nh.n_type != NT_GNU_BUILD_ID ||
				    nh.n_namesz != 4 ||
				    memcmp((char *)d->d_buf + noff, "GNU", 4) ||
				    nh.n_descsz < 2 || nh.n_descsz > 60)
					continue;
				b = (const unsigned char *)d->d_buf + doff;
				for (i = 0; i < nh.n_descsz; i++)
					snprintf(hex + 2 * i, 3, "%02x", b[i]);
				if (snprintf(id, sizeof(id), "%.2s/%s", hex,
					     hex + 2) >= (int)sizeof(id))
					id[0] = '\0';
				break;
			}
		} else if (sh.sh_type == SHT_PROGBITS &&
			   !elf_getshdrstrndx(elf, &shstr) &&
			   (nm = elf_strptr(elf, shstr, sh.sh_name)) &&
			   !strcmp(nm, ".gnu_debuglink") && d->d_size > 4) {
			snprintf(link, sizeof(link), "%.*s",
				 (int)strnlen(d->d_buf, d->d_size - 4),
				 (const char *)d->d_buf);
			/* the debug file's CRC-32, in the file's byte order
			 * (gdb's manual, "Separate Debug Files") */
			memcpy(&crc, (const char *)d->d_buf + d->d_size - 4, 4);
			have_crc = 1;
		}
	}
	if (id[0] && extra_dir &&
	    snprintf(cand[nc], PATH_MAX, "%s/.build-id/%s.debug", extra_dir,
		     id) < PATH_MAX)
		nc++;
	if (id[0] && snprintf(cand[nc], PATH_MAX,
			      "/usr/lib/debug/.build-id/%s.debug",
			      id) < PATH_MAX)
		nc++;
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
	if (link[0] && !strchr(link, '/')) {
		if (snprintf(cand[nc], PATH_MAX, "%s/%s", dir, link) <
		    PATH_MAX)
			nc++;
		if (snprintf(cand[nc], PATH_MAX, "%s/.debug/%s", dir, link) <
		    PATH_MAX)
			nc++;
		if (snprintf(cand[nc], PATH_MAX, "/usr/lib/debug%s/%s", dir,
			     link) < PATH_MAX)
			nc++;
		if (extra_dir && snprintf(cand[nc], PATH_MAX, "%s%s/%s",
					  extra_dir, dir, link) < PATH_MAX)
			nc++;
	}
	for (i = 0; i < nc; i++) {
		/* DIR/NAME may be the binary itself: not its debug file */
		if (!stat(cand[i], &st) && !strcmp(cand[i], path))
			continue;
		*fd = util_open_read(cand[i], UTIL_OPEN_REGULAR, &st, &why);
		if (*fd < 0)
			continue;
		*dbg = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
		if (*dbg && !check_ehdr(*dbg, cand[i], e, sizeof(e)) &&
		    debug_matches(*dbg, *fd, hex, have_crc, crc)) {
			snprintf(out, outlen, "%s", cand[i]);
			return 0;
		}
		if (*dbg)
			elf_end(*dbg);
		close(*fd);
	}
	*fd = -1;
	*dbg = NULL;
	return -ENOENT;
}

int sym_debug_file(const char *path, char *out, size_t outlen)
{
	char e[256];
	Elf *elf, *dbg = NULL;
	int fd, dfd = -1, ret;

	ret = open_elf(path, &fd, &elf, e, sizeof(e));
	if (ret)
		return ret;
	ret = find_debug_file(elf, path, &dfd, &dbg, out, outlen);
	close_elfs(elf, fd, dbg, dfd);
	return ret;
}

/* ---- the planner's cache (struct sym_cache) ------------------------------ */

/* A defined symbol of one table, as the cache indexes it. */
struct sym_ent {
	const char *name; /* in the ELF's string table */
	char *dem;	  /* a function's demangled name (demangle(): clone
			   * suffixes cut), malloc'ed once cxx_index() ran;
			   * NULL: not mangled */
	char *key;	  /* @dem's name part without white space
			   * (cxx_name_part()), malloc'ed, or NULL */
	uint32_t nm, paren; /* with @key: where cxx_name_part() found
			     * the name and its parameters in @dem */
	bool tried;	  /* demangled (cxx_index()): @dem, @key, @cold set */
	size_t idx;	  /* its index in its table */
	int tab;	  /* 0: .symtab, 1: .dynsym (collect()'s) */
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
	 * clone suffix follows (sym_clone_of()); by C++ key (cxx_index()) */
	struct sym_hash byname, byclone, bycxx;
	/* cxx_index(): every function demangled (@cxx_all), or those
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

/* More files than this (a plan rarely names ten) are read uncached. */
#define SYM_CACHE_FILES 64

/* An answer kept: sym_resolve_path()'s (@kind 0: @ret, @out, @err) or
 * stat(2)'s (@kind 1: @ret, @st) for @name. */
struct sym_memo {
	char *name, *out, *err;
	int kind, ret;
	struct stat st;
};

struct sym_cache {
	struct sym_file *v;
	size_t n;
	struct sym_memo *memo;
	size_t nmemo;
};

struct sym_cache *sym_cache_new(void)
{
	return calloc(1, sizeof(struct sym_cache));
}

static void hash_free(struct sym_hash *h)
{
	free(h->head);
	free(h->next);
	free(h->ent);
	free(h->len);
	free(h->key);
	memset(h, 0, sizeof(*h));
}

/* FNV-1a of the @len bytes at @s */
static uint32_t hash_of(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Key entry @ent by the @len bytes at @key (kept, not copied) in @h,
 * whose buckets hash_index() makes.  0 or -ENOMEM. */
static int hash_add(struct sym_hash *h, size_t ent, const char *key,
		    size_t len)
{
	if (util_grow(&h->ent, h->n, sizeof(*h->ent)) ||
	    util_grow(&h->len, h->n, sizeof(*h->len)) ||
	    util_grow(&h->next, h->n, sizeof(*h->next)) ||
	    util_grow(&h->key, h->n, sizeof(*h->key)))
		return -ENOMEM;
	h->ent[h->n] = (uint32_t)ent;
	h->len[h->n] = (uint32_t)len;
	h->key[h->n] = key;
	h->n++;
	return 0;
}

/* The buckets of @h, once its entries are added: chains in the order
 * they were added.  0 or -ENOMEM. */
static int hash_index(struct sym_hash *h)
{
	uint32_t b, *tail;
	size_t i;

	for (h->nb = 64; h->nb < 2 * h->n; h->nb *= 2)
		;
	h->head = malloc(h->nb * sizeof(*h->head));
	tail = malloc(h->nb * sizeof(*tail));
	if (!h->head || !tail) {
		free(tail);
		return -ENOMEM;
	}
	memset(h->head, 0xff, h->nb * sizeof(*h->head));
	for (i = 0; i < h->n; i++) {
		b = hash_of(h->key[i], h->len[i]) & (h->nb - 1);
		h->next[i] = ~0u;
		if (h->head[b] == ~0u)
			h->head[b] = (uint32_t)i;
		else
			h->next[tail[b]] = (uint32_t)i;
		tail[b] = (uint32_t)i;
	}
	free(tail);
	return 0;
}

/* hash_add() into @h once its @nb buckets are made (hash_buckets()):
 * chained at once.  0 or -ENOMEM. */
static int hash_insert(struct sym_hash *h, size_t ent, const char *key,
		       size_t len)
{
	uint32_t b = hash_of(key, len) & (h->nb - 1);

	if (hash_add(h, ent, key, len))
		return -ENOMEM;
	h->next[h->n - 1] = h->head[b];
	h->head[b] = (uint32_t)(h->n - 1);
	return 0;
}

/* @h's buckets for about @n entries, all empty.  0 or -ENOMEM. */
static int hash_buckets(struct sym_hash *h, size_t n)
{
	for (h->nb = 64; h->nb < 2 * n; h->nb *= 2)
		;
	h->head = malloc(h->nb * sizeof(*h->head));
	if (!h->head)
		return -ENOMEM;
	memset(h->head, 0xff, h->nb * sizeof(*h->head));
	return 0;
}

/* The first entry of @h keyed by the @len bytes at @s (then
 * hash_next()), or ~0u. */
static uint32_t hash_next(const struct sym_hash *h, uint32_t i, const char *s,
			  size_t len)
{
	for (; i != ~0u; i = h->next[i])
		if (h->len[i] == len && !memcmp(h->key[i], s, len))
			return i;
	return ~0u;
}

static uint32_t hash_first(const struct sym_hash *h, const char *s,
			   size_t len)
{
	if (!h->nb)
		return ~0u;
	return hash_next(h, h->head[hash_of(s, len) & (h->nb - 1)], s, len);
}

static void index_free(struct sym_index *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++) {
		free(ix->v[i].dem);
		free(ix->v[i].key);
	}
	free(ix->v);
	hash_free(&ix->byname);
	hash_free(&ix->byclone);
	hash_free(&ix->bycxx);
	for (i = 0; i < ix->ntok; i++)
		free(ix->tok[i]);
	free(ix->tok);
	memset(ix, 0, sizeof(*ix));
}

void sym_cache_free(struct sym_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		index_free(&c->v[i].ix[0]);
		index_free(&c->v[i].ix[1]);
		free(c->v[i].starts);
		free(c->v[i].path);
		close_elfs(c->v[i].elf, c->v[i].fd, c->v[i].dbg, c->v[i].dfd);
	}
	for (i = 0; i < c->nmemo; i++) {
		free(c->memo[i].name);
		free(c->memo[i].out);
		free(c->memo[i].err);
	}
	free(c->memo);
	free(c->v);
	free(c);
}

/* The answer of @kind for @name kept in @c, or NULL. */
static struct sym_memo *memo_find(struct sym_cache *c, int kind,
				  const char *name)
{
	size_t i;

	for (i = 0; i < c->nmemo; i++)
		if (c->memo[i].kind == kind && !strcmp(c->memo[i].name, name))
			return &c->memo[i];
	return NULL;
}

/* A new answer of @kind for @name in @c (its fields to fill), or NULL
 * (out of memory, or SYM_CACHE_FILES answers kept: not kept). */
static struct sym_memo *memo_add(struct sym_cache *c, int kind,
				 const char *name)
{
	struct sym_memo *m;

	if (c->nmemo == SYM_CACHE_FILES ||
	    util_grow(&c->memo, c->nmemo, sizeof(*c->memo)))
		return NULL;
	m = &c->memo[c->nmemo];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	if (!(m->name = strdup(name)))
		return NULL;
	c->nmemo++;
	return m;
}

int sym_cache_resolve_path(struct sym_cache *c, const char *name, char **out,
			   char *err, size_t errlen)
{
	struct sym_memo *m = c ? memo_find(c, 0, name) : NULL;
	int ret;

	if (m) {
		*out = NULL;
		if (!m->ret && !(*out = strdup(m->out)))
			return -ENOMEM;
		if (m->ret)
			util_set_err(err, errlen, "%s", m->err);
		return m->ret;
	}
	ret = sym_resolve_path(name, out, err, errlen);
	if (ret == -ENOMEM || !c || !(m = memo_add(c, 0, name)))
		return ret;
	m->ret = ret;
	if (ret ? !(m->err = strdup(err)) : !(m->out = strdup(*out)))
		m->ret = -ENOMEM; /* not kept: asked again */
	if (m->ret == -ENOMEM)
		m->kind = -1;
	return ret;
}

int sym_cache_stat(struct sym_cache *c, const char *path, struct stat *st)
{
	struct sym_memo *m = c ? memo_find(c, 1, path) : NULL;

	if (m) {
		*st = m->st;
		return m->ret;
	}
	if (stat(path, st))
		return -errno;
	if (c && (m = memo_add(c, 1, path)))
		m->st = *st;
	return 0;
}

/* The defined symbols of table @tab (@scn) of @elf into @ix, as
 * scan_symbols() walks them. */
static int index_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int tab,
		       struct sym_index *ix)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *name;
	GElf_Sym sym;
	size_t i, n;
	int type;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && i <= INT_MAX; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (tab && (type == STT_FUNC || type == STT_GNU_IFUNC))
			ix->dyn_funcs++;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (util_grow(&ix->v, ix->n, sizeof(*ix->v)))
			return -ENOMEM;
		memset(&ix->v[ix->n], 0, sizeof(ix->v[ix->n]));
		ix->v[ix->n].name = name;
		ix->v[ix->n].idx = i;
		ix->v[ix->n].tab = tab;
		ix->v[ix->n].func = type == STT_FUNC || type == STT_GNU_IFUNC;
		ix->n++;
	}
	return 0;
}

/* @ix's names keyed: by name up to '@', by every name a clone suffix
 * follows ("f" and "f.constprop.0" for f.constprop.0.isra.0). */
static int index_keys(struct sym_index *ix)
{
	const char *nm, *d;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < ix->n; i++) {
		nm = ix->v[i].name;
		ret = hash_add(&ix->byname, i, nm, strcspn(nm, "@"));
		for (d = strchr(nm, '.'); !ret && d; d = strchr(d + 1, '.'))
			if (clone_suffix(d))
				ret = hash_add(&ix->byclone, i, nm,
					       (size_t)(d - nm));
	}
	if (!ret)
		ret = hash_index(&ix->byname);
	if (!ret)
		ret = hash_index(&ix->byclone);
	return ret;
}

/* The first .symtab and .dynsym of @elf (collect()'s) into @ix, keyed. */
static int index_build(Elf *elf, struct sym_index *ix)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symtab_sh = { 0 }, dynsym_sh = { 0 };
	int ret = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		}
	}
	if (symtab)
		ret = index_table(elf, symtab, &symtab_sh, 0, ix);
	if (!ret && dynsym)
		ret = index_table(elf, dynsym, &dynsym_sh, 1, ix);
	if (!ret)
		ret = index_keys(ix);
	return ret;
}

/*
 * The token a demangled C++ or Rust name whose name part begins with
 * @s's first identifier and "::" ("hot::f" -> "3hot") holds in its mangled
 * form: that identifier as a <source-name> (Itanium ABI; Rust legacy and
 * v0 alike), or a substitution of an earlier one.  Into @tok (@len
 * bytes); false when @s has none that tells: no leading identifier and
 * "::", one starting with '_' (Rust v0 writes "_" after the length), or
 * "std" (the demangler writes it for St, Sa, Ss, ...).
 */
static bool name_token(const char *s, char *tok, size_t len)
{
	size_t n = 0;

	while (is_cxx_ident(s[n]) && s[n] != '$')
		n++;
	if (!n || s[0] == '_' || (s[0] >= '0' && s[0] <= '9') ||
	    strncmp(s + n, "::", 2) || (n == 3 && !strncmp(s, "std", 3)))
		return false;
	return snprintf(tok, len, "%zu%.*s", n, (int)n, s) < (int)len;
}

/* Demangle function @i of @ix, a name in both tables once, and key it
 * by its C++ name part.  0 or -ENOMEM. */
static int cxx_one(struct sym_index *ix, size_t i)
{
	struct sym_ent *e = &ix->v[i], *same = NULL;
	size_t len = strcspn(e->name, "@");
	const char *nm, *paren;
	char d[1024];
	uint32_t k;

	e->tried = true;
	/* the name demangled before (in the other table)? */
	for (k = hash_first(&ix->byname, e->name, len);
	     k != ~0u && ix->byname.ent[k] < i && !same;
	     k = hash_next(&ix->byname, ix->byname.next[k], e->name, len))
		if (ix->v[ix->byname.ent[k]].func &&
		    !strcmp(ix->v[ix->byname.ent[k]].name, e->name))
			same = &ix->v[ix->byname.ent[k]];
	if (same && same->tried) {
		e->cold = same->cold;
		e->nm = same->nm;
		e->paren = same->paren;
		if ((same->dem && !(e->dem = strdup(same->dem))) ||
		    (same->key && !(e->key = strdup(same->key))))
			return -ENOMEM;
	} else if (!demangle(e->name, &e->dem, &e->cold) &&
		   cxx_name_part(e->dem, d, sizeof(d), &nm, &paren)) {
		e->nm = (uint32_t)(nm - e->dem);
		e->paren = (uint32_t)(paren - e->dem);
		if (!(e->key = strdup(d)))
			return -ENOMEM;
	}
	return e->key ? hash_insert(&ix->bycxx, i, e->key, strlen(e->key)) : 0;
}

/*
 * Demangle the functions of @ix not yet demangled: those whose names hold
 * @tok (name_token(): no other can match a name that begins with its
 * identifier), or with @tok NULL all of them; each once, keyed by its C++
 * name part.  0 or -ENOMEM.
 */
static int cxx_index(struct sym_index *ix, const char *tok)
{
	size_t i, nfunc = 0;
	int ret = 0;

	if (ix->cxx_all)
		return 0;
	for (i = 0; tok && i < ix->ntok; i++)
		if (!strcmp(ix->tok[i], tok))
			return 0;
	if (!ix->bycxx.nb) {
		for (i = 0; i < ix->n; i++)
			nfunc += ix->v[i].func;
		ret = hash_buckets(&ix->bycxx, nfunc);
	}
	for (i = 0; !ret && i < ix->n; i++)
		if (ix->v[i].func && !ix->v[i].tried &&
		    (!tok || strstr(ix->v[i].name, tok)))
			ret = cxx_one(ix, i);
	if (ret)
		return ret;
	if (!tok) {
		ix->cxx_all = true;
		return 0;
	}
	if (util_grow(&ix->tok, ix->ntok, sizeof(*ix->tok)) ||
	    !(ix->tok[ix->ntok] = strdup(tok)))
		return -ENOMEM;
	ix->ntok++;
	return 0;
}

/* Opened and indexed: 0 with *@out, or open_elf()'s and check_ehdr()'s
 * errors (a message in @err), -ENOMEM, or -EMFILE past SYM_CACHE_FILES. */
static int file_get(struct sym_cache *c, const char *path,
		    struct sym_file **out, char *err, size_t errlen)
{
	struct sym_file *f;
	size_t i;
	int ret;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].path, path)) {
			*out = &c->v[i];
			return 0;
		}
	if (c->n == SYM_CACHE_FILES)
		return -EMFILE;
	if (util_grow(&c->v, c->n, sizeof(*c->v)))
		return -ENOMEM;
	f = &c->v[c->n];
	memset(f, 0, sizeof(*f));
	f->dfd = -1;
	ret = open_elf(path, &f->fd, &f->elf, err, errlen);
	if (ret)
		return ret;
	ret = check_ehdr(f->elf, path, err, errlen);
	if (!ret && !has_symtab(f->elf))
		find_debug_file(f->elf, path, &f->dfd, &f->dbg, f->dpath,
				sizeof(f->dpath));
	if (!ret && !(f->path = strdup(path)))
		ret = -ENOMEM;
	if (!ret)
		ret = index_build(f->elf, &f->ix[0]);
	if (!ret && f->dbg)
		ret = index_build(f->dbg, &f->ix[1]);
	if (ret) {
		index_free(&f->ix[0]);
		index_free(&f->ix[1]);
		free(f->path);
		close_elfs(f->elf, f->fd, f->dbg, f->dfd);
		return ret;
	}
	c->n++;
	*out = f;
	return 0;
}

struct picks {
	struct sym_pick *v;
	size_t n;
};

static int pick_add(struct picks *p, const struct sym_ent *e)
{
	if (util_grow(&p->v, p->n, sizeof(*p->v)))
		return -ENOMEM;
	p->v[p->n].idx = e->idx;
	p->v[p->n].tab = e->tab;
	p->v[p->n].dem = e->dem;
	p->v[p->n].cold = e->cold;
	p->n++;
	return 0;
}

static int pick_cmp(const void *a, const void *b)
{
	const struct sym_pick *x = a, *y = b;

	if (x->tab != y->tab)
		return x->tab - y->tab;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The symbols @h keys by the @len bytes at @s into @p. */
static int pick_hash(const struct sym_index *ix, const struct sym_hash *h,
		     const char *s, size_t len, struct picks *p)
{
	uint32_t k;
	int ret = 0;

	for (k = hash_first(h, s, len); !ret && k != ~0u;
	     k = hash_next(h, h->next[k], s, len))
		ret = pick_add(p, &ix->v[h->ent[k]]);
	return ret;
}

/*
 * The symbols of @ix that scan_symbols() may take for @lk, in table order:
 * named lk->func up to an '@' (lk->func, its versions "lk->func@V"), its
 * clones and cold parts ("lk->func.isra.0"); with lk->cxx the functions
 * whose demangled name part is lk->func's up to one of its top-level '('
 * or its end, without white space (cxx_matches() takes no other).
 */
static int pick(const struct sym_index *ix, const struct lookup *lk,
		struct picks *p)
{
	char f[512];
	size_t i;
	int ret = 0;

	if (lk->cxx) {
		if (!squeeze(lk->func, f, sizeof(f)))
			return 0; /* cxx_matches() takes none */
		for (i = 0; !ret && (i == 0 || f[i - 1]); i++)
			if (f[i] == '(' || !f[i])
				ret = pick_hash(ix, &ix->bycxx, f, i, p);
	} else {
		ret = pick_hash(ix, &ix->byname, lk->func, strlen(lk->func),
				p);
		if (!ret)
			ret = pick_hash(ix, &ix->byclone, lk->func,
					strlen(lk->func), p);
	}
	if (!ret && p->n)
		qsort(p->v, p->n, sizeof(*p->v), pick_cmp);
	return ret;
}

/* collect() over @f and its debug file, through their indexes: the
 * candidates collect() over every symbol gives, in its order. */
static int collect_cached(struct sym_file *f, struct lookup *lk)
{
	static const struct sym_pick none;
	struct picks p = { 0 };
	char tok[272];
	int ret = 0, k;

	for (k = 0; !ret && k < 2; k++) {
		if (!(k ? f->dbg : f->elf))
			continue;
		if (lk->cxx)
			ret = cxx_index(&f->ix[k],
					name_token(lk->func, tok, sizeof(tok)) ?
						tok :
						NULL);
		p.n = 0;
		if (!ret)
			ret = pick(&f->ix[k], lk, &p);
		if (!ret)
			ret = collect(k ? f->dbg : f->elf, lk, p.n ? p.v : &none,
				      p.n, f->ix[k].dyn_funcs);
	}
	free(p.v);
	return ret;
}

/* sym_func_targets() through @f (the cache's, or NULL: the file read
 * here): the same answers either way. */
static int func_targets(struct sym_file *f, const char *path, const char *func,
			struct sym_target **out, size_t *nout, char *err,
			size_t errlen)
{
	struct lookup lk = {.other_type = -1};
	char base[512], dpath[PATH_MAX] = "";
	Elf *elf, *dbg = NULL;
	const char *at;
	int fd = -1, dfd = -1, ret, pass, nb;
	size_t colds = 0, i;

	*out = NULL;
	*nout = 0;
	at = strchr(func, '@');
	if (at && (strlen(func) >= sizeof(base) || at == func ||
		   !at[1 + (at[1] == '@')])) {
		util_set_err(err, errlen, "'%s': expected FUNC@VERSION or "
			"FUNC@@VERSION", func);
		return -EINVAL;
	}
	if (at) {
		snprintf(base, sizeof(base), "%.*s", (int)(at - func), func);
		lk.func = base;
		lk.ver_default = at[1] == '@';
		lk.ver = at + 1 + lk.ver_default;
	} else {
		lk.func = func;
	}
	nb = (int)ksym_base_len(lk.func);
	if (clone_suffix(lk.func + nb) == 2) {
		util_set_err(err, errlen,
			"'%s' is a cold part of %.*s, not a function: blocks "
			"the compiler moved out of %.*s, entered by a jump with "
			"no return address on the stack (a return probe there "
			"would corrupt the program); time %.*s",
			lk.func, nb, lk.func, nb, lk.func, nb, lk.func);
		return -EOPNOTSUPP;
	}
	if (f) {
		elf = f->elf;
		dbg = f->dbg;
		snprintf(dpath, sizeof(dpath), "%s", f->dpath);
	} else {
		ret = open_elf(path, &fd, &elf, err, errlen);
		if (ret)
			return ret;
		ret = check_ehdr(elf, path, err, errlen);
		if (ret)
			goto out;
		/* a stripped binary: its separate debug file's .symtab
		 * beside its own .dynsym, so that a function it exports has
		 * its clones and cold part too */
		if (!has_symtab(elf))
			find_debug_file(elf, path, &dfd, &dbg, dpath,
					sizeof(dpath));
	}
	/* pass 0: the name and its clones; 1: C++ names demangled */
	for (pass = 0; pass < 2; pass++) {
		colds += lk.colds;
		lookup_reset(&lk);
		lk.cxx = pass & 1;
		if (lk.cxx && (lk.ver || (!cxx_name(lk.func) &&
					  lk.other_type >= 0)))
			continue;
		if (f) {
			ret = collect_cached(f, &lk);
		} else {
			ret = collect(elf, &lk, NULL, 0, 0);
			if (!ret && dbg)
				ret = collect(dbg, &lk, NULL, 0, 0);
		}
		if (ret) {
			util_set_err(err, errlen, "%s: out of memory", path);
			goto out;
		}
		if (lk.n)
			break;
	}
	if (!lk.n) {
		if (lk.ver) {
			util_set_err(err, errlen,
				"no function '%s' of version %s%s in %s (nm -D "
				"--with-symbol-versions lists them)",
				lk.func, lk.ver_default ? "(default) " : "",
				lk.ver, path);
			ret = -ENOENT;
		} else if (colds + lk.colds) {
			util_set_err(err, errlen,
				"'%s' in %s has only a cold part (%s.cold: "
				"blocks the compiler moved out of it, entered "
				"by a jump, never called): the function itself "
				"was inlined into its callers",
				lk.func, path, lk.func);
			ret = -ENOENT;
		} else {
			ret = not_found(&lk, path, dpath, err, errlen);
			if (ret == -ENOENT && lk.other_type < 0)
				suggest_funcs(path, lk.func, err, errlen);
		}
		goto out;
	}
	ret = make_targets(&lk, elf, path, out, nout, err, errlen);
	for (i = 0; !ret && i < *nout; i++) {
		uint64_t coff;

		(*out)[i].cold = colds + lk.colds > 0;
		if (lk.have_cold && !file_offset(elf, &lk.cold, &coff)) {
			(*out)[i].cold_off = coff;
			(*out)[i].cold_size = lk.cold.size;
			(*out)[i].cold_addr = lk.cold.value;
		}
	}
	if (ret) {
		sym_targets_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	}
out:
	lookup_reset(&lk);
	free(lk.v);
	if (!f)
		close_elfs(elf, fd, dbg, dfd);
	return ret;
}

/* The function named @name in @f's index (demangled if cxx_index() took
 * it: sym_ent.tried), or NULL: demangle it yourself. */
static const struct sym_ent *ent_of(struct sym_file *f, const char *name)
{
	const struct sym_index *ix;
	const struct sym_ent *e;
	size_t len;
	uint32_t k;
	int i;

	if (!f)
		return NULL;
	len = strcspn(name, "@");
	for (i = 0; i < 2; i++) {
		ix = &f->ix[i];
		for (k = hash_first(&ix->byname, name, len); k != ~0u;
		     k = hash_next(&ix->byname, ix->byname.next[k], name, len)) {
			e = &ix->v[ix->byname.ent[k]];
			if (e->func && !strcmp(e->name, name))
				return e;
		}
	}
	return NULL;
}

/* Has cxx_index() demangled @e? */
static bool ent_tried(const struct sym_ent *e)
{
	return e->tried;
}

/* Is @e a C++ function cxx_names() lists (demangled, not a cold part, a
 * name part found): its demangled name in *@dem, the name and its
 * parameters in it at *@name and *@paren.  *@mangled: demangled at all. */
static bool ent_cxx(const struct sym_ent *e, bool *mangled, const char **dem,
		    const char **name, const char **paren)
{
	*mangled = e->dem != NULL;
	*dem = e->dem;
	if (!e->dem || e->cold || !e->key)
		return false;
	*name = e->dem + e->nm;
	*paren = e->dem + e->paren;
	return true;
}

int sym_cache_glob_names(struct sym_cache *c, const char *path,
			 const char *glob, struct ksyms *out, char *err,
			 size_t errlen)
{
	struct sym_file *f = NULL;
	struct ksyms names;
	char tok[272];
	bool has_tok;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = sym_func_names(path, &names, err, errlen);
	if (ret)
		return ret;
	/* a mangled glob compares symbols: nothing to demangle */
	if (c && (glob[0] != '_' || strstr(glob, "::")) &&
	    !file_get(c, path, &f, err, errlen)) {
		/* "hot::*": only the names that hold "3hot" can match */
		has_tok = strstr(glob, "::") &&
			  name_token(glob, tok, sizeof(tok));
		ret = cxx_index(&f->ix[0], has_tok ? tok : NULL);
		if (!ret)
			ret = cxx_index(&f->ix[1], has_tok ? tok : NULL);
	}
	if (!ret)
		ret = glob_names(&names, glob, out, f);
	ksyms_free(&names);
	if (ret)
		util_set_err(err, errlen, "%s: out of memory", path);
	return ret;
}

int sym_cache_targets(struct sym_cache *c, const char *path, const char *func,
		      struct sym_target **out, size_t *nout, char *err,
		      size_t errlen)
{
	struct sym_file *f = NULL;

	/* a file the cache cannot hold is read here, its errors said */
	if (c && file_get(c, path, &f, err, errlen))
		f = NULL;
	return func_targets(f, path, func, out, nout, err, errlen);
}

int sym_func_targets(const char *path, const char *func,
		     struct sym_target **out, size_t *nout, char *err,
		     size_t errlen)
{
	return func_targets(NULL, path, func, out, nout, err, errlen);
}

int sym_func_range(const char *path, const char *func, uint64_t *offset,
		   uint64_t *size, char *err, size_t errlen)
{
	struct sym_target *v;
	size_t n;
	int ret;

	ret = sym_func_targets(path, func, &v, &n, err, errlen);
	if (ret)
		return ret;
	*offset = v[0].offset;
	if (size)
		*size = v[0].size;
	sym_targets_free(v, n);
	return 0;
}

int sym_func_offset(const char *path, const char *func, uint64_t *offset,
		    char *err, size_t errlen)
{
	return sym_func_range(path, func, offset, NULL, err, errlen);
}

/*
 * The function names of one symbol table into @k (versions cut off), and
 * those of indirect functions into @ifuncs.
 */
static int add_func_names(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			  struct ksyms *k, struct ksyms *ifuncs, bool *any)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *name;
	GElf_Sym sym;
	size_t i, n;
	int err;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && i <= INT_MAX; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		if (sym.st_shndx == SHN_UNDEF || /* an import */
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || *name == '@')
			continue;
		*any = true;
		err = ksyms_add(GELF_ST_TYPE(sym.st_info) == STT_FUNC ? k
								      : ifuncs,
				name, strcspn(name, "@"), NULL);
		if (err)
			return err;
	}
	return 0;
}

int sym_func_names(const char *path, struct ksyms *k, char *err, size_t errlen)
{
	struct ksyms ifuncs = {0};
	char dpath[PATH_MAX];
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool any = false;
	size_t i, j;
	Elf *elf, *dbg = NULL, *e;
	int fd, dfd = -1, ret;

	memset(k, 0, sizeof(*k));
	ret = open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	ret = check_ehdr(elf, path, err, errlen);
	/* a stripped binary: the functions of its separate debug file too,
	 * as sym_func_targets() finds them */
	if (!ret && !has_symtab(elf))
		find_debug_file(elf, path, &dfd, &dbg, dpath, sizeof(dpath));
	for (e = elf; !ret && e; e = e == elf ? dbg : NULL) {
		scn = NULL;
		while (!ret && (scn = elf_nextscn(e, scn))) {
			if (gelf_getshdr(scn, &sh) &&
			    (sh.sh_type == SHT_SYMTAB ||
			     sh.sh_type == SHT_DYNSYM))
				ret = add_func_names(e, scn, &sh, k, &ifuncs,
						     &any);
		}
	}
	close_elfs(elf, fd, dbg, dfd);
	if (ret == -ENOMEM)
		util_set_err(err, errlen, "%s: out of memory", path);
	if (!ret && !any) {
		util_set_err(err, errlen,
			STRIPPED_FMT, path);
		ret = -ENODATA;
	}
	if (ret) {
		ksyms_free(&ifuncs);
		ksyms_free(k);
		return ret;
	}
	ksyms_sort(k);
	ksyms_sort(&ifuncs);
	/* a name that is also an IFUNC (glibc's memcpy@@GLIBC_2.14 beside a
	 * plain memcpy@GLIBC_2.2.5) is the IFUNC to sym_func_offset() */
	for (i = j = 0; i < k->nfuncs; i++) {
		if (ksyms_exists(&ifuncs, k->funcs[i]) == 1)
			free(k->funcs[i]);
		else
			k->funcs[j++] = k->funcs[i];
	}
	k->nfuncs = j;
	ksyms_free(&ifuncs);
	return 0;
}

/* sym_insn_check() of the @n bytes at @offset of @path read into @insn */
static int insn_check(const char *path, const unsigned char *insn, ssize_t n,
		      uint64_t offset, char *err, size_t errlen)
{
#if defined(__x86_64__)
	/* legacy prefixes the kernel refuses, and those it lets pass */
	static const struct {
		unsigned char byte;
		const char *name;
	} bad[] = { { 0xf0, "lock" }, { 0x2e, "cs" }, { 0x3e, "ds" },
		    { 0x26, "es" },   { 0x36, "ss" } };
	static const unsigned char fine[] = { 0x66, 0x67, 0xf2, 0xf3, 0x64,
					      0x65 };
	size_t i, j;

	for (i = 0; n > 0 && i < (size_t)n; i++) {
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
			if (insn[i] == bad[j].byte) {
				util_set_err(err, errlen,
					"its first instruction has a %s prefix "
					"(%#x at offset %#llx of %s): the "
					"kernel accepts a uprobe there but "
					"never fires it",
					bad[j].name, bad[j].byte,
					(unsigned long long)offset + i, path);
				return -EOPNOTSUPP;
			}
		if (!memchr(fine, insn[i], sizeof(fine)))
			break; /* the opcode (or REX): prefixes are over */
	}
#else
	(void)path;
	(void)insn;
	(void)n;
	(void)offset;
	(void)err;
	(void)errlen;
#endif
	return 0;
}

int sym_insn_check(const char *path, uint64_t offset, char *err,
		   size_t errlen)
{
	unsigned char insn[15];
	const char *why = "";
	struct stat st;
	ssize_t n;
	int fd;

	fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &why);
	if (fd < 0)
		return 0; /* sym_func_offset() reports problems with the file */
	n = pread(fd, insn, sizeof(insn), (off_t)offset);
	close(fd);
	return insn_check(path, insn, n, offset, err, errlen);
}

int sym_cache_insn_check(struct sym_cache *c, const char *path,
			 uint64_t offset, char *err, size_t errlen)
{
	unsigned char insn[15];
	ssize_t n;

	n = c ? sym_cache_pread(c, path, insn, sizeof(insn), offset) : -EMFILE;
	if (n < 0) /* not in the cache: read here */
		return sym_insn_check(path, offset, err, errlen);
	return insn_check(path, insn, n, offset, err, errlen);
}

int sym_noreturn(const char *name)
{
	/* glibc's and the System V ABI's functions that never return */
	static const char *const noret[] = {
		"_start",	 "__libc_start_main", "__libc_start_call_main",
		"exit",		 "_exit",	      "_Exit",
		"quick_exit",	 "abort",	      "pthread_exit",
		"__stack_chk_fail", "__assert_fail", "__fortify_fail",
		"__chk_fail",	 "longjmp",	      "_longjmp",
		"siglongjmp",	 "__longjmp_chk",     "__cxa_throw",
		"_Unwind_Resume", "__cxa_rethrow",    "__pthread_unwind",
	};
	size_t i;

	for (i = 0; i < sizeof(noret) / sizeof(noret[0]); i++)
		if (!strcmp(noret[i], name))
			return 1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The function starts of @elf's symbol tables (@symtab_only: .symtab
 * alone) appended to *@v, *@n; sets *@has_symtab.  0 or -ENOMEM. */
static int starts_of(Elf *elf, bool symtab_only, uint64_t **v, size_t *n,
		     bool *has_symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	const char *nm;
	size_t i, cnt;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB &&
		     (symtab_only || sh.sh_type != SHT_DYNSYM)))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			*has_symtab = true;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < cnt; i++) {
			if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
			    s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
				continue;
			nm = elf_strptr(elf, sh.sh_link, s.st_name);
			/* a cold part is no function: jumps into it stay
			 * inside the function it was split from */
			if (nm && clone_suffix(nm + strcspn(nm, ".")) == 2)
				continue;
			if (util_grow(v, *n, sizeof(**v)))
				return -ENOMEM;
			(*v)[(*n)++] = s.st_value;
		}
	}
	return 0;
}

/* @v's @n addresses sorted, each once; returns how many are left */
static size_t sort_unique(uint64_t *v, size_t n)
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

int sym_func_starts(const char *path, uint64_t **starts, size_t *n,
		    char *err, size_t errlen)
{
	char dpath[PATH_MAX];
	uint64_t *v = NULL;
	size_t nv = 0;
	bool has_symtab = false, dummy = false;
	Elf *elf, *dbg = NULL;
	int fd, dfd = -1, ret;

	*starts = NULL;
	*n = 0;
	ret = open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	ret = check_ehdr(elf, path, err, errlen);
	if (!ret)
		ret = starts_of(elf, false, &v, &nv, &has_symtab);
	/* a stripped binary's own functions are named in its debug file */
	if (!ret && !has_symtab &&
	    !find_debug_file(elf, path, &dfd, &dbg, dpath, sizeof(dpath)))
		ret = starts_of(dbg, true, &v, &nv, &dummy);
	if (ret == -ENOMEM)
		util_set_err(err, errlen, "%s: out of memory", path);
	if (!ret)
		nv = sort_unique(v, nv);
	if (!ret) {
		*starts = v;
		*n = nv;
		v = NULL;
	}
	free(v);
	close_elfs(elf, fd, dbg, dfd);
	return ret;
}

/* DT_FLAGS_1 of @elf has DF_1_PIE (1), else 0 */
static int has_pie_flag(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *d;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getdyn(d, (int)i, &dyn) ||
			    dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_FLAGS_1)
				return !!(dyn.d_un.d_val & DF_1_PIE);
		}
	}
	return 0;
}

ssize_t sym_cache_pread(struct sym_cache *c, const char *path, void *buf,
			size_t n, uint64_t off)
{
	struct sym_file *f;
	char e[8];
	ssize_t r;
	int ret = file_get(c, path, &f, e, sizeof(e));

	if (ret)
		return ret;
	r = pread(f->fd, buf, n, (off_t)off);
	return r < 0 ? -errno : r;
}

int sym_cache_elf(struct sym_cache *c, const char *path, int *fd, Elf **elf)
{
	struct sym_file *f;
	char e[8];
	int ret = file_get(c, path, &f, e, sizeof(e));

	if (ret)
		return ret;
	*fd = f->fd;
	*elf = f->elf;
	return 0;
}

int sym_cache_func_starts(struct sym_cache *c, const char *path,
			  const uint64_t **starts, size_t *n, char *err,
			  size_t errlen)
{
	struct sym_file *f;
	bool has_symtab = false, dummy = false;
	int ret;

	*starts = NULL;
	*n = 0;
	ret = file_get(c, path, &f, err, errlen);
	if (ret)
		return ret;
	if (!f->starts_done) {
		/* as sym_func_starts(): the debug file when the file has
		 * no .symtab (then file_get() looked for it) */
		ret = starts_of(f->elf, false, &f->starts, &f->nstarts,
				&has_symtab);
		if (!ret && !has_symtab && f->dbg)
			ret = starts_of(f->dbg, true, &f->starts, &f->nstarts,
					&dummy);
		if (ret) {
			free(f->starts);
			f->starts = NULL;
			f->nstarts = 0;
			util_set_err(err, errlen, "%s: out of memory", path);
			return ret;
		}
		f->nstarts = sort_unique(f->starts, f->nstarts);
		f->starts_done = true;
	}
	*starts = f->starts;
	*n = f->nstarts;
	return 0;
}

int sym_is_executable(const char *path)
{
	char err[64];
	GElf_Ehdr eh;
	Elf *elf;
	int fd, ret = 0;

	if (open_elf(path, &fd, &elf, err, sizeof(err)))
		return 0;
	if (gelf_getehdr(elf, &eh))
		ret = eh.e_type == ET_EXEC ||
		      (eh.e_type == ET_DYN && has_pie_flag(elf));
	elf_end(elf);
	close(fd);
	return ret;
}
