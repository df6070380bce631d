/*
 * A slow but correct cblas_sgemm for ctl history's tests: an LD_PRELOAD
 * shim that calls OpenBLAS's own sgemm and then sleeps BF_SLOW_MS
 * milliseconds (a compile-time constant: one shim per delay, so that the
 * delay shows in the host record's env.LD_PRELOAD, the provenance ctl
 * history names). With the sleep far longer than a small GEMM, a run's
 * times hardly depend on how loaded the machine is: ten runs with one
 * shim have no change point, and switching shims is a real step.
 */
#include <dlfcn.h>
#include <errno.h>
#include <time.h>

#include <cblas.h>

#ifndef BF_SLOW_MS
#define BF_SLOW_MS 50
#endif

typedef void (*sgemm_fn)(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,
			 const enum CBLAS_TRANSPOSE, const blasint,
			 const blasint, const blasint, const float,
			 const float *, const blasint, const float *,
			 const blasint, const float, float *, const blasint);

void cblas_sgemm(const enum CBLAS_ORDER order, const enum CBLAS_TRANSPOSE ta,
		 const enum CBLAS_TRANSPOSE tb, const blasint m,
		 const blasint n, const blasint k, const float alpha,
		 const float *a, const blasint lda, const float *b,
		 const blasint ldb, const float beta, float *c,
		 const blasint ldc)
{
	sgemm_fn real = (sgemm_fn)dlsym(RTLD_NEXT, "cblas_sgemm");
	struct timespec ts = { BF_SLOW_MS / 1000,
			       (BF_SLOW_MS % 1000) * 1000000L };

	real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
