// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof - instrumented profiler: times named start/stop pairs (fentry/fexit,
 * kprobes, uprobes, tracepoints) with BPF and prints the call tree.
 *
 * Exit codes: 0 traced and reported; 1 a runtime failure (BPF load, no
 * probe could attach, write error); 2 bad input (options, probe files, a
 * PID that is gone); 3 traced and reported, but some timers were not
 * attached or calls were lost (the report lists them); 128 + N
 * interrupted by signal N (SIGINT, SIGTERM, SIGHUP) before tracing began,
 * a second signal N, or the command killed by signal N
 * (src/cli/trace.c).
 *
 * The order of a run: the subcommands that trace nothing, the options
 * (src/cli/opts.c), the probes and the processes (src/cli/target.c), the plan
 * (src/probe/plan.c), --dry-run (src/cli/plan_print.c), then the trace itself
 * (src/cli/trace.c, with src/cli/run.c for its outputs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iprof/emu.h"
#include "iprof/ksym.h"
#include "iprof/unwind.h"
#include "iprof/util.h"
#include "kernel/btfarg.h"
#include "cli/opts.h"
#include "cli/target.h"
#include "cli/plan_print.h"
#include "cli/run.h"
#include "cli/trace.h"
#include "cli/cmd.h"
#include "kernel/klog.h"
#include "cli/list.h"
#include "kernel/tracefs.h"
#include "kernel/uprobe_emu.h"
#include "kernel/uprobe_multi.h"
#include "cli/log.h"
#include "cli/calib.h"
#include "cli/complete.h"

/* The kernel side's messages (src/kernel/klog.h) on iprof's log: progress is
 * info (not with -q), libbpf's own lines debug (-v), as libbpf writes them */
static int kernel_says(enum klog_level level, const char *fmt, va_list ap)
{
	static const enum log_level lvl[] = {
		[KLOG_WARN] = LOG_LVL_WARN,
		[KLOG_INFO] = LOG_LVL_INFO,
		[KLOG_DEBUG] = LOG_LVL_DEBUG,
	};

	if (level == KLOG_LIBBPF)
		return log_vraw(LOG_LVL_DEBUG, fmt, ap);
	log_vmsg(lvl[level], fmt, ap);
	return 0;
}

/*
 * start_calibration() - the probes' costs measured (src/cli/calib.h) while
 * trace_run() loads the run's programs, into @rc (the run's state: @job,
 * @cal, each timer's class, and its cost once trace_run() has waited for
 * it: run_costs()).  0, or -ENOMEM (said).
 */
static int start_calibration(struct run_calib *rc, const struct plan *plan,
			     const struct plan_env *penv, struct calib_job *job,
			     struct calib *cal)
{
	size_t n = plan->ntimers ? plan->ntimers : 1;
	uint32_t i;

	rc->costs = calloc(n, sizeof(*rc->costs));
	rc->cls = calloc(n, sizeof(*rc->cls));
	if (!rc->costs || !rc->cls || calib_start(job, cal, plan, penv)) {
		log_error("out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < plan->ntimers; i++)
		rc->cls[i] = plan_calib_class(plan, i);
	rc->job = job;
	rc->calib = cal;
	return 0;
}

/* the first -p process whose thread runs with a user shadow stack, 0
 * none: iprof's programs leave its rets to the kernel (bpf/iprof.bpf.c
 * emulate()), which --dry-run and JSON say per timer */
static int shstk_pid(const struct opts *o)
{
	char st[64];
	int i;

	for (i = 0; i < o->npids; i++) {
		snprintf(st, sizeof(st), "/proc/%d/status", (int)o->pids[i]);
		if (emu_shstk(st) == 1)
			return (int)o->pids[i];
	}
	return 0;
}

/* --dry-run: @plan printed (to -o FILE when given); the exit status the
 * run would have (file errors first, then timers this kernel cannot
 * attach), EXIT_RUNTIME when -o FILE cannot be written */
static int dry_run(const struct opts *o, const struct plan *plan)
{
	int ret, k;

	if (o->r.output && *o->r.output && strcmp(o->r.output, "-") &&
	    !freopen(o->r.output, "w", stdout)) {
		log_error("cannot write '%s': %s", o->r.output, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (report_fmt_has(o->r.fmt, REPORT_CAP_JSON)) {
		ret = plan_print_json(plan);
	} else {
		ret = plan_print_text(plan) ? EXIT_USAGE : 0;
		k = plan_print_kernel_features(plan);
		if (!ret)
			ret = k;
	}
	if (o->strict && (ret == EXIT_PARTIAL || ret == EXIT_RUNTIME))
		ret = EXIT_USAGE; /* as --strict's run would */
	if (fflush(stdout) || ferror(stdout)) {
		log_error("cannot write '%s': %s",
			  o->r.output && *o->r.output ? o->r.output : "stdout",
			  strerror(errno ? errno : EIO));
		ret = EXIT_RUNTIME;
	}
	return ret;
}

/*
 * Planning that takes over a second says how far it is
 * (plan_env.progress): on a terminal, one line on stderr rewritten in
 * place at most ten times a second and erased when planning ends; else
 * (a log, a pipe) one line, once.  -q: none.
 */
struct progress {
	struct timespec t0; /* when planning began */
	uint64_t last_ns; /* since @t0 when the line was written; 0 never */
	int tty; /* stderr is a terminal */
};

static void plan_progress(void *ctx, const struct probe *pr, uint32_t done,
			  uint32_t total)
{
	struct progress *pg = ctx;
	struct timespec t;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &t);
	ns = (uint64_t)(t.tv_sec - pg->t0.tv_sec) * 1000000000ull +
	     (uint64_t)t.tv_nsec - (uint64_t)pg->t0.tv_nsec;
	if (ns < 1000000000ull || !log_enabled(LOG_LVL_INFO) ||
	    (pg->last_ns && (!pg->tty || ns - pg->last_ns < 100000000ull)))
		return;
	pg->last_ns = ns;
	if (pg->tty)
		fprintf(stderr, "\r" LOG_PREFIX "planning '%s': %u of %u functions\033[K",
			pr->func, done, total);
	else
		log_info("planning '%s': %u of %u functions after %.1f s",
			 pr->func, done, total, (double)ns / 1e9);
}

/* plan_build() with its progress line (plan_progress()) */
static int build_plan(struct plan *plan, const struct probe_list *pl,
		      struct plan_env *penv)
{
	struct progress pg = { 0 };
	int ret;

	penv->progress = plan_progress;
	penv->progress_ctx = &pg;
	pg.tty = isatty(STDERR_FILENO);
	clock_gettime(CLOCK_MONOTONIC, &pg.t0);
	ret = plan_build(plan, pl, penv);
	if (pg.tty && pg.last_ns)
		fputs("\r\033[K", stderr); /* the progress line erased */
	penv->progress = NULL;
	return ret;
}

/*
 * missing_named() - 1 if a timer of @plan names a user function or file,
 * a kernel function or a tracepoint that does not exist
 * (plan_timer.missing: a typo, most likely), each said on stderr with its FILE:LINE:COL and nearest names: the run stops
 * before anything is attached or the command started.  0 without one,
 * with --keep-going (listed in the report, as any timer not attached) or
 * --strict (which lists it with the kernel's refusals after attaching).
 */
static int missing_named(const struct opts *o, const struct plan *plan,
			 struct probe_list *pl)
{
	uint32_t i, n = 0;

	if (o->keep_going || o->strict)
		return 0;
	for (i = 0; i < plan->ntimers; i++) {
		if (!plan->timers[i].missing || !plan->timers[i].error)
			continue;
		opts_probe_error(o, pl, plan->timers[i].probe,
				 plan->timers[i].error);
		n++;
	}
	opts_errors_more(pl);
	if (n)
		log_error("%u probe%s name%s what does not exist: nothing attached%s (--keep-going traces the others)",
			  n, n == 1 ? "" : "s", n == 1 ? "s" : "",
			  o->cmd ? ", the command not run" : "");
	return n != 0;
}

/*
 * warn_go() - one warning per Go file (unwind_is_go()) that a user-function
 * timer of @plan probes: goroutines share threads and move between them and
 * iprof keeps its call stacks per thread (doc/probes.md, "Go"), so a call
 * that blocks or grows its stack nests what its thread runs next under it
 * (a newcomer's 8 goroutines: a timer at COUNT 0, another's calls nested
 * under other goroutines' frames, with nothing said at the start).
 */
static void warn_go(const struct plan *plan);

/* the timers warned of in full, per warning; the rest in one line */
#define WARN_FULL 2

/* the two warnings of warn_returns(): is @t one of @w's? */
enum ret_warn { RW_UNSAFE, RW_ENTRY };
static int ret_warned(const struct plan_timer *t, enum ret_warn w)
{
	return !t->error && (w == RW_UNSAFE ? t->ret_unsafe : t->ret_entry);
}

/*
 * more_line() - after WARN_FULL full warnings of @what, one line naming
 * the other @n timers of @plan warned of @w, up to 8 of them: a glob over
 * a library would print one 470-byte line per function (newcomer trial 5:
 * 50 lines for Tcl_*).
 */
static void more_line(const struct plan *plan, enum ret_warn w, uint32_t n,
		      const char *what)
{
	char names[400];
	size_t len = 0;
	uint32_t i, k = 0, shown = 0;

	names[0] = '\0';
	for (i = 0; i < plan->ntimers; i++) {
		const struct plan_timer *t = &plan->timers[i];

		if (!ret_warned(t, w) || k++ < WARN_FULL)
			continue;
		if (shown < 8 && len + strlen(t->name) + 3 < sizeof(names)) {
			len += (size_t)snprintf(names + len, sizeof(names) - len,
						"%s%s", shown ? ", " : "",
						t->name);
			shown++;
		}
	}
	log_warn("%u more %s: %s%s (--dry-run says each one's reason)", n,
		 what, names, n > shown ? ", ..." : "");
}

/*
 * warn_returns() - each timer's note, and the timers whose return is at
 * risk (--returns uretprobe where an unwinder or a stack switch may meet
 * it) or unseen (counted only): WARN_FULL of each in full, the others in
 * one line.
 */
static void warn_returns(const struct plan *plan)
{
	uint32_t i, nu = 0, ne = 0;

	for (i = 0; i < plan->ntimers; i++) {
		const struct plan_timer *t = &plan->timers[i];

		if (t->note)
			log_info("%s: %s", t->name, t->note);
		if (ret_warned(t, RW_UNSAFE) && nu++ < WARN_FULL)
			log_warn("%s: --returns uretprobe, but %s: an unwinder (a C++ exception, a Rust panic, a forced thread exit) or a stack switch that meets its uretprobe's trampoline kills the program (a longjmp past it does not)",
				 t->name, t->ret_risk);
		if (ret_warned(t, RW_ENTRY) && ne++ < WARN_FULL)
			log_warn("%s: counted only (its return cannot be seen: no return sites (%s), and no uretprobe (%s)): each call counted where it is made, never timed; --returns uretprobe times it at that risk",
				 t->name, t->ret_why, t->ret_risk);
	}
	if (nu > WARN_FULL)
		more_line(plan, RW_UNSAFE, nu - WARN_FULL,
			  "timers' uretprobes may meet an unwinder or a stack switch");
	if (ne > WARN_FULL)
		more_line(plan, RW_ENTRY, ne - WARN_FULL,
			  "timers counted only (their returns cannot be seen)");
}

static void warn_go(const struct plan *plan)
{
	const char *said[8];
	uint32_t i, n = 0, k;

	for (i = 0; i < plan->natt && n < 8; i++) {
		const struct plan_att *a = &plan->att[i];

		if ((a->mech != MECH_UPROBE && a->mech != MECH_URETPROBE &&
		     a->mech != MECH_RETSITE) || !a->path)
			continue;
		for (k = 0; k < n && strcmp(said[k], a->path); k++)
			;
		if (k < n)
			continue;
		said[n++] = a->path;
		if (unwind_is_go(a->path))
			log_warn("%s is a Go program: goroutines share threads and move between them, and iprof keeps call stacks per thread: a timed Go call that blocks or grows its stack nests what its thread runs next under it, or closes as unwound; short calls that do neither are exact (doc/probes.md, Go)",
				 a->path);
	}
}

/*
 * probe_errors_planned() - after errors in the probe list (said), the
 * errors the plan finds in its other lines: names that do not exist (as
 * missing_named(), --keep-going and --strict alike, since nothing runs)
 * and the rest of the "N more".
 */
static void probe_errors_planned(const struct opts *o, const struct plan *plan,
				 struct probe_list *pl)
{
	uint32_t i;

	for (i = 0; i < plan->ntimers; i++)
		if (plan->timers[i].missing && plan->timers[i].error)
			opts_probe_error(o, pl, plan->timers[i].probe,
					 plan->timers[i].error);
	opts_errors_more(pl);
	log_error("%u error%s in the probe list: nothing attached%s", pl->nerrors,
		  pl->nerrors == 1 ? "" : "s", o->cmd ? ", the command not run" : "");
}

/* the live run, iprof record and iprof list OPTIONS (the plan,
 * --dry-run); returns the exit status */
static int run_main(int argc, char **argv)
{
	struct probe_list pl = { 0 };
	struct opts o = { 0 };
	struct plan plan = { 0 };
	struct plan_env penv = { 0 };
	struct btfarg btfa = { 0 };
	struct calib cal;
	struct calib_job job = { 0 };
	struct run_calib rc = { 0 };
	const char *tracefs;
	char *cmd_exe = NULL;
	int ret = EXIT_USAGE, perr;

	/* from here a signal ends the plan at once (exit 128 + N) */
	trace_catch_signals();
	if (opts_parse(argc, argv, &o))
		goto out;
	rc.t0 = util_now_ns(); /* the startup's phases: struct run_calib */
	log_set_switches(o.quiet, o.verbose);
	/* errors in some lines: the others still planned, to say every
	 * error of the probe list in one run */
	perr = opts_load_probes(&o, &pl);
	if (perr && (perr != -EINVAL || !pl.n))
		goto out;
	if (target_resolve_pids(&o))
		goto out;
	tracefs = tracefs_dir();
	penv.tracefs = tracefs;
	penv.kallsyms = "/proc/kallsyms";
	penv.arg = btfarg_resolve;
	penv.arg_ctx = &btfa;
	/* the kept calls' arguments by name (BTF), where they are kept */
	if (o.r.slowest > 0)
		penv.params = btfarg_params;
	penv.pids = o.pids;
	penv.npids = o.npids;
	/* IPROF_SYSCALL_TRACEPOINTS=1: syscall spans on their own
	 * tracepoints instead of the raw ones (iprof(8), ENVIRONMENT) */
	penv.syscall_tracepoints = getenv("IPROF_SYSCALL_TRACEPOINTS") &&
				   !strcmp(getenv("IPROF_SYSCALL_TRACEPOINTS"), "1");
	penv.returns = o.returns; /* --returns */
	/* return sites cost no single step where a uprobe program may run
	 * their ret (--no-emulate: never) */
	penv.uregs = uprobe_emu_supported();
	if (penv.uregs)
		penv.shstk_pid = shstk_pid(&o);
	/* a library's stack switch costs no return sites (single-stepped
	 * before 6.19), nor a function without them its times, where the
	 * kernel has uprobe sessions (6.13+) */
	penv.usession = o.returns == PLAN_RETURNS_AUTO &&
			!getenv("IPROF_NO_UPROBE_MULTI") &&
			uprobe_session_supported();
	/* inlined instances (src/probe/inline.c) */
	penv.no_inline = o.no_inline;
	penv.debuginfo = o.debuginfo;
	penv.kmodules = 1;
	/* the program --returns auto judges */
	if (o.cmd && o.cmd[0])
		cmd_exe = strchr(o.cmd[0], '/') ? strdup(o.cmd[0]) :
						 target_find_in_path(o.cmd[0]);
	penv.exe = cmd_exe;
	if (build_plan(&plan, &pl, &penv)) {
		log_error("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	rc.plan_ns = util_now_ns() - rc.t0;
	if (perr) {
		probe_errors_planned(&o, &plan, &pl);
		goto out;
	}
	warn_go(&plan);
	if (!o.dry_run)
		warn_returns(&plan);
	if (o.dry_run) {
		ret = dry_run(&o, &plan);
		goto out;
	}
	/* a function or file that is not there: before anything starts */
	if (missing_named(&o, &plan, &pl)) {
		ret = EXIT_USAGE;
		goto out;
	}
	/* --strict with a probe that did not resolve still attaches the
	 * others, so that the kernel's refusals are listed with it */
	if (!o.r.no_compensate &&
	    start_calibration(&rc, &plan, &penv, &job, &cal)) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	ret = trace_run(&o, &rc, &plan);
out:
	if (calib_join(&job))
		log_error("calibration: out of memory");
	plan_free(&plan);
	free(rc.costs);
	free(rc.cls);
	free(cmd_exe);
	btfarg_free(&btfa);
	probe_list_free(&pl);
	free(o.probe_files);
	free(o.specs);
	free(o.pids);
	for (int k = 0; k < o.nselect; k++)
		free(o.select[k]);
	return ret;
}

/* "iprof list ...": list WHAT (list_main()), or list OPTIONS, the plan
 * (run_main()); a word of neither is a typo */
static int list_entry(int argc, char **argv)
{
	if (argc > 2 && list_is_subcommand(argv[2]))
		return list_main(argc - 2, argv + 2);
	static char *subs[] = { "tracepoints", "functions", "kernel", "usdt" };
	char near[96];

	if (argc > 2 && argv[2][0] == '-')
		return run_main(argc, argv);
	if (argc > 2 && ksym_suggest(subs, 4, argv[2], near, sizeof(near))) {
		log_error("list '%s': no such list" KSYM_SUGGEST_PFX "iprof list %s? (try 'iprof list --help')",
			  argv[2], near);
		return EXIT_USAGE;
	}
	log_error("list %s%s%s: expected tracepoints [GLOB], functions BINARY [GLOB], kernel [GLOB], usdt BINARY [GLOB], or probes (-e SPEC, -P FILE) for their plan (try 'iprof list --help')",
		  argc > 2 ? "'" : "", argc > 2 ? argv[2] : "what?",
		  argc > 2 ? "'" : "");
	return EXIT_USAGE;
}

/*
 * The commands (src/cli/cmd.h): the live run first, then the others by
 * the word after "iprof", in the order iprof --list-cmds gives them.  A
 * new command is a row here and its file.
 */
static const struct command commands[] = {
	{ "", NULL, 0, &run_cmd_opts, run_main },
	{ "record", NULL, 0, &run_cmd_opts, run_main },
	{ "report", "iprof report", 1, &report_cmd_opts, cmd_report_main },
	{ "diff", "iprof diff", 1, &diff_cmd_opts, cmd_diff_main },
	{ "list", NULL, 0, &list_cmd_opts, list_entry },
};

#define NCMDS (sizeof(commands) / sizeof(commands[0]))

/*
 * not_a_command() - 1 (said) when @argv[1], a word the live run would take
 * for the command to trace, is no program (not a path, not in $PATH) but
 * near a subcommand's name ("iprof repot x.rec": it said "no probes").
 */
static int not_a_command(int argc, char **argv)
{
	char *names[NCMDS], near[64], *found;
	size_t i, n = 0;

	if (argc < 2 || argv[1][0] == '-' || strchr(argv[1], '/'))
		return 0;
	for (i = 1; i < NCMDS; i++)
		names[n++] = (char *)commands[i].name;
	if (!ksym_suggest(names, n, argv[1], near, sizeof(near)))
		return 0;
	found = target_find_in_path(argv[1]);
	free(found);
	if (found)
		return 0;
	log_error("'%s': no such command or program" KSYM_SUGGEST_PFX "%s? (iprof --help lists the commands)",
		  argv[1], near);
	return 1;
}

int main(int argc, char **argv)
{
	const struct command *c = NULL;

	/* getopt_long(3) names the program by argv[0]: "iprof", not the
	 * path it was run by (nothing else reads argv[0]) */
	argv[0] = (char *)"iprof";
	/* before anything opens one: the command gets these alone */
	target_note_inherited();
	klog_set_sink(kernel_says);
	/* the bash completion's questions (src/cli/complete.h) */
	if (argc > 1 && complete_asks(argv[1]))
		return complete_main(argc, argv, commands, NCMDS);
	/* "iprof -q record ...": the options go after the subcommand */
	if (cmd_hoist(argc, argv, commands, NCMDS))
		return EXIT_USAGE;
	/* the command its word names, else the live run */
	if (argc > 1 && *argv[1])
		c = cmd_find(commands, NCMDS, argv[1]);
	if (!c && not_a_command(argc, argv))
		return EXIT_USAGE;
	if (!c)
		c = &commands[0];
	if (c->prog)
		argv[c->skip] = (char *)c->prog;
	return c->main(argc - c->skip, argv + c->skip);
}
