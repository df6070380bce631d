/*
 * Unit tests for common/dtype.c: names and sizes, the fp32 <-> fp16/bf16
 * conversions (exhaustive over every 16-bit pattern; every tie between
 * neighbouring representable values; overflow; subnormals), tf32 rounding,
 * and the limits derived from the format parameters against the exact
 * values of shared/docs/seed-facts.md; the names against the schema's.
 *
 * The reference decoders here are written from the IEEE 754 definition of
 * the formats (sign, biased exponent, fraction) with ldexp, not from the
 * bit tricks dtype.c uses, so the two are independent.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "dtype.h"
#include "schema_json.h"

/* Value of a binary16 or bfloat16 pattern from the format definition:
 * exponent field e, fraction f of m bits, bias b:
 *   e == 0:        (-1)^s * f * 2^(1 - b - m)         (zero, subnormal)
 *   0 < e < max:   (-1)^s * (2^m + f) * 2^(e - b - m)  (normal)
 *   e == max:      inf (f == 0) or NaN */
static double decode16(uint16_t h, int exp_bits, int man_bits)
{
	int s = h >> 15;
	int e = (h >> man_bits) & ((1 << exp_bits) - 1);
	int f = h & ((1 << man_bits) - 1);
	int b = (1 << (exp_bits - 1)) - 1;
	double v;

	if (e == (1 << exp_bits) - 1)
		v = f ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(f, 1 - b - man_bits);
	else
		v = ldexp((1 << man_bits) + f, e - b - man_bits);
	return s ? -v : v;
}

static double ref_fp16(uint16_t h)
{
	return decode16(h, 5, 10);
}

static double ref_bf16(uint16_t h)
{
	return decode16(h, 8, 7);
}

static int is_nan16(uint16_t h, int exp_bits, int man_bits)
{
	int e = (h >> man_bits) & ((1 << exp_bits) - 1);

	return e == (1 << exp_bits) - 1 && (h & ((1 << man_bits) - 1)) != 0;
}

static uint32_t bits32(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static void test_names_and_sizes(void **state)
{
	static const struct { enum bf_dtype dt; const char *name; size_t bytes; } t[] = {
		{ BF_DTYPE_FP32, "fp32", 4 }, { BF_DTYPE_FP16, "fp16", 2 },
		{ BF_DTYPE_BF16, "bf16", 2 }, { BF_DTYPE_TF32, "tf32", 4 },
		{ BF_DTYPE_FP64, "fp64", 8 }, { BF_DTYPE_INT64, "int64", 8 },
		{ BF_DTYPE_INT8, "int8", 1 }, { BF_DTYPE_FP8, "fp8", 1 },
		{ BF_DTYPE_INT32, "int32", 4 }, { BF_DTYPE_UINT8, "uint8", 1 },
	};
	enum bf_dtype dt;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_string_equal(bf_dtype_name(t[i].dt), t[i].name);
		assert_int_equal(bf_dtype_element_bytes(t[i].dt), t[i].bytes);
		assert_int_equal(bf_dtype_parse(t[i].name, &dt), 0);
		assert_int_equal(dt, t[i].dt);
	}
	assert_int_equal(bf_dtype_parse("float16", &dt), 0);
	assert_int_equal(dt, BF_DTYPE_FP16);
	assert_int_equal(bf_dtype_parse("bfloat16", &dt), 0);
	assert_int_equal(dt, BF_DTYPE_BF16);
	assert_int_equal(bf_dtype_parse("float32", &dt), 0);
	assert_int_equal(dt, BF_DTYPE_FP32);
	assert_int_equal(bf_dtype_parse("float8_e4m3fn", &dt), 0);
	assert_int_equal(dt, BF_DTYPE_FP8);
	assert_true(bf_dtype_is_float(BF_DTYPE_FP8));
	assert_int_equal(bf_dtype_parse("fp4", &dt), -1);
	assert_int_equal(bf_dtype_parse("FP32", &dt), -1);
	assert_int_equal(bf_dtype_parse("", &dt), -1);
	assert_true(bf_dtype_is_float(BF_DTYPE_BF16));
	assert_false(bf_dtype_is_float(BF_DTYPE_INT8));
	assert_false(bf_dtype_is_float(BF_DTYPE_INT64));
	assert_false(bf_dtype_is_float(BF_DTYPE_INT32));
	assert_false(bf_dtype_is_float(BF_DTYPE_UINT8));
	assert_string_equal(bf_dtype_name(BF_DTYPE__COUNT), "unknown");
	assert_int_equal(bf_dtype_element_bytes(BF_DTYPE__COUNT), 0);
}

/* Every one of the 65536 fp16 patterns decodes to the value the format
 * defines, and every non-NaN pattern survives fp16 -> fp32 -> fp16. NaNs
 * stay NaNs of the same sign (quiet: the payload may gain the quiet bit). */
static void test_fp16_exhaustive(void **state)
{
	int nans = 0;

	for (uint32_t i = 0; i <= 0xffff; i++) {
		uint16_t h = (uint16_t)i;
		float f = bf_fp16_to_fp32(h);
		uint16_t back = bf_fp32_to_fp16(f);

		if (is_nan16(h, 5, 10)) {
			nans++;
			assert_true(isnan(f));
			assert_true(is_nan16(back, 5, 10));
			assert_int_equal(back & 0x8000, h & 0x8000);
			assert_int_equal(back & 0x0200, 0x0200); /* quiet */
			continue;
		}
		if ((double)f != ref_fp16(h))
			fail_msg("fp16 0x%04x decodes to %.17g, want %.17g", h,
				 (double)f, ref_fp16(h));
		if (back != h)
			fail_msg("fp16 0x%04x -> %a -> 0x%04x", h, (double)f,
				 back);
	}
	assert_int_equal(nans, 2 * 1023);
}

static void test_bf16_exhaustive(void **state)
{
	int nans = 0;

	for (uint32_t i = 0; i <= 0xffff; i++) {
		uint16_t b = (uint16_t)i;
		float f = bf_bf16_to_fp32(b);
		uint16_t back = bf_fp32_to_bf16(f);

		if (is_nan16(b, 8, 7)) {
			nans++;
			assert_true(isnan(f));
			assert_true(is_nan16(back, 8, 7));
			assert_int_equal(back & 0x8000, b & 0x8000);
			assert_int_equal(back & 0x0040, 0x0040); /* quiet */
			continue;
		}
		if ((double)f != ref_bf16(b))
			fail_msg("bf16 0x%04x decodes to %.17g, want %.17g", b,
				 (double)f, ref_bf16(b));
		if (back != b)
			fail_msg("bf16 0x%04x -> %a -> 0x%04x", b, (double)f,
				 back);
	}
	assert_int_equal(nans, 2 * 127);
}

/* For each pair of neighbouring non-negative finite patterns lo, lo+1
 * (and the largest finite value with infinity above it), the exact
 * midpoint is representable in fp32 (it needs one more significant bit
 * than the 16-bit format has). Round to nearest, ties to even: the
 * midpoint goes to the even pattern, one fp32 ulp below it to lo, one
 * above to lo+1. The same holds mirrored for negative values. */
static void check_ties(uint16_t (*to16)(float), double (*ref)(uint16_t),
		       uint16_t max_finite, double next_above_max)
{
	for (uint32_t lo = 0; lo <= max_finite; lo++) {
		double vlo = ref((uint16_t)lo);
		double vhi = lo < max_finite ? ref((uint16_t)(lo + 1)) :
					       next_above_max;
		double mid = (vlo + vhi) / 2;
		float fm = (float)mid;
		uint16_t even = (lo & 1) ? (uint16_t)(lo + 1) : (uint16_t)lo;

		if ((double)fm != mid)
			fail_msg("midpoint after 0x%04x not exact in fp32",
				 (unsigned)lo);
		if (to16(fm) != even)
			fail_msg("tie %a after 0x%04x -> 0x%04x, want 0x%04x",
				 mid, (unsigned)lo, to16(fm), even);
		if (to16(nextafterf(fm, 0.0f)) != lo)
			fail_msg("just below tie %a -> 0x%04x, want 0x%04x", mid,
				 to16(nextafterf(fm, 0.0f)), (unsigned)lo);
		if (to16(nextafterf(fm, INFINITY)) != lo + 1)
			fail_msg("just above tie %a -> 0x%04x, want 0x%04x", mid,
				 to16(nextafterf(fm, INFINITY)),
				 (unsigned)lo + 1);
		/* Negative mirror: only the sign bit changes. */
		if (to16(-fm) != (even | 0x8000))
			fail_msg("tie -%a after 0x%04x -> 0x%04x", mid,
				 (unsigned)lo, to16(-fm));
	}
}

static void test_fp16_ties_to_even(void **state)
{
	/* Above 65504 (0x7bff) the next step would be 2^16: infinity. */
	check_ties(bf_fp32_to_fp16, ref_fp16, 0x7bff, 65536.0);
}

static void test_bf16_ties_to_even(void **state)
{
	check_ties(bf_fp32_to_bf16, ref_bf16, 0x7f7f, ldexp(1.0, 128));
}

static void test_fp16_overflow_and_specials(void **state)
{
	assert_int_equal(bf_fp32_to_fp16(65504.0f), 0x7bff);
	assert_int_equal(bf_fp32_to_fp16(65519.99f), 0x7bff);
	assert_int_equal(bf_fp32_to_fp16(65520.0f), 0x7c00); /* tie to even: inf */
	assert_int_equal(bf_fp32_to_fp16(1e6f), 0x7c00);
	assert_int_equal(bf_fp32_to_fp16(FLT_MAX), 0x7c00);
	assert_int_equal(bf_fp32_to_fp16(-FLT_MAX), 0xfc00);
	assert_int_equal(bf_fp32_to_fp16(INFINITY), 0x7c00);
	assert_int_equal(bf_fp32_to_fp16(-INFINITY), 0xfc00);
	assert_int_equal(bf_fp32_to_fp16(0.0f), 0x0000);
	assert_int_equal(bf_fp32_to_fp16(-0.0f), 0x8000);
	assert_true(is_nan16(bf_fp32_to_fp16(NAN), 5, 10));
	assert_true(isinf(bf_fp16_to_fp32(0x7c00)) && bf_fp16_to_fp32(0x7c00) > 0);
	assert_true(isinf(bf_fp16_to_fp32(0xfc00)) && bf_fp16_to_fp32(0xfc00) < 0);
}

static void test_bf16_overflow_and_specials(void **state)
{
	assert_int_equal(bf_fp32_to_bf16(3.3895313892515355e38f), 0x7f7f);
	assert_int_equal(bf_fp32_to_bf16(FLT_MAX), 0x7f80); /* above the tie */
	assert_int_equal(bf_fp32_to_bf16(-FLT_MAX), 0xff80);
	assert_int_equal(bf_fp32_to_bf16(INFINITY), 0x7f80);
	assert_int_equal(bf_fp32_to_bf16(-0.0f), 0x8000);
	assert_true(is_nan16(bf_fp32_to_bf16(NAN), 8, 7));
	/* A signalling fp32 NaN whose payload lies only in the low 16 bits
	 * would truncate to infinity; it must stay a NaN. */
	{
		uint32_t snan = 0x7f800001u;
		float f;

		memcpy(&f, &snan, sizeof(f));
		assert_true(is_nan16(bf_fp32_to_bf16(f), 8, 7));
		assert_true(is_nan16(bf_fp32_to_fp16(f), 5, 10));
	}
}

static void test_fp16_subnormals(void **state)
{
	/* Smallest subnormal 2^-24, largest subnormal 1023 * 2^-24, smallest
	 * normal 2^-14. */
	assert_int_equal(bf_fp32_to_fp16(0x1p-24f), 0x0001);
	assert_int_equal(bf_fp32_to_fp16(0x3ffp-24f), 0x03ff);
	assert_int_equal(bf_fp32_to_fp16(0x1p-14f), 0x0400);
	assert_int_equal(bf_fp32_to_fp16(0x1p-25f), 0x0000);  /* tie -> even 0 */
	assert_int_equal(bf_fp32_to_fp16(0x3p-26f), 0x0001);  /* 0.75 ulp -> 1 */
	assert_int_equal(bf_fp32_to_fp16(0x1p-26f), 0x0000);  /* 0.25 ulp -> 0 */
	assert_int_equal(bf_fp32_to_fp16(0x3p-25f), 0x0002);  /* 1.5 ulp: tie -> 2 */
	assert_int_equal(bf_fp32_to_fp16(-0x1p-24f), 0x8001);
	/* Largest subnormal plus half an ulp rounds up into the normals. */
	assert_int_equal(bf_fp32_to_fp16(0x7ffp-25f), 0x0400);
	/* fp32 subnormals are far below fp16's range. */
	assert_int_equal(bf_fp32_to_fp16(0x1p-149f), 0x0000);
	assert_true(bf_fp16_to_fp32(0x0001) == 0x1p-24f);
	assert_true(bf_fp16_to_fp32(0x8001) == -0x1p-24f);
}

static void test_bf16_subnormals(void **state)
{
	/* bf16 shares fp32's exponent: its subnormals are fp32 subnormals
	 * with the low 16 bits dropped. */
	assert_int_equal(bf_fp32_to_bf16(0x1p-133f), 0x0001);
	assert_int_equal(bf_fp32_to_bf16(0x1p-126f), 0x0080);
	assert_int_equal(bf_fp32_to_bf16(0x1p-134f), 0x0000); /* tie -> even 0 */
	assert_int_equal(bf_fp32_to_bf16(0x3p-134f), 0x0002); /* tie -> even 2 */
	assert_true(bf_bf16_to_fp32(0x0001) == 0x1p-133f);
}

static void test_tf32_rounding(void **state)
{
	/* tf32 keeps 10 fraction bits: the step above 1.0 is 2^-10. */
	assert_true(bf_fp32_round_tf32(1.0f) == 1.0f);
	assert_true(bf_fp32_round_tf32(1.0f + 0x1p-11f) == 1.0f);          /* tie, even */
	assert_true(bf_fp32_round_tf32(1.0f + 0x3p-11f) == 1.0f + 0x1p-9f); /* tie, even */
	assert_true(bf_fp32_round_tf32(1.0f + 0x1p-11f + 0x1p-23f) ==
		    1.0f + 0x1p-10f);
	assert_int_equal(bits32(bf_fp32_round_tf32(FLT_MAX)), 0x7f800000u);
	assert_true(bf_fp32_round_tf32(0x1.ffcp127f) == 0x1.ffcp127f); /* tf32 max */
	assert_true(isinf(bf_fp32_round_tf32(INFINITY)));
	assert_true(isnan(bf_fp32_round_tf32(NAN)));
	/* Every result has its low 13 bits clear. */
	for (uint32_t u = 0x3f800000u; u < 0x3f800000u + 100000u; u += 7) {
		float f;

		memcpy(&f, &u, sizeof(f));
		assert_int_equal(bits32(bf_fp32_round_tf32(f)) & 0x1fffu, 0);
		assert_true(fabs(bf_fp32_round_tf32(f) - f) <= 0x1p-11);
	}
}

static void test_load_store(void **state)
{
	float f32[2];
	uint16_t h[2];
	double f64[1];
	int64_t i64[1];
	int8_t i8[1];
	int32_t i32[1];
	uint8_t u8[1];

	bf_dtype_store(BF_DTYPE_FP32, f32, 1, 0.1);
	assert_true(bf_dtype_load(BF_DTYPE_FP32, f32, 1) == (double)0.1f);
	bf_dtype_store(BF_DTYPE_FP16, h, 0, 1.0 + 0x1p-11); /* tie -> 1.0 */
	assert_int_equal(h[0], 0x3c00);
	assert_true(bf_dtype_load(BF_DTYPE_FP16, h, 0) == 1.0);
	bf_dtype_store(BF_DTYPE_BF16, h, 1, 3.0);
	assert_int_equal(h[1], 0x4040);
	assert_true(bf_dtype_load(BF_DTYPE_BF16, h, 1) == 3.0);
	bf_dtype_store(BF_DTYPE_FP64, f64, 0, 0.1);
	assert_true(bf_dtype_load(BF_DTYPE_FP64, f64, 0) == 0.1);
	bf_dtype_store(BF_DTYPE_INT64, i64, 0, -42.0);
	assert_true(bf_dtype_load(BF_DTYPE_INT64, i64, 0) == -42.0);
	bf_dtype_store(BF_DTYPE_INT8, i8, 0, -7.0);
	assert_true(bf_dtype_load(BF_DTYPE_INT8, i8, 0) == -7.0);
	bf_dtype_store(BF_DTYPE_INT32, i32, 0, -100000.9);
	assert_int_equal(i32[0], -100000);
	assert_true(bf_dtype_load(BF_DTYPE_INT32, i32, 0) == -100000.0);
	bf_dtype_store(BF_DTYPE_UINT8, u8, 0, 200.0);
	assert_true(bf_dtype_load(BF_DTYPE_UINT8, u8, 0) == 200.0);
}

/* The dtypes docs/schema.json admits ($defs.dtype.enum, the list the
 * record reader holds every record's "dtype" to) are exactly enum
 * bf_dtype's names: so ctl's model, which parses a record's dtype into
 * the enum once, knows every dtype a record it read can carry. */
static void test_schema_dtypes(void **state)
{
	cJSON *schema = cJSON_Parse((const char *)bf_schema_json_text);
	const cJSON *list, *v;
	int seen[BF_DTYPE__COUNT] = { 0 }, count = 0;
	enum bf_dtype dt;

	(void)state;
	assert_non_null(schema);
	list = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(schema, "$defs"),
			"dtype"),
		"enum");
	assert_true(cJSON_IsArray(list));
	cJSON_ArrayForEach(v, list) {
		assert_true(cJSON_IsString(v));
		assert_int_equal(bf_dtype_parse(v->valuestring, &dt), 0);
		assert_string_equal(bf_dtype_name(dt), v->valuestring);
		assert_int_equal(seen[dt]++, 0);
		count++;
	}
	assert_int_equal(count, BF_DTYPE__COUNT);
	cJSON_Delete(schema);
}

/* --- float limits ---------------------------------------------------- */

static struct bf_float_limits limits_of(enum bf_dtype dt)
{
	struct bf_float_format f;

	assert_int_equal(bf_dtype_format(dt, &f), 0);
	return bf_float_format_limits(&f);
}

static void test_limits_exact(void **state)
{
	/* Literal values from shared/docs/seed-facts.md (torch.finfo). */
	struct bf_float_limits l32 = limits_of(BF_DTYPE_FP32);
	struct bf_float_limits l16 = limits_of(BF_DTYPE_FP16);
	struct bf_float_limits lbf = limits_of(BF_DTYPE_BF16);
	struct bf_float_limits ltf = limits_of(BF_DTYPE_TF32);
	struct bf_float_format f;

	assert_true(l32.max == 3.4028234663852886e38);
	assert_true(l32.eps == 1.1920928955078125e-07);
	assert_true(l32.smallest_normal == 1.1754943508222875e-38);
	assert_true(l32.smallest_subnormal == 0x1p-149);
	assert_true(l16.max == 65504.0);
	assert_true(l16.eps == 9.765625e-04);
	assert_true(l16.smallest_normal == 6.103515625e-05);
	assert_true(l16.smallest_subnormal == 0x1p-24);
	assert_true(lbf.max == 3.3895313892515355e38);
	assert_true(lbf.eps == 7.8125e-03);
	assert_true(lbf.smallest_normal == 0x1p-126);
	assert_true(lbf.smallest_subnormal == 0x1p-133);
	/* tf32: fp32's exponent, fp16's 10-bit fraction. */
	assert_true(ltf.max == 0x1.ffcp127);
	assert_true(ltf.eps == 0x1p-10);
	assert_true(ltf.smallest_normal == 0x1p-126);

	/* The same values three other ways: <float.h>, and the decoded
	 * largest-finite and smallest-normal bit patterns. */
	assert_true(l32.max == FLT_MAX);
	assert_true(l32.eps == FLT_EPSILON);
	assert_true(l32.smallest_normal == FLT_MIN);
	assert_true(l16.max == bf_fp16_to_fp32(0x7bff));
	assert_true(l16.smallest_normal == bf_fp16_to_fp32(0x0400));
	assert_true(l16.eps == bf_fp16_to_fp32(0x3c01) - 1.0);
	assert_true(lbf.max == bf_bf16_to_fp32(0x7f7f));
	assert_true(lbf.smallest_normal == bf_bf16_to_fp32(0x0080));
	assert_true(lbf.eps == bf_bf16_to_fp32(0x3f81) - 1.0);

	assert_int_equal(bf_dtype_format(BF_DTYPE_INT8, &f), -1);
	assert_int_equal(bf_dtype_format(BF_DTYPE_FP16, &f), 0);
	assert_int_equal(f.bits, 16);
	assert_int_equal(f.exponent_bits, 5);
	assert_int_equal(f.mantissa_bits, 10);
}

/* fp8 e4m3 (OFP8 1.0): every pattern decodes to the value the format
 * defines; every finite one survives decode -> encode; the midpoint of
 * each pair of neighbours rounds to the one with the even mantissa and
 * anything off the midpoint to the nearer; above 448 saturates; NaN is
 * S.1111.111 only. */
static void test_fp8_e4m3(void **state)
{
	int nans = 0;
	struct bf_float_format f;
	struct bf_float_limits l;

	for (int b = 0; b < 256; b++) {
		float v = bf_fp8_e4m3_to_fp32((uint8_t)b);
		int e = (b >> 3) & 0xf, m = b & 7;
		double want = e == 0 ? m * 0x1p-9 : (1 + m / 8.0) * ldexp(1, e - 7);

		if ((b & 0x7f) == 0x7f) {
			assert_true(isnan(v));
			assert_int_equal(bf_to_fp8_e4m3(v) & 0x7f, 0x7f);
			nans++;
			continue;
		}
		assert_true(fabs(v) == want);
		assert_true((v < 0 || (v == 0 && signbit(v))) == (b >= 0x80));
		assert_int_equal(bf_to_fp8_e4m3(v), b);
	}
	assert_int_equal(nans, 2);
	/* Neighbours among the positive finite values (0x00 .. 0x7e). */
	for (int b = 0; b < 0x7e; b++) {
		double lo = bf_fp8_e4m3_to_fp32((uint8_t)b);
		double hi = bf_fp8_e4m3_to_fp32((uint8_t)(b + 1));
		double mid = (lo + hi) / 2;

		assert_int_equal(bf_to_fp8_e4m3(mid), (b & 1) ? b + 1 : b);
		assert_int_equal(bf_to_fp8_e4m3(mid - (hi - lo) / 16), b);
		assert_int_equal(bf_to_fp8_e4m3(mid + (hi - lo) / 16), b + 1);
		assert_int_equal(bf_to_fp8_e4m3(-mid) & 0x7f, (b & 1) ? b + 1 : b);
	}
	assert_int_equal(bf_to_fp8_e4m3(448), 0x7e);
	assert_int_equal(bf_to_fp8_e4m3(464), 0x7e); /* saturates */
	assert_int_equal(bf_to_fp8_e4m3(1e30), 0x7e);
	assert_int_equal(bf_to_fp8_e4m3(-INFINITY), 0xfe);
	assert_int_equal(bf_to_fp8_e4m3(0x1p-11), 0);    /* under half 2^-9 */
	assert_int_equal(bf_to_fp8_e4m3(0x1p-10), 0);    /* a tie: to even 0 */
	assert_int_equal(bf_to_fp8_e4m3(1.0), 0x38);
	/* Limits from the format: finite_only's largest is 448. */
	assert_int_equal(bf_dtype_format(BF_DTYPE_FP8, &f), 0);
	assert_int_equal(f.finite_only, 1);
	l = bf_float_format_limits(&f);
	assert_true(l.max == 448.0);
	assert_true(l.max == bf_fp8_e4m3_to_fp32(0x7e));
	assert_true(l.eps == 0.125);
	assert_true(l.smallest_normal == 0x1p-6);
	assert_true(l.smallest_subnormal == 0x1p-9);
	{
		uint8_t buf[2];

		bf_dtype_store(BF_DTYPE_FP8, buf, 1, -0.3);
		assert_true(bf_dtype_load(BF_DTYPE_FP8, buf, 1) == -0.3125);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_sizes),
		cmocka_unit_test(test_fp16_exhaustive),
		cmocka_unit_test(test_bf16_exhaustive),
		cmocka_unit_test(test_fp16_ties_to_even),
		cmocka_unit_test(test_bf16_ties_to_even),
		cmocka_unit_test(test_fp16_overflow_and_specials),
		cmocka_unit_test(test_bf16_overflow_and_specials),
		cmocka_unit_test(test_fp16_subnormals),
		cmocka_unit_test(test_bf16_subnormals),
		cmocka_unit_test(test_tf32_rounding),
		cmocka_unit_test(test_load_store),
		cmocka_unit_test(test_schema_dtypes),
		cmocka_unit_test(test_limits_exact),
		cmocka_unit_test(test_fp8_e4m3),
	};

	return cmocka_run_group_tests_name("dtype", tests, NULL, NULL);
}
