// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iprof/util.h"

static int scaled(const char *s, const char *const *units,
		  const double *mult, int nunits, double dflt, uint64_t *out)
{
	size_t digits, frac = 0;
	char *end;
	double v;
	int i;

	/* DIGITS[.DIGITS]: no sign, space, hex or exponent (strtod's) */
	if (!s)
		return -EINVAL;
	digits = strspn(s, "0123456789");
	if (!digits)
		return -EINVAL;
	if (s[digits] == '.') {
		frac = strspn(s + digits + 1, "0123456789");
		if (!frac)
			return -EINVAL;
		frac++;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != s + digits + frac || !isfinite(v) || v < 0)
		return -EINVAL;
	if (!*end) {
		v *= dflt;
	} else {
		for (i = 0; i < nunits; i++)
			if (!strcmp(end, units[i]))
				break;
		if (i == nunits)
			return -EINVAL;
		v *= mult[i];
	}
	/* at most INT64_MAX: ns are added to clocks and made timespecs */
	if (v > 9223372036854775807.0 - 1024.0)
		return -ERANGE;
	*out = (uint64_t)llround(v);
	return 0;
}

int util_parse_duration(const char *s, uint64_t *ns)
{
	static const char *const u[] = { "ns", "us", "ms", "s", "m", "h" };
	static const double m[] = { 1, 1e3, 1e6, 1e9, 60e9, 3600e9 };

	return scaled(s, u, m, 6, 1e9, ns);
}

int util_parse_size(const char *s, uint64_t *bytes)
{
	static const char *const u[] = { "K", "M", "G", "k", "KiB", "MiB",
					 "GiB" };
	static const double m[] = { 1024.0, 1048576.0, 1073741824.0, 1024.0,
				    1024.0, 1048576.0, 1073741824.0 };

	return scaled(s, u, m, 7, 1, bytes);
}

int util_grow(void *pv, size_t n, size_t elem)
{
	void *v, *nv;
	size_t cap;

	/* *pv is some T *: read and write it as bytes, not as a void * */
	memcpy(&v, pv, sizeof(v));
	/* room for 4, then up to the next power of two */
	if (v && (n < 4 || (n & (n - 1))))
		return 0;
	cap = n < 4 ? 4 : 2 * n;
	if (cap > SIZE_MAX / elem)
		return -ENOMEM;
	nv = realloc(v, cap * elem);
	if (!nv)
		return -ENOMEM;
	memcpy(pv, &nv, sizeof(nv));
	return 0;
}

int util_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int util_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

uint64_t util_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int util_proc_read(int pid, struct util_proc *p)
{
	char path[64], buf[1024], *rp;
	FILE *f;
	size_t n;
	int ret = -EINVAL;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp session tty tpgid flags ...": comm may hold
	 * blanks and parentheses, so start after the last ')' */
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %c %d %*d %*d %*d %*d %u", &p->state,
			  &p->ppid, &p->flags) != 3)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -EINVAL;
	while (fgets(buf, sizeof(buf), f)) {
		if (sscanf(buf, "Tgid: %d", &p->tgid) == 1) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int util_proc_alive(int pid)
{
	struct util_proc p;

	return util_proc_read(pid, &p) == 0 && p.state != 'Z' &&
	       p.state != 'X';
}

int util_open_read(const char *path, enum util_open_kind kind,
		   struct stat *st, const char **why)
{
	struct statfs sf;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		*why = strerror(-err);
		return err;
	}
	if (fstat(fd, st)) {
		err = -errno;
		*why = strerror(-err);
	} else if (S_ISDIR(st->st_mode)) {
		err = -EISDIR;
		*why = strerror(EISDIR);
	} else if (S_ISREG(st->st_mode)) {
		err = 0;
	} else if (kind == UTIL_OPEN_PIPE && S_ISFIFO(st->st_mode) &&
		   !fstatfs(fd, &sf) && sf.f_type == PIPEFS_MAGIC) {
		err = 0; /* an anonymous pipe: its writer is running */
	} else {
		err = -EINVAL;
		*why = S_ISFIFO(st->st_mode) ? "a named FIFO, not a regular file" :
					       "not a regular file";
	}
	if (!err && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		err = -errno;
		*why = strerror(-err);
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* Length of the valid UTF-8 character at @s (1..4), 0 if there is none. */
static size_t utf8_char(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

int util_utf8_fwrite(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	const unsigned char *end = p + n;
	size_t k;

	while (p < end) {
		k = utf8_char(p);
		if (k && p + k <= end) {
			p += k;
			continue;
		}
		/* a byte that begins no character: U+FFFD for it */
		if ((p > run && fwrite(run, 1, (size_t)(p - run), f) !=
					(size_t)(p - run)) ||
		    fputs(UTIL_UTF8_REPLACEMENT, f) == EOF)
			return errno ? -errno : -EIO;
		run = ++p;
	}
	if (p > run && fwrite(run, 1, (size_t)(p - run), f) != (size_t)(p - run))
		return errno ? -errno : -EIO;
	return 0;
}

size_t util_utf8_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0, k;

	for (; *p; w++) {
		k = utf8_char(p);
		p += k ? k : 1; /* a bad byte: one U+FFFD */
	}
	return w;
}

/* byte offset of character @i (0..) of @s, its length if it has fewer */
static size_t utf8_offset(const char *s, size_t i)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k;

	for (; *p && i; i--) {
		k = utf8_char(p);
		p += k ? k : 1;
	}
	return (size_t)(p - (const unsigned char *)s);
}

char *util_utf8_cut_middle(const char *s, size_t width, char *out,
			   size_t outlen)
{
	size_t n = util_utf8_width(s), head, tail, hb, tb;

	if (n <= width || width < 4) {
		snprintf(out, outlen, "%s", s);
		return out;
	}
	head = (width - 2 + 1) / 2;
	tail = width - 2 - head;
	hb = utf8_offset(s, head);
	tb = utf8_offset(s, n - tail);
	snprintf(out, outlen, "%.*s..%s", (int)hb, s, s + tb);
	return out;
}

void util_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
