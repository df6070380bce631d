/*
 * CPU backend: tensors in host memory, GEMM with OpenBLAS. fp32 runs
 * cblas_sgemm; bf16 and fp16 run cblas_sbgemm / cblas_shgemm only when the
 * installed OpenBLAS exports them (probed with dlsym, since the header may
 * declare a symbol the library was built without, as Debian 12's does).
 * Those take 16-bit inputs and accumulate into an fp32 C.
 */
#ifdef BF_WITH_OPENBLAS
#include <cblas.h>
#endif
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "backends/backend.h"
#include "bf_clock.h"
#include "hardware/energy.h"
#include "hardware/hostinfo.h"
#include "record.h"
#include "schema.h"
#include "xmalloc.h"

#ifndef BF_WITH_OPENBLAS
/* No OpenBLAS where this agent was built (BF_OPENBLAS, CMakeLists.txt):
 * the CPU GEMM rows are skipped with this reason, and the few small
 * products the tensor checks and the batching model need are plain loops
 * below, under the names this file calls. */
#define NO_OPENBLAS_REASON                                                    \
	"agent built without OpenBLAS (none found where it was built: "      \
	"libopenblas-dev): CPU GEMMs skipped"
enum CBLAS_ORDER { CblasRowMajor = 101 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111 };
typedef int blasint;

static const char *openblas_get_config(void)
{
	return NULL;
}

static const char *openblas_get_corename(void)
{
	return NULL;
}

/* The online CPUs: the triad's thread count without OpenBLAS's. */
static int openblas_get_num_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 && n < 65536 ? (int)n : 1;
}

/* C (m, n) = alpha A (m, k) B (k, n) + beta C, row-major, no transposes:
 * the textbook triple loop (i, p, j order, so B and C are read by rows),
 * for the checks' and the batching model's small shapes only. */
static void cblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta,
			enum CBLAS_TRANSPOSE tb, blasint m, blasint n,
			blasint k, float alpha, const float *a, blasint lda,
			const float *b, blasint ldb, float beta, float *c,
			blasint ldc)
{
	(void)order;
	(void)ta;
	(void)tb;
	for (blasint i = 0; i < m; i++) {
		float *ci = c + (size_t)i * (size_t)ldc;

		for (blasint j = 0; j < n; j++)
			ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
		for (blasint p = 0; p < k; p++) {
			float aip = alpha * a[(size_t)i * (size_t)lda + p];
			const float *bp = b + (size_t)p * (size_t)ldb;

			for (blasint j = 0; j < n; j++)
				ci[j] += aip * bp[j];
		}
	}
}
#endif

/* cblas_sbgemm / cblas_shgemm share this shape (16-bit A and B, fp32 C). */
typedef void (*gemm16_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE,
			  enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
			  float, const uint16_t *, blasint, const uint16_t *,
			  blasint, float, float *, blasint);

static gemm16_fn lookup_gemm16(enum bf_dtype dtype)
{
	const char *sym = dtype == BF_DTYPE_BF16 ? "cblas_sbgemm" :
			  dtype == BF_DTYPE_FP16 ? "cblas_shgemm" : NULL;
	void *p;

	if (!sym)
		return NULL;
#ifndef BF_WITH_OPENBLAS
	return NULL; /* a symbol of that name here would be no OpenBLAS's */
#endif
	p = dlsym(RTLD_DEFAULT, sym);
	return (gemm16_fn)(uintptr_t)p;
}

/* "0.3.21" from openblas_get_config()'s "OpenBLAS 0.3.21 ..." (the
 * library actually loaded, not the header compiled against); static. */
static const char *openblas_version(void)
{
	static char version[32];
	const char *cfg = openblas_get_config();
	const char *p = cfg ? strstr(cfg, "OpenBLAS ") : NULL;

	if (!p)
		return NULL;
	if (sscanf(p + 9, "%31s", version) != 1)
		return NULL;
	return version;
}

static const char *openblas_library(void)
{
	static char lib[48];
	const char *v = openblas_version();

#ifndef BF_WITH_OPENBLAS
	snprintf(lib, sizeof(lib), "none (built without OpenBLAS)");
	(void)v;
	return lib;
#endif
	snprintf(lib, sizeof(lib), "OpenBLAS %s", v ? v : "(unknown version)");
	return lib;
}

/* Set in the environment of the agent's second start by openblas_pick_core:
 * the core OpenBLAS had chosen on its own. */
#define ENV_CORE_REPLACED "BF_AGENT_OPENBLAS_CORE_REPLACED"

/* The core OpenBLAS chose by itself when openblas_pick_core replaced it;
 * "" when it did not. */
static char core_replaced[32];

void openblas_pick_core(char **argv)
{
#if defined(__x86_64__) || defined(__i386__)
	const char *marker = getenv(ENV_CORE_REPLACED);
	const char *core, *pick = NULL;

	if (marker) {
		/* The second start: OpenBLAS has loaded with the core set
		 * below. Both variables go, so that the host record shows
		 * the environment the agent was started with. */
		snprintf(core_replaced, sizeof(core_replaced), "%s", marker);
		unsetenv(ENV_CORE_REPLACED);
		unsetenv("OPENBLAS_CORETYPE");
		return;
	}
	if (getenv("OPENBLAS_CORETYPE"))
		return; /* the user's choice */
	/* Prescott (SSE3) is what a DYNAMIC_ARCH OpenBLAS falls back to on
	 * a CPU model newer than itself: Debian 12's 0.3.21 does so on
	 * Emerald Rapids (family 6, model 207), 4-8x below the AVX-512
	 * kernels the CPU runs. Only that fallback is replaced. */
#ifndef BF_WITH_OPENBLAS
	return; /* no OpenBLAS core to pick */
#endif
	core = openblas_get_corename();
	if (!core || strcasecmp(core, "Prescott") != 0)
		return;
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
	    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512vl"))
		pick = "SkylakeX";
	else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		pick = "Haswell";
	else if (__builtin_cpu_supports("avx"))
		pick = "Sandybridge";
	if (!pick)
		return;
	/* The core is chosen once, when the library loads: start again
	 * with it set. */
	if (setenv("OPENBLAS_CORETYPE", pick, 1) == 0 &&
	    setenv(ENV_CORE_REPLACED, core, 1) == 0)
		execv("/proc/self/exe", argv);
	/* Could not start again: carry on with OpenBLAS's own choice. */
	unsetenv("OPENBLAS_CORETYPE");
	unsetenv(ENV_CORE_REPLACED);
#else
	(void)argv;
#endif
}

static enum bf_err cpu_probe(int *ndevices, char *detail, size_t detail_len)
{
	*ndevices = 1;
	return BF_OK;
}

static void cpu_peak(int dev, enum bf_dtype dtype, struct peak *out);

/* The variables OpenBLAS and OpenMP read for its core and threads,
 * recorded as set ("" too) or null. */
static const char *const openblas_env[] = {
	"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
	"OMP_NUM_THREADS",
};

static char *dup_or_null(const char *s)
{
	return s ? bf_xstrdup(s) : NULL;
}

static void cpu_describe(struct bf_rec_host *host)
{
	struct peak unused;

	host->openblas_version = dup_or_null(openblas_version());
	/* The core OpenBLAS actually dispatches to: with OPENBLAS_CORETYPE
	 * set, this is the forced one, not what the CPU could run. */
	host->openblas_core = dup_or_null(openblas_get_corename());
	host->openblas_core_replaced =
		core_replaced[0] ? bf_xstrdup(core_replaced) : NULL;
	host->openblas_threads = openblas_get_num_threads();
	host->openblas_config = dup_or_null(openblas_get_config());
	host->openblas_sbgemm = lookup_gemm16(BF_DTYPE_BF16) != NULL;
	host->openblas_shgemm = lookup_gemm16(BF_DTYPE_FP16) != NULL;
	hostinfo_env(openblas_env,
		     (int)(sizeof(openblas_env) / sizeof(openblas_env[0])), 0,
		     &host->openblas_env, &host->nopenblas_env);
	/* The probe, now: before any GEMM leaves OpenBLAS's threads
	 * spinning on the cores it measures. */
	cpu_peak(0, BF_DTYPE_FP32, &unused);
}

/* The CPU's clusters and their probed FLOP/cycle, once per process: the
 * first peak request (cpu_describe, before any GEMM keeps OpenBLAS's
 * threads busy) runs the probe. */
static struct cpu_peak_model cpu_model;
static pthread_once_t cpu_model_once = PTHREAD_ONCE_INIT;

static void cpu_model_probe(void)
{
	peak_cpu_probe(&cpu_model);
}

static void cpu_peak(int dev, enum bf_dtype dtype, struct peak *out)
{
	pthread_once(&cpu_model_once, cpu_model_probe);
	peak_cpu(&cpu_model, dtype, out);
}

static void cpu_read_state(int dev, struct device_state *out)
{
	memset(out, 0, sizeof(*out));
	out->is_gpu = 0;
	cpu_state_read(&out->cpu);
}

static enum bf_err cpu_mem_info(int dev, uint64_t *free_bytes,
				uint64_t *total_bytes, char *limit,
				size_t limit_len)
{
	uint64_t avail;

	if (hostinfo_memory(&avail, total_bytes) != BF_OK)
		return BF_ERR_IO;
	return hostinfo_memory_room(free_bytes, limit, limit_len);
}

static enum bf_err cpu_alloc(int dev, size_t bytes, void **out, char *detail,
			     size_t detail_len)
{
	/* 64-byte alignment: a cache line, and what AVX-512 loads prefer. */
	size_t rounded = (bytes + 63) & ~(size_t)63;

	*out = aligned_alloc(64, rounded ? rounded : 64);
	if (!*out)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host allocation of %zu bytes failed", bytes);
	return BF_OK;
}

static void cpu_release(int dev, void *p)
{
	free(p);
}

static enum bf_err cpu_fill_zero(int dev, void *p, size_t bytes, char *detail,
				 size_t detail_len)
{
	memset(p, 0, bytes);
	return BF_OK;
}

static enum bf_err cpu_copy(int dev, void *dst, const void *src, size_t bytes,
			    char *detail, size_t detail_len)
{
	memcpy(dst, src, bytes);
	return BF_OK;
}

static enum bf_err cpu_add_f32(int dev, int rank, const int64_t *shape,
			       const float *a, const int64_t *as,
			       const float *b, const int64_t *bs, float *out,
			       char *detail, size_t detail_len)
{
	int64_t idx[16] = { 0 };
	int64_t total = 1, i;
	int d;

	for (d = 0; d < rank; d++)
		total *= shape[d];
	for (i = 0; i < total; i++) {
		int64_t ao = 0, bo = 0;

		for (d = 0; d < rank; d++) {
			ao += idx[d] * as[d];
			bo += idx[d] * bs[d];
		}
		out[i] = a[ao] + b[bo];
		for (d = rank - 1; d >= 0; d--) { /* row-major odometer */
			if (++idx[d] < shape[d])
				break;
			idx[d] = 0;
		}
	}
	return BF_OK;
}

static enum bf_err cpu_relu_f32(int dev, float *p, size_t count, char *detail,
				size_t detail_len)
{
	/* max(x, 0) that keeps NaN, as torch.relu does: a NaN is an error
	 * to report, not a zero. */
	for (size_t i = 0; i < count; i++)
		if (p[i] < 0.0f)
			p[i] = 0.0f;
	return BF_OK;
}

static enum bf_err cpu_matmul_f32(int dev, int m, int k, int n, const float *a,
				  const float *b, float *c, char *detail,
				  size_t detail_len)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a,
		    k, b, n, 0.0f, c, n);
	return BF_OK;
}

static enum bf_err cpu_round_16(int dev, enum bf_dtype dtype, const float *in,
				uint16_t *out, size_t count, char *detail,
				size_t detail_len)
{
	for (size_t i = 0; i < count; i++)
		out[i] = dtype == BF_DTYPE_FP16 ? bf_fp32_to_fp16(in[i]) :
						  bf_fp32_to_bf16(in[i]);
	return BF_OK;
}

static enum bf_err cpu_gemm_supports(int dev, enum bf_dtype dtype,
				     char *detail, size_t detail_len)
{
#ifndef BF_WITH_OPENBLAS
	return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED, "%s: %s",
		       bf_dtype_name(dtype), NO_OPENBLAS_REASON);
#endif
	switch (dtype) {
	case BF_DTYPE_FP32:
		return BF_OK;
	case BF_DTYPE_BF16:
	case BF_DTYPE_FP16:
		if (lookup_gemm16(dtype))
			return BF_OK;
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: this OpenBLAS (%s) has no %s",
			       bf_dtype_name(dtype), openblas_library(),
			       dtype == BF_DTYPE_BF16 ? "cblas_sbgemm" :
							"cblas_shgemm");
	case BF_DTYPE_TF32:
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "tf32: a tensor-core math mode, CPUs have none");
	case BF_DTYPE_FP8:
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "fp8: OpenBLAS has no FP8 GEMM (a GPU's, compute "
			       "capability 8.9 and later)");
	default:
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: no CPU GEMM for this dtype",
			       bf_dtype_name(dtype));
	}
}

static enum bf_err cpu_gemm_run(int dev, const struct gemm_job *job,
				struct gemm_result *res, char *detail,
				size_t detail_len)
{
	size_t nn = (size_t)job->n * (size_t)job->n;
	int64_t rss_before, peak;
	gemm16_fn gemm16 = NULL;
	float *c;
	unsigned char *flush = NULL;
	size_t flush_bytes = 0;
	struct energy_meter meter;
	uint64_t w0;
	int n = job->n;

#ifndef BF_WITH_OPENBLAS
	return cpu_gemm_supports(dev, job->dtype, detail, detail_len);
#endif
	if (job->dtype != BF_DTYPE_FP32) {
		gemm16 = lookup_gemm16(job->dtype);
		if (!gemm16)
			return cpu_gemm_supports(dev, job->dtype, detail,
						 detail_len);
	}
	/* A and B are used in place: the job's host buffers already are
	 * this device's memory. Peak RSS counts C and OpenBLAS's buffers. */
	hostinfo_reset_peak_rss();
	rss_before = hostinfo_rss_bytes();
	c = hostinfo_alloc_operand(nn * sizeof(float));
	if (!c)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host allocation of %zu bytes failed",
			       nn * sizeof(float));
	snprintf(res->timing, sizeof(res->timing),
		 "CLOCK_MONOTONIC around each call%s",
		 job->cold_cache ? ", caches flushed before each" : "");
	snprintf(res->math_mode, sizeof(res->math_mode), "%s",
		 gemm16 ? (job->dtype == BF_DTYPE_BF16 ?
				   "cblas_sbgemm (fp32 accumulate)" :
				   "cblas_shgemm (fp32 accumulate)") :
			  "cblas_sgemm");
	if (job->cold_cache) {
		flush_bytes = hostinfo_llc_bytes() * 2;
		flush = malloc(flush_bytes);
		if (!flush) {
			free(c);
			return bf_fail(detail, detail_len, BF_ERR_NOMEM,
				       "host allocation of %zu bytes for the "
				       "cache flush failed", flush_bytes);
		}
	}
	w0 = bf_now_ns();
	for (int it = 0; it < job->warmup + job->iters; it++) {
		uint64_t t0;

		if (it == job->warmup) {
			res->warmup_ms = (double)(bf_now_ns() - w0) / 1e6;
			/* The package energy over the timed loop (including
			 * the untimed poisoning between calls). */
			energy_meter_start_cpu(&meter, NULL);
		}
		/* Cold cache: write a buffer twice the last-level cache,
		 * untimed, so A, B and C come from DRAM. */
		if (flush)
			memset(flush, it & 0xff, flush_bytes);

		/* Poison before every call, untimed: all-ones bytes are NaN
		 * in every float format, so an output this call did not
		 * write (a library that computes once and then returns
		 * early) cannot pass verification. */
		memset(c, 0xff, nn * sizeof(float));
		t0 = bf_now_ns();

		/* Row-major throughout: OpenBLAS's CBLAS layer maps it onto
		 * its column-major kernels without copying. */
		if (gemm16)
			gemm16(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n,
			       n, 1.0f, job->a_host, n, job->b_host, n, 0.0f,
			       c, n);
		else
			cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
				    n, n, n, 1.0f, job->a_host, n, job->b_host,
				    n, 0.0f, c, n);
		if (it >= job->warmup)
			res->samples_ms[it - job->warmup] =
				(double)(bf_now_ns() - t0) / 1e6;
		if (it == job->warmup && job->iters > 1) {
			/* The first timed output is verified too. */
			res->c_first_host = malloc(nn * sizeof(float));
			if (!res->c_first_host) {
				free(c);
				free(flush);
				return bf_fail(detail, detail_len, BF_ERR_NOMEM,
					       "host allocation of %zu bytes failed",
					       nn * sizeof(float));
			}
			memcpy(res->c_first_host, c, nn * sizeof(float));
		}
	}
	energy_meter_stop(&meter, job->iters, &res->energy);
	res->warmup_done = job->warmup;
	peak = hostinfo_peak_rss_bytes();
	res->peak_bytes = (peak >= 0 && rss_before >= 0 && peak >= rss_before) ?
				  peak - rss_before + (int64_t)(2 * nn *
					bf_dtype_element_bytes(job->dtype)) :
				  -1;
	free(flush);
	res->c_dtype = BF_DTYPE_FP32;
	res->c_host = c;
	return BF_OK;
}

/* --- bandwidth: the STREAM triad ---------------------------------------- */

/* What the triad's threads share. The workers wait at the gate until
 * every one of them exists (go = 1) or one could not be created (go =
 * -1: they leave), so that the barrier only ever counts live threads. */
struct triad_shared {
	double *a, *b, *c;
	size_t n;
	int nthreads;
	int passes;                /* warm-up + timed */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;
	pthread_barrier_t barrier; /* every worker and the timing thread */
};

struct triad_worker_arg {
	struct triad_shared *sh;
	int index;
};

/* The scalar of pass p: changes every pass, so the last pass's output
 * (1 + 2 s) shows that it ran; small integers, exact in fp64. */
static double triad_scalar(int pass)
{
	return (double)(pass + 1);
}

/* One thread's share: its slice of a, b and c, which it first-touches
 * too, so that on a NUMA machine each page lives on the node of the
 * thread that streams it (as STREAM's OpenMP version arranges with its
 * parallel initialisation). */
static void *triad_worker(void *arg)
{
	const struct triad_worker_arg *w = arg;
	struct triad_shared *sh = w->sh;
	double *restrict a = sh->a;
	const double *restrict b = sh->b, *restrict c = sh->c;
	size_t begin, end;
	int go;

	pthread_mutex_lock(&sh->lock);
	while (sh->go == 0)
		pthread_cond_wait(&sh->cond, &sh->lock);
	go = sh->go;
	pthread_mutex_unlock(&sh->lock);
	if (go < 0)
		return NULL;
	begin = sh->n * (size_t)w->index / (size_t)sh->nthreads;
	end = sh->n * (size_t)(w->index + 1) / (size_t)sh->nthreads;
	for (size_t i = begin; i < end; i++) {
		sh->a[i] = 0.0;
		sh->b[i] = 1.0;
		sh->c[i] = 2.0;
	}
	pthread_barrier_wait(&sh->barrier); /* all pages touched */
	for (int p = 0; p < sh->passes; p++) {
		double s = triad_scalar(p);

		pthread_barrier_wait(&sh->barrier); /* start */
		for (size_t i = begin; i < end; i++)
			a[i] = b[i] + s * c[i];
		pthread_barrier_wait(&sh->barrier); /* done */
	}
	return NULL;
}

static enum bf_err cpu_bandwidth(int dev, const struct bw_job *job,
				 struct bw_result *res, char *detail,
				 size_t detail_len)
{
	struct triad_shared sh = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	struct triad_worker_arg *args = NULL;
	pthread_t *threads = NULL;
	int warmup = job->warmup > 0 ? job->warmup : 1, started = 0;
	enum bf_err err = BF_OK;
	double want;

	if (job->kind != BW_TRIAD)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "the CPU measures the triad only");
	sh.n = job->array_bytes / sizeof(double);
	sh.passes = warmup + job->iters;
	/* As many threads as OpenBLAS runs its GEMMs with. */
	sh.nthreads = openblas_get_num_threads();
	if (sh.nthreads < 1)
		sh.nthreads = 1;
	if ((size_t)sh.nthreads > sh.n)
		sh.nthreads = sh.n > 0 ? (int)sh.n : 1;
	/* Not touched here: each worker first-touches its own slice. */
	sh.a = hostinfo_alloc_operand(sh.n * sizeof(double));
	sh.b = hostinfo_alloc_operand(sh.n * sizeof(double));
	sh.c = hostinfo_alloc_operand(sh.n * sizeof(double));
	args = calloc((size_t)sh.nthreads, sizeof(*args));
	threads = calloc((size_t)sh.nthreads, sizeof(*threads));
	if (!sh.a || !sh.b || !sh.c || !args || !threads) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host allocation of 3 x %zu bytes failed",
			      sh.n * sizeof(double));
		goto out;
	}
	if (pthread_barrier_init(&sh.barrier, NULL,
				 (unsigned)sh.nthreads + 1) != 0) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "pthread_barrier_init failed");
		goto out;
	}
	for (; started < sh.nthreads; started++) {
		args[started] = (struct triad_worker_arg){ &sh, started };
		if (pthread_create(&threads[started], NULL, triad_worker,
				   &args[started]) != 0)
			break;
	}
	pthread_mutex_lock(&sh.lock);
	sh.go = started == sh.nthreads ? 1 : -1;
	pthread_cond_broadcast(&sh.cond);
	pthread_mutex_unlock(&sh.lock);
	if (sh.go < 0) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "pthread_create failed after %d of %d threads",
			      started, sh.nthreads);
	} else {
		pthread_barrier_wait(&sh.barrier); /* first touch done */
		for (int p = 0; p < sh.passes; p++) {
			uint64_t t0 = bf_now_ns();

			pthread_barrier_wait(&sh.barrier); /* start */
			pthread_barrier_wait(&sh.barrier); /* done */
			if (p >= warmup)
				res->samples_ms[p - warmup] =
					(double)(bf_now_ns() - t0) / 1e6;
		}
	}
	for (int t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	pthread_barrier_destroy(&sh.barrier);
	if (err != BF_OK)
		goto out;
	/* Outside the timed region: every element holds the last pass's
	 * 1 + s 2. */
	want = 1.0 + triad_scalar(sh.passes - 1) * 2.0;
	res->verified = 1;
	for (size_t i = 0; i < sh.n; i++)
		if (sh.a[i] != want) {
			res->verified = 0;
			break;
		}
	res->threads = sh.nthreads;
	res->bytes = 3.0 * (double)sh.n * sizeof(double);
	snprintf(res->counting, sizeof(res->counting),
		 "3 arrays x 8 bytes (fp64) per element: b and c read, a "
		 "written (STREAM's count)");
	snprintf(res->timing, sizeof(res->timing),
		 "CLOCK_MONOTONIC around each pass of %d threads", sh.nthreads);
out:
	free(threads);
	free(args);
	free(sh.a);
	free(sh.b);
	free(sh.c);
	return err;
}

/* --- the batching model ------------------------------------------------ */

/* One scoring call: rows of x through W1, relu, W2, in fp32 (sgemm). */
static void mlp_call(const struct mlp_job *job, int rows, const float *x,
		     float *h, float *out)
{
	/* Row-major, as everywhere here: h (rows, hidden) = x W1. */
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows,
		    job->hidden, job->in, 1.0f, x, job->in, job->w1,
		    job->hidden, 0.0f, h, job->hidden);
	for (int i = 0; i < rows * job->hidden; i++)
		if (h[i] < 0.0f)
			h[i] = 0.0f;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, job->out,
		    job->hidden, 1.0f, h, job->hidden, job->w2, job->out, 0.0f,
		    out, job->out);
}

static enum bf_err cpu_mlp_run(int dev, const struct mlp_job *job,
			       struct mlp_result *res, char *detail,
			       size_t detail_len)
{
	float *h;

	if (job->dtype != BF_DTYPE_FP32)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: the CPU runs the model in fp32",
			       bf_dtype_name(job->dtype));
	h = malloc((size_t)job->rows * (size_t)job->hidden * sizeof(*h));
	if (!h)
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host allocation failed");
#ifdef BF_WITH_OPENBLAS
	snprintf(res->math_mode, sizeof(res->math_mode), "cblas_sgemm");
#else
	snprintf(res->math_mode, sizeof(res->math_mode),
		 "fp32 loops (built without OpenBLAS)");
#endif
	snprintf(res->timing, sizeof(res->timing),
		 "CLOCK_MONOTONIC around the %d one-row calls and the batch call",
		 job->rows);
	for (int it = 0; it < job->warmup + job->iters; it++) {
		uint64_t t0 = bf_now_ns(), t1;

		for (int r = 0; r < job->rows; r++)
			mlp_call(job, 1, job->x + (size_t)r * job->in, h,
				 res->single_out + (size_t)r * job->out);
		t1 = bf_now_ns();
		mlp_call(job, job->rows, job->x, h, res->batch_out);
		if (it >= job->warmup) {
			res->single_ms[it - job->warmup] =
				(double)(t1 - t0) / 1e6 / job->rows;
			res->batch_ms[it - job->warmup] =
				(double)(bf_now_ns() - t1) / 1e6;
		}
	}
	free(h);
	return BF_OK;
}

const struct backend backend_openblas = {
	.name = "openblas",
	.kind = DEVICE_CPU,
	.label = "cpu",
	.probe = cpu_probe,
	.describe = cpu_describe,
	.mem_info = cpu_mem_info,
	.alloc = cpu_alloc,
	.release = cpu_release,
	.fill_zero = cpu_fill_zero,
	.to_host = cpu_copy,
	.from_host = cpu_copy,
	.add_f32 = cpu_add_f32,
	.relu_f32 = cpu_relu_f32,
	.matmul_f32 = cpu_matmul_f32,
	.round_16 = cpu_round_16,
	.transfer = NULL,
	.gemm_supports = cpu_gemm_supports,
	.gemm_library = openblas_library,
	.gemm_run = cpu_gemm_run,
	.bandwidth = cpu_bandwidth,
	.mlp_run = cpu_mlp_run,
	.peak = cpu_peak,
	.read_state = cpu_read_state,
};
