// SPDX-License-Identifier: GPL-2.0-only
/*
 * The caller's code as a graph (struct graph): the instructions of a
 * function's address ranges decoded with Capstone into nodes (falls
 * through, jumps, conditional jumps, returns, tail calls, indirect jumps,
 * ends), with their successors and predecessors, a kernel module's
 * relocated jumps and jump labels applied (inl_graph_build()), for
 * inline_plan.c to find an inlined instance's entry and exits in.
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
#include "probe/x86dec.h"

int inl_node_at(const struct graph *g, uint64_t a)
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

void inl_graph_free(struct graph *g)
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

bool inl_in_ranges(const uint64_t (*r)[2], size_t nr, uint64_t a)
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
	const struct inl_jl *j = inl_jl_at(nd->addr);

	if ((nd->kind == N_JMP || nd->kind == N_JCC) && nd->size >= 5)
		r = inl_rel_at(nd->addr + nd->size - 4);
	/* the kernel image, linked: a jump to the return thunk is a ret
	 * (a conditional one leaves) */
	if (inl_cache.thunk && nd->target == inl_cache.thunk && nd->kind == N_JMP)
		nd->kind = N_RET;
	else if (inl_cache.thunk && nd->target == inl_cache.thunk &&
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
int inl_graph_build(struct graph *g, const uint64_t (*r)[2], size_t nr, char *why,
		size_t len)
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
		int64_t off = inl_to_off(r[i][0]);
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
		    pread(inl_cache.fd, buf, left, (off_t)off) != (ssize_t)left) {
			util_set_err(why, len,
				     "its caller's code at %#llx is not in the file",
				     (unsigned long long)r[i][0]);
			goto out;
		}
		code = buf;
		a = r[i][0];
		while (left) {
			if (!x86dec_next(h, &code, &left, &a, in)) {
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
			if (inl_cache.rel || inl_cache.kimg)
				rel_fix(&g->v[g->n]);
			g->n++;
		}
	}
	qsort(g->v, g->n, sizeof(*g->v), node_cmp);
	for (i = 0; i < g->n; i++) {
		struct node *nd = &g->v[i];

		nd->succ[0] = nd->succ[1] = -1;
		if (nd->kind == N_SEQ || nd->kind == N_JCC)
			nd->succ[0] = inl_node_at(g, nd->addr + nd->size);
		if (nd->kind == N_JMP || nd->kind == N_JCC) {
			j = inl_node_at(g, nd->target);
			if (j < 0 && inl_in_ranges(r, nr, nd->target)) {
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
		inl_graph_free(g);
	return ret;
}

#endif /* __x86_64__ */
