// SPDX-License-Identifier: GPL-2.0-only
/*
 * --format openmetrics: the OpenMetrics 1.0 text exposition of the tree
 * (https://github.com/OpenMetrics/OpenMetrics/blob/main/specification/OpenMetrics.md,
 * the "Text format" section; what Prometheus' openmetrics parser reads),
 * its translation into Prometheus' text format 0.0.4 for readers of that
 * format alone (promtool check metrics; --listen serves it to a client
 * that prefers text/plain: report_om_negotiate()).  Kernel-free.
 *
 * Per shown path (the nodes struct report_view shows): a histogram of the
 * durations in seconds and counters of self, on-CPU and off-CPU time,
 * labelled path="a;b;c" (the timer names from the top-level timer down, as
 * --format folded joins them), timer="c" (the last name) and, with --by,
 * by="tid 1234" / "pid 1234" / the command name.  Then one counter family
 * per loss counter of report_loss_counters(), per-timer attachment gauges
 * and orphan stop counters, and the aggregator's own size.  Every number
 * is an exact decimal: seconds are printed as ns / 1e9 with 9 decimals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iprof/hist.h"
#include "iprof/report.h"
#include "iprof/report_fmt.h"
#include "iprof/util.h"

/*
 * Histogram buckets: le = (2^k - 1) ns for k = OM_LE_MIN..OM_LE_MAX
 * (255 ns .. 68.7 s) and +Inf.  Durations are whole ns and every power of
 * two starts a slot of struct hist, so each bucket count is exact.
 */
#define OM_LE_MIN 8
#define OM_LE_MAX 36

/* ns as exact decimal seconds: "1.000000250" */
static void put_sec(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / UINT64_C(1000000000),
		ns % UINT64_C(1000000000));
}

/* Length of the valid UTF-8 sequence at @s, 0 if invalid (RFC 3629). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void report_om_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		if (*p == '\\' || *p == '"') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p == '\n') {
			fputs("\\n", f);
			p++;
		} else if (!(n = utf8_len(p))) {
			fputs(UTIL_UTF8_REPLACEMENT, f); /* UTF-8 only */
			p++;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
}

/* One label value: the names from the top-level timer down to @n, joined
 * by ';' (a --by root is left out: it is the by label), escaped.  Recurses
 * once per level (at most IPROF_MAX_DEPTH). */
static void put_path(FILE *f, const struct report *r, const struct agg_node *n,
		     int *first)
{
	char buf[REPORT_NAME_BUF];

	if (!n->parent)
		return;
	put_path(f, r, n->parent, first);
	if (AGG_TIMER_IS_SPLIT(n->timer))
		return;
	if (!*first)
		fputc(';', f);
	*first = 0;
	report_om_escape(f, report_timer_name(r, n->timer, buf, sizeof(buf)));
}

/* The labels of node @n: {path="...",timer="..."[,by="..."] plus @extra}. */
static void put_labels(FILE *f, const struct report *r,
		       const struct agg_node *n, const char *extra)
{
	const struct agg_node *top = n;
	char buf[REPORT_NAME_BUF];

	int first = 1;

	fputs("{path=\"", f);
	put_path(f, r, n, &first);
	fputs("\",timer=\"", f);
	report_om_escape(f, report_timer_name(r, n->timer, buf, sizeof(buf)));
	fputc('"', f);
	while (top->parent && top->parent->parent)
		top = top->parent;
	if (AGG_TIMER_IS_SPLIT(top->timer)) {
		fputs(",by=\"", f);
		report_om_escape(f, report_timer_name(r, top->timer, buf,
						      sizeof(buf)));
		fputc('"', f);
	}
	if (extra)
		fputs(extra, f);
	fputc('}', f);
}

static void family(FILE *f, const char *name, const char *type,
		   const char *unit, const char *help)
{
	fprintf(f, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
	fprintf(f, "# HELP %s %s\n", name, help);
}

/* A node that gets samples: shown and a timer (not a --by root). */
static int shown(const struct report_view *v, size_t i)
{
	return v->visible[i] && !AGG_TIMER_IS_SPLIT(v->nodes[i]->timer);
}

static void histogram(FILE *f, const struct report *r,
		      const struct report_view *v)
{
	char le[48];

	family(f, "iprof_duration_seconds", "histogram", "seconds",
	       "Durations of the completed timers of a path (thread time)");
	for (size_t i = 0; i < v->n; i++) {
		const struct agg_node *n = v->nodes[i];
		unsigned int s = 0;
		uint64_t cum = 0;

		if (!shown(v, i))
			continue;
		for (unsigned int k = OM_LE_MIN; k <= OM_LE_MAX; k++) {
			uint64_t bound = (UINT64_C(1) << k) - 1;

			for (; n->hist && s < HIST_SLOTS &&
			       hist_slot_high(s) <= bound;
			     s++)
				cum += n->hist->slot[s];
			snprintf(le, sizeof(le),
				 ",le=\"%" PRIu64 ".%09" PRIu64 "\"",
				 bound / UINT64_C(1000000000), bound % UINT64_C(1000000000));
			fputs("iprof_duration_seconds_bucket", f);
			put_labels(f, r, n, le);
			fprintf(f, " %" PRIu64 "\n", cum);
		}
		fputs("iprof_duration_seconds_bucket", f);
		put_labels(f, r, n, ",le=\"+Inf\"");
		fprintf(f, " %" PRIu64 "\n", n->count);
		fputs("iprof_duration_seconds_count", f);
		put_labels(f, r, n, NULL);
		fprintf(f, " %" PRIu64 "\n", n->count);
		fputs("iprof_duration_seconds_sum", f);
		put_labels(f, r, n, NULL);
		fputc(' ', f);
		put_sec(f, n->total_ns);
		fputc('\n', f);
	}
}

/*
 * Keyed spans' drops per shown path: replaced (started again before
 * their stop) and expired (--span-timeout), labelled reason="...".
 */
static void keyed_drops(FILE *f, const struct report *r,
			const struct report_view *v)
{
	static const char *const why[] = {"replaced", "expired"};
	char lab[32];
	unsigned int k;

	family(f, "iprof_keyed_dropped", "counter", NULL,
	       "Keyed spans of the path dropped untimed: started again before their stop (replaced), or no stop within --span-timeout (expired)");
	for (size_t i = 0; i < v->n; i++) {
		const struct agg_node *n = v->nodes[i];

		if (!shown(v, i) || !report_keyed(r, n->timer))
			continue;
		for (k = 0; k < 2; k++) {
			snprintf(lab, sizeof(lab), ",reason=\"%s\"", why[k]);
			fputs("iprof_keyed_dropped_total", f);
			put_labels(f, r, n, lab);
			fprintf(f, " %" PRIu64 "\n",
				k ? n->expired : n->replaced);
		}
	}
}

/*
 * Calls of a timer whose return iprof cannot see, per shown path that has
 * any: counted where made, in no duration (agg_node.hits); the family only
 * where some path has them.
 */
static void counted_only(FILE *f, const struct report *r,
			 const struct report_view *v)
{
	int any = 0;

	for (size_t i = 0; i < v->n; i++) {
		if (!shown(v, i) || !v->nodes[i]->hits)
			continue;
		if (!any)
			family(f, "iprof_counted_only", "counter", NULL,
			       "Calls of the path whose return cannot be seen (no return sites, no uretprobe): counted, never timed");
		any = 1;
		fputs("iprof_counted_only_total", f);
		put_labels(f, r, v->nodes[i], NULL);
		fprintf(f, " %" PRIu64 "\n", v->nodes[i]->hits);
	}
}

/* A counter of seconds per shown node: @get(node) in ns; @cpu: an on/off-CPU
 * split, which keyed spans have none of (no one thread's time). */
static void node_seconds(FILE *f, const struct report *r,
			 const struct report_view *v, const char *name,
			 const char *help, uint64_t (*get)(const struct agg_node *),
			 int cpu)
{
	family(f, name, "counter", "seconds", help);
	for (size_t i = 0; i < v->n; i++) {
		if (!shown(v, i) ||
		    (cpu && report_keyed(r, v->nodes[i]->timer)))
			continue;
		fprintf(f, "%s_total", name);
		put_labels(f, r, v->nodes[i], NULL);
		fputc(' ', f);
		put_sec(f, get(v->nodes[i]));
		fputc('\n', f);
	}
}

static uint64_t get_self(const struct agg_node *n)
{
	return n->self_ns;
}

static uint64_t get_oncpu(const struct agg_node *n)
{
	return n->oncpu_ns;
}

static uint64_t get_offcpu(const struct agg_node *n)
{
	return n->runq_ns + n->blocked_ns;
}

/* One sample per timer: @sample{timer="NAME"} VALUE, VALUE from @get. */
static void per_timer(FILE *f, const struct report *r, const char *sample,
		      uint64_t (*get)(const struct report_timer *))
{
	for (uint32_t i = 0; i < agg__ntimers(r->agg); i++) {
		fprintf(f, "%s{timer=\"", sample);
		report_om_escape(f, r->timers[i].name ? r->timers[i].name :
							"?");
		fprintf(f, "\"} %" PRIu64 "\n", get(&r->timers[i]));
	}
}

static uint64_t get_attached(const struct report_timer *t)
{
	return t->attached ? 1 : 0;
}

static uint64_t get_orphans(const struct report_timer *t)
{
	return t->orphans;
}

static void timers(FILE *f, const struct report *r)
{
	if (!r->timers)
		return;
	family(f, "iprof_timer_attached", "gauge", NULL,
	       "1 when the timer is attached and traced, 0 when it was refused or skipped");
	per_timer(f, r, "iprof_timer_attached", get_attached);
	family(f, "iprof_orphan_stops", "counter", NULL,
	       "Stops of the timer that found no start on their thread");
	per_timer(f, r, "iprof_orphan_stops_total", get_orphans);
}

int report_openmetrics(FILE *f, const struct report *r)
{
	const struct agg_stats *st = agg__stats(r->agg);
	struct report_loss_counter lc[REPORT_LOSS_MAX];
	struct report_view v;
	size_t nlc, i;
	char name[64];
	int err;

	err = report_view_init(&v, r);
	if (err)
		return err;
	histogram(f, r, &v);
	node_seconds(f, r, &v, "iprof_self_seconds",
		     "Thread time of the path minus its completed children's",
		     get_self, 0);
	node_seconds(f, r, &v, "iprof_oncpu_seconds",
		     "Time of the path's timers spent running on a CPU",
		     get_oncpu, 1);
	node_seconds(f, r, &v, "iprof_offcpu_seconds",
		     "Time of the path's timers spent off-CPU (run queue or blocked)",
		     get_offcpu, 1);
	family(f, "iprof_incomplete", "gauge", NULL,
	       "Timers of the path open at the time of the report");
	for (i = 0; i < v.n; i++) {
		if (!shown(&v, i))
			continue;
		fputs("iprof_incomplete", f);
		put_labels(f, r, v.nodes[i], NULL);
		fprintf(f, " %" PRIu64 "\n", v.nodes[i]->incomplete);
	}
	keyed_drops(f, r, &v);
	counted_only(f, r, &v);
	report_view_free(&v);

	nlc = report_loss_counters(r, lc);
	for (i = 0; i < nlc; i++) {
		snprintf(name, sizeof(name), "iprof_lost_%s", lc[i].key);
		family(f, name, "counter", NULL, lc[i].label);
		fprintf(f, "%s_total %" PRIu64 "\n", name, lc[i].v);
	}
	timers(f, r);
	family(f, "iprof_folded_paths", "counter", NULL,
	       "Timers started on a new path beyond --max-paths, counted under the path [other]");
	fprintf(f, "iprof_folded_paths_total %" PRIu64 "\n", st->folded_paths);
	family(f, "iprof_folded_keys", "counter", NULL,
	       "--by roots (threads, processes, names) folded into [other] beyond --max-keys");
	fprintf(f, "iprof_folded_keys_total %" PRIu64 "\n", st->folded_keys);
	family(f, "iprof_tree_nodes", "gauge", NULL,
	       "Paths in the aggregated tree (its memory grows with them)");
	fprintf(f, "iprof_tree_nodes %" PRIu64 "\n", st->nodes);
	family(f, "iprof_threads_live", "gauge", NULL,
	       "Threads with open timers or state in the aggregator");
	fprintf(f, "iprof_threads_live %" PRIu64 "\n", st->threads_live);
	family(f, "iprof_tracing_seconds", "gauge", "seconds",
	       "Time the report covers");
	fputs("iprof_tracing_seconds ", f);
	put_sec(f, r->duration_ns);
	fputc('\n', f);
	if (r->start_realtime_ns) {
		family(f, "iprof_start_time_seconds", "gauge", "seconds",
		       "Wall-clock time (Unix epoch) the report's window began");
		fputs("iprof_start_time_seconds ", f);
		put_sec(f, r->start_realtime_ns);
		fputc('\n', f);
	}
	fputs("# EOF\n", f);
	return report_finish(f);
}

/*
 * The Prometheus text format 0.0.4 of report_openmetrics()'s text, for the
 * readers that take no OpenMetrics (promtool check metrics, a client that
 * asks for text/plain): the same lines but that a counter family is named
 * as its samples (NAME_total) in # TYPE and # HELP, # UNIT and # EOF are
 * left out, OpenMetrics' type unknown is untyped, and a HELP text's \" is
 * a plain quote (the text format escapes only \\ and \n there).  Samples
 * and their label escapes are the same in both formats.
 */
static void classic_help(FILE *f, const char *s, const char *end)
{
	for (; s < end; s++) {
		if (*s == '\\' && s + 1 < end && s[1] == '"')
			s++;
		else if (*s == '\\' && s + 1 < end)
			fputc(*s++, f); /* \\ or \n: as they are */
		fputc(*s, f);
	}
}

/* The family of the last # TYPE line: its name and whether a counter. */
struct classic_fam {
	const char *name;
	size_t len;
	int counter;
};

/* One line @s .. @end (without its newline) in the text format. */
static int classic_line(FILE *f, const char *s, const char *end,
			struct classic_fam *fam)
{
	size_t n = (size_t)(end - s);
	const char *sp, *type;
	int tl;

	if ((n == 5 && !memcmp(s, "# EOF", 5)) ||
	    (n >= 7 && !memcmp(s, "# UNIT ", 7)))
		return 0;
	if (n < 7 || (memcmp(s, "# TYPE ", 7) && memcmp(s, "# HELP ", 7))) {
		fwrite(s, 1, n, f); /* a sample or another comment */
		fputc('\n', f);
		return 0;
	}
	sp = memchr(s + 7, ' ', n - 7);
	if (!sp)
		return -EINVAL; /* report_openmetrics() writes none */
	if (s[2] == 'T') {
		type = sp + 1;
		tl = (int)(end - type);
		if (tl == 7 && !memcmp(type, "unknown", 7))
			type = "untyped";
		fam->name = s + 7;
		fam->len = (size_t)(sp - fam->name);
		fam->counter = tl == 7 && !memcmp(type, "counter", 7);
		fprintf(f, "# TYPE %.*s%s %.*s\n", (int)fam->len, fam->name,
			fam->counter ? "_total" : "", tl, type);
		return 0;
	}
	fprintf(f, "# HELP %.*s", (int)(sp - s - 7), s + 7);
	if (fam->counter && (size_t)(sp - s - 7) == fam->len &&
	    !memcmp(s + 7, fam->name, fam->len))
		fputs("_total", f);
	classic_help(f, sp, end);
	fputc('\n', f);
	return 0;
}

int report_om_classic(FILE *f, const char *om, size_t len)
{
	const char *end = om + len, *eol;
	struct classic_fam fam = { "", 0, 0 };
	int err;

	for (; om < end; om = eol + (eol < end)) {
		eol = memchr(om, '\n', (size_t)(end - om));
		if (!eol)
			eol = end;
		err = classic_line(f, om, eol, &fam);
		if (err)
			return err;
	}
	return report_finish(f);
}

int report_prometheus(FILE *f, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	if (!m)
		return -ENOMEM;
	err = report_openmetrics(m, r);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err)
		err = report_om_classic(f, buf, len);
	free(buf);
	return err;
}

/* The q of one Accept element from its parameters at @s (up to @end): 1
 * unless a q=VALUE says otherwise (RFC 9110, section 12.4.2). */
static double accept_q(const char *s, const char *end)
{
	double q = 1;

	while (s < end && (s = memchr(s, ';', (size_t)(end - s)))) {
		s++;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (end - s >= 2 && (*s == 'q' || *s == 'Q') && s[1] == '=')
			q = strtod(s + 2, NULL);
	}
	return q;
}

int report_om_negotiate(const char *accept)
{
	double om = -1, text = -1, q;
	const char *s = accept, *end, *t;
	size_t n;

	for (; s && *s; s = *end ? end + 1 : end) {
		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		for (t = s; t < end && *t != ';' && *t != ' ' && *t != '\t';)
			t++;
		n = (size_t)(t - s);
		q = accept_q(t, end);
		if (n == 28 && !strncasecmp(s, "application/openmetrics-text", n))
			om = q > om ? q : om;
		else if (n == 10 && !strncasecmp(s, "text/plain", n))
			text = q > text ? q : text;
	}
	return text > 0 && text > om ? REPORT_OM_TEXT : REPORT_OM_OPENMETRICS;
}
