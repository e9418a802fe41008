/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Probe list: the parsed form of probes.d/NAME.conf files and -e specs.
 * Kernel-free: this module reads text only.  The grammar is documented in
 * probes.d/README.md and iprof(8):
 *
 *   # comment
 *   fentry:FUNC [as NAME] [if COND]        kernel function, fentry/fexit
 *   kprobe:FUNC [as NAME] [if COND]        kernel function, kprobe/kretprobe
 *   func:FUNC   [as NAME] [if COND]        fentry where allowed, else kprobe
 *   uprobe:PATH:FUNC [as NAME] [if COND]   user function, uprobe/uretprobe
 *   span NAME = START -> STOP              tracepoint:CAT:EVENT [if COND]
 *                                          or usdt:PATH[:PROVIDER]:NAME
 *                                          [if COND] (argN only)
 *   span NAME = START -> STOP key A[=B][,A2[=B2]...]
 *                                          a keyed span: matched by fields
 *   span NAME = START -> STOP | STOP2 ...  alternative stops (at most
 *                                          PROBE_MAX_STOPS, not keyed):
 *                                          the first to fire ends it
 *   include FILE
 *
 * COND is FIELD[:TYPE] OP VALUE joined by &&; FIELD is a tracepoint field
 * name or argN; TYPE is s8 u8 s16 u16 s32 u32 s64 u64; OP is one of
 * == != < <= > >= &; VALUE is decimal (optionally negative) or 0x hex.
 *
 * KEY (`key A[=B],...`, at the end of a span line only) is 1 to
 * IPROF_MAX_KEY fields joined by ',', no A (nor B) twice: A a field of
 * START's tracepoint, B the field of STOP that must equal it (A's name
 * when =B is left out); blanks around ',' and '=' are optional.  A name
 * that is no field of its tracepoint may be pid, tid or cpu: the planner
 * resolves names (include/iprof/plan.h).
 *
 * Files are read with limits: a probe file must be a regular file (or a
 * pipe) of at most 1 MiB, with lines of at most 4096 bytes and no NUL byte.
 */
#ifndef IPROF_PROBE_H
#define IPROF_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "iprof/abi.h"

/*
 * A probe kind: a value here and its row in kinds[] (src/probe/probe.c,
 * struct probe_kind_info), which is all the parser, the planner, the
 * loader, the calibration and --dry-run ask of it.
 */
enum probe_kind {
	PROBE_FENTRY, /* fentry:FUNC */
	PROBE_KPROBE, /* kprobe:FUNC */
	PROBE_FUNC, /* func:FUNC */
	PROBE_UPROBE, /* uprobe:PATH:FUNC */
	PROBE_SPAN, /* span NAME = tracepoint:.. -> tracepoint:.. */
};

/* What a kind's timer times, and so what its line says after the word */
enum probe_at {
	/* KIND:FUNC[|OTHER...]: a kernel function (kallsyms), timed from
	 * its entry to its return by the mechanisms of probe_kind_info.via */
	PROBE_AT_KFUNC,
	/* KIND:PATH:FUNC: a function of an ELF file, uprobes (return sites
	 * or uretprobes) */
	PROBE_AT_UFUNC,
	/* span NAME = tracepoint:.. -> tracepoint:..: from one tracepoint
	 * (or raw syscall) to another, no function */
	PROBE_AT_SPAN,
};

/* probe_kind_info.via: what a kernel function may be attached with */
#define PROBE_VIA_FENTRY 1u /* fentry/fexit (BPF trampolines) */
#define PROBE_VIA_KPROBE 2u /* kprobe/kretprobe (single or kprobe_multi) */

/* probe_kind_info.syntax: what its line says after the word */
#define PROBE_SYN_FUNC 1u /* KIND:FUNC (else a keyword line: span NAME = ...) */
#define PROBE_SYN_PATH 2u /* KIND:PATH:FUNC, FUNC a user function's name */
#define PROBE_SYN_ALTS 4u /* FUNC|OTHER|...: a kernel function's names */

struct probe_kind_info {
	const char *name; /* its word: probe files, --dry-run, reports */
	enum probe_at at;
	/* PROBE_AT_KFUNC: the mechanisms the planner lets the loader try,
	 * fentry first (plan_timer.via); a kind without PROBE_VIA_KPROBE
	 * needs a function ftrace patches, one without PROBE_VIA_FENTRY a
	 * name the kernel has once.  0 for the others. */
	unsigned int via;
	unsigned int syntax; /* PROBE_SYN_*: its grammar's tail */
};

/*
 * One comparison of a condition.  field is a tracepoint field name, or
 * NULL when arg >= 0 (argN).  FIELD:TYPE (TYPE one of s8 u8 s16 u16 s32
 * u32 s64 u64) sets has_type, width and is_signed: the value is read as
 * that type (an argument register truncated to width bytes, then sign- or
 * zero-extended).  Without a type, has_type, width and is_signed are 0.
 */
struct probe_cond {
	char *field; /* owned; NULL for argN */
	int arg; /* N of argN, or -1 */
	enum iprof_cond_op op;
	uint64_t value; /* negative decimals are stored two's complement */
	int col; /* 1-based column of the field in its line, for messages */
	int has_type; /* FIELD:TYPE was written */
	int width; /* bytes of TYPE: 1, 2, 4 or 8; 0 without a type */
	int is_signed; /* TYPE is s8, s16, s32 or s64 */
	int hex; /* VALUE was written 0x...: echoed so (plan_cond_str()) */
	/* `str(F) OP "TEXT"`: F (field or arg, has_type 8 bytes) holds a
	 * user address; op IPROF_OP_STREQ, STRNE or STRPRE (`=~ "TEXT*"`,
	 * the '*' not kept); the constant's @str_len bytes (no NUL inside,
	 * at most IPROF_STRCOND_MAX), owned; NULL: a number's comparison */
	char *str;
	int str_len;
};

/* Most stops a span may have: STOP | STOP2 | ... (doc/probes.md) */
#define PROBE_MAX_STOPS 4

/* One side of a timer: a tracepoint or USDT probe (spans) or the
 * function entry. */

struct probe_point {
	char *category; /* tracepoint category (spans), owned, else NULL;
			 * a USDT probe's PROVIDER (NULL: not written) */
	char *event; /* tracepoint event (spans), owned, else NULL; a USDT
		      * probe's NAME */
	/* usdt:PATH[:PROVIDER]:NAME: PATH as written (a binary or library,
	 * resolved as a uprobe's), owned; NULL: not a USDT probe */
	char *usdt;
	/* uprobe:PATH:FUNC or uretprobe:PATH:FUNC as a span side: PATH as
	 * written (resolved as a uprobe line's), owned, FUNC in event; the
	 * function's entry (ret 0) or return (ret 1) as a point.  NULL: not
	 * a user function */
	char *uprobe;
	int ret;
	int ncond;
	struct probe_cond cond[IPROF_MAX_COND];
	int col; /* 1-based column where this point starts: the "tracepoint:"
		  * of a span side, FUNC (PATH for uprobe) of a function */
};

/*
 * One field of a keyed span's key: A[=B] of `key A[=B],...`.  start is
 * A, a field of the start's tracepoint (or pid, tid, cpu); stop is B,
 * the stop's field that must equal it: a copy of A when no =B was
 * written.  Both owned.
 */
struct probe_key {
	char *start;
	char *stop;
	int col; /* 1-based column of A in its line, for messages */
	int stop_col; /* of B; col when no =B was written */
};

struct probe {
	enum probe_kind kind;
	char *name; /* timer name: FUNC, span NAME, or the `as` NAME; owned */
	char *func; /* FUNC for function kinds (may hold * and ? globs) */
	char *path; /* uprobe binary path as written, owned; else NULL */
	struct probe_point start; /* function kinds: conditions on entry */
	struct probe_point stop; /* spans only: the first stop written */
	/* spans: the other stops of `-> STOP | STOP2 | ...`, in the order
	 * written (nalt 0..PROBE_MAX_STOPS - 1): whichever of them and stop
	 * fires first on the thread (its own conditions holding) ends the
	 * span; never keyed.  malloc'ed, owned; NULL when nalt is 0 (most
	 * lines: a probe list may hold 200000) */
	int nalt;
	struct probe_point *alt;
	char *file; /* origin: file path, or "-e" for the command line */
	int line; /* 1-based line in file (the Nth -e for "-e") */
	int name_col; /* 1-based column of the name (FUNC, span or `as` NAME) */
	/* spans: key fields, in the order written (0: not keyed, the
	 * start and stop match on one thread) */
	int nkey;
	struct probe_key key[IPROF_MAX_KEY];
	/* `name FIELD`: each call named by the value of FIELD (argN[:TYPE]
	 * or a tracepoint field of the start) when it starts; op and value
	 * unused.  named 0: not named */
	int named;
	struct probe_cond name_src;
	/* `name str(F)[:str(G)]`: the name is text, the strings at the user
	 * addresses F (name_src) and G (name_src2) hold; name_parts 1 or 2
	 * (IPROF_NAME_PARTS), 0: an integer name */
	int name_parts;
	struct probe_cond name_src2;
	/* `name ARG stop ARG2` (spans): each stop names the call it ends by
	 * ARG2 (stop_src, and stop_src2 for a second str() part), read at
	 * that stop's probe, in name's shape (an integer, or name_parts
	 * strings): it closes the innermost open frame of its name, or none
	 * (IPROF_AX_STOPNAME).  stop_named 0: the stops name nothing */
	int stop_named;
	struct probe_cond stop_src;
	struct probe_cond stop_src2;
};

/*
 * Limits on what probe files can make iprof do, over a whole probe list
 * (every -P file, its includes and the -e lines together).
 */
#define PROBE_MAX_PROBES 200000 /* lines that define a timer */
#define PROBE_MAX_INCLUDES 1000 /* `include` lines followed */
#define PROBE_MAX_BYTES (16u << 20) /* bytes read from all files */

struct probe_list {
	struct probe *v;
	size_t n, cap;
	size_t nincludes; /* include lines followed so far */
	size_t bytes; /* bytes read from probe files so far */
	/*
	 * Gathering errors (set by the caller before parsing): 0, the
	 * parse stops at the first error and @err holds its one message;
	 * N > 0, a line with an error is left out and the parse goes on
	 * (an include it cannot read too; a limit above, a NUL byte, an
	 * unreadable top-level file and out of memory still stop it), and
	 * @err gets one entry per error while nerrors <= N: the message,
	 * then (where the error has a column) the line indented by two
	 * spaces and a line with a '^' under that column, each entry's lines
	 * ended by '\n'.  nerrors counts the errors over every call on
	 * this list (PROBE_SHOW_ERRORS: the bound the CLI uses).
	 */
	unsigned max_errors;
	unsigned nerrors;
};

/* errors shown in full when a probe list is parsed for a run */
#define PROBE_SHOW_ERRORS 20

/*
 * probe_parse_file() - parse a probe file and every file it includes,
 * appending to @pl.  Relative include paths are taken from the including
 * file's directory.  Include cycles and nesting deeper than 16 are errors.
 *
 * On error returns a negative errno and writes one message into @err (size
 * @errlen): -EINVAL for syntax ("file:line:col: found X, expected Y"; a
 * `key` on a line that is no span: "file:line:col: key applies to spans
 * only: ...", at the `key`), a NUL
 * byte, or a file that is neither regular nor an anonymous pipe ("PATH: not
 * a regular file", opened without blocking: a named FIFO is refused, never
 * waited on); -EFBIG for a file larger than 1 MiB, a line longer than 4096
 * bytes or more than PROBE_MAX_BYTES read into @pl in all; -E2BIG for more
 * than PROBE_MAX_PROBES timers or PROBE_MAX_INCLUDES includes in @pl (the
 * cap is in the message); -ELOOP for include cycles and depth; -ENOENT,
 * -EISDIR etc. for files that cannot be opened.  An included file that
 * cannot be opened (or is too large, or not a regular file) is reported at
 * the include line; an error inside it at its own line.  Probes parsed
 * before the error stay in @pl; with @pl->max_errors, every valid line
 * stays, and the return is the first error's.
 */
int probe_parse_file(struct probe_list *pl, const char *path, char *err,
		     size_t errlen);

/*
 * probe_parse_line() - parse one line of the grammar (an -e SPEC, or one
 * line of a file).  @origin and @lineno are used in messages and stored in
 * the probe.  An `include` in an -e line is resolved relative to the
 * current directory.
 * Blank and comment lines are accepted and add nothing.
 * Returns 0, or a negative errno with @err filled as above.
 */
int probe_parse_line(struct probe_list *pl, const char *line,
		     const char *origin, int lineno, char *err, size_t errlen);

/*
 * probe_list_check() - whole-list checks: two timers with the same name are
 * an error naming both places.  Returns 0 or -EINVAL with @err filled:
 * the earliest second use; with @pl->max_errors, each second use in list
 * order, one line each, while @pl->nerrors (counted here too) <= the
 * bound (no line shown: the probes keep no text).
 */
int probe_list_check(struct probe_list *pl, char *err, size_t errlen);

/*
 * probe_show_line() - where an error points, for a reader: "  LINE\n  ^\n"
 * into @buf (@len bytes; 240 hold any), @line (at most 100 bytes of it
 * around byte @col, 1-based, with "..." where cut) and a caret under
 * @col.  A control byte shows as '?' so the caret lines up; a UTF-8
 * character counts one column.  0, or -EINVAL when @col is not within
 * @line (or just past its end) or @len is 0.
 */
int probe_show_line(char *buf, size_t len, const char *line, int col);

/* probe_list_free() - free everything @pl owns; @pl may be NULL. */
void probe_list_free(struct probe_list *pl);

/*
 * probe_kind() - @k's row (static); a value out of the enum gets a row
 * named "unknown" (a span's, which no function check applies to).
 */
const struct probe_kind_info *probe_kind(enum probe_kind k);

/* probe_kind_at() - what @k's timers time: probe_kind(@k)->at. */
enum probe_at probe_kind_at(enum probe_kind k);

/* probe_kind_str() - "fentry", "kprobe", "func", "uprobe", "span". */
const char *probe_kind_str(enum probe_kind k);

/* probe_op_str() - "==", "!=", "<", "<=", ">", ">=", "&". */
const char *probe_op_str(enum iprof_cond_op op);

#endif /* IPROF_PROBE_H */
