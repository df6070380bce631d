/*
 * A short measurement of what one core can do: its clock, and the FLOP
 * per cycle of fp32 FMAs at the widest SIMD width it has (and of its bf16
 * and fp16 dot-product or FMA instructions where it has them). The peak
 * model (peak.h) multiplies these by cores and clocks; the
 * microarchitecture table (peak_tables.h) is the cross-check.
 *
 * How (the method of bench/peak.c, which measured 32.0 FLOP/cycle on this
 * project's Zen 4):
 *  - clock: a chain of dependent register adds retires one add per cycle
 *    on every x86-64 and AArch64 core, so adds per nanosecond is the clock
 *    the core runs at;
 *  - FLOP/cycle: 16 (x86) or 24 (AArch64) independent accumulator chains
 *    of one instruction, enough to cover its latency on every FMA pipe the
 *    core has (4 cycles x 4-6 pipes), FLOP per nanosecond over the clock.
 *    Each figure is the best of PEAK_PROBE_REPS short bursts, alternated,
 *    so a burst the scheduler interrupted only reads low and is dropped.
 *
 * The kernels live in peak_kernels.c with nothing but inline assembly, so
 * that file compiles for either architecture on its own.
 */
#ifndef BF_PEAK_PROBE_H
#define BF_PEAK_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "bf_error.h"

#define PEAK_PROBE_REPS 40

/* One instruction's measured rate. */
struct peak_probe_rate {
	double flop_per_cycle; /* measured, unrounded; NaN: not run */
	double flop_per_instr; /* FLOP of one such instruction */
	char isa[40];	       /* "avx512f vfmadd213ps zmm", "asimd fmla
				* v.4s", ...; "" when not run */
};

struct peak_probe_result {
	double clock_ghz;	     /* dependent adds per ns; NaN */
	struct peak_probe_rate fp32; /* the widest of the fp32 FMA probes */
	struct peak_probe_rate bf16; /* vdpbf16ps zmm / bfmmla; NaN none */
	struct peak_probe_rate fp16; /* vfmadd213ph zmm / fmla v.8h */
	double elapsed_ms;	     /* wall time of the whole probe */
};

/* Runs the probe on logical CPU cpu (the calling thread is pinned there
 * with pthread_setaffinity_np and its mask restored afterwards; cpu < 0:
 * wherever it runs). Each instruction is run only where the running CPU
 * reports it (x86: __builtin_cpu_supports, which also checks that the OS
 * saves the registers; AArch64: getauxval HWCAPs). Takes about 10-30 ms.
 * BF_ERR_UNSUPPORTED (with the reason) on an architecture without
 * kernels or when pinning fails; out then holds NaNs. Blocks; thread-safe
 * apart from the pinning of the calling thread. */
enum bf_err peak_probe_run(int cpu, struct peak_probe_result *out, char *why,
			   size_t why_len);

/* FLOP per cycle rounded to what hardware can issue: a whole number of
 * `per_instr`-FLOP instructions per two cycles (0.5 steps), so that 31.8
 * measured reads 32 and 63.9 reads 64; NaN stays NaN. */
double peak_probe_round(double flop_per_cycle, double per_instr);

/* --- the kernels (peak_kernels.c) ---------------------------------------
 * Each runs `iters` loop iterations of its instruction block and returns
 * nothing; the caller times it. The FLOP of one iteration: */
#define PEAK_K_X86_ACC 16 /* accumulators per iteration on x86 */
#define PEAK_K_ARM_ACC 24 /* on AArch64 */

/* Dependent adds: 100 per iteration (the clock). */
void peak_k_adds(long iters);
#if defined(__x86_64__)
void peak_k_fma512(long iters);	    /* 16 x vfmadd213ps zmm: 16x16x2 FLOP */
void peak_k_fma256(long iters);	    /* 12 x vfmadd213ps ymm: 12x8x2 */
void peak_k_dpbf16_512(long iters); /* 16 x vdpbf16ps zmm: 16x16x4 */
void peak_k_fmaph512(long iters);   /* 16 x vfmadd213ph zmm: 16x32x2 */
#elif defined(__aarch64__)
void peak_k_fmla4s(long iters);	  /* 24 x fmla v.4s: 24x4x2 FLOP */
void peak_k_fmla8h(long iters);	  /* 24 x fmla v.8h: 24x8x2 */
void peak_k_bfmmla(long iters);	  /* 24 x bfmmla: 24x(2x2x4)x2 */
void peak_k_sve_fmla(long iters); /* 24 x fmla z.s: 24 x VL/32 x 2 */
long peak_k_sve_lanes32(void);	  /* fp32 lanes of an SVE vector (cntw) */
#endif

#endif
