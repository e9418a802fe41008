// SPDX-License-Identifier: GPL-2.0-only
/*
 * iprof diff [OPTIONS] A B: two runs compared path by path.  A and B are
 * JSON reports (iprof -f json, NDJSON of --interval: the last document)
 * or recordings (reported as JSON first, with --by, --from and --to).
 * For each path: count, total, avg, p50 and p99 of A and of B, the
 * change, and whether it is beyond the noise of both (src/core/noise.c);
 * largest change of total time first; paths in one run only are listed
 * as such.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "iprof/noise.h"
#include "iprof/rec.h"
#include "iprof/output.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "iprof/util.h"
#include "cli/cmd.h"
#include "cli/replay.h"
#include "cli/log.h"
#include "cli/report_opts.h"

/* inputs larger than this are refused, bytes */
#define DIFF_MAX_INPUT (1ull << 30)
/* first read buffer (doubled up to DIFF_MAX_INPUT) */
#define DIFF_READ_CHUNK 65536u
/* nesting of a report's tree: iprof's own are at most IPROF_MAX_DEPTH
 * deep (include/iprof/abi.h); deeper is no report of iprof's */
#define DIFF_MAX_NESTING 200

struct dstat {
	uint64_t count, total_ns, avg_ns, p50_ns, p99_ns;
	double err_ns;	 /* avg_err_ns (the mean's error bar); 0: none */
	double drift_ns; /* avg_drift_ns (the calibration's bias in one
			  * call, of err_ns); -1: not given */
	uint64_t inside; /* calls of the timers below, summed (set_inside()) */
	struct noise_slot *hist; /* "histogram", owned; NULL: not given */
	size_t nhist;
	/* the report's below_resolution_keys among avg_ns, p50_ns, p99_ns
	 * (RES_AVG...); -1: the report gives none (before issue 45) */
	int res;
};

enum { RES_AVG = 1, RES_P50 = 2, RES_P99 = 4 };

/* @o's below_resolution_keys as RES_* bits, -1 where it has none */
static int res_keys(json_object *o)
{
	static const char *const keys[] = { "avg_ns", "p50_ns", "p99_ns" };
	json_object *a;
	size_t i, k;
	int m = 0;

	if (!json_object_object_get_ex(o, "below_resolution_keys", &a) ||
	    !json_object_is_type(a, json_type_array))
		return -1;
	for (i = 0; i < json_object_array_length(a); i++) {
		const char *v =
			json_object_get_string(json_object_array_get_idx(a, i));

		for (k = 0; v && k < 3; k++)
			if (!strcmp(v, keys[k]))
				m |= 1 << k;
	}
	return m;
}

struct dpath {
	char *key;	   /* names joined by " > " */
	json_object *path; /* borrowed from the document */
	int have_a, have_b;
	struct dstat a, b;
	struct noise_result nr; /* judge(): the change per call */
};

struct dset {
	struct dpath *p; /* grown by util_grow() */
	size_t n;
	char why[512];	   /* collect()'s reason for -EINVAL, or "" */
	double cost_ns[2]; /* A's and B's probe cost per timed call */
	size_t judged[NOISE_NONE + 1]; /* paths per verdict */
};

#define REQ required_argument
#define RW report_opts_words
#define NOT OPTAB_REFUSED

/* the options of iprof diff (parsed by replay_parse(), as iprof
 * report's: those that shape a report are refused, args_ok()) */
/* clang-format off */
static const struct optdef diff_rows[] = {
	OPT("format", 'f', REQ, "FMT", "table (default) or json", .words = RW),
	OPT("output", 'o', REQ, "FILE", "write to FILE instead of stdout"),
	OPT("sort", RO_SORT, REQ, "KEY", NULL, .words = RW, .flags = NOT),
	OPT("min-total", RO_MIN_TOTAL, REQ, "TIME", NULL, .flags = NOT),
	OPT("max-depth", RO_MAX_DEPTH, REQ, "N", NULL, .flags = NOT),
	OPT("columns", RO_COLUMNS, REQ, "LIST", NULL, .words = RW, .flags = NOT),
	OPT("json-tree", RO_JSON_TREE, REQ, "SHAPE", NULL, .words = RW, .flags = NOT),
	OPT("weight", RO_WEIGHT, REQ, "W", NULL, .words = RW, .flags = OPTAB_NOHELP),
	OPTAB_LINE("      --by KEY, --from TIME, --to TIME   for recordings, as 'iprof report'"),
	OPT("by", RO_BY, REQ, "KEY", NULL, .words = RW, .flags = OPTAB_NOHELP),
	OPT("max-paths", RO_MAX_PATHS, REQ, "N", NULL, .flags = OPTAB_NOHELP),
	OPT("max-keys", RO_MAX_KEYS, REQ, "N", NULL, .flags = OPTAB_NOHELP),
	OPT("no-compensate", RO_NO_COMPENSATE, no_argument, NULL, "recordings' raw times (a compensated JSON report\n"
	  "stays as it was written)"),
	OPT("from", RO_FROM, REQ, "TIME", NULL, .flags = OPTAB_NOHELP),
	OPT("to", RO_TO, REQ, "TIME", NULL, .flags = OPTAB_NOHELP),
	OPT("quiet", 'q', no_argument, NULL, "no notes on stderr"),
	OPT("help", 'h', no_argument, NULL, NULL, .flags = OPTAB_NOHELP),
	{ 0 },
};
/* clang-format on */

#undef REQ
#undef RW
#undef NOT

const struct optab_cmd diff_cmd_opts = {
	.head = "Usage: iprof diff [OPTIONS] A B\n"
		"\n"
		"Compares two runs path by path: A and B are JSON reports ('iprof -f json')\n"
		"or recordings ('iprof record'); '-' reads one of them from stdin.\n"
		"\n",
	.rows = diff_rows,
	.foot = "\n"
		"Per path: count, total, avg, p50 and p99 in A and in B and the change\n"
		"(B - A), ordered by the largest change of total time; paths only in A\n"
		"or only in B are marked.  sig: yes, the time per call changed beyond the\n"
		"noise of both runs (Mann-Whitney p < 0.001 on the histograms, and the\n"
		"median moved 10% and more than the probes' drift: doc/recording.md);\n"
		"small, beyond the histograms' noise but a smaller move; no, within it;\n"
		"? not judged (no histograms).  Exit status: 0, 1 write error, 2 bad input,\n"
		"3 compared, but a recording was cut before its trailer, or its run\n"
		"had timers not attached or lost calls.\n",
	.col = 24,
};

/* the whole of @f, NUL-terminated, in *@buf (*@len bytes); 0 or -errno */
static int slurp(FILE *f, const char *name, char **buf, size_t *len)
{
	size_t cap = DIFF_READ_CHUNK, n = 0, got;
	char *b = malloc(cap), *nb;

	if (!b)
		return -ENOMEM;
	while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			if (cap >= DIFF_MAX_INPUT) {
				log_cmd(LOG_LVL_ERROR, "diff",
					"%s: larger than %llu "
					"bytes",
					name, DIFF_MAX_INPUT);
				free(b);
				return -EFBIG;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		log_cmd(LOG_LVL_ERROR, "diff", "%s: read error", name);
		free(b);
		return -EIO;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* Is @doc a line of an --interval-mode delta stream (doc/json.md)? */
static int delta_stream(json_object *doc)
{
	json_object *m;

	return json_object_object_get_ex(doc, "interval_mode", &m) && m &&
	       json_object_is_type(m, json_type_string) &&
	       !strcmp(json_object_get_string(m), "delta");
}

/*
 * The report of @name as a JSON document (a recording is reported first);
 * the last document of NDJSON (not of a delta stream: refused).  NULL with
 * a message.  *@partial: 1 when
 * @name is a recording cut before its trailer (said on stderr) or whose
 * run was incomplete (replay_report()).
 */
static json_object *load(const char *name, const struct replay_opts *ro,
			 int *partial)
{
	json_object *doc = NULL, *o;
	struct json_tokener *tok = NULL;
	char *buf = NULL, *json = NULL;
	size_t len = 0, jlen = 0, off = 0;
	FILE *in = replay_open(name), *mem;

	if (!in)
		return NULL;
	if (slurp(in, name, &buf, &len))
		goto out;
	if (len >= 8 && !memcmp(buf, REC_MAGIC, 8)) {
		struct replay_opts jo = *ro;
		int part, ret;

		jo.r.fmt = REPORT_FMT_JSON;
		jo.quiet = 1;
		mem = fmemopen(buf, len, "r");
		FILE *js = open_memstream(&json, &jlen);

		if (!mem || !js) {
			if (mem)
				fclose(mem);
			if (js)
				fclose(js);
			goto out;
		}
		ret = replay_report(mem, name, &jo, js, &part);
		fclose(mem);
		fclose(js);
		if (ret || (part & REPLAY_CORRUPT)) /* said: refused */
			goto out;
		if (part)
			*partial = 1;
		if (part & REPLAY_CUT) {
			log_cmd(LOG_LVL_WARN, "diff",
				"warning: %s: the recording ends without its trailer (cut, or the run was killed): compared as far as it goes",
				name);
		}
		free(buf);
		buf = json;
		len = jlen;
		json = NULL;
	} else if (ro->from_ns || ro->to_ns || ro->r.by) {
		/* a report is what it is: no window, no other split */
		log_cmd(LOG_LVL_ERROR, "diff",
			"%s: a JSON report: --from, --to and --by apply to recordings (iprof record -o FILE)",
			name);
		goto out;
	}
	if (len >= 5 && !strncmp(buf, "NAME ", 5)) {
		/* the table's header line: not "offset 2: not JSON" */
		log_cmd(LOG_LVL_ERROR, "diff",
			"%s: a table report, not JSON or a recording: write it with -f json (or iprof record -o FILE)",
			name);
		goto out;
	}
	tok = json_tokener_new_ex(1024);
	if (!tok)
		goto out;
	while (off < len) {
		while (off < len && strchr(" \t\r\n", buf[off]))
			off++;
		if (off == len)
			break;
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, buf + off, (int)(len - off));
		if (!o || json_tokener_get_error(tok) != json_tokener_success ||
		    !json_object_is_type(o, json_type_object)) {
			enum json_tokener_error e = json_tokener_get_error(tok);

			/* json-c's words for a cut document ("continue") or
			 * valid JSON that is no object ("success") say
			 * nothing: say what is wrong */
			log_cmd(LOG_LVL_ERROR, "diff",
				"%s: offset %zu: not a JSON report (%s)%s",
				name,
				/* where the value starts, or where the
				 * parser stopped */
				off + (e == json_tokener_success ?
					       0 : (size_t)tok->char_offset),
				e == json_tokener_continue ?
					"the file ends inside a JSON value" :
				e == json_tokener_success ?
					"a JSON value that is no object" :
					json_tokener_error_desc(e),
				/* at the start: no report at all */
				off == 0 && !o ?
					"; iprof diff takes a report of -f json or a recording of iprof record" :
					"");
			json_object_put(o);
			json_object_put(doc);
			doc = NULL;
			goto out;
		}
		json_object_put(doc);
		doc = o; /* NDJSON: the last one is the final report */
		off += (size_t)tok->char_offset;
	}
	if (!doc)
		log_cmd(LOG_LVL_ERROR, "diff", "%s: empty", name);
	if (doc && delta_stream(doc)) {
		log_cmd(LOG_LVL_ERROR, "diff",
			"%s: an --interval-mode delta stream: its last line covers the last interval only; diff compares whole runs (a cumulative stream, a report or a recording)",
			name);
		json_object_put(doc);
		doc = NULL;
	}
out:
	if (tok) /* json-c 0.16's json_tokener_free() takes no NULL */
		json_tokener_free(tok);
	free(buf);
	free(json);
	if (in != stdin)
		fclose(in);
	return doc;
}

/*
 * Member @k of node @o (path @key) in *@out: 0 when absent (an older
 * report) or null (no call completed there: avg_ns, p50_ns, p99_ns of a
 * --by root or a path of incomplete calls); a value that is no count
 * (negative, fractional, a string) is -EINVAL with the reason in @s->why.
 */
static int num(struct dset *s, json_object *o, const char *key,
	       const char *k, uint64_t *out)
{
	json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(o, k, &v) || !v)
		return 0; /* json-c: a null member is a NULL object */
	if (!json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0) {
		snprintf(s->why, sizeof(s->why),
			 "node '%s': \"%s\" is %s, not a count", key, k,
			 json_object_to_json_string(v));
		return -EINVAL;
	}
	*out = json_object_get_uint64(v);
	return 0;
}

/*
 * Member @k of node @o (path @key) as ns in *@out: 1; 0 when absent or
 * null (not known: *@out is @none); -EINVAL (reason in @s->why) when no
 * number >= 0.
 */
static int opt_ns(struct dset *s, json_object *o, const char *key,
		  const char *k, double none, double *out)
{
	json_object *v;

	*out = none;
	if (!json_object_object_get_ex(o, k, &v) || !v)
		return 0;
	if ((!json_object_is_type(v, json_type_int) &&
	     !json_object_is_type(v, json_type_double)) ||
	    json_object_get_double(v) < 0) {
		snprintf(s->why, sizeof(s->why),
			 "node '%s': \"%s\" is %s, not a time", key, k,
			 json_object_to_json_string(v));
		return -EINVAL;
	}
	*out = json_object_get_double(v);
	return 1;
}

/* an element of a histogram slot [low_ns, high_ns, count]: a count */
static int slot_num(json_object *e, size_t i, uint64_t *out)
{
	json_object *v = json_object_array_get_idx(e, i);

	if (!v || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return -EINVAL;
	*out = json_object_get_uint64(v);
	return 0;
}

/*
 * Node @o's "histogram" (doc/json.md: [low_ns, high_ns, count] slots,
 * ascending) in @st->hist (allocated) and @st->nhist; none when absent
 * (an older report).  0, -ENOMEM, or -EINVAL with the reason in @s->why.
 */
static int read_hist(struct dset *s, json_object *o, const char *key,
		     struct dstat *st)
{
	json_object *h, *e;
	size_t i, n;

	if (!json_object_object_get_ex(o, "histogram", &h) || !h)
		return 0;
	n = json_object_is_type(h, json_type_array) ?
		    json_object_array_length(h) : 0;
	st->hist = calloc(n ? n : 1, sizeof(*st->hist));
	if (!st->hist)
		return -ENOMEM;
	for (i = 0; json_object_is_type(h, json_type_array) && i < n; i++) {
		e = json_object_array_get_idx(h, i);
		if (!json_object_is_type(e, json_type_array) ||
		    json_object_array_length(e) != 3 ||
		    slot_num(e, 0, &st->hist[i].low_ns) ||
		    slot_num(e, 2, &st->hist[i].count) ||
		    (i && st->hist[i].low_ns <= st->hist[i - 1].low_ns))
			break;
	}
	st->nhist = i;
	if (i == n && json_object_is_type(h, json_type_array))
		return 0;
	snprintf(s->why, sizeof(s->why),
		 "node '%s': \"histogram\" is no ascending list of [low_ns, high_ns, count]",
		 key);
	return -EINVAL;
}

static struct dpath *find(struct dset *s, const char *key)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->p[i].key, key))
			return &s->p[i];
	return NULL;
}

/* add @nodes (a "tree" or "children" array) and their children */
static int collect(struct dset *s, json_object *nodes, int b, int depth)
{
	size_t i, k, n;

	if (!nodes || !json_object_is_type(nodes, json_type_array))
		return 0;
	if (depth > DIFF_MAX_NESTING)
		return -EINVAL;
	n = json_object_array_length(nodes);
	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(nodes, i), *path,
			    *kids;
		struct dstat st = { 0 };
		struct dpath *p;
		char *key = NULL;
		size_t klen = 0;
		FILE *m;

		if (!json_object_object_get_ex(o, "path", &path) ||
		    !json_object_is_type(path, json_type_array))
			return -EINVAL;
		m = open_memstream(&key, &klen);
		if (!m)
			return -ENOMEM;
		for (k = 0; k < json_object_array_length(path); k++)
			fprintf(m, "%s%s", k ? " > " : "",
				json_object_get_string(
					json_object_array_get_idx(path, k)));
		if (fclose(m))
			return -ENOMEM;
		if (num(s, o, key, "count", &st.count) ||
		    num(s, o, key, "total_ns", &st.total_ns) ||
		    num(s, o, key, "avg_ns", &st.avg_ns) ||
		    num(s, o, key, "p50_ns", &st.p50_ns) ||
		    num(s, o, key, "p99_ns", &st.p99_ns) ||
		    opt_ns(s, o, key, "avg_err_ns", 0.0, &st.err_ns) < 0 ||
		    opt_ns(s, o, key, "avg_drift_ns", -1.0, &st.drift_ns) < 0 ||
		    read_hist(s, o, key, &st)) {
			free(key);
			free(st.hist);
			return -EINVAL;
		}
		st.res = res_keys(o);
		p = find(s, key);
		if (!p) {
			if (util_grow(&s->p, s->n, sizeof(*s->p))) {
				free(key);
				return -ENOMEM;
			}
			p = &s->p[s->n++];
			memset(p, 0, sizeof(*p));
			p->key = key;
			p->path = path;
		} else {
			free(key);
		}
		if (b) {
			p->have_b = 1;
			free(p->b.hist);
			p->b = st;
		} else {
			p->have_a = 1;
			free(p->a.hist);
			p->a = st;
		}
		kids = NULL;
		json_object_object_get_ex(o, "children", &kids);
		if (kids && !json_object_is_type(kids, json_type_array)) {
			snprintf(s->why, sizeof(s->why),
				 "node '%s': \"children\" is no array",
				 p->key);
			return -EINVAL;
		}
		if (collect(s, kids, b, depth + 1))
			return -EINVAL; /* s->why says why */
	}
	return 0;
}

/* a key's prefix (an ancestor's key), for bsearch() over keys */
struct dprefix {
	const char *s;
	size_t n;
};

static int by_key(const void *x, const void *y)
{
	return strcmp((*(struct dpath *const *)x)->key,
		      (*(struct dpath *const *)y)->key);
}

static int prefix_cmp(const void *k, const void *e)
{
	const struct dprefix *p = k;
	const char *key = (*(struct dpath *const *)e)->key;
	int c = strncmp(p->s, key, p->n);

	return c ? c : key[p->n] ? -1 : 0;
}

/* longer keys first: a path's key is longer than its parent's */
static int by_len_desc(const void *x, const void *y)
{
	size_t a = strlen((*(struct dpath *const *)x)->key),
	       b = strlen((*(struct dpath *const *)y)->key);

	return a < b ? 1 : a > b ? -1 : 0;
}

/*
 * Each path's calls of the timers below it, per side (dstat.inside): each
 * path's parent (its key less the last name: both report shapes hold every
 * ancestor) found once, then the sums carried up, the deepest paths first.
 * 0 or -ENOMEM.
 */
static int set_inside(struct dset *s)
{
	struct dpath **v = calloc(s->n ? s->n : 1, sizeof(*v)),
		     **up = calloc(s->n ? s->n : 1, sizeof(*up));
	size_t i;

	if (!v || !up) {
		free(v);
		free(up);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++)
		v[i] = &s->p[i];
	qsort(v, s->n, sizeof(*v), by_key);
	for (i = 0; i < s->n; i++) {
		const char *c = s->p[i].key, *last = NULL;
		struct dprefix k = {s->p[i].key, 0};
		struct dpath **anc;

		while ((c = strstr(c, " > ")))
			last = c++;
		if (!last)
			continue;
		k.n = (size_t)(last - s->p[i].key);
		anc = bsearch(&k, v, s->n, sizeof(*v), prefix_cmp);
		up[i] = anc ? *anc : NULL;
	}
	/* v again: the paths, deepest first; up[] by their index in s->p */
	qsort(v, s->n, sizeof(*v), by_len_desc);
	for (i = 0; i < s->n; i++) {
		const struct dpath *p = v[i];
		struct dpath *par = up[p - s->p];

		if (!par)
			continue;
		par->a.inside += p->a.inside + (p->have_a ? p->a.count : 0);
		par->b.inside += p->b.inside + (p->have_b ? p->b.count : 0);
	}
	free(v);
	free(up);
	return 0;
}

/* member @k of calibration mechanism @e, else @alt, ns; 0 if neither */
static double mech_ns(json_object *e, const char *k, const char *alt)
{
	json_object *v;

	if ((json_object_object_get_ex(e, k, &v) && v) ||
	    (json_object_object_get_ex(e, alt, &v) && v))
		return json_object_get_double(v);
	return 0.0;
}

/* The probes' mean cost of one timed call (in + out, ns) of report @d's
 * costliest measured mechanism (doc/json.md, calibration); 0 without. */
static double pair_cost(json_object *d)
{
	json_object *c, *m, *e, *v;
	double best = 0.0, x;
	size_t i;

	if (!json_object_object_get_ex(d, "calibration", &c) || !c ||
	    !json_object_object_get_ex(c, "mechanisms", &m) ||
	    !json_object_is_type(m, json_type_array))
		return 0.0;
	for (i = 0; i < json_object_array_length(m); i++) {
		e = json_object_array_get_idx(m, i);
		if (json_object_object_get_ex(e, "measured", &v) &&
		    !json_object_get_boolean(v))
			continue;
		x = mech_ns(e, "in_mean_ns", "in_ns") +
		    mech_ns(e, "out_mean_ns", "out_ns");
		best = x > best ? x : best;
	}
	return best;
}

/*
 * A path's side as the noise test reads it: its error bar the
 * calibration's bias in one call (avg_drift_ns: each class's drift times
 * the probes inside a call, which moves the median as it moves the
 * average), else, in a report without it, the average's (avg_err_ns).
 */
static struct noise_side side_of(const struct dstat *st, int have)
{
	return (struct noise_side){
		.count = have ? st->count : 0,
		.p50_ns = (double)st->p50_ns,
		.hist = st->hist,
		.nhist = st->nhist,
		.err_ns = st->drift_ns >= 0 ? st->drift_ns : st->err_ns,
	};
}

/* timed calls per call of a path: its own and those below it */
static double timers_per_call(const struct dstat *st)
{
	return st->count ? 1.0 + (double)st->inside / (double)st->count : 1.0;
}

/*
 * Every path's change per call judged (noise_test()): beyond the noise of
 * both sides' histograms, and the median moved at least NOISE_MIN_REL of
 * A's, beyond both sides' error bars (side_of(): each run's calibration
 * bias in one call) and, where a side gives none, NOISE_CALIB_DRIFT
 * of the probes' cost inside one call (the calibration may be that far
 * off), and always by more than the two calibrations differ over the
 * probes inside one call (each side's times lost its own).
 */
static void judge(struct dset *s)
{
	size_t i;

	memset(s->judged, 0, sizeof(s->judged));
	for (i = 0; i < s->n; i++) {
		struct dpath *p = &s->p[i];
		struct noise_side a = side_of(&p->a, p->have_a),
				  b = side_of(&p->b, p->have_b);
		struct noise_opts o = {NOISE_ALPHA, NOISE_MIN_REL, 0.0};


		double tpc = fmax(timers_per_call(&p->a),
				  timers_per_call(&p->b));

		if (!(a.err_ns > 0 && b.err_ns > 0))
			o.min_abs_ns =
				NOISE_CALIB_DRIFT *
				fmax(s->cost_ns[0] * timers_per_call(&p->a),
				     s->cost_ns[1] * timers_per_call(&p->b));
		/* the two runs' calibrations differ: that much of the
		 * shift is the compensation's, not the program's (two
		 * runs of perl: 4.6 us a call, all of a +244% "change") */
		o.min_abs_ns = fmax(o.min_abs_ns,
				    fabs(s->cost_ns[0] - s->cost_ns[1]) * tpc);
		s->judged[noise_test(&a, &b, &o, &p->nr)]++;
	}
}

static int64_t delta(uint64_t a, uint64_t b)
{
	return (int64_t)(b - a);
}

static uint64_t mag(const struct dpath *p)
{
	int64_t d = delta(p->a.total_ns, p->b.total_ns);

	return d < 0 ? (uint64_t)-d : (uint64_t)d;
}

static int by_change(const void *x, const void *y)
{
	const struct dpath *a = x, *b = y;
	uint64_t ma = mag(a), mb = mag(b);

	if (ma != mb)
		return ma < mb ? 1 : -1;
	return strcmp(a->key, b->key);
}

/* "+1.25ms", "-812ns", "0" */
static const char *fmt_delta(char *buf, size_t len, int64_t d)
{
	char t[24];

	if (!d)
		return "0";
	report_ns_str(t, sizeof(t), d < 0 ? (uint64_t)-d : (uint64_t)d);
	snprintf(buf, len, "%c%s", d < 0 ? '-' : '+', t);
	return buf;
}

/* the change of a total @a to @b in %; @in_a: the path has calls in A
 * (a total compensated to 0 is no new path: "from 0") */
static const char *fmt_pct(char *buf, size_t len, int in_a, uint64_t a,
			   uint64_t b)
{
	if (!a)
		return !b ? "0%" : in_a ? "from 0" : "new";
	snprintf(buf, len, "%+.1f%%",
		 ((double)b - (double)a) * 100.0 / (double)a);
	return buf;
}

/* the table's "sig" column: the mean per call changed beyond noise */
static const char *sig_word(enum noise_verdict v)
{
	switch (v) {
	case NOISE_BEYOND:
		return "yes";
	case NOISE_SMALL: /* the summary counts them: the rows say which */
		return "small";
	case NOISE_WITHIN:
		return "no";
	case NOISE_UNKNOWN:
		return "?";
	case NOISE_NONE:
	default:
		return "-";
	}
}

/* the table's last line: how many paths changed beyond noise */
static void summary(FILE *f, const struct dset *s)
{
	const size_t *j = s->judged;

	fprintf(f,
		"%zu of %zu paths in both changed beyond noise (Mann-Whitney p < %g on the histograms, the median moved %g%% at least)",
		j[NOISE_BEYOND],
		j[NOISE_BEYOND] + j[NOISE_WITHIN] + j[NOISE_SMALL] +
			j[NOISE_UNKNOWN],
		NOISE_ALPHA, NOISE_MIN_REL * 100.0);
	if (j[NOISE_SMALL])
		fprintf(f,
			"; %zu beyond sampling noise but smaller (sig 'small')",
			j[NOISE_SMALL]);
	if (j[NOISE_UNKNOWN])
		fprintf(f,
			"; %zu not judged: no spread known (a report without histograms, or too few calls)",
			j[NOISE_UNKNOWN]);
	fprintf(f, "\n");
}

/* a per-call statistic @v (@bit: RES_AVG, _P50, _P99) of side @st: "-"
 * without calls, "<res" where the report says it is below resolution
 * (its below_resolution_keys: report_node_res(), so diff marks what
 * iprof report marks; a report without them: within avg_err_ns of 0),
 * else the time */
static const char *per_call(char *buf, size_t len, const struct dstat *st,
			    uint64_t v, int bit)
{
	if (!st->count)
		return "-";
	if (st->res >= 0 ? (st->res & bit) :
			   st->err_ns > 0 && (double)v < st->err_ns)
		return "<res";
	return report_ns_str(buf, len, v);
}

static void table(FILE *f, const struct dset *s, const char *an, const char *bn)
{
	char b[8][40];
	size_t i;

	fprintf(f, "A: %s\nB: %s\n", an, bn);
	fprintf(f,
		"%9s %9s %9s %9s %10s %8s %5s %9s %9s %9s %9s %9s %9s  %s\n",
		"count A", "count B", "total A", "total B", "change", "%",
		"sig", "avg A", "avg B", "p50 A", "p50 B", "p99 A", "p99 B",
		"path");
	for (i = 0; i < s->n; i++) {
		const struct dpath *p = &s->p[i];
		const struct dstat *a = &p->a, *bb = &p->b;

		fprintf(f, "%9" PRIu64 " %9" PRIu64 " %9s %9s %10s %8s",
			a->count, bb->count,
			p->have_a ? report_ns_str(b[0], 40, a->total_ns) : "-",
			p->have_b ? report_ns_str(b[1], 40, bb->total_ns) : "-",
			fmt_delta(b[2], 40, delta(a->total_ns, bb->total_ns)),
			fmt_pct(b[3], 40, p->have_a && a->count, a->total_ns,
				bb->total_ns));
		fprintf(f, " %5s", sig_word(p->nr.v));
		fprintf(f, " %9s %9s", per_call(b[4], 40, a, a->avg_ns, RES_AVG),
			per_call(b[5], 40, bb, bb->avg_ns, RES_AVG));
		fprintf(f, " %9s %9s", per_call(b[6], 40, a, a->p50_ns, RES_P50),
			per_call(b[7], 40, bb, bb->p50_ns, RES_P50));
		fprintf(f, " %9s %9s  %s%s\n",
			per_call(b[0], 40, a, a->p99_ns, RES_P99),
			per_call(b[1], 40, bb, bb->p99_ns, RES_P99),
			p->key,
			!p->have_a   ? "  (only in B)"
			: !p->have_b ? "  (only in A)"
				     : "");
	}
	summary(f, s);
}

/* a double as JSON: null when not finite (t and df can be infinite) */
static json_object *jdouble(double x)
{
	return isfinite(x) ? json_object_new_double(x) : NULL;
}

static json_object *stat_json(const struct dstat *st, int have)
{
	json_object *o;

	if (!have)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "count", json_object_new_uint64(st->count));
	json_object_object_add(o, "total_ns",
			       json_object_new_uint64(st->total_ns));
	json_object_object_add(o, "avg_ns", json_object_new_uint64(st->avg_ns));
	json_object_object_add(o, "p50_ns", json_object_new_uint64(st->p50_ns));
	json_object_object_add(o, "p99_ns", json_object_new_uint64(st->p99_ns));
	return o;
}

/* the path's "significant" and "noise" (doc/recording.md) */
static void noise_json(json_object *o, const struct dpath *p)
{
	const struct noise_result *r = &p->nr;
	json_object *n;

	json_object_object_add(
		o, "significant",
		r->v == NOISE_UNKNOWN || r->v == NOISE_NONE ?
			NULL :
			json_object_new_boolean(r->v == NOISE_BEYOND));
	if (r->v == NOISE_NONE) {
		json_object_object_add(o, "noise", NULL);
		return;
	}
	n = json_object_new_object();
	json_object_object_add(o, "noise", n);
	if (!n)
		return;
	json_object_object_add(n, "verdict",
			       json_object_new_string(noise_verdict_name(r->v)));
	json_object_object_add(n, "median_shift_ns", jdouble(r->shift_ns));
	json_object_object_add(n, "min_shift_ns", jdouble(r->min_effect_ns));
	if (r->v == NOISE_UNKNOWN)
		return;
	json_object_object_add(n, "u", jdouble(r->u));
	json_object_object_add(n, "z", jdouble(r->z));
	json_object_object_add(n, "p", jdouble(r->p));
	json_object_object_add(n, "delta", jdouble(r->delta));
}

/* the document's "noise_test": the test and its counts of paths */
static json_object *test_json(const struct dset *s)
{
	json_object *o = json_object_new_object();
	const size_t *j = s->judged;

	if (!o)
		return NULL;
	json_object_object_add(o, "method", json_object_new_string("mann-whitney"));
	json_object_object_add(o, "alpha", json_object_new_double(NOISE_ALPHA));
	json_object_object_add(o, "min_shift_pct",
			       json_object_new_double(NOISE_MIN_REL * 100.0));
	json_object_object_add(o, "calib_drift_pct",
			       json_object_new_double(NOISE_CALIB_DRIFT * 100.0));
	/* each run's probe cost per timed call compensated with (the
	 * costliest calibrated mechanism's in + out means; 0: raw) */
	json_object_object_add(o, "probe_cost_ns", jdouble(s->cost_ns[0]));
	json_object_object_add(o, "probe_cost_b_ns", jdouble(s->cost_ns[1]));
	json_object_object_add(o, "significant",
			       json_object_new_uint64(j[NOISE_BEYOND]));
	json_object_object_add(o, "within",
			       json_object_new_uint64(j[NOISE_WITHIN] +
						      j[NOISE_SMALL]));
	json_object_object_add(o, "unknown",
			       json_object_new_uint64(j[NOISE_UNKNOWN]));
	json_object_object_add(o, "not_compared",
			       json_object_new_uint64(j[NOISE_NONE]));
	return o;
}

static int json_out(FILE *f, const struct dset *s, const char *an,
		    const char *bn)
{
	json_object *root = json_object_new_object(), *arr, *o, *c;
	const char *str;
	size_t i;
	int ret = 0;

	if (!root)
		return -ENOMEM;
	json_object_object_add(root, "schema_version", json_object_new_int(1));
	json_object_object_add(root, "tool", json_object_new_string("iprof"));
	json_object_object_add(root, "diff", json_object_new_boolean(1));
	json_object_object_add(root, "a", json_object_new_string(an));
	json_object_object_add(root, "b", json_object_new_string(bn));
	json_object_object_add(root, "noise_test", test_json(s));
	arr = json_object_new_array();
	json_object_object_add(root, "paths", arr);
	for (i = 0; arr && i < s->n; i++) {
		const struct dpath *p = &s->p[i];

		o = json_object_new_object();
		if (!o || json_object_array_add(arr, o)) {
			json_object_put(o);
			ret = -ENOMEM;
			break;
		}
		json_object_object_add(o, "path", json_object_get(p->path));
		json_object_object_add(
			o, "in",
			json_object_new_string(p->have_a && p->have_b ? "both"
					       : p->have_a	      ? "a"
								      : "b"));
		json_object_object_add(o, "a", stat_json(&p->a, p->have_a));
		json_object_object_add(o, "b", stat_json(&p->b, p->have_b));
		noise_json(o, p);
		c = json_object_new_object();
		json_object_object_add(o, "change", c);
		if (!c) {
			ret = -ENOMEM;
			break;
		}
		json_object_object_add(
			c, "count",
			json_object_new_int64(delta(p->a.count, p->b.count)));
		json_object_object_add(c, "total_ns",
				       json_object_new_int64(delta(
					       p->a.total_ns, p->b.total_ns)));
		json_object_object_add(
			c, "avg_ns",
			json_object_new_int64(delta(p->a.avg_ns, p->b.avg_ns)));
		json_object_object_add(
			c, "p50_ns",
			json_object_new_int64(delta(p->a.p50_ns, p->b.p50_ns)));
		json_object_object_add(
			c, "p99_ns",
			json_object_new_int64(delta(p->a.p99_ns, p->b.p99_ns)));
		json_object_object_add(
			c, "total_pct",
			p->a.total_ns ? json_object_new_double(
						((double)p->b.total_ns -
						 (double)p->a.total_ns) *
						100.0 / (double)p->a.total_ns)
				      : NULL);
	}
	str = ret ? NULL
		  : json_object_to_json_string_ext(
			    root,
			    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	if (!str)
		ret = ret ?: -ENOMEM;
	else if (fprintf(f, "%s\n", str) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}

/* Are the times of report @d compensated for the probes' cost
 * (calibration.compensated; no calibration: raw)? */
static int compensated(json_object *d)
{
	json_object *c, *v;

	return json_object_object_get_ex(d, "calibration", &c) && c &&
	       json_object_object_get_ex(c, "compensated", &v) &&
	       json_object_get_boolean(v);
}

/* Is report @d split by --by (its top nodes are keys: a timer number
 * with the top bit, src/core/agg.c)?  Nodes left out by --min-total and
 * --max-depth in *@hidden (options.nodes_hidden, doc/json.md). */
static int split_by(json_object *d, int64_t *hidden)
{
	json_object *t, *n, *v;

	*hidden = 0;
	if (json_object_object_get_ex(d, "options", &t) &&
	    json_object_object_get_ex(t, "nodes_hidden", &v))
		*hidden = json_object_get_int64(v);
	if ((!json_object_object_get_ex(d, "tree", &t) &&
	     !json_object_object_get_ex(d, "nodes", &t)) ||
	    !json_object_is_type(t, json_type_array) ||
	    !json_object_array_length(t))
		return 0;
	n = json_object_array_get_idx(t, 0);
	return json_object_object_get_ex(n, "timer", &v) &&
	       (json_object_get_int64(v) & 0x80000000ll);
}

/* A report of a shape that makes paths differ without the runs
 * differing: one side split by --by and the other not, or nodes left out
 * (shown as "only in" the other side): a warning each.  Returns 1 where
 * one side is split and the other not (no path can match), else 0. */
static int shape_warn(json_object *da, json_object *db, const char *an,
		       const char *bn)
{
	int64_t ha, hb;
	int sa = split_by(da, &ha), sb = split_by(db, &hb);

	if (sa != sb)
		log_cmd(LOG_LVL_WARN, "diff",
			"warning: %s is split by --by, %s is not: no path of one can match the other's",
			sa ? an : bn, sa ? bn : an);
	if (ha || hb)
		log_cmd(LOG_LVL_WARN, "diff",
			"warning: %s left %lld nodes out (--min-total or --max-depth): they show as only in the other",
			ha ? an : bn, (long long)(ha ? ha : hb));
	return sa != sb;
}

/* Two reports with paths and none in both: runs of other timers or other
 * programs, whose diff says nothing (a newcomer's sqlite3 against xz got
 * "0 of 0 paths in both changed" and exit status 0 alone): a warning. */
static void share_warn(const struct dset *s, const char *an, const char *bn)
{
	size_t i, na = 0, nb = 0;

	for (i = 0; i < s->n; i++) {
		if (s->p[i].have_a && s->p[i].have_b)
			return;
		na += !!s->p[i].have_a;
		nb += !!s->p[i].have_b;
	}
	if (na && nb)
		log_cmd(LOG_LVL_WARN, "diff",
			"warning: %s (%zu paths) and %s (%zu paths) have no path in common: runs of other timers or programs, nothing to compare",
			an, na, bn, nb);
}

/* The options and the two operands A and B: 0, or 2 (said). */
static int args_ok(const struct replay_opts *ro, int argc, char **argv)
{
	char tmp[256];
	size_t i;

	if (!report_fmt_has(ro->r.fmt, REPORT_CAP_DIFF)) {
		log_cmd(LOG_LVL_ERROR, "diff", "--format is %s",
			report_fmt_with(REPORT_CAP_DIFF, tmp, sizeof(tmp)));
		return 2;
	}
	if (ro->r.json_tree_set) {
		log_cmd(LOG_LVL_ERROR, "diff",
			"--json-tree does not apply to iprof diff (its JSON is one flat list of paths; it reads both shapes)");
		return 2;
	}
	/* a report's shape options would cut each side apart (a path under
	 * --min-total in B only shows as "only in A"): refused */
	if (ro->r.sort_set || ro->r.min_total_set || ro->r.max_depth_set ||
	    ro->r.ncolumns) {
		log_cmd(LOG_LVL_ERROR, "diff",
			"%s does not apply to iprof diff: it compares every path of both, ordered by the change of total time (see 'iprof diff --help')",
			ro->r.sort_set	    ? "--sort" :
			ro->r.min_total_set ? "--min-total" :
			ro->r.max_depth_set ? "--max-depth" :
					     "--columns");
		return 2;
	}
	if (optind != argc - 2) {
		log_cmd(LOG_LVL_ERROR, "diff",
			"expected two reports or "
			"recordings, A and B");
		return 2;
	}
	if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-")) {
		log_cmd(LOG_LVL_ERROR, "diff",
			"only one of A and B can be stdin");
		return 2;
	}
	for (i = 0; i < 2; i++) {
		if (ro->r.output &&
		    util_same_file(ro->r.output, argv[optind + i])) {
			log_cmd(LOG_LVL_ERROR, "diff",
				"-o '%s' is %s '%s': it would be overwritten",
				ro->r.output, i ? "B" : "A", argv[optind + i]);
			return 2;
		}
	}
	return 0;
}

int cmd_diff_main(int argc, char **argv)
{
	struct replay_opts ro = {0};
	json_object *da = NULL, *db = NULL, *t;
	struct dset s = {0};
	struct output w = {0};
	char err[512], tmp[PATH_MAX] = "";
	FILE *out = NULL;
	int ret = 2, werr, partial = 0;
	size_t i;

	ret = replay_parse(argc, argv, &ro, "diff", &diff_cmd_opts);
	if (ret > 0) {
		optab_help(stdout, &diff_cmd_opts);
		return 0;
	}
	if (ret)
		return 2;
	if (args_ok(&ro, argc, argv))
		return 2;
	ret = 2;
	da = load(argv[optind], &ro, &partial);
	db = da ? load(argv[optind + 1], &ro, &partial) : NULL;
	if (!da || !db)
		goto out;
	for (i = 0; i < 2; i++) {
		/* nested, or with --json-tree flat a list of nodes (each
		 * has its path; none has children) */
		if ((json_object_object_get_ex(i ? db : da, "tree", &t) ||
		     json_object_object_get_ex(i ? db : da, "nodes", &t)) &&
		    json_object_is_type(t, json_type_array) &&
		    !collect(&s, t, (int)i, 0))
			continue;
		if (s.why[0])
			log_cmd(LOG_LVL_ERROR, "diff", "%s: %s",
				argv[optind + i], s.why);
		else
			log_cmd(LOG_LVL_ERROR, "diff",
				"%s: not an iprof JSON report (no valid "
				"\"tree\" or \"nodes\")",
				argv[optind + i]);
		goto out;
	}
	if (compensated(da) != compensated(db) && !ro.quiet)
		log_cmd(LOG_LVL_WARN, "diff",
			"warning: %s's times are %s, %s's %s: their changes hold the probes' cost (iprof diff --no-compensate compares recordings raw)",
			argv[optind], compensated(da) ? "compensated" : "raw",
			argv[optind + 1], compensated(db) ? "compensated" : "raw");
	if (!ro.quiet && !shape_warn(da, db, argv[optind], argv[optind + 1]))
		share_warn(&s, argv[optind], argv[optind + 1]);
	if (set_inside(&s)) {
		log_cmd(LOG_LVL_ERROR, "diff", "out of memory");
		goto out;
	}
	s.cost_ns[0] = pair_cost(da);
	s.cost_ns[1] = pair_cost(db);
	judge(&s);
	qsort(s.p, s.n, sizeof(*s.p), by_change);
	/* -o as the live run writes it (src/core/output.c) */
	if (output_open(&w, ro.r.output, err, sizeof(err))) {
		log_cmd(LOG_LVL_ERROR, "diff", "%s", err);
		goto out;
	}
	out = output_begin(&w, tmp, sizeof(tmp));
	if (!out) {
		log_cmd(LOG_LVL_ERROR, "diff", "cannot write '%s': %s", w.name,
			strerror(errno));
		ret = 1;
		goto out;
	}
	errno = 0;
	if (report_fmt_has(ro.r.fmt, REPORT_CAP_JSON))
		ret = json_out(out, &s, argv[optind], argv[optind + 1]) ? 1 : 0;
	else {
		table(out, &s, argv[optind], argv[optind + 1]);
		ret = 0;
	}
	/* 3: compared, but a recording was cut or its run incomplete (as
	 * iprof report says) */
	if (!ret && partial)
		ret = 3;
	werr = fflush(out) || ferror(out) ? -(errno ? errno : EIO) : 0;
	werr = output_end(&w, out, tmp, werr);
	if (werr) {
		log_cmd(LOG_LVL_ERROR, "diff", "cannot write '%s': %s",
			w.name ? w.name : "stdout", strerror(-werr));
		ret = 1;
	}
out:
	output_close(&w);
	for (i = 0; i < s.n; i++) {
		free(s.p[i].key);
		free(s.p[i].a.hist);
		free(s.p[i].b.hist);
	}
	free(s.p);
	json_object_put(da);
	json_object_put(db);
	return ret;
}
