/*
 * peak: this CPU's clock and fp32 FMA throughput, per core, measured.
 *
 *   peak [REPEATS]     prints one JSON object
 *
 * clock_ghz: a chain of dependent 64-bit adds retires one add per cycle
 * on every x86 core since the Pentium Pro, so adds per nanosecond is the
 * clock the core runs at. The best of REPEATS (default 60) short bursts
 * is kept: on a shared machine a burst that ran without being preempted
 * gives the clock, one that was preempted only a lower figure.
 *
 * fma_gflops_1core: 16 (AVX-512; AVX2: 12) independent chains of vfmadd,
 * enough to cover the FMA latency (4 cycles) on two FMA ports; FLOP per
 * cycle is that rate divided by clock_ghz (64 on a core with two 512-bit
 * FMA units, 32 with one or with AVX2 only). Best of REPEATS bursts too.
 *
 * Built by bench/run; x86-64 only (elsewhere it prints nulls).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#if defined(__x86_64__)
#define ADDS_PER_BLOCK 100
#define ADD_BLOCKS 100000 /* 10^7 adds: ~4 ms at 2.5 GHz */

static double clock_once(void)
{
	uint64_t x = 0, one = 1;
	double t0 = now_ns(), dt;

	/* Register + register: recent cores fold an add of an immediate
	 * at rename (Golden Cove does), which would read as 5-16 GHz. */
	for (int i = 0; i < ADD_BLOCKS; i++)
		__asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr"
				 : "+r"(x) : "r"(one));
	dt = now_ns() - t0;
	if (x != (uint64_t)ADDS_PER_BLOCK * ADD_BLOCKS)
		abort();
	return (double)ADDS_PER_BLOCK * ADD_BLOCKS / dt;
}

#define FMA_ITERS 100000L

/* 16 independent accumulators zmm0-15 (acc = acc * 1 + 1), in registers
 * only; 16 FMAs x 16 lanes x 2 FLOP per loop. */
__attribute__((target("avx512f"))) static double fma512_once(void)
{
	static const float one = 1.0f;
	long n = FMA_ITERS;
	double t0, dt;

	t0 = now_ns();
	__asm__ volatile(
		".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n\t"
		"vbroadcastss (%1), %%zmm\\r\n\t"
		".endr\n"
		"1:\n\t"
		".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
		"vfmadd213ps %%zmm17, %%zmm16, %%zmm\\r\n\t"
		".endr\n\t"
		"decq %0\n\t"
		"jnz 1b\n\t"
		"vzeroupper"
		: "+r"(n)
		: "r"(&one)
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		  "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
		  "xmm15", "xmm16", "xmm17", "cc", "memory");
	dt = now_ns() - t0;
	return (double)FMA_ITERS * 16 * 16 * 2 / dt;
}

/* 12 accumulators ymm0-11 (two FMA ports x 4 cycles of latency need 8),
 * ymm12-13 the constants; 12 FMAs x 8 lanes x 2 FLOP per loop. */
__attribute__((target("avx2,fma"))) static double fma256_once(void)
{
	static const float one = 1.0f;
	long n = FMA_ITERS;
	double t0, dt;

	t0 = now_ns();
	__asm__ volatile(
		".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13\n\t"
		"vbroadcastss (%1), %%ymm\\r\n\t"
		".endr\n"
		"1:\n\t"
		".irp r,0,1,2,3,4,5,6,7,8,9,10,11\n\t"
		"vfmadd213ps %%ymm13, %%ymm12, %%ymm\\r\n\t"
		".endr\n\t"
		"decq %0\n\t"
		"jnz 1b\n\t"
		"vzeroupper"
		: "+r"(n)
		: "r"(&one)
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		  "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "cc",
		  "memory");
	dt = now_ns() - t0;
	return (double)FMA_ITERS * 12 * 8 * 2 / dt;
}
#endif

int main(int argc, char **argv)
{
	int reps = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 60;

	if (reps < 1)
		reps = 1;
#if defined(__x86_64__)
	double ghz = 0, fma = 0, x;
	const char *isa = NULL;
	int lanes = 0;

	__builtin_cpu_init();
	for (int r = 0; r < reps; r++)
		if ((x = clock_once()) > ghz)
			ghz = x;
	if (__builtin_cpu_supports("avx512f")) {
		isa = "avx512";
		lanes = 16;
	} else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
		isa = "avx2";
		lanes = 8;
	}
	for (int r = 0; isa && r < reps; r++) {
		x = lanes == 16 ? fma512_once() : fma256_once();
		if (x > fma)
			fma = x;
	}
	printf("{\"clock_ghz\": %.4f, \"isa\": %s%s%s, \"fp32_lanes\": %d, "
	       "\"fma_gflops_1core\": %.3f, \"flop_per_cycle_measured\": %.2f, "
	       "\"repeats\": %d}\n",
	       ghz, isa ? "\"" : "", isa ? isa : "null", isa ? "\"" : "", lanes,
	       fma, ghz > 0 ? fma / ghz : 0.0, reps);
#else
	printf("{\"clock_ghz\": null, \"isa\": null, \"fp32_lanes\": 0, "
	       "\"fma_gflops_1core\": null, \"flop_per_cycle_measured\": null, "
	       "\"repeats\": %d}\n", reps);
#endif
	return 0;
}
