/*
 * Order statistics over timing samples. Samples are kept, never averaged
 * away: benchfleet reports the median and the spread (min, max), as
 * nvbandwidth and Go's benchstat do.
 */
#ifndef BF_STATS_H
#define BF_STATS_H

#include <stddef.h>

struct stats_summary {
	size_t n;
	double median;
	double min;
	double max;
	double p05; /* 5th percentile (linear interpolation, R type 7) */
	double p95; /* 95th percentile */
};

/* Summarises n samples (any unit; the summary is in the same unit). The
 * input is not modified. n == 0 gives NaN fields and n = 0. The median of an
 * even count is the mean of the two middle values. */
struct stats_summary stats_summarize(const double *samples, size_t n);

/* Median of n samples (NaN when n == 0); input not modified. */
double stats_median(const double *samples, size_t n);

/* q-th quantile, 0 <= q <= 1, of an ascending-sorted array with linear
 * interpolation between closest ranks (Hyndman & Fan 1996, type 7: the
 * default of R and numpy). NaN when n == 0. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

#endif
