// SPDX-License-Identifier: GPL-2.0-only
/*
 * sym_ifunc.c - which implementation of an indirect function
 * (STT_GNU_IFUNC: glibc's strlen, memcpy, ...) this CPU runs, asked of
 * ld.so itself, and the resolvers a glob leaves out.  See
 * include/iprof/sym.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/util.h"
#include "probe/sym_int.h"

int sym_ifunc_resolve(const char *path, const char *func, uint64_t *vaddr)
{
	struct link_map *lm = NULL, *at = NULL;
	Dl_info info;
	void *h, *a;
	int ret = -ENOENT;

	/* RTLD_NOLOAD: the library iprof has mapped, found by its device
	 * and inode whatever its path; nothing loaded, no constructor run */
	h = dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
	if (!h)
		return -ENOENT;
	/* dlsym() of an IFUNC calls its resolver, as a relocation does */
	a = dlsym(h, func);
	if (a && !dlinfo(h, RTLD_DI_LINKMAP, &lm) &&
	    dladdr1(a, &info, (void **)&at, RTLD_DL_LINKMAP) && at == lm &&
	    (uintptr_t)a >= (uintptr_t)lm->l_addr) {
		*vaddr = (uint64_t)((uintptr_t)a - (uintptr_t)lm->l_addr);
		ret = 0;
	} else if (a) {
		ret = -ERANGE; /* another file's code */
	}
	dlclose(h);
	return ret;
}

/* The sized STT_FUNC symbol of @e at virtual address @vaddr into @name. */
static bool func_at(Elf *e, uint64_t vaddr, char *name, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	const char *nm;
	size_t i, n;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 1; i < n && i <= INT_MAX; i++) {
			if (!gelf_getsym(d, (int)i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || s.st_value != vaddr ||
			    !s.st_size)
				continue;
			nm = elf_strptr(e, sh.sh_link, s.st_name);
			if (!nm || !*nm)
				continue;
			snprintf(name, len, "%.*s", (int)strcspn(nm, "@"), nm);
			return true;
		}
	}
	return false;
}

int sym_ifunc_impl(Elf *elf, Elf *dbg, const char *path, const char *func,
		   char *name, size_t len, uint64_t *vaddr)
{
	int ret = sym_ifunc_resolve(path, func, vaddr);

	if (ret)
		return ret;
	if (func_at(elf, *vaddr, name, len) ||
	    (dbg && func_at(dbg, *vaddr, name, len)))
		return 0;
	return -ENODATA;
}

/* A uint64_t set, sorted for bsearch(). */
struct vals {
	uint64_t *v;
	size_t n;
};

/* The file a glob's names come from: its symbols, its debug file's. */
struct ifile {
	const char *path;
	Elf *elf, *dbg;
};

/*
 * One symbol table of @e: with @res NULL, the IFUNCs of @in whose
 * implementation on this CPU is known and has a symbol (sym_ifunc_impl())
 * added to @k, every IFUNC's resolver's address to @rv; else the FUNC
 * symbols at those addresses (the resolvers) into @res.
 */
static int ifunc_scan(const struct ifile *in, Elf *e, Elf_Scn *scn,
		      const GElf_Shdr *sh, struct ksyms *k, struct vals *rv,
		      struct ksyms *res)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	char name[256], impl[256];
	uint64_t va;
	const char *nm;
	size_t i, n = d && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym s;
	int t, err = 0;

	for (i = 1; !err && i < n && i <= INT_MAX; i++) {
		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		t = GELF_ST_TYPE(s.st_info);
		nm = elf_strptr(e, sh->sh_link, s.st_name);
		if (!nm || !*nm || *nm == '@')
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(nm, "@"), nm);
		if (res) {
			if (t == STT_FUNC && rv->n &&
			    bsearch(&s.st_value, rv->v, rv->n, sizeof(*rv->v),
				    cmp_u64))
				err = ksyms_add(res, name, strlen(name), NULL);
			continue;
		}
		if (t != STT_GNU_IFUNC)
			continue;
		if (util_grow(&rv->v, rv->n, sizeof(*rv->v)))
			return -ENOMEM;
		rv->v[rv->n++] = s.st_value;
		if (!sym_ifunc_impl(in->elf, in->dbg, in->path, name, impl,
				    sizeof(impl), &va))
			err = ksyms_add(k, name, strlen(name), NULL);
	}
	return err;
}

/* ifunc_scan() over the symbol tables of @in's file and debug file */
static int ifunc_scan_all(const struct ifile *in, struct ksyms *k,
			  struct vals *rv, struct ksyms *res)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf *e;
	int ret = 0;

	for (e = in->elf; !ret && e; e = e == in->elf ? in->dbg : NULL)
		for (scn = NULL; !ret && (scn = elf_nextscn(e, scn));)
			if (gelf_getshdr(scn, &sh) &&
			    (sh.sh_type == SHT_SYMTAB ||
			     sh.sh_type == SHT_DYNSYM))
				ret = ifunc_scan(in, e, scn, &sh, k, rv, res);
	return ret;
}

int sym_glob_func_names(const char *path, struct ksyms *k, char *err,
			size_t errlen)
{
	struct ksyms res = {0};
	struct vals rv = {0};
	struct ifile in;
	char dpath[PATH_MAX];
	Elf *elf, *dbg = NULL;
	int fd, dfd = -1, ret;
	size_t i, j;

	ret = sym_func_names(path, k, err, errlen);
	if (ret || sym_open_elf(path, &fd, &elf, NULL, 0))
		return ret;
	if (!sym_has_symtab(elf))
		sym_find_debug_file(elf, path, &dfd, &dbg, dpath,
				    sizeof(dpath));
	in = (struct ifile){.path = path, .elf = elf, .dbg = dbg};
	ret = ifunc_scan_all(&in, k, &rv, NULL);
	if (!ret && rv.n) {
		qsort(rv.v, rv.n, sizeof(*rv.v), cmp_u64);
		ret = ifunc_scan_all(&in, k, &rv, &res);
	}
	sym_close_elfs(elf, fd, dbg, dfd);
	ksyms_sort(&res);
	/* a resolver runs once, at relocation: never what a glob means */
	for (i = j = 0; !ret && i < k->nfuncs; i++) {
		if (ksyms_exists(&res, k->funcs[i]) == 1)
			free(k->funcs[i]);
		else
			k->funcs[j++] = k->funcs[i];
	}
	if (!ret)
		k->nfuncs = j;
	ksyms_sort(k);
	ksyms_free(&res);
	free(rv.v);
	if (ret) {
		ksyms_free(k);
		util_set_err(err, errlen, "%s: out of memory", path);
	}
	return ret;
}
