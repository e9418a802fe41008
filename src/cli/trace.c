// SPDX-License-Identifier: GPL-2.0-only
/*
 * One traced run, once the plan is built: the outputs opened, the command
 * spawned, the probes attached, the rings polled until the command exits,
 * the duration ends, the -p processes are gone or a signal comes, then the
 * final report, recording and timeline, and the detach.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "iprof/sym.h"
#include "iprof/umaps.h"
#include "iprof/util.h"
#include "cli/trace.h"
#include "cli/target.h"
#include "cli/run.h"
#include "cli/plan_print.h"
#include "cli/calib.h"
#include "cli/hint.h"
#include "cli/latert.h"
#include "cli/log.h"
#include "cli/report_opts.h"

/*
 * The main loop's periods.  POLL_MS: how long a poll of the rings waits,
 * and so how late a deadline, an --interval report or the command's exit
 * is seen.  ALIVE_CHECK_NS: -p targets are checked for life this often
 * (a walk over the targets map), and --cgroup directories for a new id
 * (made anew: a restarted service).  PUBLISH_DEFAULT_NS: --listen without
 * --interval renews /metrics every second.  KILL_GRACE_POLLS: after the
 * report, a command that ignores SIGTERM gets SIGKILL after this many
 * waits of KILL_GRACE_US (2 s in all).
 */
#define POLL_MS 10
#define ALIVE_CHECK_NS 200000000ull
#define PUBLISH_DEFAULT_NS 1000000000ull
#define KILL_GRACE_POLLS 200
#define KILL_GRACE_US 10000
/* agg__prune(): threads whose EXIT record was lost are looked for this
 * often (a read of /proc/TID/stat per thread with state) */
#define PRUNE_NS 30000000000ull

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t report_out; /* the final report, recording and timeline are written */

static int tid_alive(uint32_t tid, void *ctx)
{
	(void)ctx;
	return util_proc_alive((int)tid);
}

/*
 * The first SIGINT/SIGTERM/SIGHUP asks for a clean stop (report, detach in
 * the background); a second one ends iprof at once, exit status 128 + the
 * signal, wherever it is (a temporary -o file it leaves is removed by the
 * next run: output_clean_stale()).  Not a copy of the first, though: the
 * same signal sent by kill(2) from the same process within DUP_SIGNAL_NS
 * (GNU timeout(1) sends it to iprof and then to its process group, and a
 * script may do the same), which would have cost the report; a terminal's
 * second Ctrl-C (si_code SI_KERNEL) always counts.
 */
#define DUP_SIGNAL_NS 1000000000ll
static volatile sig_atomic_t first_sig, first_code;
static volatile pid_t first_pid;
static volatile long long first_ns;

static long long signal_now_ns(void)
{
	struct timespec ts;

	/* clock_gettime(2): async-signal-safe (signal-safety(7)) */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* 1 once trace_run() began: before, a signal ends iprof at once */
static volatile sig_atomic_t run_began;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] =
		"iprof: a second signal: exiting at once, without a report\n";
	static const char done[] =
		"iprof: a second signal: exiting at once (all output is written)\n";
	static const char early[] =
		"iprof: interrupted before tracing began: nothing traced\n";
	long long now = signal_now_ns();

	(void)uc;
	if (!run_began) {
		/* planning, calibrating: nothing to report, nothing the
		 * kernel keeps (BPF links die with their fds) */
		ssize_t r = write(STDERR_FILENO, early, sizeof(early) - 1);

		(void)r;
		_exit(128 + sig);
	}
	if (stop_requested) {
		if (sig == first_sig && si && si->si_code == SI_USER &&
		    first_code == SI_USER && si->si_pid == first_pid &&
		    now - first_ns < DUP_SIGNAL_NS)
			return; /* the same sender's copy: one request */
		/* write(2): async-signal-safe, unlike the log module */
		ssize_t r = report_out ? write(STDERR_FILENO, done, sizeof(done) - 1) :
					 write(STDERR_FILENO, msg, sizeof(msg) - 1);

		(void)r;
		_exit(128 + sig);
	}
	first_sig = sig;
	first_code = si ? si->si_code : 0;
	first_pid = si ? si->si_pid : 0;
	first_ns = now;
	stop_requested = 1;
}

/* One live run: what its stages share. */
struct trace {
	const struct opts *o; /* as parsed */
	struct run_calib *rc; /* the overhead compensation */
	const struct plan *plan;
	struct output w; /* -o */
	FILE *rec_f; /* iprof record's -o, or NULL */
	struct timeline tl; /* -f chrome */
	struct monitor *mon; /* --listen */
	struct pipeline *pl; /* where the records go: the tree and the rest */
	struct rec_writer *rec; /* iprof record's sink in pl (pl owns it) */
	struct target_sel sel; /* --comm, --exe, --cgroup */
	int has_sel;
	char *cmd_path; /* the command found in $PATH (o->cmd[0]) */
	pid_t child; /* the command, or -1 */
	int exec_r; /* its exec's errno comes here; -1: closed */
	int status, child_done;
	int cmd_ended; /* the command ended by itself, not stopped by us */
	struct loader *l;
	uint32_t plan_errors, nattached;
	char not_attached[128]; /* " (N not attached: listed ...)" or "" */
	struct rec_run run;
	/* how times are compensated: run.calib points here */
	struct report_calib calib_rep[CALIB_NCLASS];
	struct utsname un;
	uint64_t t0; /* tracing began (CLOCK_MONOTONIC ns) */
	uint64_t since; /* the last interval report (--interval-mode delta) */
	unsigned int nreports;
	struct latert lrt; /* runtimes mapped after the uretprobes */
	/* --offcpu-stacks=user: the traced processes' mappings, read as
	 * their user stacks come in (the loader's), for the reports */
	struct umaps *umaps;
};

/*
 * The stages of trace_run(), in their order.  Each returns 0 to go on or
 * the exit status of the run (src/cli/main.c) after saying why; what they
 * made is freed by trace_free().
 */

/* -o, iprof record's recording, --listen, the -f chrome timeline */
static int open_outputs(struct trace *t)
{
	const struct opts *o = t->o;
	char err[1024];
	int e;

	/* a traced command owns stdout: with no -o the report (or the
	 * timeline) goes to stderr, as perf stat's, time's and strace -c's
	 * do, and a pipeline's data is never altered (issue 48 item 2) */
	if (o->cmd && !o->r.output) {
		const struct report_format *rf = report_fmt_get(o->r.fmt);

		e = output_open_stderr(&t->w);
		if (e) {
			log_error("cannot write the report to stderr: %s",
				  strerror(-e));
			return EXIT_RUNTIME;
		}
		/* a document for a program, among iprof's own lines: `>`
		 * and `| jq` get none of it (newcomer trial 5, finding 4) */
		if (rf && (rf->caps & REPORT_CAP_PARSED) && run_want_report(o))
			log_info("the %s report goes to stderr, after iprof's own lines (the command keeps stdout): -o FILE writes it alone, -o - to stdout",
				 rf->name);
	} else if (output_open(&t->w, o->r.output, err, sizeof(err))) {
		log_error("%s", err);
		return EXIT_USAGE;
	}
	if (o->record && run_record_open(o, &t->w, &t->rec_f))
		return EXIT_USAGE;
	if (o->listen &&
	    (e = monitor__listen(&t->mon, o->listen, err, sizeof(err)))) {
		log_error("%s", err);
		return e == -EINVAL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	/* the port, which :0 leaves to the kernel: then said even with -q
	 * (nothing else tells it) */
	if (t->mon) {
		const char *c = strrchr(o->listen, ':');

		log_msg(c && !strcmp(c, ":0") ? LOG_LVL_WARN : LOG_LVL_INFO,
			"serving /metrics on port %d (--listen %s)",
			monitor__port(t->mon), o->listen);
	}
	if (report_fmt_has(o->r.fmt, REPORT_CAP_STREAM) &&
	    run_timeline_open(&t->tl, &t->w, o->r.fmt))
		return EXIT_USAGE;
	return 0;
}

/* the pipeline, its tree (or --fold-threads' shards) first */
static int open_sinks(struct trace *t)
{
	const struct plan *plan = t->plan;
	const struct opts *o = t->o;
	struct pipeline_cfg cfg = {
		.tree = 1,
		.ntimers = plan->ntimers,
		.by = o->r.by,
		.max_paths = o->r.max_paths,
		.max_keys = o->r.max_keys,
		.slowest = o->r.slowest,
		.fold_threads = o->fold_threads,
	};
	uint32_t i;

	for (i = 0; i < plan->ntimers; i++)
		t->plan_errors += !!plan->timers[i].error;
	t->pl = pipeline__new(&cfg);
	if (!t->pl) {
		if (o->fold_threads > 1)
			log_error("cannot start %u folding threads: %s",
				  o->fold_threads, strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

void trace_catch_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* the terminal went away: report */
	/* a reader of stdout that goes away is a write error (EPIPE: exit
	 * 1, the command stopped), not a death that leaves it running */
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Nonzero, with errno set as execve(2) would (ENOENT, EACCES, ENOTDIR...),
 * for a command @path that cannot be run: missing, not executable by us,
 * or a directory.  Other failures (ENOEXEC, a bad interpreter) are left
 * to the exec, which reports them as well.
 */
static int cmd_unrunnable(const char *path)
{
	struct stat st;

	if (access(path, X_OK))
		return 1;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		errno = EACCES;
		return 1;
	}
	return 0;
}

/* "; did you mean ...?" for a command @name not there (@e ENOENT): the
 * names near it in its folder or $PATH (static; "" without) */
static const char *near_names(const char *name, int e)
{
	static char buf[600];

	buf[0] = '\0';
	if (e == ENOENT)
		sym_suggest_near(name, buf, sizeof(buf));
	return buf;
}

/* -- COMMAND: forked, held before its exec until start_tracing() */
static int spawn_command(struct trace *t)
{
	const struct opts *o = t->o;
	int on_stderr, e;

	if (!o->cmd)
		return 0;
	if (!strchr(o->cmd[0], '/')) {
		/* search $PATH here, not in the traced child: its failed
		 * execve(2)s would show up in spans on execve */
		t->cmd_path = target_find_in_path(o->cmd[0]);
		if (!t->cmd_path) {
			log_error("cannot run '%s': not found in $PATH%s",
				  o->cmd[0], near_names(o->cmd[0], ENOENT));
			return EXIT_USAGE;
		}
		o->cmd[0] = t->cmd_path;
	} else if (cmd_unrunnable(o->cmd[0])) {
		/* before the probes attach (seconds), not at its exec */
		e = errno;
		log_error("cannot run '%s': %s%s", o->cmd[0], strerror(e),
			  near_names(o->cmd[0], e));
		return EXIT_USAGE;
	}
	/* stdout asked for (-o -) for a recording, a timeline or the
	 * report: the command's output goes to stderr, not into it */
	on_stderr = t->rec_f == stdout || (t->tl.f && t->tl.f == stdout) ||
		    (t->w.direct == stdout && run_want_report(o));
	if (on_stderr)
		log_info("the command's stdout goes to stderr: stdout carries the %s%s",
			 t->rec_f == stdout	      ? "recording" :
			 t->tl.f && t->tl.f == stdout ? "timeline" :
							report_fmt_get(o->r.fmt)->name,
			 t->rec_f == stdout || (t->tl.f && t->tl.f == stdout) ?
				 "" : " report");
	t->child = target_spawn_gated(o->cmd, &t->exec_r, on_stderr);
	if (t->child < 0) {
		log_error("cannot fork: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

/* @ns as a phase's time: "52.0 ms", "1.34 s" */
static const char *phase_str(char *b, size_t n, uint64_t ns)
{
	if (ns >= 1000000000ull)
		snprintf(b, n, "%.2f s", (double)ns / 1e9);
	else
		snprintf(b, n, "%.1f ms", (double)ns / 1e6);
	return b;
}

/*
 * pids_gone() - with -p alone, 1 (said) when every process given exited
 * before tracing began, by the end of @phase ("the BPF load", "the
 * calibration", "the attach"), and how far into iprof's startup that was:
 * nothing to trace (not an empty report).  0 while one lives.
 */
static int pids_gone(struct trace *t, const char *phase)
{
	char b[32];

	if (!t->o->npids || t->has_sel || loader__targets_alive(t->l) != 0)
		return 0;
	log_error("every process given with -p exited before tracing began: gone by the end of %s, %s into iprof's startup: nothing traced",
		  phase, phase_str(b, sizeof(b), util_now_ns() - t->rc->t0));
	return 1;
}

/*
 * log_phases() - the startup's time, phase by phase (struct run_calib):
 * planning, BPF load, calibration (its own time, and what of it was left
 * after the load), attach; info level, before the "attached" line.
 */
static void log_phases(const struct run_calib *rc)
{
	char a[32], b[32], c[32], d[32], e[32], f[100] = "";

	if (rc->calib && rc->calib->took_ns)
		snprintf(f, sizeof(f), ", calibration %s (%s after the load)",
			 phase_str(a, sizeof(a), rc->calib->took_ns),
			 phase_str(b, sizeof(b), rc->wait_ns));
	log_info("started in %s: plan %s, BPF load %s%s, attach %s",
		 phase_str(c, sizeof(c), util_now_ns() - rc->t0),
		 phase_str(d, sizeof(d), rc->plan_ns),
		 phase_str(e, sizeof(e), rc->load_ns), f,
		 phase_str(a, sizeof(a), rc->attach_ns));
}

/* the BPF programs loaded, the rings open, the target processes known */
static int load_probes(struct trace *t)
{
	const struct opts *o = t->o;
	struct loader_opts lo = { 0 };
	char err[1024];
	uint64_t t0;
	int i, n, e;

	if (target_resolve_sel(o, &t->sel))
		return EXIT_USAGE;
	target_raise_fd_limit();
	lo.rb_bytes = o->rb_bytes;
	lo.maxactive = o->maxactive;
	lo.span_keys = o->span_keys;
	lo.span_timeout_ns = o->span_timeout_ns;
	lo.slow_args = o->r.slowest > 0;
	lo.offcpu_stacks = o->offcpu_stacks;
	if (o->offcpu_stacks & IPROF_OFF_USTACK) {
		t->umaps = umaps_new();
		if (!t->umaps) {
			log_error("out of memory");
			return EXIT_RUNTIME;
		}
		lo.umaps = t->umaps;
		report_opts_set_umaps(t->umaps);
	}
	lo.filter = o->cmd || o->npids || t->has_sel;
	lo.sel = t->has_sel ? &t->sel : NULL;
	lo.verbose = o->verbose;
	lo.cancel = &stop_requested;
	lo.progress = log_enabled(LOG_LVL_INFO);
	t0 = util_now_ns();
	if (loader__open(&t->l, t->plan, &lo, pipeline__on_record, t->pl, err,
			 sizeof(err))) {
		log_error("%s", err);
		return EXIT_RUNTIME;
	}
	t->rc->load_ns = util_now_ns() - t0;
	if (o->fold_threads > 1 && !t->rec_f &&
	    !report_fmt_has(o->r.fmt, REPORT_CAP_ORDERED)) {
		/* nothing needs every record in one order: each shard
		 * merges its own threads' records from the rings */
		struct loader_unmerged u = { pipeline__push_src,
					     pipeline__flush_src, t->pl };
		unsigned int nrings;

		loader__rb_bytes(t->l, &nrings);
		if ((e = pipeline__split(t->pl, nrings))) {
			log_error("cannot merge the rings in the folding threads: %s",
				  strerror(-e));
			return EXIT_RUNTIME;
		}
		loader__set_unmerged(t->l, &u);
	}
	if (t->child > 0 && loader__add_target(t->l, t->child))
		return EXIT_RUNTIME;
	for (i = 0; i < o->npids; i++)
		if (loader__add_target(t->l, o->pids[i]))
			return EXIT_RUNTIME;
	if (o->npids) {
		n = target_add_descendants(t->l, o->pids, o->npids);
		if (n)
			log_info(
				"also tracing %d process%s that the -p process%s forked before",
				n, n == 1 ? "" : "es",
				o->npids > 1 ? "es" : "");
	}
	return pids_gone(t, "the BPF load") ? EXIT_RUNTIME : 0;
}

/* every timer the kernel takes attached; *@ns: how long it took */
static int attach_probes(struct trace *t, uint64_t *ns)
{
	const struct plan *plan = t->plan;
	const struct opts *o = t->o;
	uint64_t t0;
	int n;

	/* the calibration ran while the programs loaded: done before any
	 * probe of the run is attached */
	t0 = util_now_ns();
	if (t->rc->job && run_costs(t->rc, plan, t->pl))
		return EXIT_RUNTIME;
	t->rc->wait_ns = util_now_ns() - t0;
	if (pids_gone(t, "the calibration"))
		return EXIT_RUNTIME;
	t0 = util_now_ns();
	n = loader__attach(t->l, run_on_skip);
	if (n == -EINTR || stop_requested) {
		log_error("interrupted before tracing began; detaching");
		run_detach(t->l);
		return 128 + (first_sig ? first_sig : SIGINT);
	}
	if (n < 0) {
		log_error("cannot attach: %s", strerror(-n));
		return EXIT_RUNTIME;
	}
	if (!n) {
		/* no report follows: why each timer is missing, then the
		 * verdict (it came first, its reason below it) */
		plan_print_not_attached(plan, t->l,
					o->strict ? "iprof: --strict: "
						  : "iprof: ");
		log_error("no probe could be attached");
		/* every probe wrong in the files (not refused by the kernel),
		 * or --strict: bad input */
		return t->plan_errors == plan->ntimers || o->strict ?
			       EXIT_USAGE :
			       EXIT_RUNTIME;
	}
	t->nattached = (uint32_t)n;
	if (t->sel.ncomm || t->sel.nexe) {
		/* BPF now follows execs: the processes running now */
		n = target_scan_sel(t->l, &t->sel);
		log_info("%d process%s selected by --comm/--exe running now", n,
			 n == 1 ? "" : "es");
	}
	if (o->strict && t->nattached != plan->ntimers) {
		plan_print_not_attached(plan, t->l, "iprof: --strict: ");
		log_error("--strict: %u of %u timers could not be attached",
			  plan->ntimers - t->nattached, plan->ntimers);
		return EXIT_USAGE; /* as for an error in the probe files */
	}
	*ns = util_now_ns() - t0;
	t->rc->attach_ns = *ns;
	/* the timers not attached are listed once, in the report's summary
	 * (stderr for folded); here only how many */
	if (t->nattached < plan->ntimers)
		snprintf(t->not_attached, sizeof(t->not_attached),
			 " (%u not attached: listed %s)",
			 plan->ntimers - t->nattached,
			 report_fmt_has(o->r.fmt, REPORT_CAP_SUMMARY_APART) ?
				 "at the end" :
				 "in the report");
	/* -p alone, and every process gone while the probes were attached:
	 * nothing to trace (not an empty report, exit 0) */
	return pids_gone(t, "the attach") ? EXIT_RUNTIME : 0;
}

/* iprof record: the recording begun, a sink of the pipeline */
static int add_recording(struct trace *t)
{
	struct rec_writer *rw;
	int e;

	if (run_record_truncate(t->rec_f) ||
	    !(rw = rec_writer__new(t->rec_f, t->o->record, &t->run))) {
		log_error("cannot write '%s': %s", t->o->record,
			  strerror(errno));
		return EXIT_RUNTIME;
	}
	if ((e = pipeline__add_recording(t->pl, rw))) {
		log_error("cannot write '%s': %s", t->o->record, strerror(-e));
		return EXIT_RUNTIME;
	}
	t->rec = rw;
	return 0;
}

/* tracing on, the recording and timeline begun, the command let go */
static int start_tracing(struct trace *t, uint64_t attach_ns)
{
	const struct plan *plan = t->plan;
	const struct opts *o = t->o;
	const char *what;
	char msg[PATH_MAX + 256];
	int e;

	/* recording starts now, with every probe in place; then the line
	 * that says so (tests and scripts wait for it) */
	if ((e = loader__set_tracing(t->l, 1))) {
		log_error("cannot start tracing: %s", strerror(-e));
		return EXIT_RUNTIME;
	}
	if (o->npids && !t->has_sel)
		hint_unmapped(plan, o->pids, (size_t)o->npids);
	what = o->cmd	     ? " the command"
	       : t->has_sel  ? " the selected processes"
	       : o->npids    ? " the process"
			     : " system-wide";
	log_phases(t->rc);
	hint_single_step(plan);
	log_info("%u of %u timers attached in %.1f ms%s; tracing%s... %s",
		 t->nattached, plan->ntimers, (double)attach_ns / 1e6,
		 t->not_attached, what, o->cmd ? "" : "Ctrl-C to stop");
	t->t0 = util_now_ns();
	t->since = t->t0;
	run_start(&t->run, o, &t->un, t->t0);
	if (run_counters(&t->run, plan, t->l))
		return EXIT_RUNTIME;
	if (t->rc->calib)
		run_set_calib(&t->run, t->rc, plan, t->l, t->calib_rep);
	if (t->rec_f && (e = add_recording(t)))
		return e;
	if (t->tl.f &&
	    run_timeline_begin(&t->tl, t->pl, &t->run, o->r.max_depth))
		return EXIT_RUNTIME;
	if (t->mon)
		run_publish_metrics(o, t->mon, t->pl, &t->run, t->t0, t->t0);
	/* systemctl status: what it traces, of which probe file */
	snprintf(msg, sizeof(msg),
		 "READY=1\nSTATUS=tracing%s: %u of %u timers attached%s%s%s%s",
		 what, t->nattached, plan->ntimers,
		 o->nprobe_files ? " (" : "",
		 o->nprobe_files ? o->probe_files[0] : "",
		 o->nprobe_files > 1 ? " and more" : "",
		 o->nprobe_files ? ")" : "");
	monitor_notify(msg);
	if (t->child <= 0)
		return 0;
	if (kill(t->child, SIGUSR1)) {
		log_error("cannot start the command: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	/* exec's errno, or EOF once the exec succeeded */
	if (read(t->exec_r, &e, sizeof(e)) == sizeof(e)) {
		log_error("cannot run '%s': %s", o->cmd[0], strerror(e));
		return EXIT_USAGE;
	}
	close(t->exec_r);
	t->exec_r = -1;
	return 0;
}

/* the command and the -p processes: a runtime they mapped since the
 * last look (cli/latert.h) */
static void check_runtimes(struct trace *t)
{
	int k;

	if (t->child > 0 && !t->child_done)
		latert_check(&t->lrt, t->child);
	for (k = 0; k < t->o->npids; k++)
		latert_check(&t->lrt, t->o->pids[k]);
}

/*
 * The rings polled, interval reports and /metrics renewed, until the
 * command exits, the duration ends, the -p processes are gone, the rings
 * fail or a signal comes.
 */
static void poll_loop(struct trace *t)
{
	const struct opts *o = t->o;
	uint64_t deadline = 0, next_report = 0, next_publish = 0;
	uint64_t next_prune = 0, last_check = 0, now;
	uint64_t publish_ns = o->interval_ns ? o->interval_ns :
					       PUBLISH_DEFAULT_NS;
	uint64_t last_lrt = 0;
	int n, wait_ms;

	latert_init(&t->lrt, t->plan, t->o->pids, t->o->npids);

	if (o->duration_ns)
		deadline = t->t0 + o->duration_ns;
	if (o->interval_ns)
		next_report = t->t0 + o->interval_ns;
	if (t->mon)
		next_publish = t->t0 + publish_ns;
	while (!stop_requested) {
		/* a duration ends on time, not at the next poll period */
		wait_ms = POLL_MS;
		if (deadline) {
			now = util_now_ns();
			if (deadline <= now)
				break;
			if ((deadline - now + 999999) / 1000000 < POLL_MS)
				wait_ms = (int)((deadline - now + 999999) / 1000000);
		}
		n = loader__poll(t->l, wait_ms);
		if (n < 0 && n != -EINTR) {
			log_error("ring buffer: %s", strerror(-n));
			break;
		}
		now = util_now_ns();
		if (deadline && now >= deadline)
			break;
		if (next_report && now >= next_report && run_want_report(o)) {
			run_counters(&t->run, t->plan, t->l);
			run_emit_report(o, &t->w, t->pl, &t->run, t->t0,
					o->delta ? t->since : t->t0, now,
					++t->nreports, 0);
			t->since = now;
			next_report += o->interval_ns;
			if (next_report <= now)
				next_report = now + o->interval_ns;
		}
		if (t->mon && now >= next_publish) {
			run_counters(&t->run, t->plan, t->l);
			run_publish_metrics(o, t->mon, t->pl, &t->run, t->t0,
					    now);
			next_publish = now + publish_ns;
		}
		if (t->child > 0 &&
		    waitpid(t->child, &t->status, WNOHANG) == t->child) {
			t->child_done = 1;
			t->cmd_ended = 1;
			t->run.cmd_ended = 1;
			t->run.cmd_wstatus = t->status;
			break;
		}
		if (now >= next_prune) {
			if (next_prune)
				pipeline__prune(t->pl, tid_alive, NULL);
			next_prune = now + PRUNE_NS;
		}
		if (t->lrt.timer && now - last_lrt > ALIVE_CHECK_NS) {
			last_lrt = now;
			check_runtimes(t);
		}
		if ((o->npids || t->sel.ncg) &&
		    now - last_check > ALIVE_CHECK_NS) {
			last_check = now;
			if (t->sel.ncg)
				target_refresh_cgroups(t->l, &t->sel);
			/* with --comm, --exe or --cgroup more may come */
			if (o->npids && !t->has_sel &&
			    loader__targets_alive(t->l) == 0) {
				log_info("every traced process has exited");
				break;
			}
		}
	}
}

/*
 * The trace ends: stop recording, then read the stop time, so that no
 * record is stamped after it (a start after it would show as incomplete
 * for 0 ns), and take what is in the rings.  Returns the stop time (ns).
 */
static uint64_t stop_tracing(struct trace *t)
{
	uint64_t now;

	monitor_notify("STOPPING=1");
	check_runtimes(t);
	loader__set_tracing(t->l, 0);
	now = util_now_ns();
	loader__drain(t->l);
	if (t->child > 0 && !t->child_done) {
		kill(t->child, SIGTERM);
		/* stopped by -d or a signal: the command's tree with it (its
		 * children, as timeout(1) signals its process group): a
		 * `sh -c 'sleep 33'` left its sleep running, untraced,
		 * after the report; -p and --comm/--cgroup processes are
		 * not iprof's to end */
		if (!t->o->npids && !t->has_sel)
			loader__targets_signal(t->l, SIGTERM);
	}
	return now;
}

/* the recording, timeline and final report written (at @now); returns
 * the exit status */
static int write_results(struct trace *t, uint64_t now)
{
	const struct opts *o = t->o;
	int e;

	/* the counters once, for the recording and the report alike */
	e = run_counters(&t->run, t->plan, t->l);
	t->run.end_ns = now;
	if (t->umaps) { /* the recording keeps them: iprof report's names */
		const struct rec_umap *m;

		t->run.numaps = umaps_list(t->umaps, &m);
		t->run.umaps = (struct rec_umap *)m;
	}
	if (!e && t->rec)
		e = run_record_finish(o, t->rec, &t->run);
	if (!e && t->tl.h && o->r.slowest)
		e = run_stream_mark(t->tl.fmt, t->tl.h, t->pl, now);
	if (!e && t->tl.h)
		e = run_timeline_finish(&t->tl, &t->w, now);
	if (!e && run_want_report(o))
		e = run_emit_report(o, &t->w, t->pl, &t->run, t->t0,
				    o->delta ? t->since : t->t0, now,
				    t->nreports + 1, 1);
	report_out = !e;
	if (!e && o->cmd && o->cmd[0]) {
		struct agg *agg = pipeline__tree(t->pl, now);

		if (agg) {
			hint_zero_hits(t->plan, t->run.timers, agg, o->cmd[0]);
			pipeline__tree_done(t->pl, agg);
		}
	}
	/* a script learns from the status whether all it asked was traced,
	 * and all of it counted */
	return e ? EXIT_RUNTIME :
	       t->nattached < t->plan->ntimers ||
			       run_lost_data(t->pl, &t->run, now,
					     !report_out || !run_want_report(o) ||
						     (o->r.output &&
						      strcmp(o->r.output, "-"))) ?
		   EXIT_PARTIAL :
		   0;
}

/* the command's end awaited (SIGKILL 2 s after the SIGTERM), the probes
 * detached */
static void finish(struct trace *t)
{
	int i;

	if (t->child > 0 && !t->child_done) {
		for (i = 0; i < KILL_GRACE_POLLS &&
			    waitpid(t->child, &t->status, WNOHANG) != t->child;
		     i++)
			usleep(KILL_GRACE_US);
		if (i == KILL_GRACE_POLLS) {
			kill(t->child, SIGKILL);
			waitpid(t->child, &t->status, 0);
		}
		t->child_done = 1;
	}
	if (t->child > 0)
		target_command_status(t->status, t->cmd_ended);
	fflush(NULL);
	run_detach(t->l);
}

/* whatever the stages made, in any state */
static void trace_free(struct trace *t)
{
	if (t->exec_r >= 0)
		close(t->exec_r);
	if (t->child > 0 && !t->child_done) {
		kill(t->child, SIGKILL);
		waitpid(t->child, NULL, 0);
	}
	loader__close(t->l);
	/* the recording's writer and the timeline's before their files */
	pipeline__free(t->pl);
	if (t->rec_f && t->rec_f != stdout)
		fclose(t->rec_f);
	run_timeline_close(&t->tl);
	free(t->run.timers);
	output_close(&t->w);
	monitor__close(t->mon);
	free(t->cmd_path);
	latert_free(&t->lrt);
	report_opts_set_umaps(NULL);
	umaps_free(t->umaps);
}

/*
 * trace_run() - trace @plan as @o asks (@o->cmd[0] may be replaced by its
 * path in $PATH; what attached is the loader's: loader__timer()).  Returns the
 * exit status (see src/cli/main.c).
 */
int trace_run(const struct opts *o, struct run_calib *rc,
	      const struct plan *plan)
{
	struct trace t = { .o = o, .rc = rc, .plan = plan, .child = -1,
			   .exec_r = -1 };
	uint64_t attach_ns = 0;
	int ret;

	t.has_sel = target_has_sel(o);
	trace_catch_signals(); /* main() did: again, for a caller that did not */
	run_began = 1;
	if (!(ret = open_outputs(&t)) && !(ret = open_sinks(&t))) {
		if (!(ret = spawn_command(&t)) && !(ret = load_probes(&t)) &&
		    !(ret = attach_probes(&t, &attach_ns)) &&
		    !(ret = start_tracing(&t, attach_ns))) {
			poll_loop(&t);
			if (t.child > 0 && t.cmd_ended)
				latert_killed(&t.lrt, t.child, t.status);
			ret = write_results(&t, stop_tracing(&t));
			finish(&t);
			/* a command killed by a signal (not iprof's SIGTERM at
			 * the stop): 128 + N as shells say it, before 3,
			 * after 1 */
			if (t.child > 0 && t.cmd_ended &&
			    WIFSIGNALED(t.status) && ret != EXIT_RUNTIME)
				ret = 128 + WTERMSIG(t.status);
			/* --command-status: a script's `iprof ... -- cmd`
			 * fails as `cmd` does, unless iprof failed */
			else if (o->command_status && !ret && t.cmd_ended &&
				 WIFEXITED(t.status))
				ret = WEXITSTATUS(t.status);
		}
	}
	trace_free(&t);
	return ret;
}
