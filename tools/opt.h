/* SPDX-License-Identifier: GPL-2.0-only */
/* Option parsing shared by the workloads in tools/. */
#ifndef IPROF_TOOLS_OPT_H
#define IPROF_TOOLS_OPT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * parse_uint() - option --@name's value @s as an integer in [@min, @max]
 * (decimal, 0x hex or 0 octal, as strtoul(3) base 0) into *@out.
 * Returns 0, or -1 after printing an error on stderr.
 */
static inline int parse_uint(const char *name, const char *s,
			     unsigned long min, unsigned long max,
			     unsigned long *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (*s == '-' || *s == '\0')
		goto bad;
	v = strtoul(s, &end, 0);
	if (errno || *end != '\0' || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr,
		"error: --%s: expected an integer in [%lu, %lu], got '%s'\n",
		name, min, max, s);
	return -1;
}

#endif
