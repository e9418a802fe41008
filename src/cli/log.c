// SPDX-License-Identifier: GPL-2.0-only
/* The executable's messages on stderr, by level (src/cli/log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/log.h"

static int log_quiet, log_verbose;
static FILE *log_stream;

void log_set_switches(int quiet, int verbose)
{
	log_quiet = !!quiet;
	log_verbose = !!verbose;
}

int log_enabled(enum log_level level)
{
	switch (level) {
	case LOG_LVL_ERROR:
	case LOG_LVL_WARN:
		return 1;
	case LOG_LVL_INFO:
		return !log_quiet;
	case LOG_LVL_DEBUG:
		return log_verbose;
	}
	return 0;
}

void log_set_stream(FILE *f)
{
	log_stream = f;
}

static FILE *out(void)
{
	return log_stream ? log_stream : stderr;
}

/*
 * Is stderr the journal?  systemd sets JOURNAL_STREAM to "DEV:INODE" of
 * the stream it connects a service's stderr to (systemd.exec(5)); then a
 * line may start with its syslog priority, "<3>" (sd-daemon(3)), which
 * journald keeps as the entry's PRIORITY.  Checked once.
 */
int log_to_journal(void)
{
	static int j = -1;
	const char *s = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (j < 0)
		j = s && sscanf(s, "%llu:%llu", &dev, &ino) == 2 &&
		    !fstat(2, &st) && (unsigned long long)st.st_dev == dev &&
		    (unsigned long long)st.st_ino == ino;
	return j && !log_stream;
}

/* syslog(3) priorities of the levels: LOG_ERR, LOG_WARNING, LOG_INFO,
 * LOG_DEBUG */
static const char journal_prio[] = { '3', '4', '6', '7' };

/* ["<N>" for the journal] "iprof: " or "iprof CMD: " into @buf (@size
 * bytes); its length */
static size_t prefix(char *buf, size_t size, enum log_level level,
		     const char *cmd)
{
	char pri[4] = "";
	int n;

	if (log_to_journal())
		snprintf(pri, sizeof(pri), "<%c>", journal_prio[level & 3]);
	n = cmd ? snprintf(buf, size, "%siprof %s: ", pri, cmd) :
		  snprintf(buf, size, "%s" LOG_PREFIX, pri);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static void vwrite(enum log_level level, const char *cmd, const char *fmt,
		   va_list ap)
{
	/* the whole line in one write, as one fprintf(3) to the unbuffered
	 * stderr made it: lines of processes sharing stderr do not mix */
	char sbuf[512], *buf = sbuf, pfx[64];
	size_t plen;
	va_list cp;
	int n;

	if (!log_enabled(level))
		return;
	plen = prefix(pfx, sizeof(pfx), level, cmd);
	va_copy(cp, ap);
	n = vsnprintf(sbuf + plen, sizeof(sbuf) - plen, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n + plen + 2 > sizeof(sbuf)) {
		buf = malloc((size_t)n + plen + 2);
		if (!buf) { /* the text without the single write */
			fwrite(pfx, 1, plen, out());
			vfprintf(out(), fmt, ap);
			fputc('\n', out());
			return;
		}
		vsnprintf(buf + plen, (size_t)n + 1, fmt, ap);
	}
	memcpy(buf, pfx, plen);
	buf[plen + (size_t)n] = '\n';
	fwrite(buf, 1, plen + (size_t)n + 1, out());
	fflush(out());
	if (buf != sbuf)
		free(buf);
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	vwrite(level, NULL, fmt, ap);
}

void log_cmd(enum log_level level, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwrite(level, cmd, fmt, ap);
	va_end(ap);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

#define LOG_AT(name, level)                        \
	void name(const char *fmt, ...)            \
	{                                          \
		va_list ap;                        \
                                                   \
		va_start(ap, fmt);                 \
		log_vmsg(level, fmt, ap);          \
		va_end(ap);                        \
	}

LOG_AT(log_error, LOG_LVL_ERROR)
LOG_AT(log_warn, LOG_LVL_WARN)
LOG_AT(log_info, LOG_LVL_INFO)
LOG_AT(log_debug, LOG_LVL_DEBUG)

int log_vraw(enum log_level level, const char *fmt, va_list ap)
{
	if (!log_enabled(level))
		return 0;
	return vfprintf(out(), fmt, ap);
}
