/* Order statistics; see stats.h. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bf_stats_quantile_sorted(const double *sorted, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (n == 0)
		return NAN;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	h = (double)(n - 1) * q;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]);
}

struct bf_stats_summary bf_stats_summarize(const double *samples, size_t n)
{
	struct bf_stats_summary s = { .n = n, .median = NAN, .min = NAN,
				   .max = NAN, .p05 = NAN, .p95 = NAN };
	double *v;

	if (n == 0)
		return s;
	v = bf_xmalloc(n * sizeof(*v));
	memcpy(v, samples, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	s.p05 = bf_stats_quantile_sorted(v, n, 0.05);
	s.p95 = bf_stats_quantile_sorted(v, n, 0.95);
	free(v);
	return s;
}

double bf_stats_spread(double median, double min, double max)
{
	if (!(median > 0) || isnan(min) || isnan(max))
		return NAN;
	return (max - min) / median;
}

double bf_stats_median(const double *samples, size_t n)
{
	return bf_stats_summarize(samples, n).median;
}

/* --- Mann-Whitney U test --------------------------------------------- */

struct ranked {
	double v;
	int from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v,
			  &((const struct ranked *)b)->v);
}

/* P(U <= k) for samples of m and n values without ties. Mann & Whitney
 * (1947), eq. 2, in probabilities so that nothing overflows:
 *   p[m][n](u) = m/(m+n) p[m-1][n](u - n) + n/(m+n) p[m][n-1](u)
 * with p[0][n] = p[m][0] = [u == 0]. U counts pairs (x_i > y_j), so
 * adding one x above every y of n adds n. The table holds, for the current
 * m, one row per n (u = 0 .. m n); updating u downwards keeps the row of
 * m - 1 readable below u. */
static double utest_exact_cdf(size_t m, size_t n, double k)
{
	size_t width = m * n + 1, i, j, u;
	double *t, cdf = 0;

	t = bf_xcalloc((n + 1) * width, sizeof(*t));
	for (j = 0; j <= n; j++)
		t[j * width] = 1.0;
	for (i = 1; i <= m; i++) {
		for (j = 1; j <= n; j++) {
			double *row = t + j * width;
			const double *left = t + (j - 1) * width;
			double a = (double)i / (double)(i + j);
			double b = (double)j / (double)(i + j);

			for (u = i * j + 1; u-- > 0;)
				row[u] = (u >= j ? a * row[u - j] : 0) +
					 b * left[u];
		}
	}
	for (u = 0; u < width && (double)u <= k; u++)
		cdf += t[n * width + u];
	free(t);
	return cdf > 1 ? 1 : cdf;
}

int bf_stats_mann_whitney(const double *x, size_t n1, const double *y,
		       size_t n2, enum bf_stats_utest_method method,
		       struct bf_stats_utest *out)
{
	size_t total = n1 + n2, i, j;
	struct ranked *all;
	double rank_sum_x = 0, tie_sum = 0, u_hi, mu, sigma, z;

	memset(out, 0, sizeof(*out));
	out->n1 = n1;
	out->n2 = n2;
	out->p = 1.0;
	if (n1 == 0 || n2 == 0)
		return -1;
	all = bf_xmalloc(total * sizeof(*all));
	for (i = 0; i < n1; i++)
		all[i] = (struct ranked){ x[i], 1 };
	for (i = 0; i < n2; i++)
		all[n1 + i] = (struct ranked){ y[i], 0 };
	qsort(all, total, sizeof(*all), cmp_ranked);
	/* Mid-ranks: a run of t equal values at ranks i+1 .. i+t all get
	 * their mean, i + (t + 1) / 2. */
	for (i = 0; i < total; i = j) {
		double t, mid;

		for (j = i + 1; j < total && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);
		mid = (double)i + (t + 1) / 2;
		for (size_t k = i; k < j; k++)
			if (all[k].from_x)
				rank_sum_x += mid;
		tie_sum += t * t * t - t;
	}
	free(all);
	out->ties = tie_sum > 0;
	out->u = rank_sum_x - (double)n1 * (double)(n1 + 1) / 2;
	u_hi = fmax(out->u, (double)n1 * (double)n2 - out->u);
	if (method == BF_STATS_UTEST_AUTO)
		method = !out->ties && n1 <= BF_STATS_UTEST_EXACT_MAX &&
				 n2 <= BF_STATS_UTEST_EXACT_MAX ?
			 BF_STATS_UTEST_EXACT : BF_STATS_UTEST_NORMAL;
	if (method == BF_STATS_UTEST_EXACT) {
		/* Symmetric: P(U >= u_hi) = P(U <= n1 n2 - u_hi). The table
		 * is smaller with the shorter sample as n. */
		double lo = (double)n1 * (double)n2 - u_hi;

		out->exact = 1;
		out->p = 2 * (n1 >= n2 ? utest_exact_cdf(n1, n2, lo) :
					 utest_exact_cdf(n2, n1, lo));
	} else {
		mu = (double)n1 * (double)n2 / 2;
		sigma = sqrt((double)n1 * (double)n2 / 12 *
			     ((double)(total + 1) -
			      tie_sum / ((double)total * (double)(total - 1))));
		if (sigma > 0) {
			z = (u_hi - mu - 0.5) / sigma;
			/* 1 - Phi(z) = erfc(z / sqrt 2) / 2, accurate in
			 * the tail where 1 - Phi would cancel. */
			out->p = erfc(z / M_SQRT2);
		}
	}
	if (out->p > 1)
		out->p = 1;
	return 0;
}

double bf_stats_utest_min_p(size_t n1, size_t n2)
{
	double c = 1; /* C(n1 + n2, k), built up k = 1 .. min(n1, n2) */
	size_t k, small = n1 < n2 ? n1 : n2, total = n1 + n2;

	if (n1 == 0 || n2 == 0)
		return 1;
	for (k = 1; k <= small; k++)
		c = c * (double)(total - small + k) / (double)k;
	return 2 / c > 1 ? 1 : 2 / c;
}
