/*
 * A small tensor type: dtype, rank, shape, strides, device, data. It is
 * what the tensor checks exercise, and it mirrors the semantics a PyTorch
 * user expects (row-major contiguous strides, NumPy broadcasting, an error
 * for operands on different devices), computed on the tensor's own device
 * through its backend.
 *
 * Shapes and strides are in elements; strides of a broadcast dimension are
 * 0. Arithmetic (add, relu, matmul) is defined for fp32; any dtype can be
 * allocated, copied and inspected.
 */
#ifndef BF_TENSOR_H
#define BF_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "bf_error.h"
#include "dtype.h"

#define TENSOR_MAX_RANK 8

/* The dtype of a tensor made without naming one, as in PyTorch
 * (torch.zeros(2, 3).dtype is torch.float32; seed-facts.md, "Default
 * floating dtype is fp32"). */
#define TENSOR_DEFAULT_DTYPE BF_DTYPE_FP32

struct tensor {
	enum bf_dtype dtype;
	int rank;                         /* 0 for a scalar */
	int64_t shape[TENSOR_MAX_RANK];
	int64_t strides[TENSOR_MAX_RANK]; /* elements; 0 = broadcast */
	struct device device;
	void *data;       /* device memory of `device`'s backend */
	int owns_data;    /* 0 for views, which must not outlive their base */
};

/* Number of elements: the product of the shape (1 for rank 0). */
int64_t tensor_numel(const struct tensor *t);
/* Bytes of the elements as a contiguous tensor: numel * element bytes. */
int64_t tensor_nbytes(const struct tensor *t);
/* 1 when strides are the row-major contiguous ones for the shape. */
int tensor_is_contiguous(const struct tensor *t);
/* Row-major contiguous strides for shape (rank dims) into strides. */
void tensor_contiguous_strides(int rank, const int64_t *shape,
			       int64_t *strides);

/* A new zero-filled contiguous tensor on dev; *out caller frees with
 * tensor_free. BF_ERR_USAGE for rank > TENSOR_MAX_RANK or negative dims,
 * BF_ERR_UNSUPPORTED when dev's backend is absent, BF_ERR_NOMEM. */
enum bf_err tensor_zeros(const struct device *dev, enum bf_dtype dtype,
			 int rank, const int64_t *shape, struct tensor **out,
			 char *detail, size_t detail_len);

/* A new contiguous tensor on dev holding `values` (numel doubles, stored
 * in dtype with round-to-nearest-even); *out caller frees. */
enum bf_err tensor_from_values(const struct device *dev, enum bf_dtype dtype,
			       int rank, const int64_t *shape,
			       const double *values, struct tensor **out,
			       char *detail, size_t detail_len);

/* Copies the elements of a contiguous tensor to host doubles (numel
 * entries in `values`, caller-allocated). */
enum bf_err tensor_values(const struct tensor *t, double *values,
			  char *detail, size_t detail_len);

/* A contiguous copy of t on dev (another device, or the same); *out caller
 * frees. Crosses devices through host memory. */
enum bf_err tensor_to(const struct tensor *t, const struct device *dev,
		      struct tensor **out, char *detail, size_t detail_len);

/* A broadcast view of t with the given shape (NumPy rules: dims aligned on
 * the right, size-1 or missing dims stretched with stride 0). No data is
 * copied; *out caller frees, and must be freed before t. BF_ERR_SHAPE when
 * t cannot be broadcast to shape. */
enum bf_err tensor_expand(const struct tensor *t, int rank,
			  const int64_t *shape, struct tensor **out,
			  char *detail, size_t detail_len);

/* out = a + b with broadcasting, fp32, computed on the operands' device.
 * BF_ERR_DEVICE_MISMATCH when a and b live on different devices,
 * BF_ERR_SHAPE when the shapes do not broadcast, BF_ERR_UNSUPPORTED for
 * non-fp32. *out caller frees. */
enum bf_err tensor_add(const struct tensor *a, const struct tensor *b,
		       struct tensor **out, char *detail, size_t detail_len);

/* out = a @ b for 2-D contiguous fp32 (m,k) @ (k,n) -> (m,n), on the
 * operands' device. Errors as tensor_add. *out caller frees. */
enum bf_err tensor_matmul(const struct tensor *a, const struct tensor *b,
			  struct tensor **out, char *detail, size_t detail_len);

/* max(x, 0) in place, fp32 contiguous. */
enum bf_err tensor_relu_(struct tensor *t, char *detail, size_t detail_len);

/* Frees t and, when it owns it, its data. NULL-safe. */
void tensor_free(struct tensor *t);

/* "(32, 3, 224, 224)", "(3,)" or "()" into buf; returns buf. */
char *tensor_shape_str(int rank, const int64_t *shape, char *buf, size_t len);

#endif
