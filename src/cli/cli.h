/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The live command's own pieces (iprof [OPTIONS] [-- COMMAND], iprof list,
 * iprof record), shared between src/cli/main.c (the orchestrator), src/cli/opts.c
 * (options and usage), src/cli/target.c (the processes traced), src/cli/trace.c
 * (one traced run: attach, poll, stop), src/cli/run.c (the record sinks and
 * the reports while and after tracing) and src/cli/plan_print.c (the plan as
 * --dry-run prints it).  Internal to the iprof executable.
 */
#ifndef IPROF_CLI_H
#define IPROF_CLI_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/utsname.h>

#include "iprof/agg.h"
#include "iprof/fold.h"
#include "iprof/chrome.h"
#include "iprof/output.h"
#include "iprof/plan.h"
#include "iprof/probe.h"
#include "iprof/rec.h"
#include "iprof/report.h"
#include "kernel/loader.h"
#include "kernel/tracefs.h"
#include "cli/monitor.h"
#include "cli/report_opts.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_PARTIAL 3 /* traced, but some timers were not attached */

/*
 * --maxactive: kretprobe instances per function.  The default is above the
 * kernel's own (max(10, 2 * CPUs)) so that calls that sleep rarely miss;
 * the kernel refuses more than KRETPROBE_MAXACTIVE_MAX (4096).
 */
#define MAXACTIVE_DEFAULT 256
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
	/* the report options iprof shares with iprof report and diff:
	 * format, -o, --sort ... --by, --max-paths, --max-keys (-o is the
	 * recording with iprof record, until opts_parse() moves it) */
	struct report_opts r;
	/* iprof record: the recording (-o), and where the live report goes */
	const char *record;
	const char *report_output;
	int record_mode;
	int strict, dry_run, verbose, quiet;
	/* overhead compensation (none with --no-compensate): the
	 * calibration (src/cli/calib.h) and each timer's cost, by timer id;
	 * borrowed */
	struct calib_job *calib_job; /* running: calib_wait() first */
	const struct calib *calib;
	int *calib_class; /* each timer's enum calib_class */
	struct agg_cost *costs; /* filled once calib_wait() returned */
	enum plan_returns returns; /* --returns (IPROF_URETPROBES=1: uretprobe) */
	int returns_set; /* --returns given */
	unsigned int fold_threads; /* --fold-threads: 1, or fold.h's shards */
	uint64_t interval_ns; /* --interval: a report every interval_ns */
	int delta; /* --interval-mode delta: each report covers one interval */
	const char *listen; /* --listen ADDR:PORT: serve /metrics */
	char **cmd;	    /* after "--" */
};

/*
 * Where merged records go: the aggregator, and the recording (iprof
 * record) and the timeline (-f chrome) when there are.
 */
struct sinks {
	struct agg *agg; /* NULL with fold */
	struct fold *fold; /* --fold-threads N > 1: the shards, else NULL */
	struct rec_writer *rec;
	struct chrome *chrome;
};

/*
 * -f chrome: the timeline is written as the records come, to stdout or a
 * non-regular -o file directly, else to a temporary file beside -o FILE
 * renamed over it at the end.
 */
struct timeline {
	FILE *f;
	char tmp[PATH_MAX]; /* "" when f is written directly */
};

/* ---- src/cli/opts.c ---- */

/*
 * opts_hoist_subcommand() - iprof's options given before a subcommand
 * ("iprof -q -P x.conf record -o r -- cmd") moved after its word, in place
 * in @argv (@argc entries; "list SUB" is two words): record and list (the
 * plan) take every option of a run, report and diff the report options,
 * -q and -h, list SUB -v, -q and -h.  A word after "--" is the command
 * to trace, never a subcommand.  Returns 0 (nothing to move, or moved),
 * -EINVAL for an option that does not apply to the subcommand (said on
 * stderr) or -ENOMEM.
 */
int opts_hoist_subcommand(int argc, char **argv);

/*
 * opts_parse() - the command line into @o (zeroed by the caller); "list"
 * and "record" as argv[1] select --dry-run and iprof record.  -h and -V
 * print and exit(0).  Returns 0, -EINVAL (message printed) or -ENOMEM.
 */
int opts_parse(int argc, char **argv, struct opts *o);

/* opts_load_probes() - parse -P files and -e lines into @pl.  0 or -errno. */
int opts_load_probes(const struct opts *o, struct probe_list *pl);

/* ---- src/cli/target.c ---- */

/* target_spawn_gated() - fork COMMAND held until SIGUSR1 (its stdout on
 * iprof's stderr with @stdout_to_stderr); -1 on error. */
pid_t target_spawn_gated(char **cmd, int *exec_r, int stdout_to_stderr);
/* target_find_in_path() - @name searched in $PATH (malloc'ed) or NULL. */
char *target_find_in_path(const char *name);
/* target_resolve_pids() - check and normalise -p PIDs.  0 or -EINVAL. */
int target_resolve_pids(struct opts *o);
/* target_has_sel() - --comm, --exe or --cgroup given: targets to come */
int target_has_sel(const struct opts *o);
/*
 * target_resolve_sel() - --comm, --exe, --cgroup into @sel: an executable
 * by its file's device and inode (stat(2), symbolic links followed), a
 * cgroup by its directory on the cgroup2 file system (level and id).
 * Returns 0 or -EINVAL (message printed: no such file, not cgroup v2).
 */
int target_resolve_sel(const struct opts *o, struct target_sel *sel);
/*
 * target_scan_sel() - add the processes running now that @sel selects by
 * name or executable, and their descendants; how many.  Call once BPF
 * follows execs (after loader_attach()), so none falls in between.
 */
int target_scan_sel(struct loader *l, const struct target_sel *sel);
/*
 * target_refresh_cgroups() - a --cgroup directory made anew (a service
 * restarted) has a new id: give it to BPF.  Returns how many changed.
 */
int target_refresh_cgroups(struct loader *l, struct target_sel *sel);
/* target_add_descendants() - add the roots' children now; how many. */
int target_add_descendants(struct loader *l, const pid_t *roots, int nroots);
/* target_raise_fd_limit() - RLIMIT_NOFILE as high as allowed. */
void target_raise_fd_limit(void);
/*
 * target_command_status() - how the command ended, from its waitpid(2)
 * @status, on stderr (not -q): a non-zero exit status, or the signal that
 * killed it, and with @by_itself (it ended before iprof stopped it) that
 * iprof's exit status is 128 + the signal.
 */
void target_command_status(int status, int by_itself);

/* ---- src/cli/plan_print.c ---- */

/* cli_make_timers() - the report's timers of @plan (malloc'ed) or NULL. */
struct report_timer *cli_make_timers(const struct plan *plan, struct loader *l);
/* cli_print_not_attached() - the timers not attached, on stderr. */
void cli_print_not_attached(const struct plan *plan, struct loader *l,
			    const char *pfx);
/* cli_print_plan() - --dry-run: the plan on stdout; how many errors. */
int cli_print_plan(const struct plan *p);
/* cli_print_kernel_features() - --dry-run: fentry and kprobes here. */
void cli_print_kernel_features(const struct plan *p);
/* cli_print_plan_json() - --dry-run -f json; returns the exit status. */
int cli_print_plan_json(const struct plan *p);

/* ---- src/cli/run.c ---- */

/* run_on_skip() - the loader's callback for a timer it skips (-v). */
void run_on_skip(const struct plan_timer *t, const struct loader_timer *st);
/* run_detach() - detach @l's probes, in the background when many. */
void run_detach(struct loader *l);
/*
 * run_fold_push(), run_fold_flush() - struct loader_unmerged for
 * --fold-threads (@ctx: struct fold), when no recording or timeline
 * needs the records merged: fold__push_src(), fold__flush().
 */
int run_fold_push(void *ctx, unsigned int ring, const void *rec, size_t size);
void run_fold_flush(void *ctx, uint64_t watermark_ns, int drain);

/* run_on_record() - the loader's record callback: @ctx is struct sinks. */
int run_on_record(void *ctx, void *data, size_t size);
/* run_start() - the run's description when tracing starts at @t0. */
void run_start(struct rec_run *run, const struct opts *o, struct utsname *un,
	       uint64_t t0);
/*
 * run_set_calib() - the reports and the recording say how times were
 * compensated: the calibration of the classes whose timers attached (into
 * @rep, CALIB_NCLASS entries, which @run then points to) and each timer's
 * cost (o->costs); iprof report compensates the same way.
 */
void run_set_calib(struct rec_run *run, const struct opts *o,
		   const struct plan *plan, const struct loader *l,
		   struct report_calib *rep);
/*
 * run_costs() - wait for the calibration (o->calib_job), log it, fill
 * o->costs from each timer's class and set them on @agg or @fold (one is
 * NULL).  Returns 0, or -ENOMEM (said).
 */
int run_costs(struct opts *o, const struct plan *plan, struct agg *agg,
	      struct fold *fold);
/* run_counters() - the timers and the loader's counters now. 0/-ENOMEM. */
int run_counters(struct rec_run *run, const struct plan *plan,
		 struct loader *l);
/*
 * run_lost_data() - were calls lost in the run (report_lost_data(): the
 * loader's counters in @run, the tree's of @sk at @now)?  1 or 0.
 */
int run_lost_data(struct sinks *sk, const struct rec_run *run, uint64_t now);
/*
 * run_emit_report() - one report (@no, @final) of @sk's aggregator, or of
 * its shards merged, to @w; --interval-mode delta then resets them.
 * 0 or -errno.
 */
int run_emit_report(const struct opts *o, struct output *w, struct sinks *sk,
		    const struct rec_run *run, uint64_t t0, uint64_t since,
		    uint64_t now, unsigned int no, int final);
/* run_publish_metrics() - --listen: the OpenMetrics report now. */
int run_publish_metrics(const struct opts *o, struct monitor *mon,
			struct sinks *sk, const struct rec_run *run, uint64_t t0,
			uint64_t now);
/* run_want_report() - whether a report is written at all. */
int run_want_report(const struct opts *o);
/* run_record_open() - iprof record: open the recording.  0 or -errno. */
int run_record_open(const struct opts *o, const struct output *w, FILE **f);
/* run_record_truncate() - iprof record: empty the recording (a regular
 * file) as tracing starts, not before.  0 or -errno. */
int run_record_truncate(FILE *f);
/* run_record_finish() - iprof record: the trailer.  0 or -errno. */
int run_record_finish(const struct opts *o, struct rec_writer *rw,
		      const struct rec_run *run);
/* run_timeline_open() - -f chrome: open the timeline.  0 or -errno. */
int run_timeline_open(struct timeline *tl, struct output *w);
/* run_timeline_finish() - -f chrome: end and rename it.  0 or -errno. */
int run_timeline_finish(struct timeline *tl, struct output *w, struct chrome *c,
			uint64_t end_ns);
/* run_timeline_close() - remove an unfinished timeline's temporary file. */
void run_timeline_close(struct timeline *tl);

/* ---- src/cli/trace.c ---- */

/* trace_run() - one traced run of @plan; returns the exit status. */
int trace_run(struct opts *o, const struct plan *plan);

#endif /* IPROF_CLI_H */
