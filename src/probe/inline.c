// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inlined instances of a user function and the probes that time them:
 * see include/iprof/inline.h.  DWARF through elfutils (libdwfl finds the
 * debug file, libdw reads it), code through Capstone, frames through the
 * caller's .eh_frame (libdw's CFI).  A kernel module's debug file (an
 * ET_REL object: libdwfl lays its sections out and relocates its DWARF)
 * is read the same way, with its relocations to tell where its jumps
 * go, its jump labels' second edges and its .debug_frame.  So is the
 * kernel image (vmlinux, ET_EXEC, linked: its jumps go where their bytes
 * say), its jump labels, lock prefixes, static calls and the places the
 * kernel refuses kprobes read from the tables its linker script names
 * (__start___jump_table, ...).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/inline.h"
#include "iprof/ksym.h"
#include "iprof/sym.h"
#include "iprof/util.h"

#if defined(__x86_64__)

#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

/* DWARF register numbers of the x86-64 psABI (3.6.2, "DWARF Register
 * Number Mapping") */
#define DW_X86_64_RBP 6
#define DW_X86_64_RSP 7

/* an inlined instance (DW_TAG_inlined_subroutine) and where it is */
struct inl_use {
	Dwarf_Off origin; /* its abstract origin's DIE offset */
	Dwarf_Off die; /* its own */
	Dwarf_Off fn; /* the function whose code holds it, 0: none */
	const char *caller; /* in the DWARF's strings, or "?" */
	unsigned int depth; /* instances it is nested in within @fn */
};

/* an abstract function DIE (DW_AT_inline) by name */
struct inl_ent {
	const char *name; /* in the DWARF's string section */
	Dwarf_Off off; /* the DIE's offset in .debug_info */
};

/* a relocated rel32 branch field of a module's code at @at: where it
 * goes (@target), or out of the module (@ext; @ret: to the return thunk,
 * a ret) */
struct inl_rel {
	uint64_t at, target;
	uint8_t ext, ret;
};

/* a jump label (include/linux/jump_label.h, struct jump_entry): the
 * instruction at @code is a nop or a jmp to @target, patched at run time */
struct inl_jl {
	uint64_t code, target;
};

#define KIMG_DENY 4

/* the file inl_find() read last, its DWARF indexed */
static struct inl_file {
	char *path, *debugdir;
	Dwfl *dwfl;
	Dwarf *dw; /* NULL: no DWARF */
	int fd;
	Elf *elf; /* the file itself: its code, segments and .eh_frame */
	Dwarf_CFI *cfi;
	struct inl_ent *idx;
	size_t nidx;
	/* every inlined instance of the file, by its abstract origin: built
	 * at the first inl_find() (one walk of every unit) */
	struct inl_use *use;
	size_t nuse;
	int use_built;
	int other_lang; /* units of a language not indexed (C++, Rust) */
	/* a kernel module (ET_REL): libdwfl's module and its copy of the
	 * file, whose section headers hold the addresses it laid them out
	 * at (the DWARF's addresses); @cfi is then the module's
	 * .debug_frame, owned by @dwfl */
	int rel;
	Dwfl_Module *mod;
	Elf *lay;
	/* its branches' relocations and its jump labels, by address */
	struct inl_rel *rels;
	size_t nrels;
	struct inl_jl *jls;
	size_t njls;
	/* instructions the kernel refuses a kprobe on (kernel/kprobes.c
	 * check_kprobe_address_safe()): lock prefixes the alternatives may
	 * patch (.smp_locks), static calls (.static_call_sites); with the
	 * jump labels' (jls) */
	uint64_t *resv;
	size_t nresv;
	/* the kernel image (vmlinux): @mod is libdwfl's module of it (bias
	 * 0), @cfi its .debug_frame owned by @dwfl; @thunk the address of
	 * __x86_return_thunk (a jmp there is a ret, CONFIG_RETHUNK), 0:
	 * none; @bl the functions of the kprobe blacklist (NOKPROBE_SYMBOL,
	 * _kprobe_blacklist: their start addresses, sorted); @deny the text
	 * ranges kprobes refuse whole (kernel/kprobes.c
	 * within_kprobe_blacklist(): .kprobes.text, .noinstr.text; x86's
	 * .entry.text; and init code, no kernel text after boot:
	 * check_kprobe_address_safe()) */
	int kimg;
	uint64_t thunk;
	uint64_t *bl;
	size_t nbl;
	uint64_t deny[KIMG_DENY][2];
} cache = { .fd = -1 };

void inl_forget(void)
{
	struct inl_file *f = &cache;

	free(f->path);
	free(f->debugdir);
	free(f->idx);
	free(f->use);
	free(f->rels);
	free(f->jls);
	free(f->resv);
	free(f->bl);
	if (f->cfi && !f->rel && !f->kimg)
		dwarf_cfi_end(f->cfi);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void inl_free(struct inl_inst *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].caller);
		free(v[i].call);
		free(v[i].exits);
		free(v[i].why);
	}
	free(v);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct inl_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->off > y->off) - (x->off < y->off);
}

/* the abstract function DIEs among the children of @parent (and in its
 * namespaces) into the index; 0 or -ENOMEM */
static int index_children(struct inl_file *f, Dwarf_Die *parent, int level)
{
	Dwarf_Die c;
	const char *nm;
	int tag;

	if (dwarf_child(parent, &c))
		return 0;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_subprogram && dwarf_func_inline(&c) &&
		    (nm = dwarf_diename(&c))) {
			if (util_grow(&f->idx, f->nidx, sizeof(*f->idx)))
				return -ENOMEM;
			f->idx[f->nidx].name = nm;
			f->idx[f->nidx++].off = dwarf_dieoffset(&c);
		} else if (tag == DW_TAG_namespace && level < 8 &&
			   index_children(f, &c, level + 1)) {
			return -ENOMEM;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* does @elf have a .debug_info section (compressed or not)? */
static bool has_debug_info(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *nm;

	if (!elf || elf_getshdrstrndx(elf, &shstr))
		return false;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (nm = elf_strptr(elf, shstr, sh.sh_name)) &&
		    (!strcmp(nm, ".debug_info") || !strcmp(nm, ".zdebug_info")))
			return true;
	return false;
}

/*
 * Are unit @cu's functions named as a C programmer names them
 * (DW_AT_language, DWARF 5 table 7.17)?  Not C++'s or Rust's: their
 * DW_AT_name is unqualified (S::get of every class S), not matched by
 * name yet.  C, assembler, a unit of no stated language (dwz's partial
 * units) are.
 */
static bool is_c(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_Rust:
		return false;
	default:
		return true;
	}
}

/* open @path and its DWARF into the cache; 0, -ENOMEM or -errno */
static int rel_load(void);
static int kimg_load(struct inl_file *f, Dwfl_Module *mod);
static int64_t to_off(uint64_t a);

static int file_open(const char *path, const char *debugdir, char *err,
		     size_t errlen)
{
	static const char std_path[] = ":.debug:/usr/lib/debug";
	struct inl_file *f = &cache;
	static char *dpath;
	static Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		/* a module (ET_REL): libdwfl lays its sections out */
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &dpath,
	};
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf_Off off = 0, next;
	const char *why = "";
	char dbg[PATH_MAX];
	struct stat st;
	size_t hs;

	if (f->path && !strcmp(f->path, path) &&
	    !strcmp(f->debugdir ? f->debugdir : "", debugdir ? debugdir : ""))
		return 0;
	inl_forget();
	f->path = strdup(path);
	f->debugdir = debugdir ? strdup(debugdir) : NULL;
	if (!f->path || (debugdir && !f->debugdir))
		return -ENOMEM;
	f->fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &why);
	if (f->fd < 0) {
		int e = -errno;

		util_set_err(err, errlen, "%s: %s", path, why);
		inl_forget();
		return e ? e : -EINVAL;
	}
	if (elf_version(EV_CURRENT) != EV_NONE)
		f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	/* no DWARF of its own and no debug file: nothing more to open (a
	 * stripped binary costs a few stat(2)s, not libdwfl's search) */
	if (!debugdir && !has_debug_info(f->elf) &&
	    sym_debug_file(path, dbg, sizeof(dbg)))
		return 0;
	if (f->elf)
		f->cfi = dwarf_getcfi_elf(f->elf);
	free(dpath);
	dpath = NULL;
	if (debugdir) {
		/* libdwfl takes absolute directories for build IDs */
		char *abs = realpath(debugdir, NULL);
		int r = abs ? asprintf(&dpath, "%s:%s", abs, std_path) : -1;

		free(abs);
		if (r < 0)
			return -ENOMEM;
	}
	if (!dpath && !(dpath = strdup(std_path)))
		return -ENOMEM;
	f->dwfl = dwfl_begin(&cb);
	if (!f->dwfl)
		return 0; /* no DWARF read: as none */
	mod = dwfl_report_offline(f->dwfl, "inl", path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (mod)
		f->dw = dwfl_module_getdwarf(mod, &bias);
	if (!f->dw)
		return 0;
	if (f->elf && elf_kind(f->elf) == ELF_K_ELF) {
		GElf_Ehdr eh;

		if (gelf_getehdr(f->elf, &eh) && eh.e_type == ET_REL) {
			/* a kernel module: its code and frames as libdwfl
			 * laid them out (bias 0: the DWARF's addresses) */
			Dwarf_Addr cb_bias;

			if (f->cfi)
				dwarf_cfi_end(f->cfi);
			f->rel = 1;
			f->mod = mod;
			f->lay = dwfl_module_getelf(mod, &bias);
			f->cfi = dwfl_module_dwarf_cfi(mod, &cb_bias);
			if (!f->lay || bias || cb_bias) {
				f->dw = NULL; /* not as expected: as none */
				return 0;
			}
			if (rel_load())
				return -ENOMEM;
		} else if (kimg_load(f, mod)) {
			return -ENOMEM;
		}
	}
	while (dwarf_nextcu(f->dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(f->dw, off + hs, &cu) && !is_c(&cu))
			f->other_lang = 1;
		else if (dwarf_offdie(f->dw, off + hs, &cu) &&
			 index_children(f, &cu, 0))
			return -ENOMEM;
		off = next;
	}
	if (f->nidx)
		qsort(f->idx, f->nidx, sizeof(*f->idx), ent_cmp);
	return 0;
}

/* the address libdwfl laid section @ndx of a module out at, or 0 */
static uint64_t sec_addr(size_t ndx)
{
	Elf_Scn *scn = elf_getscn(cache.lay, ndx);
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) ? sh.sh_addr : 0;
}

/* where relocation @r of section @sym_scn's symbol table points: S + A
 * (0: nowhere in the module, @ext set; the symbol's name in *@name) */
static uint64_t rel_value(Elf_Data *syms, size_t strndx, const GElf_Rela *r,
			  int *ext, const char **name)
{
	GElf_Sym sym;

	*ext = 0;
	*name = "";
	if (!gelf_getsym(syms, (int)GELF_R_SYM(r->r_info), &sym))
		return 0;
	*name = elf_strptr(cache.lay, strndx, sym.st_name);
	if (!*name)
		*name = "";
	if (sym.st_shndx == SHN_UNDEF) {
		*ext = 1;
		return 0;
	}
	if (sym.st_shndx >= SHN_LORESERVE)
		return 0;
	return sec_addr(sym.st_shndx) + sym.st_value + (uint64_t)r->r_addend;
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int rel_cmp(const void *a, const void *b)
{
	const struct inl_rel *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

static int jl_cmp(const void *a, const void *b)
{
	const struct inl_jl *x = a, *y = b;

	return (x->code > y->code) - (x->code < y->code);
}

/* one SHT_RELA section @rs (its header @rh) of a module: the rel32
 * branch fields of code, or the entries of __jump_table */
static int rel_section(Elf_Scn *rs, const GElf_Shdr *rh, size_t shstr)
{
	Elf_Scn *ts = elf_getscn(cache.lay, rh->sh_info);
	Elf_Scn *ss = elf_getscn(cache.lay, rh->sh_link);
	Elf_Data *rd = elf_getdata(rs, NULL), *sd;
	GElf_Shdr th, sh;
	const char *tn, *name;
	size_t i, n;
	int ext;

	if (!ts || !ss || !rd || !gelf_getshdr(ts, &th) ||
	    !gelf_getshdr(ss, &sh) || !(sd = elf_getdata(ss, NULL)) ||
	    !rh->sh_entsize)
		return 0;
	tn = elf_strptr(cache.lay, shstr, th.sh_name);
	n = rh->sh_size / rh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		uint64_t v;

		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		v = rel_value(sd, sh.sh_link, &r, &ext, &name);
		if (tn && !strcmp(tn, "__jump_table") && !ext && v) {
			/* struct jump_entry { s32 code, target; long key; }
			 * (arch/x86: JUMP_LABEL_RELATIVE): each field's
			 * value is the place it names, S + A */
			size_t k = r.r_offset / 16;
			unsigned int f = r.r_offset % 16;

			if (f > 4 || f % 4)
				continue;
			while (cache.njls <= k) {
				if (util_grow(&cache.jls, cache.njls,
					      sizeof(*cache.jls)))
					return -ENOMEM;
				memset(&cache.jls[cache.njls++], 0,
				       sizeof(*cache.jls));
			}
			if (f == 0)
				cache.jls[k].code = v;
			else
				cache.jls[k].target = v;
			continue;
		}
		/* a lock prefix's place (s32, relative), a static call's
		 * (struct static_call_site { s32 addr, key; }) */
		if (tn && !ext && v &&
		    (!strcmp(tn, ".smp_locks") ||
		     (!strcmp(tn, ".static_call_sites") && r.r_offset % 8 == 0))) {
			if (util_grow(&cache.resv, cache.nresv,
				      sizeof(*cache.resv)))
				return -ENOMEM;
			cache.resv[cache.nresv++] = v;
			continue;
		}
		if (!(th.sh_flags & SHF_EXECINSTR) ||
		    (GELF_R_TYPE(r.r_info) != R_X86_64_PC32 &&
		     GELF_R_TYPE(r.r_info) != R_X86_64_PLT32))
			continue;
		if (util_grow(&cache.rels, cache.nrels, sizeof(*cache.rels)))
			return -ENOMEM;
		cache.rels[cache.nrels++] = (struct inl_rel){
			.at = th.sh_addr + r.r_offset,
			/* the field is a branch's last 4 bytes: it goes to
			 * P + 4 + (S + A - P) */
			.target = ext || !v ? 0 : v + 4,
			.ext = (uint8_t)(ext || !v),
			.ret = !strcmp(name, "__x86_return_thunk"),
		};
	}
	return 0;
}

/* a module's relocations of branches and its jump labels (cache.rels,
 * cache.jls, sorted); 0 or -ENOMEM */
static int rel_load(void)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr, i, k = 0;
	int r;

	if (elf_getshdrstrndx(cache.lay, &shstr))
		return 0;
	while ((scn = elf_nextscn(cache.lay, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA &&
		    (r = rel_section(scn, &sh, shstr)))
			return r;
	for (i = 0; i < cache.njls; i++)
		if (cache.jls[i].code && cache.jls[i].target)
			cache.jls[k++] = cache.jls[i];
	cache.njls = k;
	if (cache.nrels)
		qsort(cache.rels, cache.nrels, sizeof(*cache.rels), rel_cmp);
	if (cache.njls)
		qsort(cache.jls, cache.njls, sizeof(*cache.jls), jl_cmp);
	if (cache.nresv)
		qsort(cache.resv, cache.nresv, sizeof(*cache.resv), u64_cmp);
	return 0;
}

/* the kernel image's symbols kimg_load() reads, by name */
enum kimg_sym {
	KS_BANNER, KS_THUNK, KS_JL0, KS_JL1, KS_SC0, KS_SC1, KS_BL0, KS_BL1,
	KS_KP0, KS_KP1, KS_NI0, KS_NI1, KS_EN0, KS_EN1, KS_IN0, KS_IN1, KS_N
};
static const char *const kimg_names[KS_N] = {
	"linux_banner", "__x86_return_thunk",
	"__start___jump_table", "__stop___jump_table",
	"__start_static_call_sites", "__stop_static_call_sites",
	"__start_kprobe_blacklist", "__stop_kprobe_blacklist",
	"__kprobes_text_start", "__kprobes_text_end",
	"__noinstr_text_start", "__noinstr_text_end",
	"__entry_text_start", "__entry_text_end",
	"__init_begin", "__init_end",
};

/* why kprobes refuse the ranges of cache.deny */
static const char *const deny_why[KIMG_DENY] = {
	"it is in .kprobes.text (the kprobe blacklist)",
	"it is in .noinstr.text (the kprobe blacklist)",
	"it is in .entry.text (the kprobe blacklist)",
	"it is init code, freed after boot (__init_begin..__init_end)",
};

/* @n bytes of the image at address @a into @buf; 0 or -1 */
static int kimg_read(uint64_t a, void *buf, size_t n)
{
	int64_t o = to_off(a);

	return o < 0 || pread(cache.fd, buf, n, (off_t)o) != (ssize_t)n ? -1 :
									   0;
}

/* the entries [@lo, @hi) of a table of @esz-byte entries whose s32 at
 * @fo (relative to itself, arch/x86's relative tables) names a place:
 * appended to *@v (*@n); with @jl, jump entries (code at 0, target at
 * 4) into cache.jls instead.  0 or -ENOMEM; unreadable: as none. */
static int kimg_table(uint64_t lo, uint64_t hi, size_t esz, size_t fo,
		      uint64_t **v, size_t *n, int jl)
{
	size_t len = hi > lo && hi - lo < (1u << 28) ? hi - lo : 0, i;
	unsigned char *b = len ? malloc(len) : NULL;
	int32_t c, t;

	if (!b || kimg_read(lo, b, len)) {
		free(b);
		return len && !b ? -ENOMEM : 0;
	}
	for (i = 0; i + esz <= len; i += esz) {
		memcpy(&c, b + i + fo, 4);
		if (jl) {
			memcpy(&t, b + i + 4, 4);
			if (util_grow(&cache.jls, cache.njls, sizeof(*cache.jls)))
				goto nomem;
			cache.jls[cache.njls++] = (struct inl_jl){
				.code = lo + i + (uint64_t)(int64_t)c,
				.target = lo + i + 4 + (uint64_t)(int64_t)t,
			};
			continue;
		}
		if (util_grow(v, *n, sizeof(**v)))
			goto nomem;
		(*v)[(*n)++] = lo + i + fo + (uint64_t)(int64_t)c;
	}
	free(b);
	return 0;
nomem:
	free(b);
	return -ENOMEM;
}

/* the kprobe blacklist's functions (unsigned long each, link-time
 * addresses) [@lo, @hi) into cache.bl; 0 or -ENOMEM */
static int kimg_blacklist(uint64_t lo, uint64_t hi)
{
	uint64_t a;

	for (; hi > lo && hi - lo >= 8 && hi - lo < (1u << 24); lo += 8) {
		if (kimg_read(lo, &a, 8))
			return 0;
		if (util_grow(&cache.bl, cache.nbl, sizeof(*cache.bl)))
			return -ENOMEM;
		cache.bl[cache.nbl++] = a;
	}
	return 0;
}

/*
 * If @f is the kernel image (ET_EXEC defining linux_banner): what
 * kprobes there must know, read from the tables the kernel's linker
 * script (include/asm-generic/vmlinux.lds.h) delimits, whose entries
 * are relative (arch/x86: JUMP_LABEL_RELATIVE, HAVE_STATIC_CALL_INLINE;
 * .smp_locks: s32 each): jump labels (struct jump_entry { s32 code,
 * target; long key; }), lock prefixes, static calls (struct
 * static_call_site { s32 addr, key; }), the kprobe blacklist and the
 * text ranges kprobes refuse; the frames from its .debug_frame
 * (x86-64's kernel has no .eh_frame).  0 or -ENOMEM; not the kernel: 0,
 * nothing set.
 */
static int kimg_load(struct inl_file *f, Dwfl_Module *mod)
{
	uint64_t at[KS_N] = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;
	size_t shstr, i, k;
	int r = 0;

	if (!gelf_getehdr(f->elf, &eh) || eh.e_type != ET_EXEC ||
	    elf_getshdrstrndx(f->elf, &shstr))
		return 0;
	while ((scn = elf_nextscn(f->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    !(nm = elf_strptr(f->elf, sh.sh_link, sym.st_name)) ||
			    (nm[0] != '_' && nm[0] != 'l'))
				continue;
			for (k = 0; k < KS_N; k++)
				if (!at[k] && !strcmp(nm, kimg_names[k]))
					at[k] = sym.st_value;
		}
	}
	if (!at[KS_BANNER])
		return 0;
	f->kimg = 1;
	f->mod = mod;
	f->thunk = at[KS_THUNK];
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && !bias) {
		if (f->cfi)
			dwarf_cfi_end(f->cfi);
		f->cfi = cfi;
	} else if (f->cfi) {
		dwarf_cfi_end(f->cfi); /* owned as a module's from here on */
		f->cfi = NULL;
	}
	for (k = 0; k < KIMG_DENY; k++) {
		f->deny[k][0] = at[KS_KP0 + 2 * k];
		f->deny[k][1] = at[KS_KP1 + 2 * k];
	}
	r = kimg_table(at[KS_JL0], at[KS_JL1], 16, 0, NULL, NULL, 1);
	if (!r)
		r = kimg_table(at[KS_SC0], at[KS_SC1], 8, 0, &f->resv, &f->nresv,
			       0);
	while (!r && (scn = elf_nextscn(f->elf, scn))) {
		const char *sn = gelf_getshdr(scn, &sh) ?
					 elf_strptr(f->elf, shstr, sh.sh_name) :
					 NULL;

		if (sn && !strcmp(sn, ".smp_locks"))
			r = kimg_table(sh.sh_addr, sh.sh_addr + sh.sh_size, 4, 0,
				       &f->resv, &f->nresv, 0);
	}
	if (!r)
		r = kimg_blacklist(at[KS_BL0], at[KS_BL1]);
	if (r)
		return r;
	if (f->njls)
		qsort(f->jls, f->njls, sizeof(*f->jls), jl_cmp);
	if (f->nresv)
		qsort(f->resv, f->nresv, sizeof(*f->resv), u64_cmp);
	if (f->nbl)
		qsort(f->bl, f->nbl, sizeof(*f->bl), u64_cmp);
	return 0;
}

/* the relocation of the branch field at @at, or NULL */
static const struct inl_rel *rel_at(uint64_t at)
{
	struct inl_rel k = { .at = at };

	return cache.nrels ? bsearch(&k, cache.rels, cache.nrels,
				     sizeof(*cache.rels), rel_cmp) :
			     NULL;
}

/* the jump label at @code, or NULL */
static const struct inl_jl *jl_at(uint64_t code)
{
	struct inl_jl k = { .code = code };

	return cache.njls ? bsearch(&k, cache.jls, cache.njls,
				    sizeof(*cache.jls), jl_cmp) :
			    NULL;
}

/* does the kernel refuse a kprobe at @a in the function that starts
 * at @fn (a jump label, a lock prefix, a static call; in the kernel
 * image, the kprobe blacklist too)?  Its kind, or NULL */
static const char *kprobe_refused(uint64_t a, uint64_t fn)
{
	size_t k;

	if (jl_at(a))
		return "a jump label";
	if (cache.nresv && bsearch(&a, cache.resv, cache.nresv,
				   sizeof(*cache.resv), u64_cmp))
		return "a lock prefix or static call the kernel patches";
	for (k = 0; cache.kimg && k < KIMG_DENY; k++)
		if (a >= cache.deny[k][0] && a < cache.deny[k][1])
			return deny_why[k];
	if (cache.nbl && bsearch(&fn, cache.bl, cache.nbl, sizeof(*cache.bl),
				 u64_cmp))
		return "its function is on the kprobe blacklist (NOKPROBE_SYMBOL)";
	return NULL;
}

/* a file offset of address @a of a module (its laid-out section), or -1 */
static int64_t rel_off(uint64_t a)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(cache.lay, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_flags & SHF_ALLOC &&
		    sh.sh_type == SHT_PROGBITS && a >= sh.sh_addr &&
		    a - sh.sh_addr < sh.sh_size)
			return (int64_t)(a - sh.sh_addr + sh.sh_offset);
	return -1;
}

/* a file offset of virtual address @a in the file (its PT_LOAD, or a
 * module's section), or -1 */
static int64_t to_off(uint64_t a)
{
	GElf_Phdr ph;
	size_t i, n;

	if (cache.rel)
		return rel_off(a);
	if (!cache.elf || elf_getphdrnum(cache.elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(cache.elf, (int)i, &ph) ||
		    ph.p_type != PT_LOAD)
			continue;
		if (a >= ph.p_vaddr && a - ph.p_vaddr < ph.p_filesz)
			return (int64_t)(a - ph.p_vaddr + ph.p_offset);
	}
	return -1;
}

/* ---- the caller's code as a graph ----------------------------------- */

enum node_kind {
	N_SEQ, /* falls through (a call too) */
	N_JMP, /* jmp to @target */
	N_JCC, /* a conditional jump to @target, or falls through */
	N_RET,
	N_TAIL, /* jmp through memory without an index: a tail call */
	N_IJMP, /* another indirect jmp: a jump table, cannot tell */
	N_END, /* no successor: hlt, ud2, int3 */
};

struct node {
	uint64_t addr;
	uint32_t size;
	uint8_t kind;
	uint64_t target;
	int succ[2]; /* indexes, -1 none */
	int out; /* a jump whose target is outside the caller */
};

struct graph {
	struct node *v;
	size_t n;
	/* predecessors: pred[pstart[i] .. pstart[i + 1]) */
	int *pred, *pstart;
	uint64_t lo, hi; /* the caller's first range, for messages */
};

static int node_at(const struct graph *g, uint64_t a)
{
	size_t lo = 0, hi = g->n, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (g->v[m].addr == a)
			return (int)m;
		if (g->v[m].addr < a)
			lo = m + 1;
		else
			hi = m;
	}
	return -1;
}

static void graph_free(struct graph *g)
{
	free(g->v);
	free(g->pred);
	free(g->pstart);
	memset(g, 0, sizeof(*g));
}

static int node_cmp(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static bool in_ranges(const uint64_t (*r)[2], size_t nr, uint64_t a)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (a >= r[i][0] && a < r[i][1])
			return true;
	return false;
}

/* what instruction @in is */
static void classify(csh h, const cs_insn *in, struct node *nd)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *op = x->op_count ? &x->operands[0] : NULL;

	nd->kind = N_SEQ;
	switch (in->id) {
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
		nd->kind = N_RET;
		return;
	case X86_INS_HLT:
	case X86_INS_UD2:
	case X86_INS_INT3:
		nd->kind = N_END;
		return;
	case X86_INS_JMP:
		if (op && op->type == X86_OP_IMM) {
			nd->kind = N_JMP;
			nd->target = (uint64_t)op->imm;
		} else if (op && op->type == X86_OP_MEM &&
			   op->mem.index == X86_REG_INVALID &&
			   op->mem.base != X86_REG_INVALID) {
			nd->kind = N_TAIL; /* jmp *8(%rdi), *x@GOTPCREL(%rip) */
		} else {
			nd->kind = N_IJMP;
		}
		return;
	default:
		break;
	}
	if (cs_insn_group(h, in, X86_GRP_JUMP)) {
		if (op && op->type == X86_OP_IMM) {
			nd->kind = N_JCC;
			nd->target = (uint64_t)op->imm;
		} else {
			nd->kind = N_IJMP;
		}
	}
}

/*
 * What a module's instruction @nd does at run time, beyond its bytes in
 * the file: a rel32 branch the module's loader relocates goes where its
 * relocation says (out of the module: a tail call; to the return thunk:
 * a ret, CONFIG_RETHUNK), and a jump label's nop or jmp may go either
 * way.
 */
static void rel_fix(struct node *nd)
{
	const struct inl_rel *r = NULL;
	const struct inl_jl *j = jl_at(nd->addr);

	if ((nd->kind == N_JMP || nd->kind == N_JCC) && nd->size >= 5)
		r = rel_at(nd->addr + nd->size - 4);
	/* the kernel image, linked: a jump to the return thunk is a ret
	 * (a conditional one leaves) */
	if (cache.thunk && nd->target == cache.thunk && nd->kind == N_JMP)
		nd->kind = N_RET;
	else if (cache.thunk && nd->target == cache.thunk &&
		 nd->kind == N_JCC)
		nd->target = 0;
	if (r && r->ext && nd->kind == N_JMP)
		nd->kind = r->ret ? N_RET : N_TAIL;
	else if (r && r->ext)
		nd->target = 0; /* a conditional tail call: out */
	else if (r)
		nd->target = r->target;
	if (j && (nd->kind == N_SEQ || nd->kind == N_JMP)) {
		nd->kind = N_JCC;
		nd->target = j->target;
	}
}

/*
 * The caller's code (ranges @r) decoded into @g, successors and
 * predecessors linked.  0; -ENOMEM; -EINVAL with why in @why.
 */
static int graph_build(struct graph *g, const uint64_t (*r)[2], size_t nr,
		       char *why, size_t len)
{
	csh h = 0;
	cs_insn *in = NULL;
	uint64_t total = 0, a;
	size_t i, k;
	int ret = -EINVAL, j, c;
	int *cnt = NULL;
	uint8_t *buf = NULL;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < nr; i++)
		total += r[i][1] - r[i][0];
	if (!total || total > INL_MAX_CODE) {
		util_set_err(why, len, "its caller's code is %s",
			     total ? "larger than 1 MiB" : "empty");
		return -EINVAL;
	}
	g->lo = r[0][0];
	g->hi = r[0][1];
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK ||
	    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(in = cs_malloc(h))) {
		util_set_err(why, len, "the disassembler (Capstone) failed");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		int64_t off = to_off(r[i][0]);
		const uint8_t *code;
		size_t left = r[i][1] - r[i][0];

		/* read(2), not the mapping: a uprobe of another session on
		 * this file shows as int3 in a private mapping of it */
		free(buf);
		buf = malloc(left ? left : 1);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
		if (off < 0 ||
		    pread(cache.fd, buf, left, (off_t)off) != (ssize_t)left) {
			util_set_err(why, len,
				     "its caller's code at %#llx is not in the file",
				     (unsigned long long)r[i][0]);
			goto out;
		}
		code = buf;
		a = r[i][0];
		while (left) {
			if (!cs_disasm_iter(h, &code, &left, &a, in)) {
				util_set_err(why, len,
					     "its caller's bytes at %#llx do not decode",
					     (unsigned long long)a);
				goto out;
			}
			if (util_grow(&g->v, g->n, sizeof(*g->v))) {
				ret = -ENOMEM;
				goto out;
			}
			memset(&g->v[g->n], 0, sizeof(g->v[g->n]));
			g->v[g->n].addr = in->address;
			g->v[g->n].size = in->size;
			classify(h, in, &g->v[g->n]);
			if (cache.rel || cache.kimg)
				rel_fix(&g->v[g->n]);
			g->n++;
		}
	}
	qsort(g->v, g->n, sizeof(*g->v), node_cmp);
	for (i = 0; i < g->n; i++) {
		struct node *nd = &g->v[i];

		nd->succ[0] = nd->succ[1] = -1;
		if (nd->kind == N_SEQ || nd->kind == N_JCC)
			nd->succ[0] = node_at(g, nd->addr + nd->size);
		if (nd->kind == N_JMP || nd->kind == N_JCC) {
			j = node_at(g, nd->target);
			if (j < 0 && in_ranges(r, nr, nd->target)) {
				util_set_err(why, len,
					     "a jump at %#llx into the middle of an instruction",
					     (unsigned long long)nd->addr);
				goto out;
			}
			nd->succ[1] = j;
			nd->out = j < 0;
		}
	}
	cnt = calloc(g->n + 1, sizeof(*cnt));
	g->pstart = calloc(g->n + 1, sizeof(*g->pstart));
	g->pred = calloc(2 * g->n + 1, sizeof(*g->pred));
	if (!cnt || !g->pstart || !g->pred) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < g->n; i++)
		for (k = 0; k < 2; k++)
			if ((c = g->v[i].succ[k]) >= 0)
				g->pstart[c + 1]++;
	for (i = 0; i < g->n; i++)
		g->pstart[i + 1] += g->pstart[i];
	for (i = 0; i < g->n; i++)
		for (k = 0; k < 2; k++)
			if ((c = g->v[i].succ[k]) >= 0)
				g->pred[g->pstart[c] + cnt[c]++] = (int)i;
	ret = 0;
out:
	free(cnt);
	free(buf);
	if (in)
		cs_free(in, 1);
	if (h)
		cs_close(&h);
	if (ret)
		graph_free(g);
	return ret;
}

/* mark in @m what is reachable from @from (forward, or backward along
 * predecessors), never entering node @avoid (-1: none) */
static int reach(const struct graph *g, const int *from, size_t nfrom,
		 int avoid, bool back, unsigned char *m)
{
	int *q = malloc((g->n + 1) * sizeof(*q)), x, y;
	size_t qh = 0, qt = 0, k;
	int p;

	if (!q)
		return -ENOMEM;
	for (k = 0; k < nfrom; k++)
		if (from[k] != avoid && !m[from[k]]) {
			m[from[k]] = 1;
			q[qt++] = from[k];
		}
	while (qh < qt) {
		x = q[qh++];
		if (!back) {
			for (k = 0; k < 2; k++) {
				y = g->v[x].succ[k];
				if (y >= 0 && y != avoid && !m[y]) {
					m[y] = 1;
					q[qt++] = y;
				}
			}
			continue;
		}
		for (p = g->pstart[x]; p < g->pstart[x + 1]; p++) {
			y = g->pred[p];
			if (y != avoid && !m[y]) {
				m[y] = 1;
				q[qt++] = y;
			}
		}
	}
	free(q);
	return 0;
}

/* how the caller's frame is found at @a: struct inl_site's reg and adj
 * from the CFA rule of .eh_frame; 0, or -1 with why */
static int frame_rule(uint64_t a, struct inl_site *s, char *why, size_t len)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	int reg = -1;
	int64_t off = 0;

	if (!cache.cfi || dwarf_cfi_addrframe(cache.cfi, a, &fr) ||
	    dwarf_frame_cfa(fr, &ops, &nops) || nops != 1) {
		free(fr);
		util_set_err(why, len,
			     "no call frame information (%s) gives its caller's frame at %#llx",
			     cache.rel || cache.kimg ? ".debug_frame" :
						       ".eh_frame",
			     (unsigned long long)a);
		return -1;
	}
	if (ops[0].atom == DW_OP_bregx) {
		reg = (int)ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	}
	free(fr);
	/* the caller's return address slot: CFA - 8 */
	if ((reg == DW_X86_64_RSP || reg == DW_X86_64_RBP) && off - 8 > 65535) {
		util_set_err(why, len,
			     "its caller's frame at %#llx is larger than 64 KiB",
			     (unsigned long long)a);
		return -1;
	}
	if ((reg != DW_X86_64_RSP && reg != DW_X86_64_RBP) || off < 8) {
		util_set_err(why, len,
			     "its caller's frame at %#llx is not the stack or frame pointer plus an offset",
			     (unsigned long long)a);
		return -1;
	}
	s->reg = reg == DW_X86_64_RBP;
	s->adj = (uint16_t)(off - 8);
	return 0;
}

static int site_set(struct inl_site *s, uint64_t a, bool ret,
		    const char *path, char *why, size_t len)
{
	int64_t o = to_off(a);
	char e[256];

	memset(s, 0, sizeof(*s));
	s->addr = a;
	if (o < 0) {
		util_set_err(why, len, "%#llx is not in the file",
			     (unsigned long long)a);
		return -1;
	}
	s->off = (uint64_t)o;
	s->ret = ret;
	if (cache.rel || cache.kimg) {
		/* a kprobe's place: the function symbol it is in */
		GElf_Off so = 0;
		GElf_Sym sym;
		const char *nm = dwfl_module_addrinfo(cache.mod, a, &so, &sym,
						      NULL, NULL, NULL);

		if (!nm || GELF_ST_TYPE(sym.st_info) != STT_FUNC) {
			util_set_err(why, len, "%#llx is in no function symbol",
				     (unsigned long long)a);
			return -1;
		}
		s->sym = nm;
		s->symoff = so;
		if (kprobe_refused(a, a - so)) {
			util_set_err(why, len,
				     "the kernel refuses a kprobe at %s+%#llx: %s",
				     nm, (unsigned long long)so,
				     kprobe_refused(a, a - so));
			return -1;
		}
	} else if (sym_insn_check(path, s->off, e, sizeof(e))) {
		util_set_err(why, len, "%s", e);
		return -1;
	}
	if (frame_rule(a, s, why, len))
		return -1;
	if (ret && (s->reg || s->adj)) {
		util_set_err(why, len,
			     "its caller's frame at the ret at %#llx is not above the stack pointer",
			     (unsigned long long)a);
		return -1;
	}
	return 0;
}

static int add_exit(struct inl_inst *it, uint64_t a, bool ret,
		    const char *path, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < it->nexits; i++)
		if (it->exits[i].addr == a)
			return 0;
	if (it->nexits >= INL_MAX_EXITS) {
		util_set_err(why, len, "more than %d exits", INL_MAX_EXITS);
		return -1;
	}
	if (util_grow(&it->exits, it->nexits, sizeof(*it->exits)))
		return -ENOMEM;
	if (site_set(&it->exits[it->nexits], a, ret, path, why, len))
		return -1;
	it->nexits++;
	return 0;
}

static int site_cmp(const void *a, const void *b)
{
	const struct inl_site *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/*
 * The checks and exits of instance @it over its active region @act of
 * @g (entered at node @e; @live: reachable at all): see plan_instance().
 * 0; -ENOMEM; -1 refused, why in @why.
 */
static int active_walk(struct inl_inst *it, const char *path,
		       const struct graph *g, const unsigned char *act,
		       const unsigned char *live, int e, char *why, size_t len)
{
	size_t i, k;
	int p, x, y;

	for (i = 0; i < g->n; i++) {
		const struct node *nd = &g->v[i];

		if (!act[i])
			continue;
		for (p = g->pstart[i]; (int)i != e && p < g->pstart[i + 1]; p++)
			/* (padding after a jmp falls into it: dead) */
			if (!act[g->pred[p]] && live[g->pred[p]]) {
				util_set_err(why, len,
					     "its code at %#llx is also entered from %#llx, not through its entry %#llx",
					     (unsigned long long)nd->addr,
					     (unsigned long long)g->v[g->pred[p]].addr,
					     (unsigned long long)g->v[e].addr);
				return -1;
			}
		if (nd->kind == N_IJMP) {
			util_set_err(why, len,
				     "an indirect jump at %#llx in it: where it goes cannot be told",
				     (unsigned long long)nd->addr);
			return -1;
		}
		if (nd->kind == N_JCC && nd->out) {
			util_set_err(why, len,
				     "a conditional jump out of its caller at %#llx",
				     (unsigned long long)nd->addr);
			return -1;
		}
		if (nd->kind == N_RET || nd->kind == N_TAIL ||
		    (nd->kind == N_JMP && nd->out)) {
			x = add_exit(it, nd->addr, nd->kind == N_RET, path, why,
				     len);
			if (x)
				return x;
		}
		for (k = 0; k < 2; k++) {
			y = nd->succ[k];
			if (y < 0)
				continue;
			if (y == e) {
				util_set_err(why, len,
					     "its entry %#llx is the head of a loop in it (from %#llx): a probe there would start it at every turn",
					     (unsigned long long)g->v[e].addr,
					     (unsigned long long)nd->addr);
				return -1;
			}
			if (!act[y]) {
				x = add_exit(it, g->v[y].addr, false, path, why,
					     len);
				if (x)
					return x;
			}
		}
	}
	return 0;
}

/*
 * Mark in @m the nodes of @g from which the caller can return (a ret, a
 * tail call): the others are dead ends (a sanitizer's report, an abort),
 * in which nothing is timed.  0 or -ENOMEM.
 */
static int to_returns(const struct graph *g, unsigned char *m)
{
	int *rets = calloc(g->n + 1, sizeof(*rets)), r;
	size_t i, n = 0;

	if (!rets)
		return -ENOMEM;
	for (i = 0; i < g->n; i++)
		if (g->v[i].kind == N_RET || g->v[i].kind == N_TAIL ||
		    (g->v[i].kind == N_JMP && g->v[i].out))
			rets[n++] = (int)i;
	r = reach(g, rets, n, -1, true, m);
	free(rets);
	return r;
}

/*
 * A loop of the caller's inside active region @act of an instance
 * entered at @e (code @ir, @nir ranges): a back edge of a depth-first
 * walk from @e (reducible code: the edge to a loop's head) whose jump
 * is not the instance's code, so that the caller's code closes the
 * loop.  Its node, -1 if none (the instance's own loops are closed by
 * its code: reloads the compiler left unattributed inside them are no
 * loop of the caller's), or -ENOMEM - 1 without memory.
 */
static int caller_loop(const struct graph *g, int e, const unsigned char *act,
		       const uint64_t (*ir)[2], size_t nir)
{
	unsigned char *state = calloc(g->n, 1); /* 1 on the path, 2 done */
	int *stk = malloc((g->n + 1) * sizeof(*stk)), found = -1, x, y;
	unsigned char *next = calloc(g->n, 1); /* successor to try */
	size_t sp = 0;

	if (!state || !stk || !next) {
		free(state);
		free(stk);
		free(next);
		return -ENOMEM - 1;
	}
	stk[sp++] = e;
	state[e] = 1;
	while (sp && found < 0) {
		x = stk[sp - 1];
		if (next[x] >= 2) {
			state[x] = 2;
			sp--;
			continue;
		}
		y = g->v[x].succ[next[x]++];
		if (y < 0 || y == e || !act[y])
			continue;
		if (state[y] == 1 && !in_ranges(ir, nir, g->v[x].addr))
			found = x;
		else if (!state[y]) {
			state[y] = 1;
			stk[sp++] = y;
		}
	}
	free(state);
	free(stk);
	free(next);
	return found;
}

/*
 * Is entry @e of an instance (code @ir, @nir ranges) in graph @g where
 * every call of it passes?  Refused (-1, why in @why) when its code runs
 * on a path without it: code of it (@ne: reachable without @e; @live:
 * reachable at all) from which @e cannot be reached is a copy the
 * compiler made on another branch, not code hoisted before the entry;
 * and a loop inside its active region @act (not through @e) that its
 * caller's code closes runs its code again without a new entry (an entry
 * hoisted out of the loop: caller_loop()).  0; -ENOMEM.
 */
static int entry_checks(const struct graph *g, const uint64_t (*ir)[2],
			size_t nir, int e, const unsigned char *ne,
			const unsigned char *act, const unsigned char *live,
			char *why, size_t len)
{
	unsigned char *toe = calloc(g->n, 1), *toret = calloc(g->n, 1);
	size_t i;
	int r = 0;

	/* what can reach the entry; what can return */
	if (!toe || !toret || reach(g, &e, 1, -1, true, toe) ||
	    to_returns(g, toret)) {
		free(toe);
		free(toret);
		return -ENOMEM;
	}
	for (i = 0; i < g->n && !r; i++)
		if (ne[i] && live[i] && !toe[i] && toret[i] &&
		    in_ranges(ir, nir, g->v[i].addr)) {
			util_set_err(why, len,
				     "its code at %#llx runs on a path without its entry %#llx (a copy on another branch)",
				     (unsigned long long)g->v[i].addr,
				     (unsigned long long)g->v[e].addr);
			r = -1;
		}
	free(toe);
	free(toret);
	if (!r) {
		int x = caller_loop(g, e, act, ir, nir);

		if (x == -ENOMEM - 1)
			return -ENOMEM;
		if (x >= 0) {
			util_set_err(why, len,
				     "a loop of its caller through %#llx runs its code again without its entry %#llx (an entry hoisted out of the loop)",
				     (unsigned long long)g->v[x].addr,
				     (unsigned long long)g->v[e].addr);
			r = -1;
		}
	}
	return r;
}

/*
 * Which of the @nir ranges @ir of instance @d look like another copy of
 * it (an unrolled loop's): those that begin at the source line its entry
 * @entry begins at (the line table, dwarf_getsrc_die()).  A malloc'ed
 * array of 0/1, NULL without memory.
 */
static unsigned char *copies(Dwarf_Die *d, const uint64_t (*ir)[2],
			     size_t nir, uint64_t entry)
{
	unsigned char *v = calloc(nir, 1);
	Dwarf_Die cu;
	Dwarf_Line *l;
	int el = -1, ln;
	size_t k;

	if (!v || !dwarf_diecu(d, &cu, NULL, NULL))
		return v;
	if ((l = dwarf_getsrc_die(&cu, entry)))
		dwarf_lineno(l, &el);
	for (k = 0; k < nir; k++)
		v[k] = ir[k][0] != entry &&
		       (l = dwarf_getsrc_die(&cu, ir[k][0])) &&
		       !dwarf_lineno(l, &ln) && ln == el;
	return v;
}

/*
 * An instance without DW_AT_entry_pc (clang), entered at @e, the lowest
 * of its @nir ranges @ir: is each other range that begins where its entry
 * does (@copy, copies()) entered from its own code only?  One entered
 * from its caller's code is another copy of it (an unrolled loop's):
 * refused (-1, why in @why).  Ranges that begin elsewhere are its code
 * with some of its caller's scheduled between.
 */
static int ranges_entered(const struct graph *g, const uint64_t (*ir)[2],
			  size_t nir, const unsigned char *copy, int e,
			  const unsigned char *live, char *why, size_t len)
{
	unsigned char *toret = calloc(g->n, 1);
	size_t k;
	int s, p, q;

	if (!toret || to_returns(g, toret)) {
		free(toret);
		return -ENOMEM;
	}
	for (k = 0; k < nir; k++) {
		s = node_at(g, ir[k][0]);
		if (s < 0 || s == e || !toret[s] || !copy[k])
			continue; /* (a dead end: a sanitizer's report) */
		for (p = g->pstart[s]; p < g->pstart[s + 1]; p++) {
			q = g->pred[p];
			if (!live[q] || in_ranges(ir, nir, g->v[q].addr))
				continue;
			util_set_err(why, len,
				     "no DW_AT_entry_pc, and its code at %#llx is entered from its caller's at %#llx: which part is entered first cannot be told",
				     (unsigned long long)ir[k][0],
				     (unsigned long long)g->v[q].addr);
			free(toret);
			return -1;
		}
	}
	free(toret);
	return 0;
}

/*
 * The entry and exits of instance @it (code @ir, @nir ranges; DWARF
 * entry @entry) in its caller (its code as graph @gp, entered at
 * @fentry): see include/iprof/inline.h.  0; -ENOMEM; -1 refused, why in
 * @why.
 */
static int plan_instance(struct inl_inst *it, const char *path,
			 const uint64_t (*ir)[2], size_t nir, uint64_t entry,
			 const unsigned char *copy, const struct graph *gp,
			 uint64_t fentry, char *why, size_t len)
{
	const struct graph g = *gp;
	unsigned char *ne = NULL, *fw = NULL, *bw = NULL, *act = NULL;
	unsigned char *live = NULL;
	int *post = NULL, e, fe, x, ret = -1;
	size_t npost = 0, i, k;

	fe = node_at(&g, fentry);
	e = node_at(&g, entry);
	if (fe < 0 || e < 0) {
		util_set_err(why, len,
			     "its entry %#llx is no instruction of its caller",
			     (unsigned long long)entry);
		goto out;
	}
	if (e == fe) {
		/* the caller's own entry probe is there: the instance
		 * starts at the next instruction, before its first */
		e = g.v[e].kind == N_SEQ ? g.v[e].succ[0] : -1;
		if (e < 0) {
			util_set_err(why, len,
				     "its entry is its caller's first instruction, and it does not fall through");
			goto out;
		}
	}
	ne = calloc(g.n, 1);
	fw = calloc(g.n, 1);
	bw = calloc(g.n, 1);
	act = calloc(g.n, 1);
	live = calloc(g.n, 1);
	post = calloc(g.n, sizeof(*post));
	if (!ne || !fw || !bw || !act || !live || !post) {
		ret = -ENOMEM;
		goto out;
	}
	/* what runs without passing the entry: not the instance's; what
	 * runs after it (not through it again: that is another call) */
	fw[e] = 1;
	{
		int s[2], ns = 0;

		for (k = 0; k < 2; k++)
			if (g.v[e].succ[k] >= 0 && g.v[e].succ[k] != e)
				s[ns++] = g.v[e].succ[k];
		if (reach(&g, &fe, 1, e, false, ne) ||
		    reach(&g, s, (size_t)ns, e, false, fw) ||
		    reach(&g, &fe, 1, -1, false, live)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < g.n; i++)
		if (!ne[i] && fw[i] && in_ranges(ir, nir, g.v[i].addr))
			post[npost++] = (int)i;
	if (!npost) {
		util_set_err(why, len, "none of its code runs after its entry %#llx",
			     (unsigned long long)g.v[e].addr);
		goto out;
	}
	/* backward from its code after the entry, not through the entry */
	if (reach(&g, post, npost, e, true, bw)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < g.n; i++)
		act[i] = fw[i] && bw[i];
	act[e] = 1;
	x = entry_checks(&g, ir, nir, e, ne, act, live, why, len);
	if (!x && copy)
		x = ranges_entered(&g, ir, nir, copy, e, live, why, len);
	if (x)
		goto fail;
	if (site_set(&it->entry, g.v[e].addr, false, path, why, len))
		goto out;
	/* an entry that leaves at once: its stop would run before its
	 * start at one address, leaving it open */
	if (g.v[e].kind == N_RET || g.v[e].kind == N_TAIL ||
	    (g.v[e].kind == N_JMP && g.v[e].out)) {
		util_set_err(why, len,
			     "its entry %#llx is a %s out of its caller",
			     (unsigned long long)g.v[e].addr,
			     g.v[e].kind == N_RET ? "ret" : "jump (a tail call)");
		goto out;
	}
	x = active_walk(it, path, &g, act, live, e, why, len);
	if (x)
		goto fail;
	if (!it->nexits) {
		util_set_err(why, len, "no way out of it was found (it never returns)");
		goto out;
	}
	qsort(it->exits, it->nexits, sizeof(*it->exits), site_cmp);
	ret = 0;
	goto out;
fail:
	ret = x == -ENOMEM ? -ENOMEM : -1;
out:
	if (ret) {
		free(it->exits);
		it->exits = NULL;
		it->nexits = 0;
	}
	free(ne);
	free(fw);
	free(bw);
	free(act);
	free(live);
	free(post);
	return ret;
}

/* the name of the function or inlined function DIE @d (through its
 * abstract origin) */
static const char *die_name(Dwarf_Die *d)
{
	const char *n = dwarf_diename(d);

	return n ? n : "?";
}

/* @d's address ranges, non-empty ones, into *@r (malloc'ed) */
static int die_ranges(Dwarf_Die *d, uint64_t (**r)[2], size_t *n)
{
	Dwarf_Addr base, s, e;
	ptrdiff_t o = 0;

	*r = NULL;
	*n = 0;
	while ((o = dwarf_ranges(d, o, &base, &s, &e)) > 0) {
		if (e <= s)
			continue;
		if (util_grow(r, *n, sizeof(**r)))
			return -ENOMEM;
		(*r)[*n][0] = s;
		(*r)[(*n)++][1] = e;
	}
	return 0;
}

/* "FILE:LINE" of the call that @d inlines */
static char *call_site(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t nf;
	const char *name = NULL, *slash;
	char *s = NULL;

	if (dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &line) ||
	    !line)
		return strdup("");
	if (!dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &file) &&
	    dwarf_diecu(d, &cu, NULL, NULL) &&
	    !dwarf_getsrcfiles(&cu, &files, &nf) && file < nf)
		name = dwarf_filesrc(files, file, NULL, NULL);
	slash = name ? strrchr(name, '/') : NULL;
	if (asprintf(&s, "%s:%llu", slash ? slash + 1 : name ? name : "?",
		     (unsigned long long)line) < 0)
		return NULL;
	return s;
}

struct collect {
	const char *path;
	struct inl_inst *v;
	size_t n, more; /* more: past INL_MAX_INSTANCES, counted only */
	int err;
	/* the last caller's code as a graph (its instances come together) */
	Dwarf_Off g_fn;
	int g_ret; /* graph_build()'s: 0, or -EINVAL with g_why */
	struct graph g;
	char g_why[256];
};

/* instance @d of the function, in @fn (the function whose code holds
 * it) under @caller, @depth instances deep: into @c */
static void instance(struct collect *c, Dwarf_Die *d, Dwarf_Die *fn,
		     const char *caller, unsigned int depth)
{
	struct inl_inst *it;
	Dwarf_Addr entry = 0, fentry = 0;
	uint64_t (*ir)[2] = NULL, (*cr)[2] = NULL;
	size_t nir = 0, ncr = 0;
	char why[512] = "";
	unsigned char *copy = NULL;
	int r, multi;

	if (c->n >= INL_MAX_INSTANCES) {
		c->more++;
		return;
	}
	if (util_grow(&c->v, c->n, sizeof(*c->v))) {
		c->err = -ENOMEM;
		return;
	}
	it = &c->v[c->n];
	memset(it, 0, sizeof(*it));
	it->depth = depth;
	it->caller = strdup(caller);
	it->call = call_site(d);
	if (!it->caller || !it->call) {
		free(it->caller);
		free(it->call);
		c->err = -ENOMEM;
		return;
	}
	c->n++;
	r = die_ranges(d, &ir, &nir);
	if (!r && fn)
		r = die_ranges(fn, &cr, &ncr);
	if (r) {
		c->err = r;
		goto out;
	}
	if (!nir) {
		/* optimized away: no code runs, nothing to time */
		free(it->caller);
		free(it->call);
		c->n--;
		goto out;
	}
	if (dwarf_hasattr(d, DW_AT_entry_pc) && !dwarf_entrypc(d, &entry)) {
		multi = 0;
	} else {
		/* clang gives none: the lowest address, and its other ranges
		 * may be entered from its own code only (plan_instance()) */
		multi = nir > 1;
		entry = ir[0][0];
		for (size_t k = 1; k < nir; k++)
			if (ir[k][0] < entry)
				entry = ir[k][0];
	}
	if (multi && !(copy = copies(d, ir, nir, entry))) {
		c->err = -ENOMEM;
		goto out;
	}
	it->entry.addr = entry;
	if (!fn || !ncr) {
		util_set_err(why, sizeof(why), "its caller has no code in DWARF");
		goto out;
	}
	if (dwarf_entrypc(fn, &fentry) || !in_ranges(cr, ncr, fentry))
		fentry = cr[0][0];
	if (!c->g_fn || c->g_fn != dwarf_dieoffset(fn)) {
		graph_free(&c->g);
		c->g_fn = dwarf_dieoffset(fn);
		c->g_ret = graph_build(&c->g, (const uint64_t(*)[2])cr, ncr,
				       c->g_why, sizeof(c->g_why));
		if (c->g_ret == -ENOMEM) {
			c->g_fn = 0;
			c->err = -ENOMEM;
			goto out;
		}
	}
	if (c->g_ret) {
		util_set_err(why, sizeof(why), "%s", c->g_why);
		goto out;
	}
	r = plan_instance(it, c->path, (const uint64_t(*)[2])ir, nir, entry,
			  copy, &c->g, fentry, why, sizeof(why));
	if (r == -ENOMEM)
		c->err = r;
out:
	free(ir);
	free(cr);
	free(copy);
	if (why[0] && !c->err && !(it->why = strdup(why)))
		c->err = -ENOMEM;
}

/* the abstract origin of @d, its DIE offset; 0 if none, or if it is in
 * another file (dwz -m's DW_FORM_GNU_ref_alt: offsets of another
 * .debug_info, not looked up yet) */
static Dwarf_Off origin_of(Dwarf_Die *d, Dwarf_Die *o)
{
	Dwarf_Attribute a;

	if (!dwarf_attr(d, DW_AT_abstract_origin, &a) ||
	    !dwarf_formref_die(&a, o) || dwarf_cu_getdwarf(o->cu) != cache.dw)
		return 0;
	return dwarf_dieoffset(o);
}

/*
 * Is instance @d of function @o, directly inside an instance of @o, the
 * rest of that same call (GCC's partial inlining, ipa-split: f's head
 * inlined, f.part.N with the rest of it inlined there too), not a call of
 * its own?  Its call is then the compiler's, at f's own declaration line;
 * a recursive call is at a line of f's body.
 */
static bool split_rest(Dwarf_Die *d, Dwarf_Die *o)
{
	Dwarf_Attribute a;
	Dwarf_Word call = 0;
	int decl = 0;

	return !dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &call) &&
	       !dwarf_decl_line(o, &decl) && call == (Dwarf_Word)decl;
}

/*
 * Every instance among the children of @die, in function @fn (0: none
 * yet) under @caller, @depth instances deep (@outer: the abstract origin
 * of the instance @die is, 0: none), into the cache's index: one
 * walk of a unit that keeps each DIE's function and callers at hand
 * (dwarf_getscopes_die() walks the unit again for each).  Only DIEs that
 * may hold code are entered.  0 or -ENOMEM.
 */
static int walk(Dwarf_Die *die, Dwarf_Off fn, const char *caller,
		unsigned int depth, Dwarf_Off outer, int level)
{
	Dwarf_Die ch, o;
	Dwarf_Off org;
	struct inl_use *u;
	int tag, err = 0;

	if (level > 64 || dwarf_child(die, &ch))
		return 0;
	do {
		tag = dwarf_tag(&ch);
		switch (tag) {
		case DW_TAG_subprogram:
			if (dwarf_hasattr(&ch, DW_AT_low_pc) ||
			    dwarf_hasattr(&ch, DW_AT_ranges))
				err = walk(&ch, dwarf_dieoffset(&ch),
					   die_name(&ch), 0, 0, level + 1);
			break;
		case DW_TAG_inlined_subroutine:
			org = origin_of(&ch, &o);
			if (org && org == outer && split_rest(&ch, &o)) {
				/* the rest of the same call */
				err = walk(&ch, fn, caller, depth, outer,
					   level + 1);
				break;
			}
			if (org && fn) {
				if (util_grow(&cache.use, cache.nuse,
					      sizeof(*cache.use)))
					return -ENOMEM;
				u = &cache.use[cache.nuse++];
				u->origin = org;
				u->die = dwarf_dieoffset(&ch);
				u->fn = fn;
				u->caller = caller;
				u->depth = depth;
			}
			err = walk(&ch, fn, org ? die_name(&o) : "?",
				   depth + 1, org, level + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			err = walk(&ch, fn, caller, depth, outer, level + 1);
			break;
		default:
			break;
		}
	} while (!err && dwarf_siblingof(&ch, &ch) == 0);
	return err;
}

static int use_cmp(const void *a, const void *b)
{
	const struct inl_use *x = a, *y = b;

	if (x->origin != y->origin)
		return (x->origin > y->origin) - (x->origin < y->origin);
	return (x->die > y->die) - (x->die < y->die);
}

/* the cache's instance index, built once per file; 0 or -ENOMEM */
static int uses_build(void)
{
	Dwarf_Off off = 0, next;
	size_t hs;
	int err = 0;

	if (cache.use_built)
		return 0;
	while (!err &&
	       dwarf_nextcu(cache.dw, off, &next, &hs, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(cache.dw, off + hs, &cu))
			err = walk(&cu, 0, "?", 0, 0, 0);
		off = next;
	}
	if (err)
		return err;
	if (cache.nuse)
		qsort(cache.use, cache.nuse, sizeof(*cache.use), use_cmp);
	cache.use_built = 1;
	return 0;
}

/* the instances of abstract DIE @origin, planned into @c */
static void instances_of(struct collect *c, Dwarf_Off origin)
{
	size_t lo = 0, hi = cache.nuse, m;
	Dwarf_Die d, fn;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (cache.use[m].origin < origin)
			lo = m + 1;
		else
			hi = m;
	}
	for (; !c->err && lo < cache.nuse && cache.use[lo].origin == origin;
	     lo++) {
		const struct inl_use *u = &cache.use[lo];

		if (dwarf_offdie(cache.dw, u->die, &d) &&
		    dwarf_offdie(cache.dw, u->fn, &fn))
			instance(c, &d, &fn, u->caller, u->depth);
	}
}

static int inst_cmp(const void *a, const void *b)
{
	const struct inl_inst *x = a, *y = b;

	return (x->entry.addr > y->entry.addr) - (x->entry.addr < y->entry.addr);
}

int inl_find(const char *path, const char *func, const char *debugdir,
	     struct inl_inst **v, size_t *n, size_t *more, int *nodwarf,
	     char *err, size_t errlen)
{
	struct collect c = { .path = path };
	struct inl_ent key = { .name = func };
	size_t lo, hi, m;
	int ret;

	*v = NULL;
	*n = 0;
	if (more)
		*more = 0;
	if (nodwarf)
		*nodwarf = 0;
	ret = file_open(path, debugdir, err, errlen);
	if (ret)
		return ret;
	if (!cache.dw) {
		if (nodwarf)
			*nodwarf = 1;
		return 0;
	}
	if (nodwarf && cache.other_lang)
		*nodwarf = 2;
	/* the first entry named @func */
	lo = 0;
	hi = cache.nidx;
	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (strcmp(cache.idx[m].name, key.name) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	ret = lo < cache.nidx && !strcmp(cache.idx[lo].name, func) ?
		      uses_build() : 0;
	if (ret)
		return ret;
	for (; lo < cache.nidx && !strcmp(cache.idx[lo].name, func) && !c.err;
	     lo++)
		instances_of(&c, cache.idx[lo].off);
	graph_free(&c.g);
	if (c.err) {
		inl_free(c.v, c.n);
		return c.err;
	}
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), inst_cmp);
	*v = c.v;
	*n = c.n;
	if (more)
		*more = c.more;
	return 0;
}

int inl_names(const char *path, const char *debugdir, struct ksyms *k,
	      char *err, size_t errlen)
{
	size_t i;
	int ret = file_open(path, debugdir, err, errlen);

	for (i = 0; !ret && i < cache.nidx; i++)
		if (!i || strcmp(cache.idx[i].name, cache.idx[i - 1].name))
			ret = ksyms_add(k, cache.idx[i].name,
					strlen(cache.idx[i].name), NULL);
	if (!ret)
		ksyms_sort(k);
	return ret;
}

#else /* !__x86_64__ */

int inl_find(const char *path, const char *func, const char *debugdir,
	     struct inl_inst **v, size_t *n, size_t *more, int *nodwarf,
	     char *err, size_t errlen)
{
	(void)path;
	if (more)
		*more = 0;
	(void)func;
	(void)debugdir;
	(void)err;
	(void)errlen;
	*v = NULL;
	*n = 0;
	if (nodwarf)
		*nodwarf = 1;
	return 0;
}

void inl_free(struct inl_inst *v, size_t n)
{
	(void)n;
	free(v);
}

void inl_forget(void)
{
}

int inl_names(const char *path, const char *debugdir, struct ksyms *k,
	      char *err, size_t errlen)
{
	(void)path;
	(void)debugdir;
	(void)k;
	(void)err;
	(void)errlen;
	return 0;
}

#endif
