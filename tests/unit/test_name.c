/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of named timers (src/core/agg_name.c, IPROF_REC_NAME): each
 * distinct value is a node of its own under the same parent, with exactly
 * its calls; a NAME not followed by its START names nothing; beyond
 * --max-paths names a new one goes to [other]; agg__merge() matches names
 * by value, not by id.  Text names (IPROF_REC_NAMESTR): a head and its
 * chunks, parts joined by ':', a part that faulted, a part cut at its
 * bound marked, matched by their bytes; report_name_text()'s escapes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/agg.h"
#include "iprof/report.h"
#include "rec.h"

enum { OUTER = 0, NAMED = 1, NTIMERS = 2 };

static void name(struct agg *a, uint32_t tid, uint32_t timer, uint16_t depth,
		 uint64_t value, uint64_t ts)
{
	struct iprof_rec_name r = {
		.type = IPROF_REC_NAME,
		.size = sizeof(r),
		.timer = timer,
		.tid = tid,
		.value_lo = (uint32_t)value,
		.ts = ts,
		.depth = depth,
		.value_hi = (uint32_t)(value >> 32),
	};

	assert_int_equal(agg__push(a, &r, sizeof(r)), 0);
}

/* one call of NAMED named @value at depth @d, @dur ns */
static void call_at(struct agg *a, uint32_t tid, uint16_t d, uint64_t value,
		    uint64_t *ts, uint64_t dur)
{
	name(a, tid, NAMED, d, value, *ts);
	assert_int_equal(
		rec_push(a, IPROF_REC_START, 0, NAMED, tid, *ts, d, 0, 0), 0);
	*ts += dur;
	assert_int_equal(
		rec_push(a, IPROF_REC_STOP, 0, NAMED, tid, *ts, d, 0, 0), 0);
	*ts += 1;
}

/* ... under OUTER (depth 2), or as a root call */
#define named_call(a, tid, value, ts, dur) call_at(a, tid, 2, value, ts, dur)
#define root_call(a, tid, value, ts, dur) call_at(a, tid, 1, value, ts, dur)

/* the child of @p named @value of timer NAMED, or NULL */
static const struct agg_node *named(const struct agg *a,
				    const struct agg_node *p, uint64_t value)
{
	uint32_t t;
	uint64_t v;

	for (p = p->child; p; p = p->next)
		if (!agg__name_of(a, p->timer, &t, &v) && t == NAMED &&
		    v == value)
			return p;
	return NULL;
}

static unsigned int nchildren(const struct agg_node *n)
{
	unsigned int k = 0;

	for (n = n->child; n; n = n->next)
		k++;
	return k;
}

/* values 0x5401 x3, 7 x1, 2^40 + 1 x2 (the high half counts) and an
 * unnamed call of the same timer: four nodes under OUTER */
static void distinct_values(void **state)
{
	struct agg *a = agg__new(NTIMERS);
	const struct agg_node *o, *n;
	uint64_t ts = 100;
	uint32_t t;
	uint64_t v;

	(void)state;
	assert_non_null(a);
	assert_int_equal(
		rec_push(a, IPROF_REC_START, 0, OUTER, 9, ts++, 1, 0, 0), 0);
	named_call(a, 9, 0x5401, &ts, 10);
	named_call(a, 9, 7, &ts, 20);
	named_call(a, 9, 0x5401, &ts, 10);
	named_call(a, 9, (1ull << 40) + 1, &ts, 5);
	named_call(a, 9, 0x5401, &ts, 10);
	named_call(a, 9, (1ull << 40) + 1, &ts, 5);
	/* a NAME for another depth, then an unnamed START: not named */
	name(a, 9, NAMED, 3, 7, ts);
	assert_int_equal(
		rec_push(a, IPROF_REC_START, 0, NAMED, 9, ts++, 2, 0, 0), 0);
	assert_int_equal(
		rec_push(a, IPROF_REC_STOP, 0, NAMED, 9, ts++, 2, 0, 0), 0);
	assert_int_equal(
		rec_push(a, IPROF_REC_STOP, 0, OUTER, 9, ts++, 1, 0, 0), 0);

	o = agg__root(a)->child;
	assert_non_null(o);
	assert_int_equal(o->timer, OUTER);
	assert_int_equal(o->count, 1);
	assert_int_equal(nchildren(o), 4);
	n = named(a, o, 0x5401);
	assert_non_null(n);
	assert_int_equal(n->count, 3);
	assert_int_equal(n->total_ns, 30);
	assert_int_equal(named(a, o, 7)->count, 1);
	assert_int_equal(named(a, o, 7)->total_ns, 20);
	assert_int_equal(named(a, o, (1ull << 40) + 1)->count, 2);
	assert_null(named(a, o, 1)); /* the low half alone is no name */
	for (n = o->child; n && n->timer != NAMED; n = n->next)
		;
	assert_non_null(n);
	assert_int_equal(n->count, 1);
	assert_int_equal(agg__base_timer(a, named(a, o, 7)->timer), NAMED);
	assert_int_equal(agg__base_timer(a, OUTER), OUTER);
	assert_int_equal(agg__name_of(a, OUTER, &t, &v), -ENOENT);
	assert_int_equal(agg__stats(a)->mismatches, 0);
	assert_int_equal(agg__stats(a)->malformed, 0);
	agg__free(a);
}

/* at 2 --max-paths names a third new one goes to [other]; old names go on */
static void max_paths_other(void **state)
{
	struct agg *a = agg__new(NTIMERS);
	const struct agg_node *n, *other = NULL;
	uint64_t ts = 100;
	unsigned int named_nodes = 0;

	(void)state;
	assert_non_null(a);
	agg__set_limits(a, 2, 0);
	root_call(a, 5, 1, &ts, 10);
	root_call(a, 5, 2, &ts, 10);
	root_call(a, 5, 3, &ts, 10);
	root_call(a, 5, 4, &ts, 10);
	root_call(a, 5, 1, &ts, 10);
	for (n = agg__root(a)->child; n; n = n->next) {
		if (n->timer == AGG_OTHER_TIMER)
			other = n;
		else if (AGG_TIMER_IS_NAME(n->timer))
			named_nodes++;
	}
	assert_int_equal(named_nodes, 2);
	assert_non_null(other);
	assert_int_equal(other->count, 2);
	assert_int_equal(agg__stats(a)->folded_paths, 2);
	assert_int_equal(named(a, agg__root(a), 1)->count, 2);
	agg__free(a);
}

/* two aggregators that interned the same names in other orders merge by
 * value */
static void merge_by_value(void **state)
{
	struct agg *a = agg__new(NTIMERS), *b = agg__new(NTIMERS);
	uint64_t ts = 100;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	root_call(a, 5, 11, &ts, 10);
	root_call(a, 5, 22, &ts, 10);
	root_call(b, 6, 22, &ts, 10);
	root_call(b, 6, 33, &ts, 10);
	root_call(b, 6, 11, &ts, 10);
	assert_int_equal(agg__merge(a, b), 0);
	assert_int_equal(nchildren(agg__root(a)), 3);
	assert_int_equal(named(a, agg__root(a), 11)->count, 2);
	assert_int_equal(named(a, agg__root(a), 22)->count, 2);
	assert_int_equal(named(a, agg__root(a), 33)->count, 1);
	agg__free(a);
	agg__free(b);
}

/* a NAME of a timer out of range or with flags other than RESYNC */
static void malformed(void **state)
{
	struct agg *a = agg__new(NTIMERS);
	struct iprof_rec_name r = {
		.type = IPROF_REC_NAME,
		.size = sizeof(r),
		.timer = NTIMERS,
		.tid = 1,
		.depth = 1,
	};

	(void)state;
	assert_non_null(a);
	assert_int_equal(agg__push(a, &r, sizeof(r)), -EINVAL);
	r.timer = NAMED;
	r.depth = 0;
	assert_int_equal(agg__push(a, &r, sizeof(r)), -EINVAL);
	r.depth = 1;
	r.flags = IPROF_F_CTX;
	assert_int_equal(agg__push(a, &r, sizeof(r)), -EINVAL);
	assert_int_equal(agg__stats(a)->malformed, 3);
	agg__free(a);
}

/* IPROF_REC_NAMESTR: the head, then its text in 16-byte chunks, as
 * src/kernel/rings.c cuts them (@len[i] IPROF_NAME_FAULT: no bytes) */
static void namestr_cut(struct agg *a, uint32_t tid, uint16_t depth,
			uint8_t cut, uint32_t nparts, const char *p0,
			uint8_t l0, const char *p1, uint8_t l1, uint64_t ts)
{
	struct iprof_rec_namestr h = {
		.type = IPROF_REC_NAMESTR,
		.size = sizeof(h),
		.timer = NAMED,
		.tid = tid,
		.nparts = (uint8_t)nparts,
		.len = {l0, l1},
		.cut = cut,
		.ts = ts,
		.depth = depth,
	};
	char text[2 * IPROF_NAME_STR];
	size_t n = 0, off;

	if (l0 != IPROF_NAME_FAULT) {
		memcpy(text, p0, l0);
		n = l0;
	}
	if (nparts > 1 && l1 != IPROF_NAME_FAULT) {
		memcpy(text + n, p1, l1);
		n += l1;
	}
	assert_int_equal(agg__push(a, &h, sizeof(h)), 0);
	for (off = 0; off < n; off += IPROF_NAME_CHUNK) {
		struct iprof_rec_nametext c = {
			.type = IPROF_REC_NAMESTR,
			.flags = IPROF_F_TEXT,
			.size = sizeof(c),
			.tid = tid,
			.ts = ts,
		};
		char t[IPROF_NAME_CHUNK] = {0};

		memcpy(t, text + off, n - off < 16 ? n - off : 16);
		memcpy(c.t0, t, 4);
		memcpy(c.t1, t + 4, 4);
		memcpy(c.t2, t + 8, 8);
		assert_int_equal(agg__push(a, &c, sizeof(c)), 0);
	}
}

/* namestr_cut() of strings none of which was cut */
static void namestr(struct agg *a, uint32_t tid, uint16_t depth,
		    uint32_t nparts, const char *p0, uint8_t l0, const char *p1,
		    uint8_t l1, uint64_t ts)
{
	namestr_cut(a, tid, depth, 0, nparts, p0, l0, p1, l1, ts);
}

/* one root call of NAMED named by text, @cut: head.cut */
static void text_call_cut(struct agg *a, uint32_t tid, uint8_t cut,
			  uint32_t nparts, const char *p0, uint8_t l0,
			  const char *p1, uint8_t l1, uint64_t *ts)
{
	namestr_cut(a, tid, 1, cut, nparts, p0, l0, p1, l1, *ts);
	assert_int_equal(
		rec_push(a, IPROF_REC_START, 0, NAMED, tid, *ts, 1, 0, 0), 0);
	*ts += 10;
	assert_int_equal(
		rec_push(a, IPROF_REC_STOP, 0, NAMED, tid, *ts, 1, 0, 0), 0);
	*ts += 1;
}

/* one root call of NAMED named by text */
static void text_call(struct agg *a, uint32_t tid, uint32_t nparts,
		      const char *p0, uint8_t l0, const char *p1, uint8_t l1,
		      uint64_t *ts)
{
	namestr(a, tid, 1, nparts, p0, l0, p1, l1, *ts);
	assert_int_equal(
		rec_push(a, IPROF_REC_START, 0, NAMED, tid, *ts, 1, 0, 0), 0);
	*ts += 10;
	assert_int_equal(
		rec_push(a, IPROF_REC_STOP, 0, NAMED, tid, *ts, 1, 0, 0), 0);
	*ts += 1;
}

/* the root child of NAMED named by text @s, or NULL */
static const struct agg_node *texted(const struct agg *a, const char *s)
{
	const struct agg_node *p;
	const char *x;
	uint32_t t, n;

	for (p = agg__root(a)->child; p; p = p->next)
		if (!agg__name_text(a, p->timer, &t, &x, &n) && t == NAMED &&
		    n == strlen(s) && !memcmp(x, s, n))
			return p;
	return NULL;
}

/* text names: one part over several chunks, two parts, a fault, the
 * empty string, and a text next to the integer of the same bytes */
static void text_names(void **state)
{
	static const char lng[] = "/a/path/longer/than/one/chunk.py";
	struct agg *a = agg__new(NTIMERS);
	uint64_t ts = 100;
	uint32_t t, n;
	const char *x;
	uint64_t v;

	(void)state;
	assert_non_null(a);
	text_call(a, 3, 1, "GET", 3, NULL, 0, &ts);
	text_call(a, 3, 1, lng, sizeof(lng) - 1, NULL, 0, &ts);
	text_call(a, 3, 1, "GET", 3, NULL, 0, &ts);
	text_call(a, 3, 2, lng, sizeof(lng) - 1, "main", 4, &ts);
	text_call(a, 3, 2, "x.py", 4, NULL, IPROF_NAME_FAULT, &ts);
	text_call(a, 3, 1, NULL, IPROF_NAME_FAULT, NULL, 0, &ts);
	text_call(a, 3, 1, "", 0, NULL, 0, &ts);
	root_call(a, 3, 0x544547, &ts, 10); /* "GET" as an integer */
	assert_int_equal(nchildren(agg__root(a)), 7);
	assert_int_equal(texted(a, "GET")->count, 2);
	assert_int_equal(texted(a, lng)->count, 1);
	assert_int_equal(
		texted(a, "/a/path/longer/than/one/chunk.py:main")->count, 1);
	assert_int_equal(texted(a, "x.py:(fault)")->count, 1);
	assert_int_equal(texted(a, "(fault)")->count, 1);
	/* the calls a part of whose name could not be read */
	assert_int_equal(agg__stats(a)->name_faults, 2);
	assert_int_equal(texted(a, "")->count, 1);
	assert_int_equal(named(a, agg__root(a), 0x544547)->count, 1);
	assert_int_equal(agg__name_text(a,
					named(a, agg__root(a), 0x544547)->timer,
					&t, &x, &n),
			 -ENOENT);
	assert_int_equal(agg__name_of(a, texted(a, "GET")->timer, &t, &v), 0);
	assert_int_equal(t, NAMED);
	assert_int_equal(agg__stats(a)->malformed, 0);
	/* a chunk with no head; a head with a part too long */
	{
		struct iprof_rec_nametext c = {.type = IPROF_REC_NAMESTR,
					       .flags = IPROF_F_TEXT,
					       .size = sizeof(c),
					       .tid = 77};
		struct iprof_rec_namestr h = {.type = IPROF_REC_NAMESTR,
					      .size = sizeof(h),
					      .timer = NAMED,
					      .tid = 77,
					      .nparts = 1,
					      .len = {IPROF_NAME_STR, 0},
					      .depth = 1};

		assert_int_equal(agg__push(a, &c, sizeof(c)), -EINVAL);
		assert_int_equal(agg__push(a, &h, sizeof(h)), -EINVAL);
		assert_int_equal(agg__stats(a)->malformed, 2);
	}
	agg__free(a);
}

/* text names merge by their bytes */
static void merge_by_text(void **state)
{
	struct agg *a = agg__new(NTIMERS), *b = agg__new(NTIMERS);
	uint64_t ts = 100;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	text_call(a, 5, 1, "aa", 2, NULL, 0, &ts);
	text_call(a, 5, 1, "bb", 2, NULL, 0, &ts);
	text_call(b, 6, 1, "cc", 2, NULL, 0, &ts);
	text_call(b, 6, 1, "bb", 2, NULL, 0, &ts);
	text_call(b, 6, 1, "aa", 2, NULL, 0, &ts);
	assert_int_equal(agg__merge(a, b), 0);
	assert_int_equal(nchildren(agg__root(a)), 3);
	assert_int_equal(texted(a, "aa")->count, 2);
	assert_int_equal(texted(a, "bb")->count, 2);
	assert_int_equal(texted(a, "cc")->count, 1);
	agg__free(a);
	agg__free(b);
}

/*
 * Strings cut at their bound (head.cut, a newcomer read a cut SQL text as
 * a quoting bug): the mark after the kept bytes, agg__name_cut(); a string
 * of exactly 63 bytes (no bit) whole; the bit on a shorter part ignored;
 * each part of two its own; kept through agg__merge(); the label keeps the
 * mark (valid UTF-8).
 */
static void cut_names(void **state)
{
	struct agg *a = agg__new(NTIMERS), *b = agg__new(NTIMERS);
	char s63[IPROF_NAME_STR - 1], w[2 * IPROF_NAME_STR + 16];
	const struct agg_node *n;
	uint64_t ts = 100;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	memset(s63, 'q', sizeof(s63));
	text_call_cut(a, 3, 1, 1, s63, 63, NULL, 0, &ts);
	text_call_cut(a, 3, 1, 1, s63, 63, NULL, 0, &ts);
	text_call_cut(a, 3, 0, 1, s63, 63, NULL, 0, &ts);
	text_call_cut(a, 3, 1, 1, "short", 5, NULL, 0, &ts);
	text_call_cut(a, 3, 1, 2, s63, 63, "main", 4, &ts);
	text_call_cut(a, 3, 2, 2, "f.py", 4, s63, 63, &ts);
	assert_int_equal(nchildren(agg__root(a)), 5);
	snprintf(w, sizeof(w), "%.63s" AGG_NAME_CUT_MARK, s63);
	n = texted(a, w);
	assert_non_null(n);
	assert_int_equal(n->count, 2);
	assert_int_equal(agg__name_cut(a, n->timer), 1);
	snprintf(w, sizeof(w), "%.63s", s63);
	assert_int_equal(texted(a, w)->count, 1);
	assert_int_equal(agg__name_cut(a, texted(a, w)->timer), 0);
	assert_int_equal(agg__name_cut(a, texted(a, "short")->timer), 0);
	snprintf(w, sizeof(w), "%.63s" AGG_NAME_CUT_MARK ":main", s63);
	assert_int_equal(agg__name_cut(a, texted(a, w)->timer), 1);
	snprintf(w, sizeof(w), "f.py:%.63s" AGG_NAME_CUT_MARK, s63);
	assert_int_equal(agg__name_cut(a, texted(a, w)->timer), 1);
	assert_int_equal(agg__name_cut(a, OUTER), 0);
	assert_int_equal(agg__merge(b, a), 0);
	assert_int_equal(agg__name_cut(b, texted(b, w)->timer), 1);
	snprintf(w, sizeof(w), "%.63s", s63);
	assert_int_equal(agg__name_cut(b, texted(b, w)->timer), 0);
	{
		char l[64];

		report_name_text("ab" AGG_NAME_CUT_MARK, 5, l, sizeof(l));
		assert_string_equal(l, "ab\xe2\x80\xa6");
	}
	agg__free(a);
	agg__free(b);
}

/* report_summary() of @a into a malloc'ed string (@seed: its format) */
static char *summary(struct agg *a, int seed)
{
	struct report r = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	r.agg = a;
	assert_int_equal(report_summary(f, &r, seed), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * Two texts of one 64-bit hash (forced: agg__name_intern_hashed(), as no
 * two short strings are known to collide) are two names, each its own
 * node: "GET /b" is given the hash of "GET /a", then the calls named
 * "GET /a" (whose records hash it so) meet it in the table and are kept
 * apart by their text; the new name counted once as a collision, and
 * said after the table; a text of another timer with that hash is none
 */
static void hash_collision(void **state)
{
	struct agg *a = agg__new(NTIMERS);
	uint64_t ts = 100, h = 0xcbf29ce484222325ull;
	const char *x, *get_a = "GET /a";
	uint32_t b, c, t, n, i;
	char *out;

	(void)state;
	assert_non_null(a);
	for (i = 0; i < 6; i++)
		h = (h ^ (uint8_t)get_a[i]) * 0x100000001b3ull; /* FNV-1a */
	b = agg__name_intern_hashed(a, NAMED, "GET /b", 6, h);
	assert_true(AGG_TIMER_IS_NAME(b));
	assert_int_equal(agg__stats(a)->name_collisions, 0);
	text_call(a, 3, 1, get_a, 6, NULL, 0, &ts);
	text_call(a, 3, 1, get_a, 6, NULL, 0, &ts);
	assert_int_equal(nchildren(agg__root(a)), 1);
	assert_non_null(texted(a, "GET /a"));
	assert_int_equal(texted(a, "GET /a")->count, 2);
	assert_int_not_equal(texted(a, "GET /a")->timer, b);
	assert_int_equal(agg__stats(a)->name_collisions, 1);
	/* each found again by its text, nothing more counted */
	assert_int_equal(agg__name_intern_hashed(a, NAMED, "GET /b", 6, h), b);
	assert_int_equal(agg__name_intern_hashed(a, NAMED, get_a, 6, h),
			 texted(a, "GET /a")->timer);
	assert_int_equal(agg__name_text(a, b, &t, &x, &n), 0);
	assert_int_equal(n, 6);
	assert_memory_equal(x, "GET /b", 6);
	c = agg__name_intern_hashed(a, OUTER, "GET /c", 6, h);
	assert_true(AGG_TIMER_IS_NAME(c));
	assert_int_equal(agg__stats(a)->name_collisions, 1);
	out = summary(a, 0);
	assert_non_null(strstr(out, "names that share a hash: 1 name of a timer whose 64-bit hash another of its names has: each its own row here, but a stop that names its call (stop ARG) may have closed the other's frame\n"));
	free(out);
	out = summary(a, 1);
	assert_non_null(strstr(out, "# name collisions: count=1\n"));
	free(out);
	agg__free(a);
}

/* report_name_text(): UTF-8 kept, a backslash doubled, other bytes \xNN, cut at
 * the buffer's end */
static void name_text_escapes(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(report_name_text("a\"b\\c;d e", 9, b, sizeof(b)), 10);
	assert_string_equal(b, "a\"b\\\\c;d e");
	report_name_text("\xff\x01\x7f\xc3\xa9\xe2\x82", 7, b, sizeof(b));
	assert_string_equal(b, "\\xff\\x01\\x7f\xc3\xa9\\xe2\\x82");
	report_name_text("\xed\xa0\x80", 3, b, sizeof(b)); /* a surrogate */
	assert_string_equal(b, "\\xed\\xa0\\x80");
	assert_int_equal(report_name_text("abcdef", 6, b, 4), 3);
	assert_string_equal(b, "abc");
	assert_int_equal(report_name_text("\x01\x02", 2, b, 6), 4);
	assert_string_equal(b, "\\x01");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(distinct_values),
		cmocka_unit_test(max_paths_other),
		cmocka_unit_test(merge_by_value),
		cmocka_unit_test(malformed),
		cmocka_unit_test(text_names),
		cmocka_unit_test(merge_by_text),
		cmocka_unit_test(cut_names),
		cmocka_unit_test(name_text_escapes),
		cmocka_unit_test(hash_collision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
