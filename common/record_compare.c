/*
 * Comparing typed records (see record.h): two runs' options, a speed
 * ratio, and whether a gemm record agrees with itself (its gflops
 * against 2 n^3 / median_ms).
 */
#include "record.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "xmalloc.h"

static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* --bandwidth-mib as options_equal compares it: NaN when not given. */
static double bandwidth_mib_of(const struct bf_rec_options *o)
{
	return o->bandwidth_mib > 0 ? o->bandwidth_mib : NAN;
}

const char *bf_rec_options_differ(const struct bf_rec_options *a,
				  const struct bf_rec_options *b)
{
	if (!a->present || !b->present)
		return "options";
	if (a->nsizes != b->nsizes)
		return BF_KEY_SIZES;
	for (int i = 0; i < a->nsizes; i++)
		if (a->sizes[i] != b->sizes[i])
			return BF_KEY_SIZES;
	if (a->ndtypes != b->ndtypes)
		return BF_KEY_DTYPES;
	for (int i = 0; i < a->ndtypes; i++)
		if (strcmp(a->dtypes[i], b->dtypes[i]) != 0)
			return BF_KEY_DTYPES;
	if (strcmp(a->device, b->device) != 0)
		return BF_KEY_DEVICE;
	if (!same_num(a->iters, b->iters))
		return BF_KEY_ITERS;
	if (!same_num(a->cpu_iters, b->cpu_iters))
		return BF_KEY_CPU_ITERS;
	if (!same_num(a->warmup, b->warmup))
		return BF_KEY_WARMUP;
	if (!same_num(a->cpu_warmup, b->cpu_warmup))
		return BF_KEY_CPU_WARMUP;
	if (!same_num(a->seed, b->seed))
		return BF_KEY_SEED;
	if (a->cold_cache != b->cold_cache)
		return BF_KEY_COLD_CACHE;
	if (a->no_bandwidth != b->no_bandwidth)
		return BF_KEY_NO_BANDWIDTH;
	if (!same_num(bandwidth_mib_of(a), bandwidth_mib_of(b)))
		return BF_KEY_BANDWIDTH_MIB;
	if (a->no_batching != b->no_batching)
		return BF_KEY_NO_BATCHING;
	return NULL;
}

int bf_rec_options_equal(const struct bf_rec_options *a,
			 const struct bf_rec_options *b)
{
	return bf_rec_options_differ(a, b) == NULL;
}

double bf_gemm_flops(int n)
{
	return 2.0 * (double)n * (double)n * (double)n;
}

double bf_gemm_gflops(int n, double ms)
{
	return bf_gemm_flops(n) / ms / 1e6;
}

double bf_speed_ratio(double gflops, double base_gflops)
{
	return gflops / base_gflops;
}

int bf_ratio_wanted(enum bf_ratio_kind k, enum bf_dtype dt, enum bf_status st,
		    int gpu, struct bf_ratio_base *base)
{
	int fp32 = dt == BF_DTYPE_FP32;

	if (st != BF_STATUS_PASS)
		return 0;
	base->dtype = BF_DTYPE_FP32;
	switch (k) {
	case BF_RATIO_KIND_GPU_VS_CPU:
		base->on_cpu = 1;
		return fp32 && gpu;
	case BF_RATIO_KIND_VS_FP32:
		base->on_cpu = 0;
		return !fp32;
	default:
		return 0;
	}
}

const char *bf_ratio_kind_name(enum bf_ratio_kind k)
{
	return k == BF_RATIO_KIND_GPU_VS_CPU ? BF_RATIO_GPU_VS_CPU :
	       k == BF_RATIO_KIND_VS_FP32    ? BF_RATIO_VS_FP32 :
					       "unknown";
}

int bf_rec_gemm_consistent(const struct bf_rec_gemm *g, char *why,
			   size_t why_len)
{
	double expect;

	/* A median is a time, as each sample is (schema.c): -1 ms is none,
	 * whatever gflops says, and nothing to divide by. */
	if (!isnan(g->median_ms) && !bf_schema_time_ok(g->median_ms)) {
		if (why && why_len)
			snprintf(why, why_len,
				 "invalid: median_ms is %.6g: expected a time above 0 ms",
				 g->median_ms);
		return 0;
	}
	/* Not run, failed (no gflops), or one without the other. */
	if (isnan(g->gflops) || isnan(g->median_ms))
		return 1;
	expect = bf_gemm_gflops(g->n, g->median_ms);
	if (g->n >= 1 &&
	    fabs(g->gflops - expect) <= BF_GEMM_GFLOPS_RTOL * fabs(expect))
		return 1;
	if (why && why_len)
		snprintf(why, why_len,
			 "invalid: gflops %.6g disagrees with 2 n^3 / median_ms = %.6g (n %d, median_ms %.6g)",
			 g->gflops, expect, g->n, g->median_ms);
	return 0;
}

int bf_rec_gemm_check(struct bf_rec_gemm *g)
{
	char why[200];

	if (bf_rec_gemm_consistent(g, why, sizeof(why)))
		return 0;
	g->status = BF_STATUS_FAIL;
	g->gflops = NAN;
	g->fraction_of_peak = NAN;
	g->fraction_of_roofline = NAN;
	g->gflop_per_joule = NAN;
	g->fraction_of_reference = NAN;
	g->below_reference = -1;
	free(g->reason);
	g->reason = bf_xstrdup(why);
	return 1;
}
