/*
 * Order statistics over timing samples. Samples are kept, never averaged
 * away: benchfleet reports the median and the spread (min, max), as
 * nvbandwidth and Go's benchstat do.
 */
#ifndef BF_STATS_H
#define BF_STATS_H

#include <stddef.h>

struct bf_stats_summary {
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
struct bf_stats_summary bf_stats_summarize(const double *samples, size_t n);

/* The spread of a row's timed iterations, the one figure of how far apart
 * they are that every record, table and document uses: (max - min) /
 * median of the iterations' times, as a fraction (0.3 is 30%). NaN when
 * median is not above 0 or any argument is NaN. Pure. */
double bf_stats_spread(double median, double min, double max);

/* Median of n samples (NaN when n == 0); input not modified. */
double bf_stats_median(const double *samples, size_t n);

/* q-th quantile, 0 <= q <= 1, of an ascending-sorted array with linear
 * interpolation between closest ranks (Hyndman & Fan 1996, type 7: the
 * default of R and numpy). NaN when n == 0. */
double bf_stats_quantile_sorted(const double *sorted, size_t n, double q);

/* --- Mann-Whitney U test --------------------------------------------- */

/* How bf_stats_mann_whitney computes the p-value. AUTO: the exact null
 * distribution when neither sample has more than BF_STATS_UTEST_EXACT_MAX
 * values and there are no ties (the exact distribution assumes none),
 * otherwise the normal approximation. */
enum bf_stats_utest_method {
	BF_STATS_UTEST_AUTO = 0,
	BF_STATS_UTEST_EXACT,  /* exact distribution of U without ties */
	BF_STATS_UTEST_NORMAL, /* normal approximation, tie and continuity corrected */
};

#define BF_STATS_UTEST_EXACT_MAX 50

struct bf_stats_utest {
	size_t n1, n2;
	double u;   /* U of x: pairs with x_i > y_j, plus half the pairs with
		     * x_i == y_j (scipy's U1); 0 <= u <= n1 * n2 */
	double p;   /* two-sided p-value, in [0, 1] */
	int exact;  /* 1: p from the exact distribution, 0: normal approx. */
	int ties;   /* 1: some value occurs more than once in x and y together */
};

/* Two-sided Mann-Whitney U (Wilcoxon rank-sum) test of x (n1 values)
 * against y (n2 values): how likely a difference in location at least
 * this large is if both samples come from one distribution. Inputs are
 * not modified; NaNs are not allowed. Returns 0 and fills *out, or -1
 * when n1 or n2 is 0 (*out then has p = 1).
 *
 * Definitions follow scipy.stats.mannwhitneyu (scipy 1.10) with
 * alternative="two-sided": exact p = min(1, 2 P(U >= max(U1, U2))) from
 * the distribution of U without ties (Mann & Whitney 1947, by their
 * recursion, so at most BF_STATS_UTEST_EXACT_MAX values a side under AUTO:
 * O(n1^2 n2^2) time, O(n1 n2 min(n1, n2)) memory); normal approximation
 * z = (max(U1, U2) - n1 n2 / 2 - 1/2) / sigma with the tie-corrected
 * sigma^2 = n1 n2 / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))), N = n1 + n2,
 * p = min(1, 2 (1 - Phi(z))). When every value is equal (sigma = 0),
 * p = 1. Go's benchstat makes the same choice of test (go-moremath). */
int bf_stats_mann_whitney(const double *x, size_t n1, const double *y,
		       size_t n2, enum bf_stats_utest_method method,
		       struct bf_stats_utest *out);

/* The smallest two-sided p-value the U test can give for samples of n1
 * and n2 values, 2 / C(n1 + n2, n1) (capped at 1): when it is not below
 * alpha, no difference can be significant, however large. 1 when n1 or
 * n2 is 0. E.g. 3 and 3: 0.1; 4 and 4: 0.0286; 3 and 5: 0.0357. */
double bf_stats_utest_min_p(size_t n1, size_t n2);

#endif
