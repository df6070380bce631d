/*
 * CPU bf16 and fp16 GEMM through oneDNN's matmul primitive, for hosts
 * whose OpenBLAS has no cblas_sbgemm / cblas_shgemm (Debian's and
 * Ubuntu's packages are built without them). backend.c's
 * backend_gemm_for picks it only then: an OpenBLAS with them is still
 * preferred. Not a device backend of its own (not in backend_table): the
 * CPU's memory, peak and state stay backend_openblas's; this one only
 * runs the GEMM.
 *
 * The GEMM: row-major C (n x n, f32) = A (n x n) B (n x n), A and B in
 * bf16 or f16 (tag dnnl_ab), accumulated in f32 (oneDNN's matmul
 * accumulates 16-bit inputs in f32: "Data Types", oneDNN developer
 * guide), timed as backend_openblas.c times sgemm: warm-up, C poisoned
 * with NaN before every call, CLOCK_MONOTONIC around each
 * execute + stream wait. The record names the implementation oneDNN chose
 * for the shape (dnnl_query_impl_info_str: "brg:avx512_core_bf16",
 * "brg:avx512_core_amx", ...) and the library's effective ISA
 * (dnnl_get_effective_cpu_isa). A reference implementation ("ref:...",
 * plain C loops) is refused: it is no measure of the CPU.
 *
 * Built against oneDNN 2.x (Debian 12: 2.6.3) or 3.x (Debian 13: 3.7.2),
 * whose C APIs differ in how memory and matmul descriptors are made.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#include "backends/backend.h"
#include "bf_clock.h"
#include "hardware/energy.h"
#include "hardware/hostinfo.h"

/* The engine and stream, made once per process (onednn_init). */
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static char init_error[160]; /* "" when the engine and stream exist */
static char library[96];     /* "oneDNN 2.6.3 (ISA avx512_core_bf16)" */
static char isa_name[48];    /* "avx512_core_bf16" */
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* dnnl_cpu_isa2str's "cpu_isa_avx512_core_bf16" without its prefix;
 * "default" on a CPU where oneDNN has no ISA levels (AArch64: its
 * kernels are chosen per primitive, the impl string names them). */
static void read_isa(void)
{
	const char *s = dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa());

	if (!s)
		s = "unknown";
	if (strncmp(s, "cpu_isa_", 8) == 0)
		s += 8;
	snprintf(isa_name, sizeof(isa_name), "%s", s);
}

static void onednn_init(void)
{
	const dnnl_version_t *v = dnnl_version();
	dnnl_status_t st;

	read_isa();
	snprintf(library, sizeof(library), "oneDNN %d.%d.%d (ISA %s)",
		 v ? v->major : 0, v ? v->minor : 0, v ? v->patch : 0,
		 isa_name);
	st = dnnl_engine_create(&engine, dnnl_cpu, 0);
	if (st != dnnl_success) {
		snprintf(init_error, sizeof(init_error),
			 "oneDNN: no CPU engine (dnnl_engine_create: %s)",
			 dnnl_status2str(st));
		return;
	}
	st = dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
	if (st != dnnl_success)
		snprintf(init_error, sizeof(init_error),
			 "oneDNN: no CPU stream (dnnl_stream_create: %s)",
			 dnnl_status2str(st));
}

static dnnl_data_type_t dnnl_type(enum bf_dtype dtype)
{
	return dtype == BF_DTYPE_BF16 ? dnnl_bf16 :
	       dtype == BF_DTYPE_FP16 ? dnnl_f16 :
					dnnl_data_type_undef;
}

/* The three n x n row-major descriptors and the matmul primitive
 * descriptor for dtype; both oneDNN APIs. */
struct mm {
#if DNNL_VERSION_MAJOR >= 3
	dnnl_memory_desc_t a, b, c;
#else
	dnnl_memory_desc_t a_s, b_s, c_s;
	const dnnl_memory_desc_t *a, *b, *c;
#endif
	dnnl_primitive_desc_t pd;
};

static void mm_free(struct mm *m)
{
	if (m->pd)
		dnnl_primitive_desc_destroy(m->pd);
#if DNNL_VERSION_MAJOR >= 3
	if (m->a)
		dnnl_memory_desc_destroy(m->a);
	if (m->b)
		dnnl_memory_desc_destroy(m->b);
	if (m->c)
		dnnl_memory_desc_destroy(m->c);
#endif
	memset(m, 0, sizeof(*m));
}

/* dnnl_success, or the status of the call that failed; m is freed by
 * the caller either way. */
static dnnl_status_t mm_make(struct mm *m, enum bf_dtype dtype, int n)
{
	dnnl_dims_t dims = { n, n };
	dnnl_data_type_t t = dnnl_type(dtype);
	dnnl_status_t st;

	memset(m, 0, sizeof(*m));
#if DNNL_VERSION_MAJOR >= 3
	st = dnnl_memory_desc_create_with_tag(&m->a, 2, dims, t, dnnl_ab);
	if (st == dnnl_success)
		st = dnnl_memory_desc_create_with_tag(&m->b, 2, dims, t, dnnl_ab);
	if (st == dnnl_success)
		st = dnnl_memory_desc_create_with_tag(&m->c, 2, dims, dnnl_f32,
						      dnnl_ab);
	if (st == dnnl_success)
		st = dnnl_matmul_primitive_desc_create(&m->pd, engine, m->a,
						       m->b, NULL, m->c, NULL);
#else
	dnnl_matmul_desc_t desc;

	m->a = &m->a_s;
	m->b = &m->b_s;
	m->c = &m->c_s;
	st = dnnl_memory_desc_init_by_tag(&m->a_s, 2, dims, t, dnnl_ab);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(&m->b_s, 2, dims, t, dnnl_ab);
	if (st == dnnl_success)
		st = dnnl_memory_desc_init_by_tag(&m->c_s, 2, dims, dnnl_f32,
						  dnnl_ab);
	if (st == dnnl_success)
		st = dnnl_matmul_desc_init(&desc, m->a, m->b, NULL, m->c);
	if (st == dnnl_success)
		st = dnnl_primitive_desc_create(&m->pd, &desc, NULL, engine,
						NULL);
#endif
	if (st != dnnl_success)
		m->pd = NULL;
	return st;
}

/* The implementation oneDNN picked ("brg:avx512_core_bf16"); static. */
static const char *mm_impl(const struct mm *m)
{
	const char *impl = NULL;

	if (dnnl_primitive_desc_query(m->pd, dnnl_query_impl_info_str, 0,
				      &impl) != dnnl_success ||
	    !impl)
		return "unknown";
	return impl;
}

/* Whether oneDNN has a matmul for dtype at size n, and not only its
 * reference loops: BF_OK, or BF_ERR_UNSUPPORTED with the reason. */
static enum bf_err mm_check(enum bf_dtype dtype, int n, struct mm *m,
			    char *detail, size_t detail_len)
{
	dnnl_status_t st;

	pthread_once(&init_once, onednn_init);
	if (init_error[0])
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED, "%s",
			       init_error);
	if (dtype != BF_DTYPE_BF16 && dtype != BF_DTYPE_FP16)
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: the oneDNN backend runs bf16 and fp16 only",
			       bf_dtype_name(dtype));
	st = mm_make(m, dtype, n);
	if (st != dnnl_success) {
		mm_free(m);
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: %s has no %s matmul on this CPU (%s)",
			       bf_dtype_name(dtype), library,
			       dnnl_dt2str(dnnl_type(dtype)),
			       dnnl_status2str(st));
	}
	if (strncmp(mm_impl(m), "ref", 3) == 0) {
		char impl[64];

		snprintf(impl, sizeof(impl), "%s", mm_impl(m));
		mm_free(m);
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED,
			       "%s: %s has only its reference matmul (%s) on "
			       "this CPU, plain loops that measure nothing",
			       bf_dtype_name(dtype), library, impl);
	}
	return BF_OK;
}

static enum bf_err onednn_probe(int *ndevices, char *detail,
				size_t detail_len)
{
	pthread_once(&init_once, onednn_init);
	*ndevices = init_error[0] ? 0 : 1;
	if (init_error[0])
		return bf_fail(detail, detail_len, BF_ERR_UNSUPPORTED, "%s",
			       init_error);
	return BF_OK;
}

/* Not a device backend: the host record's CPU provenance is
 * backend_openblas's; each gemm record names oneDNN and its kernel. */
static void onednn_describe(struct bf_rec_host *host)
{
	(void)host;
}

static enum bf_err onednn_gemm_supports(int dev, enum bf_dtype dtype,
					char *detail, size_t detail_len)
{
	struct mm m;
	/* 64: a size every implementation takes; the run checks its own. */
	enum bf_err err = mm_check(dtype, 64, &m, detail, detail_len);

	if (err == BF_OK)
		mm_free(&m);
	return err;
}

static const char *onednn_library(void)
{
	pthread_once(&init_once, onednn_init);
	return library;
}

static enum bf_err onednn_gemm_run(int dev, const struct gemm_job *job,
				   struct gemm_result *res, char *detail,
				   size_t detail_len)
{
	size_t nn = (size_t)job->n * (size_t)job->n;
	int64_t rss_before, peak;
	struct mm m;
	dnnl_primitive_t prim = NULL;
	dnnl_memory_t ma = NULL, mb = NULL, mc = NULL;
	unsigned char *flush = NULL;
	size_t flush_bytes = 0;
	struct energy_meter meter;
	float *c = NULL;
	enum bf_err err;
	dnnl_status_t st;
	uint64_t w0;

	err = mm_check(job->dtype, job->n, &m, detail, detail_len);
	if (err != BF_OK)
		return err;
	hostinfo_reset_peak_rss();
	rss_before = hostinfo_rss_bytes();
	c = hostinfo_alloc_operand(nn * sizeof(float));
	if (!c) {
		err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
			      "host allocation of %zu bytes failed",
			      nn * sizeof(float));
		goto out;
	}
	/* A and B are used in place (oneDNN only reads a source). */
	st = dnnl_primitive_create(&prim, m.pd);
	if (st == dnnl_success)
		st = dnnl_memory_create(&ma, m.a, engine, (void *)job->a_host);
	if (st == dnnl_success)
		st = dnnl_memory_create(&mb, m.b, engine, (void *)job->b_host);
	if (st == dnnl_success)
		st = dnnl_memory_create(&mc, m.c, engine, c);
	if (st != dnnl_success) {
		err = bf_fail(detail, detail_len,
			      st == dnnl_out_of_memory ? BF_ERR_NOMEM :
							 BF_ERR_BLAS,
			      "oneDNN matmul set-up: %s", dnnl_status2str(st));
		goto out;
	}
	snprintf(res->math_mode, sizeof(res->math_mode),
		 "dnnl matmul %s, %s x %s -> f32 (f32 accumulate)", mm_impl(&m),
		 dnnl_dt2str(dnnl_type(job->dtype)),
		 dnnl_dt2str(dnnl_type(job->dtype)));
	snprintf(res->timing, sizeof(res->timing),
		 "CLOCK_MONOTONIC around each execute and stream wait%s",
		 job->cold_cache ? ", caches flushed before each" : "");
	if (job->cold_cache) {
		flush_bytes = hostinfo_llc_bytes() * 2;
		flush = malloc(flush_bytes);
		if (!flush) {
			err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
				      "host allocation of %zu bytes for the "
				      "cache flush failed", flush_bytes);
			goto out;
		}
	}
	w0 = bf_now_ns();
	for (int it = 0; it < job->warmup + job->iters; it++) {
		dnnl_exec_arg_t args[3] = { { DNNL_ARG_SRC, ma },
					    { DNNL_ARG_WEIGHTS, mb },
					    { DNNL_ARG_DST, mc } };
		uint64_t t0;

		if (it == job->warmup) {
			res->warmup_ms = (double)(bf_now_ns() - w0) / 1e6;
			energy_meter_start_cpu(&meter, NULL);
		}
		if (flush)
			memset(flush, it & 0xff, flush_bytes);
		/* Poisoned before every call, untimed (as in
		 * backend_openblas.c): an output the call did not write
		 * stays NaN and fails verification. */
		memset(c, 0xff, nn * sizeof(float));
		t0 = bf_now_ns();
		st = dnnl_primitive_execute(prim, stream, 3, args);
		if (st == dnnl_success)
			st = dnnl_stream_wait(stream);
		if (it >= job->warmup)
			res->samples_ms[it - job->warmup] =
				(double)(bf_now_ns() - t0) / 1e6;
		if (st != dnnl_success) {
			if (it >= job->warmup)
				energy_meter_stop(&meter, 0, &res->energy);
			err = bf_fail(detail, detail_len, BF_ERR_BLAS,
				      "oneDNN matmul: %s", dnnl_status2str(st));
			goto out;
		}
		if (it == job->warmup && job->iters > 1) {
			res->c_first_host = malloc(nn * sizeof(float));
			if (!res->c_first_host) {
				energy_meter_stop(&meter, 0, &res->energy);
				err = bf_fail(detail, detail_len, BF_ERR_NOMEM,
					      "host allocation of %zu bytes failed",
					      nn * sizeof(float));
				goto out;
			}
			memcpy(res->c_first_host, c, nn * sizeof(float));
		}
	}
	energy_meter_stop(&meter, job->iters, &res->energy);
	res->warmup_done = job->warmup;
	peak = hostinfo_peak_rss_bytes();
	res->peak_bytes = (peak >= 0 && rss_before >= 0 && peak >= rss_before) ?
				  peak - rss_before +
					  (int64_t)(2 * nn *
						    bf_dtype_element_bytes(job->dtype)) :
				  -1;
	res->c_dtype = BF_DTYPE_FP32;
	res->c_host = c;
	c = NULL;
	err = BF_OK;
out:
	if (ma)
		dnnl_memory_destroy(ma);
	if (mb)
		dnnl_memory_destroy(mb);
	if (mc)
		dnnl_memory_destroy(mc);
	if (prim)
		dnnl_primitive_destroy(prim);
	mm_free(&m);
	free(flush);
	free(c);
	return err;
}

const struct backend backend_onednn = {
	.name = "onednn",
	.kind = DEVICE_CPU,
	.label = "cpu",
	.probe = onednn_probe,
	.describe = onednn_describe,
	.gemm_supports = onednn_gemm_supports,
	.gemm_library = onednn_library,
	.gemm_run = onednn_gemm_run,
};
