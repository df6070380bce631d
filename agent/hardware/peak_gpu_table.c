/*
 * GPU products' published dense GEMM rates and the per-SM rates of each
 * compute capability (peak_tables.h).
 *
 * Every TFLOP/s figure is NVIDIA's own for the product, dense (the
 * datasheets' tensor figures marked * are with 2:4 sparsity: half of them
 * here), at fp32 accumulate for fp16 and bf16 (what the agent times:
 * CUBLAS_COMPUTE_32F); tf32 is the tensor-core rate. Each row also gives
 * the SM count, the clock the figure was derived at and the FLOP per
 * cycle per SM, and tests/unit/test_peak.c checks that sms x rate x clock
 * reproduces the figure within 2 %. Two rules the rows show:
 *
 *  - NVIDIA derives Hopper's tensor figures at a lower clock than its
 *    fp32 figure (H100 SXM: 1830 MHz against the 1980 MHz maximum boost
 *    cudaDevAttrClockRate reports), so a rated peak is the published
 *    figure, not SMs x rate x the clock attribute (which would say
 *    1070.5 TF bf16 on an H200 where NVIDIA publishes 989.4).
 *  - GeForce and some workstation parts (RTX 3090, RTX 4090, RTX 5090,
 *    L40) run fp16/bf16 with fp32 accumulate, and tf32, at half the rate
 *    of the professional parts of the same compute capability (A10, A40,
 *    L4, L40S, RTX PRO 6000): one rate per compute capability cannot be
 *    right for both, hence the product rows. gpu_arch_rate keeps the full
 *    rate: it is used where no row names the product, as an upper bound
 *    (peak.c halves it for a GeForce name, the GeForce rule above).
 *  - bf16 below compute capability 8.0 has no tensor-core path: cuBLAS
 *    runs it on the fp32 units (PyTorch #50442), so its rate is the fp32
 *    rate, and the Volta and Turing rows say so rather than having none.
 *  - FP8 (fp8_tflops, after the source) is the dense e4m3 figure with
 *    fp32 accumulate: twice the fp16 rate on Ada, Hopper and Blackwell.
 */
#include "hardware/peak_tables.h"

#include <string.h>

static const struct gpu_product products[] = {
	/* name, SMs, fp32 MHz, tensor MHz, fp32 tf32 fp16 bf16 TFLOP/s,
	 * and the FLOP/cycle/SM of each */
	{ "Tesla V100-SXM2*", 80, 1530, 1530, 15.7, 0, 125, 15.7, 128, 0, 1024,
	  128,
	  "NVIDIA Tesla V100 datasheet / V100 whitepaper table 1: 15.7 TF "
	  "fp32, 125 TF tensor (fp16, fp32 accumulate), 1530 MHz boost; bf16 "
	  "emulated on the fp32 units: the fp32 rate",
	  0, 0 },
	{ "Tesla V100-PCIE*", 80, 1380, 1380, 14, 0, 112, 14, 128, 0, 1024, 128,
	  "NVIDIA Tesla V100 datasheet (PCIe): 14 TF fp32, 112 TF tensor; "
	  "bf16 emulated at the fp32 rate",
	  0, 0 },
	{ "Tesla V100S-PCIE*", 80, 1597, 1597, 16.4, 0, 130, 16.4, 128, 0, 1024,
	  128,
	  "NVIDIA Tesla V100S datasheet: 16.4 TF fp32, 130 TF tensor; bf16 "
	  "emulated at the fp32 rate",
	  0, 0 },
	{ "Tesla T4", 40, 1590, 1590, 8.1, 0, 65, 8.1, 128, 0, 1024, 128,
	  "NVIDIA T4 datasheet: 8.1 TF fp32, 65 TF mixed precision "
	  "(fp16/fp32), 1590 MHz boost; bf16 emulated on the fp32 units "
	  "(no bf16 tensor path before Ampere): the fp32 rate",
	  0, 0 },
	{ "NVIDIA A100-SXM4*", 108, 1410, 1410, 19.5, 156, 312, 312, 128, 1024,
	  2048, 2048,
	  "NVIDIA A100 datasheet / Ampere whitepaper table 1: 19.5 TF fp32, "
	  "156 TF tf32, 312 TF fp16/bf16 dense, 1410 MHz boost",
	  0, 0 },
	{ "NVIDIA A100-PCIE*", 108, 1410, 1410, 19.5, 156, 312, 312, 128, 1024,
	  2048, 2048, "NVIDIA A100 datasheet (PCIe): as SXM",
	  0, 0 },
	{ "NVIDIA A100 80GB PCIe", 108, 1410, 1410, 19.5, 156, 312, 312, 128,
	  1024, 2048, 2048, "NVIDIA A100 datasheet (80GB PCIe): as SXM",
	  0, 0 },
	{ "NVIDIA A10", 72, 1695, 1695, 31.2, 62.5, 125, 125, 256, 512, 1024,
	  1024,
	  "NVIDIA A10 datasheet: 31.2 TF fp32, 62.5 TF tf32, 125 TF "
	  "fp16/bf16 (250/125 with sparsity)",
	  0, 0 },
	{ "NVIDIA A40", 84, 1740, 1740, 37.4, 74.8, 149.7, 149.7, 256, 512,
	  1024, 1024,
	  "NVIDIA A40 datasheet: 37.4 TF fp32, 74.8 TF tf32, 149.7 TF "
	  "fp16/bf16 dense",
	  0, 0 },
	{ "NVIDIA GeForce RTX 3090", 82, 1695, 1695, 35.6, 35.6, 71, 71, 256,
	  256, 512, 512,
	  "NVIDIA GA102 whitepaper, appendix A table 9: fp16/bf16 tensor with "
	  "fp32 accumulate 71 TF (142 with fp16 accumulate), tf32 35.6",
	  0, 0 },
	{ "NVIDIA L4", 58, 2040, 2040, 30.3, 60, 121, 121, 256, 512, 1024, 1024,
	  "NVIDIA L4 datasheet: 30.3 TF fp32, 120 TF tf32 and 242 TF "
	  "fp16/bf16 with sparsity, 485 TF fp8 with sparsity",
	  242.5, 2048 },
	{ "NVIDIA L40S", 142, 2520, 2520, 91.6, 183, 366, 366, 256, 512, 1024,
	  1024,
	  "NVIDIA L40S datasheet: 91.6 TF fp32, 366 TF tf32 and 733 TF "
	  "fp16/bf16 with sparsity, 1466 TF fp8 with sparsity",
	  733, 2048 },
	{ "NVIDIA L40", 142, 2490, 2490, 90.5, 90.5, 181, 181, 256, 256, 512,
	  512,
	  "NVIDIA L40 datasheet: 90.5 TF fp32, tf32 90.5, fp16/bf16 181.05 "
	  "dense, fp8 362.1 dense",
	  362.1, 1024 },
	{ "NVIDIA L20", 92, 2520, 2520, 59.8, 59.8, 119.5, 119.5, 256, 256, 512,
	  512,
	  "NVIDIA L20 datasheet: 59.8 TF fp32, 59.8 TF tf32, 119.5 TF "
	  "fp16/bf16 and 239 TF fp8 dense (L40's halved tensor rates), 2520 "
	  "MHz boost",
	  239, 1024 },
	{ "NVIDIA GeForce RTX 4090", 128, 2520, 2520, 82.6, 82.6, 165.2, 165.2,
	  256, 256, 512, 512,
	  "NVIDIA Ada Lovelace whitepaper, appendix A (RTX 4090): fp16/bf16 "
	  "tensor with fp32 accumulate 165.2 TF (330.3 fp16 accumulate), "
	  "tf32 82.6, fp8 with fp32 accumulate 330.3, 2520 MHz boost",
	  330.3, 1024 },
	{ "NVIDIA H100 80GB HBM3", 132, 1980, 1830, 66.9, 494.7, 989.4, 989.4,
	  256, 2048, 4096, 4096,
	  "NVIDIA H100 datasheet (SXM5): 67 TF fp32, 989 TF tf32 and 1979 TF "
	  "fp16/bf16 with sparsity, 3958 TF fp8 with sparsity; H100 "
	  "whitepaper: tensor figures at 1830 MHz",
	  1979, 8192 },
	{ "NVIDIA H100 PCIe", 114, 1755, 1620, 51.2, 378, 756, 756, 256, 2048,
	  4096, 4096,
	  "NVIDIA H100 datasheet (PCIe): 51 TF fp32, 756 TF tf32 and 1513 TF "
	  "fp16/bf16 with sparsity, 3026 TF fp8 with sparsity",
	  1513, 8192 },
	{ "NVIDIA H100 NVL", 132, 1785, 1545, 60, 417.5, 835, 835, 256, 2048,
	  4096, 4096,
	  "NVIDIA H100 NVL datasheet: 60 TF fp32, 835 TF tf32 and 1671 TF "
	  "fp16/bf16 with sparsity, 3341 TF fp8 with sparsity",
	  1670.5, 8192 },
	{ "NVIDIA H200", 132, 1980, 1830, 66.9, 494.7, 989.4, 989.4, 256, 2048,
	  4096, 4096,
	  "NVIDIA H200 datasheet (SXM): 67 TF fp32, 989 TF tf32 and 1979 TF "
	  "fp16/bf16 with sparsity (989.4 dense), 3958 TF fp8 with sparsity",
	  1979, 8192 },
	{ "NVIDIA H200 NVL", 132, 1785, 1545, 60, 417.5, 835, 835, 256, 2048,
	  4096, 4096,
	  "NVIDIA H200 NVL datasheet: 60 TF fp32, 835 TF tf32 and 1671 TF "
	  "fp16/bf16 with sparsity, 3341 TF fp8 with sparsity",
	  1670.5, 8192 },
	{ "NVIDIA GH200*", 132, 1980, 1830, 66.9, 494.7, 989.4, 989.4, 256,
	  2048, 4096, 4096,
	  "NVIDIA GH200 datasheet: 67 TF fp32, 494 TF tf32, 990 TF fp16/bf16 "
	  "and 1979 TF fp8 dense",
	  1979, 8192 },
	{ "NVIDIA B200", 148, 1965, 1856, 75, 1125, 2250, 2250, 256, 4096, 8192,
	  8192,
	  "NVIDIA HGX B200 datasheet (1000 W): 75 TF fp32, 2.2 PF tf32 (2.25 "
	  "rounded: half the fp16 rate), 4.5 PF fp16/bf16 and 9 PF fp8 with "
	  "sparsity; the 1856 MHz tensor clock is what 148 SMs x 8192 "
	  "FLOP/cycle x clock = 2250 TF implies, below the 1965 MHz "
	  "cudaDevAttrClockRate (which would say 2382 TF)",
	  4500, 16384 },
	{ "NVIDIA GeForce RTX 5090", 170, 2407, 2407, 104.8, 104.8, 209.5,
	  209.5, 256, 256, 512, 512,
	  "NVIDIA RTX Blackwell whitepaper, appendix A (RTX 5090): fp16/bf16 "
	  "tensor with fp32 accumulate 209.5 TF (419 fp16 accumulate), tf32 "
	  "104.8, fp8 with fp32 accumulate 419, 2407 MHz boost",
	  419, 1024 },
	{ "NVIDIA RTX PRO 6000 Blackwell*", 188, 2617, 2617, 126, 250, 500, 500,
	  256, 512, 1024, 1024,
	  "NVIDIA RTX PRO 6000 Blackwell datasheet: 126 TF fp32, 4 PFLOPS "
	  "fp4 with sparsity (/8: fp16/bf16 dense, /4: fp8 dense, full-rate "
	  "fp32 accumulate)",
	  1000, 2048 },
	{ "NVIDIA GB10", 48, 2525, 2525, 31, 62.5, 125, 125, 256, 512, 1024,
	  1024,
	  "NVIDIA GB10 (DGX Spark), Hot Chips 2025: 31 TF fp32, 1 PFLOP fp4 "
	  "with sparsity (/8 fp16/bf16, /16 tf32: Blackwell's ratios); 2525 "
	  "MHz (TechPowerUp); full-rate fp32 accumulate: the seed measured "
	  "88.8 TF fp16, 87.2 bf16 and 40.1 tf32, above a halved rate's 62 "
	  "and 31; fp8 /4 of fp4 sparse",
	  250, 2048 },
};

/* The most any product of a compute capability does per SM and cycle,
 * dense, fp32 accumulate. 7.x has no bf16 or tf32 tensor path (the agent
 * skips those dtypes there). */
static const struct {
	int major, minor; /* minor -1: every minor */
	int fp32, tf32, fp16, bf16, fp8;
	const char *source;
} arch_rates[] = {
	{ 7, 0, 128, 0, 1024, 128, 0,
	  "Volta: V100 whitepaper (bf16 emulated at the fp32 rate)" },
	{ 7, 2, 128, 0, 1024, 128, 0,
	  "Volta (Xavier): as V100 per SM (bf16 emulated at the fp32 rate)" },
	{ 7, 5, 128, 0, 1024, 128, 0,
	  "Turing: T4 datasheet (bf16 emulated at the fp32 rate)" },
	{ 8, 0, 128, 1024, 2048, 2048, 0, "Ampere GA100: A100 datasheet" },
	{ 8, 6, 256, 512, 1024, 1024, 0,
	  "Ampere GA10x: A10/A40 datasheets (GeForce halves tf32 and fp32 "
	  "accumulate)" },
	{ 8, 9, 256, 512, 1024, 1024, 2048,
	  "Ada: L4/L40S datasheets (GeForce and L40 halve tf32 and fp32 "
	  "accumulate)" },
	{ 9, 0, 256, 2048, 4096, 4096, 8192, "Hopper: H100 datasheet" },
	{ 10, -1, 256, 4096, 8192, 8192, 16384,
	  "Blackwell datacenter: B200 datasheet (2.25 PF fp16, 4.5 PF fp8 "
	  "dense)" },
	{ 12, -1, 256, 512, 1024, 1024, 2048,
	  "Blackwell GB20x/GB10: RTX PRO 6000 and GB10 (GeForce halves tf32 "
	  "and fp32 accumulate)" },
};

const struct gpu_product *gpu_product_table(int *n)
{
	*n = (int)(sizeof(products) / sizeof(products[0]));
	return products;
}

const struct gpu_product *gpu_product_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++) {
		const char *pat = products[i].name;
		size_t len = strlen(pat);

		/* A MIG instance is named after its GPU: "NVIDIA H100 80GB
		 * HBM3 MIG 3g.40gb" (peak_gpu scales by its SMs). */
		if (len > 0 && pat[len - 1] == '*' ?
			    strncmp(name, pat, len - 1) == 0 :
			    strcmp(name, pat) == 0 ||
				    (strncmp(name, pat, len) == 0 &&
				     strncmp(name + len, " MIG ", 5) == 0))
			return &products[i];
	}
	return NULL;
}

double gpu_product_tflops(const struct gpu_product *p, enum bf_dtype dtype,
			  int *rate, double *mhz)
{
	double t = 0;
	int r = 0;

	switch (dtype) {
	case BF_DTYPE_FP32:
		t = p->fp32_tflops;
		r = p->fp32_rate;
		break;
	case BF_DTYPE_TF32:
		t = p->tf32_tflops;
		r = p->tf32_rate;
		break;
	case BF_DTYPE_FP16:
		t = p->fp16_tflops;
		r = p->fp16_rate;
		break;
	case BF_DTYPE_BF16:
		t = p->bf16_tflops;
		r = p->bf16_rate;
		break;
	case BF_DTYPE_FP8:
		t = p->fp8_tflops;
		r = p->fp8_rate;
		break;
	default:
		break;
	}
	if (rate)
		*rate = r;
	if (mhz)
		*mhz = dtype == BF_DTYPE_FP32 ? p->fp32_mhz : p->tensor_mhz;
	return t;
}

double gpu_arch_rate(int major, int minor, enum bf_dtype dtype,
		     const char **source)
{
	for (size_t i = 0; i < sizeof(arch_rates) / sizeof(arch_rates[0]);
	     i++) {
		if (arch_rates[i].major != major ||
		    (arch_rates[i].minor >= 0 && arch_rates[i].minor != minor))
			continue;
		if (source)
			*source = arch_rates[i].source;
		switch (dtype) {
		case BF_DTYPE_FP32:
			return arch_rates[i].fp32;
		case BF_DTYPE_TF32:
			return arch_rates[i].tf32;
		case BF_DTYPE_FP16:
			return arch_rates[i].fp16;
		case BF_DTYPE_BF16:
			return arch_rates[i].bf16;
		case BF_DTYPE_FP8:
			return arch_rates[i].fp8;
		default:
			return 0;
		}
	}
	if (source)
		*source = NULL;
	return 0;
}
