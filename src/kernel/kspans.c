// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keyed spans' map: sizing and expiry (src/kernel/kspans.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "iprof/abi.h"
#include "iprof/stream.h"
#include "kernel/kspans.h"
#include "kernel/loader_int.h"

/* bpf/iprof.bpf.h's struct kspan_val, as the map holds it */
struct kval {
	uint64_t ts;
	uint32_t tid, tgid, id;
	uint16_t ctx, cpu;
};

_Static_assert(sizeof(struct kval) == 24, "struct kspan_val of bpf/");

int plan_keyed(const struct plan *p)
{
	uint32_t i;

	for (i = 0; i < p->nactions; i++)
		if (p->actions[i].flags & IPROF_A_KEYED)
			return 1;
	return 0;
}

void kspans_size(struct loader *l, const struct plan *p, uint32_t keys)
{
	bpf_map__set_max_entries(l->skel->maps.kspans,
				 plan_keyed(p) ? (keys ? keys :
							 KSPANS_DEFAULT_KEYS) :
						 1);
	bpf_map__set_max_entries(l->skel->maps.kfull,
				 p->ntimers ? p->ntimers : 1);
}

/* Hand @r to where the ring records of source @src go. */
static int inject(struct loader *l, unsigned int src,
		  const struct iprof_rec_key *r)
{
	if (src >= l->nrings)
		src = 0;
	if (l->unmerged.push)
		return l->unmerged.push(l->unmerged.ctx, src, r, sizeof(*r));
	return stream__push(l->stream, src, r, sizeof(*r));
}

int kspans_expire(struct loader *l, uint64_t now_ns, uint64_t timeout_ns)
{
	int fd = bpf_map__fd(l->skel->maps.kspans);
	uint32_t cap = bpf_map__max_entries(l->skel->maps.kspans), n = 0, i;
	struct iprof_kkey *keys, k;
	struct kval v;
	uint64_t steps = 0;
	int ret = 0, got;

	keys = calloc(cap ? cap : 1, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	/* gather first: a delete while walking restarts bpf_map_get_next_key */
	got = bpf_map_get_next_key(fd, NULL, &k);
	/* at most two laps: a key deleted under the cursor restarts the
	 * walk (htab_map_get_next_key()) */
	while (!got && n < cap && steps++ < 2ull * cap) {
		if (!bpf_map_lookup_elem(fd, &k, &v) && now_ns > v.ts &&
		    now_ns - v.ts > timeout_ns)
			keys[n++] = k;
		got = bpf_map_get_next_key(fd, &k, &k);
	}
	for (i = 0; i < n; i++) {
		struct iprof_rec_key r;

		/* atomically: what is deleted is what is reported */
		if (bpf_map_lookup_and_delete_elem(fd, &keys[i], &v))
			continue; /* its stop came meanwhile */
		memset(&r, 0, sizeof(r));
		r.type = IPROF_REC_KEXPIRED;
		if (now_ns <= v.ts || now_ns - v.ts <= timeout_ns) {
			/* a new start of the key since the walk: back it
			 * goes (a stop in between misses it: it is then
			 * expired later, counted); if yet another start
			 * took the key meanwhile, it replaced this one */
			if (!bpf_map_update_elem(fd, &keys[i], &v, BPF_NOEXIST))
				continue;
			r.type = IPROF_REC_KREPLACED;
		}
		r.size = sizeof(r);
		r.timer = keys[i].timer;
		r.tid = v.tid;
		r.tgid = v.tgid;
		r.ts = now_ns;
		r.ctx = v.ctx;
		r.cpu = v.cpu;
		r.id = v.id;
		if (inject(l, v.cpu, &r) == 0)
			ret++;
	}
	free(keys);
	return ret;
}

uint64_t kspans_full(struct loader *l, uint32_t timer)
{
	uint64_t v = 0;

	bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.kfull), &timer, &v);
	return v;
}
