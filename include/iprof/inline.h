/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inlined instances of a user function: where the compiler copied its
 * code into its callers, found in the binary's DWARF (elfutils libdw and
 * libdwfl: DW_TAG_inlined_subroutine, DWARF 5 section 3.3.8.2), with the
 * probes that time each one:
 *
 *  - its entry: DW_AT_entry_pc (else its lowest address), moved past its
 *    caller's first instruction when it is there (the caller's own entry
 *    probe sits on it);
 *  - its exits: every way control leaves the code that runs the instance
 *    (found by disassembling the caller, Capstone): the first
 *    instruction outside it after a fall-through or a jump, a ret, a
 *    jmp out of the caller (a tail call).  A call out of it is no exit.
 *
 * "The code that runs the instance" is its active region in the
 * caller's control-flow graph: the instructions reachable from the entry
 * (not through the entry again) from which the instance's own code
 * after its entry (its address ranges, less what runs before the entry:
 * code the compiler hoisted into the caller) is still reachable without
 * passing the entry.  So the caller's instructions the compiler
 * scheduled into the middle of the instance are timed with it, and a
 * jump back to the entry starts a new call.
 *
 * An inlined instance has no frame of its own: its probes identify the
 * call by its caller's frame, the caller's canonical frame address less
 * 8 (the caller's return address slot, which a uprobe at the caller's
 * entry sees as its stack pointer), computed at each probe from the
 * stack or frame pointer by the caller's call frame information
 * (.eh_frame: the rule's register and offset, struct inl_site).
 *
 * A kernel module's debug file (an ET_REL object, include/iprof/kmod.h)
 * is read the same way: its sites name the function symbol they are in
 * and their offset there (a kprobe's SYM+OFF), its code's relocations
 * say where its jumps go (a jmp to __x86_return_thunk is a ret, one out
 * of the module a tail call), its jump labels (__jump_table) may go
 * either way, and its frames are in .debug_frame.  Code the kernel
 * patches otherwise at load time (alternatives, static calls) is read as
 * the file has it.
 *
 * Kernel-free (the planner calls it, so --dry-run and iprof list show
 * the instances).  x86-64 only.
 */
#ifndef IPROF_INLINE_H
#define IPROF_INLINE_H

#include <stddef.h>
#include <stdint.h>

/* Most exits one instance gets (each a uprobe); more: refused. */
#define INL_MAX_EXITS 64

/* Most instances of one function timed (each has a number in its frames,
 * iprof_action.inst: 8 bits); the rest are counted only. */
#define INL_MAX_INSTANCES 255

/* Largest caller disassembled (bytes); a larger one: refused. */
#define INL_MAX_CODE (1u << 20)

/*
 * One probe of an instance: file offset @off (bytes) of the instruction,
 * its virtual address @addr (for messages), and how the caller's frame
 * is found there: the frame is @reg + @adj bytes, @reg 0 the stack
 * pointer (rsp), 1 the frame pointer (rbp).  @ret: the instruction is a
 * ret (an exit: @reg 0 and @adj 0, as a return site).
 */
struct inl_site {
	uint64_t off, addr;
	uint8_t reg;
	uint16_t adj;
	uint8_t ret;
	/* a kernel module's (an ET_REL file): the function symbol the
	 * instruction is in and its offset there (bytes), a kprobe's
	 * SYM+OFF; valid until inl_forget() or an inl_find() of another
	 * file; NULL for other files */
	const char *sym;
	uint64_t symoff;
};

/* One inlined instance of the function asked for. */
struct inl_inst {
	char *caller; /* the function or inlined function it is in, owned */
	char *call; /* where it is called, "FILE:LINE" (DW_AT_call_file,
		     * DW_AT_call_line), owned; "" when DWARF does not say */
	unsigned int depth; /* how many inlined instances it is nested in
			     * within its caller's code (0: directly) */
	struct inl_site entry;
	struct inl_site *exits; /* owned */
	size_t nexits;
	/* NULL: timed at @entry and @exits; else why it is refused (owned;
	 * @entry.addr says where it is, @exits are empty) */
	char *why;
};

/*
 * inl_find() - the inlined instances of function @func in ELF file @path
 * (an executable, a shared object, or a kernel module's debug file),
 * from its DWARF: its own, or its
 * separate debug file's (by build ID under /usr/lib/debug/.build-id, or
 * by .gnu_debuglink: DIR, DIR/.debug, /usr/lib/debug/DIR; libdwfl's
 * dwfl_standard_find_debuginfo()), or one under @debugdir (NULL: none)
 * by the same rules.  Out-of-line copies are not instances (the symbol
 * table has them: sym_func_targets()).
 *
 * @func is a C name, compared with DW_AT_name of the function's abstract
 * DIE (DW_AT_inline) at the top level of each C compile or partial unit
 * (DW_AT_language; C++ and Rust names are unqualified there: not looked
 * up yet); its instances are found in every unit (dwz moves abstract
 * DIEs to partial units), but not in a dwz -m common file.
 *
 * On success returns 0 with *@v (malloc'ed, free with inl_free()) and
 * *@n, possibly 0 (none, or no DWARF: *@nodwarf set to 1 then, when
 * @nodwarf is not NULL; 2: DWARF, and units of another language than C
 * whose functions are not looked up), the timed ones and the refused ones (their
 * why) in address order; instances past INL_MAX_INSTANCES are only
 * counted, in *@more (may be NULL).
 * Errors: -ENOMEM; -errno of open(2) with a message in @err (@errlen
 * bytes).  Reading one function's instances of a large file indexes its
 * DWARF once; the index is kept for the next call on the same file
 * until inl_forget().
 */
int inl_find(const char *path, const char *func, const char *debugdir,
	     struct inl_inst **v, size_t *n, size_t *more, int *nodwarf,
	     char *err, size_t errlen);

/*
 * inl_names() - the names of the functions ELF file @path's DWARF says
 * were inlined somewhere (its abstract DIEs with DW_AT_inline, found as
 * inl_find() finds them), sorted, each once, appended to @k (free with
 * ksyms_free()).  A file without DWARF adds none.  Returns 0, -ENOMEM, or
 * -errno of open(2) with a message in @err.
 */
struct ksyms;
int inl_names(const char *path, const char *debugdir, struct ksyms *k,
	      char *err, size_t errlen);

/* inl_free() - free what inl_find() returned; NULL ok. */
void inl_free(struct inl_inst *v, size_t n);

/* inl_forget() - drop the index inl_find() keeps (call at the end of a
 * plan). */
void inl_forget(void);

#endif /* IPROF_INLINE_H */
