// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Mann-Whitney U test on two duration histograms, with a minimum
 * effect size on the median, for 'iprof diff' (include/iprof/noise.h).
 * The slots are the ranks' ties: U counts a pair in one slot as half;
 * the variance is the tie-corrected one, n_a n_b / 12 ((N + 1) -
 * sum(t^3 - t) / (N (N - 1))), t the calls of both sides in a slot, and
 * z has the continuity correction (Hollander and Wolfe, Nonparametric
 * Statistical Methods, 4.1).
 */
#include <math.h>
#include <stddef.h>

#include "iprof/noise.h"

const char *noise_verdict_name(enum noise_verdict v)
{
	switch (v) {
	case NOISE_BEYOND:
		return "beyond";
	case NOISE_WITHIN:
		return "within";
	case NOISE_SMALL:
		return "small";
	case NOISE_UNKNOWN:
		return "unknown";
	case NOISE_NONE:
	default:
		return "none";
	}
}

static double norm_p(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

/* the calls in @s's histogram */
static double hist_n(const struct noise_side *s)
{
	double n = 0.0;
	size_t i;

	for (i = 0; i < s->nhist; i++)
		n += (double)s->hist[i].count;
	return n;
}

/* U of @b against @a into *@u, and the ties' sum(t^3 - t) into *@ties:
 * the two slot lists walked together, ascending */
static void rank_sum(const struct noise_side *a, const struct noise_side *b,
		     double *u, double *ties)
{
	size_t i = 0, j = 0;
	double below = 0.0; /* A's calls in slots below */

	*u = 0.0;
	*ties = 0.0;
	while (i < a->nhist || j < b->nhist) {
		uint64_t lo = i < a->nhist ? a->hist[i].low_ns : UINT64_MAX;
		double ca = 0.0, cb = 0.0, t;

		if (j < b->nhist && b->hist[j].low_ns < lo)
			lo = b->hist[j].low_ns;
		if (i < a->nhist && a->hist[i].low_ns == lo)
			ca = (double)a->hist[i++].count;
		if (j < b->nhist && b->hist[j].low_ns == lo)
			cb = (double)b->hist[j++].count;
		*u += cb * (below + 0.5 * ca);
		below += ca;
		t = ca + cb;
		*ties += t * t * t - t;
	}
}

enum noise_verdict noise_test(const struct noise_side *a,
			      const struct noise_side *b,
			      const struct noise_opts *o,
			      struct noise_result *r)
{
	static const struct noise_opts def = {
		.alpha = NOISE_ALPHA,
		.min_rel = NOISE_MIN_REL,
	};
	double na, nb, n, mean, var, ties, zmax;

	if (!o)
		o = &def;
	*r = (struct noise_result){.v = NOISE_NONE, .p = 1.0};
	if (!a->count || !b->count)
		return r->v;
	r->shift_ns = b->p50_ns - a->p50_ns;
	r->min_effect_ns = fmax(o->min_rel * fabs(a->p50_ns), o->min_abs_ns);
	r->min_effect_ns =
		fmax(r->min_effect_ns, NOISE_Z * hypot(a->err_ns, b->err_ns));
	r->v = NOISE_UNKNOWN;
	if (!a->hist || !b->hist)
		return r->v;
	na = hist_n(a);
	nb = hist_n(b);
	n = na + nb;
	/* too few calls: even every B above every A is no p below alpha */
	zmax = (na * nb / 2.0 - 0.5) / sqrt(na * nb * (n + 1.0) / 12.0);
	if (na < 1 || nb < 1 || !(norm_p(zmax) < o->alpha))
		return r->v;
	rank_sum(a, b, &r->u, &ties);
	mean = na * nb / 2.0;
	var = na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
	r->delta = 2.0 * r->u / (na * nb) - 1.0;
	if (var > 0 && fabs(r->u - mean) > 0.5)
		r->z = (r->u - mean - copysign(0.5, r->u - mean)) / sqrt(var);
	r->p = norm_p(r->z);
	if (r->p >= o->alpha)
		r->v = NOISE_WITHIN;
	else if (fabs(r->shift_ns) < r->min_effect_ns)
		r->v = NOISE_SMALL;
	else
		r->v = NOISE_BEYOND;
	return r->v;
}
