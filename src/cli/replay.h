/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * src/cli/replay.c: a recording replayed into a report, and the options
 * that ask for it; shared by iprof report and iprof diff
 * (src/cli/cmd_report.c, cmd_diff.c).
 */
#ifndef IPROF_REPLAY_H
#define IPROF_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "iprof/agg.h"
#include "iprof/report.h"
#include "cli/report_opts.h"
#include "cli/optab.h"

/* The options of iprof report (and, for recordings, iprof diff). */
struct replay_opts {
	struct report_opts r; /* -f, -o, --sort, ... (src/cli/report_opts.h) */
	uint64_t from_ns, to_ns; /* window, ns after the start; to 0: none */
	int quiet; /* -q; for iprof diff's own replay: no notes */
	int verbose; /* -v: a format whose summary goes apart (folded, svg,
		      * pprof) written to -o FILE gives it whole on stderr;
		      * else one line says so (replay_report()) */
	size_t *npaths; /* out, where not NULL: the paths the report shows
			 * (set by replay_report() when it wrote a tree) */
};

/*
 * replay_parse() - the options of `iprof @cmd` (its table @oc: report's
 * and diff's have the same options) into @ro (zeroed by the caller);
 * leaves optind at the first operand.  Returns 0, 1 for --help, or
 * -EINVAL (a message is printed).
 */
int replay_parse(int argc, char **argv, struct replay_opts *ro,
		 const char *cmd, const struct optab_cmd *oc);

/*
 * replay_report() - read the recording @in (named @name in messages),
 * replay it and write the report @ro asks for on @out; a format whose
 * summary goes apart writes it on stderr unless -q, or -o FILE without -v
 * (then the caller says what it wrote: *ro->npaths).  *@partial:
 * REPLAY_CUT when the recording was cut before its trailer,
 * REPLAY_INCOMPLETE when the run had timers not attached or lost calls
 * (report_lost_data()), REPLAY_CORRUPT when a block past the metadata
 * could not be read (a bad checksum or length: message printed; the
 * report holds the records before it, its loss counters unknown, as a
 * cut recording's; iprof's exit status 2), or 0 (exit status 3 when
 * REPLAY_CUT or REPLAY_INCOMPLETE).  Returns 0, -EINVAL (not a recording,
 * its header or metadata corrupted: message printed, nothing written),
 * -ENOMEM, or -errno of a write error.
 */
#define REPLAY_CUT 1
#define REPLAY_INCOMPLETE 2
#define REPLAY_CORRUPT 4
int replay_report(FILE *in, const char *name, const struct replay_opts *ro,
		  FILE *out, int *partial);

/*
 * replay_to_file() - @ro's report is in a format whose summary goes apart
 * (REPORT_CAP_SUMMARY_APART: folded, svg, pprof) and -o names a file:
 * unless -v, stderr gets one line, not the summary.
 */
int replay_to_file(const struct replay_opts *ro);

/* replay_open() - fopen(@path, "r"), stdin for "-"; NULL with a message. */
FILE *replay_open(const char *path);

#endif /* IPROF_REPLAY_H */
