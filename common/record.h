/*
 * The agent's records as C structs: one struct per record type of
 * docs/schema.md, decoded from JSON in one place (bf_record_decode, on top
 * of bf_schema_parse_record's validation) and encoded to JSON in one place
 * (bf_record_encode), so the agent that writes records and ctl that reads
 * them share the types as well as the key names of schema.h.
 *
 * Conventions: strings are owned by the record (freed by bf_record_free)
 * and NULL when the key is absent or null. Numbers that may be missing are
 * doubles, NaN when absent or null ("missing is not zero"); numbers the
 * schema requires are ints. Booleans that may be missing are ints, -1 when
 * absent or null. A check's "expected" and "got" are any JSON by design
 * (every check compares its own shape of value), so they stay cJSON trees
 * owned by the record.
 */
#ifndef BF_RECORD_H
#define BF_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bf_error.h"
#include "dtype.h"
#include "schema.h"

struct cJSON;

/* The agent's "options", as the host record reports them. */
struct bf_rec_options {
	int present;      /* the host record had an "options" object */
	int *sizes;       /* GEMM n values in order; owned */
	int nsizes;
	char **dtypes;    /* dtype names in order; owned */
	int ndtypes;
	double iters, cpu_iters, warmup, cpu_warmup; /* NaN: absent */
	double seed;      /* a JSON number (the agent's uint64 as double);
			   * NaN: absent */
	int cold_cache;   /* --cold-cache: 1; 0 or absent (older agents): 0 */
	int no_bandwidth; /* --no-bandwidth: 1; 0 or absent: 0 */
	double bandwidth_mib; /* --bandwidth-mib N; NaN (or <= 0): absent,
			       * the agent's default sizes */
	int no_batching;  /* --no-batching: 1; 0 or absent: 0 */
	char device[8];   /* --device cpu | cuda; "" when absent (all); a
			   * longer value is cut, ending in "..." */
};

/* One CUDA device of the host record's "gpus", in the order the agent
 * writes its keys. */
struct bf_rec_gpu {
	double index;            /* CUDA device index; NaN: absent */
	char *name;              /* NULL: unreadable (null) */
	double memory_bytes;     /* totalGlobalMem; NaN: null */
	char *compute_capability; /* "9.0"; "-1.-1" unreadable */
	char *pci_bus_id;        /* "0000:3b:00.0"; NULL: null */
	char *uuid;              /* "GPU-..." (NVML); NULL: unknown */
	double clock_mhz;        /* SM boost clock, MHz; NaN: null */
	double sm_count;         /* multiprocessors, -1 unreadable; NaN:
				  * absent */
	int unified_memory;      /* 1, 0, or -1 when absent or null */
};

/* One environment variable that can change a result, as the agent saw
 * it: value NULL when unset. */
struct bf_rec_env {
	char *name;
	char *value;
};

/* host: what ran where. The agent fills it (main.c, hostinfo_describe
 * and each backend's describe hook) and bf_record_encode writes it, in
 * the key order the agent has always written: agent, cjson, env,
 * hostname .. memory_bytes, openblas, cuda, gpus, options (the fields
 * below are in that order); ctl decodes it.
 * Every key of the agent's record has a field, and every key is written
 * (options only when present): strings NULL and numbers NaN as null, as
 * the agent writes what it cannot read. This is today's agent's layout:
 * a host record of an older agent (no cjson, env or core_replaced)
 * decodes, but does not encode back to its own line. The two env lists
 * keep their names and order as data, since each is a list of variables
 * chosen by its writer. */
struct bf_rec_host {
	char *agent_version, *agent_source_hash;
	char *cjson_version, *cjson_source; /* "1.7.15", "system"/"bundled" */
	struct bf_rec_env *env;  /* the host record's "env", in its order */
	int nenv;
	char *hostname, *os, *kernel, *arch, *cpu_model;
	double cpu_cores, memory_bytes;
	char *openblas_version, *openblas_core, *openblas_core_replaced;
	double openblas_threads;
	char *openblas_config;
	int openblas_sbgemm, openblas_shgemm; /* -1: absent */
	struct bf_rec_env *openblas_env; /* "openblas.env", in its order */
	int nopenblas_env;
	/* "cuda": cuda_libraries is 1 when the object names the CUDA
	 * libraries (driver_version .. NVIDIA_TF32_OVERRIDE: an agent built
	 * with CUDA), 0 when it has only status and reason (one built
	 * without). */
	int cuda_libraries;
	char *cuda_driver_version, *cuda_driver_cuda_version;
	char *cuda_runtime_version, *cuda_cublas_version;
	char *cuda_architectures, *cuda_tf32_override;
	char *cuda_status, *cuda_reason;
	struct bf_rec_gpu *gpus;
	int ngpus;
	struct bf_rec_options options;
};

struct bf_rec_plan_device {
	char *device;
	enum bf_status status;
	char *reason;
};

struct bf_rec_plan {
	struct bf_rec_plan_device *devices;
	int ndevices;
	int checks_total;
	int gemm_total;
	int bandwidth_total; /* -1: absent (older agents) */
	int batching_total;  /* -1: absent */
};

/* metrics of transfer.h2d_d2h; GB/s is 1e9 bytes per second. */
struct bf_rec_transfer_metrics {
	double bytes;
	double h2d_pageable_gbps, d2h_pageable_gbps;
	double h2d_pinned_gbps, d2h_pinned_gbps;
};

struct bf_rec_check {
	char *name;
	char *device;
	enum bf_status status;
	struct cJSON *expected; /* owned; NULL encodes as JSON null */
	struct cJSON *got;      /* owned; NULL: null, could not run */
	char *reason;
	int has_metrics;        /* "metrics" present (transfer checks) */
	struct bf_rec_transfer_metrics metrics;
};

struct bf_rec_float_limits {
	char *dtype;
	int bits;
	double exponent_bits, mantissa_bits; /* NaN: absent */
	double max, eps, smallest_normal;
	double smallest_subnormal;           /* NaN: absent */
};

/*
 * One reading of the state a gemm row's device was in (docs/schema.md,
 * device_state; agent/hardware/nvml.h reads it): a CPU's cpufreq, or a
 * GPU's NVML reading, or why NVML gave none. Numbers are NaN and flags
 * -1 when unknown (written null); strings are owned, NULL when unknown.
 */
struct bf_rec_state {
	int is_gpu;
	/* a CPU */
	char *governor;          /* "performance" */
	double freq_mhz;         /* mean scaling_cur_freq, MHz */
	/* a GPU */
	char *reason;            /* NVML absent or failed: nothing else is
				  * written; NULL when read */
	double sm_clock_mhz, sm_clock_max_mhz; /* MHz */
	double mem_clock_mhz, mem_clock_max_mhz;
	double power_w, power_limit_w; /* board draw and enforced limit, W */
	double temperature_c;
	int persistence_mode, mig_mode, ecc_mode; /* 1 on, 0 off, -1 */
	char *clock_event_reasons; /* "sw_power_cap,hw_thermal", "none" */
};

/* A gemm row's device_state: readings before and after the row, and
 * during it (a GPU, halfway through the timed loop); for a GPU the
 * violation counters' advance over the row (ms, NaN unknown). Its
 * "throttled" is the record's throttled field. */
struct bf_rec_device_state {
	int present;             /* 0: the record has no device_state */
	struct bf_rec_state before, after;
	int has_during;          /* 0: "during" is left out */
	struct bf_rec_state during;
	double power_violation_ms, thermal_violation_ms; /* written when
							  * before.is_gpu */
};

/* bf_rec_state_init: everything unknown (NaN, -1, NULL), a CPU's.
 * bf_rec_device_state_init: absent, its readings unknown.
 * bf_rec_device_state_free: frees the strings and leaves *ds absent. */
void bf_rec_state_init(struct bf_rec_state *st);
void bf_rec_device_state_init(struct bf_rec_device_state *ds);
void bf_rec_device_state_free(struct bf_rec_device_state *ds);

struct bf_rec_gemm {
	char *device;
	char *dtype;
	int n;
	enum bf_status status;
	char *reason;
	double median_ms;   /* NaN: null (not run) */
	double gflops;      /* NaN: null */
	/* measured: the GEMM ran; the fields below it are in the record
	 * (library .. nonfinite_elements). A skipped or failed-to-run record
	 * has only the fields above, plus needed/free bytes after a fit
	 * check. */
	int measured;
	char *library;
	char *math_mode;
	char *c_dtype;
	int warmup, iters;
	double *samples_ms; /* owned; nsamples entries */
	int nsamples;
	double min_ms, max_ms;
	double peak_mib;
	double operand_bytes;
	double max_rel_error;
	double tolerance;
	double output_roundoff; /* NaN: absent (older agents) */
	double verify_seed;     /* integer < 2^48; NaN: absent */
	double verified_elements, nonfinite_elements;
	double needed_bytes, free_bytes; /* NaN: absent (no fit refusal) */
	/* Plausibility and reliability (measured records of this agent;
	 * absent in older archives). */
	double peak_gflops;      /* device's rated peak; NaN unknown */
	char *peak_basis;        /* its derivation, or why it is unknown */
	double fraction_of_peak; /* gflops / peak_gflops; NaN */
	char *peak_method;       /* "probe", "table", "product", ...; NULL:
				  * absent (older agents) */
	double peak_bound_gflops; /* the most the silicon can do; NaN */
	char *peak_bound_basis;
	char *peak_disagreement; /* probe vs table; NULL none */
	/* The published measurement of this product, dtype and n
	 * (agent/reference.h); reference_source NULL when none. */
	double reference_gflops;
	char *reference_source;
	double fraction_of_reference; /* gflops / reference_gflops; NaN */
	int below_reference;     /* 1, 0; -1 absent or null */
	char *timing;            /* "CUDA events around each call", ... */
	int reliable;            /* 1, 0; -1 absent */
	char **unreliable_reasons; /* owned; nunreliable entries */
	int nunreliable;
	double spread;           /* (max_ms - min_ms) / median_ms; NaN */
	struct bf_rec_device_state device_state; /* present 0: absent */
	int throttled;           /* device_state.throttled: 1, 0, -1 unknown */
	/* The roofline (agent/workloads/roofline.h): present when bandwidth_kind is
	 * non-NULL (the device's bandwidth was measured first). */
	char *bandwidth_kind;        /* "triad" (CPU), "d2d" (GPU) */
	double bandwidth_gbps;       /* NaN: not measured */
	double arithmetic_intensity; /* FLOP per operand byte */
	double roofline_gflops;      /* min(peak, AI x bandwidth); NaN */
	char *bound;                 /* BF_BOUND_COMPUTE / _MEMORY; NULL */
	double fraction_of_roofline; /* gflops / roofline_gflops; NaN */
	/* Warm-up as run (agent/backend.h GEMM_WARMUP_MIN_MS): -1 / NaN
	 * absent (older agents). */
	int warmup_calls;
	double warmup_ms;
	/* Energy over the timed loop (agent/hardware/energy.h): present when
	 * energy_source is non-NULL. */
	char *energy_source;     /* which counter */
	char *energy_reason;     /* why energy_j is unknown; NULL known */
	double energy_j;         /* joules; NaN unknown */
	double energy_s;         /* the window's seconds */
	double energy_gemms;     /* GEMM calls in the window */
	double energy_w;         /* energy_j / energy_s; NaN */
	double gflop_per_joule;  /* energy_gemms x 2 n^3 / 1e9 / energy_j;
				  * NaN unknown or not a pass */
};

/* One memory-bandwidth measurement of a device (agent/workloads/bandwidth.c). */
struct bf_rec_bandwidth {
	char *device;
	char *kind;          /* BF_BW_TRIAD, BF_BW_D2D, BF_BW_H2D_PAGEABLE, ... */
	enum bf_status status;
	char *reason;
	double median_gbps;  /* bytes / median_ms; NaN: null (not run) */
	/* measured: it ran; the fields below are in the record. */
	int measured;
	char *dtype;         /* element type of the triad ("fp64"); NULL */
	double array_bytes;  /* one array (triad) or buffer (copies) */
	double bytes;        /* bytes counted per sample (see counting) */
	char *counting;      /* which bytes count, one line */
	double threads;      /* CPU threads; NaN: null (a GPU) */
	int warmup, iters;
	double *samples_ms;  /* owned; nsamples entries */
	int nsamples;
	double median_ms, min_ms, max_ms;
	char *timing;
	double needed_bytes, free_bytes; /* NaN: absent (no fit refusal) */
};

/* The seed's batching case on one device (agent/workloads/batching.c). */
struct bf_rec_batching {
	char *device;
	char *dtype;
	enum bf_status status;
	char *reason;
	double speedup;      /* batch_rows_per_s / single_rows_per_s; NaN */
	int measured;        /* it ran; the fields below are in the record */
	char *model;         /* "30-16-relu-1" */
	int *layers;         /* owned; widths, input first */
	int nlayers;
	int rows, features;
	char *library, *math_mode, *timing;
	int warmup, iters;
	double *single_samples_ms; /* owned; nsingle entries */
	int nsingle;
	double *batch_samples_ms;  /* owned; nbatch entries */
	int nbatch;
	double single_ms, batch_ms;
	double single_rows_per_s, batch_rows_per_s;
	double max_abs_diff, max_abs_error, tolerance;
	double *scores;            /* owned; nscores entries */
	int nscores;
	double *expected_scores;   /* owned; nexpected entries */
	int nexpected;
};

/* One entry of the summary's ratios; see bf_speed_ratio. */
struct bf_rec_ratio {
	char *kind;   /* BF_RATIO_GPU_VS_CPU or BF_RATIO_VS_FP32 */
	char *device;
	char *dtype;
	int n;
	double value;
};

struct bf_rec_summary {
	struct bf_rec_ratio *ratios; /* owned */
	int nratios;
	int checks_passed, checks_failed;
	double checks_skipped;       /* NaN: absent */
	int gemm_passed, gemm_failed;
	double gemm_skipped;         /* NaN: absent */
	int exit_status;
	double wall_ms;              /* NaN: absent */
	double bandwidth_passed, bandwidth_failed, bandwidth_skipped; /* NaN */
	double batching_passed, batching_failed, batching_skipped;    /* NaN */
};

struct bf_record {
	enum bf_record_type type;
	int seq; /* -1 when absent */
	union {
		struct bf_rec_host host;
		struct bf_rec_plan plan;
		struct bf_rec_check check;
		struct bf_rec_float_limits float_limits;
		struct bf_rec_gemm gemm;
		struct bf_rec_summary summary;
		struct bf_rec_bandwidth bandwidth;
		struct bf_rec_batching batching;
	} u;
};

/* Zeroes r as an empty record of type: strings NULL, optional numbers
 * NaN, optional booleans -1, seq -1. Fill it, then encode. */
void bf_record_init(struct bf_record *r, enum bf_record_type type);

/* Frees what r owns and zeroes it. Safe on an initialised or decoded
 * record; NULL does nothing. */
void bf_record_free(struct bf_record *r);

/* Decodes a record that bf_schema_parse_record accepted (json, of type)
 * into *out (caller frees with bf_record_free). Keys a type does not know
 * are ignored; a value of the wrong JSON type reads as absent. Returns
 * BF_OK, or BF_ERR_SCHEMA with a reason in detail for a JSON value that
 * is not a record object. */
enum bf_err bf_record_decode(const struct cJSON *json,
			     enum bf_record_type type, struct bf_record *out,
			     char *detail, size_t detail_len);

/* bf_schema_parse_record, then bf_record_decode: one line of agent output
 * into *out. Errors as bf_schema_parse_record. Caller frees *out with
 * bf_record_free (also after an error: it is then empty). */
enum bf_err bf_record_parse(const char *line, size_t len,
			    struct bf_record *out, char *detail,
			    size_t detail_len);

/* Encodes r as the agent writes it: schema, type, seq (r->seq; 0 when
 * negative), then the type's keys in the order of docs/schema.md, null for
 * a missing value the schema always carries, absent for an optional one.
 * Caller frees with cJSON_Delete; aborts on out-of-memory. */
struct cJSON *bf_record_encode(const struct bf_record *r);

/* Makes every number in tree (an object or array, recursively) print
 * exactly: a number that cJSON's printer would write within one
 * DBL_EPSILON rather than bit for bit (and -0) becomes a raw item with the
 * shortest of 15, 16 or 17 significant digits that reads back as the same
 * double. Call just before printing the tree (the agent's
 * report_emit_record): raw items are no longer cJSON numbers to code
 * that reads the tree.
 * Aborts on out-of-memory. NULL does nothing. */
void bf_json_exact_numbers(struct cJSON *tree);

/* Prints doc to f as indented JSON with every number exact
 * (bf_json_exact_numbers) and a newline after it, then deletes doc (it is
 * the caller's no more). Aborts on out-of-memory; whether f got it is
 * f's error state, for the caller to check (ctl's main checks stdout). */
void bf_json_print_exact(FILE *f, struct cJSON *doc);

/* The host record's "options" object; caller frees with cJSON_Delete. */
struct cJSON *bf_rec_options_encode(const struct bf_rec_options *o);

/* The first option in which a and b differ, by its key in the host
 * record's "options" ("sizes", "dtypes", "device", "iters", ...), or
 * "options" when either object is absent (two absent ones are not "the
 * same settings"); NULL when every field is equal (sizes and dtypes in
 * order; a field absent from both counts as equal). Static string. */
const char *bf_rec_options_differ(const struct bf_rec_options *a,
				  const struct bf_rec_options *b);
/* Whether two runs used the same agent options: !bf_rec_options_differ. */
int bf_rec_options_equal(const struct bf_rec_options *a,
			 const struct bf_rec_options *b);

/* Deep copy of src into *dst; caller frees with bf_rec_options_free. */
void bf_rec_options_copy(struct bf_rec_options *dst,
			 const struct bf_rec_options *src);
void bf_rec_options_free(struct bf_rec_options *o);

/*
 * A speed ratio, the one definition behind the summary's ratios, ctl's
 * vs_fp32 and GPU_vs_CPU columns and ctl compare's "B vs A": a result's
 * GFLOP/s over its base's GFLOP/s (> 1: the result is faster). Both are
 * GFLOP/s at the same n, from the median time (2 n^3 / median):
 *  - vs_fp32: a dtype's GFLOP/s over fp32's on the same device;
 *  - gpu_vs_cpu: a GPU's fp32 GFLOP/s over the same host's CPU fp32;
 *  - compare: column B's median GFLOP/s over column A's.
 * Only verified (pass) results are compared; the caller picks the pair.
 * NaN when either value is NaN.
 */
double bf_speed_ratio(double gflops, double base_gflops);

/* The speed ratios a GEMM result can get, in the order the agent's
 * summary lists them for one result. */
enum bf_ratio_kind {
	BF_RATIO_KIND_GPU_VS_CPU, /* BF_RATIO_GPU_VS_CPU */
	BF_RATIO_KIND_VS_FP32,    /* BF_RATIO_VS_FP32 */
	BF_RATIO_KIND__COUNT
};

/* What a result of a ratio is compared against, at the same n. */
struct bf_ratio_base {
	enum bf_dtype dtype; /* the base's dtype (fp32) */
	int on_cpu;          /* 1: the host's CPU; 0: the result's device */
};

/*
 * Which results get a ratio, stated once for the agent's summary
 * (agent/workloads/gemm.c:gemm_ratios) and ctl's columns
 * (controller/model/model.c): whether a GEMM result of dtype dt with
 * status st, on a GPU (gpu non-zero) or a CPU, gets a ratio of kind k,
 * and if so its base into *base:
 *  - gpu_vs_cpu: a GPU's fp32 result, over the host's CPU fp32;
 *  - vs_fp32: any other dtype's result, over fp32 on its own device.
 * Only a verified (pass) result gets one, and only over a base that
 * passed too (the caller looks the base up and checks its status).
 * Returns 1 or 0.
 */
int bf_ratio_wanted(enum bf_ratio_kind k, enum bf_dtype dt, enum bf_status st,
		    int gpu, struct bf_ratio_base *base);

/* "gpu_vs_cpu", "vs_fp32" (the summary's kinds, schema.h); static. */
const char *bf_ratio_kind_name(enum bf_ratio_kind k);

/*
 * The floating-point operations of one GEMM of an n x n matrix by an
 * n x n matrix, C = A B: 2 n^3 (n^3 multiplies and n^3 adds, the count of
 * LAPACK Working Note 41 for xGEMM with m = n = k). Counted in double:
 * an int 2 n^3 overflows from n = 1025 (2 x 1025^3 > INT_MAX), below the
 * agent's default n = 4096; a double holds it exactly up to n = 2^17,
 * beyond BF_AGENT_MAX_N. n >= 0; no errors. The one definition behind
 * every GFLOP/s figure (agent, run model, history, archive, compare).
 */
double bf_gemm_flops(int n);

/*
 * GFLOP/s of one n x n GEMM taking ms milliseconds:
 * bf_gemm_flops(n) / ms / 1e6 (flops per ms over 1e6 = GFLOP/s; the
 * formula of docs/schema.md's gflops), evaluated in that order so that
 * every caller gets the same bits. ms > 0; otherwise what IEEE division
 * gives (inf, NaN). No errors.
 */
double bf_gemm_gflops(int n, double ms);

/* Relative tolerance of bf_rec_gemm_consistent: the agent writes gflops
 * and median_ms with 15 significant digits, so an honest record agrees
 * far closer than this. */
#define BF_GEMM_GFLOPS_RTOL 1e-6

/*
 * Whether a gemm record's GFLOP/s is what its own n and median_ms say:
 * gflops = 2 n^3 / median_ms / 1e6 (docs/schema.md) within
 * BF_GEMM_GFLOPS_RTOL relative, and a median_ms given is a time (finite,
 * above 0: bf_schema_time_ok, the rule every sample passes). A record
 * without a gflops or median_ms (not run, failed) has nothing else to
 * check. Returns 1 when consistent, else 0 with "what: why" in why (may
 * be NULL): "invalid: median_ms is -1: expected a time above 0 ms".
 */
int bf_rec_gemm_consistent(const struct bf_rec_gemm *g, char *why,
			   size_t why_len);

/* ctl's one gate for gemm records entering a table (the run model and
 * the archive readers): an inconsistent record (bf_rec_gemm_consistent)
 * becomes a failed one with no GFLOP/s and no fraction of peak or of
 * the roofline, its
 * reason saying why ("invalid: ..."). Returns 1 when g was changed. */
int bf_rec_gemm_check(struct bf_rec_gemm *g);

#endif
