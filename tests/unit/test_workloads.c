/*
 * Unit tests of the workloads beyond GEMM (issue 14): the roofline's
 * arithmetic, the batching model's data and reference forward pass on
 * known inputs, the bandwidth sizes, and the round trips of the new
 * records (bandwidth, batching, the gemm record's roofline fields, the
 * plan's and the summary's new counts) through bf_record_encode and
 * bf_record_parse.
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
#include "stats.h"
#include "workloads/bandwidth.h"
#include "workloads/batching.h"
#include "workloads/gemm.h"
#include "workloads/mlp.h"
#include "workloads/roofline.h"

/* --- roofline ------------------------------------------------------- */

static void test_roofline_memory_and_compute(void **state)
{
	struct roofline rl;

	/* n = 64, fp32: 2 n^3 = 524288 FLOPs over 3 n^2 4 = 49152 bytes,
	 * AI = 32/3. At 10 GB/s the memory roof is 106.67 GFLOP/s, below a
	 * 500 GFLOP/s peak: memory-bound; 80 GFLOP/s is 75 % of it. */
	roofline_place(gemm_flops(64),
		       gemm_operand_bytes(64, BF_DTYPE_FP32, BF_DTYPE_FP32), 500,
		       10, 80, &rl);
	assert_true(fabs(rl.arithmetic_intensity - 32.0 / 3.0) < 1e-12);
	assert_int_equal(rl.bound, ROOFLINE_MEMORY);
	assert_true(fabs(rl.roofline_gflops - 320.0 / 3.0) < 1e-9);
	assert_true(fabs(rl.fraction - 0.75) < 1e-12);
	assert_string_equal(roofline_bound_name(rl.bound), "memory");

	/* n = 4096, fp32: AI = 4096 / 6 = 682.67; x 10 GB/s = 6826.7, above
	 * the peak: compute-bound at the peak. */
	roofline_place(gemm_flops(4096),
		       gemm_operand_bytes(4096, BF_DTYPE_FP32, BF_DTYPE_FP32),
		       500, 10, 250, &rl);
	assert_true(fabs(rl.arithmetic_intensity - 4096.0 / 6.0) < 1e-9);
	assert_int_equal(rl.bound, ROOFLINE_COMPUTE);
	assert_true(rl.roofline_gflops == 500);
	assert_true(rl.fraction == 0.5);
	assert_string_equal(roofline_bound_name(rl.bound), "compute");

	/* Exactly at the ridge point: AI x bandwidth == peak is compute. */
	roofline_place(1000, 100, 100, 10, NAN, &rl);
	assert_int_equal(rl.bound, ROOFLINE_COMPUTE);
	assert_true(isnan(rl.fraction)); /* no GFLOP/s, no fraction */
}

static void test_roofline_unknown(void **state)
{
	struct roofline rl;

	roofline_place(1000, 100, NAN, 10, 50, &rl); /* peak unknown */
	assert_true(rl.arithmetic_intensity == 10);
	assert_int_equal(rl.bound, ROOFLINE_UNKNOWN);
	assert_true(isnan(rl.roofline_gflops));
	assert_true(isnan(rl.fraction));
	assert_null(roofline_bound_name(rl.bound));
	roofline_place(1000, 100, 500, NAN, 50, &rl); /* bandwidth unknown */
	assert_int_equal(rl.bound, ROOFLINE_UNKNOWN);
	roofline_place(1000, 0, 500, 10, 50, &rl); /* no bytes */
	assert_true(isnan(rl.arithmetic_intensity));
	assert_int_equal(rl.bound, ROOFLINE_UNKNOWN);
}

/* --- the batching model ----------------------------------------------- */

static float x[MLP_ROWS * MLP_IN], w1[MLP_IN * MLP_HID], w2[MLP_HID * MLP_OUTPUTS];

static void test_mlp_shapes_and_data(void **state)
{
	/* The seed: 2,000 transactions/s for 10 ms is a (20, 30) batch; the
	 * lesson's layer is (30, 16). */
	assert_int_equal(MLP_ROWS, 20);
	assert_int_equal(MLP_FEATURES, 30);
	assert_int_equal(MLP_HIDDEN, 16);
	mlp_fill(x, w1, w2);
	/* The formulas of mlp.h, spot-checked, and the folded biases. */
	assert_true(x[0] == -3);                       /* r 0, f 0: 0 - 3 */
	assert_true(x[1 * MLP_IN + 1] == 1);           /* (3 + 1) % 23 % 7 - 3 */
	assert_true(x[19 * MLP_IN + 29] == 3);  /* 618 % 23 = 20, % 7 = 6 */
	for (int r = 0; r < MLP_ROWS; r++)
		assert_true(x[r * MLP_IN + MLP_FEATURES] == 1);
	assert_true(w1[2 * MLP_HID + 3] == 0); /* (4 + 6 + 6) % 3 - 1 */
	assert_true(w1[MLP_FEATURES * MLP_HID + 0] == -1); /* b1[0] */
	assert_true(w1[MLP_FEATURES * MLP_HID + 3] == 2);  /* b1[3] */
	assert_true(w1[MLP_FEATURES * MLP_HID + MLP_HIDDEN] == 1);
	for (int f = 0; f < MLP_FEATURES; f++)
		assert_true(w1[f * MLP_HID + MLP_HIDDEN] == 0);
	assert_true(w2[MLP_HIDDEN] == 3); /* b2 */
}

static void test_mlp_forward_known_scores(void **state)
{
	/* Computed independently (Python, from the formulas of mlp.h with
	 * explicit biases rather than folded ones). */
	static const double want[MLP_ROWS] = {
		-20, -44, -26, 1, -2, 11, 17, -15, 11, -60,
		-42, -36, -30, 26, -18, -29, -23, 4, -4, 2,
	};
	double got[MLP_ROWS];

	mlp_fill(x, w1, w2);
	mlp_forward_ref(MLP_ROWS, x, w1, w2, got);
	for (int r = 0; r < MLP_ROWS; r++)
		assert_true(got[r] == want[r]);
	/* A row scored alone gives the batch's score. */
	mlp_forward_ref(1, x + 13 * MLP_IN, w1, w2, got);
	assert_true(got[0] == 26);
}

static void test_mlp_relu_and_bias(void **state)
{
	/* A hand-made case: one row with features all 0 leaves only the
	 * biases: h = relu(b1), score = sum relu(b1_j) W2_j + b2. b1 = j % 4
	 * - 1 gives relu 0, 0, 1, 2 repeating; W2 = j % 3 - 1. */
	float row[MLP_IN] = { 0 };
	double s, want = 3;

	mlp_fill(x, w1, w2);
	row[MLP_FEATURES] = 1;
	for (int j = 0; j < MLP_HIDDEN; j++) {
		int b1 = j % 4 - 1;

		want += (b1 > 0 ? b1 : 0) * (j % 3 - 1);
	}
	mlp_forward_ref(1, row, w1, w2, &s);
	assert_true(s == want);
	/* Negative features drive every hidden unit below 0 but the
	 * constant one: the score is b2. */
	for (int f = 0; f < MLP_FEATURES; f++)
		row[f] = 0;
	memset(w1, 0, sizeof(w1));
	for (int j = 0; j < MLP_HIDDEN; j++)
		w1[MLP_FEATURES * MLP_HID + j] = -5;
	w1[MLP_FEATURES * MLP_HID + MLP_HIDDEN] = 1;
	mlp_forward_ref(1, row, w1, w2, &s);
	assert_true(s == 3);
	assert_int_equal(batching_dtype(DEVICE_CPU), BF_DTYPE_FP32);
	assert_int_equal(batching_dtype(DEVICE_CUDA), BF_DTYPE_FP16);
}

/* --- bandwidth sizes ---------------------------------------------------- */

static void test_bandwidth_sizes(void **state)
{
	enum bw_kind kinds[BW__COUNT];
	const size_t mib = 1u << 20;
	struct sweep_device devs[2] = {
		{ { DEVICE_CPU, 0 }, 1, "", NULL, NAN },
		{ { DEVICE_CUDA, 0 }, 0, "none", NULL, NAN },
	};

	/* Each triad array four times the LLC, the three at least 256 MiB. */
	assert_int_equal(bandwidth_array_bytes(BW_TRIAD, 32 * mib, 0), 128 * mib);
	assert_int_equal(bandwidth_array_bytes(BW_TRIAD, 1 * mib, 0),
			 (256 * mib / 3) & ~(size_t)63);
	/* --bandwidth-mib: the working set, split over the arrays. */
	assert_int_equal(bandwidth_array_bytes(BW_TRIAD, 32 * mib, 3), mib);
	assert_int_equal(bandwidth_array_bytes(BW_D2D, 0, 8), 4 * mib);
	assert_int_equal(bandwidth_array_bytes(BW_H2D_PINNED, 0, 8), 8 * mib);
	assert_int_equal(bandwidth_array_bytes(BW_D2D, 0, 0), 256 * mib);
	assert_int_equal(bandwidth_array_bytes(BW_TRIAD, 0, 1) % 64, 0);
	assert_int_equal(bandwidth_kinds(DEVICE_CPU, kinds), 1);
	assert_int_equal(kinds[0], BW_TRIAD);
	assert_int_equal(bandwidth_kinds(DEVICE_CUDA, kinds), 5);
	assert_int_equal(kinds[0], BW_D2D);
	assert_int_equal(bandwidth_count(devs, 2), 6);
	assert_string_equal(bandwidth_kind_name(BW_H2D_PAGEABLE), "h2d_pageable");
	assert_string_equal(bandwidth_kind_name(BW_D2H_PINNED), "d2h_pinned");
	assert_int_equal(batching_count(2), 2);
}

/* --- record round trips ------------------------------------------------- */

static void round_trip(const struct bf_record *r, struct bf_record *out)
{
	cJSON *j = bf_record_encode(r), *j2;
	char *line = cJSON_PrintUnformatted(j), *line2, detail[256];

	assert_non_null(line);
	if (bf_record_parse(line, strlen(line), out, detail, sizeof(detail)) !=
	    BF_OK)
		fail_msg("%s: %s", detail, line);
	assert_int_equal(out->type, r->type);
	j2 = bf_record_encode(out);
	line2 = cJSON_PrintUnformatted(j2);
	assert_string_equal(line2, line);
	free(line2);
	free(line);
	cJSON_Delete(j2);
	cJSON_Delete(j);
}

static char *dup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	assert_non_null(p);
	return memcpy(p, s, n);
}

static double *dup_nums(const double *v, int n)
{
	double *p = malloc((size_t)n * sizeof(*p));

	assert_non_null(p);
	return memcpy(p, v, (size_t)n * sizeof(*p));
}

static void test_bandwidth_record(void **state)
{
	static const double samples[] = { 2.5, 2.0, 3.0 };
	struct bf_record r, d;
	struct bf_rec_bandwidth *b = &r.u.bandwidth;

	bf_record_init(&r, BF_REC_BANDWIDTH);
	r.seq = 5;
	b->device = dup("cpu");
	b->kind = dup("triad");
	b->status = BF_STATUS_PASS;
	b->median_gbps = 12.5;
	b->measured = 1;
	b->dtype = dup("fp64");
	b->array_bytes = 1 << 20;
	b->bytes = 3 << 20;
	b->counting = dup("3 arrays x 8 bytes");
	b->threads = 2;
	b->warmup = 1;
	b->iters = 3;
	b->samples_ms = dup_nums(samples, 3);
	b->nsamples = 3;
	b->median_ms = 2.5;
	b->min_ms = 2;
	b->max_ms = 3;
	b->timing = dup("CLOCK_MONOTONIC");
	round_trip(&r, &d);
	assert_string_equal(d.u.bandwidth.kind, "triad");
	assert_int_equal(d.u.bandwidth.status, BF_STATUS_PASS);
	assert_null(d.u.bandwidth.reason);
	assert_true(d.u.bandwidth.median_gbps == 12.5);
	assert_true(d.u.bandwidth.threads == 2);
	assert_int_equal(d.u.bandwidth.nsamples, 3);
	assert_true(d.u.bandwidth.samples_ms[1] == 2.0);
	assert_true(d.u.bandwidth.bytes == 3 << 20);
	assert_true(isnan(d.u.bandwidth.needed_bytes));
	bf_record_free(&d);
	bf_record_free(&r);

	/* A GPU's record: threads null; a skipped one: median null only. */
	bf_record_init(&r, BF_REC_BANDWIDTH);
	b->device = dup("cuda:0");
	b->kind = dup("h2d_pinned");
	b->status = BF_STATUS_SKIPPED;
	b->reason = dup("no CUDA device found");
	round_trip(&r, &d);
	assert_false(d.u.bandwidth.measured);
	assert_true(isnan(d.u.bandwidth.median_gbps));
	assert_string_equal(d.u.bandwidth.reason, "no CUDA device found");
	bf_record_free(&d);
	bf_record_free(&r);
}

static void test_batching_record(void **state)
{
	static const double single[] = { 0.02, 0.03 }, batch[] = { 0.05, 0.04 };
	static const double scores[] = { -20, -44, 26 };
	struct bf_record r, d;
	struct bf_rec_batching *b = &r.u.batching;

	bf_record_init(&r, BF_REC_BATCHING);
	b->device = dup("cpu");
	b->dtype = dup("fp32");
	b->status = BF_STATUS_PASS;
	b->speedup = 10;
	b->measured = 1;
	b->model = dup("30-16-relu-1");
	b->layers = calloc(3, sizeof(int));
	b->layers[0] = 30;
	b->layers[1] = 16;
	b->layers[2] = 1;
	b->nlayers = 3;
	b->rows = 20;
	b->features = 30;
	b->library = dup("OpenBLAS 0.3.21");
	b->math_mode = dup("cblas_sgemm");
	b->timing = dup("CLOCK_MONOTONIC");
	b->warmup = 1;
	b->iters = 2;
	b->single_samples_ms = dup_nums(single, 2);
	b->nsingle = 2;
	b->batch_samples_ms = dup_nums(batch, 2);
	b->nbatch = 2;
	b->single_ms = 0.025;
	b->batch_ms = 0.045;
	b->single_rows_per_s = 40000;
	b->batch_rows_per_s = 444444.4;
	b->max_abs_diff = 0;
	b->max_abs_error = 0;
	b->tolerance = 0;
	b->scores = dup_nums(scores, 3);
	b->nscores = 3;
	b->expected_scores = dup_nums(scores, 3);
	b->nexpected = 3;
	round_trip(&r, &d);
	assert_int_equal(d.u.batching.nlayers, 3);
	assert_int_equal(d.u.batching.layers[1], 16);
	assert_int_equal(d.u.batching.rows, 20);
	assert_true(d.u.batching.speedup == 10);
	assert_int_equal(d.u.batching.nscores, 3);
	assert_true(d.u.batching.scores[2] == 26);
	assert_true(d.u.batching.tolerance == 0);
	bf_record_free(&d);
	bf_record_free(&r);

	bf_record_init(&r, BF_REC_BATCHING);
	b->device = dup("cuda:0");
	b->dtype = dup("fp16");
	b->status = BF_STATUS_SKIPPED;
	b->reason = dup("agent built without CUDA");
	round_trip(&r, &d);
	assert_false(d.u.batching.measured);
	assert_true(isnan(d.u.batching.speedup));
	bf_record_free(&d);
	bf_record_free(&r);
}

/* What a passing gemm record carries besides its numbers (docs/schema.json
 * requires them of a pass). */
static void passing_gemm(struct bf_rec_gemm *g)
{
	g->status = BF_STATUS_PASS;
	g->library = dup("OpenBLAS 0.3.21");
	g->math_mode = dup("cblas_sgemm");
	g->c_dtype = dup("fp32");
	g->operand_bytes = 49152;
	g->tolerance = 1e-5;
	g->verified_elements = 4096;
	g->nonfinite_elements = 0;
}

static void test_gemm_roofline_plan_summary(void **state)
{
	static const double samples[] = { 1.0 };
	struct bf_record r, d;
	struct bf_rec_gemm *g = &r.u.gemm;

	bf_record_init(&r, BF_REC_GEMM);
	g->device = dup("cpu");
	g->dtype = dup("fp32");
	g->n = 64;
	passing_gemm(g);
	g->measured = 1;
	g->iters = 1;
	g->samples_ms = dup_nums(samples, 1);
	g->nsamples = 1;
	g->median_ms = 1;
	g->gflops = 80;
	g->bandwidth_kind = dup("triad");
	g->bandwidth_gbps = 10;
	g->arithmetic_intensity = 32.0 / 3.0;
	g->roofline_gflops = 320.0 / 3.0;
	g->bound = dup("memory");
	g->fraction_of_roofline = 0.75;
	round_trip(&r, &d);
	assert_string_equal(d.u.gemm.bound, "memory");
	assert_string_equal(d.u.gemm.bandwidth_kind, "triad");
	assert_true(d.u.gemm.fraction_of_roofline == 0.75);
	assert_true(d.u.gemm.bandwidth_gbps == 10);
	bf_record_free(&d);
	bf_record_free(&r);

	/* Without a bandwidth, no roofline keys at all. */
	bf_record_init(&r, BF_REC_GEMM);
	g->device = dup("cpu");
	g->dtype = dup("fp32");
	g->n = 64;
	passing_gemm(g);
	g->median_ms = 1;
	g->gflops = 80;
	g->measured = 1;
	g->iters = 1; /* a measured record has at least one (schema.c) */
	g->samples_ms = dup_nums(samples, 1); /* and a sample for each */
	g->nsamples = 1;
	round_trip(&r, &d);
	assert_null(d.u.gemm.bandwidth_kind);
	assert_null(d.u.gemm.bound);
	assert_true(isnan(d.u.gemm.roofline_gflops));
	bf_record_free(&d);
	bf_record_free(&r);

	bf_record_init(&r, BF_REC_PLAN);
	r.u.plan.bandwidth_total = 6;
	r.u.plan.batching_total = 2;
	round_trip(&r, &d);
	assert_int_equal(d.u.plan.bandwidth_total, 6);
	assert_int_equal(d.u.plan.batching_total, 2);
	bf_record_free(&d);
	bf_record_free(&r);
	/* An older agent's plan: the counts read as absent. */
	bf_record_init(&r, BF_REC_PLAN);
	round_trip(&r, &d);
	assert_int_equal(d.u.plan.bandwidth_total, -1);
	assert_int_equal(d.u.plan.batching_total, -1);
	bf_record_free(&d);
	bf_record_free(&r);

	bf_record_init(&r, BF_REC_SUMMARY);
	r.u.summary.bandwidth_passed = 1;
	r.u.summary.bandwidth_failed = 0;
	r.u.summary.bandwidth_skipped = 5;
	r.u.summary.batching_passed = 1;
	r.u.summary.batching_failed = 0;
	r.u.summary.batching_skipped = 1;
	round_trip(&r, &d);
	assert_true(d.u.summary.bandwidth_skipped == 5);
	assert_true(d.u.summary.batching_passed == 1);
	bf_record_free(&d);
	bf_record_free(&r);
}

/* The plausibility guard decides on the bound, not the rated peak: a
 * made-up device rated 100 GFLOP/s whose bound is 150 (on this CPU the
 * two figures are equal, so only made-up ones tell them apart). */
static void test_gemm_above_bound(void **state)
{
	struct peak p;
	char why[400];

	(void)state;
	memset(&p, 0, sizeof(p));
	p.gflops = 100;
	p.bound_gflops = 150;
	snprintf(p.bound_basis, sizeof(p.bound_basis), "made-up basis");
	/* above the rated peak and its margin, under the bound's: plausible */
	assert_int_equal(gemm_above_bound(130, &p, why, sizeof(why)), 0);
	assert_int_equal(gemm_above_bound(150 * GEMM_PEAK_MARGIN, &p, why,
					  sizeof(why)),
			 0);
	/* just above the bound's margin (1.10 x 150 = 165): implausible */
	why[0] = '\0';
	assert_int_equal(gemm_above_bound(165.5, &p, why, sizeof(why)), 1);
	assert_string_equal(
		why,
		"166 GFLOP/s is above the device's theoretical peak of 150 "
		"GFLOP/s (made-up basis): the timing or the GEMM is wrong");
	assert_int_equal(gemm_above_bound(1e9, &p, NULL, 0), 1);
	/* unknown bound or no figure: nothing to judge by */
	p.bound_gflops = NAN;
	assert_int_equal(gemm_above_bound(1e9, &p, why, sizeof(why)), 0);
	p.bound_gflops = 150;
	assert_int_equal(gemm_above_bound(NAN, &p, why, sizeof(why)), 0);
	/* a bound below the rated peak (never made, but the rule is the
	 * bound's): 120 is above 1.10 x 100 */
	p.gflops = 1000;
	p.bound_gflops = 100;
	assert_int_equal(gemm_above_bound(120, &p, why, sizeof(why)), 1);
}

/* A made-up measurement of n = 1000 (2e9 FLOPs) on the CPU: samples of
 * 10, 11 and 12 ms (median 11 ms: 181.8 GFLOP/s), a verification that
 * passed, a device rated 400 GFLOP/s with a bound of 500. */
static double made_samples[3] = { 12, 10, 11 };
static struct gemm_job made_job = { .dtype = BF_DTYPE_FP32, .n = 1000,
				    .warmup = 1, .iters = 3 };
static struct gemm_result made_res;

static void made_up(struct gemm_measured *m)
{
	memset(m, 0, sizeof(*m));
	memset(&made_res, 0, sizeof(made_res));
	made_res.samples_ms = made_samples;
	made_res.c_dtype = BF_DTYPE_FP32;
	made_res.peak_bytes = 12 << 20;
	made_res.warmup_done = 1;
	made_res.warmup_ms = 10.5;
	snprintf(made_res.math_mode, sizeof(made_res.math_mode), "cblas_sgemm");
	m->job = &made_job;
	m->res = &made_res;
	m->verify.status = BF_STATUS_PASS;
	m->verify.max_rel_error = 1e-7;
	m->verify.tolerance = 1e-5;
	m->verify.verified_elements = 1024;
	m->stats = bf_stats_summarize(made_samples, 3);
	m->peak.gflops = 400;
	m->peak.bound_gflops = 500;
	snprintf(m->peak.basis, sizeof(m->peak.basis), "made-up rating");
	snprintf(m->peak.bound_basis, sizeof(m->peak.bound_basis), "made-up bound");
	snprintf(m->peak.method, sizeof(m->peak.method), "table");
	m->library = "madeBLAS 1.0";
	m->verify_seed = 42;
}

/* The judge on made-up results: GFLOP/s from the median; a verified
 * result above the bound fails with that reason; a failed verification
 * names its non-finite elements (or its error against the tolerance) and
 * which iteration, and has no GFLOP/s. */
static void test_gemm_judge(void **state)
{
	struct gemm_measured m;
	char reason[400];
	double gflops;

	(void)state;
	made_up(&m);
	assert_int_equal(gemm_judge(&m, &gflops, reason, sizeof(reason)),
			 BF_STATUS_PASS);
	assert_true(fabs(gflops - 2e9 / 11e-3 / 1e9) < 1e-9);
	assert_string_equal(reason, "");
	m.peak.bound_gflops = 150; /* 181.8 > 1.10 x 150 */
	assert_int_equal(gemm_judge(&m, &gflops, reason, sizeof(reason)),
			 BF_STATUS_FAIL);
	assert_true(isnan(gflops));
	assert_non_null(strstr(reason, "182 GFLOP/s is above the device's "
					"theoretical peak of 150 GFLOP/s "
					"(made-up bound)"));
	m.peak.bound_gflops = 500;
	m.verify.status = BF_STATUS_FAIL;
	m.verify.nonfinite_elements = 3;
	m.first_failed = 1;
	assert_int_equal(gemm_judge(&m, &gflops, reason, sizeof(reason)),
			 BF_STATUS_FAIL);
	assert_true(isnan(gflops));
	assert_string_equal(reason, "3 non-finite elements in C of the first "
				    "timed iteration");
	m.verify.nonfinite_elements = 0;
	m.verify.max_rel_error = 0.25;
	m.first_failed = 0;
	gemm_judge(&m, &gflops, reason, sizeof(reason));
	assert_string_equal(reason, "max relative error 0.25 above tolerance "
				    "1e-05");
}

/* The record filled from a made-up result, through the encoder: times,
 * GFLOP/s and %peak, reliability, energy per GFLOP, and a failed one's
 * reason with no speed or per-joule figure. */
static void test_gemm_fill_record(void **state)
{
	struct gemm_measured m;
	struct device cpu = { DEVICE_CPU, 0 };
	struct bf_record rec;
	cJSON *j, *e;

	(void)state;
	made_up(&m);
	snprintf(made_res.energy.source, sizeof(made_res.energy.source),
		 "made-up counter");
	made_res.energy.joules = 40;
	made_res.energy.seconds = 2;
	made_res.energy.gemms = 100;
	gemm_fill_record(&rec, &cpu, &m, BF_STATUS_PASS, "", 2e9 / 11e-3 / 1e9);
	j = bf_record_encode(&rec);
	rec.u.gemm.samples_ms = NULL;
	bf_record_free(&rec);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "device")->valuestring, "cpu");
	assert_string_equal(cJSON_GetObjectItem(j, "status")->valuestring, "pass");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "reason")) ||
		    !cJSON_GetObjectItem(j, "reason"));
	assert_true(cJSON_GetObjectItem(j, "median_ms")->valuedouble == 11);
	assert_true(cJSON_GetObjectItem(j, "min_ms")->valuedouble == 10);
	assert_true(fabs(cJSON_GetObjectItem(j, "fraction_of_peak")->valuedouble -
			 2e9 / 11e-3 / 1e9 / 400) < 1e-9);
	assert_string_equal(cJSON_GetObjectItem(j, "library")->valuestring,
			    "madeBLAS 1.0");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "reliable")));
	assert_true(fabs(cJSON_GetObjectItem(j, "spread")->valuedouble - 2.0 / 11) <
		    1e-12);
	e = cJSON_GetObjectItem(j, "energy");
	assert_non_null(e);
	assert_true(cJSON_GetObjectItem(e, "watts")->valuedouble == 20);
	/* 100 GEMMs x 2 GFLOP over 40 J */
	assert_true(fabs(cJSON_GetObjectItem(e, "gflop_per_joule")->valuedouble -
			 5) < 1e-12);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "samples_ms")),
			 3);
	cJSON_Delete(j);

	gemm_fill_record(&rec, &cpu, &m, BF_STATUS_FAIL, "made-up reason", NAN);
	j = bf_record_encode(&rec);
	rec.u.gemm.samples_ms = NULL;
	bf_record_free(&rec);
	assert_string_equal(cJSON_GetObjectItem(j, "reason")->valuestring,
			    "made-up reason");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "gflops")));
	e = cJSON_GetObjectItem(j, "energy");
	assert_non_null(e);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "gflop_per_joule")));
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roofline_memory_and_compute),
		cmocka_unit_test(test_roofline_unknown),
		cmocka_unit_test(test_mlp_shapes_and_data),
		cmocka_unit_test(test_mlp_forward_known_scores),
		cmocka_unit_test(test_mlp_relu_and_bias),
		cmocka_unit_test(test_bandwidth_sizes),
		cmocka_unit_test(test_bandwidth_record),
		cmocka_unit_test(test_batching_record),
		cmocka_unit_test(test_gemm_roofline_plan_summary),
		cmocka_unit_test(test_gemm_above_bound),
		cmocka_unit_test(test_gemm_judge),
		cmocka_unit_test(test_gemm_fill_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
