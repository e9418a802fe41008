/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The formats' table (include/iprof/report_fmt.h): a format is one row
 * here and its writer in src/report/report_NAME.c.  Parsing -f, the --format
 * lists of --help and of the messages, the checks of which option applies
 * to which format and report_write() all read this table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "iprof/report.h"
#include "iprof/report_fmt.h"

/* what every format that reports the tree after the run can do */
#define TREE \
	(REPORT_CAP_SORT | REPORT_CAP_DEPTH | REPORT_CAP_INTERVAL | REPORT_CAP_BY)

static const struct report_format formats[] = {
	[REPORT_FMT_TABLE] =
		{
			.name = "table",
			.write = report_table,
			.caps = TREE | REPORT_CAP_DELTA | REPORT_CAP_COLUMNS |
				REPORT_CAP_COMMENTS | REPORT_CAP_DIFF,
		},
	[REPORT_FMT_SEED] =
		{
			.name = "seed",
			.help = "the seed patch's lines",
			.shape = "first-seen order, every path",
			.write = report_seed,
			.caps = REPORT_CAP_INTERVAL | REPORT_CAP_BY |
				REPORT_CAP_DELTA | REPORT_CAP_COMMENTS,
		},
	[REPORT_FMT_JSON] =
		{
			.name = "json",
			.help = "doc/json.md",
			.write = report_json,
			.caps = TREE | REPORT_CAP_DELTA | REPORT_CAP_JSON |
				REPORT_CAP_DIFF | REPORT_CAP_PARSED,
		},
	[REPORT_FMT_FOLDED] =
		{
			.name = "folded",
			.help = "flame graph input: 'a;b;c VALUE'",
			.write = report_folded,
			.caps = TREE | REPORT_CAP_DELTA | REPORT_CAP_WEIGHT |
				REPORT_CAP_SUMMARY_APART | REPORT_CAP_PARSED,
		},
	[REPORT_FMT_CHROME] =
		{
			.name = "chrome",
			.help = "a timeline for Perfetto UI / "
				"chrome://tracing: one "
				"event per call",
			.shape = "a timeline of every call",
			.stream = &chrome_stream,
			.caps = REPORT_CAP_STREAM | REPORT_CAP_ORDERED |
				REPORT_CAP_DEPTH | REPORT_CAP_DELTA |
				REPORT_CAP_PARSED,
		},
	[REPORT_FMT_OPENMETRICS] =
		{
			.name = "openmetrics",
			.help = "Prometheus; doc/openmetrics.md",
			.write = report_openmetrics,
			.caps = TREE | REPORT_CAP_PARSED,
		},
	[REPORT_FMT_PROMETHEUS] =
		{
			.name = "prometheus",
			.help = "the same in Prometheus' text format "
				"0.0.4: node_exporter's textfile collector",
			.write = report_prometheus,
			.caps = TREE | REPORT_CAP_PARSED,
		},
	[REPORT_FMT_PPROF] =
		{
			.name = "pprof",
			.help = "gzipped profile.proto for go tool pprof, "
				"Pyroscope, Parca",
			.write = report_pprof,
			.caps = TREE | REPORT_CAP_DELTA |
				REPORT_CAP_SUMMARY_APART | REPORT_CAP_PARSED |
				REPORT_CAP_BINARY,
			.binary = "gzipped binary profile",
		},
	[REPORT_FMT_SVG] =
		{
			.name = "svg",
			.help = "a flame graph for a browser",
			.write = report_svg,
			.caps = TREE | REPORT_CAP_DELTA | REPORT_CAP_WEIGHT |
				REPORT_CAP_SUMMARY_APART | REPORT_CAP_PARSED,
		},
};

#define NFMT (sizeof(formats) / sizeof(formats[0]))

const struct report_format *report_fmt_get(enum report_fmt fmt)
{
	return (unsigned int)fmt < NFMT ? &formats[fmt] : NULL;
}

int report_fmt_has(enum report_fmt fmt, unsigned int caps)
{
	const struct report_format *f = report_fmt_get(fmt);

	return f && (f->caps & caps) == caps;
}

int report_fmt_stdout_ok(enum report_fmt fmt, int tty, int per_interval,
			 char *why, size_t len)
{
	const struct report_format *f = report_fmt_get(fmt);
	const char *doc;

	if (!f || !(f->caps & REPORT_CAP_BINARY) || (!tty && !per_interval))
		return 0;
	doc = strrchr(f->binary, ' ') ? strrchr(f->binary, ' ') + 1 :
					f->binary;
	if (per_interval)
		snprintf(why, len,
			 "--format %s --interval writes one %s per interval: give -o FILE (rewritten each time), not stdout",
			 f->name, doc);
	else
		snprintf(why, len,
			 "--format %s is a %s: give -o FILE or redirect stdout",
			 f->name, f->binary);
	return -EINVAL;
}

const char *report_fmt_name(enum report_fmt fmt)
{
	const struct report_format *f = report_fmt_get(fmt);

	return f ? f->name : "?";
}

char *report_fmt_with(unsigned int caps, char *buf, size_t len)
{
	size_t i, k = 0, n = 0, used = 0;

	for (i = 0; i < NFMT; i++)
		n += (formats[i].caps & caps) == caps;
	if (len)
		buf[0] = '\0';
	for (i = 0; i < NFMT && used < len; i++) {
		if ((formats[i].caps & caps) != caps)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 !k	     ? ""
					 : k + 1 < n ? ", "
						     : " or ",
					 formats[i].name);
		k++;
	}
	return buf;
}

const struct report_name *report_fmt_names(size_t *n)
{
	static struct report_name names[NFMT];

	if (!names[0].name)
		for (size_t i = 0; i < NFMT; i++) {
			names[i].name = formats[i].name;
			names[i].help = formats[i].help;
		}
	*n = NFMT;
	return names;
}

int report_parse_fmt(const char *s, enum report_fmt *fmt)
{
	/* what Perfetto UI opens (newcomer trial 6 asked for it by name) */
	if (s && !strcmp(s, "perfetto")) {
		*fmt = REPORT_FMT_CHROME;
		return 0;
	}
	for (size_t i = 0; s && i < NFMT; i++)
		if (!strcmp(s, formats[i].name)) {
			*fmt = (enum report_fmt)i;
			return 0;
		}
	return -EINVAL;
}

const char *report_fmt_list(void)
{
	static char buf[128];

	if (!buf[0])
		report_fmt_with(0, buf, sizeof(buf));
	return buf;
}

/*
 * say_json_levels() - a nested JSON tree deeper than jq 1.6 reads: say so
 * on @summary, once per process (an --interval run writes many reports).
 */
static void say_json_levels(FILE *summary, const struct report *r)
{
	static int said;
	int levels;

	if (said || r->json_flat)
		return;
	levels = report_json_levels(r);
	if (levels <= REPORT_JSON_JQ16_LEVELS)
		return;
	said = 1;
	fprintf(summary,
		"iprof: the JSON tree nests %d levels; jq 1.6 (Debian 12's) "
		"reads at most %d: --json-tree flat writes the same nodes "
		"without nesting (doc/json.md)\n",
		levels, REPORT_JSON_JQ16_LEVELS);
}

int report_write(FILE *f, const struct report *r, enum report_fmt fmt,
		 FILE *summary)
{
	const struct report_format *w = report_fmt_get(fmt);
	int ret;

	if (!w || !w->write)
		return -EINVAL;
	ret = w->write(f, r);
	/* e.g. folded lines carry no summary: it goes elsewhere */
	if (!ret && summary && (w->caps & REPORT_CAP_SUMMARY_APART))
		report_summary(summary, r, 0);
	if (!ret && summary && (w->caps & REPORT_CAP_JSON))
		say_json_levels(summary, r);
	if (!ret && fflush(f))
		ret = -errno;
	return ret;
}
