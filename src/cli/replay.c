// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording replayed into a report (src/cli/replay.h), shared by iprof
 * report and iprof diff: their options, the recording read through the
 * aggregator the live run used (or the timeline) and reported with the
 * same code and run metadata (rec_run_report()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/agg.h"
#include "iprof/pipeline.h"
#include "iprof/rec.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "iprof/umaps.h"
#include "iprof/util.h"
#include "cli/replay.h"
#include "cli/run.h"
#include "cli/log.h"
#include "cli/report_opts.h"
#include "cli/optab.h"

int replay_parse(int argc, char **argv, struct replay_opts *ro, const char *cmd,
		 const struct optab_cmd *oc)
{
	struct optab t;
	char why[256];
	int c, ret;

	report_opts_init(&ro->r);
	if (optab_getopt(&t, oc))
		return -E2BIG;
	optind = 1;
	while ((c = getopt_long(argc, argv, t.shorts, t.lo, NULL)) != -1) {
		ret = report_opts_parse(&ro->r, c, optarg, cmd);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		switch (c) {
		case RO_FROM:
			if (util_parse_duration(optarg, &ro->from_ns))
				goto bad;
			break;
		case RO_TO:
			if (util_parse_duration(optarg, &ro->to_ns) ||
			    !ro->to_ns)
				goto bad;
			break;
		case 'q':
			ro->quiet = 1;
			log_set_switches(1, 0);
			break;
		case 'v':
			ro->verbose = 1;
			break;
		case 'h':
			return 1;
		default:
			fprintf(stderr, "Try 'iprof %s --help'.\n", cmd);
			return -EINVAL;
		}
	}
	if (ro->to_ns && ro->to_ns <= ro->from_ns) {
		log_cmd(LOG_LVL_ERROR, cmd, "--to must be later than --from");
		return -EINVAL;
	}
	if (report_opts_check(&ro->r, cmd))
		return -EINVAL;
	if (ro->r.by && !report_fmt_has(ro->r.fmt, REPORT_CAP_BY)) {
		log_cmd(LOG_LVL_ERROR, cmd,
			"--by does not apply to --format %s",
			report_fmt_name(ro->r.fmt));
		return -EINVAL;
	}
	/* as a live run refuses it (opts.c, binary_out_ok()) */
	if ((!ro->r.output || !*ro->r.output || !strcmp(ro->r.output, "-")) &&
	    report_fmt_stdout_ok(ro->r.fmt, isatty(STDOUT_FILENO), 0, why,
				 sizeof(why))) {
		log_cmd(LOG_LVL_ERROR, cmd, "%s", why);
		return -EINVAL;
	}
	return 0;
bad:
	log_cmd(LOG_LVL_ERROR, cmd,
		"invalid value '%s' for --%s (see 'iprof %s --help')", optarg,
		c == RO_FROM ? "from" : "to", cmd);
	return -EINVAL;
}

/*
 * The pipeline of a replay, as the live run's (include/iprof/pipeline.h):
 * the tree, or the timeline alone of a format that writes the records as
 * they come (-f chrome: *@h, its writer's handle, a sink of the pipeline).
 * NULL with errno set.
 */
static struct pipeline *replay_pipeline(const struct rec_run *run,
					const struct replay_opts *ro, FILE *out,
					void **h)
{
	const struct report_stream *fmt = report_fmt_get(ro->r.fmt)->stream;
	struct pipeline_cfg cfg = {
		.ntimers = run->ntimers,
		.by = ro->r.by,
		.max_paths = ro->r.max_paths,
		.max_keys = ro->r.max_keys,
		.slowest = ro->r.slowest,
	};
	struct pipeline *p;
	int e;

	*h = NULL;
	/* a timeline with --slowest marks the tree's kept calls */
	cfg.tree = !fmt || (ro->r.slowest && fmt->mark);
	/* compensated as the live run was, unless told not to */
	if (cfg.tree && !ro->r.no_compensate) {
		cfg.costs = run->costs;
		cfg.cpu_pm = run->cpu_pm;
		cfg.ncpu_pm = run->ncpu_pm;
	}
	p = pipeline__new(&cfg);
	if (!p || !fmt)
		return p;
	*h = fmt->open(p, out, run, ro->r.max_depth,
		       run->start_ns + ro->from_ns);
	if (!*h) {
		e = errno;
		pipeline__free(p);
		errno = e;
		return NULL;
	}
	return p;
}

int replay_to_file(const struct replay_opts *ro)
{
	return report_fmt_has(ro->r.fmt, REPORT_CAP_SUMMARY_APART) &&
	       ro->r.output && *ro->r.output && strcmp(ro->r.output, "-");
}

/* replay_paths() - the paths report @r shows in *@n; 0 or -ENOMEM */
static int replay_paths(const struct report *r, size_t *n)
{
	struct report_view v;

	if (report_view_init(&v, r))
		return -ENOMEM;
	*n = v.nvisible;
	report_view_free(&v);
	return 0;
}

/*
 * replay_umaps() - a recording's mappings (--offcpu-stacks=user) as the
 * reports' names of its user frames (report_opts_set_umaps()); NULL where
 * it has none (or out of memory: the frames in hex)
 */
static struct umaps *replay_umaps(const struct rec_run *run)
{
	struct umaps *u = run->numaps ? umaps_new() : NULL;
	size_t i;

	for (i = 0; u && i < run->numaps; i++)
		if (umaps_add(u, &run->umaps[i])) {
			umaps_free(u);
			u = NULL;
		}
	report_opts_set_umaps(u);
	return u;
}

int replay_report(FILE *in, const char *name, const struct replay_opts *ro,
		  FILE *out, int *partial)
{
	struct pipeline *p = NULL;
	const struct report_stream *fmt = report_fmt_get(ro->r.fmt)->stream;
	void *timeline;
	struct agg *agg;
	const struct rec_run *run;
	struct rec_reader *rd;
	struct report r = {0};
	struct umaps *um = NULL;
	uint64_t end, from;
	char err[512];
	int ret, e;

	*partial = 0;
	rd = rec_reader__new(in, name, err, sizeof(err));
	if (!rd) {
		log_error("%s", err);
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	}
	run = rec_reader__run(rd);
	p = replay_pipeline(run, ro, out, &timeline);
	if (!p) {
		ret = -errno;
		goto out;
	}
	ret = pipeline__replay(p, rd, ro->from_ns, ro->to_ns, err, sizeof(err));
	if (ret == -ENOMEM) {
		log_error("%s", err);
		goto out;
	}
	if (ret < 0) {
		/* nothing read is lost: the records before the bad block are
		 * reported, as a cut recording's, and the status says 2 */
		log_error("%s", err);
		if (!ro->quiet)
			log_warn("warning: %s: reported: the records before that block",
				 name);
		*partial |= REPLAY_CORRUPT;
		ret = 0;
	} else if (!run->have_trailer) {
		*partial |= REPLAY_CUT;
		if (!ro->quiet)
			log_warn("warning: %s", err);
	}
	end = run->end_ns;
	if (ro->to_ns && run->start_ns + ro->to_ns < end)
		end = run->start_ns + ro->to_ns;
	from = run->start_ns + ro->from_ns;
	if (from > run->end_ns) {
		/* an empty window is a mistake, not a report of nothing */
		log_error("%s: --from %.3f s is after the recording's end: it "
			  "spans %.3f s",
			  name, (double)ro->from_ns / 1e9,
			  (double)(run->end_ns - run->start_ns) / 1e9);
		if (timeline)
			fmt->finish(timeline, end);
		ret = -EINVAL;
		goto out;
	}
	if (from > end)
		from = end;
	if (timeline) {
		ret = ro->r.slowest && fmt->mark ?
			      run_stream_mark(fmt, timeline, p, end) :
			      0;
		e = fmt->finish(timeline, end);
		ret = ret ? ret : e;
		goto out;
	}
	agg = pipeline__tree(p, end);
	r.agg = agg;
	rec_run_report(run, &r);
	r.compensated = run->costs && !ro->r.no_compensate;
	r.loss.unknown = !run->have_trailer;
	if (r.start_realtime_ns)
		r.start_realtime_ns += from - run->start_ns;
	r.duration_ns = end - from;
	um = replay_umaps(run);
	report_opts_apply(&ro->r, &r);
	r.width = report_opts_term_width(out);
	ret = report_write(out, &r, ro->r.fmt,
			   ro->quiet || (replay_to_file(ro) && !ro->verbose) ?
				   NULL :
				   stderr);
	if (!ret && ro->npaths)
		ret = replay_paths(&r, ro->npaths);
	for (uint32_t i = 0; i < run->ntimers; i++)
		if (!run->timers[i].attached)
			*partial |= REPLAY_INCOMPLETE;
	/* as the live run's status: calls lost (the loss line says which) */
	if (report_lost_data(&r.loss, agg__stats(agg)))
		*partial |= REPLAY_INCOMPLETE;
	pipeline__tree_done(p, agg);
out:
	report_opts_set_umaps(NULL);
	umaps_free(um);
	pipeline__free(p);
	rec_reader__free(rd);
	return ret;
}

/* open @path for reading ('-': stdin); NULL with a message */
FILE *replay_open(const char *path)
{
	const char *why = NULL;
	struct stat st;
	FILE *f;
	int fd;

	if (!strcmp(path, "-"))
		return stdin;
	/* never blocks (a FIFO), a directory or device is refused */
	fd = util_open_read(path, UTIL_OPEN_PIPE, &st, &why);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		log_error("cannot read '%s': %s", path,
			  why ? why : strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}
