/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel side's messages (src/kernel/klog.h): the CLI's sink, libbpf's print
 * callback and the catching of libbpf's warnings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "kernel/klog.h"

static klog_sink_fn sink;
static int libbpf_debug;
/* the innermost klog_catch_begin() still open, or NULL */
static struct klog_catch *catching;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	va_list cp;
	size_t n;

	if (level == LIBBPF_DEBUG && !libbpf_debug)
		return 0;
	if (catching && level <= LIBBPF_WARN) {
		va_copy(cp, ap);
		vsnprintf(catching->msg, sizeof(catching->msg), fmt, cp);
		va_end(cp);
		n = strlen(catching->msg);
		while (n && catching->msg[n - 1] == '\n')
			catching->msg[--n] = '\0';
	}
	return sink ? sink(KLOG_LIBBPF, fmt, ap) : 0;
}

void klog_set_sink(klog_sink_fn fn)
{
	sink = fn;
}

void klog_take_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

void klog_libbpf_debug(int on)
{
	libbpf_debug = on;
}

void klog(enum klog_level level, const char *fmt, ...)
{
	va_list ap;

	if (!sink)
		return;
	va_start(ap, fmt);
	sink(level, fmt, ap);
	va_end(ap);
}

void klog_catch_begin(struct klog_catch *c)
{
	c->msg[0] = '\0';
	c->outer = catching;
	catching = c;
}

void klog_catch_end(struct klog_catch *c)
{
	if (catching == c)
		catching = c->outer;
}

void klog_reason(const struct klog_catch *c, int err, char *buf, size_t len)
{
	const char *m = c ? c->msg : "";

	if (err < 0)
		err = -err;
	snprintf(buf, len, "%s%s%s%s", strerror(err), m[0] ? " (" : "", m,
		 m[0] ? ")" : "");
}
