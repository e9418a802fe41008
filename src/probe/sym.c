// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym.c - uprobe binaries' symbol tables read with libelf: a function's
 * candidates scanned, chosen and made targets (file offsets), the
 * function names a file defines and where its functions start.  See
 * include/iprof/sym.h, and sym_int.h for the files around this one.
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

#include "iprof/util.h"
#include "probe/sym_int.h"

/* .gnu.version entries: the version index, and the "not default" bit. */
#define VERSYM_HIDDEN 0x8000

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
int sym_clone_suffix(const char *sfx)
{
	return ksym_clone_suffix(sfx);
}

int sym_clone_of(const char *name, const char *func)
{
	size_t n = strlen(func);

	if (strncmp(name, func, n))
		return 0;
	return sym_clone_suffix(name + n);
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
			err = sym_demangle_raw(name, &dem, &cold);
		}
		if (err)
			return err < 0 ? err : 0;
		if (cold || !sym_cxx_matches(dem, lk->func)) {
			if (cold && sym_cxx_matches(dem, lk->func))
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
int sym_file_offset(Elf *elf, const struct cand *c, uint64_t *off)
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
int sym_not_found(const struct lookup *lk, const char *path, const char *dbg,
	      char *err, size_t errlen)
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

/* The symbol tables of @elf into @lk (lk->elf, lk->verdef set here):
 * every symbol (@pk NULL), or the @npk the cache picked (struct
 * sym_pick: by table, then index), its table's @dyn_funcs added. */
int sym_collect(Elf *elf, struct lookup *lk, const struct sym_pick *pk, size_t npk,
	    size_t dyn_funcs)
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

void sym_lookup_reset(struct lookup *lk)
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
	nv[*n].ifunc = 0;
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
int sym_make_targets(struct lookup *lk, Elf *layout, const char *path,
		 struct sym_target **v, size_t *n, char *err, size_t errlen)
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
		if (sym_file_offset(layout, c, &off)) {
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
bool sym_cxx_name(const char *func)
{
	return strstr(func, "::") || strpbrk(func, "(<~ ");
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
	ret = sym_open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	ret = sym_check_ehdr(elf, path, err, errlen);
	/* a stripped binary: the functions of its separate debug file too,
	 * as sym_func_targets() finds them */
	if (!ret && !sym_has_symtab(elf))
		sym_find_debug_file(elf, path, &dfd, &dbg, dpath, sizeof(dpath));
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
	sym_close_elfs(elf, fd, dbg, dfd);
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
int sym_insn_check_bytes(const char *path, const unsigned char *insn, ssize_t n,
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
	/* EVEX (AVX-512; 62 is no BOUND in 64-bit mode): single-stepped out
	 * of line, the instruction does not do its work (Linux 6.18 here: a
	 * vpbroadcastb into ymm17 left it unwritten in every call, under
	 * bpftrace's uprobe as under iprof's; glibc's __strchr_evex then
	 * missed every match, in every process on the machine: bench/
	 * README.md, "EVEX") */
	if (n > 0 && i < (size_t)n && insn[i] == 0x62) {
		util_set_err(err, errlen,
			     "its first instruction is EVEX-encoded (AVX-512, "
			     "0x62 at offset %#llx of %s): a uprobe there makes "
			     "the kernel single-step it, which corrupts what it "
			     "computes, in every process that runs it",
			     (unsigned long long)offset + i, path);
		return -EOPNOTSUPP;
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

int sym_insn_check(const char *path, uint64_t offset, char *err, size_t errlen)
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
	return sym_insn_check_bytes(path, insn, n, offset, err, errlen);
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

/* The function starts of @elf's symbol tables (@symtab_only: .symtab
 * alone) appended to *@v, *@n; sets *@has_symtab.  0 or -ENOMEM. */
int sym_starts_of(Elf *elf, bool symtab_only, uint64_t **v, size_t *n,
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
			if (nm && sym_clone_suffix(nm + strcspn(nm, ".")) == 2)
				continue;
			if (util_grow(v, *n, sizeof(**v)))
				return -ENOMEM;
			(*v)[(*n)++] = s.st_value;
		}
	}
	return 0;
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
	ret = sym_open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	ret = sym_check_ehdr(elf, path, err, errlen);
	if (!ret)
		ret = sym_starts_of(elf, false, &v, &nv, &has_symtab);
	/* a stripped binary's own functions are named in its debug file */
	if (!ret && !has_symtab &&
	    !sym_find_debug_file(elf, path, &dfd, &dbg, dpath, sizeof(dpath)))
		ret = sym_starts_of(dbg, true, &v, &nv, &dummy);
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
	sym_close_elfs(elf, fd, dbg, dfd);
	return ret;
}

