// SPDX-License-Identifier: GPL-2.0-only
/*
 * retsite.c - a user function's return sites (include/iprof/retsite.h),
 * by disassembling its code with Capstone (libcapstone, Debian's
 * libcapstone-dev).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/retsite.h"
#include "iprof/sym.h"
#include "iprof/util.h"
#include "probe/x86dec.h"

#if defined(__x86_64__)
#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

/* Most pieces one function's code is read in: its symbol's, its cold
 * part, and the .eh_frame ranges its jumps reach (retsite_find()). */
#define RETSITE_MAX_PARTS 8

/* Most entries of a jump table read (a larger bound: no table). */
#define RETSITE_MAX_TABLE 4096

/* What retsite_find() reads a function's file with: its ELF image, for
 * the load segments (file offsets <-> addresses), .eh_frame (libdw) and
 * jump tables (.rodata), and where its functions start. */
struct rs_file {
	const char *path;
	struct sym_cache *syms; /* the caller's, or NULL */
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi; /* NULL: no .eh_frame */
	const uint64_t *starts; /* sym_func_starts(), virtual addresses */
	size_t nstarts;
	struct retsite_code p[RETSITE_MAX_PARTS];
	size_t np;
	/* where paths from another piece enter a piece (its jumps', its
	 * tables'), with what holds on them all, sorted by offset */
	struct rs_ent *ent;
	size_t nent;
	/* the jump tables read: each target of a table's jmp in the
	 * same piece, sorted by jmp */
	struct rs_edge {
		uint64_t from, to;
	} *tab;
	size_t ntab;
	/* a notrack jmp was taken for a jump table unread: where its paths
	 * lead is unknown, so nothing is known anywhere */
	bool blind;
	bool indirect; /* a piece has an indirect jmp: follow the flow */
	/* the lowest file offset above the function's first instruction
	 * that a direct jump or call of any piece reaches (piece_scan();
	 * UINT64_MAX: none): retsite_split() */
	uint64_t low;
	bool changed; /* ent, tab, blind or indirect changed (all_sites()) */
	bool nomem; /* ent_meet() ran out of memory */
};

/*
 * @x mapped through the load segment that holds it: a file offset to its
 * virtual address (@to_addr), or a virtual address to the file offset of
 * its bytes; -1 when no segment's file bytes hold it.
 */
static int64_t seg_map(const struct rs_file *f, uint64_t x, bool to_addr)
{
	uint64_t from, to;
	GElf_Phdr ph;
	size_t i, n;

	if (!f->elf || elf_getphdrnum(f->elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		from = to_addr ? ph.p_offset : ph.p_vaddr;
		to = to_addr ? ph.p_vaddr : ph.p_offset;
		if (x >= from && x - from < ph.p_filesz)
			return (int64_t)(x - from + to);
	}
	return -1;
}

static int64_t to_addr(const struct rs_file *f, uint64_t off)
{
	return seg_map(f, off, true);
}

static int64_t to_off(const struct rs_file *f, uint64_t a)
{
	return seg_map(f, a, false);
}

/* A DW_EH_PE_* encoded value's size in bytes (its low nibble: 0 absptr,
 * 2 udata2, 3 udata4, 4 udata8, 0xa-0xc the signed ones); 0 for LEB128 or
 * an encoding iprof does not read. */
static size_t eh_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00:
	case 0x04:
	case 0x0c:
		return 8;
	case 0x03:
	case 0x0b:
		return 4;
	case 0x02:
	case 0x0a:
		return 2;
	default:
		return 0;
	}
}

/* The value of encoding @enc at @p (@at: its address, for pcrel);
 * @range: an FDE's address range, whose application is never applied. */
static uint64_t eh_read(const uint8_t *p, uint8_t enc, uint64_t at,
			bool range)
{
	uint64_t v = 0;
	int16_t s2;
	int32_t s4;
	uint16_t u2;
	uint32_t u4;

	switch (enc & 0x0f) {
	case 0x02:
		memcpy(&u2, p, 2);
		v = u2;
		break;
	case 0x0a:
		memcpy(&s2, p, 2);
		v = (uint64_t)(int64_t)s2;
		break;
	case 0x03:
		memcpy(&u4, p, 4);
		v = u4;
		break;
	case 0x0b:
		memcpy(&s4, p, 4);
		v = (uint64_t)(int64_t)s4;
		break;
	default:
		memcpy(&v, p, 8);
		break;
	}
	if (!range && (enc & 0x70) == 0x10)
		v += at; /* DW_EH_PE_pcrel */
	return v;
}

/* The FDE pointer encoding (DW_EH_PE_*) a CIE's 'z' augmentation gives
 * its FDEs (its 'R'), absptr without one; -1: one iprof cannot read. */
static int cie_enc(const Dwarf_CIE *c)
{
	const char *a = c->augmentation;
	const uint8_t *d = c->augmentation_data;
	size_t i = 0, n = c->augmentation_data_size, k;

	if (!a || a[0] != 'z')
		return a && a[0] ? -1 : 0;
	for (a++; *a; a++) {
		if (*a == 'R')
			return i < n ? d[i] : -1;
		if (*a == 'L') {
			i++;
		} else if (*a == 'P') {
			if (i >= n || !(k = eh_size(d[i])))
				return -1;
			i += 1 + k;
		} else if (*a != 'S' && *a != 'B') {
			return -1;
		}
	}
	return 0;
}

/*
 * The .eh_frame FDE that covers file offset @off: its code as file
 * offsets [*@lo, *@hi), read with dwarf_next_cfi() (libdw's
 * dwarf_frame_info() gives the range of one row of its table only).
 * 0, or -1 when none does.
 */
static int fde_range(const struct rs_file *f, uint64_t off, uint64_t *lo,
		     uint64_t *hi)
{
	const char *ident = f->elf ? elf_getident(f->elf, NULL) : NULL;
	int64_t a = to_addr(f, off), so, eo;
	Dwarf_Off o = 0, next, cie = (Dwarf_Off)-1;
	Elf_Scn *scn = NULL;
	Dwarf_CFI_Entry e;
	Elf_Data *d = NULL;
	uint64_t base = 0, s, n;
	size_t str, k;
	GElf_Shdr sh;
	int enc = -1, r;

	if (!ident || a < 0 || elf_getshdrstrndx(f->elf, &str))
		return -1;
	while ((scn = elf_nextscn(f->elf, scn)) && !d) {
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		nm = elf_strptr(f->elf, str, sh.sh_name);
		if (nm && !strcmp(nm, ".eh_frame")) {
			d = elf_getdata(scn, NULL);
			base = sh.sh_addr;
		}
	}
	if (!d || !d->d_buf)
		return -1;
	for (; (r = dwarf_next_cfi((const unsigned char *)ident, d, true, o,
				   &next, &e)) <= 0;
	     o = next) {
		if (r < 0 || dwarf_cfi_cie_p(&e))
			continue;
		if (e.fde.CIE_pointer != cie) {
			Dwarf_Off cn;
			Dwarf_CFI_Entry c;

			cie = e.fde.CIE_pointer;
			enc = dwarf_next_cfi((const unsigned char *)ident, d,
					     true, cie, &cn, &c) ||
					      !dwarf_cfi_cie_p(&c) ?
				      -1 :
				      cie_enc(&c.cie);
		}
		k = enc < 0 ? 0 : eh_size((uint8_t)enc);
		if (!k || e.fde.end - e.fde.start < (ptrdiff_t)(2 * k))
			continue;
		s = eh_read(e.fde.start, (uint8_t)enc,
			    base + (uint64_t)(e.fde.start -
					      (const uint8_t *)d->d_buf),
			    false);
		n = eh_read(e.fde.start + k, (uint8_t)enc, 0, true);
		if ((uint64_t)a < s || (uint64_t)a - s >= n)
			continue;
		so = to_off(f, s);
		eo = to_off(f, s + n - 1);
		if (so < 0 || eo < so)
			return -1;
		*lo = (uint64_t)so;
		*hi = (uint64_t)eo + 1;
		return 0;
	}
	return -1;
}

/* Does a function symbol start at file offset @off? */
static bool func_start(const struct rs_file *f, uint64_t off)
{
	int64_t a = to_addr(f, off);
	size_t lo = 0, hi = f->nstarts, m;

	if (a < 0)
		return false;
	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (f->starts[m] == (uint64_t)a)
			return true;
		if (f->starts[m] < (uint64_t)a)
			lo = m + 1;
		else
			hi = m;
	}
	return false;
}

/* Is file offset @t in one of the function's pieces? */
static bool inside(const struct rs_file *f, uint64_t t)
{
	size_t i;

	for (i = 0; i < f->np; i++)
		if (t >= f->p[i].off && t < f->p[i].off + f->p[i].size)
			return true;
	return false;
}

/*
 * The index of the ELF section whose file bytes hold file offset @off, or
 * 0 (none).
 */
static size_t section_of(const struct rs_file *f, uint64_t off)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		if (off >= sh.sh_offset && off < sh.sh_offset + sh.sh_size)
			return elf_ndxscn(scn);
	}
	return 0;
}

/*
 * Is jump target @t, outside the pieces known so far, code of the
 * function all the same?  Yes when it lies in the function's own section
 * (never .plt, .plt.sec, .plt.got: a jump there is a tail call through a
 * PLT stub, whose .eh_frame entry covers the whole PLT), no function
 * starts there and an .eh_frame FDE that no piece overlaps covers it: a cold part whose
 * symbol is gone (a stripped file) or was never there; that FDE becomes
 * a piece (read after the others).  A function's own FDE would start at
 * a symbol; a local function of a stripped file jumped to with the frame
 * still set up is taken in as well, and its returns, matched by stack
 * pointer (timer_stop()), are then the real returns of the timed call
 * (one jumped to with the frame gone is a tail call: classify()).
 */
/*
 * Does the CFA rule at file offset @off say the stack is as at the
 * function's entry (CFA = %rsp + 8: the return address on top, every push
 * popped)?  A jmp there leaves nothing of the frame: a tail call, as GCC
 * and clang emit them (sibling call optimisation), not a jump into the
 * function's cold part, which runs on the frame.  From the function's
 * .eh_frame row (dwarf_cfi_addrframe(), dwarf_frame_cfa(); x86-64 psABI
 * DWARF register 7 is %rsp); false without one.
 */
static bool entry_sp(const struct rs_file *f, uint64_t off)
{
	int64_t a = to_addr(f, off);
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool r = false;

	if (!f->cfi || a < 0 ||
	    dwarf_cfi_addrframe(f->cfi, (Dwarf_Addr)a, &fr))
		return false;
	/* libdw gives a register+offset CFA as DW_OP_bregx REG, OFFSET */
	if (!dwarf_frame_cfa(fr, &ops, &nops) && nops == 1 &&
	    ((ops[0].atom == DW_OP_bregx && ops[0].number == 7 &&
	      ops[0].number2 == 8) ||
	     (ops[0].atom == DW_OP_breg7 && ops[0].number == 8)))
		r = true;
	free(fr);
	return r;
}

static bool adopt(struct rs_file *f, uint64_t t)
{
	uint64_t lo, hi;
	size_t i;

	if (inside(f, t))
		return true;
	if (section_of(f, t) != section_of(f, f->p[0].off) ||
	    func_start(f, t) || f->np >= RETSITE_MAX_PARTS ||
	    fde_range(f, t, &lo, &hi) || func_start(f, lo))
		return false;
	for (i = 0; i < f->np; i++)
		if (lo < f->p[i].off + f->p[i].size && f->p[i].off < hi)
			return false;
	f->p[f->np].off = lo;
	f->p[f->np].size = hi - lo;
	f->np++;
	return true;
}

/* Does instruction @in carry prefix byte @b before its opcode? */
static bool has_prefix(const cs_insn *in, unsigned char b)
{
	const cs_x86 *x = &in->detail->x86;
	int i;

	for (i = 0; i < 4; i++)
		if (x->prefix[i] == b)
			return true;
	return false;
}

/* File offset @a as a place in the function, "+0x12" from its start, or
 * "-0x40" in a part before it: a sign and a magnitude, for "%s%#llx". */
#define REL(f, a)                                                     \
	(a) < (f)->p[0].off ? "-" : "+",                              \
		(unsigned long long)((a) < (f)->p[0].off ?            \
					     (f)->p[0].off - (a) :    \
					     (a) - (f)->p[0].off)

/* Add the path from jump table jmp @from to its target @to (f->tab):
 * 0 or -ENOMEM. */
static int tab_add(struct rs_file *f, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = f->ntab, m;
	struct rs_edge *e;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		e = &f->tab[m];
		if (e->from == from && e->to == to)
			return 0;
		if (e->from < from || (e->from == from && e->to < to))
			lo = m + 1;
		else
			hi = m;
	}
	if (util_grow(&f->tab, f->ntab, sizeof(*f->tab)))
		return -ENOMEM;
	memmove(f->tab + lo + 1, f->tab + lo,
		(f->ntab - lo) * sizeof(*f->tab));
	f->tab[lo] = (struct rs_edge){ from, to };
	f->ntab++;
	f->changed = true;
	return 0;
}

/* The index of @a in the sorted @n offsets @v, or -1. */
static ssize_t find_off(const uint64_t *v, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (v[m] == a)
			return (ssize_t)m;
		if (v[m] < a)
			lo = m + 1;
		else
			hi = m;
	}
	return -1;
}

/* The 16 general registers by number 0-15, by their 64-, 32-, 16- and
 * 8-bit names. */
static const x86_reg gpr_names[4][16] = {
	{ X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP,
	  X86_REG_RBP, X86_REG_RSI, X86_REG_RDI, X86_REG_R8, X86_REG_R9,
	  X86_REG_R10, X86_REG_R11, X86_REG_R12, X86_REG_R13, X86_REG_R14,
	  X86_REG_R15 },
	{ X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX, X86_REG_ESP,
	  X86_REG_EBP, X86_REG_ESI, X86_REG_EDI, X86_REG_R8D, X86_REG_R9D,
	  X86_REG_R10D, X86_REG_R11D, X86_REG_R12D, X86_REG_R13D,
	  X86_REG_R14D, X86_REG_R15D },
	{ X86_REG_AX, X86_REG_CX, X86_REG_DX, X86_REG_BX, X86_REG_SP,
	  X86_REG_BP, X86_REG_SI, X86_REG_DI, X86_REG_R8W, X86_REG_R9W,
	  X86_REG_R10W, X86_REG_R11W, X86_REG_R12W, X86_REG_R13W,
	  X86_REG_R14W, X86_REG_R15W },
	{ X86_REG_AL, X86_REG_CL, X86_REG_DL, X86_REG_BL, X86_REG_SPL,
	  X86_REG_BPL, X86_REG_SIL, X86_REG_DIL, X86_REG_R8B, X86_REG_R9B,
	  X86_REG_R10B, X86_REG_R11B, X86_REG_R12B, X86_REG_R13B,
	  X86_REG_R14B, X86_REG_R15B },
};

/* Is @r one of ah, ch, dh, bh (bits 8-15 of rax-rbx)? */
static bool high_byte(x86_reg r)
{
	return r == X86_REG_AH || r == X86_REG_CH || r == X86_REG_DH ||
	       r == X86_REG_BH;
}

/* @r's number (0-15) and *@w its width in bits (64, 32, 16, 8); -1 for
 * another register (RIP, segment, vector ones). */
static int gpr(x86_reg r, int *w)
{
	static const int width[4] = { 64, 32, 16, 8 };
	static const x86_reg high[4] = { X86_REG_AH, X86_REG_CH, X86_REG_DH,
					 X86_REG_BH };
	int i, j;

	for (i = 0; i < 4; i++) {
		if (high[i] == r) {
			*w = 8;
			return i;
		}
	}
	for (j = 0; j < 4; j++) {
		for (i = 0; i < 16; i++) {
			if (gpr_names[j][i] == r) {
				*w = width[j];
				return i;
			}
		}
	}
	return -1;
}

/*
 * Jump tables.  A switch compiles (GCC, clang; -O2, -O3) to a bound check
 * and an indirect jmp through a table of the case labels:
 *	cmp $N, %idx;  ja default       (or jae; or jbe/jb to the table code)
 *	lea T(%rip), %base              position-independent code:
 *	movslq (%base,%idx,4), %dst       T[idx] is the label - T
 *	add %base, %dst
 *	jmp *%dst                       (notrack jmp with -fcf-protection)
 * or, in code that is not position-independent,
 *	jmp *T(,%idx,8)                 T[idx] is the label's address
 * The bound may be on a memory operand the index is then loaded from
 * (cmpl $N, 0x50(%rdx); ja; mov 0x50(%rdx), %ecx), of a 32-bit register
 * whose upper half an earlier 32-bit write zeroed (mov 4(%rcx), %eax;
 * cmp $N, %eax; ja; movslq (%base,%rax,4)), of a register copied to the
 * index (cmp $N, %edi; ja; mov %edi, %eax), or an and $N-1 or a movzbl.
 * What each point of the code knows of the registers (struct jt_state) is
 * found over the function's control flow: at a join, what holds on every
 * path into it; at an entry iprof cannot see all paths into (the piece's
 * start, a jump from another piece, a table's target), nothing.  A table
 * is bounded only when that proves the bound at its jmp.
 */
struct jt_reg {
	int64_t bound; /* its value is at most this (unsigned); -1: unknown */
	int64_t b32; /* its low 32 bits are at most this; -1: unknown */
	int64_t lea; /* it holds this file-offset-space address; -1: no */
	int64_t table; /* T[idx] (an int32) of table T, or T + T[idx]; -1 */
	int64_t n; /* the entries of that table idx may pick */
	bool z32; /* its upper 32 bits are zero */
	bool target; /* it holds T + T[idx] */
	int64_t blo; /* its low @blo_w (8, 16) bits are at most this; -1 */
	int blo_w;
	bool sx32; /* it is its low 32 bits sign-extended (movslq) */
};

#define JT_UNKNOWN \
	((struct jt_reg){ -1, -1, -1, -1, 0, false, false, -1, 0, false })

/* A memory operand (RIP-relative: @disp is the file-offset-space address) */
struct jt_mem {
	x86_reg base, index, seg;
	int scale;
	int64_t disp;
	uint8_t size; /* bytes */
};

enum { JT_CMP_NONE, JT_CMP_REG, JT_CMP_MEM };

struct jt_state {
	bool reached; /* false: no path into it seen yet */
	struct jt_reg r[16];
	int cmp; /* the flags are a cmp $cmp_imm's with r[cmp_reg] (its low
		  * cmp_w bits: 8, 16, 32, 64) or with cmp_mem; JT_CMP_NONE:
		  * not known */
	int cmp_reg;
	int cmp_w;
	struct jt_mem cmp_mem;
	int64_t cmp_imm;
	bool mem_known; /* memory operand mem holds at most mem_bound */
	struct jt_mem mem;
	int64_t mem_bound;
};

/* Nothing known: an entry whose paths in iprof cannot all see. */
static void jt_top(struct jt_state *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->reached = true;
	for (i = 0; i < 16; i++)
		s->r[i] = JT_UNKNOWN;
	s->cmp = JT_CMP_NONE;
}

/* What one fact of @r says of the others. */
static void jt_norm(struct jt_reg *r)
{
	/* sign-extended, the low half below 2^31: the upper half is 0 */
	if (r->sx32 && r->b32 >= 0 && r->b32 <= INT32_MAX)
		r->z32 = true;
	if (r->z32 && r->b32 >= 0 && (r->bound < 0 || r->b32 < r->bound))
		r->bound = r->b32;
	if (r->bound >= 0 && r->bound <= (int64_t)UINT32_MAX) {
		r->z32 = true;
		if (r->b32 < 0 || r->bound < r->b32)
			r->b32 = r->bound;
	}
}

static struct jt_mem mem_of(const cs_insn *in, const cs_x86_op *o)
{
	struct jt_mem m = { o->mem.base,  o->mem.index, o->mem.segment,
			    o->mem.scale, o->mem.disp,	o->size };

	if (m.base == X86_REG_RIP)
		m.disp += (int64_t)(in->address + in->size);
	return m;
}

static bool mem_eq(const struct jt_mem *a, const struct jt_mem *b)
{
	return a->base == b->base && a->index == b->index &&
	       a->seg == b->seg && a->scale == b->scale &&
	       a->disp == b->disp && a->size == b->size;
}

/* Does memory operand @m's address depend on register number @g? */
static bool mem_uses(const struct jt_mem *m, int g)
{
	int w;

	return gpr(m->base, &w) == g || gpr(m->index, &w) == g;
}

/* *@a met with @b: the larger bound, -1 when either is unknown; true
 * when *@a changed. */
static bool meet_bound(int64_t *a, int64_t b)
{
	int64_t v = *a < 0 || b < 0 ? -1 : *a > b ? *a : b;
	bool c = v != *a;

	*a = v;
	return c;
}

static bool meet_reg(struct jt_reg *a, const struct jt_reg *b)
{
	bool c = meet_bound(&a->bound, b->bound);

	c |= meet_bound(&a->b32, b->b32);
	if (a->blo_w != b->blo_w && a->blo >= 0) {
		a->blo = -1;
		a->blo_w = 0;
		c = true;
	}
	c |= meet_bound(&a->blo, b->blo);
	if (a->z32 && !b->z32) {
		a->z32 = false;
		c = true;
	}
	if (a->sx32 && !b->sx32) {
		a->sx32 = false;
		c = true;
	}
	if (a->lea != b->lea && a->lea >= 0) {
		a->lea = -1;
		c = true;
	}
	if (a->table >= 0 && (a->table != b->table || a->n != b->n ||
			      a->target != b->target)) {
		a->table = -1;
		a->n = 0;
		a->target = false;
		c = true;
	}
	return c;
}

/* *@d met with @s, a path into the same point: what holds on both.
 * True when *@d changed. */
static bool jt_meet(struct jt_state *d, const struct jt_state *s)
{
	bool c = false;
	int i;

	if (!s->reached)
		return false;
	if (!d->reached) {
		*d = *s;
		return true;
	}
	for (i = 0; i < 16; i++)
		c |= meet_reg(&d->r[i], &s->r[i]);
	if (d->cmp != JT_CMP_NONE &&
	    (d->cmp != s->cmp || d->cmp_imm != s->cmp_imm ||
	     (d->cmp == JT_CMP_REG &&
	      (d->cmp_reg != s->cmp_reg || d->cmp_w != s->cmp_w)) ||
	     (d->cmp == JT_CMP_MEM && !mem_eq(&d->cmp_mem, &s->cmp_mem)))) {
		d->cmp = JT_CMP_NONE;
		c = true;
	}
	if (d->mem_known && (!s->mem_known || !mem_eq(&d->mem, &s->mem))) {
		d->mem_known = false;
		c = true;
	} else if (d->mem_known && s->mem_bound > d->mem_bound) {
		d->mem_bound = s->mem_bound;
		c = true;
	}
	return c;
}

/* A path from another piece into file offset @off, and what holds on
 * every such path seen. */
struct rs_ent {
	uint64_t off;
	struct jt_state st;
};

/* The f->ent at @t, or -1. */
static ssize_t ent_find(const struct rs_file *f, uint64_t t)
{
	size_t lo = 0, hi = f->nent, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (f->ent[m].off == t)
			return (ssize_t)m;
		if (f->ent[m].off < t)
			lo = m + 1;
		else
			hi = m;
	}
	return -(ssize_t)lo - 1;
}

/* A path with @s from another piece into file offset @t: met into its
 * f->ent (f->changed when that changed; f->nomem when out of memory). */
static void ent_meet(struct rs_file *f, uint64_t t, const struct jt_state *s)
{
	ssize_t i = ent_find(f, t);
	size_t lo;

	if (i >= 0) {
		f->changed |= jt_meet(&f->ent[i].st, s);
		return;
	}
	lo = (size_t)(-i - 1);
	if (util_grow(&f->ent, f->nent, sizeof(*f->ent))) {
		f->nomem = true;
		return;
	}
	memmove(f->ent + lo + 1, f->ent + lo,
		(f->nent - lo) * sizeof(*f->ent));
	f->ent[lo].off = t;
	f->ent[lo].st = *s;
	f->nent++;
	f->changed = true;
}

/*
 * What instruction @in puts in its destination register, from what @s
 * knows before it: the register's number (0-15) and what is known of it
 * then in *@v, or -1 for any other instruction (its writes forget):
 *	mov $imm, %r               r = imm
 *	mov %src, %dst             dst = src (32-bit: the low half)
 *	mov M, %r; movzx M, %r     r <= N where a cmp $N, M proved it
 *	movzx (8-, 16-bit source)  r <= 0xff, 0xffff (or the source's bound)
 *	movslq M, %r               r is its low half sign-extended
 *	and $imm, %r               r <= imm
 *	lea T(%rip), %r            r = T
 *	movslq (%b,%i,4), %r       r = T[i], b = T, i <= N: N + 1 entries
 *	add %b, %r (or %r, %b)     r = T + T[i]
 * A 32-bit destination's upper half is zero.
 */
static int jt_value(const cs_insn *in, const struct jt_state *s,
		    struct jt_reg *v)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o0 = &x->operands[0], *o1 = &x->operands[1];
	int64_t val = -1;
	struct jt_mem m;
	int d, w, b, wb, i;

	if (x->op_count != 2 || o0->type != X86_OP_REG ||
	    (d = gpr(o0->reg, &w)) < 0 || w < 32)
		return -1;
	*v = JT_UNKNOWN;
	switch (in->id) {
	case X86_INS_MOV:
		if (o1->type == X86_OP_IMM) {
			val = o1->imm;
		} else if (o1->type == X86_OP_REG) {
			if ((b = gpr(o1->reg, &wb)) < 0 || wb != w)
				return -1;
			if (w == 64)
				*v = s->r[b];
			else
				val = s->r[b].b32;
		} else if (o1->type == X86_OP_MEM) {
			m = mem_of(in, o1);
			if (s->mem_known && mem_eq(&m, &s->mem))
				val = s->mem_bound;
		}
		break;
	case X86_INS_MOVZX:
		val = o1->size == 1 ? 0xff : o1->size == 2 ? 0xffff : -1;
		if (o1->type == X86_OP_MEM) {
			m = mem_of(in, o1);
			if (s->mem_known && mem_eq(&m, &s->mem))
				val = s->mem_bound;
		} else if (o1->type == X86_OP_REG && !high_byte(o1->reg) &&
			   (b = gpr(o1->reg, &wb)) >= 0 && val >= 0) {
			/* the low bits' bound, or the whole value's */
			if (s->r[b].blo_w == wb && s->r[b].blo >= 0 &&
			    s->r[b].blo < val)
				val = s->r[b].blo;
			if (s->r[b].b32 >= 0 && s->r[b].b32 < val)
				val = s->r[b].b32;
		}
		break;
	case X86_INS_AND:
		if (o1->type == X86_OP_IMM)
			val = o1->imm;
		break;
	case X86_INS_LEA:
		if (w == 64 && o1->type == X86_OP_MEM &&
		    o1->mem.base == X86_REG_RIP &&
		    o1->mem.index == X86_REG_INVALID)
			v->lea = mem_of(in, o1).disp;
		break;
	case X86_INS_MOVSXD:
		if (w == 64 && o1->type == X86_OP_MEM && o1->mem.scale == 4 &&
		    !o1->mem.disp && o1->mem.segment == X86_REG_INVALID &&
		    (b = gpr(o1->mem.base, &wb)) >= 0 && wb == 64 &&
		    (i = gpr(o1->mem.index, &wb)) >= 0 && wb == 64 &&
		    s->r[b].lea >= 0 && s->r[i].bound >= 0 &&
		    s->r[i].bound < RETSITE_MAX_TABLE) {
			v->table = s->r[b].lea;
			v->n = s->r[i].bound + 1;
		} else if (w == 64 && o1->size == 4) {
			v->sx32 = true; /* movslq M, %r; movslq %e, %r */
		}
		break;
	case X86_INS_ADD:
		if (w != 64 || o1->type != X86_OP_REG ||
		    (b = gpr(o1->reg, &wb)) < 0 || wb != 64)
			return -1;
		if (s->r[d].table >= 0 && !s->r[d].target &&
		    s->r[b].lea == s->r[d].table)
			b = d; /* add %base, %dst: dst holds T[i] */
		else if (!(s->r[b].table >= 0 && !s->r[b].target &&
			   s->r[d].lea == s->r[b].table))
			return -1;
		v->table = s->r[b].table;
		v->n = s->r[b].n;
		v->target = true;
		break;
	default:
		return -1;
	}
	if (val >= 0 && val <= (int64_t)UINT32_MAX && w == 32) {
		v->b32 = val;
		v->z32 = true;
	} else if (val >= 0 && w == 64) {
		v->bound = val;
	} else if (w == 32) {
		v->z32 = true;
	}
	jt_norm(v);
	return d;
}

/* Does @id, writing a 32-bit register as its destination, zero its upper
 * half?  Every 32-bit write in 64-bit mode does but a few (cmpxchg leaves
 * eax alone when equal, bsf/bsr with a source of 0): these surely do. */
static bool zero_extends(unsigned int id)
{
	switch (id) {
	case X86_INS_MOV:
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_LEA:
	case X86_INS_ADD:
	case X86_INS_SUB:
	case X86_INS_AND:
	case X86_INS_OR:
	case X86_INS_XOR:
	case X86_INS_NEG:
	case X86_INS_NOT:
	case X86_INS_INC:
	case X86_INS_DEC:
	case X86_INS_IMUL:
		return true;
	default:
		return false;
	}
}

/* Does @in write memory: a memory operand it writes (or one it may:
 * a first operand of anything but a compare), the stack (push, call)? */
static bool writes_mem(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	int i;

	for (i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM)
			continue;
		if (x->operands[i].access & CS_AC_WRITE)
			return true;
		if (!i && in->id != X86_INS_CMP && in->id != X86_INS_TEST)
			return true;
	}
	return false;
}

/* Forget what @in's writes (Capstone's regs_access) change: the registers
 * it writes, the flags, the memory. */
static void jt_clobber(csh h, const cs_insn *in, struct jt_state *s)
{
	bool mem = writes_mem(in);
	cs_regs rr, wr;
	uint8_t nr, nw, i;
	int g, w;

	if (cs_regs_access(h, in, rr, &nr, wr, &nw)) {
		jt_top(s);
		return;
	}
	for (i = 0; i < nw; i++) {
		if (wr[i] == X86_REG_EFLAGS) {
			s->cmp = JT_CMP_NONE;
			continue;
		}
		g = gpr(wr[i], &w);
		if (g < 0)
			continue; /* RIP, vector registers */
		s->r[g] = JT_UNKNOWN;
		/* a 32-bit write zeroes the upper half */
		s->r[g].z32 = w == 32 && zero_extends(in->id);
		if (s->cmp == JT_CMP_REG && s->cmp_reg == g)
			s->cmp = JT_CMP_NONE;
		if (s->cmp == JT_CMP_MEM && mem_uses(&s->cmp_mem, g))
			s->cmp = JT_CMP_NONE;
		if (s->mem_known && mem_uses(&s->mem, g))
			s->mem_known = false;
	}
	if (mem) {
		s->mem_known = false;
		if (s->cmp == JT_CMP_MEM)
			s->cmp = JT_CMP_NONE;
	}
}

/*
 * Step @s over instruction @in (no jump: those are jt_flow()'s): what it
 * writes is forgotten, what it computes (jt_value()) or compares
 * (cmp $imm with a register or memory) learnt.  A call forgets memory
 * and the registers the ABI lets a callee write (all but rbx, rsp, rbp,
 * r12-r15): the compiler relied on the same when it wrote the code.
 */
static void jt_xfer(csh h, const cs_insn *in, struct jt_state *s)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o0 = &x->operands[0], *o1 = &x->operands[1];
	struct jt_reg v;
	int d, g, w;

	if (in->id == X86_INS_INVALID) {
		/* x86dec_next()'s placeholder: what it writes is not known */
		jt_top(s);
		return;
	}

	if (in->id == X86_INS_CALL || in->id == X86_INS_SYSCALL) {
		/* the ABI's callee-saved registers outlive it (and rsp) */
		struct jt_state k = *s;

		jt_top(s);
		for (d = 3; d < 16; d++)
			if (d == 3 || d == 4 || d == 5 || d >= 12)
				s->r[d] = k.r[d];
		return;
	}
	d = jt_value(in, s, &v);
	jt_clobber(h, in, s);
	if (d >= 0)
		s->r[d] = v;
	if (in->id != X86_INS_CMP || x->op_count != 2 ||
	    o1->type != X86_OP_IMM || o1->imm < 0 || o1->imm > INT32_MAX)
		return;
	if (o0->type == X86_OP_REG && (g = gpr(o0->reg, &w)) >= 0 &&
	    !high_byte(o0->reg)) {
		s->cmp = JT_CMP_REG;
		s->cmp_reg = g;
		s->cmp_w = w;
	} else if (o0->type == X86_OP_MEM) {
		s->cmp = JT_CMP_MEM;
		s->cmp_mem = mem_of(in, o0);
	} else {
		return;
	}
	s->cmp_imm = o1->imm;
}

/*
 * What conditional jump @in says on its taken (@taken) or fall-through
 * path of a cmp $N before it: ja falls through, jbe jumps with the operand
 * at most N; jae falls through, jb jumps with it below N (unsigned).
 */
static void jt_refine(const cs_insn *in, struct jt_state *s, bool taken)
{
	struct jt_reg *r;
	int64_t n;

	if (s->cmp == JT_CMP_NONE)
		return;
	switch (in->id) {
	case X86_INS_JA:
	case X86_INS_JAE:
		if (taken)
			return;
		n = s->cmp_imm - (in->id == X86_INS_JAE);
		break;
	case X86_INS_JBE:
	case X86_INS_JB:
		if (!taken)
			return;
		n = s->cmp_imm - (in->id == X86_INS_JB);
		break;
	default:
		return;
	}
	if (n < 0)
		return; /* a path never taken */
	if (s->cmp == JT_CMP_MEM) {
		s->mem_known = true;
		s->mem = s->cmp_mem;
		s->mem_bound = n;
		return;
	}
	r = &s->r[s->cmp_reg];
	if (s->cmp_w == 32 && (r->b32 < 0 || n < r->b32)) {
		r->b32 = n;
	} else if (s->cmp_w == 64 && (r->bound < 0 || n < r->bound)) {
		r->bound = n;
	} else if (s->cmp_w < 32 &&
		   (r->blo_w != s->cmp_w || r->blo < 0 || n < r->blo)) {
		r->blo = n;
		r->blo_w = s->cmp_w;
	}
	jt_norm(r);
}

/* One piece of the function's code, as jt_flow() and part_sites() read
 * it. */
struct rs_piece {
	const uint8_t *buf; /* its @size bytes, from file offset @off */
	uint64_t off, size;
	uint64_t *ins; /* its instructions' file offsets (a linear sweep) */
	uint8_t *brk; /* per instruction: 1 when it is a jump or a ret */
	size_t nins;
	uint64_t *tg; /* where its direct jumps land, sorted */
	size_t ntg;
	bool indirect; /* it has an indirect jmp through a register or table */
	int32_t *blk; /* per instruction: the block it starts, or -1 */
	struct jt_state *st; /* per block: what holds at its start; NULL:
			      * nothing known anywhere */
	size_t nblk;
};

static void piece_free(struct rs_piece *c)
{
	free(c->ins);
	free(c->brk);
	free(c->tg);
	free(c->blk);
	free(c->st);
}

/* Decode the instruction of piece @c at file offset @a into @in. */
static bool decode_at(csh h, const struct rs_piece *c, uint64_t a,
		      cs_insn *in)
{
	const uint8_t *code = c->buf + (a - c->off);
	size_t left = c->size - (a - c->off);

	return x86dec_next(h, &code, &left, &a, in);
}

/*
 * jt_read() - the @n entries of the jump table at @table that jmp @in
 * (of piece @c) takes: @esz 4, each an int32 that T + it is the target
 * (@table in the code's file-offset space), or @esz 8, each a target's
 * address (@table an address).  Every target must lie in the function
 * (adopt()) and becomes a path from the jmp (tab_add()): 1 when they all
 * do, -1 with why not, -ENOMEM.
 */
static int jt_read(struct rs_file *f, const struct rs_piece *c,
		   const cs_insn *in, int64_t table, int64_t n, int esz,
		   char *why, size_t len)
{
	int64_t toff, e = 0, t;
	uint64_t v8 = 0;
	int32_t v4 = 0;
	int64_t i;

	if (esz == 4) {
		/* T is in the code's file-offset space: its address is the
		 * code's delta away, and its bytes where that address is */
		e = to_addr(f, in->address);
		if (e < 0)
			goto unread;
		e -= (int64_t)in->address; /* address - offset of the code */
	}
	toff = to_off(f, (uint64_t)(table + e));
	if (toff < 0)
		goto unread;
	for (i = 0; i < n; i++) {
		if (esz == 4 &&
		    pread(f->fd, &v4, sizeof(v4), toff + 4 * i) != sizeof(v4))
			goto unread;
		if (esz == 8 &&
		    pread(f->fd, &v8, sizeof(v8), toff + 8 * i) != sizeof(v8))
			goto unread;
		t = esz == 4 ? table + v4 : to_off(f, v8);
		if (t >= 0 && (uint64_t)t >= c->off &&
		    (uint64_t)t < c->off + c->size &&
		    find_off(c->ins, c->nins, (uint64_t)t) < 0) {
			util_set_err(why, len,
				     "its jump table at %s%#llx (%s %s) has entry %lld jumping into an instruction",
				     REL(f, in->address), in->mnemonic,
				     in->op_str, (long long)i);
			return -1;
		}
		if (t < 0 || !adopt(f, (uint64_t)t)) {
			util_set_err(why, len,
				     "its jump table at %s%#llx (%s %s) has entry %lld jumping out of it, to %#llx",
				     REL(f, in->address), in->mnemonic,
				     in->op_str, (long long)i,
				     (unsigned long long)(esz == 8 ? v8 : (uint64_t)t));
			return -1;
		}
		if (tab_add(f, in->address, (uint64_t)t))
			return -ENOMEM; /* a path jt_flow() follows */
	}
	return 1;
unread:
	util_set_err(why, len,
		     "the jump table of its jmp at %s%#llx (%s %s) could not be read",
		     REL(f, in->address), in->mnemonic, in->op_str);
	return -1;
}

/*
 * jt_jump() - indirect jmp @in (through a register, or memory with an
 * index) of piece @c, where @s holds: a jump table (1, its targets all in
 * the function) when @s proves one (jmp *%r, r = T + T[i]; jmp
 * *T(,%i,8), i <= N), or a notrack one (0: -fcf-protection marks jump
 * tables so) it cannot read; else -1 with why (a table of function
 * pointers is a tail call: iprof cannot tell), or -ENOMEM.
 */
static int jt_jump(struct rs_file *f, const struct rs_piece *c,
		   const cs_insn *in, const struct jt_state *s, char *why,
		   size_t len)
{
	const cs_x86_op *op = &in->detail->x86.operands[0];
	int g, w, r = -1;

	if (op->type == X86_OP_REG && (g = gpr(op->reg, &w)) >= 0 &&
	    w == 64 && s->r[g].target && s->r[g].n > 0 &&
	    s->r[g].n <= RETSITE_MAX_TABLE)
		r = jt_read(f, c, in, s->r[g].table, s->r[g].n, 4, why, len);
	else if (op->type == X86_OP_MEM && op->mem.base == X86_REG_INVALID &&
		 op->mem.scale == 8 &&
		 /* notrack is a ds prefix: Capstone shows ds: */
		 (op->mem.segment == X86_REG_INVALID ||
		  op->mem.segment == X86_REG_DS) &&
		 (g = gpr(op->mem.index, &w)) >= 0 && w == 64 &&
		 s->r[g].bound >= 0 && s->r[g].bound < RETSITE_MAX_TABLE)
		r = jt_read(f, c, in, op->mem.disp, s->r[g].bound + 1, 8, why,
			    len);
	else if (has_prefix(in, 0x3e))
		/* paths from it unknown: nothing is known anywhere */
		return f->changed |= !f->blind, f->blind = true, 0;
	else if (op->type == X86_OP_MEM && op->mem.base != X86_REG_INVALID)
		/* jmp *(%rdx,%rax,8): a table of function pointers (a tail
		 * call) or of labels (a switch): iprof cannot tell */
		util_set_err(why, len,
			     "an indirect jmp at %s%#llx (%s %s) through a table iprof cannot read: a tail call or a jump table",
			     REL(f, in->address), in->mnemonic, in->op_str);
	else
		util_set_err(why, len,
			     "an indirect jmp at %s%#llx (%s %s) that is no bounded jump table iprof can read: a jump table or a tail call, iprof cannot tell",
			     REL(f, in->address), in->mnemonic, in->op_str);
	return r;
}

/*
 * What instruction @in of piece @c means for the function, @s holding
 * before it: 1 a return site, 0 not one, -1 undecidable (@why says why),
 * -ENOMEM.  A jump into another piece (the function's .cold part) stays
 * inside the function.
 */
static int classify(csh h, const cs_insn *in, struct rs_file *f,
		    const struct rs_piece *c, const struct jt_state *s,
		    char *why, size_t len)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *op = x->op_count ? &x->operands[0] : NULL;
	uint64_t t;
	int r;

	switch (in->id) {
	case X86_INS_RET:
		return 1;
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_LJMP:
		util_set_err(why, len, "a far %s at %s%#llx", in->mnemonic,
			     REL(f, in->address));
		return -1;
	case X86_INS_JMP:
		if (!op)
			break;
		if (op->type == X86_OP_IMM) {
			t = (uint64_t)op->imm;
			/* a jmp out with the frame gone: a tail call, even to
			 * a function with no symbol (a stripped file's static
			 * one), whose returns would be shared with its every
			 * other caller (each a trap and an orphan stop); but a
			 * thunk (the jmp first, after an endbr64 at most) is
			 * the code it jumps to, timed only by its rets */
			if (!inside(f, t) && in->address - f->p[0].off > 4 &&
			    entry_sp(f, in->address))
				return 1;
			return !adopt(f, t); /* outside: a tail call */
		}
		if (op->type == X86_OP_MEM && op->mem.index == X86_REG_INVALID)
			/* jmp *8(%rdi), jmp *foo@GOTPCREL(%rip): a tail
			 * call */
			return 1;
		r = jt_jump(f, c, in, s, why, len);
		return r < 0 ? r : 0;
	default:
		break;
	}
	if (cs_insn_group(h, in, X86_GRP_JUMP) && op &&
	    op->type == X86_OP_IMM) {
		/* jcc, loop, jrcxz: a uprobe on it fires taken or not */
		t = (uint64_t)op->imm;
		if (!adopt(f, t)) {
			/* the target as an address (objdump's), not the file
			 * offset Capstone was given */
			int64_t ta = to_addr(f, t);

			util_set_err(why, len,
				     "a conditional jump out of it at %s%#llx "
				     "(%s %#llx): a probe there fires whether "
				     "or not it is taken",
				     REL(f, in->address), in->mnemonic,
				     (unsigned long long)(ta >= 0 ? (uint64_t)ta :
								    t));
			return -1;
		}
	}
	return 0;
}

static int add_site(uint64_t **v, size_t *n, uint64_t off)
{
	uint64_t *p;

	if (*n >= RETSITE_MAX)
		return -E2BIG;
	if (util_grow(v, *n, sizeof(**v)))
		return -ENOMEM;
	p = *v;
	p[(*n)++] = off;
	return 0;
}

static int cmp_off(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sweep piece @c (its buf, off, size) once: its instructions, where its
 * direct jumps inside it land, whether it has an indirect jmp (then so
 * has the function: f->indirect).
 * 0, -ENOMEM, or -EOPNOTSUPP with @why (bytes that are no instruction).
 */
static int piece_scan(struct rs_file *f, struct rs_piece *c, bool cold,
		      csh h, cs_insn *in, char *why, size_t len)
{
	const uint8_t *code = c->buf;
	uint64_t addr = c->off, t;
	size_t left = c->size;
	const cs_x86_op *op;
	bool jump;

	while (left) {
		if (!x86dec_next(h, &code, &left, &addr, in)) {
			util_set_err(why, len,
				     "bytes at +%#llx%s that are no x86-64 "
				     "instruction (data in the code?)",
				     (unsigned long long)(addr - c->off),
				     cold ? " of a part elsewhere" : "");
			return -EOPNOTSUPP;
		}
		op = in->detail->x86.op_count ? &in->detail->x86.operands[0] :
						NULL;
		jump = cs_insn_group(h, in, X86_GRP_JUMP) ||
		       in->id == X86_INS_RET || in->id == X86_INS_RETF ||
		       in->id == X86_INS_RETFQ;
		if (util_grow(&c->ins, c->nins, sizeof(*c->ins)) ||
		    util_grow(&c->brk, c->nins, sizeof(*c->brk)))
			return -ENOMEM;
		c->ins[c->nins] = in->address;
		c->brk[c->nins++] = jump;
		if (in->id == X86_INS_JMP && op && op->type != X86_OP_IMM &&
		    (op->type == X86_OP_REG ||
		     op->mem.index != X86_REG_INVALID)) {
			c->indirect = true;
			f->changed |= !f->indirect;
			f->indirect = true;
		}
		if (!op || op->type != X86_OP_IMM ||
		    (!jump && !cs_insn_group(h, in, X86_GRP_CALL)))
			continue;
		t = (uint64_t)op->imm;
		if (t > f->p[0].off && t < f->low)
			f->low = t;
		if (!jump)
			continue;
		if (t < c->off || t >= c->off + c->size)
			continue; /* jt_flow() follows it (ent_meet()) */
		if (util_grow(&c->tg, c->ntg, sizeof(*c->tg)))
			return -ENOMEM;
		c->tg[c->ntg++] = t;
	}
	if (c->ntg)
		qsort(c->tg, c->ntg, sizeof(*c->tg), cmp_off);
	return 0;
}

/* Most blocks (each holds a struct jt_state, about 1.2 KiB: 40 MiB at
 * most) and visits of them (per block) jt_flow() spends on one piece; past
 * them nothing is known anywhere (no table is proven). */
#define JT_MAX_BLOCKS (1u << 15)
#define JT_VISITS 64
/* Most times all_sites() reads the function's pieces before it gives up
 * following the flow. */
#define JT_ROUNDS 16

/* Where the work list of jt_flow() stands. */
struct jt_work {
	int32_t *wl; /* blocks to visit */
	size_t nwl;
	size_t *first; /* per block: its first instruction */
	bool *inwl;
};

/* A path with @s into file offset @t: what holds at the block there (of
 * piece @c: visited again if that changed; of another piece: f->ent). */
static void jt_prop(struct rs_file *f, struct rs_piece *c,
		    struct jt_work *w, uint64_t t, const struct jt_state *s)
{
	ssize_t i;
	int32_t b;

	if (t < c->off || t >= c->off + c->size) {
		ent_meet(f, t, s); /* into another piece */
		return;
	}
	if ((i = find_off(c->ins, c->nins, t)) < 0 || (b = c->blk[i]) < 0)
		return; /* inside an instruction: a linear sweep's blind
			 * spot, as its sites' */
	if (jt_meet(&c->st[b], s) && !w->inwl[b]) {
		w->inwl[b] = true;
		w->wl[w->nwl++] = b;
	}
}

/* The paths from jump table jmp @from, with @s, to its targets read so
 * far (f->tab). */
static void jt_table(struct rs_file *f, struct rs_piece *c,
		     struct jt_work *w, uint64_t from, const struct jt_state *s)
{
	size_t lo = 0, hi = f->ntab, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (f->tab[m].from < from)
			lo = m + 1;
		else
			hi = m;
	}
	for (; lo < f->ntab && f->tab[lo].from == from; lo++)
		jt_prop(f, c, w, f->tab[lo].to, s);
}

/* Step over the block that starts at instruction @i0 of piece @c, then
 * along each path out of it (jt_prop(), jt_table()). */
static void jt_block(struct rs_file *f, csh h, cs_insn *in,
		     struct rs_piece *c, struct jt_work *w, size_t i0)
{
	struct jt_state s = c->st[c->blk[i0]], t;
	const cs_x86_op *op;
	size_t i;

	for (i = i0; i < c->nins; i++) {
		if (i > i0 && c->blk[i] >= 0) {
			jt_prop(f, c, w, c->ins[i], &s); /* falls through */
			return;
		}
		if (!decode_at(h, c, c->ins[i], in))
			return;
		op = in->detail->x86.op_count ? &in->detail->x86.operands[0] :
						NULL;
		if (in->id == X86_INS_JMP && op && op->type == X86_OP_IMM) {
			jt_prop(f, c, w, (uint64_t)op->imm, &s);
			return;
		}
		if (in->id == X86_INS_JMP) {
			jt_table(f, c, w, in->address, &s);
			return;
		}
		if (c->brk[i] && !cs_insn_group(h, in, X86_GRP_JUMP))
			return; /* a ret */
		jt_xfer(h, in, &s);
		if (c->brk[i] && op && op->type == X86_OP_IMM) {
			t = s;
			jt_refine(in, &t, true);
			jt_prop(f, c, w, (uint64_t)op->imm, &t);
			jt_refine(in, &s, false);
		}
	}
}

/*
 * jt_flow() - what holds at the start of each block of piece @c (c->st):
 * met over every path into it, from the piece's own jumps and tables,
 * from other pieces (f->ent, as their flows found it; their paths into
 * it met there), nothing at the function's entry.  0 or -ENOMEM; c->st
 * stays NULL (and f->blind true) when the piece is too large to follow.
 */
static int jt_flow(struct rs_file *f, struct rs_piece *c, csh h,
		   cs_insn *in)
{
	struct jt_work w = { 0 };
	uint64_t *to = NULL; /* the tables' targets, sorted */
	size_t i, visits = 0;
	int32_t b;
	int ret = -ENOMEM;

	c->blk = malloc(c->nins * sizeof(*c->blk));
	w.first = malloc(c->nins * sizeof(*w.first));
	to = malloc((f->ntab + 1) * sizeof(*to));
	if (!c->blk || !w.first || !to)
		goto out;
	for (i = 0; i < f->ntab; i++)
		to[i] = f->tab[i].to;
	qsort(to, f->ntab, sizeof(*to), cmp_off);
	for (i = 0; i < c->nins; i++) {
		bool lead = !i || c->brk[i - 1] ||
			    find_off(c->tg, c->ntg, c->ins[i]) >= 0 ||
			    ent_find(f, c->ins[i]) >= 0 ||
			    find_off(to, f->ntab, c->ins[i]) >= 0;

		c->blk[i] = -1;
		if (lead && c->nblk < JT_MAX_BLOCKS) {
			w.first[c->nblk] = i;
			c->blk[i] = (int32_t)c->nblk;
		}
		c->nblk += lead;
	}
	ret = 0;
	if (c->nblk > JT_MAX_BLOCKS)
		goto blind;
	ret = -ENOMEM;
	c->st = calloc(c->nblk, sizeof(*c->st));
	w.wl = malloc(c->nblk * sizeof(*w.wl));
	w.inwl = calloc(c->nblk, sizeof(*w.inwl));
	if (!c->st || !w.wl || !w.inwl)
		goto out;
	for (i = 0; i < c->nins; i++) {
		ssize_t e = ent_find(f, c->ins[i]);

		if (c->blk[i] < 0 || (e < 0 && (i || c->off != f->p[0].off)))
			continue;
		if (!i && c->off == f->p[0].off)
			jt_top(&c->st[c->blk[i]]); /* the function's entry */
		else
			c->st[c->blk[i]] = f->ent[e].st;
		w.inwl[c->blk[i]] = true;
		w.wl[w.nwl++] = c->blk[i];
	}
	while (w.nwl) {
		b = w.wl[--w.nwl];
		w.inwl[b] = false;
		if (++visits > JT_VISITS * c->nblk)
			goto blind;
		jt_block(f, h, in, c, &w, w.first[b]);
	}
	ret = 0;
	goto out;
blind:
	/* too large, or never settled: the paths it leads into other
	 * pieces are not all known, so nothing is known anywhere */
	free(c->st);
	c->st = NULL;
	f->changed |= !f->blind;
	f->blind = true;
out:
	free(to);
	free(w.first);
	free(w.wl);
	free(w.inwl);
	return ret;
}

/*
 * The return sites of piece @c into @v (@nv of them, @njmp of them tail
 * calls): 0, -ENOMEM, or -EOPNOTSUPP with @why.
 */
static int piece_sites(struct rs_file *f, const struct rs_piece *c, csh h,
		       cs_insn *in, uint64_t **v, size_t *nv, size_t *njmp,
		       char *why, size_t len)
{
	struct jt_state s;
	char e[256];
	size_t i;
	int r;

	jt_top(&s);
	for (i = 0; i < c->nins; i++) {
		if (!decode_at(h, c, c->ins[i], in))
			return -EOPNOTSUPP; /* piece_scan() decoded it */
		if (c->st && c->blk[i] >= 0) {
			if (c->st[c->blk[i]].reached)
				s = c->st[c->blk[i]];
			else
				jt_top(&s); /* no path into it seen */
		}
		r = classify(h, in, f, c, &s, why, len);
		if (r < 0)
			return r == -ENOMEM ? r : -EOPNOTSUPP;
		if (c->st)
			jt_xfer(h, in, &s);
		if (!r)
			continue;
		if (in->address == f->p[0].off) {
			util_set_err(why, len,
				     "it leaves at its first instruction (%s "
				     "%s), where its entry probe is",
				     in->mnemonic, in->op_str);
			return -EOPNOTSUPP;
		}
		if (sym_cache_insn_check(f->syms, f->path, in->address, e,
					 sizeof(e))) {
			util_set_err(why, len,
				     "its %s at %s%#llx has a prefix the "
				     "kernel refuses to probe",
				     in->mnemonic, REL(f, in->address));
			return -EOPNOTSUPP;
		}
		r = add_site(v, nv, in->address);
		if (r == -ENOMEM)
			return r;
		if (r) {
			util_set_err(why, len, "more than %d return sites",
				     RETSITE_MAX);
			return -EOPNOTSUPP;
		}
		if (in->id == X86_INS_JMP)
			(*njmp)++; /* a tail call */
	}
	return 0;
}

/*
 * The return sites of piece @k of the function (f->p) into @v (@nv of
 * them): 0, -ENOMEM, or -EOPNOTSUPP with @why.
 */
static int part_sites(struct rs_file *f, size_t k, csh h, cs_insn *in,
		      uint64_t **v, size_t *nv, size_t *njmp, char *why,
		      size_t len)
{
	struct rs_piece c = { .off = f->p[k].off, .size = f->p[k].size };
	uint64_t lo, hi;
	uint8_t *buf = NULL;
	ssize_t got;
	int ret = -EOPNOTSUPP;

	if (!c.size) {
		/* no size in the symbol: the .eh_frame FDE that starts
		 * there says where the function ends */
		if (fde_range(f, c.off, &lo, &hi) || lo != c.off) {
			util_set_err(why, len,
				     k ? "its cold part's symbol has no size, and no .eh_frame entry starts there" :
					 "its symbol has no size and no .eh_frame entry starts at it, so its end is unknown");
			return -EOPNOTSUPP;
		}
		c.size = f->p[k].size = hi - lo;
	}
	if (c.size > RETSITE_MAX_CODE) {
		util_set_err(why, len, "%llu bytes of code, more than %u",
			     (unsigned long long)c.size, RETSITE_MAX_CODE);
		return -EOPNOTSUPP;
	}
	buf = malloc(c.size);
	if (!buf)
		return -ENOMEM;
	got = pread(f->fd, buf, c.size, (off_t)c.off);
	if (got != (ssize_t)c.size) {
		util_set_err(why, len, "its %llu bytes could not be read",
			     (unsigned long long)c.size);
		goto out;
	}
	c.buf = buf;
	ret = piece_scan(f, &c, k > 0, h, in, why, len);
	if (!ret && f->indirect && !f->blind)
		ret = jt_flow(f, &c, h, in);
	if (!ret)
		ret = piece_sites(f, &c, h, in, v, nv, njmp, why, len);
out:
	piece_free(&c);
	free(buf);
	return ret;
}

/*
 * The sites of every piece of @f into *@v (*@nv, *@nj of them tail
 * calls), read again while that finds paths it did not know before
 * (f->ent: jumps between pieces; f->tab: tables' targets; f->blind): what
 * holds at each block is then met over every path into it.  0, -ENOMEM,
 * -EOPNOTSUPP with @why.
 */
static int all_sites(struct rs_file *f, csh h, cs_insn *in, uint64_t **v,
		     size_t *nv, size_t *nj, char *why, size_t len)
{
	int ret, rounds = 0;
	size_t k;

	do {
		f->changed = false;
		*nv = 0;
		*nj = 0;
		/* f->np grows as jumps reach pieces elsewhere (adopt()) */
		for (k = 0, ret = 0; k < f->np && !ret; k++)
			ret = part_sites(f, k, h, in, v, nv, nj, why, len);
		/* a failure too: a block reached only from a table read
		 * since knew nothing, as if no path led into it */
		if (f->nomem)
			return -ENOMEM;
		if (++rounds == JT_ROUNDS && !f->blind) {
			/* never settled: give up, knowing nothing */
			f->blind = true;
			f->changed = true;
		}
	} while (ret != -ENOMEM && f->changed);
	return ret;
}

struct retsite_ctx {
	struct sym_cache *syms; /* the caller's */
	csh h; /* Capstone, with details: opened on first use */
	cs_insn *in;
	int state; /* 0: not opened yet, 1: open, -1: Capstone failed */
};

/* Capstone for x86-64 with details into *@h, *@in; 0 or -1. */
static int cs_start(csh *h, cs_insn **in)
{
	*h = 0;
	*in = NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, h) != CS_ERR_OK ||
	    cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(*in = cs_malloc(*h)))
		return -1;
	return 0;
}

static void cs_stop(csh *h, cs_insn *in)
{
	if (in)
		cs_free(in, 1);
	if (*h)
		cs_close(h);
}

struct retsite_ctx *retsite_ctx_new(struct sym_cache *syms)
{
	struct retsite_ctx *x = calloc(1, sizeof(*x));

	if (x)
		x->syms = syms;
	return x;
}

void retsite_ctx_free(struct retsite_ctx *x)
{
	if (!x)
		return;
	cs_stop(&x->h, x->in);
	free(x);
}

/* What rs_with() runs on the function, once its file is open: 0 or
 * -errno with @why. */
typedef int (*rs_fn)(struct rs_file *f, csh h, cs_insn *in, void *arg,
		     char *why, size_t len);

/*
 * rs_with() - @fn on the function whose code is the @nparts pieces @parts
 * of @path, its file open (the planner's cache's, else its own), its
 * function starts read and Capstone open (@x's, else its own).  Returns
 * what @fn does, or -EOPNOTSUPP (the file, Capstone) or -ENOMEM.
 */
static int rs_with(struct retsite_ctx *x, const char *path,
		   const struct retsite_code *parts, size_t nparts, rs_fn fn,
		   void *arg, char *why, size_t len)
{
	struct sym_cache *syms = x ? x->syms : NULL;
	struct rs_file f = { .path = path, .syms = syms, .fd = -1,
			     .low = UINT64_MAX };
	uint64_t *own = NULL;
	const uint64_t *cached = NULL;
	bool borrowed;
	const char *w = "";
	cs_insn *in = NULL;
	struct stat st;
	csh h = 0;
	char e[256];
	int ret = -EOPNOTSUPP;

	if (!nparts || nparts > RETSITE_MAX_PARTS) {
		util_set_err(why, len, nparts ? "too many parts" : "no code");
		return -EOPNOTSUPP;
	}
	memcpy(f.p, parts, nparts * sizeof(*parts));
	f.np = nparts;
	/* the file as the planner's cache holds it open, else opened here */
	borrowed = syms && !sym_cache_elf(syms, path, &f.fd, &f.elf);
	if (!borrowed)
		f.fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &w);
	if (f.fd < 0) {
		util_set_err(why, len, "%s: %s", path, w);
		return -EOPNOTSUPP;
	}
	if (!borrowed && elf_version(EV_CURRENT) != EV_NONE)
		f.elf = elf_begin(f.fd, ELF_C_READ_MMAP, NULL);
	if (f.elf)
		f.cfi = dwarf_getcfi_elf(f.elf);
	/* the planner's cache reads them once per file */
	ret = syms ? sym_cache_func_starts(syms, path, &cached, &f.nstarts, e,
					   sizeof(e)) :
		     -EMFILE;
	f.starts = cached;
	if (ret == -EMFILE) {
		ret = sym_func_starts(path, &own, &f.nstarts, e, sizeof(e));
		f.starts = own;
	}
	if (ret == -ENOMEM)
		goto out;
	ret = -EOPNOTSUPP;
	/* one Capstone handle for all the caller's functions */
	if (x && !x->state)
		x->state = cs_start(&x->h, &x->in) ? -1 : 1;
	if (x) {
		h = x->h;
		in = x->in;
	}
	if (x ? x->state < 0 : cs_start(&h, &in)) {
		util_set_err(why, len, "the disassembler (Capstone) failed");
		goto out;
	}
	ret = fn(&f, h, in, arg, why, len);
out:
	if (!x)
		cs_stop(&h, in);
	free(own);
	free(f.ent);
	free(f.tab);
	if (f.cfi)
		dwarf_cfi_end(f.cfi);
	if (f.elf && !borrowed)
		elf_end(f.elf);
	if (!borrowed)
		close(f.fd);
	return ret;
}

/* retsite_find()'s outputs, for find_fn() */
struct find_out {
	uint64_t **sites;
	size_t *n, *njmp;
};

static int find_fn(struct rs_file *f, csh h, cs_insn *in, void *arg,
		   char *why, size_t len)
{
	struct find_out *o = arg;
	uint64_t *v = NULL;
	size_t nv = 0, nj = 0;
	int ret = all_sites(f, h, in, &v, &nv, &nj, why, len);

	if (ret) {
		free(v);
		return ret;
	}
	if (!nv) {
		free(v);
		util_set_err(why, len,
			     "it has no ret and no jmp out of it: it never "
			     "returns");
		return -ENOENT;
	}
	qsort(v, nv, sizeof(*v), cmp_off);
	*o->sites = v;
	*o->n = nv;
	if (o->njmp)
		*o->njmp = nj;
	return 0;
}

int retsite_find(struct retsite_ctx *x, const char *path,
		 const struct retsite_code *parts, size_t nparts,
		 uint64_t **sites, size_t *n, size_t *njmp, char *why,
		 size_t len)
{
	struct find_out o = { sites, n, njmp };

	*sites = NULL;
	*n = 0;
	return rs_with(x, path, parts, nparts, find_fn, &o, why, len);
}

/*
 * What the kernel does with instruction @in at a uprobe: 1 it emulates it
 * (x86 uprobes: call rel32, jmp rel8/rel32, jcc, a one-byte nop, without
 * prefixes; arch/x86/kernel/uprobes.c branch_setup_xol_ops()), 0 not.
 */
static bool split_emulated(const cs_insn *in)
{
	const uint8_t *b = in->bytes;

	if (in->size < 1)
		return false;
	return b[0] == 0xe8 || b[0] == 0xe9 || b[0] == 0xeb || b[0] == 0x90 ||
	       (b[0] >= 0x70 && b[0] <= 0x7f) ||
	       (in->size >= 2 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f);
}

/* Does @in write the stack pointer (rsp, esp, sp, spl)? */
static bool writes_sp(csh h, const cs_insn *in)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;

	if (in->id == X86_INS_INVALID ||
	    cs_regs_access(h, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true; /* unknown: taken as written */
	for (i = 0; i < nwr; i++)
		if (wr[i] == X86_REG_RSP || wr[i] == X86_REG_ESP ||
		    wr[i] == X86_REG_SP || wr[i] == X86_REG_SPL)
			return true;
	return false;
}

/*
 * How prologue instruction @in moves the stack pointer: the bytes it
 * pushes (push: 8; sub $imm,%rsp: imm; add $imm,%rsp: -imm) into *@d, 0
 * for one that does not write it; -1 for any other write of it, and for a
 * jump, call, ret or trap (the prologue ends there).
 */
static int split_step(csh h, const cs_insn *in, int64_t *d)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;

	*d = 0;
	if (cs_insn_group(h, in, X86_GRP_JUMP) ||
	    cs_insn_group(h, in, X86_GRP_CALL) ||
	    cs_insn_group(h, in, X86_GRP_RET) ||
	    cs_insn_group(h, in, X86_GRP_INT) ||
	    cs_insn_group(h, in, X86_GRP_IRET) || in->id == X86_INS_SYSCALL ||
	    in->id == X86_INS_UD2 || in->id == X86_INS_HLT)
		return -1;
	if (!writes_sp(h, in))
		return 0;
	if (in->id == X86_INS_PUSH && x->op_count == 1 && o[0].size == 8) {
		*d = 8;
		return 0;
	}
	if ((in->id == X86_INS_SUB || in->id == X86_INS_ADD) &&
	    x->op_count == 2 && o[0].type == X86_OP_REG &&
	    o[0].reg == X86_REG_RSP && o[1].type == X86_OP_IMM &&
	    o[1].imm > -65536 && o[1].imm < 65536) {
		*d = in->id == X86_INS_SUB ? o[1].imm : -o[1].imm;
		return 0;
	}
	return -1;
}

/* Most bytes retsite_split() reads from the entry. */
#define SPLIT_MAX_BYTES 256

/* retsite_split()'s outputs, for split_fn() */
struct split_out {
	uint64_t *site;
	uint32_t *adj;
};

static int split_fn(struct rs_file *f, csh h, cs_insn *in, void *arg,
		    char *why, size_t len)
{
	struct split_out *o = arg;
	uint8_t buf[SPLIT_MAX_BYTES];
	const uint8_t *code = buf;
	uint64_t *v = NULL, addr = f->p[0].off, size = f->p[0].size;
	size_t nv = 0, nj = 0, left, i, k;
	int64_t adj = 0, d;
	ssize_t got;
	int ret = all_sites(f, h, in, &v, &nv, &nj, why, len);

	free(v);
	if (ret)
		return ret;
	if (f->blind) {
		util_set_err(why, len, "a jump table it could not read");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < f->ntab; i++)
		if (f->tab[i].to > f->p[0].off && f->tab[i].to < f->low)
			f->low = f->tab[i].to;
	got = pread(f->fd, buf,
		    size && size < sizeof(buf) ? size : sizeof(buf),
		    (off_t)addr);
	if (got <= 0) {
		util_set_err(why, len, "its code could not be read");
		return -EOPNOTSUPP;
	}
	left = (size_t)got;
	for (k = 0; k < RETSITE_SPLIT_MAX_INSNS; k++) {
		uint64_t at = addr;

		if (!x86dec_next(h, &code, &left, &addr, in))
			break;
		if (split_emulated(in)) {
			if (!k) {
				util_set_err(why, len,
					     "its first instruction (%s) is "
					     "emulated", in->mnemonic);
				return -EALREADY;
			}
			if (in->id == X86_INS_JMP &&
			    !inside(f, (uint64_t)in->detail->x86.operands[0].imm)) {
				util_set_err(why, len,
					     "a jmp out of it at %s%#llx",
					     REL(f, at));
				return -EOPNOTSUPP;
			}
			if (f->low <= at) {
				util_set_err(why, len,
					     "a jump into its prologue, to %s%#llx",
					     REL(f, f->low));
				return -EOPNOTSUPP;
			}
			*o->site = at;
			*o->adj = (uint32_t)adj;
			return 0;
		}
		if (split_step(h, in, &d) || adj + d < 0 || adj + d > 65535) {
			util_set_err(why, len,
				     "%s%s%s at %s%#llx before any instruction "
				     "the kernel emulates",
				     in->mnemonic, in->op_str[0] ? " " : "",
				     in->op_str, REL(f, at));
			return -EOPNOTSUPP;
		}
		adj += d;
	}
	util_set_err(why, len,
		     "no instruction the kernel emulates in its first %zu",
		     k);
	return -EOPNOTSUPP;
}

int retsite_split(struct retsite_ctx *x, const char *path,
		  const struct retsite_code *parts, size_t nparts,
		  uint64_t *site, uint32_t *adj, char *why, size_t len)
{
	struct split_out o = { site, adj };

	*site = 0;
	*adj = 0;
	return rs_with(x, path, parts, nparts, split_fn, &o, why, len);
}

#else /* !__x86_64__ */

struct retsite_ctx {
	struct sym_cache *syms;
};

struct retsite_ctx *retsite_ctx_new(struct sym_cache *syms)
{
	struct retsite_ctx *x = calloc(1, sizeof(*x));

	if (x)
		x->syms = syms;
	return x;
}

void retsite_ctx_free(struct retsite_ctx *x)
{
	free(x);
}

int retsite_find(struct retsite_ctx *x, const char *path,
		 const struct retsite_code *parts, size_t nparts,
		 uint64_t **sites, size_t *n, size_t *njmp, char *why,
		 size_t len)
{
	(void)x;
	(void)path;
	(void)njmp;
	(void)parts;
	(void)nparts;
	*sites = NULL;
	*n = 0;
	util_set_err(why, len, "return sites are found on x86-64 only");
	return -EOPNOTSUPP;
}

int retsite_split(struct retsite_ctx *x, const char *path,
		  const struct retsite_code *parts, size_t nparts,
		  uint64_t *site, uint32_t *adj, char *why, size_t len)
{
	(void)x;
	(void)path;
	(void)parts;
	(void)nparts;
	*site = 0;
	*adj = 0;
	util_set_err(why, len, "entries are split on x86-64 only");
	return -EOPNOTSUPP;
}

#endif
