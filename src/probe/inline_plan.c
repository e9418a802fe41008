// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where an inlined instance's probes go (inl_plan_instance()): its entry (the
 * first instruction every path into it runs, checked against the caller's
 * loops and its other entries), its exits (the first instruction past it
 * on every path out, returns and tail calls included) and, for each
 * probe site, the frame rule that finds the caller's return address
 * (libdw's CFI of .eh_frame or .debug_frame), refusing sites the kernel
 * would not probe.
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

	if (!inl_cache.cfi || dwarf_cfi_addrframe(inl_cache.cfi, a, &fr) ||
	    dwarf_frame_cfa(fr, &ops, &nops) || nops != 1) {
		free(fr);
		util_set_err(why, len,
			     "no call frame information (%s) gives its caller's frame at %#llx",
			     inl_cache.rel || inl_cache.kimg ? ".debug_frame" :
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
	int64_t o = inl_to_off(a);
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
	if (inl_cache.rel || inl_cache.kimg) {
		/* a kprobe's place: the function symbol it is in */
		GElf_Off so = 0;
		GElf_Sym sym;
		const char *nm = dwfl_module_addrinfo(inl_cache.mod, a, &so, &sym,
						      NULL, NULL, NULL);

		if (!nm || GELF_ST_TYPE(sym.st_info) != STT_FUNC) {
			util_set_err(why, len, "%#llx is in no function symbol",
				     (unsigned long long)a);
			return -1;
		}
		s->sym = nm;
		s->symoff = so;
		if (inl_kprobe_refused(a, a - so)) {
			util_set_err(why, len,
				     "the kernel refuses a kprobe at %s+%#llx: %s",
				     nm, (unsigned long long)so,
				     inl_kprobe_refused(a, a - so));
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
 * @g (entered at node @e; @live: reachable at all): see inl_plan_instance().
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
		if (state[y] == 1 && !inl_in_ranges(ir, nir, g->v[x].addr))
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
		    inl_in_ranges(ir, nir, g->v[i].addr)) {
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
		s = inl_node_at(g, ir[k][0]);
		if (s < 0 || s == e || !toret[s] || !copy[k])
			continue; /* (a dead end: a sanitizer's report) */
		for (p = g->pstart[s]; p < g->pstart[s + 1]; p++) {
			q = g->pred[p];
			if (!live[q] || inl_in_ranges(ir, nir, g->v[q].addr))
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
int inl_plan_instance(struct inl_inst *it, const char *path,
		  const uint64_t (*ir)[2], size_t nir, uint64_t entry,
		  const unsigned char *copy, const struct graph *gp,
		  uint64_t fentry, char *why, size_t len)
{
	const struct graph g = *gp;
	unsigned char *ne = NULL, *fw = NULL, *bw = NULL, *act = NULL;
	unsigned char *live = NULL;
	int *post = NULL, e, fe, x, ret = -1;
	size_t npost = 0, i, k;

	fe = inl_node_at(&g, fentry);
	e = inl_node_at(&g, entry);
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
		if (!ne[i] && fw[i] && inl_in_ranges(ir, nir, g.v[i].addr))
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

#endif /* __x86_64__ */
