/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Log-linear latency histogram with fixed memory (HIST_SLOTS counters).
 *
 * Values below 2^HIST_SUB_BITS ns have a slot each.  Above, every power of
 * two [2^k, 2^(k+1)) is split into 2^HIST_SUB_BITS equal slots, so a slot's
 * width is at most 1/16 of its lower bound.  hist_quantile() returns the
 * slot midpoint: relative error at most 1/32 (3.1%) of the true value.
 * This is the HdrHistogram / log-linear scheme (Gil Tene), 4 sub-bucket bits.
 */
#ifndef IPROF_HIST_H
#define IPROF_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 4
#define HIST_SUB (1u << HIST_SUB_BITS)
/* slots: HIST_SUB linear ones, then HIST_SUB per power of two 2^4..2^63 */
#define HIST_SLOTS (HIST_SUB + (64 - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t slot[HIST_SLOTS];
};

/* hist_slot() - slot index of a value in ns; always < HIST_SLOTS. */
unsigned int hist_slot(uint64_t v);

/* hist_slot_low() - smallest value (ns) that maps to @slot. */
uint64_t hist_slot_low(unsigned int slot);

/* hist_slot_high() - largest value (ns) that maps to @slot. */
uint64_t hist_slot_high(unsigned int slot);

/* hist_add() - count one value (ns). */
void hist_add(struct hist *h, uint64_t v);

/*
 * hist_merge() - add the counts of @src to @dst (same layout: every slot's
 * count summed), as if @dst had counted @src's values too.
 */
void hist_merge(struct hist *dst, const struct hist *src);

/*
 * hist_quantile() - the value (ns) at quantile @q (0..1) of the @n values
 * counted in @h (n = sum of slots, passed by the caller who keeps it),
 * as the midpoint of the slot holding it, clamped to [min, max] when those
 * are given (pass 0, UINT64_MAX to skip).  Returns 0 when n == 0.
 */
uint64_t hist_quantile(const struct hist *h, uint64_t n, double q,
		       uint64_t min, uint64_t max);

#endif /* IPROF_HIST_H */
