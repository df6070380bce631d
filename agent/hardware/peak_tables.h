/*
 * The documented hardware figures behind the peaks (peak.h), one row per
 * microarchitecture or product, each with its source:
 *
 *  - cpu_uarch: FLOP per cycle per core of one CPU microarchitecture at
 *    its widest SIMD width, fp32 and with its bf16/fp16 instructions,
 *    keyed by CPUID vendor/family/model (x86) or MIDR implementer/part
 *    (aarch64, /proc/cpuinfo's CPU implementer and CPU part);
 *    peak_cpu_table.c. The probe (peak_probe.h) measures the same
 *    figure; the table is its cross-check, and the fallback where it
 *    cannot run.
 *  - gpu_product: a GPU product's published dense TFLOP/s per dtype, at
 *    the accumulate type the agent times (fp32 accumulate for fp16 and
 *    bf16: CUBLAS_COMPUTE_32F), with the SM count and the clock the
 *    figure was derived at and the FLOP per cycle per SM that reproduces
 *    it; keyed by cudaDeviceProp.name; peak_gpu_table.c.
 *  - gpu_arch_rate: the most any product of a compute capability does
 *    per SM and cycle (the professional parts' full-rate tensor cores),
 *    for a GPU the product table does not name.
 */
#ifndef BF_PEAK_TABLES_H
#define BF_PEAK_TABLES_H

#include "hardware/cpu_topology.h"
#include "dtype.h"

/* A FLOP/cycle/core range: lo == hi for one figure; lo < hi where the
 * table cannot decide (the number of FMA units differs between SKUs of
 * one model, or the sources disagree). 0 0: not known. */
struct cpu_rate_range {
	double lo, hi;
};

struct cpu_uarch {
	const char *name; /* "Zen 4", "Cortex-X925" */
	enum cpu_arch arch;
	const char *vendor;	      /* x86 vendor_id; NULL on aarch64 */
	int family;		      /* x86 family; aarch64 implementer */
	int model_lo, model_hi;	      /* x86 model or aarch64 part range */
	enum cpu_core_type core_type; /* hybrid x86: which core; ANY */
	struct cpu_rate_range fp32;   /* FMA at the widest SIMD width */
	/* With the CPU's bf16 (avx512_bf16, AMX, BFMMLA) or fp16
	 * (avx512_fp16, AMX-FP16, FEAT_FP16) instructions; 0 0 where the
	 * part has none (then the dtype runs at the fp32 rate). */
	struct cpu_rate_range bf16, fp16;
	/* The bf16/fp16 figure comes from a unit the probe does not run
	 * (AMX tiles): the table's figure is used, not the probe's. */
	unsigned unprobed_feature; /* CPU_FEAT_AMX_BF16 | ..._FP16; 0 */
	const char *source;
};

/* The row for id, NULL when the table has none. Static. */
const struct cpu_uarch *cpu_uarch_find(const struct cpu_id *id);

/* The whole table (for the tests); *n gets its length. Static. */
const struct cpu_uarch *cpu_uarch_table(int *n);

struct gpu_product {
	const char *name;  /* cudaDeviceProp.name; a final '*' matches
			    * any rest ("NVIDIA A100-SXM4*": -40GB,
			    * -80GB); a name also matches its MIG
			    * instances ("<name> MIG 3g.40gb") */
	int sms;	   /* SMs of the full product */
	double fp32_mhz;   /* clock the fp32 figure was derived at */
	double tensor_mhz; /* clock of the tensor-core figures */
	/* Published dense TFLOP/s (no 2:4 sparsity), fp32 accumulate; 0:
	 * the product has no such path (bf16 before compute capability 8.0) */
	double fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops;
	/* FLOP/cycle/SM that gives each figure: sms x rate x clock */
	int fp32_rate, tf32_rate, fp16_rate, bf16_rate;
	const char *source;
	/* Published dense FP8 (e4m3) TFLOP/s at fp32 accumulate, at
	 * tensor_mhz, and its FLOP/cycle/SM; 0 0: no FP8 path (before
	 * compute capability 8.9). After source so that rows without FP8
	 * end there. */
	double fp8_tflops;
	int fp8_rate;
};

/* The product row for a device name, NULL when the table has none. */
const struct gpu_product *gpu_product_find(const char *name);
const struct gpu_product *gpu_product_table(int *n);

/* TFLOP/s and FLOP/cycle/SM of a product row for dtype (0 when none);
 * *mhz gets the clock of that figure. */
double gpu_product_tflops(const struct gpu_product *p, enum bf_dtype dtype,
			  int *rate, double *mhz);

/* The largest dense FLOP/cycle/SM of any product of compute capability
 * major.minor for dtype at fp32 accumulate (0 when the table has no
 * row); *source (may be NULL) gets the row's note. */
double gpu_arch_rate(int major, int minor, enum bf_dtype dtype,
		     const char **source);

#endif
