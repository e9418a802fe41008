/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Keyed spans' map (bpf/iprof.bpf.h: kspans, kfull): sizing before load,
 * and the expiry of spans whose stop never comes.
 */
#ifndef IPROF_KERNEL_KSPANS_H
#define IPROF_KERNEL_KSPANS_H

#include <stdint.h>

#include "iprof/plan.h"

struct loader;

/* Default --span-keys: keyed spans open at once, all timers together. */
#define KSPANS_DEFAULT_KEYS 65536u
/* Most --span-keys takes (each key preallocates ~130 bytes in the kernel:
 * 1M keys are ~130 MiB, made before tracing starts). */
#define KSPANS_MAX_KEYS (1u << 20)

/* plan_keyed() - 1 if a timer of @p is a keyed span (IPROF_A_KEYED). */
int plan_keyed(const struct plan *p);

/*
 * kspans_size() - before load: size kspans to @keys entries (0: the
 * default) where @p has keyed spans, else to one; kfull to one per timer.
 */
void kspans_size(struct loader *l, const struct plan *p, uint32_t keys);

/*
 * kspans_expire() - remove the keys started more than @timeout_ns before
 * @now_ns (CLOCK_MONOTONIC) and hand one IPROF_REC_KEXPIRED record per
 * span removed to the stream, stamped @now_ns, as if its starting CPU's
 * ring had sent it (a stop racing with it wins or loses whole: the map's
 * delete decides, bpf/iprof.bpf.h key_stop()).  Reads at most the map's
 * size of keys.  Returns the spans expired, or -errno (-ENOMEM).
 */
int kspans_expire(struct loader *l, uint64_t now_ns, uint64_t timeout_ns);

/*
 * kspans_period() - how often loader__poll() runs kspans_expire() for
 * --span-timeout @timeout_ns: half of it, within 10 ms and 1 s (ns).
 */
static inline uint64_t kspans_period(uint64_t timeout_ns)
{
	uint64_t p = timeout_ns / 2;

	return p < 10000000ull ? 10000000ull : p > 1000000000ull ? 1000000000ull : p;
}

/* kspans_full() - @timer's starts not kept: the key map was full. */
uint64_t kspans_full(struct loader *l, uint32_t timer);

#endif /* IPROF_KERNEL_KSPANS_H */
