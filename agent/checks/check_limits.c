/*
 * Float limits (what torch.finfo reports), computed from each format's
 * exponent and mantissa widths and checked three ways: against the exact
 * values in the seed facts (literal constants below), against the value
 * decoded from the format's own largest-finite bit pattern, and, for fp32,
 * against <float.h>.
 */
#include <float.h>
#include <stdio.h>
#include <math.h>

#include <cjson/cJSON.h>

#include "checks/checks.h"
#include "xmalloc.h"

struct limits_case {
	enum bf_dtype dtype;
	/* Exact values from ../shared/docs/seed-facts.md. */
	double max, eps, smallest_normal;
	int bits;
	double (*max_from_bits)(void); /* decodes the largest finite pattern */
};

static double fp32_max_bits(void)
{
	union { uint32_t u; float f; } v = { .u = 0x7f7fffffu };

	return v.f;
}

static double fp16_max_bits(void)
{
	return bf_fp16_to_fp32(0x7bff);
}

static double bf16_max_bits(void)
{
	return bf_bf16_to_fp32(0x7f7f);
}

static const struct limits_case limits_cases[] = {
	{ BF_DTYPE_FP32, 3.4028234663852886e38, 1.1920928955078125e-07,
	  1.1754943508222875e-38, 32, fp32_max_bits },
	{ BF_DTYPE_FP16, 65504.0, 9.765625e-04, 6.103515625e-05, 16,
	  fp16_max_bits },
	{ BF_DTYPE_BF16, 3.3895313892515355e38, 7.8125e-03,
	  1.1754943508222875e-38, 16, bf16_max_bits },
};
#define N_LIMITS (int)(sizeof(limits_cases) / sizeof(limits_cases[0]))

int checks_limits_count(void)
{
	return N_LIMITS;
}

static void emit_limits_record(struct report *r, enum bf_dtype dt)
{
	struct bf_float_format f;
	struct bf_float_limits l;
	struct bf_record rec;
	struct bf_rec_float_limits *fl = &rec.u.float_limits;

	bf_dtype_format(dt, &f);
	l = bf_float_format_limits(&f);
	bf_record_init(&rec, BF_REC_FLOAT_LIMITS);
	fl->dtype = bf_xstrdup(bf_dtype_name(dt));
	fl->bits = f.bits;
	fl->exponent_bits = f.exponent_bits;
	fl->mantissa_bits = f.mantissa_bits;
	fl->max = l.max;
	fl->eps = l.eps;
	fl->smallest_normal = l.smallest_normal;
	fl->smallest_subnormal = l.smallest_subnormal;
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}

static cJSON *limits_object(int bits, double max, double eps, double tiny,
			    double max_bits)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, BF_KEY_BITS, bits);
	cJSON_AddNumberToObject(o, BF_KEY_MAX, max);
	cJSON_AddNumberToObject(o, BF_KEY_EPS, eps);
	cJSON_AddNumberToObject(o, BF_KEY_SMALLEST_NORMAL, tiny);
	cJSON_AddNumberToObject(o, "max_from_bits", max_bits);
	return o;
}

void checks_run_limits(struct report *r)
{
	for (int i = 0; i < N_LIMITS; i++)
		emit_limits_record(r, limits_cases[i].dtype);
	emit_limits_record(r, BF_DTYPE_TF32);
	for (int i = 0; i < N_LIMITS; i++) {
		const struct limits_case *lc = &limits_cases[i];
		struct bf_float_format f;
		struct bf_float_limits l;
		cJSON *expected, *got;
		char name[32];
		int same;

		bf_dtype_format(lc->dtype, &f);
		l = bf_float_format_limits(&f);
		expected = limits_object(lc->bits, lc->max, lc->eps,
					 lc->smallest_normal, lc->max);
		got = limits_object(f.bits, l.max, l.eps, l.smallest_normal,
				    lc->max_from_bits());
		if (lc->dtype == BF_DTYPE_FP32) {
			cJSON_AddNumberToObject(expected, "float_h_max", lc->max);
			cJSON_AddNumberToObject(expected, "float_h_eps", lc->eps);
			cJSON_AddNumberToObject(got, "float_h_max", FLT_MAX);
			cJSON_AddNumberToObject(got, "float_h_eps", FLT_EPSILON);
		}
		/* Exact equality: these are powers of two and sums of them,
		 * representable exactly in a double. */
		same = cJSON_Compare(expected, got, 1) &&
		       l.max == lc->max && l.eps == lc->eps &&
		       l.smallest_normal == lc->smallest_normal;
		snprintf(name, sizeof(name), "float_limits.%s",
			 bf_dtype_name(lc->dtype));
		report_check(r, name, "cpu", expected, got,
			     same ? BF_STATUS_PASS : BF_STATUS_FAIL,
			     same ? NULL : "limits differ from the exact values",
			     NULL);
	}
}
