/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Attach plan: the probe list resolved against the running system, before
 * anything is loaded.  Kernel-free: it reads tracepoint format files under
 * a tracefs directory given by the caller (a fixture directory in tests),
 * and links no libbpf.
 *
 * Every probe becomes one timer (timer id = index in plan.timers), a glob
 * of kernel or user functions one per function.  Every
 * timer has two or more BPF attachments (plan.att), each carrying the index
 * of its action (plan.actions, the BPF `actions` map) as its cookie.
 * A probe that cannot be resolved (tracepoint or field missing) keeps its
 * timer, marked with an error, so the report can say why it is absent.
 */
#ifndef IPROF_PLAN_H
#define IPROF_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/emu.h"

#include "iprof/abi.h"
#include "iprof/mech.h"
#include "iprof/probe.h"

enum plan_mech {
	MECH_TRACEPOINT, /* tracepoint CAT:EVENT, program tp_hit */
	MECH_UPROBE, /* uprobe, program fn_entry */
	MECH_URETPROBE, /* uretprobe, program fn_return */
	/* a user function's return site (a ret, a tail-call jmp: see
	 * include/iprof/retsite.h): a uprobe, program fn_rsite, running the
	 * function's stops; offset is the site's */
	MECH_RETSITE,
	/* a kernel function's inlined instance (src/probe/inline.c): a
	 * kprobe at func + offset (its entry or an exit), program
	 * fn_ksite, its frame the caller's (key_reg, key_adj) */
	MECH_KSITE,
	MECH_FUNC_ENTRY, /* kernel function entry: fentry or kprobe */
	MECH_FUNC_RETURN, /* kernel function return: fexit or kretprobe */
	/* syscalls:sys_enter_X / sys_exit_X through the raw syscall
	 * tracepoints, dispatched in BPF by syscall number (programs
	 * sc_enter, sc_exit; map sc_chain at plan_att.sc_slot) */
	MECH_SYSCALL,
	/* a USDT probe (an SDT note's nop): path the binary (absolute),
	 * category its provider, event its name; attached by libbpf
	 * (bpf_program__attach_usdt(), the semaphore too), program usdt_hit,
	 * the action its USDT cookie */
	MECH_USDT,
	/* a split entry's mark (IPROF_REC_GAP() of abi.h): a uprobe at a
	 * user function's first instruction, which the kernel single-steps,
	 * beside its uretprobe, program fn_mark_*: the time only; its start
	 * is a MECH_RETSITE attachment with split set */
	MECH_UMARK,
};

struct plan_att {
	enum plan_mech mech;
	uint32_t timer; /* timer id */
	uint32_t action; /* index into plan.actions: the BPF cookie */
	char *category, *event; /* MECH_TRACEPOINT, owned */
	char *path; /* MECH_U*PROBE, MECH_RETSITE: the binary, absolute
		     * (sym_resolve_path) */
	char *func; /* function name (user or kernel), owned */
	uint64_t offset; /* MECH_U*PROBE: file offset of func in path (bytes),
			  * from sym_func_targets(); attach by offset, not name;
			  * MECH_KSITE: offset in kernel function func (bytes) */
	uint64_t dev, ino; /* MECH_U*PROBE: stat(2) of path (st_dev, st_ino):
			    * the file's identity; 0 if it could not be read */
	uint32_t sc_slot; /* MECH_SYSCALL: index in sc_chain: the syscall
			   * number, + IPROF_NR_SYSCALLS for sys_exit */
	/* MECH_UPROBE (an entry), MECH_RETSITE: how the program may run
	 * the probed instruction in the kernel's place (emu_decode_file());
	 * used where the kernel allows it (plan_env.uregs) */
	struct plan_emu emu;
	/* MECH_RETSITE of an inlined instance (include/iprof/inline.h),
	 * MECH_KSITE:
	 * its probes find the frame as @key_reg (0 rsp, 1 rbp) + @key_adj
	 * bytes, where a return site's is the stack pointer (0, 0) */
	uint8_t key_reg;
	uint16_t key_adj;
	uint8_t inl; /* 1: an inlined instance's probe (not a return site
		      * of its own: plan_emu() does not count it) */
	/* MECH_UPROBE, MECH_RETSITE (not a split start): 1 where no single
	 * step follows its probe: the kernel emulates the instruction, or
	 * the program runs it itself (@emu, plan_env.uregs); plan_emu() */
	uint8_t no_step;
	/* MECH_URETPROBE: 1 when it and the MECH_UPROBE attachment of the
	 * same path and offset (its function's entry) go in one uprobe
	 * session link (plan_env.usession): the entry program takes the
	 * return only in a target thread on the stack it started on
	 * (bpf/iprof.bpf.c fn_session_u); a call elsewhere is counted, not
	 * timed (IPROF_REC_HIT) */
	uint8_t session;
	/* MECH_RETSITE: a split entry's start (key_reg 0, key_adj its
	 * prologue's bytes: retsite_split()): PLAN_SPLIT_GAP, whose mark is
	 * the MECH_UMARK attachment at its function's entry (a uretprobe
	 * there), or PLAN_SPLIT_ENTRY, with nothing at the entry (its stops
	 * return sites); 0: not one */
	uint8_t split;
	/* MECH_UPROBE, a user function's entry, while planning: where its
	 * start would move (retsite_split(): split_site, split_adj), the
	 * plan_split enum of its timers that asked (split_mode; 0: they
	 * disagree), how many asked (split_votes: every action of its chain
	 * must have) and whether one of them could not (split_refused: it
	 * says why), for plan_split() after every timer */
	uint64_t split_site;
	uint16_t split_adj;
	uint8_t split_mode;
	uint8_t split_refused;
	uint32_t split_votes;
};

enum plan_split {
	PLAN_SPLIT_GAP = 1,
	PLAN_SPLIT_ENTRY = 2,
};

struct plan_timer {
	char *name; /* owned copy of the probe's name (a glob's match) */
	char *func; /* the function timed (a glob expanded), owned; NULL for
		     * spans */
	/* 1: it names a user function or file, a kernel function (no
	 * symbol, clone or inlined instance) or a tracepoint that does not
	 * exist (a typo: error says so, with the nearest names), not a
	 * glob, a kernel function that exists but cannot attach, or a library
	 * not found by name (it may be loaded later): the run stops before
	 * anything is attached unless --keep-going.  0 otherwise */
	int missing;
	int entry_only; /* the function never returns: entry attached only,
			 * its frames end at thread exit (ksym_noreturn()) */
	/* a kernel function ftrace patches (or unknown) whose name is the
	 * kernel's only one of that name: it may go in a kprobe_multi link */
	int kmulti_ok;
	/* user functions: its stops are uprobes at this many return sites
	 * (MECH_RETSITE); 0: a uretprobe, for the reason in ret_why (owned,
	 * NULL when it never returns or is not a user function) */
	uint32_t ret_sites;
	/* of ret_sites, jmps out of the function: tail calls (the callee's
	 * time is not in the timer: it stops at the jump) */
	uint32_t ret_tail;
	char *ret_why;
	/* 1: entry only (entry_only is set too) because its return sites
	 * cannot be found (ret_why) and --returns refuses it a uretprobe:
	 * the program can unwind through it (auto) or sites was asked;
	 * why in ret_risk.  0 otherwise */
	int ret_entry;
	/* 1: its stop is a uprobe session's return (plan_att.session):
	 * ret_why starts with PLAN_SESSION_WHY.  0 otherwise */
	int ret_session;
	/* a split entry (MECH_UMARK, IPROF_REC_GAP() of abi.h): its start
	 * at file offset split_off of its entry's file, split_off - the
	 * entry's offset bytes into the function (0: not split; why not in
	 * split_why, owned, NULL where it was not tried: an entry the kernel
	 * emulates, no uretprobe, IPROF_SPLIT=0) */
	uint64_t split_off;
	uint32_t split_at;
	char *split_why;
	/* --returns auto: what unwind_judge() found in the program for a
	 * timer without return sites (owned; NULL when it was not asked):
	 * the evidence it can unwind, or that it cannot */
	char *ret_risk;
	/* 1: --returns uretprobe on a function the program can unwind or
	 * switch stacks through (ret_risk: the evidence): it may kill it */
	int ret_unsafe;
	/* user functions where plan_env.uregs: of ret_sites, those whose
	 * instruction (a ret) iprof's program runs (no single step); 1 if
	 * its entry's instruction (endbr64, a nop) is skipped the same way */
	uint32_t emu_sites;
	int emu_entry;
	uint32_t emu_seen; /* plan_emu()'s: the last attachment counted, + 1 */
	enum probe_kind kind;
	char *where; /* human description of what it attaches to, owned */
	char *note; /* what a user should be told before tracing (a -p
		     * process maps an older copy of the binary), owned;
		     * NULL if nothing (also in where) */
	const struct probe *probe; /* into the probe list given to plan_build */
	char *error; /* why it cannot be traced, owned; NULL if plannable */
	/* a keyed span's key as written, normalized: "dev,sector",
	 * "pid=next_pid" (=B only where B differs from A); owned, NULL
	 * unless the span has a key (set even when error is) */
	char *key;
	/* user functions: its inlined instances (src/probe/inline.c) timed
	 * (each an entry and inl_exits exits in all, MECH_RETSITE), and
	 * those refused; inl_where (owned, NULL when it has none) lists
	 * them: "in CALLER at ADDR (FILE:LINE)", a refused one with why */
	uint32_t inl, inl_exits, inl_refused;
	char *inl_where;
	int inl_only; /* 1: no out-of-line copy: timed where inlined only */
	/* kernel function timers: the mechanisms to try, in this order
	 * (PLAN_VIA_*): fentry: fentry only, kprobe: kprobe only, func:
	 * fentry, then kprobes where the kernel refuses fentry; 0 otherwise */
	unsigned int via;
	/* kernel function timers, where plan_env.params is given
	 * (--slowest): its return value and arguments as BTF names and
	 * types them (plan_params_fn's format), owned; NULL: not known */
	char *params;
};

/* plan_timer.via: its kind's probe_kind_info.via (iprof/probe.h) */
#define PLAN_VIA_FENTRY PROBE_VIA_FENTRY /* fentry/fexit (BPF trampolines) */
#define PLAN_VIA_KPROBE PROBE_VIA_KPROBE /* kprobe/kretprobe */

struct planner;

struct plan {
	struct plan_timer *timers;
	uint32_t ntimers;
	struct iprof_action *actions;
	uint32_t nactions;
	struct plan_att *att;
	uint32_t natt;
	/* per action, where it goes in a chain of one point (planner's
	 * own): an inlined instance's nesting depth + 1, 0 for every other;
	 * at one address the deepest stops run first, the outermost
	 * starts */
	uint32_t *prio;
	int uregs; /* plan_env.uregs it was built with */
	int shstk_pid; /* plan_env.shstk_pid it was built with */
	/* planner's own, during plan_build() only (NULL after): all it
	 * reads once per build (src/probe/plan_int.h) */
	struct planner *pn;
};

/*
 * plan_build() - resolve @pl into @p.  env->tracefs is the tracefs mount point
 * (its events/CAT/EVENT/format files give tracepoint field offsets, sizes
 * and types: see plan_tp_field()).  uprobe binaries are resolved here
 * (sym_resolve_path(), sym_func_offset(): libelf, no kernel), so a missing
 * file, a non-ELF file or a missing function is seen before loading.
 *
 * Conditions: on a kernel function, an argument may be named (cmd == 3)
 * when env->arg resolves it (BTF): its type gives width and sign.
 * argN compares as signed 64-bit unless written argN:TYPE
 * (then iprof_cond.size/is_signed give TYPE's width and signedness); a
 * tracepoint field is read with the width and signedness of its C type
 * (FIELD:TYPE overrides both).  A VALUE is converted to the field's type
 * as C does (-1 on a 4-byte unsigned field is 0xffffffff); a VALUE that
 * fits neither the signed nor the unsigned range of that width is an error.
 *
 * Kernel functions (fentry:, kprobe:, func:) are checked against
 * env->kallsyms and tracefs/available_filter_functions when
 * readable (include/iprof/ksym.h): a glob becomes one timer per matching
 * function, named by it (a name already used is skipped), as a uprobe
 * glob does over the functions of its binary (sym_func_names()), both at
 * most PLAN_MAX_GLOB; a missing
 * function names its compiler clones; a function on the deny list is
 * refused; one that never returns is entry-only.
 *
 * Keyed spans (probe.nkey > 0): both actions get IPROF_A_KEYED (never
 * IPROF_A_NO_REENTER nor IPROF_A_UNMATCHED_OK), and nkey and key[] of
 * their own side: each key field a field of that side's tracepoint
 * (off and size as plan_tp_field() gives them, read zero-extended), or,
 * where the tracepoint has no field of that name, the pseudo-field pid
 * (IPROF_KEY_PID), tid or cpu (4 bytes).  A key field missing on its
 * side, a string or array field, or two sides of different widths (in
 * bytes; signedness may differ) is that timer's error, at the key
 * field's column ("FILE:LINE:COL: span NAME: key A: ...").
 *
 * Per-probe problems (missing tracepoint, field, binary or function, a
 * condition on a string or array field, a value out of range) do not fail
 * the call: they set that timer's error ("FILE:LINE:COL: ..." text).
 * Returns 0, or -ENOMEM.  @p is zeroed first; free it with plan_free().
 */
/*
 * Resolves a named argument of kernel function @func (from BTF: see
 * src/kernel/btfarg.c): its index, and the width (bytes) and signedness of its
 * type.  Returns 0, -ENOENT if @func has no BTF, or -ESRCH if it has no
 * argument @name (then @names gets its argument names, comma-separated).
 */
typedef int (*plan_arg_fn)(void *ctx, const char *func, const char *name,
			   int *index, int *width, int *is_signed,
			   char *names, size_t len);

/*
 * Names and types the return value and the first IPROF_NARGS arguments
 * of kernel function @func (from BTF: src/kernel/btfarg.c), into *@out
 * (malloc'ed, the caller's): "NAME:FMT:TYPE" items joined by ';', the
 * first the return value's (NAME empty), then each argument's in order.
 * FMT says how a value reads: "p" a pointer (hex), "uN"/"sN" an unsigned
 * or signed integer of N bytes (bool, char, an enum by its sign), "-"
 * void (a return value only), "?" none iprof can show (a struct passed
 * by value, a float: the arguments after it, whose slots shift, are not
 * listed).  TYPE is the C declaration ("struct file *", "size_t").
 * Returns 0, -ENOENT if @func has no BTF, or -ENOMEM.
 */
typedef int (*plan_params_fn)(void *ctx, const char *func, char **out);

/* Most functions one glob may expand to (each is a timer, two probes). */
#define PLAN_MAX_GLOB 2000

/* Most timers a plan holds, globs expanded (a glob that would pass it is
 * that line's error). */
#define PLAN_MAX_TIMERS 200000

/* Most glob lines a plan expands (each scans every function name); the
 * ones after it are errors. */
#define PLAN_MAX_GLOB_LINES 100

/* Most function names all globs together are compared with (a full scan
 * of a kernel's ~120000 functions, twice, is ~6 ms): a glob line past it
 * is an error.  Names before a glob's first wildcard narrow its scan. */
#define PLAN_MAX_GLOB_SCAN 2000000

/* plan_env.returns: --returns auto, sites, uretprobe */
enum plan_returns {
	PLAN_RETURNS_AUTO = 0,
	PLAN_RETURNS_SITES,
	PLAN_RETURNS_URETPROBE,
};

/* What plan_build() reads: paths (NULL: not available) and callbacks. */
struct plan_env {
	const char *tracefs; /* tracefs mount point */
	const char *kallsyms; /* /proc/kallsyms */
	plan_arg_fn arg; /* named arguments of kernel functions, or NULL */
	void *arg_ctx;
	/* kernel function timers' plan_timer.params (--slowest shows the
	 * kept calls' arguments by them), or NULL; called with arg_ctx */
	plan_params_fn params;
	/* 1: syscall spans on their own tracepoints (MECH_TRACEPOINT), as
	 * other tracepoints; 0: on the raw syscall tracepoints by number
	 * (MECH_SYSCALL) where the number is known (syscall_tp_nr()) */
	int syscall_tracepoints;
	/* -p PIDs (NULL, 0: none): a uprobe binary that one of them maps
	 * in an older copy (replaced or deleted on disk) is traced in that
	 * copy too, through /proc/PID/map_files */
	const int *pids;
	int npids;
	/* how user functions stop (--returns): PLAN_RETURNS_AUTO at their
	 * return sites where retsite_find() finds them, else by uretprobe
	 * for a function of an executable in whose program unwind_judge()
	 * finds nothing that unwinds or switches stacks through it (never a
	 * library's: a uretprobe is in every process that maps the file),
	 * else entry only; _SITES: return
	 * sites, else entry only (never a uretprobe); _URETPROBE: always a
	 * uretprobe (faster where the kernel single-steps a return site's
	 * ret, but it rewrites return addresses: C++ exceptions and
	 * coroutines break; a longjmp past one is harmless) */
	enum plan_returns returns;
	/* 1: the kernel lets a uprobe program write its registers
	 * (uprobe_emu_supported()): return sites cost no single step, so
	 * --returns auto takes them everywhere; 0: auto gives a uretprobe
	 * (no single step), when there is a -- CMD or -p, to a function of
	 * an executable whose program cannot unwind or switch stacks
	 * through it (unwind_judge()) */
	int uregs;
	/* 1: the kernel makes uprobe session links (Linux 6.13+,
	 * uprobe_session_supported()): where !uregs and the only risk
	 * unwind_judge() finds is a library's stack switch by libc's context
	 * functions (its 2), auto gives the function a uprobe session whose
	 * entry takes no return probe on a stack the thread switched to
	 * (plan_att.session) instead of return sites */
	int usession;
	/* the executable of the command iprof runs (-- CMD: its path as
	 * found in $PATH), or NULL.  --returns auto asks whether there is
	 * one (or -p): a timer of no target process keeps its return sites;
	 * and whether a timed file is it (or a -p process's executable): a
	 * program, not a library.  It judges the timed executable's own
	 * closure, with the -p processes' maps, never this one's (a shell or
	 * env runs other programs) */
	const char *exe;
	/* more debug files of user binaries (--debuginfo DIR), looked up
	 * as inl_find() says, or NULL */
	const char *debuginfo;
	/* 1: no inlined instances (--no-inline) */
	int no_inline;
	/* a -p process whose thread runs with a user shadow stack
	 * (emu_shstk()), 0 none: iprof's programs leave its rets to the
	 * kernel (said per timer) */
	int shstk_pid;
	/* 1: a kernel function that is no symbol may be inlined in a
	 * loaded module: looked up in the running system's modules' debug
	 * files (kmod_debug_files()); 0 (the tests' fixture kernels): not */
	int kmodules;
	/* with kmodules: a directory standing for / (its proc/modules,
	 * sys/module, usr/lib/debug: the unit tests'), NULL the system */
	const char *kmod_root;
	/* called after each function a glob line @pr expands to is
	 * planned: @done of its @total matches so far (the caller decides
	 * what to show, and when), or NULL */
	void (*progress)(void *ctx, const struct probe *pr, uint32_t done,
			 uint32_t total);
	void *progress_ctx;
};

int plan_build(struct plan *p, const struct probe_list *pl,
	       const struct plan_env *env);

/* plan_free() - free what plan_build() allocated; @p may be NULL. */
void plan_free(struct plan *p);

/* A tracepoint field as plan_tp_field() found it. */
struct plan_tp_field_info {
	uint16_t off; /* byte offset of the value to read: the slot's offset
		       * (plus slot - size on big-endian hosts) */
	uint8_t size; /* bytes to read: the width of the C type, at most slot */
	uint8_t is_signed; /* from the C type; the format's flag if unknown */
	uint16_t slot_off; /* offset: from the format file */
	uint16_t slot; /* size: from the format file (syscall arguments sit
			* in 8-byte slots whatever their type) */
	char type[64]; /* the C type as declared ("unsigned int", "char[16]",
			* "__data_loc char[]") */
	int is_string; /* __data_loc/__rel_loc char[], or a char array */
	int is_array; /* another array (fixed or __data_loc) */
};

/*
 * plan_tp_field() - look up @field of tracepoint @cat:@event in its format
 * file under @tracefs into @fi.
 *
 * The format file's size is the slot; the width and signedness come from
 * the C type where it is a known integer type (int, unsigned int, u8..u64,
 * s8..s64, __u8..__s64, [u]intN_t, char, short, long, long long, bool,
 * pid_t, uid_t, gid_t, dev_t, umode_t, gfp_t, size_t, ssize_t, loff_t,
 * pointers, ...), so `int fd` of a syscall (size:8 signed:0) is read as 4
 * signed bytes.  Unknown types (typedefs, enums) keep the slot size and the
 * format's signed flag.
 *
 * Returns 0; -ENOENT if the event does not exist; -ESRCH if it has no such
 * field (then @fields, if not NULL, receives a comma-separated list of the
 * event's own fields, size @fields_len); -EINVAL if the field cannot be
 * compared: a string (@fi->is_string), an array (@fi->is_array), or a slot
 * that is not 1, 2, 4 or 8 bytes (@fi->type and @fi->slot are set for
 * messages).  Format: see Documentation/trace/events.rst, "Event formats".
 */
int plan_tp_field(const char *tracefs, const char *cat, const char *event,
		  const char *field, struct plan_tp_field_info *fi,
		  char *fields, size_t fields_len);

/*
 * plan_tp_fields() - each field of tracepoint @cat:@event (its format file
 * under @tracefs) but the common_* ones, in file order, passed to @fn with
 * what plan_tp_field() would find for it, until @fn returns non-zero,
 * which is returned.  Returns 0 when all were passed, -ENOENT if the
 * event does not exist.
 */
int plan_tp_fields(const char *tracefs, const char *cat, const char *event,
		   int (*fn)(const char *name,
			     const struct plan_tp_field_info *fi, void *ctx),
		   void *ctx);

/*
 * plan_calib_class() - the calibration class (enum calib_class,
 * include/iprof/calib_cost.h) of timer @timer of @p, as its shape says from the
 * attachments planned for it: CALIB_NONE for a timer in error.  Which
 * measured cost (src/cli/calib.c) its compensation uses.
 */
int plan_calib_class(const struct plan *p, uint32_t timer);

/*
 * plan_calib_inline_class() - the calibration class whose cost a call
 * through @timer's inlined instances' probes is taken as (enum
 * calib_class): a user function's, CALIB_RETSITE_STEP (uprobes at any
 * instruction, single-stepped, as the entry and the return site of that
 * class), CALIB_RETSITE where every instance's start is at an
 * instruction the kernel emulates (plan_ufunc_inline_class()); a kernel
 * function's, CALIB_KPROBE (kprobes).  CALIB_NONE (-1)
 * for a timer without inlined instances or planned in error.
 */
int plan_calib_inline_class(const struct plan *p, uint32_t timer);

#endif /* IPROF_PLAN_H */
