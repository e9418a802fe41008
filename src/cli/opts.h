/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/opts.c: the command line of a run (iprof [OPTIONS] [-- COMMAND],
 * iprof list, iprof record) into struct opts, the limits it checks, the
 * command's exit statuses, and the probes the options name.  Internal to
 * the iprof executable.
 */
#ifndef IPROF_CLI_OPTS_H
#define IPROF_CLI_OPTS_H

#include <stdint.h>
#include <sys/types.h>

#include "iprof/abi.h"
#include "iprof/agg.h"
#include "iprof/fold.h"
#include "iprof/plan.h"
#include "iprof/probe.h"
#include "kernel/tracefs.h"
#include "cli/report_opts.h"
#include "cli/optab.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_PARTIAL 3 /* traced, but some timers were not attached */

/*
 * --maxactive: kretprobe instances per function.  The default is above the
 * kernel's own (max(10, 2 * CPUs)) so that calls that sleep rarely miss;
 * the kernel refuses more than KRETPROBE_MAXACTIVE_MAX (4096).
 */
#define MAXACTIVE_DEFAULT 256

/* --span-timeout's default: a keyed span's stop waited for, ns */
#define SPAN_TIMEOUT_DEFAULT_NS (10ull * 1000000000ull)
#define MAXACTIVE_MAX TRACEFS_MAXACTIVE_MAX
/* --interval: reports more often than this would cost more than they say */
#define INTERVAL_MIN_NS 10000000ull /* 10 ms */
/* --rb-size: the sizes accepted per CPU, a page to 1 GiB (the kernel
 * gets the size as a __u32) */
#define RB_SIZE_MIN 4096ull
#define RB_SIZE_MAX (1ull << 30)

struct opts {
	const char **probe_files;
	int nprobe_files;
	const char **specs;
	int nspecs;
	pid_t *pids;
	int npids;
	/* --comm, --exe, --cgroup as given (at most IPROF_MAX_SEL each) */
	const char *sel_comm[IPROF_MAX_SEL], *sel_exe[IPROF_MAX_SEL],
		*sel_cgroup[IPROF_MAX_SEL];
	int nsel_comm, nsel_exe, nsel_cgroup;
	/* all of them, in order, as "comm:NAME", "exe:PATH", "cgroup:PATH"
	 * (what reports and recordings say: run.select); malloc'ed */
	char *select[3 * IPROF_MAX_SEL];
	int nselect;
	uint64_t duration_ns;
	uint64_t rb_bytes;
	unsigned int maxactive; /* kretprobe instances per function */
	/* --span-keys (keyed spans open at once) and --span-timeout (ns,
	 * 0: never) */
	uint32_t span_keys;
	uint64_t span_timeout_ns;
	/* the report options iprof shares with iprof report and diff:
	 * format, -o, --sort ... --by, --max-paths, --max-keys (-o is the
	 * recording with iprof record, until opts_parse() moves it) */
	struct report_opts r;
	/* iprof record: the recording (-o), and where the live report goes */
	const char *record;
	const char *report_output;
	int record_mode;
	int strict, dry_run, verbose, quiet;
	/* --command-status: exit with the command's status where iprof's
	 * own is 0 (src/cli/trace.c, trace_run()) */
	int command_status;
	/* --keep-going: a probe naming a function or file that does not
	 * exist (plan_timer.missing) is listed and skipped, not fatal */
	int keep_going;
	int no_inline; /* --no-inline */
	int offcpu_stacks; /* --offcpu-stacks */
	const char *debuginfo; /* --debuginfo DIR, or NULL */
	enum plan_returns returns; /* --returns */
	int returns_set; /* --returns given */
	unsigned int fold_threads; /* --fold-threads: 1, or fold.h's shards */
	uint64_t interval_ns; /* --interval: a report every interval_ns */
	int delta; /* --interval-mode delta: each report covers one interval */
	const char *listen; /* --listen ADDR:PORT: serve /metrics */
	char **cmd;	    /* after "--" */
};

/* the options of iprof, iprof record and iprof list OPTIONS: their rows
 * and --help */
extern const struct optab_cmd run_cmd_opts;

/*
 * opts_parse() - the command line into @o (zeroed by the caller); "list"
 * and "record" as argv[1] select --dry-run and iprof record.  -h and -V
 * print and exit(0).  Returns 0, -EINVAL (message printed) or -ENOMEM.
 */
int opts_parse(int argc, char **argv, struct opts *o);

/*
 * opts_load_probes() - parse -P files and -e lines into @pl, gathering
 * errors (probe_list.max_errors = PROBE_SHOW_ERRORS): each said on
 * stderr with its line and a caret.  Returns 0; -EINVAL when there were
 * errors and the lines without one are in @pl (the caller may plan them,
 * to say their errors in the same run); another -errno when nothing more
 * can be looked at (a limit, out of memory, no timer at all).
 */
int opts_load_probes(const struct opts *o, struct probe_list *pl);

/*
 * opts_probe_error() - say @msg, an error of @pr ("FILE:LINE:COL: ...",
 * from a later phase: the plan), as opts_load_probes() says its own: the
 * line (from -e, or read again from FILE) and a caret under COL; counted
 * in @pl->nerrors, said while that is within PROBE_SHOW_ERRORS.
 */
void opts_probe_error(const struct opts *o, struct probe_list *pl,
		      const struct probe *pr, const char *msg);

/* opts_errors_more() - "N more errors not shown" past PROBE_SHOW_ERRORS */
void opts_errors_more(const struct probe_list *pl);

#endif /* IPROF_CLI_OPTS_H */
