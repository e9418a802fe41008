/* SPDX-License-Identifier: GPL-2.0-only */
/* Small parsers shared by the command line and the probe files. */
#ifndef IPROF_UTIL_H
#define IPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/*
 * util_parse_duration() - "10s", "500ms", "250us", "100ns", "2m", "1h", or
 * a plain number of seconds ("1.5"): DIGITS[.DIGITS] and a unit.  Stores
 * ns in @ns.  Returns 0, -ERANGE above INT64_MAX ns (292 years: a deadline
 * must stay a valid signed clock value), or -EINVAL for anything else
 * (empty, a sign, white space, hex or an exponent, an unknown unit).
 */
int util_parse_duration(const char *s, uint64_t *ns);

/*
 * util_parse_size() - "16M", "512K", "1G", or plain bytes (DIGITS[.DIGITS]
 * and a unit, as util_parse_duration()).  Stores bytes
 * in @bytes.  Returns 0, -ERANGE above INT64_MAX, or -EINVAL.
 */
int util_parse_size(const char *s, uint64_t *bytes);

/*
 * util_grow() - make room for one more element at index @n of the array
 * *@pv (elements of @elem bytes, @n in use, NULL when empty), growing it
 * by doubling: the array holds the next power of two of @n elements (at
 * least 4), so appending n elements costs O(n) copies, not O(n^2).  Only
 * for arrays grown by util_grow() alone (their size is implied by @n).
 * Returns 0, or -ENOMEM with *@pv unchanged.
 */
int util_grow(void *pv, size_t n, size_t elem);

/*
 * util_same_file() - 1 if paths @a and @b both exist and name one file
 * (stat(2): st_dev and st_ino; links, "./x" and "x" alike), else 0.
 */
int util_same_file(const char *a, const char *b);

/*
 * util_parse_uint() - a decimal number from @min to @max, the whole of
 * @s (no sign, no blanks, no suffix), into *@out.  Returns 0, or -EINVAL
 * (not such a number, or out of the range); *@out is left alone then.
 */
int util_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * util_set_err() - printf @fmt into @err (@errlen bytes), the error message
 * buffer of a function that reports why it failed; nothing when @err is
 * NULL or @errlen 0.
 */
void util_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* util_now_ns() - clock_gettime(CLOCK_MONOTONIC) in ns: the record clock. */
uint64_t util_now_ns(void);

/* What /proc/PID/stat says of a task (proc(5)). */
struct util_proc {
	char state; /* R S D Z T t X I ... */
	int ppid; /* parent process id */
	unsigned int flags; /* PF_* flags; PF_KTHREAD is 0x00200000 */
	int tgid; /* from /proc/PID/status "Tgid:" (a TID maps to its process) */
};

#define UTIL_PF_KTHREAD 0x00200000u /* include/linux/sched.h */

/*
 * util_proc_read() - read /proc/@pid/stat and status into @p.  Works for a
 * thread id too (/proc/TID exists though it is not listed).  Returns 0, or
 * -ENOENT when there is no such task, -EINVAL when unreadable.
 */
int util_proc_read(int pid, struct util_proc *p);

/*
 * util_proc_alive() - the task exists and is not a zombie (a zombie cannot
 * run again; kill(pid, 0) would still succeed).  Returns 1 or 0.
 */
int util_proc_alive(int pid);

/* What util_open_read() accepts besides a regular file. */
enum util_open_kind {
	UTIL_OPEN_REGULAR = 0, /* a regular file only */
	UTIL_OPEN_PIPE = 1, /* also an anonymous pipe (`-P <(cmd)`, stdin) */
};

/*
 * util_open_read() - open @path for reading so that it cannot block: with
 * O_NONBLOCK (a FIFO without a writer, a device), the type checked with
 * fstat(2) on the opened descriptor, then O_NONBLOCK cleared.  A directory
 * is -EISDIR; a named FIFO, a device or a socket -EINVAL ("not a regular
 * file"); an anonymous pipe is accepted only with UTIL_OPEN_PIPE.
 * Returns the descriptor (O_CLOEXEC; the caller closes it) with its fstat
 * in *@st, or a negative errno with the reason in *@why (static text).
 */
int util_open_read(const char *path, enum util_open_kind kind,
		   struct stat *st, const char **why);

/*
 * The rule of every output (doc/json.md, "Strings"): text iprof did not
 * write itself (argv, thread names, file paths, ELF symbol names) is made
 * valid UTF-8 by writing each byte that does not begin a valid UTF-8
 * sequence (RFC 3629: no overlong forms, surrogates or code points above
 * U+10FFFF) as U+FFFD, the replacement character (EF BF BD).
 */
#define UTIL_UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * util_utf8_fwrite() - write the @n bytes at @s (followed by a NUL byte) to
 * @f made valid UTF-8 as above.  Returns 0, or a negative errno when a
 * write failed.
 */
int util_utf8_fwrite(FILE *f, const char *s, size_t n);

/*
 * util_utf8_width() - the columns the NUL-terminated @s takes once written
 * by util_utf8_fwrite(): one per character (each byte that begins none is
 * one U+FFFD), for padding a table to its bytes' text.  Counts code points:
 * a wide (CJK) or combining character is still one column.
 */
size_t util_utf8_width(const char *s);

/*
 * util_utf8_cut_middle() - @s in at most @width columns (as
 * util_utf8_width() counts them, @width >= 4): itself if it fits, else its
 * first and last characters with ".." between, cut at character
 * boundaries, written NUL-terminated to @out (@outlen bytes; cut shorter
 * if @out is smaller).  Returns @out.
 */
char *util_utf8_cut_middle(const char *s, size_t width, char *out,
			   size_t outlen);

#endif /* IPROF_UTIL_H */
