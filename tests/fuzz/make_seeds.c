// SPDX-License-Identifier: GPL-2.0-only
/* Seed corpus of tests/fuzz/fuzz_rec.c: make_seeds DIR writes a few
 * small valid recordings (nested timers, COMM, interrupt context, cut). */
#include <stdio.h>
#include <string.h>

#include "iprof/rec.h"

static void seed(const char *dir, const char *name, unsigned int n, int cut)
{
	struct report_timer t[2] = { { .name = "a", .attached = 1 },
				     { .name = "b", .attached = 1 } };
	struct rec_run run = { .start_ns = 1000, .end_ns = 900000,
			       .timers = t, .ntimers = 2 };
	struct iprof_rec_comm c = { .type = IPROF_REC_COMM, .size = 32,
				    .tid = 7, .tgid = 7 };
	struct rec_writer *w;
	char path[4096];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return;
	w = rec_writer__new(f, path, &run);
	strcpy(c.comm, "seed");
	rec_writer__push(w, &c, sizeof(c));
	for (i = 0; i < n; i++) {
		struct iprof_rec r = { .size = 32, .tid = 7, .tgid = 7,
				       .ts = 2000 + 100 * i };

		r.type = i % 4 < 2 ? IPROF_REC_START : IPROF_REC_STOP;
		r.depth = i % 4 == 0 || i % 4 == 3 ? 1 : 2;
		r.timer = r.depth - 1;
		if (i % 16 == 5) {
			r.flags = IPROF_F_CTX;
			r.aux = IPROF_CTX_HARDIRQ;
			r.tid = r.tgid = 0;
		}
		rec_writer__push(w, &r, sizeof(r));
	}
	if (!cut)
		rec_writer__finish(w, &run);
	rec_writer__free(w);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	seed(argv[1], "small", 8, 0);
	seed(argv[1], "more", 100, 0);
	seed(argv[1], "cut", 12, 1);
	return 0;
}
