// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness of the recording reader (src/core/rec.c): any bytes are
 * read as a recording and replayed into the aggregator and the timeline,
 * as `iprof report` does.  Built with -DIPROF_FUZZ=ON (clang); run with
 * tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iprof/agg.h"
#include "iprof/chrome.h"
#include "iprof/rec.h"

struct sinks {
	struct agg *agg;
	struct chrome *chrome;
};

static void push(void *ctx, const void *rec, size_t len)
{
	struct sinks *s = ctx;

	agg__push(s->agg, rec, len);
	chrome__push(s->chrome, rec, len);
}

static void from(void *ctx)
{
	agg__reset(((struct sinks *)ctx)->agg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sinks s = { 0 };
	struct rec_reader *r;
	FILE *f, *out;
	char err[512];

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	out = fopen("/dev/null", "w");
	if (!f || !out)
		goto done;
	r = rec_reader__new(f, "fuzz", err, sizeof(err));
	if (r) {
		const struct rec_run *run = rec_reader__run(r);

		s.agg = agg__new(run->ntimers);
		s.chrome = chrome__new(out, run, 0);
		if (s.agg && s.chrome) {
			agg__set_by(s.agg, AGG_BY_COMM);
			rec_replay(r, size & 1 ? 1000 : 0, 0, from, push, &s,
				   err, sizeof(err));
			agg__snapshot(s.agg, run->end_ns);
			chrome__finish(s.chrome, run->end_ns);
		}
		chrome__free(s.chrome);
		agg__free(s.agg);
		rec_reader__free(r);
	}
done:
	if (f)
		fclose(f);
	if (out)
		fclose(out);
	return 0;
}
