/*
 * Unit tests for the Mann-Whitney U test of common/stats.c against
 * scipy.stats.mannwhitneyu (alternative="two-sided"), scipy 1.10.1 as
 * packaged by Debian 12 (python3-scipy). The constants below were printed
 * once by tests/compare/mwu_reference.py, which holds the same arrays;
 * the tests themselves do not need scipy. Besides: the smallest p-values
 * against benchstat's table (golang.org/x/perf/benchmath, uTestMinP, which
 * is 2 / C(2n, n)), and symmetries any implementation must have.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double rel)
{
	if (!(fabs(got - want) <= rel * fmax(1e-300, fabs(want))))
		fail_msg("got %.17g, want %.17g", got, want);
}

struct ref_case {
	const char *name;
	const double *x, *y;
	size_t n1, n2;
	double u;          /* scipy's statistic (U1, for x) */
	double p_exact;    /* method="exact" */
	double p_normal;   /* method="asymptotic" */
};

static const double sep5_x[] = { 1, 2, 3, 4, 5 };
static const double sep5_y[] = { 6, 7, 8, 9, 10 };
static const double inter3_x[] = { 1.1, 2.2, 3.3 };
static const double inter3_y[] = { 1.5, 2.5, 3.5 };
static const double gf_x[] = { 19.2, 20.1, 18.7, 21.3, 19.9 };
static const double gf_y[] = { 22.4, 20.5, 23.1, 21.9, 22.0, 24.2 };
static const double mid_x[] = { 3.1, 4.7, 2.2, 5.9, 6.3, 1.8,
				7.4, 4.1, 5.2, 8.8, 3.6, 6.9 };
static const double mid_y[] = { 5.5, 7.1, 9.2, 6.6, 4.4, 8.1, 7.7, 10.3,
				5.8, 9.9, 6.2, 8.4, 7.3, 11.0, 4.9 };
static const double ties_x[] = { 1, 2, 2, 3, 3, 3, 4 };
static const double ties_y[] = { 2, 3, 3, 4, 4, 5, 5, 6 };
static const double same_x[] = { 5, 5, 5, 5 };
static double big_x[60], big_y[55];

/* scipy 1.10.1 output (mwu_reference.py). */
static const struct ref_case cases[] = {
	{ "sep5", sep5_x, sep5_y, 5, 5, 0.0, 0.007936507936507936,
	  0.012185780355344813 },
	{ "inter3", inter3_x, inter3_y, 3, 3, 3.0, 0.7, 0.6625205835400574 },
	{ "gf5v6", gf_x, gf_y, 5, 6, 1.0, 0.008658008658008658,
	  0.01371083007813322 },
	{ "mid12v15", mid_x, mid_y, 12, 15, 37.0, 0.008709688182026316,
	  0.010414994659063268 },
	{ "big60v55", big_x, big_y, 60, 55, 1426.0, 0.21167099579364018,
	  0.21080325081810491 },
};

/* The same formulas as mwu_reference.py (i * 1.7 % 13.1 + 0.013 * i);
 * Python's % of positive doubles is fmod. */
static int setup_big(void **state)
{
	for (int i = 0; i < 60; i++)
		big_x[i] = fmod(i * 1.7, 13.1) + 0.013 * i;
	for (int i = 0; i < 55; i++)
		big_y[i] = fmod(i * 2.3, 11.7) + 1.5 + 0.011 * i;
	return 0;
}

static void test_exact_against_scipy(void **state)
{
	for (size_t i = 0; i < N(cases); i++) {
		const struct ref_case *c = &cases[i];
		struct bf_stats_utest r;

		assert_int_equal(bf_stats_mann_whitney(c->x, c->n1, c->y, c->n2,
						    BF_STATS_UTEST_EXACT, &r), 0);
		assert_false(r.ties);
		assert_true(r.exact);
		assert_true(r.u == c->u);
		assert_close(r.p, c->p_exact, 1e-9);
	}
}

static void test_normal_against_scipy(void **state)
{
	for (size_t i = 0; i < N(cases); i++) {
		const struct ref_case *c = &cases[i];
		struct bf_stats_utest r;

		assert_int_equal(bf_stats_mann_whitney(c->x, c->n1, c->y, c->n2,
						    BF_STATS_UTEST_NORMAL, &r), 0);
		assert_false(r.exact);
		assert_true(r.u == c->u);
		assert_close(r.p, c->p_normal, 1e-9);
	}
}

/* Ties: mid-ranks and the tie-corrected variance. scipy: U=11.0,
 * asymptotic p=0.04988443697992588. */
static void test_ties_normal(void **state)
{
	struct bf_stats_utest r;

	bf_stats_mann_whitney(ties_x, N(ties_x), ties_y, N(ties_y),
			   BF_STATS_UTEST_AUTO, &r);
	assert_true(r.ties);
	assert_false(r.exact); /* AUTO never uses the exact table with ties */
	assert_true(r.u == 11.0);
	assert_close(r.p, 0.04988443697992588, 1e-9);
}

/* AUTO: exact when small and without ties, normal beyond
 * BF_STATS_UTEST_EXACT_MAX values a side. */
static void test_auto_choice(void **state)
{
	struct bf_stats_utest r;

	bf_stats_mann_whitney(gf_x, N(gf_x), gf_y, N(gf_y), BF_STATS_UTEST_AUTO, &r);
	assert_true(r.exact);
	assert_close(r.p, 0.008658008658008658, 1e-9);
	bf_stats_mann_whitney(big_x, N(big_x), big_y, N(big_y), BF_STATS_UTEST_AUTO,
			   &r);
	assert_false(r.exact);
	assert_close(r.p, 0.21080325081810491, 1e-9);
}

/* All values equal: no evidence of anything; scipy gives p = 1. */
static void test_all_equal(void **state)
{
	struct bf_stats_utest r;

	bf_stats_mann_whitney(same_x, N(same_x), same_x, N(same_x),
			   BF_STATS_UTEST_AUTO, &r);
	assert_true(r.u == 8.0);
	assert_true(r.p == 1.0);
}

static void test_empty(void **state)
{
	struct bf_stats_utest r;

	assert_int_equal(bf_stats_mann_whitney(gf_x, 0, gf_y, N(gf_y),
					    BF_STATS_UTEST_AUTO, &r), -1);
	assert_true(r.p == 1.0);
	assert_int_equal(bf_stats_mann_whitney(gf_x, N(gf_x), gf_y, 0,
					    BF_STATS_UTEST_AUTO, &r), -1);
}

/* Swapping the samples gives U2 = n1 n2 - U1 and the same p. */
static void test_symmetry(void **state)
{
	struct bf_stats_utest a, b;

	bf_stats_mann_whitney(mid_x, N(mid_x), mid_y, N(mid_y), BF_STATS_UTEST_EXACT, &a);
	bf_stats_mann_whitney(mid_y, N(mid_y), mid_x, N(mid_x), BF_STATS_UTEST_EXACT, &b);
	assert_true(a.u + b.u == (double)(N(mid_x) * N(mid_y)));
	assert_close(a.p, b.p, 1e-12);
}

/* benchstat's uTestMinP table (n = m), and the sizes ctl compare's rule
 * names: 4+4, 3+5 and 2+8 can reach 0.05; 3+3, 3+4 and 2+7 cannot. */
static void test_min_p(void **state)
{
	static const double benchstat[] = {
		0, 1, 0.3333333333333333, 0.1, 0.02857142857142857,
		0.007936507936507936, 0.0021645021645021645,
		0.0005827505827505828, 0.0001554001554001554,
		4.113533525298231e-05,
	};

	for (size_t n = 1; n < N(benchstat); n++)
		assert_close(bf_stats_utest_min_p(n, n), benchstat[n], 1e-12);
	assert_true(bf_stats_utest_min_p(3, 5) < 0.05);
	assert_true(bf_stats_utest_min_p(2, 8) < 0.05);
	assert_true(bf_stats_utest_min_p(3, 4) >= 0.05);
	assert_true(bf_stats_utest_min_p(2, 7) >= 0.05);
	assert_true(bf_stats_utest_min_p(0, 5) == 1);
	/* The exact test reaches the bound for fully separated samples. */
	{
		struct bf_stats_utest r;

		bf_stats_mann_whitney(sep5_x, 5, sep5_y, 5, BF_STATS_UTEST_EXACT, &r);
		assert_close(r.p, bf_stats_utest_min_p(5, 5), 1e-12);
	}
}

/* The exact distribution at the largest size AUTO uses it for. */
static void test_exact_large(void **state)
{
	double x[BF_STATS_UTEST_EXACT_MAX], y[BF_STATS_UTEST_EXACT_MAX];
	struct bf_stats_utest r;

	/* Interleaved, "inter50" of mwu_reference.py: scipy gives U=1225,
	 * exact p=0.8664717523984105. */
	for (int i = 0; i < BF_STATS_UTEST_EXACT_MAX; i++) {
		x[i] = 2 * i;
		y[i] = 2 * i + 1;
	}
	bf_stats_mann_whitney(x, BF_STATS_UTEST_EXACT_MAX, y, BF_STATS_UTEST_EXACT_MAX,
			   BF_STATS_UTEST_AUTO, &r);
	assert_true(r.exact);
	assert_true(r.u == 1225.0);
	assert_close(r.p, 0.8664717523984105, 1e-9);
	/* Fully separated: the bound, about 2e-29. */
	for (int i = 0; i < BF_STATS_UTEST_EXACT_MAX; i++)
		y[i] = 1000 + i;
	bf_stats_mann_whitney(x, BF_STATS_UTEST_EXACT_MAX, y, BF_STATS_UTEST_EXACT_MAX,
			   BF_STATS_UTEST_AUTO, &r);
	assert_close(r.p, bf_stats_utest_min_p(BF_STATS_UTEST_EXACT_MAX,
					    BF_STATS_UTEST_EXACT_MAX), 1e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_against_scipy),
		cmocka_unit_test(test_normal_against_scipy),
		cmocka_unit_test(test_ties_normal),
		cmocka_unit_test(test_auto_choice),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_symmetry),
		cmocka_unit_test(test_min_p),
		cmocka_unit_test(test_exact_large),
	};

	return cmocka_run_group_tests_name("mann_whitney", tests, setup_big, NULL);
}
