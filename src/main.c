// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof - instrumented profiler: times named start/stop pairs (fentry/fexit,
 * kprobes, uprobes, tracepoints) with BPF and prints the call tree.
 *
 * Exit codes: 0 traced and reported; 1 a runtime failure (BPF load, no
 * probe could attach, write error); 2 bad input (options, probe files, a
 * PID that is gone); 3 traced and reported, but some timers were not
 * attached (the report lists them); 130 interrupted before tracing began.
 *
 * The order of a run: the subcommands that trace nothing, the options
 * (src/opts.c), the probes and the processes (src/target.c), the plan
 * (src/plan.c), --dry-run (src/plan_print.c), then the trace itself
 * (src/trace.c, with src/run.c for its outputs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iprof/util.h"
#include "btfarg.h"
#include "cli.h"
#include "cmd.h"
#include "klog.h"
#include "list.h"
#include "tracefs.h"
#include "log.h"

/* The kernel side's messages (src/klog.h) on iprof's log: progress is
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

/* "iprof list WORD ...": WORD is one of list's own (tracepoints, ...) */
static int list_takes(int argc, char **argv)
{
	return argc > 2 && list_is_subcommand(argv[2]);
}

/*
 * The subcommands that trace nothing, one row each (a new one is a row
 * here and its file).  "iprof record" and "iprof list -e SPEC" are modes
 * of the live run: opts_parse() (src/opts.c) reads their word.
 */
static const struct subcmd {
	const char *name; /* the word after "iprof" */
	/* does this line belong to it?  NULL: always */
	int (*takes)(int argc, char **argv);
	int skip; /* the words before its argv[0] (its name or its own word) */
	const char *prog; /* its argv[0], the name its messages carry; NULL:
			   * the word as given */
	int (*main)(int argc, char **argv); /* returns the exit status */
} subcmds[] = {
	{ "list", list_takes, 2, NULL, list_main },
	{ "report", NULL, 1, "iprof report", cmd_report_main },
	{ "diff", NULL, 1, "iprof diff", cmd_diff_main },
};

int main(int argc, char **argv)
{
	struct probe_list pl = { 0 };
	struct opts o = { 0 };
	struct plan plan = { 0 };
	struct plan_env penv = { 0 };
	struct btfarg btfa = { 0 };
	const char *tracefs;
	int ret = EXIT_USAGE, i;
	uint32_t plan_errors = 0;

	/* getopt_long(3) names the program by argv[0]: "iprof", not the
	 * path it was run by (nothing else reads argv[0]) */
	argv[0] = (char *)"iprof";
	klog_set_sink(kernel_says);
	for (i = 0; i < (int)(sizeof(subcmds) / sizeof(subcmds[0])); i++) {
		const struct subcmd *c = &subcmds[i];

		if (argc <= c->skip || strcmp(argv[1], c->name) ||
		    (c->takes && !c->takes(argc, argv)))
			continue;
		if (c->prog)
			argv[c->skip] = (char *)c->prog;
		return c->main(argc - c->skip, argv + c->skip);
	}
	/* "iprof list OPTIONS" is the plan (--dry-run); a word is a typo */
	if (argc > 1 && !strcmp(argv[1], "list") &&
	    (argc == 2 || argv[2][0] != '-')) {
		log_error(
			"list %s%s%s: expected tracepoints [GLOB], functions BINARY [GLOB], kernel [GLOB], or probes (-e SPEC, -P FILE) for their plan (try 'iprof list --help')",
			argc > 2 ? "'" : "", argc > 2 ? argv[2] : "what?",
			argc > 2 ? "'" : "");
		return EXIT_USAGE;
	}
	if (opts_parse(argc, argv, &o))
		goto out;
	log_set_switches(o.quiet, o.verbose);
	if (opts_load_probes(&o, &pl))
		goto out;
	if (target_resolve_pids(&o))
		goto out;
	tracefs = tracefs_dir();
	penv.tracefs = tracefs;
	penv.kallsyms = "/proc/kallsyms";
	penv.arg = btfarg_resolve;
	penv.arg_ctx = &btfa;
	penv.pids = o.pids;
	penv.npids = o.npids;
	/* IPROF_SYSCALL_TRACEPOINTS=1: syscall spans on their own
	 * tracepoints instead of the raw ones (iprof(8), ENVIRONMENT) */
	penv.syscall_tracepoints = getenv("IPROF_SYSCALL_TRACEPOINTS") &&
				   !strcmp(getenv("IPROF_SYSCALL_TRACEPOINTS"), "1");
	/* IPROF_URETPROBES=1: user functions stop by uretprobe, not at
	 * their return sites (iprof(8), ENVIRONMENT) */
	penv.uretprobes = getenv("IPROF_URETPROBES") &&
			  !strcmp(getenv("IPROF_URETPROBES"), "1");
	if (plan_build(&plan, &pl, &penv)) {
		log_error("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	for (i = 0; !o.dry_run && i < (int)plan.ntimers; i++)
		if (plan.timers[i].note)
			log_info("%s: %s", plan.timers[i].name,
				 plan.timers[i].note);
	if (o.dry_run) {
		if (report_fmt_has(o.r.fmt, REPORT_CAP_JSON)) {
			ret = cli_print_plan_json(&plan);
		} else {
			ret = cli_print_plan(&plan) ? EXIT_USAGE : 0;
			cli_print_kernel_features(&plan);
		}
		goto out;
	}
	if (o.strict) {
		for (i = 0; i < (int)plan.ntimers; i++)
			plan_errors += !!plan.timers[i].error;
		if (plan_errors) {
			cli_print_not_attached(&plan, NULL, "iprof: --strict: ");
			goto out; /* bad input: EXIT_USAGE */
		}
	}
	ret = trace_run(&o, &plan);
out:
	plan_free(&plan);
	btfarg_free(&btfa);
	probe_list_free(&pl);
	free(o.probe_files);
	free(o.specs);
	free(o.pids);
	for (int k = 0; k < o.nselect; k++)
		free(o.select[k]);
	return ret;
}
