/*
 * Unit tests for gemm_verify() (agent/gemm.c), the numerical check that
 * decides whether a GEMM result passes: a correct C passes at every
 * dtype; one wrong element, one NaN or one Inf makes it fail; the
 * tolerance is applied to the componentwise error |c - ref| / sum|a b|.
 *
 * The "correct" C is computed here in float64 from the same stored inputs
 * and rounded to C's dtype, as a correct library would produce it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gemm.h"

struct fixture {
	struct gemm_job job;
	struct gemm_result res;
	double *mag; /* sum_k |a_ik b_kj| per element */
	double *ref; /* float64 product per element */
};

static uint64_t lcg = 88172645463325252ull;

static double uniform(void) /* [-1, 1) */
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(lcg >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* A and B of dtype dt (n x n, random), C of c_dtype set to the correctly
 * rounded product. */
static void setup_gemm(struct fixture *f, enum bf_dtype dt,
		       enum bf_dtype c_dtype, int n)
{
	size_t nn = (size_t)n * n;

	memset(f, 0, sizeof(*f));
	f->job.dtype = dt;
	f->job.n = n;
	f->job.iters = 1;
	f->job.a_host = malloc(nn * bf_dtype_element_bytes(dt));
	f->job.b_host = malloc(nn * bf_dtype_element_bytes(dt));
	f->res.c_dtype = c_dtype;
	f->res.c_host = malloc(nn * bf_dtype_element_bytes(c_dtype));
	f->res.peak_bytes = -1;
	f->mag = malloc(nn * sizeof(double));
	f->ref = malloc(nn * sizeof(double));
	for (size_t i = 0; i < nn; i++) {
		bf_dtype_store(dt, (void *)f->job.a_host, i, uniform());
		bf_dtype_store(dt, (void *)f->job.b_host, i, uniform());
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double s = 0, m = 0;

			for (int k = 0; k < n; k++) {
				double p = bf_dtype_load(dt, f->job.a_host,
						      (size_t)i * n + k) *
					   bf_dtype_load(dt, f->job.b_host,
						      (size_t)k * n + j);
				s += p;
				m += fabs(p);
			}
			f->ref[(size_t)i * n + j] = s;
			f->mag[(size_t)i * n + j] = m;
			bf_dtype_store(c_dtype, f->res.c_host, (size_t)i * n + j, s);
		}
}

static void teardown_gemm(struct fixture *f)
{
	free((void *)f->job.a_host);
	free((void *)f->job.b_host);
	free(f->res.c_host);
	free(f->mag);
	free(f->ref);
}

static struct gemm_verify_result verify(struct fixture *f)
{
	struct gemm_verify_result v;

	memset(&v, 0xab, sizeof(v)); /* every field must be written */
	gemm_verify(&f->job, &f->res, 1, &v);
	return v;
}

static void set_c(struct fixture *f, int i, int j, double value)
{
	bf_dtype_store(f->res.c_dtype, f->res.c_host, (size_t)i * f->job.n + j,
		    value);
}

/* The agent's inline LCG gives erand48's values, bit for bit. */
static void test_fill_matches_erand48(void **state)
{
	static const uint64_t seeds[] = { 1, 7, 0x7fffffff, 0x12345678 };
	enum { COUNT = 100000 };
	float *got = malloc(COUNT * sizeof(float));
	float *want = malloc(COUNT * sizeof(float));

	assert_non_null(got);
	assert_non_null(want);
	for (size_t k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++)
		for (int which = 0; which < 2; which++) {
			uint64_t seed = seeds[k];
			unsigned short st[3] = {
				(unsigned short)(seed & 0xffff),
				(unsigned short)((seed >> 16) & 0xffff),
				(unsigned short)(0x330e + which) };

			for (int i = 0; i < COUNT; i++)
				want[i] = (float)(2.0 * erand48(st) - 1.0);
			gemm_fill_uniform(got, COUNT, seed, which);
			assert_memory_equal(got, want, COUNT * sizeof(float));
		}
	free(got);
	free(want);
}

static void test_correct_c_passes(void **state)
{
	static const struct { enum bf_dtype in, out; } cases[] = {
		{ BF_DTYPE_FP32, BF_DTYPE_FP32 }, /* sgemm */
		{ BF_DTYPE_TF32, BF_DTYPE_TF32 }, /* cuBLAS TF32 */
		{ BF_DTYPE_FP16, BF_DTYPE_FP16 }, /* cuBLAS fp16 out */
		{ BF_DTYPE_BF16, BF_DTYPE_BF16 }, /* cuBLAS bf16 out */
		{ BF_DTYPE_FP16, BF_DTYPE_FP32 }, /* OpenBLAS shgemm */
		{ BF_DTYPE_BF16, BF_DTYPE_FP32 }, /* OpenBLAS sbgemm */
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fixture f;
		struct gemm_verify_result v;

		setup_gemm(&f, cases[c].in, cases[c].out, 48);
		v = verify(&f);
		if (v.status != BF_STATUS_PASS)
			fail_msg("%s -> %s: error %g, tolerance %g",
				 bf_dtype_name(cases[c].in),
				 bf_dtype_name(cases[c].out), v.max_rel_error,
				 v.tolerance);
		assert_int_equal(v.verified_elements, 48 * 48); /* all */
		assert_int_equal(v.nonfinite_elements, 0);
		assert_true(v.tolerance == gemm_tolerance(cases[c].in));
		assert_true(v.max_rel_error >= 0 && v.max_rel_error <= v.tolerance);
		teardown_gemm(&f);
	}
}

static void test_fp32_is_checked_to_fp32_accuracy(void **state)
{
	/* An fp32 result rounded through bf16 (what a GEMM silently run
	 * in lower precision would give) must not pass as fp32. */
	struct fixture f;
	int n = 48;

	setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			set_c(&f, i, j,
			      bf_bf16_to_fp32(bf_fp32_to_bf16((float)f.ref[i * n + j])));
	assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
	teardown_gemm(&f);
}

static void test_one_wrong_element_fails(void **state)
{
	static const int where[][2] = { { 0, 0 }, { 17, 31 }, { 63, 63 } };

	for (size_t w = 0; w < 3; w++) {
		struct fixture f;
		struct gemm_verify_result v;
		int i = where[w][0], j = where[w][1], n = 64;
		double mag;

		setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, n);
		mag = f.mag[i * n + j];
		/* Off by 10x the tolerance: fails, and the reported error
		 * is that element's. */
		set_c(&f, i, j, f.ref[i * n + j] + 10 * gemm_tolerance(BF_DTYPE_FP32) * mag);
		v = verify(&f);
		assert_int_equal(v.status, BF_STATUS_FAIL);
		assert_int_equal(v.nonfinite_elements, 0);
		assert_true(fabs(v.max_rel_error - 1e-4) < 1e-6);
		/* Off by half the tolerance: passes. */
		set_c(&f, i, j, f.ref[i * n + j] + 0.5 * gemm_tolerance(BF_DTYPE_FP32) * mag);
		assert_int_equal(verify(&f).status, BF_STATUS_PASS);
		/* Sign flipped. */
		set_c(&f, i, j, -f.ref[i * n + j]);
		assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
		teardown_gemm(&f);
	}
}

static void test_nan_and_inf_fail(void **state)
{
	const double bad[] = { NAN, INFINITY, -INFINITY };
	int n = 32;

	for (size_t b = 0; b < 3; b++) {
		struct fixture f;
		struct gemm_verify_result v;

		setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, n);
		set_c(&f, 5, 9, bad[b]);
		v = verify(&f);
		assert_int_equal(v.status, BF_STATUS_FAIL);
		assert_int_equal(v.nonfinite_elements, 1);
		assert_true(isinf(v.max_rel_error));
		teardown_gemm(&f);
	}
	/* The same in a 16-bit output. */
	{
		struct fixture f;

		setup_gemm(&f, BF_DTYPE_FP16, BF_DTYPE_FP16, n);
		set_c(&f, 31, 0, NAN);
		assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
		teardown_gemm(&f);
	}
}

static void test_unwritten_poisoned_c_fails(void **state)
{
	/* The backends fill C with 0xff bytes (NaN) before the GEMM; a
	 * GEMM that never wrote C must fail. */
	struct fixture f;
	struct gemm_verify_result v;
	int n = 16;

	setup_gemm(&f, BF_DTYPE_BF16, BF_DTYPE_BF16, n);
	memset(f.res.c_host, 0xff, (size_t)n * n * 2);
	v = verify(&f);
	assert_int_equal(v.status, BF_STATUS_FAIL);
	assert_int_equal(v.nonfinite_elements, n * n);
	teardown_gemm(&f);
}

static void test_large_n_samples_but_scans_everything(void **state)
{
	/* Above 64, a 16 x 16 sample is compared with the reference (rows
	 * and columns 0 and n-1 always among them), but every element is
	 * scanned for NaN/Inf. */
	struct fixture f;
	struct gemm_verify_result v;
	int n = 100;

	setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, n);
	v = verify(&f);
	assert_int_equal(v.status, BF_STATUS_PASS);
	assert_int_equal(v.verified_elements, 16 * 16);
	set_c(&f, 37, 58, NAN);
	v = verify(&f);
	assert_int_equal(v.status, BF_STATUS_FAIL);
	assert_int_equal(v.nonfinite_elements, 1);
	set_c(&f, 37, 58, f.ref[37 * n + 58]);
	set_c(&f, n - 1, 0, f.ref[(n - 1) * n] * 1.5 + 1.0);
	assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
	teardown_gemm(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_matches_erand48),
		cmocka_unit_test(test_correct_c_passes),
		cmocka_unit_test(test_fp32_is_checked_to_fp32_accuracy),
		cmocka_unit_test(test_one_wrong_element_fails),
		cmocka_unit_test(test_nan_and_inf_fail),
		cmocka_unit_test(test_unwritten_poisoned_c_fails),
		cmocka_unit_test(test_large_n_samples_but_scans_everything),
	};

	return cmocka_run_group_tests_name("gemm_verify", tests, NULL, NULL);
}
