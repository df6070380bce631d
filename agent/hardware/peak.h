/*
 * Theoretical peak GEMM throughput of a device per dtype, with the
 * derivation kept beside the number so a reader can check it:
 *
 *   CPU: cores x SIMD lanes x FMA units x 2 FLOP per FMA x clock
 *   GPU: SMs x FLOP per cycle per SM (for the compute capability and the
 *        units the GEMM runs on) x clock
 *
 * The peak is an upper bound on purpose: it decides whether a measured
 * result is impossible (faster than the hardware), so where a table has to
 * choose (one or two FMA units on a Xeon, GeForce's halved fp32-accumulate
 * tensor rate) it takes the larger figure, and says so in `basis`.
 */
#ifndef BF_PEAK_H
#define BF_PEAK_H

#include "dtype.h"

struct peak {
	double gflops;          /* the peak, GFLOP/s (1e9 FLOP/s); NaN unknown */
	int units;              /* cores or SMs counted; 0 unknown */
	double flops_per_cycle; /* per core or SM, for this dtype */
	double clock_ghz;       /* the clock used; NaN unknown */
	char clock_source[48];  /* "cpufreq max", "measured", "cudaDevAttrClockRate" */
	char basis[200];        /* one line: "2 cores x 16 fp32 lanes (avx512f)
				 * x 2 FMA units x 2 FLOP/FMA" or the reason
				 * the peak is unknown */
};

/* What the CPU offers, read once from /proc/cpuinfo, sysfs and a clock
 * measurement (see peak_cpu_probe). */
struct cpu_caps {
	int cores;           /* physical cores this process may run on
			      * (logical CPUs where topology is unreadable) */
	int fp32_lanes;      /* fp32 values per SIMD register: 16 avx512f,
			      * 8 avx/avx2, 4 sse/asimd */
	int fma_units;       /* SIMD FMA pipes per core (upper bound) */
	double bf16_factor;  /* peak bf16 GEMM rate over fp32's (AMX, dot
			      * product instructions), 1 when none */
	double fp16_factor;  /* likewise for fp16 */
	char isa[32];        /* "avx512f", "avx2+fma", "asimd", ... */
	char extra[64];      /* the 16-bit features found: "amx_bf16", ... */
	double clock_ghz;    /* max(cpufreq max, measured); NaN unknown */
	char clock_source[48];
};

/* Reads this machine's CPU capabilities: cpuinfo flags (x86) or Features
 * (aarch64), the physical cores among sched_getaffinity's CPUs (sysfs
 * topology), the clock as the larger of cpufreq's cpuinfo_max_freq and a
 * measurement (a chain of dependent adds retires one per cycle; best of
 * 30 bursts of 10^6, about 15 ms in all). Fields it cannot read stay 0 or
 * NaN; never fails. */
void peak_cpu_probe(struct cpu_caps *out);

/* Peak of a CPU GEMM of dtype on caps (fp32; fp16/bf16 with the caps'
 * factor). Writes *out; out->gflops is NaN (with the reason in basis)
 * when a needed figure is unknown. Pure. */
void peak_cpu(const struct cpu_caps *caps, enum bf_dtype dtype,
	      struct peak *out);

/* FLOP per cycle per SM of a dense GEMM of dtype on compute capability
 * major.minor, as cuBLAS runs it here (fp32: CUDA cores, 2 x the FMA
 * throughput of the CUDA C Programming Guide's arithmetic-instruction
 * table; tf32/fp16/bf16: tensor cores, from NVIDIA's architecture
 * whitepapers: V100, T4, A100, GA102, Ada, H100, Blackwell). 0 when the
 * table has no entry. *source (may be NULL) gets a static note. */
double peak_gpu_flops_per_cycle(int major, int minor, enum bf_dtype dtype,
				const char **source);

/* Peak of a GPU GEMM: sm_count x peak_gpu_flops_per_cycle x clock_ghz
 * (the SM's peak clock, cudaDevAttrClockRate). Pure. */
void peak_gpu(int major, int minor, int sm_count, double clock_ghz,
	      enum bf_dtype dtype, struct peak *out);

#endif
