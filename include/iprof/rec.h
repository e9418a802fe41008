/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Recordings (`iprof record`, doc/recording.md): the merged record stream
 * of a run (what the aggregator's sink sees, after the per-thread merge of
 * include/iprof/stream.h) plus what is needed to report it alone: the
 * timers of the plan and how each attached, the run (command, host,
 * kernel, start time, clock), loss counters and thread names.
 *
 * Kernel-free (no libbpf): the writer is fed by the live sink, the reader
 * by a file or a pipe, and both by the unit tests and the fuzzer.
 *
 * Layout (all integers little-endian): a 32-byte file header, then blocks,
 * each a 16-byte block header and its payload compressed alone with zlib
 * (deflate, RFC 1950), so that a file cut anywhere reads up to its last
 * complete block: one META block (JSON), RECORDS blocks (struct iprof_rec,
 * 32 bytes each), one TRAILER block (JSON), then end of file.
 */
#ifndef IPROF_REC_H
#define IPROF_REC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iprof/abi.h"
#include "iprof/report.h"

#define REC_MAGIC "IPROFREC" /* 8 bytes, no NUL */
#define REC_VERSION_MAJOR 1  /* a reader refuses another major version */
#define REC_VERSION_MINOR 2  /* added fields a reader may ignore */
#define REC_HEADER_SIZE 32u
/* The oldest record ABI (IPROF_ABI_VERSION) a reader takes, up to its
 * own: ABI 8 (keyed spans) and 9 (IPROF_REC_NEWTID, IPROF_REC_FORKED)
 * only added record types and changed BPF-side layouts, so ABI 7 and 8
 * recordings read as they were written; a newer one is refused (its
 * records may be of types this reader does not know). */
#define REC_ABI_OLDEST 7u
#define REC_BLOCK_HEADER_SIZE 16u
/* Largest payload (uncompressed) of one block a reader accepts, bytes. */
#define REC_BLOCK_MAX (16u << 20)
/* Payload the writer gathers before it compresses a RECORDS block, bytes. */
#define REC_BLOCK_BYTES (256u << 10)
/* The writer also flushes a block holding records older than this (ns)
 * (a kill then loses at most about this much of the run). */
#define REC_BLOCK_MAX_AGE_NS 1000000000ull
/* A meta block's rb_rings above this is not one iprof wrote (CPUs). */
#define REC_MAX_RINGS 65536u

/* Block types (block header, first 4 bytes). */
enum rec_block_type {
	REC_BLOCK_META = 1,    /* JSON object: the run and its timers */
	REC_BLOCK_RECORDS = 2, /* struct iprof_rec[], 32 bytes each */
	REC_BLOCK_TRAILER = 3, /* JSON object: end time, counters, threads */
};

/* A thread or process name seen in the run (IPROF_REC_COMM). */
struct rec_thread {
	uint32_t tid, tgid;
	char comm[IPROF_COMM_LEN]; /* NUL-terminated */
};

/*
 * An executable file mapping of a traced process, as /proc/PID/maps said
 * it while the process ran (--offcpu-stacks=user: its user stacks'
 * addresses are named through these; include/iprof/umaps.h).
 */
struct rec_umap {
	uint32_t tgid;
	uint64_t start, end; /* its addresses in the process, [start, end) */
	uint64_t pgoff; /* the file offset mapped at start, bytes */
	char *path; /* the file, as maps names it; owned by its holder */
};

/*
 * What a recording says of its run, as the live report says it.  The
 * reader owns every pointer (rec_reader__free()); the writer only reads
 * what the caller passes.
 */
struct rec_run {
	char **command; /* argv of the traced command, NULL-terminated; or NULL
			 */
	int *pids;	/* -p PIDs, npids entries */
	size_t npids;
	/* --comm, --exe, --cgroup as "comm:NAME", "exe:PATH", "cgroup:PATH",
	 * nselect entries (absent from older recordings: 0) */
	char *const *select;
	size_t nselect;
	const char *host, *kernel, *kernel_version, *machine; /* uname(2) */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME when tracing started */
	uint64_t start_ns; /* record clock (CLOCK_MONOTONIC, ns) at the start */
	/* the ring buffers: --rb-size as given (0: the default), each CPU's
	 * ring as made (bytes), how many rings */
	uint64_t rb_requested, rb_bytes;
	unsigned int rb_rings;
	/* record clock when tracing stopped (trailer; without a trailer the
	 * reader sets the latest record time, or start_ns) */
	uint64_t end_ns;
	struct report_timer *timers; /* ntimers entries, by timer id */
	uint32_t ntimers;
	struct report_loss loss;    /* trailer; zero without one */
	struct rec_thread *threads; /* trailer: every COMM seen, last wins */
	size_t nthreads;
	uint64_t nrecords; /* trailer: records written */
	/* overhead compensation (meta, minor version 1; absent from older
	 * recordings: none): each timer's probe cost (ntimers entries, NULL:
	 * the run's times were raw) and the calibration it came from */
	struct agg_cost *costs;
	struct report_calib *calib;
	size_t ncalib;
	/* with costs: what the probes cost per CPU, per mille of costs
	 * (agg__set_cpu_scale(); meta "cpu_scale_pm", absent from older
	 * recordings: ncpu_pm 0, the same on every CPU); a live run's
	 * point into its calibration, a read one's are malloc'ed */
	const uint16_t *cpu_pm;
	uint32_t ncpu_pm;
	int have_trailer;  /* 0: the file was cut (or the run killed) */
	/* the traced command (-- COMMAND) ended by itself while traced:
	 * cmd_ended 1 and its wait status (waitpid(2)) in cmd_wstatus; 0:
	 * no command, or iprof stopped it (--duration, Ctrl-C) (trailer;
	 * absent from older recordings: 0) */
	int cmd_ended, cmd_wstatus;
	/* --offcpu-stacks=user: the traced processes' executable mappings
	 * as read while they ran (trailer; absent from other recordings:
	 * 0), numaps entries */
	struct rec_umap *umaps;
	size_t numaps;
};

/*
 * rec_run_report() - set the fields of @r that come from the run: timers,
 * loss (kprobe_misses as given), command, pids, uname fields and
 * start_realtime_ns.  The live run and `iprof report` both fill their
 * report through it, so that the two print the same.  @r keeps pointers
 * into @run.
 */
void rec_run_report(const struct rec_run *run, struct report *r);

/* ---- writer ---------------------------------------------------------------*/

struct rec_writer;

/*
 * rec_writer__new() - start a recording on @f (kept open by the caller,
 * which closes it after rec_writer__free()): writes the file header and the
 * META block for @run (its timers, command, host, start times; its
 * counters are not read) and flushes @f.  @name names @f in errors.
 * Returns NULL with errno set: ENOMEM, or the write error.
 */
struct rec_writer *rec_writer__new(FILE *f, const char *name,
				   const struct rec_run *run);

/*
 * rec_writer__push() - append one record of @len bytes as the sink got it.
 * A record of another size than 32 bytes is written as a 32-byte record
 * of type 0 (the aggregator counts both as malformed alike).  COMM records
 * are also remembered for the trailer.  A full block (REC_BLOCK_BYTES
 * bytes), or one whose records span more than a second of record time, is
 * compressed and written.  Returns 0, or -errno of the first write or
 * allocation error (sticky: later pushes are dropped and return it).
 */
int rec_writer__push(struct rec_writer *w, const void *rec, size_t len);

/*
 * rec_writer__finish() - write the records left, then the TRAILER block
 * from @run's end_ns, loss, timers[].orphans/kprobe_misses, and flush.
 * Returns 0 or -errno (the first error of the writer).
 */
int rec_writer__finish(struct rec_writer *w, const struct rec_run *run);

/* rec_writer__records() - records pushed so far. */
uint64_t rec_writer__records(const struct rec_writer *w);

/* rec_writer__free() - free the writer (does not close its FILE); NULL ok. */
void rec_writer__free(struct rec_writer *w);

/* ---- reader ---------------------------------------------------------------*/

struct rec_reader;

/*
 * rec_reader__new() - read the header and META block of a recording from
 * @f (a file or a pipe, read sequentially; the caller closes it after
 * rec_reader__free()).  @name names @f in errors.  On error returns NULL
 * and writes "NAME: offset N: what is wrong" into @err (@errlen bytes),
 * errno set: EPROTO (not a recording, or another major version), EBADMSG
 * (corrupted), ENODATA (cut before the META block), ENOMEM, EIO.
 */
struct rec_reader *rec_reader__new(FILE *f, const char *name, char *err,
				   size_t errlen);

/*
 * rec_reader__next() - the records of the next RECORDS block: *@recs points
 * at *@n records, owned by the reader, valid until the next call.
 * Returns 1 (a block), 0 at the end (the trailer was read, or the file
 * was cut: then run->have_trailer is 0 and a warning is in @err), or a
 * negative errno with the error in @err: -EBADMSG (corrupted block:
 * checksum, zlib stream, sizes, a block after the trailer, data after
 * it), -ENOMEM, -EIO.  After an error or the end it keeps returning the
 * same.
 */
int rec_reader__next(struct rec_reader *r, const struct iprof_rec **recs,
		     size_t *n, char *err, size_t errlen);

/* rec_reader__run() - the run (owned by the reader; counters after the end). */
const struct rec_run *rec_reader__run(const struct rec_reader *r);

/* rec_reader__offset() - bytes consumed from the file so far. */
uint64_t rec_reader__offset(const struct rec_reader *r);

/*
 * rec_replay() - read every record of @r (after rec_reader__new()) into
 * @sink(@ctx, rec, 32), in file order, within a window of the run:
 * records whose time is more than @to_ns (ns after run->start_ns; 0: no
 * end) are left out; @on_from(@ctx) (may be NULL) is called once, before
 * the first record at or after @from_ns (or at the end when none is),
 * which is where a caller resets its aggregator (a timer then counts if
 * it stops inside the window, as with --interval-mode delta).  COMM
 * records always go through.  Returns 0 (the end, or a cut file: then the
 * warning is in @err) or a negative errno with the error in @err (see
 * rec_reader__next()).
 */
int rec_replay(struct rec_reader *r, uint64_t from_ns, uint64_t to_ns,
	       void (*on_from)(void *ctx),
	       void (*sink)(void *ctx, const void *rec, size_t len), void *ctx,
	       char *err, size_t errlen);

/* rec_reader__free() - free the reader and its run; NULL ok. */
void rec_reader__free(struct rec_reader *r);

#endif /* IPROF_REC_H */
