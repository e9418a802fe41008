// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof report [OPTIONS] FILE: a recording (include/iprof/rec.h) replayed
 * through the aggregator the live run used, and reported with the same
 * code and the same run metadata (rec_run_report()), so that the report
 * equals the live one for the same options.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/agg.h"
#include "iprof/chrome.h"
#include "iprof/output.h"
#include "iprof/rec.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "iprof/util.h"
#include "cli/cmd.h"
#include "cli/replay.h"
#include "cli/log.h"
#include "cli/report_opts.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: iprof report [OPTIONS] FILE\n"
		"\n"
		"Reports a recording made by 'iprof record -o FILE' ('-': "
		"stdin) as the\n"
		"live run would have, for the options given here.\n"
		"\n"
		"  -f, --format FMT      ");
	/* the lists from the tables (src/cli/report_opts.c) */
	report_opts_usage(f, 'f', "", "", 0);
	fprintf(f, "  -o, --output FILE     write the report to FILE instead of "
		   "stdout\n"
		   "      --sort KEY        ");
	report_opts_usage(f, RO_SORT, "", "", 0);
	fprintf(f, "      --min-total TIME  hide paths whose total time is "
		   "below TIME\n"
		   "      --max-depth N     hide paths deeper than N timers (chrome: leave out\n"
		   "                        the calls deeper than N)\n"
		   "      --columns LIST    table columns (see 'iprof --help')\n"
		   "      --json-tree flat  -f json: the nodes as one flat list with\n"
		   "                        parent ids (default nested)\n"
		   "      --weight W        ");
	report_opts_usage(f, RO_WEIGHT, "folded line values: ", "", 0);
	fprintf(f, "      --by KEY          ");
	report_opts_usage(f, RO_BY, "a root per ", "", 0);
	fprintf(f,
		"      --max-paths N     cap the tree's paths (default 10000, "
		"as live)\n"
		"      --max-keys N      cap the --by roots (default 1000, as "
		"live)\n"
		"      --no-compensate   raw times (the recording's calibration "
		"not applied)\n"
		"      --from TIME       only timers that stop TIME or later "
		"after the start\n"
		"      --to TIME         ... and at most TIME after the start\n"
		"  -q, --quiet           no notes on stderr\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit status: 0 reported; 1 the report could not be written; 2 "
		"bad options,\n"
		"not a recording or a corrupted one; 3 reported, but the run "
		"had timers\n"
		"that were not attached or lost calls (its loss line says "
		"which), or the\n"
		"recording was cut (it is reported up to its last complete "
		"block).\n");
}

int replay_parse(int argc, char **argv, struct replay_opts *ro, const char *cmd)
{
	enum {
		O_FROM = RO_NEXT,
		O_TO,
	};
	static const struct option lo[] = {
		REPORT_OPTS_LONG,
		{"from", required_argument, NULL, O_FROM},
		{"to", required_argument, NULL, O_TO},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	report_opts_init(&ro->r);
	optind = 1;
	while ((c = getopt_long(argc, argv, REPORT_OPTS_SHORT "qh", lo,
				NULL)) != -1) {
		ret = report_opts_parse(&ro->r, c, optarg, cmd);
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		switch (c) {
		case O_FROM:
			if (util_parse_duration(optarg, &ro->from_ns))
				goto bad;
			break;
		case O_TO:
			if (util_parse_duration(optarg, &ro->to_ns) ||
			    !ro->to_ns)
				goto bad;
			break;
		case 'q':
			ro->quiet = 1;
			log_set_switches(1, 0);
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
		log_cmd(LOG_LVL_ERROR, cmd, "--by does not apply to --format %s",
			report_fmt_name(ro->r.fmt));
		return -EINVAL;
	}
	return 0;
bad:
	log_cmd(LOG_LVL_ERROR, cmd,
		"invalid value '%s' for --%s (see 'iprof %s --help')", optarg,
		c == O_FROM ? "from" : "to", cmd);
	return -EINVAL;
}

/* replay sinks: the aggregator or the timeline */
struct rsink {
	struct agg *agg;
	struct chrome *chrome;
};

static void rsink_push(void *ctx, const void *rec, size_t len)
{
	struct rsink *s = ctx;

	if (s->agg)
		agg__push(s->agg, rec, len);
	if (s->chrome)
		chrome__push(s->chrome, rec, len);
}

static void rsink_from(void *ctx)
{
	struct rsink *s = ctx;

	if (s->agg)
		agg__reset(s->agg);
}

int replay_report(FILE *in, const char *name, const struct replay_opts *ro,
		  FILE *out, int *partial)
{
	struct rsink s = {0};
	const struct rec_run *run;
	struct rec_reader *rd;
	struct report r = {0};
	uint64_t end, from;
	char err[512];
	int ret;

	*partial = 0;
	rd = rec_reader__new(in, name, err, sizeof(err));
	if (!rd) {
		log_error("%s", err);
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	}
	run = rec_reader__run(rd);
	if (report_fmt_has(ro->r.fmt, REPORT_CAP_STREAM)) {
		s.chrome = chrome__new(out, run, ro->r.max_depth);
		if (!s.chrome) {
			ret = -errno;
			goto out;
		}
		chrome__set_from(s.chrome, run->start_ns + ro->from_ns);
	} else {
		s.agg = agg__new(run->ntimers);
		if (!s.agg) {
			ret = -ENOMEM;
			goto out;
		}
		agg__set_by(s.agg, ro->r.by);
		agg__set_limits(s.agg, ro->r.max_paths, ro->r.max_keys);
		/* compensated as the live run was, unless told not to */
		if (run->costs && !ro->r.no_compensate &&
		    (ret = agg__set_costs(s.agg, run->costs)))
			goto out;
	}
	ret = rec_replay(rd, ro->from_ns, ro->to_ns, rsink_from, rsink_push, &s,
			 err, sizeof(err));
	if (ret < 0) {
		log_error("%s", err);
		ret = ret == -ENOMEM ? ret : -EINVAL;
		goto out;
	}
	if (!run->have_trailer) {
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
		log_error("%s: --from %.3f s is after the recording's end: it spans %.3f s",
			  name, (double)ro->from_ns / 1e9,
			  (double)(run->end_ns - run->start_ns) / 1e9);
		if (s.chrome)
			chrome__finish(s.chrome, end);
		ret = -EINVAL;
		goto out;
	}
	if (from > end)
		from = end;
	if (s.chrome) {
		ret = chrome__finish(s.chrome, end);
		goto out;
	}
	agg__snapshot(s.agg, end);
	r.agg = s.agg;
	rec_run_report(run, &r);
	r.compensated = run->costs && !ro->r.no_compensate;
	r.loss.unknown = !run->have_trailer;
	if (r.start_realtime_ns)
		r.start_realtime_ns += from - run->start_ns;
	r.duration_ns = end - from;
	report_opts_apply(&ro->r, &r);
	ret = report_write(out, &r, ro->r.fmt, ro->quiet ? NULL : stderr);
	for (uint32_t i = 0; i < run->ntimers; i++)
		if (!run->timers[i].attached)
			*partial |= REPLAY_INCOMPLETE;
	/* as the live run's status: calls lost (the loss line says which) */
	if (report_lost_data(&r.loss, agg__stats(s.agg)))
		*partial |= REPLAY_INCOMPLETE;
out:
	chrome__free(s.chrome);
	agg__free(s.agg);
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

int cmd_report_main(int argc, char **argv)
{
	struct replay_opts ro = {0};
	struct output w = {0};
	FILE *in = NULL, *out = NULL;
	char err[512], tmp[PATH_MAX] = "";
	int ret, e, werr, partial = 0;

	ret = replay_parse(argc, argv, &ro, "report");
	if (ret > 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return 2;
	if (optind != argc - 1) {
		log_cmd(LOG_LVL_ERROR, "report",
			"expected one recording (see "
			"'iprof report --help')");
		return 2;
	}
	if (ro.r.output && util_same_file(ro.r.output, argv[optind])) {
		log_cmd(LOG_LVL_ERROR, "report",
			"-o '%s' is the recording '%s': it would be overwritten",
			ro.r.output, argv[optind]);
		return 2;
	}
	in = replay_open(argv[optind]);
	if (!in)
		return 2;
	/* -o as the live run writes it (src/core/output.c): never through a
	 * planted link, never blocking, replaced whole or not at all */
	if (output_open(&w, ro.r.output, err, sizeof(err))) {
		log_error("%s", err);
		ret = 2;
		goto done;
	}
	out = output_begin(&w, tmp, sizeof(tmp));
	if (!out) {
		log_error("cannot write '%s': %s", w.name, strerror(errno));
		ret = 1;
		goto done;
	}
	errno = 0;
	ret = replay_report(in, argv[optind], &ro, out, &partial);
	/* the stream's own error (a full disk, a closed pipe) */
	werr = fflush(out) || ferror(out) ? -(errno ? errno : EIO) : 0;
	e = output_end(&w, out, tmp, ret ? ret : werr);
	if (!werr && !ret)
		werr = e; /* closing or renaming the temporary */
	if (ret == -EINVAL) {
		ret = 2;
	} else if (werr) {
		log_error("cannot write '%s': %s", w.name ? w.name : "stdout",
			  strerror(-werr));
		ret = 1;
	} else {
		ret = ret ? 1 : partial ? 3 : 0;
	}
done:
	output_close(&w);
	if (in != stdin)
		fclose(in);
	return ret;
}
