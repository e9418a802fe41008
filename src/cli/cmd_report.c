// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof report [OPTIONS] FILE: a recording (include/iprof/rec.h) replayed
 * through the aggregator the live run used, and reported with the same
 * code and the same run metadata (src/cli/replay.c), so that the report
 * equals the live one for the same options.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iprof/output.h"
#include "iprof/report.h"
#include "iprof/util.h"
#include "cli/cmd.h"
#include "cli/replay.h"
#include "cli/log.h"
#include "cli/report_opts.h"

#define REQ required_argument
#define RW report_opts_words

/* the options of iprof report (parsed by replay_parse(),
 * src/cli/replay.c), as --help lists them */
/* clang-format off */
static const struct optdef report_rows[] = {
	OPT("format", 'f', REQ, "FMT", "", .list = OPTAB_LIST, .words = RW),
	OPT("output", 'o', REQ, "FILE", "write the report to FILE instead of stdout"),
	OPT("sort", RO_SORT, REQ, "KEY", "", .list = OPTAB_LIST, .words = RW),
	OPT("min-total", RO_MIN_TOTAL, REQ, "TIME", "hide paths whose total time is below TIME"),
	OPT("max-depth", RO_MAX_DEPTH, REQ, "N", "hide paths deeper than N timers (chrome: leave out\n"
	  "the calls deeper than N)"),
	OPT("columns", RO_COLUMNS, REQ, "LIST", "table columns (see 'iprof --help')", .words = RW),
	OPT("json-tree", RO_JSON_TREE, REQ, "flat", "-f json: the nodes as one flat list with\n"
	  "parent ids (default nested)", .words = RW),
	OPT("weight", RO_WEIGHT, REQ, "W", "folded line values: ", .list = OPTAB_LIST, .words = RW),
	OPT("by", RO_BY, REQ, "KEY", "a root per ", .list = OPTAB_LIST, .words = RW),
	OPT("max-paths", RO_MAX_PATHS, REQ, "N", "cap the tree's paths (default 10000, as live)"),
	OPT("max-keys", RO_MAX_KEYS, REQ, "N", "cap the --by roots (default 1000, as live)"),
	OPT("slowest", RO_SLOWEST, REQ, "K", "each path's K slowest calls (1..64), as live"),
	OPT("no-compensate", RO_NO_COMPENSATE, no_argument, NULL, "raw times (the recording's calibration not applied)"),
	OPT("from", RO_FROM, REQ, "TIME", "only timers that stop TIME or later after the start"),
	OPT("to", RO_TO, REQ, "TIME", "... and at most TIME after the start"),
	OPT("quiet", 'q', no_argument, NULL, "no notes on stderr"),
	OPT("verbose", 'v', no_argument, NULL, "-f folded, svg or pprof with -o FILE: the summary\n"
	  "(compensation, notes, losses) on stderr, not one line"),
	OPT("help", 'h', no_argument, NULL, "this help"),
	{ 0 },
};
/* clang-format on */

#undef REQ
#undef RW

const struct optab_cmd report_cmd_opts = {
	.head = "Usage: iprof report [OPTIONS] FILE\n"
		"\n"
		"Reports a recording made by 'iprof record -o FILE' ('-': stdin) as the\n"
		"live run would have, for the options given here.\n"
		"\n",
	.rows = report_rows,
	.foot = "\n"
		"Exit status: 0 reported; 1 the report could not be written; 2 bad options,\n"
		"not a recording or a corrupted one; 3 reported, but the run had timers\n"
		"that were not attached or lost calls (its loss line says which), or the\n"
		"recording was cut (it is reported up to its last complete block).\n",
	.col = 24,
};

/*
 * say_written() - a summary left apart (replay_to_file(), no -v, no -q):
 * one line for what was written, one more where the run was incomplete
 */
static void say_written(const struct replay_opts *ro, size_t npaths,
			int partial)
{
	if (!replay_to_file(ro) || ro->quiet)
		return;
	log_cmd(LOG_LVL_INFO, "report", "wrote %s: %zu path%s%s",
		ro->r.output, npaths, npaths == 1 ? "" : "s",
		ro->verbose ? "" : " (-v: the summary)");
	if (partial & REPLAY_INCOMPLETE && !ro->verbose)
		log_cmd(LOG_LVL_WARN, "report",
			"incomplete: timers not attached or calls lost (-v says which)");
}

int cmd_report_main(int argc, char **argv)
{
	struct replay_opts ro = {0};
	struct output w = {0};
	FILE *in = NULL, *out = NULL;
	char err[512], tmp[PATH_MAX] = "";
	int ret, e, werr, partial = 0;
	size_t npaths = 0;

	ret = replay_parse(argc, argv, &ro, "report", &report_cmd_opts);
	if (ret > 0) {
		optab_help(stdout, &report_cmd_opts);
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
	ro.npaths = &npaths;
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
		/* a corrupted block: reported up to it, still status 2 */
		ret = ret ? 1 : (partial & REPLAY_CORRUPT) ? 2 : partial ? 3 : 0;
		if (ret != 1)
			say_written(&ro, npaths, partial);
	}
done:
	output_close(&w);
	if (in != stdin)
		fclose(in);
	return ret;
}
