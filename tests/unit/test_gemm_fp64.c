/*
 * Unit tests for agent/gemm_fp64.c, the operand loops of
 * gemm_verify(): the non-finite count equals isfinite() of bf_dtype_load
 * for every element, over all 65536 fp16 and bf16 bit patterns and the
 * special fp32 and fp64 values; the sampled float64 reference and
 * magnitude equal, bit for bit, the element-by-element sum over k in
 * order that they replace, for each input dtype.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "workloads/gemm_fp64.h"

static int64_t scalar_nonfinite(enum bf_dtype dt, const void *buf, size_t n)
{
	int64_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += !isfinite(bf_dtype_load(dt, buf, i));
	return bad;
}

static void test_nonfinite_every_16bit_pattern(void **state)
{
	static const enum bf_dtype dts[] = { BF_DTYPE_FP16, BF_DTYPE_BF16 };
	uint16_t *all = malloc(65536 * sizeof(*all));

	(void)state;
	for (uint32_t i = 0; i < 65536; i++)
		all[i] = (uint16_t)i;
	for (int d = 0; d < 2; d++) {
		int64_t want = scalar_nonfinite(dts[d], all, 65536);

		/* 2 x 1024 (fp16: exponent 0x1f) or 2 x 128 (bf16: 0xff)
		 * patterns are inf or NaN. */
		assert_int_equal(want, dts[d] == BF_DTYPE_FP16 ? 2048 : 256);
		assert_int_equal(gemm_count_nonfinite(dts[d], all, 65536),
				 want);
		/* A count that stops short of the end counts only its part. */
		assert_int_equal(gemm_count_nonfinite(dts[d], all, 0x7c00),
				 scalar_nonfinite(dts[d], all, 0x7c00));
	}
	free(all);
}

static void test_nonfinite_fp32_fp64_specials(void **state)
{
	const float f[] = { 0.0f, -0.0f, 1.0f, 0x1p-149f, 0x1p-126f,
			    3.4028235e38f, -3.4028235e38f, INFINITY, -INFINITY,
			    NAN, -NAN };
	const double d[] = { 0.0, 0x1p-1074, 1.7976931348623157e308,
			     INFINITY, -INFINITY, NAN };
	uint32_t payload = 0x7f800001u; /* a signalling NaN's bits */
	float snan;

	(void)state;
	memcpy(&snan, &payload, sizeof(snan));
	assert_int_equal(gemm_count_nonfinite(BF_DTYPE_FP32, f, 11), 4);
	assert_int_equal(gemm_count_nonfinite(BF_DTYPE_FP32, f, 11),
			 scalar_nonfinite(BF_DTYPE_FP32, f, 11));
	assert_int_equal(gemm_count_nonfinite(BF_DTYPE_TF32, f, 11), 4);
	assert_int_equal(gemm_count_nonfinite(BF_DTYPE_FP32, &snan, 1), 1);
	assert_int_equal(gemm_count_nonfinite(BF_DTYPE_FP64, d, 6), 3);
	assert_int_equal(gemm_count_nonfinite(BF_DTYPE_INT8, f, 11), 0);
}

static uint64_t lcg = 88172645463325252ull;

static double uniform(void) /* [-1, 1) */
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(lcg >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void test_reference_equals_scalar_sum(void **state)
{
	static const enum bf_dtype dts[] = { BF_DTYPE_FP32, BF_DTYPE_FP16,
					     BF_DTYPE_BF16, BF_DTYPE_TF32 };
	/* Edges, middles and a repeat of neither: any index set works. */
	const int rows[] = { 0, 66, 1, 65, 30, 7 };
	const int cols[] = { 66, 0, 13, 2, 64 };
	const int n = 67, nr = 6, nc = 5;
	size_t nn = (size_t)n * n;

	(void)state;
	for (int d = 0; d < 4; d++) {
		size_t eb = bf_dtype_element_bytes(dts[d]);
		void *a = malloc(nn * eb), *b = malloc(nn * eb);
		double ref[6 * 5], mag[6 * 5];

		for (size_t i = 0; i < nn; i++) {
			bf_dtype_store(dts[d], a, i, uniform() * 1e3);
			bf_dtype_store(dts[d], b, i, uniform() * 1e-3);
		}
		gemm_sample_reference(dts[d], a, b, n, rows, nr, cols, nc, ref,
				      mag);
		for (int ri = 0; ri < nr; ri++)
			for (int ci = 0; ci < nc; ci++) {
				double r = 0, m = 0;

				for (int k = 0; k < n; k++) {
					double p = bf_dtype_load(dts[d], a,
						(size_t)rows[ri] * n + k) *
						   bf_dtype_load(dts[d], b,
						(size_t)k * n + cols[ci]);

					r += p;
					m += fabs(p);
				}
				assert_memory_equal(&ref[ri * nc + ci], &r,
						    sizeof(r));
				assert_memory_equal(&mag[ri * nc + ci], &m,
						    sizeof(m));
			}
		free(a);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nonfinite_every_16bit_pattern),
		cmocka_unit_test(test_nonfinite_fp32_fp64_specials),
		cmocka_unit_test(test_reference_equals_scalar_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
