/* Clock and FMA-throughput probe of one core; see peak_probe.h. */
#include "hardware/peak_probe.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "bf_clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

/* Iterations per burst: about 0.1-0.3 ms each at 2-4 GHz, long against
 * the clock's resolution, short against a scheduler tick. */
#define ADD_ITERS 3000L /* x 100 dependent adds */
#define FMA_ITERS 4000L /* x 16 or 24 independent FMAs */

double peak_probe_round(double flop_per_cycle, double per_instr)
{
	double half = per_instr / 2;

	if (isnan(flop_per_cycle) || !(per_instr > 0))
		return NAN;
	return fmax(half, round(flop_per_cycle / half) * half);
}

/* Best (largest) rate of fn in FLOP per ns over one burst. */
static double burst(void (*fn)(long), long iters, double flop_per_iter)
{
	uint64_t t0 = bf_now_ns(), t1;

	fn(iters);
	t1 = bf_now_ns();
	return t1 > t0 ? flop_per_iter * (double)iters / (double)(t1 - t0) : 0;
}

struct kernel {
	void (*fn)(long);
	double flop_per_iter;
	double flop_per_instr; /* for peak_probe_round */
	const char *isa;
	struct peak_probe_rate *into;
	double best; /* FLOP per ns */
};

/* Which kernels this CPU runs, into k[]; returns how many. */
static int kernels_here(struct kernel *k, struct peak_probe_result *out)
{
	int n = 0;
#if defined(__x86_64__)
	unsigned a, b, c, d, b7 = 0, c7 = 0, d7 = 0, a71 = 0;
	unsigned long long xcr0 = 0;
	int avx_os, avx512_os;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	/* The OS must save the registers (OSXSAVE, then XCR0's SSE and AVX
	 * state, and for AVX-512 the opmask and upper-zmm states). */
	if (c >> 27 & 1) {
		unsigned lo, hi;

		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		xcr0 = (unsigned long long)hi << 32 | lo;
	}
	avx_os = (xcr0 & 0x6) == 0x6 && (c >> 28 & 1);
	avx512_os = avx_os && (xcr0 & 0xe0) == 0xe0;
	__get_cpuid_count(7, 0, &a, &b7, &c7, &d7);
	__get_cpuid_count(7, 1, &a71, &b, &c, &d);
	if (avx512_os && (b7 >> 16 & 1)) /* AVX512F */
		k[n++] = (struct kernel){ peak_k_fma512,
					  PEAK_K_X86_ACC * 16 * 2,
					  32,
					  "avx512f vfmadd213ps zmm",
					  &out->fp32,
					  0 };
	if (avx_os && (b7 >> 5 & 1) && (c >> 12 & 1)) /* AVX2, FMA */
		k[n++] = (struct kernel){
			peak_k_fma256,		12 * 8 * 2, 16,
			"avx2 vfmadd213ps ymm", &out->fp32, 0
		};
	if (avx512_os && (a71 >> 5 & 1)) /* AVX512_BF16 */
		k[n++] = (struct kernel){ peak_k_dpbf16_512,
					  PEAK_K_X86_ACC * 16 * 4,
					  64,
					  "avx512_bf16 vdpbf16ps zmm",
					  &out->bf16,
					  0 };
	if (avx512_os && (d7 >> 23 & 1)) /* AVX512_FP16 */
		k[n++] = (struct kernel){ peak_k_fmaph512,
					  PEAK_K_X86_ACC * 32 * 2,
					  64,
					  "avx512_fp16 vfmadd213ph zmm",
					  &out->fp16,
					  0 };
#elif defined(__aarch64__)
	unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);

	/* Linux's uapi hwcap bits: ASIMD 1<<1, ASIMDHP 1<<10, SVE 1<<22;
	 * HWCAP2_BF16 1<<14 (arch/arm64/include/uapi/asm/hwcap.h). */
	if (hw & (1ul << 1))
		k[n++] = (struct kernel){ peak_k_fmla4s,
					  PEAK_K_ARM_ACC * 4 * 2,
					  8,
					  "asimd fmla v.4s",
					  &out->fp32,
					  0 };
	if (hw & (1ul << 22)) {
		long lanes = peak_k_sve_lanes32();

		if (lanes > 4) /* wider than NEON: worth its own probe */
			k[n++] = (struct kernel){
				peak_k_sve_fmla,
				(double)PEAK_K_ARM_ACC * (double)lanes * 2,
				(double)lanes * 2,
				lanes == 8  ? "sve fmla z.s (256-bit)" :
				lanes == 16 ? "sve fmla z.s (512-bit)" :
					      "sve fmla z.s",
				&out->fp32,
				0
			};
	}
	if (hw2 & (1ul << 14))
		k[n++] = (struct kernel){ peak_k_bfmmla,
					  PEAK_K_ARM_ACC * 16 * 2,
					  32,
					  "bf16 bfmmla",
					  &out->bf16,
					  0 };
	if (hw & (1ul << 10))
		k[n++] = (struct kernel){ peak_k_fmla8h,
					  PEAK_K_ARM_ACC * 8 * 2,
					  16,
					  "asimdhp fmla v.8h",
					  &out->fp16,
					  0 };
#else
	(void)k;
	(void)out;
#endif
	return n;
}

static void rate_none(struct peak_probe_rate *r)
{
	r->flop_per_cycle = r->flop_per_instr = NAN;
	r->isa[0] = '\0';
}

enum bf_err peak_probe_run(int cpu, struct peak_probe_result *out, char *why,
			   size_t why_len)
{
	struct kernel k[8];
	cpu_set_t old, one;
	int nk, pinned = 0, have_old;
	double best_ghz = 0;
	uint64_t t0 = bf_now_ns();

	memset(out, 0, sizeof(*out));
	out->clock_ghz = NAN;
	rate_none(&out->fp32);
	rate_none(&out->bf16);
	rate_none(&out->fp16);
#if !defined(__x86_64__) && !defined(__aarch64__)
	snprintf(why, why_len, "no FMA probe for this architecture");
	return BF_ERR_UNSUPPORTED;
#endif
	have_old =
		pthread_getaffinity_np(pthread_self(), sizeof(old), &old) == 0;
	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (!have_old ||
		    pthread_setaffinity_np(pthread_self(), sizeof(one), &one) !=
			    0) {
			snprintf(why, why_len,
				 "cannot run on CPU %d to probe it", cpu);
			return BF_ERR_UNSUPPORTED;
		}
		pinned = 1;
	}
	nk = kernels_here(k, out);
	/* One untimed burst of each: wakes the wide units (some cores power
	 * the upper 256 bits of the FMA pipes down when idle) and the clock. */
	for (int i = 0; i < nk; i++)
		k[i].fn(FMA_ITERS);
	for (int rep = 0; rep < PEAK_PROBE_REPS; rep++) {
		double ghz =
			burst(peak_k_adds, ADD_ITERS, 100); /* adds per ns */

		if (ghz > best_ghz)
			best_ghz = ghz;
		for (int i = 0; i < nk; i++) {
			double r =
				burst(k[i].fn, FMA_ITERS, k[i].flop_per_iter);

			if (r > k[i].best)
				k[i].best = r;
		}
	}
	if (pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (best_ghz > 0)
		out->clock_ghz = best_ghz;
	/* Each dtype keeps its fastest instruction (the widest ISA). */
	for (int i = 0; i < nk && best_ghz > 0; i++) {
		double fpc = k[i].best / best_ghz;
		struct peak_probe_rate *r = k[i].into;

		if (isnan(r->flop_per_cycle) || fpc > r->flop_per_cycle) {
			r->flop_per_cycle = fpc;
			r->flop_per_instr = k[i].flop_per_instr;
			snprintf(r->isa, sizeof(r->isa), "%s", k[i].isa);
		}
	}
	out->elapsed_ms = (double)(bf_now_ns() - t0) / 1e6;
	if (nk == 0 || best_ghz <= 0) {
		snprintf(why, why_len, "no FMA instruction to probe on CPU %d",
			 cpu);
		return BF_ERR_UNSUPPORTED;
	}
	return BF_OK;
}
