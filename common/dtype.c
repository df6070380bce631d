/*
 * dtype tables and bit-exact conversions. The conversions work on the bit
 * patterns so that they give identical results on x86-64 and aarch64 hosts
 * and do not depend on _Float16 support in the compiler.
 */
#include "dtype.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *name;
	size_t element_bytes;
	struct bf_float_format format; /* bits == 0 for integers */
} dtype_table[BF_DTYPE__COUNT] = {
	[BF_DTYPE_FP32] = { "fp32", 4, { 32, 8, 23 } },
	[BF_DTYPE_FP16] = { "fp16", 2, { 16, 5, 10 } },
	[BF_DTYPE_BF16] = { "bf16", 2, { 16, 8, 7 } },
	[BF_DTYPE_TF32] = { "tf32", 4, { 19, 8, 10 } },
	[BF_DTYPE_FP64] = { "fp64", 8, { 64, 11, 52 } },
	[BF_DTYPE_INT64] = { "int64", 8, { 0, 0, 0 } },
	[BF_DTYPE_INT8] = { "int8", 1, { 0, 0, 0 } },
	[BF_DTYPE_FP8] = { "fp8", 1, { 8, 4, 3, 1 } },
	[BF_DTYPE_INT32] = { "int32", 4, { 0, 0, 0 } },
	[BF_DTYPE_UINT8] = { "uint8", 1, { 0, 0, 0 } },
};

const char *bf_dtype_name(enum bf_dtype dt)
{
	if ((int)dt < 0 || dt >= BF_DTYPE__COUNT)
		return "unknown";
	return dtype_table[dt].name;
}

int bf_dtype_parse(const char *name, enum bf_dtype *out)
{
	static const struct { const char *alias; enum bf_dtype dt; } aliases[] = {
		{ "float32", BF_DTYPE_FP32 }, { "float16", BF_DTYPE_FP16 },
		{ "half", BF_DTYPE_FP16 },    { "bfloat16", BF_DTYPE_BF16 },
		{ "float64", BF_DTYPE_FP64 }, { "float8_e4m3fn", BF_DTYPE_FP8 },
		{ "e4m3", BF_DTYPE_FP8 },
	};
	size_t i;

	for (i = 0; i < BF_DTYPE__COUNT; i++) {
		if (strcmp(name, dtype_table[i].name) == 0) {
			*out = (enum bf_dtype)i;
			return 0;
		}
	}
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (strcmp(name, aliases[i].alias) == 0) {
			*out = aliases[i].dt;
			return 0;
		}
	}
	return -1;
}

size_t bf_dtype_element_bytes(enum bf_dtype dt)
{
	if ((int)dt < 0 || dt >= BF_DTYPE__COUNT)
		return 0;
	return dtype_table[dt].element_bytes;
}

int bf_dtype_is_float(enum bf_dtype dt)
{
	return (int)dt >= 0 && dt < BF_DTYPE__COUNT &&
	       dtype_table[dt].format.bits != 0;
}

int bf_dtype_format(enum bf_dtype dt, struct bf_float_format *out)
{
	if (!bf_dtype_is_float(dt))
		return -1;
	*out = dtype_table[dt].format;
	return 0;
}

struct bf_float_limits bf_float_format_limits(const struct bf_float_format *f)
{
	struct bf_float_limits l;
	int bias = (1 << (f->exponent_bits - 1)) - 1;
	int m = f->mantissa_bits;

	l.max = f->finite_only ? (2.0 - ldexp(1.0, 1 - m)) * ldexp(1.0, bias + 1) :
				 (2.0 - ldexp(1.0, -m)) * ldexp(1.0, bias);
	l.eps = ldexp(1.0, -m);
	l.smallest_normal = ldexp(1.0, 1 - bias);
	l.smallest_subnormal = ldexp(1.0, 1 - bias - m);
	return l;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float f32_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

uint16_t bf_fp32_to_bf16(float f)
{
	uint32_t u = f32_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep sign, force quiet */
		return (uint16_t)((u >> 16) | 0x0040u);
	/* Round to nearest even on the 16 dropped bits; a carry into the
	 * exponent correctly rounds up to the next binade or to infinity. */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

float bf_bf16_to_fp32(uint16_t b)
{
	return f32_from_bits((uint32_t)b << 16);
}

float bf_fp32_round_tf32(float f)
{
	uint32_t u = f32_bits(f);

	if ((u & 0x7f800000u) == 0x7f800000u) /* inf or NaN unchanged */
		return f;
	u += 0xfffu + ((u >> 13) & 1u);
	return f32_from_bits(u & 0xffffe000u);
}

uint16_t bf_fp32_to_fp16(float f)
{
	uint32_t u = f32_bits(f);
	uint32_t sign = (u >> 16) & 0x8000u;
	uint32_t absu = u & 0x7fffffffu;
	int32_t exp;
	uint32_t mant, h, shift, rem, half;

	if (absu > 0x7f800000u) /* NaN */
		return (uint16_t)(sign | 0x7e00u | ((absu >> 13) & 0x3ffu));
	if (absu == 0x7f800000u)
		return (uint16_t)(sign | 0x7c00u);
	exp = (int32_t)(absu >> 23) - 127 + 15;
	mant = absu & 0x7fffffu;
	if (exp >= 31) /* too large even before rounding */
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) {
		/* Subnormal fp16 (or zero): value = mant' * 2^-24. */
		if (exp < -10)
			return (uint16_t)sign; /* below half the smallest subnormal */
		mant |= 0x800000u;            /* hidden bit */
		shift = (uint32_t)(14 - exp); /* 13 + (1 - exp) */
		h = mant >> shift;
		rem = mant & ((1u << shift) - 1u);
		half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1u)))
			h++;
		return (uint16_t)(sign | h);
	}
	h = ((uint32_t)exp << 10) | (mant >> 13);
	rem = mant & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
		h++; /* may carry into the exponent, up to infinity: correct */
	return (uint16_t)(sign | h);
}

float bf_fp16_to_fp32(uint16_t h)
{
	uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t mant = h & 0x3ffu;

	if (exp == 0x1f) /* inf or NaN */
		return f32_from_bits(sign | 0x7f800000u | (mant << 13));
	if (exp == 0) {
		/* zero or subnormal: mant * 2^-24, exact in fp32 */
		float v = (float)mant * 0x1p-24f;
		return sign ? -v : v;
	}
	return f32_from_bits(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint8_t bf_to_fp8_e4m3(double v)
{
	uint8_t sign = signbit(v) ? 0x80 : 0;
	double a = fabs(v), q;
	int e;

	if (isnan(v))
		return (uint8_t)(sign | 0x7f);
	if (a >= 448.0) /* saturate: 448 is the largest finite */
		return (uint8_t)(sign | 0x7e);
	if (a < 0x1p-6) {
		/* Subnormal: a multiple of 2^-9; a carry to 8 is 2^-6, the
		 * smallest normal, whose bits are 8 too. */
		q = rint(a * 0x1p9); /* ties to even: the default mode */
		return (uint8_t)(sign | (uint8_t)q);
	}
	(void)frexp(a, &e); /* a = f 2^e, f in [0.5, 1) */
	e -= 1;             /* a = (1 + m/8) 2^e */
	q = rint((ldexp(a, -e) - 1.0) * 8.0);
	if (q == 8.0) { /* rounded up to the next binade */
		q = 0;
		e++;
	}
	/* a < 448 rounds at most to 448 (e = 8, q = 6): never to NaN. */
	return (uint8_t)(sign | (uint8_t)((e + 7) << 3) | (uint8_t)q);
}

float bf_fp8_e4m3_to_fp32(uint8_t b)
{
	int e = (b >> 3) & 0xf, m = b & 7;
	float v;

	if (e == 0xf && m == 7)
		return (b & 0x80) ? -NAN : NAN;
	v = e == 0 ? (float)ldexp(m, -9) : (float)ldexp(8 + m, e - 10);
	return (b & 0x80) ? -v : v;
}

double bf_dtype_load(enum bf_dtype dt, const void *buf, size_t i)
{
	switch (dt) {
	case BF_DTYPE_FP32:
	case BF_DTYPE_TF32:
		return ((const float *)buf)[i];
	case BF_DTYPE_FP16:
		return bf_fp16_to_fp32(((const uint16_t *)buf)[i]);
	case BF_DTYPE_BF16:
		return bf_bf16_to_fp32(((const uint16_t *)buf)[i]);
	case BF_DTYPE_FP64:
		return ((const double *)buf)[i];
	case BF_DTYPE_INT64:
		return (double)((const int64_t *)buf)[i];
	case BF_DTYPE_INT8:
		return ((const int8_t *)buf)[i];
	case BF_DTYPE_FP8:
		return bf_fp8_e4m3_to_fp32(((const uint8_t *)buf)[i]);
	case BF_DTYPE_INT32:
		return ((const int32_t *)buf)[i];
	case BF_DTYPE_UINT8:
		return ((const uint8_t *)buf)[i];
	default:
		return NAN;
	}
}

void bf_dtype_store(enum bf_dtype dt, void *buf, size_t i, double v)
{
	switch (dt) {
	case BF_DTYPE_FP32:
	case BF_DTYPE_TF32:
		((float *)buf)[i] = (float)v;
		break;
	case BF_DTYPE_FP16:
		((uint16_t *)buf)[i] = bf_fp32_to_fp16((float)v);
		break;
	case BF_DTYPE_BF16:
		((uint16_t *)buf)[i] = bf_fp32_to_bf16((float)v);
		break;
	case BF_DTYPE_FP64:
		((double *)buf)[i] = v;
		break;
	case BF_DTYPE_INT64:
		((int64_t *)buf)[i] = (int64_t)v;
		break;
	case BF_DTYPE_INT8:
		((int8_t *)buf)[i] = (int8_t)v;
		break;
	case BF_DTYPE_FP8:
		((uint8_t *)buf)[i] = bf_to_fp8_e4m3(v);
		break;
	case BF_DTYPE_INT32:
		((int32_t *)buf)[i] = (int32_t)v;
		break;
	case BF_DTYPE_UINT8:
		((uint8_t *)buf)[i] = (uint8_t)v;
		break;
	default:
		break;
	}
}
