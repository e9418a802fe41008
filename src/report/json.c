/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format json: one JSON document, written with json-c.  Every field is
 * documented in doc/json.md; a change to a field's name, type or meaning
 * bumps REPORT_JSON_SCHEMA.  Times are integers in ns.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "iprof/util.h"

#ifndef IPROF_VERSION
#define IPROF_VERSION "unknown"
#endif

#define REPORT_JSON_SCHEMA 1

/* a builder: the first error sticks, later calls only free their value */
struct jb {
	int err;
};

/*
 * add() - o[k] = v, taking ownership of @v (freed on failure); a NULL @v
 * means its allocation failed.  @k must be a string literal.  Returns @v or
 * NULL.
 */
static json_object *add(struct jb *b, json_object *o, const char *k,
			json_object *v)
{
	if (!b->err && !v)
		b->err = -ENOMEM;
	if (b->err)
		goto fail;
	if (json_object_object_add_ex(o, k, v,
				      JSON_C_OBJECT_ADD_KEY_IS_NEW |
					      JSON_C_OBJECT_KEY_IS_CONSTANT)) {
		b->err = -ENOMEM;
		goto fail;
	}
	return v;
fail:
	json_object_put(v);
	return NULL;
}

/* push() - append @v to the array @a, taking ownership as add() does. */
static json_object *push(struct jb *b, json_object *a, json_object *v)
{
	if (!b->err && !v)
		b->err = -ENOMEM;
	if (b->err)
		goto fail;
	if (json_object_array_add(a, v)) {
		b->err = -ENOMEM;
		goto fail;
	}
	return v;
fail:
	json_object_put(v);
	return NULL;
}

static void add_null(struct jb *b, json_object *o, const char *k)
{
	if (!b->err &&
	    json_object_object_add_ex(o, k, NULL,
				      JSON_C_OBJECT_ADD_KEY_IS_NEW |
					      JSON_C_OBJECT_KEY_IS_CONSTANT))
		b->err = -ENOMEM;
}

static void add_u64(struct jb *b, json_object *o, const char *k, uint64_t v)
{
	add(b, o, k, json_object_new_uint64(v));
}

/* a time that only exists when the node completed a timer */
static void add_u64_if(struct jb *b, json_object *o, const char *k, int have,
		       uint64_t v)
{
	if (have)
		add_u64(b, o, k, v);
	else
		add_null(b, o, k);
}

/* a string, or null for NULL */
static void add_str(struct jb *b, json_object *o, const char *k, const char *s)
{
	if (s)
		add(b, o, k, json_object_new_string(s));
	else
		add_null(b, o, k);
}

static json_object *add_obj(struct jb *b, json_object *o, const char *k)
{
	return add(b, o, k, json_object_new_object());
}

static json_object *add_arr(struct jb *b, json_object *o, const char *k)
{
	return add(b, o, k, json_object_new_array());
}

/* "2025-01-31T12:34:56.123456789Z" */
static void add_iso_time(struct jb *b, json_object *o, const char *k,
			 uint64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000u);
	char buf[64];
	struct tm tm;
	size_t len;

	if (!ns || !gmtime_r(&sec, &tm)) {
		add_null(b, o, k);
		return;
	}
	len = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + len, sizeof(buf) - len, ".%09uZ",
		 (unsigned int)(ns % 1000000000u));
	add_str(b, o, k, buf);
}

static void add_run(struct jb *b, json_object *root, const struct report *r)
{
	json_object *run = add_obj(b, root, "run"), *a;
	size_t i;

	if (!run)
		return;
	if (r->command) {
		a = add_arr(b, run, "command");
		for (i = 0; a && r->command[i]; i++)
			push(b, a, json_object_new_string(r->command[i]));
	} else {
		add_null(b, run, "command");
	}
	a = add_arr(b, run, "pids");
	for (i = 0; a && i < r->npids; i++)
		push(b, a, json_object_new_int(r->pids[i]));
	a = add_arr(b, run, "select");
	for (i = 0; a && i < r->nselect; i++)
		push(b, a, json_object_new_string(r->select[i]));
	add_str(b, run, "target",
		r->command ? "command"
		: r->npids ? "pids"
		: r->nselect ? "select"
			   : "system");
	add_str(b, run, "host", r->host);
	add_str(b, run, "kernel", r->kernel);
	add_str(b, run, "kernel_version", r->kernel_version);
	add_str(b, run, "machine", r->machine);
	add_u64_if(b, run, "start_realtime_ns", r->start_realtime_ns != 0,
		   r->start_realtime_ns);
	add_iso_time(b, run, "start_time", r->start_realtime_ns);
	add_u64(b, run, "duration_ns", r->duration_ns);
	/* the command's end, when it ended by itself while traced */
	if (r->cmd_ended && r->cmd_signal > 0) {
		const char *sig = sigabbrev_np(r->cmd_signal);

		add(b, run, "signal", json_object_new_int(r->cmd_signal));
		if (sig)
			add_str(b, run, "signal_name", sig);
	} else if (r->cmd_ended) {
		add(b, run, "exit_status", json_object_new_int(r->cmd_exit));
	}
	add(b, run, "loss_counters_known",
	    json_object_new_boolean(!r->loss.unknown));
}

static void add_options(struct jb *b, json_object *root, const struct report *r,
			const struct report_view *v)
{
	json_object *o = add_obj(b, root, "options");

	if (!o)
		return;
	add_str(b, o, "sort", report_sort_str(r->sort));
	add_u64(b, o, "min_total_ns", r->min_total_ns);
	add_u64_if(b, o, "max_depth", r->max_depth != 0, r->max_depth);
	add_str(b, o, "json_tree", r->json_flat ? "flat" : "nested");
	add_u64(b, o, "nodes_shown", v->nvisible);
	add_u64(b, o, "nodes_hidden", v->n - v->nvisible);
	add_u64_if(b, o, "rb_size_requested", r->rb_requested != 0,
		   r->rb_requested);
	add_u64_if(b, o, "rb_bytes_per_cpu", r->rb_bytes != 0, r->rb_bytes);
	add_u64_if(b, o, "rb_rings", r->rb_rings != 0, r->rb_rings);
}

/*
 * add_key() - a keyed span's "keyed": true, "key": the start side's
 * field names of @key ("dev,sector", "pid=next_pid": ["pid"]) and
 * "key_stop": the stop side's (["next_pid"]).
 */
static void add_key(struct jb *b, json_object *p, const char *key)
{
	json_object *a, *z;
	size_t n, m;

	add(b, p, "keyed", json_object_new_boolean(1));
	a = add_arr(b, p, "key");
	z = add_arr(b, p, "key_stop");
	while (a && z && *key) {
		n = strcspn(key, ",");
		m = strcspn(key, "=,");
		push(b, a, json_object_new_string_len(key, (int)m));
		/* B of A=B, else A */
		if (key[m] == '=')
			push(b, z, json_object_new_string_len(key + m + 1,
							      (int)(n - m - 1)));
		else
			push(b, z, json_object_new_string_len(key, (int)m));
		key += n + (key[n] == ',');
	}
}

/*
 * add_probe() - the fields of probe @id named @name that a report and a
 * --dry-run plan share; @t may be NULL (nothing known but the name).
 */
static void add_probe(struct jb *b, json_object *p, uint32_t id,
		      const char *name, const struct report_timer *t)
{
	add_u64(b, p, "id", id);
	add_str(b, p, "name", name);
	add_str(b, p, "kind", t ? t->kind : NULL);
	add_str(b, p, "where", t ? t->where : NULL);
	add_str(b, p, "mech", t ? t->mech : NULL);
	if (t)
		add(b, p, "attached",
		    json_object_new_boolean(t->attached != 0));
	else
		add_null(b, p, "attached");
	add_str(b, p, "error", t && !t->attached ? t->error : NULL);
	add_str(b, p, "reason",
		t && !t->attached ? report_timer_reason(t) : NULL);
	add_str(b, p, "file", t ? t->file : NULL);
	add_u64_if(b, p, "line", t && t->line > 0, t ? (uint64_t)t->line : 0);
	add_str(b, p, "stop", t ? t->stop : NULL);
	add_u64(b, p, "tail_calls", t ? t->tail_calls : 0);
	add_str(b, p, "stop_why", t ? t->stop_why : NULL);
	add_str(b, p, "no_return_sites_why", t ? t->no_sites_why : NULL);
	if (t && t->stop && !strcmp(t->stop, "return_sites")) {
		add_u64(b, p, "return_sites", t->return_sites);
		add_u64(b, p, "emulated_sites", t->emulated_sites);
		add_str(b, p, "single_step_why", t->single_step_why);
	}
	if (t && t->stop && strcmp(t->stop, "entry"))
		add(b, p, "emulated_entry",
		    json_object_new_boolean(t->emulated_entry != 0));
	if (t && t->key)
		add_key(b, p, t->key);
	if (t && (t->inlined || t->inlined_refused)) {
		add_u64(b, p, "inlined", t->inlined);
		add_u64(b, p, "inlined_not_timed", t->inlined_refused);
		add_str(b, p, "inlined_where", t->inlined_where);
	}
	if (t && t->params) /* --slowest: a kernel function's, from BTF */
		add_str(b, p, "params", t->params);
}

static void add_probes(struct jb *b, json_object *root, const struct report *r,
		       const struct report_view *v)
{
	uint32_t ntimers = agg__ntimers(r->agg), i;
	uint64_t *paths, *count;
	json_object *a, *p;
	char buf[REPORT_NAME_BUF];
	size_t k;

	a = add_arr(b, root, "probes");
	if (!a)
		return;
	paths = calloc(ntimers, sizeof(*paths));
	count = calloc(ntimers, sizeof(*count));
	if (!paths || !count) {
		b->err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < v->n; k++) {
		/* a named node counts for its timer */
		uint32_t t = agg__base_timer(r->agg, v->nodes[k]->timer);

		if (t < ntimers) {
			paths[t]++;
			count[t] += v->nodes[k]->count + v->nodes[k]->hits;
		}
	}
	for (i = 0; i < ntimers && !b->err; i++) {
		const struct report_timer *t = r->timers ? &r->timers[i] : NULL;

		p = push(b, a, json_object_new_object());
		if (!p)
			break;
		add_probe(b, p, i, report_timer_name(r, i, buf, sizeof(buf)),
			  t);
		add_u64(b, p, "orphan_stops", t ? t->orphans : 0);
		if (t && t->key)
			add_u64(b, p, "key_full", t->key_full);
		add_u64(b, p, "kprobe_misses", t ? t->kprobe_misses : 0);
		add_u64(b, p, "paths", paths[i]);
		add_u64(b, p, "count", count[i]);
		/* hit, but every start filed under [other] (--max-paths) */
		add(b, p, "in_other",
		    json_object_new_boolean(!paths[i] && r->agg &&
					    agg__timer_started(r->agg, i)));
	}
out:
	free(paths);
	free(count);
}

/*
 * "calibration": how the times were compensated for the probes' own cost
 * (doc/json.md); null when no calibration was made.
 */
static void add_calibration(struct jb *b, json_object *root,
			    const struct report *r)
{
	json_object *o, *a, *m;

	if (!r->ncalib) {
		add_null(b, root, "calibration");
		return;
	}
	o = add_obj(b, root, "calibration");
	if (!o)
		return;
	add(b, o, "compensated", json_object_new_boolean(r->compensated));
	add_str(b, o, "method",
		"medians of the same calls of iprof's own function or system call, untraced, traced and recorded: in = recorded, out = traced - untraced - recorded (- gap: a split entry's, from its mark at the function's first instruction to its start, which the run measures per call and takes off the caller); in_mean and out_mean the same from their means (calls above 4 x the median + 50 us left out: long preemptions), the rounds on each CPU in turn; each call loses its probes' means, each probe's times its CPU's cpu_scale, and every statistic takes that duration (total, self, min, avg, max, stddev, percentiles, histogram, on-CPU; runnable time in proportion to the on-CPU time kept: runq_out_ns); sd and drift: the spread of one traced call and how far its mean may be off in a run (drift = drift_rounds, the rounds' means' spread and standard error, + skew, the mean less the median: the slow hits the host's load moves), the error bars' inputs (avg_err_ns, total_err_ns, self_err_ns, avg_drift_ns); what a call's clamp at its children's time or 0 added to the sums the same thread's later calls on the path give back (clamped_ns: not given back)");
	/* what the probes cost on each CPU, of the mechanisms' costs */
	if (r->ncpu_pm) {
		a = add(b, o, "cpu_scale", json_object_new_array());
		for (uint32_t i = 0; a && i < r->ncpu_pm; i++)
			push(b, a, json_object_new_double(r->cpu_pm[i] /
							 1000.0));
	}
	a = add(b, o, "mechanisms", json_object_new_array());
	for (size_t i = 0; a && i < r->ncalib; i++) {
		const struct report_calib *c = &r->calib[i];

		m = push(b, a, json_object_new_object());
		if (!m)
			return;
		add_str(b, m, "mech", c->mech ? c->mech : "");
		add(b, m, "measured", json_object_new_boolean(c->done));
		add_u64_if(b, m, "in_ns", c->done, c->in_ns);
		add_u64_if(b, m, "out_ns", c->done, c->out_ns);
		/* a recording made before the means: the medians served */
		add_u64_if(b, m, "in_mean_ns", c->done,
			   c->in_mean_ns || c->out_mean_ns ? c->in_mean_ns :
							     c->in_ns);
		add_u64_if(b, m, "out_mean_ns", c->done,
			   c->in_mean_ns || c->out_mean_ns ? c->out_mean_ns :
							     c->out_ns);
		add_u64_if(b, m, "untraced_ns", c->done, c->untraced_ns);
		add_u64_if(b, m, "traced_ns", c->done, c->traced_ns);
		add_u64_if(b, m, "recorded_ns", c->done, c->recorded_ns);
		add_u64(b, m, "calls", c->calls);
		/* the inside part's extra cost fired cold (0: not known) */
		add_u64_if(b, m, "cold_ns", c->done && c->cold_ns, c->cold_ns);
		add_u64_if(b, m, "cold_out_ns", c->done && c->cold_out_ns,
			   c->cold_out_ns);
		/* a split entry's gap (only in its class) */
		if (c->gap_ns || c->gap_mean_ns) {
			add_u64(b, m, "gap_ns", c->gap_ns);
			add_u64(b, m, "gap_mean_ns", c->gap_mean_ns);
		}
		/* the spread (0 in a recording made before it: null) */
		add_u64_if(b, m, "sd_ns", c->done && (c->sd_ns || c->drift_ns),
			   c->sd_ns);
		add_u64_if(b, m, "drift_ns",
			   c->done && (c->sd_ns || c->drift_ns), c->drift_ns);
		/* its parts (0 in a recording made before them: null) */
		add_u64_if(b, m, "drift_rounds_ns",
			   c->done && (c->drift_rounds_ns || c->skew_ns),
			   c->drift_rounds_ns);
		add_u64_if(b, m, "skew_ns",
			   c->done && (c->drift_rounds_ns || c->skew_ns),
			   c->skew_ns);
		/* its floor (0 in a recording made before it: null) */
		add_u64_if(b, m, "proc_drift_ns", c->done && c->proc_drift_ns,
			   c->proc_drift_ns);
		add_str(b, m, "why", c->why);
	}
}

static void add_counters(struct jb *b, json_object *root,
			 const struct report *r, const struct report_view *v)
{
	const struct agg_stats *st = agg__stats(r->agg);
	uint64_t inc = 0, inc_ns = 0, ex = 0, ex_ns = 0;
	json_object *o;
	size_t k;

	o = add_obj(b, root, "loss");
	if (o) {
		add_u64(b, o, "ring_buffer_drops", r->loss.rb_drops);
		add_u64(b, o, "depth_overflow", r->loss.depth_overflow);
		add_u64(b, o, "task_storage_failures", r->loss.no_storage);
		add_u64(b, o, "recursion_misses", r->loss.recursion_misses);
		add_u64(b, o, "kprobe_misses", r->loss.kprobe_misses);
		add_u64(b, o, "key_full", r->loss.key_full);
		add_u64(b, o, "key_unmatched", st->kunmatched + st->kearly);
		add_u64(b, o, "missed_returns", st->missed_returns);
		add_u64(b, o, "resyncs", st->resyncs);
		add_u64(b, o, "discarded_frames", st->discarded);
		add_u64(b, o, "skipped_records", st->skipped);
		add_u64(b, o, "unwound_frames", st->unwound);
		add_u64(b, o, "execed_frames", st->execed);
		add_u64(b, o, "malformed_records", st->malformed);
		add_u64(b, o, "mismatches", st->mismatches);
		add_u64(b, o, "nomem", st->nomem);
		if (st->name_mismatch)
			add_u64(b, o, "name_mismatches", st->name_mismatch);
		if (st->name_faults)
			add_u64(b, o, "name_faults", st->name_faults);
		if (st->name_collisions)
			add_u64(b, o, "name_collisions", st->name_collisions);
	}

	for (k = 0; k < v->n; k++) {
		inc += v->nodes[k]->incomplete;
		inc_ns += v->nodes[k]->incomplete_ns;
		ex += v->nodes[k]->exited;
		ex_ns += v->nodes[k]->exited_ns;
	}
	o = add_obj(b, root, "folded");
	if (o) {
		uint32_t mp, mk;

		agg__limits(r->agg, &mp, &mk);
		add_u64(b, o, "paths", st->folded_paths);
		add_u64(b, o, "keys", st->folded_keys);
		add_u64(b, o, "max_paths", mp);
		add_u64(b, o, "max_keys", mk);
	}

	o = add_obj(b, root, "incomplete");
	if (o) {
		add_u64(b, o, "timers", inc);
		add_u64(b, o, "elapsed_ns", inc_ns);
	}
	o = add_obj(b, root, "exited");
	if (o) {
		add_u64(b, o, "timers", ex);
		add_u64(b, o, "elapsed_ns", ex_ns);
	}

	add_calibration(b, root, r);

	o = add_obj(b, root, "aggregator");
	if (o) {
		add_u64(b, o, "records", st->records);
		add_u64(b, o, "starts", st->starts);
		add_u64(b, o, "forked", st->forked);
		add_u64(b, o, "stops", st->stops);
		add_u64(b, o, "exits", st->exits);
		add_u64(b, o, "switches", st->switches);
		add_u64(b, o, "threads_seen", st->threads_seen);
		add_u64(b, o, "threads_live", st->threads_live);
		add_u64(b, o, "threads_pruned", st->pruned);
		add_u64(b, o, "nodes", st->nodes);
	}
}

/*
 * "histogram": the node's non-empty histogram slots, ascending, each
 * [low_ns, high_ns, count] (every duration d counted in it has low_ns <= d
 * <= high_ns); [] when the node has none.
 */
static void add_histogram(struct jb *b, json_object *o,
			  const struct agg_node *n)
{
	json_object *a = add_arr(b, o, "histogram"), *e;
	unsigned int i;

	for (i = 0; a && n->hist && i < HIST_SLOTS && !b->err; i++) {
		if (!n->hist->slot[i])
			continue;
		e = push(b, a, json_object_new_array_ext(3));
		if (!e)
			break;
		push(b, e, json_object_new_uint64(hist_slot_low(i)));
		push(b, e, json_object_new_uint64(hist_slot_high(i)));
		push(b, e, json_object_new_uint64(n->hist->slot[i]));
	}
}

/* "below_resolution_keys": the keys of @n's statistics within their error
 * bars of 0 (report_node_res(): the table's "<res"), in the node's order */
static void add_res_keys(struct jb *b, json_object *o,
			 const struct agg_node *n)
{
	uint32_t m = report_node_res(n);
	json_object *a = add_arr(b, o, "below_resolution_keys");

	for (int s = 0; a && s < REPORT_NSTAT; s++) {
		if (m & (1u << s))
			push(b, a, json_object_new_string(report_stat_key(s)));
	}
	/* the parts of a total below resolution, as the table's columns */
	if (a && (m & (1u << REPORT_STAT_TOTAL))) {
		push(b, a, json_object_new_string("oncpu_ns"));
		push(b, a, json_object_new_string("runq_ns"));
		push(b, a, json_object_new_string("blocked_ns"));
	}
}

/* the error bars of @n's compensated times (report_node_err(); null
 * without them) and whether its average is below resolution */
static void add_errors(struct jb *b, json_object *o, const struct agg_node *n)
{
	struct report_err e;
	int known = report_node_err(n, &e);

	add_u64_if(b, o, "avg_err_ns", known, e.avg_ns);
	add_u64_if(b, o, "avg_se_ns", known, e.se_ns);
	add_u64_if(b, o, "total_err_ns", known, e.total_ns);
	add_u64_if(b, o, "self_err_ns", known, e.self_ns);
	add_u64_if(b, o, "avg_drift_ns", known, e.drift_ns);
	add(b, o, "below_resolution", json_object_new_boolean(e.below_res));
	add_res_keys(b, o, n);
}

/* the metrics of one node, in doc/json.md's order, "children" excluded;
 * @keyed: a keyed span's node, which has no on/off-CPU split (no one
 * thread's time: the fields are left out) but replaced and expired */
static void add_metrics(struct jb *b, json_object *o, const struct agg_node *n,
			int keyed)
{
	int have = n->count > 0, q = have && n->hist;
	/* a timer whose return is not seen: counted only, no times */
	int timed = have || !n->hits;
	static const struct {
		const char *key;
		double q;
	} qs[] = {
		{"p50_ns", 0.50},
		{"p90_ns", 0.90},
		{"p99_ns", 0.99},
		{"p999_ns", 0.999},
	};

	add_u64(b, o, "depth", n->depth);
	add_u64(b, o, "count", n->count + n->hits);
	add_u64_if(b, o, "total_ns", timed, n->total_ns);
	add_u64_if(b, o, "self_ns", timed, n->self_ns);
	add_u64_if(b, o, "raw_total_ns", timed, n->raw_total_ns);
	add_u64_if(b, o, "raw_self_ns", timed, n->raw_self_ns);
	add_u64(b, o, "uncertain", n->uncertain);
	add_u64(b, o, "dominated", n->dominated);
	add_u64(b, o, "clamped_ns", n->clamped_ns);
	add_u64(b, o, "runq_out_ns", n->runq_out_ns);
	add_u64_if(b, o, "wall_ns", have, n->last_stop_ns - n->first_start_ns);
	add_u64_if(b, o, "min_ns", have, n->min_ns);
	add_u64_if(b, o, "avg_ns", have, have ? n->total_ns / n->count : 0);
	add_u64_if(b, o, "max_ns", have, n->max_ns);
	add_u64_if(b, o, "stddev_ns", have, report_stddev_ns(n));
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		add_u64_if(b, o, qs[i].key, q,
			   q ? hist_quantile(n->hist, n->count, qs[i].q,
					     n->min_ns, n->max_ns)
			     : 0);
	add_errors(b, o, n);
	add_u64(b, o, "threads", n->threads);
	add_u64(b, o, "exited", n->exited);
	add_u64(b, o, "exited_ns", n->exited_ns);
	if (!keyed) {
		add_u64(b, o, "oncpu_ns", n->oncpu_ns);
		add_u64(b, o, "runq_ns", n->runq_ns);
		add_u64(b, o, "blocked_ns", n->blocked_ns);
		add_u64(b, o, "offcpu_ns", n->runq_ns + n->blocked_ns);
		add_u64(b, o, "irq_ns", n->irq_ns);
	} else {
		add_u64(b, o, "replaced", n->replaced);
		add_u64(b, o, "expired", n->expired);
	}
	add_u64(b, o, "incomplete", n->incomplete);
	add_u64(b, o, "incomplete_ns", n->incomplete_ns);
	add_u64(b, o, "unwound", n->unwound);
	add_u64(b, o, "execed", n->execed);
	add_u64(b, o, "missed_returns", n->missed_returns);
	add_u64(b, o, "discarded", n->discarded);
	add_u64(b, o, "counted_only", n->hits);
	add_histogram(b, o, n);
}

/* "stops": a node of a span of several stops, its calls per stop in the
 * order written, [{"stop": "usdt:P:N", "count": N}, ...]; no key for
 * any other node */
static void add_stops(struct jb *b, json_object *o, const struct report *r,
		      const struct agg_node *n)
{
	char names[AGG_MAX_STOPS][REPORT_STOP_BUF];
	json_object *a, *s;
	int k, ns;

	ns = report_span_stops(r, agg__base_timer(r->agg, n->timer), names,
			       AGG_MAX_STOPS);
	if (!ns || !(a = add_arr(b, o, "stops")))
		return;
	for (k = 0; k < ns; k++) {
		s = push(b, a, json_object_new_object());
		if (!s)
			return;
		add(b, s, "stop", json_object_new_string(names[k]));
		add_u64(b, s, "count", n->stops[k]);
	}
}

/* "name_mismatch": stops of a span that names its stops' calls that found
 * this path's frame named otherwise and paired with nothing; no key where
 * there were none */
static void add_namemiss(struct jb *b, json_object *o,
			 const struct agg_node *n)
{
	if (n->name_mismatch)
		add_u64(b, o, "name_mismatch", n->name_mismatch);
}

/* "slowest": the node's kept calls (--slowest; none: no key) */
static void add_slowest(struct jb *b, json_object *o, const struct report *r,
			const struct agg_node *n)
{
	int err;
	json_object *a = report_slowest_json(r, n, &err);

	if (err)
		b->err = err;
	else if (a)
		add(b, o, "slowest", a);
}

/* "offcpu": the node's blocking stacks and wakers (--offcpu-stacks) */
static void add_offcpu(struct jb *b, json_object *o, const struct report *r,
		       const struct agg_node *n)
{
	int err;
	json_object *x = report_offcpu_json(r, n, &err);

	if (err)
		b->err = err;
	else if (x)
		add(b, o, "offcpu", x);
}

/*
 * add_tree() - "tree": the shown top-level nodes, each with its shown
 * children; or with r->json_flat, "nodes": every shown node in the same
 * order (depth first, siblings by the sort), with its "id" (its index in
 * "nodes") and its parent's ("parent", null at the top) and no
 * "children".  paths[i]/kids[i] are borrowed pointers to node i's "path"
 * and "children" arrays (owned by the document), ids[i] its id; a shown
 * node's parent is shown and comes before it, so they are set when its
 * children need them.
 */
static void add_tree(struct jb *b, json_object *root, const struct report *r,
		     const struct report_view *v)
{
	json_object *tree, **paths = NULL, **kids = NULL, *o, *name, *path;
	size_t i, k, p, np, *ids = NULL, nid = 0;
	char buf[REPORT_NAME_BUF];
	int flat = r->json_flat;

	tree = add_arr(b, root, flat ? "nodes" : "tree");
	if (!tree || !v->n)
		return;
	paths = calloc(v->n, sizeof(*paths));
	kids = calloc(v->n, sizeof(*kids));
	ids = calloc(v->n, sizeof(*ids));
	if (!paths || !kids || !ids) {
		b->err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < v->n && !b->err; i++) {
		const struct agg_node *n = v->nodes[i];

		if (!v->visible[i])
			continue;
		p = v->parent[i];
		if (p != SIZE_MAX && !paths[p])
			continue; /* not reached: parents of shown are shown */
		o = push(b, flat || p == SIZE_MAX ? tree : kids[p],
			 json_object_new_object());
		if (!o)
			break;
		if (flat) {
			ids[i] = nid++;
			add_u64(b, o, "id", ids[i]);
			if (p == SIZE_MAX)
				add_null(b, o, "parent");
			else
				add_u64(b, o, "parent", ids[p]);
		}
		name = add(b, o, "name",
			   json_object_new_string(report_timer_name(
				   r, n->timer, buf, sizeof(buf))));
		add_u64(b, o, "timer", n->timer);
		/* a str() name cut at its bound (the name ends in the mark) */
		if (agg__name_cut(r->agg, n->timer))
			add(b, o, "truncated", json_object_new_boolean(1));
		path = paths[i] = add_arr(b, o, "path");
		if (!name || !path)
			break;
		/* the parent's names (shared), then this one */
		np = p == SIZE_MAX ? 0 : json_object_array_length(paths[p]);
		for (k = 0; k < np; k++)
			push(b, path,
			     json_object_get(
				     json_object_array_get_idx(paths[p], k)));
		push(b, path, json_object_get(name));
		add_metrics(b, o, n, report_keyed(r, n->timer));
		add_stops(b, o, r, n);
		add_namemiss(b, o, n);
		add_slowest(b, o, r, n);
		add_offcpu(b, o, r, n);
		if (!flat)
			kids[i] = add_arr(b, o, "children");
	}
out:
	free(paths);
	free(kids);
	free(ids);
}

/*
 * emit() - write @root as one document and a newline: pretty, or on one
 * line when @compact (NDJSON); frees @root.  Returns 0 or -errno.
 */
static int emit(FILE *f, json_object *root, int compact)
{
	const char *s;

	s = json_object_to_json_string_ext(
		root, (compact ? JSON_C_TO_STRING_PLAIN :
				 JSON_C_TO_STRING_PRETTY |
					 JSON_C_TO_STRING_SPACED) |
			      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s) {
		json_object_put(root);
		return -ENOMEM;
	}
	/* strings from argv, thread names, paths, symbols: valid UTF-8 */
	util_utf8_fwrite(f, s, strlen(s));
	fputc('\n', f);
	json_object_put(root);
	return report_finish(f);
}

/* schema_version, tool, version: the head of every document */
static json_object *new_doc(struct jb *b)
{
	json_object *root = json_object_new_object();

	if (!root)
		return NULL;
	add(b, root, "schema_version", json_object_new_int(REPORT_JSON_SCHEMA));
	add_str(b, root, "tool", "iprof");
	add_str(b, root, "version", IPROF_VERSION);
	return root;
}

int report_json(FILE *f, const struct report *r)
{
	struct report_view v;
	struct jb b = {0};
	json_object *root;
	int err;

	errno = 0;
	err = report_view_init(&v, r);
	if (err)
		return err;
	root = new_doc(&b);
	if (!root) {
		report_view_free(&v);
		return -ENOMEM;
	}
	if (r->interval) {
		add_u64(&b, root, "interval", r->interval);
		add(&b, root, "final", json_object_new_boolean(r->final != 0));
		add_str(&b, root, "interval_mode",
			r->delta ? "delta" : "cumulative");
	}
	add_run(&b, root, r);
	add_options(&b, root, r, &v);
	add_probes(&b, root, r, &v);
	add_counters(&b, root, r, &v);
	add_tree(&b, root, r, &v);
	report_view_free(&v);
	if (b.err) {
		json_object_put(root);
		return b.err;
	}
	return emit(f, root, r->interval != 0);
}

int report_json_levels(const struct report *r)
{
	struct report_view v;
	unsigned int *lvl;
	int deepest = 0;
	size_t i, p;

	if (report_view_init(&v, r))
		return -ENOMEM;
	lvl = calloc(v.n ? v.n : 1, sizeof(*lvl));
	if (!lvl) {
		report_view_free(&v);
		return -ENOMEM;
	}
	/* pre-order: a parent's level is set before its children's */
	for (i = 0; i < v.n; i++) {
		if (!v.visible[i])
			continue;
		p = v.parent[i];
		lvl[i] = p == SIZE_MAX ? 1 : lvl[p] + 1;
		if ((int)lvl[i] > deepest)
			deepest = (int)lvl[i];
	}
	free(lvl);
	report_view_free(&v);
	return deepest;
}

int report_plan_json(FILE *f, const struct report_timer *timers, uint32_t n,
		     const struct report_kernel *k)
{
	struct jb b = { 0 };
	json_object *root, *o, *a, *p;
	char buf[REPORT_NAME_BUF];
	uint32_t i;

	errno = 0;
	root = new_doc(&b);
	if (!root)
		return -ENOMEM;
	add(&b, root, "dry_run", json_object_new_boolean(1));
	o = add_obj(&b, root, "kernel");
	if (o && k) {
		if (k->fentry >= 0)
			add(&b, o, "fentry",
			    json_object_new_boolean(k->fentry != 0));
		else
			add_null(&b, o, "fentry");
		add_str(&b, o, "fentry_error", k->fentry_error);
		add(&b, o, "kprobes", json_object_new_boolean(k->kprobes != 0));
	} else if (o) {
		add_null(&b, o, "fentry");
		add_null(&b, o, "fentry_error");
		add_null(&b, o, "kprobes");
	}
	a = add_arr(&b, root, "probes");
	for (i = 0; a && i < n && !b.err; i++) {
		p = push(&b, a, json_object_new_object());
		if (!p)
			break;
		if (!timers[i].name)
			snprintf(buf, sizeof(buf), "#%" PRIu32, i);
		add_probe(&b, p, i, timers[i].name ? timers[i].name : buf,
			  &timers[i]);
		add(&b, p, "entry_only",
		    json_object_new_boolean(timers[i].entry_only != 0));
		if (timers[i].uretprobe_why)
			add(&b, p, "uretprobe_why",
			    json_object_new_string(timers[i].uretprobe_why));
		else
			add_null(&b, p, "uretprobe_why");
	}
	if (b.err) {
		json_object_put(root);
		return b.err;
	}
	return emit(f, root, 0);
}
