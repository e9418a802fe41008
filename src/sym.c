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
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
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
	uint64_t value;	    /* st_value: a virtual address */
	uint64_t size;	    /* st_size: bytes, 0 if unknown */
	uint16_t shndx;	    /* st_shndx: the section holding it */
	unsigned char type; /* STT_FUNC or STT_GNU_IFUNC */
	unsigned char bind; /* STB_LOCAL, STB_GLOBAL, STB_WEAK, ... */
	bool hidden;	    /* a non-default version (f@VER, versym bit 15) */
	bool dropped;	    /* ruled out while choosing */
};

struct lookup {
	const char *func;
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

/*
 * Collect the candidates of one symbol table (@dynamic: .dynsym, whose
 * versions are in @versym, or NULL if it has none).
 */
static int scan_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			Elf_Data *versym, bool dynamic, struct lookup *lk)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *name, *at;
	struct cand c;
	GElf_Versym vs;
	GElf_Sym sym;
	size_t i, n;
	int type, err;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	if (!dynamic && n > 1)
		lk->has_symtab = true;
	for (i = 1; i < n && i <= INT_MAX; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF)
			continue; /* an import */
		if (dynamic && (type == STT_FUNC || type == STT_GNU_IFUNC))
			lk->dyn_funcs++;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !name_matches(name, lk->func, &at))
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC) {
			lk->other_type = type;
			continue;
		}
		memset(&c, 0, sizeof(c));
		c.value = sym.st_value;
		c.size = sym.st_size;
		c.shndx = sym.st_shndx;
		c.type = (unsigned char)type;
		c.bind = (unsigned char)GELF_ST_BIND(sym.st_info);
		if (dynamic)
			c.hidden = versym &&
				   gelf_getversym(versym, (int)i, &vs) &&
				   (vs & VERSYM_HIDDEN);
		else
			c.hidden = at && at[1] != '@'; /* f@VER, not f@@VER */
		err = push(lk, &c);
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

/* Why @lk found nothing, into @err.  Returns -ENOENT or -ENODATA. */
static int not_found(const struct lookup *lk, const char *path, char *err,
		     size_t errlen)
{
	if (lk->other_type >= 0) {
		util_set_err(err, errlen,
			"'%s' in %s is not a function (symbol type %s)",
			lk->func, path, stt_str(lk->other_type));
	} else if (!lk->has_symtab && !lk->dyn_funcs) {
		util_set_err(err, errlen,
			"%s has no symbol table (stripped): no .symtab, and "
			"no functions in .dynsym",
			path);
		return -ENODATA;
	} else if (lk->has_symtab) {
		util_set_err(err, errlen,
			"no function '%s' in %s (its symbol table has no such "
			"FUNC symbol)",
			lk->func, path);
	} else {
		util_set_err(err, errlen,
			"no function '%s' in %s (it has no .symtab: stripped "
			"binaries keep only exported functions in .dynsym: "
			"check with nm -D)",
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

static int check_ehdr(Elf *elf, const char *path, char *err, size_t errlen)
{
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		util_set_err(err, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	switch (eh.e_type) {
	case ET_EXEC:
	case ET_DYN:
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

static int lookup_elf(Elf *elf, const char *path, const char *func,
		      uint64_t *offset, uint64_t *size, char *err,
		      size_t errlen)
{
	struct lookup lk = {.func = func, .other_type = -1};
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL, *vsym = NULL;
	GElf_Shdr sh, symtab_sh = {0}, dynsym_sh = {0};
	Elf_Data *versym = NULL;
	const struct cand *pick;
	int ret;

	ret = check_ehdr(elf, path, err, errlen);
	if (ret)
		return ret;
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
		}
	}
	if (vsym)
		versym = elf_getdata(vsym, NULL);

	ret = 0;
	if (symtab)
		ret = scan_symbols(elf, symtab, &symtab_sh, NULL, false, &lk);
	if (!ret && dynsym)
		ret = scan_symbols(elf, dynsym, &dynsym_sh, versym, true, &lk);
	if (ret) {
		util_set_err(err, errlen, "%s: out of memory", path);
		goto out;
	}
	if (!lk.n) {
		ret = not_found(&lk, path, err, errlen);
		goto out;
	}
	ret = choose(&lk, path, &pick, err, errlen);
	if (ret)
		goto out;
	ret = file_offset(elf, pick, offset);
	if (size) {
		size_t i;

		/* aliases at one address: the largest size known */
		*size = 0;
		for (i = 0; i < lk.n; i++)
			if (!lk.v[i].dropped && lk.v[i].value == pick->value &&
			    lk.v[i].size > *size)
				*size = lk.v[i].size;
	}
	if (ret)
		util_set_err(err, errlen,
			"'%s' in %s: address %#llx is in no section or "
			"segment of the file",
			func, path, (unsigned long long)pick->value);
out:
	free(lk.v);
	return ret;
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

int sym_func_offset(const char *path, const char *func, uint64_t *offset,
		    char *err, size_t errlen)
{
	Elf *elf;
	int fd, ret;

	ret = open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	ret = lookup_elf(elf, path, func, offset, NULL, err, errlen);
	elf_end(elf);
	close(fd);
	return ret;
}

int sym_func_range(const char *path, const char *func, uint64_t *offset,
		   uint64_t *size, char *err, size_t errlen)
{
	Elf *elf;
	int fd, ret;

	ret = open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	ret = lookup_elf(elf, path, func, offset, size, err, errlen);
	elf_end(elf);
	close(fd);
	return ret;
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
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool any = false;
	size_t i, j;
	Elf *elf;
	int fd, ret;

	memset(k, 0, sizeof(*k));
	ret = open_elf(path, &fd, &elf, err, errlen);
	if (ret)
		return ret;
	ret = check_ehdr(elf, path, err, errlen);
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			ret = add_func_names(elf, scn, &sh, k, &ifuncs, &any);
	}
	elf_end(elf);
	close(fd);
	if (ret == -ENOMEM)
		util_set_err(err, errlen, "%s: out of memory", path);
	if (!ret && !any) {
		util_set_err(err, errlen,
			"%s has no symbol table (stripped): no .symtab, and "
			"no functions in .dynsym",
			path);
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

int sym_insn_check(const char *path, uint64_t offset, char *err,
		   size_t errlen)
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
	unsigned char insn[15];
	const char *why = "";
	struct stat st;
	ssize_t n;
	size_t i, j;
	int fd;

	fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &why);
	if (fd < 0)
		return 0; /* sym_func_offset() reports problems with the file */
	n = pread(fd, insn, sizeof(insn), (off_t)offset);
	close(fd);
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
	(void)offset;
	(void)err;
	(void)errlen;
#endif
	return 0;
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
