/*
 * Tensor checks on one device: properties (rank, shape, strides, dtype,
 * element and total bytes, device) of the seed's tensors, element-wise add,
 * broadcasting, a small layer, device and shape errors, rounding to
 * fp16/bf16 with the device's own conversion, and a host <-> device round
 * trip with bandwidth. Expected values are literal constants from
 * ../shared/docs/seed-facts.md and IEEE 754-2008 / bfloat16, never
 * computed by the code under test.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "checks/checks.h"
#include "checks/tensor.h"
#include "workloads/gemm.h"
#include "xmalloc.h"

#define DETAIL_LEN 512

struct check_ctx {
	struct report *r;
	const struct device *dev;
	const char *label; /* "cpu", "cuda:0" */
	const struct agent_opts *o;
};

/* --- tensor properties ----------------------------------------------- */

enum fill { FILL_ZEROS, FILL_VALUES };

struct prop_case {
	const char *name;
	enum bf_dtype dtype;     /* TENSOR_DEFAULT_DTYPE where the seed names
				  * none; the expected dtype is `want` */
	enum bf_dtype want;
	int rank;
	int64_t shape[4];
	int64_t strides[4];
	int64_t elements;
	int element_bytes;
	int64_t total_bytes;
	enum fill fill;
	double values[3];
};

/* Rank, shape, element and total bytes as the seed facts give them. */
static const struct prop_case prop_cases[] = {
	{ "props.scalar", TENSOR_DEFAULT_DTYPE, BF_DTYPE_FP32, 0, { 0 }, { 0 }, 1, 4, 4, FILL_VALUES, { 3.0 } },
	{ "props.vector", TENSOR_DEFAULT_DTYPE, BF_DTYPE_FP32, 1, { 3 }, { 1 }, 3, 4, 12, FILL_VALUES, { 1, 2, 3 } },
	{ "props.zeros_2x3", TENSOR_DEFAULT_DTYPE, BF_DTYPE_FP32, 2, { 2, 3 }, { 3, 1 }, 6, 4, 24, FILL_ZEROS, { 0 } },
	{ "props.zeros_2x3x4", TENSOR_DEFAULT_DTYPE, BF_DTYPE_FP32, 3, { 2, 3, 4 }, { 12, 4, 1 }, 24, 4, 96, FILL_ZEROS, { 0 } },
	{ "props.matrix_1024_fp32", BF_DTYPE_FP32, BF_DTYPE_FP32, 2, { 1024, 1024 }, { 1024, 1 }, 1048576, 4, 4194304, FILL_ZEROS, { 0 } },
	{ "props.matrix_1024_fp16", BF_DTYPE_FP16, BF_DTYPE_FP16, 2, { 1024, 1024 }, { 1024, 1 }, 1048576, 2, 2097152, FILL_ZEROS, { 0 } },
	{ "props.matrix_1024_bf16", BF_DTYPE_BF16, BF_DTYPE_BF16, 2, { 1024, 1024 }, { 1024, 1 }, 1048576, 2, 2097152, FILL_ZEROS, { 0 } },
	{ "props.image_batch_fp32", BF_DTYPE_FP32, BF_DTYPE_FP32, 4, { 32, 3, 224, 224 }, { 150528, 50176, 224, 1 }, 4816896, 4, 19267584, FILL_ZEROS, { 0 } },
	{ "props.image_batch_bf16", BF_DTYPE_BF16, BF_DTYPE_BF16, 4, { 32, 3, 224, 224 }, { 150528, 50176, 224, 1 }, 4816896, 2, 9633792, FILL_ZEROS, { 0 } },
	{ "props.labels_int64", BF_DTYPE_INT64, BF_DTYPE_INT64, 1, { 32 }, { 1 }, 32, 8, 256, FILL_ZEROS, { 0 } },
	{ "props.weights_int8", BF_DTYPE_INT8, BF_DTYPE_INT8, 2, { 1024, 1024 }, { 1024, 1 }, 1048576, 1, 1048576, FILL_ZEROS, { 0 } },
};
#define N_PROP_CASES (int)(sizeof(prop_cases) / sizeof(prop_cases[0]))

static cJSON *int_array(const int64_t *v, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

static cJSON *double_array(const double *v, int64_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (int64_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

/* Pass when got equals expected exactly (cJSON's structural compare). */
static void finish(const struct check_ctx *c, const char *name, cJSON *expected,
		   cJSON *got, const char *err_detail,
		   const struct bf_rec_transfer_metrics *metrics)
{
	enum bf_status st = (got && cJSON_Compare(expected, got, 1)) ?
				    BF_STATUS_PASS :
				    BF_STATUS_FAIL;

	report_check(c->r, name, c->label, expected, got, st,
		     st == BF_STATUS_FAIL ? (err_detail && *err_detail ?
						     err_detail :
						     "got differs from expected") :
					    NULL,
		     metrics);
}

static void check_props(const struct check_ctx *c, const struct prop_case *pc)
{
	char detail[DETAIL_LEN] = "";
	struct tensor *t = NULL;
	cJSON *expected = cJSON_CreateObject(), *got = NULL;
	double *vals = NULL;
	enum bf_err err;
	int values_ok = 1;

	cJSON_AddNumberToObject(expected, "rank", pc->rank);
	cJSON_AddItemToObject(expected, "shape", int_array(pc->shape, pc->rank));
	cJSON_AddItemToObject(expected, "strides",
			      int_array(pc->strides, pc->rank));
	cJSON_AddStringToObject(expected, BF_KEY_DTYPE, bf_dtype_name(pc->want));
	cJSON_AddNumberToObject(expected, "elements", (double)pc->elements);
	cJSON_AddNumberToObject(expected, "element_bytes", pc->element_bytes);
	cJSON_AddNumberToObject(expected, "total_bytes", (double)pc->total_bytes);
	cJSON_AddStringToObject(expected, BF_KEY_DEVICE, c->label);
	cJSON_AddBoolToObject(expected, "values_ok", 1);

	if (pc->fill == FILL_VALUES)
		err = tensor_from_values(c->dev, pc->dtype, pc->rank, pc->shape,
					 pc->values, &t, detail, sizeof(detail));
	else
		err = tensor_zeros(c->dev, pc->dtype, pc->rank, pc->shape, &t,
				   detail, sizeof(detail));
	if (err == BF_OK) {
		int64_t n = tensor_numel(t);
		char lbl[16];

		/* Read the elements back from the device: a tensor whose
		 * storage is wrong should not pass on metadata alone. */
		vals = bf_xmalloc((size_t)n * sizeof(*vals));
		err = tensor_values(t, vals, detail, sizeof(detail));
		for (int64_t i = 0; err == BF_OK && i < n; i++)
			if (vals[i] != (pc->fill == FILL_VALUES ? pc->values[i] : 0.0))
				values_ok = 0;
		got = cJSON_CreateObject();
		cJSON_AddNumberToObject(got, "rank", t->rank);
		cJSON_AddItemToObject(got, "shape", int_array(t->shape, t->rank));
		cJSON_AddItemToObject(got, "strides",
				      int_array(t->strides, t->rank));
		cJSON_AddStringToObject(got, BF_KEY_DTYPE, bf_dtype_name(t->dtype));
		cJSON_AddNumberToObject(got, "elements", (double)tensor_numel(t));
		cJSON_AddNumberToObject(got, "element_bytes",
					(double)bf_dtype_element_bytes(t->dtype));
		cJSON_AddNumberToObject(got, "total_bytes",
					(double)tensor_nbytes(t));
		cJSON_AddStringToObject(got, BF_KEY_DEVICE,
					device_label(&t->device, lbl, sizeof(lbl)));
		cJSON_AddBoolToObject(got, "values_ok", err == BF_OK && values_ok);
	}
	finish(c, pc->name, expected, got, detail, NULL);
	free(vals);
	tensor_free(t);
}

/* --- arithmetic -------------------------------------------------------- */

/* Runs a + b on the device and returns {shape, values}; NULL on error. */
static cJSON *add_result(const struct check_ctx *c, int ra, const int64_t *sa,
			 const double *va, int rb, const int64_t *sb,
			 const double *vb, char *detail, size_t detail_len)
{
	struct tensor *a = NULL, *b = NULL, *out = NULL;
	cJSON *got = NULL;
	double *vals = NULL;
	enum bf_err err;

	err = tensor_from_values(c->dev, BF_DTYPE_FP32, ra, sa, va, &a, detail,
				 detail_len);
	if (err == BF_OK)
		err = tensor_from_values(c->dev, BF_DTYPE_FP32, rb, sb, vb, &b,
					 detail, detail_len);
	if (err == BF_OK)
		err = tensor_add(a, b, &out, detail, detail_len);
	if (err == BF_OK) {
		vals = bf_xmalloc((size_t)tensor_numel(out) * sizeof(*vals));
		err = tensor_values(out, vals, detail, detail_len);
	}
	if (err == BF_OK) {
		got = cJSON_CreateObject();
		cJSON_AddItemToObject(got, "shape", int_array(out->shape, out->rank));
		cJSON_AddItemToObject(got, "values",
				      double_array(vals, tensor_numel(out)));
	}
	free(vals);
	tensor_free(out);
	tensor_free(b);
	tensor_free(a);
	return got;
}

static void check_add(const struct check_ctx *c)
{
	static const int64_t s3[] = { 3 };
	static const double a[] = { 1, 2, 3 }, b[] = { 10, 20, 30 };
	static const double want[] = { 11, 22, 33 };
	char detail[DETAIL_LEN] = "";
	cJSON *expected = cJSON_CreateObject(), *got;

	cJSON_AddItemToObject(expected, "shape", int_array(s3, 1));
	cJSON_AddItemToObject(expected, "values", double_array(want, 3));
	got = add_result(c, 1, s3, a, 1, s3, b, detail, sizeof(detail));
	finish(c, "add.elementwise", expected, got, detail, NULL);
}

static void check_broadcast_row(const struct check_ctx *c)
{
	static const int64_t s23[] = { 2, 3 }, s3[] = { 3 }, view_strides[] = { 0, 1 };
	static const double ones[] = { 1, 1, 1, 1, 1, 1 }, row[] = { 1, 2, 3 };
	static const double want[] = { 2, 3, 4, 2, 3, 4 };
	char detail[DETAIL_LEN] = "";
	cJSON *expected = cJSON_CreateObject(), *got;
	struct tensor *r = NULL, *view = NULL;

	cJSON_AddItemToObject(expected, "shape", int_array(s23, 2));
	cJSON_AddItemToObject(expected, "values", double_array(want, 6));
	cJSON_AddItemToObject(expected, "row_view_strides",
			      int_array(view_strides, 2));
	cJSON_AddBoolToObject(expected, "row_copied", 0);
	got = add_result(c, 2, s23, ones, 1, s3, row, detail, sizeof(detail));
	/* The broadcast view of the row: stride 0 on the stretched dim and
	 * the same storage, i.e. the row is not copied. */
	if (got &&
	    tensor_from_values(c->dev, BF_DTYPE_FP32, 1, s3, row, &r, detail,
			       sizeof(detail)) == BF_OK &&
	    tensor_expand(r, 2, s23, &view, detail, sizeof(detail)) == BF_OK) {
		cJSON_AddItemToObject(got, "row_view_strides",
				      int_array(view->strides, 2));
		cJSON_AddBoolToObject(got, "row_copied", view->data != r->data);
	}
	finish(c, "broadcast.row", expected, got, detail, NULL);
	tensor_free(view);
	tensor_free(r);
}

/* Max |got - want| over n values, or INFINITY when any is NaN. */
static double max_abs_error(const double *got, const double *want, int64_t n)
{
	double m = 0;

	for (int64_t i = 0; i < n; i++) {
		double e = fabs(got[i] - want[i]);

		if (isnan(e))
			return INFINITY;
		if (e > m)
			m = e;
	}
	return m;
}

static void check_broadcast_bias(const struct check_ctx *c)
{
	static const int64_t sh[] = { 64, 16 }, sb[] = { 16 };
	double h[64 * 16], b[16], want[64 * 16];
	char detail[DETAIL_LEN] = "";
	cJSON *expected = cJSON_CreateObject(), *got, *vals, *out = NULL;
	int rows_ok = 0;

	for (int j = 0; j < 16; j++)
		b[j] = 0.5 * j;
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 16; j++) {
			h[i * 16 + j] = i * 16 + j;
			want[i * 16 + j] = h[i * 16 + j] + b[j];
		}
	cJSON_AddItemToObject(expected, "shape", int_array(sh, 2));
	cJSON_AddNumberToObject(expected, "rows_with_bias", 64);
	cJSON_AddNumberToObject(expected, "max_abs_error", 0);
	got = add_result(c, 2, sh, h, 1, sb, b, detail, sizeof(detail));
	if (got) {
		double g[64 * 16];

		vals = cJSON_GetObjectItemCaseSensitive(got, "values");
		for (int i = 0; i < 64 * 16; i++)
			g[i] = cJSON_GetArrayItem(vals, i)->valuedouble;
		for (int i = 0; i < 64; i++)
			rows_ok += max_abs_error(g + i * 16, want + i * 16, 16) == 0;
		out = cJSON_CreateObject();
		cJSON_AddItemToObject(out, "shape", cJSON_DetachItemFromObject(got, "shape"));
		cJSON_AddNumberToObject(out, "rows_with_bias", rows_ok);
		cJSON_AddNumberToObject(out, "max_abs_error",
					max_abs_error(g, want, 64 * 16));
		cJSON_Delete(got);
	}
	finish(c, "broadcast.bias", expected, out, detail, NULL);
}

static void check_layer(const struct check_ctx *c)
{
	static const int64_t sx[] = { 64, 30 }, sw[] = { 30, 16 }, sy[] = { 64, 16 };
	double x[64 * 30], w[30 * 16], want[64 * 16], got_v[64 * 16];
	char detail[DETAIL_LEN] = "";
	struct tensor *tx = NULL, *tw = NULL, *ty = NULL;
	cJSON *expected = cJSON_CreateObject(), *got = NULL;
	enum bf_err err;
	int negatives = 0;

	/* Small integers: every product and sum is exact in fp32, so the
	 * expected output is exact whatever the summation order. */
	for (int i = 0; i < 64; i++)
		for (int k = 0; k < 30; k++)
			x[i * 30 + k] = (double)((i * 7 + k * 3) % 5 - 2);
	for (int k = 0; k < 30; k++)
		for (int j = 0; j < 16; j++)
			w[k * 16 + j] = (double)((k * 5 + j) % 3 - 1);
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 16; j++) {
			double s = 0;

			for (int k = 0; k < 30; k++)
				s += x[i * 30 + k] * w[k * 16 + j];
			want[i * 16 + j] = s > 0 ? s : 0; /* relu */
		}
	cJSON_AddItemToObject(expected, "shape", int_array(sy, 2));
	cJSON_AddNumberToObject(expected, "max_abs_error", 0);
	cJSON_AddNumberToObject(expected, "negatives_after_relu", 0);

	err = tensor_from_values(c->dev, BF_DTYPE_FP32, 2, sx, x, &tx, detail,
				 sizeof(detail));
	if (err == BF_OK)
		err = tensor_from_values(c->dev, BF_DTYPE_FP32, 2, sw, w, &tw,
					 detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_matmul(tx, tw, &ty, detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_relu_(ty, detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_values(ty, got_v, detail, sizeof(detail));
	if (err == BF_OK) {
		for (int i = 0; i < 64 * 16; i++)
			negatives += got_v[i] < 0;
		got = cJSON_CreateObject();
		cJSON_AddItemToObject(got, "shape", int_array(ty->shape, ty->rank));
		cJSON_AddNumberToObject(got, "max_abs_error",
					max_abs_error(got_v, want, 64 * 16));
		cJSON_AddNumberToObject(got, "negatives_after_relu", negatives);
	}
	finish(c, "layer.matmul_relu", expected, got, detail, NULL);
	tensor_free(ty);
	tensor_free(tw);
	tensor_free(tx);
}

static void check_shape_error(const struct check_ctx *c)
{
	static const int64_t s23[] = { 2, 3 }, s4[] = { 4 };
	static const double z[6] = { 0 };
	char detail[DETAIL_LEN] = "";
	struct tensor *a = NULL, *b = NULL, *out = NULL;
	cJSON *expected = cJSON_CreateObject(), *got = cJSON_CreateObject();
	enum bf_err err;

	cJSON_AddStringToObject(expected, "error", bf_err_str(BF_ERR_SHAPE));
	err = tensor_from_values(c->dev, BF_DTYPE_FP32, 2, s23, z, &a, detail,
				 sizeof(detail));
	if (err == BF_OK)
		err = tensor_from_values(c->dev, BF_DTYPE_FP32, 1, s4, z, &b,
					 detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_add(a, b, &out, detail, sizeof(detail));
	cJSON_AddStringToObject(got, "error", err == BF_OK ? "none" : bf_err_str(err));
	finish(c, "error.shape_mismatch", expected, got, NULL, NULL);
	tensor_free(out);
	tensor_free(b);
	tensor_free(a);
}

static void check_device_error(const struct check_ctx *c)
{
	static const int64_t s3[] = { 3 };
	static const double v[] = { 1, 2, 3 };
	static const struct device cpu = { DEVICE_CPU, 0 };
	char detail[DETAIL_LEN] = "";
	struct tensor *a = NULL, *b = NULL, *out = NULL;
	cJSON *expected = cJSON_CreateObject(), *got = cJSON_CreateObject();
	enum bf_err err;

	/* Two tensors must be on the same device to be combined. */
	cJSON_AddStringToObject(expected, "error",
				bf_err_str(BF_ERR_DEVICE_MISMATCH));
	err = tensor_from_values(&cpu, BF_DTYPE_FP32, 1, s3, v, &a, detail,
				 sizeof(detail));
	if (err == BF_OK)
		err = tensor_from_values(c->dev, BF_DTYPE_FP32, 1, s3, v, &b,
					 detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_add(a, b, &out, detail, sizeof(detail));
	cJSON_AddStringToObject(got, "error", err == BF_OK ? "none" : bf_err_str(err));
	finish(c, "error.device_mismatch", expected, got, NULL, NULL);
	tensor_free(out);
	tensor_free(b);
	tensor_free(a);
}

static void check_to_device(const struct check_ctx *c)
{
	static const int64_t s3[] = { 3 };
	static const double v[] = { 1, 2, 3 };
	static const struct device cpu = { DEVICE_CPU, 0 };
	char detail[DETAIL_LEN] = "", lbl[16];
	struct tensor *a = NULL, *b = NULL;
	cJSON *expected = cJSON_CreateObject(), *got = NULL;
	double back[3];
	enum bf_err err;

	cJSON_AddStringToObject(expected, "from", "cpu");
	cJSON_AddStringToObject(expected, BF_KEY_DEVICE, c->label);
	cJSON_AddItemToObject(expected, "values", double_array(v, 3));
	err = tensor_from_values(&cpu, BF_DTYPE_FP32, 1, s3, v, &a, detail,
				 sizeof(detail));
	if (err == BF_OK)
		err = tensor_to(a, c->dev, &b, detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_values(b, back, detail, sizeof(detail));
	if (err == BF_OK) {
		got = cJSON_CreateObject();
		cJSON_AddStringToObject(got, "from",
					device_label(&a->device, lbl, sizeof(lbl)));
		cJSON_AddStringToObject(got, BF_KEY_DEVICE,
					device_label(&b->device, lbl, sizeof(lbl)));
		cJSON_AddItemToObject(got, "values", double_array(back, 3));
	}
	finish(c, "transfer.to_device", expected, got, detail, NULL);
	tensor_free(b);
	tensor_free(a);
}

/* --- rounding ---------------------------------------------------------- */

struct round_vector {
	float in;
	uint16_t fp16, bf16; /* IEEE 754 binary16 / bfloat16 bits, RNE */
};

/* Ties, overflow and subnormal edges. fp16: 65520 is halfway between the
 * max 65504 and 2^16 and rounds to even, i.e. to infinity; 2^-25 is half
 * the smallest subnormal and rounds to even zero. bf16: FLT_MAX is above
 * the halfway point past bf16's max and rounds to infinity. */
static const struct round_vector round_vectors[] = {
	{ 1.0f, 0x3c00, 0x3f80 },
	{ -2.0f, 0xc000, 0xc000 },
	{ 65504.0f, 0x7bff, 0x4780 },
	{ 65519.0f, 0x7bff, 0x4780 },
	{ 65520.0f, 0x7c00, 0x4780 },
	{ 1.0f + 0x1p-11f, 0x3c00, 0x3f80 },      /* fp16 tie -> even (down) */
	{ 1.0f + 0x3p-11f, 0x3c02, 0x3f80 },      /* fp16 tie -> even (up) */
	{ 1.0f + 0x1p-8f, 0x3c04, 0x3f80 },       /* bf16 tie -> even (down) */
	{ 1.0f + 0x3p-8f, 0x3c0c, 0x3f82 },       /* bf16 tie -> even (up) */
	{ 0x1p-24f, 0x0001, 0x3380 },             /* fp16 smallest subnormal */
	{ 0x1p-25f, 0x0000, 0x3300 },             /* fp16 tie -> zero */
	{ 0x1p-14f, 0x0400, 0x3880 },             /* fp16 smallest normal */
	{ 0x1p-126f, 0x0000, 0x0080 },            /* bf16 smallest normal */
	{ 3.4028234663852886e38f, 0x7c00, 0x7f80 }, /* FLT_MAX */
	{ 3.3895313892515355e38f, 0x7c00, 0x7f7f }, /* bf16 max */
};
#define N_ROUND (sizeof(round_vectors) / sizeof(round_vectors[0]))

static void check_round(const struct check_ctx *c, enum bf_dtype dt)
{
	const struct backend *be = backend_for(c->dev->kind);
	float in[N_ROUND];
	uint16_t out[N_ROUND];
	char detail[DETAIL_LEN] = "", name[32];
	cJSON *expected = cJSON_CreateArray(), *got = NULL;
	enum bf_err err;

	for (size_t i = 0; i < N_ROUND; i++) {
		in[i] = round_vectors[i].in;
		cJSON_AddItemToArray(expected, cJSON_CreateNumber(
			dt == BF_DTYPE_FP16 ? round_vectors[i].fp16 :
					      round_vectors[i].bf16));
	}
	err = be->round_16(c->dev->index, dt, in, out, N_ROUND, detail,
			   sizeof(detail));
	if (err == BF_OK) {
		got = cJSON_CreateArray();
		for (size_t i = 0; i < N_ROUND; i++)
			cJSON_AddItemToArray(got, cJSON_CreateNumber(out[i]));
	}
	snprintf(name, sizeof(name), "round.%s", bf_dtype_name(dt));
	finish(c, name, expected, got, detail, NULL);
}

static void check_round_fp16(const struct check_ctx *c)
{
	check_round(c, BF_DTYPE_FP16);
}

static void check_round_bf16(const struct check_ctx *c)
{
	check_round(c, BF_DTYPE_BF16);
}

/* --- host <-> device transfer -------------------------------------------- */

static void check_h2d(const struct check_ctx *c)
{
	const struct backend *be = backend_for(c->dev->kind);
	size_t bytes = (size_t)c->o->transfer_mib << 20;
	struct transfer_result tr;
	char detail[DETAIL_LEN] = "";
	struct bf_rec_transfer_metrics m;
	cJSON *expected = cJSON_CreateObject(), *got = NULL;
	int measured = 0;

	cJSON_AddBoolToObject(expected, "roundtrip_equal", 1);
	if (be->transfer(c->dev->index, bytes, 5, &tr, detail,
			 sizeof(detail)) == BF_OK) {
		got = cJSON_CreateObject();
		cJSON_AddBoolToObject(got, "roundtrip_equal", tr.roundtrip_equal);
		/* GB/s = 1e9 bytes per second, as nvbandwidth reports. */
		m = (struct bf_rec_transfer_metrics){
			.bytes = (double)bytes,
			.h2d_pageable_gbps = tr.h2d_pageable_bps / 1e9,
			.d2h_pageable_gbps = tr.d2h_pageable_bps / 1e9,
			.h2d_pinned_gbps = tr.h2d_pinned_bps / 1e9,
			.d2h_pinned_gbps = tr.d2h_pinned_bps / 1e9,
		};
		measured = 1;
	}
	finish(c, "transfer.h2d_d2h", expected, got, detail,
	       measured ? &m : NULL);
}

/* --- the table --------------------------------------------------------- */

static int any_device(const struct device *d)
{
	return 1;
}

static int gpu_only(const struct device *d)
{
	return d->kind != DEVICE_CPU;
}

/* The seed's GEMM arithmetic, from the functions the sweep uses: 2 n^3
 * FLOPs and 3 n^2 x element bytes of operands at n = 4096 (192 MiB fp32,
 * 96 MiB fp16/bf16; seed-facts.md, "GEMM"). Literal expected values. */
static void check_gemm_sizes(const struct check_ctx *c)
{
	cJSON *expected = cJSON_CreateObject(), *got = cJSON_CreateObject();

	cJSON_AddNumberToObject(expected, "flops_n4096", 137438953472.0);
	cJSON_AddNumberToObject(expected, "operand_bytes_fp32_n4096", 201326592.0);
	cJSON_AddNumberToObject(expected, "operand_bytes_fp16_n4096", 100663296.0);
	cJSON_AddNumberToObject(expected, "operand_bytes_bf16_n4096", 100663296.0);
	cJSON_AddNumberToObject(got, "flops_n4096", gemm_flops(4096));
	cJSON_AddNumberToObject(got, "operand_bytes_fp32_n4096",
				gemm_operand_bytes(4096, BF_DTYPE_FP32, BF_DTYPE_FP32));
	cJSON_AddNumberToObject(got, "operand_bytes_fp16_n4096",
				gemm_operand_bytes(4096, BF_DTYPE_FP16, BF_DTYPE_FP16));
	cJSON_AddNumberToObject(got, "operand_bytes_bf16_n4096",
				gemm_operand_bytes(4096, BF_DTYPE_BF16, BF_DTYPE_BF16));
	finish(c, "gemm.seed_arithmetic", expected, got, NULL, NULL);
}

/* relu keeps NaN (as torch.relu does) and maps -inf to 0, +inf to +inf,
 * on the device: a NaN upstream must not come out as a zero. */
static void check_relu_nonfinite(const struct check_ctx *c)
{
	static const int64_t shape[] = { 4 };
	const double in[] = { NAN, -INFINITY, INFINITY, -1 };
	char detail[DETAIL_LEN] = "";
	struct tensor *t = NULL;
	cJSON *expected = cJSON_CreateObject(), *got = NULL;
	double out[4];
	enum bf_err err;

	cJSON_AddBoolToObject(expected, "nan_stays_nan", 1);
	cJSON_AddBoolToObject(expected, "minus_inf_to_zero", 1);
	cJSON_AddBoolToObject(expected, "plus_inf_stays", 1);
	cJSON_AddBoolToObject(expected, "negative_to_zero", 1);
	err = tensor_from_values(c->dev, BF_DTYPE_FP32, 1, shape, in, &t,
				 detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_relu_(t, detail, sizeof(detail));
	if (err == BF_OK)
		err = tensor_values(t, out, detail, sizeof(detail));
	if (err == BF_OK) {
		got = cJSON_CreateObject();
		cJSON_AddBoolToObject(got, "nan_stays_nan", isnan(out[0]));
		cJSON_AddBoolToObject(got, "minus_inf_to_zero", out[1] == 0);
		cJSON_AddBoolToObject(got, "plus_inf_stays",
				      isinf(out[2]) && out[2] > 0);
		cJSON_AddBoolToObject(got, "negative_to_zero", out[3] == 0);
	}
	finish(c, "relu.nonfinite", expected, got, detail, NULL);
	tensor_free(t);
}

static int cpu_only(const struct device *d)
{
	return d->kind == DEVICE_CPU;
}

struct check_entry {
	void (*run)(const struct check_ctx *c);
	int (*applies)(const struct device *d);
};

static const struct check_entry check_table[] = {
	{ check_add, any_device },
	{ check_broadcast_row, any_device },
	{ check_broadcast_bias, any_device },
	{ check_layer, any_device },
	{ check_relu_nonfinite, any_device },
	{ check_shape_error, any_device },
	{ check_device_error, gpu_only },
	{ check_to_device, any_device },
	{ check_round_fp16, any_device },
	{ check_round_bf16, any_device },
	{ check_h2d, gpu_only },
	{ check_gemm_sizes, cpu_only },
};
#define N_CHECKS (int)(sizeof(check_table) / sizeof(check_table[0]))

int checks_count(const struct device *dev)
{
	int n = N_PROP_CASES;

	for (int i = 0; i < N_CHECKS; i++)
		n += check_table[i].applies(dev);
	return n;
}

void checks_run_device(struct report *r, const struct device *dev,
		       const struct agent_opts *o)
{
	char label[16];
	struct check_ctx c = { r, dev, device_label(dev, label, sizeof(label)), o };

	for (int i = 0; i < N_PROP_CASES; i++)
		check_props(&c, &prop_cases[i]);
	for (int i = 0; i < N_CHECKS; i++)
		if (check_table[i].applies(dev))
			check_table[i].run(&c);
}
