/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iprof report FILE and iprof diff A B: subcommands that read what an
 * earlier run left (a recording, doc/recording.md, or a JSON report) and
 * trace nothing.  Kernel-free.
 */
#ifndef IPROF_CMD_H
#define IPROF_CMD_H

/*
 * cmd_report_main() - `iprof report [OPTIONS] FILE` (@argv[0] is
 * "report"): the report the live run would have printed for the same
 * options, from a recording ('-': stdin).  Returns the exit status: 0, 1
 * (the report could not be written), 2 (bad options, not a recording,
 * corrupted), 3 (reported, but the run had timers not attached or the
 * recording was cut).
 */
int cmd_report_main(int argc, char **argv);

/*
 * cmd_diff_main() - `iprof diff [OPTIONS] A B` (@argv[0] is "diff"):
 * per path, count, total, avg, p50 and p99 of A and of B and the change,
 * largest change first.  A and B are JSON reports or recordings.  Returns
 * 0, 1 (write error), 2 (bad options or input).
 */
int cmd_diff_main(int argc, char **argv);

#endif /* IPROF_CMD_H */
