/*
 * The tensor type; see tensor.h. Device work is delegated to the backend
 * of the tensor's device, so the same code path runs on CPU and GPU.
 */
#include "checks/tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

int64_t tensor_numel(const struct tensor *t)
{
	int64_t n = 1;

	for (int d = 0; d < t->rank; d++)
		n *= t->shape[d];
	return n;
}

int64_t tensor_nbytes(const struct tensor *t)
{
	return tensor_numel(t) * (int64_t)bf_dtype_element_bytes(t->dtype);
}

void tensor_contiguous_strides(int rank, const int64_t *shape,
			       int64_t *strides)
{
	int64_t s = 1;

	for (int d = rank - 1; d >= 0; d--) {
		strides[d] = s;
		s *= shape[d];
	}
}

int tensor_is_contiguous(const struct tensor *t)
{
	int64_t want[TENSOR_MAX_RANK];

	tensor_contiguous_strides(t->rank, t->shape, want);
	for (int d = 0; d < t->rank; d++)
		if (t->shape[d] != 1 && t->strides[d] != want[d])
			return 0;
	return 1;
}

static const struct backend *backend_of(const struct device *dev, char *detail,
					size_t detail_len)
{
	const struct backend *be = backend_for(dev->kind);

	if (!be)
		bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			"%s: backend not built in",
			dev->kind == DEVICE_CUDA ? "cuda" : "cpu");
	return be;
}

static enum bf_err tensor_alloc(const struct device *dev, enum bf_dtype dtype,
				int rank, const int64_t *shape,
				struct tensor **out, char *detail,
				size_t detail_len)
{
	const struct backend *be;
	struct tensor *t;
	enum bf_err err;

	*out = NULL;
	if (rank < 0 || rank > TENSOR_MAX_RANK)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "rank %d: must be 0..%d", rank, TENSOR_MAX_RANK);
	for (int d = 0; d < rank; d++)
		if (shape[d] < 0)
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "shape: dimension %d is negative", d);
	be = backend_of(dev, detail, detail_len);
	if (!be)
		return BF_ERR_UNSUPPORTED;
	t = bf_xcalloc(1, sizeof(*t));
	t->dtype = dtype;
	t->rank = rank;
	t->device = *dev;
	if (rank > 0) /* a scalar's shape may be NULL: memcpy needs non-NULL */
		memcpy(t->shape, shape, (size_t)rank * sizeof(*shape));
	tensor_contiguous_strides(rank, shape, t->strides);
	err = be->alloc(dev->index, (size_t)tensor_nbytes(t), &t->data, detail,
			detail_len);
	if (err != BF_OK) {
		free(t);
		return err;
	}
	t->owns_data = 1;
	*out = t;
	return BF_OK;
}

enum bf_err tensor_zeros(const struct device *dev, enum bf_dtype dtype,
			 int rank, const int64_t *shape, struct tensor **out,
			 char *detail, size_t detail_len)
{
	enum bf_err err = tensor_alloc(dev, dtype, rank, shape, out, detail,
				       detail_len);

	if (err != BF_OK)
		return err;
	err = backend_for(dev->kind)->fill_zero(dev->index, (*out)->data,
						(size_t)tensor_nbytes(*out),
						detail, detail_len);
	if (err != BF_OK) {
		tensor_free(*out);
		*out = NULL;
	}
	return err;
}

enum bf_err tensor_from_values(const struct device *dev, enum bf_dtype dtype,
			       int rank, const int64_t *shape,
			       const double *values, struct tensor **out,
			       char *detail, size_t detail_len)
{
	enum bf_err err = tensor_alloc(dev, dtype, rank, shape, out, detail,
				       detail_len);
	int64_t n;
	void *host;

	if (err != BF_OK)
		return err;
	n = tensor_numel(*out);
	host = bf_xmalloc((size_t)tensor_nbytes(*out));
	for (int64_t i = 0; i < n; i++)
		bf_dtype_store(dtype, host, (size_t)i, values[i]);
	err = backend_for(dev->kind)->from_host(dev->index, (*out)->data, host,
						(size_t)tensor_nbytes(*out),
						detail, detail_len);
	free(host);
	if (err != BF_OK) {
		tensor_free(*out);
		*out = NULL;
	}
	return err;
}

enum bf_err tensor_values(const struct tensor *t, double *values, char *detail,
			  size_t detail_len)
{
	const struct backend *be = backend_of(&t->device, detail, detail_len);
	int64_t n = tensor_numel(t);
	enum bf_err err;
	void *host;

	if (!be)
		return BF_ERR_UNSUPPORTED;
	if (!tensor_is_contiguous(t))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "tensor_values: tensor is not contiguous");
	host = bf_xmalloc((size_t)tensor_nbytes(t));
	err = be->to_host(t->device.index, host, t->data,
			  (size_t)tensor_nbytes(t), detail, detail_len);
	if (err == BF_OK)
		for (int64_t i = 0; i < n; i++)
			values[i] = bf_dtype_load(t->dtype, host, (size_t)i);
	free(host);
	return err;
}

enum bf_err tensor_to(const struct tensor *t, const struct device *dev,
		      struct tensor **out, char *detail, size_t detail_len)
{
	const struct backend *src = backend_of(&t->device, detail, detail_len);
	size_t bytes = (size_t)tensor_nbytes(t);
	enum bf_err err;
	void *host;

	*out = NULL;
	if (!src)
		return BF_ERR_UNSUPPORTED;
	if (!tensor_is_contiguous(t))
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "tensor_to: tensor is not contiguous");
	err = tensor_alloc(dev, t->dtype, t->rank, t->shape, out, detail,
			   detail_len);
	if (err != BF_OK)
		return err;
	host = bf_xmalloc(bytes);
	err = src->to_host(t->device.index, host, t->data, bytes, detail,
			   detail_len);
	if (err == BF_OK)
		err = backend_for(dev->kind)->from_host(dev->index, (*out)->data,
							host, bytes, detail,
							detail_len);
	free(host);
	if (err != BF_OK) {
		tensor_free(*out);
		*out = NULL;
	}
	return err;
}

/* NumPy broadcasting: align on the right; each pair of dims must be equal
 * or one of them 1. Writes the result shape (rank = max rank). */
static enum bf_err broadcast_shape(const struct tensor *a,
				   const struct tensor *b, int *rank,
				   int64_t *shape, char *detail,
				   size_t detail_len)
{
	char sa[96], sb[96];

	*rank = a->rank > b->rank ? a->rank : b->rank;
	for (int d = 0; d < *rank; d++) {
		int da = a->rank - *rank + d, db = b->rank - *rank + d;
		int64_t xa = da >= 0 ? a->shape[da] : 1;
		int64_t xb = db >= 0 ? b->shape[db] : 1;

		if (xa != xb && xa != 1 && xb != 1)
			return bf_fail(detail, detail_len, BF_ERR_SHAPE,
				       "shapes %s and %s do not broadcast",
				       tensor_shape_str(a->rank, a->shape, sa,
							sizeof(sa)),
				       tensor_shape_str(b->rank, b->shape, sb,
							sizeof(sb)));
		shape[d] = xa == 1 ? xb : xa;
	}
	return BF_OK;
}

enum bf_err tensor_expand(const struct tensor *t, int rank,
			  const int64_t *shape, struct tensor **out,
			  char *detail, size_t detail_len)
{
	struct tensor *v;
	char st[96], ss[96];

	*out = NULL;
	if (rank < t->rank || rank > TENSOR_MAX_RANK)
		goto bad;
	v = bf_xcalloc(1, sizeof(*v));
	*v = *t;
	v->rank = rank;
	v->owns_data = 0;
	for (int d = 0; d < rank; d++) {
		int dt = t->rank - rank + d;

		v->shape[d] = shape[d];
		if (dt < 0 || (t->shape[dt] == 1 && shape[d] != 1)) {
			v->strides[d] = 0; /* stretched: every index reads one element */
		} else if (t->shape[dt] == shape[d]) {
			v->strides[d] = t->strides[dt];
		} else {
			free(v);
			goto bad;
		}
	}
	*out = v;
	return BF_OK;
bad:
	return bf_fail(detail, detail_len, BF_ERR_SHAPE,
		       "cannot broadcast %s to %s",
		       tensor_shape_str(t->rank, t->shape, st, sizeof(st)),
		       tensor_shape_str(rank, shape, ss, sizeof(ss)));
}

static enum bf_err same_device_fp32(const struct tensor *a,
				    const struct tensor *b, const char *op,
				    char *detail, size_t detail_len)
{
	char la[16], lb[16];

	if (a->device.kind != b->device.kind ||
	    a->device.index != b->device.index)
		return bf_fail(detail, detail_len, BF_ERR_DEVICE_MISMATCH,
			       "%s: operands on %s and %s", op,
			       device_label(&a->device, la, sizeof(la)),
			       device_label(&b->device, lb, sizeof(lb)));
	if (a->dtype != BF_DTYPE_FP32 || b->dtype != BF_DTYPE_FP32)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: only fp32 arithmetic is implemented", op);
	return BF_OK;
}

enum bf_err tensor_add(const struct tensor *a, const struct tensor *b,
		       struct tensor **out, char *detail, size_t detail_len)
{
	int64_t shape[TENSOR_MAX_RANK];
	struct tensor *va = NULL, *vb = NULL;
	enum bf_err err;
	int rank;

	*out = NULL;
	err = same_device_fp32(a, b, "add", detail, detail_len);
	if (err == BF_OK)
		err = broadcast_shape(a, b, &rank, shape, detail, detail_len);
	if (err == BF_OK)
		err = tensor_expand(a, rank, shape, &va, detail, detail_len);
	if (err == BF_OK)
		err = tensor_expand(b, rank, shape, &vb, detail, detail_len);
	if (err == BF_OK)
		err = tensor_alloc(&a->device, BF_DTYPE_FP32, rank, shape, out,
				   detail, detail_len);
	if (err == BF_OK)
		err = backend_for(a->device.kind)->add_f32(
			a->device.index, rank, shape, va->data, va->strides,
			vb->data, vb->strides, (*out)->data, detail,
			detail_len);
	if (err != BF_OK) {
		tensor_free(*out);
		*out = NULL;
	}
	tensor_free(va);
	tensor_free(vb);
	return err;
}

enum bf_err tensor_matmul(const struct tensor *a, const struct tensor *b,
			  struct tensor **out, char *detail, size_t detail_len)
{
	char sa[96], sb[96];
	int64_t shape[2];
	enum bf_err err;

	*out = NULL;
	err = same_device_fp32(a, b, "matmul", detail, detail_len);
	if (err != BF_OK)
		return err;
	if (a->rank != 2 || b->rank != 2 || a->shape[1] != b->shape[0] ||
	    !tensor_is_contiguous(a) || !tensor_is_contiguous(b))
		return bf_fail(detail, detail_len, BF_ERR_SHAPE,
			       "matmul: %s @ %s is not (m,k) @ (k,n)",
			       tensor_shape_str(a->rank, a->shape, sa,
						sizeof(sa)),
			       tensor_shape_str(b->rank, b->shape, sb,
						sizeof(sb)));
	shape[0] = a->shape[0];
	shape[1] = b->shape[1];
	err = tensor_alloc(&a->device, BF_DTYPE_FP32, 2, shape, out, detail,
			   detail_len);
	if (err == BF_OK)
		err = backend_for(a->device.kind)->matmul_f32(
			a->device.index, (int)a->shape[0], (int)a->shape[1],
			(int)b->shape[1], a->data, b->data, (*out)->data,
			detail, detail_len);
	if (err != BF_OK) {
		tensor_free(*out);
		*out = NULL;
	}
	return err;
}

enum bf_err tensor_relu_(struct tensor *t, char *detail, size_t detail_len)
{
	if (t->dtype != BF_DTYPE_FP32 || !tensor_is_contiguous(t))
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "relu: needs a contiguous fp32 tensor");
	return backend_for(t->device.kind)->relu_f32(
		t->device.index, t->data, (size_t)tensor_numel(t), detail,
		detail_len);
}

void tensor_free(struct tensor *t)
{
	if (!t)
		return;
	if (t->owns_data)
		backend_for(t->device.kind)->release(t->device.index, t->data);
	free(t);
}

char *tensor_shape_str(int rank, const int64_t *shape, char *buf, size_t len)
{
	size_t off = 0;

	off += (size_t)snprintf(buf, len, "(");
	for (int d = 0; d < rank && off < len; d++)
		off += (size_t)snprintf(buf + off, len - off, "%s%lld",
					d ? ", " : "", (long long)shape[d]);
	if (off < len)
		snprintf(buf + off, len - off, rank == 1 ? ",)" : ")");
	return buf;
}
