// SPDX-License-Identifier: GPL-2.0-only
/*
 * Named timers (IPROF_REC_NAME): the table of (timer, value) names that
 * named nodes' ids index (AGG_NAME_TIMER), and the record that names a
 * thread's next START.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/agg_int.h"

#define NAME_TAB_BITS 6

static uint32_t name_hash(uint32_t timer, uint64_t value, uint32_t bits)
{
	return hash_u64(value ^ ((uint64_t)timer << 40 | timer), bits);
}

/* name_grow() - double the index (or create it); 0 or -ENOMEM */
static int name_grow(struct agg *a)
{
	uint32_t bits = a->name_bits ? a->name_bits + 1 : NAME_TAB_BITS, i, j;
	uint32_t *tab = calloc((size_t)1 << bits, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < a->nnames; i++) {
		j = name_hash(a->names[i].timer, a->names[i].value, bits);
		while (tab[j])
			j = (j + 1) & ((1u << bits) - 1);
		tab[j] = i + 1;
	}
	free(a->name_tab);
	a->name_tab = tab;
	a->name_bits = bits;
	return 0;
}

/*
 * agg_name_intern() - the node timer id of @timer named @value: its
 * AGG_NAME_TIMER id, added if new; AGG_OTHER_TIMER for a new name when the
 * table holds max_paths names; AGG_ROOT_TIMER on ENOMEM.
 */
uint32_t agg_name_intern(struct agg *a, uint32_t timer, uint64_t value)
{
	uint32_t j, k;
	struct agg_name *v;

	if (a->name_bits) {
		j = name_hash(timer, value, a->name_bits);
		for (; (k = a->name_tab[j]);
		     j = (j + 1) & ((1u << a->name_bits) - 1))
			if (a->names[k - 1].timer == timer &&
			    a->names[k - 1].value == value)
				return AGG_NAME_TIMER(k - 1);
	}
	if (a->max_paths && a->nnames >= a->max_paths)
		return AGG_OTHER_TIMER;
	if (a->nnames >= 0x3fffffffu)
		return AGG_OTHER_TIMER; /* the ids' range */
	if (a->nnames == a->names_cap) {
		uint32_t cap = a->names_cap ? 2 * a->names_cap : 64;

		v = realloc(a->names, cap * sizeof(*v));
		if (!v)
			return AGG_ROOT_TIMER;
		a->names = v;
		a->names_cap = cap;
	}
	if ((a->nnames + 1) * 2 > (a->name_bits ? 1u << a->name_bits : 0) &&
	    name_grow(a))
		return AGG_ROOT_TIMER;
	a->names[a->nnames].timer = timer;
	a->names[a->nnames].value = value;
	j = name_hash(timer, value, a->name_bits);
	while (a->name_tab[j])
		j = (j + 1) & ((1u << a->name_bits) - 1);
	a->name_tab[j] = ++a->nnames;
	return AGG_NAME_TIMER(a->nnames - 1);
}

/*
 * agg_do_name() - IPROF_REC_NAME: the thread's next START of the record's
 * timer at its depth goes under the node of that name.  0, -EINVAL for a
 * malformed record, -ENOMEM.
 */
int agg_do_name(struct agg *a, const void *rec)
{
	struct iprof_rec_name r;
	struct athread *t;
	uint32_t id;

	memcpy(&r, rec, sizeof(r)); /* @rec may be unaligned */
	if (r.timer >= a->ntimers || !r.depth || r.flags & ~IPROF_F_RESYNC) {
		a->stats.malformed++;
		return -EINVAL;
	}
	t = agg_thread_get(a, r.tid, 1);
	if (!t) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	id = agg_name_intern(a, r.timer,
			     (uint64_t)r.value_hi << 32 | r.value_lo);
	if (id == AGG_ROOT_TIMER) {
		a->stats.nomem++;
		t->name_set = 0;
		return -ENOMEM;
	}
	t->name_set = 1;
	t->name_timer = r.timer;
	t->name_depth = r.depth;
	t->name_id = id;
	return 0;
}

void agg_names_free(struct agg *a)
{
	free(a->names);
	free(a->name_tab);
	a->names = NULL;
	a->name_tab = NULL;
	a->nnames = a->names_cap = a->name_bits = 0;
}

int agg__name_of(const struct agg *a, uint32_t id, uint32_t *timer,
		 uint64_t *value)
{
	uint32_t i = id & ~0x40000000u;

	if (!AGG_TIMER_IS_NAME(id) || i >= a->nnames)
		return -ENOENT;
	*timer = a->names[i].timer;
	*value = a->names[i].value;
	return 0;
}

uint32_t agg__base_timer(const struct agg *a, uint32_t id)
{
	uint32_t t;
	uint64_t v;

	return agg__name_of(a, id, &t, &v) ? id : t;
}
