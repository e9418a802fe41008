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
		/* a corrupted block: reported up to it, still status 2 */
		ret = ret ? 1 : (partial & REPLAY_CORRUPT) ? 2 : partial ? 3 : 0;
	}
done:
	output_close(&w);
	if (in != stdin)
		fclose(in);
	return ret;
}
