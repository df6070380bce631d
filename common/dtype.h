/*
 * dtypes: names, element sizes, the IEEE 754 / bfloat16 format parameters,
 * limits derived from those parameters, and exact fp32 <-> fp16/bf16
 * conversions (round to nearest, ties to even, as IEEE 754-2008 4.3.1 and
 * CUDA's __float2half_rn / __float2bfloat16_rn do).
 */
#ifndef BF_DTYPE_H
#define BF_DTYPE_H

#include <stddef.h>
#include <stdint.h>

enum bf_dtype {
	BF_DTYPE_FP32 = 0,
	BF_DTYPE_FP16,
	BF_DTYPE_BF16,
	BF_DTYPE_TF32,  /* fp32 storage, 10-bit mantissa in tensor-core math */
	BF_DTYPE_FP64,
	BF_DTYPE_INT64,
	BF_DTYPE_INT8,
	BF_DTYPE_FP8,   /* OCP FP8 E4M3 ("e4m3fn"): 1 sign, 4 exponent, 3
			 * mantissa bits, bias 7, no infinities, NaN only at
			 * S.1111.111, largest finite 448 (OCP 8-bit Floating
			 * Point Specification (OFP8) 1.0, 2023; Micikevicius
			 * et al., "FP8 Formats for Deep Learning",
			 * arXiv:2209.05433): CUDA_R_8F_E4M3 */
	BF_DTYPE_INT32,
	BF_DTYPE_UINT8, /* int32 and uint8: named so that every dtype
			 * docs/schema.json admits ($defs.dtype) is one
			 * (unit.dtype test_schema_dtypes holds the two
			 * lists equal); no workload of the agent uses them */
	BF_DTYPE__COUNT
};

/* Parameters of a binary floating-point format. */
struct bf_float_format {
	int bits;          /* storage bits (tf32: 19 significant, stored in 32) */
	int exponent_bits;
	int mantissa_bits; /* explicit fraction bits, not counting the hidden 1 */
	int finite_only;   /* 1: no infinities, the all-ones exponent holds
			    * normal numbers and only its all-ones mantissa
			    * is NaN (fp8 e4m3) */
};

/* Limits derived from a float_format (see dtype_limits). */
struct bf_float_limits {
	double max;             /* (2 - 2^-m) * 2^bias, bias = 2^(e-1) - 1 */
	double eps;             /* 2^-m: gap between 1.0 and the next value */
	double smallest_normal; /* 2^(1 - bias) */
	double smallest_subnormal; /* 2^(1 - bias - m) */
};

/* "fp32", "fp16", "bf16", "tf32", "fp64", "int64", "int8", "fp8",
 * "int32", "uint8"; "unknown" for a value outside the enum; static. */
const char *bf_dtype_name(enum bf_dtype dt);

/* Parses a name as printed by bf_dtype_name (also accepts "float32",
 * "float16", "bfloat16", "float8_e4m3fn", "e4m3"). Returns 0 and sets
 * *out, or -1 if unknown. */
int bf_dtype_parse(const char *name, enum bf_dtype *out);

/* Bytes per element as stored in memory (tf32 is stored as fp32: 4). */
size_t bf_dtype_element_bytes(enum bf_dtype dt);

/* 1 for the floating dtypes, 0 for integers. */
int bf_dtype_is_float(enum bf_dtype dt);

/* Format parameters of a floating dtype; returns -1 for integer dtypes. */
int bf_dtype_format(enum bf_dtype dt, struct bf_float_format *out);

/* Limits computed from the format parameters alone (no <float.h>), so that
 * they can be checked against <float.h> and against decoded bit patterns.
 * Formulas: IEEE 754-2008 section 3.3 (emax = bias, emin = 1 - emax); a
 * finite_only format's largest value is (2 - 2^(1-m)) 2^(bias+1) (OFP8
 * 1.0, 5.2: 448 for e4m3). */
struct bf_float_limits bf_float_format_limits(const struct bf_float_format *f);

/* fp32 -> fp16 bits, round to nearest even; overflow gives +-inf, NaN stays
 * NaN (quiet), subnormals are produced exactly. */
uint16_t bf_fp32_to_fp16(float f);
float bf_fp16_to_fp32(uint16_t h);   /* exact */
/* fp32 -> bf16 bits, round to nearest even; NaN stays NaN (quiet). */
uint16_t bf_fp32_to_bf16(float f);
float bf_bf16_to_fp32(uint16_t b);   /* exact */
/* Rounds an fp32 value to the nearest tf32 value (10-bit mantissa, ties to
 * even), returned as fp32. */
float bf_fp32_round_tf32(float f);

/* v -> fp8 e4m3 bits, round to nearest even, saturating to +-448 (as
 * CUDA's __nv_cvt_double_to_fp8(v, __NV_SATFINITE, __NV_E4M3) does);
 * NaN gives 0x7f with v's sign. Subnormals (multiples of 2^-9 below
 * 2^-6) are produced exactly. */
uint8_t bf_to_fp8_e4m3(double v);
float bf_fp8_e4m3_to_fp32(uint8_t b); /* exact */

/* Reads element i of a buffer of dtype dt as a double (fp32, fp16, bf16,
 * tf32, fp64, int64, int8, fp8, int32, uint8). */
double bf_dtype_load(enum bf_dtype dt, const void *buf, size_t i);
/* Stores v (rounded to nearest even for the 16-bit floats and fp8; an
 * integer dtype truncates toward zero, and v must be within its range,
 * as for a C conversion) as element i. */
void bf_dtype_store(enum bf_dtype dt, void *buf, size_t i, double v);

#endif
