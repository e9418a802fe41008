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

/* The virtual address of part @p (its file offset when unknown). */
static uint64_t vaddr(const struct retsite_code *p)
{
	return p->addr ? p->addr : p->off;
}

/* Is virtual address @t in one of the function's @np parts @p? */
static bool inside(const struct retsite_code *p, size_t np, uint64_t t)
{
	size_t i;

	for (i = 0; i < np; i++)
		if (t >= vaddr(&p[i]) && t < vaddr(&p[i]) + p[i].size)
			return true;
	return false;
}

/*
 * What instruction @in of part @lo (offsets in messages from it) means
 * for the function whose code is the @np parts @p: 1 a return site, 0 not
 * one, -1 undecidable (@why says why).  A jump into another part (the
 * function's .cold part) stays inside the function.
 */
static int classify(csh h, const cs_insn *in, const struct retsite_code *p,
		    size_t np, uint64_t lo, char *why, size_t len)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *op = x->op_count ? &x->operands[0] : NULL;
	uint64_t t;

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
			return !inside(p, np, t); /* a tail call */
		}
		if (op->type == X86_OP_MEM)
			/* jmp *table(,%rax,8): a jump table; jmp *8(%rdi),
			 * jmp *foo@GOTPCREL(%rip): a tail call */
			return op->mem.index == X86_REG_INVALID;
		/* jmp *%rax: -fcf-protection marks jump tables notrack */
		if (has_prefix(in, 0x3e))
			return 0;
		util_set_err(why, len,
			     "an indirect jmp at +%#llx (%s %s): a jump table "
			     "or a tail call, iprof cannot tell",
			     (unsigned long long)(in->address - lo),
			     in->mnemonic, in->op_str);
		return -1;
	default:
		break;
	}
	if (cs_insn_group(h, in, X86_GRP_JUMP) && op &&
	    op->type == X86_OP_IMM) {
		/* jcc, loop, jrcxz: a uprobe on it fires taken or not */
		t = (uint64_t)op->imm;
		if (!inside(p, np, t)) {
			util_set_err(why, len,
				     "a conditional jump out of it at +%#llx "
				     "(%s %s): a probe there fires whether "
				     "or not it is taken",
				     (unsigned long long)(in->address - lo),
				     in->mnemonic, in->op_str);
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

/*
 * The return sites of part @k of the function (@p, @np parts) into @v
 * (@nv of them): 0, -ENOMEM, or -EOPNOTSUPP with @why.
 */
static int part_sites(const char *path, const struct retsite_code *p,
		      size_t np, size_t k, csh h, cs_insn *in, uint64_t **v,
		      size_t *nv, size_t *njmp, char *why, size_t len)
{
	uint64_t off = p[k].off, size = p[k].size, base = vaddr(&p[k]), addr;
	const uint8_t *code;
	uint8_t *buf;
	const char *w = "";
	struct stat st;
	size_t left;
	ssize_t got;
	int fd, c, ret = -EOPNOTSUPP;
	char e[256];

	if (!size) {
		util_set_err(why, len,
			     k ? "its cold part's symbol has no size" :
				 "its symbol has no size, so its end is unknown");
		return -EOPNOTSUPP;
	}
	if (size > RETSITE_MAX_CODE) {
		util_set_err(why, len, "%llu bytes of code, more than %u",
			     (unsigned long long)size, RETSITE_MAX_CODE);
		return -EOPNOTSUPP;
	}
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	fd = util_open_read(path, UTIL_OPEN_REGULAR, &st, &w);
	got = fd < 0 ? -1 : pread(fd, buf, size, (off_t)off);
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)size) {
		util_set_err(why, len, "its %llu bytes could not be read",
			     (unsigned long long)size);
		goto out;
	}
	/* disassembled at its virtual addresses: the jump targets that
	 * Capstone prints (op_str) are addresses, as objdump shows them */
	code = buf;
	left = size;
	addr = base;
	while (left) {
		if (!cs_disasm_iter(h, &code, &left, &addr, in)) {
			util_set_err(why, len,
				     "bytes at +%#llx%s that are no x86-64 "
				     "instruction (data in the code?)",
				     (unsigned long long)(addr - base),
				     k ? " of its cold part" : "");
			goto out;
		}
		c = classify(h, in, p, np, base, why, len);
		if (c < 0)
			goto out;
		if (!c)
			continue;
		if (in->address == vaddr(&p[0])) {
			util_set_err(why, len,
				     "it leaves at its first instruction (%s "
				     "%s), where its entry probe is",
				     in->mnemonic, in->op_str);
			goto out;
		}
		if (sym_insn_check(path, in->address - base + off, e,
				   sizeof(e))) {
			util_set_err(why, len,
				     "its %s at +%#llx has a prefix the "
				     "kernel refuses to probe",
				     in->mnemonic,
				     (unsigned long long)(in->address - base));
			goto out;
		}
		c = add_site(v, nv, in->address - base + off);
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
	ret = 0;
out:
	free(buf);
	return ret;
}

int retsite_find(const char *path, const struct retsite_code *parts,
		 size_t nparts, uint64_t **sites, size_t *n, size_t *njmp,
		 char *why, size_t len)
{
	cs_insn *in = NULL;
	uint64_t *v = NULL;
	size_t nv = 0, nj = 0, k;
	csh h = 0;
	int ret = -EOPNOTSUPP;

	*sites = NULL;
	*n = 0;
	if (!nparts) {
		util_set_err(why, len, "no code");
		return -EOPNOTSUPP;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK ||
	    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    !(in = cs_malloc(h))) {
		util_set_err(why, len, "the disassembler (Capstone) failed");
		goto out;
	}
	for (k = 0; k < nparts; k++) {
		ret = part_sites(path, parts, nparts, k, h, in, &v, &nv, &nj,
				 why, len);
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
