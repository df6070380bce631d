/*
 * Peak GEMM throughput of a device per dtype, two figures with the
 * derivation of each kept beside it:
 *
 *  - the rated peak (gflops), what %peak divides by: on a CPU the sum over
 *    its clusters of cores x FLOP/cycle/core x maximum clock, the FLOP per
 *    cycle measured by a short FMA probe on one core of each cluster
 *    (peak_probe.h) and cross-checked against the microarchitecture table
 *    (peak_tables.h); on a GPU the vendor's published dense figure for the
 *    product, at the accumulate type the agent times, from the product
 *    table, else SMs x FLOP/cycle/SM x clock;
 *  - the bound (bound_gflops), the most the silicon can do, which decides
 *    whether a result is impossible ("above peak", agent/gemm.c): on a CPU
 *    the larger of probe and table per cluster at the maximum clock; on a
 *    GPU SMs x the product's FLOP/cycle/SM x the highest clock the device
 *    reports (cudaDevAttrClockRate, NVML's maximum SM clock) or the
 *    figure's own clock. A rated peak at a clock below the maximum (a
 *    Hopper's tensor figures) is below its bound.
 *
 * `method` says where the rated figure came from: "probe" (measured),
 * "table" (the microarchitecture table: the probe could not run, or the
 * unit is not probed, as AMX), "isa" (neither: SIMD width x 2 FMA pipes,
 * an upper estimate), joined by '+' when a CPU's clusters differ;
 * "product" (a GPU product row) or "derived" (a GPU the product table
 * does not name). `disagreement` is set when the probe and the table
 * differ by more than 10 %.
 */
#ifndef BF_PEAK_H
#define BF_PEAK_H

#include "hardware/cpu_topology.h"
#include "dtype.h"
#include "hardware/peak_probe.h"
#include "hardware/peak_tables.h"

/* The probe and the table disagree beyond this factor either way. */
#define PEAK_DISAGREE_FACTOR 1.10

struct peak {
	double gflops;		/* rated peak, GFLOP/s (1e9 FLOP/s); NaN */
	double bound_gflops;	/* most the silicon can do; NaN unknown */
	char method[24];	/* "probe", "table", "isa", "probe+table",
				 * "product", "derived"; "" unknown */
	char basis[640];	/* the rated figure's derivation, one line,
				 * or why it is unknown */
	char bound_basis[320];	/* the bound's */
	char disagreement[256]; /* probe vs table beyond 10 %; "" none */
	char product[96];	/* what references are keyed by: the GPU's
				 * name, the CPU's clusters ("2x Zen 4");
				 * "" unknown */
};

/* --- CPU ---------------------------------------------------------------- */

struct cpu_peak_cluster {
	struct cpu_cluster topo;
	const struct cpu_uarch *uarch;	/* NULL: not in the table */
	struct peak_probe_result probe; /* NaNs when not probed */
	char probe_why[96];		/* why not, "" when probed */
	double clock_ghz;		/* largest of cpufreq's maximum, the
					 * probe's clock and cpu MHz; NaN */
	char clock_source[40];
};

struct cpu_peak_model {
	int nclusters;
	struct cpu_peak_cluster c[CPU_CLUSTERS_MAX];
	char product[96]; /* clusters by name, "10x Cortex-A725 + 10x
			   * Cortex-X925" (names sorted); "" when a
			   * cluster is not in the table */
	double probe_ms;  /* time all probes took */
};

/* Builds the model of layout l without probing: table rows, clocks from
 * cpufreq and cpu MHz. Pure. */
void peak_cpu_model_init(const struct cpu_layout *l, struct cpu_peak_model *m);

/* Records cluster k's probe result r (NULL: not probed, why says why) and
 * recomputes its clock. Pure. */
void peak_cpu_model_set_probe(struct cpu_peak_model *m, int k,
			      const struct peak_probe_result *r,
			      const char *why);

/* This machine: the layout of the CPUs this process may use
 * (cpu_layout_read on /, sched_getaffinity), then the probe on the lowest
 * CPU of each cluster (peak_probe_run; about 10-30 ms each). Never fails:
 * what it cannot read stays unknown. Blocks. */
void peak_cpu_probe(struct cpu_peak_model *m);

/* The peak of a CPU GEMM of dtype (fp32, bf16, fp16) on model m. Pure.
 * out->gflops and bound_gflops are NaN, with the reason in basis, when a
 * cluster's clock or rate is unknown, or for a dtype with no CPU GEMM. */
void peak_cpu(const struct cpu_peak_model *m, enum bf_dtype dtype,
	      struct peak *out);

/* --- GPU ---------------------------------------------------------------- */

struct gpu_peak_input {
	const char *name;     /* cudaDeviceProp.name; NULL unknown */
	int major, minor;     /* compute capability */
	int sm_count;	      /* cudaDevAttrMultiProcessorCount (a MIG
			       * slice has fewer than the product) */
	double clock_ghz;     /* cudaDevAttrClockRate: the maximum boost
			       * clock; NaN unknown */
	double max_clock_ghz; /* NVML's maximum SM clock; NaN unknown */
};

/* Whether a GPU the product table does not name runs dtype at half its
 * compute capability's full tensor rate: a GeForce name (cudaDeviceProp.
 * name contains "GeForce") of Turing (fp16 only: bf16 there is the fp32
 * units'), Ampere, Ada or consumer Blackwell (major 7, 8, 12), for tf32,
 * fp16, bf16 and fp8 at fp32 accumulate (the GA102, Ada and RTX
 * Blackwell whitepapers, appendix A). 1 or 0. Pure. */
int peak_gpu_geforce_halves(const char *name, int major, enum bf_dtype dtype);

/* The peak of a GPU GEMM of dtype: rated from the product row (scaled by
 * sm_count / the product's SMs when they differ), else derived; the bound
 * from the FLOP/cycle/SM at the highest known clock. Pure. */
void peak_gpu(const struct gpu_peak_input *in, enum bf_dtype dtype,
	      struct peak *out);

#endif
