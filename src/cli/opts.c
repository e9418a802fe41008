// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command line of iprof, iprof list and iprof record: the usage text,
 * the options (struct opts, src/cli/opts.h) and the probes they name.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/sym.h"
#include "iprof/util.h"
#include "cli/opts.h"
#include "kernel/kspans.h"
#include "kernel/uprobe_emu.h"
#include "cli/target.h"
#include "cli/list.h"
#include "cli/log.h"
#include "cli/report_opts.h"

static void usage_other(FILE *f);

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iprof [OPTIONS] [-- COMMAND [ARG...]]\n"
		"       iprof list [OPTIONS]          the plan of the probes, as --dry-run\n"
		"       iprof list tracepoints [-v] [GLOB]\n"
		"       iprof list functions BINARY [GLOB]\n"
		"       iprof list kernel [GLOB]       what can be probed ('iprof list -h')\n"
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
		"\n"
		"Probes:\n"
		"  -P, --probes FILE     probe file (repeatable; - reads stdin); grammar: iprof(8)\n"
		"  -e, --event SPEC      one probe line, e.g. 'uprobe:/bin/x:f' (repeatable)\n"
		"\n"
		"Targets (default: the whole system):\n"
		"  -p, --pid PID         trace process PID and its children (repeatable)\n"
		"      --comm NAME       trace the processes named NAME, running now or\n"
		"                        started later (at exec), and their children;\n"
		"                        the first 15 bytes, as the kernel keeps them\n"
		"      --exe PATH        ... that run the executable PATH (the same\n"
		"                        file: device and inode, not the path string)\n"
		"      --cgroup PATH     ... in the cgroup v2 PATH or below it, e.g.\n"
		"                        /sys/fs/cgroup/system.slice/NAME.service\n"
		"                        (up to 8 of each; with -p: all of them; iprof\n"
		"                        then runs until stopped: a restarted daemon\n"
		"                        is traced again)\n"
		"  -- COMMAND [ARG...]   run COMMAND once every probe is attached, trace\n"
		"                        it and its children, stop when it exits\n"
		"  -d, --duration TIME   stop after TIME (10s, 500ms, 2m, 1h)\n"
		"\n"
		"Output:\n"
		"  -f, --format FMT      ");
	/* the lists from the tables (src/cli/report_opts.c) */
	report_opts_usage(f, 'f', "", "", 1);
	fprintf(f,
		"  -o, --output FILE     write the report to FILE instead of stdout\n"
		"                        (iprof record: the recording, doc/recording.md)\n"
		"      --report-output FILE  iprof record: also write the live report\n"
		"                        (-f FMT) to FILE ('-': stdout)\n"
		"      --sort KEY        ");
	report_opts_usage(f, RO_SORT, "order of siblings: ",
			  "; table, json, folded", 1);
	fprintf(f,
		"      --min-total TIME  hide paths whose total time is below TIME (still\n"
		"                        counted in their parents); table, json, folded,\n"
		"                        pprof\n"
		"      --max-depth N     hide paths deeper than N timers; table, json,\n"
		"                        folded, pprof;\n"
		"                        chrome: leaves out the calls deeper than N\n"
		"      --columns LIST    ");
	report_opts_usage(f, RO_COLUMNS,
			  "table columns, comma-separated, '+LIST' to add to "
			  "the default: ",
			  "", 1);
	fprintf(f,
		"      --json-tree SHAPE nested (default: each node holds its children)\n"
		"                        or flat (-f json: one list of nodes with parent\n"
		"                        ids: jq 1.6 reads no tree nested over 84 deep)\n");
	fprintf(f, "      --weight W        ");
	report_opts_usage(f, RO_WEIGHT, "folded line values: ",
			  " (exclusive of children, ns)", 1);
	fprintf(f, "      --by KEY          ");
	report_opts_usage(f, RO_BY, "split the tree under a root per ",
			  "; with comm, a renamed thread's timers go under "
			  "its new name",
			  1);
	fprintf(f,
		"      --max-paths N     at most N paths in the tree (default 10000, about\n"
		"                        8 KiB each; 0: no cap); timers on new paths\n"
		"                        beyond it are counted under '[other]'\n"
		"      --max-keys N      at most N --by roots (default 1000; 0: no cap):\n"
		"                        a new one folds the root idle longest (its\n"
		"                        threads exited) into '[other]', paths kept\n"
		"      --no-compensate   raw times: no calibration at start, the probes'\n"
		"                        own cost left in every time (by default it is\n"
		"                        measured per mechanism and subtracted)\n"
		"      --interval TIME   also report every TIME while tracing (1s, 10m);\n"
		"                        with -o, FILE is replaced by each new report;\n"
		"                        -f json: one line per report (NDJSON)\n"
		"      --interval-mode M cumulative (default: since the start) or delta\n"
		"                        (each report covers its interval only)\n"
		"      --listen ADDR:PORT  serve the OpenMetrics report at\n"
		"                        http://ADDR:PORT/metrics, renewed every --interval\n"
		"                        (default 1s); ':PORT' binds 127.0.0.1\n");
	usage_other(f);
}

/* usage()'s end: the other options, signals and exit status */
static void usage_other(FILE *f)
{
	fprintf(f,
		"\n"
		"Other:\n"
		"      --strict          fail if any probe cannot be attached\n"
		"      --returns HOW     how user functions stop: auto (default: at their\n"
		"                        return sites where the kernel lets iprof run\n"
		"                        their ret (Linux 6.19+); else by uretprobe in a\n"
		"                        -- CMD or -p program that nothing can unwind\n"
		"                        through, return sites elsewhere; where none can\n"
		"                        be found and a uretprobe is unsafe, entry only:\n"
		"                        counted, untimed), sites (never a uretprobe),\n"
		"                        uretprobe (always: a C++ exception, Rust panic\n"
		"                        or coroutine switch through one kills the\n"
		"                        program; a longjmp past one does not)\n"
		"      --no-emulate      let the kernel single-step every probed\n"
		"                        instruction (a return site's ret, an entry's\n"
		"                        endbr64) even where iprof could run it itself\n"
		"      --no-inline       time user functions out of line only, not\n"
		"                        where the compiler inlined them (DWARF)\n"
		"      --debuginfo DIR   more debug files of user binaries, found in DIR\n"
		"                        by build ID (DIR/.build-id/) or .gnu_debuglink\n"
		"      --dry-run         resolve the probes, print the plan, trace nothing\n"
		"                        (same as 'iprof list'); -f json: as JSON;\n"
		"                        -o FILE: to FILE\n"
		"      --rb-size SIZE    BPF ring buffer size per CPU (rounded up to a\n"
		"                        power of two; default: 64M shared out over\n"
		"                        the CPUs, 256K to 8M each)\n"
		"      --fold-threads N  merge and fold the records with N threads\n"
		"                        (default 1: in the thread that reads the\n"
		"                        rings), each traced thread's in one of them;\n"
		"                        reports merge their trees (1 to 64)\n"
		"      --maxactive N     kretprobe instances per function: calls open at\n"
		"                        once that get a return probe (default 256, max\n"
		"                        4096); calls beyond it are counted as misses;\n"
		"                        0: the kernel's default, misses not counted\n"
		"      --span-keys N     keyed spans open at once, all together\n"
		"                        (default 65536, max 1M): a start beyond\n"
		"                        them is counted, not timed\n"
		"      --span-timeout TIME  a keyed span whose stop has not come\n"
		"                        in TIME is dropped, counted as expired\n"
		"                        (checked every TIME/2, 10ms to 1s apart;\n"
		"                        default 10s; 0: never)\n"
		"  -v, --verbose         print libbpf's messages, the BPF programs loaded\n"
		"                        (instructions verified, load time), and each\n"
		"                        timer that cannot be attached as it is skipped\n"
		"  -q, --quiet           no progress messages on stderr\n"
		"  -h, --help            this help\n"
		"  -V, --version         print the version\n"
		"\n"
		"Ctrl-C (SIGINT) or SIGTERM stops tracing and prints the full report.\n"
		"Exit status: 0 every timer traced; 1 runtime failure (nothing could be\n"
		"attached, BPF, the report could not be written); 2 bad input (and\n"
		"--strict when a timer cannot be attached); 3 traced and reported, but\n"
		"incomplete: some timers were not attached (listed in the report), or\n"
		"calls were lost (the report's loss line says which); 130 interrupted\n"
		"before tracing began; 128+N a second signal N (it ends iprof at once,\n"
		"the first asks for the report; the same one again from the same\n"
		"process within 1 s is the same request), or the command killed by\n"
		"signal N by itself (the report is written; before 3, after 1).\n"
		"'iprof list SUBCOMMAND': 0 listed, 1 nothing matched, 2 error.\n");
}

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
};

static const struct option long_opts[] = {
	REPORT_OPTS_LONG,
	{ "probes", required_argument, NULL, 'P' },
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'd' },
	{ "report-output", required_argument, NULL, O_REPORT_OUTPUT },
	{ "strict", no_argument, NULL, O_STRICT },
	{ "returns", required_argument, NULL, O_RETURNS },
	{ "no-emulate", no_argument, NULL, O_NO_EMULATE },
	{ "no-inline", no_argument, NULL, O_NO_INLINE },
	{ "debuginfo", required_argument, NULL, O_DEBUGINFO },
	{ "dry-run", no_argument, NULL, O_DRY },
	{ "rb-size", required_argument, NULL, O_RB },
	{ "maxactive", required_argument, NULL, O_MAXACTIVE },
	{ "span-keys", required_argument, NULL, O_SPAN_KEYS },
	{ "span-timeout", required_argument, NULL, O_SPAN_TIMEOUT },
	{ "interval", required_argument, NULL, O_INTERVAL },
	{ "interval-mode", required_argument, NULL, O_INTERVAL_MODE },
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "fold-threads", required_argument, NULL, O_FOLD_THREADS },
	{ "comm", required_argument, NULL, O_COMM },
	{ "exe", required_argument, NULL, O_EXE },
	{ "cgroup", required_argument, NULL, O_CGROUP },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

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

/* one option @c of iprof's own (not a report option), its value @arg:
 * into @o.  0, or -errno (said). */
/* --returns HOW, by enum plan_returns; --interval-mode MODE, by
 * opts.delta */
static const char *const returns_names[] = { "auto", "sites", "uretprobe" };
static const char *const interval_modes[] = { "cumulative", "delta" };

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
		o->strict = 1;
		break;
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
		usage(stdout);
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
 * -f pprof is one binary profile: not to a terminal, and to stdout not
 * once per --interval (concatenated profiles, which pprof refuses); with
 * -o the file is rewritten at each interval (--dry-run writes none).
 * 0 (said why) or 1.
 */
static int binary_out_ok(const struct opts *o)
{
	if (o->r.fmt != REPORT_FMT_PPROF || o->dry_run ||
	    (o->r.output && *o->r.output && strcmp(o->r.output, "-")))
		return 1;
	if (o->interval_ns) {
		log_error("--format pprof --interval writes one profile per interval: give -o FILE (rewritten each time), not stdout");
		return 0;
	}
	if (isatty(STDOUT_FILENO)) {
		log_error("--format pprof is a gzipped binary profile: give -o FILE or redirect stdout");
		return 0;
	}
	return 1;
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

/* iprof's short options (getopt_long()'s optstring: '+', a command's
 * first word ends them) */
#define OPTS_SHORT "+P:e:p:d:vqhV" REPORT_OPTS_SHORT

/* Which entry of long_opts[] the long option @arg ("--name" or "--name=value")
 * is, as getopt_long() reads it (a unique prefix); NULL if none or
 * ambiguous. */
static const struct option *long_opt(const char *arg)
{
	const struct option *hit = NULL, *p;
	size_t n = strcspn(arg + 2, "=");

	for (p = long_opts; p->name; p++) {
		if (strncmp(p->name, arg + 2, n))
			continue;
		if (strlen(p->name) == n)
			return p;
		if (hit)
			return NULL;
		hit = p;
	}
	return hit;
}

/* May option @c (getopt_long()'s code) come before 'iprof @sub'? */
static int applies_to(int c, const char *sub, int list_sub)
{
	if (!strcmp(sub, "report") || !strcmp(sub, "diff"))
		return c == 'f' || c == 'o' || (c >= RO_SORT && c < RO_NEXT) ||
		       c == 'q' || c == 'h';
	if (list_sub) /* --debuginfo: list functions checks it is that */
		return c == 'v' || c == 'q' || c == 'h' || c == O_DEBUGINFO;
	return 1; /* record, list (the plan): every option of a run */
}

/*
 * Walk iprof's options at the start of @argv as getopt_long() reads them.
 * Returns the index of the first word that is no option or option value
 * (@argc: none; 0 when "--" ends them: a command follows).  With @sub, an
 * option that does not apply to 'iprof @subname' (@sub "report", "diff",
 * "list" with @list_sub for 'iprof list SUB') is said as "OPT (before
 * 'SUB') does not apply to ..." and -EINVAL returned.
 */
static int walk_opts(int argc, char **argv, const char *sub,
		     const char *subname, int list_sub)
{
	const struct option *lp;
	const char *sc;
	char name[64];
	int i, k;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1])
			return i; /* a word: a subcommand or the command */
		if (!strcmp(a, "--"))
			return 0;
		if (a[1] == '-') {
			lp = long_opt(a);
			if (sub && lp && !applies_to(lp->val, sub, list_sub)) {
				snprintf(name, sizeof(name), "--%s", lp->name);
				goto bad;
			}
			i += lp && lp->has_arg == required_argument &&
			     !strchr(a, '=');
			continue;
		}
		for (k = 1; a[k]; k++) {
			if (sub && !applies_to(a[k], sub, list_sub)) {
				snprintf(name, sizeof(name), "-%c", a[k]);
				goto bad;
			}
			sc = strchr(&OPTS_SHORT[1], a[k]);
			if (sc && sc[1] == ':') {
				i += !a[k + 1]; /* its value is the next word */
				break;
			}
		}
	}
	return argc;
bad:
	log_error("%s (before '%s') does not apply to 'iprof %s' (try 'iprof %s --help')",
		  name, subname, subname, subname);
	return -EINVAL;
}

/* the subcommands, "list" last (opts_hoist_subcommand()) */
static const char *const subs[] = { "record", "report", "diff", "list" };
#define NSUBS (int)(sizeof(subs) / sizeof(subs[0]))

const char *const *opts_subcommands(size_t *n)
{
	*n = NSUBS;
	return subs;
}

const struct option *opts_options(void)
{
	return long_opts;
}

int opts_words(FILE *f, int c)
{
	const char *const *w = c == O_RETURNS	    ? returns_names :
			       c == O_INTERVAL_MODE ? interval_modes :
						      NULL;
	size_t n = c == O_RETURNS ? 3 : 2;

	if (!w)
		return report_opts_words(f, c);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", w[i]);
	return 0;
}

int opts_hoist_subcommand(int argc, char **argv)
{
	char subname[64], **moved;
	int i, k, words, list_sub;

	i = walk_opts(argc, argv, NULL, NULL, 0);
	if (i <= 1 || i >= argc)
		return 0; /* no option first, no word, or "--" */
	for (k = 0; k < NSUBS && strcmp(argv[i], subs[k]); k++)
		;
	if (k == NSUBS)
		return 0; /* the command to trace */
	list_sub = k == NSUBS - 1 && i + 1 < argc &&
		   list_is_subcommand(argv[i + 1]) && argv[i + 1][0] != '-';
	snprintf(subname, sizeof(subname), "%s%s%s", argv[i],
		 list_sub ? " " : "", list_sub ? argv[i + 1] : "");
	if (walk_opts(i, argv, argv[i], subname, list_sub) < 0)
		return -EINVAL;
	/* argv[1 .. i) after the subcommand's word(s) */
	words = 1 + list_sub;
	moved = malloc((size_t)(i - 1) * sizeof(*moved));
	if (!moved)
		return -ENOMEM;
	memcpy(moved, argv + 1, (size_t)(i - 1) * sizeof(*moved));
	memmove(argv + 1, argv + i, (size_t)words * sizeof(*argv));
	memcpy(argv + 1 + words, moved, (size_t)(i - 1) * sizeof(*moved));
	free(moved);
	return 0;
}

int opts_parse(int argc, char **argv, struct opts *o)
{
	int c, ret;

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
	/* to the journal, getopt_long(3)'s own messages would have no
	 * priority: said here, as errors (log.c) */
	opterr = !log_to_journal();
	while ((c = getopt_long(argc, argv, OPTS_SHORT, long_opts, NULL)) !=
	       -1) {
		if (c == '?' && !opterr) {
			log_error("option '%s': unknown, or its argument missing (iprof --help)",
				  argv[optind - 1]);
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

int opts_load_probes(const struct opts *o, struct probe_list *pl)
{
	char err[1024];
	int i, ret;

	for (i = 0; i < o->nprobe_files; i++) {
		ret = probe_parse_file(pl, o->probe_files[i], err, sizeof(err));
		if (ret)
			goto fail;
	}
	for (i = 0; i < o->nspecs; i++) {
		ret = probe_parse_line(pl, o->specs[i], "-e", i + 1, err,
				       sizeof(err));
		if (ret)
			goto fail;
	}
	ret = probe_list_check(pl, err, sizeof(err));
	if (ret)
		goto fail;
	if (!pl->n) {
		log_error("the probe files define no timer");
		return -EINVAL;
	}
	return 0;
fail:
	log_error("%s", err);
	return ret;
}
