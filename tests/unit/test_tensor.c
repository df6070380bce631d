/*
 * Unit tests for agent/checks/tensor.c on the CPU backend: element counts and
 * byte sizes of the seed's tensors, row-major strides, contiguity, NumPy
 * broadcasting (shapes, stride-0 views, errors), add/matmul/relu, and the
 * device-mismatch error. The CUDA operand in the mismatch test is a
 * struct built by hand: the mismatch must be detected before any backend
 * is called, so its data pointer is never touched (with ASan, a call that
 * did touch it would crash the test).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "checks/tensor.h"

static const struct device cpu = { DEVICE_CPU, 0 };

static struct tensor *make(int rank, const int64_t *shape,
			   const double *values)
{
	struct tensor *t = NULL;
	char detail[256] = "";
	enum bf_err err;

	if (values)
		err = tensor_from_values(&cpu, BF_DTYPE_FP32, rank, shape,
					 values, &t, detail, sizeof(detail));
	else
		err = tensor_zeros(&cpu, BF_DTYPE_FP32, rank, shape, &t, detail,
				   sizeof(detail));
	if (err != BF_OK)
		fail_msg("tensor creation failed: %s", detail);
	return t;
}

/* A tensor header for metadata-only tests (no storage). */
static struct tensor header(enum bf_dtype dt, int rank, const int64_t *shape)
{
	struct tensor t;

	memset(&t, 0, sizeof(t));
	t.dtype = dt;
	t.rank = rank;
	if (rank > 0)
		memcpy(t.shape, shape, (size_t)rank * sizeof(*shape));
	tensor_contiguous_strides(rank, shape, t.strides);
	t.device = cpu;
	return t;
}

static void test_numel_nbytes_seed_table(void **state)
{
	/* shared/docs/seed-facts.md, "Tensor properties". */
	static const struct {
		enum bf_dtype dt;
		int rank;
		int64_t shape[4];
		int64_t numel, nbytes;
	} rows[] = {
		{ BF_DTYPE_FP32, 0, { 0 }, 1, 4 },
		{ BF_DTYPE_FP32, 1, { 3 }, 3, 12 },
		{ BF_DTYPE_FP32, 2, { 2, 3 }, 6, 24 },
		{ BF_DTYPE_FP32, 3, { 2, 3, 4 }, 24, 96 },
		{ BF_DTYPE_FP32, 2, { 1024, 1024 }, 1048576, 4194304 },
		{ BF_DTYPE_FP16, 2, { 1024, 1024 }, 1048576, 2097152 },
		{ BF_DTYPE_BF16, 2, { 1024, 1024 }, 1048576, 2097152 },
		{ BF_DTYPE_FP32, 4, { 32, 3, 224, 224 }, 4816896, 19267584 },
		{ BF_DTYPE_BF16, 4, { 32, 3, 224, 224 }, 4816896, 9633792 },
		{ BF_DTYPE_INT64, 1, { 5 }, 5, 40 },
		{ BF_DTYPE_INT8, 1, { 5 }, 5, 5 },
		{ BF_DTYPE_FP32, 2, { 0, 7 }, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tensor t = header(rows[i].dt, rows[i].rank, rows[i].shape);

		assert_int_equal(tensor_numel(&t), rows[i].numel);
		assert_int_equal(tensor_nbytes(&t), rows[i].nbytes);
	}
}

static void test_strides(void **state)
{
	static const int64_t img[] = { 32, 3, 224, 224 };
	static const int64_t want[] = { 150528, 50176, 224, 1 };
	static const int64_t s234[] = { 2, 3, 4 };
	int64_t st[4];

	tensor_contiguous_strides(4, img, st);
	assert_memory_equal(st, want, sizeof(want));
	tensor_contiguous_strides(3, s234, st);
	assert_int_equal(st[0], 12);
	assert_int_equal(st[1], 4);
	assert_int_equal(st[2], 1);
}

static void test_contiguity(void **state)
{
	static const int64_t s23[] = { 2, 3 }, s13[] = { 1, 3 };
	struct tensor t = header(BF_DTYPE_FP32, 2, s23);

	assert_true(tensor_is_contiguous(&t));
	t.strides[0] = 1; /* a transpose's strides */
	t.strides[1] = 2;
	assert_false(tensor_is_contiguous(&t));
	t.strides[0] = 0; /* an expanded view */
	t.strides[1] = 1;
	assert_false(tensor_is_contiguous(&t));
	/* The stride of a size-1 dimension never matters. */
	t = header(BF_DTYPE_FP32, 2, s13);
	t.strides[0] = 12345;
	assert_true(tensor_is_contiguous(&t));
	t = header(BF_DTYPE_FP32, 0, NULL);
	assert_true(tensor_is_contiguous(&t));
}

static void test_zeros_and_values(void **state)
{
	static const int64_t s23[] = { 2, 3 };
	static const double v[] = { 1, -2, 3.5, 4, 0.1, 6 };
	struct tensor *z = make(2, s23, NULL), *t = make(2, s23, v);
	double got[6];
	char detail[128];

	assert_int_equal(tensor_values(z, got, detail, sizeof(detail)), BF_OK);
	for (int i = 0; i < 6; i++)
		assert_true(got[i] == 0.0);
	assert_int_equal(tensor_values(t, got, detail, sizeof(detail)), BF_OK);
	for (int i = 0; i < 6; i++)
		assert_true(got[i] == (double)(float)v[i]); /* stored as fp32 */
	assert_true(t->owns_data);
	assert_int_equal(t->device.kind, DEVICE_CPU);
	tensor_free(z);
	tensor_free(t);
	tensor_free(NULL);
}

static void test_bad_shapes(void **state)
{
	static const int64_t neg[] = { 2, -1 };
	static const int64_t nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct tensor *t = (struct tensor *)&t; /* must be reset to NULL */
	char detail[128] = "";

	assert_int_equal(tensor_zeros(&cpu, BF_DTYPE_FP32, 2, neg, &t, detail,
				      sizeof(detail)),
			 BF_ERR_USAGE);
	assert_null(t);
	assert_non_null(strstr(detail, "negative"));
	assert_int_equal(tensor_zeros(&cpu, BF_DTYPE_FP32, 9, nine, &t, detail,
				      sizeof(detail)),
			 BF_ERR_USAGE);
	assert_null(t);
	assert_non_null(strstr(detail, "rank 9"));
}

static void test_expand_views(void **state)
{
	static const int64_t s3[] = { 3 }, s23[] = { 2, 3 }, s21[] = { 2, 1 };
	static const int64_t s24[] = { 2, 4 }, s22[] = { 2, 2 };
	static const double row[] = { 1, 2, 3 }, col[] = { 10, 20 };
	struct tensor *r = make(1, s3, row), *c = make(2, s21, col), *v = NULL;
	struct tensor *s = make(0, NULL, (const double[]){ 5 });
	char detail[128] = "";

	/* (3,) -> (2, 3): the new leading dim has stride 0, the data is
	 * shared, and the view does not own it. */
	assert_int_equal(tensor_expand(r, 2, s23, &v, detail, sizeof(detail)),
			 BF_OK);
	assert_int_equal(v->rank, 2);
	assert_int_equal(v->shape[0], 2);
	assert_int_equal(v->shape[1], 3);
	assert_int_equal(v->strides[0], 0);
	assert_int_equal(v->strides[1], 1);
	assert_ptr_equal(v->data, r->data);
	assert_false(v->owns_data);
	assert_false(tensor_is_contiguous(v));
	tensor_free(v);

	/* (2, 1) -> (2, 3): the stretched size-1 dim gets stride 0. */
	assert_int_equal(tensor_expand(c, 2, s23, &v, detail, sizeof(detail)),
			 BF_OK);
	assert_int_equal(v->strides[0], 1);
	assert_int_equal(v->strides[1], 0);
	tensor_free(v);

	/* A scalar expands to anything with all strides 0. */
	assert_int_equal(tensor_expand(s, 2, s22, &v, detail, sizeof(detail)),
			 BF_OK);
	assert_int_equal(v->strides[0], 0);
	assert_int_equal(v->strides[1], 0);
	tensor_free(v);

	/* 3 cannot stretch to 4; a view cannot lose dimensions. */
	v = (struct tensor *)&v;
	assert_int_equal(tensor_expand(r, 2, s24, &v, detail, sizeof(detail)),
			 BF_ERR_SHAPE);
	assert_null(v);
	assert_string_equal(detail, "cannot broadcast (3,) to (2, 4)");
	assert_int_equal(tensor_expand(c, 1, s3, &v, detail, sizeof(detail)),
			 BF_ERR_SHAPE);
	assert_null(v);
	tensor_free(s);
	tensor_free(c);
	tensor_free(r);
}

/* a + b on the CPU, checked element by element against the broadcast
 * sum computed here with explicit index arithmetic. */
static void check_add(int ra, const int64_t *sa, int rb, const int64_t *sb,
		      int rw, const int64_t *want_shape)
{
	struct tensor *a, *b, *out = NULL;
	double va[64], vb[64], got[64];
	char detail[256] = "";
	int64_t n_out = 1, ia[8], ib[8], sta[8], stb[8];
	int64_t na = 1, nb = 1;

	for (int d = 0; d < ra; d++)
		na *= sa[d];
	for (int d = 0; d < rb; d++)
		nb *= sb[d];
	for (int64_t i = 0; i < na; i++)
		va[i] = (double)(i + 1);
	for (int64_t i = 0; i < nb; i++)
		vb[i] = (double)(100 * (i + 1));
	a = make(ra, sa, va);
	b = make(rb, sb, vb);
	if (tensor_add(a, b, &out, detail, sizeof(detail)) != BF_OK)
		fail_msg("add failed: %s", detail);
	assert_int_equal(out->rank, rw);
	for (int d = 0; d < rw; d++) {
		assert_int_equal(out->shape[d], want_shape[d]);
		n_out *= want_shape[d];
	}
	assert_true(tensor_is_contiguous(out));
	assert_int_equal(tensor_values(out, got, detail, sizeof(detail)), BF_OK);
	tensor_contiguous_strides(ra, sa, sta);
	tensor_contiguous_strides(rb, sb, stb);
	for (int64_t i = 0; i < n_out; i++) {
		int64_t rem = i, oa = 0, ob = 0;

		/* Unravel i over the output shape, then map each output
		 * index to the operands (index 0 where they have size 1). */
		for (int d = rw - 1; d >= 0; d--) {
			int64_t idx = rem % want_shape[d];
			int da = d - (rw - ra), db = d - (rw - rb);

			rem /= want_shape[d];
			if (da >= 0)
				ia[da] = sa[da] == 1 ? 0 : idx;
			if (db >= 0)
				ib[db] = sb[db] == 1 ? 0 : idx;
		}
		for (int d = 0; d < ra; d++)
			oa += ia[d] * sta[d];
		for (int d = 0; d < rb; d++)
			ob += ib[d] * stb[d];
		if (got[i] != va[oa] + vb[ob])
			fail_msg("element %lld: got %g, want %g", (long long)i,
				 got[i], va[oa] + vb[ob]);
	}
	tensor_free(out);
	tensor_free(b);
	tensor_free(a);
}

static void test_add_broadcasting(void **state)
{
	static const int64_t s3[] = { 3 }, s23[] = { 2, 3 }, s21[] = { 2, 1 };
	static const int64_t s13[] = { 1, 3 }, s214[] = { 2, 1, 4 };
	static const int64_t s31[] = { 3, 1 }, s234[] = { 2, 3, 4 };
	static const int64_t s64_16[] = { 4, 16 }, s16[] = { 16 };

	check_add(1, s3, 1, s3, 1, s3);           /* element-wise */
	check_add(2, s23, 1, s3, 2, s23);         /* row over rows */
	check_add(1, s3, 2, s23, 2, s23);         /* same, mirrored */
	check_add(2, s21, 2, s13, 2, s23);        /* outer sum */
	check_add(3, s214, 2, s31, 3, s234);      /* rank 3 with rank 2 */
	check_add(0, NULL, 2, s23, 2, s23);       /* scalar */
	check_add(2, s64_16, 1, s16, 2, s64_16);  /* bias over a batch */
}

static void test_add_seed_example(void **state)
{
	/* ones(2,3) + [1,2,3] = [[2,3,4],[2,3,4]] (seed facts). */
	static const int64_t s23[] = { 2, 3 }, s3[] = { 3 };
	static const double ones[] = { 1, 1, 1, 1, 1, 1 }, row[] = { 1, 2, 3 };
	static const double want[] = { 2, 3, 4, 2, 3, 4 };
	struct tensor *a = make(2, s23, ones), *b = make(1, s3, row), *o = NULL;
	double got[6];
	char detail[128];

	assert_int_equal(tensor_add(a, b, &o, detail, sizeof(detail)), BF_OK);
	assert_int_equal(tensor_values(o, got, detail, sizeof(detail)), BF_OK);
	assert_memory_equal(got, want, sizeof(want));
	tensor_free(o);
	tensor_free(b);
	tensor_free(a);
}

static void test_add_shape_errors(void **state)
{
	static const int64_t s23[] = { 2, 3 }, s4[] = { 4 }, s32[] = { 3, 2 };
	struct tensor *a = make(2, s23, NULL), *b = make(1, s4, NULL);
	struct tensor *c = make(2, s32, NULL), *o = (struct tensor *)&o;
	char detail[256] = "";

	assert_int_equal(tensor_add(a, b, &o, detail, sizeof(detail)),
			 BF_ERR_SHAPE);
	assert_null(o);
	assert_string_equal(detail, "shapes (2, 3) and (4,) do not broadcast");
	assert_int_equal(tensor_add(a, c, &o, detail, sizeof(detail)),
			 BF_ERR_SHAPE);
	assert_null(o);
	tensor_free(c);
	tensor_free(b);
	tensor_free(a);
}

static void test_device_mismatch(void **state)
{
	static const int64_t s3[] = { 3 };
	static const double v[] = { 1, 2, 3 };
	struct tensor *a = make(1, s3, v), *o = (struct tensor *)&o;
	struct tensor on_gpu = *a, on_gpu1;
	char detail[256] = "";

	/* A tensor that claims to live on cuda:0. Its data pointer is
	 * deliberately invalid: no backend may be reached. */
	on_gpu.device = (struct device){ DEVICE_CUDA, 0 };
	on_gpu.data = (void *)(uintptr_t)0x10;
	on_gpu.owns_data = 0;
	assert_int_equal(tensor_add(a, &on_gpu, &o, detail, sizeof(detail)),
			 BF_ERR_DEVICE_MISMATCH);
	assert_null(o);
	assert_string_equal(detail, "add: operands on cpu and cuda:0");
	assert_int_equal(tensor_add(&on_gpu, a, &o, detail, sizeof(detail)),
			 BF_ERR_DEVICE_MISMATCH);
	assert_string_equal(detail, "add: operands on cuda:0 and cpu");
	/* Same kind, different index. */
	on_gpu1 = on_gpu;
	on_gpu1.device.index = 1;
	assert_int_equal(tensor_add(&on_gpu, &on_gpu1, &o, detail,
				    sizeof(detail)),
			 BF_ERR_DEVICE_MISMATCH);
	assert_int_equal(tensor_matmul(a, &on_gpu, &o, detail, sizeof(detail)),
			 BF_ERR_DEVICE_MISMATCH);
	assert_null(o);
	assert_string_equal(bf_err_str(BF_ERR_DEVICE_MISMATCH),
			    "tensors are on different devices");
	tensor_free(a);
}

static void test_non_fp32_arithmetic(void **state)
{
	static const int64_t s3[] = { 3 };
	struct tensor *h = NULL, *o = NULL;
	char detail[128] = "";

	assert_int_equal(tensor_zeros(&cpu, BF_DTYPE_FP16, 1, s3, &h, detail,
				      sizeof(detail)),
			 BF_OK);
	assert_int_equal(tensor_add(h, h, &o, detail, sizeof(detail)),
			 BF_ERR_UNSUPPORTED);
	assert_null(o);
	tensor_free(h);
}

static void test_matmul_relu(void **state)
{
	/* [[1,-2,3],[4,5,-6]] @ [[1,0],[0,1],[1,-1]] = [[4,-5],[-2,11]];
	 * relu -> [[4,0],[0,11]]. */
	static const int64_t s23[] = { 2, 3 }, s32[] = { 3, 2 }, s22[] = { 2, 2 };
	static const double a[] = { 1, -2, 3, 4, 5, -6 };
	static const double b[] = { 1, 0, 0, 1, 1, -1 };
	static const double want[] = { 4, -5, -2, 11 };
	static const double want_relu[] = { 4, 0, 0, 11 };
	struct tensor *ta = make(2, s23, a), *tb = make(2, s32, b), *o = NULL;
	double got[4];
	char detail[256] = "";

	assert_int_equal(tensor_matmul(ta, tb, &o, detail, sizeof(detail)),
			 BF_OK);
	assert_int_equal(o->rank, 2);
	assert_memory_equal(o->shape, s22, sizeof(s22));
	assert_int_equal(tensor_values(o, got, detail, sizeof(detail)), BF_OK);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(tensor_relu_(o, detail, sizeof(detail)), BF_OK);
	assert_int_equal(tensor_values(o, got, detail, sizeof(detail)), BF_OK);
	assert_memory_equal(got, want_relu, sizeof(want_relu));
	tensor_free(o);
	o = (struct tensor *)&o;
	/* (2,3) @ (2,3): inner dimensions differ. */
	assert_int_equal(tensor_matmul(ta, ta, &o, detail, sizeof(detail)),
			 BF_ERR_SHAPE);
	assert_null(o);
	assert_string_equal(detail, "matmul: (2, 3) @ (2, 3) is not (m,k) @ (k,n)");
	tensor_free(tb);
	tensor_free(ta);
}

static void test_relu_keeps_nan(void **state)
{
	/* relu is max(x, 0) for numbers; a NaN stays NaN (as torch.relu
	 * keeps it) so that an upstream error is not hidden as a zero. */
	static const int64_t s6[] = { 6 };
	const double in[] = { NAN, -1, -0.0, 2, -INFINITY, INFINITY };
	struct tensor *t = make(1, s6, in);
	double got[6];
	char detail[256] = "";

	assert_int_equal(tensor_relu_(t, detail, sizeof(detail)), BF_OK);
	assert_int_equal(tensor_values(t, got, detail, sizeof(detail)), BF_OK);
	assert_true(isnan(got[0]));
	assert_true(got[1] == 0 && got[2] == 0 && got[3] == 2);
	assert_true(got[4] == 0 && isinf(got[5]) && got[5] > 0);
	tensor_free(t);
}

static void test_to_device_and_shape_str(void **state)
{
	static const int64_t s3[] = { 3 }, img[] = { 32, 3, 224, 224 };
	static const double v[] = { 1, 2, 3 };
	struct tensor *a = make(1, s3, v), *b = NULL;
	double got[3];
	char detail[128], buf[64];

	assert_int_equal(tensor_to(a, &cpu, &b, detail, sizeof(detail)), BF_OK);
	assert_ptr_not_equal(a->data, b->data); /* a copy */
	assert_int_equal(tensor_values(b, got, detail, sizeof(detail)), BF_OK);
	assert_memory_equal(got, v, sizeof(v));
	tensor_free(b);
	tensor_free(a);

	assert_string_equal(tensor_shape_str(0, NULL, buf, sizeof(buf)), "()");
	assert_string_equal(tensor_shape_str(1, s3, buf, sizeof(buf)), "(3,)");
	assert_string_equal(tensor_shape_str(4, img, buf, sizeof(buf)),
			    "(32, 3, 224, 224)");
	/* Truncation stays within the buffer and NUL-terminated. */
	assert_int_equal(strlen(tensor_shape_str(4, img, buf, 8)), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numel_nbytes_seed_table),
		cmocka_unit_test(test_strides),
		cmocka_unit_test(test_contiguity),
		cmocka_unit_test(test_zeros_and_values),
		cmocka_unit_test(test_bad_shapes),
		cmocka_unit_test(test_expand_views),
		cmocka_unit_test(test_add_broadcasting),
		cmocka_unit_test(test_add_seed_example),
		cmocka_unit_test(test_add_shape_errors),
		cmocka_unit_test(test_device_mismatch),
		cmocka_unit_test(test_non_fp32_arithmetic),
		cmocka_unit_test(test_matmul_relu),
		cmocka_unit_test(test_relu_keeps_nan),
		cmocka_unit_test(test_to_device_and_shape_str),
	};

	return cmocka_run_group_tests_name("tensor", tests, NULL, NULL);
}
