/*
 * The probe's instruction loops (peak_probe.h): inline assembly only, no
 * library calls, so that this file compiles on its own for x86-64 or
 * AArch64 (`clang --target=aarch64-linux-gnu -ffreestanding -c` checks
 * the AArch64 half on an x86 machine). The caller checks that the CPU
 * has an instruction before it runs its loop. AArch64 instructions beyond
 * the base (fp16 arithmetic, bf16, SVE) are written as their encodings
 * (.inst, from LLVM's assembler): GNU as and LLVM name those extensions
 * differently (fp16 / fullfp16), and an older assembler may not know them;
 * each encoding is given beside it.
 *
 * Every loop keeps its accumulators in registers and its operands
 * constant (1.0 or the bf16/fp16 pattern of 1.0), so no value becomes a
 * denormal, infinity or NaN, which some cores would handle slowly: fp32
 * accumulators grow by one per iteration, fp16 ones stop at 2048 (where
 * +1 rounds away), bfmmla's fp32 ones by 4.
 */
#include "hardware/peak_probe.h"

#if defined(__x86_64__)

void peak_k_adds(long iters)
{
	unsigned long x = 0, one = 1;

	/* Register + register: recent cores fold an add of an immediate at
	 * rename (Golden Cove does), which would read as 4-16 GHz. */
	for (long i = 0; i < iters; i++)
		__asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr"
				 : "+r"(x) : "r"(one));
}

#define X86_ZMM_CLOBBERS                                                     \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",      \
		"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", \
		"xmm15", "xmm16", "xmm17", "cc", "memory"

/* zmm0-15 the accumulators, zmm16 and zmm17 the operands, all broadcast
 * from *one (a 32-bit pattern). */
#define X86_LOOP512(insn, pattern)                                           \
	do {                                                                 \
		static const unsigned int one = (pattern);                   \
		long n = iters;                                              \
		__asm__ volatile(                                            \
			".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"      \
			"16,17\n\t"                                          \
			"vpbroadcastd (%1), %%zmm\\r\n\t"                    \
			".endr\n"                                            \
			"1:\n\t"                                             \
			".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"   \
			insn " %%zmm17, %%zmm16, %%zmm\\r\n\t"               \
			".endr\n\t"                                          \
			"decq %0\n\t"                                        \
			"jnz 1b\n\t"                                         \
			"vzeroupper"                                         \
			: "+r"(n)                                            \
			: "r"(&one)                                          \
			: X86_ZMM_CLOBBERS);                                 \
	} while (0)

__attribute__((target("avx512f"))) void peak_k_fma512(long iters)
{
	X86_LOOP512("vfmadd213ps", 0x3f800000u); /* fp32 1.0 */
}

/* vdpbf16ps zmm17 (pairs of bf16 1.0), zmm16 into zmm_r: each fp32 lane
 * adds two products. */
__attribute__((target("avx512f"))) void peak_k_dpbf16_512(long iters)
{
	X86_LOOP512("vdpbf16ps", 0x3f803f80u);
}

/* vfmadd213ph: 32 fp16 lanes (1.0 is 0x3c00). */
__attribute__((target("avx512f"))) void peak_k_fmaph512(long iters)
{
	X86_LOOP512("vfmadd213ph", 0x3c003c00u);
}

/* ymm0-11 the accumulators (two FMA pipes x 4 cycles of latency need 8),
 * ymm12 and ymm13 the operands. */
__attribute__((target("avx2,fma"))) void peak_k_fma256(long iters)
{
	static const float one = 1.0f;
	long n = iters;

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
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
		  "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
		  "cc", "memory");
}

#elif defined(__aarch64__)

void peak_k_adds(long iters)
{
	unsigned long x = 0, one = 1;

	for (long i = 0; i < iters; i++)
		__asm__ volatile(".rept 100\n\tadd %0, %0, %1\n\t.endr"
				 : "+r"(x) : "r"(one));
}

#define ARM_CLOBBERS                                                         \
	"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",   \
		"v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18",      \
		"v19", "v20", "v21", "v22", "v23", "v30", "v31", "cc",       \
		"memory"

/* v0-v23 the accumulators, v30 and v31 the operands (dup of a 32-bit
 * pattern); `arch` is an .arch_extension the instruction needs. */
#define ARM_LOOP(arch, insn, pattern)                                        \
	do {                                                                 \
		unsigned int pat = (pattern);                                \
		long n = iters;                                              \
		__asm__ volatile(                                            \
			arch                                                 \
			"dup v30.4s, %w1\n\t"                                \
			"dup v31.4s, %w1\n\t"                                \
			".irp r,0,1,2,3,4,5,6,7,8,9,10,11\n\t"               \
			"dup v\\r\\().4s, %w1\n\t"                           \
			".endr\n\t"                                          \
			".irp r,12,13,14,15,16,17,18,19,20,21,22,23\n\t"     \
			"dup v\\r\\().4s, %w1\n\t"                           \
			".endr\n"                                            \
			"1:\n\t"                                             \
			".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,"  \
			"18,19,20,21,22,23\n\t"                              \
			insn "\n\t"                                          \
			".endr\n\t"                                          \
			"subs %0, %0, #1\n\t"                                \
			"b.ne 1b"                                            \
			: "+r"(n)                                            \
			: "r"(pat)                                           \
			: ARM_CLOBBERS);                                     \
	} while (0)

void peak_k_fmla4s(long iters)
{
	ARM_LOOP("", "fmla v\\r\\().4s, v30.4s, v31.4s", 0x3f800000u);
}

/* fmla vR.8h, v30.8h, v31.8h as its encoding (0x4e5f0fc0 + R, FEAT_FP16):
 * GNU as names the extension "fp16", LLVM's assembler does not know
 * that name, and either accepts .inst. */
void peak_k_fmla8h(long iters)
{
	ARM_LOOP("", ".inst 0x4e5f0fc0 + \\r", 0x3c003c00u);
}

/* bfmmla vR.4s, v30.8h, v31.8h (0x6e5fefc0 + R, FEAT_BF16): a 2x4 by
 * 4x2 bf16 product added to a 2x2 fp32 tile, 16 multiply-adds. */
void peak_k_bfmmla(long iters)
{
	ARM_LOOP("", ".inst 0x6e5fefc0 + \\r", 0x3f803f80u);
}

/* cntw x0 (0x04a0e3e0): fp32 lanes of an SVE vector. */
long peak_k_sve_lanes32(void)
{
	long n;

	__asm__ volatile(".inst 0x04a0e3e0\n\tmov %0, x0"
			 : "=r"(n)
			 :
			 : "x0");
	return n;
}

/* z0-z23 the accumulators, z30 and z31 the operands, under an all-true
 * predicate p0 (caller-saved, and unused by code built without SVE):
 * ptrue p0.s (0x2598e3e0), fmov zR.s, #1.0 (0x25b9ce00 + R),
 * fmla zR.s, p0/m, z30.s, z31.s (0x65bf03c0 + R). */
void peak_k_sve_fmla(long iters)
{
	long n = iters;

	__asm__ volatile(
		".inst 0x2598e3e0\n\t"
		".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,"
		"19,20,21,22,23,30,31\n\t"
		".inst 0x25b9ce00 + \\r\n\t"
		".endr\n"
		"1:\n\t"
		".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,"
		"19,20,21,22,23\n\t"
		".inst 0x65bf03c0 + \\r\n\t"
		".endr\n\t"
		"subs %0, %0, #1\n\t"
		"b.ne 1b"
		: "+r"(n)
		:
		: ARM_CLOBBERS);
}

#endif
