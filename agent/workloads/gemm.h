/*
 * The dtype GEMM sweep: for every size, device and dtype, one "gemm"
 * record with every timed sample, the median, GFLOP/s, peak memory and a
 * numerical check of the result against a float64 reference.
 */
#ifndef BF_GEMM_H
#define BF_GEMM_H

#include "backends/backend.h"
#include "bf_testonly.h"
#include "core/options.h"
#include "core/report.h"
#include "stats.h"

/* A device to benchmark: usable (probe passed) or with the reason not. */
struct sweep_device {
	struct device dev;
	int usable;
	char reason[256];
	/* The device's measured bandwidth for the roofline (bandwidth.c):
	 * kind NULL (static string otherwise) when it was not measured. */
	const char *bandwidth_kind;
	double bandwidth_gbps;
};

/* One (device, dtype, n) outcome, kept for the summary's ratios. */
struct gemm_outcome {
	struct device dev;
	enum bf_dtype dtype;
	int n;
	enum bf_status status;
	double gflops; /* from the median; NaN unless status == PASS/FAIL */
};

struct gemm_sweep {
	struct gemm_outcome *items; /* caller frees with gemm_sweep_free */
	int count;
};

/* Records the sweep will emit: devices x sizes x dtypes. */
int gemm_count(int ndevices, const struct agent_opts *o);

/* Runs the sweep over devs (unusable ones give skipped records) and
 * fills *out. */
void gemm_sweep_run(struct report *r, const struct sweep_device *devs,
		    int ndevices, const struct agent_opts *o,
		    struct gemm_sweep *out);

/* Appends the summary's ratios to sum->ratios (owned by sum, freed with
 * its record): for each n, GPU fp32 GFLOP/s over CPU fp32 ("gpu_vs_cpu"),
 * and per device each dtype's GFLOP/s over fp32 on the same device
 * ("vs_fp32"), each bf_speed_ratio; which results get one is
 * bf_ratio_wanted's (record.h). Only verified (pass) results are
 * compared. A repeated size pairs like with like, as ctl's run model
 * does: its k-th result over the base's k-th (by sweep order), and
 * none where that one did not pass. The summary lists a repeated size's
 * ratios in sweep order. */
void gemm_ratios(const struct gemm_sweep *s, struct bf_rec_summary *sum);

/* count seeded inputs uniform in [-1, 1): the values erand48 gives from
 * the state {seed & 0xffff, (seed >> 16) & 0xffff, 0x330e + which}, as
 * 2 x - 1 rounded to fp32. Matrix A is which = 0, B which = 1. */
BF_TESTONLY
void gemm_fill_uniform(float *x, size_t count, uint64_t seed, int which);

/* FLOPs of an n x n x n GEMM: n^3 multiply-adds of 2 FLOPs, 2 n^3
 * (1.37e11 at n = 4096): bf_gemm_flops (common/record.h), the one
 * definition ctl uses as well. */
double gemm_flops(int n);

/* Bytes of A and B (dtype) and C (c_dtype), n x n each: 3 n^2 x element
 * bytes when C has the inputs' dtype (192 MiB at fp32, 96 MiB at fp16 for
 * n = 4096: the seed's figures). */
double gemm_operand_bytes(int n, enum bf_dtype dtype, enum bf_dtype c_dtype);

/* A result counts as faster than the hardware above this multiple of the
 * device's bound (peak.h, bound_gflops): the bound's clock is read or
 * measured (agent/hardware/peak.c), and a measurement on a loaded machine can read
 * a few per cent low. */
#define GEMM_PEAK_MARGIN 1.10

/* The plausibility guard: whether gflops (GFLOP/s of a verified GEMM) is
 * faster than the device can be, i.e. above GEMM_PEAK_MARGIN x
 * peak->bound_gflops. The bound, never the rated peak (peak->gflops): a
 * GPU's published tensor figure is at a clock below the one it may run
 * at, and a MIG slice's bound is its own SMs' (agent/hardware/peak.c).
 * Returns 1 and writes "N GFLOP/s is above the device's theoretical peak
 * of B GFLOP/s (basis): ..." into why (why_len bytes, may be 0) when it
 * is; 0 when not, or when the bound is unknown (NaN) or gflops is NaN. */
BF_TESTONLY
int gemm_above_bound(double gflops, const struct peak *peak, char *why,
		     size_t why_len);

/* Spread ((max - min) / median) above which a row is unreliable. */
#define GEMM_SPREAD_MAX 0.20

struct bf_rec_gemm;

/* Fills g's reliable, unreliable_reasons and spread: a row is unreliable
 * with one sample (g->nsamples), no warm-up, a spread above
 * GEMM_SPREAD_MAX, or clocks held down (g->throttled == 1). Times in ms. */
void gemm_reliability(struct bf_rec_gemm *g, int warmup, double median,
		      double min, double max);

/* lambda of the probabilistic accumulation bound (see gemm.c). */
#define GEMM_TOLERANCE_LAMBDA 16.0

/* The componentwise error a correct GEMM of dtype with inner dimension k
 * may show after the output rounding is allowed for (see gemm.c):
 * lambda sqrt(k) 2^-24, plus 2 x 2^-10 for TF32's input rounding. A pure
 * number (relative to sum_k |a_ik b_kj|); 0 for a dtype with no GEMM. */
BF_TESTONLY
double gemm_tolerance(enum bf_dtype dtype, int k);

/* Unit roundoff of C's dtype: 2^-24 (fp32, tf32), 2^-11 (fp16), 2^-8
 * (bf16); 0 for others. The relative error rounding a result into C may
 * add on top of gemm_tolerance. */
BF_TESTONLY
double gemm_output_roundoff(enum bf_dtype c_dtype);

/* The numerical check of one GEMM's output. */
struct gemm_verify_result {
	double max_rel_error;       /* largest e_ij (see gemm.c); INFINITY
				     * when a compared element is NaN */
	double tolerance;           /* gemm_tolerance(job->dtype, job->n) */
	double output_roundoff;     /* gemm_output_roundoff(c_dtype) */
	int64_t verified_elements;  /* elements compared with the reference */
	int64_t nonfinite_elements; /* NaN or Inf elements anywhere in C */
	enum bf_status status;      /* PASS: no non-finite element and
				     * max_rel_error <= tolerance; else FAIL */
};

/* Checks c_host (n x n elements of c_dtype, row-major) against a float64
 * reference computed from job->a_host and job->b_host (n x n of
 * job->dtype's storage format). Every element of C is scanned for NaN and
 * Inf; every element is compared with the reference when n <= 64, else a
 * 32 x 32 sample of rows x columns: rows and columns 0, 1, n-2 and n-1
 * (the edge tiles of blocked kernels) and distinct others drawn from seed
 * (any 64-bit value; the same seed picks the same positions). Runs on the
 * host, outside any timed region; pure, does not allocate. */
BF_TESTONLY
void gemm_verify(const struct gemm_job *job, const void *c_host,
		 enum bf_dtype c_dtype, uint64_t seed,
		 struct gemm_verify_result *out);

/* Quantises count fp32 values to fp8 e4m3 with one per-tensor scale:
 * scale = the least power of two 2^e with max |src| / 2^e <= 448 (e4m3's
 * largest finite; 1 when every value is 0), dst[i] = bf_to_fp8_e4m3(
 * src[i] / scale) (exact division, round to nearest even). Returns the
 * scale: src[i] ~ scale * dst[i]'s value, the dequantisation factor
 * cuBLASLt's A/B scale pointers take. A power of two (as the OCP MX
 * formats' E8M0 scales) so that scaling adds no rounding of its own.
 * dst holds count bytes. Pure. */
BF_TESTONLY
double gemm_fp8_quantise(const float *src, size_t count, uint8_t *dst);

struct bf_record;

/* What one GEMM measured, before it is judged and becomes a record: the
 * input of gemm_judge and gemm_fill_record (gemm.c's run_one fills it;
 * tests/unit/test_workloads.c makes one up). Pointers are lent. */
struct gemm_measured {
	const struct gemm_job *job;       /* dtype, n, warm-up and iters */
	const struct gemm_result *res;    /* the samples (ms) and the rest */
	struct gemm_verify_result verify; /* the worse of the last and the
					   * first timed C's */
	int first_failed;                 /* the first timed C failed, the
					   * last passed */
	struct bf_stats_summary stats;    /* of res->samples_ms, ms */
	struct peak peak;                 /* the device's, at job->dtype */
	const char *library;              /* "OpenBLAS 0.3.21", ... */
	uint64_t verify_seed;             /* gemm_verify's seed */
	struct device_state before, after; /* around the run */
	const char *bandwidth_kind;       /* NULL: no roofline */
	double bandwidth_gbps;            /* GB/s of that kind */
};

/* Judges m: writes GFLOP/s from the median (2 n^3 / median, NaN unless
 * the result passes) to *gflops and returns PASS, or FAIL with the reason
 * in reason (len bytes; "" on PASS): verification failed (its non-finite
 * count or worst error against the tolerance, naming the first timed
 * iteration when only that one failed), or a verified result faster than
 * the device can be (gemm_above_bound). Pure. */
BF_TESTONLY
enum bf_status gemm_judge(const struct gemm_measured *m, double *gflops,
			  char *reason, size_t len);

/* Initialises rec as the gemm record of m on dev, judged status with
 * reason (kept when status is not PASS) and gflops (GFLOP/s, NaN allowed):
 * times in ms, peak, bound, reference, roofline, reliability, device state
 * and energy. rec's samples_ms is m->res->samples_ms, lent: set it to NULL
 * before bf_record_free(rec). Allocates (aborts on OOM as bf_xmalloc). */
BF_TESTONLY
void gemm_fill_record(struct bf_record *rec, const struct device *dev,
		      const struct gemm_measured *m, enum bf_status status,
		      const char *reason, double gflops);

void gemm_sweep_free(struct gemm_sweep *s);

#endif
