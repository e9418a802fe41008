// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-CPU BPF ring buffers: their size, creating and installing them,
 * polling them into the stream that merges them per thread in time order
 * (src/core/stream.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "iprof/stream.h"
#include "iprof/util.h"
#include "kernel/kspans.h"
#include "kernel/loader_int.h"
#include "kernel/rings.h"

/*
 * Default size of each CPU's ring: RB_TOTAL_DEFAULT shared out over the
 * possible CPUs, each a power of two within [RB_CPU_MIN, RB_CPU_MAX]:
 * 8 MiB each on 2 CPUs (16 MiB, one shared ring's old default), 4 MiB on
 * 16, 256 KiB on 256 CPUs (64 MiB in all).
 */
#define RB_TOTAL_DEFAULT (64ull << 20)
#define RB_CPU_MIN (256ull << 10)
#define RB_CPU_MAX (8ull << 20)

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = (uint64_t)sysconf(_SC_PAGESIZE);

	while (p < v)
		p <<= 1;
	return p;
}

uint64_t loader_rb_cpu_bytes(uint64_t want, unsigned int ncpus)
{
	uint64_t b;

	if (want)
		return pow2_at_least(want);
	b = RB_CPU_MAX;
	while (b > RB_CPU_MIN && b * (ncpus ? ncpus : 1) > RB_TOTAL_DEFAULT)
		b >>= 1;
	return pow2_at_least(b);
}

/* the stream's sink: a merged record to the caller's callback */
static void ring_sink(void *ctx, const void *rec, size_t len)
{
	struct loader *l = ctx;

	l->fn(l->fn_ctx, (void *)rec, len);
}

/* one 32-byte record of CPU ring @rs to the merge (or the unmerged sink) */
static int ring_one(struct ring_src *rs, void *data, size_t size)
{
	const struct loader_unmerged *u = &rs->l->unmerged;

	if (u->push)
		return u->push(u->ctx, rs->idx, data, size);
	return stream__push(rs->l->stream, rs->idx, data, size);
}

/*
 * ring_namestr() - a struct iprof_ring_namestr sample cut into its
 * IPROF_REC_NAMESTR head and the struct iprof_rec_nametext chunks of its
 * text (abi.h), each pushed as a record of its own.  0 or -errno.
 */
static int ring_namestr(struct ring_src *rs, const void *data)
{
	char text[IPROF_NAME_PARTS * IPROF_NAME_STR];
	struct iprof_rec_namestr h;
	struct iprof_rec_nametext c;
	size_t n = 0, off, len;
	uint32_t i;
	int err;

	memcpy(&h, data, sizeof(h));
	if (h.nparts < 1 || h.nparts > IPROF_NAME_PARTS)
		h.nparts = 1;
	for (i = 0; i < IPROF_NAME_PARTS; i++) {
		len = h.len[i];
		if (i >= h.nparts || len == IPROF_NAME_FAULT)
			continue;
		if (len > IPROF_NAME_STR - 1)
			len = h.len[i] = IPROF_NAME_STR - 1;
		memcpy(text + n,
		       (const char *)data + sizeof(h) + i * IPROF_NAME_STR,
		       len);
		n += len;
	}
	err = ring_one(rs, &h, sizeof(h));
	for (off = 0; !err && off < n; off += IPROF_NAME_CHUNK) {
		char t[IPROF_NAME_CHUNK] = {0};

		memcpy(t, text + off,
		       n - off < sizeof(t) ? n - off : sizeof(t));
		memset(&c, 0, sizeof(c));
		c.type = IPROF_REC_NAMESTR;
		c.flags = IPROF_F_TEXT;
		c.size = sizeof(c);
		c.tid = h.tid;
		c.ts = h.ts;
		memcpy(c.t0, t, 4);
		memcpy(c.t1, t + 4, 4);
		memcpy(c.t2, t + 8, 8);
		err = ring_one(rs, &c, sizeof(c));
	}
	return err;
}

/*
 * ring_ustack() - an OFFSTACK record of user frames (--offcpu-stacks=user):
 * its process's mappings read now, while it runs, where they are not yet
 * (umaps_note(); a process gone by now keeps its frames in hex)
 */
static void ring_ustack(struct ring_src *rs, const void *data)
{
	struct iprof_rec_val v;
	uint64_t a[2];

	memcpy(&v, data, sizeof(v));
	if (v.type != IPROF_REC_OFFSTACK ||
	    IPROF_VAL_PART(v.flags) < IPROF_OFF_UPART)
		return;
	a[0] = v.lo0 | (uint64_t)v.hi0 << 32;
	a[1] = v.lo1 | (uint64_t)v.hi1 << 32;
	umaps_note(rs->l->opts.umaps, v.tid, a, 2);
}

/* ring_buffer callback of one CPU's ring: queue the record for merging */
static int ring_rec(void *ctx, void *data, size_t size)
{
	struct ring_src *rs = ctx;

	if (rs->l->opts.umaps && size == sizeof(struct iprof_rec_val))
		ring_ustack(rs, data);

	if (size == sizeof(struct iprof_ring_namestr) &&
	    *(const uint8_t *)data == IPROF_REC_NAMESTR)
		return ring_namestr(rs, data);
	return ring_one(rs, data, size);
}

void loader__set_unmerged(struct loader *l, const struct loader_unmerged *u)
{
	l->unmerged = *u;
}

/*
 * Before the object is loaded: create one ring per possible CPU, the first
 * one also the outer map's inner-map template (libbpf 1.1 cannot resize
 * the template it would make from the BPF side's definition).  Returns 0
 * or -errno with @err set.
 */
int rings_create(struct loader *l, char *err, size_t errlen)
{
	unsigned int i;
	int fd, ret;

	l->ring_fds = malloc(l->nrings * sizeof(*l->ring_fds));
	l->ring_src = calloc(l->nrings, sizeof(*l->ring_src));
	l->stream = stream__new(l->nrings, ring_sink, l);
	if (!l->ring_fds || !l->ring_src || !l->stream) {
		snprintf(err, errlen, "cannot allocate the ring buffers");
		return -ENOMEM;
	}
	for (i = 0; i < l->nrings; i++)
		l->ring_fds[i] = -1;
	for (i = 0; i < l->nrings; i++) {
		fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "iprof_rb", 0, 0,
				    (__u32)l->opts.rb_bytes, NULL);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen,
				 "cannot create ring buffer %u of %u (%llu bytes each): %s",
				 i + 1, l->nrings,
				 (unsigned long long)l->opts.rb_bytes,
				 strerror(errno));
			return ret;
		}
		l->ring_fds[i] = fd;
	}
	ret = bpf_map__set_inner_map_fd(l->skel->maps.rings, l->ring_fds[0]);
	if (ret) {
		snprintf(err, errlen, "cannot set the rings' template: %s",
			 strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * After loading: put each CPU's ring in its slot of the outer map and open
 * one ring_buffer epoll set over them.  Returns 0 or -errno with @err set.
 */
int rings_open(struct loader *l, char *err, size_t errlen)
{
	int outer = bpf_map__fd(l->skel->maps.rings);
	unsigned int i;
	int fd, ret;

	for (i = 0; i < l->nrings; i++) {
		fd = l->ring_fds[i];
		if (bpf_map_update_elem(outer, &i, &fd, BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "cannot install ring buffer %u: %s",
				 i, strerror(errno));
			return ret;
		}
		l->ring_src[i].l = l;
		l->ring_src[i].idx = i;
		if (!l->rb)
			l->rb = ring_buffer__new(fd, ring_rec, &l->ring_src[i],
						 NULL);
		else if (ring_buffer__add(l->rb, fd, ring_rec,
					  &l->ring_src[i]))
			l->rb = NULL;
		if (!l->rb) {
			ret = -errno;
			snprintf(err, errlen, "cannot open ring buffer %u: %s",
				 i, strerror(errno));
			return ret;
		}
	}
	return 0;
}

/*
 * The watermark of a poll that read the clock at @w before it read each
 * ring's producer position (ring_src.p0) and consumed the rings: every
 * record stamped before w was reserved before p0 was read, so a ring whose
 * consumer got to p0 holds no record stamped before w any more.  One that
 * stopped short of it stopped at a record still being written (by a
 * program on another CPU, or one preempted: a preemptible kernel may
 * switch out a uprobe's program where bpf_preempt_disable() is missing,
 * 6.0 to 6.9), and
 * the records behind that one, committed, perhaps stamped before w, of
 * threads whose later records another ring gave, wait: then the watermark
 * is that ring's last clear one (records behind the busy one were reserved
 * after that poll read p0, so are stamped after its w).  Consumes such a
 * ring once more first: the record is usually done by now.
 */
static uint64_t ring_watermark(struct loader *l, uint64_t w)
{
	uint64_t wm = w;
	struct ring *r;
	unsigned int i;

	for (i = 0; i < l->nrings; i++) {
		struct ring_src *rs = &l->ring_src[i];

		r = ring_buffer__ring(l->rb, i);
		if (!r)
			continue;
		if (ring__consumer_pos(r) < rs->p0)
			ring__consume(r); /* failed: held back as a busy one */
		if (ring__consumer_pos(r) >= rs->p0)
			rs->clear_w = w;
		else if (rs->clear_w < wm)
			wm = rs->clear_w;
	}
	return wm;
}

int loader__poll(struct loader *l, int timeout_ms)
{
	struct epoll_event ev;
	struct ring *r;
	unsigned int i;
	uint64_t w;
	int n, m;

	n = epoll_wait(ring_buffer__epoll_fd(l->rb), &ev, 1, timeout_ms);
	if (n < 0)
		return -errno;
	/*
	 * The watermark: every record that a thread committed before one of
	 * its records stamped earlier than w is in its ring by now (unless
	 * a busy record hides it: ring_watermark()), so the stream may
	 * deliver everything stamped before w (src/core/stream.h).
	 */
	w = util_now_ns();
	for (i = 0; i < l->nrings; i++)
		if ((r = ring_buffer__ring(l->rb, i)))
			l->ring_src[i].p0 = ring__producer_pos(r);
	m = ring_buffer__consume(l->rb);
	if (m < 0)
		return m;
	w = ring_watermark(l, w);
	/* keyed spans whose stop did not come, every half timeout (10 ms
	 * to 1 s apart: a span expires at most 1.5 timeouts, or timeout +
	 * 1 s, after its start), stamped before w so that this flush
	 * delivers them */
	if (l->keyed && l->opts.span_timeout_ns &&
	    w - l->kscan_ns >= kspans_period(l->opts.span_timeout_ns)) {
		l->kscan_ns = w;
		kspans_expire(l, w - 1, l->opts.span_timeout_ns);
	}
	if (l->unmerged.push) {
		l->unmerged.flush(l->unmerged.ctx, w, 0);
		return m;
	}
	n = stream__flush(l->stream, w);
	if (n < 0)
		return n;
	return m;
}

int loader__drain(struct loader *l)
{
	int m, n;

	m = ring_buffer__consume(l->rb);
	if (m < 0)
		return m;
	if (l->unmerged.push) {
		l->unmerged.flush(l->unmerged.ctx, 0, 1);
		return m;
	}
	n = stream__drain(l->stream);
	return n < 0 ? n : m;
}

uint64_t loader__rb_bytes(const struct loader *l, unsigned int *nrings)
{
	if (nrings)
		*nrings = l->nrings;
	return l->opts.rb_bytes;
}
