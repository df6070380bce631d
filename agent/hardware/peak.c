/*
 * Theoretical peaks (see peak.h). The GPU table is per SM and per cycle,
 * dense (no 2:4 sparsity), so that it holds for every product of a
 * generation whatever its SM count and clock:
 *
 *   fp32  2 x FP32 FMA results per cycle per SM (CUDA C Programming Guide,
 *         "Arithmetic Instructions", throughput table: 64 on 7.x and 8.0,
 *         128 on 8.6 and later). cuBLAS's CUBLAS_COMPUTE_32F with the
 *         default math mode runs on these units, not the tensor cores.
 *   tf32, fp16, bf16: tensor-core dense FLOP per cycle per SM, derived
 *         from the whitepapers' peak TFLOPS / (SMs x boost clock):
 *         V100 125 TF / (80 x 1.53 GHz) = 1024 (fp16);
 *         T4 65 TF / (40 x 1.59) = 1024 (fp16);
 *         A100 312 TF / (108 x 1.41) = 2048 (fp16, bf16), tf32 1024;
 *         GA102 (RTX 3090, fp16 accumulate) 142 TF / (82 x 1.695) = 1024,
 *         tf32 256; Ada (RTX 4090) 330 TF / (128 x 2.52) = 1024, tf32 256;
 *         H100 SXM 989 TF / (132 x 1.83) = 4096, tf32 2048;
 *         B200 2.25 PF / (148 x 1.965) ~ 8192 (rounded up to the power of
 *         two), tf32 4096; RTX 5090 419 TF / (170 x 2.41) = 1024, tf32 256.
 *         GeForce cards halve the fp32-accumulate rate; the table keeps
 *         the full rate, since the peak is an upper bound.
 *   Generations without bf16 or tf32 tensor cores (7.x) run those dtypes
 *   on the fp32 units, so they get the fp32 figure.
 */
#include "hardware/peak.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_clock.h"
#include "hardware/hostinfo.h"

struct gpu_rate {
	int major, minor; /* minor -1: every minor of major */
	double fp32, tf32, fp16, bf16;
	const char *source;
};

static const struct gpu_rate gpu_rates[] = {
	{ 7, 0, 128, 128, 1024, 128, "Volta (V100 whitepaper)" },
	{ 7, 2, 128, 128, 1024, 128, "Volta (Xavier)" },
	{ 7, 5, 128, 128, 1024, 128, "Turing (T4 datasheet)" },
	{ 8, 0, 128, 1024, 2048, 2048, "Ampere GA100 (A100 whitepaper)" },
	{ 8, 6, 256, 256, 1024, 1024, "Ampere GA10x (GA102 whitepaper)" },
	{ 8, 7, 256, 256, 1024, 1024, "Ampere GA10B (Orin), as GA10x" },
	{ 8, 9, 256, 256, 1024, 1024, "Ada (Ada Lovelace whitepaper)" },
	{ 9, 0, 256, 2048, 4096, 4096, "Hopper (H100 whitepaper)" },
	{ 10, -1, 256, 4096, 8192, 8192, "Blackwell datacenter (B200 datasheet)" },
	{ 12, -1, 256, 256, 1024, 1024, "Blackwell GB20x/GB10 (RTX 5090 datasheet)" },
};

double peak_gpu_flops_per_cycle(int major, int minor, enum bf_dtype dtype,
				const char **source)
{
	for (size_t i = 0; i < sizeof(gpu_rates) / sizeof(gpu_rates[0]); i++) {
		const struct gpu_rate *r = &gpu_rates[i];

		if (r->major != major || (r->minor >= 0 && r->minor != minor))
			continue;
		if (source)
			*source = r->source;
		switch (dtype) {
		case BF_DTYPE_FP32:
			return r->fp32;
		case BF_DTYPE_TF32:
			return r->tf32;
		case BF_DTYPE_FP16:
			return r->fp16;
		case BF_DTYPE_BF16:
			return r->bf16;
		default:
			return 0;
		}
	}
	if (source)
		*source = NULL;
	return 0;
}

static void peak_unknown(struct peak *out, const char *why)
{
	out->gflops = NAN;
	snprintf(out->basis, sizeof(out->basis), "%s", why);
}

void peak_gpu(int major, int minor, int sm_count, double clock_ghz,
	      enum bf_dtype dtype, struct peak *out)
{
	const char *source = NULL;
	double per = peak_gpu_flops_per_cycle(major, minor, dtype, &source);

	memset(out, 0, sizeof(*out));
	out->units = sm_count > 0 ? sm_count : 0;
	out->flops_per_cycle = per;
	out->clock_ghz = clock_ghz > 0 ? clock_ghz : NAN;
	snprintf(out->clock_source, sizeof(out->clock_source),
		 "cudaDevAttrClockRate");
	if (per <= 0) {
		char why[96];

		snprintf(why, sizeof(why),
			 "no %s rate for compute capability %d.%d in the table",
			 bf_dtype_name(dtype), major, minor);
		peak_unknown(out, why);
		return;
	}
	if (sm_count <= 0 || !(clock_ghz > 0)) {
		peak_unknown(out, "SM count or clock unknown");
		return;
	}
	out->gflops = sm_count * per * clock_ghz;
	snprintf(out->basis, sizeof(out->basis),
		 "%d SMs x %.0f FLOP/cycle/SM (%s, %s, cc %d.%d) x %.3f GHz",
		 sm_count, per, bf_dtype_name(dtype), source, major, minor,
		 clock_ghz);
}

void peak_cpu(const struct cpu_caps *c, enum bf_dtype dtype, struct peak *out)
{
	double factor = 1;

	memset(out, 0, sizeof(*out));
	out->units = c->cores;
	out->clock_ghz = c->clock_ghz;
	snprintf(out->clock_source, sizeof(out->clock_source), "%s",
		 c->clock_source);
	if (dtype == BF_DTYPE_BF16)
		factor = c->bf16_factor > 0 ? c->bf16_factor : 1;
	else if (dtype == BF_DTYPE_FP16)
		factor = c->fp16_factor > 0 ? c->fp16_factor : 1;
	else if (dtype != BF_DTYPE_FP32) {
		peak_unknown(out, "no CPU GEMM for this dtype");
		return;
	}
	out->flops_per_cycle = (double)c->fp32_lanes * c->fma_units * 2 * factor;
	if (c->cores <= 0 || c->fp32_lanes <= 0 || c->fma_units <= 0 ||
	    !(c->clock_ghz > 0)) {
		peak_unknown(out, "CPU cores, SIMD width or clock unknown");
		return;
	}
	out->gflops = c->cores * out->flops_per_cycle * c->clock_ghz;
	snprintf(out->basis, sizeof(out->basis),
		 "%d cores x %d fp32 lanes (%s) x %d FMA units x 2 FLOP/FMA"
		 " x %.0f (%s) x %.3f GHz",
		 c->cores, c->fp32_lanes, c->isa, c->fma_units, factor,
		 factor != 1 ? "16-bit instructions" : "same rate as fp32",
		 c->clock_ghz);
}

/* --- probing ---------------------------------------------------------- */

/* 1 when the whitespace-separated word occurs in list. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

/* The first "flags" (x86) or "Features" (aarch64) line of /proc/cpuinfo,
 * malloc'd; NULL when unreadable. */
static char *cpuinfo_flags(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *out = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5) == 0 ||
		    strncmp(line, "Features", 8) == 0) {
			char *colon = strchr(line, ':');

			if (colon) {
				out = strdup(colon + 1);
				break;
			}
		}
	}
	free(line);
	fclose(f);
	return out;
}

/* Physical cores among the CPUs this process may use: distinct
 * (package, core) pairs from sysfs topology; logical CPUs when that is
 * unreadable; 0 when even that fails. */
static int physical_cores(void)
{
	cpu_set_t set;
	long seen[CPU_SETSIZE];
	int nseen = 0, logical = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char path[128];
		long pkg, core, key;
		int dup = 0;

		if (!CPU_ISSET(cpu, &set))
			continue;
		logical++;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 cpu);
		pkg = hostinfo_read_long(path);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
		core = hostinfo_read_long(path);
		if (pkg < 0 || core < 0)
			return CPU_COUNT(&set);
		key = pkg << 20 | core;
		for (int i = 0; i < nseen; i++)
			dup |= seen[i] == key;
		if (!dup)
			seen[nseen++] = key;
	}
	return nseen > 0 ? nseen : logical;
}

/* Clock in GHz from dependent adds: one retires per cycle on every x86
 * and Arm core, so adds per nanosecond is the clock. Best of 30 bursts
 * (a burst the scheduler interrupted only reads low). NaN elsewhere. */
static double measure_clock_ghz(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	double best = 0;

	for (int rep = 0; rep < 30; rep++) {
		unsigned long x = 0, one = 1;
		uint64_t t0 = bf_now_ns(), t1;

		/* Register + register: recent cores fold an add of an
		 * immediate at rename (Golden Cove does, and reads as 4-16
		 * GHz); bench/peak.c measured the same way. */
		for (int i = 0; i < 10000; i++) {
#if defined(__x86_64__)
			__asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr"
					 : "+r"(x) : "r"(one));
#else
			__asm__ volatile(".rept 100\n\tadd %0, %0, %1\n\t.endr"
					 : "+r"(x) : "r"(one));
#endif
		}
		t1 = bf_now_ns();
		if (t1 > t0 && (double)x / (double)(t1 - t0) > best)
			best = (double)x / (double)(t1 - t0);
	}
	return best > 0 ? best : NAN;
#else
	return NAN;
#endif
}

/* The largest "cpu MHz" line of /proc/cpuinfo; 0 when none. */
static double cpuinfo_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	double best = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "cpu MHz", 7) == 0 && colon) {
			double v = strtod(colon + 1, NULL);

			if (v > best)
				best = v;
		}
	}
	fclose(f);
	return best;
}

void peak_cpu_probe(struct cpu_caps *c)
{
	char *flags = cpuinfo_flags();
	long max_khz = hostinfo_read_long("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
	double measured = measure_clock_ghz();

	memset(c, 0, sizeof(*c));
	c->bf16_factor = c->fp16_factor = 1;
	c->cores = physical_cores();
	if (flags) {
#if defined(__x86_64__) || defined(__i386__)
		if (has_word(flags, "avx512f")) {
			c->fp32_lanes = 16;
			snprintf(c->isa, sizeof(c->isa), "avx512f");
		} else if (has_word(flags, "avx") && has_word(flags, "fma")) {
			c->fp32_lanes = 8;
			snprintf(c->isa, sizeof(c->isa), "avx2+fma");
		} else if (has_word(flags, "avx")) {
			c->fp32_lanes = 8;
			snprintf(c->isa, sizeof(c->isa), "avx");
		} else {
			c->fp32_lanes = 4;
			snprintf(c->isa, sizeof(c->isa), "sse");
		}
		/* Two FMA pipes (or, without FMA, one multiply and one add
		 * pipe: the same 2 FLOP per lane per cycle). */
		c->fma_units = 2;
		if (has_word(flags, "amx_bf16")) {
			/* AMX TMUL: 1024 bf16 multiply-adds per cycle per
			 * core (Intel's Sapphire Rapids optimisation
			 * manual), over 32 fp32 FMAs per cycle: 32x. */
			c->bf16_factor = 32;
			snprintf(c->extra, sizeof(c->extra), "amx_bf16");
		} else if (has_word(flags, "avx512_bf16")) {
			c->bf16_factor = 2; /* vdpbf16ps: 2 products per lane */
			snprintf(c->extra, sizeof(c->extra), "avx512_bf16");
		}
		if (has_word(flags, "amx_fp16"))
			c->fp16_factor = 32;
		else if (has_word(flags, "avx512_fp16"))
			c->fp16_factor = 2; /* 32 fp16 lanes */
#elif defined(__aarch64__)
		/* 128-bit NEON: 4 fp32 lanes; up to 4 FMA pipes (Neoverse
		 * V1/V2, Cortex-X). SVE machines with wider vectors have
		 * fewer pipes of them, so 16 lanes of FMA per cycle is the
		 * bound either way (A64FX: 2 x 512 bit = 32: not handled). */
		c->fp32_lanes = 4;
		c->fma_units = 4;
		snprintf(c->isa, sizeof(c->isa), "%s",
			 has_word(flags, "sve") ? "asimd+sve" : "asimd");
		if (has_word(flags, "bf16")) {
			c->bf16_factor = 4; /* BFMMLA: 2x2x4 per 128 bits */
			snprintf(c->extra, sizeof(c->extra), "bf16 (bfmmla)");
		}
		if (has_word(flags, "asimdhp"))
			c->fp16_factor = 2; /* 8 fp16 lanes */
#endif
		free(flags);
	}
	c->clock_ghz = NAN;
	if (max_khz > 0) {
		c->clock_ghz = (double)max_khz / 1e6;
		snprintf(c->clock_source, sizeof(c->clock_source),
			 "cpufreq cpuinfo_max_freq");
	}
	/* A VM often has no cpufreq, or reports the nominal clock while the
	 * core turbos above it: the measurement wins when it is higher. */
	if (measured > 0 && !(c->clock_ghz >= measured)) {
		c->clock_ghz = measured;
		snprintf(c->clock_source, sizeof(c->clock_source),
			 "measured (dependent adds)");
	}
	/* A measurement on a loaded machine reads low; /proc/cpuinfo's
	 * "cpu MHz" (the nominal clock in a VM) is the floor. */
	{
		double mhz = cpuinfo_mhz();

		if (mhz > 0 && !(c->clock_ghz >= mhz / 1000)) {
			c->clock_ghz = mhz / 1000;
			snprintf(c->clock_source, sizeof(c->clock_source),
				 "/proc/cpuinfo cpu MHz");
		}
	}
}
