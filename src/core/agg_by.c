/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aggregator's --by roots (agg__set_by()): one root per thread, process
 * or command name under the tree's root (agg_split_root()), made at the key
 * cap by folding idle roots (agg_key_root()), and named for the reports
 * (agg__split_name()).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

/*
 * agg_key_root() - the --by root of key @v (a tid, a tgid or a name's index),
 * created if new: beyond max_keys, the root idle longest is folded into
 * [other] first; with none idle, or beyond max_paths, [other] itself.
 * NULL on ENOMEM.
 */
struct agg_node *agg_key_root(struct agg *a, uint32_t v)
{
	struct agg_node *n = agg_child_find(a, &a->root, AGG_SPLIT_TIMER(v));

	if (n)
		return n;
	if (a->max_keys && a->nkeys >= a->max_keys) {
		if (!a->idle_head) {
			a->stats.folded_keys++;
			return agg_other_get(a);
		}
		agg_fold_root(a, a->idle_head);
	}
	agg_make_room(a);
	if (at_cap(a)) {
		a->stats.folded_paths++;
		return agg_other_get(a);
	}
	n = agg_child_get(a, &a->root, AGG_SPLIT_TIMER(v));
	if (n)
		a->nkeys++;
	return n;
}

/* comm_index() - the slot of name @name in a->comms (reused, or a free one,
 * or a new one); UINT32_MAX on ENOMEM. */
static uint32_t comm_index(struct agg *a, const char *name)
{
	uint32_t i, hole = UINT32_MAX;

	for (i = 0; i < a->ncomms; i++) {
		if (!a->comms[i][0])
			hole = hole == UINT32_MAX ? i : hole;
		else if (!strncmp(a->comms[i], name, IPROF_COMM_LEN))
			return i;
	}
	if (hole != UINT32_MAX)
		i = hole;
	else if (a->ncomms == a->comms_cap) {
		uint32_t cap = a->comms_cap ? 2 * a->comms_cap : 16;
		void *p = realloc(a->comms, cap * sizeof(*a->comms));

		if (!p)
			return UINT32_MAX;
		a->comms = p;
		a->comms_cap = cap;
	}
	snprintf(a->comms[i], IPROF_COMM_LEN, "%s", name);
	if (i == a->ncomms)
		a->ncomms++;
	return i;
}

/* agg_comm_root() - the --by comm root of @name, as agg_key_root(); NULL: ENOMEM */
struct agg_node *agg_comm_root(struct agg *a, const char *name)
{
	uint32_t i = comm_index(a, name);
	struct agg_node *n;

	if (i == UINT32_MAX)
		return NULL;
	n = agg_key_root(a, i);
	/* a name that got no root of its own keeps no slot */
	if (n != agg_child_find(a, &a->root, AGG_SPLIT_TIMER(i)))
		a->comms[i][0] = '\0';
	return n;
}

/* The parent of @t's top-level frames: the root, or its --by root. */
struct agg_node *agg_split_root(struct agg *a, struct athread *t)
{
	const char *name = t->comm[0] ? t->comm : "?";

	switch (a->by) {
	case AGG_BY_TID:
		return agg_key_root(a, t->tid);
	case AGG_BY_TGID:
		return agg_key_root(a, t->tgid);
	case AGG_BY_COMM:
		return agg_comm_root(a, name);
	default:
		return &a->root;
	}
}

int agg__set_by(struct agg *a, enum agg_by by)
{
	if (by > AGG_BY_COMM || a->stats.records)
		return -EINVAL;
	a->by = by;
	return 0;
}

const char *agg__split_name(const struct agg *a, uint32_t timer, char *buf,
			    size_t len)
{
	uint32_t v = timer & ~0x80000000u;

	if (timer == AGG_OTHER_TIMER)
		snprintf(buf, len, "[other]");
	else if (a->by == AGG_BY_COMM && v < a->ncomms) {
		char *c;

		snprintf(buf, len, "%s", a->comms[v]);
		/* a comm is any bytes: keep reports one line per node */
		for (c = buf; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	else
		snprintf(buf, len, "%s %u", a->by == AGG_BY_TGID ? "pid" : "tid",
			 v);
	return buf;
}
