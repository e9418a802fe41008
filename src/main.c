// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof - instrumented profiler: times named start/stop pairs (fentry/fexit,
 * kprobes, uprobes, tracepoints) with BPF and prints the call tree.
 *
 * Exit codes: 0 traced and reported; 1 a runtime failure (BPF load, no
 * probe could attach, write error); 2 bad input (options, probe files, a
 * PID that is gone); 3 traced and reported, but some timers were not
 * attached (the report lists them); 130 interrupted before tracing began.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iprof/agg.h"
#include "iprof/chrome.h"
#include "iprof/output.h"
#include "iprof/plan.h"
#include "iprof/probe.h"
#include "iprof/rec.h"
#include "iprof/report.h"
#include "iprof/util.h"
#include "btfarg.h"
#include "cmd.h"
#include "monitor.h"
#include "list.h"
#include "loader.h"
#include "tracefs.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_PARTIAL 3 /* traced, but some timers were not attached */
/* More attachments than this are released by a background child. */
#define BACKGROUND_DETACH 16

struct opts {
	const char **probe_files;
	int nprobe_files;
	const char **specs;
	int nspecs;
	pid_t *pids;
	int npids;
	uint64_t duration_ns;
	uint64_t rb_bytes;
	unsigned int maxactive; /* kretprobe instances per function */
	enum report_fmt fmt;
	const char *output;
	/* iprof record: the recording (-o), and where the live report goes */
	const char *record;
	const char *report_output;
	int record_mode;
	/* report options (struct report); set: given on the command line */
	enum report_sort sort;
	uint64_t min_total_ns;
	uint32_t max_depth;
	enum report_weight weight;
	enum report_col columns[REPORT_NCOL];
	size_t ncolumns;
	int sort_set, min_total_set, max_depth_set, weight_set;
	int strict, dry_run, verbose, quiet;
	enum agg_by by; /* --by */
	uint64_t interval_ns; /* --interval: a report every interval_ns */
	int delta; /* --interval-mode delta: each report covers one interval */
	const char *listen; /* --listen ADDR:PORT: serve /metrics */
	char **cmd; /* after "--" */
};

static volatile sig_atomic_t stop_requested;

/*
 * The first SIGINT/SIGTERM/SIGHUP asks for a clean stop (report, detach in
 * the background); a second one ends iprof at once, exit status 128 + the
 * signal, wherever it is (a temporary -o file it leaves is removed by the
 * next run: output_clean_stale()).
 */
static void on_signal(int sig)
{
	if (stop_requested)
		_exit(128 + sig);
	stop_requested = 1;
}

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
		"\n"
		"Times the timers named in probe files (start/stop pairs on kernel\n"
		"functions, user functions or tracepoints) with BPF, and prints their\n"
		"call tree: count, total (thread) time, self time, wall time,\n"
		"min/avg/max, percentiles, thread count.\n"
		"\n"
		"Probes:\n"
		"  -P, --probes FILE     probe file (repeatable); grammar: iprof(8)\n"
		"  -e, --event SPEC      one probe line, e.g. 'uprobe:/bin/x:f' (repeatable)\n"
		"\n"
		"Targets (default: the whole system):\n"
		"  -p, --pid PID         trace process PID and its children (repeatable)\n"
		"  -- COMMAND [ARG...]   run COMMAND once every probe is attached, trace\n"
		"                        it and its children, stop when it exits\n"
		"  -d, --duration TIME   stop after TIME (10s, 500ms, 2m, 1h)\n"
		"\n"
		"Output:\n"
		"  -f, --format FMT      table (default), json (doc/json.md), folded (flame\n"
		"                        graph input: 'a;b;c VALUE'), seed (the seed\n"
		"                        patch's lines) or chrome (a timeline for\n"
		"                        Perfetto UI / chrome://tracing: one event per call)\n"
		"                        or openmetrics (Prometheus; doc/openmetrics.md)\n"
		"  -o, --output FILE     write the report to FILE instead of stdout\n"
		"                        (iprof record: the recording, doc/recording.md)\n"
		"      --report-output FILE  iprof record: also write the live report\n"
		"                        (-f FMT) to FILE ('-': stdout)\n"
		"      --sort KEY        order of siblings: total (default), self, count,\n"
		"                        name or first (first seen); table, json, folded\n"
		"      --min-total TIME  hide paths whose total time is below TIME (still\n"
		"                        counted in their parents); table, json, folded\n"
		"      --max-depth N     hide paths deeper than N timers; table, json, folded\n"
		"      --columns LIST    table columns, comma-separated, '+LIST' to add to\n"
		"                        the default: count total self wall oncpu offcpu\n"
		"                        runq blocked min avg max stddev p50 p90 p99 p99.9\n"
		"                        threads exited incompl unwound discarded\n"
		"      --weight W        folded line values: self (default), total, oncpu,\n"
		"                        offcpu (exclusive of children, ns) or count\n"
		"      --by KEY          split the tree under a root per thread (tid),\n"
		"                        process (tgid) or command name (comm)\n"
		"      --interval TIME   also report every TIME while tracing (1s, 10m);\n"
		"                        with -o, FILE is replaced by each new report;\n"
		"                        -f json: one line per report (NDJSON)\n"
		"      --interval-mode M cumulative (default: since the start) or delta\n"
		"                        (each report covers its interval only)\n"
		"      --listen ADDR:PORT  serve the OpenMetrics report at\n"
		"                        http://ADDR:PORT/metrics, renewed every --interval\n"
		"                        (default 1s); ':PORT' binds 127.0.0.1\n"
		"\n"
		"Other:\n"
		"      --strict          fail if any probe cannot be attached\n"
		"      --dry-run         resolve the probes, print the plan, trace nothing\n"
		"                        (same as 'iprof list'); -f json: as JSON\n"
		"      --rb-size SIZE    BPF ring buffer size per CPU (rounded up to a\n"
		"                        power of two; default: 64M shared out over\n"
		"                        the CPUs, 256K to 8M each)\n"
		"      --maxactive N     kretprobe instances per function: calls open at\n"
		"                        once that get a return probe (default 256, max\n"
		"                        4096); calls beyond it are counted as misses;\n"
		"                        0: the kernel's default, misses not counted\n"
		"  -v, --verbose         print libbpf's messages, and each timer that\n"
		"                        cannot be attached as it is skipped\n"
		"  -q, --quiet           no progress messages on stderr\n"
		"  -h, --help            this help\n"
		"  -V, --version         print the version\n"
		"\n"
		"Ctrl-C (SIGINT) or SIGTERM stops tracing and prints the full report.\n"
		"Exit status: 0 every timer traced; 1 runtime failure (nothing could be\n"
		"attached, BPF, the report could not be written); 2 bad input (and\n"
		"--strict when a timer cannot be attached); 3 traced and reported, but\n"
		"some timers were not attached (listed in the report); 130 interrupted\n"
		"before tracing began.  'iprof list SUBCOMMAND': 0 listed, 1 nothing\n"
		"matched, 2 error.\n");
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

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum {
		O_STRICT = 256,
		O_DRY,
		O_RB,
		O_SORT,
		O_MIN_TOTAL,
		O_MAX_DEPTH,
		O_COLUMNS,
		O_WEIGHT,
		O_INTERVAL,
		O_INTERVAL_MODE,
		O_BY,
		O_MAXACTIVE,
		O_REPORT_OUTPUT,
		O_LISTEN,
	};
	static const struct option lo[] = {
		{ "probes", required_argument, NULL, 'P' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "report-output", required_argument, NULL, O_REPORT_OUTPUT },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "rb-size", required_argument, NULL, O_RB },
		{ "maxactive", required_argument, NULL, O_MAXACTIVE },
		{ "sort", required_argument, NULL, O_SORT },
		{ "min-total", required_argument, NULL, O_MIN_TOTAL },
		{ "max-depth", required_argument, NULL, O_MAX_DEPTH },
		{ "columns", required_argument, NULL, O_COLUMNS },
		{ "weight", required_argument, NULL, O_WEIGHT },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "by", required_argument, NULL, O_BY },
		{ "interval-mode", required_argument, NULL, O_INTERVAL_MODE },
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long ul;
	char *end;
	long pid;
	int c;

	o->rb_bytes = 0; /* loader_rb_cpu_bytes() */
	o->maxactive = 256;
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
	while ((c = getopt_long(argc, argv, "+P:e:p:d:f:o:vqhV", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'P':
			if (add_str(&o->probe_files, &o->nprobe_files, optarg))
				return -ENOMEM;
			break;
		case 'e':
			if (add_str(&o->specs, &o->nspecs, optarg))
				return -ENOMEM;
			break;
		case 'p': {
			pid_t *v;

			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > 0x7fffffff) {
				fprintf(stderr,
					"iprof: -p '%s': expected a process id (a positive number)\n",
					optarg);
				return -EINVAL;
			}
			v = realloc(o->pids, (size_t)(o->npids + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			v[o->npids++] = (pid_t)pid;
			o->pids = v;
			break;
		}
		case 'd':
			if (util_parse_duration(optarg, &o->duration_ns) ||
			    !o->duration_ns) {
				fprintf(stderr,
					"iprof: --duration '%s': expected a time above 0 and below 292 years, like 10s, 500ms, 2m (a number alone is seconds)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'f':
			if (report_parse_fmt(optarg, &o->fmt)) {
				fprintf(stderr,
					"iprof: --format '%s': expected table, json, folded, seed or chrome\n",
					optarg);
				return -EINVAL;
			}
			break;
		case O_REPORT_OUTPUT:
			o->report_output = optarg;
			break;
		case O_SORT:
			if (report_parse_sort(optarg, &o->sort)) {
				fprintf(stderr,
					"iprof: --sort '%s': expected total, self, count, name or first\n",
					optarg);
				return -EINVAL;
			}
			o->sort_set = 1;
			break;
		case O_MIN_TOTAL:
			if (util_parse_duration(optarg, &o->min_total_ns)) {
				fprintf(stderr,
					"iprof: --min-total '%s': expected a time like 1ms, 250us, 2s\n",
					optarg);
				return -EINVAL;
			}
			o->min_total_set = 1;
			break;
		case O_MAX_DEPTH:
			errno = 0;
			ul = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' ||
			    ul < 1 || ul > UINT32_MAX) {
				fprintf(stderr,
					"iprof: --max-depth '%s': expected a depth of 1 or more\n",
					optarg);
				return -EINVAL;
			}
			o->max_depth = (uint32_t)ul;
			o->max_depth_set = 1;
			break;
		case O_COLUMNS:
			if (report_parse_columns(optarg, o->columns,
						 REPORT_NCOL, &o->ncolumns)) {
				fprintf(stderr,
					"iprof: --columns '%s': expected column names, each once, from: count total self wall oncpu offcpu runq blocked min avg max stddev p50 p90 p99 p99.9 threads exited incompl unwound discarded\n",
					optarg);
				return -EINVAL;
			}
			break;
		case O_WEIGHT:
			if (report_parse_weight(optarg, &o->weight)) {
				fprintf(stderr,
					"iprof: --weight '%s': expected self, total, oncpu, offcpu or count\n",
					optarg);
				return -EINVAL;
			}
			o->weight_set = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case O_STRICT:
			o->strict = 1;
			break;
		case O_DRY:
			o->dry_run = 1;
			break;
		case O_BY:
			if (!strcmp(optarg, "tid")) {
				o->by = AGG_BY_TID;
			} else if (!strcmp(optarg, "tgid") ||
				   !strcmp(optarg, "pid")) {
				o->by = AGG_BY_TGID;
			} else if (!strcmp(optarg, "comm")) {
				o->by = AGG_BY_COMM;
			} else {
				fprintf(stderr,
					"iprof: --by '%s': expected tid, tgid (or pid) or comm\n",
					optarg);
				return -EINVAL;
			}
			break;
		case O_INTERVAL:
			if (util_parse_duration(optarg, &o->interval_ns) ||
			    o->interval_ns < 10000000ull) {
				fprintf(stderr,
					"iprof: --interval '%s': expected a time from 10ms to 292 years, like 1s, 500ms, 1m\n",
					optarg);
				return -EINVAL;
			}
			break;
		case O_LISTEN:
			o->listen = optarg;
			break;
		case O_INTERVAL_MODE:
			if (!strcmp(optarg, "cumulative")) {
				o->delta = 0;
			} else if (!strcmp(optarg, "delta")) {
				o->delta = 1;
			} else {
				fprintf(stderr,
					"iprof: --interval-mode '%s': expected cumulative or delta\n",
					optarg);
				return -EINVAL;
			}
			break;
		case O_RB:
			if (util_parse_size(optarg, &o->rb_bytes) ||
			    o->rb_bytes < 4096 || o->rb_bytes > (1ull << 30)) {
				fprintf(stderr,
					"iprof: --rb-size '%s': expected a size from 4K to 1G\n",
					optarg);
				return -EINVAL;
			}
			break;
		case O_MAXACTIVE:
			errno = 0;
			ul = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || ul > 4096) {
				fprintf(stderr,
					"iprof: --maxactive '%s': expected a number from 0 to 4096\n",
					optarg);
				return -EINVAL;
			}
			o->maxactive = (unsigned int)ul;
			break;
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
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		fprintf(stderr, "iprof: '--' must be followed by a command\n");
		return -EINVAL;
	}
	if (!o->nprobe_files && !o->nspecs) {
		fprintf(stderr,
			"iprof: no probes: give --probes FILE or -e SPEC (try 'iprof --help')\n");
		return -EINVAL;
	}
	if (o->delta && !o->interval_ns) {
		fprintf(stderr,
			"iprof: --interval-mode delta needs --interval TIME\n");
		return -EINVAL;
	}
	if (o->cmd && o->npids) {
		fprintf(stderr,
			"iprof: -p and -- COMMAND exclude each other: trace one or the other\n");
		return -EINVAL;
	}
	if (o->record_mode) {
		/* iprof record: -o is the recording; the report is optional */
		if (!o->output || !*o->output) {
			fprintf(stderr,
				"iprof record: -o FILE (the recording) is required\n");
			return -EINVAL;
		}
		o->record = o->output;
		o->output = o->report_output;
	} else if (o->report_output) {
		fprintf(stderr,
			"iprof: --report-output applies to 'iprof record' only\n");
		return -EINVAL;
	}
	if (o->delta && (o->fmt == REPORT_FMT_OPENMETRICS || o->listen)) {
		fprintf(stderr,
			"iprof: OpenMetrics counters never go back: --interval-mode delta does not apply to --format openmetrics and --listen\n");
		return -EINVAL;
	}
	if (o->fmt == REPORT_FMT_CHROME && (o->interval_ns || o->by)) {
		fprintf(stderr,
			"iprof: --interval and --by do not apply to --format chrome\n");
		return -EINVAL;
	}
	/* an option the chosen format would ignore is a mistake: say so */
	if (o->fmt == REPORT_FMT_SEED &&
	    (o->sort_set || o->min_total_set || o->max_depth_set)) {
		fprintf(stderr,
			"iprof: --sort, --min-total and --max-depth do not apply to --format seed (first-seen order, every path)\n");
		return -EINVAL;
	}
	if (o->ncolumns && o->fmt != REPORT_FMT_TABLE) {
		fprintf(stderr,
			"iprof: --columns applies to --format table only\n");
		return -EINVAL;
	}
	if (o->weight_set && o->fmt != REPORT_FMT_FOLDED) {
		fprintf(stderr,
			"iprof: --weight applies to --format folded only\n");
		return -EINVAL;
	}
	return 0;
}

static int load_probes(const struct opts *o, struct probe_list *pl)
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
		fprintf(stderr, "iprof: the probe files define no timer\n");
		return -EINVAL;
	}
	return 0;
fail:
	fprintf(stderr, "iprof: %s\n", err);
	return ret;
}

static int quiet, verbose;

/* -v: each timer as it is skipped; else the summary says it once */
static void on_skip(const struct plan_timer *t)
{
	if (verbose)
		fprintf(stderr, "iprof: cannot attach %s: %s\n", t->name,
			t->error);
}

/*
 * What the report says of each timer of @plan (plan->ntimers entries,
 * malloc'ed, owned by the caller; the strings belong to @plan), with the
 * loader's counts when @l is not NULL.  NULL when out of memory.
 */
static struct report_timer *make_timers(const struct plan *plan,
					struct loader *l)
{
	struct report_timer *rt =
		calloc(plan->ntimers ? plan->ntimers : 1, sizeof(*rt));
	uint32_t i;

	if (!rt)
		return NULL;
	for (i = 0; i < plan->ntimers; i++) {
		const struct plan_timer *t = &plan->timers[i];

		rt[i].name = t->name;
		rt[i].kind = probe_kind_str(t->kind);
		rt[i].where = t->where;
		rt[i].attached = t->attached;
		rt[i].error = t->error;
		rt[i].mech = t->mech;
		rt[i].file = t->probe ? t->probe->file : NULL;
		rt[i].line = t->probe ? t->probe->line : 0;
		rt[i].entry_only = t->entry_only;
		rt[i].orphans = l ? loader_orphans(l, i) : 0;
		rt[i].kprobe_misses = l ? loader_kprobe_misses(l, i) : 0;
		rt[i].maxactive = l ? loader_kretprobe_maxactive(l, i) : 0;
	}
	return rt;
}

/* The timers of @plan not attached, grouped by reason, on stderr. */
static void print_not_attached(const struct plan *plan, const char *pfx)
{
	struct report_timer *rt = make_timers(plan, NULL);
	uint32_t i;

	if (!rt) {
		for (i = 0; i < plan->ntimers; i++)
			if (!plan->timers[i].attached && plan->timers[i].error)
				fprintf(stderr, "%snot attached: %s: %s\n", pfx,
					plan->timers[i].name,
					plan->timers[i].error);
		return;
	}
	/* before attaching, the timers with an error in the plan */
	for (i = 0; i < plan->ntimers; i++)
		rt[i].attached = plan->timers[i].attached ||
				 !plan->timers[i].error;
	report_not_attached(stderr, rt, plan->ntimers, pfx);
	free(rt);
}

/*
 * Fork COMMAND, held before exec until every probe is attached: it waits
 * in sigwaitinfo(2) for SIGUSR1 (start_gated()).  Not in a read(2): a
 * read in flight when tracing begins would show up, as an orphan stop, in
 * any span on read.  If exec fails, the child writes its errno to *@exec_r
 * (close-on-exec, so a successful exec closes it with nothing written).
 */
static pid_t spawn_gated(char **cmd, int *exec_r)
{
	sigset_t usr1, old;
	siginfo_t si;
	int ex[2], e;
	pid_t pid;

	if (pipe2(ex, O_CLOEXEC))
		return -1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(ex[0]);
		close(ex[1]);
		return -1;
	}
	if (pid == 0) {
		close(ex[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(127); /* iprof is already gone */
		while (sigwaitinfo(&usr1, &si) < 0 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ex[1]);
	*exec_r = ex[0];
	return pid;
}

/* An executable named @name in $PATH (as execvp(3) searches), or NULL. */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save, *full = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	dirs = strdup(path);
	if (!dirs)
		return NULL;
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (asprintf(&full, "%s/%s", *d ? d : ".", name) < 0) {
			full = NULL;
			break;
		}
		if (!access(full, X_OK))
			break;
		free(full);
		full = NULL;
	}
	free(dirs);
	return full;
}

/*
 * Turn the -p PIDs into the processes to trace: a thread id names its
 * process; iprof itself, zombies and tasks that do not exist are refused;
 * kernel threads are accepted with a warning (no uprobe fires there).
 * Returns 0 or -EINVAL (message printed).
 */
static int resolve_pids(struct opts *o)
{
	struct util_proc p;
	int i;

	for (i = 0; i < o->npids; i++) {
		pid_t pid = o->pids[i];

		if (util_proc_read(pid, &p) || p.state == 'Z' ||
		    p.state == 'X') {
			fprintf(stderr, "iprof: -p %d: no such process%s\n",
				pid,
				p.state == 'Z' ? " (a zombie: it has exited)" :
						 "");
			return -EINVAL;
		}
		if (p.tgid && p.tgid != pid) {
			fprintf(stderr,
				"iprof: -p %d is a thread of process %d: tracing the process\n",
				pid, p.tgid);
			o->pids[i] = pid = p.tgid;
		}
		if (pid == getpid()) {
			fprintf(stderr, "iprof: -p %d is iprof itself\n", pid);
			return -EINVAL;
		}
		if (p.flags & UTIL_PF_KTHREAD)
			fprintf(stderr,
				"iprof: warning: -p %d is a kernel thread: only kernel probes can fire in it\n",
				pid);
	}
	return 0;
}

/*
 * Add the processes that the -p processes have already forked (their
 * descendants now) as targets; later forks are followed in BPF.  Returns
 * how many were added.
 */
static int add_descendants(struct loader *l, const pid_t *roots, int nroots)
{
	struct { int pid, ppid; } *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	int *set = NULL, nset = 0, added = 0, k, grew;
	struct dirent *de;
	struct util_proc p;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || util_proc_read((int)pid, &p))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n].pid = (int)pid;
		v[n].ppid = p.ppid;
		n++;
	}
	closedir(d);
	set = calloc(n + (size_t)nroots + 1, sizeof(*set));
	if (!set)
		goto out;
	for (k = 0; k < nroots; k++)
		set[nset++] = roots[k];
	/* grow the set until no process has its parent in it and is out */
	do {
		grew = 0;
		for (i = 0; i < n; i++) {
			int in = 0, par = 0;

			for (k = 0; k < nset; k++) {
				in |= set[k] == v[i].pid;
				par |= set[k] == v[i].ppid;
			}
			if (par && !in && v[i].pid != getpid() &&
			    util_proc_alive(v[i].pid)) {
				set[nset++] = v[i].pid;
				if (!loader_add_target(l, v[i].pid))
					added++;
				grew = 1;
			}
		}
	} while (grew);
out:
	free(set);
	free(v);
	return added;
}

static int print_plan(const struct plan *p)
{
	int w = 8, bad = 0;
	uint32_t i;

	for (i = 0; i < p->ntimers; i++)
		if ((int)strlen(p->timers[i].name) > w)
			w = (int)strlen(p->timers[i].name);
	for (i = 0; i < p->ntimers; i++) {
		const struct plan_timer *t = &p->timers[i];

		printf("%-*s  %-7s %s%s\n", w, t->name, probe_kind_str(t->kind),
		       t->where,
		       t->entry_only ? " (never returns: entry only, timed until the thread exits)" :
				       "");
		if (t->error) {
			printf("%-*s  error   %s\n", w, "", t->error);
			bad++;
		}
	}
	return bad;
}

/*
 * iprof list: which mechanism kernel function timers will get here (the
 * first such function tells whether fentry loads at all).
 */
static void print_kernel_features(const struct plan *p)
{
	char why[512];
	uint32_t i;

	for (i = 0; i < p->ntimers; i++)
		if (p->timers[i].func && p->timers[i].kind != PROBE_UPROBE &&
		    !p->timers[i].error)
			break;
	if (i == p->ntimers)
		return;
	if (!loader_try_fentry(p->timers[i].func, why, sizeof(why)))
		printf("# fentry/fexit: the kernel loads them (tried on %s)\n",
		       p->timers[i].func);
	else
		printf("# fentry/fexit: refused (%s): func: timers use kprobes\n",
		       why);
	printf("# kprobes: %s\n",
	       loader_kprobes() ? "available" :
				  "absent (CONFIG_KPROBES off): kprobe: timers cannot attach");
}

/*
 * --dry-run -f json: the plan, with what each timer would get here: a kernel
 * function timer's mechanism follows whether fentry loads (tried on the
 * first such function, as print_kernel_features() does) and whether the
 * kernel has kprobes.  Returns the exit status: 0, EXIT_USAGE when a probe
 * has an error in the files, EXIT_RUNTIME when out of memory or stdout
 * cannot be written.
 */
static int print_plan_json(const struct plan *p)
{
	struct report_kernel k = { .fentry = -1 };
	struct report_timer *rt = make_timers(p, NULL);
	char why[512], fwhy[560] = "", **msg = NULL;
	int bad = 0, ret = EXIT_RUNTIME, e;
	uint32_t i;

	if (!rt)
		goto out;
	msg = calloc(p->ntimers ? p->ntimers : 1, sizeof(*msg));
	if (!msg)
		goto out;
	k.kprobes = loader_kprobes();
	for (i = 0; i < p->ntimers && k.fentry < 0; i++) {
		const struct plan_timer *t = &p->timers[i];

		if (t->error || !t->func ||
		    (t->kind != PROBE_FENTRY && t->kind != PROBE_FUNC))
			continue;
		e = loader_try_fentry(t->func, why, sizeof(why));
		k.fentry = !e;
		/* as the loader says it (attach_fentry()) */
		snprintf(fwhy, sizeof(fwhy),
			 "the kernel refuses fentry/fexit programs (%s)",
			 strerror(-e));
		k.fentry_error = k.fentry ? NULL : fwhy;
	}
	for (i = 0; i < p->ntimers; i++) {
		const struct plan_timer *t = &p->timers[i];
		int fe = (t->kind == PROBE_FENTRY || t->kind == PROBE_FUNC) &&
			 k.fentry != 0;
		int kp = (t->kind == PROBE_KPROBE || t->kind == PROBE_FUNC) &&
			 k.kprobes;
		static const char nokp[] =
			"the kernel has no kprobes (CONFIG_KPROBES off)";

		if (t->error) {
			bad++;
			continue;
		}
		rt[i].attached = 1;
		if (t->kind == PROBE_SPAN) {
			rt[i].mech = "tracepoint";
			continue;
		}
		if (t->kind == PROBE_UPROBE) {
			rt[i].mech = "uprobe/uretprobe";
			continue;
		}
		if (fe) {
			rt[i].mech = t->entry_only ? "fentry (never returns)" :
						     "fentry/fexit";
			continue;
		}
		if (kp) {
			rt[i].mech = t->entry_only ? "kprobe (never returns)" :
						     "kprobe/kretprobe";
			continue;
		}
		/* the loader's words (attach_func_timer()) */
		rt[i].attached = 0;
		if (t->kind == PROBE_FUNC)
			e = asprintf(&msg[i], "%s:%d: fentry: %s; kprobe: %s",
				     rt[i].file, rt[i].line, fwhy, nokp);
		else
			e = asprintf(&msg[i], "%s:%d: %s", rt[i].file,
				     rt[i].line,
				     t->kind == PROBE_FENTRY ? fwhy : nokp);
		if (e < 0) {
			msg[i] = NULL;
			goto out;
		}
		rt[i].error = msg[i];
	}
	if (report_plan_json(stdout, rt, p->ntimers, &k))
		goto out;
	ret = bad ? EXIT_USAGE : 0;
out:
	if (ret == EXIT_RUNTIME)
		fprintf(stderr, "iprof: cannot print the plan: %s\n",
			strerror(errno ? errno : ENOMEM));
	for (i = 0; msg && i < p->ntimers; i++)
		free(msg[i]);
	free(msg);
	free(rt);
	return ret;
}

/*
 * Where merged records go: the aggregator, and the recording (iprof
 * record) and the timeline (-f chrome) when there are.
 */
struct sinks {
	struct agg *agg;
	struct rec_writer *rec;
	struct chrome *chrome;
};

/*
 * Detach every probe of @l.  Releasing a tracepoint's
 * last perf event waits for RCU grace periods under the kernel's
 * event_mutex, one tracepoint after the other (about 50 ms each here).
 * With many, hand the release to a child that holds the same file
 * descriptors and let it finish in the background: iprof returns now, after
 * a report or a cancel alike.  The caller still loader_close()s @l.
 */
static void detach(struct loader *l)
{
	unsigned int natt = loader_nprobes(l);
	uint64_t t0;

	fflush(NULL); /* nothing buffered twice by the child */

	if (natt > BACKGROUND_DETACH) {
		pid_t bg = fork();

		if (bg == 0) {
			setsid();
			signal(SIGINT, SIG_IGN);
			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			t0 = util_now_ns();
			loader_close(l);
			if (!quiet)
				fprintf(stderr,
					"iprof: background detach (pid %d) done in %.1f ms\n",
					(int)getpid(),
					(double)(util_now_ns() - t0) / 1e6);
			_exit(0);
		}
		if (bg > 0) {
			if (!quiet)
				fprintf(stderr,
					"iprof: detaching %u probes in the background (pid %d)\n",
					natt, (int)bg);
			return;
		}
	}
	t0 = util_now_ns();
	loader_detach(l);
	if (!quiet)
		fprintf(stderr, "iprof: detached in %.1f ms\n",
			(double)(util_now_ns() - t0) / 1e6);
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct sinks *s = ctx;

	agg__push(s->agg, data, size);
	if (s->rec)
		rec_writer_push(s->rec, data, size);
	if (s->chrome)
		chrome_push(s->chrome, data, size);
	return 0;
}

/*
 * The run as reports and recordings say it (struct rec_run): the command,
 * uname(2), when tracing started (@t0, record clock, and the real-time
 * clock now), --rb-size as given.  @un holds the strings.
 */
static void run_start(struct rec_run *run, const struct opts *o,
		      struct utsname *un, uint64_t t0)
{
	struct timespec ts;

	run->command = o->cmd;
	run->pids = o->pids;
	run->npids = (size_t)o->npids;
	if (!uname(un)) {
		run->host = un->nodename;
		run->kernel = un->release;
		run->kernel_version = un->version;
		run->machine = un->machine;
	}
	if (!clock_gettime(CLOCK_REALTIME, &ts))
		run->start_realtime_ns = (uint64_t)ts.tv_sec * 1000000000ull +
					 (uint64_t)ts.tv_nsec;
	run->start_ns = t0;
	run->end_ns = t0;
	run->rb_requested = o->rb_bytes;
}

/*
 * Read the timers (@plan) and the loader's counters now into @run
 * (run->timers malloc'ed, freed here on the next call and by the caller
 * at the end).  Returns 0 or -ENOMEM.
 */
static int run_counters(struct rec_run *run, const struct plan *plan,
			struct loader *l)
{
	struct report_timer *rt = make_timers(plan, l);
	uint32_t i;

	if (!rt)
		return -ENOMEM;
	free(run->timers);
	run->timers = rt;
	run->ntimers = plan->ntimers;
	memset(&run->loss, 0, sizeof(run->loss));
	if (l) {
		loader_loss(l, &run->loss);
		run->rb_bytes = loader_rb_bytes(l, &run->rb_rings);
	}
	for (i = 0; i < plan->ntimers; i++)
		run->loss.kprobe_misses += rt[i].kprobe_misses;
	return 0;
}

static int write_report(const struct opts *o, FILE *out, struct agg *agg,
			const struct rec_run *run, uint64_t since,
			uint64_t duration_ns, unsigned int no, int final);

/*
 * One report, number @no (1.., counted with --interval), while tracing or
 * at the end (@final), covering @since..@now (ns, record clock).  If the
 * output cannot be written, the final report goes to stdout instead.
 * Returns 0 or -errno.
 */
static int emit_report(const struct opts *o, struct output *w, struct agg *agg,
		       const struct rec_run *run, uint64_t t0, uint64_t since,
		       uint64_t now, unsigned int no, int final)
{
	char tmp[PATH_MAX];
	FILE *f;
	int ret;

	f = output_begin(w, tmp, sizeof(tmp));
	if (!f) {
		ret = -errno;
		goto fallback;
	}
	if (o->interval_ns && (o->fmt == REPORT_FMT_TABLE || o->fmt == REPORT_FMT_SEED))
		fprintf(f, "# %s%.0u: %.3fs to %.3fs after tracing began%s\n",
			final ? "final report" : "interval ", final ? 0 : no,
			(double)(since - t0) / 1e9, (double)(now - t0) / 1e9,
			o->delta ? "" : " (cumulative)");
	agg__snapshot(agg, now);
	ret = write_report(o, f, agg, run, since - t0, now - since, no, final);
	ret = output_end(w, f, tmp, ret);
fallback:
	if (ret && w->name) {
		fprintf(stderr, "iprof: cannot write '%s': %s%s\n", w->name,
			strerror(-ret),
			final ? "; the report follows on stdout" : "");
		if (final)
			write_report(o, stdout, agg, run, since - t0,
				     now - since, no, final);
	}
	if (!ret && o->delta)
		agg__reset(agg);
	return ret;
}

/*
 * One report of @agg for @run (its counters as last read), covering
 * @duration_ns from @since (ns after the start of tracing), in -f's format.
 */
static int write_report(const struct opts *o, FILE *out, struct agg *agg,
			const struct rec_run *run, uint64_t since,
			uint64_t duration_ns, unsigned int no, int final)
{
	struct report r = { 0 };

	r.agg = agg;
	rec_run_report(run, &r);
	if (r.start_realtime_ns)
		r.start_realtime_ns += since;
	r.duration_ns = duration_ns;
	r.sort = o->sort;
	r.min_total_ns = o->min_total_ns;
	r.max_depth = o->max_depth;
	r.weight = o->weight;
	r.columns = o->ncolumns ? o->columns : NULL;
	r.ncolumns = o->ncolumns;
	r.interval = o->interval_ns ? no : 0;
	r.final = final;
	r.delta = o->delta;
	return report_write(out, &r, o->fmt, quiet ? NULL : stderr);
}

/*
 * --listen: render the OpenMetrics report covering t0..@now (cumulative)
 * and hand it to the /metrics server.  Returns 0 or -errno.
 */
static int publish_metrics(const struct opts *o, struct monitor *mon,
			   struct agg *agg, const struct rec_run *run,
			   uint64_t t0, uint64_t now)
{
	struct opts mo = *o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return -errno;
	mo.fmt = REPORT_FMT_OPENMETRICS;
	agg__snapshot(agg, now);
	ret = write_report(&mo, f, agg, run, 0, now - t0, 0, 0);
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret)
		ret = monitor_publish(mon, buf, len);
	free(buf);
	return ret;
}

/* The report is written: always, but by iprof record only on request. */
static int want_report(const struct opts *o)
{
	return o->fmt != REPORT_FMT_CHROME &&
	       (!o->record_mode || o->report_output);
}

/* iprof record: open the recording (-o; '-' is stdout).  0 or -errno. */
static int record_open(const struct opts *o, const struct output *w,
		       FILE **f)
{
	struct stat st;
	int fd = -1, e;

	if (!strcmp(o->record, "-")) {
		if (w->direct == stdout && o->report_output) {
			fprintf(stderr,
				"iprof record: the recording and the report cannot both go to stdout\n");
			return -EINVAL;
		}
		*f = stdout;
		return 0;
	}
	/*
	 * Written in place as it goes (a killed run leaves the blocks written
	 * so far), so opened so that it can neither block nor be redirected
	 * (issue 15): no symbolic link followed, a FIFO nobody reads is an
	 * error, a regular file, FIFO or character device only.
	 */
	fd = open(o->record,
		  O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd >= 0 && fstat(fd, &st))
		goto fail;
	if (fd >= 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
	    !S_ISCHR(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if (fd >= 0 && ((S_ISREG(st.st_mode) && ftruncate(fd, 0)) ||
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)))
		goto fail;
	*f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (*f)
		return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	fprintf(stderr, "iprof: cannot write '%s': %s\n", o->record,
		e == ELOOP  ? "a symbolic link (give the file itself)" :
		e == ENXIO  ? "a FIFO that nobody reads" :
		e == EINVAL ? "not a regular file, FIFO or device" :
			      strerror(e));
	return -e;
}

/* iprof record: the trailer, and a line on stderr.  0 or -errno. */
static int record_finish(const struct opts *o, struct rec_writer *rw,
			 const struct rec_run *run)
{
	int e = rec_writer_finish(rw, run);

	if (e)
		fprintf(stderr, "iprof: cannot write '%s': %s\n", o->record,
			strerror(-e));
	else if (!quiet)
		fprintf(stderr, "iprof: recorded %llu records to '%s'\n",
			(unsigned long long)rec_writer_records(rw), o->record);
	return e;
}

/*
 * -f chrome: the timeline is written as the records come, to stdout or a
 * non-regular -o file directly, else to a temporary file beside -o FILE
 * renamed over it at the end.
 */
struct timeline {
	FILE *f;
	char tmp[PATH_MAX]; /* "" when f is written directly */
};

static int timeline_open(struct timeline *tl, struct output *w)
{
	tl->tmp[0] = '\0';
	tl->f = output_begin(w, tl->tmp, sizeof(tl->tmp));
	if (!tl->f) {
		fprintf(stderr, "iprof: cannot write '%s': %s\n", w->name,
			strerror(errno));
		tl->tmp[0] = '\0';
		return -errno;
	}
	if (w->direct)
		tl->tmp[0] = '\0';
	return 0;
}

static int timeline_finish(struct timeline *tl, struct output *w,
			   struct chrome *c, uint64_t end_ns)
{
	int e = chrome_finish(c, end_ns);

	if (tl->tmp[0]) {
		e = output_end(w, tl->f, tl->tmp, e);
		tl->f = NULL;
		tl->tmp[0] = '\0';
	}
	if (e)
		fprintf(stderr, "iprof: cannot write the timeline: %s\n",
			strerror(-e));
	else if (!quiet)
		fprintf(stderr, "iprof: timeline of %llu calls written\n",
			(unsigned long long)chrome_events(c));
	return e;
}

/* an unfinished timeline's temporary file goes */
static void timeline_close(struct timeline *tl)
{
	if (tl->tmp[0]) {
		fclose(tl->f);
		unlink(tl->tmp);
	}
}

/*
 * Every fentry/fexit function costs two programs and two links, and every
 * 16 functions a BPF object (a map for their constants, BTF): hundreds of
 * functions need more than the usual 1024 file descriptors.  Raise the
 * limit as far as allowed.
 */
static void raise_fd_limit(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	r.rlim_cur = r.rlim_max;
	if (r.rlim_max < 1048576) {
		struct rlimit want = { 1048576, 1048576 };

		if (!setrlimit(RLIMIT_NOFILE, &want)) /* root may raise it */
			return;
	}
	setrlimit(RLIMIT_NOFILE, &r);
}

/* Print how the command ended (stderr, unless -q). */
static void command_status(int status)
{
	if (quiet)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "iprof: the command exited with status %d\n",
			WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "iprof: the command was killed by signal %d\n",
			WTERMSIG(status));
}

int main(int argc, char **argv)
{
	struct probe_list pl = { 0 };
	struct opts o = { 0 };
	struct plan plan = { 0 };
	struct plan_env penv = { 0 };
	struct btfarg btfa = { 0 };
	struct output w = { 0 };
	struct loader *l = NULL;
	struct agg *agg = NULL;
	struct loader_opts lo = { 0 };
	struct sigaction sa = { 0 };
	const char *tracefs;
	uint64_t t0 = 0, deadline = 0, now, last_check = 0, since = 0;
	uint64_t next_report = 0, next_publish = 0;
	struct monitor *mon = NULL;
	unsigned int nreports = 0;
	pid_t child = -1;
	int exec_r = -1, ret = EXIT_USAGE, n, i, status = 0;
	int child_done = 0, e;
	uint32_t plan_errors = 0, nattached = 0;
	char *cmd_path = NULL;
	char err[1024];
	struct sinks sk = { 0 };
	struct rec_run run = { 0 };
	struct utsname un;
	struct timeline tl = { 0 };
	FILE *rec_f = NULL;

	if (argc > 2 && !strcmp(argv[1], "list") &&
	    list_is_subcommand(argv[2]))
		return list_main(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return cmd_report_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return cmd_diff_main(argc - 1, argv + 1);
	if (parse_args(argc, argv, &o))
		goto out;
	quiet = o.quiet;
	verbose = o.verbose;
	if (load_probes(&o, &pl))
		goto out;
	if (resolve_pids(&o))
		goto out;
	tracefs = tracefs_dir();
	penv.tracefs = tracefs;
	penv.kallsyms = "/proc/kallsyms";
	penv.arg = btfarg_resolve;
	penv.arg_ctx = &btfa;
	/* IPROF_SYSCALL_TRACEPOINTS=1: syscall spans on their own
	 * tracepoints instead of the raw ones (iprof(8), ENVIRONMENT) */
	penv.syscall_tracepoints = getenv("IPROF_SYSCALL_TRACEPOINTS") &&
				   !strcmp(getenv("IPROF_SYSCALL_TRACEPOINTS"), "1");
	if (plan_build(&plan, &pl, &penv)) {
		fprintf(stderr, "iprof: out of memory\n");
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (o.dry_run) {
		if (o.fmt == REPORT_FMT_JSON) {
			ret = print_plan_json(&plan);
		} else {
			ret = print_plan(&plan) ? EXIT_USAGE : 0;
			print_kernel_features(&plan);
		}
		goto out;
	}
	if (o.strict) {
		for (i = 0; i < (int)plan.ntimers; i++)
			plan_errors += !!plan.timers[i].error;
		if (plan_errors) {
			print_not_attached(&plan, "iprof: --strict: ");
			goto out; /* bad input: EXIT_USAGE */
		}
	}
	if (output_open(&w, o.output, err, sizeof(err))) {
		fprintf(stderr, "iprof: %s\n", err);
		goto out;
	}
	if (o.record && record_open(&o, &w, &rec_f))
		goto out;
	if (o.listen && (e = monitor_listen(&mon, o.listen, err, sizeof(err)))) {
		fprintf(stderr, "iprof: %s\n", err);
		ret = e == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	if (o.fmt == REPORT_FMT_CHROME && timeline_open(&tl, &w))
		goto out;
	plan_errors = 0;
	for (i = 0; i < (int)plan.ntimers; i++)
		plan_errors += !!plan.timers[i].error;
	agg = agg__new(plan.ntimers);
	if (!agg) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	agg__set_by(agg, o.by);
	sk.agg = agg;

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* the terminal went away: report */

	if (o.cmd && !strchr(o.cmd[0], '/')) {
		/* search $PATH here, not in the traced child: its failed
		 * execve(2)s would show up in spans on execve */
		cmd_path = find_in_path(o.cmd[0]);
		if (!cmd_path) {
			fprintf(stderr, "iprof: cannot run '%s': not found in $PATH\n",
				o.cmd[0]);
			ret = EXIT_USAGE;
			goto out;
		}
		o.cmd[0] = cmd_path;
	}
	if (o.cmd) {
		child = spawn_gated(o.cmd, &exec_r);
		if (child < 0) {
			fprintf(stderr, "iprof: cannot fork: %s\n",
				strerror(errno));
			ret = EXIT_RUNTIME;
			goto out;
		}
	}

	raise_fd_limit();
	lo.rb_bytes = o.rb_bytes;
	lo.maxactive = o.maxactive;
	lo.filter = o.cmd || o.npids;
	lo.verbose = o.verbose;
	lo.cancel = &stop_requested;
	lo.progress = !quiet;
	ret = EXIT_RUNTIME;
	if (loader_open(&l, &plan, &lo, on_record, &sk, err, sizeof(err))) {
		fprintf(stderr, "iprof: %s\n", err);
		goto out;
	}
	if (child > 0 && loader_add_target(l, child))
		goto out;
	for (i = 0; i < o.npids; i++)
		if (loader_add_target(l, o.pids[i]))
			goto out;
	if (o.npids) {
		n = add_descendants(l, o.pids, o.npids);
		if (n && !quiet)
			fprintf(stderr,
				"iprof: also tracing %d process%s that the -p process%s forked before\n",
				n, n == 1 ? "" : "es", o.npids > 1 ? "es" : "");
	}

	t0 = util_now_ns();
	n = loader_attach(l, on_skip);
	if (n == -EINTR || stop_requested) {
		fprintf(stderr,
			"iprof: interrupted before tracing began; detaching\n");
		ret = 128 + SIGINT;
		detach(l);
		goto out;
	}
	if (n < 0) {
		fprintf(stderr, "iprof: cannot attach: %s\n", strerror(-n));
		goto out;
	}
	if (!n) {
		/* no report follows: say here why each timer is missing */
		fprintf(stderr, "iprof: no probe could be attached\n");
		print_not_attached(&plan, "iprof: ");
		/* every probe wrong in the files (not refused by the kernel):
		 * bad input */
		if (plan_errors == plan.ntimers)
			ret = EXIT_USAGE;
		goto out;
	}
	nattached = (uint32_t)n;
	if (o.strict && nattached != plan.ntimers) {
		print_not_attached(&plan, "iprof: --strict: ");
		fprintf(stderr,
			"iprof: --strict: %u of %u timers could not be attached\n",
			plan.ntimers - nattached, plan.ntimers);
		ret = EXIT_USAGE; /* as for an error in the probe files */
		goto out;
	}
	now = util_now_ns();
	/* the timers not attached are listed once, in the report's summary
	 * (stderr for folded); here only how many */
	if (nattached < plan.ntimers)
		snprintf(err, sizeof(err), " (%u not attached: listed %s)",
			 plan.ntimers - nattached,
			 o.fmt == REPORT_FMT_FOLDED ? "at the end" : "in the report");
	else
		err[0] = '\0';
	/* recording starts now, with every probe in place; then the line
	 * that says so (tests and scripts wait for it) */
	if ((e = loader_set_tracing(l, 1))) {
		fprintf(stderr, "iprof: cannot start tracing: %s\n",
			strerror(-e));
		goto out;
	}
	if (!quiet)
		fprintf(stderr,
			"iprof: %u of %u timers attached in %.1f ms%s; tracing%s... %s\n",
			nattached, plan.ntimers, (double)(now - t0) / 1e6, err,
			o.cmd ? " the command" : o.npids ? " the process" :
							    " system-wide",
			o.cmd ? "" : "Ctrl-C to stop");
	t0 = util_now_ns();
	run_start(&run, &o, &un, t0);
	if (run_counters(&run, &plan, l))
		goto out;
	if (rec_f && !(sk.rec = rec_writer_new(rec_f, o.record, &run))) {
		fprintf(stderr, "iprof: cannot write '%s': %s\n", o.record,
			strerror(errno));
		goto out;
	}
	if (tl.f && !(sk.chrome = chrome_new(tl.f, &run))) {
		fprintf(stderr, "iprof: cannot write the timeline: %s\n",
			strerror(errno));
		goto out;
	}
	if (o.duration_ns)
		deadline = t0 + o.duration_ns;
	since = t0;
	if (o.interval_ns)
		next_report = t0 + o.interval_ns;
	if (mon) {
		publish_metrics(&o, mon, agg, &run, t0, t0);
		next_publish = t0 + (o.interval_ns ? o.interval_ns : 1000000000ull);
	}
	snprintf(err, sizeof(err), "READY=1\nSTATUS=tracing: %u of %u timers attached",
		 nattached, plan.ntimers);
	monitor_notify(err);
	if (child > 0) {
		if (kill(child, SIGUSR1)) {
			fprintf(stderr, "iprof: cannot start the command: %s\n",
				strerror(errno));
			goto out;
		}
		/* exec's errno, or EOF once the exec succeeded */
		if (read(exec_r, &e, sizeof(e)) == sizeof(e)) {
			fprintf(stderr, "iprof: cannot run '%s': %s\n",
				o.cmd[0], strerror(e));
			ret = EXIT_USAGE;
			goto out;
		}
		close(exec_r);
		exec_r = -1;
	}

	while (!stop_requested) {
		n = loader_poll(l, 10);
		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "iprof: ring buffer: %s\n",
				strerror(-n));
			break;
		}
		now = util_now_ns();
		if (deadline && now >= deadline)
			break;
		if (next_report && now >= next_report && want_report(&o)) {
			run_counters(&run, &plan, l);
			emit_report(&o, &w, agg, &run, t0,
				    o.delta ? since : t0, now, ++nreports, 0);
			since = now;
			next_report += o.interval_ns;
			if (next_report <= now)
				next_report = now + o.interval_ns;
		}
		if (mon && now >= next_publish) {
			run_counters(&run, &plan, l);
			publish_metrics(&o, mon, agg, &run, t0, now);
			next_publish = now + (o.interval_ns ? o.interval_ns :
							      1000000000ull);
		}
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child_done = 1;
			break;
		}
		if (o.npids && now - last_check > 200000000ull) {
			last_check = now;
			if (loader_targets_alive(l) == 0) {
				if (!quiet)
					fprintf(stderr,
						"iprof: every traced process has exited\n");
				break;
			}
		}
	}

	/* the trace ends here: stop recording, take what is in the ring */
	now = util_now_ns();
	monitor_notify("STOPPING=1");
	loader_set_tracing(l, 0);
	loader_drain(l);
	if (child > 0 && !child_done)
		kill(child, SIGTERM);
	/* the counters once, for the recording and the report alike */
	e = run_counters(&run, &plan, l);
	run.end_ns = now;
	if (!e && sk.rec)
		e = record_finish(&o, sk.rec, &run);
	if (!e && sk.chrome)
		e = timeline_finish(&tl, &w, sk.chrome, now);
	if (!e && want_report(&o))
		e = emit_report(&o, &w, agg, &run, t0, o.delta ? since : t0,
				now, nreports + 1, 1);
	/* a script learns from the status whether all it asked was traced */
	ret = e ? EXIT_RUNTIME : nattached < plan.ntimers ? EXIT_PARTIAL : 0;
	if (child > 0 && !child_done) {
		/* the report is out; a command that ignores SIGTERM gets
		 * SIGKILL after 2 s */
		for (i = 0; i < 200 && waitpid(child, &status, WNOHANG) != child;
		     i++)
			usleep(10000);
		if (i == 200) {
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
		}
		child_done = 1;
	}
	if (child > 0)
		command_status(status);
	fflush(NULL);
	detach(l);
out:
	if (exec_r >= 0)
		close(exec_r);
	if (child > 0 && !child_done) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	loader_close(l);
	rec_writer_free(sk.rec);
	if (rec_f && rec_f != stdout)
		fclose(rec_f);
	chrome_free(sk.chrome);
	timeline_close(&tl);
	free(run.timers);
	agg__free(agg);
	plan_free(&plan);
	btfarg_free(&btfa);
	probe_list_free(&pl);
	output_close(&w);
	monitor_close(mon);
	free(cmd_path);
	free(o.probe_files);
	free(o.specs);
	free(o.pids);
	return ret;
}
