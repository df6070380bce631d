/*
 * The backend contract (nvtop's extract_gpuinfo_common.h is the model): a
 * backend is a const struct of function pointers, one exported symbol per
 * file, listed in an explicit table in backend.c. Each has a probe() that
 * says whether it can run here and, if not, why; that answer is reported
 * as a "skipped" record, never a silent gap.
 *
 * Devices are numbered per backend (CPU: only 0; CUDA: 0..count-1). All
 * pointers named *_dev are device memory of that backend; *_host are
 * ordinary host memory. Every function that can fail returns enum bf_err
 * and writes a one-line "what: why" into detail (detail_len bytes).
 */
#ifndef BF_BACKEND_H
#define BF_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "bf_error.h"
#include "dtype.h"
#include "hardware/energy.h"
#include "hardware/nvml.h"
#include "hardware/peak.h"

struct bf_rec_host;

enum device_kind { DEVICE_CPU = 0, DEVICE_CUDA = 1 };

/* A device: which backend family and which index within it. */
struct device {
	enum device_kind kind;
	int index;
};

/* One GEMM measurement request: C = A * B, all n x n, row-major.
 * a_host and b_host hold n*n elements in the storage format of `dtype`
 * (fp32 for fp32 and tf32, 16-bit patterns for fp16 and bf16, e4m3 bytes
 * for fp8, scaled by a_scale and b_scale). */
struct gemm_job {
	enum bf_dtype dtype;
	int n;
	int warmup; /* untimed iterations before the timed ones */
	int iters;  /* timed iterations; samples_ms has this many slots */
	int cold_cache; /* evict A, B and C from the caches before each
			 * timed sample (untimed): a buffer twice the last
			 * level's size is written first */
	const void *a_host;
	const void *b_host;
	double a_scale, b_scale; /* fp8: per-tensor dequantisation scales
				  * (gemm_fp8_quantise); 0 or 1 otherwise */
};

/* A GPU's warm-up lasts at least this long (ms of back-to-back
 * synchronised GEMMs) or the asked-for count, whichever is longer: clocks
 * and power management settle over some hundreds of ms, and a count
 * alone is a few ms of warm-up at small n. */
#define GEMM_WARMUP_MIN_MS 200.0

/* What a GEMM run gives back. The backend fills c_host (n*n elements of
 * c_dtype, allocated by the backend with malloc: caller frees). */
struct gemm_result {
	double *samples_ms;        /* caller-allocated, job->iters entries */
	int64_t peak_bytes;        /* peak memory during the run; -1 unknown */
	enum bf_dtype c_dtype;     /* dtype of the output C */
	void *c_host;              /* caller frees */
	void *c_first_host;        /* C after the first timed iteration when
				    * iters > 1 (same layout; caller frees),
				    * else NULL. Backends poison C with NaN
				    * before every iteration, outside the
				    * timed region. */
	char math_mode[256];       /* compute type and the handle's math
				    * mode as read back: "CUBLAS_COMPUTE_32F;
				    * CUBLAS_DEFAULT_MATH |
				    * CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_
				    * REDUCTION", "cblas_sgemm", ... */
	char timing[128];          /* how samples_ms were taken, for the
				    * record: "CUDA events around each call" */
	int warmup_done;           /* untimed calls run before the timed ones
				    * (a GPU warms up for at least
				    * GEMM_WARMUP_MIN_MS: more than asked) */
	double warmup_ms;          /* their wall time; NaN not measured */
	struct energy_window energy; /* over the timed loop (energy.h) */
	struct device_state during; /* read halfway through the timed loop
				     * (a GPU); is_gpu 0 when not read */
};

/* Host <-> device copy bandwidth (bytes per second), one direction each. */
struct transfer_result {
	double h2d_pageable_bps, d2h_pageable_bps;
	double h2d_pinned_bps, d2h_pinned_bps;
	int roundtrip_equal; /* 1 when D2H(H2D(x)) == x byte for byte */
};

/* Memory-bandwidth measurements (agent/workloads/bandwidth.c), in record order. */
enum bw_kind {
	BW_TRIAD = 0,    /* CPU: a[i] = b[i] + s c[i] over fp64 arrays */
	BW_D2D,          /* GPU: device-to-device copy */
	BW_H2D_PAGEABLE, /* GPU: copies across the link, both directions, */
	BW_D2H_PAGEABLE, /* from malloc'd (pageable) and */
	BW_H2D_PINNED,   /* cudaMallocHost'd (pinned) host memory */
	BW_D2H_PINNED,
	BW__COUNT
};

/* One bandwidth measurement request. */
struct bw_job {
	enum bw_kind kind;
	size_t array_bytes; /* each array (triad: a, b and c) or buffer */
	int warmup;         /* untimed passes first (at least 1 is run:
			     * the first touch of pageable memory) */
	int iters;          /* timed passes; samples_ms has this many */
};

struct bw_result {
	double *samples_ms; /* caller-allocated, job->iters entries */
	double bytes;       /* bytes counted per pass (see counting) */
	int threads;        /* CPU threads that ran the passes; 0 on a GPU */
	int verified;       /* 1: the output held the expected values */
	char counting[112]; /* which bytes count, for the record */
	char timing[80];    /* how samples_ms were taken */
};

/* The seed's batching model (agent/workloads/mlp.h) as a backend runs it: two
 * row-major GEMMs, x (rows, in) W1 (in, hidden), relu, W2 (hidden, out),
 * the biases folded into W1 and W2 (see mlp.h). */
struct mlp_job {
	enum bf_dtype dtype; /* fp32 (CPU) or fp16 (GPU): inputs, weights,
			      * hidden layer and scores stored in it */
	int rows;            /* the batch: 20 */
	int in, hidden, out; /* widths as stored, biases folded in */
	const float *x;      /* rows x in */
	const float *w1;     /* in x hidden */
	const float *w2;     /* hidden x out */
	int warmup, iters;   /* untimed rounds, timed rounds */
};

/* What an MLP run gives back; every array caller-allocated. One round is
 * rows one-row calls, then one call on all rows; a call starts from the
 * input in host memory and ends with the scores in host memory. */
struct mlp_result {
	double *single_ms; /* iters entries: each round's one-row calls,
			    * total time / rows (ms per call) */
	double *batch_ms;  /* iters entries: each round's batch call (ms) */
	float *single_out; /* rows x out: row r scored alone (last round) */
	float *batch_out;  /* rows x out: the batch's scores (last round) */
	char math_mode[256];
	char timing[96];
};

struct backend {
	const char *name;       /* "openblas", "cublas" */
	enum device_kind kind;
	const char *label;      /* "cpu", "cuda" (device label prefix) */

	/* Can this backend run here? Sets *ndevices (0 when not). Returns
	 * BF_OK, or BF_ERR_UNSUPPORTED with the reason in detail. Cheap and
	 * idempotent. */
	enum bf_err (*probe)(int *ndevices, char *detail, size_t detail_len);

	/* Whether device dev (< probe's *ndevices) can run this build: BF_OK,
	 * or BF_ERR_UNSUPPORTED with the reason in detail (a GPU this build
	 * has no code for). NULL: every probed device can. */
	enum bf_err (*device_usable)(int dev, char *detail, size_t detail_len);

	/* Fills this backend's provenance (library versions, per-device
	 * properties) into its fields of the host record (record.h: the
	 * CPU's openblas_*, the GPUs' cuda_* and gpus; host was
	 * bf_record_init'ed and owns what is filled). Never fails:
	 * unreadable values stay NULL / NaN / -1, written as null. */
	void (*describe)(struct bf_rec_host *host);

	/* Memory of device dev this process can still allocate, and the
	 * device's total, in bytes. For the CPU, and for a GPU that shares
	 * the host's memory (DGX Spark's GB10, Jetson: cudaMemGetInfo's
	 * figure does not count what the OS could free), it is
	 * hostinfo_memory_room's: the least of MemAvailable, the cgroup
	 * limit and RLIMIT_AS. limit (limit_len bytes) names what bounds
	 * free_bytes ("cgroup memory limit", "cudaMemGetInfo", ...). */
	enum bf_err (*mem_info)(int dev, uint64_t *free_bytes,
				uint64_t *total_bytes, char *limit,
				size_t limit_len);

	/* --- tensor storage and element-wise ops (fp32) ------------------ */
	enum bf_err (*alloc)(int dev, size_t bytes, void **out_dev,
			     char *detail, size_t detail_len);
	void (*release)(int dev, void *p_dev); /* NULL-safe */
	enum bf_err (*fill_zero)(int dev, void *p_dev, size_t bytes,
				 char *detail, size_t detail_len);
	enum bf_err (*to_host)(int dev, void *dst_host, const void *src_dev,
			       size_t bytes, char *detail, size_t detail_len);
	enum bf_err (*from_host)(int dev, void *dst_dev, const void *src_host,
				 size_t bytes, char *detail, size_t detail_len);
	/* out[i] = a[i . a_strides] + b[i . b_strides] over the index space
	 * `shape` (rank dims); strides in elements, 0 for a broadcast dim;
	 * out is contiguous. */
	enum bf_err (*add_f32)(int dev, int rank, const int64_t *shape,
			       const float *a_dev, const int64_t *a_strides,
			       const float *b_dev, const int64_t *b_strides,
			       float *out_dev, char *detail, size_t detail_len);
	enum bf_err (*relu_f32)(int dev, float *p_dev, size_t count,
				char *detail, size_t detail_len);
	/* Row-major C(m,n) = A(m,k) B(k,n) in fp32, for small layer checks. */
	enum bf_err (*matmul_f32)(int dev, int m, int k, int n,
				  const float *a_dev, const float *b_dev,
				  float *c_dev, char *detail, size_t detail_len);
	/* Rounds count fp32 values to dtype (fp16 or bf16) on the device,
	 * with the device's own conversion, writing 16-bit patterns to
	 * out_host. Used to check the device's rounding. */
	enum bf_err (*round_16)(int dev, enum bf_dtype dtype,
				const float *in_host, uint16_t *out_host,
				size_t count, char *detail, size_t detail_len);

	/* Measures H2D/D2H bandwidth over `bytes`; NULL when the device is
	 * the host itself (no transfer exists to measure). */
	enum bf_err (*transfer)(int dev, size_t bytes, int reps,
				struct transfer_result *out, char *detail,
				size_t detail_len);

	/* --- GEMM ------------------------------------------------------- */
	/* BF_OK when dtype can run here, else BF_ERR_UNSUPPORTED + reason. */
	enum bf_err (*gemm_supports)(int dev, enum bf_dtype dtype,
				     char *detail, size_t detail_len);
	/* Library and version that runs the GEMM, e.g. "cuBLAS 13.0.0";
	 * static string. */
	const char *(*gemm_library)(void);
	/* Warm-up (at least job->warmup calls; a GPU's goes on until
	 * GEMM_WARMUP_MIN_MS have passed), then `iters` timed iterations
	 * (synchronised each), output poisoned with NaN before each, the
	 * energy counter read around them (res->energy). BF_ERR_UNSUPPORTED
	 * when the library has no GEMM for the dtype on this device. Allocates and frees its
	 * own device buffers; BF_ERR_TOO_BIG / BF_ERR_NOMEM when they cannot
	 * be had. */
	enum bf_err (*gemm_run)(int dev, const struct gemm_job *job,
				struct gemm_result *res, char *detail,
				size_t detail_len);

	/* --- workloads beyond GEMM ---------------------------------------- */
	/* Runs one bandwidth measurement (warm-up, then job->iters timed
	 * passes) in buffers it allocates and frees. BF_ERR_UNSUPPORTED for
	 * a kind this backend does not run; BF_ERR_NOMEM when the buffers
	 * cannot be had. */
	enum bf_err (*bandwidth)(int dev, const struct bw_job *job,
				 struct bw_result *res, char *detail,
				 size_t detail_len);
	/* Runs the batching model (job->warmup untimed rounds, job->iters
	 * timed ones). BF_ERR_UNSUPPORTED for a dtype it does not run. */
	enum bf_err (*mlp_run)(int dev, const struct mlp_job *job,
			       struct mlp_result *res, char *detail,
			       size_t detail_len);

	/* --- plausibility and state --------------------------------------- */
	/* The rated peak and the bound of a GEMM of dtype on device dev,
	 * with their derivations and the product references are keyed by
	 * (peak.h); gflops NaN when unknown. */
	void (*peak)(int dev, enum bf_dtype dtype, struct peak *out);
	/* Reads device dev's clocks and state now (nvml.h). */
	void (*read_state)(int dev, struct device_state *out);
};

extern const struct backend backend_openblas;
#ifdef BF_WITH_CUDA
extern const struct backend backend_cublas;
#endif
#ifdef BF_WITH_ONEDNN
/* CPU bf16/fp16 GEMM through oneDNN (backend_onednn.c): only gemm_*,
 * probe and describe are set. Not in backend_table: it runs no device of
 * its own, backend_gemm_for hands it the GEMMs OpenBLAS cannot run. */
extern const struct backend backend_onednn;
#endif

/* Every backend compiled in, in report order (CPU first); NULL-terminated.
 * Static. */
extern const struct backend *const backend_table[];

/* Called first thing in main: when OpenBLAS fell back to its generic
 * Prescott core on an x86 CPU with AVX, AVX2 or AVX-512 (a CPU newer than
 * the library) and OPENBLAS_CORETYPE is unset, starts the agent again
 * (execv of /proc/self/exe with argv) with OPENBLAS_CORETYPE set to the
 * matching core (Sandybridge, Haswell, SkylakeX); the host record then
 * names the replaced core (openblas.core_replaced). Returns when nothing
 * is to be done, or when starting again failed. */
void openblas_pick_core(char **argv);

/* The backend for a device kind, or NULL when not compiled in. */
const struct backend *backend_for(enum device_kind kind);

/* The backend whose gemm_* run a dtype's GEMM on a device of kind: the
 * device's own backend when its gemm_supports says BF_OK; on the CPU,
 * for bf16 and fp16 an OpenBLAS lacks (cblas_sbgemm / cblas_shgemm),
 * backend_onednn when this agent was built with oneDNN and it has a
 * (non-reference) matmul for the dtype here. NULL when none can, with
 * every library's reason in detail, "; "-joined ("bf16: this OpenBLAS
 * (OpenBLAS 0.3.21) has no cblas_sbgemm; oneDNN: not in this build
 * ..."). Probes at most once per call; the answer can be cached by the
 * caller per (device, dtype). */
const struct backend *backend_gemm_for(enum device_kind kind, int dev,
				       enum bf_dtype dtype, char *detail,
				       size_t detail_len);

/* "cpu" or "cuda:0" into buf (>= 16 bytes); returns buf. */
char *device_label(const struct device *d, char *buf, size_t len);

#endif
