/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format pprof: the call tree as a gzipped pprof profile
 * (src/report/profile.proto; github.com/google/pprof's proto/profile.proto
 * and doc/README.md), what `go tool pprof`, Pyroscope, Parca and Grafana
 * read.  One sample per shown path, its locations the path's timers leaf
 * first (one function and one location per name), its values the node's
 * own, exclusive ones:
 *   calls/count        the node's calls
 *   time/nanoseconds   self time: pprof's flat is iprof's self, its cum
 *                      (the sum over the samples under a frame) the total
 *   on_cpu/nanoseconds, off_cpu/nanoseconds  the same split by CPU state
 * A hidden node's times go to its nearest shown ancestor, as in folded
 * stacks (its calls do not: they are another function's).  Encoded by protobuf-c, compressed by zlib.
 */
#include <errno.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "profile.pb-c.h"

enum { V_CALLS, V_TIME, V_ONCPU, V_OFFCPU, NV };

static const char *const vtype[NV][2] = {
	[V_CALLS] = { "calls", "count" },
	[V_TIME] = { "time", "nanoseconds" },
	[V_ONCPU] = { "on_cpu", "nanoseconds" },
	[V_OFFCPU] = { "off_cpu", "nanoseconds" },
};

/* the profile being built: strings and functions deduplicated by name */
struct pp {
	Perftools__Profiles__Profile p;
	Perftools__Profiles__ValueType vt[NV], *vtp[NV], period;
	struct hsearch_data names; /* name -> function id (1-based) */
	char **strs;
	size_t nstrs, cap;
};

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* index of a new string @s in the table (owned copy), or -1 */
static int64_t str_add(struct pp *pp, const char *s)
{
	char **v;

	if (pp->nstrs == pp->cap) {
		pp->cap = pp->cap ? 2 * pp->cap : 64;
		v = realloc(pp->strs, pp->cap * sizeof(*v));
		if (!v)
			return -1;
		pp->strs = v;
	}
	if (!(pp->strs[pp->nstrs] = strdup(s)))
		return -1;
	return (int64_t)pp->nstrs++;
}

/* the function (and location) id of @name, added on first sight; 0 if
 * out of memory */
static uint64_t func_of(struct pp *pp, const char *name)
{
	Perftools__Profiles__Profile *p = &pp->p;
	Perftools__Profiles__Function *fn, **fv;
	Perftools__Profiles__Location *loc, **lv;
	Perftools__Profiles__Line *line;
	ENTRY e = { .key = (char *)name }, *found;
	int64_t s;

	if (hsearch_r(e, FIND, &found, &pp->names))
		return (uint64_t)(uintptr_t)found->data;
	s = str_add(pp, name);
	fv = realloc(p->function, (p->n_function + 1) * sizeof(*fv));
	if (fv)
		p->function = fv;
	lv = realloc(p->location, (p->n_location + 1) * sizeof(*lv));
	if (lv)
		p->location = lv;
	fn = calloc(1, sizeof(*fn));
	loc = calloc(1, sizeof(*loc));
	line = calloc(1, sizeof(*line));
	if (s < 0 || !fv || !lv || !fn || !loc || !line) {
		free(fn);
		free(loc);
		free(line);
		return 0;
	}
	perftools__profiles__function__init(fn);
	perftools__profiles__location__init(loc);
	perftools__profiles__line__init(line);
	fn->id = p->n_function + 1;
	fn->name = fn->system_name = s;
	line->function_id = fn->id;
	loc->id = fn->id;
	loc->n_line = 1;
	loc->line = malloc(sizeof(*loc->line));
	if (!loc->line) {
		free(fn);
		free(loc);
		free(line);
		return 0;
	}
	loc->line[0] = line;
	p->function[p->n_function++] = fn;
	p->location[p->n_location++] = loc;
	/* the key: the string table's copy, which outlives the table */
	e.key = pp->strs[s];
	e.data = (void *)(uintptr_t)fn->id;
	if (!hsearch_r(e, ENTER, &found, &pp->names))
		return 0;
	return fn->id;
}

/* the node's own values (V_*); a keyed span (@keyed) has its calls only:
 * its time is not its thread's, whose own time already holds it, so a
 * flame graph would count it twice */
static void own_values(const struct agg_node *n, int64_t *v, int keyed)
{
	uint64_t on = 0, off = 0;

	for (const struct agg_node *c = n->child; c; c = c->next) {
		on += c->oncpu_ns;
		off += c->runq_ns + c->blocked_ns;
	}
	v[V_CALLS] = (int64_t)(n->count + n->hits); /* untimed: calls */
	v[V_TIME] = keyed ? 0 : (int64_t)n->self_ns;
	v[V_ONCPU] = (int64_t)sub0(n->oncpu_ns, on);
	v[V_OFFCPU] = (int64_t)sub0(n->runq_ns + n->blocked_ns, off);
}

/* one sample for shown node @i with values @val: its path leaf first */
static int add_sample(struct pp *pp, const struct report *r,
		      const struct report_view *v, size_t i, const int64_t *val)
{
	Perftools__Profiles__Profile *p = &pp->p;
	Perftools__Profiles__Sample *s, **sv;
	char buf[REPORT_NAME_BUF];
	size_t d = 0, j;

	for (j = i; j != SIZE_MAX; j = v->parent[j])
		d++;
	sv = realloc(p->sample, (p->n_sample + 1) * sizeof(*sv));
	if (!sv)
		return -ENOMEM;
	p->sample = sv;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	perftools__profiles__sample__init(s);
	s->location_id = calloc(d, sizeof(*s->location_id));
	s->value = malloc(NV * sizeof(*s->value));
	p->sample[p->n_sample++] = s;
	if (!s->location_id || !s->value)
		return -ENOMEM;
	for (j = i; j != SIZE_MAX; j = v->parent[j]) {
		uint64_t id = func_of(pp, report_timer_name(
			r, v->nodes[j]->timer, buf, sizeof(buf)));

		if (!id)
			return -ENOMEM;
		s->location_id[s->n_location_id++] = id;
	}
	memcpy(s->value, val, NV * sizeof(*s->value));
	s->n_value = NV;
	return 0;
}

/* the sample types and the run's time */
static int add_header(struct pp *pp, const struct report *r)
{
	Perftools__Profiles__Profile *p = &pp->p;
	int64_t a, b;
	int k;

	if (str_add(pp, "") != 0)
		return -ENOMEM;
	for (k = 0; k < NV; k++) {
		perftools__profiles__value_type__init(&pp->vt[k]);
		a = str_add(pp, vtype[k][0]);
		b = str_add(pp, vtype[k][1]);
		if (a < 0 || b < 0)
			return -ENOMEM;
		pp->vt[k].type = a;
		pp->vt[k].unit = b;
		pp->vtp[k] = &pp->vt[k];
	}
	pp->period = pp->vt[V_TIME];
	p->sample_type = pp->vtp;
	p->n_sample_type = NV;
	p->period_type = &pp->period;
	p->period = 1;
	p->default_sample_type = pp->vt[V_TIME].type;
	p->time_nanos = (int64_t)r->start_realtime_ns;
	p->duration_nanos = (int64_t)r->duration_ns;
	return 0;
}

/* gzip @len bytes of @buf to @f: 0 or -EIO */
static int write_gz(FILE *f, const uint8_t *buf, size_t len)
{
	z_stream z = { 0 };
	uint8_t out[16384];
	int zr, err = 0;

	/* windowBits 15 + 16: a gzip header and trailer (zlib.h) */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR ||
		    fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
			    sizeof(out) - z.avail_out) {
			err = -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

static void pp_free(struct pp *pp)
{
	Perftools__Profiles__Profile *p = &pp->p;
	size_t i;

	for (i = 0; i < p->n_sample; i++) {
		free(p->sample[i]->location_id);
		free(p->sample[i]->value);
		free(p->sample[i]);
	}
	for (i = 0; i < p->n_location; i++) {
		free(p->location[i]->line[0]);
		free(p->location[i]->line);
		free(p->location[i]);
	}
	for (i = 0; i < p->n_function; i++)
		free(p->function[i]);
	free(p->sample);
	free(p->location);
	free(p->function);
	for (i = 0; i < pp->nstrs; i++)
		free(pp->strs[i]);
	free(pp->strs);
	hdestroy_r(&pp->names);
}

/* the samples of view @v: hidden nodes' values climb to a shown one */
static int add_samples(struct pp *pp, const struct report *r,
		       const struct report_view *v)
{
	int64_t (*val)[NV] = v->n ? calloc(v->n, sizeof(*val)) : NULL;
	size_t i, p;
	int err = 0, k;

	if (v->n && !val)
		return -ENOMEM;
	for (i = 0; i < v->n; i++)
		own_values(v->nodes[i], val[i],
			   report_keyed(r, v->nodes[i]->timer));
	/* times climb; calls do not: they are the shown node's own */
	for (i = v->n; i-- > 0;) {
		p = v->parent[i];
		if (!v->visible[i] && p != SIZE_MAX)
			for (k = V_TIME; k < NV; k++)
				val[p][k] += val[i][k];
	}
	for (i = 0; i < v->n && !err; i++)
		if (v->visible[i] && (val[i][V_CALLS] || val[i][V_TIME]))
			err = add_sample(pp, r, v, i, val[i]);
	free(val);
	return err;
}

int report_pprof(FILE *f, const struct report *r)
{
	struct pp pp = { .p = PERFTOOLS__PROFILES__PROFILE__INIT };
	struct report_view v;
	uint8_t *buf = NULL;
	size_t len;
	int err;

	err = report_view_init(&v, r);
	if (err)
		return err;
	if (!hcreate_r(v.n + 64, &pp.names)) {
		report_view_free(&v);
		return -ENOMEM;
	}
	err = add_header(&pp, r);
	err = err ?: add_samples(&pp, r, &v);
	if (!err) {
		pp.p.string_table = pp.strs;
		pp.p.n_string_table = pp.nstrs;
		len = perftools__profiles__profile__get_packed_size(&pp.p);
		buf = malloc(len ? len : 1);
		if (!buf)
			err = -ENOMEM;
		else
			perftools__profiles__profile__pack(&pp.p, buf);
	}
	err = err ?: write_gz(f, buf, len);
	pp.p.string_table = NULL;
	free(buf);
	pp_free(&pp);
	report_view_free(&v);
	if (!err && fflush(f))
		err = -errno;
	return err;
}
