/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of --offcpu-stacks in the aggregator (src/core/agg_offcpu.c,
 * include/iprof/offcpu.h): blocked periods charged to the stacks and
 * wakers their records named, to every node open (outer and inner), adding
 * up to the nodes' blocked time; runnable periods never charged; a waker
 * seen long before the block, or a stack of another time, not used;
 * at most OFF_TOP_MAX stacks per node, the rest in block_more_ns;
 * agg__merge() adds them up; user stacks (--offcpu-stacks=user) kept with
 * the kernel ones; without the records nothing is kept.  The table's
 * section (src/report/offcpu.c): stacks that name the same functions (and
 * have the same user stack) are one, the others shown to their first
 * differing frame; with user stacks, the same kernel names over two user
 * stacks stay two lines, adding up to the node's blocked time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "iprof/agg.h"
#include "iprof/offcpu.h"
#include "iprof/report.h"
#include "rec.h"

#define TID 100
#define WAKER 200

/* val() - one OFFSTACK or WAKER record part of thread @tid at @ts */
static void val(struct agg *a, uint8_t type, uint32_t part, uint32_t tid,
		uint64_t ts, uint64_t v0, uint64_t v1)
{
	struct iprof_rec_val r = {
		.type = type,
		.flags = (uint8_t)(part << IPROF_VAL_PAIR_SHIFT),
		.size = sizeof(r),
		.lo0 = (uint32_t)v0,
		.tid = tid,
		.hi0 = (uint32_t)(v0 >> 32),
		.ts = ts,
		.lo1 = (uint32_t)v1,
		.hi1 = (uint32_t)(v1 >> 32),
	};

	assert_int_equal(agg__push(a, &r, sizeof(r)), 0);
}

/* block() - TID blocks at @t0 on stack (@f0, @f1, @f2), woken at @tw by
 * waker @wtid (0: none seen) in stack (@w0), back on CPU at @t1 */
static void block(struct agg *a, uint64_t t0, uint64_t f0, uint64_t f1,
		  uint64_t f2, uint64_t tw, uint32_t wtid, uint64_t w0,
		  uint64_t t1, uint16_t depth)
{
	char comm[16] = "holder";
	uint64_t c0, c1;

	val(a, IPROF_REC_OFFSTACK, 0, TID, t0, f0, f1);
	val(a, IPROF_REC_OFFSTACK, 1, TID, t0, f2, 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, TID, t0,
				  depth, 0, IPROF_OFF_BLOCKED),
			 0);
	if (wtid) {
		memcpy(&c0, comm, 8);
		memcpy(&c1, comm + 8, 8);
		val(a, IPROF_REC_WAKER, 0, TID, tw,
		    wtid | (uint64_t)wtid << 32, IPROF_CTX_TASK | 1 << 8);
		val(a, IPROF_REC_WAKER, 1, TID, tw, c0, c1);
		val(a, IPROF_REC_WAKER, 2, TID, tw, w0, 0);
	}
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, TID, t1,
				  depth, 0, 0),
			 0);
}

static void test_charged(void **state)
{
	struct agg *a = agg__new(2);
	const struct agg_node *outer, *inner;
	const struct off_block *b[OFF_TOP_MAX];
	const struct off_waker *w[OFF_TOP_MAX];

	(void)state;
	assert_non_null(a);
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, TID, 1000, 1, 0, 0), 0);
	/* blocked in outer: 100 ns on stack A, woken by WAKER */
	block(a, 1100, 0xa0, 0xa1, 0xa2, 1150, WAKER, 0xf0, 1200, 1);
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 1, TID, 1300, 2, 0, 0), 0);
	/* in inner: 300 ns on stack B, 200 ns more on A; runnable 50 ns */
	block(a, 1400, 0xb0, 0xb1, 0xb2, 1650, WAKER, 0xf0, 1700, 2);
	block(a, 1800, 0xa0, 0xa1, 0xa2, 1990, WAKER, 0xf0, 2000, 2);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, TID, 2100, 2,
				  0, IPROF_OFF_RUNQ),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, TID, 2150, 2,
				  0, 0),
			 0);
	/* a waker long before a block (woke no wait of it) and a stack of
	 * another time: 100 ns charged to no stack and no waker */
	val(a, IPROF_REC_OFFSTACK, 0, TID, 2180, 0xc0, 0xc1);
	val(a, IPROF_REC_WAKER, 0, TID, 2190, WAKER, IPROF_CTX_TASK);
	block(a, 2200 + 1000000, 0, 0, 0, 0, 0, 0, 2300 + 1000000, 2);
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 1, TID, 2400 + 1000000,
				  2, 0, 0),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, TID, 2500 + 1000000,
				  1, 0, 0),
			 0);
	outer = agg__root(a)->child;
	inner = outer->child;
	assert_non_null(inner);
	assert_int_equal(inner->blocked_ns, 300 + 200 + 100);
	assert_int_equal(outer->blocked_ns, 100 + 300 + 200 + 100);
	assert_int_equal(inner->runq_ns, 50);
	assert_int_equal(inner->off->charged_ns, inner->blocked_ns);
	assert_int_equal(outer->off->charged_ns, outer->blocked_ns);
	/* inner: B 300, A 200 (sorted), 100 on no stack */
	assert_int_equal(off_sorted_blocks(inner->off, b), 2);
	assert_int_equal(b[0]->ns, 300);
	assert_int_equal(b[0]->stk.n, 3);
	assert_int_equal(b[0]->stk.ip[0], 0xb0);
	assert_int_equal(b[0]->stk.ip[2], 0xb2);
	assert_int_equal(b[1]->ns, 200);
	assert_int_equal(b[1]->count, 1);
	assert_int_equal(inner->off->block_more_ns, 100);
	/* outer: A 100 + 200, B 300 */
	assert_int_equal(off_sorted_blocks(outer->off, b), 2);
	assert_int_equal(b[0]->ns + b[1]->ns, 600);
	assert_int_equal(b[0]->stk.ip[0] == 0xa0 ? b[0]->count : b[1]->count, 2);
	/* the waker: 500 ns of inner's, by name and stack; 100 unseen */
	assert_int_equal(off_sorted_wakers(inner->off, w), 1);
	assert_int_equal(w[0]->ns, 500);
	assert_int_equal(w[0]->tid, WAKER);
	assert_string_equal(w[0]->comm, "holder");
	assert_int_equal(w[0]->stk.n, 1);
	assert_int_equal(w[0]->stk.ip[0], 0xf0);
	assert_int_equal(inner->off->waker_more_ns, 100);
	agg__free(a);
}

/* beyond OFF_TOP_MAX stacks: the rest in block_more_ns; merge adds up */
static void test_bound_merge(void **state)
{
	struct agg *a = agg__new(1), *m = agg__new(1);
	const struct agg_node *n;
	uint64_t t = 1000, sum = 0;
	uint32_t i;

	(void)state;
	assert_non_null(a);
	assert_non_null(m);
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, TID, t, 1, 0, 0), 0);
	for (i = 0; i < OFF_TOP_MAX + 4; i++, t += 100) {
		block(a, t, 0x100 + i, 0, 0, 0, 0, 0, t + 10 + i, 1);
		sum += 10 + i;
	}
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, TID, t, 1, 0, 0), 0);
	n = agg__root(a)->child;
	assert_int_equal(n->off->nblock, OFF_TOP_MAX);
	assert_int_equal(n->off->block_more_ns, 4 * 10 + (16 + 17 + 18 + 19));
	assert_int_equal(n->off->charged_ns, sum);
	assert_int_equal(n->blocked_ns, sum);
	assert_int_equal(agg__merge(m, a), 0);
	assert_int_equal(agg__merge(m, a), 0);
	n = agg__root(m)->child;
	assert_int_equal(n->off->charged_ns, 2 * sum);
	assert_int_equal(n->off->nblock, OFF_TOP_MAX);
	assert_int_equal(n->off->block[0].ns, 2 * 10);
	assert_int_equal(n->off->block[0].count, 2);
	assert_int_equal(n->off->block_more_ns, 2 * (4 * 10 + 70));
	agg__free(a);
	agg__free(m);
}

/* without OFFSTACK or WAKER records nothing is kept */
/* ublock() - TID blocks at @t0 on kernel stack (0xa0) over user stack
 * (@u0, @u1, @u2; IPROF_OFF_UPART parts), back on CPU at @t1 */
static void ublock(struct agg *a, uint64_t t0, uint64_t u0, uint64_t u1,
		   uint64_t u2, uint64_t t1)
{
	val(a, IPROF_REC_OFFSTACK, 0, TID, t0, 0xa0, 0);
	val(a, IPROF_REC_OFFSTACK, IPROF_OFF_UPART, TID, t0, u0, u1);
	val(a, IPROF_REC_OFFSTACK, IPROF_OFF_UPART + 1, TID, t0, u2, 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, TID, t0, 1,
				  0, IPROF_OFF_BLOCKED),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, TID, t1, 1,
				  0, 0),
			 0);
}

/*
 * --offcpu-stacks=user: the user parts make the stack's user frames, of
 * the thread's process; one kernel stack over two user stacks is two
 * entries, the same pair twice one; a block whose user parts came alone
 * (no kernel frames) is kept too; agg__merge() keeps them apart as well
 */
static void test_user(void **state)
{
	struct agg *a = agg__new(1), *m = agg__new(1);
	const struct off_block *b[OFF_TOP_MAX];

	(void)state;
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, TID, 1000, 1, 0, 0), 0);
	ublock(a, 1100, 0x401000, 0x402000, 0x403000, 1400); /* 300 */
	ublock(a, 1500, 0x401000, 0x402000, 0x403000, 1600); /* 100 */
	ublock(a, 1700, 0x401000, 0x402222, 0, 1750); /* 50 */
	val(a, IPROF_REC_OFFSTACK, IPROF_OFF_UPART, TID, 1800, 0x405000, 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, TID, 1800, 1,
				  0, IPROF_OFF_BLOCKED),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, TID, 1820, 1,
				  0, 0),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, TID, 2000, 1, 0, 0), 0);
	assert_int_equal(off_sorted_blocks(agg__root(a)->child->off, b), 3);
	assert_int_equal(b[0]->ns, 400);
	assert_int_equal(b[0]->count, 2);
	assert_int_equal(b[0]->stk.n, 1);
	assert_int_equal(b[0]->stk.ip[0], 0xa0);
	assert_int_equal(b[0]->ustk.n, 3);
	assert_int_equal(b[0]->ustk.ip[0], 0x401000);
	assert_int_equal(b[0]->ustk.ip[2], 0x403000);
	assert_int_equal(b[0]->tgid, TID);
	assert_int_equal(b[1]->ns, 50);
	assert_int_equal(b[1]->ustk.n, 2);
	assert_int_equal(b[1]->ustk.ip[1], 0x402222);
	assert_int_equal(b[2]->ns, 20);
	assert_int_equal(b[2]->stk.n, 0);
	assert_int_equal(b[2]->ustk.n, 1);
	assert_int_equal(agg__root(a)->child->off->block_more_ns, 0);
	assert_int_equal(agg__merge(m, a), 0);
	assert_int_equal(agg__merge(m, a), 0);
	assert_int_equal(off_sorted_blocks(agg__root(m)->child->off, b), 3);
	assert_int_equal(b[0]->ns, 800);
	assert_int_equal(b[0]->ustk.n, 3);
	assert_int_equal(b[1]->ns, 100);
	assert_int_equal(b[1]->ustk.ip[1], 0x402222);
	agg__free(a);
	agg__free(m);
}

static void test_off(void **state)
{
	struct agg *a = agg__new(1);

	(void)state;
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, TID, 1000, 1, 0, 0), 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, TID, 1100, 1,
				  0, IPROF_OFF_BLOCKED),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, TID, 1200, 1,
				  0, 0),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, TID, 1300, 1, 0, 0), 0);
	assert_int_equal(agg__root(a)->child->blocked_ns, 100);
	assert_null(agg__root(a)->child->off);
	agg__free(a);
}

/* frames() - TID blocks at @t0 on the @n frames @f (parts of two), back
 * on CPU at @t1, no waker seen */
static void frames(struct agg *a, uint64_t t0, const uint64_t *f, uint32_t n,
		   uint64_t t1)
{
	uint32_t p;

	for (p = 0; 2 * p < n; p++)
		val(a, IPROF_REC_OFFSTACK, p, TID, t0, f[2 * p],
		    2 * p + 1 < n ? f[2 * p + 1] : 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, TID, t0, 1,
				  0, IPROF_OFF_BLOCKED),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, TID, t1, 1, 0,
				  0),
			 0);
}

/* kernel names of the test: 0x1k and 0x2k are s<k> (two return
 * addresses in one function), 0x3a fa, 0x3b fb, 0x40 tail */
static const char *kname(void *ctx, uint64_t addr, char *buf, size_t size)
{
	(void)ctx;
	if (addr >> 4 == 1 || addr >> 4 == 2)
		snprintf(buf, size, "s%u", (unsigned int)(addr & 0xf));
	else if (addr == 0x3a || addr == 0x3b)
		snprintf(buf, size, "f%c", addr == 0x3a ? 'a' : 'b');
	else
		snprintf(buf, size, "tail");
	return buf;
}

/*
 * The table's blocked stacks: X and Z name the same functions (their
 * return addresses differ): one entry of 2 waits; Y shares their first 10
 * frames: both show up to the 11th, where they differ (6 shown: a
 * newcomer read them as duplicates); a stack of its own shows 6.
 */
static void test_table_distinct(void **state)
{
	static const uint64_t x[] = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
				      0x16, 0x17, 0x18, 0x19, 0x3a, 0x40 },
			      z[] = { 0x20, 0x21, 0x22, 0x23, 0x24, 0x25,
				      0x26, 0x27, 0x28, 0x29, 0x3a, 0x40 },
			      y[] = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
				      0x16, 0x17, 0x18, 0x19, 0x3b, 0x40 },
			      o[] = { 0x19, 0x18, 0x17, 0x16, 0x15, 0x14,
				      0x13, 0x40 };
	struct agg *a = agg__new(1);
	struct report r = { 0 };
	struct report_view v;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(a);
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, TID, 1000, 1, 0, 0), 0);
	frames(a, 2000, x, 12, 2400);
	frames(a, 3000, y, 12, 3300);
	frames(a, 4000, z, 12, 4200);
	frames(a, 5000, o, 8, 5100);
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, TID, 6000, 1, 0, 0), 0);
	r.agg = a;
	r.kname = kname;
	assert_int_equal(report_view_init(&v, &r), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	report_offcpu_table(f, &r, &v);
	assert_int_equal(fclose(f), 0);
	report_view_free(&v);
	assert_non_null(strstr(out, "600ns  60%      2x  blocked in s0 <- s1 <- s2 <- s3 <- s4 <- s5 <- s6 <- s7 <- s8 <- s9 <- fa <- ...\n"
				    "        300ns  30%      1x  blocked in s0 <- s1 <- s2 <- s3 <- s4 <- s5 <- s6 <- s7 <- s8 <- s9 <- fb <- ...\n"));
	assert_non_null(strstr(out, "  blocked in s9 <- s8 <- s7 <- s6 <- s5 <- s4 <- ...\n"));
	/* (X and Z one entry: two lines start at s0, not three) */
	assert_null(strstr(strstr(strstr(out, "in s0 <-") + 1, "in s0 <-") + 1,
			   "in s0 <-"));
	free(out);
	agg__free(a);
}

/* kublock() - TID blocks at @t0 on kernel stack (@k0, @k1) over user
 * stack (@u0, @u1), back on CPU at @t1, no waker seen */
static void kublock(struct agg *a, uint64_t t0, uint64_t k0, uint64_t k1,
		    uint64_t u0, uint64_t u1, uint64_t t1)
{
	val(a, IPROF_REC_OFFSTACK, 0, TID, t0, k0, k1);
	val(a, IPROF_REC_OFFSTACK, IPROF_OFF_UPART, TID, t0, u0, u1);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_OUT, 0, 0, TID, t0, 1,
				  0, IPROF_OFF_BLOCKED),
			 0);
	assert_int_equal(rec_push(a, IPROF_REC_SWITCH_IN, 0, 0, TID, t1, 1, 0,
				  0),
			 0);
}

/* user names of the test: u<addr's 0x...000 digit>, after the -1 of a
 * return address */
static const char *uname_of(void *ctx, uint32_t tgid, uint64_t addr,
			    char *buf, size_t size)
{
	(void)ctx;
	(void)tgid;
	snprintf(buf, size, "u%x", (unsigned int)((addr + 1) >> 12 & 0xf));
	return buf;
}

/*
 * --offcpu-stacks=user in the table: kernel stacks that name the same
 * functions (return addresses apart: 0x10 0x11 and 0x20 0x21 are both
 * s0 <- s1) merge only where their user stacks are the same too: two
 * waits over user stack u1 <- u2 are one line (500 ns, 2x), two over u1
 * <- u3 another (300 ns, 2x), whichever kernel addresses each had; the
 * lines add up to the node's blocked time (no "other" stack line).
 */
static void test_table_user_merge(void **state)
{
	struct agg *a = agg__new(1);
	struct report r = { 0 };
	struct report_view v;
	const char *p;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(a);
	assert_int_equal(rec_push(a, IPROF_REC_START, 0, 0, TID, 1000, 1, 0, 0), 0);
	kublock(a, 2000, 0x10, 0x11, 0x401000, 0x402000, 2400); /* 400 */
	kublock(a, 3000, 0x10, 0x11, 0x401000, 0x403000, 3250); /* 250 */
	kublock(a, 4000, 0x20, 0x21, 0x401000, 0x402000, 4100); /* 100 */
	kublock(a, 5000, 0x20, 0x21, 0x401000, 0x403000, 5050); /* 50 */
	assert_int_equal(rec_push(a, IPROF_REC_STOP, 0, 0, TID, 6000, 1, 0, 0), 0);
	assert_int_equal(agg__root(a)->child->blocked_ns, 800);
	assert_int_equal(agg__root(a)->child->off->nblock, 4);
	r.agg = a;
	r.kname = kname;
	r.uname = uname_of;
	assert_int_equal(report_view_init(&v, &r), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	report_offcpu_table(f, &r, &v);
	assert_int_equal(fclose(f), 0);
	report_view_free(&v);
	p = strstr(out, "  blocked 800ns, runnable 0ns");
	assert_non_null(p);
	assert_non_null(strstr(p, "\n        500ns  62%      2x  blocked in s0 <- s1\n"
				  "                            user: u1 <- u2\n"
				  "        300ns  38%      2x  blocked in s0 <- s1\n"
				  "                            user: u1 <- u3\n"
				  "        800ns 100%      0x  other (not kept, lost, or no call completed)\n"));
	/* two stack lines, the other line the wakers' (none seen) */
	assert_null(strstr(strstr(strstr(p, "blocked in") + 1, "blocked in") + 1,
			   "blocked in"));
	assert_null(strstr(strstr(p, "other (") + 1, "other ("));
	free(out);
	agg__free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charged),
		cmocka_unit_test(test_bound_merge),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_table_distinct),
		cmocka_unit_test(test_table_user_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
