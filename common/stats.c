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

double stats_quantile_sorted(const double *sorted, size_t n, double q)
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

struct stats_summary stats_summarize(const double *samples, size_t n)
{
	struct stats_summary s = { .n = n, .median = NAN, .min = NAN,
				   .max = NAN, .p05 = NAN, .p95 = NAN };
	double *v;

	if (n == 0)
		return s;
	v = xmalloc(n * sizeof(*v));
	memcpy(v, samples, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	s.p05 = stats_quantile_sorted(v, n, 0.05);
	s.p95 = stats_quantile_sorted(v, n, 0.95);
	free(v);
	return s;
}

double stats_median(const double *samples, size_t n)
{
	return stats_summarize(samples, n).median;
}
