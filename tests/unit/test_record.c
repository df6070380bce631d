/*
 * Typed records (common/record.h): every record type built in C, encoded,
 * parsed back and compared field by field; missing values stay missing
 * (NaN / NULL / -1, null or absent in JSON), never zero; integer fields
 * and timed samples outside their ranges refused; a gemm record's own
 * consistency; the one speed-ratio formula and which results get one.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "record.h"

/* Encodes r, prints it as the agent would, parses the line back into
 * *out and checks that re-encoding gives the same line. */
static void round_trip(const struct bf_record *r, struct bf_record *out)
{
	cJSON *j = bf_record_encode(r), *j2;
	char *line = cJSON_PrintUnformatted(j), *line2, detail[256];

	assert_non_null(line);
	if (bf_record_parse(line, strlen(line), out, detail, sizeof(detail)) !=
	    BF_OK)
		fail_msg("%s: %s", line, detail);
	assert_int_equal(out->type, r->type);
	assert_int_equal(out->seq, r->seq);
	j2 = bf_record_encode(out);
	line2 = cJSON_PrintUnformatted(j2);
	assert_string_equal(line2, line);
	free(line2);
	free(line);
	cJSON_Delete(j2);
	cJSON_Delete(j);
}

static void test_gemm_measured(void **state)
{
	static const double samples[] = { 1.5, 1.25, 1.75 };
	struct bf_record r, d;
	struct bf_rec_gemm *g = &r.u.gemm;

	bf_record_init(&r, BF_REC_GEMM);
	r.seq = 29;
	g->device = strdup("cuda:0");
	g->dtype = strdup("bf16");
	g->n = 1024;
	g->status = BF_STATUS_PASS;
	g->median_ms = 1.5;
	g->gflops = 1431.655765333333;
	g->measured = 1;
	g->library = strdup("cuBLAS 13.1.0");
	g->math_mode = strdup("CUBLAS_COMPUTE_32F");
	g->c_dtype = strdup("bf16");
	g->warmup = 5;
	g->iters = 3;
	g->samples_ms = malloc(sizeof(samples));
	memcpy(g->samples_ms, samples, sizeof(samples));
	g->nsamples = 3;
	g->min_ms = 1.25;
	g->max_ms = 1.75;
	/* peak_mib left missing: null, not 0 */
	g->operand_bytes = 6291456;
	g->max_rel_error = 1.2e-3;
	g->tolerance = 1e-2;
	g->verified_elements = 256;
	g->nonfinite_elements = 0;
	round_trip(&r, &d);
	assert_string_equal(d.u.gemm.device, "cuda:0");
	assert_string_equal(d.u.gemm.dtype, "bf16");
	assert_int_equal(d.u.gemm.n, 1024);
	assert_int_equal(d.u.gemm.status, BF_STATUS_PASS);
	assert_null(d.u.gemm.reason);
	assert_true(d.u.gemm.measured);
	assert_string_equal(d.u.gemm.library, "cuBLAS 13.1.0");
	assert_int_equal(d.u.gemm.warmup, 5);
	assert_int_equal(d.u.gemm.nsamples, 3);
	for (int i = 0; i < 3; i++)
		assert_true(d.u.gemm.samples_ms[i] == samples[i]);
	assert_true(d.u.gemm.median_ms == 1.5);
	assert_true(d.u.gemm.gflops == g->gflops);
	assert_true(isnan(d.u.gemm.peak_mib));
	assert_true(d.u.gemm.tolerance == 1e-2);
	assert_true(d.u.gemm.nonfinite_elements == 0);
	assert_true(isnan(d.u.gemm.needed_bytes));
	bf_record_free(&d);
	bf_record_free(&r);
}

/* device_state is typed (record.h's bf_rec_device_state): a GPU row's
 * readings (one known, one NVML's reason), a CPU row's, survive decode
 * and re-encode key for key; throttled is read from it. */
static void test_gemm_device_state(void **state)
{
	struct bf_record r, d;
	struct bf_rec_gemm *g = &r.u.gemm;
	struct bf_rec_device_state *ds = &g->device_state;

	(void)state;
	bf_record_init(&r, BF_REC_GEMM);
	r.seq = 4;
	g->device = strdup("cuda:0");
	g->dtype = strdup("fp16");
	g->n = 4096;
	g->status = BF_STATUS_PASS;
	g->median_ms = 1.6;
	g->gflops = 85899.34592;
	g->measured = 1;
	g->library = strdup("cuBLAS 13.1.0");
	g->math_mode = strdup("CUBLAS_COMPUTE_32F");
	g->c_dtype = strdup("fp16");
	g->warmup = 1;
	g->iters = 1;
	g->samples_ms = malloc(sizeof(double));
	g->samples_ms[0] = 1.6;
	g->nsamples = 1;
	g->min_ms = g->max_ms = 1.6;
	g->operand_bytes = 3.0 * 4096 * 4096 * 2;
	g->max_rel_error = 1e-3;
	g->tolerance = 1e-2;
	g->verified_elements = 256;
	g->nonfinite_elements = 0;
	ds->present = 1;
	ds->before.is_gpu = 1;
	ds->before.sm_clock_mhz = 1935;
	ds->before.sm_clock_max_mhz = 1980;
	ds->before.power_w = 601.25;
	ds->before.persistence_mode = 1;
	ds->before.mig_mode = 0;
	ds->before.clock_event_reasons = strdup("sw_power_cap,hw_thermal");
	ds->has_during = 1;
	ds->during.is_gpu = 1;
	ds->during.reason = strdup("NVML: nvmlDeviceGetHandleByPciBusId: "
				   "Not Found");
	ds->after.is_gpu = 1;
	ds->after.temperature_c = 71;
	ds->power_violation_ms = 581;
	g->throttled = 1;
	round_trip(&r, &d);
	assert_true(d.u.gemm.device_state.present);
	assert_int_equal(d.u.gemm.throttled, 1);
	assert_true(d.u.gemm.device_state.before.is_gpu);
	assert_true(d.u.gemm.device_state.before.sm_clock_mhz == 1935);
	assert_int_equal(d.u.gemm.device_state.before.mig_mode, 0);
	assert_int_equal(d.u.gemm.device_state.before.ecc_mode, -1);
	assert_string_equal(d.u.gemm.device_state.before.clock_event_reasons,
			    "sw_power_cap,hw_thermal");
	assert_true(d.u.gemm.device_state.has_during);
	assert_string_equal(d.u.gemm.device_state.during.reason,
			    "NVML: nvmlDeviceGetHandleByPciBusId: Not Found");
	assert_true(d.u.gemm.device_state.after.temperature_c == 71);
	assert_true(d.u.gemm.device_state.power_violation_ms == 581);
	assert_true(isnan(d.u.gemm.device_state.thermal_violation_ms));
	bf_record_free(&d);

	/* A CPU row: no counters, throttled unknown. */
	bf_rec_device_state_free(ds);
	ds->present = 1;
	ds->before.governor = strdup("performance");
	ds->before.freq_mhz = 2100.5;
	ds->after.freq_mhz = 2000;
	g->throttled = -1;
	round_trip(&r, &d);
	assert_false(d.u.gemm.device_state.before.is_gpu);
	assert_false(d.u.gemm.device_state.has_during);
	assert_string_equal(d.u.gemm.device_state.before.governor,
			    "performance");
	assert_null(d.u.gemm.device_state.after.governor);
	assert_int_equal(d.u.gemm.throttled, -1);
	bf_record_free(&d);
	bf_record_free(&r);
}

/* The peaks, their basis and the reference survive encode and decode;
 * a record without them (an older agent) stays without them. */
static void test_gemm_peak_and_reference(void **state)
{
	struct bf_record r, d;
	struct bf_rec_gemm *g = &r.u.gemm;
	cJSON *j;

	bf_record_init(&r, BF_REC_GEMM);
	r.seq = 3;
	g->device = strdup("cuda:0");
	g->dtype = strdup("fp16");
	g->n = 4096;
	g->status = BF_STATUS_PASS;
	g->median_ms = 1.6;
	g->gflops = 2.0 * 4096 * 4096 * 4096 / 1.6 / 1e6;
	g->measured = 1;
	g->library = strdup("cuBLAS 13.1.0");
	g->math_mode = strdup("CUBLAS_COMPUTE_32F");
	g->c_dtype = strdup("fp16");
	g->warmup = 1;
	g->iters = 1;
	g->samples_ms = malloc(sizeof(double));
	g->samples_ms[0] = 1.6;
	g->nsamples = 1;
	g->min_ms = g->max_ms = 1.6;
	g->operand_bytes = 3.0 * 4096 * 4096 * 2;
	g->max_rel_error = 1e-3;
	g->tolerance = 1e-2;
	g->verified_elements = 256;
	g->nonfinite_elements = 0;
	g->peak_gflops = 125e3;
	g->peak_basis = strdup("NVIDIA GB10: 125 TFLOP/s fp16 dense");
	g->fraction_of_peak = g->gflops / g->peak_gflops;
	g->peak_method = strdup("product");
	g->peak_bound_gflops = 48 * 1024 * 2.525;
	g->peak_bound_basis = strdup("48 SMs x 1024 x 2.525 GHz");
	g->reference_gflops = 88808;
	g->reference_source = strdup("PyTorch torch.matmul on NVIDIA GB10");
	g->fraction_of_reference = g->gflops / g->reference_gflops;
	g->below_reference = 0;
	round_trip(&r, &d);
	assert_string_equal(d.u.gemm.peak_method, "product");
	assert_true(fabs(d.u.gemm.peak_bound_gflops - g->peak_bound_gflops) <
		    1e-9 * g->peak_bound_gflops);
	assert_string_equal(d.u.gemm.peak_bound_basis, g->peak_bound_basis);
	assert_null(d.u.gemm.peak_disagreement); /* null: none */
	assert_true(d.u.gemm.reference_gflops == 88808);
	assert_string_equal(d.u.gemm.reference_source, g->reference_source);
	assert_int_equal(d.u.gemm.below_reference, 0);
	/* bf_rec_gemm_check on a record contradicting itself drops the
	 * verdict with the speed */
	d.u.gemm.gflops *= 2;
	assert_int_equal(bf_rec_gemm_check(&d.u.gemm), 1);
	assert_true(isnan(d.u.gemm.fraction_of_reference));
	assert_int_equal(d.u.gemm.below_reference, -1);
	bf_record_free(&d);
	/* an older agent's record: none of the new keys */
	free(g->peak_method);
	g->peak_method = NULL;
	free(g->reference_source);
	g->reference_source = NULL;
	j = bf_record_encode(&r);
	assert_null(cJSON_GetObjectItem(j, BF_KEY_PEAK_METHOD));
	assert_null(cJSON_GetObjectItem(j, BF_KEY_PEAK_BOUND_GFLOPS));
	assert_null(cJSON_GetObjectItem(j, BF_KEY_REFERENCE_GFLOPS));
	assert_null(cJSON_GetObjectItem(j, BF_KEY_BELOW_REFERENCE));
	assert_non_null(cJSON_GetObjectItem(j, BF_KEY_PEAK_GFLOPS));
	cJSON_Delete(j);
	bf_record_free(&r);
}

static void test_gemm_skipped(void **state)
{
	struct bf_record r, d;
	cJSON *j;

	bf_record_init(&r, BF_REC_GEMM);
	r.seq = 7;
	r.u.gemm.device = strdup("cuda:0");
	r.u.gemm.dtype = strdup("fp32");
	r.u.gemm.n = 65536;
	r.u.gemm.status = BF_STATUS_SKIPPED;
	r.u.gemm.reason = strdup("operands need 49216 MiB, cuda:0 has 100 MiB free");
	r.u.gemm.needed_bytes = 51606134784.0;
	r.u.gemm.free_bytes = 104857600.0;
	/* Only the keys a record that did not run carries, in order. */
	j = bf_record_encode(&r);
	{
		char *line = cJSON_PrintUnformatted(j);

		assert_string_equal(line,
			"{\"schema\":1,\"type\":\"gemm\",\"seq\":7,\"device\":\"cuda:0\","
			"\"dtype\":\"fp32\",\"n\":65536,\"status\":\"skipped\","
			"\"reason\":\"operands need 49216 MiB, cuda:0 has 100 MiB free\","
			"\"median_ms\":null,\"gflops\":null,\"needed_bytes\":51606134784,"
			"\"free_bytes\":104857600}");
		free(line);
	}
	cJSON_Delete(j);
	round_trip(&r, &d);
	assert_false(d.u.gemm.measured);
	assert_true(isnan(d.u.gemm.median_ms));
	assert_true(isnan(d.u.gemm.gflops));
	assert_null(d.u.gemm.library);
	assert_true(d.u.gemm.free_bytes == 104857600.0);
	bf_record_free(&d);
	bf_record_free(&r);
}

static void test_plan_check_limits_summary(void **state)
{
	struct bf_record r, d;

	bf_record_init(&r, BF_REC_PLAN);
	r.seq = 1;
	r.u.plan.devices = calloc(2, sizeof(*r.u.plan.devices));
	r.u.plan.devices[0].device = strdup("cpu");
	r.u.plan.devices[0].status = BF_STATUS_PASS;
	r.u.plan.devices[1].device = strdup("cuda:0");
	r.u.plan.devices[1].status = BF_STATUS_SKIPPED;
	r.u.plan.devices[1].reason = strdup("no CUDA device");
	r.u.plan.ndevices = 2;
	r.u.plan.checks_total = 23;
	r.u.plan.gemm_total = 6;
	round_trip(&r, &d);
	assert_int_equal(d.u.plan.ndevices, 2);
	assert_string_equal(d.u.plan.devices[1].device, "cuda:0");
	assert_int_equal(d.u.plan.devices[1].status, BF_STATUS_SKIPPED);
	assert_string_equal(d.u.plan.devices[1].reason, "no CUDA device");
	assert_null(d.u.plan.devices[0].reason);
	assert_int_equal(d.u.plan.checks_total, 23);
	assert_int_equal(d.u.plan.gemm_total, 6);
	bf_record_free(&d);
	bf_record_free(&r);

	bf_record_init(&r, BF_REC_CHECK);
	r.seq = 30;
	r.u.check.name = strdup("transfer.h2d_d2h");
	r.u.check.device = strdup("cuda:0");
	r.u.check.status = BF_STATUS_FAIL;
	r.u.check.expected = cJSON_Parse("{\"roundtrip_equal\":true}");
	r.u.check.got = NULL; /* could not run: null */
	r.u.check.reason = strdup("cudaMemcpy: cudaErrorLaunchFailure");
	r.u.check.has_metrics = 1;
	r.u.check.metrics = (struct bf_rec_transfer_metrics){ 268435456, 12.5,
							       13.25, NAN, 24 };
	round_trip(&r, &d);
	assert_string_equal(d.u.check.name, "transfer.h2d_d2h");
	assert_int_equal(d.u.check.status, BF_STATUS_FAIL);
	assert_true(cJSON_Compare(d.u.check.expected, r.u.check.expected, 1));
	assert_null(d.u.check.got);
	assert_true(d.u.check.has_metrics);
	assert_true(d.u.check.metrics.bytes == 268435456);
	assert_true(d.u.check.metrics.d2h_pageable_gbps == 13.25);
	assert_true(isnan(d.u.check.metrics.h2d_pinned_gbps)); /* null */
	bf_record_free(&d);
	bf_record_free(&r);

	bf_record_init(&r, BF_REC_FLOAT_LIMITS);
	r.seq = 2;
	r.u.float_limits.dtype = strdup("bf16");
	r.u.float_limits.bits = 16;
	r.u.float_limits.exponent_bits = 8;
	r.u.float_limits.mantissa_bits = 7;
	r.u.float_limits.max = 3.3895313892515355e+38;
	r.u.float_limits.eps = 0.0078125;
	r.u.float_limits.smallest_normal = 1.1754943508222875e-38;
	r.u.float_limits.smallest_subnormal = 9.183549615799121e-41;
	round_trip(&r, &d);
	assert_string_equal(d.u.float_limits.dtype, "bf16");
	assert_int_equal(d.u.float_limits.bits, 16);
	assert_true(d.u.float_limits.max == r.u.float_limits.max);
	assert_true(d.u.float_limits.eps == 0.0078125);
	bf_record_free(&d);
	bf_record_free(&r);

	bf_record_init(&r, BF_REC_SUMMARY);
	r.seq = 35;
	r.u.summary.ratios = calloc(1, sizeof(*r.u.summary.ratios));
	r.u.summary.ratios[0] = (struct bf_rec_ratio){
		strdup(BF_RATIO_GPU_VS_CPU), strdup("cuda:0"), strdup("fp32"),
		1024, 20.0 };
	r.u.summary.nratios = 1;
	r.u.summary.checks_passed = 36;
	r.u.summary.checks_failed = 1;
	r.u.summary.gemm_passed = 5;
	r.u.summary.exit_status = 1;
	/* checks_skipped, gemm_skipped, wall_ms missing: absent */
	round_trip(&r, &d);
	assert_int_equal(d.u.summary.nratios, 1);
	assert_string_equal(d.u.summary.ratios[0].kind, BF_RATIO_GPU_VS_CPU);
	assert_int_equal(d.u.summary.ratios[0].n, 1024);
	assert_true(d.u.summary.ratios[0].value == 20.0);
	assert_int_equal(d.u.summary.checks_failed, 1);
	assert_true(isnan(d.u.summary.checks_skipped));
	assert_true(isnan(d.u.summary.wall_ms));
	assert_int_equal(d.u.summary.exit_status, 1);
	bf_record_free(&d);
	bf_record_free(&r);
}

static void test_options(void **state)
{
	struct bf_rec_options a = { 0 }, b;
	static int sizes[] = { 1024, 4096 };
	static char *dtypes[] = { "fp32", "bf16" };
	cJSON *j;
	char *line;

	a.present = 1;
	a.sizes = sizes;
	a.nsizes = 2;
	a.dtypes = dtypes;
	a.ndtypes = 2;
	a.iters = 20;
	a.cpu_iters = 5;
	a.warmup = 5;
	a.cpu_warmup = 1;
	a.seed = 1;
	a.bandwidth_mib = NAN;
	j = bf_rec_options_encode(&a);
	line = cJSON_PrintUnformatted(j);
	assert_string_equal(line, "{\"sizes\":[1024,4096],\"dtypes\":[\"fp32\",\"bf16\"],"
				  "\"iters\":20,\"cpu_iters\":5,\"warmup\":5,"
				  "\"cpu_warmup\":1,\"seed\":1}");
	free(line);
	cJSON_Delete(j);
	bf_rec_options_copy(&b, &a);
	assert_true(bf_rec_options_equal(&a, &b));
	b.cpu_warmup = NAN; /* an older agent without --cpu-warmup */
	assert_false(bf_rec_options_equal(&a, &b));
	b.cpu_warmup = 1;
	b.sizes[1] = 2048;
	assert_false(bf_rec_options_equal(&a, &b));
	b.sizes[1] = 4096;
	b.no_bandwidth = 1; /* --no-bandwidth: not the same settings */
	assert_false(bf_rec_options_equal(&a, &b));
	b.no_bandwidth = 0;
	b.bandwidth_mib = 8;
	assert_false(bf_rec_options_equal(&a, &b));
	a.bandwidth_mib = 8;
	assert_true(bf_rec_options_equal(&a, &b));
	a.bandwidth_mib = NAN;
	b.bandwidth_mib = 0; /* not given, either way */
	assert_true(bf_rec_options_equal(&a, &b));
	b.no_batching = 1;
	assert_false(bf_rec_options_equal(&a, &b));
	b.no_batching = 0;
	snprintf(b.device, sizeof(b.device), "cuda"); /* --device cuda */
	assert_false(bf_rec_options_equal(&a, &b));
	snprintf(a.device, sizeof(a.device), "cuda");
	assert_true(bf_rec_options_equal(&a, &b));
	a.device[0] = '\0';
	b.no_bandwidth = b.no_batching = 1;
	b.bandwidth_mib = 8;
	j = bf_rec_options_encode(&b);
	line = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(line, "\"seed\":1,\"no_bandwidth\":true,"
				     "\"bandwidth_mib\":8,\"no_batching\":true,"
				     "\"device\":\"cuda\"}"));
	free(line);
	cJSON_Delete(j);
	b.present = 0;
	assert_false(bf_rec_options_equal(&a, &b)); /* absent is not equal */
	bf_rec_options_free(&b);
	assert_null(b.sizes);
}

/* 2 n^3 in double: exact past 2^31 (an int count overflows from
 * n = 1025), and GFLOP/s from it and a time in ms. */
static void test_gemm_flops(void **state)
{
	(void)state;
	assert_true(bf_gemm_flops(0) == 0);
	assert_true(bf_gemm_flops(64) == 524288.0);
	assert_true(bf_gemm_flops(1025) == 2153781250.0);
	assert_true(bf_gemm_flops(4096) == 137438953472.0);
	assert_true(bf_gemm_flops(8192) == 1099511627776.0);
	assert_true(bf_gemm_flops(65536) == 562949953421312.0);
	/* 137438953472 flops in 1000 ms: 137.438953472 GFLOP/s */
	assert_true(fabs(bf_gemm_gflops(4096, 1000.0) - 137.438953472) <
		    1e-12);
	assert_true(bf_gemm_gflops(8192, 2000.0) ==
		    1099511627776.0 / 2000.0 / 1e6);
	assert_true(bf_gemm_gflops(8192, 2000.0) > 0);
}

static void test_speed_ratio(void **state)
{
	assert_true(bf_speed_ratio(2000.0, 100.0) == 20.0);
	assert_true(bf_speed_ratio(50.0, 100.0) == 0.5);
	assert_true(isnan(bf_speed_ratio(NAN, 100.0)));
	assert_true(isnan(bf_speed_ratio(100.0, NAN)));
}

/* Which results get a ratio (bf_ratio_wanted), the rule the agent's
 * summary and ctl's columns share: a GPU's fp32 over the CPU's fp32,
 * every other dtype over fp32 on its own device, verified results only. */
static void test_ratio_rule(void **state)
{
	struct bf_ratio_base b;

	(void)state;
	/* gpu_vs_cpu: GPU fp32 only, its base the CPU's fp32 */
	memset(&b, 0xff, sizeof(b));
	assert_int_equal(bf_ratio_wanted(BF_RATIO_KIND_GPU_VS_CPU,
					 BF_DTYPE_FP32, BF_STATUS_PASS, 1, &b), 1);
	assert_int_equal(b.dtype, BF_DTYPE_FP32);
	assert_int_equal(b.on_cpu, 1);
	assert_int_equal(bf_ratio_wanted(BF_RATIO_KIND_GPU_VS_CPU,
					 BF_DTYPE_FP32, BF_STATUS_PASS, 0, &b), 0);
	assert_int_equal(bf_ratio_wanted(BF_RATIO_KIND_GPU_VS_CPU,
					 BF_DTYPE_FP16, BF_STATUS_PASS, 1, &b), 0);
	assert_int_equal(bf_ratio_wanted(BF_RATIO_KIND_GPU_VS_CPU,
					 BF_DTYPE_FP32, BF_STATUS_FAIL, 1, &b), 0);
	/* vs_fp32: every dtype but fp32, on a GPU or a CPU, over fp32 on
	 * its own device */
	for (int dt = 0; dt < BF_DTYPE__COUNT; dt++)
		for (int gpu = 0; gpu < 2; gpu++) {
			memset(&b, 0xff, sizeof(b));
			assert_int_equal(bf_ratio_wanted(BF_RATIO_KIND_VS_FP32,
							 (enum bf_dtype)dt,
							 BF_STATUS_PASS, gpu, &b),
					 dt != BF_DTYPE_FP32);
			if (dt != BF_DTYPE_FP32) {
				assert_int_equal(b.dtype, BF_DTYPE_FP32);
				assert_int_equal(b.on_cpu, 0);
			}
			assert_int_equal(bf_ratio_wanted(BF_RATIO_KIND_VS_FP32,
							 (enum bf_dtype)dt,
							 BF_STATUS_SKIPPED, gpu,
							 &b), 0);
		}
	assert_int_equal(bf_ratio_wanted(BF_RATIO_KIND__COUNT, BF_DTYPE_FP16,
					 BF_STATUS_PASS, 1, &b), 0);
	assert_string_equal(bf_ratio_kind_name(BF_RATIO_KIND_GPU_VS_CPU),
			    BF_RATIO_GPU_VS_CPU);
	assert_string_equal(bf_ratio_kind_name(BF_RATIO_KIND_VS_FP32),
			    BF_RATIO_VS_FP32);
}

static void test_decode_rejects_non_object(void **state)
{
	struct bf_record r;
	cJSON *arr = cJSON_CreateArray();
	char detail[128];

	assert_int_equal(bf_record_decode(arr, BF_REC_GEMM, &r, detail,
					  sizeof(detail)), BF_ERR_SCHEMA);
	bf_record_free(&r);
	cJSON_Delete(arr);
	assert_int_equal(bf_record_parse("[1]", 3, &r, detail, sizeof(detail)),
			 BF_ERR_SCHEMA);
	bf_record_free(&r);
	bf_record_free(NULL);
}

/* --- integer fields: refused out of range, never cast (issue 11) ---- */

static const char gemm_line[] =
	"{\"schema\":1,\"type\":\"gemm\",\"seq\":29,\"device\":\"cpu\",\"dtype\":\"fp32\",\"n\":64,\"status\":\"pass\",\"reason\":null,\"library\":\"OpenBLAS 0.3.21\",\"math_mode\":\"cblas_sgemm\",\"c_dtype\":\"fp32\",\"warmup\":1,\"iters\":2,\"samples_ms\":[0.021715,0.021848],\"median_ms\":0.0217815,\"min_ms\":0.021715,\"max_ms\":0.021848,\"gflops\":24.07,\"peak_mib\":0.04296875,\"operand_bytes\":49152,\"max_rel_error\":1.5e-07,\"tolerance\":1e-05,\"verified_elements\":4096,\"nonfinite_elements\":0}";

/* base with its first occurrence of from replaced by to; caller frees. */
static char *with(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);

	assert_non_null(at);
	snprintf(out, n, "%.*s%s%s", (int)(at - base), base, to,
		 at + strlen(from));
	return out;
}

struct int_case {
	const char *base;
	const char *from, *to;
	int ok;
	const char *field; /* named in the reason when refused */
};

static const char plan_line[] =
	"{\"schema\":1,\"type\":\"plan\",\"seq\":1,\"devices\":[{\"device\":\"cpu\",\"status\":\"pass\",\"reason\":null}],\"checks_total\":23,\"gemm_total\":4}";
static const char summary_line[] =
	"{\"schema\":1,\"type\":\"summary\",\"seq\":33,\"ratios\":[{\"kind\":\"vs_fp32\",\"device\":\"cpu\",\"dtype\":\"bf16\",\"n\":64,\"value\":0.5}],\"checks_passed\":22,\"checks_failed\":0,\"checks_skipped\":1,\"gemm_passed\":1,\"gemm_failed\":0,\"gemm_skipped\":3,\"exit_status\":0,\"wall_ms\":159.8}";
static const char limits_line[] =
	"{\"schema\":1,\"type\":\"float_limits\",\"seq\":3,\"dtype\":\"fp16\",\"bits\":16,\"exponent_bits\":5,\"mantissa_bits\":10,\"max\":65504,\"eps\":0.0009765625,\"smallest_normal\":6.103515625e-05}";
static const char host_line[] =
	"{\"schema\":1,\"type\":\"host\",\"seq\":0,\"agent\":{\"version\":\"0.1.0\",\"source_hash\":\"02e497679ff47c98\"},\"hostname\":\"vm\",\"arch\":\"x86_64\",\"cpu_cores\":2,\"memory_bytes\":25276502016,\"openblas\":{\"threads\":2},\"cuda\":{\"status\":\"skipped\",\"reason\":\"none\"},\"gpus\":[{\"index\":0,\"sm_count\":48}],\"options\":{\"sizes\":[64,128],\"dtypes\":[\"fp32\"],\"iters\":2,\"cpu_iters\":2,\"warmup\":1,\"seed\":1}}";

static const struct int_case int_cases[] = {
	{ gemm_line, "\"n\":64", "\"n\":64", 1, NULL },
	{ gemm_line, "\"n\":64", "\"n\":1", 1, NULL },
	{ gemm_line, "\"n\":64", "\"n\":65536", 1, NULL },
	{ gemm_line, "\"n\":64", "\"n\":1e300", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":-1e300", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":0", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":-1", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":65537", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":64.5", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":1e-300", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":2147483648", 0, "\"n\"" },
	{ gemm_line, "\"n\":64", "\"n\":9007199254740993", 0, "\"n\"" },
	{ gemm_line, "\"seq\":29", "\"seq\":-1", 0, "\"seq\"" },
	{ gemm_line, "\"seq\":29", "\"seq\":1e300", 0, "\"seq\"" },
	{ gemm_line, "\"seq\":29", "\"seq\":0.5", 0, "\"seq\"" },
	{ gemm_line, "\"seq\":29", "\"seq\":4194304", 1, NULL },
	/* beyond what the run model keeps (MODEL_MAX_SEQ) */
	{ gemm_line, "\"seq\":29", "\"seq\":4194305", 0, "\"seq\"" },
	{ gemm_line, "\"iters\":2", "\"iters\":1e300", 0, "\"iters\"" },
	{ gemm_line, "\"warmup\":1", "\"warmup\":-3", 0, "\"warmup\"" },
	{ gemm_line, "\"operand_bytes\":49152", "\"operand_bytes\":9007199254740991", 1, NULL },
	{ gemm_line, "\"operand_bytes\":49152", "\"operand_bytes\":9007199254740992", 0, "\"operand_bytes\"" },
	{ gemm_line, "\"operand_bytes\":49152", "\"operand_bytes\":1e300", 0, "\"operand_bytes\"" },
	{ gemm_line, "\"nonfinite_elements\":0", "\"nonfinite_elements\":-1", 0, "\"nonfinite_elements\"" },
	{ gemm_line, "\"nonfinite_elements\":0", "\"nonfinite_elements\":0,\"verify_seed\":281474976710656", 0, "\"verify_seed\"" },
	{ gemm_line, "\"nonfinite_elements\":0", "\"nonfinite_elements\":0,\"verify_seed\":281474976710655", 1, NULL },
	{ plan_line, "\"gemm_total\":4", "\"gemm_total\":1e300", 0, "\"gemm_total\"" },
	{ plan_line, "\"gemm_total\":4", "\"gemm_total\":-4", 0, "\"gemm_total\"" },
	{ plan_line, "\"gemm_total\":4", "\"gemm_total\":1048576", 1, NULL },
	/* beyond what the run model plans for (MODEL_MAX_PLANNED) */
	{ plan_line, "\"gemm_total\":4", "\"gemm_total\":1048577", 0, "\"gemm_total\"" },
	{ plan_line, "\"gemm_total\":4", "\"gemm_total\":2147483648", 0, "\"gemm_total\"" },
	{ plan_line, "\"checks_total\":23", "\"checks_total\":1e300", 0, "\"checks_total\"" },
	{ summary_line, "\"exit_status\":0", "\"exit_status\":256", 0, "\"exit_status\"" },
	{ summary_line, "\"gemm_failed\":0", "\"gemm_failed\":-1e300", 0, "\"gemm_failed\"" },
	{ summary_line, "\"gemm_skipped\":3", "\"gemm_skipped\":3.5", 0, "\"gemm_skipped\"" },
	{ summary_line, "\"n\":64", "\"n\":1e300", 0, "\"ratios[0].n\"" },
	{ limits_line, "\"bits\":16", "\"bits\":1e300", 0, "\"bits\"" },
	{ limits_line, "\"mantissa_bits\":10", "\"mantissa_bits\":-10", 0, "\"mantissa_bits\"" },
	{ host_line, "\"sizes\":[64,128]", "\"sizes\":[64,1e300]", 0, "\"options.sizes[1]\"" },
	{ host_line, "\"seed\":1", "\"seed\":9007199254740993", 0, "\"options.seed\"" },
	{ host_line, "\"index\":0", "\"index\":-1", 0, "\"gpus[0].index\"" },
	{ host_line, "\"sm_count\":48", "\"sm_count\":-1", 1, NULL },
	{ host_line, "\"threads\":2", "\"threads\":1e300", 0, "\"openblas.threads\"" },
	{ host_line, "\"memory_bytes\":25276502016", "\"memory_bytes\":1e300", 0, "\"memory_bytes\"" },
	/* null and other JSON types are the type rules' business */
	{ host_line, "\"cpu_cores\":2", "\"cpu_cores\":null", 1, NULL },
};

static void test_int_ranges(void **state)
{
	for (size_t i = 0; i < sizeof(int_cases) / sizeof(int_cases[0]); i++) {
		const struct int_case *c = &int_cases[i];
		char *line = with(c->base, c->from, c->to), detail[256] = "";
		struct bf_record r;
		enum bf_err err = bf_record_parse(line, strlen(line), &r, detail,
						  sizeof(detail));

		if (c->ok) {
			if (err != BF_OK)
				fail_msg("case %zu (%s) refused: %s", i, c->to, detail);
		} else {
			if (err != BF_ERR_SCHEMA)
				fail_msg("case %zu (%s) accepted", i, c->to);
			if (!strstr(detail, c->field) || !strstr(detail, "expected an integer"))
				fail_msg("case %zu: reason \"%s\" does not name %s",
					 i, detail, c->field);
		}
		bf_record_free(&r);
		free(line);
	}
}

/* bf_record_decode on JSON that did not pass the validator (out-of-range
 * numbers everywhere) still converts nothing out of range: no undefined
 * cast for UBSan's float-cast-overflow to find; the ints read as 0. */
static void test_decode_unvalidated_no_cast(void **state)
{
	const char *json =
		"{\"seq\":1e300,\"device\":\"cpu\",\"dtype\":\"fp32\",\"n\":1e300,\"status\":\"pass\",\"warmup\":-1e300,\"iters\":3e9,\"samples_ms\":[1]}";
	cJSON *j = cJSON_Parse(json);
	struct bf_record r;
	char detail[128];

	assert_non_null(j);
	assert_int_equal(bf_record_decode(j, BF_REC_GEMM, &r, detail,
					  sizeof(detail)), BF_OK);
	assert_int_equal(r.seq, -1);
	assert_int_equal(r.u.gemm.n, 0);
	assert_int_equal(r.u.gemm.warmup, 0);
	assert_int_equal(r.u.gemm.iters, 0);
	bf_record_free(&r);
	cJSON_Delete(j);
}

/* The decoder's key table (record.c) answers as cJSON's own lookup: the
 * first of a repeated key, and the same fields for a record with more
 * members than the table takes (200 unknown keys: cJSON's scan). */
static void test_decode_key_lookup(void **state)
{
	const char *json =
		"{\"seq\":4,\"device\":\"cpu\",\"dtype\":\"fp32\",\"n\":64,\"n\":128,\"status\":\"pass\",\"iters\":2,\"samples_ms\":[1,2],\"library\":\"first\",\"library\":\"second\"}";
	struct bf_record r;
	char detail[128];
	cJSON *j = cJSON_Parse(json);

	(void)state;
	for (int wide = 0; wide < 2; wide++) {
		assert_non_null(j);
		assert_int_equal(bf_record_decode(j, BF_REC_GEMM, &r, detail,
						  sizeof(detail)), BF_OK);
		assert_int_equal(r.seq, 4);
		assert_int_equal(r.u.gemm.n, 64);
		assert_int_equal(r.u.gemm.iters, 2);
		assert_int_equal(r.u.gemm.nsamples, 2);
		assert_string_equal(r.u.gemm.library, "first");
		assert_string_equal(r.u.gemm.dtype, "fp32");
		bf_record_free(&r);
		for (int k = 0; k < 200 && !wide; k++) {
			char key[16];

			snprintf(key, sizeof(key), "x%d", k);
			cJSON_AddNumberToObject(j, key, k);
		}
	}
	cJSON_Delete(j);
}

/* --- timed samples: times, or the record is malformed ---------------- */

static const char bandwidth_line[] =
	"{\"schema\":1,\"type\":\"bandwidth\",\"seq\":5,\"device\":\"cpu\",\"kind\":\"triad\",\"status\":\"pass\",\"reason\":null,\"median_gbps\":12.5,\"iters\":3,\"samples_ms\":[2,2.5,3]}";
static const char batching_line[] =
	"{\"schema\":1,\"type\":\"batching\",\"seq\":6,\"device\":\"cpu\",\"dtype\":\"fp32\",\"status\":\"pass\",\"reason\":null,\"speedup\":6,\"iters\":1,\"single_samples_ms\":[0.001],\"batch_samples_ms\":[0.0033]}";

static const struct time_case {
	const char *base;
	const char *from, *to;
	const char *why; /* the reason when refused; NULL: accepted */
} time_cases[] = {
	{ gemm_line, "[0.021715,0.021848]", "[1e-300,1e300]", NULL },
	/* The damaged archive of the report: a median of 0 ms, so
	 * GFLOP/s of 2 n^3 / 0 (inf) and 5e-309. */
	{ gemm_line, "[0.021715,0.021848]", "[1e308,1e308,-1e308,0,0]",
	  "gemm record: field \"samples_ms\"[2] is -1e+308: expected a time above 0 ms" },
	{ gemm_line, "[0.021715,0.021848]", "[0.02,0]",
	  "gemm record: field \"samples_ms\"[1] is 0: expected a time above 0 ms" },
	{ gemm_line, "[0.021715,0.021848]", "[-0.02]",
	  "gemm record: field \"samples_ms\"[0] is -0.02: expected a time above 0 ms" },
	{ gemm_line, "[0.021715,0.021848]", "[0.02,1e400]",
	  "gemm record: field \"samples_ms\"[1] is inf: expected a time above 0 ms" },
	{ gemm_line, "[0.021715,0.021848]", "[null,0.02]",
	  "gemm record: field \"samples_ms\"[0] is null: expected a time above 0 ms" },
	{ gemm_line, "[0.021715,0.021848]", "[0.02,\"1\"]",
	  "gemm record: field \"samples_ms\"[1] is not a number: expected a time above 0 ms" },
	{ bandwidth_line, "[2,2.5,3]", "[2,2.5,3]", NULL },
	{ bandwidth_line, "[2,2.5,3]", "[2,0,3]",
	  "bandwidth record: field \"samples_ms\"[1] is 0: expected a time above 0 ms" },
	{ batching_line, "[0.001]", "[0.001]", NULL },
	{ batching_line, "[0.001]", "[-1]",
	  "batching record: field \"single_samples_ms\"[0] is -1: expected a time above 0 ms" },
	{ batching_line, "[0.0033]", "[0.0033,null]",
	  "batching record: field \"batch_samples_ms\"[1] is null: expected a time above 0 ms" },
};

static void test_sample_times(void **state)
{
	for (size_t i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
		const struct time_case *c = &time_cases[i];
		char *line = with(c->base, c->from, c->to), detail[256] = "";
		struct bf_record r;
		enum bf_err err = bf_record_parse(line, strlen(line), &r, detail,
						  sizeof(detail));

		if (!c->why && err != BF_OK)
			fail_msg("case %zu (%s) refused: %s", i, c->to, detail);
		if (c->why && err != BF_ERR_SCHEMA)
			fail_msg("case %zu (%s) accepted", i, c->to);
		if (c->why)
			assert_string_equal(detail, c->why);
		bf_record_free(&r);
		free(line);
	}
}

/* A median that is no time is inconsistent, and the reason gives it. */
static void test_median_not_a_time(void **state)
{
	static const double bad[] = { -1, 0, INFINITY, -INFINITY };
	static const char *const said[] = {
		"invalid: median_ms is -1: expected a time above 0 ms",
		"invalid: median_ms is 0: expected a time above 0 ms",
		"invalid: median_ms is inf: expected a time above 0 ms",
		"invalid: median_ms is -inf: expected a time above 0 ms",
	};
	struct bf_record r;
	char why[200];

	bf_record_init(&r, BF_REC_GEMM);
	r.u.gemm.n = 64;
	r.u.gemm.median_ms = 0.0217815;
	r.u.gemm.gflops = 2.0 * 64 * 64 * 64 / 0.0217815 / 1e6;
	assert_int_equal(bf_rec_gemm_consistent(&r.u.gemm, why, sizeof(why)), 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r.u.gemm.median_ms = bad[i];
		assert_int_equal(bf_rec_gemm_consistent(&r.u.gemm, why,
							sizeof(why)), 0);
		assert_string_equal(why, said[i]);
		/* Also without gflops (a failed verification keeps its
		 * median). */
		r.u.gemm.gflops = NAN;
		assert_int_equal(bf_rec_gemm_consistent(&r.u.gemm, why,
							sizeof(why)), 0);
		assert_string_equal(why, said[i]);
		r.u.gemm.gflops = 24.07;
	}
	/* No median (not run): nothing to check. */
	r.u.gemm.median_ms = NAN;
	assert_int_equal(bf_rec_gemm_consistent(&r.u.gemm, why, sizeof(why)), 1);
	bf_record_free(&r);
}

/* --- doubles read back bit for bit ----------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Prints {"v": d} as the agent does and reads it back; 1 when exact. */
static int exact_through_json(double d, int fix)
{
	cJSON *o = cJSON_CreateObject(), *back;
	char *line;
	double got;
	int same;

	cJSON_AddNumberToObject(o, "v", d);
	if (fix)
		bf_json_exact_numbers(o);
	line = cJSON_PrintUnformatted(o);
	back = cJSON_Parse(line);
	assert_non_null(back);
	got = cJSON_GetObjectItemCaseSensitive(back, "v")->valuedouble;
	same = memcmp(&got, &d, sizeof(d)) == 0;
	cJSON_Delete(back);
	free(line);
	cJSON_Delete(o);
	return same;
}

static void test_doubles_round_trip(void **state)
{
	static const double fixed[] = {
		0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0, 2.0 / 3.0,
		1.7976931348623157e308,   /* DBL_MAX */
		-1.7976931348623157e308,
		2.2250738585072014e-308,  /* DBL_MIN */
		2.2250738585072009e-308,  /* largest subnormal */
		4.9406564584124654e-324,  /* smallest subnormal */
		-4.9406564584124654e-324,
		9007199254740992.0,       /* 2^53 */
		9007199254740994.0,
		3.4028234663852886e38,    /* fp32 max */
		3.3895313892515355e38,    /* bf16 max */
		1.1920928955078125e-07, 9.1835496157991212e-41, /* bf16 subnormal */
		1.401298464324817e-45, 5.9604644775390625e-08,
		24.070334917246285, 0.0217815, 1e300, 1e-300, 123456789.123456789,
	};
	uint64_t s = 0x9e3779b97f4a7c15u;
	int plain_wrong = 0, checked = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!exact_through_json(fixed[i], 1))
			fail_msg("%.17g does not read back exactly", fixed[i]);
		plain_wrong += !exact_through_json(fixed[i], 0);
	}
	/* Random bit patterns cover every exponent, subnormals included;
	 * random values in [0, 1000) are what timings look like. */
	for (int i = 0; i < 200000; i++) {
		uint64_t bits = xorshift(&s);
		double d;

		if (i % 2) {
			memcpy(&d, &bits, sizeof(d));
			if (!isfinite(d))
				continue;
		} else {
			d = (double)(bits >> 11) / 9007199254740992.0 * 1000.0;
		}
		if (!exact_through_json(d, 1))
			fail_msg("%.17g (%016llx) does not read back exactly", d,
				 (unsigned long long)bits);
		plain_wrong += !exact_through_json(d, 0);
		checked++;
	}
	print_message("%d doubles exact; cJSON's own printer got %d wrong\n",
		      checked, plain_wrong);
}

/* A gemm record's doubles through encode, the agent's printing, parse. */
static void test_record_doubles_exact(void **state)
{
	static const double samples[] = { 0.1, 4.9406564584124654e-324,
					   1.7976931348623157e308,
					   0.30000000000000004, 1.0000000000000002 };
	struct bf_record r, d;
	struct bf_rec_gemm *g = &r.u.gemm;
	cJSON *j;
	char *line, detail[256];

	bf_record_init(&r, BF_REC_GEMM);
	g->device = strdup("cpu");
	g->dtype = strdup("fp32");
	g->n = 64;
	g->status = BF_STATUS_PASS;
	g->measured = 1;
	g->samples_ms = malloc(sizeof(samples));
	memcpy(g->samples_ms, samples, sizeof(samples));
	g->nsamples = 5;
	g->iters = 5;
	g->median_ms = 1.0000000000000002;
	g->gflops = 0.30000000000000004;
	/* The rest a passing record carries (docs/schema.json). */
	g->library = strdup("OpenBLAS 0.3.21");
	g->math_mode = strdup("cblas_sgemm");
	g->c_dtype = strdup("fp32");
	g->operand_bytes = 49152;
	g->tolerance = 1e-5;
	g->verified_elements = 4096;
	g->nonfinite_elements = 0;
	j = bf_record_encode(&r);
	bf_json_exact_numbers(j);
	line = cJSON_PrintUnformatted(j);
	assert_int_equal(bf_record_parse(line, strlen(line), &d, detail,
					 sizeof(detail)), BF_OK);
	assert_int_equal(d.u.gemm.nsamples, 5);
	assert_memory_equal(d.u.gemm.samples_ms, samples, sizeof(samples));
	assert_memory_equal(&d.u.gemm.median_ms, &g->median_ms, sizeof(double));
	assert_memory_equal(&d.u.gemm.gflops, &g->gflops, sizeof(double));
	bf_record_free(&d);
	free(line);
	cJSON_Delete(j);
	bf_record_free(&r);
}

/* Host lines as the agent writes them (an agent without CUDA, from
 * agent-cpu; one with CUDA but no driver; one with two GPUs, the second
 * unreadable): decoded and encoded again they are the same line, byte
 * for byte, so the one encoder keeps the agent's key order and nulls. */
static const char *const host_lines[] = {
	"{\"schema\":1,\"type\":\"host\",\"seq\":0,\"agent\":{\"version\":\"0.1.0\",\"source_hash\":\"bfa7a1eb805fac49\"},\"cjson\":{\"version\":\"1.7.15\",\"source\":\"system\"},\"env\":{\"CUDA_VISIBLE_DEVICES\":null,\"CUBLAS_WORKSPACE_CONFIG\":null,\"CUBLAS_EMULATE_SINGLE_PRECISION\":null,\"CUBLAS_EMULATION_STRATEGY\":null,\"NVIDIA_TF32_OVERRIDE\":null,\"CUDA_MODULE_LOADING\":null,\"LD_PRELOAD\":null,\"GOTO_NUM_THREADS\":null,\"OPENBLAS_CORETYPE\":null,\"OPENBLAS_L2_SIZE\":null,\"OPENBLAS_NUM_THREADS\":\"1\",\"OMP_NUM_THREADS\":null},\"hostname\":\"vm\",\"os\":\"Debian GNU/Linux 12 (bookworm)\",\"kernel\":\"6.18.44-fc-v1252\",\"arch\":\"x86_64\",\"cpu_model\":\"Intel(R) Xeon(R) Processor\",\"cpu_cores\":2,\"memory_bytes\":25276203008,\"openblas\":{\"version\":\"0.3.21\",\"core\":\"SkylakeX\",\"core_replaced\":\"Prescott\",\"threads\":1,\"config\":\"OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64\",\"sbgemm\":false,\"shgemm\":false,\"env\":{\"OPENBLAS_CORETYPE\":null,\"OPENBLAS_L2_SIZE\":null,\"OPENBLAS_NUM_THREADS\":\"1\",\"OMP_NUM_THREADS\":\"\"}},\"cuda\":{\"status\":\"skipped\",\"reason\":\"agent-cuda: its CUDA libraries do not load: x\"},\"gpus\":[],\"options\":{\"sizes\":[64],\"dtypes\":[\"fp32\",\"fp16\",\"bf16\"],\"iters\":2,\"cpu_iters\":2,\"warmup\":1,\"cpu_warmup\":1,\"seed\":1,\"no_bandwidth\":true}}",
	"{\"schema\":1,\"type\":\"host\",\"seq\":0,\"agent\":{\"version\":\"0.1.0\",\"source_hash\":\"bfa7a1eb805fac49\"},\"cjson\":{\"version\":\"1.7.15\",\"source\":\"system\"},\"env\":{\"CUDA_VISIBLE_DEVICES\":null,\"CUBLAS_WORKSPACE_CONFIG\":null,\"CUBLAS_EMULATE_SINGLE_PRECISION\":null,\"CUBLAS_EMULATION_STRATEGY\":null,\"NVIDIA_TF32_OVERRIDE\":\"0\",\"CUDA_MODULE_LOADING\":null,\"LD_PRELOAD\":null,\"GOTO_NUM_THREADS\":null,\"OPENBLAS_CORETYPE\":null,\"OPENBLAS_L2_SIZE\":null,\"OPENBLAS_NUM_THREADS\":\"1\",\"OMP_NUM_THREADS\":null},\"hostname\":\"vm\",\"os\":\"Debian GNU/Linux 12 (bookworm)\",\"kernel\":\"6.18.44-fc-v1252\",\"arch\":\"x86_64\",\"cpu_model\":\"Intel(R) Xeon(R) Processor\",\"cpu_cores\":2,\"memory_bytes\":25276203008,\"openblas\":{\"version\":\"0.3.21\",\"core\":\"SkylakeX\",\"core_replaced\":\"Prescott\",\"threads\":1,\"config\":\"OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64\",\"sbgemm\":false,\"shgemm\":false,\"env\":{\"OPENBLAS_CORETYPE\":null,\"OPENBLAS_L2_SIZE\":null,\"OPENBLAS_NUM_THREADS\":\"1\",\"OMP_NUM_THREADS\":\"\"}},\"cuda\":{\"driver_version\":null,\"driver_cuda_version\":null,\"runtime_version\":\"13.0\",\"cublas_version\":\"13.1.0\",\"architectures\":\"75-real 80-real 86-real 87-real 88-real 89-real 90-real 100-real 103-real 110-real 120-real 121-real 121-virtual\",\"NVIDIA_TF32_OVERRIDE\":\"0\",\"status\":\"skipped\",\"reason\":\"no NVIDIA driver installed (cudaErrorInsufficientDriver)\"},\"gpus\":[],\"options\":{\"sizes\":[64],\"dtypes\":[\"fp32\",\"fp16\",\"bf16\"],\"iters\":2,\"cpu_iters\":2,\"warmup\":1,\"cpu_warmup\":1,\"seed\":1,\"bandwidth_mib\":8,\"no_batching\":true}}",
	"{\"schema\":1,\"type\":\"host\",\"seq\":0,\"agent\":{\"version\":\"0.1.0\",\"source_hash\":\"bfa7a1eb805fac49\"},\"cjson\":{\"version\":\"1.7.15\",\"source\":\"system\"},\"env\":{\"CUDA_VISIBLE_DEVICES\":null,\"CUBLAS_WORKSPACE_CONFIG\":null,\"CUBLAS_EMULATE_SINGLE_PRECISION\":null,\"CUBLAS_EMULATION_STRATEGY\":null,\"NVIDIA_TF32_OVERRIDE\":\"0\",\"CUDA_MODULE_LOADING\":null,\"LD_PRELOAD\":null,\"GOTO_NUM_THREADS\":null,\"OPENBLAS_CORETYPE\":null,\"OPENBLAS_L2_SIZE\":null,\"OPENBLAS_NUM_THREADS\":\"1\",\"OMP_NUM_THREADS\":null},\"hostname\":\"vm\",\"os\":null,\"kernel\":\"6.18.44-fc-v1252\",\"arch\":\"x86_64\",\"cpu_model\":null,\"cpu_cores\":2,\"memory_bytes\":null,\"openblas\":{\"version\":\"0.3.21\",\"core\":\"SkylakeX\",\"core_replaced\":\"Prescott\",\"threads\":1,\"config\":\"OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64\",\"sbgemm\":false,\"shgemm\":false,\"env\":{\"OPENBLAS_CORETYPE\":null,\"OPENBLAS_L2_SIZE\":null,\"OPENBLAS_NUM_THREADS\":\"1\",\"OMP_NUM_THREADS\":\"\"}},\"cuda\":{\"driver_version\":\"580.95.05\",\"driver_cuda_version\":\"13.0\",\"runtime_version\":\"13.0\",\"cublas_version\":\"13.1.0\",\"architectures\":\"90-real 90-virtual\",\"NVIDIA_TF32_OVERRIDE\":\"0\",\"status\":\"pass\",\"reason\":null},\"gpus\":[{\"index\":0,\"name\":\"NVIDIA H200\",\"memory_bytes\":150754820096,\"compute_capability\":\"9.0\",\"pci_bus_id\":\"0000:3b:00.0\",\"uuid\":\"GPU-8f1c2a3b\",\"clock_mhz\":1980,\"sm_count\":132,\"unified_memory\":false},{\"index\":1,\"name\":null,\"memory_bytes\":null,\"compute_capability\":\"-1.-1\",\"pci_bus_id\":null,\"uuid\":null,\"clock_mhz\":null,\"sm_count\":-1,\"unified_memory\":null}],\"options\":{\"sizes\":[64],\"dtypes\":[\"fp32\",\"fp16\",\"bf16\"],\"iters\":2,\"cpu_iters\":2,\"warmup\":1,\"cpu_warmup\":1,\"seed\":1,\"bandwidth_mib\":8,\"no_batching\":true}}",
};

static void test_host_lines_round_trip(void **state)
{
	for (size_t i = 0; i < sizeof(host_lines) / sizeof(host_lines[0]); i++) {
		struct bf_record r;
		char detail[256], *line;
		cJSON *j;

		if (bf_record_parse(host_lines[i], strlen(host_lines[i]), &r,
				    detail, sizeof(detail)) != BF_OK)
			fail_msg("%s: %s", host_lines[i], detail);
		j = bf_record_encode(&r);
		bf_json_exact_numbers(j);
		line = cJSON_PrintUnformatted(j);
		assert_string_equal(line, host_lines[i]);
		free(line);
		cJSON_Delete(j);
		bf_record_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_measured),
		cmocka_unit_test(test_gemm_device_state),
		cmocka_unit_test(test_gemm_peak_and_reference),
		cmocka_unit_test(test_gemm_skipped),
		cmocka_unit_test(test_plan_check_limits_summary),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_speed_ratio),
		cmocka_unit_test(test_ratio_rule),
		cmocka_unit_test(test_gemm_flops),
		cmocka_unit_test(test_decode_rejects_non_object),
		cmocka_unit_test(test_int_ranges),
		cmocka_unit_test(test_decode_unvalidated_no_cast),
		cmocka_unit_test(test_decode_key_lookup),
		cmocka_unit_test(test_sample_times),
		cmocka_unit_test(test_median_not_a_time),
		cmocka_unit_test(test_doubles_round_trip),
		cmocka_unit_test(test_record_doubles_exact),
		cmocka_unit_test(test_host_lines_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
