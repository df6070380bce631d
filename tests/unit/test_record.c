/*
 * Typed records (common/record.h): every record type built in C, encoded,
 * parsed back and compared field by field; missing values stay missing
 * (NaN / NULL / -1, null or absent in JSON), never zero; and the one
 * speed-ratio formula.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
	assert_int_equal(bf_record_parse(line, strlen(line), out, detail,
					 sizeof(detail)), BF_OK);
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
	b.present = 0;
	assert_false(bf_rec_options_equal(&a, &b)); /* absent is not equal */
	bf_rec_options_free(&b);
	assert_null(b.sizes);
}

static void test_speed_ratio(void **state)
{
	assert_true(bf_speed_ratio(2000.0, 100.0) == 20.0);
	assert_true(bf_speed_ratio(50.0, 100.0) == 0.5);
	assert_true(isnan(bf_speed_ratio(NAN, 100.0)));
	assert_true(isnan(bf_speed_ratio(100.0, NAN)));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gemm_measured),
		cmocka_unit_test(test_gemm_skipped),
		cmocka_unit_test(test_plan_check_limits_summary),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_speed_ratio),
		cmocka_unit_test(test_decode_rejects_non_object),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
