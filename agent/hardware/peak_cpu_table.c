/*
 * FLOP per cycle per core of CPU microarchitectures (peak_tables.h).
 *
 * fp32 is 2 FLOP per FMA x fp32 lanes per vector x FMA vectors issued per
 * cycle, at the widest SIMD width the core has (a 512-bit FMA split over
 * two 256-bit pipes, as on Zen 4, counts as one per cycle). Cores without
 * FMA (Sandy and Ivy Bridge) count one 8-lane multiply and one add per
 * cycle. bf16 counts a dot-product instruction's products as FMAs
 * (vdpbf16ps: 2 per fp32 lane; BFMMLA: 16 per 128 bits); AMX counts
 * TDPBF16PS's 16x16x32 multiply-adds over its 16-cycle throughput, 1024
 * FLOP per cycle, Intel's "1024 BF16 ops/cycle/core".
 *
 * Sources, cited per row:
 *   [AMD-55723]  Software Optimization Guide for AMD Family 17h Processors
 *   [AMD-56305]  ... for AMD Family 17h Models 30h and Greater
 *   [AMD-56665]  ... for AMD EPYC 7003 (Family 19h) Processors
 *   [AMD-57647]  ... for the AMD Zen4 Microarchitecture
 *   [AMD-58455]  ... for the AMD Zen5 Microarchitecture
 *   [INTEL-OPT]  Intel 64 and IA-32 Architectures Optimization Reference
 *                Manual (248966), the per-microarchitecture chapters and
 *                the AMX chapter
 *   [AGNER]      Agner Fog, The microarchitecture of Intel, AMD and VIA
 *                CPUs, and his instruction tables
 *   [ARM-SOG-x]  Arm's Software Optimization Guide for core x (the
 *                "ASIMD FP multiply accumulate, Q-form" row: throughput
 *                per cycle x 4 lanes x 2)
 *   [C&C]        chipsandcheese.com's article on the core
 *   [WIKICHIP]   en.wikichip.org's page for the microarchitecture
 * Figures measured by this project: Zen 4 (EPYC, family 25 model 17):
 * 32.0 fp32 and 63.9 bf16 FLOP/cycle/core (bench/peak.c, issue 19).
 */
#include "hardware/peak_tables.h"

#include <string.h>

#define AMD "AuthenticAMD"
#define INTEL "GenuineIntel"
/* clang-format off */
#define R(a) { a, a }
#define RR(a, b) { a, b }
#define NONE { 0, 0 }
/* clang-format on */

static const struct cpu_uarch uarchs[] = {
	/* --- AMD ------------------------------------------------------- */
	{ "Zen / Zen+", CPU_ARCH_X86, AMD, 0x17, 0x00, 0x2f, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0,
	  "[AMD-55723] 2.11: four 128-bit FP pipes, FMA on two; a 256-bit op "
	  "is two; [AGNER] Zen" },
	{ "Zen 2", CPU_ARCH_X86, AMD, 0x17, 0x30, 0xff, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0,
	  "[AMD-56305] 2.11: 256-bit FP pipes, FMA on FP0 and FP1" },
	{ "Zen 3", CPU_ARCH_X86, AMD, 0x19, 0x00, 0x0f, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[AMD-56665] 2.11: two 256-bit FMA pipes" },
	{ "Zen 3", CPU_ARCH_X86, AMD, 0x19, 0x20, 0x5f, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[AMD-56665] 2.11: two 256-bit FMA pipes" },
	{ "Zen 4", CPU_ARCH_X86, AMD, 0x19, 0x10, 0x1f, CPU_CORE_ANY, R(32),
	  R(64), NONE, 0,
	  "[AMD-57647] 2.11: AVX-512 on two 256-bit FMA pipes, a 512-bit op "
	  "is two halves; [C&C] Zen 4 part 1; measured 32.0 / 63.9 here" },
	{ "Zen 4", CPU_ARCH_X86, AMD, 0x19, 0x60, 0x7f, CPU_CORE_ANY, R(32),
	  R(64), NONE, 0, "[AMD-57647] 2.11: as Genoa (Raphael, Phoenix)" },
	{ "Zen 4c", CPU_ARCH_X86, AMD, 0x19, 0xa0, 0xaf, CPU_CORE_ANY, R(32),
	  R(64), NONE, 0,
	  "[AMD-57647]: Zen 4's core, denser (Bergamo, Siena)" },
	{ "Zen 5", CPU_ARCH_X86, AMD, 0x1a, 0x00, 0x1f, CPU_CORE_ANY, R(64),
	  R(128), NONE, 0,
	  "[AMD-58455] 2.11: 512-bit datapath, two FMA pipes (Turin); "
	  "[C&C] Zen 5's AVX-512" },
	{ "Zen 5", CPU_ARCH_X86, AMD, 0x1a, 0x40, 0x4f, CPU_CORE_ANY, R(64),
	  R(128), NONE, 0, "[AMD-58455]: 512-bit datapath (Granite Ridge)" },
	{ "Zen 5 (256-bit)", CPU_ARCH_X86, AMD, 0x1a, 0x20, 0x2f, CPU_CORE_ANY,
	  R(32), R(64), NONE, 0,
	  "[C&C] Strix Point: mobile Zen 5 keeps 256-bit FMA pipes" },
	{ "Zen 5 (256-bit)", CPU_ARCH_X86, AMD, 0x1a, 0x60, 0x6f, CPU_CORE_ANY,
	  R(32), R(64), NONE, 0, "[C&C] Krackan Point: as Strix Point" },
	{ "Zen 5", CPU_ARCH_X86, AMD, 0x1a, 0x70, 0x7f, CPU_CORE_ANY,
	  RR(32, 64), RR(64, 128), NONE, 0,
	  "[AMD-58455]; Strix Halo's datapath width: sources differ" },

	/* --- Intel, family 6 ------------------------------------------ */
	{ "Sandy Bridge", CPU_ARCH_X86, INTEL, 6, 0x2a, 0x2a, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0,
	  "[INTEL-OPT] 2.x: 256-bit add on port 1, multiply on port 0, no FMA" },
	{ "Sandy Bridge-EP", CPU_ARCH_X86, INTEL, 6, 0x2d, 0x2d, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[INTEL-OPT]: as Sandy Bridge" },
	{ "Ivy Bridge", CPU_ARCH_X86, INTEL, 6, 0x3a, 0x3a, CPU_CORE_ANY, R(16),
	  NONE, NONE, 0, "[INTEL-OPT]: as Sandy Bridge" },
	{ "Ivy Bridge-EP", CPU_ARCH_X86, INTEL, 6, 0x3e, 0x3e, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[INTEL-OPT]: as Sandy Bridge" },
	{ "Haswell", CPU_ARCH_X86, INTEL, 6, 0x3c, 0x3c, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT] 2.x: 256-bit FMA on ports 0 and 1" },
	{ "Haswell-EP", CPU_ARCH_X86, INTEL, 6, 0x3f, 0x3f, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT]: as Haswell" },
	{ "Haswell", CPU_ARCH_X86, INTEL, 6, 0x45, 0x46, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT]: as Haswell" },
	{ "Broadwell", CPU_ARCH_X86, INTEL, 6, 0x3d, 0x3d, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT]: two 256-bit FMA ports" },
	{ "Broadwell", CPU_ARCH_X86, INTEL, 6, 0x47, 0x47, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT]: two 256-bit FMA ports" },
	{ "Broadwell-EP", CPU_ARCH_X86, INTEL, 6, 0x4f, 0x4f, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[INTEL-OPT]: two 256-bit FMA ports" },
	{ "Broadwell-DE", CPU_ARCH_X86, INTEL, 6, 0x56, 0x56, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[INTEL-OPT]: two 256-bit FMA ports" },
	{ "Skylake", CPU_ARCH_X86, INTEL, 6, 0x4e, 0x4e, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT] 2.x: 256-bit FMA on ports 0 and 1" },
	{ "Skylake", CPU_ARCH_X86, INTEL, 6, 0x5e, 0x5e, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT]: as Skylake" },
	{ "Kaby/Coffee/Whiskey Lake", CPU_ARCH_X86, INTEL, 6, 0x8e, 0x8e,
	  CPU_CORE_ANY, R(32), NONE, NONE, 0, "[WIKICHIP]: Skylake's core" },
	{ "Kaby/Coffee Lake", CPU_ARCH_X86, INTEL, 6, 0x9e, 0x9e, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[WIKICHIP]: Skylake's core" },
	{ "Comet Lake", CPU_ARCH_X86, INTEL, 6, 0xa5, 0xa6, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[WIKICHIP]: Skylake's core" },
	{ "Skylake-SP/Cascade Lake/Cooper Lake", CPU_ARCH_X86, INTEL, 6, 0x55,
	  0x55, CPU_CORE_ANY, RR(32, 64), RR(64, 128), NONE, 0,
	  "[INTEL-OPT] 2.x: one or two 512-bit FMA units by SKU (port 5's "
	  "on Gold 6xxx/Platinum, not on Silver, Bronze and most Gold 5xxx); "
	  "bf16 on Cooper Lake" },
	{ "Ice Lake-SP", CPU_ARCH_X86, INTEL, 6, 0x6a, 0x6a, CPU_CORE_ANY,
	  R(64), NONE, NONE, 0, "[INTEL-OPT]: two 512-bit FMA units" },
	{ "Ice Lake-D", CPU_ARCH_X86, INTEL, 6, 0x6c, 0x6c, CPU_CORE_ANY, R(64),
	  NONE, NONE, 0, "[INTEL-OPT]: as Ice Lake-SP" },
	{ "Ice Lake", CPU_ARCH_X86, INTEL, 6, 0x7d, 0x7e, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0,
	  "[INTEL-OPT]: client Sunny Cove, one 512-bit FMA (ports 0+1 fused)" },
	{ "Tiger Lake", CPU_ARCH_X86, INTEL, 6, 0x8c, 0x8d, CPU_CORE_ANY, R(32),
	  NONE, NONE, 0, "[INTEL-OPT]: Willow Cove, as client Ice Lake" },
	{ "Rocket Lake", CPU_ARCH_X86, INTEL, 6, 0xa7, 0xa7, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[WIKICHIP]: Cypress Cove, one 512-bit FMA" },
	{ "Sapphire Rapids", CPU_ARCH_X86, INTEL, 6, 0x8f, 0x8f, CPU_CORE_ANY,
	  R(64), R(1024), R(128), CPU_FEAT_AMX_BF16,
	  "[INTEL-OPT]: two 512-bit FMA units; AMX TMUL 1024 bf16 FLOP/cycle "
	  "(TDPBF16PS, 16 cycles); avx512_fp16 32 lanes x 2 units" },
	{ "Emerald Rapids", CPU_ARCH_X86, INTEL, 6, 0xcf, 0xcf, CPU_CORE_ANY,
	  R(64), R(1024), R(128), CPU_FEAT_AMX_BF16,
	  "[INTEL-OPT]: Raptor Cove, as Sapphire Rapids" },
	{ "Granite Rapids", CPU_ARCH_X86, INTEL, 6, 0xad, 0xae, CPU_CORE_ANY,
	  R(64), R(1024), R(1024), CPU_FEAT_AMX_BF16 | CPU_FEAT_AMX_FP16,
	  "[INTEL-OPT]: Redwood Cove, two 512-bit FMA units; AMX-BF16 and "
	  "AMX-FP16 1024 FLOP/cycle" },
	{ "Alder/Raptor Lake P-core", CPU_ARCH_X86, INTEL, 6, 0x97, 0x97,
	  CPU_CORE_BIG, R(32), NONE, NONE, 0,
	  "[INTEL-OPT]: Golden Cove, 256-bit FMA on ports 0 and 1 (AVX-512 "
	  "fused off)" },
	{ "Alder/Raptor Lake E-core", CPU_ARCH_X86, INTEL, 6, 0x97, 0x97,
	  CPU_CORE_SMALL, R(16), NONE, NONE, 0,
	  "[INTEL-OPT]: Gracemont, two 128-bit FMA pipes" },
	{ "Alder Lake P-core", CPU_ARCH_X86, INTEL, 6, 0x9a, 0x9a, CPU_CORE_BIG,
	  R(32), NONE, NONE, 0, "[INTEL-OPT]: Golden Cove" },
	{ "Alder Lake E-core", CPU_ARCH_X86, INTEL, 6, 0x9a, 0x9a,
	  CPU_CORE_SMALL, R(16), NONE, NONE, 0, "[INTEL-OPT]: Gracemont" },
	{ "Raptor Lake P-core", CPU_ARCH_X86, INTEL, 6, 0xb7, 0xb7,
	  CPU_CORE_BIG, R(32), NONE, NONE, 0, "[INTEL-OPT]: Raptor Cove" },
	{ "Raptor Lake E-core", CPU_ARCH_X86, INTEL, 6, 0xb7, 0xb7,
	  CPU_CORE_SMALL, R(16), NONE, NONE, 0, "[INTEL-OPT]: Gracemont" },
	{ "Raptor Lake P-core", CPU_ARCH_X86, INTEL, 6, 0xba, 0xba,
	  CPU_CORE_BIG, R(32), NONE, NONE, 0, "[INTEL-OPT]: Raptor Cove" },
	{ "Raptor Lake E-core", CPU_ARCH_X86, INTEL, 6, 0xba, 0xba,
	  CPU_CORE_SMALL, R(16), NONE, NONE, 0, "[INTEL-OPT]: Gracemont" },
	{ "Raptor Lake P-core", CPU_ARCH_X86, INTEL, 6, 0xbf, 0xbf,
	  CPU_CORE_BIG, R(32), NONE, NONE, 0, "[INTEL-OPT]: Raptor Cove" },
	{ "Raptor Lake E-core", CPU_ARCH_X86, INTEL, 6, 0xbf, 0xbf,
	  CPU_CORE_SMALL, R(16), NONE, NONE, 0, "[INTEL-OPT]: Gracemont" },
	{ "Alder Lake-N", CPU_ARCH_X86, INTEL, 6, 0xbe, 0xbe, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[INTEL-OPT]: Gracemont only" },
	{ "Meteor Lake P-core", CPU_ARCH_X86, INTEL, 6, 0xaa, 0xac,
	  CPU_CORE_BIG, R(32), NONE, NONE, 0, "[INTEL-OPT]: Redwood Cove" },
	{ "Meteor Lake E-core", CPU_ARCH_X86, INTEL, 6, 0xaa, 0xac,
	  CPU_CORE_SMALL, R(16), NONE, NONE, 0,
	  "[INTEL-OPT]: Crestmont, two 128-bit FMA pipes" },
	{ "Sierra Forest", CPU_ARCH_X86, INTEL, 6, 0xaf, 0xaf, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[INTEL-OPT]: Crestmont" },
	{ "Lunar/Arrow Lake P-core", CPU_ARCH_X86, INTEL, 6, 0xbd, 0xbd,
	  CPU_CORE_BIG, R(32), NONE, NONE, 0,
	  "[C&C] Lion Cove: 256-bit FMA on two pipes" },
	{ "Lunar/Arrow Lake E-core", CPU_ARCH_X86, INTEL, 6, 0xbd, 0xbd,
	  CPU_CORE_SMALL, R(32), NONE, NONE, 0,
	  "[C&C] Skymont: four 128-bit FMA pipes" },
	{ "Arrow Lake P-core", CPU_ARCH_X86, INTEL, 6, 0xc5, 0xc6, CPU_CORE_BIG,
	  R(32), NONE, NONE, 0, "[C&C] Lion Cove" },
	{ "Arrow Lake E-core", CPU_ARCH_X86, INTEL, 6, 0xc5, 0xc6,
	  CPU_CORE_SMALL, R(32), NONE, NONE, 0, "[C&C] Skymont" },
	{ "Knights Landing/Mill", CPU_ARCH_X86, INTEL, 6, 0x57, 0x57,
	  CPU_CORE_ANY, R(64), NONE, NONE, 0,
	  "[INTEL-OPT] Xeon Phi: two 512-bit VPUs with FMA" },
	{ "Knights Mill", CPU_ARCH_X86, INTEL, 6, 0x85, 0x85, CPU_CORE_ANY,
	  R(64), NONE, NONE, 0, "[INTEL-OPT] Xeon Phi: two 512-bit VPUs" },

	/* --- Arm Ltd (implementer 0x41) --------------------------------- */
	{ "Cortex-A76", CPU_ARCH_ARM, NULL, 0x41, 0xd0b, 0xd0b, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A76]: FMLA Q-form 2 per cycle" },
	{ "Neoverse N1", CPU_ARCH_ARM, NULL, 0x41, 0xd0c, 0xd0c, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0,
	  "[ARM-SOG-N1]: FMLA Q-form 2 per cycle (V0, V1)" },
	{ "Cortex-A77", CPU_ARCH_ARM, NULL, 0x41, 0xd0d, 0xd0d, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A77]: FMLA Q-form 2 per cycle" },
	{ "Cortex-A78", CPU_ARCH_ARM, NULL, 0x41, 0xd41, 0xd41, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A78]: FMLA Q-form 2 per cycle" },
	{ "Cortex-A78C", CPU_ARCH_ARM, NULL, 0x41, 0xd4b, 0xd4b, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A78C]: as A78" },
	{ "Neoverse V1", CPU_ARCH_ARM, NULL, 0x41, 0xd40, 0xd40, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0,
	  "[ARM-SOG-V1]: four 128-bit FMA pipes, or two for 256-bit SVE" },
	{ "Cortex-X1", CPU_ARCH_ARM, NULL, 0x41, 0xd44, 0xd44, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[ARM-SOG-X1]: FMLA Q-form 4 per cycle" },
	{ "Cortex-X1C", CPU_ARCH_ARM, NULL, 0x41, 0xd4c, 0xd4c, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[ARM-SOG-X1]: as X1" },
	{ "Cortex-A710", CPU_ARCH_ARM, NULL, 0x41, 0xd47, 0xd47, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A710]: two 128-bit FMA pipes" },
	{ "Cortex-X2", CPU_ARCH_ARM, NULL, 0x41, 0xd48, 0xd48, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[ARM-SOG-X2]: four 128-bit FMA pipes" },
	{ "Neoverse N2", CPU_ARCH_ARM, NULL, 0x41, 0xd49, 0xd49, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-N2]: two 128-bit FMA pipes" },
	{ "Cortex-A715", CPU_ARCH_ARM, NULL, 0x41, 0xd4d, 0xd4d, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A715]: two 128-bit FMA pipes" },
	{ "Cortex-X3", CPU_ARCH_ARM, NULL, 0x41, 0xd4e, 0xd4e, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[ARM-SOG-X3]: four 128-bit FMA pipes" },
	{ "Neoverse V2", CPU_ARCH_ARM, NULL, 0x41, 0xd4f, 0xd4f, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0,
	  "[ARM-SOG-V2]: four 128-bit FMA pipes (NVIDIA Grace)" },
	{ "Cortex-A720", CPU_ARCH_ARM, NULL, 0x41, 0xd81, 0xd81, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A720]: two 128-bit FMA pipes" },
	{ "Cortex-X4", CPU_ARCH_ARM, NULL, 0x41, 0xd82, 0xd82, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[ARM-SOG-X4]: four 128-bit FMA pipes" },
	{ "Neoverse V3", CPU_ARCH_ARM, NULL, 0x41, 0xd84, 0xd84, CPU_CORE_ANY,
	  R(32), NONE, NONE, 0, "[ARM-SOG-V3]: four 128-bit FMA pipes" },
	{ "Cortex-X925", CPU_ARCH_ARM, NULL, 0x41, 0xd85, 0xd85, CPU_CORE_ANY,
	  RR(32, 48), NONE, NONE, 0,
	  "[C&C] Arm's Cortex X925: six 128-bit vector FP pipes, 50% more "
	  "than X4's four; how many take FMAs is not published: 4-6" },
	{ "Cortex-A725", CPU_ARCH_ARM, NULL, 0x41, 0xd87, 0xd87, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-A725]: two 128-bit FMA pipes" },
	{ "Neoverse N3", CPU_ARCH_ARM, NULL, 0x41, 0xd8e, 0xd8e, CPU_CORE_ANY,
	  R(16), NONE, NONE, 0, "[ARM-SOG-N3]: two 128-bit FMA pipes" },

	/* --- others ---------------------------------------------------- */
	{ "A64FX", CPU_ARCH_ARM, NULL, 0x46, 0x001, 0x001, CPU_CORE_ANY, R(64),
	  NONE, NONE, 0,
	  "Fujitsu A64FX Microarchitecture Manual: two 512-bit SVE FMA pipes" },
};

const struct cpu_uarch *cpu_uarch_table(int *n)
{
	*n = (int)(sizeof(uarchs) / sizeof(uarchs[0]));
	return uarchs;
}

const struct cpu_uarch *cpu_uarch_find(const struct cpu_id *id)
{
	const struct cpu_uarch *any = NULL;

	for (size_t i = 0; i < sizeof(uarchs) / sizeof(uarchs[0]); i++) {
		const struct cpu_uarch *u = &uarchs[i];

		if (u->arch != id->arch || u->family != id->family ||
		    id->model < u->model_lo || id->model > u->model_hi)
			continue;
		if (u->vendor && strcmp(u->vendor, id->vendor) != 0)
			continue;
		if (u->core_type == id->core_type)
			return u;
		/* A hybrid part's row for an unknown core type: the first
		 * (P-core) row, whose figure is the larger. */
		if (!any && (u->core_type == CPU_CORE_ANY ||
			     id->core_type == CPU_CORE_ANY))
			any = u;
	}
	return any;
}
