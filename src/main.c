// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof - instrumented profiler: times named start/stop pairs (fentry/fexit,
 * kprobes, uprobes, tracepoints) with BPF and prints the call tree.
 *
 * Exit codes: 0 traced and reported; 1 a runtime failure (BPF load, no
 * probe could attach, write error); 2 bad input (options, probe files, a
 * PID that is gone).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iprof/agg.h"
#include "iprof/plan.h"
#include "iprof/probe.h"
#include "iprof/report.h"
#include "iprof/util.h"
#include "loader.h"
#include "tracefs.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

enum fmt { FMT_TABLE, FMT_SEED, FMT_JSON, FMT_FOLDED };

struct opts {
	const char **probe_files;
	int nprobe_files;
	const char **specs;
	int nspecs;
	pid_t *pids;
	int npids;
	uint64_t duration_ns;
	uint64_t rb_bytes;
	enum fmt fmt;
	const char *output;
	/* report options (struct report); set: given on the command line */
	enum report_sort sort;
	uint64_t min_total_ns;
	uint32_t max_depth;
	enum report_weight weight;
	enum report_col columns[REPORT_NCOL];
	size_t ncolumns;
	int sort_set, min_total_set, max_depth_set, weight_set;
	int strict, dry_run, verbose, quiet;
	uint64_t interval_ns; /* --interval: a report every interval_ns */
	int delta; /* --interval-mode delta: each report covers one interval */
	char **cmd; /* after "--" */
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iprof [OPTIONS] [-- COMMAND [ARG...]]\n"
		"       iprof list [OPTIONS]\n"
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
		"                        graph input: 'a;b;c VALUE') or seed (the seed\n"
		"                        patch's lines)\n"
		"  -o, --output FILE     write the report to FILE instead of stdout\n"
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
		"      --interval TIME   also report every TIME while tracing (1s, 10m);\n"
		"                        with -o, FILE is replaced by each new report\n"
		"      --interval-mode M cumulative (default: since the start) or delta\n"
		"                        (each report covers its interval only)\n"
		"\n"
		"Other:\n"
		"      --strict          fail if any probe cannot be attached\n"
		"      --dry-run         resolve the probes, print the plan, trace nothing\n"
		"                        (same as 'iprof list')\n"
		"      --rb-size SIZE    BPF ring buffer size (default 16M)\n"
		"  -v, --verbose         print libbpf's messages\n"
		"  -q, --quiet           no progress messages on stderr\n"
		"  -h, --help            this help\n"
		"  -V, --version         print the version\n"
		"\n"
		"Ctrl-C (SIGINT) or SIGTERM stops tracing and prints the full report.\n"
		"Exit status: 0 ok, 1 runtime failure, 2 bad input.\n");
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
	};
	static const struct option lo[] = {
		{ "probes", required_argument, NULL, 'P' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "rb-size", required_argument, NULL, O_RB },
		{ "sort", required_argument, NULL, O_SORT },
		{ "min-total", required_argument, NULL, O_MIN_TOTAL },
		{ "max-depth", required_argument, NULL, O_MAX_DEPTH },
		{ "columns", required_argument, NULL, O_COLUMNS },
		{ "weight", required_argument, NULL, O_WEIGHT },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "interval-mode", required_argument, NULL, O_INTERVAL_MODE },
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

	o->rb_bytes = 16 << 20;
	if (argc > 1 && !strcmp(argv[1], "list")) {
		o->dry_run = 1;
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
					"iprof: --duration '%s': expected a time like 10s, 500ms, 2m\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'f':
			if (!strcmp(optarg, "table")) {
				o->fmt = FMT_TABLE;
			} else if (!strcmp(optarg, "seed")) {
				o->fmt = FMT_SEED;
			} else if (!strcmp(optarg, "json")) {
				o->fmt = FMT_JSON;
			} else if (!strcmp(optarg, "folded")) {
				o->fmt = FMT_FOLDED;
			} else {
				fprintf(stderr,
					"iprof: --format '%s': expected table, json, folded or seed\n",
					optarg);
				return -EINVAL;
			}
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
		case O_INTERVAL:
			if (util_parse_duration(optarg, &o->interval_ns) ||
			    o->interval_ns < 10000000ull) {
				fprintf(stderr,
					"iprof: --interval '%s': expected a time of 10ms or more, like 1s, 500ms, 1m\n",
					optarg);
				return -EINVAL;
			}
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
	/* an option the chosen format would ignore is a mistake: say so */
	if (o->fmt == FMT_SEED &&
	    (o->sort_set || o->min_total_set || o->max_depth_set)) {
		fprintf(stderr,
			"iprof: --sort, --min-total and --max-depth do not apply to --format seed (first-seen order, every path)\n");
		return -EINVAL;
	}
	if (o->ncolumns && o->fmt != FMT_TABLE) {
		fprintf(stderr,
			"iprof: --columns applies to --format table only\n");
		return -EINVAL;
	}
	if (o->weight_set && o->fmt != FMT_FOLDED) {
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

static int quiet;

static void on_skip(const struct plan_timer *t)
{
	fprintf(stderr, "iprof: cannot attach %s: %s\n", t->name, t->error);
}

/*
 * Fork COMMAND, held before exec until every probe is attached: it reads
 * one byte from @gate; EOF (iprof failed) makes it exit 127 unexecuted.
 */
static pid_t spawn_gated(char **cmd, int *gate_w)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[1]);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		close(fds[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "iprof: cannot run '%s': %s\n", cmd[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*gate_w = fds[1];
	return pid;
}

static int pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

static int print_plan(const struct plan *p)
{
	uint32_t i;
	int bad = 0;

	for (i = 0; i < p->ntimers; i++) {
		const struct plan_timer *t = &p->timers[i];

		printf("%-24s %-7s %s\n", t->name, probe_kind_str(t->kind),
		       t->where);
		if (t->error) {
			printf("%-24s error   %s\n", "", t->error);
			bad++;
		}
	}
	return bad;
}

static int on_record(void *ctx, void *data, size_t size)
{
	agg__push(ctx, data, size);
	return 0;
}

/*
 * One report while tracing or at the end.  With -o and --interval, FILE is
 * replaced atomically (written to FILE.tmp, renamed), so a reader never
 * sees half a report; else it goes to @out.  @no: interval number (1..),
 * 0 for the final report.  Returns 0 or -errno.
 */
static int write_report(const struct opts *o, FILE *out, struct agg *agg,
			struct plan *plan, struct loader *l,
			uint64_t duration_ns);

static int emit_report(const struct opts *o, FILE *out, struct agg *agg,
		       struct plan *plan, struct loader *l, uint64_t t0,
		       uint64_t since, uint64_t now, unsigned int no)
{
	char tmp[4096];
	FILE *f = out;
	int ret;

	if (o->interval_ns && o->output) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", o->output);
		f = fopen(tmp, "w");
		if (!f)
			return -errno;
	}
	if (o->interval_ns && (o->fmt == FMT_TABLE || o->fmt == FMT_SEED))
		fprintf(f, "# %s %u: %.3fs to %.3fs after tracing began%s\n",
			no ? "interval" : "final report", no,
			(double)(since - t0) / 1e9, (double)(now - t0) / 1e9,
			o->delta ? "" : " (cumulative)");
	agg__snapshot(agg, now);
	ret = write_report(o, f, agg, plan, l, now - since);
	if (f != out) {
		if (fclose(f) && !ret)
			ret = -errno;
		if (!ret && rename(tmp, o->output))
			ret = -errno;
	}
	if (!ret && o->delta)
		agg__reset(agg);
	return ret;
}

static int write_report(const struct opts *o, FILE *out, struct agg *agg,
			struct plan *plan, struct loader *l,
			uint64_t duration_ns)
{
	struct report_timer *rt;
	struct report r = { 0 };
	struct timespec ts;
	struct utsname un;
	uint64_t now_rt;
	uint32_t i;
	int ret;

	rt = calloc(plan->ntimers, sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	for (i = 0; i < plan->ntimers; i++) {
		rt[i].name = plan->timers[i].name;
		rt[i].kind = probe_kind_str(plan->timers[i].kind);
		rt[i].where = plan->timers[i].where;
		rt[i].attached = plan->timers[i].attached;
		rt[i].error = plan->timers[i].error;
		rt[i].orphans = l ? loader_orphans(l, i) : 0;
		rt[i].mech = plan->timers[i].mech;
	}
	r.agg = agg;
	r.timers = rt;
	r.duration_ns = duration_ns;
	if (l)
		loader_loss(l, &r.loss);
	r.command = o->cmd;
	r.pids = o->pids;
	r.npids = (size_t)o->npids;
	if (!uname(&un)) {
		r.host = un.nodename;
		r.kernel = un.release;
		r.kernel_version = un.version;
		r.machine = un.machine;
	}
	/* tracing ended duration_ns ago at most a drain of the ring earlier */
	if (!clock_gettime(CLOCK_REALTIME, &ts)) {
		now_rt = (uint64_t)ts.tv_sec * 1000000000ull +
			 (uint64_t)ts.tv_nsec;
		if (now_rt > duration_ns)
			r.start_realtime_ns = now_rt - duration_ns;
	}
	r.sort = o->sort;
	r.min_total_ns = o->min_total_ns;
	r.max_depth = o->max_depth;
	r.weight = o->weight;
	r.columns = o->ncolumns ? o->columns : NULL;
	r.ncolumns = o->ncolumns;
	switch (o->fmt) {
	case FMT_SEED:
		ret = report_seed(out, &r);
		break;
	case FMT_JSON:
		ret = report_json(out, &r);
		break;
	case FMT_FOLDED:
		/* folded lines carry no summary: losses go to stderr */
		ret = report_folded(out, &r);
		if (!ret && !quiet)
			report_summary(stderr, &r, 0);
		break;
	default:
		ret = report_table(out, &r);
		break;
	}
	if (!ret && fflush(out))
		ret = -errno;
	free(rt);
	return ret;
}

int main(int argc, char **argv)
{
	struct probe_list pl = { 0 };
	struct opts o = { 0 };
	struct plan plan = { 0 };
	struct loader *l = NULL;
	struct agg *agg = NULL;
	struct loader_opts lo = { 0 };
	struct sigaction sa = { 0 };
	const char *tracefs;
	uint64_t t0 = 0, deadline = 0, now, last_check = 0, since = 0;
	uint64_t next_report = 0;
	unsigned int nreports = 0;
	FILE *out = stdout;
	pid_t child = -1;
	int gate = -1, ret = EXIT_USAGE, n, i, status, child_done = 0;
	char err[1024];

	if (parse_args(argc, argv, &o))
		goto out;
	quiet = o.quiet;
	if (load_probes(&o, &pl))
		goto out;
	for (i = 0; i < o.npids; i++) {
		if (!pid_alive(o.pids[i])) {
			fprintf(stderr, "iprof: -p %d: no such process\n",
				o.pids[i]);
			goto out;
		}
	}
	tracefs = tracefs_dir();
	if (plan_build(&plan, &pl, tracefs)) {
		fprintf(stderr, "iprof: out of memory\n");
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (o.dry_run) {
		ret = print_plan(&plan) ? EXIT_USAGE : 0;
		goto out;
	}
	if (o.strict) {
		n = 0;
		for (i = 0; i < (int)plan.ntimers; i++) {
			if (plan.timers[i].error) {
				fprintf(stderr, "iprof: --strict: %s\n",
					plan.timers[i].error);
				n++;
			}
		}
		if (n)
			goto out; /* bad input: EXIT_USAGE */
	}
	if (o.output) {
		out = fopen(o.output, "w");
		if (!out) {
			fprintf(stderr, "iprof: cannot open '%s': %s\n",
				o.output, strerror(errno));
			out = stdout;
			goto out;
		}
	}
	agg = agg__new(plan.ntimers);
	if (!agg) {
		ret = EXIT_RUNTIME;
		goto out;
	}

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (o.cmd) {
		child = spawn_gated(o.cmd, &gate);
		if (child < 0) {
			fprintf(stderr, "iprof: cannot fork: %s\n",
				strerror(errno));
			ret = EXIT_RUNTIME;
			goto out;
		}
	}

	lo.rb_bytes = o.rb_bytes;
	lo.filter = o.cmd || o.npids;
	lo.verbose = o.verbose;
	ret = EXIT_RUNTIME;
	if (loader_open(&l, &plan, &lo, on_record, agg, err, sizeof(err))) {
		fprintf(stderr, "iprof: %s\n", err);
		goto out;
	}
	if (child > 0 && loader_add_target(l, child))
		goto out;
	for (i = 0; i < o.npids; i++)
		if (loader_add_target(l, o.pids[i]))
			goto out;

	t0 = util_now_ns();
	n = loader_attach(l, on_skip);
	if (n < 0) {
		fprintf(stderr, "iprof: cannot attach: %s\n", strerror(-n));
		goto out;
	}
	if (!n) {
		fprintf(stderr, "iprof: no probe could be attached\n");
		goto out;
	}
	if (o.strict && (uint32_t)n != plan.ntimers) {
		fprintf(stderr,
			"iprof: --strict: %u of %u timers could not be attached\n",
			plan.ntimers - (uint32_t)n, plan.ntimers);
		goto out;
	}
	if (stop_requested)
		goto report;
	now = util_now_ns();
	if (!quiet)
		fprintf(stderr,
			"iprof: %d of %u timers attached in %.1f ms; tracing%s... %s\n",
			n, plan.ntimers, (double)(now - t0) / 1e6,
			o.cmd ? " the command" : o.npids ? " the process" :
							    " system-wide",
			o.cmd ? "" : "Ctrl-C to stop");
	t0 = now;
	if (o.duration_ns)
		deadline = t0 + o.duration_ns;
	since = t0;
	if (o.interval_ns)
		next_report = t0 + o.interval_ns;
	if (gate >= 0) {
		if (write(gate, "g", 1) != 1) {
			fprintf(stderr, "iprof: cannot start the command\n");
			goto report;
		}
		close(gate);
		gate = -1;
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
		if (next_report && now >= next_report) {
			n = emit_report(&o, out, agg, &plan, l, t0,
					o.delta ? since : t0, now, ++nreports);
			if (n)
				fprintf(stderr,
					"iprof: cannot write the report: %s\n",
					strerror(-n));
			since = now;
			next_report += o.interval_ns;
			if (next_report <= now)
				next_report = now + o.interval_ns;
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
report:
	now = util_now_ns();
	loader_detach(l);
	while (loader_poll(l, 0) > 0)
		;
	if (child > 0 && !child_done) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
		child_done = 1;
	}
	if (child > 0 && child_done && !quiet) {
		if (WIFEXITED(status) && WEXITSTATUS(status))
			fprintf(stderr, "iprof: the command exited with status %d\n",
				WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			fprintf(stderr, "iprof: the command was killed by signal %d\n",
				WTERMSIG(status));
	}
	ret = emit_report(&o, out, agg, &plan, l, t0, o.delta ? since : t0,
			  now, 0);
	if (ret) {
		fprintf(stderr, "iprof: cannot write the report: %s\n",
			strerror(-ret));
		ret = EXIT_RUNTIME;
	}
out:
	if (gate >= 0)
		close(gate);
	if (child > 0 && !child_done) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	loader_close(l);
	agg__free(agg);
	plan_free(&plan);
	probe_list_free(&pl);
	if (out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "iprof: %s: %s\n", o.output, strerror(errno));
		ret = EXIT_RUNTIME;
	}
	free(o.probe_files);
	free(o.specs);
	free(o.pids);
	return ret;
}
