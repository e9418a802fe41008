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
 * name_add() - a new name (@text NULL: the integer @value; else @len bytes
 * of @text, copied, whose hash is @value): its id, AGG_OTHER_TIMER beyond
 * max_paths names, AGG_ROOT_TIMER on ENOMEM.
 */
static uint32_t name_add(struct agg *a, uint32_t timer, uint64_t value,
			 const char *text, uint32_t len)
{
	struct agg_name *v;
	char *copy = NULL;
	uint32_t j;

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
	if (text) {
		copy = malloc(len ? len : 1);
		if (!copy)
			return AGG_ROOT_TIMER;
		memcpy(copy, text, len);
	}
	a->names[a->nnames].timer = timer;
	a->names[a->nnames].value = value;
	a->names[a->nnames].text = copy;
	a->names[a->nnames].tlen = len;
	a->names[a->nnames].cut = 0;
	j = name_hash(timer, value, a->name_bits);
	while (a->name_tab[j])
		j = (j + 1) & ((1u << a->name_bits) - 1);
	a->name_tab[j] = ++a->nnames;
	return AGG_NAME_TIMER(a->nnames - 1);
}

/*
 * agg_name_intern() - the node timer id of @timer named @value: its
 * AGG_NAME_TIMER id, added if new; AGG_OTHER_TIMER for a new name when the
 * table holds max_paths names; AGG_ROOT_TIMER on ENOMEM.
 */
uint32_t agg_name_intern(struct agg *a, uint32_t timer, uint64_t value)
{
	uint32_t j, k;

	if (a->name_bits) {
		j = name_hash(timer, value, a->name_bits);
		for (; (k = a->name_tab[j]);
		     j = (j + 1) & ((1u << a->name_bits) - 1))
			if (a->names[k - 1].timer == timer &&
			    a->names[k - 1].value == value &&
			    !a->names[k - 1].text)
				return AGG_NAME_TIMER(k - 1);
	}
	return name_add(a, timer, value, NULL, 0);
}

/* fnv1a64() - FNV-1a of @len bytes at @p: a text name's value */
static uint64_t fnv1a64(const char *p, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
	return h;
}

uint32_t agg__name_intern_hashed(struct agg *a, uint32_t timer,
				 const char *text, uint32_t len, uint64_t value)
{
	uint32_t j, k, id;
	int clash = 0;

	if (a->name_bits) {
		j = name_hash(timer, value, a->name_bits);
		for (; (k = a->name_tab[j]);
		     j = (j + 1) & ((1u << a->name_bits) - 1)) {
			const struct agg_name *n = &a->names[k - 1];

			if (n->timer != timer || n->value != value || !n->text)
				continue;
			if (n->tlen == len && !memcmp(n->text, text, len))
				return AGG_NAME_TIMER(k - 1);
			clash = 1; /* another text of this hash */
		}
	}
	id = name_add(a, timer, value, text, len);
	if (clash && AGG_TIMER_IS_NAME(id))
		a->stats.name_collisions++;
	return id;
}

/*
 * agg_name_intern_text() - the node timer id of @timer named by the @len
 * bytes of @text (copied), as agg_name_intern() for an integer: by its
 * text, its hash (FNV-1a, as BPF keys it) only where it is looked for.
 */
uint32_t agg_name_intern_text(struct agg *a, uint32_t timer, const char *text,
			      uint32_t len)
{
	return agg__name_intern_hashed(a, timer, text, len,
				       fnv1a64(text, len));
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

/* name_set() - @t's next START of @timer at @depth goes under node @id */
static int name_set(struct agg *a, struct athread *t, uint32_t timer,
		    uint32_t depth, uint32_t id)
{
	t->name_set = 0;
	if (id == AGG_ROOT_TIMER) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	t->name_set = 1;
	t->name_timer = timer;
	t->name_depth = depth;
	t->name_id = id;
	return 0;
}

uint32_t agg__namestr_join(const struct iprof_rec_namestr *h, const char *text,
			   char *out, int *cut)
{
	static const char fault[] = "(fault)", mark[] = AGG_NAME_CUT_MARK;
	uint32_t i, n = 0, at = 0, len;

	*cut = 0;
	for (i = 0; i < h->nparts && i < IPROF_NAME_PARTS; i++) {
		if (i)
			out[n++] = ':';
		len = h->len[i];
		if (len == IPROF_NAME_FAULT) {
			memcpy(out + n, fault, sizeof(fault) - 1);
			n += sizeof(fault) - 1;
			continue;
		}
		memcpy(out + n, text + at, len);
		n += len;
		at += len;
		/* only a part that filled its bound can have been cut */
		if (h->cut & 1u << i && len == IPROF_NAME_STR - 1) {
			memcpy(out + n, mark, sizeof(mark) - 1);
			n += sizeof(mark) - 1;
			*cut = 1;
		}
	}
	return n;
}

/* namestr_done() - @t's text name complete: its text (agg__namestr_join())
 * interned, set */
static int namestr_done(struct agg *a, struct athread *t)
{
	struct name_text *x = t->ntext;
	struct iprof_rec_namestr h = x->head;
	char s[AGG_NAMESTR_MAX];
	uint32_t i, n, id;
	int cut;

	n = agg__namestr_join(&h, x->text, s, &cut);
	/* a call named (fault) (a part not read) counted once */
	for (i = 0; i < h.nparts && i < IPROF_NAME_PARTS; i++)
		if (h.len[i] == IPROF_NAME_FAULT) {
			a->stats.name_faults++;
			break;
		}
	t->ntext = NULL;
	free(x);
	id = agg_name_intern_text(a, h.timer, s, n);
	agg_name_set_cut(a, id, cut);
	return name_set(a, t, h.timer, h.depth, id);
}

/* namestr_text() - a text chunk (IPROF_F_TEXT) of @t's pending name */
static int namestr_text(struct agg *a, struct athread *t, const void *rec)
{
	struct iprof_rec_nametext c;
	struct name_text *x = t->ntext;
	char b[IPROF_NAME_CHUNK];
	uint32_t n;

	memcpy(&c, rec, sizeof(c));
	if (!x) {
		a->stats.malformed++; /* no head before it */
		return -EINVAL;
	}
	memcpy(b, c.t0, 4);
	memcpy(b + 4, c.t1, 4);
	memcpy(b + 8, c.t2, 8);
	n = x->need - x->have < sizeof(b) ? x->need - x->have : sizeof(b);
	memcpy(x->text + x->have, b, n);
	x->have += n;
	return x->have == x->need ? namestr_done(a, t) : 0;
}

/*
 * agg_do_namestr() - IPROF_REC_NAMESTR: a head (its text chunks follow at
 * once on the thread) or a chunk; the text complete, the thread's next
 * START of the head's timer at its depth goes under the node of that
 * name.  0, -EINVAL for a malformed record, -ENOMEM.
 */
int agg_do_namestr(struct agg *a, const void *rec)
{
	struct iprof_rec_namestr h;
	struct athread *t;
	uint32_t i, need = 0;

	memcpy(&h, rec, sizeof(h));
	t = agg_thread_get(a, h.tid, 1);
	if (!t) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	if (h.flags == IPROF_F_TEXT)
		return namestr_text(a, t, rec);
	t->name_set = 0;
	free(t->ntext);
	t->ntext = NULL;
	if (h.timer >= a->ntimers || !h.depth || h.flags & ~IPROF_F_RESYNC ||
	    h.nparts < 1 || h.nparts > IPROF_NAME_PARTS)
		goto bad;
	for (i = 0; i < h.nparts; i++) {
		if (h.len[i] != IPROF_NAME_FAULT && h.len[i] >= IPROF_NAME_STR)
			goto bad;
		if (h.len[i] != IPROF_NAME_FAULT)
			need += h.len[i];
	}
	t->ntext = calloc(1, sizeof(*t->ntext));
	if (!t->ntext) {
		a->stats.nomem++;
		return -ENOMEM;
	}
	t->ntext->head = h;
	t->ntext->need = need;
	return need ? 0 : namestr_done(a, t);
bad:
	a->stats.malformed++;
	return -EINVAL;
}
void agg_name_set_cut(struct agg *a, uint32_t id, int cut)
{
	uint32_t i = id & ~0x40000000u;

	if (cut && AGG_TIMER_IS_NAME(id) && i < a->nnames)
		a->names[i].cut = 1;
}

int agg__name_cut(const struct agg *a, uint32_t id)
{
	uint32_t i = id & ~0x40000000u;

	return AGG_TIMER_IS_NAME(id) && i < a->nnames && a->names[i].cut;
}

void agg_names_free(struct agg *a)
{
	uint32_t i;

	for (i = 0; i < a->nnames; i++)
		free(a->names[i].text);
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

int agg__name_text(const struct agg *a, uint32_t id, uint32_t *timer,
		   const char **text, uint32_t *len)
{
	uint32_t i = id & ~0x40000000u;

	if (!AGG_TIMER_IS_NAME(id) || i >= a->nnames || !a->names[i].text)
		return -ENOENT;
	*timer = a->names[i].timer;
	*text = a->names[i].text;
	*len = a->names[i].tlen;
	return 0;
}
