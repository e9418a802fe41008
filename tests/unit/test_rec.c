// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recordings (src/core/rec.c): a written recording reads back exactly; a file
 * cut at any byte reads up to its last complete block and says so; a
 * corrupted, foreign or wrong-version file is an error naming the file and
 * the offset; replaying a recording into the aggregator gives the tree the
 * records give directly; the --from/--to window.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <zlib.h>

#include "iprof/agg.h"
#include "iprof/chrome.h"
#include "iprof/rec.h"

#define T0 1000000000ull /* start of the run, record clock */
#define NREC 20000u /* records of the big recording: 3 blocks */

static struct report_timer timers[2] = {
	{ .name = "outer", .kind = "uprobe", .where = "uprobe:/x:outer",
	  .attached = 1, .mech = "uprobe/uretprobe", .file = "-e", .line = 1 },
	{ .name = "inner", .kind = "span", .where = "tp:a -> tp:b",
	  .attached = 0, .error = "-e:2: no such tracepoint", .file = "-e",
	  .line = 2 },
};

static char *cmd[] = { "/bin/work", "--fast", NULL };
static int pids[] = { 42 };

/* --offcpu-stacks=user's mappings, in the trailer */
static struct rec_umap umaps[2] = {
	{ 100, 0x400000, 0x401000, 0x1000, "/bin/work" },
	{ 100, 0x7f0000001000, 0x7f0000100000, 0x28000,
	  "/usr/lib/x86_64-linux-gnu/libc.so.6" },
};

static void init_run(struct rec_run *run)
{
	memset(run, 0, sizeof(*run));
	run->command = cmd;
	run->pids = pids;
	run->npids = 1;
	run->host = "box";
	run->kernel = "6.18.0";
	run->kernel_version = "#1 SMP";
	run->machine = "x86_64";
	run->start_realtime_ns = 1700000000123456789ull;
	run->start_ns = T0;
	run->end_ns = T0 + 5000000000ull;
	run->timers = timers;
	run->ntimers = 2;
	run->loss.rb_drops = 7;
	run->loss.recursion_misses = 3;
	timers[0].orphans = 11;
	timers[1].kprobe_misses = 0;
	run->umaps = umaps;
	run->numaps = 2;
}

/* record i of a run: thread 100 + i % 4, outer/inner nested, 1us apart */
static struct iprof_rec mkrec(unsigned int i)
{
	static const uint8_t type[4] = { IPROF_REC_START, IPROF_REC_START,
					 IPROF_REC_STOP, IPROF_REC_STOP };
	static const uint16_t depth[4] = { 1, 2, 2, 1 };
	struct iprof_rec r = { 0 };
	unsigned int step = (i / 4) % 4; /* one thread does 4 records */

	r.type = type[step];
	r.size = sizeof(r);
	r.timer = depth[step] - 1u;
	r.tid = 100 + i % 4;
	r.tgid = 100;
	r.ts = T0 + 1000ull * (i + 1);
	r.depth = depth[step];
	return r;
}

static struct iprof_rec_comm mkcomm(uint32_t tid, const char *name)
{
	struct iprof_rec_comm c = { .type = IPROF_REC_COMM,
				    .size = sizeof(c),
				    .tid = tid,
				    .tgid = 100 };

	snprintf(c.comm, sizeof(c.comm), "%s", name);
	return c;
}

/* a whole recording of @n records (+ 2 COMM, 1 malformed) in memory */
static char *make_file(unsigned int n, size_t *len, int trailer)
{
	struct iprof_rec_comm c;
	struct rec_writer *w;
	struct rec_run run;
	char *buf = NULL, junk[8] = { 0 };
	unsigned int i;
	FILE *f;

	init_run(&run);
	f = open_memstream(&buf, len);
	assert_non_null(f);
	w = rec_writer__new(f, "mem", &run);
	assert_non_null(w);
	c = mkcomm(100, "worker");
	assert_int_equal(rec_writer__push(w, &c, sizeof(c)), 0);
	c = mkcomm(100, "renamed");
	assert_int_equal(rec_writer__push(w, &c, sizeof(c)), 0);
	assert_int_equal(rec_writer__push(w, junk, sizeof(junk)), 0);
	for (i = 0; i < n; i++) {
		struct iprof_rec r = mkrec(i);

		assert_int_equal(rec_writer__push(w, &r, sizeof(r)), 0);
	}
	assert_int_equal(rec_writer__records(w), n + 3);
	if (trailer)
		assert_int_equal(rec_writer__finish(w, &run), 0);
	rec_writer__free(w);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static struct rec_reader *open_mem(const char *buf, size_t len, FILE **f,
				   char *err, size_t errlen)
{
	*f = fmemopen((void *)buf, len, "r");
	assert_non_null(*f);
	return rec_reader__new(*f, "t.rec", err, errlen);
}

static void test_roundtrip(void **state)
{
	const struct iprof_rec *recs;
	const struct rec_run *run;
	struct rec_reader *r;
	size_t len, n, total = 0;
	char err[512];
	char *buf = make_file(NREC, &len, 1);
	int ret, blocks = 0;
	FILE *f;

	(void)state;
	r = open_mem(buf, len, &f, err, sizeof(err));
	assert_non_null(r);
	run = rec_reader__run(r);
	assert_string_equal(run->command[0], "/bin/work");
	assert_string_equal(run->command[1], "--fast");
	assert_null(run->command[2]);
	assert_int_equal(run->npids, 1);
	assert_int_equal(run->pids[0], 42);
	assert_string_equal(run->host, "box");
	assert_string_equal(run->kernel, "6.18.0");
	assert_string_equal(run->kernel_version, "#1 SMP");
	assert_string_equal(run->machine, "x86_64");
	assert_int_equal(run->start_realtime_ns, 1700000000123456789ull);
	assert_int_equal(run->start_ns, T0);
	assert_int_equal(run->ntimers, 2);
	assert_string_equal(run->timers[0].name, "outer");
	assert_string_equal(run->timers[0].mech, "uprobe/uretprobe");
	assert_int_equal(run->timers[0].attached, 1);
	assert_null(run->timers[0].error);
	assert_string_equal(run->timers[1].error, "-e:2: no such tracepoint");
	assert_int_equal(run->timers[1].attached, 0);
	assert_int_equal(run->timers[1].line, 2);
	assert_int_equal(run->have_trailer, 0);
	while ((ret = rec_reader__next(r, &recs, &n, err, sizeof(err))) > 0) {
		for (size_t i = 0; i < n; i++, total++) {
			struct iprof_rec want;

			if (total < 2) {
				assert_int_equal(recs[i].type, IPROF_REC_COMM);
				continue;
			}
			if (total == 2) { /* the 8-byte record: type 0 */
				assert_int_equal(recs[i].type, 0);
				assert_int_equal(recs[i].size, 32);
				continue;
			}
			want = mkrec((unsigned int)total - 3);
			assert_memory_equal(&recs[i], &want, sizeof(want));
		}
		blocks++;
	}
	assert_int_equal(ret, 0);
	assert_string_equal(err, "");
	assert_int_equal(total, NREC + 3);
	/* 256 KiB of records per block: 8192, 8192, then the rest */
	assert_int_equal(blocks, 3);
	assert_int_equal(run->have_trailer, 1);
	assert_int_equal(run->end_ns, T0 + 5000000000ull);
	assert_int_equal(run->nrecords, NREC + 3);
	assert_int_equal(run->loss.rb_drops, 7);
	assert_int_equal(run->loss.recursion_misses, 3);
	assert_int_equal(run->timers[0].orphans, 11);
	assert_int_equal(run->nthreads, 1);
	assert_int_equal(run->threads[0].tid, 100);
	assert_string_equal(run->threads[0].comm, "renamed");
	assert_int_equal(run->numaps, 2);
	assert_int_equal(run->umaps[1].tgid, 100);
	assert_int_equal(run->umaps[1].start, 0x7f0000001000);
	assert_int_equal(run->umaps[1].end, 0x7f0000100000);
	assert_int_equal(run->umaps[1].pgoff, 0x28000);
	assert_string_equal(run->umaps[1].path, umaps[1].path);
	assert_string_equal(run->umaps[0].path, "/bin/work");
	assert_int_equal(rec_reader__offset(r), len);
	/* after the end it keeps saying so */
	assert_int_equal(rec_reader__next(r, &recs, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	rec_reader__free(r);
	fclose(f);
	free(buf);
}

/*
 * Overhead compensation in the metadata: each timer's cost, the medians'
 * parts in "cost" and, with AGG_COST_MEAN, the means' in "cost_mean"
 * (minor version 2); the calibration's means; a timer without the flag
 * reads back without means; a run without costs has none; the costs per
 * CPU ("cpu_scale_pm"); the single step ("cost_step") and its flags.
 */
static void test_costs(void **state)
{
	struct agg_cost costs[2] = {
		{ .start_in_ns = 1, .start_out_ns = 2, .stop_in_ns = 3,
		  .stop_out_ns = 4, .flags = AGG_COST_MEAN | AGG_COST_STOP_STEP,
		  .mean_start_in_ns = 5, .mean_start_out_ns = 6,
		  .mean_stop_in_ns = 7, .mean_stop_out_ns = 4000000000u,
		  .step_ns = 17000, .mean_step_ns = 17500, .cold_ns = 90,
		  .cold_out_ns = 150 },
		{ .start_in_ns = 9, .flags = AGG_COST_UNKNOWN },
	};
	struct report_calib cal = { .mech = "uprobe", .done = 1, .in_ns = 10,
				    .out_ns = 20, .in_mean_ns = 11,
				    .out_mean_ns = 22, .calls = 9 };
	static const uint16_t pm[3] = { 900, 1000, 1250 };
	const struct rec_run *got;
	struct rec_writer *w;
	struct rec_reader *r;
	struct rec_run run;
	char *buf = NULL, err[256];
	size_t len;
	FILE *f;

	(void)state;
	init_run(&run);
	run.costs = costs;
	run.calib = &cal;
	run.ncalib = 1;
	run.cpu_pm = pm;
	run.ncpu_pm = 3;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	w = rec_writer__new(f, "mem", &run);
	assert_non_null(w);
	assert_int_equal(rec_writer__finish(w, &run), 0);
	rec_writer__free(w);
	assert_int_equal(fclose(f), 0);
	r = open_mem(buf, len, &f, err, sizeof(err));
	assert_non_null(r);
	got = rec_reader__run(r);
	assert_non_null(got->costs);
	assert_memory_equal(&got->costs[0], &costs[0], sizeof(costs[0]));
	assert_memory_equal(&got->costs[1], &costs[1], sizeof(costs[1]));
	assert_int_equal(got->ncalib, 1);
	assert_int_equal(got->calib[0].in_ns, 10);
	assert_int_equal(got->calib[0].in_mean_ns, 11);
	assert_int_equal(got->calib[0].out_mean_ns, 22);
	/* the costs per CPU */
	assert_int_equal(got->ncpu_pm, 3);
	assert_memory_equal(got->cpu_pm, pm, sizeof(pm));
	rec_reader__free(r);
	fclose(f);
	free(buf);
}

/* offsets of the block starts of @buf (the header is 32 bytes) */
static size_t block_starts(const char *buf, size_t len, size_t *at, size_t max)
{
	size_t off = REC_HEADER_SIZE, n = 0;
	uint32_t clen;

	while (off + REC_BLOCK_HEADER_SIZE <= len && n < max) {
		at[n++] = off;
		memcpy(&clen, buf + off + 4, 4);
		off += REC_BLOCK_HEADER_SIZE + clen;
	}
	assert_int_equal(off, len);
	return n;
}

/* a file cut anywhere: never a crash; a prefix of the records, and why */
static void test_truncated(void **state)
{
	size_t len, cut, at[16], nb, meta_end;
	char *buf = make_file(NREC, &len, 1);
	char err[512], want[64];

	(void)state;
	nb = block_starts(buf, len, at, 16);
	assert_int_equal(nb, 5); /* meta, 3 x records, trailer */
	meta_end = at[1];
	for (cut = 1; cut < len; cut += cut < 4096 ? 1 : 61) {
		const struct iprof_rec *recs;
		struct rec_reader *r;
		size_t n, total = 0, full = 0, i;
		int ret;
		FILE *f;

		r = open_mem(buf, cut, &f, err, sizeof(err));
		if (cut < meta_end) {
			assert_null(r);
			assert_true(errno == ENODATA);
			assert_non_null(strstr(err, "t.rec: offset "));
			fclose(f);
			continue;
		}
		assert_non_null(r);
		while ((ret = rec_reader__next(r, &recs, &n, err,
					       sizeof(err))) > 0)
			total += n;
		assert_int_equal(ret, 0);
		assert_int_equal(rec_reader__run(r)->have_trailer, 0);
		assert_non_null(strstr(err, "t.rec: offset "));
		assert_non_null(strstr(err, "cut"));
		/* whole blocks only: the records of the blocks before the cut */
		for (i = 1; i < nb - 1; i++)
			if (at[i + 1] <= cut)
				full += i < 3 ? 8192 : NREC + 3 - 2 * 8192;
		assert_int_equal(total, full);
		/* ... which the warning counts */
		snprintf(want, sizeof(want), "it holds the %zu records", full);
		assert_non_null(strstr(err, want));
		rec_reader__free(r);
		fclose(f);
	}
	free(buf);
}

/*
 * every single-byte corruption: an error naming the file and offset, or
 * (a header byte nobody needs, padding bits after a deflate stream's end)
 * the very same records; never a crash
 */
static void test_corrupted(void **state)
{
	size_t len, i;
	char *buf = make_file(300, &len, 1);
	char err[512];
	int errors = 0;

	(void)state;
	for (i = 0; i < len; i++) {
		const struct iprof_rec *recs;
		struct rec_reader *r;
		size_t n, total = 0, k;
		int ret = 0;
		FILE *f;

		buf[i] ^= 0x5a;
		r = open_mem(buf, len, &f, err, sizeof(err));
		if (r) {
			while ((ret = rec_reader__next(r, &recs, &n, err,
						       sizeof(err))) > 0)
				for (k = 0; k < n; k++, total++) {
					struct iprof_rec want;

					if (total < 3)
						continue;
					want = mkrec((unsigned int)total - 3);
					assert_memory_equal(&recs[k], &want,
							    sizeof(want));
				}
		}
		if (!r || ret < 0) {
			errors++;
			assert_non_null(strstr(err, "t.rec: offset "));
		} else if (rec_reader__run(r)->have_trailer) {
			assert_int_equal(total, 303);
		} else {
			/* a block size made larger reads as a cut file */
			assert_non_null(strstr(err, "t.rec: offset "));
			assert_non_null(strstr(err, "cut"));
		}
		rec_reader__free(r);
		fclose(f);
		buf[i] ^= 0x5a;
	}
	/* all but the minor version, the reserved bytes and a few padding bits */
	assert_true(errors >= (int)len - 16);
	free(buf);
}

static void expect_open_error(const char *buf, size_t len, int eno,
			      const char *msg)
{
	char err[512];
	FILE *f;

	assert_null(open_mem(buf, len, &f, err, sizeof(err)));
	assert_int_equal(errno, eno);
	if (!strstr(err, msg))
		fail_msg("error '%s' lacks '%s'", err, msg);
	fclose(f);
}

static void test_bad_files(void **state)
{
	const struct iprof_rec *recs;
	struct rec_reader *r;
	size_t len, n;
	char *buf = make_file(10, &len, 1), *more;
	char err[512];
	uint16_t v;
	FILE *f;

	(void)state;
	expect_open_error("{\"not\": \"a recording\"}", 22, EPROTO,
			  "t.rec: offset 0: not an iprof recording");
	expect_open_error("IPROF", 5, ENODATA,
			  "t.rec: offset 5: the file ends inside the header");
	/* version 2.x (the minor as written) */
	v = 2;
	memcpy(buf + 8, &v, 2);
	expect_open_error(buf, len, EPROTO,
			  "t.rec: offset 8: recording format version 2.");
	expect_open_error(buf, len, EPROTO, "; this iprof reads version 1.x");
	v = REC_VERSION_MAJOR;
	memcpy(buf + 8, &v, 2);
	/* a block of 4 GiB - 1 */
	memset(buf + REC_HEADER_SIZE + 8, 0xff, 4);
	expect_open_error(buf, len, EBADMSG,
			  "t.rec: offset 32: block of 4294967295 bytes");
	free(buf);

	/* a byte after the trailer */
	buf = make_file(10, &len, 1);
	more = malloc(len + 1);
	memcpy(more, buf, len);
	more[len] = 'x';
	r = open_mem(more, len + 1, &f, err, sizeof(err));
	assert_non_null(r);
	while (rec_reader__next(r, &recs, &n, err, sizeof(err)) > 0)
		;
	assert_int_equal(rec_reader__next(r, &recs, &n, err, sizeof(err)),
			 -EBADMSG);
	assert_non_null(strstr(err, "data after the trailer"));
	rec_reader__free(r);
	fclose(f);
	free(more);
	free(buf);

	/* no trailer: the end is the last record's time */
	buf = make_file(10, &len, 1);
	{
		size_t at[8], nb = block_starts(buf, len, at, 8);

		assert_int_equal(nb, 3);
		len = at[2]; /* cut before the trailer */
	}
	r = open_mem(buf, len, &f, err, sizeof(err));
	assert_non_null(r);
	while (rec_reader__next(r, &recs, &n, err, sizeof(err)) > 0)
		;
	assert_int_equal(rec_reader__run(r)->have_trailer, 0);
	assert_int_equal(rec_reader__run(r)->end_ns, T0 + 10000);
	assert_non_null(strstr(err, "ends without its trailer"));
	rec_reader__free(r);
	fclose(f);
	free(buf);
}

struct sink {
	struct agg *agg;
	unsigned int froms, recs;
	uint64_t first_after_from;
};

static void sink_push(void *ctx, const void *rec, size_t len)
{
	struct sink *s = ctx;
	const struct iprof_rec *r = rec;

	if (s->froms && !s->first_after_from && r->type != IPROF_REC_COMM)
		s->first_after_from = r->ts;
	s->recs++;
	agg__push(s->agg, rec, len);
}

static void sink_from(void *ctx)
{
	struct sink *s = ctx;

	s->froms++;
	agg__reset(s->agg);
}

/* the aggregator gets from a recording what it gets from the records */
static void test_replay(void **state)
{
	const struct agg_node *o1, *o2;
	struct sink s = { 0 };
	struct rec_reader *r;
	struct agg *direct;
	size_t len;
	char *buf = make_file(NREC, &len, 1);
	char err[512];
	unsigned int i;
	FILE *f;

	(void)state;
	direct = agg__new(2);
	s.agg = agg__new(2);
	for (i = 0; i < NREC; i++) {
		struct iprof_rec x = mkrec(i);

		agg__push(direct, &x, sizeof(x));
	}
	r = open_mem(buf, len, &f, err, sizeof(err));
	assert_int_equal(rec_replay(r, 0, 0, sink_from, sink_push, &s, err,
				    sizeof(err)),
			 0);
	assert_int_equal(s.froms, 0);
	assert_int_equal(s.recs, NREC + 3);
	o1 = agg__root(direct)->child;
	o2 = agg__root(s.agg)->child;
	assert_int_equal(o1->count, NREC / 4);
	assert_int_equal(o2->count, o1->count);
	assert_int_equal(o2->total_ns, o1->total_ns);
	assert_int_equal(o2->child->count, o1->child->count);
	assert_int_equal(o2->child->total_ns, o1->child->total_ns);
	/* + the COMM records and the malformed one */
	assert_int_equal(agg__stats(s.agg)->records,
			 agg__stats(direct)->records + 3);
	assert_int_equal(agg__stats(s.agg)->malformed, 1);
	rec_reader__free(r);
	fclose(f);
	agg__free(s.agg);

	/*
	 * window 5ms..10ms: reset before the record at T0 + 5ms (i = 4999);
	 * records after T0 + 10ms left out: outer stops at i = 15 + 16k with
	 * ts T0 + 1us * (i + 1): 16k + 16 in [5000, 10000]: k = 312..624
	 */
	memset(&s, 0, sizeof(s));
	s.agg = agg__new(2);
	r = open_mem(buf, len, &f, err, sizeof(err));
	assert_int_equal(rec_replay(r, 5000000, 10000000, sink_from, sink_push,
				    &s, err, sizeof(err)),
			 0);
	assert_int_equal(s.froms, 1);
	assert_int_equal(s.first_after_from, T0 + 5000000);
	assert_int_equal(s.recs, 3 + 10000);
	/* outer stops: 4 threads x (624 - 312 + 1) */
	assert_int_equal(agg__root(s.agg)->child->count, 4 * 313);
	rec_reader__free(r);
	fclose(f);
	agg__free(s.agg);
	agg__free(direct);
	free(buf);
}

/* the timeline: one X event per call, nested, in us, names */
/*
 * The timeline chrome.c writes for @comm (NULL: none) and @recs (@n) with
 * --max-depth @max_depth and --from @from_ns, finished at T0 + 5000;
 * malloc'ed.  Its "X" events in *@events.
 */
static char *chrome_text(const struct rec_run *run, uint32_t max_depth,
			 uint64_t from_ns, const struct iprof_rec_comm *comm,
			 const struct iprof_rec *recs, size_t n,
			 uint64_t *events)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct chrome *c;

	assert_non_null(f);
	c = chrome__new(f, run, max_depth);
	assert_non_null(c);
	chrome__set_from(c, from_ns);
	if (comm)
		assert_int_equal(chrome__push(c, comm, sizeof(*comm)), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(chrome__push(c, &recs[i], sizeof(recs[i])), 0);
	assert_int_equal(chrome__finish(c, T0 + 5000), 0);
	*events = chrome__events(c);
	chrome__free(c);
	fclose(f);
	return buf;
}

static void test_chrome(void **state)
{
	struct rec_run run;
	char *buf;
	struct iprof_rec_comm cm = mkcomm(100, "worker");
	struct iprof_rec recs[] = {
		{ .type = IPROF_REC_START, .size = 32, .timer = 0, .tid = 100,
		  .tgid = 100, .ts = T0 + 1000, .depth = 1 },
		{ .type = IPROF_REC_START, .size = 32, .timer = 1, .tid = 100,
		  .tgid = 100, .ts = T0 + 1500, .depth = 2 },
		{ .type = IPROF_REC_STOP, .size = 32, .timer = 1, .tid = 100,
		  .tgid = 100, .ts = T0 + 2500, .depth = 2 },
		{ .type = IPROF_REC_START, .size = 32, .timer = 1, .tid = 100,
		  .tgid = 100, .ts = T0 + 3000, .depth = 2 },
		/* the outer stop unwinds the open inner */
		{ .type = IPROF_REC_STOP, .size = 32, .timer = 0, .tid = 100,
		  .tgid = 100, .ts = T0 + 4000, .depth = 1 },
		/* a hardirq timer on CPU 1, still open at the end */
		{ .type = IPROF_REC_START, .flags = IPROF_F_CTX, .size = 32,
		  .timer = 1, .ts = T0 + 4100, .depth = 1, .cpu = 1,
		  .aux = IPROF_CTX_HARDIRQ },
	};
	uint64_t events;

	(void)state;
	init_run(&run);
	/* --max-depth 1: the depth-2 calls are left out, said in otherData */
	buf = chrome_text(&run, 1, 0, NULL, recs, sizeof(recs) / sizeof(recs[0]), &events);
	assert_int_equal(events, 2);
	assert_non_null(strstr(buf, "\"max_depth\":1"));
	assert_null(strstr(buf, "\"depth\":2"));
	assert_non_null(strstr(buf, "{\"name\":\"outer\",\"cat\":\"timer\",\"ph\":\"X\",\"ts\":1.000,\"dur\":3.000,\"pid\":100,\"tid\":100,\"args\":{\"depth\":1,\"timer\":0}}"));
	free(buf);

	/* --from: only the calls that end at T0 + 3500 or later */
	buf = chrome_text(&run, 0, T0 + 3500, NULL, recs, sizeof(recs) / sizeof(recs[0]), &events);
	assert_int_equal(events, 3);
	assert_null(strstr(buf, "\"ts\":1.500"));
	free(buf);

	buf = chrome_text(&run, 0, 0, &cm, recs, sizeof(recs) / sizeof(recs[0]), &events);
	assert_int_equal(events, 4);
	assert_null(strstr(buf, "max_depth"));
	assert_non_null(strstr(buf, "{\"name\":\"inner\",\"cat\":\"timer\",\"ph\":\"X\",\"ts\":1.500,\"dur\":1.000,\"pid\":100,\"tid\":100,\"args\":{\"depth\":2,\"timer\":1}}"));
	assert_non_null(strstr(buf, "{\"name\":\"inner\",\"cat\":\"timer\",\"ph\":\"X\",\"ts\":3.000,\"dur\":1.000,\"pid\":100,\"tid\":100,\"args\":{\"depth\":2,\"timer\":1,\"end\":\"unwound\"}}"));
	assert_non_null(strstr(buf, "{\"name\":\"outer\",\"cat\":\"timer\",\"ph\":\"X\",\"ts\":1.000,\"dur\":3.000,\"pid\":100,\"tid\":100,\"args\":{\"depth\":1,\"timer\":0}}"));
	assert_non_null(strstr(buf, "{\"name\":\"inner\",\"cat\":\"timer\",\"ph\":\"X\",\"ts\":4.100,\"dur\":0.900,\"pid\":0,\"tid\":1131073,\"args\":{\"depth\":1,\"timer\":1,\"end\":\"incomplete\"}}"));
	assert_non_null(strstr(buf, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"worker\"}}"));
	assert_non_null(strstr(buf, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"worker\"}}"));
	assert_non_null(strstr(buf, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":1131073,\"args\":{\"name\":\"hardirq/cpu1\"}}"));
	assert_non_null(strstr(buf, "\n]}\n"));
	free(buf);
}

/* a WAKER record (part @part) of wakee @tid at @ts: @v0, @v1 */
static struct iprof_rec waker_rec(uint32_t part, uint32_t tid, uint64_t ts,
				  uint64_t v0, uint64_t v1)
{
	struct iprof_rec_val v = {
		.type = IPROF_REC_WAKER,
		.flags = (uint8_t)(part << IPROF_VAL_PAIR_SHIFT),
		.size = 32, .lo0 = (uint32_t)v0, .tid = tid,
		.hi0 = (uint32_t)(v0 >> 32), .ts = ts, .lo1 = (uint32_t)v1,
		.hi1 = (uint32_t)(v1 >> 32),
	};
	struct iprof_rec r;

	memcpy(&r, &v, sizeof(r));
	return r;
}

/*
 * --offcpu-stacks in -f chrome: a wait a waker ended is a flow from the
 * waker's track at the wake-up ("X" wakeup slice, "s") to the wakee's
 * switch-in ("f", bound to its open call); a waker before a preemption,
 * or long before the blocking switch, woke no wait: no flow.
 */
static void test_chrome_flows(void **state)
{
	uint64_t comm;
	struct rec_run run;
	char *buf;
	struct iprof_rec recs[16];
	uint64_t events;
	size_t n = 0;

	(void)state;
	init_run(&run);
	memcpy(&comm, "holder\0\0", 8);
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_START, .size = 32,
					.timer = 0, .tid = 100, .tgid = 100,
					.ts = T0 + 1000, .depth = 1 };
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_SWITCH_OUT,
					.size = 32, .tid = 100, .tgid = 100,
					.ts = T0 + 1100,
					.aux = IPROF_OFF_BLOCKED };
	recs[n++] = waker_rec(0, 100, T0 + 1200, 200 | 200ull << 32,
			      IPROF_CTX_TASK);
	recs[n++] = waker_rec(1, 100, T0 + 1200, comm, 0);
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_SWITCH_IN,
					.size = 32, .tid = 100, .tgid = 100,
					.ts = T0 + 1300 };
	/* a wake-up, then a preemption: no wait ended by it */
	recs[n++] = waker_rec(0, 100, T0 + 1350, 300 | 300ull << 32,
			      IPROF_CTX_TASK);
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_SWITCH_OUT,
					.size = 32, .tid = 100, .tgid = 100,
					.ts = T0 + 1400, .aux = IPROF_OFF_RUNQ };
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_SWITCH_IN,
					.size = 32, .tid = 100, .tgid = 100,
					.ts = T0 + 1500 };
	/* a hardirq on CPU 1 wakes it: from that CPU's hardirq track */
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_SWITCH_OUT,
					.size = 32, .tid = 100, .tgid = 100,
					.ts = T0 + 1600,
					.aux = IPROF_OFF_BLOCKED };
	recs[n++] = waker_rec(0, 100, T0 + 1700, 0,
			      IPROF_CTX_HARDIRQ | 1ull << 32);
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_SWITCH_IN,
					.size = 32, .tid = 100, .tgid = 100,
					.ts = T0 + 1800 };
	recs[n++] = (struct iprof_rec){ .type = IPROF_REC_STOP, .size = 32,
					.timer = 0, .tid = 100, .tgid = 100,
					.ts = T0 + 2000, .depth = 1 };
	assert_true(n <= sizeof(recs) / sizeof(recs[0]));
	buf = chrome_text(&run, 0, 0, NULL, recs, n, &events);
	/* the call, and two flows: each its slice, its start and its end */
	assert_int_equal(events, 7);
	assert_non_null(strstr(buf, "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"s\",\"ts\":1.700,\"id\":2,\"pid\":0,\"tid\":1131073}"));
	assert_non_null(strstr(buf, "\"args\":{\"wakee\":100,\"by\":\"hardirq\"},\"pid\":0,\"tid\":1131073}"));
	assert_non_null(strstr(buf, "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"f\",\"ts\":1.800,\"id\":2,\"bp\":\"e\",\"pid\":100,\"tid\":100}"));
	assert_non_null(strstr(buf, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":1131073,\"args\":{\"name\":\"hardirq/cpu1\"}}"));
	assert_non_null(strstr(buf, "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"X\",\"ts\":1.200,\"dur\":0.000,\"args\":{\"wakee\":100,\"by\":\"task\"},\"pid\":200,\"tid\":200}"));
	assert_non_null(strstr(buf, "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"s\",\"ts\":1.200,\"id\":1,\"pid\":200,\"tid\":200}"));
	assert_non_null(strstr(buf, "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"f\",\"ts\":1.300,\"id\":1,\"bp\":\"e\",\"pid\":100,\"tid\":100}"));
	assert_null(strstr(buf, "\"tid\":300"));
	/* the waker's thread named by its comm */
	assert_non_null(strstr(buf, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":200,\"tid\":200,\"args\":{\"name\":\"holder\"}}"));
	free(buf);
}

/* the META block of a recording in memory, its "key" members taken out
 * (as a recording from before keyed spans): a new buffer, its length in
 * *@len */
static char *strip_keys(const char *buf, size_t *len)
{
	uint32_t type, clen, ulen, crc;
	const char *m = buf + REC_HEADER_SIZE;
	json_object *o, *a;
	const char *text;
	uLongf zlen, out;
	char *json, *nbuf;
	size_t i, tlen, rest;

	memcpy(&type, m, 4);
	memcpy(&clen, m + 4, 4);
	memcpy(&ulen, m + 8, 4);
	assert_int_equal(type, 1); /* META */
	json = malloc(ulen + 1);
	assert_non_null(json);
	out = ulen;
	assert_int_equal(uncompress((Bytef *)json, &out,
				    (const Bytef *)m + REC_BLOCK_HEADER_SIZE,
				    clen),
			 Z_OK);
	json[out] = '\0';
	o = json_tokener_parse(json);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "timers", &a));
	for (i = 0; i < json_object_array_length(a); i++)
		json_object_object_del(json_object_array_get_idx(a, i), "key");
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	tlen = strlen(text);
	assert_null(strstr(text, "\"key\""));
	rest = *len - (REC_HEADER_SIZE + REC_BLOCK_HEADER_SIZE + clen);
	zlen = compressBound(tlen);
	nbuf = malloc(REC_HEADER_SIZE + REC_BLOCK_HEADER_SIZE + zlen + rest);
	assert_non_null(nbuf);
	memcpy(nbuf, buf, REC_HEADER_SIZE);
	assert_int_equal(compress((Bytef *)nbuf + REC_HEADER_SIZE +
					  REC_BLOCK_HEADER_SIZE,
				  &zlen, (const Bytef *)text, tlen),
			 Z_OK);
	clen = (uint32_t)zlen;
	ulen = (uint32_t)tlen;
	crc = (uint32_t)crc32(0, (const Bytef *)text, (uInt)tlen);
	memcpy(nbuf + REC_HEADER_SIZE, &type, 4);
	memcpy(nbuf + REC_HEADER_SIZE + 4, &clen, 4);
	memcpy(nbuf + REC_HEADER_SIZE + 8, &ulen, 4);
	memcpy(nbuf + REC_HEADER_SIZE + 12, &crc, 4);
	memcpy(nbuf + REC_HEADER_SIZE + REC_BLOCK_HEADER_SIZE + clen,
	       buf + *len - rest, rest);
	*len = REC_HEADER_SIZE + REC_BLOCK_HEADER_SIZE + clen + rest;
	json_object_put(o);
	free(json);
	return nbuf;
}

/* A keyed span's key: written in META, read back; a timer without one
 * (and every timer of a recording from before keyed spans) reads NULL. */
static void test_key(void **state)
{
	struct report_timer kt[2] = {
		{ .name = "runq", .kind = "span",
		  .where = "tracepoint:sched:sched_wakeup -> tracepoint:sched:sched_switch",
		  .key = "pid=next_pid", .attached = 1, .mech = "tracepoint",
		  .file = "-e", .line = 1 },
		{ .name = "plain", .kind = "span", .where = "tp:a -> tp:b",
		  .attached = 1, .mech = "tracepoint", .file = "-e",
		  .line = 2,
		  /* a kernel function's arguments by BTF (--slowest) */
		  .params = ":s4:int;file:p:struct file *" },
	};
	const struct rec_run *got;
	struct iprof_rec r = mkrec(0);
	struct rec_writer *w;
	struct rec_reader *rd;
	struct rec_run run;
	char *buf = NULL, *old, err[512];
	size_t len;
	FILE *f;

	(void)state;
	init_run(&run);
	run.timers = kt;
	run.ntimers = 2;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	w = rec_writer__new(f, "mem", &run);
	assert_non_null(w);
	assert_int_equal(rec_writer__push(w, &r, sizeof(r)), 0);
	assert_int_equal(rec_writer__finish(w, &run), 0);
	rec_writer__free(w);
	assert_int_equal(fclose(f), 0);

	rd = open_mem(buf, len, &f, err, sizeof(err));
	if (!rd)
		fail_msg("%s", err);
	got = rec_reader__run(rd);
	assert_int_equal(got->ntimers, 2);
	assert_string_equal(got->timers[0].key, "pid=next_pid");
	assert_null(got->timers[1].key);
	assert_string_equal(got->timers[0].name, "runq");
	assert_null(got->timers[0].params);
	assert_string_equal(got->timers[1].params, kt[1].params);
	rec_reader__free(rd);
	fclose(f);

	/* no "key" in META: NULL, the rest as written */
	old = strip_keys(buf, &len);
	rd = open_mem(old, len, &f, err, sizeof(err));
	if (!rd)
		fail_msg("%s", err);
	got = rec_reader__run(rd);
	assert_int_equal(got->ntimers, 2);
	assert_null(got->timers[0].key);
	assert_null(got->timers[1].key);
	assert_string_equal(got->timers[0].where, kt[0].where);
	rec_reader__free(rd);
	fclose(f);
	free(old);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_costs), cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupted), cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_replay),	  cmocka_unit_test(test_chrome),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_chrome_flows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
