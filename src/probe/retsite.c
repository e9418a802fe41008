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

#if defined(__x86_64__)
#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <gelf.h>

/* Most pieces one function's code is read in: its symbol's, its cold
 * part, and the .eh_frame ranges its jumps reach (retsite_find()). */
#define RETSITE_MAX_PARTS 8

/* What retsite_find() reads a function's file with: its ELF image, for
 * the load segments (file offsets <-> addresses), .eh_frame (libdw) and
 * jump tables (.rodata), and where its functions start. */
struct rs_file {
	const char *path;
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi; /* NULL: no .eh_frame */
	uint64_t *starts; /* sym_func_starts(), virtual addresses */
	size_t nstarts;
	struct retsite_code p[RETSITE_MAX_PARTS];
	size_t np;
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

/* The .eh_frame FDE that covers file offset @off: its code as file
 * offsets [*@lo, *@hi).  0, or -1 when none does. */
static int fde_range(const struct rs_file *f, uint64_t off, uint64_t *lo,
		     uint64_t *hi)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr s, e;
	int64_t a = to_addr(f, off), so, eo;

	if (!f->cfi || a < 0 || dwarf_cfi_addrframe(f->cfi, (Dwarf_Addr)a, &fr))
		return -1;
	if (dwarf_frame_info(fr, &s, &e, NULL) < 0) {
		free(fr);
		return -1;
	}
	free(fr);
	so = to_off(f, s);
	eo = to_off(f, e - 1);
	if (so < 0 || eo < so)
		return -1;
	*lo = (uint64_t)so;
	*hi = (uint64_t)eo + 1;
	return 0;
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
 * a symbol; a local function of a stripped file jumped to is taken in
 * as well, and its returns, matched by stack pointer (timer_stop()), are
 * then the real returns of the timed call.
 */
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

/* The 16 general registers, 64- and 32-bit names, by number 0-15. */
static const x86_reg gpr64[16] = {
	X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
	X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
	X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
	X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
};
static const x86_reg gpr32[16] = {
	X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
	X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI,
	X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
	X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D,
};

/* @r's number (0-15) and *@w32 whether it is the 32-bit name; -1 for
 * another register (8-, 16-bit ones included). */
static int gpr(x86_reg r, bool *w32)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (gpr64[i] == r || gpr32[i] == r) {
			if (w32)
				*w32 = gpr32[i] == r;
			return i;
		}
	}
	return -1;
}

/*
 * What the instructions since the last jump target say of each register,
 * for the one jump-table shape compilers emit for a switch in
 * position-independent code (GCC, Clang: -fPIC, -fPIE):
 *	cmp $N, %idx;  ja default        %idx <= N from here
 *	lea T(%rip), %base               %base = T (a table in .rodata)
 *	mov %idx32, %idx32               (zero-extends a 32-bit compare)
 *	movslq (%base,%idx,4), %dst      %dst = T[idx] (int32)
 *	add %base, %dst                  %dst = T + T[idx]
 *	jmp *%dst
 * Any other write to a register forgets what was known of it.
 */
struct jt_reg {
	int64_t bound; /* its value is at most this (unsigned); -1: unknown */
	bool bound32; /* the bound is of the low 32 bits alone */
	int64_t lea; /* it holds this file-offset-space address, -1: no */
	int64_t table; /* T[idx] or T + T[idx] with this T, -1: no */
	int64_t n; /* entries of that table that idx may pick */
	bool target; /* it holds T + T[idx] */
};

struct jt_state {
	struct jt_reg r[16];
	int cmp_reg; /* a cmp $imm, %reg just before: its register, -1 */
	bool cmp32;
	int64_t cmp_imm;
};

static void jt_reset(struct jt_state *s)
{
	int i;

	for (i = 0; i < 16; i++)
		s->r[i] = (struct jt_reg){ -1, false, -1, -1, 0, false };
	s->cmp_reg = -1;
}

/* Forget the registers @in writes (Capstone's regs_access). */
static void jt_clobber(csh h, const cs_insn *in, struct jt_state *s)
{
	cs_regs rr, wr;
	uint8_t nr, nw, i;
	int g;

	if (cs_regs_access(h, in, rr, &nr, wr, &nw)) {
		jt_reset(s);
		return;
	}
	for (i = 0; i < nw; i++) {
		g = gpr(wr[i], NULL);
		if (g < 0) {
			/* an 8- or 16-bit part: forget it all */
			if (wr[i] != X86_REG_EFLAGS && wr[i] != X86_REG_RIP)
				jt_reset(s);
			continue;
		}
		s->r[g] = (struct jt_reg){ -1, false, -1, -1, 0, false };
	}
}

/*
 * jt_jump() - jmp *%reg at @in (its operand @o0): a jump table jt_step()
 * tracked, every entry of which lands inside the function (1), or no
 * table it can read: -1 with why.  0 for a jmp that is no indirect one.
 */
static int jt_jump(const cs_insn *in, struct rs_file *f, struct jt_state *s,
		   const cs_x86_op *o0, char *why, size_t len)
{
	bool w32 = false;
	int64_t toff, e;
	int32_t v;
	int g, i;

	if (!o0 || o0->type != X86_OP_REG)
		return 0;
	g = gpr(o0->reg, &w32);
	if (g < 0 || w32 || !s->r[g].target || s->r[g].n <= 0 ||
	    s->r[g].n > 4096) {
		util_set_err(why, len,
			     "an indirect jmp at +%#llx (%s %s) that is "
			     "no bounded jump table iprof can read: a "
			     "jump table or a tail call, iprof cannot "
			     "tell",
			     (unsigned long long)(in->address -
						  f->p[0].off),
			     in->mnemonic, in->op_str);
		return -1;
	}
	/* T is in the code's file-offset space: its address is the
	 * code's delta away, and its bytes where that address is */
	e = to_addr(f, in->address);
	if (e < 0)
		goto unread;
	e -= (int64_t)in->address; /* address - offset of the code */
	toff = to_off(f, (uint64_t)(s->r[g].table + e));
	if (toff < 0)
		goto unread;
	for (i = 0; i < s->r[g].n; i++) {
		if (pread(f->fd, &v, sizeof(v), toff + 4 * i) !=
		    sizeof(v))
			goto unread;
		if (!adopt(f, (uint64_t)(s->r[g].table + v))) {
			util_set_err(why, len,
				     "its jump table at +%#llx (%s %s) "
				     "has entry %d jumping out of it, "
				     "to %#llx",
				     (unsigned long long)(in->address -
							  f->p[0].off),
				     in->mnemonic, in->op_str, i,
				     (unsigned long long)(s->r[g].table +
							  v));
			return -1;
		}
	}
	return 1;
unread:
	util_set_err(why, len,
		     "the jump table of its jmp at +%#llx (%s %s) "
		     "could not be read",
		     (unsigned long long)(in->address - f->p[0].off),
		     in->mnemonic, in->op_str);
	return -1;
}

/*
 * Step the jump-table tracking over instruction @in (@f for its
 * addresses).  At a jmp *%reg that it proved to be such a table's, reads
 * the @n entries from the file and checks that every target lies in the
 * function (adopt()): 1 when they all do, 0 for any other instruction,
 * -1 at a jmp *%reg it cannot prove so (@why says why).
 */
static int jt_step(csh h, const cs_insn *in, struct rs_file *f,
		   struct jt_state *s, char *why, size_t len)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o0 = x->op_count > 0 ? &x->operands[0] : NULL;
	const cs_x86_op *o1 = x->op_count > 1 ? &x->operands[1] : NULL;
	int cmp_reg = s->cmp_reg, g, b, i;
	bool w32 = false, w32b = false;

	s->cmp_reg = -1;
	switch (in->id) {
	case X86_INS_CMP:
		/* AT&T cmp $N, %r: Capstone gives Intel order, r first */
		if (o0 && o1 && o0->type == X86_OP_REG &&
		    o1->type == X86_OP_IMM && o1->imm >= 0 &&
		    (g = gpr(o0->reg, &w32)) >= 0) {
			s->cmp_reg = g;
			s->cmp32 = w32;
			s->cmp_imm = o1->imm;
		}
		return 0;
	case X86_INS_JA:
	case X86_INS_JAE:
		/* the fall-through: idx <= N (ja), idx < N (jae) */
		if (cmp_reg >= 0) {
			s->r[cmp_reg].bound = s->cmp_imm -
					      (in->id == X86_INS_JAE);
			s->r[cmp_reg].bound32 = s->cmp32;
		}
		return 0;
	case X86_INS_LEA:
		if (o0 && o1 && o0->type == X86_OP_REG &&
		    (g = gpr(o0->reg, &w32)) >= 0 && !w32 &&
		    o1->type == X86_OP_MEM && o1->mem.base == X86_REG_RIP &&
		    o1->mem.index == X86_REG_INVALID) {
			s->r[g] = (struct jt_reg){ -1, false, -1, -1, 0, false };
			s->r[g].lea = (int64_t)(in->address + in->size) +
				      o1->mem.disp;
			return 0;
		}
		break;
	case X86_INS_MOV:
		/* mov %e, %e: zero-extends, keeps the bound */
		if (o0 && o1 && o0->type == X86_OP_REG &&
		    o1->type == X86_OP_REG && o0->reg == o1->reg &&
		    (g = gpr(o0->reg, &w32)) >= 0 && w32) {
			struct jt_reg k = s->r[g];

			s->r[g] = (struct jt_reg){ -1, false, -1, -1, 0, false };
			s->r[g].bound = k.bound;
			return 0;
		}
		break;
	case X86_INS_MOVSXD:
		if (o0 && o1 && o0->type == X86_OP_REG &&
		    (g = gpr(o0->reg, &w32)) >= 0 && !w32 &&
		    o1->type == X86_OP_MEM && o1->mem.scale == 4 &&
		    !o1->mem.disp && o1->mem.segment == X86_REG_INVALID &&
		    (b = gpr(o1->mem.base, &w32b)) >= 0 && !w32b &&
		    (i = gpr(o1->mem.index, &w32b)) >= 0 && !w32b &&
		    s->r[b].lea >= 0 && s->r[i].bound >= 0 &&
		    !s->r[i].bound32) {
			int64_t t = s->r[b].lea, n = s->r[i].bound + 1;

			s->r[g] = (struct jt_reg){ -1, false, -1, t, n, false };
			return 0;
		}
		break;
	case X86_INS_ADD:
		if (o0 && o1 && o0->type == X86_OP_REG &&
		    o1->type == X86_OP_REG &&
		    (g = gpr(o0->reg, &w32)) >= 0 && !w32 &&
		    (b = gpr(o1->reg, &w32b)) >= 0 && !w32b &&
		    s->r[g].table >= 0 && !s->r[g].target &&
		    s->r[b].lea == s->r[g].table) {
			s->r[g].target = true;
			return 0;
		}
		break;
	case X86_INS_JMP:
		return jt_jump(in, f, s, o0, why, len);
	default:
		break;
	}
	jt_clobber(h, in, s);
	return 0;
}

/*
 * What instruction @in of piece @k means for the function: 1 a return
 * site, 0 not one, -1 undecidable (@why says why).  A jump into another
 * piece (the function's .cold part) stays inside the function.
 */
static int classify(csh h, const cs_insn *in, struct rs_file *f,
		    struct jt_state *jt, char *why, size_t len)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *op = x->op_count ? &x->operands[0] : NULL;
	uint64_t lo = f->p[0].off, t;
	int c;

	switch (in->id) {
	case X86_INS_RET:
		return 1;
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_LJMP:
		util_set_err(why, len, "a far %s at +%#llx", in->mnemonic,
			     (unsigned long long)(in->address - lo));
		return -1;
	case X86_INS_JMP:
		if (!op)
			break;
		if (op->type == X86_OP_IMM) {
			t = (uint64_t)op->imm;
			return !adopt(f, t); /* outside: a tail call */
		}
		if (op->type == X86_OP_MEM && op->mem.index == X86_REG_INVALID)
			/* jmp *8(%rdi), jmp *foo@GOTPCREL(%rip): a tail
			 * call */
			return 1;
		if (op->type == X86_OP_MEM && op->mem.base == X86_REG_INVALID &&
		    op->mem.disp)
			/* jmp *TABLE(,%rax,8): a non-PIC switch's table */
			return 0;
		if (op->type == X86_OP_MEM) {
			/* jmp *(%rdx,%rax,8): a table of function pointers
			 * (a tail call) or of labels (a switch): iprof
			 * cannot tell */
			util_set_err(why, len,
				     "an indirect jmp at +%#llx (%s %s) through a table iprof cannot read: a tail call or a jump table",
				     (unsigned long long)(in->address - lo),
				     in->mnemonic, in->op_str);
			return -1;
		}
		/* jmp *%rax: -fcf-protection marks jump tables notrack */
		if (has_prefix(in, 0x3e))
			return 0;
		c = jt_step(h, in, f, jt, why, len);
		return c < 0 ? -1 : 0;
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
				     "a conditional jump out of it at +%#llx "
				     "(%s %#llx): a probe there fires whether "
				     "or not it is taken",
				     (unsigned long long)(in->address - lo),
				     in->mnemonic,
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

/* Is file offset @a the target of a direct jump of the @n instructions'
 * targets @tg (sorted)? */
static bool is_target(const uint64_t *tg, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (tg[m] == a)
			return true;
		if (tg[m] < a)
			lo = m + 1;
		else
			hi = m;
	}
	return false;
}

static int cmp_off(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The return sites of piece @k of the function (f->p) into @v (@nv of
 * them): 0, -ENOMEM, or -EOPNOTSUPP with @why.
 */
static int part_sites(struct rs_file *f, size_t k, csh h, cs_insn *in,
		      uint64_t **v, size_t *nv, size_t *njmp, char *why,
		      size_t len)
{
	uint64_t off = f->p[k].off, size = f->p[k].size, addr, lo, hi;
	uint64_t *tg = NULL;
	size_t ntg = 0;
	const uint8_t *code;
	uint8_t *buf = NULL;
	const cs_x86_op *op;
	struct jt_state jt;
	size_t left;
	ssize_t got;
	int c, pass, ret = -EOPNOTSUPP;
	char e[256];

	if (!size) {
		/* no size in the symbol: the .eh_frame FDE that starts
		 * there says where the function ends */
		if (fde_range(f, off, &lo, &hi) || lo != off) {
			util_set_err(why, len,
				     k ? "its cold part's symbol has no size, and no .eh_frame entry starts there" :
					 "its symbol has no size and no .eh_frame entry starts at it, so its end is unknown");
			return -EOPNOTSUPP;
		}
		size = f->p[k].size = hi - lo;
	}
	if (size > RETSITE_MAX_CODE) {
		util_set_err(why, len, "%llu bytes of code, more than %u",
			     (unsigned long long)size, RETSITE_MAX_CODE);
		return -EOPNOTSUPP;
	}
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	got = pread(f->fd, buf, size, (off_t)off);
	if (got != (ssize_t)size) {
		util_set_err(why, len, "its %llu bytes could not be read",
			     (unsigned long long)size);
		goto out;
	}
	/* pass 0: where its direct jumps land (the jump-table tracking
	 * starts over there); pass 1: the sites */
	for (pass = 0; pass < 2; pass++) {
		code = buf;
		left = size;
		addr = off;
		jt_reset(&jt);
		while (left) {
			if (!cs_disasm_iter(h, &code, &left, &addr, in)) {
				util_set_err(why, len,
					     "bytes at +%#llx%s that are no x86-64 "
					     "instruction (data in the code?)",
					     (unsigned long long)(addr - off),
					     k ? " of a part elsewhere" : "");
				goto out;
			}
			op = in->detail->x86.op_count ?
				     &in->detail->x86.operands[0] : NULL;
			if (!pass) {
				if (cs_insn_group(h, in, X86_GRP_JUMP) && op &&
				    op->type == X86_OP_IMM) {
					if (util_grow(&tg, ntg, sizeof(*tg))) {
						ret = -ENOMEM;
						goto out;
					}
					tg[ntg++] = (uint64_t)op->imm;
				}
				continue;
			}
			if (is_target(tg, ntg, in->address))
				jt_reset(&jt);
			if (in->id != X86_INS_JMP &&
			    jt_step(h, in, f, &jt, why, len) < 0)
				goto out;
			c = classify(h, in, f, &jt, why, len);
			if (c < 0)
				goto out;
			/* no fall-through after these (nothing known of what
			 * a jump table or a return lands on), and a call
			 * clobbers what the ABI lets it */
			if (in->id == X86_INS_JMP || in->id == X86_INS_RET ||
			    in->id == X86_INS_CALL)
				jt_reset(&jt);
			if (!c)
				continue;
			if (in->address == f->p[0].off) {
				util_set_err(why, len,
					     "it leaves at its first instruction (%s "
					     "%s), where its entry probe is",
					     in->mnemonic, in->op_str);
				goto out;
			}
			if (sym_insn_check(f->path, in->address, e, sizeof(e))) {
				util_set_err(why, len,
					     "its %s at +%#llx has a prefix the "
					     "kernel refuses to probe",
					     in->mnemonic,
					     (unsigned long long)(in->address - off));
				goto out;
			}
			c = add_site(v, nv, in->address);
			if (!c && in->id == X86_INS_JMP)
				(*njmp)++; /* a tail call */
			if (c == -ENOMEM) {
				ret = -ENOMEM;
				goto out;
			}
			if (c) {
				util_set_err(why, len, "more than %d return sites",
					     RETSITE_MAX);
				goto out;
			}
		}
		if (!pass && ntg)
			qsort(tg, ntg, sizeof(*tg), cmp_off);
	}
	ret = 0;
out:
	free(tg);
	free(buf);
	return ret;
}

int retsite_find(const char *path, const struct retsite_code *parts,
		 size_t nparts, uint64_t **sites, size_t *n, size_t *njmp,
		 char *why, size_t len)
{
	struct rs_file f = { .path = path, .fd = -1 };
	const char *w = "";
	cs_insn *in = NULL;
	uint64_t *v = NULL;
	size_t nv = 0, nj = 0, k;
	struct stat st;
	csh h = 0;
	char e[256];
	int ret = -EOPNOTSUPP;

	*sites = NULL;
	*n = 0;
	if (!nparts || nparts > RETSITE_MAX_PARTS) {
		util_set_err(why, len, nparts ? "too many parts" : "no code");
		return -EOPNOTSUPP;
	}
	memcpy(f.p, parts, nparts * sizeof(*parts));
	f.np = nparts;
	f.fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &w);
	if (f.fd < 0) {
		util_set_err(why, len, "%s: %s", path, w);
		return -EOPNOTSUPP;
	}
	if (elf_version(EV_CURRENT) != EV_NONE)
		f.elf = elf_begin(f.fd, ELF_C_READ_MMAP, NULL);
	if (f.elf)
		f.cfi = dwarf_getcfi_elf(f.elf);
	ret = sym_func_starts(path, &f.starts, &f.nstarts, e, sizeof(e));
	if (ret == -ENOMEM)
		goto out;
	ret = -EOPNOTSUPP;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK ||
	    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(in = cs_malloc(h))) {
		util_set_err(why, len, "the disassembler (Capstone) failed");
		goto out;
	}
	/* f.np grows as jumps reach pieces elsewhere (adopt()) */
	for (k = 0; k < f.np; k++) {
		ret = part_sites(&f, k, h, in, &v, &nv, &nj, why, len);
		if (ret)
			goto out;
	}
	ret = -EOPNOTSUPP;
	if (!nv) {
		util_set_err(why, len,
			     "it has no ret and no jmp out of it: it never "
			     "returns");
		ret = -ENOENT;
		goto out;
	}
	qsort(v, nv, sizeof(*v), cmp_off);
	*sites = v;
	*n = nv;
	if (njmp)
		*njmp = nj;
	v = NULL;
	ret = 0;
out:
	if (in)
		cs_free(in, 1);
	if (h)
		cs_close(&h);
	free(v);
	free(f.starts);
	if (f.cfi)
		dwarf_cfi_end(f.cfi);
	if (f.elf)
		elf_end(f.elf);
	close(f.fd);
	return ret;
}

#else /* !__x86_64__ */

int retsite_find(const char *path, const struct retsite_code *parts,
		 size_t nparts, uint64_t **sites, size_t *n, size_t *njmp,
		 char *why, size_t len)
{
	(void)path;
	(void)njmp;
	(void)parts;
	(void)nparts;
	*sites = NULL;
	*n = 0;
	util_set_err(why, len, "return sites are found on x86-64 only");
	return -EOPNOTSUPP;
}

#endif
