/*
 * The roofline model (Williams, Waterman and Patterson, "Roofline: An
 * Insightful Visual Performance Model for Multicore Architectures", CACM
 * 52(4), 2009): a kernel of arithmetic intensity AI (FLOP per byte moved
 * to or from memory) can run no faster than min(peak, AI x bandwidth).
 * Below the ridge point (peak / bandwidth) it is memory-bound, above it
 * compute-bound.
 *
 * For a GEMM the agent takes the minimum traffic: A and B read once and
 * C written once (gemm_operand_bytes), so AI = 2 n^3 / operand bytes
 * (n / 6 at fp32 with an fp32 C). Real kernels move more (blocking
 * re-reads panels from the caches, not memory), so the bound is an upper
 * one, like the peak. The bandwidth is the device's own measurement
 * (triad on a CPU, device-to-device copy on a GPU; agent/workloads/bandwidth.c).
 */
#ifndef BF_ROOFLINE_H
#define BF_ROOFLINE_H

enum roofline_bound {
	ROOFLINE_UNKNOWN = 0, /* peak or bandwidth unknown */
	ROOFLINE_COMPUTE,     /* AI x bandwidth >= peak */
	ROOFLINE_MEMORY       /* AI x bandwidth < peak */
};

struct roofline {
	double arithmetic_intensity; /* FLOP per byte; NaN when bytes <= 0 */
	double roofline_gflops;      /* min(peak, AI x bandwidth); NaN unknown */
	enum roofline_bound bound;
	double fraction;             /* gflops / roofline_gflops; NaN */
};

/* Places a result of `gflops` GFLOP/s (NaN: none) for a kernel of
 * `flops` FLOPs moving `bytes` bytes on a device of peak_gflops (GFLOP/s)
 * and bandwidth_gbps (GB/s, 1e9 bytes/s); either may be NaN (unknown),
 * which leaves the bound unknown. Pure. */
void roofline_place(double flops, double bytes, double peak_gflops,
		    double bandwidth_gbps, double gflops, struct roofline *out);

/* "compute", "memory", or NULL for unknown; static. */
const char *roofline_bound_name(enum roofline_bound b);

#endif
