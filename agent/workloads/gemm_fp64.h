/*
 * The two loops of GEMM verification (gemm.c, gemm_verify) that touch
 * every operand: the non-finite scan of C and the float64 reference of
 * the sampled elements. They compute what the element-by-element loops
 * compute, in the same order, without a call per element and with B's
 * sampled columns gathered once, so that verification stays small beside
 * the GEMM it checks (at n = 4096 the element loops took 0.13 s of CPU per
 * verification, two per gemm record, against 0.7 s for the GEMM itself
 * on 2 cores).
 */
#ifndef BF_GEMM_FP64_H
#define BF_GEMM_FP64_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

/* Elements of buf (count elements of dtype dt: fp32, tf32 (stored as
 * fp32), fp16, bf16, fp64) that are not finite, as isfinite() of each
 * element's value (bf_dtype_load) would count them. Another dtype counts
 * 0. */
int64_t gemm_count_nonfinite(enum bf_dtype dt, const void *buf,
			     size_t count);

/*
 * For C = A B with A and B row-major n x n of dtype dt (as
 * bf_dtype_load reads them), and the sampled rows rows[0..nr) and
 * columns cols[0..nc) (indices in [0, n)):
 *
 *   ref[ri * nc + ci] = sum_k a[i][k] b[k][j]
 *   mag[ri * nc + ci] = sum_k |a[i][k] b[k][j]|
 *
 * with i = rows[ri], j = cols[ci], each product and sum in float64 and
 * summed over k = 0 .. n-1 in that order (the reference of Higham 2002,
 * 3.5, and the magnitude its bound scales with). ref and mag hold nr x nc
 * doubles, written by the call. Needs (n + 1) x nc doubles of scratch,
 * allocated here (bf_xmalloc: exits on out of memory).
 */
void gemm_sample_reference(enum bf_dtype dt, const void *a, const void *b,
			   int n, const int *rows, int nr, const int *cols,
			   int nc, double *ref, double *mag);

#endif
