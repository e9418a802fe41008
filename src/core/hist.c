/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Log-linear latency histogram (see include/iprof/hist.h).
 *
 * Slot layout, with S = HIST_SUB = 16 and B = HIST_SUB_BITS = 4:
 *   v < S:            slot v (exact)
 *   2^k <= v < 2^k+1: slot S + (k - B) * S + ((v >> (k - B)) - S), k = 4..63
 * so slot 16 is [16, 16], slot 17 is [17, 17], ..., slot 32 is [32, 33], and
 * the last slot (975) is [31 * 2^59, 2^64 - 1].
 */
#include <stdint.h>

#include "iprof/hist.h"

unsigned int hist_slot(uint64_t v)
{
	unsigned int k;

	if (v < HIST_SUB)
		return (unsigned int)v;
	k = 63 - (unsigned int)__builtin_clzll(v); /* 2^k <= v, k >= 4 */
	return HIST_SUB + (k - HIST_SUB_BITS) * HIST_SUB +
	       (unsigned int)(v >> (k - HIST_SUB_BITS)) - HIST_SUB;
}

uint64_t hist_slot_low(unsigned int slot)
{
	unsigned int k, sub;

	if (slot >= HIST_SLOTS)
		return UINT64_MAX;
	if (slot < HIST_SUB)
		return slot;
	k = (slot - HIST_SUB) / HIST_SUB + HIST_SUB_BITS;
	sub = (slot - HIST_SUB) % HIST_SUB;
	return (uint64_t)(HIST_SUB + sub) << (k - HIST_SUB_BITS);
}

uint64_t hist_slot_high(unsigned int slot)
{
	unsigned int k;

	if (slot >= HIST_SLOTS)
		return UINT64_MAX;
	if (slot < HIST_SUB)
		return slot;
	k = (slot - HIST_SUB) / HIST_SUB + HIST_SUB_BITS;
	/* low + width - 1; for the last slot this is exactly UINT64_MAX */
	return hist_slot_low(slot) + ((1ull << (k - HIST_SUB_BITS)) - 1);
}

void hist_add(struct hist *h, uint64_t v)
{
	h->slot[hist_slot(v)]++;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	for (i = 0; i < HIST_SLOTS; i++)
		dst->slot[i] += src->slot[i];
}

/*
 * Nearest-rank quantile: the value of rank ceil(q * n) (1-based) among the
 * n sorted values, approximated by the midpoint of its slot.  If the slots
 * hold fewer than n values (the caller's n is wrong), the last non-empty
 * slot answers rather than a made-up value.
 */
uint64_t hist_quantile(const struct hist *h, uint64_t n, double q, uint64_t min,
		       uint64_t max)
{
	uint64_t rank, cum = 0, lo, hi, v = 0;
	unsigned int i, last = HIST_SLOTS;
	double r;

	if (!h || n == 0)
		return 0;
	if (!(q > 0.0)) /* also NaN */
		q = 0.0;
	if (q > 1.0)
		q = 1.0;
	r = q * (double)n;
	if (r <= 1.0)
		rank = 1;
	else if (r >= (double)n)
		rank = n;
	else {
		rank = (uint64_t)r;
		if ((double)rank < r)
			rank++;
	}

	for (i = 0; i < HIST_SLOTS; i++) {
		if (!h->slot[i])
			continue;
		last = i;
		cum += h->slot[i];
		if (cum >= rank)
			break;
	}
	if (last == HIST_SLOTS)
		return 0;
	lo = hist_slot_low(last);
	hi = hist_slot_high(last);
	v = lo + (hi - lo) / 2;
	if (v < min)
		v = min;
	if (v > max)
		v = max;
	return v;
}
