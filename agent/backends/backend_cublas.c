/*
 * GPU backend: tensors in device memory (cudaMalloc), element-wise work in
 * kernels_cuda.cu, GEMM in cuBLAS (cublasGemmEx), timed with CUDA events
 * after warm-up and synchronised in every timed iteration. The protocol
 * follows cuda-samples' matrixMulCUBLAS: warm up, time on the device,
 * verify outside the timed region.
 *
 * CUDA and cuBLAS status codes are translated to enum bf_err here and
 * never leave this file; their names and strings go into detail.
 *
 * Kept whole although long: it is one backend behind one const table
 * (backend_cublas, its one exported symbol: style.md's rule for a
 * backend), every part of which (probe, memory, copies, bandwidth, the
 * batching model, GEMM) translates errors the same way and changes when
 * CUDA or cuBLAS does; split, those translations and the table's private
 * helpers would have to be exported.
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/kernels_cuda.h"
#include "bf_clock.h"
#include "bf_text.h"
#include "hardware/hostinfo.h"
#include "hardware/nvml.h"
#include "record.h"
#include "schema.h"
#include "stats.h"
#include "xmalloc.h"

/* Records the failing call, file and line with CUDA's error name and
 * string, and jumps to the function's cleanup label. Never exits. */
#define CUDA_TRY(call)                                                       \
	do {                                                                 \
		cudaError_t e_ = (call);                                     \
		if (e_ != cudaSuccess) {                                     \
			err = bf_fail(detail, detail_len, BF_ERR_DEVICE,     \
				      "%s: %s: %s (%s:%d)", #call,           \
				      cudaGetErrorName(e_),                  \
				      cudaGetErrorString(e_), __FILE__,      \
				      __LINE__);                             \
			goto out;                                            \
		}                                                            \
	} while (0)

#define CUBLAS_TRY(call)                                                     \
	do {                                                                 \
		cublasStatus_t s_ = (call);                                  \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                           \
			err = bf_fail(detail, detail_len, BF_ERR_BLAS,       \
				      "%s: %s: %s (%s:%d)", #call,           \
				      cublasGetStatusName(s_),               \
				      cublasGetStatusString(s_), __FILE__,   \
				      __LINE__);                             \
			goto out;                                            \
		}                                                            \
	} while (0)

/* The name of a cuBLAS math mode as cublas_api.h spells it: the base
 * mode, then " | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION" when
 * that flag is set. Static string or buf. */
static const char *math_mode_name(cublasMath_t mode, char *buf, size_t len)
{
	static const struct { cublasMath_t mode; const char *name; } base[] = {
		{ CUBLAS_DEFAULT_MATH, "CUBLAS_DEFAULT_MATH" },
		{ CUBLAS_PEDANTIC_MATH, "CUBLAS_PEDANTIC_MATH" },
		{ CUBLAS_TF32_TENSOR_OP_MATH, "CUBLAS_TF32_TENSOR_OP_MATH" },
	};
	const char *flag = (mode & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) ?
				   " | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION" :
				   "";
	unsigned int rest = (unsigned int)mode &
			    ~(unsigned int)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if ((unsigned int)base[i].mode == rest) {
			snprintf(buf, len, "%s%s", base[i].name, flag);
			return buf;
		}
	snprintf(buf, len, "cublasMath_t %u%s", rest, flag);
	return buf;
}

/* Sets h's math mode to `mode` with
 * CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION: cuBLAS's default lets
 * a GEMM whose output type is narrower than its compute type (fp16 and
 * bf16 out, CUBLAS_COMPUTE_32F) add split-K partial sums in the output
 * type (cuBLAS Library, cublasMath_t), an error the fp32-accumulate
 * tolerance of gemm.c does not admit. Writes "compute; mode" as read
 * back with cublasGetMathMode into out (out_len bytes). */
static cublasStatus_t set_math_mode(cublasHandle_t h, cublasMath_t mode,
				    const char *compute, char *out,
				    size_t out_len)
{
	cublasMath_t got = mode;
	cublasStatus_t s;
	char name[112];

	s = cublasSetMathMode(h, (cublasMath_t)(mode |
			      CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
	if (s == CUBLAS_STATUS_SUCCESS)
		s = cublasGetMathMode(h, &got);
	/* out is a record's text: a cut would read as another mode (the
	 * FP8 row's was cut to "...CUBLAS_MATH_DISAL" in a 160-byte field
	 * on the H200), so a cut is marked. */
	if (s == CUBLAS_STATUS_SUCCESS &&
	    snprintf(out, out_len, "%s; %s", compute,
		     math_mode_name(got, name, sizeof(name))) >= (int)out_len)
		bf_text_mark_cut(out, out_len);
	return s;
}

static enum bf_err cuda_probe(int *ndevices, char *detail, size_t detail_len)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	*ndevices = 0;
	if (e != cudaSuccess) {
		int driver = -1;

		/* cudaDriverGetVersion gives 0 when no driver is installed
		 * (CUDA Runtime API); cudart then says "insufficient", which
		 * reads as an old driver. */
		if (cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
			return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
				       "no NVIDIA driver installed (%s)",
				       cudaGetErrorName(e));
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "no usable CUDA device: %s: %s",
			       cudaGetErrorName(e), cudaGetErrorString(e));
	}
	if (n == 0)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "no CUDA device found");
	*ndevices = n;
	return BF_OK;
}

#ifndef BF_CUDA_ARCHITECTURES
#define BF_CUDA_ARCHITECTURES "unknown"
#endif

/* A GPU this build has no code for (cmake/cuda_architectures.cmake):
 * CUDA 13 builds nothing below sm_75, so a V100 (7.0) is one clear line,
 * and the sweep goes on with the CPU. */
static enum bf_err cuda_device_usable(int dev, char *detail, size_t detail_len)
{
	int major = -1, minor = -1, rt = 0;
	char name[256] = "GPU";
	struct cudaDeviceProp prop;
	cudaError_t e;

	cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
	cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
	if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
		snprintf(name, sizeof(name), "%s", prop.name);
	cudaRuntimeGetVersion(&rt);
	if ((e = cudaSetDevice(dev)) == cudaSuccess)
		e = (cudaError_t)bf_cuda_kernel_image();
	if (e == cudaSuccess)
		return BF_OK;
	if (rt >= 13000 && major >= 0 && major * 10 + minor < 75)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s (compute capability %d.%d) needs CUDA 12.9 or "
			       "older: this agent was built with CUDA %d.%d, which "
			       "has no sm_%d%d (CPU results only)",
			       name, major, minor, rt / 1000, (rt % 1000) / 10,
			       major, minor);
	if (e == cudaErrorNoKernelImageForDevice ||
	    e == cudaErrorInvalidDeviceFunction)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s (compute capability %d.%d): this build has no "
			       "code for it (built for %s): rebuild on the host",
			       name, major, minor, BF_CUDA_ARCHITECTURES);
	return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
		       "%s: %s: %s", name, cudaGetErrorName(e),
		       cudaGetErrorString(e));
}

/* "13.0" from CUDA's 1000*major + 10*minor encoding, owned; NULL (null)
 * when the call failed or gave no version. */
static char *cuda_version(cudaError_t e, int v)
{
	char buf[16];

	if (e != cudaSuccess || v <= 0)
		return NULL;
	snprintf(buf, sizeof(buf), "%d.%d", v / 1000, (v % 1000) / 10);
	return bf_xstrdup(buf);
}

static const char *cublas_library(void)
{
	static char lib[48];
	int major = -1, minor = -1, patch = -1;

	cublasGetProperty(MAJOR_VERSION, &major);
	cublasGetProperty(MINOR_VERSION, &minor);
	cublasGetProperty(PATCH_LEVEL, &patch);
	snprintf(lib, sizeof(lib), "cuBLAS %d.%d.%d", major, minor, patch);
	return lib;
}

static int device_attr(int dev, enum cudaDeviceAttr attr)
{
	int v = -1;

	if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess)
		return -1;
	return v;
}

/* GPU i's entry of the host record's "gpus"; unreadable values stay
 * NULL / NaN / -1 (null). */
static void describe_gpu(int i, struct bf_rec_gpu *g)
{
	struct cudaDeviceProp prop;
	char cc[16];
	int integrated = device_attr(i, cudaDevAttrIntegrated);

	g->index = i;
	g->memory_bytes = NAN;
	if (cudaGetDeviceProperties(&prop, i) == cudaSuccess) {
		g->name = bf_xstrdup(prop.name);
		g->memory_bytes = (double)prop.totalGlobalMem;
	}
	snprintf(cc, sizeof(cc), "%d.%d",
		 device_attr(i, cudaDevAttrComputeCapabilityMajor),
		 device_attr(i, cudaDevAttrComputeCapabilityMinor));
	g->compute_capability = bf_xstrdup(cc);
	{
		/* Which physical GPU this is, so that a change of
		 * machine behind the same name shows in compare. */
		struct gpu_state st;
		char bus[32];
		int khz = device_attr(i, cudaDevAttrClockRate);

		if (cudaDeviceGetPCIBusId(bus, sizeof(bus), i) == cudaSuccess) {
			g->pci_bus_id = bf_xstrdup(bus);
			nvml_read(bus, &st);
		} else {
			nvml_read(NULL, &st);
		}
		g->uuid = st.uuid[0] ? bf_xstrdup(st.uuid) : NULL;
		g->clock_mhz = khz > 0 ? khz / 1000.0 : NAN;
	}
	g->sm_count = device_attr(i, cudaDevAttrMultiProcessorCount);
	/* An integrated GPU (DGX Spark's GB10, Jetson) shares the
	 * host's DRAM: "VRAM" figures are system memory. */
	g->unified_memory = integrated < 0 ? -1 : integrated == 1;
}

static void cuda_describe(struct bf_rec_host *host)
{
	const char *tf32_env = getenv("NVIDIA_TF32_OVERRIDE");
	char detail[256], drv[96];
	int v = 0, n = 0;
	cudaError_t e;

	host->cuda_libraries = 1;
	if (nvml_driver_version(drv, sizeof(drv)) == 0)
		host->cuda_driver_version = bf_xstrdup(drv);
	e = cudaDriverGetVersion(&v);
	host->cuda_driver_cuda_version = cuda_version(e, v);
	e = cudaRuntimeGetVersion(&v);
	host->cuda_runtime_version = cuda_version(e, v);
	host->cuda_cublas_version =
		bf_xstrdup(cublas_library() + strlen("cuBLAS "));
	host->cuda_architectures = bf_xstrdup(BF_CUDA_ARCHITECTURES);
	/* NVIDIA_TF32_OVERRIDE=0 disables TF32 globally; record it since it
	 * changes what "fp32" measures. */
	if (tf32_env)
		host->cuda_tf32_override = bf_xstrdup(tf32_env);
	if (cuda_probe(&n, detail, sizeof(detail)) != BF_OK) {
		host->cuda_status = bf_xstrdup(BF_STATUS_SKIPPED_STR);
		host->cuda_reason = bf_xstrdup(detail);
		return;
	}
	host->cuda_status = bf_xstrdup(BF_STATUS_PASS_STR);
	host->gpus = bf_xcalloc((size_t)n + 1, sizeof(*host->gpus));
	for (int i = 0; i < n; i++)
		describe_gpu(i, &host->gpus[host->ngpus++]);
}

static enum bf_err cuda_mem_info(int dev, uint64_t *free_bytes,
				 uint64_t *total_bytes, char *limit,
				 size_t limit_len)
{
	size_t f = 0, t = 0;

	if (cudaSetDevice(dev) != cudaSuccess ||
	    cudaMemGetInfo(&f, &t) != cudaSuccess)
		return BF_ERR_DEVICE;
	*total_bytes = t;
	if (device_attr(dev, cudaDevAttrIntegrated) == 1) {
		/* Unified memory: the GPU allocates the host's DRAM, and
		 * cudaMemGetInfo's free figure leaves out the page cache
		 * the OS would give up (NVIDIA's DGX Spark user guide
		 * advises reading /proc/meminfo instead). */
		char what[48];

		if (hostinfo_memory_room(free_bytes, what, sizeof(what)) ==
		    BF_OK) {
			snprintf(limit, limit_len, "%s (unified memory)", what);
			return BF_OK;
		}
	}
	*free_bytes = f;
	snprintf(limit, limit_len, "cudaMemGetInfo");
	return BF_OK;
}

static enum bf_err cuda_alloc(int dev, size_t bytes, void **out, char *detail,
			      size_t detail_len)
{
	enum bf_err err = BF_OK;

	*out = NULL;
	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY(cudaMalloc(out, bytes ? bytes : 1));
out:
	return err;
}

static void cuda_release(int dev, void *p)
{
	if (p) {
		cudaSetDevice(dev);
		cudaFree(p);
	}
}

static enum bf_err cuda_fill_zero(int dev, void *p, size_t bytes, char *detail,
				  size_t detail_len)
{
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY(cudaMemset(p, 0, bytes));
	CUDA_TRY(cudaDeviceSynchronize());
out:
	return err;
}

static enum bf_err cuda_to_host(int dev, void *dst, const void *src,
				size_t bytes, char *detail, size_t detail_len)
{
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
out:
	return err;
}

static enum bf_err cuda_from_host(int dev, void *dst, const void *src,
				  size_t bytes, char *detail,
				  size_t detail_len)
{
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
out:
	return err;
}

static enum bf_err cuda_add_f32(int dev, int rank, const int64_t *shape,
				const float *a, const int64_t *as,
				const float *b, const int64_t *bs, float *o,
				char *detail, size_t detail_len)
{
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY((cudaError_t)bf_cuda_add_f32(rank, shape, a, as, b, bs, o));
out:
	return err;
}

static enum bf_err cuda_relu_f32(int dev, float *p, size_t count, char *detail,
				 size_t detail_len)
{
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY((cudaError_t)bf_cuda_relu_f32(p, count));
out:
	return err;
}

static enum bf_err cuda_matmul_f32(int dev, int m, int k, int n,
				   const float *a, const float *b, float *c,
				   char *detail, size_t detail_len)
{
	cublasHandle_t h = NULL;
	const float one = 1.0f, zero = 0.0f;
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(dev));
	CUBLAS_TRY(cublasCreate(&h));
	/* cuBLAS is column-major; a row-major X is a column-major X^T, so
	 * row-major C = A B is computed as column-major C^T = B^T A^T. */
	CUBLAS_TRY(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n,
			       a, k, &zero, c, n));
	CUDA_TRY(cudaDeviceSynchronize());
out:
	if (h)
		cublasDestroy(h);
	return err;
}

static enum bf_err cuda_round_16(int dev, enum bf_dtype dtype,
				 const float *in_host, uint16_t *out_host,
				 size_t count, char *detail, size_t detail_len)
{
	float *in = NULL;
	uint16_t *o = NULL;
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY(cudaMalloc((void **)&in, count * sizeof(*in)));
	CUDA_TRY(cudaMalloc((void **)&o, count * sizeof(*o)));
	CUDA_TRY(cudaMemcpy(in, in_host, count * sizeof(*in),
			    cudaMemcpyHostToDevice));
	CUDA_TRY((cudaError_t)bf_cuda_round16(dtype == BF_DTYPE_BF16, in, o,
					       count));
	CUDA_TRY(cudaMemcpy(out_host, o, count * sizeof(*o),
			    cudaMemcpyDeviceToHost));
out:
	cudaFree(in);
	cudaFree(o);
	return err;
}

/* Times `reps` copies of `bytes` from src to dst with CUDA events, after
 * `warmup` untimed ones (at least one: the first touch of pageable
 * memory pays for page faults that later copies do not); ms_out gets
 * every sample (reps entries). Shared by the transfer check and the
 * bandwidth measurements. */
static enum bf_err time_copies(void *dst, const void *src, size_t bytes,
			       enum cudaMemcpyKind kind, int warmup, int reps,
			       double *ms_out, char *detail, size_t detail_len)
{
	cudaEvent_t start = NULL, stop = NULL;
	enum bf_err err = BF_OK;
	float t;

	CUDA_TRY(cudaEventCreate(&start));
	CUDA_TRY(cudaEventCreate(&stop));
	for (int i = 0; i < (warmup > 0 ? warmup : 1); i++)
		CUDA_TRY(cudaMemcpy(dst, src, bytes, kind));
	for (int i = 0; i < reps; i++) {
		CUDA_TRY(cudaEventRecord(start, 0));
		CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, kind, 0));
		CUDA_TRY(cudaEventRecord(stop, 0));
		CUDA_TRY(cudaEventSynchronize(stop));
		CUDA_TRY(cudaEventElapsedTime(&t, start, stop));
		ms_out[i] = t;
	}
out:
	if (start)
		cudaEventDestroy(start);
	if (stop)
		cudaEventDestroy(stop);
	return err;
}

/* Median bandwidth in bytes/s of `reps` copies (time_copies). */
static enum bf_err median_copy_bps(void *dst, const void *src, size_t bytes,
				   enum cudaMemcpyKind kind, int reps,
				   double *bps, char *detail, size_t detail_len)
{
	double *ms = calloc((size_t)reps, sizeof(*ms));
	enum bf_err err;

	if (!ms)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM, "no memory");
	err = time_copies(dst, src, bytes, kind, 1, reps, ms, detail,
			  detail_len);
	if (err == BF_OK)
		*bps = (double)bytes / (bf_stats_median(ms, (size_t)reps) / 1e3);
	free(ms);
	return err;
}

static enum bf_err cuda_transfer(int dev, size_t bytes, int reps,
				 struct transfer_result *res, char *detail,
				 size_t detail_len)
{
	unsigned char *pageable = NULL, *back = NULL, *pinned = NULL;
	void *d = NULL;
	enum bf_err err = BF_OK;

	memset(res, 0, sizeof(*res));
	pageable = malloc(bytes);
	back = malloc(bytes);
	if (!pageable || !back) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host allocation of %zu bytes failed", bytes);
		goto out;
	}
	for (size_t i = 0; i < bytes; i++)
		pageable[i] = (unsigned char)(i * 131u + 7u);
	memset(back, 0, bytes);
	CUDA_TRY(cudaSetDevice(dev));
	CUDA_TRY(cudaMalloc(&d, bytes));
	CUDA_TRY(cudaMallocHost((void **)&pinned, bytes));
	memcpy(pinned, pageable, bytes);
	err = median_copy_bps(d, pageable, bytes, cudaMemcpyHostToDevice, reps,
			      &res->h2d_pageable_bps, detail, detail_len);
	if (err == BF_OK)
		err = median_copy_bps(back, d, bytes, cudaMemcpyDeviceToHost,
				      reps, &res->d2h_pageable_bps, detail,
				      detail_len);
	if (err != BF_OK)
		goto out;
	res->roundtrip_equal = memcmp(pageable, back, bytes) == 0;
	err = median_copy_bps(d, pinned, bytes, cudaMemcpyHostToDevice, reps,
			      &res->h2d_pinned_bps, detail, detail_len);
	if (err == BF_OK)
		err = median_copy_bps(pinned, d, bytes, cudaMemcpyDeviceToHost,
				      reps, &res->d2h_pinned_bps, detail,
				      detail_len);
	if (err == BF_OK && memcmp(pinned, pageable, bytes) != 0)
		res->roundtrip_equal = 0;
out:
	if (pinned)
		cudaFreeHost(pinned);
	if (d)
		cudaFree(d);
	free(pageable);
	free(back);
	return err;
}

/* A CUDA allocation that failed for want of memory is "does not fit"
 * (BF_ERR_NOMEM), any other error a device error. */
static enum bf_err alloc_err(cudaError_t e, const char *what, size_t bytes,
			     char *detail, size_t detail_len)
{
	return bf_fail(detail, detail_len,
		       e == cudaErrorMemoryAllocation ? BF_ERR_NOMEM :
							BF_ERR_DEVICE,
		       "%s of %zu bytes: %s: %s", what, bytes,
		       cudaGetErrorName(e), cudaGetErrorString(e));
}

/* The GPU's bandwidths: a device-to-device copy (cudaMemcpy D2D: each
 * byte read and written in device memory, so 2 x the buffer counts, as
 * STREAM's copy and nvbandwidth's device-local copy count it) and the
 * host <-> device copies of the transfer check (the buffer counts once:
 * each byte crosses the link once). A D2D copy ends with a pattern check
 * of the destination; a transfer with the bytes compared. */
static enum bf_err cuda_bandwidth(int dev, const struct bw_job *job,
				  struct bw_result *res, char *detail,
				  size_t detail_len)
{
	size_t bytes = job->array_bytes;
	unsigned char *host = NULL, *back = NULL;
	void *d = NULL, *d2 = NULL;
	enum cudaMemcpyKind kind;
	int pinned = job->kind == BW_H2D_PINNED || job->kind == BW_D2H_PINNED;
	enum bf_err err = BF_OK;
	cudaError_t e;

	res->threads = 0;
	snprintf(res->timing, sizeof(res->timing), "CUDA events around each copy");
	CUDA_TRY(cudaSetDevice(dev));
	if ((e = cudaMalloc(&d, bytes)) != cudaSuccess) {
		err = alloc_err(e, "cudaMalloc", bytes, detail, detail_len);
		goto out;
	}
	if (job->kind == BW_D2D) {
		if ((e = cudaMalloc(&d2, bytes)) != cudaSuccess) {
			err = alloc_err(e, "cudaMalloc", bytes, detail,
					detail_len);
			goto out;
		}
		CUDA_TRY(cudaMemset(d, 0x5a, bytes));
		CUDA_TRY(cudaMemset(d2, 0, bytes));
		err = time_copies(d2, d, bytes, cudaMemcpyDeviceToDevice,
				  job->warmup, job->iters, res->samples_ms,
				  detail, detail_len);
		if (err != BF_OK)
			goto out;
		back = malloc(bytes);
		if (!back) {
			err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
				      "host allocation of %zu bytes failed",
				      bytes);
			goto out;
		}
		CUDA_TRY(cudaMemcpy(back, d2, bytes, cudaMemcpyDeviceToHost));
		res->verified = 1;
		for (size_t i = 0; i < bytes; i++)
			if (back[i] != 0x5a) {
				res->verified = 0;
				break;
			}
		res->bytes = 2.0 * (double)bytes;
		snprintf(res->counting, sizeof(res->counting),
			 "2 x the buffer: each byte read and written in device "
			 "memory (STREAM's copy)");
		goto out;
	}
	if (pinned) {
		if ((e = cudaMallocHost((void **)&host, bytes)) != cudaSuccess) {
			err = alloc_err(e, "cudaMallocHost", bytes, detail,
					detail_len);
			goto out;
		}
	} else if (!(host = malloc(bytes))) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host allocation of %zu bytes failed", bytes);
		goto out;
	}
	for (size_t i = 0; i < bytes; i++)
		host[i] = (unsigned char)(i * 131u + 7u);
	kind = (job->kind == BW_H2D_PAGEABLE || job->kind == BW_H2D_PINNED) ?
		       cudaMemcpyHostToDevice :
		       cudaMemcpyDeviceToHost;
	if (kind == cudaMemcpyDeviceToHost)
		CUDA_TRY(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
	err = time_copies(kind == cudaMemcpyHostToDevice ? d : (void *)host,
			  kind == cudaMemcpyHostToDevice ? (void *)host : d,
			  bytes, kind, job->warmup, job->iters, res->samples_ms,
			  detail, detail_len);
	if (err != BF_OK)
		goto out;
	back = malloc(bytes);
	if (!back) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host allocation of %zu bytes failed", bytes);
		goto out;
	}
	CUDA_TRY(cudaMemcpy(back, d, bytes, cudaMemcpyDeviceToHost));
	res->verified = memcmp(back, host, bytes) == 0;
	res->bytes = (double)bytes;
	/* An integrated GPU (GB10, Jetson) shares the host's DRAM: the
	 * "host-to-device" copy is DRAM to DRAM, no link crossed. */
	snprintf(res->counting, sizeof(res->counting), "%s",
		 device_attr(dev, cudaDevAttrIntegrated) == 1 ?
			 "the buffer once: unified memory (an SoC's GPU), a "
			 "DRAM-to-DRAM copy, no link" :
			 "the buffer once: each byte crosses the link once");
out:
	if (pinned && host)
		cudaFreeHost(host);
	else
		free(host);
	free(back);
	cudaFree(d);
	cudaFree(d2);
	return err;
}

/* --- the batching model ------------------------------------------------ */

/* fp32 values as fp16 patterns, on the host. */
static void to_fp16(const float *in, uint16_t *out, size_t count)
{
	for (size_t i = 0; i < count; i++)
		out[i] = bf_fp32_to_fp16(in[i]);
}

/* One scoring call on `rows` rows, synchronous: the rows' fp16 features
 * from the host, x W1 (cuBLAS), relu (a kernel), h W2 (cuBLAS), the
 * scores back to the host. Row-major C = A B as column-major C^T =
 * B^T A^T (see cuda_matmul_f32): the weights go first. */
static enum bf_err mlp_call(cublasHandle_t hd, const struct mlp_job *job,
			    int rows, const uint16_t *x_host, void *x, void *w1,
			    void *w2, void *h, void *out, uint16_t *out_host,
			    char *detail, size_t detail_len)
{
	const float one = 1.0f, zero = 0.0f;
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaMemcpy(x, x_host, (size_t)rows * job->in * sizeof(uint16_t),
			    cudaMemcpyHostToDevice));
	CUBLAS_TRY(cublasGemmEx(hd, CUBLAS_OP_N, CUBLAS_OP_N, job->hidden, rows,
				job->in, &one, w1, CUDA_R_16F, job->hidden, x,
				CUDA_R_16F, job->in, &zero, h, CUDA_R_16F,
				job->hidden, CUBLAS_COMPUTE_32F,
				CUBLAS_GEMM_DEFAULT));
	CUDA_TRY((cudaError_t)bf_cuda_relu_f16(h, (size_t)rows * job->hidden));
	CUBLAS_TRY(cublasGemmEx(hd, CUBLAS_OP_N, CUBLAS_OP_N, job->out, rows,
				job->hidden, &one, w2, CUDA_R_16F, job->out, h,
				CUDA_R_16F, job->hidden, &zero, out, CUDA_R_16F,
				job->out, CUBLAS_COMPUTE_32F,
				CUBLAS_GEMM_DEFAULT));
	CUDA_TRY(cudaMemcpy(out_host, out, (size_t)rows * job->out * sizeof(uint16_t),
			    cudaMemcpyDeviceToHost));
out:
	return err;
}

static enum bf_err cuda_mlp_run(int dev, const struct mlp_job *job,
				struct mlp_result *res, char *detail,
				size_t detail_len)
{
	size_t nx = (size_t)job->rows * job->in, nw1 = (size_t)job->in * job->hidden;
	size_t nw2 = (size_t)job->hidden * job->out;
	size_t nh = (size_t)job->rows * job->hidden, no = (size_t)job->rows * job->out;
	uint16_t *x16 = NULL, *w16 = NULL, *single16 = NULL, *batch16 = NULL;
	void *x = NULL, *w1 = NULL, *w2 = NULL, *h = NULL, *o = NULL;
	cublasHandle_t hd = NULL;
	enum bf_err err = BF_OK;

	if (job->dtype != BF_DTYPE_FP16)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: the GPU runs the model in fp16",
			       bf_dtype_name(job->dtype));
	x16 = malloc(nx * sizeof(*x16));
	w16 = malloc((nw1 + nw2) * sizeof(*w16));
	single16 = malloc(no * sizeof(*single16));
	batch16 = malloc(no * sizeof(*batch16));
	if (!x16 || !w16 || !single16 || !batch16) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host allocation failed");
		goto out;
	}
	to_fp16(job->x, x16, nx);
	to_fp16(job->w1, w16, nw1);
	to_fp16(job->w2, w16 + nw1, nw2);
	CUDA_TRY(cudaSetDevice(dev));
	CUBLAS_TRY(cublasCreate(&hd));
	/* fp16 out: partial sums in fp32, as in the sweep. */
	CUBLAS_TRY(set_math_mode(hd, CUBLAS_DEFAULT_MATH,
				 "cublasGemmEx CUDA_R_16F, CUBLAS_COMPUTE_32F",
				 res->math_mode, sizeof(res->math_mode)));
	CUDA_TRY(cudaMalloc(&x, nx * sizeof(uint16_t)));
	CUDA_TRY(cudaMalloc(&w1, nw1 * sizeof(uint16_t)));
	CUDA_TRY(cudaMalloc(&w2, nw2 * sizeof(uint16_t)));
	CUDA_TRY(cudaMalloc(&h, nh * sizeof(uint16_t)));
	CUDA_TRY(cudaMalloc(&o, no * sizeof(uint16_t)));
	/* The weights stay on the device, as a served model's do. */
	CUDA_TRY(cudaMemcpy(w1, w16, nw1 * sizeof(uint16_t), cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(w2, w16 + nw1, nw2 * sizeof(uint16_t),
			    cudaMemcpyHostToDevice));
	snprintf(res->timing, sizeof(res->timing),
		 "CLOCK_MONOTONIC around the %d one-row calls and the batch "
		 "call, each synchronous", job->rows);
	for (int it = 0; it < job->warmup + job->iters; it++) {
		uint64_t t0 = bf_now_ns(), t1;

		for (int r = 0; r < job->rows && err == BF_OK; r++)
			err = mlp_call(hd, job, 1, x16 + (size_t)r * job->in, x,
				       w1, w2, h, o,
				       single16 + (size_t)r * job->out, detail,
				       detail_len);
		t1 = bf_now_ns();
		if (err == BF_OK)
			err = mlp_call(hd, job, job->rows, x16, x, w1, w2, h, o,
				       batch16, detail, detail_len);
		if (err != BF_OK)
			goto out;
		if (it >= job->warmup) {
			res->single_ms[it - job->warmup] =
				(double)(t1 - t0) / 1e6 / job->rows;
			res->batch_ms[it - job->warmup] =
				(double)(bf_now_ns() - t1) / 1e6;
		}
	}
	for (size_t i = 0; i < no; i++) {
		res->single_out[i] = bf_fp16_to_fp32(single16[i]);
		res->batch_out[i] = bf_fp16_to_fp32(batch16[i]);
	}
out:
	cudaFree(x);
	cudaFree(w1);
	cudaFree(w2);
	cudaFree(h);
	cudaFree(o);
	if (hd)
		cublasDestroy(hd);
	free(x16);
	free(w16);
	free(single16);
	free(batch16);
	return err;
}

/* The product name keys the rated figure; the bound takes the highest
 * clock the device reports: cudaDevAttrClockRate, or NVML's maximum SM
 * clock where that is higher (GeForce parts boost above the rated
 * clock). */
static void cuda_peak(int dev, enum bf_dtype dtype, struct peak *out)
{
	int khz = device_attr(dev, cudaDevAttrClockRate);
	struct cudaDeviceProp prop;
	struct gpu_state st;
	char bus[32];
	struct gpu_peak_input in = {
		.name = NULL,
		.major = device_attr(dev, cudaDevAttrComputeCapabilityMajor),
		.minor = device_attr(dev, cudaDevAttrComputeCapabilityMinor),
		.sm_count = device_attr(dev, cudaDevAttrMultiProcessorCount),
		.clock_ghz = khz > 0 ? khz / 1e6 : NAN,
		.max_clock_ghz = NAN,
	};

	if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
		prop.name[sizeof(prop.name) - 1] = '\0';
		in.name = prop.name;
	}
	nvml_read(cudaDeviceGetPCIBusId(bus, sizeof(bus), dev) == cudaSuccess ?
			  bus :
			  NULL,
		  &st);
	if (st.known && st.sm_clock_max_mhz > 0)
		in.max_clock_ghz = st.sm_clock_max_mhz / 1e3;
	peak_gpu(&in, dtype, out);
}

static void cuda_read_state(int dev, struct device_state *out)
{
	char bus[32];

	memset(out, 0, sizeof(*out));
	out->is_gpu = 1;
	nvml_read(cudaDeviceGetPCIBusId(bus, sizeof(bus), dev) == cudaSuccess ?
			  bus : NULL,
		  &out->gpu);
}

static enum bf_err cuda_gemm_supports(int dev, enum bf_dtype dtype,
				      char *detail, size_t detail_len)
{
	int major = device_attr(dev, cudaDevAttrComputeCapabilityMajor);

	switch (dtype) {
	case BF_DTYPE_FP32:
	case BF_DTYPE_FP16:
		return BF_OK;
	case BF_DTYPE_BF16:
		/* bf16 tensor cores arrived with Ampere (8.0); below it cuBLAS
		 * still runs bf16 GEMMs on the fp32 units (PyTorch has relied
		 * on this since its #50442; tested on sm_75), and where it
		 * does not it answers CUBLAS_STATUS_NOT_SUPPORTED, which the
		 * sweep reports as skipped with that reason. */
		if (major >= 7)
			return BF_OK;
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "bf16: needs compute capability 7.0, GPU has %d.x",
			       major);
	case BF_DTYPE_TF32:
		/* TF32 is a tensor-core format of Ampere (8.0) and newer;
		 * below it CUBLAS_COMPUTE_32F_FAST_TF32 would run fp32 and
		 * measure fp32 under tf32's name. */
		if (major >= 8)
			return BF_OK;
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "tf32: needs compute capability 8.0, GPU has %d.x",
			       major);
	case BF_DTYPE_FP8: {
		/* FP8 tensor cores: Ada (8.9), Hopper (9.0), Blackwell (10.x,
		 * 12.x) and GB10 (12.1); cuBLASLt runs FP8 there only
		 * (cuBLAS Library, cublasLtMatmul, "FP8 data types"). */
		int minor = device_attr(dev, cudaDevAttrComputeCapabilityMinor);

#if CUDART_VERSION >= 11080
		if (major * 10 + minor >= 89)
			return BF_OK;
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "fp8: needs compute capability 8.9 (Ada, Hopper, "
			       "Blackwell), GPU has %d.%d", major, minor);
#else
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "fp8: this agent was built with CUDA %d.%d, "
			       "FP8 needs 11.8", CUDART_VERSION / 1000,
			       CUDART_VERSION % 1000 / 10);
#endif
	}
	default:
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: no cuBLAS GEMM for this dtype",
			       bf_dtype_name(dtype));
	}
}

/* Free memory now, for the peak: cudaMemGetInfo's figure on a discrete
 * GPU; the host's MemAvailable on a unified-memory one (GB10), whose
 * allocations come out of the host's DRAM. */
static cudaError_t free_bytes_now(int unified, size_t *free_b, size_t *total)
{
	uint64_t avail, tot;

	if (unified && hostinfo_memory(&avail, &tot) == BF_OK) {
		*free_b = (size_t)avail;
		*total = (size_t)tot;
		return cudaSuccess;
	}
	return cudaMemGetInfo(free_b, total);
}

/* Small-n batching (see cuda_gemm_run): the time a sample should last,
 * and the most calls in one. */
#define BATCH_TARGET_MS 1.0
#define BATCH_MAX 1000
/* cuBLAS's workspace, set explicitly so that a captured graph uses it
 * (cuBLAS Library, "CUDA Graphs Support"; 32 MiB is its recommendation
 * for Hopper and newer, and what PyTorch gives a handle there). */
#define CUBLAS_WORKSPACE_BYTES (32u << 20)

/* One GEMM call of the row: row-major C = A B as column-major C^T =
 * B^T A^T (see cuda_matmul_f32), so B goes first. A dtype cuBLAS has
 * no kernel for on this GPU (bf16 below compute capability 7.5, say) is
 * BF_ERR_UNSUPPORTED, which the sweep reports as skipped. */
struct gemm_args {
	cublasHandle_t h;
	int n;
	cudaDataType_t dt;
	cublasComputeType_t compute;
	const void *a, *b;
	void *c;
	/* fp8 only (lt non-NULL): cuBLASLt's call, B transposed in bt */
	cublasLtHandle_t lt;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulAlgo_t algo;
	const void *bt;
	void *ws;
	size_t ws_bytes;
	cudaStream_t st;
};

static enum bf_err gemm_call(const struct gemm_args *g, char *detail,
			     size_t detail_len)
{
	const float one = 1.0f, zero = 0.0f;
	cublasStatus_t s;

	if (g->lt) {
		/* Column-major D = op(B^T stored) op(A stored) with TRANSA
		 * = T and TRANSB = N (FP8's "TN"): D is C^T column-major,
		 * i.e. row-major C = A B (see fp8_setup). D is written over
		 * C's buffer (beta = 0). */
		s = cublasLtMatmul(g->lt, g->op, &one, g->bt, g->la, g->a, g->lb,
				   &zero, g->c, g->lc, g->c, g->lc, &g->algo,
				   g->ws, g->ws_bytes, g->st);
		if (s == CUBLAS_STATUS_SUCCESS)
			return BF_OK;
		return bf_fail(detail, detail_len,
			       s == CUBLAS_STATUS_NOT_SUPPORTED ||
					       s == CUBLAS_STATUS_ARCH_MISMATCH ?
				       BF_ERR_UNSUPPORTED :
				       BF_ERR_BLAS,
			       "cublasLtMatmul: %s: %s", cublasGetStatusName(s),
			       cublasGetStatusString(s));
	}
	s = cublasGemmEx(g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n,
			 &one, g->b, g->dt, g->n, g->a, g->dt, g->n, &zero,
			 g->c, g->dt, g->n, g->compute, CUBLAS_GEMM_DEFAULT);
	if (s == CUBLAS_STATUS_SUCCESS)
		return BF_OK;
	return bf_fail(detail, detail_len,
		       s == CUBLAS_STATUS_NOT_SUPPORTED ||
				       s == CUBLAS_STATUS_ARCH_MISMATCH ?
			       BF_ERR_UNSUPPORTED :
			       BF_ERR_BLAS,
		       "cublasGemmEx: %s: %s", cublasGetStatusName(s),
		       cublasGetStatusString(s));
}

/* Captures `calls` back-to-back GEMMs on stream st into *exec (one CUDA
 * Graph launch then replays them with a single launch overhead).
 * cudaSuccess or the error; *exec NULL on failure. */
static cudaError_t capture_batch(const struct gemm_args *g, cudaStream_t st,
				 int calls, cudaGraphExec_t *exec)
{
	cudaGraph_t graph = NULL;
	cudaError_t e, e2;
	int failed = 0;

	*exec = NULL;
	e = cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
	if (e != cudaSuccess)
		return e;
	for (int k = 0; k < calls && !failed; k++) {
		char why[8];

		failed = gemm_call(g, why, sizeof(why)) != BF_OK;
	}
	e2 = cudaStreamEndCapture(st, &graph);
	if (failed)
		e = cudaErrorStreamCaptureInvalidated;
	else if (e2 != cudaSuccess)
		e = e2;
#if CUDART_VERSION >= 12000
	else
		e = cudaGraphInstantiate(exec, graph, 0);
#else
	else
		e = cudaGraphInstantiate(exec, graph, NULL, NULL, 0);
#endif
	if (graph)
		cudaGraphDestroy(graph);
	if (e != cudaSuccess && *exec) {
		cudaGraphExecDestroy(*exec);
		*exec = NULL;
	}
	return e;
}

/* Runs one sample's worth of work on st: the batch graph when there is
 * one, else `calls` GEMMs. */
static enum bf_err run_calls(const struct gemm_args *g, cudaStream_t st,
			     cudaGraphExec_t exec, int calls, char *detail,
			     size_t detail_len)
{
	enum bf_err err = BF_OK;

	if (exec) {
		CUDA_TRY(cudaGraphLaunch(exec, st));
		return BF_OK;
	}
	for (int k = 0; k < calls && err == BF_OK; k++)
		err = gemm_call(g, detail, detail_len);
out:
	return err;
}

#if CUDART_VERSION >= 11080
/* Floats between the two FP8 scales in device memory: each scale pointer
 * 16-byte aligned. cuBLASLt 13.1 on an H200 (2026-12-04) returned
 * CUBLAS_STATUS_NOT_SUPPORTED from cublasLtMatmul, after its heuristic
 * had found an algorithm, for a B scale pointer 4 bytes past the A one,
 * and ran with one 16 or 256 bytes past it (a probe of each). */
#define FP8_SCALE_STRIDE 4

/* FP8 through cuBLASLt (cublasGemmEx has no FP8): e4m3 A and B, fp32
 * per-tensor dequantisation scales at scales_dev (scales_dev[0] for the
 * first operand, B^T; [FP8_SCALE_STRIDE] for A: each scale pointer
 * 16-byte aligned, see FP8_SCALE_STRIDE), CUBLAS_COMPUTE_32F, bf16 D, fast
 * accumulation off. Ada and Hopper run FP8 only with the first operand
 * transposed and the second not ("TN"), and every dimension and leading
 * dimension a multiple of 16 bytes (cuBLAS Library, cublasLtMatmul: "To
 * use FP8 kernels, the following set of requirements must be
 * satisfied"): so bt_dev holds B transposed (row-major B^T, which
 * read column-major is B), and row-major C = A B, which read
 * column-major is C^T = B^T A^T, is D = op(X) op(Y) with X = bt_dev
 * (column-major B, op T: B^T) and Y = g->a (column-major A^T, op N). The algorithm is cuBLASLt's first heuristic
 * choice for a workspace of ws_bytes. Fills g's lt fields; on failure
 * BF_ERR_UNSUPPORTED when cuBLASLt has no kernel (with the reason), else
 * BF_ERR_BLAS. The caller frees them with fp8_teardown. */
static enum bf_err fp8_setup(struct gemm_args *g, const void *bt_dev,
			     const float *scales_dev, void *ws,
			     size_t ws_bytes, cudaStream_t st, char *detail,
			     size_t detail_len)
{
	const int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	const float *sa = scales_dev, *sb = scales_dev + FP8_SCALE_STRIDE;
	const int8_t fast_accum = 0;
	uint64_t n = (uint64_t)g->n;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t heur;
	int found = 0;
	enum bf_err err = BF_OK;

	memset(&heur, 0, sizeof(heur));
	g->bt = bt_dev;
	g->ws = ws;
	g->ws_bytes = ws_bytes;
	g->st = st;
	CUBLAS_TRY(cublasLtCreate(&g->lt));
	CUBLAS_TRY(cublasLtMatmulDescCreate(&g->op, CUBLAS_COMPUTE_32F,
					    CUDA_R_32F));
	CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
		g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
	CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
		g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
	CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
		g->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof(sa)));
	CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
		g->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof(sb)));
	CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
		g->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
		sizeof(fast_accum)));
	CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->la, CUDA_R_8F_E4M3, n, n,
					      (int64_t)n));
	CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->lb, CUDA_R_8F_E4M3, n, n,
					      (int64_t)n));
	CUBLAS_TRY(cublasLtMatrixLayoutCreate(&g->lc, CUDA_R_16BF, n, n,
					      (int64_t)n));
	CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&pref));
	CUBLAS_TRY(cublasLtMatmulPreferenceSetAttribute(
		pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
		sizeof(ws_bytes)));
	CUBLAS_TRY(cublasLtMatmulAlgoGetHeuristic(g->lt, g->op, g->la, g->lb,
						  g->lc, g->lc, pref, 1, &heur,
						  &found));
	if (found < 1 || heur.state != CUBLAS_STATUS_SUCCESS) {
		err = bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			      "fp8: cuBLASLt has no FP8 algorithm for n = %d "
			      "on this GPU", g->n);
		goto out;
	}
	g->algo = heur.algo;
out:
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	return err;
}

static void fp8_teardown(struct gemm_args *g)
{
	if (g->la)
		cublasLtMatrixLayoutDestroy(g->la);
	if (g->lb)
		cublasLtMatrixLayoutDestroy(g->lb);
	if (g->lc)
		cublasLtMatrixLayoutDestroy(g->lc);
	if (g->op)
		cublasLtMatmulDescDestroy(g->op);
	if (g->lt)
		cublasLtDestroy(g->lt);
}
#endif

/* dst (n x n bytes) = src transposed; blocked so that both sides stay in
 * cache lines (16 MiB at n = 4096: some ms). */
static void transpose_bytes(uint8_t *dst, const uint8_t *src, int n)
{
	const int blk = 64;

	for (int i0 = 0; i0 < n; i0 += blk)
		for (int j0 = 0; j0 < n; j0 += blk)
			for (int i = i0; i < i0 + blk && i < n; i++)
				for (int j = j0; j < j0 + blk && j < n; j++)
					dst[(size_t)j * n + i] =
						src[(size_t)i * n + j];
}

/*
 * One cuda_gemm_run: the job, what it fills, and every device object its
 * phases make (NULL until made; gemm_teardown frees them all). The
 * phases, in order: gemm_plan (the dtype's cuBLAS types), gemm_setup
 * (stream, handle, workspace, operands on the device), gemm_warmup,
 * gemm_plan_batch (a CUDA Graph of short calls), gemm_timed (the timed
 * samples and the energy window) and gemm_collect (the record's texts,
 * the peak and C). Each returns BF_OK or the error with its reason in
 * detail.
 */
struct cuda_gemm {
	int dev;
	const struct gemm_job *job;
	struct gemm_result *res;
	size_t nn;             /* n * n elements */
	size_t elem, c_elem;   /* bytes per element of A and B, of C */
	cudaDataType_t dt;
	cublasComputeType_t compute;
	cublasMath_t math;
	const char *compute_name;
	int unified;           /* integrated GPU (GB10): host memory */
	size_t free0, free_min; /* free bytes before, least seen since */
	cudaStream_t st;
	cublasHandle_t h;
	cudaEvent_t start, stop;
	cudaGraphExec_t exec;  /* the batch graph, or NULL */
	void *a, *b, *c, *ws, *flush, *bt, *scales;
	size_t flush_bytes;
	uint8_t *bt_host;
	struct gemm_args g;
	float last_ms;         /* the last warm-up call */
	int batch;             /* calls per sample */
	char graph_why[96];    /* why the batch is not one graph, or "" */
};

/* The dtype's cuBLAS types (as cuda_gemm_supports chooses them); fp8
 * needs n a multiple of 16 and writes a bf16 C. */
static enum bf_err gemm_plan(struct cuda_gemm *x, char *detail,
			     size_t detail_len)
{
	enum bf_err err;

	x->dt = CUDA_R_32F;
	x->compute = CUBLAS_COMPUTE_32F;
	x->math = CUBLAS_DEFAULT_MATH;
	x->compute_name = "CUBLAS_COMPUTE_32F";
	x->elem = bf_dtype_element_bytes(x->job->dtype);
	x->c_elem = x->elem;
	switch (x->job->dtype) {
	case BF_DTYPE_FP32:
		break;
	case BF_DTYPE_TF32:
		x->compute = CUBLAS_COMPUTE_32F_FAST_TF32;
		x->compute_name = "CUBLAS_COMPUTE_32F_FAST_TF32";
		x->math = CUBLAS_TF32_TENSOR_OP_MATH;
		break;
	case BF_DTYPE_FP16:
		x->dt = CUDA_R_16F; /* fp16 in and out, fp32 accumulate */
		break;
	case BF_DTYPE_BF16:
		x->dt = CUDA_R_16BF;
		break;
#if CUDART_VERSION >= 11080
	case BF_DTYPE_FP8:
		if (x->job->n % 16 != 0)
			return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
				       "fp8: cuBLASLt's FP8 kernels need n a "
				       "multiple of 16 (16-byte aligned "
				       "columns), n = %d", x->job->n);
		x->c_elem = 2;
		x->compute_name = "cublasLtMatmul CUDA_R_8F_E4M3 (TN), "
				  "per-tensor fp32 scales, CUDA_R_16BF out, "
				  "CUBLAS_COMPUTE_32F, fast accumulation off";
		break;
#endif
	default:
		err = cuda_gemm_supports(x->dev, x->job->dtype, detail,
					 detail_len);
		return err != BF_OK ? err :
				      bf_fail(detail, detail_len,
					      BF_ERR_UNSUPPORTED,
					      "%s: no cuBLAS GEMM run for this "
					      "dtype",
					      bf_dtype_name(x->job->dtype));
	}
	x->res->c_dtype = x->job->dtype == BF_DTYPE_FP8 ? BF_DTYPE_BF16 :
							  x->job->dtype;
	return BF_OK;
}

/* Notes the free memory now in x->free_min (the peak is free0 less the
 * least free seen). */
static enum bf_err gemm_note_free(struct cuda_gemm *x, char *detail,
				  size_t detail_len)
{
	size_t free_now = 0, total = 0;
	enum bf_err err = BF_OK;

	CUDA_TRY(free_bytes_now(x->unified, &free_now, &total));
	if (free_now < x->free_min)
		x->free_min = free_now;
out:
	return err;
}

#if CUDART_VERSION >= 11080
/* fp8's extra operands: B transposed on the host (FP8's TN layout, see
 * fp8_setup), copied like A and B, the two scales as fp32, and
 * cuBLASLt's descriptors. */
static enum bf_err gemm_setup_fp8(struct cuda_gemm *x, char *detail,
				  size_t detail_len)
{
	const struct gemm_job *job = x->job;
	float sc[FP8_SCALE_STRIDE + 1] = { 0 };
	enum bf_err err = BF_OK;

	sc[0] = (float)(job->b_scale > 0 ? job->b_scale : 1.0);
	sc[FP8_SCALE_STRIDE] = (float)(job->a_scale > 0 ? job->a_scale : 1.0);
	x->bt_host = malloc(x->nn);
	if (!x->bt_host)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host allocation of %zu bytes failed", x->nn);
	transpose_bytes(x->bt_host, job->b_host, job->n);
	CUDA_TRY(cudaMalloc(&x->bt, x->nn));
	CUDA_TRY(cudaMalloc(&x->scales, sizeof(sc)));
	CUDA_TRY(cudaMemcpyAsync(x->bt, x->bt_host, x->nn,
				 cudaMemcpyHostToDevice, x->st));
	CUDA_TRY(cudaMemcpyAsync(x->scales, sc, sizeof(sc),
				 cudaMemcpyHostToDevice, x->st));
	CUDA_TRY(cudaStreamSynchronize(x->st));
	err = fp8_setup(&x->g, x->bt, x->scales, x->ws, CUBLAS_WORKSPACE_BYTES,
			x->st, detail, detail_len);
out:
	return err;
}
#endif

/* Everything the GEMMs need on the device, inside the measured memory
 * window: the stream, the handle and its workspace (counted towards the
 * peak, as PyTorch's peak counts them), A, B and C, the events, fp8's
 * operands and, with --cold-cache, the buffer that flushes L2. */
static enum bf_err gemm_setup(struct cuda_gemm *x, char *detail,
			      size_t detail_len)
{
	const struct gemm_job *job = x->job;
	struct gemm_result *res = x->res;
	size_t total = 0;
	enum bf_err err = BF_OK;

	CUDA_TRY(cudaSetDevice(x->dev));
	CUDA_TRY(cudaDeviceSynchronize());
	x->unified = device_attr(x->dev, cudaDevAttrIntegrated) == 1;
	if (job->iters > 1) {
		/* The host copy of the first timed C, allocated and touched
		 * before the first reading: on unified memory (GB10) free
		 * memory is the host's, and C's host copy is not the GEMM's
		 * memory. */
		res->c_first_host = malloc(x->nn * x->c_elem);
		if (!res->c_first_host)
			return bf_fail(detail, detail_len, BF_ERR_NOMEM,
				       "host allocation of %zu bytes failed",
				       x->nn * x->c_elem);
		memset(res->c_first_host, 0, x->nn * x->c_elem);
	}
	CUDA_TRY(free_bytes_now(x->unified, &x->free0, &total));
	x->free_min = x->free0;
	/* Work goes to a stream of its own: the legacy default stream
	 * cannot be captured into a graph. */
	CUDA_TRY(cudaStreamCreateWithFlags(&x->st, cudaStreamNonBlocking));
	CUBLAS_TRY(cublasCreate(&x->h));
	CUBLAS_TRY(cublasSetStream(x->h, x->st));
	CUDA_TRY(cudaMalloc(&x->ws, CUBLAS_WORKSPACE_BYTES));
	CUBLAS_TRY(cublasSetWorkspace(x->h, x->ws, CUBLAS_WORKSPACE_BYTES));
	CUBLAS_TRY(set_math_mode(x->h, x->math, x->compute_name,
				 res->math_mode, sizeof(res->math_mode)));
	CUDA_TRY(cudaMalloc(&x->a, x->nn * x->elem));
	CUDA_TRY(cudaMalloc(&x->b, x->nn * x->elem));
	CUDA_TRY(cudaMalloc(&x->c, x->nn * x->c_elem));
	/* A and B go on the GEMMs' own stream, which then waits for them:
	 * st is non-blocking, so it is not ordered after a cudaMemcpy on
	 * the legacy default stream, and a copy from pageable memory may
	 * return before its DMA has landed (CUDA Runtime API, "API
	 * synchronization behavior"): the first warm-up GEMM could read a
	 * partial A. */
	CUDA_TRY(cudaMemcpyAsync(x->a, job->a_host, x->nn * x->elem,
				 cudaMemcpyHostToDevice, x->st));
	CUDA_TRY(cudaMemcpyAsync(x->b, job->b_host, x->nn * x->elem,
				 cudaMemcpyHostToDevice, x->st));
	CUDA_TRY(cudaStreamSynchronize(x->st));
	CUDA_TRY(cudaEventCreate(&x->start));
	CUDA_TRY(cudaEventCreate(&x->stop));
	x->g.h = x->h;
	x->g.n = job->n;
	x->g.dt = x->dt;
	x->g.compute = x->compute;
	x->g.a = x->a;
	x->g.b = x->b;
	x->g.c = x->c;
#if CUDART_VERSION >= 11080
	if (job->dtype == BF_DTYPE_FP8 &&
	    (err = gemm_setup_fp8(x, detail, detail_len)) != BF_OK)
		goto out;
#endif
	if (job->cold_cache) {
		/* Twice the L2, written before each sample, untimed. */
		int l2 = device_attr(x->dev, cudaDevAttrL2CacheSize);

		x->flush_bytes = (size_t)(l2 > 0 ? l2 : 64 << 20) * 2;
		CUDA_TRY(cudaMalloc(&x->flush, x->flush_bytes));
	}
out:
	return err;
}

/* Warm-up: the asked-for count, and at least GEMM_WARMUP_MIN_MS of
 * back-to-back synchronised calls. The last call's time (x->last_ms)
 * sizes the batches; the first call's memory is noted for the peak. */
static enum bf_err gemm_warmup(struct cuda_gemm *x, char *detail,
			       size_t detail_len)
{
	uint64_t w0 = bf_now_ns();
	int done = 0;
	enum bf_err err = BF_OK;

	while (done < x->job->warmup ||
	       (double)(bf_now_ns() - w0) / 1e6 < GEMM_WARMUP_MIN_MS) {
		CUDA_TRY(cudaMemsetAsync(x->c, 0xff, x->nn * x->c_elem, x->st));
		CUDA_TRY(cudaEventRecord(x->start, x->st));
		if ((err = gemm_call(&x->g, detail, detail_len)) != BF_OK)
			goto out;
		CUDA_TRY(cudaEventRecord(x->stop, x->st));
		CUDA_TRY(cudaEventSynchronize(x->stop));
		CUDA_TRY(cudaEventElapsedTime(&x->last_ms, x->start, x->stop));
		if (done == 0 &&
		    (err = gemm_note_free(x, detail, detail_len)) != BF_OK)
			goto out;
		done++;
	}
	x->res->warmup_done = done;
	x->res->warmup_ms = (double)(bf_now_ns() - w0) / 1e6;
out:
	return err;
}

/* One call per sample, unless a call is so short (small n) that launch
 * overhead and the events dominate: then each sample is a batch of calls
 * sized to last about BATCH_TARGET_MS, captured once as a CUDA Graph and
 * replayed with one launch between one pair of events, divided by the
 * batch size (a batch would run warm, so not with --cold-cache). A
 * capture that fails leaves back-to-back launches, and graph_why says
 * why. */
static enum bf_err gemm_plan_batch(struct cuda_gemm *x, char *detail,
				   size_t detail_len)
{
	cudaError_t e;
	enum bf_err err = BF_OK;

	x->batch = 1;
	if (x->last_ms > 0 && x->last_ms < BATCH_TARGET_MS &&
	    !x->job->cold_cache)
		x->batch = (int)fmin(BATCH_MAX,
				     ceil(BATCH_TARGET_MS / x->last_ms));
	if (x->batch == 1)
		return BF_OK;
	e = capture_batch(&x->g, x->st, x->batch, &x->exec);
	if (e != cudaSuccess) {
		/* fits: cudaGetErrorName's names are under 64 bytes */
		snprintf(x->graph_why, sizeof(x->graph_why),
			 " (CUDA Graph capture failed: %s)",
			 cudaGetErrorName(e));
		(void)cudaGetLastError(); /* a failed capture leaves none */
		return BF_OK;
	}
	CUDA_TRY(cudaGraphUpload(x->exec, x->st));
out:
	return err;
}

/* The timed samples (C poisoned before each, outside the events; L2
 * flushed first with --cold-cache), the GPU's state read during the
 * middle one, the first sample's C kept, then the energy window: the
 * timed loop continued with the same work (untimed) until it spans
 * ENERGY_GPU_MIN_MS between two updates of the counter (energy.h). */
static enum bf_err gemm_timed(struct cuda_gemm *x, char *detail,
			      size_t detail_len)
{
	const struct gemm_job *job = x->job;
	struct gemm_result *res = x->res;
	struct energy_meter meter;
	char bus[32];
	float t;
	int pad = 0;
	enum bf_err err = BF_OK;

	if (cudaDeviceGetPCIBusId(bus, sizeof(bus), x->dev) != cudaSuccess)
		bus[0] = '\0';
	CUDA_TRY(cudaStreamSynchronize(x->st));
	energy_meter_start_gpu(&meter, bus[0] ? bus : NULL);
	for (int it = 0; it < job->iters; it++) {
		if (x->flush)
			CUDA_TRY(cudaMemsetAsync(x->flush, it & 0xff,
						 x->flush_bytes, x->st));
		/* Poison ahead of the start event so it is not timed:
		 * all-ones bytes are NaN in fp32, fp16 and bf16, so a call
		 * that wrote nothing cannot pass. */
		CUDA_TRY(cudaMemsetAsync(x->c, 0xff, x->nn * x->c_elem, x->st));
		CUDA_TRY(cudaEventRecord(x->start, x->st));
		if ((err = run_calls(&x->g, x->st, x->exec, x->batch, detail,
				     detail_len)) != BF_OK)
			goto out;
		CUDA_TRY(cudaEventRecord(x->stop, x->st));
		/* Clocks and reasons while the GPU is busy with the middle
		 * sample (both events are queued: the reading is not timed;
		 * one too short to overlap it reads the GPU just after). */
		if (it == job->iters / 2)
			cuda_read_state(x->dev, &res->during);
		/* Synchronise every sample: without it the loop would time
		 * kernel launches, not the GEMMs. */
		CUDA_TRY(cudaEventSynchronize(x->stop));
		CUDA_TRY(cudaEventElapsedTime(&t, x->start, x->stop));
		res->samples_ms[it] = t / x->batch;
		if (it == 0 && res->c_first_host) /* verified too */
			CUDA_TRY(cudaMemcpy(res->c_first_host, x->c,
					    x->nn * x->c_elem,
					    cudaMemcpyDeviceToHost));
		/* After the sample's end: a counter update is seen within
		 * one call of when it happened. */
		(void)energy_meter_poll(&meter, (double)(it + 1) * x->batch);
	}
	while (!energy_meter_poll(&meter,
				  (double)(job->iters + pad) * x->batch)) {
		if ((err = run_calls(&x->g, x->st, x->exec, x->batch, detail,
				     detail_len)) != BF_OK)
			goto out;
		CUDA_TRY(cudaStreamSynchronize(x->st));
		pad++;
	}
	energy_meter_stop(&meter, (double)(job->iters + pad) * x->batch,
			  &res->energy);
out:
	return err;
}

/* What the record says of the run (the energy counter's domain on an
 * SoC, how the samples were timed), the peak memory, and C: last written
 * by the timed loop or its energy padding, the same GEMM, so the same C. */
static enum bf_err gemm_collect(struct cuda_gemm *x, char *detail,
				size_t detail_len)
{
	struct gemm_result *res = x->res;
	enum bf_err err = BF_OK;

	if (x->unified) /* GB10: NVML's counter is the SoC's GPU domain */
		bf_text_fmt(res->energy.source, sizeof(res->energy.source),
			    "NVML nvmlDeviceGetTotalEnergyConsumption: the "
			    "GPU domain of an SoC, not a board");
	if ((err = gemm_note_free(x, detail, detail_len)) != BF_OK)
		return err;
	if (x->batch > 1)
		bf_text_fmt(res->timing, sizeof(res->timing),
			    x->exec ? "CUDA events around one CUDA Graph "
				      "launch of %d calls%s" :
				      "CUDA events around batches of %d "
				      "calls%s",
			    x->batch, x->graph_why);
	else
		bf_text_fmt(res->timing, sizeof(res->timing),
			    "CUDA events around each call%s",
			    x->job->cold_cache ? ", L2 flushed before each" :
						 "");
	res->peak_bytes = (int64_t)(x->free0 - x->free_min);
	res->c_host = malloc(x->nn * x->c_elem);
	if (!res->c_host)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host allocation of %zu bytes failed",
			       x->nn * x->c_elem);
	CUDA_TRY(cudaMemcpy(res->c_host, x->c, x->nn * x->c_elem,
			    cudaMemcpyDeviceToHost));
out:
	return err;
}

/* Frees every object x's phases made (NULL ones are skipped). */
static void gemm_teardown(struct cuda_gemm *x)
{
	if (x->exec)
		cudaGraphExecDestroy(x->exec);
#if CUDART_VERSION >= 11080
	fp8_teardown(&x->g);
#endif
	free(x->bt_host);
	cudaFree(x->bt);
	cudaFree(x->scales);
	if (x->start)
		cudaEventDestroy(x->start);
	if (x->stop)
		cudaEventDestroy(x->stop);
	cudaFree(x->a);
	cudaFree(x->b);
	cudaFree(x->c);
	cudaFree(x->flush);
	if (x->h)
		cublasDestroy(x->h);
	cudaFree(x->ws);
	if (x->st)
		cudaStreamDestroy(x->st);
}

/* backend.gemm_run for cuBLAS (backend.h gives the contract): the
 * phases of struct cuda_gemm in order; on an error res holds no C. */
static enum bf_err cuda_gemm_run(int dev, const struct gemm_job *job,
				 struct gemm_result *res, char *detail,
				 size_t detail_len)
{
	struct cuda_gemm x;
	enum bf_err err;

	memset(&x, 0, sizeof(x)); /* gemm_teardown reads it on every path */
	x.dev = dev;
	x.job = job;
	x.res = res;
	x.nn = (size_t)job->n * (size_t)job->n;
	res->c_host = NULL;
	res->c_first_host = NULL;
	res->peak_bytes = -1;
	res->warmup_done = 0;
	res->warmup_ms = NAN;
	res->energy.joules = NAN;
	if ((err = gemm_plan(&x, detail, detail_len)) != BF_OK)
		return err;
	if ((err = gemm_setup(&x, detail, detail_len)) == BF_OK &&
	    (err = gemm_warmup(&x, detail, detail_len)) == BF_OK &&
	    (err = gemm_plan_batch(&x, detail, detail_len)) == BF_OK &&
	    (err = gemm_timed(&x, detail, detail_len)) == BF_OK)
		err = gemm_collect(&x, detail, detail_len);
	if (err != BF_OK) {
		free(res->c_host);
		res->c_host = NULL;
		free(res->c_first_host);
		res->c_first_host = NULL;
	}
	gemm_teardown(&x);
	return err;
}

const struct backend backend_cublas = {
	.name = "cublas",
	.kind = DEVICE_CUDA,
	.label = "cuda",
	.probe = cuda_probe,
	.device_usable = cuda_device_usable,
	.describe = cuda_describe,
	.mem_info = cuda_mem_info,
	.alloc = cuda_alloc,
	.release = cuda_release,
	.fill_zero = cuda_fill_zero,
	.to_host = cuda_to_host,
	.from_host = cuda_from_host,
	.add_f32 = cuda_add_f32,
	.relu_f32 = cuda_relu_f32,
	.matmul_f32 = cuda_matmul_f32,
	.round_16 = cuda_round_16,
	.transfer = cuda_transfer,
	.gemm_supports = cuda_gemm_supports,
	.gemm_library = cublas_library,
	.gemm_run = cuda_gemm_run,
	.bandwidth = cuda_bandwidth,
	.mlp_run = cuda_mlp_run,
	.peak = cuda_peak,
	.read_state = cuda_read_state,
};
