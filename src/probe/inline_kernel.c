// SPDX-License-Identifier: GPL-2.0-only
/*
 * Inlined instances in kernel code: what a kernel module's relocations
 * and the kernel image's tables tell that its bytes do not.  A module's
 * debug file (ET_REL) has its rel32 branch fields relocated here
 * (inl_rel_load(): where each jump goes, or that it leaves the module, and
 * its jump labels' second edges); the kernel image (vmlinux) has its jump
 * labels, lock prefixes, static calls, kprobe blacklist and the text
 * ranges kprobes refuse read from the tables its linker script names
 * (inl_kimg_load()); inl_kprobe_refused() says why the kernel would refuse a
 * kprobe at an address, and inl_to_off() maps an address to a file offset.
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

#include "probe/inline_int.h"

/* the file inl_find() read last, its DWARF indexed (inline_int.h): here,
 * in the lowest of the files that read it */
struct inl_file inl_cache = { .fd = -1 };

/* the kernel image's symbols inl_kimg_load() reads, by name */
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

/* why kprobes refuse the ranges of inl_cache.deny */
static const char *const deny_why[KIMG_DENY] = {
	"it is in .kprobes.text (the kprobe blacklist)",
	"it is in .noinstr.text (the kprobe blacklist)",
	"it is in .entry.text (the kprobe blacklist)",
	"it is init code, freed after boot (__init_begin..__init_end)",
};


/* the address libdwfl laid section @ndx of a module out at, or 0 */
static uint64_t sec_addr(size_t ndx)
{
	Elf_Scn *scn = elf_getscn(inl_cache.lay, ndx);
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
	*name = elf_strptr(inl_cache.lay, strndx, sym.st_name);
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
	Elf_Scn *ts = elf_getscn(inl_cache.lay, rh->sh_info);
	Elf_Scn *ss = elf_getscn(inl_cache.lay, rh->sh_link);
	Elf_Data *rd = elf_getdata(rs, NULL), *sd;
	GElf_Shdr th, sh;
	const char *tn, *name;
	size_t i, n;
	int ext;

	if (!ts || !ss || !rd || !gelf_getshdr(ts, &th) ||
	    !gelf_getshdr(ss, &sh) || !(sd = elf_getdata(ss, NULL)) ||
	    !rh->sh_entsize)
		return 0;
	tn = elf_strptr(inl_cache.lay, shstr, th.sh_name);
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
			while (inl_cache.njls <= k) {
				if (util_grow(&inl_cache.jls, inl_cache.njls,
					      sizeof(*inl_cache.jls)))
					return -ENOMEM;
				memset(&inl_cache.jls[inl_cache.njls++], 0,
				       sizeof(*inl_cache.jls));
			}
			if (f == 0)
				inl_cache.jls[k].code = v;
			else
				inl_cache.jls[k].target = v;
			continue;
		}
		/* a lock prefix's place (s32, relative), a static call's
		 * (struct static_call_site { s32 addr, key; }) */
		if (tn && !ext && v &&
		    (!strcmp(tn, ".smp_locks") ||
		     (!strcmp(tn, ".static_call_sites") && r.r_offset % 8 == 0))) {
			if (util_grow(&inl_cache.resv, inl_cache.nresv,
				      sizeof(*inl_cache.resv)))
				return -ENOMEM;
			inl_cache.resv[inl_cache.nresv++] = v;
			continue;
		}
		if (!(th.sh_flags & SHF_EXECINSTR) ||
		    (GELF_R_TYPE(r.r_info) != R_X86_64_PC32 &&
		     GELF_R_TYPE(r.r_info) != R_X86_64_PLT32))
			continue;
		if (util_grow(&inl_cache.rels, inl_cache.nrels, sizeof(*inl_cache.rels)))
			return -ENOMEM;
		inl_cache.rels[inl_cache.nrels++] = (struct inl_rel){
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

/* a module's relocations of branches and its jump labels (inl_cache.rels,
 * inl_cache.jls, sorted); 0 or -ENOMEM */
int inl_rel_load(void)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr, i, k = 0;
	int r;

	if (elf_getshdrstrndx(inl_cache.lay, &shstr))
		return 0;
	while ((scn = elf_nextscn(inl_cache.lay, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA &&
		    (r = rel_section(scn, &sh, shstr)))
			return r;
	for (i = 0; i < inl_cache.njls; i++)
		if (inl_cache.jls[i].code && inl_cache.jls[i].target)
			inl_cache.jls[k++] = inl_cache.jls[i];
	inl_cache.njls = k;
	if (inl_cache.nrels)
		qsort(inl_cache.rels, inl_cache.nrels, sizeof(*inl_cache.rels), rel_cmp);
	if (inl_cache.njls)
		qsort(inl_cache.jls, inl_cache.njls, sizeof(*inl_cache.jls), jl_cmp);
	if (inl_cache.nresv)
		qsort(inl_cache.resv, inl_cache.nresv, sizeof(*inl_cache.resv), u64_cmp);
	return 0;
}

/* @n bytes of the image at address @a into @buf; 0 or -1 */
static int kimg_read(uint64_t a, void *buf, size_t n)
{
	int64_t o = inl_to_off(a);

	return o < 0 || pread(inl_cache.fd, buf, n, (off_t)o) != (ssize_t)n ? -1 :
									   0;
}

/* the entries [@lo, @hi) of a table of @esz-byte entries whose s32 at
 * @fo (relative to itself, arch/x86's relative tables) names a place:
 * appended to *@v (*@n); with @jl, jump entries (code at 0, target at
 * 4) into inl_cache.jls instead.  0 or -ENOMEM; unreadable: as none. */
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
			if (util_grow(&inl_cache.jls, inl_cache.njls, sizeof(*inl_cache.jls)))
				goto nomem;
			inl_cache.jls[inl_cache.njls++] = (struct inl_jl){
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
 * addresses) [@lo, @hi) into inl_cache.bl; 0 or -ENOMEM */
static int kimg_blacklist(uint64_t lo, uint64_t hi)
{
	uint64_t a;

	for (; hi > lo && hi - lo >= 8 && hi - lo < (1u << 24); lo += 8) {
		if (kimg_read(lo, &a, 8))
			return 0;
		if (util_grow(&inl_cache.bl, inl_cache.nbl, sizeof(*inl_cache.bl)))
			return -ENOMEM;
		inl_cache.bl[inl_cache.nbl++] = a;
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
int inl_kimg_load(struct inl_file *f, Dwfl_Module *mod)
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
const struct inl_rel *inl_rel_at(uint64_t at)
{
	struct inl_rel k = { .at = at };

	return inl_cache.nrels ? bsearch(&k, inl_cache.rels, inl_cache.nrels,
				     sizeof(*inl_cache.rels), rel_cmp) :
			     NULL;
}

/* the jump label at @code, or NULL */
const struct inl_jl *inl_jl_at(uint64_t code)
{
	struct inl_jl k = { .code = code };

	return inl_cache.njls ? bsearch(&k, inl_cache.jls, inl_cache.njls,
				    sizeof(*inl_cache.jls), jl_cmp) :
			    NULL;
}

/* does the kernel refuse a kprobe at @a in the function that starts
 * at @fn (a jump label, a lock prefix, a static call; in the kernel
 * image, the kprobe blacklist too)?  Its kind, or NULL */
const char *inl_kprobe_refused(uint64_t a, uint64_t fn)
{
	size_t k;

	if (inl_jl_at(a))
		return "a jump label";
	if (inl_cache.nresv && bsearch(&a, inl_cache.resv, inl_cache.nresv,
				   sizeof(*inl_cache.resv), u64_cmp))
		return "a lock prefix or static call the kernel patches";
	for (k = 0; inl_cache.kimg && k < KIMG_DENY; k++)
		if (a >= inl_cache.deny[k][0] && a < inl_cache.deny[k][1])
			return deny_why[k];
	if (inl_cache.nbl && bsearch(&fn, inl_cache.bl, inl_cache.nbl, sizeof(*inl_cache.bl),
				 u64_cmp))
		return "its function is on the kprobe blacklist (NOKPROBE_SYMBOL)";
	return NULL;
}

/* a file offset of address @a of a module (its laid-out section), or -1 */
static int64_t rel_off(uint64_t a)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(inl_cache.lay, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_flags & SHF_ALLOC &&
		    sh.sh_type == SHT_PROGBITS && a >= sh.sh_addr &&
		    a - sh.sh_addr < sh.sh_size)
			return (int64_t)(a - sh.sh_addr + sh.sh_offset);
	return -1;
}

/* a file offset of virtual address @a in the file (its PT_LOAD, or a
 * module's section), or -1 */
int64_t inl_to_off(uint64_t a)
{
	GElf_Phdr ph;
	size_t i, n;

	if (inl_cache.rel)
		return rel_off(a);
	if (!inl_cache.elf || elf_getphdrnum(inl_cache.elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(inl_cache.elf, (int)i, &ph) ||
		    ph.p_type != PT_LOAD)
			continue;
		if (a >= ph.p_vaddr && a - ph.p_vaddr < ph.p_filesz)
			return (int64_t)(a - ph.p_vaddr + ph.p_offset);
	}
	return -1;
}

#endif /* __x86_64__ */
