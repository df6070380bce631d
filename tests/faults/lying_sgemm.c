/*
 * Fault injection for the agent's GEMM verification: an LD_PRELOAD shim
 * that replaces OpenBLAS's cblas_sgemm with a wrong one, chosen by the
 * BF_FAULT environment variable. Every mode is a way a real library (or a
 * benchmark harness) has been wrong; tests/faults/test_faults.py proves
 * the agent fails each one instead of reporting a speed.
 *
 *   once       computes on the first call only, then returns at once (an
 *              sgemm that "passed at 559,240 GFLOP/s on 2 cores")
 *   drop       leaves out the last product of every dot product (K - 1)
 *   transpose  computes A B^T instead of A B
 *   fp16acc    accumulates in fp16 (every partial sum rounded to fp16)
 *   cached     computes on the first call, then copies that C back (a
 *              correct result at an impossible speed)
 *   off_call   wrong (C scaled by 1 + 1e-3) on call BF_FAULT_CALL only
 *              (default 2: the first timed call after one warm-up)
 *
 * Anything else, or no BF_FAULT, calls the real cblas_sgemm unchanged.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

typedef void (*sgemm_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,
			 const enum CBLAS_TRANSPOSE, const blasint,
			 const blasint, const blasint, const float,
			 const float *, const blasint, const float *,
			 const blasint, const float, float *, const blasint);

static int calls;

void cblas_sgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta,
		 const enum CBLAS_TRANSPOSE tb, const blasint m,
		 const blasint n, const blasint k, const float alpha,
		 const float *a, const blasint lda, const float *b,
		 const blasint ldb, const float beta, float *c,
		 const blasint ldc)
{
	sgemm_fn real = (sgemm_fn)dlsym(RTLD_NEXT, "cblas_sgemm");
	const char *mode = getenv("BF_FAULT");

	calls++;
	if (!mode)
		mode = "";
	if (strcmp(mode, "once") == 0 && calls > 1)
		return;
	if (strcmp(mode, "cached") == 0 && order == CblasRowMajor &&
	    ldc == n) {
		static float *saved;
		static size_t saved_len;
		size_t len = (size_t)m * (size_t)n;

		if (saved && saved_len == len) {
			memcpy(c, saved, len * sizeof(float));
			return;
		}
		real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c,
		     ldc);
		free(saved);
		saved = malloc(len * sizeof(float));
		if (saved) {
			memcpy(saved, c, len * sizeof(float));
			saved_len = len;
		}
		return;
	}
	if (strcmp(mode, "drop") == 0 && k > 1) {
		real(order, ta, tb, m, n, k - 1, alpha, a, lda, b, ldb, beta,
		     c, ldc);
		return;
	}
	if (strcmp(mode, "transpose") == 0 && m == n && n == k) {
		real(order, ta, tb == CblasNoTrans ? CblasTrans : CblasNoTrans,
		     m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
		return;
	}
	if (strcmp(mode, "fp16acc") == 0 && order == CblasRowMajor &&
	    ta == CblasNoTrans && tb == CblasNoTrans) {
		for (blasint i = 0; i < m; i++)
			for (blasint j = 0; j < n; j++) {
				float s = 0;

				for (blasint p = 0; p < k; p++)
					s = (float)(_Float16)(s + a[i * lda + p] *
								  b[p * ldb + j]);
				c[i * ldc + j] = alpha * s +
						 (beta != 0 ? beta * c[i * ldc + j] : 0);
			}
		return;
	}
	real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
	if (strcmp(mode, "off_call") == 0 &&
	    calls == (getenv("BF_FAULT_CALL") ?
			      strtol(getenv("BF_FAULT_CALL"), NULL, 10) : 2))
		for (blasint i = 0; i < m; i++)
			for (blasint j = 0; j < n; j++)
				c[i * ldc + j] *= 1.001f;
}
