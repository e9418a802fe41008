/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/run.c: the recording and the timeline opened and finished, and
 * the reports of the pipeline's tree (include/iprof/pipeline.h) while and
 * after tracing.  Internal to the iprof executable.
 */
#ifndef IPROF_CLI_RUN_H
#define IPROF_CLI_RUN_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "iprof/output.h"
#include "iprof/pipeline.h"
#include "iprof/plan.h"
#include "iprof/rec.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "kernel/loader.h"
#include "cli/monitor.h"
#include "cli/opts.h"

/*
 * -f chrome: the timeline is written as the records come, to stdout or a
 * non-regular -o file directly, else to a temporary file beside -o FILE
 * renamed over it at the end.
 */
struct timeline {
	FILE *f;
	char tmp[PATH_MAX]; /* "" when f is written directly */
	const struct report_stream *fmt; /* the -f row's writer */
	void *h; /* its handle, a sink of the pipeline, once begun */
};

/* run_on_skip() - the loader's callback for a timer it skips (-v). */
void run_on_skip(const struct plan_timer *t, const struct loader_timer *st);
/* run_detach() - detach @l's probes, in the background when many. */
void run_detach(struct loader *l);
/*
 * The overhead compensation of a live run (none with --no-compensate):
 * the run's state, not an option.  main() starts the calibration
 * (src/cli/calib.h) into it, trace_run() waits for it before attaching
 * (run_costs()).  Each array by timer id; all borrowed.
 */
struct run_calib {
	struct calib_job *job; /* running: calib_wait() first; NULL after */
	const struct calib *calib; /* NULL: no compensation */
	int *cls;		   /* each timer's enum calib_class */
	struct agg_cost *costs;	   /* filled once calib_wait() returned */
	/* the startup's phases, CLOCK_MONOTONIC ns (util_now_ns()), for
	 * the progress line that says where the time went: t0 when iprof
	 * began (options read), then how long each phase took; 0: not
	 * run.  The calibration runs beside the BPF load: wait_ns is what
	 * was left of it after the load (struct calib's took_ns its own) */
	uint64_t t0, plan_ns, load_ns, wait_ns, attach_ns;
};

/* run_start() - the run's description when tracing starts at @t0. */
void run_start(struct rec_run *run, const struct opts *o, struct utsname *un,
	       uint64_t t0);
/*
 * run_set_calib() - the reports and the recording say how times were
 * compensated: the calibration of the classes whose timers attached (into
 * @rep, CALIB_NCLASS entries, which @run then points to) and each timer's
 * cost (@rc->costs); iprof report compensates the same way.
 */
void run_set_calib(struct rec_run *run, const struct run_calib *rc,
		   const struct plan *plan, const struct loader *l,
		   struct report_calib *rep);
/*
 * run_costs() - wait for the calibration (@rc->job), log it, fill
 * @rc->costs from each timer's class and set them on @p's tree.  Returns
 * 0, or -ENOMEM (said).
 */
int run_costs(struct run_calib *rc, const struct plan *plan,
	      struct pipeline *p);
/* run_counters() - the timers and the loader's counters now. 0/-ENOMEM. */
int run_counters(struct rec_run *run, const struct plan *plan,
		 struct loader *l);
/*
 * run_lost_data() - were calls lost in the run (report_lost_data(): the
 * loader's counters in @run, those of @p's tree at @now)?  1 or 0.  With
 * @warn, a loss is also said on stderr as the report's "lost:" line
 * (for a report that went to a file, where the user sees only the
 * exit status).
 */
int run_lost_data(struct pipeline *p, const struct rec_run *run, uint64_t now,
		  int warn);
/*
 * run_emit_report() - one report (@no, @final) of @p's tree
 * (pipeline__tree()) to @w; --interval-mode delta then resets it.
 * 0 or -errno.
 */
int run_emit_report(const struct opts *o, struct output *w, struct pipeline *p,
		    const struct rec_run *run, uint64_t t0, uint64_t since,
		    uint64_t now, unsigned int no, int final);
/* run_publish_metrics() - --listen: the OpenMetrics report now. */
int run_publish_metrics(const struct opts *o, struct monitor *mon,
			struct pipeline *p, const struct rec_run *run, uint64_t t0,
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
/* run_timeline_open() - -f chrome: open the timeline's file for the writer
 * of @fmt's row.  0 or -errno. */
int run_timeline_open(struct timeline *tl, struct output *w,
		      enum report_fmt fmt);
/*
 * run_timeline_begin() - the timeline begun for @run as a sink of @p, at
 * the start of tracing.  0 or -errno (said).
 */
int run_timeline_begin(struct timeline *tl, struct pipeline *p,
		       const struct rec_run *run, uint32_t max_depth);
/*
 * run_stream_mark() - --slowest: mark the kept calls of @p's tree at
 * @now_ns on the timeline @h of @fmt (its mark(); none: nothing), before
 * its finish().  0 or -errno (said).
 */
int run_stream_mark(const struct report_stream *fmt, void *h,
		    struct pipeline *p, uint64_t now_ns);
/* run_timeline_finish() - -f chrome: end and rename it.  0 or -errno. */
int run_timeline_finish(struct timeline *tl, struct output *w, uint64_t end_ns);
/* run_timeline_close() - remove an unfinished timeline's temporary file. */
void run_timeline_close(struct timeline *tl);

#endif /* IPROF_CLI_RUN_H */
