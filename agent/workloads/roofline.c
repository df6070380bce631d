/* The roofline arithmetic; see roofline.h. */
#include "workloads/roofline.h"

#include <math.h>

#include "schema.h"

void roofline_place(double flops, double bytes, double peak_gflops,
		    double bandwidth_gbps, double gflops, struct roofline *out)
{
	double memory_gflops;

	out->arithmetic_intensity = bytes > 0 ? flops / bytes : NAN;
	out->roofline_gflops = NAN;
	out->bound = ROOFLINE_UNKNOWN;
	out->fraction = NAN;
	/* FLOP/byte x 1e9 byte/s = 1e9 FLOP/s: GB/s times AI is GFLOP/s. */
	memory_gflops = out->arithmetic_intensity * bandwidth_gbps;
	if (!(peak_gflops > 0) || !(memory_gflops > 0) || !isfinite(peak_gflops) ||
	    !isfinite(memory_gflops))
		return;
	if (memory_gflops < peak_gflops) {
		out->roofline_gflops = memory_gflops;
		out->bound = ROOFLINE_MEMORY;
	} else {
		out->roofline_gflops = peak_gflops;
		out->bound = ROOFLINE_COMPUTE;
	}
	out->fraction = gflops / out->roofline_gflops; /* NaN stays NaN */
}

const char *roofline_bound_name(enum roofline_bound b)
{
	switch (b) {
	case ROOFLINE_COMPUTE:
		return BF_BOUND_COMPUTE;
	case ROOFLINE_MEMORY:
		return BF_BOUND_MEMORY;
	default:
		return NULL;
	}
}
