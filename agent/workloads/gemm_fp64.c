/*
 * The operand loops of GEMM verification (see gemm_fp64.h).
 */
#include "workloads/gemm_fp64.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

int64_t gemm_count_nonfinite(enum bf_dtype dt, const void *buf, size_t count)
{
	int64_t bad = 0;

	switch (dt) {
	case BF_DTYPE_FP32:
	case BF_DTYPE_TF32: {
		const uint32_t *u = buf;

		/* Not finite: exponent all ones (inf or NaN). */
		for (size_t i = 0; i < count; i++)
			bad += (u[i] & 0x7f800000u) == 0x7f800000u;
		break;
	}
	case BF_DTYPE_FP16: {
		const uint16_t *h = buf;

		/* Exponent 0x1f: inf or NaN, which bf_fp16_to_fp32 maps to
		 * inf or NaN; every other fp16 value is finite in fp32. */
		for (size_t i = 0; i < count; i++)
			bad += (h[i] & 0x7c00u) == 0x7c00u;
		break;
	}
	case BF_DTYPE_BF16: {
		const uint16_t *h = buf;

		/* bf16 is fp32's upper half: the same exponent field. */
		for (size_t i = 0; i < count; i++)
			bad += (h[i] & 0x7f80u) == 0x7f80u;
		break;
	}
	case BF_DTYPE_FP64: {
		const double *d = buf;

		for (size_t i = 0; i < count; i++)
			bad += !isfinite(d[i]);
		break;
	}
	default:
		break;
	}
	return bad;
}

/* Elements [0, count) of src (dtype dt), each at dst[i * stride], as
 * doubles. */
static void load_strided(enum bf_dtype dt, const void *src, size_t first,
			 size_t step, size_t count, double *dst, size_t stride)
{
	for (size_t i = 0; i < count; i++)
		dst[i * stride] = bf_dtype_load(dt, src, first + i * step);
}

void gemm_sample_reference(enum bf_dtype dt, const void *a, const void *b,
			   int n, const int *rows, int nr, const int *cols,
			   int nc, double *ref, double *mag)
{
	size_t nn = (size_t)n, w = (size_t)nc;
	/* bc[k * nc + ci] = b[k][cols[ci]]: B's sampled columns, k-major, so
	 * that the k loop below reads them in order; arow: A's row i. */
	double *bc = bf_xmalloc(nn * w * sizeof(double) + 1);
	double *arow = bf_xmalloc(nn * sizeof(double) + 1);

	for (int ci = 0; ci < nc; ci++)
		load_strided(dt, b, (size_t)cols[ci], nn, nn, bc + ci, w);
	for (int ri = 0; ri < nr; ri++) {
		double *r = ref + (size_t)ri * w, *m = mag + (size_t)ri * w;

		load_strided(dt, a, (size_t)rows[ri] * nn, 1, nn, arow, 1);
		memset(r, 0, w * sizeof(double));
		memset(m, 0, w * sizeof(double));
		/* For every (i, j) the sum runs over k in order, as the scalar
		 * loop's did; only the loop over j is inside. */
		for (size_t k = 0; k < nn; k++) {
			const double av = arow[k], *bk = bc + k * w;

			for (size_t ci = 0; ci < w; ci++) {
				double p = av * bk[ci];

				r[ci] += p;
				m[ci] += fabs(p);
			}
		}
	}
	free(arow);
	free(bc);
}
