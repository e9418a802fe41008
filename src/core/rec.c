// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recordings: writer and reader (include/iprof/rec.h, doc/recording.md).
 * Blocks are compressed with zlib, metadata is JSON written and parsed with
 * json-c.  The reader trusts nothing in the file: every size is checked
 * before it is used, every JSON value's type before it is read.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>

#include <json-c/json.h>
#include <zlib.h>

#include "iprof/rec.h"
#include "iprof/util.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "recordings are little-endian: this host is not"
#endif

struct rec_file_header {
	char magic[8];	       /* REC_MAGIC */
	uint16_t major, minor; /* REC_VERSION_MAJOR, REC_VERSION_MINOR */
	uint32_t header_size;  /* REC_HEADER_SIZE */
	uint32_t abi_version;  /* IPROF_ABI_VERSION of the records */
	uint32_t rec_size;     /* sizeof(struct iprof_rec) */
	uint64_t reserved;     /* 0 */
};

struct rec_block_header {
	uint32_t type; /* enum rec_block_type */
	uint32_t clen; /* compressed bytes that follow */
	uint32_t ulen; /* bytes once inflated */
	uint32_t crc;  /* crc32() of the inflated bytes */
};

_Static_assert(sizeof(struct rec_file_header) == REC_HEADER_SIZE,
	       "file header layout");
_Static_assert(sizeof(struct rec_block_header) == REC_BLOCK_HEADER_SIZE,
	       "block header layout");

void rec_run_report(const struct rec_run *run, struct report *r)
{
	r->timers = run->timers;
	r->loss = run->loss;
	r->command = run->command;
	r->pids = run->pids;
	r->npids = run->npids;
	r->select = run->select;
	r->nselect = run->nselect;
	r->host = run->host;
	r->kernel = run->kernel;
	r->kernel_version = run->kernel_version;
	r->machine = run->machine;
	r->start_realtime_ns = run->start_realtime_ns;
	r->rb_requested = run->rb_requested;
	r->rb_bytes = run->rb_bytes;
	r->rb_rings = run->rb_rings;
	r->calib = run->calib;
	r->ncalib = run->ncalib;
	r->compensated = run->costs != NULL;
	r->cpu_pm = run->cpu_pm;
	r->ncpu_pm = run->ncpu_pm;
	r->cmd_ended = run->cmd_ended;
	r->cmd_exit = WIFEXITED(run->cmd_wstatus) ? WEXITSTATUS(run->cmd_wstatus) :
						  -1;
	r->cmd_signal = WIFSIGNALED(run->cmd_wstatus) ?
				WTERMSIG(run->cmd_wstatus) :
				0;
}

/* ---- writer ---------------------------------------------------------------*/

/*
 * Record blocks are compressed and written by a thread of the writer's
 * own, so that the caller (iprof's consumer, which must keep up with every
 * CPU's ring) only copies records: zlib at level 1 compresses about as fast
 * as the rings fill at a few million events per second.  REC_BUFS blocks
 * circulate between the caller (filling one) and the thread; the caller
 * waits only when every other one is still queued.
 */
#define REC_BUFS 16

struct rec_writer {
	FILE *f;
	const char *name;
	int err; /* first error, sticky (set by either thread, under mu) */
	z_stream z; /* the compression thread's, or the caller's while it
		     * is not running (META, TRAILER) */
	int z_init;
	unsigned char *buf; /* the block being filled: REC_BLOCK_BYTES */
	size_t len;
	/* the compression thread and its queue */
	pthread_t th;
	int th_started, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv_full, cv_free; /* a block queued; one came back */
	unsigned char *free_bufs[REC_BUFS];
	unsigned int nfree;
	struct {
		unsigned char *buf;
		size_t len;
	} queue[REC_BUFS];
	unsigned int qhead, qlen;
	uint64_t block_first_ts; /* first timestamp in buf, 0 if none */
	unsigned char *out;	 /* compressed block */
	size_t out_cap;
	uint64_t nrecords;
	struct rec_thread *threads;
	size_t nthreads, threads_cap;
};

/* compress @len bytes of @data into one block of @type and write it */
static int write_block(struct rec_writer *w, uint32_t type, const void *data,
		       size_t len)
{
	struct rec_block_header h = {.type = type};
	uLong bound = deflateBound(&w->z, (uLong)len);

	if (w->err)
		return w->err;
	if (len > REC_BLOCK_MAX)
		return w->err = -E2BIG;
	if (bound > w->out_cap) {
		unsigned char *o = realloc(w->out, bound);

		if (!o)
			return w->err = -ENOMEM;
		w->out = o;
		w->out_cap = bound;
	}
	if (deflateReset(&w->z) != Z_OK)
		return w->err = -EIO;
	w->z.next_in = (Bytef *)data;
	w->z.avail_in = (uInt)len;
	w->z.next_out = w->out;
	w->z.avail_out = (uInt)w->out_cap;
	if (deflate(&w->z, Z_FINISH) != Z_STREAM_END)
		return w->err = -EIO;
	h.clen = (uint32_t)(w->out_cap - w->z.avail_out);
	h.ulen = (uint32_t)len;
	h.crc = (uint32_t)crc32(0L, data, (uInt)len);
	errno = 0;
	if (fwrite(&h, sizeof(h), 1, w->f) != 1 ||
	    fwrite(w->out, h.clen, 1, w->f) != 1 || fflush(w->f))
		return w->err = errno ? -errno : -EIO;
	return 0;
}

static int write_json(struct rec_writer *w, uint32_t type, json_object *o)
{
	const char *s;
	int ret;

	if (!o)
		return w->err = w->err ? w->err : -ENOMEM;
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ret = s ? write_block(w, type, s, strlen(s)) : (w->err = -ENOMEM);
	json_object_put(o);
	return ret;
}

/* The compression thread: write queued blocks in order until stopped. */
static void *writer_thread(void *arg)
{
	struct rec_writer *w = arg;
	unsigned char *buf;
	size_t len;
	int err;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->qlen && !w->stop)
			pthread_cond_wait(&w->cv_full, &w->mu);
		if (!w->qlen)
			break;
		buf = w->queue[w->qhead].buf;
		len = w->queue[w->qhead].len;
		pthread_mutex_unlock(&w->mu);
		err = write_block(w, REC_BLOCK_RECORDS, buf, len);
		pthread_mutex_lock(&w->mu);
		if (err && !w->err)
			w->err = err;
		w->qhead = (w->qhead + 1) % REC_BUFS;
		w->qlen--;
		w->free_bufs[w->nfree++] = buf;
		pthread_cond_broadcast(&w->cv_free);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Hand the filled block to the compression thread, take an empty one. */
static int flush_records(struct rec_writer *w)
{
	int err;

	if (!w->len)
		return w->err;
	pthread_mutex_lock(&w->mu);
	w->queue[(w->qhead + w->qlen) % REC_BUFS].buf = w->buf;
	w->queue[(w->qhead + w->qlen) % REC_BUFS].len = w->len;
	w->qlen++;
	pthread_cond_signal(&w->cv_full);
	while (!w->nfree)
		pthread_cond_wait(&w->cv_free, &w->mu);
	w->buf = w->free_bufs[--w->nfree];
	err = w->err;
	pthread_mutex_unlock(&w->mu);
	w->len = 0;
	w->block_first_ts = 0;
	return err;
}

/* Flush, then wait for the compression thread to write every block and
 * stop; the caller then writes alone.  Returns the first error. */
static int writer_stop(struct rec_writer *w)
{
	int err;

	err = flush_records(w);
	if (!w->th_started)
		return err;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv_full);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	w->th_started = 0;
	return w->err;
}

/* json-c builders: a NULL value marks an allocation failure (checked once) */
static void put(json_object *o, const char *k, json_object *v, int *bad)
{
	if (!v && bad)
		*bad = 1;
	if (json_object_object_add(o, k, v))
		*bad = 1;
}

static json_object *jstr(const char *s, int *bad)
{
	json_object *v;

	if (!s)
		return NULL;
	v = json_object_new_string(s);
	if (!v)
		*bad = 1;
	return v;
}

/*
 * a timer's probe cost, from the medians: [start_in, start_out, stop_in,
 * stop_out, flags]; @mean: the same four parts from the means (minor
 * version 2, "cost_mean", flag AGG_COST_MEAN: a key older readers skip)
 */
static json_object *cost_json(const struct agg_cost *c, int mean, int *bad)
{
	json_object *a = json_object_new_array();
	const uint32_t v[] = { c->start_in_ns, c->start_out_ns, c->stop_in_ns,
			       c->stop_out_ns, c->flags };
	const uint32_t m[] = { c->mean_start_in_ns, c->mean_start_out_ns,
			       c->mean_stop_in_ns, c->mean_stop_out_ns };
	size_t n = mean ? 4 : 5;

	for (size_t i = 0; a && i < n; i++)
		if (json_object_array_add(
			    a, json_object_new_uint64(mean ? m[i] : v[i])))
			*bad = 1;
	return a;
}

/* a timer's two-number key, [@x, @y] (struct agg_cost): "cost_err"
 * [sd_ns, drift_ns], "cost_gap" [gap_ns, mean_gap_ns], "cost_step"
 * [step_ns, mean_step_ns] */
static json_object *cost_pair_json(uint32_t x, uint32_t y, int *bad)
{
	json_object *a = json_object_new_array();

	if (!a || json_object_array_add(a, json_object_new_uint64(x)) ||
	    json_object_array_add(a, json_object_new_uint64(y)))
		*bad = 1;
	return a;
}

/* a timer's "cost_inline": [in, out, mean_in, mean_out, sd, drift, flags],
 * its inlined instances' calls' cost (struct agg_cost inl_*) */
static json_object *cost_inline_json(const struct agg_cost *c, int *bad)
{
	json_object *a = json_object_new_array();
	const uint32_t v[] = { c->inl_in_ns,	  c->inl_out_ns,
			       c->inl_mean_in_ns, c->inl_mean_out_ns,
			       c->inl_sd_ns,	  c->inl_drift_ns,
			       c->inl_flags };

	for (size_t i = 0; a && i < 7; i++)
		if (json_object_array_add(a, json_object_new_uint64(v[i])))
			*bad = 1;
	return a;
}

/* the costs per CPU, per mille: [CPU 0's, CPU 1's, ...] */
static json_object *cpu_pm_json(const struct rec_run *run, int *bad)
{
	json_object *a = json_object_new_array();

	for (uint32_t i = 0; a && i < run->ncpu_pm; i++)
		if (json_object_array_add(a, json_object_new_int(
						     run->cpu_pm[i])))
			*bad = 1;
	if (!a)
		*bad = 1;
	return a;
}

/* the calibration: one object per mechanism (doc/recording.md) */
static json_object *calib_json(const struct rec_run *run, int *bad)
{
	json_object *a = json_object_new_array(), *o;

	for (size_t i = 0; a && i < run->ncalib; i++) {
		const struct report_calib *c = &run->calib[i];

		o = json_object_new_object();
		if (!o || json_object_array_add(a, o)) {
			json_object_put(o);
			*bad = 1;
			break;
		}
		put(o, "mech", jstr(c->mech, bad), bad);
		put(o, "done", json_object_new_boolean(c->done), bad);
		put(o, "in_ns", json_object_new_uint64(c->in_ns), bad);
		put(o, "out_ns", json_object_new_uint64(c->out_ns), bad);
		if (c->in_mean_ns || c->out_mean_ns) {
			put(o, "in_mean_ns",
			    json_object_new_uint64(c->in_mean_ns), bad);
			put(o, "out_mean_ns",
			    json_object_new_uint64(c->out_mean_ns), bad);
		}
		put(o, "untraced_ns", json_object_new_uint64(c->untraced_ns),
		    bad);
		put(o, "traced_ns", json_object_new_uint64(c->traced_ns), bad);
		put(o, "recorded_ns", json_object_new_uint64(c->recorded_ns),
		    bad);
		put(o, "calls", json_object_new_uint64(c->calls), bad);
		if (c->sd_ns || c->drift_ns) { /* the spread: optional */
			put(o, "sd_ns", json_object_new_uint64(c->sd_ns), bad);
			put(o, "drift_ns", json_object_new_uint64(c->drift_ns),
			    bad);
		}
		if (c->cold_ns) /* its inside part fired cold */
			put(o, "cold_ns", json_object_new_uint64(c->cold_ns),
			    bad);
		if (c->cold_out_ns) /* its outside part */
			put(o, "cold_out_ns",
			    json_object_new_uint64(c->cold_out_ns), bad);
		if (c->gap_ns || c->gap_mean_ns) { /* a split entry's */
			put(o, "gap_ns", json_object_new_uint64(c->gap_ns),
			    bad);
			put(o, "gap_mean_ns",
			    json_object_new_uint64(c->gap_mean_ns), bad);
		}
		if (c->drift_rounds_ns || c->skew_ns) { /* drift's parts */
			put(o, "drift_rounds_ns",
			    json_object_new_uint64(c->drift_rounds_ns), bad);
			put(o, "skew_ns", json_object_new_uint64(c->skew_ns),
			    bad);
		}
		if (c->proc_drift_ns) /* drift's floor: optional */
			put(o, "proc_drift_ns",
			    json_object_new_uint64(c->proc_drift_ns), bad);
		put(o, "why", jstr(c->why, bad), NULL);
	}
	return a;
}

/* a timer's cost keys into its JSON object @t, from its cost @c: "cost",
 * "cost_mean" with AGG_COST_MEAN, and those older readers skip, each
 * where it is known: the spread ("cost_err", [sd_ns, drift_ns]), its
 * inlined instances' calls' cost ("cost_inline": older readers take them
 * at the timer's cost), a split entry's calibrated gap ("cost_gap",
 * [median, mean]), the inside and outside parts' extra cost fired cold
 * ("cost_cold", "cost_cold_out")
 * and the single step ("cost_step", [median, mean]: older readers take
 * every site at the timer's cost) */
static void costs_put(json_object *t, const struct agg_cost *c, int *bad)
{
	put(t, "cost", cost_json(c, 0, bad), bad);
	if (c->flags & AGG_COST_MEAN)
		put(t, "cost_mean", cost_json(c, 1, bad), bad);
	if (c->sd_ns || c->drift_ns)
		put(t, "cost_err", cost_pair_json(c->sd_ns, c->drift_ns, bad),
		    bad);
	if (c->inl_flags)
		put(t, "cost_inline", cost_inline_json(c, bad), bad);
	if (c->gap_ns || c->mean_gap_ns)
		put(t, "cost_gap", cost_pair_json(c->gap_ns, c->mean_gap_ns, bad),
		    bad);
	if (c->cold_ns)
		put(t, "cost_cold", json_object_new_uint64(c->cold_ns), bad);
	if (c->cold_out_ns)
		put(t, "cost_cold_out", json_object_new_uint64(c->cold_out_ns),
		    bad);
	if (c->step_ns || c->mean_step_ns)
		put(t, "cost_step",
		    cost_pair_json(c->step_ns, c->mean_step_ns, bad), bad);
}

static json_object *meta_json(const struct rec_run *run)
{
	json_object *root = json_object_new_object(), *r, *a, *t;
	int bad = !root;
	size_t i;

	if (bad)
		return NULL;
	put(root, "clock", json_object_new_string("CLOCK_MONOTONIC"), &bad);
	put(root, "abi_version", json_object_new_int(IPROF_ABI_VERSION), &bad);
	put(root, "run", r = json_object_new_object(), &bad);
	if (r) {
		if (run->command) {
			put(r, "command", a = json_object_new_array(), &bad);
			for (i = 0; a && run->command[i]; i++)
				if (json_object_array_add(
					    a, jstr(run->command[i], &bad)))
					bad = 1;
		} else {
			put(r, "command", NULL, NULL);
		}
		put(r, "pids", a = json_object_new_array(), &bad);
		for (i = 0; a && i < run->npids; i++)
			if (json_object_array_add(
				    a, json_object_new_int(run->pids[i])))
				bad = 1;
		put(r, "select", a = json_object_new_array(), &bad);
		for (i = 0; a && i < run->nselect; i++)
			if (json_object_array_add(a, jstr(run->select[i], &bad)))
				bad = 1;
		put(r, "host", jstr(run->host, &bad), NULL);
		put(r, "kernel", jstr(run->kernel, &bad), NULL);
		put(r, "kernel_version", jstr(run->kernel_version, &bad), NULL);
		put(r, "machine", jstr(run->machine, &bad), NULL);
		put(r, "start_realtime_ns",
		    json_object_new_uint64(run->start_realtime_ns), &bad);
		put(r, "start_ns", json_object_new_uint64(run->start_ns), &bad);
		put(r, "rb_requested", json_object_new_uint64(run->rb_requested),
		    &bad);
		put(r, "rb_bytes", json_object_new_uint64(run->rb_bytes), &bad);
		put(r, "rb_rings", json_object_new_uint64(run->rb_rings), &bad);
	}
	put(root, "timers", a = json_object_new_array(), &bad);
	for (i = 0; a && i < run->ntimers; i++) {
		const struct report_timer *rt = &run->timers[i];

		t = json_object_new_object();
		if (!t || json_object_array_add(a, t)) {
			json_object_put(t);
			bad = 1;
			break;
		}
		put(t, "name", jstr(rt->name ? rt->name : "", &bad), &bad);
		put(t, "kind", jstr(rt->kind, &bad), NULL);
		put(t, "where", jstr(rt->where, &bad), NULL);
		put(t, "key", jstr(rt->key, &bad), NULL);
		put(t, "mech", jstr(rt->mech, &bad), NULL);
		put(t, "attached", json_object_new_boolean(rt->attached), &bad);
		put(t, "error", jstr(rt->error, &bad), NULL);
		put(t, "file", jstr(rt->file, &bad), NULL);
		put(t, "line", json_object_new_int(rt->line), &bad);
		put(t, "entry_only", json_object_new_boolean(rt->entry_only),
		    &bad);
		put(t, "stop", jstr(rt->stop, &bad), NULL);
		put(t, "tail_calls", json_object_new_uint64(rt->tail_calls),
		    &bad);
		put(t, "stop_why", jstr(rt->stop_why, &bad), NULL);
		put(t, "no_sites_why", jstr(rt->no_sites_why, &bad), NULL);
		put(t, "return_sites", json_object_new_uint64(rt->return_sites),
		    &bad);
		put(t, "emulated_sites",
		    json_object_new_uint64(rt->emulated_sites), &bad);
		put(t, "emulated_entry",
		    json_object_new_boolean(rt->emulated_entry), &bad);
		put(t, "single_step_why", jstr(rt->single_step_why, &bad),
		    NULL);
		put(t, "inlined", json_object_new_uint64(rt->inlined), &bad);
		put(t, "inlined_not_timed",
		    json_object_new_uint64(rt->inlined_refused), &bad);
		put(t, "inlined_where", jstr(rt->inlined_where, &bad), NULL);
		put(t, "params", jstr(rt->params, &bad), NULL);
		put(t, "maxactive", json_object_new_uint64(rt->maxactive),
		    &bad);
		if (run->costs)
			costs_put(t, &run->costs[i], &bad);
	}
	if (run->ncalib)
		put(root, "calibration", calib_json(run, &bad), &bad);
	/* the costs per CPU: a key older readers skip */
	if (run->costs && run->ncpu_pm)
		put(root, "cpu_scale_pm", cpu_pm_json(run, &bad), &bad);
	if (bad) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

struct rec_writer *rec_writer__new(FILE *f, const char *name,
				   const struct rec_run *run)
{
	struct rec_file_header h = {
		.major = REC_VERSION_MAJOR,
		.minor = REC_VERSION_MINOR,
		.header_size = REC_HEADER_SIZE,
		.abi_version = IPROF_ABI_VERSION,
		.rec_size = sizeof(struct iprof_rec),
	};
	struct rec_writer *w = calloc(1, sizeof(*w));
	int e;

	if (!w)
		return NULL;
	w->f = f;
	w->name = name;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv_full, NULL);
	pthread_cond_init(&w->cv_free, NULL);
	for (w->nfree = 0; w->nfree < REC_BUFS; w->nfree++) {
		w->free_bufs[w->nfree] = malloc(REC_BLOCK_BYTES);
		if (!w->free_bufs[w->nfree])
			goto nomem;
	}
	w->buf = w->free_bufs[--w->nfree];
	if (deflateInit(&w->z, Z_BEST_SPEED) != Z_OK)
		goto nomem;
	w->z_init = 1;
	memcpy(h.magic, REC_MAGIC, sizeof(h.magic));
	errno = 0;
	if (fwrite(&h, sizeof(h), 1, f) != 1) {
		e = errno ? errno : EIO;
		goto fail;
	}
	if (write_json(w, REC_BLOCK_META, meta_json(run))) {
		e = -w->err;
		goto fail;
	}
	e = pthread_create(&w->th, NULL, writer_thread, w);
	if (e)
		goto fail;
	w->th_started = 1;
	return w;
nomem:
	e = ENOMEM;
fail:
	rec_writer__free(w);
	errno = e;
	return NULL;
}

static void remember_comm(struct rec_writer *w, const struct iprof_rec_comm *c)
{
	size_t i;

	for (i = 0; i < w->nthreads; i++)
		if (w->threads[i].tid == c->tid)
			break;
	if (i == w->nthreads) {
		if (w->nthreads == w->threads_cap) {
			size_t cap = w->threads_cap ? 2 * w->threads_cap : 64;
			struct rec_thread *t =
				realloc(w->threads, cap * sizeof(*t));

			if (!t)
				return; /* a name less in the trailer */
			w->threads = t;
			w->threads_cap = cap;
		}
		w->nthreads++;
	}
	w->threads[i].tid = c->tid;
	w->threads[i].tgid = c->tgid;
	memcpy(w->threads[i].comm, c->comm, IPROF_COMM_LEN);
	w->threads[i].comm[IPROF_COMM_LEN - 1] = '\0';
}

int rec_writer__push(struct rec_writer *w, const void *rec, size_t len)
{
	struct iprof_rec *slot;

	if (w->err)
		return w->err;
	slot = (struct iprof_rec *)(w->buf + w->len);
	if (len == sizeof(*slot)) {
		memcpy(slot, rec, sizeof(*slot));
		if (slot->type == IPROF_REC_COMM)
			remember_comm(w, (const struct iprof_rec_comm *)slot);
		else if (!w->block_first_ts)
			w->block_first_ts = slot->ts;
	} else {
		memset(slot, 0, sizeof(*slot)); /* type 0: malformed */
		slot->size = sizeof(*slot);
	}
	w->len += sizeof(*slot);
	w->nrecords++;
	/* a full block, or a second of records: a kill loses little */
	if (w->len == REC_BLOCK_BYTES ||
	    (slot->type != IPROF_REC_COMM && slot->ts &&
	     slot->ts - w->block_first_ts > REC_BLOCK_MAX_AGE_NS))
		return flush_records(w);
	return 0;
}

/* umaps_json() - the trailer's "umaps": @run's mappings (--offcpu-stacks=
 * user), each {pid, start, end, off, path} */
static void umaps_json(json_object *root, const struct rec_run *run, int *bad)
{
	json_object *a, *t;
	size_t i;

	put(root, "umaps", a = json_object_new_array(), bad);
	for (i = 0; a && i < run->numaps; i++) {
		const struct rec_umap *m = &run->umaps[i];

		t = json_object_new_object();
		if (!t || json_object_array_add(a, t)) {
			json_object_put(t);
			*bad = 1;
			return;
		}
		put(t, "pid", json_object_new_uint64(m->tgid), bad);
		put(t, "start", json_object_new_uint64(m->start), bad);
		put(t, "end", json_object_new_uint64(m->end), bad);
		put(t, "off", json_object_new_uint64(m->pgoff), bad);
		put(t, "path", jstr(m->path, bad), bad);
	}
}

static json_object *trailer_json(const struct rec_writer *w,
				 const struct rec_run *run)
{
	json_object *root = json_object_new_object(), *l, *a, *t;
	int bad = !root;
	size_t i;

	if (bad)
		return NULL;
	put(root, "end_ns", json_object_new_uint64(run->end_ns), &bad);
	put(root, "records", json_object_new_uint64(w->nrecords), &bad);
	if (run->cmd_ended)
		put(root, "command_wait_status",
		    json_object_new_int(run->cmd_wstatus), &bad);
	put(root, "loss", l = json_object_new_object(), &bad);
	if (l) {
		put(l, "ring_buffer_drops",
		    json_object_new_uint64(run->loss.rb_drops), &bad);
		put(l, "depth_overflow",
		    json_object_new_uint64(run->loss.depth_overflow), &bad);
		put(l, "task_storage_failures",
		    json_object_new_uint64(run->loss.no_storage), &bad);
		put(l, "recursion_misses",
		    json_object_new_uint64(run->loss.recursion_misses), &bad);
		put(l, "kprobe_misses",
		    json_object_new_uint64(run->loss.kprobe_misses), &bad);
		put(l, "key_full",
		    json_object_new_uint64(run->loss.key_full), &bad);
	}
	put(root, "timers", a = json_object_new_array(), &bad);
	for (i = 0; a && i < run->ntimers; i++) {
		t = json_object_new_object();
		if (!t || json_object_array_add(a, t)) {
			json_object_put(t);
			bad = 1;
			break;
		}
		put(t, "orphan_stops",
		    json_object_new_uint64(run->timers[i].orphans), &bad);
		put(t, "kprobe_misses",
		    json_object_new_uint64(run->timers[i].kprobe_misses), &bad);
		put(t, "key_full",
		    json_object_new_uint64(run->timers[i].key_full), &bad);
	}
	put(root, "threads", a = json_object_new_array(), &bad);
	for (i = 0; a && i < w->nthreads; i++) {
		t = json_object_new_object();
		if (!t || json_object_array_add(a, t)) {
			json_object_put(t);
			bad = 1;
			break;
		}
		put(t, "tid", json_object_new_uint64(w->threads[i].tid), &bad);
		put(t, "tgid", json_object_new_uint64(w->threads[i].tgid),
		    &bad);
		put(t, "comm", jstr(w->threads[i].comm, &bad), &bad);
	}
	if (run->numaps)
		umaps_json(root, run, &bad);
	if (bad) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

int rec_writer__finish(struct rec_writer *w, const struct rec_run *run)
{
	if (writer_stop(w))
		return w->err;
	return write_json(w, REC_BLOCK_TRAILER, trailer_json(w, run));
}

uint64_t rec_writer__records(const struct rec_writer *w)
{
	return w->nrecords;
}

void rec_writer__free(struct rec_writer *w)
{
	unsigned int i;

	if (!w)
		return;
	w->len = 0; /* what was not finished is dropped */
	writer_stop(w);
	if (w->z_init)
		deflateEnd(&w->z);
	free(w->buf);
	for (i = 0; i < w->nfree; i++)
		free(w->free_bufs[i]);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv_full);
	pthread_cond_destroy(&w->cv_free);
	free(w->out);
	free(w->threads);
	free(w);
}

/* ---- reader ---------------------------------------------------------------*/

enum rd_state { RD_BLOCKS, RD_END, RD_ERROR };

struct rec_reader {
	FILE *f;
	char *name;
	uint64_t off; /* bytes consumed */
	enum rd_state state;
	int ret;   /* what next() returns once state is RD_END/RD_ERROR */
	char *msg; /* the error or warning next() repeats */
	unsigned char *cbuf, *ubuf; /* compressed, inflated block */
	size_t ccap, ucap;
	uint64_t last_ts; /* latest record time seen */
	uint64_t nrecs; /* records handed out (whole blocks) */
	struct rec_run run;
};

/* read up to @n bytes; returns how many (short only at EOF or error) */
static size_t rd(struct rec_reader *r, void *buf, size_t n)
{
	size_t got = n ? fread(buf, 1, n, r->f) : 0;

	r->off += got;
	return got;
}

static int grow(unsigned char **buf, size_t *cap, size_t n)
{
	unsigned char *b;

	if (n <= *cap)
		return 0;
	b = realloc(*buf, n);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = n;
	return 0;
}

/*
 * Read one block: 1 with its type and ulen inflated bytes in r->ubuf (one
 * more byte, NUL, after them), 0 at a clean end of file before a block
 * header, -ENODATA when the file ends inside a block, -EBADMSG (corrupted),
 * -ENOMEM, -EIO; @err says what.
 */
static int read_block(struct rec_reader *r, uint32_t *type, size_t *ulen,
		      char *err, size_t errlen)
{
	struct rec_block_header h;
	uint64_t at = r->off;
	uLongf dlen;
	size_t got;
	int zr;

	got = rd(r, &h, sizeof(h));
	if (ferror(r->f)) {
		util_set_err(err, errlen, "%s: offset %llu: read error", r->name,
		    (unsigned long long)r->off);
		return -EIO;
	}
	if (!got)
		return 0;
	if (got < sizeof(h)) {
		util_set_err(err, errlen,
		    "%s: offset %llu: the file ends inside a block header (%zu "
		    "of %u bytes)",
		    r->name, (unsigned long long)at, got,
		    REC_BLOCK_HEADER_SIZE);
		return -ENODATA;
	}
	if (h.type < REC_BLOCK_META || h.type > REC_BLOCK_TRAILER) {
		util_set_err(err, errlen, "%s: offset %llu: unknown block type %u",
		    r->name, (unsigned long long)at, h.type);
		return -EBADMSG;
	}
	if (h.ulen > REC_BLOCK_MAX || !h.ulen || !h.clen ||
	    h.clen > compressBound(h.ulen)) {
		util_set_err(err, errlen,
		    "%s: offset %llu: block of %u bytes (%u compressed) is not "
		    "a valid size (1 to %u)",
		    r->name, (unsigned long long)at, h.ulen, h.clen,
		    REC_BLOCK_MAX);
		return -EBADMSG;
	}
	if (grow(&r->cbuf, &r->ccap, h.clen) ||
	    grow(&r->ubuf, &r->ucap, (size_t)h.ulen + 1)) {
		util_set_err(err, errlen, "%s: out of memory", r->name);
		return -ENOMEM;
	}
	got = rd(r, r->cbuf, h.clen);
	if (got < h.clen) {
		if (ferror(r->f)) {
			util_set_err(err, errlen, "%s: offset %llu: read error", r->name,
			    (unsigned long long)r->off);
			return -EIO;
		}
		util_set_err(err, errlen,
		    "%s: offset %llu: the file ends inside a block (%zu of %u "
		    "bytes)",
		    r->name, (unsigned long long)at, got, h.clen);
		return -ENODATA;
	}
	dlen = h.ulen;
	zr = uncompress(r->ubuf, &dlen, r->cbuf, h.clen);
	if (zr != Z_OK || dlen != h.ulen) {
		util_set_err(err, errlen,
		    "%s: offset %llu: block does not inflate to its %u bytes "
		    "(zlib: %s)",
		    r->name, (unsigned long long)at, h.ulen,
		    zr == Z_OK ? "short" : zError(zr));
		return -EBADMSG;
	}
	if ((uint32_t)crc32(0L, r->ubuf, h.ulen) != h.crc) {
		util_set_err(err, errlen, "%s: offset %llu: block checksum mismatch",
		    r->name, (unsigned long long)at);
		return -EBADMSG;
	}
	r->ubuf[h.ulen] = '\0';
	*type = h.type;
	*ulen = h.ulen;
	return 1;
}

/* JSON readers: 0, or -EBADMSG when the key holds another type */
static json_object *jget(json_object *o, const char *k)
{
	json_object *v = NULL;

	if (o && json_object_is_type(o, json_type_object))
		json_object_object_get_ex(o, k, &v);
	return v;
}

static int ju64(json_object *o, const char *k, uint64_t *v)
{
	json_object *x = jget(o, k);

	if (!x)
		return 0; /* absent: keeps its default */
	if (!json_object_is_type(x, json_type_int))
		return -EBADMSG;
	if (json_object_get_int64(x) < 0) /* INT64_MAX above it */
		return -EBADMSG;
	*v = json_object_get_uint64(x);
	return 0;
}

/* ju64() into a 32-bit count, saturated at UINT32_MAX; absent: 0 */
static int ju32(json_object *o, const char *k, uint32_t *v)
{
	uint64_t u = 0;
	int ret = ju64(o, k, &u);

	*v = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
	return ret;
}

static int jint(json_object *o, const char *k, int *v)
{
	uint64_t u = 0;

	if (ju64(o, k, &u) || u > INT32_MAX)
		return -EBADMSG;
	*v = (int)u;
	return 0;
}

/* a string (strdup'ed into *@v) or null/absent (NULL) */
static int jstrdup(json_object *o, const char *k, const char **v)
{
	json_object *x = jget(o, k);

	*v = NULL;
	if (!x)
		return 0;
	if (!json_object_is_type(x, json_type_string))
		return -EBADMSG;
	*v = strdup(json_object_get_string(x));
	return *v ? 0 : -ENOMEM;
}

static int jbool(json_object *o, const char *k, int *v)
{
	json_object *x = jget(o, k);

	if (!x)
		return 0;
	if (!json_object_is_type(x, json_type_boolean))
		return -EBADMSG;
	*v = json_object_get_boolean(x);
	return 0;
}

/* parse_u32s() - @c, an array of exactly @n 32-bit counts, into @v */
static int parse_u32s(json_object *c, uint32_t *v, size_t n)
{
	json_object *x;
	size_t k;

	if (!json_object_is_type(c, json_type_array) ||
	    json_object_array_length(c) != n)
		return -EBADMSG;
	for (k = 0; k < n; k++) {
		x = json_object_array_get_idx(c, k);
		if (!x || !json_object_is_type(x, json_type_int) ||
		    json_object_get_int64(x) < 0 ||
		    json_object_get_int64(x) > UINT32_MAX)
			return -EBADMSG;
		v[k] = (uint32_t)json_object_get_int64(x);
	}
	return 0;
}

/*
 * parse_cost() - timer @i's "cost" @c (absent: none; the first one present
 * makes p->costs, of @n timers, the others' zero), 5 numbers, and its
 * "cost_mean" @m, 4 (minor version 2): present exactly when the flags say
 * AGG_COST_MEAN.
 */
static int parse_cost(struct rec_run *p, size_t i, size_t n, json_object *c,
		      json_object *m)
{
	uint32_t v[9] = { 0 };
	int ret;

	if (!c)
		return m ? -EBADMSG : 0;
	ret = parse_u32s(c, v, 5);
	if (!ret && m)
		ret = parse_u32s(m, v + 5, 4);
	if (ret)
		return ret;
	if (!m != !(v[4] & AGG_COST_MEAN))
		return -EBADMSG;
	if (!p->costs) {
		p->costs = calloc(n, sizeof(*p->costs));
		if (!p->costs)
			return -ENOMEM;
	}
	p->costs[i] = (struct agg_cost){
		.start_in_ns = v[0],	  .start_out_ns = v[1],
		.stop_in_ns = v[2],	  .stop_out_ns = v[3],
		.flags = v[4],		  .mean_start_in_ns = v[5],
		.mean_start_out_ns = v[6], .mean_stop_in_ns = v[7],
		.mean_stop_out_ns = v[8],
	};
	return 0;
}

/* parse_cost_pair() - timer @i's two-number key @e (absent: none), only
 * beside its "cost": into its struct agg_cost's uint32_t fields at
 * offsets @a and @b ("cost_err": sd_ns, drift_ns; "cost_gap": gap_ns,
 * mean_gap_ns; "cost_step": step_ns, mean_step_ns) */
static int parse_cost_pair(struct rec_run *p, size_t i, json_object *e,
			   size_t a, size_t b)
{
	uint32_t v[2];
	int ret;

	if (!e)
		return 0;
	if (!p->costs)
		return -EBADMSG;
	ret = parse_u32s(e, v, 2);
	if (ret)
		return ret;
	memcpy((char *)&p->costs[i] + a, &v[0], sizeof(v[0]));
	memcpy((char *)&p->costs[i] + b, &v[1], sizeof(v[1]));
	return 0;
}

/* parse_cost_one() - timer @i's one-number key @e (absent: none), only
 * beside its "cost": into its struct agg_cost's uint32_t field at offset
 * @a ("cost_cold": cold_ns; "cost_cold_out": cold_out_ns) */
static int parse_cost_one(struct rec_run *p, size_t i, json_object *e,
			  size_t a)
{
	uint32_t v;

	if (!e)
		return 0;
	if (!p->costs || !json_object_is_type(e, json_type_int) ||
	    json_object_get_int64(e) < 0 ||
	    json_object_get_int64(e) > (int64_t)UINT32_MAX)
		return -EBADMSG;
	v = (uint32_t)json_object_get_int64(e);
	memcpy((char *)&p->costs[i] + a, &v, sizeof(v));
	return 0;
}

/* parse_cost_inline() - timer @i's "cost_inline" @e (absent: none): 7
 * numbers, only beside its "cost" */
static int parse_cost_inline(struct rec_run *p, size_t i, json_object *e)
{
	uint32_t v[7];
	int ret;

	if (!e)
		return 0;
	if (!p->costs)
		return -EBADMSG;
	ret = parse_u32s(e, v, 7);
	if (ret)
		return ret;
	p->costs[i].inl_in_ns = v[0];
	p->costs[i].inl_out_ns = v[1];
	p->costs[i].inl_mean_in_ns = v[2];
	p->costs[i].inl_mean_out_ns = v[3];
	p->costs[i].inl_sd_ns = v[4];
	p->costs[i].inl_drift_ns = v[5];
	p->costs[i].inl_flags = v[6];
	return 0;
}

/* parse_calib() - the "calibration" array (absent: none) */
static int parse_calib(struct rec_run *p, json_object *a)
{
	size_t i, n;
	int ret = 0;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	if (n > 64)
		return -EBADMSG;
	p->calib = calloc(n ? n : 1, sizeof(*p->calib));
	if (!p->calib)
		return -ENOMEM;
	p->ncalib = n;
	for (i = 0; i < n && !ret; i++) {
		struct report_calib *c = &p->calib[i];
		json_object *o = json_object_array_get_idx(a, i);

		if (!o || !json_object_is_type(o, json_type_object))
			return -EBADMSG;
		ret = jstrdup(o, "mech", &c->mech);
		ret = ret ?: jbool(o, "done", &c->done);
		ret = ret ?: ju32(o, "in_ns", &c->in_ns);
		ret = ret ?: ju32(o, "out_ns", &c->out_ns);
		ret = ret ?: ju32(o, "in_mean_ns", &c->in_mean_ns);
		ret = ret ?: ju32(o, "out_mean_ns", &c->out_mean_ns);
		ret = ret ?: ju64(o, "untraced_ns", &c->untraced_ns);
		ret = ret ?: ju64(o, "traced_ns", &c->traced_ns);
		ret = ret ?: ju64(o, "recorded_ns", &c->recorded_ns);
		ret = ret ?: ju64(o, "calls", &c->calls);
		ret = ret ?: ju32(o, "sd_ns", &c->sd_ns);
		ret = ret ?: ju32(o, "drift_ns", &c->drift_ns);
		ret = ret ?: ju32(o, "drift_rounds_ns", &c->drift_rounds_ns);
		ret = ret ?: ju32(o, "skew_ns", &c->skew_ns);
		ret = ret ?: ju32(o, "proc_drift_ns", &c->proc_drift_ns);
		ret = ret ?: ju32(o, "gap_ns", &c->gap_ns);
		ret = ret ?: ju32(o, "cold_ns", &c->cold_ns);
		ret = ret ?: ju32(o, "cold_out_ns", &c->cold_out_ns);
		ret = ret ?: ju32(o, "gap_mean_ns", &c->gap_mean_ns);
		ret = ret ?: jstrdup(o, "why", &c->why);
	}
	return ret;
}

static json_object *parse_json(const unsigned char *s, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, (const char *)s, (int)len);
	if (o && (json_tokener_get_error(tok) != json_tokener_success ||
		  tok->char_offset != (int)len ||
		  !json_object_is_type(o, json_type_object))) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* a timer's return sites and what iprof ran of them (0.3's; absent
 * before: 0, NULL) */
static int parse_emu(json_object *t, struct report_timer *rt)
{
	int ret = ju32(t, "return_sites", &rt->return_sites);

	ret = ret ?: ju32(t, "emulated_sites", &rt->emulated_sites);
	ret = ret ?: jbool(t, "emulated_entry", &rt->emulated_entry);
	ret = ret ?: jstrdup(t, "single_step_why", &rt->single_step_why);
	/* inlined instances (0.4's; absent before: 0, NULL) */
	ret = ret ?: ju32(t, "inlined", &rt->inlined);
	ret = ret ?: ju32(t, "inlined_not_timed", &rt->inlined_refused);
	ret = ret ?: jstrdup(t, "inlined_where", &rt->inlined_where);
	/* a kernel function's arguments by BTF (--slowest; absent before
	 * and without it: NULL) */
	return ret ?: jstrdup(t, "params", &rt->params);
}

/* @a (NULL: absent, nothing) an array of strings into *@v, a
 * NULL-terminated calloc'ed vector (the caller's to free, in part on
 * error); 0, -EBADMSG (not strings), -ENOMEM */
static int parse_strv(json_object *a, char ***v)
{
	json_object *t;
	size_t i, n;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	*v = calloc(n + 1, sizeof(**v));
	if (!*v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(a, i);
		if (!json_object_is_type(t, json_type_string))
			return -EBADMSG;
		(*v)[i] = strdup(json_object_get_string(t));
		if (!(*v)[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * parse_cpu_pm() - "cpu_scale_pm" @a (NULL: none) into @p: at most
 * AGG_CPU_SCALE_MAX factors, each 1 to 65535.  0, -EBADMSG, -ENOMEM.
 */
static int parse_cpu_pm(struct rec_run *p, json_object *a)
{
	uint16_t *v;
	json_object *t;
	size_t i, n;
	int64_t x;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > AGG_CPU_SCALE_MAX)
		return -EBADMSG;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->cpu_pm = v;
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(a, i);
		if (!json_object_is_type(t, json_type_int))
			return -EBADMSG;
		x = json_object_get_int64(t);
		if (x < 1 || x > UINT16_MAX)
			return -EBADMSG;
		v[i] = (uint16_t)x;
	}
	p->ncpu_pm = (uint32_t)n;
	return 0;
}

/* parse_costs() - timer @i's (of @n) cost keys in its object @t
 * (costs_put()'s) */
static int parse_costs(struct rec_run *p, size_t i, size_t n, json_object *t)
{
	int ret;

	ret = parse_cost(p, i, n, jget(t, "cost"), jget(t, "cost_mean"));
	ret = ret ?: parse_cost_pair(p, i, jget(t, "cost_err"),
				     offsetof(struct agg_cost, sd_ns),
				     offsetof(struct agg_cost, drift_ns));
	ret = ret ?: parse_cost_inline(p, i, jget(t, "cost_inline"));
	ret = ret ?: parse_cost_pair(p, i, jget(t, "cost_gap"),
				     offsetof(struct agg_cost, gap_ns),
				     offsetof(struct agg_cost, mean_gap_ns));
	ret = ret ?: parse_cost_one(p, i, jget(t, "cost_cold"),
				    offsetof(struct agg_cost, cold_ns));
	ret = ret ?: parse_cost_one(p, i, jget(t, "cost_cold_out"),
				    offsetof(struct agg_cost,
					     cold_out_ns));
	ret = ret ?: parse_cost_pair(p, i, jget(t, "cost_step"),
				     offsetof(struct agg_cost, step_ns),
				     offsetof(struct agg_cost,
					      mean_step_ns));
	return ret;
}

static int parse_meta(struct rec_reader *r, json_object *m)
{
	json_object *run = jget(m, "run"), *a, *t;
	struct rec_run *p = &r->run;
	uint64_t rings = 0;
	size_t i, n;
	int ret = 0, v;

	if (!run || !json_object_is_type(run, json_type_object))
		return -EBADMSG;
	if ((ret = parse_strv(jget(run, "command"), &p->command)))
		return ret;
	a = jget(run, "pids");
	if (a) {
		if (!json_object_is_type(a, json_type_array))
			return -EBADMSG;
		n = json_object_array_length(a);
		p->pids = calloc(n ? n : 1, sizeof(*p->pids));
		if (!p->pids)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			t = json_object_array_get_idx(a, i);
			if (!json_object_is_type(t, json_type_int))
				return -EBADMSG;
			p->pids[i] = json_object_get_int(t);
		}
		p->npids = n;
	}
	a = jget(run, "select");
	if (a) {
		char **v;

		if (!json_object_is_type(a, json_type_array))
			return -EBADMSG;
		n = json_object_array_length(a);
		v = calloc(n ? n : 1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->select = v;
		for (i = 0; i < n; i++) {
			t = json_object_array_get_idx(a, i);
			if (!json_object_is_type(t, json_type_string))
				return -EBADMSG;
			v[i] = strdup(json_object_get_string(t));
			if (!v[i])
				return -ENOMEM;
			p->nselect = i + 1;
		}
	}
	ret = jstrdup(run, "host", &p->host);
	ret = ret ?: jstrdup(run, "kernel", &p->kernel);
	ret = ret ?: jstrdup(run, "kernel_version", &p->kernel_version);
	ret = ret ?: jstrdup(run, "machine", &p->machine);
	ret = ret ?: ju64(run, "start_realtime_ns", &p->start_realtime_ns);
	ret = ret ?: ju64(run, "start_ns", &p->start_ns);
	ret = ret ?: ju64(run, "rb_requested", &p->rb_requested);
	ret = ret ?: ju64(run, "rb_bytes", &p->rb_bytes);
	ret = ret ?: ju64(run, "rb_rings", &rings);
	if (ret)
		return ret;
	p->rb_rings = rings > REC_MAX_RINGS ? 0 : (unsigned int)rings;
	a = jget(m, "timers");
	if (!a || !json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	if (!n || n > (1u << 20))
		return -EBADMSG; /* the aggregator needs 1 timer or more */
	p->timers = calloc(n, sizeof(*p->timers));
	if (!p->timers)
		return -ENOMEM;
	p->ntimers = (uint32_t)n;
	for (i = 0; i < n && !ret; i++) {
		struct report_timer *rt = &p->timers[i];
		uint64_t u = 0;

		t = json_object_array_get_idx(a, i);
		if (!t || !json_object_is_type(t, json_type_object))
			return -EBADMSG;
		ret = jstrdup(t, "name", &rt->name);
		if (!ret && !rt->name)
			ret = -EBADMSG;
		ret = ret ?: jstrdup(t, "kind", &rt->kind);
		ret = ret ?: jstrdup(t, "where", &rt->where);
		/* a keyed span's key (absent before keyed spans: NULL) */
		ret = ret ?: jstrdup(t, "key", &rt->key);
		ret = ret ?: jstrdup(t, "mech", &rt->mech);
		ret = ret ?: jbool(t, "attached", &rt->attached);
		ret = ret ?: jstrdup(t, "error", &rt->error);
		ret = ret ?: jstrdup(t, "file", &rt->file);
		v = 0;
		ret = ret ?: jint(t, "line", &v);
		rt->line = v;
		ret = ret ?: jbool(t, "entry_only", &rt->entry_only);
		ret = ret ?: jstrdup(t, "stop", &rt->stop);
		ret = ret ?: jstrdup(t, "stop_why", &rt->stop_why);
		ret = ret ?: jstrdup(t, "no_sites_why", &rt->no_sites_why);
		u = 0;
		ret = ret ?: ju64(t, "tail_calls", &u);
		rt->tail_calls = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
		ret = ret ?: ju64(t, "maxactive", &u);
		rt->maxactive = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
		ret = ret ?: parse_emu(t, rt);
		ret = ret ?: parse_costs(p, i, n, t);
	}
	ret = ret ?: parse_cpu_pm(p, jget(m, "cpu_scale_pm"));
	return ret ?: parse_calib(p, jget(m, "calibration"));
}

/* parse_umaps() - the trailer's "umaps" @a (NULL: none) into @p; 0,
 * -EBADMSG, -ENOMEM */
static int parse_umaps(struct rec_run *p, json_object *a)
{
	size_t i, n;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	p->umaps = calloc(n ? n : 1, sizeof(*p->umaps));
	if (!p->umaps)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(a, i);
		struct rec_umap *u = &p->umaps[i];
		uint64_t pid = 0;
		const char *path = NULL;
		int ret = ju64(t, "pid", &pid) ?: ju64(t, "start", &u->start) ?:
			  ju64(t, "end", &u->end) ?: ju64(t, "off", &u->pgoff) ?:
			  jstrdup(t, "path", &path);

		u->path = (char *)path;
		p->numaps = i + 1;
		if (ret)
			return ret;
		if (!path || pid > UINT32_MAX)
			return -EBADMSG;
		u->tgid = (uint32_t)pid;
	}
	p->numaps = n;
	return 0;
}

static int parse_trailer(struct rec_reader *r, json_object *m)
{
	struct rec_run *p = &r->run;
	json_object *a, *t, *l = jget(m, "loss");
	size_t i, n;
	int ret;

	ret = ju64(m, "end_ns", &p->end_ns);
	ret = ret ?: ju64(m, "records", &p->nrecords);
	a = jget(m, "command_wait_status"); /* minor version 2: optional */
	if (a) {
		if (!json_object_is_type(a, json_type_int))
			return -EBADMSG;
		p->cmd_ended = 1;
		p->cmd_wstatus = json_object_get_int(a);
	}
	ret = ret ?: ju64(l, "ring_buffer_drops", &p->loss.rb_drops);
	ret = ret ?: ju64(l, "depth_overflow", &p->loss.depth_overflow);
	ret = ret ?: ju64(l, "task_storage_failures", &p->loss.no_storage);
	ret = ret ?: ju64(l, "recursion_misses", &p->loss.recursion_misses);
	ret = ret ?: ju64(l, "kprobe_misses", &p->loss.kprobe_misses);
	ret = ret ?: ju64(l, "key_full", &p->loss.key_full);
	if (ret)
		return ret;
	a = jget(m, "timers");
	if (a) {
		if (!json_object_is_type(a, json_type_array) ||
		    json_object_array_length(a) != p->ntimers)
			return -EBADMSG;
		for (i = 0; i < p->ntimers && !ret; i++) {
			t = json_object_array_get_idx(a, i);
			ret = ju64(t, "orphan_stops", &p->timers[i].orphans);
			ret = ret
				      ?: ju64(t, "kprobe_misses",
					      &p->timers[i].kprobe_misses);
			ret = ret ?: ju64(t, "key_full", &p->timers[i].key_full);
		}
		if (ret)
			return ret;
	}
	ret = parse_umaps(p, jget(m, "umaps"));
	if (ret)
		return ret;
	a = jget(m, "threads");
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	p->threads = calloc(n ? n : 1, sizeof(*p->threads));
	if (!p->threads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		json_object *c;
		uint64_t tid = 0, tgid = 0;

		t = json_object_array_get_idx(a, i);
		c = jget(t, "comm");
		if (ju64(t, "tid", &tid) || ju64(t, "tgid", &tgid) ||
		    tid > UINT32_MAX || tgid > UINT32_MAX || !c ||
		    !json_object_is_type(c, json_type_string))
			return -EBADMSG;
		p->threads[i].tid = (uint32_t)tid;
		p->threads[i].tgid = (uint32_t)tgid;
		snprintf(p->threads[i].comm, IPROF_COMM_LEN, "%s",
			 json_object_get_string(c));
	}
	p->nthreads = n;
	return 0;
}

/* parse a JSON block with @fn; 0 or -errno with @err set */
static int json_block(struct rec_reader *r, size_t len, uint64_t at,
		      const char *what,
		      int (*fn)(struct rec_reader *, json_object *), char *err,
		      size_t errlen)
{
	json_object *o = parse_json(r->ubuf, len);
	int ret;

	if (!o) {
		util_set_err(err, errlen,
		    "%s: offset %llu: the %s block is not a JSON object",
		    r->name, (unsigned long long)at, what);
		return -EBADMSG;
	}
	ret = fn(r, o);
	json_object_put(o);
	if (ret == -ENOMEM)
		util_set_err(err, errlen, "%s: out of memory", r->name);
	else if (ret)
		util_set_err(err, errlen,
		    "%s: offset %llu: the %s block has a missing or invalid "
		    "field",
		    r->name, (unsigned long long)at, what);
	return ret;
}

struct rec_reader *rec_reader__new(FILE *f, const char *name, char *err,
				   size_t errlen)
{
	struct rec_reader *r = calloc(1, sizeof(*r));
	struct rec_file_header h;
	uint32_t type;
	size_t got, len;
	int ret;

	if (!r || !(r->name = strdup(name ? name : "-"))) {
		free(r);
		util_set_err(err, errlen, "%s: out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	r->f = f;
	got = rd(r, &h, sizeof(h));
	if (got >= sizeof(h.magic) && memcmp(h.magic, REC_MAGIC, 8)) {
		/* a JSON report (-f json) is no recording, but iprof diff
		 * takes it (newcomer trial 6) */
		util_set_err(err, errlen,
		    "%s: offset 0: not an iprof recording (no \"%s\" magic)%s",
		    r->name, REC_MAGIC,
		    h.magic[0] == '{' ?
			    ": a JSON report? iprof diff compares those; a recording is what iprof record or -w writes" :
			    "");
		ret = -EPROTO;
		goto fail;
	}
	if (got < sizeof(h)) {
		util_set_err(err, errlen,
		    "%s: offset %zu: the file ends inside the header (%u "
		    "bytes)",
		    r->name, got, REC_HEADER_SIZE);
		ret = ferror(f) ? -EIO : -ENODATA;
		goto fail;
	}
	if (h.major != REC_VERSION_MAJOR) {
		util_set_err(err, errlen,
		    "%s: offset 8: recording format version %u.%u; this iprof "
		    "reads version %u.x",
		    r->name, h.major, h.minor, REC_VERSION_MAJOR);
		ret = -EPROTO;
		goto fail;
	}
	if (h.header_size != REC_HEADER_SIZE ||
	    h.rec_size != sizeof(struct iprof_rec) ||
	    h.abi_version > IPROF_ABI_VERSION ||
	    h.abi_version < REC_ABI_OLDEST) {
		util_set_err(err, errlen,
		    "%s: offset 12: header says %u-byte header, %u-byte "
		    "records of ABI %u; expected %u, %zu, %u to %d",
		    r->name, h.header_size, h.rec_size, h.abi_version,
		    REC_HEADER_SIZE, sizeof(struct iprof_rec),
		    REC_ABI_OLDEST, IPROF_ABI_VERSION);
		ret = -EPROTO;
		goto fail;
	}
	ret = read_block(r, &type, &len, err, errlen);
	if (ret == 0) {
		util_set_err(err, errlen,
		    "%s: offset %llu: the file ends before its metadata block",
		    r->name, (unsigned long long)r->off);
		ret = -ENODATA;
	}
	if (ret < 0)
		goto fail;
	if (type != REC_BLOCK_META) {
		util_set_err(err, errlen,
		    "%s: offset %u: expected the metadata block, found type %u",
		    r->name, REC_HEADER_SIZE, type);
		ret = -EBADMSG;
		goto fail;
	}
	ret = json_block(r, len, REC_HEADER_SIZE, "metadata", parse_meta, err,
			 errlen);
	if (ret)
		goto fail;
	r->run.end_ns = r->run.start_ns;
	return r;
fail:
	rec_reader__free(r);
	errno = -ret;
	return NULL;
}

/* stop reading: every later next() returns @ret and repeats @err */
static int finish(struct rec_reader *r, int ret, char *err, size_t errlen)
{
	r->state = ret < 0 ? RD_ERROR : RD_END;
	r->ret = ret;
	free(r->msg);
	r->msg = err && errlen && *err ? strdup(err) : NULL;
	return ret;
}

int rec_reader__next(struct rec_reader *r, const struct iprof_rec **recs,
		     size_t *n, char *err, size_t errlen)
{
	uint64_t at;
	uint32_t type;
	size_t len, i;
	int ret;

	*recs = NULL;
	*n = 0;
	if (err && errlen)
		*err = '\0';
	if (r->state != RD_BLOCKS) {
		util_set_err(err, errlen, "%s", r->msg ? r->msg : "");
		return r->ret;
	}
	at = r->off;
	ret = read_block(r, &type, &len, err, errlen);
	if (ret == 0 || ret == -ENODATA) {
		/* cut: a killed run, or a copy in progress */
		char what[256];

		if (ret == 0)
			snprintf(what, sizeof(what),
				 "%s: offset %llu: the recording ends without "
				 "its trailer",
				 r->name, (unsigned long long)at);
		else
			snprintf(what, sizeof(what), "%s", err ? err : "");
		util_set_err(err, errlen,
		    "%s (cut, or the run was killed): it holds the %llu "
		    "records of the blocks before it%s; no loss counters",
		    what, (unsigned long long)r->nrecs,
		    ret == -ENODATA ? ", that block's are lost" : "");
		if (r->last_ts > r->run.end_ns)
			r->run.end_ns = r->last_ts;
		return finish(r, 0, err, errlen);
	}
	if (ret < 0) {
		/* a corrupted block: the records before it end the run */
		if (r->last_ts > r->run.end_ns)
			r->run.end_ns = r->last_ts;
		return finish(r, ret, err, errlen);
	}
	if (type == REC_BLOCK_TRAILER) {
		char c;

		ret = json_block(r, len, at, "trailer", parse_trailer, err,
				 errlen);
		if (ret)
			return finish(r, ret, err, errlen);
		if (rd(r, &c, 1)) {
			util_set_err(err, errlen,
			    "%s: offset %llu: data after the trailer", r->name,
			    (unsigned long long)(r->off - 1));
			return finish(r, -EBADMSG, err, errlen);
		}
		r->run.have_trailer = 1;
		if (err && errlen)
			*err = '\0';
		return finish(r, 0, err, errlen);
	}
	if (type != REC_BLOCK_RECORDS || len % sizeof(struct iprof_rec)) {
		util_set_err(err, errlen, "%s: offset %llu: %s", r->name,
		    (unsigned long long)at,
		    type == REC_BLOCK_META ? "a second metadata block"
					   : "a records block that is not a "
					     "whole number of 32-byte records");
		return finish(r, -EBADMSG, err, errlen);
	}
	*recs = (const struct iprof_rec *)r->ubuf;
	*n = len / sizeof(struct iprof_rec);
	r->nrecs += *n;
	for (i = 0; i < *n; i++)
		if ((*recs)[i].type != IPROF_REC_COMM &&
		    (*recs)[i].ts > r->last_ts)
			r->last_ts = (*recs)[i].ts;
	return 1;
}

const struct rec_run *rec_reader__run(const struct rec_reader *r)
{
	return &r->run;
}

uint64_t rec_reader__offset(const struct rec_reader *r)
{
	return r->off;
}

void rec_reader__free(struct rec_reader *r)
{
	struct rec_run *p;
	size_t i;

	if (!r)
		return;
	p = &r->run;
	for (i = 0; p->command && p->command[i]; i++)
		free(p->command[i]);
	free(p->command);
	free(p->pids);
	for (i = 0; i < p->nselect; i++)
		free(p->select[i]);
	free((void *)p->select);
	free((char *)p->host);
	free((char *)p->kernel);
	free((char *)p->kernel_version);
	free((char *)p->machine);
	for (i = 0; i < p->ntimers; i++) {
		free((char *)p->timers[i].name);
		free((char *)p->timers[i].kind);
		free((char *)p->timers[i].where);
		free((char *)p->timers[i].key);
		free((char *)p->timers[i].mech);
		free((char *)p->timers[i].error);
		free((char *)p->timers[i].file);
		free((char *)p->timers[i].stop);
		free((char *)p->timers[i].stop_why);
		free((char *)p->timers[i].no_sites_why);
		free((char *)p->timers[i].single_step_why);
		free((char *)p->timers[i].inlined_where);
		free((char *)p->timers[i].params);
	}
	free(p->timers);
	free(p->costs);
	free((void *)p->cpu_pm);
	for (i = 0; i < p->ncalib; i++) {
		free((char *)p->calib[i].mech);
		free((char *)p->calib[i].why);
	}
	free(p->calib);
	free(p->threads);
	for (i = 0; i < p->numaps; i++)
		free(p->umaps[i].path);
	free(p->umaps);
	free(r->cbuf);
	free(r->ubuf);
	free(r->msg);
	free(r->name);
	free(r);
}

int rec_replay(struct rec_reader *r, uint64_t from_ns, uint64_t to_ns,
	       void (*on_from)(void *ctx),
	       void (*sink)(void *ctx, const void *rec, size_t len), void *ctx,
	       char *err, size_t errlen)
{
	uint64_t from = r->run.start_ns + from_ns;
	uint64_t to = to_ns ? r->run.start_ns + to_ns : UINT64_MAX;
	const struct iprof_rec *recs;
	int ret, started = !from_ns;
	size_t n, i;

	while ((ret = rec_reader__next(r, &recs, &n, err, errlen)) > 0) {
		for (i = 0; i < n; i++) {
			const struct iprof_rec *x = &recs[i];

			if (x->type != IPROF_REC_COMM) {
				if (x->ts > to)
					continue;
				if (!started && x->ts >= from) {
					started = 1;
					if (on_from)
						on_from(ctx);
				}
			}
			sink(ctx, x, sizeof(*x));
		}
	}
	if (!started && on_from && ret == 0)
		on_from(ctx);
	return ret;
}
