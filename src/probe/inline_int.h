/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The insides of inlined instances (include/iprof/inline.h), shared by the
 * files that find and plan them, each calling only those below it: on top
 * inline.c (the file's DWARF, opened once and kept in inl_cache, walked
 * for the instances of a function), then inline_plan.c (an instance's
 * probes: its entry, its exits and the frame its return address is read
 * from), inline_graph.c (the caller's code as a graph, decoded with
 * Capstone) and inline_kernel.c (what a kernel module's relocations and
 * the kernel image's tables tell: where a jump goes, jump labels, what
 * kprobes refuse).  x86-64 only.  Nothing outside these files includes
 * it: the interface is include/iprof/inline.h.
 */
#ifndef IPROF_INLINE_INT_H
#define IPROF_INLINE_INT_H

#if defined(__x86_64__)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "iprof/inline.h"

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
struct inl_file {
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
};

/* defined in inline_kernel.c, the lowest of the files that read it */
extern struct inl_file inl_cache;

/* the caller's code as a graph (inline_graph.c) */
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

/* What one file calls of another's (each described where it is defined). */

/* inline_graph.c */
int inl_node_at(const struct graph *g, uint64_t a);
void inl_graph_free(struct graph *g);
bool inl_in_ranges(const uint64_t (*r)[2], size_t nr, uint64_t a);
int inl_graph_build(struct graph *g, const uint64_t (*r)[2], size_t nr, char *why,
		size_t len);

/* inline_kernel.c */
int inl_rel_load(void);
int inl_kimg_load(struct inl_file *f, Dwfl_Module *mod);
const struct inl_rel *inl_rel_at(uint64_t at);
const struct inl_jl *inl_jl_at(uint64_t code);
const char *inl_kprobe_refused(uint64_t a, uint64_t fn);
int64_t inl_to_off(uint64_t a);

/* inline_plan.c */
int inl_plan_instance(struct inl_inst *it, const char *path,
		  const uint64_t (*ir)[2], size_t nir, uint64_t entry,
		  const unsigned char *copy, const struct graph *gp,
		  uint64_t fentry, char *why, size_t len);

#endif /* __x86_64__ */

#endif /* IPROF_INLINE_INT_H */
