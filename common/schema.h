/*
 * The agent's output format: newline-delimited JSON, one record per line.
 * Every JSON key and enum string is named here once, shared by the writer
 * (agent) and the readers (ctl, tests). docs/schema.md documents each field
 * with its unit. Bump BF_SCHEMA_VERSION on any incompatible change.
 */
#ifndef BF_SCHEMA_H
#define BF_SCHEMA_H

#include <stddef.h>

#include "bf_error.h"

#define BF_SCHEMA_VERSION 1

/* Longest record line a reader accepts, in bytes (a gemm record with
 * thousands of samples stays far below this). */
#define BF_RECORD_MAX_BYTES (1u << 20)

/* Largest integer a record field may hold, 2^53 - 1: every integer up to
 * it is exact in a double (the type cJSON reads numbers into), so a reader
 * refuses larger ones rather than use a value that may have been rounded. */
#define BF_JSON_INT_MAX 9007199254740991.0

/* --- exit statuses shared by agent and ctl (documented in README) ------ */
#define BF_EXIT_OK 0            /* everything ran and every check passed */
#define BF_EXIT_CHECKS_FAILED 1 /* some check or GEMM verification failed */
#define BF_EXIT_USAGE 2         /* bad command line; nothing was run */
#define BF_EXIT_HOSTS_FAILED 3  /* ctl: some hosts did not complete */
#define BF_EXIT_INTERNAL 4      /* agent: could not run; ctl: could not write */
#define BF_EXIT_REGRESSION 5    /* ctl compare/history --fail-on-regression:
				 * a significant slowdown beyond the limit */
#define BF_EXIT_NOTHING_MEASURED 6 /* ctl run: every host completed, but on
				   * some host no GEMM of a device it was
				   * asked for ran (all skipped) */
#define BF_EXIT_SLOW 7          /* ctl show/run --fail-on slow: a device's
				 * verdict is a confident slow
				 * (docs/verdict.md) */
#define BF_EXIT_UNKNOWN 8       /* ctl check: some host or device could not
				 * be judged: it did not run, its --budget
				 * ran out, no comparison could be made, or
				 * its slow is uncertain (model/check.h) */
#define BF_EXIT_INTERRUPTED 130 /* stopped by Ctrl-C / q (128 + SIGINT) */

/* --- record types ---------------------------------------------------- */
enum bf_record_type {
	BF_REC_HOST = 0,
	BF_REC_PLAN,
	BF_REC_CHECK,
	BF_REC_FLOAT_LIMITS,
	BF_REC_GEMM,
	BF_REC_SUMMARY,
	BF_REC_BANDWIDTH,
	BF_REC_BATCHING,
	BF_REC__COUNT
};

#define BF_TYPE_HOST "host"
#define BF_TYPE_PLAN "plan"
#define BF_TYPE_CHECK "check"
#define BF_TYPE_FLOAT_LIMITS "float_limits"
#define BF_TYPE_GEMM "gemm"
#define BF_TYPE_SUMMARY "summary"
#define BF_TYPE_BANDWIDTH "bandwidth"
#define BF_TYPE_BATCHING "batching"

/* --- statuses -------------------------------------------------------- */
enum bf_status { BF_STATUS_PASS = 0, BF_STATUS_FAIL, BF_STATUS_SKIPPED };
#define BF_STATUS_PASS_STR "pass"
#define BF_STATUS_FAIL_STR "fail"
#define BF_STATUS_SKIPPED_STR "skipped"

/* --- keys present in every record ------------------------------------ */
#define BF_KEY_SCHEMA "schema"
#define BF_KEY_TYPE "type"
#define BF_KEY_SEQ "seq" /* 0-based record counter within one agent run */

/* --- shared keys ----------------------------------------------------- */
#define BF_KEY_STATUS "status"
#define BF_KEY_REASON "reason"
#define BF_KEY_DEVICE "device"
#define BF_KEY_DTYPE "dtype"
#define BF_KEY_NAME "name"

/* --- host ------------------------------------------------------------ */
#define BF_KEY_HOSTNAME "hostname"
#define BF_KEY_OS "os"
#define BF_KEY_KERNEL "kernel"
#define BF_KEY_ARCH "arch"
#define BF_KEY_CPU_MODEL "cpu_model"
#define BF_KEY_CPU_CORES "cpu_cores"
#define BF_KEY_MEMORY_BYTES "memory_bytes"
#define BF_KEY_AGENT "agent"
#define BF_KEY_VERSION "version"
#define BF_KEY_SOURCE_HASH "source_hash"
#define BF_KEY_OPENBLAS "openblas"
#define BF_KEY_CJSON "cjson" /* {"version", "source": "system" | "bundled"} */
#define BF_KEY_CORE "core"
#define BF_KEY_CORE_REPLACED "core_replaced" /* OpenBLAS's own pick, replaced */
#define BF_KEY_THREADS "threads"
#define BF_KEY_CONFIG "config"
#define BF_KEY_ENV "env"
#define BF_KEY_CUDA "cuda"
#define BF_KEY_DRIVER_VERSION "driver_version"   /* NVIDIA driver, "580.95.05" */
#define BF_KEY_DRIVER_CUDA_VERSION "driver_cuda_version" /* "13.0" */
#define BF_KEY_RUNTIME_VERSION "runtime_version" /* cudart, "13.0" */
#define BF_KEY_CUBLAS_VERSION "cublas_version"   /* "13.0.0" */
#define BF_KEY_CUDA_ARCHITECTURES "architectures" /* "90-real 90-virtual" */
#define BF_KEY_GPUS "gpus"
#define BF_KEY_INDEX "index"
#define BF_KEY_COMPUTE_CAPABILITY "compute_capability"
#define BF_KEY_SM_COUNT "sm_count"
#define BF_KEY_UNIFIED_MEMORY "unified_memory"
#define BF_KEY_SBGEMM "sbgemm" /* OpenBLAS exports cblas_sbgemm (bf16) */
#define BF_KEY_SHGEMM "shgemm" /* OpenBLAS exports cblas_shgemm (fp16) */
#define BF_KEY_TF32_OVERRIDE "NVIDIA_TF32_OVERRIDE" /* the variable's value */
#define BF_KEY_OPTIONS "options"
#define BF_KEY_SIZES "sizes"
#define BF_KEY_DTYPES "dtypes"
#define BF_KEY_CPU_ITERS "cpu_iters"
#define BF_KEY_CPU_WARMUP "cpu_warmup"
#define BF_KEY_SEED "seed"
#define BF_KEY_COLD_CACHE "cold_cache" /* options: --cold-cache given */
#define BF_KEY_NO_BANDWIDTH "no_bandwidth" /* options: --no-bandwidth given */
#define BF_KEY_BANDWIDTH_MIB "bandwidth_mib" /* options: --bandwidth-mib N */
#define BF_KEY_NO_BATCHING "no_batching" /* options: --no-batching given */

/* --- plan ------------------------------------------------------------ */
#define BF_KEY_DEVICES "devices"
#define BF_KEY_CHECKS_TOTAL "checks_total"
#define BF_KEY_GEMM_TOTAL "gemm_total"
#define BF_KEY_BANDWIDTH_TOTAL "bandwidth_total" /* bandwidth records that follow */
#define BF_KEY_BATCHING_TOTAL "batching_total"   /* batching records that follow */

/* --- check ----------------------------------------------------------- */
#define BF_KEY_EXPECTED "expected"
#define BF_KEY_GOT "got"
#define BF_KEY_METRICS "metrics"
/* metrics of transfer.h2d_d2h: buffer size and median bandwidths, GB/s
 * (1e9 bytes per second) */
#define BF_KEY_BYTES "bytes"
#define BF_KEY_H2D_PAGEABLE_GBPS "h2d_pageable_gbps"
#define BF_KEY_D2H_PAGEABLE_GBPS "d2h_pageable_gbps"
#define BF_KEY_H2D_PINNED_GBPS "h2d_pinned_gbps"
#define BF_KEY_D2H_PINNED_GBPS "d2h_pinned_gbps"

/* --- float_limits ---------------------------------------------------- */
#define BF_KEY_BITS "bits"
#define BF_KEY_EXPONENT_BITS "exponent_bits"
#define BF_KEY_MANTISSA_BITS "mantissa_bits"
#define BF_KEY_MAX "max"
#define BF_KEY_EPS "eps"
#define BF_KEY_SMALLEST_NORMAL "smallest_normal"
#define BF_KEY_SMALLEST_SUBNORMAL "smallest_subnormal"

/* --- gemm ------------------------------------------------------------ */
#define BF_KEY_N "n"
#define BF_KEY_LIBRARY "library"
#define BF_KEY_MATH_MODE "math_mode"
#define BF_KEY_C_DTYPE "c_dtype" /* dtype of the output C */
#define BF_KEY_WARMUP "warmup"
#define BF_KEY_ITERS "iters"
#define BF_KEY_SAMPLES_MS "samples_ms"
#define BF_KEY_MEDIAN_MS "median_ms"
#define BF_KEY_MIN_MS "min_ms"
#define BF_KEY_MAX_MS "max_ms"
#define BF_KEY_GFLOPS "gflops"
#define BF_KEY_PEAK_MIB "peak_mib"
#define BF_KEY_OPERAND_BYTES "operand_bytes"
#define BF_KEY_MAX_REL_ERROR "max_rel_error"
#define BF_KEY_TOLERANCE "tolerance"
#define BF_KEY_OUTPUT_ROUNDOFF "output_roundoff" /* unit roundoff of c_dtype */
#define BF_KEY_VERIFY_SEED "verify_seed" /* picks the sampled positions */
#define BF_KEY_VERIFIED_ELEMENTS "verified_elements"
#define BF_KEY_NONFINITE_ELEMENTS "nonfinite_elements"
#define BF_KEY_PEAK_GFLOPS "peak_gflops"   /* the device's rated peak */
#define BF_KEY_PEAK_BASIS "peak_basis"     /* how it was derived, one line */
#define BF_KEY_FRACTION_OF_PEAK "fraction_of_peak"
#define BF_KEY_PEAK_METHOD "peak_method"   /* probe, table, product, ... */
#define BF_KEY_PEAK_BOUND_GFLOPS "peak_bound_gflops" /* the silicon's most */
#define BF_KEY_PEAK_BOUND_BASIS "peak_bound_basis"
#define BF_KEY_PEAK_DISAGREEMENT "peak_disagreement" /* probe vs table */
#define BF_KEY_REFERENCE_GFLOPS "reference_gflops" /* a published result */
#define BF_KEY_REFERENCE_SOURCE "reference_source"
#define BF_KEY_FRACTION_OF_REFERENCE "fraction_of_reference"
#define BF_KEY_BELOW_REFERENCE "below_reference"
#define BF_KEY_TIMING "timing"             /* how samples were taken */
#define BF_KEY_RELIABLE "reliable"
#define BF_KEY_UNRELIABLE_REASONS "unreliable_reasons"
#define BF_KEY_SPREAD "spread"             /* (max - min) / median */
#define BF_KEY_DEVICE_STATE "device_state" /* {before, after, throttled} */
#define BF_KEY_BEFORE "before"
#define BF_KEY_AFTER "after"
#define BF_KEY_THROTTLED "throttled"
#define BF_KEY_UUID "uuid"
#define BF_KEY_PCI_BUS_ID "pci_bus_id"
#define BF_KEY_CLOCK_MHZ "clock_mhz"
#define BF_KEY_NEEDED_BYTES "needed_bytes"
#define BF_KEY_FREE_BYTES "free_bytes"

/* gemm: the roofline (agent/workloads/roofline.h) */
#define BF_KEY_ARITHMETIC_INTENSITY "arithmetic_intensity" /* FLOP per byte */
#define BF_KEY_BANDWIDTH_GBPS "bandwidth_gbps" /* the device's measured GB/s */
#define BF_KEY_BANDWIDTH_KIND "bandwidth_kind" /* which measurement: "triad" */
#define BF_KEY_ROOFLINE_GFLOPS "roofline_gflops" /* min(peak, AI x bandwidth) */
#define BF_KEY_BOUND "bound"                   /* "compute" or "memory" */
#define BF_KEY_FRACTION_OF_ROOFLINE "fraction_of_roofline"
/* gemm: warm-up by time and energy (agent/hardware/energy.h) */
#define BF_KEY_WARMUP_CALLS "warmup_calls" /* untimed calls actually run */
#define BF_KEY_WARMUP_MS "warmup_ms"       /* their wall time */
#define BF_KEY_ENERGY "energy"             /* {source, joules, ...} */
#define BF_KEY_SOURCE "source"
#define BF_KEY_JOULES "joules"
#define BF_KEY_SECONDS "seconds"
#define BF_KEY_GEMMS "gemms"
#define BF_KEY_WATTS "watts"
#define BF_KEY_GFLOP_PER_JOULE "gflop_per_joule"
#define BF_BOUND_COMPUTE "compute"
#define BF_BOUND_MEMORY "memory"

/* A result below this fraction of its published reference measurement
 * (reference_gflops) is "below reference": agent/reference.h. */
#define BF_REFERENCE_HEALTHY_FRACTION 0.8

/* --- bandwidth ------------------------------------------------------- */
/* kind (BF_KEY_KIND), dtype, bytes, threads, samples_ms, ... are shared */
#define BF_KEY_ARRAY_BYTES "array_bytes" /* one array or buffer */
#define BF_KEY_MEDIAN_GBPS "median_gbps" /* bytes / median time, 1e9 B/s */
#define BF_KEY_COUNTING "counting"       /* which bytes count, one line */
#define BF_BW_TRIAD "triad"
#define BF_BW_D2D "d2d"
#define BF_BW_H2D_PAGEABLE "h2d_pageable"
#define BF_BW_D2H_PAGEABLE "d2h_pageable"
#define BF_BW_H2D_PINNED "h2d_pinned"
#define BF_BW_D2H_PINNED "d2h_pinned"

/* --- batching -------------------------------------------------------- */
#define BF_KEY_MODEL "model"   /* "30-16-relu-1" */
#define BF_KEY_LAYERS "layers" /* widths, input first: [30, 16, 1] */
#define BF_KEY_ROWS "rows"     /* rows in the batch: 20 */
#define BF_KEY_FEATURES "features"
#define BF_KEY_SINGLE_SAMPLES_MS "single_samples_ms"
#define BF_KEY_BATCH_SAMPLES_MS "batch_samples_ms"
#define BF_KEY_SINGLE_MS "single_ms" /* median ms per one-row call */
#define BF_KEY_BATCH_MS "batch_ms"   /* median ms per batch call */
#define BF_KEY_SINGLE_ROWS_PER_S "single_rows_per_s"
#define BF_KEY_BATCH_ROWS_PER_S "batch_rows_per_s"
#define BF_KEY_SPEEDUP "speedup"     /* batch_rows_per_s / single_rows_per_s */
#define BF_KEY_MAX_ABS_DIFF "max_abs_diff"   /* batch rows vs single calls */
#define BF_KEY_MAX_ABS_ERROR "max_abs_error" /* vs the float64 reference */
#define BF_KEY_SCORES "scores"
#define BF_KEY_EXPECTED_SCORES "expected_scores"

/* --- summary --------------------------------------------------------- */
#define BF_KEY_RATIOS "ratios"
#define BF_KEY_KIND "kind"
#define BF_KEY_VALUE "value"
#define BF_KEY_CHECKS_PASSED "checks_passed"
#define BF_KEY_CHECKS_FAILED "checks_failed"
#define BF_KEY_CHECKS_SKIPPED "checks_skipped"
#define BF_KEY_GEMM_PASSED "gemm_passed"
#define BF_KEY_GEMM_FAILED "gemm_failed"
#define BF_KEY_GEMM_SKIPPED "gemm_skipped"
#define BF_KEY_EXIT_STATUS "exit_status"
#define BF_KEY_WALL_MS "wall_ms"
#define BF_KEY_BANDWIDTH_PASSED "bandwidth_passed"
#define BF_KEY_BANDWIDTH_FAILED "bandwidth_failed"
#define BF_KEY_BANDWIDTH_SKIPPED "bandwidth_skipped"
#define BF_KEY_BATCHING_PASSED "batching_passed"
#define BF_KEY_BATCHING_FAILED "batching_failed"
#define BF_KEY_BATCHING_SKIPPED "batching_skipped"
#define BF_RATIO_GPU_VS_CPU "gpu_vs_cpu"
#define BF_RATIO_VS_FP32 "vs_fp32"

/* Name of a record type ("gemm"); static. */
const char *bf_schema_type_name(enum bf_record_type t);
/* Type from its name; returns -1 when unknown. */
int bf_schema_type_parse(const char *name, enum bf_record_type *out);
/* "pass" / "fail" / "skipped"; static. */
const char *bf_schema_status_name(enum bf_status s);
/* Status from its name; returns -1 when unknown. */
int bf_schema_status_parse(const char *name, enum bf_status *out);

struct cJSON;

/* 1 when v is a whole number in [min, max] (0 for NaN and infinities):
 * the test every integer field passes before a reader converts it. */
int bf_schema_int_ok(double v, double min, double max);

/* 1 when ms is a time as the agent measures one: finite and above 0 (0
 * for NaN, infinities, 0 and negatives). Every element of the timed
 * samples (gemm and bandwidth samples_ms, batching single_samples_ms and
 * batch_samples_ms) must pass; so must a gemm record's median_ms when it
 * is given (bf_rec_gemm_consistent). */
int bf_schema_time_ok(double ms);

/* Parses one line of agent output into a record object and validates it:
 * a JSON object (nothing after it), schema == BF_SCHEMA_VERSION, a known
 * type, every timed sample a time (bf_schema_time_ok; docs/schema.md,
 * "Times"), the record as docs/schema.json says (bf_schema_json_check:
 * required keys, JSON types, integer ranges, enums, what each status
 * requires; every number finite), and every sample array as long as the
 * record's iters. On
 * success returns BF_OK, stores the record in *out (caller frees with
 * cJSON_Delete) and its type in *type. On failure returns BF_ERR_PARSE
 * (not JSON), BF_ERR_SCHEMA (wrong version, type or fields) with a one-line
 * reason in detail, and leaves *out NULL. line[len] must be '\0' (the
 * reader keeps lines NUL-terminated); lines longer than BF_RECORD_MAX_BYTES
 * fail. */
enum bf_err bf_schema_parse_record(const char *line, size_t len,
				struct cJSON **out, enum bf_record_type *type,
				char *detail, size_t detail_len);

#endif
