/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Return sites of a user function: where a call of it leaves it, found by
 * disassembling its code (Capstone), so that its stop can be a plain uprobe
 * at each of them instead of a uretprobe.  A uretprobe replaces the return
 * address on the thread's stack with the kernel's trampoline: a C++
 * exception unwinding through it calls std::terminate, a coroutine switch
 * past it makes the kernel kill the process (SIGILL, "failed to handle
 * uretprobe"); a longjmp past it is harmless (the kernel drops the
 * instances it skipped by stack pointer: tools/longjmp-workload, 6.1 to
 * 7.2).  A uprobe on a ret instruction changes nothing the
 * program can see, and fires with the stack pointer at the return address,
 * as at the entry (bpf/iprof.bpf.h: drop_left(), timer_stop()).
 *
 * Kernel-free (the planner calls it, so --dry-run and iprof list say which
 * timers get return sites).  x86-64 only: elsewhere every function gets a
 * uretprobe.
 */
#ifndef IPROF_RETSITE_H
#define IPROF_RETSITE_H

#include <stddef.h>
#include <stdint.h>

struct sym_cache;

/*
 * struct retsite_ctx - what retsite_find() keeps for one caller (the
 * planner, for one plan_build()): its sym_cache (function starts, open
 * files) and one Capstone handle, opened on first use, for all the
 * functions it asks about.  retsite_ctx_new(): NULL when out of memory;
 * @syms (may be NULL) stays the caller's.  retsite_ctx_free(): NULL ok.
 */
struct retsite_ctx;
struct retsite_ctx *retsite_ctx_new(struct sym_cache *syms);
void retsite_ctx_free(struct retsite_ctx *x);

/* Most return sites one function gets (each is a uprobe: one perf event
 * each where the kernel has no uprobe_multi); more: a uretprobe. */
#define RETSITE_MAX 64

/* Largest function disassembled (bytes); a larger one: a uretprobe. */
#define RETSITE_MAX_CODE (1u << 20)

/* A piece of a function's code: @size bytes at file offset @off, whose
 * virtual address (st_value) is @addr (0: unknown, taken as @off): what
 * messages show, as objdump and gdb do. */
struct retsite_code {
	uint64_t off, size, addr;
};

/*
 * retsite_find() - the return sites of the function whose code is the
 * @nparts pieces @parts of ELF file @path (@x: the caller's context,
 * retsite_ctx_new(), or NULL): its symbol's bytes first
 * (sym_func_targets(): offset, size), then its cold part if it has one
 * (GCC's hot/cold split, f.cold: blocks moved out of f, entered by jumps
 * from f, returning from f); a jump from one piece into another stays
 * inside the function.  The file offsets of
 *  - each ret instruction (ret, ret imm16; a far ret is refused),
 *  - each jmp that leaves the function: a direct jmp to an address
 *    outside every piece, an indirect jmp through memory without an index
 *    register (a function pointer or GOT entry: a tail call),
 * in address order, into *@sites (malloc'ed, the caller frees it) and
 * their number into *@n (at least 1), of which *@njmp (@njmp may be NULL)
 * are jmps: tail calls, after which the callee runs outside the timer.
 * Jumps inside the function and a switch's jump-table jmp are not sites:
 * a jmp *%reg or jmp *T(,%idx,8) whose table it reads, every entry
 * inside the function, the index proven bounded where the jmp is (a cmp
 * and ja/jae/jbe/jb, of a register or of memory it is then loaded from;
 * and; movzx; over every path into the jmp, its control flow followed
 * through loops and the function's pieces), or an unread notrack jmp
 * (-fcf-protection marks jump tables so).  Jump targets in @why are
 * virtual addresses (@parts' @addr), places in the function "+0x12" from
 * its start ("-0x40" in a piece before it).
 *
 * Returns 0; -ENOENT when the function has no return site at all (it
 * never returns: it calls exit, longjmp, throws; @why says so); -ENOMEM;
 * or -EOPNOTSUPP with why the function keeps a
 * uretprobe in @why (@len bytes), when its returns cannot be found for
 * sure: no size in its symbol; larger than RETSITE_MAX_CODE; bytes Capstone
 * cannot decode (data in the code, another instruction set); an indirect
 * jmp through a register or a table that is no jump table it can prove
 * bounded (a jump table or a tail call: cannot tell), or a table with an
 * entry out of the function; a conditional jump
 * out of the function (a uprobe would fire whether or not it is taken); a
 * far ret or jmp; a site at the function's first instruction (its entry
 * probe is at the same address); a site whose prefixes the kernel refuses
 * (sym_insn_check()); more than RETSITE_MAX sites; a short read; another
 * architecture.
 */
int retsite_find(struct retsite_ctx *x, const char *path,
		 const struct retsite_code *parts, size_t nparts,
		 uint64_t **sites, size_t *n, size_t *njmp, char *why,
		 size_t len);

/*
 * retsite_split() - where a split entry starts its timer (IPROF_REC_GAP()
 * of include/iprof/abi.h): the file offset of the first instruction of
 * the function (@x, @path, @parts, @nparts as for retsite_find()) after
 * its first that the kernel emulates at a uprobe (call rel32, jmp rel to
 * a place inside it, jcc, nop) into *@site, and the bytes its prologue
 * pushed and subtracted from the stack pointer before it into *@adj, so
 * that the stack pointer there plus *@adj is the entry's (its return
 * address's slot).  Only over straight-line code: each instruction
 * before it a push, a sub or add of an immediate to %rsp, or one that
 * writes no stack pointer and is no jump, call, ret or trap; at most
 * RETSITE_SPLIT_MAX_INSNS of them; no jump, call or jump table of the function
 * (any piece) reaching past its entry up to the site, so that each call
 * runs the site once, right after its entry.  Its return sites must be
 * provable too (retsite_find()'s analysis, whose tables say where its
 * switches jump).
 *
 * Returns 0; -ENOMEM; -EALREADY: its first instruction is one the kernel
 * emulates (no single step to move); -EOPNOTSUPP with why not in @why
 * (@len bytes): a prologue instruction of another kind, a jump into the prologue, no such instruction soon
 * enough, what retsite_find() refuses, another architecture.
 */
#define RETSITE_SPLIT_MAX_INSNS 32
int retsite_split(struct retsite_ctx *x, const char *path,
		  const struct retsite_code *parts, size_t nparts,
		  uint64_t *site, uint32_t *adj, char *why, size_t len);

#endif /* IPROF_RETSITE_H */
