/*
 * What a machine should score: published *measured* GEMM results (not
 * peaks), one row per product, dtype and n, each with the tool that
 * measured it and where it was published. A gemm record carries the
 * matching row (reference_gflops, reference_source); a result below
 * BF_REFERENCE_HEALTHY_FRACTION (schema.h, 0.8) of it is marked "below
 * reference" (below_reference), a health
 * verdict a user can act on (a throttled card, a slow library, a wrong
 * thread count), where %peak only says how far from the theory it is.
 *
 * Matching is exact: the product as the agent names it (a GPU's
 * cudaDeviceProp.name; a CPU's clusters, "10x Cortex-A725 + 10x
 * Cortex-X925", from peak_cpu_product), the dtype and n. A result at
 * another n has no reference: GEMM speed depends on n.
 */
#ifndef BF_REFERENCE_H
#define BF_REFERENCE_H

#include <stddef.h>

#include "dtype.h"

struct gemm_reference {
	const char *product; /* cudaDeviceProp.name, or a CPU's clusters */
	int is_gpu;
	enum bf_dtype dtype;
	int n;
	double tflops;	    /* the published measurement, 1e12 FLOP/s */
	const char *tool;   /* what measured it: "PyTorch 2.7 torch.mm" */
	const char *source; /* where it was published */
};

/* The row for (product, is_gpu, dtype, n); NULL when none. Static. */
const struct gemm_reference *reference_find(const char *product, int is_gpu,
					    enum bf_dtype dtype, int n);

/* The whole table (tests, docs); *n gets its length. Static. */
const struct gemm_reference *reference_table(int *n);

/* One line naming a row for the record's reference_source: "PyTorch 2.x
 * torch.matmul on NVIDIA GB10, fp16 n=4096: 88.8 TFLOP/s (seed week 2,
 * shared/docs/seed-facts.md)". */
void reference_describe(const struct gemm_reference *r, char *buf, size_t len);

#endif
