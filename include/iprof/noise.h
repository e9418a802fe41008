/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Is a path's change between two runs beyond their noise?  The test of
 * 'iprof diff' (doc/recording.md, "Changes beyond noise"): the
 * Mann-Whitney U test (Wilcoxon rank-sum) on the two sides' duration
 * histograms, and a minimum effect size on the median: a shift of the
 * median below min_rel of A's, below min_abs_ns, or within the error bars
 * the reports give (NOISE_Z times their root sum of squares), is never
 * called significant, however many calls back it.
 *
 * A rank test, not a test of the means: a preemption moves one call by
 * milliseconds, and on a loaded host the means of two runs of the same
 * 20 us function differed 2x (124 us and 55 us, medians both 20.0 us).
 *
 * Kernel-free and pure: no I/O, no allocation.
 */
#ifndef IPROF_NOISE_H
#define IPROF_NOISE_H

#include <stddef.h>
#include <stdint.h>

/* the defaults: a two-sided p below this is beyond sampling noise */
#define NOISE_ALPHA 0.001
/* the normal quantile of NOISE_ALPHA, two-sided: error bars times this */
#define NOISE_Z 3.29
/* ... and the median's shift at least this fraction of A's median (the
 * accuracy compensated times are held to: issue 45, 10%) */
#define NOISE_MIN_REL 0.10
/* the drift of a probe's cost between processes (DESIGN.md section 7:
 * 20-30%): a shift below this fraction of the probes' cost inside one
 * call may be the calibration's, not the program's */
#define NOISE_CALIB_DRIFT 0.25

/* one histogram slot: durations from low_ns (ns), how many */
struct noise_slot {
	uint64_t low_ns;
	uint64_t count;
};

/* One side of a path: what its report holds. */
struct noise_side {
	uint64_t count;		       /* completed calls */
	double p50_ns;		       /* their median, ns */
	const struct noise_slot *hist; /* ascending low_ns, the slots of
					* include/iprof/hist.h (both sides
					* alike); NULL: not in the report */
	size_t nhist;		       /* slots in hist */
	double err_ns;		       /* the report's own uncertainty of its
					* times (one sigma, ns: avg_err_ns);
					* 0: none given */
};

enum noise_verdict {
	NOISE_BEYOND,  /* significant: p < alpha and the shift >= min */
	NOISE_WITHIN,  /* p >= alpha: within the noise */
	NOISE_SMALL,   /* p < alpha, but the shift below the minimum */
	NOISE_UNKNOWN, /* no spread known: no histogram on a side, or too
			* few calls for any p below alpha */
	NOISE_NONE,    /* a side without calls: nothing to compare */
};

struct noise_opts {
	double alpha;	   /* two-sided p threshold, 0..1 */
	double min_rel;	   /* minimum |shift| / A's median */
	double min_abs_ns; /* minimum |shift| of the median, ns */
};

struct noise_result {
	enum noise_verdict v;
	double shift_ns;      /* median B - median A, ns */
	double u;	      /* U of B: pairs (a, b) with b > a, ties 1/2 */
	double z;	      /* (u - nA nB / 2) / its sd, continuity and
			       * ties corrected */
	double p;	      /* two-sided p of z (normal) */
	double delta;	      /* Cliff's delta, 2 u / (nA nB) - 1: -1..1,
			       * > 0: B slower */
	double min_effect_ns; /* the smallest |shift_ns| called significant */
};

/*
 * noise_test() - compare path sides @a and @b under @o (NULL: the
 * defaults above, min_abs_ns 0) into *@r.  Returns @r->v.
 */
enum noise_verdict noise_test(const struct noise_side *a,
			      const struct noise_side *b,
			      const struct noise_opts *o,
			      struct noise_result *r);

/* noise_verdict_name() - "beyond", "within", "small", "unknown", "none" */
const char *noise_verdict_name(enum noise_verdict v);

#endif /* IPROF_NOISE_H */
