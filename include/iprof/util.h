/* SPDX-License-Identifier: GPL-2.0-only */
/* Small parsers shared by the command line and the probe files. */
#ifndef IPROF_UTIL_H
#define IPROF_UTIL_H

#include <stdint.h>

/*
 * util_parse_duration() - "10s", "500ms", "250us", "100ns", "2m", "1h", or
 * a plain number of seconds ("1.5").  Stores ns in @ns.  Returns 0, or
 * -EINVAL for anything else (empty, negative, unknown unit, overflow).
 */
int util_parse_duration(const char *s, uint64_t *ns);

/*
 * util_parse_size() - "16M", "512K", "1G", or plain bytes.  Stores bytes
 * in @bytes.  Returns 0 or -EINVAL.
 */
int util_parse_size(const char *s, uint64_t *bytes);

/* util_now_ns() - clock_gettime(CLOCK_MONOTONIC) in ns: the record clock. */
uint64_t util_now_ns(void);

#endif /* IPROF_UTIL_H */
