/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/run.c: the record sinks (aggregator, recording, timeline) and
 * the reports while and after tracing.  Internal to the iprof executable.
 */
#ifndef IPROF_CLI_RUN_H
#define IPROF_CLI_RUN_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "iprof/agg.h"
#include "iprof/chrome.h"
#include "iprof/fold.h"
#include "iprof/output.h"
#include "iprof/plan.h"
#include "iprof/rec.h"
#include "iprof/report.h"
#include "kernel/loader.h"
#include "cli/monitor.h"
#include "cli/opts.h"

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

#endif /* IPROF_CLI_RUN_H */
