// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

#include "tracefs.h"

static int has_events(const char *dir)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/events", dir);
	return access(p, F_OK) == 0;
}

const char *tracefs_dir(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	unsigned i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (has_events(dirs[i]))
			return dirs[i];
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL) == 0 &&
	    has_events(dirs[0]))
		return dirs[0];
	if (!errno)
		errno = ENOENT;
	return NULL;
}
