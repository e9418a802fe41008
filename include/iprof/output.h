/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where reports go (-o FILE), opened so that iprof, which runs as root and
 * often writes into shared directories, can neither block nor be
 * redirected:
 *
 * - stdout for no -o or "-o -";
 * - a FIFO, character device or other non-regular FILE is opened with
 *   O_NOFOLLOW|O_NONBLOCK (a FIFO nobody reads is an error, not a hang),
 *   its type checked with fstat(2) on the descriptor, and written directly;
 * - a regular (or missing) FILE is replaced by each report: written to a
 *   new FILE.PID.XXXXXX beside it (mkstemp(3): O_EXCL, never a file or link
 *   someone put there) and renamed over FILE, so a reader never sees half a
 *   report and a failed run leaves the previous one.  The new file keeps
 *   the replaced report's permission bits (0644 for a new one) and, for
 *   root, its owner.
 * - a symbolic link at FILE is followed only if it belongs to iprof's user
 *   or to root (as fs.protected_symlinks does in sticky directories): a
 *   link planted by another user is refused, never written through.
 *
 * Temporaries FILE.PID.XXXXXX left by a killed run (PID no longer running,
 * owned by us, a regular file with one link) are removed by the next run
 * with the same -o.
 */
#ifndef IPROF_OUTPUT_H
#define IPROF_OUTPUT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct output {
	const char *name; /* -o FILE as given, for messages; NULL: stdout */
	char *path; /* the regular file replaced by each report (malloc'ed) */
	FILE *direct; /* stdout, stderr's stream or the opened non-regular
		       * file, else NULL */
	int on_stderr; /* direct is output_open_stderr()'s stream */
	mode_t mode; /* permission bits of each new report */
	uid_t uid; /* owner to give it, (uid_t)-1 to leave it */
	gid_t gid;
};

/*
 * output_open() - check that reports can be written to @path (NULL or "-"
 * for stdout) and set up @w.  Returns 0, or a negative errno with the
 * message in @err: -EINVAL (empty name), -EISDIR, -EPERM (a symbolic link
 * owned by another user), -ENXIO (a FIFO nobody reads), open(2)'s.
 */
int output_open(struct output *w, const char *path, char *err, size_t errlen);

/*
 * output_open_stderr() - set up @w to write reports to standard error,
 * through its own buffered stream on a dup(2) of descriptor 2 (stderr
 * itself is unbuffered), flushed at each output_end().  Used when a
 * traced command owns standard output (perf stat's rule).  Returns 0 or
 * a negative errno (dup(2), fdopen(3)).
 */
int output_open_stderr(struct output *w);

/*
 * output_begin() - the stream for the next report: w->direct, or a new
 * temporary beside w->path whose name is stored in @tmp (@len bytes).
 * Returns NULL with errno set on failure.
 */
FILE *output_begin(struct output *w, char *tmp, size_t len);

/*
 * output_end() - finish the report begun on @f (@tmp from output_begin()):
 * close and rename the temporary over w->path if @ret is 0, else remove
 * it.  Returns @ret or the first error (negative errno).
 */
int output_end(struct output *w, FILE *f, const char *tmp, int ret);

/*
 * output_is() - whether @w writes to the file open on @f (same device and
 * inode by fstat(2): `-o /dev/stdout` and stdout itself).  The fallback
 * after a failed write does not retry into the file that failed.  false
 * if either cannot be stat'ed or @w writes to a regular file's temporary.
 */
bool output_is(const struct output *w, FILE *f);

/* output_close() - close what output_open() opened.  @w may be zeroed. */
void output_close(struct output *w);

/*
 * output_clean_stale() - remove the temporaries PATH.PID.XXXXXX of runs
 * that died (PID not running) beside @path: only regular files owned by
 * our effective user with a single link.  Returns how many were removed.
 */
int output_clean_stale(const char *path);

#endif /* IPROF_OUTPUT_H */
