/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Long-running monitor helpers: the /metrics HTTP endpoint of --listen
 * (libmicrohttpd) and the service manager's readiness protocol (sd_notify,
 * libsystemd).  Not kernel-related; used by src/cli/main.c.
 */
#ifndef IPROF_MONITOR_H
#define IPROF_MONITOR_H

#include <stddef.h>
#include <sys/socket.h>

struct monitor;

/*
 * monitor_parse_addr() - "ADDR:PORT", "[IPV6]:PORT" or ":PORT" (ADDR then
 * 127.0.0.1) into @sa and @len; ADDR is a numeric IPv4 or IPv6 address
 * (getaddrinfo(3) with AI_NUMERICHOST), PORT 0..65535 (0: any free port).
 * Returns 0 or -EINVAL.
 */
int monitor_parse_addr(const char *s, struct sockaddr_storage *sa,
		       socklen_t *len);

/*
 * monitor__listen() - serve GET /metrics on @addr (monitor_parse_addr()) from
 * a libmicrohttpd thread: the last text given to monitor__publish(), as
 * "application/openmetrics-text; version=1.0.0; charset=utf-8" (OpenMetrics
 * specification, "Protocol Negotiation"), or in Prometheus' text format
 * ("text/plain; version=0.0.4", report_om_classic()) to a client whose
 * Accept prefers text/plain (report_om_negotiate()); 503 until the first
 * publish, 404 for another path, 405 for another method.  On success *@m
 * is owned by the caller (monitor__close()).  Returns 0, -EINVAL (bad address) or
 * -errno of the bind (EADDRINUSE, EACCES...), with a message in @err.
 */
int monitor__listen(struct monitor **m, const char *addr, char *err,
		    size_t errlen);

/* monitor__port() - the port @m listens on (the chosen one for port 0). */
int monitor__port(const struct monitor *m);

/*
 * monitor__publish() - make a copy of @text (@len bytes) what /metrics
 * serves from now on.  Thread-safe.  Returns 0 or -ENOMEM (the previous
 * text stays).
 */
int monitor__publish(struct monitor *m, const char *text, size_t len);

/* monitor__close() - stop serving and free @m; @m may be NULL. */
void monitor__close(struct monitor *m);

/*
 * monitor_notify() - tell the service manager @state (sd_notify(3): for
 * example "READY=1\nSTATUS=..." or "STOPPING=1") when it runs iprof with
 * Type=notify ($NOTIFY_SOCKET set); a no-op otherwise.  Returns 1 when
 * sent, 0 when there is no manager to tell, or -errno.
 */
int monitor_notify(const char *state);

#endif /* IPROF_MONITOR_H */
