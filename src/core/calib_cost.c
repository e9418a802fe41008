// SPDX-License-Identifier: GPL-2.0-only
/*
 * Overhead calibration, the arithmetic (include/iprof/calib_cost.h): medians,
 * in/out from the measured medians, a timer's cost.  Kernel-free.
 */
#include <math.h>
#include <stdlib.h>

#include "iprof/calib_cost.h"
#include "iprof/mech.h"

/* each class's words (include/iprof/mech.h) */
static const enum mech_label class_labels[CALIB_NCLASS] = {
	[CALIB_RETSITE] = MLABEL_CAL_RETSITE,
	[CALIB_RETSITE_STEP] = MLABEL_CAL_RETSITE_STEP,
	[CALIB_URETPROBE] = MLABEL_CAL_URETPROBE,
	[CALIB_URETPROBE_STEP] = MLABEL_CAL_URETPROBE_STEP,
	[CALIB_URETPROBE_SPLIT] = MLABEL_CAL_URETPROBE_SPLIT,
	[CALIB_SYSCALL] = MLABEL_CAL_SYSCALL,
	[CALIB_TRACEPOINT] = MLABEL_CAL_TRACEPOINT,
	[CALIB_USDT] = MLABEL_USDT,
	[CALIB_FENTRY] = MLABEL_FENTRY,
	[CALIB_KPROBE] = MLABEL_KPROBE,
	[CALIB_FUNC] = MLABEL_CAL_FUNC,
};

const char *calib_class_name(enum calib_class c)
{
	return (unsigned int)c < CALIB_NCLASS ? mech_label(class_labels[c]) :
						"none";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t calib_median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) / 2];
}

uint64_t calib_mean(const uint64_t *v, size_t n)
{
	uint64_t cut = v[(n - 1) / 2] * CALIB_MEAN_CUT + CALIB_MEAN_SLACK_NS;
	uint64_t sum = 0;
	size_t i;

	/* sorted: the values up to the cut; the median is always among them */
	for (i = 0; i < n && v[i] <= cut; i++)
		sum += v[i];
	return sum / i;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* in = d, out = t - b - d - g, each clamped at 0 and into 32 bits */
static void derive(uint64_t b, uint64_t t, uint64_t d, uint64_t g,
		   uint32_t *in, uint32_t *out)
{
	uint64_t added = t > b ? t - b : 0;

	*in = clamp32(d);
	*out = clamp32(added > d + g ? added - d - g : 0);
}

void calib_derive(struct calib_result *r)
{
	uint64_t med, mean;

	derive(r->b_ns, r->t_ns, r->d_ns, r->g_ns, &r->in_ns, &r->out_ns);
	derive(r->b_mean_ns, r->t_mean_ns, r->d_mean_ns, r->g_mean_ns,
	       &r->in_mean_ns, &r->out_mean_ns);
	med = (uint64_t)r->in_ns + r->out_ns;
	mean = (uint64_t)r->in_mean_ns + r->out_mean_ns;
	r->skew_ns = clamp32(mean > med ? mean - med : 0);
	r->done = 1;
}

uint32_t calib_proc_drift(const struct calib_result *r)
{
	if (!r->done)
		return 0;
	return clamp32((uint64_t)(CALIB_PROC_DRIFT *
				  ((double)r->in_mean_ns + r->out_mean_ns)));
}

uint32_t calib_drift(const struct calib_result *r)
{
	uint64_t m = (uint64_t)r->drift_ns + r->skew_ns;
	uint32_t p = calib_proc_drift(r);

	return clamp32(m > p ? m : p);
}

/*
 * cold_mid() - @cold and @cold_out ns, what this timer's probes' inside
 * and outside parts may cost more when they fire far apart
 * (calib_result.cold_ns, cold_out_ns: a start probe alone has half of
 * each), between the calibration's calls back to back (hot: what in_ns
 * and out_ns measured) and its cold calls: a call of a real program lies
 * between the two (tests/e2e/helpers/nested.c's 1 us leaf, 1 us after its
 * last probe, read 81 ns above its own clock with the hot cost taken out,
 * its class's cold_ns 92-117; its parent outer, 12 timed calls under it,
 * +10% with the hot outside part taken out, its class's cold_out_ns
 * 111-174).  The midpoints are taken out of each call, half on each
 * side's part (@entry_only: all on the start's), and the other halves stay
 * as biases (agg_cost.cold_ns, cold_out_ns: the error bars).
 */
static void cold_mid(struct agg_cost *k, uint32_t cold, uint32_t cold_out,
		     int entry_only)
{
	uint32_t mid = cold / 2, s = entry_only ? mid : mid / 2;
	uint32_t mo = cold_out / 2, so = entry_only ? mo : mo / 2;

	k->start_in_ns += s;
	k->mean_start_in_ns += s;
	k->start_out_ns += so;
	k->mean_start_out_ns += so;
	if (!entry_only) {
		k->stop_in_ns += mid - s;
		k->mean_stop_in_ns += mid - s;
		k->stop_out_ns += mo - so;
		k->mean_stop_out_ns += mo - so;
	}
	k->cold_ns = cold - mid;
	k->cold_out_ns = cold_out - mo;
}

int calib_step(const struct calib *cal, uint32_t *med_ns, uint32_t *mean_ns)
{
	static const int twins[][2] = {
		{ CALIB_RETSITE, CALIB_RETSITE_STEP },
		{ CALIB_URETPROBE, CALIB_URETPROBE_STEP },
	};

	*med_ns = *mean_ns = 0;
	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++) {
		const struct calib_result *e = &cal->r[twins[i][0]];
		const struct calib_result *s = &cal->r[twins[i][1]];

		if (!e->done || !s->done || e->stop_step != s->stop_step ||
		    s->in_ns <= e->in_ns)
			continue;
		*med_ns = s->in_ns - e->in_ns;
		*mean_ns = s->in_mean_ns > e->in_mean_ns ?
				   s->in_mean_ns - e->in_mean_ns :
				   0;
		return 1;
	}
	return 0;
}

/* class @c's step flags (AGG_COST_START_STEP, AGG_COST_STOP_STEP) */
static uint32_t step_flags(const struct calib *cal, int c)
{
	return (c == CALIB_RETSITE_STEP || c == CALIB_URETPROBE_STEP ?
			AGG_COST_START_STEP :
			0) |
	       (cal->r[c].stop_step ? AGG_COST_STOP_STEP : 0);
}

struct agg_cost calib_cost(const struct calib *cal, int c, int entry_only)
{
	struct agg_cost k = { 0 };
	const struct calib_result *r;
	uint32_t ds, de, mds, mde, in_e, out_e, m_in_e, m_out_e;

	if (c < 0 || c >= CALIB_NCLASS)
		return k;
	r = &cal->r[c];
	if (!r->done) {
		k.flags = AGG_COST_UNKNOWN;
		return k;
	}
	calib_step(cal, &k.step_ns, &k.mean_step_ns);
	k.flags = AGG_COST_MEAN | step_flags(cal, c);
	ds = k.flags & AGG_COST_START_STEP ? k.step_ns : 0;
	mds = k.flags & AGG_COST_START_STEP ? k.mean_step_ns : 0;
	de = k.flags & AGG_COST_STOP_STEP ? k.step_ns : 0;
	mde = k.flags & AGG_COST_STOP_STEP ? k.mean_step_ns : 0;
	/* a start probe alone: half the variance, half the bias */
	k.sd_ns = entry_only ? (uint32_t)(r->sd_ns * 0.70710678) : r->sd_ns;
	k.drift_ns = entry_only ? calib_drift(r) / 2 : calib_drift(r);
	agg_cost_halves(r->in_ns, ds, 0, &k.start_in_ns, &in_e);
	agg_cost_halves(r->out_ns, 0, de, &k.start_out_ns, &out_e);
	agg_cost_halves(r->in_mean_ns, mds, 0, &k.mean_start_in_ns, &m_in_e);
	agg_cost_halves(r->out_mean_ns, 0, mde, &k.mean_start_out_ns,
			&m_out_e);
	k.gap_ns = clamp32(r->g_ns);
	k.mean_gap_ns = clamp32(r->g_mean_ns);
	if (!entry_only) {
		k.stop_in_ns = in_e;
		k.stop_out_ns = out_e;
		k.mean_stop_in_ns = m_in_e;
		k.mean_stop_out_ns = m_out_e;
	} else {
		k.flags &= ~AGG_COST_STOP_STEP;
	}
	cold_mid(&k, entry_only ? r->cold_ns / 2 : r->cold_ns,
		 entry_only ? r->cold_out_ns / 2 : r->cold_out_ns, entry_only);
	return k;
}

void calib_cost_inline(const struct calib *cal, int c, struct agg_cost *k)
{
	const struct calib_result *r;

	if (c < 0 || c >= CALIB_NCLASS)
		return;
	r = &cal->r[c];
	if (!r->done) {
		k->inl_flags = AGG_COST_UNKNOWN;
		return;
	}
	k->inl_flags = AGG_COST_MEAN | step_flags(cal, c);
	k->inl_in_ns = r->in_ns;
	k->inl_out_ns = r->out_ns;
	k->inl_mean_in_ns = r->in_mean_ns;
	k->inl_mean_out_ns = r->out_mean_ns;
	k->inl_sd_ns = r->sd_ns;
	k->inl_drift_ns = calib_drift(r);
}

size_t calib_report(const struct calib *cal, unsigned int used,
		    struct report_calib *out)
{
	size_t n = 0;

	for (int c = 0; c < CALIB_NCLASS; c++) {
		const struct calib_result *r = &cal->r[c];

		if (!r->needed || !(used & (1u << c)))
			continue;
		out[n] = (struct report_calib){
			.mech = r->mech ? r->mech : calib_class_name(c),
			.done = r->done,
			.in_ns = r->in_ns,
			.out_ns = r->out_ns,
			.in_mean_ns = r->in_mean_ns,
			.out_mean_ns = r->out_mean_ns,
			.untraced_ns = r->b_ns,
			.traced_ns = r->t_ns,
			.recorded_ns = r->d_ns,
			.calls = r->calls,
			.sd_ns = r->sd_ns,
			.drift_ns = calib_drift(r),
			.drift_rounds_ns = r->drift_ns,
			.skew_ns = r->skew_ns,
			.proc_drift_ns = calib_proc_drift(r),
			.gap_ns = clamp32(r->g_ns),
			.gap_mean_ns = clamp32(r->g_mean_ns),
			.cold_ns = r->cold_ns,
			.cold_out_ns = r->cold_out_ns,
			.why = r->done ? NULL : r->why,
		};
		n++;
	}
	return n;
}

void calib_spread(uint64_t *v, size_t n, unsigned int rounds,
		  uint32_t *sd_ns, uint32_t *drift_ns)
{
	size_t per = rounds ? n / rounds : 0, i, k, kept = 0;
	double var = 0, mm = 0, m2 = 0, mean, d;
	unsigned int r;

	*sd_ns = *drift_ns = 0;
	if (!per)
		return;
	for (r = 0; r < rounds; r++) {
		uint64_t *s = v + (size_t)r * per;
		uint64_t cut;

		calib_median(s, per);
		mean = (double)calib_mean(s, per);
		cut = s[(per - 1) / 2] * CALIB_MEAN_CUT + CALIB_MEAN_SLACK_NS;
		for (i = 0, k = 0; i < per && s[i] <= cut; i++, k++) {
			d = (double)s[i] - mean;
			var += d * d;
		}
		kept += k;
		/* Welford over the rounds' means */
		d = mean - mm;
		mm += d / (r + 1);
		m2 += d * (mean - mm);
	}
	var = kept > rounds ? var / (double)(kept - rounds) : 0;
	*sd_ns = clamp32((uint64_t)sqrt(var));
	*drift_ns = clamp32((uint64_t)(
		(rounds > 1 ? sqrt(m2 / (rounds - 1)) : 0) +
		sqrt(var / (double)kept)));
}

int calib_rounds_on(const uint64_t *m, const uint16_t *cpu, unsigned int n,
		    uint64_t b_ns, uint16_t *pm, uint32_t ncpu)
{
	double all = 0, sum[AGG_CPU_SCALE_MAX] = { 0 }, x;
	unsigned int k[AGG_CPU_SCALE_MAX] = { 0 }, r;
	uint32_t c;

	if (!n || ncpu > AGG_CPU_SCALE_MAX)
		return -1;
	for (r = 0; r < n; r++) {
		x = (double)m[r] - (double)b_ns;
		all += x;
		if (cpu[r] < ncpu) {
			sum[cpu[r]] += x;
			k[cpu[r]]++;
		}
	}
	all /= n;
	if (all <= 0)
		return -1;
	for (c = 0; c < ncpu; c++) {
		x = k[c] ? 1000.0 * sum[c] / k[c] / all : 1000.0;
		x = x < 250 ? 250 : x > 4000 ? 4000 : x;
		pm[c] = (uint16_t)(x + 0.5);
	}
	return 0;
}

void calib_cpu_scale(struct calib *cal)
{
	double w[AGG_CPU_SCALE_MAX] = { 0 }, ws[AGG_CPU_SCALE_MAX] = { 0 }, cost;
	uint32_t n = 0, i;
	int c;

	for (c = 0; c < CALIB_NCLASS; c++) {
		const struct calib_result *r = &cal->r[c];

		if (!r->done || !r->ncpu || r->t_mean_ns <= r->b_mean_ns)
			continue;
		cost = (double)(r->t_mean_ns - r->b_mean_ns);
		for (i = 0; i < r->ncpu; i++) {
			w[i] += cost;
			ws[i] += cost * r->cpu_pm[i];
		}
		if (r->ncpu > n)
			n = r->ncpu;
	}
	for (i = 0; i < n; i++)
		cal->cpu_pm[i] = w[i] > 0 ? (uint16_t)(ws[i] / w[i] + 0.5) :
					    1000;
	cal->ncpu_pm = n;
}
