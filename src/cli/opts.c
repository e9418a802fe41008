// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command line of iprof, iprof list and iprof record: their options'
 * table (--help, getopt_long()'s tables and the completion's lists are
 * made from it, src/cli/optab.h), struct opts (src/cli/opts.h) and the
 * probes they name.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/ksym.h"
#include "iprof/sym.h"
#include "iprof/util.h"
#include "cli/opts.h"
#include "kernel/kspans.h"
#include "kernel/uprobe_emu.h"
#include "cli/target.h"
#include "cli/list.h"
#include "cli/log.h"
#include "cli/report_opts.h"

/* --returns HOW, by enum plan_returns; --interval-mode MODE, by
 * opts.delta */
static const char *const returns_names[] = { "auto", "sites", "uretprobe" };
static const char *const interval_modes[] = { "cumulative", "delta" };

/* iprof's own options: getopt_long() codes after the report options' */
enum {
	O_STRICT = RO_NEXT,
	O_DRY,
	O_RB,
	O_INTERVAL,
	O_INTERVAL_MODE,
	O_MAXACTIVE,
	O_REPORT_OUTPUT,
	O_LISTEN,
	O_FOLD_THREADS,
	O_COMM,
	O_EXE,
	O_CGROUP,
	O_RETURNS,
	O_NO_EMULATE,
	O_NO_INLINE,
	O_DEBUGINFO,
	O_SPAN_KEYS,
	O_SPAN_TIMEOUT,
	O_COMMAND_STATUS,
	O_KEEP_GOING,
	O_OFFCPU_STACKS,
};

/* the words of --returns and --interval-mode (the report options':
 * report_opts_words()) */
static int run_words(FILE *f, int c)
{
	const char *const *w = c == O_RETURNS ? returns_names : interval_modes;
	size_t n = c == O_RETURNS ? 3 : 2;

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", w[i]);
	return 0;
}

#define REQ required_argument
#define RW report_opts_words

/* the options of iprof, iprof record and iprof list OPTIONS, as --help
 * lists them */
/* clang-format off */
static const struct optdef run_rows[] = {
	OPTAB_LINE("Probes:"),
	OPT("probes", 'P', REQ, "FILE", "probe file (repeatable; - reads stdin); grammar: iprof(8)"),
	OPT("event", 'e', REQ, "SPEC", "one probe line, e.g. 'uprobe:/bin/x:f' (repeatable)"),
	OPTAB_LINE("\nTargets (default: the whole system):"),
	OPT("pid", 'p', REQ, "PID", "trace process PID and its children (repeatable)"),
	OPT("comm", O_COMM, REQ, "NAME", "trace the processes named NAME, running now or\n"
	  "started later (at exec), and their children;\n"
	  "the first 15 bytes, as the kernel keeps them"),
	OPT("exe", O_EXE, REQ, "PATH", "... that run the executable PATH (the same\n"
	  "file: device and inode, not the path string)"),
	OPT("cgroup", O_CGROUP, REQ, "PATH", "... in the cgroup v2 PATH or below it, e.g.\n"
	  "/sys/fs/cgroup/system.slice/NAME.service\n"
	  "(up to 8 of each; with -p: all of them; iprof\n"
	  "then runs until stopped: a restarted daemon\n"
	  "is traced again)"),
	OPT(NULL, 0, 0, "-- COMMAND [ARG...]", "run COMMAND once every probe is attached, trace\n"
	  "it and its children, stop when it exits"),
	OPT("duration", 'd', REQ, "TIME", "stop after TIME (10s, 500ms, 2m, 1h)"),
	OPTAB_LINE("\nOutput:"),
	OPT("format", 'f', REQ, "FMT", "", .list = OPTAB_LIST_DETAIL, .words = RW),
	OPT("output", 'o', REQ, "FILE", "write the report to FILE instead of stdout\n"
	  "(iprof record: the recording, doc/recording.md)"),
	OPT("report-output", O_REPORT_OUTPUT, REQ, "FILE", "iprof record: also write the live report\n"
	  "(-f FMT) to FILE ('-': stdout)"),
	OPT("sort", RO_SORT, REQ, "KEY", "order of siblings: ", .list = OPTAB_LIST_DETAIL, .tail = "; table, json, folded", .words = RW),
	OPT("min-total", RO_MIN_TOTAL, REQ, "TIME", "hide paths whose total time is below TIME (still\n"
	  "counted in their parents); table, json, folded,\n"
	  "pprof"),
	OPT("max-depth", RO_MAX_DEPTH, REQ, "N", "hide paths deeper than N timers; table, json,\n"
	  "folded, pprof;\n"
	  "chrome: leaves out the calls deeper than N"),
	OPT("columns", RO_COLUMNS, REQ, "LIST", "table columns, comma-separated, '+LIST' to add to the default: ", .list = OPTAB_LIST_DETAIL, .words = RW),
	OPT("json-tree", RO_JSON_TREE, REQ, "SHAPE", "nested (default: each node holds its children)\n"
	  "or flat (-f json: one list of nodes with parent\n"
	  "ids: jq 1.6 reads no tree nested over 84 deep)", .words = RW),
	OPT("weight", RO_WEIGHT, REQ, "W", "folded line values: ", .list = OPTAB_LIST_DETAIL, .tail = " (exclusive of children, ns)", .words = RW),
	OPT("by", RO_BY, REQ, "KEY", "split the tree under a root per ", .list = OPTAB_LIST_DETAIL, .tail = "; with comm, a renamed thread's timers go under its new name", .words = RW),
	OPT("max-paths", RO_MAX_PATHS, REQ, "N", "at most N paths in the tree (default 10000, about\n"
	  "8 KiB each; 0: no cap); timers on new paths\n"
	  "beyond it are counted under '[other]'"),
	OPT("max-keys", RO_MAX_KEYS, REQ, "N", "at most N --by roots (default 1000; 0: no cap):\n"
	  "a new one folds the root idle longest (its\n"
	  "threads exited) into '[other]', paths kept"),
	OPT("slowest", RO_SLOWEST, REQ, "K", "keep each path's K slowest calls (1..64; 0: off,\n"
	  "the default): start, wall time, its on-CPU, runq\n"
	  "and blocked parts, thread, the calls made inside\n"
	  "each by path; table: a section per path; json:\n"
	  "\"slowest\""),
	OPT("no-compensate", RO_NO_COMPENSATE, no_argument, NULL, "raw times: no calibration at start, the probes'\n"
	  "own cost left in every time (by default it is\n"
	  "measured per mechanism and subtracted)"),
	OPT("offcpu-stacks", O_OFFCPU_STACKS, optional_argument, "[=user]", "per path, the kernel stacks its calls blocked\n"
	  "on and the threads that woke them, by off-CPU\n"
	  "time (off by default); =user: the user stack\n"
	  "under each too (frame pointers: a program\n"
	  "built without them gives a short one); table:\n"
	  "a section per path; json: \"offcpu\""),
	OPT("interval", O_INTERVAL, REQ, "TIME", "also report every TIME while tracing (1s, 10m);\n"
	  "with -o, FILE is replaced by each new report;\n"
	  "-f json: one line per report (NDJSON)"),
	OPT("interval-mode", O_INTERVAL_MODE, REQ, "M", "cumulative (default: since the start) or delta\n"
	  "(each report covers its interval only)", .words = run_words),
	OPT("listen", O_LISTEN, REQ, "ADDR:PORT", "serve the OpenMetrics report at\n"
	  "http://ADDR:PORT/metrics, renewed every --interval\n"
	  "(default 1s); ':PORT' binds 127.0.0.1"),
	OPTAB_LINE("\nOther:"),
	OPT("strict", O_STRICT, no_argument, NULL, "fail if any probe cannot be attached"),
	OPT("keep-going", O_KEEP_GOING, no_argument, NULL, "trace the other probes when one names a function,\n"
	  "file or tracepoint that does not exist (by default an error:\n"
	  "exit 2, nothing attached, the command not run)"),
	OPT("command-status", O_COMMAND_STATUS, no_argument, NULL, "exit with the -- COMMAND's exit status (128 + N\n"
	  "when signal N killed it) where iprof's own is 0"),
	OPT("returns", O_RETURNS, REQ, "HOW", "how user functions stop: auto (default: at their\n"
	  "return sites where the kernel lets iprof run\n"
	  "their ret (Linux 6.19+); else by uretprobe in a\n"
	  "-- CMD or -p program that nothing can unwind\n"
	  "through, return sites elsewhere; where none can\n"
	  "be found and a uretprobe is unsafe, entry only:\n"
	  "counted, untimed), sites (never a uretprobe),\n"
	  "uretprobe (always: a C++ exception, Rust panic\n"
	  "or coroutine switch through one kills the\n"
	  "program; a longjmp past one does not)", .words = run_words),
	OPT("no-emulate", O_NO_EMULATE, no_argument, NULL, "let the kernel single-step every probed\n"
	  "instruction (a return site's ret, an entry's\n"
	  "endbr64) even where iprof could run it itself"),
	OPT("no-inline", O_NO_INLINE, no_argument, NULL, "time user functions out of line only, not\n"
	  "where the compiler inlined them (DWARF)"),
	OPT("debuginfo", O_DEBUGINFO, REQ, "DIR", "more debug files of user binaries, found in DIR\n"
	  "by build ID (DIR/.build-id/) or .gnu_debuglink"),
	OPT("dry-run", O_DRY, no_argument, NULL, "resolve the probes, print the plan, trace nothing\n"
	  "(same as 'iprof list'); -f json: as JSON;\n"
	  "-o FILE: to FILE"),
	OPT("rb-size", O_RB, REQ, "SIZE", "BPF ring buffer size per CPU (rounded up to a\n"
	  "power of two; default: 64M shared out over\n"
	  "the CPUs, 256K to 8M each)"),
	OPT("fold-threads", O_FOLD_THREADS, REQ, "N", "merge and fold the records with N threads\n"
	  "(default 1: in the thread that reads the\n"
	  "rings), each traced thread's in one of them;\n"
	  "reports merge their trees (1 to 64)"),
	OPT("maxactive", O_MAXACTIVE, REQ, "N", "kretprobe instances per function: calls open at\n"
	  "once that get a return probe (default 256, max\n"
	  "4096); calls beyond it are counted as misses;\n"
	  "0: the kernel's default, misses not counted"),
	OPT("span-keys", O_SPAN_KEYS, REQ, "N", "keyed spans open at once, all together\n"
	  "(default 65536, max 1M): a start beyond\n"
	  "them is counted, not timed"),
	OPT("span-timeout", O_SPAN_TIMEOUT, REQ, "TIME", "a keyed span whose stop has not come\n"
	  "in TIME is dropped, counted as expired\n"
	  "(checked every TIME/2, 10ms to 1s apart;\n"
	  "default 10s; 0: never)"),
	OPT("verbose", 'v', no_argument, NULL, "print libbpf's messages, the BPF programs loaded\n"
	  "(instructions verified, load time), and each\n"
	  "timer that cannot be attached as it is skipped"),
	OPT("quiet", 'q', no_argument, NULL, "no progress messages on stderr"),
	OPT("help", 'h', no_argument, NULL, "this help"),
	OPT("version", 'V', no_argument, NULL, "print the version"),
	{ 0 },
};
/* clang-format on */

#undef REQ
#undef RW

const struct optab_cmd run_cmd_opts = {
	.head = "Usage: iprof [OPTIONS] [-- COMMAND [ARG...]]\n"
		"       iprof list [OPTIONS]          the plan of the probes, as --dry-run\n"
		"       iprof list tracepoints [-v] [GLOB]\n"
		"       iprof list functions BINARY [GLOB]\n"
		"       iprof list kernel [GLOB]\n"
		"       iprof list usdt BINARY [GLOB]  what can be probed ('iprof list -h')\n"
		"       iprof record -o FILE [OPTIONS] [-- COMMAND...]   record the run\n"
		"       iprof report [OPTIONS] FILE    report a recording ('iprof report -h')\n"
		"       iprof diff [OPTIONS] A B       compare two reports or recordings\n"
		"Options before a subcommand go with it (iprof -q record ...);\n"
		"'-- record' runs a command named record.\n"
		"\n"
		"Times the timers named in probe files (start/stop pairs on kernel\n"
		"functions, user functions or tracepoints) with BPF, and prints their\n"
		"call tree: count, total (thread) time, self time, wall time,\n"
		"min/avg/max, percentiles, thread count.\n"
		"\n",
	.rows = run_rows,
	.foot = "\n"
		"Ctrl-C (SIGINT) or SIGTERM stops tracing and prints the full report.\n"
		"Exit status: 0 every timer traced; 1 runtime failure (nothing could be\n"
		"attached, BPF, the report could not be written); 2 bad input (and\n"
		"a probe naming a function, file or tracepoint that does not exist,\n"
		"unless --keep-going; --strict when a timer cannot be attached); 3 traced\n"
		"and reported, but\n"
		"incomplete: some timers were not attached (listed in the report), or\n"
		"calls were lost (the report's loss line says which); 130 interrupted\n"
		"before tracing began; 128+N a second signal N (it ends iprof at once,\n"
		"the first asks for the report; the same one again from the same\n"
		"process within 1 s is the same request), or the command killed by\n"
		"signal N by itself (the report is written; before 3, after 1).\n"
		"'iprof list SUBCOMMAND': 0 listed, 1 nothing matched, 2 error.\n",
	.col = 24,
	.order_first = 1,
};

static int add_str(const char ***v, int *n, const char *s)
{
	const char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

/* Is output @path iprof's stdout: "-", or a name of its file (/dev/stdout)? */
static int is_stdout(const char *path)
{
	struct stat a, b;

	return !strcmp(path, "-") ||
	       (!stat(path, &a) && !fstat(STDOUT_FILENO, &b) &&
		a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/*
 * Would an output file (-o, the recording, --report-output) overwrite an
 * input: a probe file, the command to run, or the other output?  Says
 * which and returns 1 (bad input), else 0.
 */
static int outputs_clobber_inputs(const struct opts *o)
{
	const char *outs[2] = { o->record ? o->record : o->r.output,
				o->record ? o->r.output : NULL };
	char *exe = !o->cmd ? NULL :
		    strchr(o->cmd[0], '/') ? strdup(o->cmd[0]) :
					     target_find_in_path(o->cmd[0]);
	int i, k, bad = 0;

	for (k = 0; k < 2 && !bad; k++) {
		if (!outs[k])
			continue;
		for (i = 0; i < o->nprobe_files && !bad; i++)
			if (util_same_file(outs[k], o->probe_files[i])) {
				log_error(
					"output '%s' is the probe file '%s': it would be overwritten",
					outs[k], o->probe_files[i]);
				bad = 1;
			}
		if (!bad && exe && util_same_file(outs[k], exe)) {
			log_error(
				"output '%s' is the command to trace (%s): it would be overwritten",
				outs[k], exe);
			bad = 1;
		}
	}
	if (!bad && outs[0] && outs[1] && (!strcmp(outs[0], outs[1]) ||
					   util_same_file(outs[0], outs[1]) ||
					   (is_stdout(outs[0]) &&
					    is_stdout(outs[1])))) {
		log_error("the recording and --report-output are one file '%s'",
			  outs[0]);
		bad = 1;
	}
	free(exe);
	return bad;
}

/* -p PID: one more process to trace.  0, -EINVAL (said) or -ENOMEM. */
static int add_pid(struct opts *o, const char *arg)
{
	pid_t *v;
	char *end;
	long pid;

	errno = 0;
	pid = strtol(arg, &end, 10);
	if (errno || *end || pid <= 0 || pid > 0x7fffffff) {
		log_error(
			"-p '%s': expected a process id (a positive number)",
			arg);
		return -EINVAL;
	}
	v = realloc(o->pids, (size_t)(o->npids + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[o->npids++] = (pid_t)pid;
	o->pids = v;
	return 0;
}

/* --comm, --exe, --cgroup (@c) NAME: one more selector.  0, -EINVAL
 * (said) or -ENOMEM. */
static int add_selector(struct opts *o, int c, const char *arg)
{
	const char **v = c == O_COMM ? o->sel_comm :
			 c == O_EXE  ? o->sel_exe :
				       o->sel_cgroup;
	int *n = c == O_COMM ? &o->nsel_comm :
		 c == O_EXE  ? &o->nsel_exe :
			       &o->nsel_cgroup;
	const char *name = c == O_COMM ? "comm" :
			   c == O_EXE  ? "exe" :
					 "cgroup";

	if (!*arg) {
		log_error("--%s: empty", name);
		return -EINVAL;
	}
	if (*n == IPROF_MAX_SEL) {
		log_error("--%s '%s': at most %d --%s options",
			  name, arg, IPROF_MAX_SEL, name);
		return -EINVAL;
	}
	v[(*n)++] = arg;
	if (asprintf(&o->select[o->nselect], "%s:%s", name,
		     arg) < 0)
		return -ENOMEM;
	o->nselect++;
	return 0;
}

/* the index of @arg in @names (@n), or -1 */
static int name_index(const char *const *names, size_t n, const char *arg)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], arg))
			return (int)i;
	return -1;
}

/* --returns HOW: 0, or -EINVAL with the error said */
static int parse_returns(struct opts *o, const char *arg)
{
	int i = name_index(returns_names, 3, arg);

	if (i < 0) {
		log_error("--returns '%s': expected auto, sites or uretprobe",
			  arg);
		return -EINVAL;
	}
	o->returns = (enum plan_returns)i;
	o->returns_set = 1;
	return 0;
}

/* --span-keys N, --span-timeout TIME: 0 or -EINVAL (said) */
static int parse_span_opt(struct opts *o, int c, const char *arg)
{
	uint64_t ul;

	if (c == O_SPAN_KEYS) {
		if (util_parse_uint(arg, 1, KSPANS_MAX_KEYS, &ul)) {
			log_error(
				"--span-keys '%s': expected a number from 1 to %u",
				arg, KSPANS_MAX_KEYS);
			return -EINVAL;
		}
		o->span_keys = (uint32_t)ul;
		return 0;
	}
	if (!strcmp(arg, "0")) {
		o->span_timeout_ns = 0;
	} else if (util_parse_duration(arg, &o->span_timeout_ns)) {
		log_error(
			"--span-timeout '%s': expected a time like 10s, 500ms, 2m, or 0 (never)",
			arg);
		return -EINVAL;
	}
	return 0;
}

/* flag_of() - the flag that option @c (an O_ without argument) sets */
static int *flag_of(struct opts *o, int c)
{
	switch (c) {
	case O_STRICT:
		return &o->strict;
	case O_KEEP_GOING:
		return &o->keep_going;
	default: /* O_COMMAND_STATUS */
		return &o->command_status;
	}
}

/* --offcpu-stacks[=user]: 0, or -EINVAL (said) */
static int parse_offcpu(struct opts *o, const char *arg)
{
	if (arg && strcmp(arg, "user")) {
		log_error("--offcpu-stacks='%s': expected =user (kernel and user stacks) or nothing (kernel stacks)",
			  arg);
		return -EINVAL;
	}
	o->offcpu_stacks = (int)(IPROF_OFF_KSTACK |
				 (arg ? IPROF_OFF_USTACK : 0));
	return 0;
}

/* --debuginfo DIR: 0, or -EINVAL (said) when DIR is no directory */
static int parse_debuginfo(struct opts *o, const char *arg)
{
	struct stat st;

	if (o->debuginfo) {
		log_error("--debuginfo given twice ('%s', '%s'): one directory",
			  o->debuginfo, arg);
		return -EINVAL;
	}
	if (stat(arg, &st) || !S_ISDIR(st.st_mode) || sym_set_debugdir(arg)) {
		log_error("--debuginfo %s: not a directory", arg);
		return -EINVAL;
	}
	o->debuginfo = arg; /* for libdwfl; the symbol lookup has it too */
	return 0;
}

static int parse_one(struct opts *o, int c, const char *arg)
{
	uint64_t ul;

	switch (c) {
	case 'P': /* "-": standard input, read as /dev/stdin */
		if (!strcmp(arg, "-"))
			arg = "/dev/stdin";
		return add_str(&o->probe_files, &o->nprobe_files, arg) ?
			       -ENOMEM :
			       0;
	case 'e':
		return add_str(&o->specs, &o->nspecs, arg) ? -ENOMEM : 0;
	case 'p':
		return add_pid(o, arg);
	case 'd':
		if (util_parse_duration(arg, &o->duration_ns) ||
		    !o->duration_ns) {
			log_error(
				"--duration '%s': expected a time above 0 and below 292 years, like 10s, 500ms, 2m (a number alone is seconds)",
				arg);
			return -EINVAL;
		}
		break;
	case O_REPORT_OUTPUT:
		o->report_output = arg;
		break;
	case O_STRICT:
	case O_KEEP_GOING:
	case O_COMMAND_STATUS:
		*flag_of(o, c) = 1;
		break;
	case O_OFFCPU_STACKS:
		return parse_offcpu(o, arg);
	case O_RETURNS:
		return parse_returns(o, arg);
	case O_NO_EMULATE:
		/* uprobe_emu_supported() is 0 for the plan and the loader
		 * alike */
		uprobe_emu_off();
		break;
	case O_NO_INLINE:
		o->no_inline = 1;
		break;
	case O_DEBUGINFO:
		return parse_debuginfo(o, arg);
	case O_DRY:
		o->dry_run = 1;
		break;
	case O_INTERVAL:
		if (util_parse_duration(arg, &o->interval_ns) ||
		    o->interval_ns < INTERVAL_MIN_NS) {
			log_error(
				"--interval '%s': expected a time from 10ms to 292 years, like 1s, 500ms, 1m",
				arg);
			return -EINVAL;
		}
		break;
	case O_LISTEN:
		o->listen = arg;
		break;
	case O_COMM:
	case O_EXE:
	case O_CGROUP:
		return add_selector(o, c, arg);
	case O_FOLD_THREADS:
		if (util_parse_uint(arg, 1, FOLD_MAX_THREADS, &ul)) {
			log_error("--fold-threads '%s': expected a number from 1 to %u",
				  arg, FOLD_MAX_THREADS);
			return -EINVAL;
		}
		o->fold_threads = (unsigned int)ul;
		break;
	case O_INTERVAL_MODE:
		o->delta = name_index(interval_modes, 2, arg);
		if (o->delta < 0) {
			log_error(
				"--interval-mode '%s': expected cumulative or delta",
				arg);
			return -EINVAL;
		}
		break;
	case O_RB:
		if (util_parse_size(arg, &o->rb_bytes) ||
		    o->rb_bytes < RB_SIZE_MIN || o->rb_bytes > RB_SIZE_MAX) {
			log_error(
				"--rb-size '%s': expected a size from 4K to 1G",
				arg);
			return -EINVAL;
		}
		break;
	case O_MAXACTIVE:
		if (util_parse_uint(arg, 0, MAXACTIVE_MAX, &ul)) {
			log_error(
				"--maxactive '%s': expected a number from 0 to 4096",
				arg);
			return -EINVAL;
		}
		o->maxactive = (unsigned int)ul;
		break;
	case O_SPAN_KEYS:
	case O_SPAN_TIMEOUT:
		return parse_span_opt(o, c, arg);
	case 'v':
		o->verbose = 1;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 'h':
		optab_help(stdout, &run_cmd_opts);
		exit(0);
	case 'V':
		printf("iprof %s (record ABI %d)\n", IPROF_VERSION,
		       IPROF_ABI_VERSION);
		exit(0);
	default:
		fprintf(stderr, "Try 'iprof --help'.\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * A binary format (-f pprof: REPORT_CAP_BINARY) is one document: not to a
 * terminal, and to stdout not once per --interval (concatenated
 * profiles, which pprof refuses); with -o the file is rewritten at each
 * interval (--dry-run writes none).  0 (said why) or 1.
 */
static int binary_out_ok(const struct opts *o)
{
	char why[256];

	if (o->dry_run ||
	    (o->r.output && *o->r.output && strcmp(o->r.output, "-")))
		return 1;
	/* a traced command owns stdout, so the report would go to stderr */
	if (o->cmd && !o->r.output && !o->record_mode &&
	    report_fmt_has(o->r.fmt, REPORT_CAP_BINARY)) {
		log_error(
			"--format %s with -- COMMAND: give -o FILE (or -o - for stdout): the command's stdout is its own and a binary report does not go to stderr",
			report_fmt_name(o->r.fmt));
		return 0;
	}
	if (!report_fmt_stdout_ok(o->r.fmt, isatty(STDOUT_FILENO),
				  o->interval_ns != 0, why, sizeof(why)))
		return 1;
	log_error("%s", why);
	return 0;
}

/*
 * After getopt_long(3) refused @arg (argv[optind - 1]; its own message
 * turned off): one line saying why.  An unknown "--NAME[=VALUE]" (optopt
 * 0) gets "did you mean --NAME?" with the long options of @lo nearest to
 * it (ksym_suggest()); an option of @shorts or @lo without its argument,
 * or an unknown short option, says which.
 */
static void say_refused(const struct option *lo, const char *shorts,
			const char *arg)
{
	char *names[256], buf[8192], want[64], near[192];
	size_t n = 0, used = 0;
	int k;

	if (optopt || !arg || strncmp(arg, "--", 2)) {
		const char *p = optopt > 0 && optopt < 256 ?
					strchr(shorts, optopt) :
					NULL;

		if ((p && p[1] == ':') || (arg && !strncmp(arg, "--", 2)))
			log_error("option '%s' needs an argument (iprof --help)",
				  arg ? arg : "?");
		else
			log_error("option '-%c': unknown (iprof --help)",
				  optopt > 0 && optopt < 256 ? optopt : '?');
		return;
	}
	snprintf(want, sizeof(want), "%.*s", (int)strcspn(arg, "="), arg);
	for (; lo->name && n < 256; lo++) {
		k = snprintf(buf + used, sizeof(buf) - used, "--%s", lo->name);
		if (k < 0 || (size_t)k >= sizeof(buf) - used)
			break;
		names[n++] = buf + used;
		used += (size_t)k + 1;
	}
	if (ksym_suggest(names, n, want, near, sizeof(near)))
		log_error("%s: unknown option" KSYM_SUGGEST_PFX "%s?", want,
			  near);
	else
		log_error("%s: unknown option (iprof --help)", want);
}

/* What the options say together, after the last one (@argv[optind] on:
 * the command).  0, or -EINVAL (said). */
static int check_args(struct opts *o, int argc, char **argv)
{
	int bad_interval, bad_by;

	if (optind < argc)
		o->cmd = &argv[optind];
	else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		log_error("'--' must be followed by a command");
		return -EINVAL;
	}
	if (!o->nprobe_files && !o->nspecs) {
		log_error(
			"no probes: give --probes FILE or -e SPEC (try 'iprof --help')");
		return -EINVAL;
	}
	if (o->delta && !o->interval_ns) {
		log_error("--interval-mode delta needs --interval TIME");
		return -EINVAL;
	}
	if (o->cmd && o->npids) {
		log_error(
			"-p and -- COMMAND exclude each other: trace one or the other");
		return -EINVAL;
	}
	if (o->record_mode) {
		/* iprof record: -o is the recording; the report is optional */
		if (!o->r.output || !*o->r.output) {
			log_cmd(LOG_LVL_ERROR, "record",
				"-o FILE (the recording) is required");
			return -EINVAL;
		}
		o->record = o->r.output;
		o->r.output = o->report_output;
	} else if (o->report_output) {
		log_error("--report-output applies to 'iprof record' only");
		return -EINVAL;
	}
	if (outputs_clobber_inputs(o))
		return -EINVAL;
	if (o->delta &&
	    (!report_fmt_has(o->r.fmt, REPORT_CAP_DELTA) || o->listen)) {
		log_error(
			"OpenMetrics counters never go back: --interval-mode delta does not apply to --format openmetrics, prometheus and --listen");
		return -EINVAL;
	}
	bad_interval = o->interval_ns &&
		       !report_fmt_has(o->r.fmt, REPORT_CAP_INTERVAL);
	bad_by = o->r.by && !report_fmt_has(o->r.fmt, REPORT_CAP_BY);
	if (bad_interval || bad_by) {
		const struct report_format *f = report_fmt_get(o->r.fmt);

		log_error("%s not apply to --format %s%s%s%s",
			  bad_interval && bad_by ? "--interval and --by do" :
			  bad_by		 ? "--by does" :
						   "--interval does",
			  f->name, f->shape ? " (" : "",
			  f->shape ? f->shape : "", f->shape ? ")" : "");
		return -EINVAL;
	}
	/* an option the chosen format would ignore is a mistake: say so */
	if (report_opts_check(&o->r, NULL) || !binary_out_ok(o))
		return -EINVAL;
	/* the plan is text, or JSON: no other format has a form of it */
	if (o->dry_run && report_fmt_has(o->r.fmt, REPORT_CAP_PARSED) &&
	    !report_fmt_has(o->r.fmt, REPORT_CAP_JSON)) {
		log_error("--dry-run prints the plan as text, or as JSON with -f json: -f %s has no form of it",
			  report_fmt_name(o->r.fmt));
		return -EINVAL;
	}
	return 0;
}

int opts_parse(int argc, char **argv, struct opts *o)
{
	struct optab t;
	int c, ret;

	if (optab_getopt(&t, &run_cmd_opts))
		return -E2BIG;

	o->rb_bytes = 0; /* loader_rb_cpu_bytes() */
	o->maxactive = MAXACTIVE_DEFAULT;
	o->span_keys = KSPANS_DEFAULT_KEYS;
	o->span_timeout_ns = SPAN_TIMEOUT_DEFAULT_NS;
	report_opts_init(&o->r);
	/* IPROF_NO_COMPENSATE=1: as --no-compensate (iprof(8), ENVIRONMENT) */
	o->r.no_compensate = getenv("IPROF_NO_COMPENSATE") &&
			     !strcmp(getenv("IPROF_NO_COMPENSATE"), "1");
	o->fold_threads = 1;
	if (argc > 1 && !strcmp(argv[1], "list")) {
		o->dry_run = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	} else if (argc > 1 && !strcmp(argv[1], "record")) {
		o->record_mode = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	/* getopt_long(3)'s own messages off: one line per refusal, with a
	 * near option's name (and to the journal with a priority: log.c) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, t.shorts, t.lo, NULL)) !=
	       -1) {
		if (c == '?' || c == ':') {
			say_refused(t.lo, t.shorts, argv[optind - 1]);
			return -EINVAL;
		}
		ret = report_opts_parse(&o->r, c, optarg, NULL);
		if (!ret)
			continue;
		if (ret < 0 || (ret = parse_one(o, c, optarg)))
			return ret;
	}
	return check_args(o, argc, argv);
}

/* each '\n'-ended line of @text as an error line */
static void log_lines(const char *text)
{
	const char *e;

	for (; *text; text = *e ? e + 1 : e) {
		e = strchrnul(text, '\n');
		log_error("%.*s", (int)(e - text), text);
	}
}

/* an error that stops the parse at once (probe_parse_file()) */
static int probes_fatal(int err)
{
	return err == -ENOMEM || err == -EFBIG || err == -E2BIG;
}

#define PROBE_ERRLEN (64 * 1024)

int opts_load_probes(const struct opts *o, struct probe_list *pl)
{
	char *err = malloc(PROBE_ERRLEN);
	int i, ret = 0, first = 0;

	if (!err) {
		log_error("out of memory");
		return -ENOMEM;
	}
	pl->max_errors = PROBE_SHOW_ERRORS;
	for (i = 0; i < o->nprobe_files + o->nspecs && !probes_fatal(first);
	     i++) {
		if (i < o->nprobe_files)
			ret = probe_parse_file(pl, o->probe_files[i], err,
					       PROBE_ERRLEN);
		else
			ret = probe_parse_line(pl, o->specs[i - o->nprobe_files],
					       "-e", i - o->nprobe_files + 1,
					       err, PROBE_ERRLEN);
		if (ret)
			log_lines(err);
		if (ret && (!first || probes_fatal(ret)))
			first = probes_fatal(ret) ? ret : -EINVAL;
	}
	if (!probes_fatal(first)) {
		ret = probe_list_check(pl, err, PROBE_ERRLEN);
		if (ret) {
			log_lines(err);
			first = -EINVAL;
		}
	}
	free(err);
	if (!pl->n && !first)
		log_error("the probe files define no timer");
	if (!pl->n)
		first = first ? first : -EINVAL;
	/* nothing left to plan: the count of the rest now */
	if (!pl->n || probes_fatal(first))
		opts_errors_more(pl);
	return first;
}

/* line @lineno (1-based) of @path into a malloc'ed string, without its
 * "\n" (or "\r\n") and, on line 1, a UTF-8 byte order mark; NULL if none */
static char *file_line(const char *path, int lineno)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = -1;
	FILE *f = fopen(path, "re");
	int i;

	if (!f)
		return NULL;
	for (i = 0; i < lineno; i++)
		if ((n = getline(&line, &cap, f)) < 0)
			break;
	fclose(f);
	if (n < 0) {
		free(line);
		return NULL;
	}
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (lineno == 1 && !strncmp(line, "\xef\xbb\xbf", 3))
		memmove(line, line + 3, n - 2);
	return line;
}

void opts_probe_error(const struct opts *o, struct probe_list *pl,
		      const struct probe *pr, const char *msg)
{
	char buf[256], *text = NULL, *end;
	size_t n = strlen(pr->file);
	long col;

	if (++pl->nerrors > PROBE_SHOW_ERRORS)
		return;
	log_error("%s", msg);
	if (strncmp(msg, pr->file, n) || msg[n] != ':' ||
	    strtol(msg + n + 1, &end, 10) != pr->line || *end != ':')
		return;
	col = strtol(end + 1, &end, 10);
	if (*end != ':')
		return;
	if (!strcmp(pr->file, "-e") && pr->line >= 1 && pr->line <= o->nspecs)
		text = strdup(o->specs[pr->line - 1]);
	else if (strcmp(pr->file, "-e"))
		text = file_line(pr->file, pr->line);
	if (text && !probe_show_line(buf, sizeof(buf), text, (int)col))
		log_lines(buf);
	free(text);
}

void opts_errors_more(const struct probe_list *pl)
{
	unsigned n = pl->nerrors - PROBE_SHOW_ERRORS;

	if (pl->nerrors > PROBE_SHOW_ERRORS)
		log_error("%u more error%s not shown (the first %d are above)",
			  n, n == 1 ? "" : "s", PROBE_SHOW_ERRORS);
}
