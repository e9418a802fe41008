/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The messages of the iprof executable on stderr: one line each, "iprof: "
 * (a subcommand's own: "iprof report: ", log_cmd()) and the text, filtered
 * by level.  Internal to the executable (src/cli/log.c);
 * the kernel-free core (iprof_core) says its errors through err buffers
 * and never logs.
 *
 * Levels, and what the switches do (as the options did before this
 * module: -q and -v are independent of each other):
 *   error    always: something failed or the input is wrong
 *   warn     always, -q too: worth knowing, iprof goes on
 *   info     progress and notes ("N of M timers attached", "detached");
 *            off with -q
 *   debug    -v only: libbpf's messages, each timer skipped as it is
 * -q -v: the debug lines, without the progress.
 */
#ifndef IPROF_LOG_H
#define IPROF_LOG_H

#include <stdarg.h>
#include <stdio.h>

enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

/* the prefix of every line log_msg() writes */
#define LOG_PREFIX "iprof: "

/*
 * log_set_switches() - -q (@quiet: info off) and -v (@verbose: debug on).
 * Before it is called (and with 0, 0): error, warn and info.
 */
void log_set_switches(int quiet, int verbose);

/* log_enabled() - whether a message of @level is written now: 1 or 0. */
int log_enabled(enum log_level level);

/*
 * log_to_journal() - 1 when stderr is systemd's journal (JOURNAL_STREAM,
 * systemd.exec(5)): each line then starts with its syslog priority,
 * "<3>" for an error, "<4>" a warning, "<6>" info, "<7>" debug
 * (sd-daemon(3)), which journald keeps as PRIORITY.  Else 0.
 */
int log_to_journal(void);

/*
 * log_set_stream() - where the lines go: @f, or stderr when NULL (the
 * default).  For the unit tests.
 */
void log_set_stream(FILE *f);

/*
 * log_msg() - when @level is enabled, write LOG_PREFIX, the printf(3)
 * text of @fmt and a newline (@fmt has none of its own) in one write.
 */
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * log_cmd() - log_msg() for a subcommand's own lines: "iprof @cmd: "
 * ("iprof report: ", "iprof diff: ") instead of LOG_PREFIX; @cmd is at
 * most 50 bytes (longer is cut).
 */
void log_cmd(enum log_level level, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* log_msg() at each level */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * log_vraw() - when @level is enabled, the text of @fmt as it is: no
 * prefix, no newline added (text from elsewhere that brings its own, as
 * libbpf's print callback).  Returns what vfprintf(3) returns, 0 when
 * @level is off.
 */
int log_vraw(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* IPROF_LOG_H */
