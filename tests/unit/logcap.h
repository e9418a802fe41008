/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The log module's lines (src/cli/log.h) captured in memory for the unit
 * tests: logcap_setup()/logcap_teardown() as cmocka group or test fixtures,
 * logcap_text() what was written so far, logcap_take() the same and a
 * fresh start.  One capture per test program (static state).
 */
#ifndef IPROF_TEST_LOGCAP_H
#define IPROF_TEST_LOGCAP_H

#include <stdio.h>
#include <stdlib.h>

#include "cli/log.h"

static char *logcap_buf;
static size_t logcap_len;
static FILE *logcap_mem;

static inline int logcap_setup(void **state)
{
	(void)state;
	logcap_mem = open_memstream(&logcap_buf, &logcap_len);
	if (!logcap_mem)
		return -1;
	log_set_stream(logcap_mem);
	return 0;
}

static inline int logcap_teardown(void **state)
{
	(void)state;
	log_set_stream(NULL);
	fclose(logcap_mem);
	free(logcap_buf);
	logcap_buf = NULL;
	log_set_switches(0, 0);
	return 0;
}

/* what was written so far (valid until the next log line) */
static inline const char *logcap_text(void)
{
	fflush(logcap_mem);
	return logcap_buf;
}

/* what was written so far, and then nothing; NULL if out of memory */
static inline const char *logcap_take(void)
{
	static char out[4096];

	fclose(logcap_mem);
	snprintf(out, sizeof(out), "%s", logcap_buf ? logcap_buf : "");
	free(logcap_buf);
	logcap_buf = NULL;
	logcap_mem = open_memstream(&logcap_buf, &logcap_len);
	if (!logcap_mem)
		return NULL;
	log_set_stream(logcap_mem);
	return out;
}

#endif /* IPROF_TEST_LOGCAP_H */
