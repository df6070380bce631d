/*
 * Unit tests for common/stats.c: median of odd and even counts, min/max,
 * and quantiles against the values numpy 1.24 gives (np.quantile's
 * default "linear" method is Hyndman & Fan type 7). The expected values
 * below were printed by Debian 12's numpy for these very arrays:
 *   np.quantile(a, [0, .05, .25, .5, .9, .95, 1])
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats.h"

static const double odd[] = { 3.1, 0.5, 2.7, 9.0, 4.4, 1.2, 7.3 };
static const double even[] = { 10.0, 2.5, 7.25, 1.0, 4.0, 8.5 };
static const double qs[] = { 0, 0.05, 0.25, 0.5, 0.9, 0.95, 1 };
static const double numpy_odd[] = { 0.5, 0.71, 1.9500000000000002, 3.1,
				    7.98, 8.489999999999998, 9.0 };
static const double numpy_even[] = { 1.0, 1.375, 2.875, 5.625, 9.25, 9.625,
				     10.0 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Relative closeness: numpy interpolates as a + (b - a) * t in a slightly
 * different order, so the last bit may differ. */
static void assert_close(double got, double want)
{
	if (fabs(got - want) > 1e-12 * fmax(1.0, fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void test_median_odd(void **state)
{
	double copy[N(odd)];

	memcpy(copy, odd, sizeof(odd));
	assert_true(bf_stats_median(odd, N(odd)) == 3.1);
	/* The input is not modified (the caller's samples keep their
	 * order: they are reported as measured). */
	assert_memory_equal(copy, odd, sizeof(odd));
}

static void test_median_even(void **state)
{
	/* Mean of the two middle values 4.0 and 7.25. */
	assert_true(bf_stats_median(even, N(even)) == 5.625);
	assert_true(bf_stats_median((const double[]){ 2.0, 1.0 }, 2) == 1.5);
	assert_true(bf_stats_median((const double[]){ 42.0 }, 1) == 42.0);
}

static void test_empty(void **state)
{
	struct bf_stats_summary s = bf_stats_summarize(NULL, 0);

	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median) && isnan(s.min) && isnan(s.max));
	assert_true(isnan(s.p05) && isnan(s.p95));
	assert_true(isnan(bf_stats_median(NULL, 0)));
	assert_true(isnan(bf_stats_quantile_sorted(NULL, 0, 0.5)));
}

static void test_summary(void **state)
{
	struct bf_stats_summary s = bf_stats_summarize(odd, N(odd));

	assert_int_equal(s.n, N(odd));
	assert_true(s.min == 0.5);
	assert_true(s.max == 9.0);
	assert_true(s.median == 3.1);
	assert_close(s.p05, numpy_odd[1]);
	assert_close(s.p95, numpy_odd[5]);
}

static void check_quantiles(const double *v, size_t n, const double *want)
{
	double *sorted = malloc(n * sizeof(*sorted));

	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp);
	for (size_t i = 0; i < N(qs); i++)
		assert_close(bf_stats_quantile_sorted(sorted, n, qs[i]), want[i]);
	free(sorted);
}

static void test_quantile_type7_odd(void **state)
{
	check_quantiles(odd, N(odd), numpy_odd);
}

static void test_quantile_type7_even(void **state)
{
	check_quantiles(even, N(even), numpy_even);
}

static void test_quantile_single(void **state)
{
	const double one[] = { 7.0 };

	assert_true(bf_stats_quantile_sorted(one, 1, 0.0) == 7.0);
	assert_true(bf_stats_quantile_sorted(one, 1, 0.5) == 7.0);
	assert_true(bf_stats_quantile_sorted(one, 1, 1.0) == 7.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_odd),
		cmocka_unit_test(test_median_even),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_quantile_type7_odd),
		cmocka_unit_test(test_quantile_type7_even),
		cmocka_unit_test(test_quantile_single),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
