// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: the probe parser (src/probe/probe.c).  The input is a probe
 * file, read twice: line by line through probe_parse_line() (each line an
 * -e spec) and whole through probe_parse_file() (a memfd: the file reading
 * path, its limits, CRLF and NUL handling), then probe_list_check().
 * Inputs that mention "include" are skipped: they would read the fuzzing
 * host's files.  Invariants: a parsed probe has a name, a file and a line
 * no later than the input's line count, and a key (of 1 to IPROF_MAX_KEY
 * fields, each with both sides) only if it is a span; errors leave a
 * message.
 */
#undef NDEBUG /* the checks are the point, in every build type */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "iprof/probe.h"

static void check_list(const struct probe_list *pl, int maxline)
{
	size_t i;

	for (i = 0; i < pl->n; i++) {
		assert(pl->v[i].name && pl->v[i].name[0]);
		assert(pl->v[i].file);
		assert(pl->v[i].line >= 1 && pl->v[i].line <= maxline);
		/* a key only on spans, every field named on both sides */
		assert(pl->v[i].nkey >= 0 && pl->v[i].nkey <= IPROF_MAX_KEY);
		assert(!pl->v[i].nkey || pl->v[i].kind == PROBE_SPAN);
		for (int k = 0; k < pl->v[i].nkey; k++)
			assert(pl->v[i].key[k].start && pl->v[i].key[k].stop &&
			       pl->v[i].key[k].col >= 1 &&
			       pl->v[i].key[k].stop_col >= 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_list pl = { 0 };
	char err[1024], path[64], *text, *line, *save;
	int lines = 1, fd, ret;
	size_t i;

	if (size > (1 << 20) || memmem(data, size, "include", 7))
		return 0;
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';

	/* -e lines: NUL-terminated copies, split at '\n' */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	i = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		err[0] = '\0';
		ret = probe_parse_line(&pl, line, "-e", (int)++i, err,
				       sizeof(err));
		assert(!ret || err[0]);
	}
	check_list(&pl, lines);
	ret = probe_list_check(&pl, err, sizeof(err));
	assert(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
	probe_list_free(&pl);
	free(text);

	/* the same bytes as a file */
	fd = memfd_create("fuzz.conf", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		memset(&pl, 0, sizeof(pl));
		err[0] = '\0';
		ret = probe_parse_file(&pl, path, err, sizeof(err));
		assert(!ret || err[0]);
		check_list(&pl, lines);
		ret = probe_list_check(&pl, err, sizeof(err));
		assert(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
		probe_list_free(&pl);
	}
	close(fd);
	return 0;
}
