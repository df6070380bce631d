/*
 * Published measured GEMM results (reference.h), square n x n x n, one
 * row per product, dtype and n.
 *
 * Sources:
 *   [SEED]  this project's seed run on an NVIDIA DGX Spark (GB10, CUDA
 *           13.0, driver 580.159.03), PyTorch torch.matmul, median of 20
 *           synchronised iterations (GPU) after warm-up;
 *           shared/docs/seed-facts.md, "The matmul benchmark the seed ran".
 *   [TPTD]  github.com/zzc0721/torch-performance-test-data, the detailed
 *           per-size results of its issues (titled by device):
 *           torch.mm on torch.randn inputs, 6 warm-up calls, then 30
 *           calls timed together around one synchronise; "FP32" with
 *           TF32 off (PyTorch's default for matmul), "TF32" with it on.
 *           Device names are torch.cuda.get_device_name, which is
 *           cudaDeviceProp.name.
 *   [AZBG]  github.com/Azure/AI-benchmarking-guide, its published results
 *           for Azure ND H200 v5 (8x H200 SXM, one GPU per GEMM): the
 *           cuBLASLt GEMM microbenchmark, FP8 (e4m3) inputs, square n.
 * Only results reported at a square n the agent sweeps (4096, 8192) are
 * here; a database's "best over sizes" figure is not a result at an n.
 */
#include "hardware/reference.h"

#include <stdio.h>
#include <string.h>

#define F32 BF_DTYPE_FP32
#define T32 BF_DTYPE_TF32
#define F16 BF_DTYPE_FP16
#define B16 BF_DTYPE_BF16
#define F8 BF_DTYPE_FP8

#define SEED_TOOL "PyTorch torch.matmul, CUDA 13.0"
#define SEED_SRC "[SEED] shared/docs/seed-facts.md (DGX Spark)"
#define SPARK_CPU "10x Cortex-A725 + 10x Cortex-X925"

static const struct gemm_reference refs[] = {
	/* DGX Spark, the seed's own runs. GPU times are medians of 20
	 * synchronised iterations; tf32 is week 1's. */
	{ "NVIDIA GB10", 1, F32, 4096, 18.473, SEED_TOOL, SEED_SRC },
	{ "NVIDIA GB10", 1, F16, 4096, 88.808, SEED_TOOL, SEED_SRC },
	{ "NVIDIA GB10", 1, B16, 4096, 87.202, SEED_TOOL, SEED_SRC },
	{ "NVIDIA GB10", 1, T32, 4096, 40.1, SEED_TOOL, SEED_SRC " week 1" },
	{ SPARK_CPU, 0, F32, 4096, 0.817, "PyTorch torch.matmul on the CPU",
	  SEED_SRC },

	/* [AZBG] ND H200 v5: cuBLASLt FP8 */
	{ "NVIDIA H200", 1, F8, 4096, 1249, "cuBLASLt FP8 (e4m3) GEMM",
	  "[AZBG] Azure ND H200 v5 results" },
	{ "NVIDIA H200", 1, F8, 8192, 1301, "cuBLASLt FP8 (e4m3) GEMM",
	  "[AZBG] Azure ND H200 v5 results" },
	/* [TPTD] issue 79: PyTorch 2.7.0+cu128 */
	{ "NVIDIA H100 80GB HBM3", 1, F32, 4096, 51.88,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	{ "NVIDIA H100 80GB HBM3", 1, T32, 4096, 402.15,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	{ "NVIDIA H100 80GB HBM3", 1, F16, 4096, 760.04,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	{ "NVIDIA H100 80GB HBM3", 1, B16, 4096, 788.72,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	{ "NVIDIA H100 80GB HBM3", 1, F32, 8192, 51.81,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	{ "NVIDIA H100 80GB HBM3", 1, T32, 8192, 372.05,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	{ "NVIDIA H100 80GB HBM3", 1, F16, 8192, 736.19,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	{ "NVIDIA H100 80GB HBM3", 1, B16, 8192, 797.51,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 79" },
	/* [TPTD] issue 95: PyTorch 2.9.0+cu128 */
	{ "NVIDIA H100 PCIe", 1, F32, 4096, 36.51, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	{ "NVIDIA H100 PCIe", 1, T32, 4096, 234.80, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	{ "NVIDIA H100 PCIe", 1, F16, 4096, 457.32, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	{ "NVIDIA H100 PCIe", 1, B16, 4096, 495.93, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	{ "NVIDIA H100 PCIe", 1, F32, 8192, 36.95, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	{ "NVIDIA H100 PCIe", 1, T32, 8192, 240.43, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	{ "NVIDIA H100 PCIe", 1, F16, 8192, 437.07, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	{ "NVIDIA H100 PCIe", 1, B16, 8192, 492.84, "PyTorch 2.9.0 torch.mm",
	  "[TPTD] issue 95" },
	/* [TPTD] issue 77: PyTorch 2.7.0+cu128 */
	{ "NVIDIA H20", 1, F32, 4096, 30.27, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 77" },
	{ "NVIDIA H20", 1, T32, 4096, 71.06, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 77" },
	{ "NVIDIA H20", 1, F16, 4096, 133.18, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 77" },
	{ "NVIDIA H20", 1, B16, 4096, 133.41, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 77" },
	/* [TPTD] issue 108: PyTorch 2.8.0+cu128 */
	{ "NVIDIA A100-PCIE-40GB", 1, F32, 4096, 15.52,
	  "PyTorch 2.8.0 torch.mm", "[TPTD] issue 108" },
	{ "NVIDIA A100-PCIE-40GB", 1, T32, 4096, 108.32,
	  "PyTorch 2.8.0 torch.mm", "[TPTD] issue 108" },
	{ "NVIDIA A100-PCIE-40GB", 1, F16, 4096, 241.49,
	  "PyTorch 2.8.0 torch.mm", "[TPTD] issue 108" },
	{ "NVIDIA A100-PCIE-40GB", 1, B16, 4096, 234.14,
	  "PyTorch 2.8.0 torch.mm", "[TPTD] issue 108" },
	/* [TPTD] issue 185: PyTorch 2.11.0+cu128 */
	{ "NVIDIA A40", 1, F32, 4096, 23.01, "PyTorch 2.11.0 torch.mm",
	  "[TPTD] issue 185" },
	{ "NVIDIA A40", 1, T32, 4096, 54.88, "PyTorch 2.11.0 torch.mm",
	  "[TPTD] issue 185" },
	{ "NVIDIA A40", 1, F16, 4096, 113.51, "PyTorch 2.11.0 torch.mm",
	  "[TPTD] issue 185" },
	{ "NVIDIA A40", 1, B16, 4096, 115.16, "PyTorch 2.11.0 torch.mm",
	  "[TPTD] issue 185" },
	/* [TPTD] issue 126: PyTorch 2.7.0+cu128 */
	{ "NVIDIA A10G", 1, F32, 4096, 23.37, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 126" },
	{ "NVIDIA A10G", 1, T32, 4096, 30.95, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 126" },
	{ "NVIDIA A10G", 1, F16, 4096, 62.46, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 126" },
	{ "NVIDIA A10G", 1, B16, 4096, 62.48, "PyTorch 2.7.0 torch.mm",
	  "[TPTD] issue 126" },
	/* [TPTD] issue 107: PyTorch 2.8.0+cu128 */
	{ "NVIDIA L20", 1, F32, 4096, 36.35, "PyTorch 2.8.0 torch.mm",
	  "[TPTD] issue 107" },
	{ "NVIDIA L20", 1, T32, 4096, 51.60, "PyTorch 2.8.0 torch.mm",
	  "[TPTD] issue 107" },
	{ "NVIDIA L20", 1, F16, 4096, 113.26, "PyTorch 2.8.0 torch.mm",
	  "[TPTD] issue 107" },
	{ "NVIDIA L20", 1, B16, 4096, 111.82, "PyTorch 2.8.0 torch.mm",
	  "[TPTD] issue 107" },
	/* [TPTD] issue 78: PyTorch 2.7.0+cu128 */
	{ "NVIDIA GeForce RTX 4090", 1, F32, 4096, 53.02,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
	{ "NVIDIA GeForce RTX 4090", 1, T32, 4096, 84.44,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
	{ "NVIDIA GeForce RTX 4090", 1, F16, 4096, 168.38,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
	{ "NVIDIA GeForce RTX 4090", 1, B16, 4096, 151.50,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
	{ "NVIDIA GeForce RTX 4090", 1, F32, 8192, 53.41,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
	{ "NVIDIA GeForce RTX 4090", 1, T32, 8192, 85.65,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
	{ "NVIDIA GeForce RTX 4090", 1, F16, 8192, 155.50,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
	{ "NVIDIA GeForce RTX 4090", 1, B16, 8192, 160.17,
	  "PyTorch 2.7.0 torch.mm", "[TPTD] issue 78" },
};

const struct gemm_reference *reference_table(int *n)
{
	*n = (int)(sizeof(refs) / sizeof(refs[0]));
	return refs;
}

const struct gemm_reference *reference_find(const char *product, int is_gpu,
					    enum bf_dtype dtype, int n)
{
	if (!product)
		return NULL;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (refs[i].is_gpu == is_gpu && refs[i].dtype == dtype &&
		    refs[i].n == n && strcmp(refs[i].product, product) == 0)
			return &refs[i];
	return NULL;
}

void reference_describe(const struct gemm_reference *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s on %s, %s n=%d: %.4g TFLOP/s (%s)", r->tool,
		 r->product, bf_dtype_name(r->dtype), r->n, r->tflops,
		 r->source);
}
