/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel side's messages (src/kernel/loader.c, src/kernel/attach_*.c, src/kernel/rings.c):
 * what it says goes to the sink the CLI installs (klog_set_sink()), never
 * to stderr directly; libbpf's own lines go there too.  libbpf's last
 * warning during a call is caught (struct klog_catch) to explain why the
 * call failed: the reason is returned by the function that made the call.
 */
#ifndef IPROF_KLOG_H
#define IPROF_KLOG_H

#include <stdarg.h>
#include <stddef.h>

enum klog_level {
	KLOG_WARN,
	KLOG_INFO, /* progress */
	KLOG_DEBUG,
	KLOG_LIBBPF, /* one of libbpf's own lines, as libbpf writes it */
};

/* The CLI's sink: one message (@fmt without the newline, except for
 * KLOG_LIBBPF lines, which come as libbpf writes them).  Returns what
 * vfprintf() does, as libbpf's print callback must. */
typedef int (*klog_sink_fn)(enum klog_level level, const char *fmt,
			    va_list ap);

/*
 * klog_set_sink() - where the kernel side's messages go from now on (NULL:
 * nowhere, the default).
 */
void klog_set_sink(klog_sink_fn fn);

/*
 * klog_take_libbpf() - libbpf's messages to klog from now on (caught, and
 * passed to the sink); before, libbpf prints its own to stderr.
 */
void klog_take_libbpf(void);

/* klog_libbpf_debug() - pass libbpf's debug lines on (@on 1) or not (0). */
void klog_libbpf_debug(int on);

/* klog() - one message to the sink; nothing if none is installed. */
void klog(enum klog_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The last warning libbpf gave between klog_catch_begin() and
 * klog_catch_end() on the same struct (on the caller's stack; they nest:
 * the innermost one catches).  @msg is "" when libbpf said nothing.
 */
struct klog_catch {
	char msg[512];
	struct klog_catch *outer;
};

/* klog_catch_begin() - catch libbpf's warnings in @c (emptied) from now. */
void klog_catch_begin(struct klog_catch *c);

/* klog_catch_end() - stop catching in @c; @c->msg stays readable. */
void klog_catch_end(struct klog_catch *c);

/*
 * klog_reason() - why a libbpf call failed with @err (+ or - errno), as
 * one line into @buf (@len bytes): "strerror (libbpf's warning)", or the
 * strerror alone when @c is NULL or caught nothing.
 */
void klog_reason(const struct klog_catch *c, int err, char *buf, size_t len);

#endif /* IPROF_KLOG_H */
