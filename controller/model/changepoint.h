/*
 * Change points in a host's history: where a series of runs (one
 * device, dtype, n and settings) shifts, found with the e-divisive method
 * of Matteson and James ("A Nonparametric Approach for Multiple Change
 * Point Analysis of Multivariate Data", JASA 109(505), 2014; the ecp R
 * package, and Apache Otava's starting point):
 *
 *  - the statistic is their energy distance between the per-iteration
 *    samples before and after a split, with exponent 1:
 *      E = 2/(n m) sum|x - y| - sum_{i<k}|x_i - x_k| / C(n,2)
 *                             - sum_{j<k}|y_j - y_k| / C(m,2)
 *      Q = n m / (n + m) E
 *    over the n samples of the runs before and the m of those after;
 *    splits fall between runs only, with at least min_runs runs a side;
 *  - the best split of a segment is kept when a permutation test says it
 *    is significant: the segment's runs, whole, are shuffled (so that
 *    run-to-run noise, a loaded machine's, is part of the null), the best
 *    Q of each shuffle recomputed, p = (1 + shuffles at least as large) /
 *    (1 + shuffles); below alpha, and when the medians either side differ
 *    by at least min_change, the split is a change point and both sides
 *    are searched again (binary segmentation, as their e.divisive);
 *  - under the null (the runs exchangeable) each segment's test is wrong
 *    at most alpha of the time: a series with no change gets a false one
 *    with probability at most alpha; min_change lowers that further.
 *
 * Shuffles come from a generator seeded by the segment, so the same
 * series always gives the same answer. Pure: no I/O; O(N log N) per
 * shuffle for N samples (a Fenwick tree over the samples' ranks).
 */
#ifndef BF_CHANGEPOINT_H
#define BF_CHANGEPOINT_H

#include <stddef.h>

/* One run of a series: its per-iteration samples (any unit in which
 * higher or lower is all that matters, e.g. GFLOP/s). */
struct cp_run {
	const double *x;  /* not owned */
	int n;            /* at least 1 */
};

struct cp_options {
	double alpha;       /* significance level: 0.05 */
	double min_change;  /* least relative change of the median: 0.05 */
	int min_runs;       /* runs on each side of a split: 2 */
	int shuffles;       /* permutations per test: 99 */
};

/* The defaults above. */
#define CP_OPTIONS_DEFAULT { 0.05, 0.05, 2, 99 }

/* One change point: runs [0, at) before it, [at, ...) after. */
struct cp_point {
	int at;             /* index of the first run after the change */
	double p;           /* the permutation test's p-value */
	double q;           /* the statistic Q of the split */
	double before;      /* median of the run medians before (within the
			     * segment it split) */
	double after;       /* and after */
	double change;      /* (after - before) / before */
};

/* Restates pts[0..npts) (sorted by at, from changepoint_find) in the
 * figures a reader sees: each point's before and after become the median
 * of medians[] over the stretch between it and the change point before
 * it (or the start), and between it and the next (or the end), and
 * change (after - before) / before (NaN unless before > 0). medians has
 * a value per run (n of them; ctl history: each run's record gflops), so
 * that the change printed is the step between the medians printed for
 * the stretches on each side (changepoint_find's own are of the segment
 * it split, which spans further when there are several changes). */
void changepoint_stretch_medians(const double *medians, int n,
				 struct cp_point *pts, int npts);

/* Finds the change points of runs[0..nruns) (oldest first) with o (NULL:
 * CP_OPTIONS_DEFAULT), at most max of them into out, sorted by at.
 * Returns how many were found (possibly more than max: only max are
 * written), 0 for fewer than 2 * min_runs runs. A run with no samples
 * counts as none (it is skipped by the caller). Allocates and frees its
 * own work space; aborts only on out-of-memory (bf_xmalloc). */
int changepoint_find(const struct cp_run *runs, int nruns,
		     const struct cp_options *o, struct cp_point *out,
		     int max);

/* The statistic Q (above) of splitting runs[0..nruns) before run at, for
 * tests; a side with one sample has a within term of 0. NaN when at is
 * not in 1..nruns-1. */
double changepoint_q(const struct cp_run *runs, int nruns, int at);

#endif
