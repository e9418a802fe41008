// SPDX-License-Identifier: GPL-2.0-only
/*
 * File offsets of an ELF file to its function names (include/iprof/sym.h,
 * sym_addrs_*): for --offcpu-stacks=user's user stacks
 * (src/probe/umaps.c).  The file's PT_LOAD segments turn an offset into a
 * virtual address; its FUNC and IFUNC symbols (.symtab, or its separate
 * debug file's when it has none, and .dynsym), sorted by address, name
 * it by binary search.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iprof/sym.h"
#include "probe/sym_int.h"

struct seg {
	uint64_t off, vaddr, filesz;
};

struct fn {
	uint64_t addr, size; /* virtual address and st_size, bytes */
	char *name;	     /* demangled where it was mangled; owned */
};

struct sym_addrs {
	struct seg *seg;
	size_t nseg;
	struct fn *fn;
	size_t nfn, cap;
};

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address the sized one first (an alias without a size
	 * after it is dropped) */
	return x->size > y->size ? -1 : x->size < y->size;
}

/* add_fn() - one symbol; 0 or -ENOMEM */
static int add_fn(struct sym_addrs *t, uint64_t addr, uint64_t size,
		  const char *name)
{
	char *dem = sym_demangle(name);
	struct fn *v;

	if (t->nfn == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		v = realloc(t->fn, t->cap * sizeof(*v));
		if (!v) {
			free(dem);
			return -ENOMEM;
		}
		t->fn = v;
	}
	v = &t->fn[t->nfn];
	v->name = dem ? dem : strdup(name);
	if (!v->name)
		return -ENOMEM;
	v->addr = addr;
	v->size = size;
	t->nfn++;
	return 0;
}

/* add_syms() - the FUNC and IFUNC symbols of @e's symbol tables of type
 * @type (SHT_SYMTAB, SHT_DYNSYM); 0 or -ENOMEM */
static int add_syms(struct sym_addrs *t, Elf *e, uint32_t type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	const char *name;
	size_t i, n;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; d && i < n; i++) {
			if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
			    s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && *name &&
			    add_fn(t, s.st_value, s.st_size, name))
				return -ENOMEM;
		}
	}
	return 0;
}

/* add_segs() - @e's PT_LOAD segments; 0 or -ENOMEM */
static int add_segs(struct sym_addrs *t, Elf *e)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return 0;
	t->seg = calloc(n ? n : 1, sizeof(*t->seg));
	if (!t->seg)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			t->seg[t->nseg++] = (struct seg){
				ph.p_offset, ph.p_vaddr, ph.p_filesz};
	return 0;
}

/* dedup() - sorted, one entry per address */
static void dedup(struct sym_addrs *t)
{
	size_t i, k = 0;

	qsort(t->fn, t->nfn, sizeof(*t->fn), cmp_fn);
	for (i = 0; i < t->nfn; i++) {
		if (k && t->fn[k - 1].addr == t->fn[i].addr) {
			free(t->fn[i].name);
			continue;
		}
		t->fn[k++] = t->fn[i];
	}
	t->nfn = k;
}

struct sym_addrs *sym_addrs_load(const char *path)
{
	struct sym_addrs *t = calloc(1, sizeof(*t));
	char e[256], dpath[PATH_MAX];
	Elf *elf = NULL, *dbg = NULL;
	int fd = -1, dfd = -1, ret;

	if (!t)
		return NULL;
	ret = sym_open_elf(path, &fd, &elf, e, sizeof(e));
	if (ret) {
		free(t);
		errno = -ret;
		return NULL;
	}
	if (!sym_has_symtab(elf))
		sym_find_debug_file(elf, path, &dfd, &dbg, dpath,
				    sizeof(dpath));
	ret = add_segs(t, elf);
	if (!ret)
		ret = add_syms(t, dbg ? dbg : elf, SHT_SYMTAB);
	if (!ret)
		ret = add_syms(t, elf, SHT_DYNSYM);
	sym_close_elfs(elf, fd, dbg, dfd);
	if (ret) {
		sym_addrs_free(t);
		errno = -ret;
		return NULL;
	}
	dedup(t);
	return t;
}

const char *sym_addrs_name(const struct sym_addrs *t, uint64_t off, char *buf,
			   size_t size)
{
	size_t lo = 0, hi, i;
	uint64_t va = 0;
	const struct fn *f;

	if (!t)
		return NULL;
	for (i = 0; i < t->nseg; i++)
		if (off >= t->seg[i].off &&
		    off - t->seg[i].off < t->seg[i].filesz)
			break;
	if (i == t->nseg)
		return NULL;
	va = off - t->seg[i].off + t->seg[i].vaddr;
	hi = t->nfn;
	while (lo < hi) { /* the last function starting at or below va */
		i = lo + (hi - lo) / 2;
		if (t->fn[i].addr <= va)
			lo = i + 1;
		else
			hi = i;
	}
	if (!lo)
		return NULL;
	f = &t->fn[lo - 1];
	if (f->size && va - f->addr >= f->size)
		return NULL; /* past its end: code no symbol names */
	snprintf(buf, size, "%s", f->name);
	return buf;
}

void sym_addrs_free(struct sym_addrs *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nfn; i++)
		free(t->fn[i].name);
	free(t->fn);
	free(t->seg);
	free(t);
}
