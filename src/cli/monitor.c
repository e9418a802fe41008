// SPDX-License-Identifier: GPL-2.0-only
/*
 * --listen's /metrics endpoint on libmicrohttpd (GNU libmicrohttpd, its
 * internal polling thread) and sd_notify(3) readiness for Type=notify.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IPROF_HAVE_MHD
#include <microhttpd.h>
#endif
#ifdef IPROF_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "cli/monitor.h"
#include "iprof/report_fmt.h"

#define OM_CONTENT_TYPE \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"
/* Prometheus' text format, for a client that prefers text/plain */
#define TEXT_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/*
 * Connections: a scraper holds one (keep-alive), so a few per client
 * address are plenty, and idle ones are closed soon: a peer that opens
 * connections and sends nothing cannot take every slot from the scraper
 * for long (libmicrohttpd's MHD_OPTION_PER_IP_CONNECTION_LIMIT,
 * MHD_OPTION_CONNECTION_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT in s).
 */
#define MON_CONN_PER_IP 4u
#define MON_CONN_MAX 64u
#define MON_CONN_IDLE_S 3u

struct monitor {
#ifdef IPROF_HAVE_MHD
	struct MHD_Daemon *d;
#endif
	pthread_mutex_t lock;
	char *text; /* NULL until the first publish */
	size_t len;
	char *classic; /* text in the text format; NULL until asked for */
	size_t classic_len;
	int port;
};

int monitor_parse_addr(const char *s, struct sockaddr_storage *sa,
		       socklen_t *len)
{
	struct addrinfo hints = { 0 }, *ai = NULL;
	char host[64];
	const char *colon, *h;
	size_t hl;
	char *end;
	long port;

	colon = strrchr(s, ':');
	if (!colon || !colon[1])
		return -EINVAL;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || port < 0 || port > 65535)
		return -EINVAL;
	h = s;
	hl = (size_t)(colon - s);
	if (hl && h[0] == '[') { /* [IPV6]:PORT */
		if (hl < 2 || h[hl - 1] != ']')
			return -EINVAL;
		h++;
		hl -= 2;
	}
	if (!hl) {
		h = "127.0.0.1";
		hl = strlen(h);
	}
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = '\0';
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, colon + 1, &hints, &ai) || !ai)
		return -EINVAL;
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

#ifdef IPROF_HAVE_MHD
static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, const char *body, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, (void *)body,
					       MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_OK) /* the type depends on Accept */
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY,
					MHD_HTTP_HEADER_ACCEPT);
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* The published text in the text format (report_om_classic()), made
 * once per publish, when a client first asks for it; under m->lock. */
static int classic(struct monitor *m)
{
	FILE *f;
	int err;

	if (m->classic)
		return 0;
	f = open_memstream(&m->classic, &m->classic_len);
	if (!f)
		return -errno;
	err = report_om_classic(f, m->text, m->len);
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		free(m->classic);
		m->classic = NULL;
	}
	return err;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	static const char nf[] = "not found: iprof serves /metrics\n";
	static const char na[] = "no report yet\n";
	static const char oom[] = "cannot convert the report\n";
	struct monitor *m = cls;
	const char *accept;
	enum MHD_Result ret;

	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "",
			     0);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", nf,
			     sizeof(nf) - 1);
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	pthread_mutex_lock(&m->lock);
	if (m->text && report_om_negotiate(accept) == REPORT_OM_TEXT)
		ret = classic(m) ? reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					 "text/plain", oom, sizeof(oom) - 1) :
				   reply(c, MHD_HTTP_OK, TEXT_CONTENT_TYPE,
					 m->classic, m->classic_len);
	else if (m->text)
		ret = reply(c, MHD_HTTP_OK, OM_CONTENT_TYPE, m->text, m->len);
	else
		ret = reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", na,
			    sizeof(na) - 1);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

int monitor__listen(struct monitor **out, const char *addr, char *err,
		    size_t errlen)
{
	struct sockaddr_storage sa;
	const union MHD_DaemonInfo *info;
	struct monitor *m;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	socklen_t len;
	int e;

	if (monitor_parse_addr(addr, &sa, &len)) {
		snprintf(err, errlen,
			 "--listen '%s': expected ADDR:PORT, [ADDR]:PORT or :PORT with a numeric address, e.g. 127.0.0.1:9464",
			 addr);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	m->d = MHD_start_daemon(
		flags, sa.ss_family == AF_INET6 ?
			       ntohs(((struct sockaddr_in6 *)&sa)->sin6_port) :
			       ntohs(((struct sockaddr_in *)&sa)->sin_port),
		NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR, &sa,
		MHD_OPTION_CONNECTION_LIMIT, MON_CONN_MAX,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, MON_CONN_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, MON_CONN_IDLE_S, MHD_OPTION_END);
	if (!m->d) {
		e = errno ? errno : EADDRNOTAVAIL;
		snprintf(err, errlen, "--listen '%s': cannot listen: %s", addr,
			 strerror(e));
		pthread_mutex_destroy(&m->lock);
		free(m);
		return -e;
	}
	info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
	m->port = info ? info->port : 0;
	*out = m;
	return 0;
}

#else /* static build (tests/vm/): no libmicrohttpd with its TLS stack */
int monitor__listen(struct monitor **out, const char *addr, char *err,
		    size_t errlen)
{
	(void)out;
	snprintf(err, errlen,
		 "--listen '%s': this iprof is built without libmicrohttpd",
		 addr);
	return -EOPNOTSUPP;
}
#endif

int monitor__port(const struct monitor *m)
{
	return m->port;
}

int monitor__publish(struct monitor *m, const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	pthread_mutex_lock(&m->lock);
	free(m->text);
	m->text = copy;
	m->len = len;
	free(m->classic);
	m->classic = NULL;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void monitor__close(struct monitor *m)
{
	if (!m)
		return;
#ifdef IPROF_HAVE_MHD
	MHD_stop_daemon(m->d);
#endif
	pthread_mutex_destroy(&m->lock);
	free(m->text);
	free(m->classic);
	free(m);
}

int monitor_notify(const char *state)
{
#ifdef IPROF_HAVE_SYSTEMD
	return sd_notify(0, state);
#else
	(void)state;
	return 0; /* static build (tests/vm/): no libsystemd.a */
#endif
}
