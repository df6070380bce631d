/*
 * Unit tests for controller/model/changepoint.c, the e-divisive change
 * points of ctl history: the statistic against its definition computed
 * pair by pair, a step found at its run and no other (its p exact: the
 * shuffles are seeded), two steps, the magnitude floor, too few runs, a
 * single slow run at either end of a series (no change point), and the
 * false-positive rate on series
 * with no change but run-to-run noise (a loaded machine's): at most
 * about alpha, because whole runs are permuted.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "model/changepoint.h"

#define MAX_RUNS 64

/* Exact p-values of the series below (their shuffles are seeded). */
#define PONE (1.0 / 100)
#define PEND_AT_NEW 2
#define PEND_AT_OLD 2
#define PEND_P_NEW (17.0 / 100)
#define PEND_P_OLD (9.0 / 100)
#define PTWO (2.0 / 100)
#define SAMPLES 5

/* A deterministic generator for the synthetic series (splitmix64). */
static uint64_t rng = 1;

static double uniform(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static double x[MAX_RUNS][SAMPLES];
static struct cp_run runs[MAX_RUNS];

/* nruns runs whose level is level[i], each sample within +-within of
 * it (relative), each run's level moved by up to +-between. */
static void make(int nruns, const double *level, double within, double between)
{
	for (int i = 0; i < nruns; i++) {
		double run = level[i] * (1 + between * (2 * uniform() - 1));

		for (int k = 0; k < SAMPLES; k++)
			x[i][k] = run * (1 + within * (2 * uniform() - 1));
		runs[i].x = x[i];
		runs[i].n = SAMPLES;
	}
}

/* Q by its definition, pair by pair. */
static double q_direct(int nruns, int at)
{
	double between = 0, wa = 0, wb = 0, n = 0, m = 0;
	double a[MAX_RUNS * SAMPLES], b[MAX_RUNS * SAMPLES];
	int na = 0, nb = 0;

	for (int i = 0; i < nruns; i++)
		for (int k = 0; k < runs[i].n; k++) {
			if (i < at)
				a[na++] = runs[i].x[k];
			else
				b[nb++] = runs[i].x[k];
		}
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			between += fabs(a[i] - b[j]);
	for (int i = 0; i < na; i++)
		for (int j = i + 1; j < na; j++)
			wa += fabs(a[i] - a[j]);
	for (int i = 0; i < nb; i++)
		for (int j = i + 1; j < nb; j++)
			wb += fabs(b[i] - b[j]);
	n = na;
	m = nb;
	return n * m / (n + m) *
	       (2 * between / (n * m) - wa / (n * (n - 1) / 2) -
		wb / (m * (m - 1) / 2));
}

static void test_statistic(void **state)
{
	double level[12];

	(void)state;
	for (int i = 0; i < 12; i++)
		level[i] = i < 5 ? 100 : 70;
	make(12, level, 0.1, 0.05);
	for (int at = 1; at < 12; at++)
		assert_true(fabs(changepoint_q(runs, 12, at) - q_direct(12, at)) <
			    1e-9 * fabs(q_direct(12, at)) + 1e-9);
	assert_true(isnan(changepoint_q(runs, 12, 0)));
	assert_true(isnan(changepoint_q(runs, 12, 12)));
}

static void test_one_step(void **state)
{
	double level[12];
	struct cp_point p[4];
	int n;

	(void)state;
	rng = 1; /* the same series whatever ran before */
	for (int i = 0; i < 12; i++)
		level[i] = i < 7 ? 100 : 50;
	make(12, level, 0.05, 0.05);
	n = changepoint_find(runs, 12, NULL, p, 4);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].at, 7);
	/* The shuffles are seeded by the segment: the same p every time,
	 * (1 + none of 99 shuffles as large) / (1 + 99). */
	print_message("one step: p %.17g q %.17g\n", p[0].p, p[0].q);
	assert_true(p[0].p == PONE);
	assert_true(fabs(p[0].change + 0.5) < 0.1);
	assert_true(p[0].before > 90 && p[0].after < 60);
}

static void test_two_steps(void **state)
{
	double level[15];
	struct cp_point p[4];
	int n;

	(void)state;
	/* Two slowdowns, a driver update then another (100, 70, 45): the
	 * first split found, then each side searched again. */
	for (int i = 0; i < 15; i++)
		level[i] = i < 5 ? 100 : i < 10 ? 70 : 45;
	make(15, level, 0.03, 0.03);
	n = changepoint_find(runs, 15, NULL, p, 4);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].at, 5);
	assert_int_equal(p[1].at, 10);
	assert_true(p[0].change < -0.2);
	assert_true(p[1].change < -0.2);
}

/* A series of n runs at 100 (2 % noise) but one at 50, at run slow. */
static void one_slow(int n, int slow)
{
	double level[MAX_RUNS];

	rng = 7;
	for (int i = 0; i < n; i++)
		level[i] = i == slow ? 50 : 100;
	make(n, level, 0.02, 0.02);
}

/* The ends of a series: a single slow newest run (the usual case for
 * ctl history) or oldest run is no change point, under the rule of at
 * least two runs a side (min_runs); with every split reported (alpha 1,
 * no least change) the best one's p is large and exact. Two slow newest
 * runs are a change. */
static void test_series_ends(void **state)
{
	struct cp_point p[16];
	int at11 = 0;
	struct cp_options all = CP_OPTIONS_DEFAULT;
	int n;

	(void)state;
	all.alpha = 1.0001;
	all.min_change = 0;
	for (int end = 0; end < 2; end++) {
		int slow = end ? 11 : 0;

		one_slow(12, slow);
		assert_int_equal(changepoint_find(runs, 12, NULL, p, 16), 0);
		n = changepoint_find(runs, 12, &all, p, 16);
		print_message("slow run %d: %d found, at %d p %.17g\n", slow, n,
			      n ? p[0].at : -1, n ? p[0].p : NAN);
		assert_true(n >= 1);
		/* never a split leaving the slow run alone on its side */
		for (int k = 0; k < n && k < 16; k++)
			assert_true(p[k].at >= 2 && p[k].at <= 10);
		assert_int_equal(p[0].at, end ? PEND_AT_NEW : PEND_AT_OLD);
		assert_true(p[0].p == (end ? PEND_P_NEW : PEND_P_OLD));
	}
	/* One run a side allowed: the lone slow newest run is split off,
	 * which is why the rule is two. */
	all.min_runs = 1;
	one_slow(12, 11);
	n = changepoint_find(runs, 12, &all, p, 16);
	assert_true(n >= 1 && n <= 16);
	for (int k = 0; k < n; k++)
		at11 |= p[k].at == 11;
	assert_true(at11);
	/* Two slow newest runs: a change, at 10, with its exact p. */
	{
		double level[12];

		rng = 7;
		for (int i = 0; i < 12; i++)
			level[i] = i < 10 ? 100 : 50;
		make(12, level, 0.02, 0.02);
		n = changepoint_find(runs, 12, NULL, p, 16);
		print_message("two slow: %d found, at %d p %.17g\n", n,
			      n ? p[0].at : -1, n ? p[0].p : NAN);
		assert_int_equal(n, 1);
		assert_int_equal(p[0].at, 10);
		assert_true(p[0].p == PTWO);
	}
}

/* Two changes: each is restated in the medians of the stretches on its
 * sides (what ctl history prints), not of the segment it split: before,
 * the first change's "after" was the median of runs 5-14 (a mix of 70
 * and 45), so "100 -> 45" sat under stretches of median 100 and 70. */
static void test_stretch_medians(void **state)
{
	double level[15], med[15];
	struct cp_point p[4];
	int n;

	(void)state;
	for (int i = 0; i < 15; i++)
		level[i] = med[i] = i < 5 ? 100 : i < 10 ? 70 : 45;
	make(15, level, 0.03, 0.03);
	n = changepoint_find(runs, 15, NULL, p, 4);
	assert_int_equal(n, 2);
	/* As found: the first change's after spans runs 5-14. */
	assert_true(p[0].after < 65);
	changepoint_stretch_medians(med, 15, p, n);
	assert_true(p[0].before == 100 && p[0].after == 70);
	assert_true(fabs(p[0].change + 0.3) < 1e-12);
	assert_true(p[1].before == 70 && p[1].after == 45);
	assert_true(fabs(p[1].change - (45.0 - 70) / 70) < 1e-12);
	/* One change: the whole series on each side (after: five 70s and
	 * five 45s, median 57.5). */
	med[0] = 10;
	p[0].at = 5;
	changepoint_stretch_medians(med, 15, p, 1);
	assert_true(p[0].before == 100 && p[0].after == 57.5);
}

static void test_below_min_change(void **state)
{
	double level[12];
	struct cp_point p[4];
	struct cp_options o = CP_OPTIONS_DEFAULT;

	(void)state;
	/* A real 2% step with no noise: significant, but under 5%. */
	for (int i = 0; i < 12; i++)
		level[i] = i < 6 ? 100 : 98;
	make(12, level, 0.001, 0);
	assert_int_equal(changepoint_find(runs, 12, NULL, p, 4), 0);
	o.min_change = 0.01;
	assert_int_equal(changepoint_find(runs, 12, &o, p, 4), 1);
	assert_int_equal(p[0].at, 6);
}

static void test_too_few_runs(void **state)
{
	double level[3] = { 100, 10, 10 };
	struct cp_point p[4];

	(void)state;
	make(3, level, 0.01, 0);
	/* Two runs a side at least: three runs have no split to test. */
	assert_int_equal(changepoint_find(runs, 3, NULL, p, 4), 0);
	assert_int_equal(changepoint_find(runs, 0, NULL, p, 4), 0);
}

/* No change, but each run's level moves by up to 20% (the load of a
 * shared machine) while its samples sit within 2%: a test on samples
 * alone would call many splits significant; permuting whole runs keeps
 * the false positives near alpha (0.05), well under 10% of 200 series. */
static void test_false_positive_rate(void **state)
{
	double level[10];
	struct cp_point p[4];
	struct cp_options o = CP_OPTIONS_DEFAULT;
	int false_pos = 0;

	(void)state;
	o.min_change = 0; /* the test alone */
	for (int i = 0; i < 10; i++)
		level[i] = 100;
	for (int series = 0; series < 200; series++) {
		make(10, level, 0.02, 0.2);
		false_pos += changepoint_find(runs, 10, &o, p, 4) > 0;
	}
	print_message("false positives: %d of 200\n", false_pos);
	assert_true(false_pos <= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statistic),
		cmocka_unit_test(test_one_step),
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_stretch_medians),
		cmocka_unit_test(test_below_min_change),
		cmocka_unit_test(test_too_few_runs),
		cmocka_unit_test(test_series_ends),
		cmocka_unit_test(test_false_positive_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
