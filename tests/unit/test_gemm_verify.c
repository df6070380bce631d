/*
 * Unit tests for gemm_verify() (agent/workloads/gemm.c), the numerical check that
 * decides whether a GEMM result passes: a correct C passes at every
 * dtype; one wrong element, one NaN or one Inf makes it fail; and so do
 * the ways a library can be subtly wrong: accumulating in fp16 or bf16,
 * dropping one product of every dot product, transposing an operand, or
 * rounding an fp32 output through a 16-bit format, or adding split-K
 * partial sums in a 16-bit output type (cuBLAS's default math mode).
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

#include "workloads/gemm.h"

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
	gemm_verify(&f->job, f->res.c_host, f->res.c_dtype, 1, &v);
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
		assert_true(v.tolerance == gemm_tolerance(cases[c].in, 48));
		assert_true(v.output_roundoff == gemm_output_roundoff(cases[c].out));
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
		double mag, tol;

		setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, n);
		mag = f.mag[i * n + j];
		tol = gemm_tolerance(BF_DTYPE_FP32, n);
		/* Off by 10x the tolerance: fails, and the reported error
		 * is that element's (less the output rounding). */
		set_c(&f, i, j, f.ref[i * n + j] + 10 * tol * mag);
		v = verify(&f);
		assert_int_equal(v.status, BF_STATUS_FAIL);
		assert_int_equal(v.nonfinite_elements, 0);
		assert_true(fabs(v.max_rel_error - 10 * tol) < 0.05 * tol);
		/* Off by half the tolerance: passes. */
		set_c(&f, i, j, f.ref[i * n + j] + 0.5 * tol * mag);
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
	/* Above 64, a 32 x 32 sample is compared with the reference (rows
	 * and columns 0, 1, n-2 and n-1 always among them), but every
	 * element is scanned for NaN/Inf. */
	struct fixture f;
	struct gemm_verify_result v;
	int n = 100;

	setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, n);
	v = verify(&f);
	assert_int_equal(v.status, BF_STATUS_PASS);
	assert_int_equal(v.verified_elements, 32 * 32);
	set_c(&f, 37, 58, NAN);
	v = verify(&f);
	assert_int_equal(v.status, BF_STATUS_FAIL);
	assert_int_equal(v.nonfinite_elements, 1);
	set_c(&f, 37, 58, f.ref[37 * n + 58]);
	set_c(&f, n - 1, 0, f.ref[(n - 1) * n] * 1.5 + 1.0);
	assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
	teardown_gemm(&f);
}

/* C of dtype c_dtype computed by a loop that rounds every partial sum to
 * acc (fp32, fp16, bf16), or with one product left out (drop_last), or
 * with B transposed: what a wrong library would produce. */
static void compute_c(struct fixture *f, enum bf_dtype acc, int drop_last,
		      int transpose_b)
{
	int n = f->job.n;
	enum bf_dtype dt = f->job.dtype;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;

			for (int k = 0; k < n - (drop_last ? 1 : 0); k++) {
				size_t bi = transpose_b ? (size_t)j * n + k :
							  (size_t)k * n + j;
				double p = bf_dtype_load(dt, f->job.a_host,
							 (size_t)i * n + k) *
					   bf_dtype_load(dt, f->job.b_host, bi);
				uint16_t h;
				float x = (float)(s + p);

				/* round the running sum into acc */
				switch (acc) {
				case BF_DTYPE_FP16:
					h = bf_fp32_to_fp16(x);
					s = bf_fp16_to_fp32(h);
					break;
				case BF_DTYPE_BF16:
					h = bf_fp32_to_bf16(x);
					s = bf_bf16_to_fp32(h);
					break;
				default:
					s = x;
				}
			}
			bf_dtype_store(f->res.c_dtype, f->res.c_host,
				       (size_t)i * n + j, s);
		}
}

static void test_fp32_accumulation_passes(void **state)
{
	/* A plain fp32 loop (recursive summation, the least accurate order
	 * a library could use) is a correct GEMM at every size tested. */
	static const int sizes[] = { 16, 64, 200 };

	for (size_t k = 0; k < 3; k++) {
		struct fixture f;
		struct gemm_verify_result v;

		setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, sizes[k]);
		compute_c(&f, BF_DTYPE_FP32, 0, 0);
		v = verify(&f);
		if (v.status != BF_STATUS_PASS)
			fail_msg("n=%d: error %g, tolerance %g", sizes[k],
				 v.max_rel_error, v.tolerance);
		teardown_gemm(&f);
	}
}

static void test_low_precision_accumulation_fails(void **state)
{
	/* fp16 inputs, fp16 output: with fp32 accumulation it passes, with
	 * fp16 or bf16 accumulation it must not. Same for bf16. */
	static const struct { enum bf_dtype in, acc; int pass; } cases[] = {
		{ BF_DTYPE_FP16, BF_DTYPE_FP32, 1 },
		{ BF_DTYPE_FP16, BF_DTYPE_FP16, 0 },
		{ BF_DTYPE_BF16, BF_DTYPE_FP32, 1 },
		{ BF_DTYPE_BF16, BF_DTYPE_BF16, 0 },
		{ BF_DTYPE_BF16, BF_DTYPE_FP16, 0 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fixture f;
		struct gemm_verify_result v;

		setup_gemm(&f, cases[c].in, cases[c].in, 128);
		compute_c(&f, cases[c].acc, 0, 0);
		v = verify(&f);
		if ((v.status == BF_STATUS_PASS) != cases[c].pass)
			fail_msg("%s inputs, %s accumulation: error %g, "
				 "tolerance %g, expected %s",
				 bf_dtype_name(cases[c].in),
				 bf_dtype_name(cases[c].acc), v.max_rel_error,
				 v.tolerance, cases[c].pass ? "pass" : "fail");
		teardown_gemm(&f);
	}
}

/* C as a split-K GEMM computes it: K cut into `splits` equal chunks, each
 * chunk's dot product accumulated in fp32; then the partial sums added
 * either in fp32 and rounded once into C (what
 * CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION asks for), or, when
 * in_output_type, each partial rounded to C's dtype and added in it (what
 * cuBLAS's default math mode allows for fp16 and bf16 output). */
static void compute_c_split_k(struct fixture *f, int splits, int in_output_type)
{
	int n = f->job.n, chunk = (n + splits - 1) / splits;
	enum bf_dtype dt = f->job.dtype, out = f->res.c_dtype;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float total = 0;

			for (int s = 0; s < splits; s++) {
				float part = 0;

				for (int k = s * chunk; k < (s + 1) * chunk && k < n; k++)
					part += (float)(bf_dtype_load(dt, f->job.a_host,
								      (size_t)i * n + k) *
							bf_dtype_load(dt, f->job.b_host,
								      (size_t)k * n + j));
				if (in_output_type) {
					void *c = f->res.c_host;
					size_t at = (size_t)i * n + j;

					/* round the partial, then the sum */
					bf_dtype_store(out, c, at, part);
					part = (float)bf_dtype_load(out, c, at);
					bf_dtype_store(out, c, at, total + part);
					total = (float)bf_dtype_load(out, c, at);
				} else {
					total += part;
				}
			}
			bf_dtype_store(out, f->res.c_host, (size_t)i * n + j, total);
		}
}

static void test_split_k_in_output_type_fails(void **state)
{
	/* Split-K partial sums added in fp16 or bf16 are not an
	 * fp32-accumulated GEMM: refused, with the error several times the
	 * tolerance (at n = 256: 4x for fp16 in 2 splits, 50x for bf16), so
	 * the agent must disallow them (backend_cublas.c) rather than the
	 * tolerance admit them. The same splits added in fp32 pass. */
	static const enum bf_dtype dts[] = { BF_DTYPE_FP16, BF_DTYPE_BF16 };
	static const int splits[] = { 2, 4, 8 };

	for (size_t d = 0; d < 2; d++) {
		struct fixture f;

		setup_gemm(&f, dts[d], dts[d], 256);
		for (size_t s = 0; s < 3; s++) {
			struct gemm_verify_result v;

			compute_c_split_k(&f, splits[s], 1);
			v = verify(&f);
			if (v.status != BF_STATUS_FAIL ||
			    v.max_rel_error < 2 * v.tolerance)
				fail_msg("%s, %d splits added in %s: error %g, "
					 "tolerance %g, expected a FAIL",
					 bf_dtype_name(dts[d]), splits[s],
					 bf_dtype_name(dts[d]), v.max_rel_error,
					 v.tolerance);
			compute_c_split_k(&f, splits[s], 0);
			v = verify(&f);
			if (v.status != BF_STATUS_PASS)
				fail_msg("%s, %d splits added in fp32: error %g, "
					 "tolerance %g, expected a PASS",
					 bf_dtype_name(dts[d]), splits[s],
					 v.max_rel_error, v.tolerance);
		}
		teardown_gemm(&f);
	}
}

static void test_dropped_product_and_transpose_fail(void **state)
{
	static const int sizes[] = { 32, 128, 512 };

	for (size_t k = 0; k < 3; k++) {
		struct fixture f;

		setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, sizes[k]);
		compute_c(&f, BF_DTYPE_FP32, 1, 0);
		assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
		compute_c(&f, BF_DTYPE_FP32, 0, 1);
		assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
		compute_c(&f, BF_DTYPE_FP32, 0, 0);
		assert_int_equal(verify(&f).status, BF_STATUS_PASS);
		teardown_gemm(&f);
	}
	/* The same with bf16 inputs and a bf16 output, the coarsest. */
	{
		struct fixture f;

		setup_gemm(&f, BF_DTYPE_BF16, BF_DTYPE_BF16, 256);
		compute_c(&f, BF_DTYPE_FP32, 1, 0);
		assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
		compute_c(&f, BF_DTYPE_FP32, 0, 1);
		assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
		teardown_gemm(&f);
	}
}

static void test_fp32_output_of_16bit_inputs_gets_fp32_tolerance(void **state)
{
	/* OpenBLAS's sbgemm/shgemm store fp32: an output rounded through
	 * bf16 would pass a bf16 tolerance, not this one. */
	struct fixture f;
	int n = 64;

	setup_gemm(&f, BF_DTYPE_BF16, BF_DTYPE_FP32, n);
	assert_int_equal(verify(&f).status, BF_STATUS_PASS);
	for (int i = 0; i < n * n; i++)
		set_c(&f, i / n, i % n,
		      bf_bf16_to_fp32(bf_fp32_to_bf16((float)f.ref[i])));
	assert_int_equal(verify(&f).status, BF_STATUS_FAIL);
	teardown_gemm(&f);
}

static void test_sample_positions_vary_with_seed(void **state)
{
	/* An interior wrong row is found by some seeds and missed by others
	 * (positions vary from run to run); an element on an edge row and
	 * column (0, 1, n-2, n-1) is found by every seed. */
	struct fixture f;
	struct gemm_verify_result v;
	int n = 300, found = 0, missed = 0;

	setup_gemm(&f, BF_DTYPE_FP32, BF_DTYPE_FP32, n);
	for (int j = 0; j < n; j++)
		set_c(&f, 150, j, f.ref[150 * n + j] + 1.0);
	for (uint64_t seed = 1; seed <= 100; seed++) {
		gemm_verify(&f.job, f.res.c_host, f.res.c_dtype, seed << 20, &v);
		if (v.status == BF_STATUS_FAIL)
			found++;
		else
			missed++;
	}
	assert_true(found > 0);
	assert_true(missed > 0);
	for (int j = 0; j < n; j++)
		set_c(&f, 150, j, f.ref[150 * n + j]);
	set_c(&f, n - 2, 1, f.ref[(n - 2) * n + 1] + 1.0);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		gemm_verify(&f.job, f.res.c_host, f.res.c_dtype, seed * 7919, &v);
		assert_int_equal(v.status, BF_STATUS_FAIL);
	}
	teardown_gemm(&f);
}

static void test_tolerance_formula(void **state)
{
	/* lambda sqrt(k) 2^-24, TF32 adding 2 x 2^-10; output roundoffs. */
	assert_true(fabs(gemm_tolerance(BF_DTYPE_FP32, 4096) -
			 16.0 * 64 * 0x1p-24) < 1e-18);
	assert_true(gemm_tolerance(BF_DTYPE_FP16, 4096) ==
		    gemm_tolerance(BF_DTYPE_FP32, 4096));
	assert_true(fabs(gemm_tolerance(BF_DTYPE_TF32, 1) -
			 (16.0 * 0x1p-24 + 2 * 0x1p-10)) < 1e-18);
	assert_true(gemm_output_roundoff(BF_DTYPE_FP32) == 0x1p-24);
	assert_true(gemm_output_roundoff(BF_DTYPE_FP16) == 0x1p-11);
	assert_true(gemm_output_roundoff(BF_DTYPE_BF16) == 0x1p-8);
	/* One dropped product at n = 4096 is about 4/n of sum|ab| in the
	 * worst sampled element: far above the fp32 tolerance there. */
	assert_true(gemm_tolerance(BF_DTYPE_FP32, 4096) < 0.1 * 4.0 / 4096);
}

/* fp8: per-tensor power-of-two scales put max |x| in (224, 448]. */
static void test_fp8_quantise(void **state)
{
	float x[5] = { 0.5f, -0.75f, 0.001f, 0.3f, 0.0f };
	float big[2] = { 3000.0f, -1.0f };
	float zero[3] = { 0, 0, 0 };
	float exact[2] = { 448.0f, -224.0f };
	uint8_t q[5];
	double sc;
	int e;

	sc = gemm_fp8_quantise(x, 5, q);
	assert_true(frexp(sc, &e) == 0.5); /* a power of two */
	assert_true(0.75 / sc <= 448 && 0.75 / sc > 224);
	assert_true(sc == 0x1p-9); /* 0.75 / 2^-9 = 384 */
	assert_true(bf_fp8_e4m3_to_fp32(q[1]) == -384.0f);
	assert_true(bf_fp8_e4m3_to_fp32(q[0]) == 256.0f);
	/* 0.3 / 2^-9 = 153.6 -> 160 (e4m3 steps by 16 in [128, 256)). */
	assert_true(bf_fp8_e4m3_to_fp32(q[3]) == 160.0f);
	assert_true(bf_fp8_e4m3_to_fp32(q[4]) == 0.0f);
	sc = gemm_fp8_quantise(big, 2, q);
	assert_true(sc == 8.0); /* 3000 / 8 = 375 */
	assert_true(bf_fp8_e4m3_to_fp32(q[0]) == 384.0f);
	assert_true(gemm_fp8_quantise(zero, 3, q) == 1.0);
	/* A maximum exactly at 448 keeps scale 1: no value saturates. */
	assert_true(gemm_fp8_quantise(exact, 2, q) == 1.0);
	assert_true(bf_fp8_e4m3_to_fp32(q[0]) == 448.0f);
	assert_true(bf_fp8_e4m3_to_fp32(q[1]) == -224.0f);
}

/* An fp8 GEMM as cuBLASLt computes it: quantised A and B, products of
 * e4m3 values (exact in fp32) summed in fp32 (or, for the failing cases,
 * otherwise), times s_a s_b, rounded to bf16. */
static void fp8_case(int n, int mode, double *max_err, int *pass)
{
	size_t nn = (size_t)n * n;
	float *a32 = malloc(nn * sizeof(float)), *b32 = malloc(nn * sizeof(float));
	uint8_t *aq = malloc(nn), *bq = malloc(nn);
	uint16_t *c = malloc(nn * sizeof(uint16_t));
	struct gemm_job job = { .dtype = BF_DTYPE_FP8, .n = n, .iters = 1 };
	struct gemm_verify_result v;

	for (size_t i = 0; i < nn; i++) {
		a32[i] = (float)uniform();
		b32[i] = (float)uniform();
	}
	job.a_scale = gemm_fp8_quantise(a32, nn, aq);
	job.b_scale = gemm_fp8_quantise(b32, nn, bq);
	job.a_host = aq;
	job.b_host = bq;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float acc = 0;
			double exact = 0, scale = job.a_scale * job.b_scale;

			for (int k = 0; k < n; k++) {
				float pa = bf_fp8_e4m3_to_fp32(aq[(size_t)i * n + k]);
				float pb = bf_fp8_e4m3_to_fp32(bq[(size_t)k * n + j]);

				if (mode == 2) /* accumulates in bf16 */
					acc = bf_bf16_to_fp32(
						bf_fp32_to_bf16(acc + pa * pb));
				else
					acc += pa * pb;
				/* the unquantised inputs' product */
				exact += (double)a32[(size_t)i * n + k] *
					 b32[(size_t)k * n + j];
			}
			if (mode == 1) /* one scale forgotten */
				scale = job.a_scale;
			c[(size_t)i * n + j] = bf_fp32_to_bf16(
				mode == 3 ? (float)exact : (float)(acc * scale));
		}
	gemm_verify(&job, c, BF_DTYPE_BF16, 42, &v);
	*max_err = v.max_rel_error;
	*pass = v.status == BF_STATUS_PASS;
	assert_true(v.tolerance == gemm_tolerance(BF_DTYPE_FP8, n));
	assert_true(v.output_roundoff == 0x1p-8);
	free(a32);
	free(b32);
	free(aq);
	free(bq);
	free(c);
}

static void test_fp8_gemm_verified(void **state)
{
	double e;
	int pass;

	/* fp32 accumulation of exact e4m3 products: passes, full check at
	 * n = 64 and sampled at 256. */
	fp8_case(64, 0, &e, &pass);
	assert_true(pass);
	fp8_case(256, 0, &e, &pass);
	assert_true(pass);
	assert_true(e <= gemm_tolerance(BF_DTYPE_FP8, 256));
	/* A forgotten scale, bf16 accumulation, or a result of the
	 * unquantised inputs (the reference is the quantised one): fail. */
	fp8_case(64, 1, &e, &pass);
	assert_false(pass);
	fp8_case(256, 2, &e, &pass);
	assert_false(pass);
	fp8_case(64, 3, &e, &pass);
	assert_false(pass);
	/* fp8's bound is fp32 accumulation's: lambda sqrt(K) 2^-24. */
	assert_true(gemm_tolerance(BF_DTYPE_FP8, 4096) ==
		    GEMM_TOLERANCE_LAMBDA * 64 * 0x1p-24);
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
		cmocka_unit_test(test_fp32_accumulation_passes),
		cmocka_unit_test(test_low_precision_accumulation_fails),
		cmocka_unit_test(test_split_k_in_output_type_fails),
		cmocka_unit_test(test_dropped_product_and_transpose_fail),
		cmocka_unit_test(test_fp32_output_of_16bit_inputs_gets_fp32_tolerance),
		cmocka_unit_test(test_sample_positions_vary_with_seed),
		cmocka_unit_test(test_tolerance_formula),
		cmocka_unit_test(test_fp8_quantise),
		cmocka_unit_test(test_fp8_gemm_verified),
	};

	return cmocka_run_group_tests_name("gemm_verify", tests, NULL, NULL);
}
