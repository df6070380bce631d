/*
 * Unit tests for agent/hardware/peak.c: the GPU table reproduces NVIDIA's published
 * peaks from SMs x clock, the CPU formula reproduces the peak measured in
 * bench/RESULTS.md, unknown inputs give NaN with a reason, and the probe
 * reads something sane on this machine.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "hardware/peak.h"

static void assert_near(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("got %.6g, want %.6g (+-%.1f%%)", got, want, rel * 100);
}

static void test_gpu_published_peaks(void **state)
{
	struct peak p;

	/* H100 SXM: 132 SMs at 1.83 GHz boost, 989.4 TFLOPS dense fp16 /
	 * bf16, 494.7 TF tf32 (H100 whitepaper, table 3). */
	peak_gpu(9, 0, 132, 1.83, BF_DTYPE_FP16, &p);
	assert_near(p.gflops, 989.4e3, 0.001);
	peak_gpu(9, 0, 132, 1.83, BF_DTYPE_BF16, &p);
	assert_near(p.gflops, 989.4e3, 0.001);
	peak_gpu(9, 0, 132, 1.83, BF_DTYPE_TF32, &p);
	assert_near(p.gflops, 494.7e3, 0.001);
	assert_int_equal(p.units, 132);
	assert_non_null(strstr(p.basis, "132 SMs x 2048 FLOP/cycle/SM"));
	/* A100: 108 SMs, 1.41 GHz: 312 TF fp16, 19.5 TF fp32. */
	peak_gpu(8, 0, 108, 1.41, BF_DTYPE_FP16, &p);
	assert_near(p.gflops, 312e3, 0.001);
	peak_gpu(8, 0, 108, 1.41, BF_DTYPE_FP32, &p);
	assert_near(p.gflops, 19.5e3, 0.001);
	/* V100: 80 SMs, 1.53 GHz: 125 TF fp16 tensor, 15.7 TF fp32; no bf16
	 * tensor cores, so bf16 gets the fp32 rate. */
	peak_gpu(7, 0, 80, 1.53, BF_DTYPE_FP16, &p);
	assert_near(p.gflops, 125e3, 0.003);
	peak_gpu(7, 0, 80, 1.53, BF_DTYPE_BF16, &p);
	assert_near(p.gflops, 15.7e3, 0.003);
	/* DGX Spark's GB10 is compute capability 12.1: the 12.x row. */
	assert_true(peak_gpu_flops_per_cycle(12, 1, BF_DTYPE_FP32, NULL) == 256);
}

static void test_gpu_unknown(void **state)
{
	struct peak p;

	peak_gpu(6, 1, 20, 1.5, BF_DTYPE_FP32, &p);
	assert_true(isnan(p.gflops));
	assert_non_null(strstr(p.basis, "compute capability 6.1"));
	peak_gpu(9, 0, 0, 1.5, BF_DTYPE_FP32, &p);
	assert_true(isnan(p.gflops));
	peak_gpu(9, 0, 132, 0, BF_DTYPE_FP32, &p);
	assert_true(isnan(p.gflops));
}

static void test_cpu_formula(void **state)
{
	/* bench/RESULTS.md: 2 cores x 64 FLOP/cycle (16 AVX-512 lanes x 2
	 * FMA units x 2) x 2.96 GHz = 379 GFLOP/s. */
	struct cpu_caps c = { .cores = 2, .fp32_lanes = 16, .fma_units = 2,
			      .bf16_factor = 1, .fp16_factor = 1,
			      .clock_ghz = 2.96 };
	struct peak p;

	snprintf(c.isa, sizeof(c.isa), "avx512f");
	peak_cpu(&c, BF_DTYPE_FP32, &p);
	assert_near(p.gflops, 378.88, 1e-9);
	assert_true(p.flops_per_cycle == 64);
	assert_non_null(strstr(p.basis, "2 cores x 16 fp32 lanes (avx512f)"));
	c.bf16_factor = 2;
	peak_cpu(&c, BF_DTYPE_BF16, &p);
	assert_near(p.gflops, 2 * 378.88, 1e-9);
	peak_cpu(&c, BF_DTYPE_TF32, &p);
	assert_true(isnan(p.gflops));
	c.clock_ghz = NAN;
	peak_cpu(&c, BF_DTYPE_FP32, &p);
	assert_true(isnan(p.gflops));
}

static void test_probe_this_machine(void **state)
{
	struct cpu_caps c;
	struct peak p;

	peak_cpu_probe(&c);
	assert_true(c.cores >= 1);
	assert_true(c.fp32_lanes == 4 || c.fp32_lanes == 8 ||
		    c.fp32_lanes == 16);
	/* Any CPU this runs on clocks between 0.2 and 10 GHz. */
	assert_true(c.clock_ghz > 0.2 && c.clock_ghz < 10);
	peak_cpu(&c, BF_DTYPE_FP32, &p);
	assert_true(p.gflops > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_published_peaks),
		cmocka_unit_test(test_gpu_unknown),
		cmocka_unit_test(test_cpu_formula),
		cmocka_unit_test(test_probe_this_machine),
	};

	return cmocka_run_group_tests_name("peak", tests, NULL, NULL);
}
