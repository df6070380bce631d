/* E-divisive change points of a series of runs; see changepoint.h. */
#include "model/changepoint.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "xmalloc.h"

/* A Fenwick (binary indexed) tree over the ranks 1..n of a segment's
 * samples: how many samples of one side sit at or below a rank, and
 * their sum. */
struct fenwick {
	int n;
	int *cnt;
	double *sum;
};

static void fw_init(struct fenwick *f, int n)
{
	f->n = n;
	f->cnt = bf_xcalloc((size_t)n + 1, sizeof(*f->cnt));
	f->sum = bf_xcalloc((size_t)n + 1, sizeof(*f->sum));
}

static void fw_clear(struct fenwick *f)
{
	memset(f->cnt, 0, ((size_t)f->n + 1) * sizeof(*f->cnt));
	memset(f->sum, 0, ((size_t)f->n + 1) * sizeof(*f->sum));
}

static void fw_free(struct fenwick *f)
{
	free(f->cnt);
	free(f->sum);
}

/* Adds value v at rank r (1-based). */
static void fw_add(struct fenwick *f, int r, double v)
{
	for (; r <= f->n; r += r & -r) {
		f->cnt[r]++;
		f->sum[r] += v;
	}
}

/* Count and sum of the samples at ranks 1..r. */
static void fw_prefix(const struct fenwick *f, int r, int *cnt, double *sum)
{
	*cnt = 0;
	*sum = 0;
	for (; r > 0; r -= r & -r) {
		*cnt += f->cnt[r];
		*sum += f->sum[r];
	}
}

/* The sum of |v - s| over a side's total samples s (summing to
 * total_sum), below of them (summing to below_sum) at or below v. */
static double side_dist(double v, int below, double below_sum, int total,
			double total_sum)
{
	return v * below - below_sum + (total_sum - below_sum) -
	       v * (total - below);
}

/* A segment's samples, ranked once, and the work space of its splits. */
struct segment {
	int nruns;            /* runs in the segment */
	const struct cp_run *runs; /* its first run */
	int nsamples;
	int *rank;            /* per sample, in run order: its rank 1..N */
	int *first;           /* per run: index of its first sample */
	double w_total;       /* sum |x_i - x_k| over all pairs */
	double sum_total;     /* sum of all samples */
	double *sorted_sum;   /* [r]: the sum of the samples of rank 1..r */
	struct fenwick a;     /* the samples before the split; those after
			       * are every sample but a's */
};

static int cmp_double_idx(const void *x, const void *y, void *arg)
{
	const double *v = arg;
	int i = *(const int *)x, j = *(const int *)y;

	if (v[i] < v[j])
		return -1;
	if (v[i] > v[j])
		return 1;
	return i < j ? -1 : i > j;
}

static void segment_init(struct segment *s, const struct cp_run *runs,
			 int nruns)
{
	int n = 0, k = 0, *idx;
	double *v;

	for (int r = 0; r < nruns; r++)
		n += runs[r].n;
	s->nruns = nruns;
	s->runs = runs;
	s->nsamples = n;
	s->rank = bf_xcalloc((size_t)n + 1, sizeof(*s->rank));
	s->first = bf_xcalloc((size_t)nruns + 1, sizeof(*s->first));
	v = bf_xcalloc((size_t)n + 1, sizeof(*v));
	idx = bf_xcalloc((size_t)n + 1, sizeof(*idx));
	for (int r = 0; r < nruns; r++) {
		s->first[r] = k;
		for (int i = 0; i < runs[r].n; i++)
			v[k++] = runs[r].x[i];
	}
	s->first[nruns] = k;
	for (int i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, (size_t)n, sizeof(*idx), cmp_double_idx, v);
	s->w_total = 0;
	s->sorted_sum = bf_xcalloc((size_t)n + 1, sizeof(*s->sorted_sum));
	for (int i = 0; i < n; i++) {
		/* Sorted ascending: v_(i) is above i values and below
		 * n - 1 - i, so it adds (2i - n + 1) v_(i) to the pairs. */
		s->rank[idx[i]] = i + 1;
		s->w_total += (2.0 * i - n + 1) * v[idx[i]];
		s->sorted_sum[i + 1] = s->sorted_sum[i] + v[idx[i]];
	}
	fw_init(&s->a, n);
	s->sum_total = s->sorted_sum[n];
	free(v);
	free(idx);
}

static void segment_free(struct segment *s)
{
	free(s->rank);
	free(s->first);
	free(s->sorted_sum);
	fw_free(&s->a);
}

/* Q of the split with n and m samples either side, from the within sums
 * wa and wb and the total w. */
static double split_q(double w, double wa, double wb, double n, double m)
{
	double between = w - wa - wb;
	double e = 2 * between / (n * m) - (n > 1 ? wa / (n * (n - 1) / 2) : 0) -
		   (m > 1 ? wb / (m * (m - 1) / 2) : 0);

	return n * m / (n + m) * e;
}

/*
 * The best split of the segment's runs taken in order[0..nruns): returns
 * its Q and sets *at to the number of runs before it; -INFINITY (and *at
 * -1) when no split has min_runs runs a side.
 */
static double best_split(struct segment *s, const int *order, int min_runs,
			 int *at)
{
	double wa = 0, wb = s->w_total, suma = 0, sumb = 0, best = -INFINITY;
	int na = 0, nb = s->nsamples;

	*at = -1;
	fw_clear(&s->a);
	/* b starts with every sample, whatever the order. */
	sumb = s->sum_total;
	for (int r = 0; r + 1 < s->nruns; r++) {
		const struct cp_run *run = &s->runs[order[r]];

		for (int i = 0; i < run->n; i++) {
			int rk = s->rank[s->first[order[r]] + i];
			double v = run->x[i], below_a_sum;
			int below_a;

			/* v moves from b to a. Ranks are distinct, so the
			 * samples at ranks 1..rk are rk, summing to
			 * sorted_sum[rk]; those in b (v taken out) are what
			 * a does not hold: one tree instead of two. */
			fw_prefix(&s->a, rk, &below_a, &below_a_sum);
			sumb -= v;
			nb--;
			wb -= side_dist(v, rk - 1 - below_a,
					s->sorted_sum[rk] - v - below_a_sum,
					nb, sumb);
			wa += side_dist(v, below_a, below_a_sum, na, suma);
			fw_add(&s->a, rk, v);
			suma += v;
			na++;
		}
		if (r + 1 >= min_runs && s->nruns - r - 1 >= min_runs) {
			double q = split_q(s->w_total, wa, wb, na, nb);

			if (q > best) {
				best = q;
				*at = r + 1;
			}
		}
	}
	return best;
}

/* xorshift64*: a small, fixed generator (Vigna, "An experimental
 * exploration of Marsaglia's xorshift generators, scrambled", 2016). */
static uint64_t next_u64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* The median of the run medians of runs[0..n). */
static double median_of_medians(const struct cp_run *runs, int n)
{
	double *m = bf_xcalloc((size_t)n + 1, sizeof(*m)), v;

	for (int i = 0; i < n; i++)
		m[i] = bf_stats_median(runs[i].x, (size_t)runs[i].n);
	v = bf_stats_median(m, (size_t)n);
	free(m);
	return v;
}

/* Tests the best split of runs[a, b); on a change point fills *pt (at
 * relative to runs) and returns 1. */
static int test_segment(const struct cp_run *runs, int a, int b,
			const struct cp_options *o, struct cp_point *pt)
{
	struct segment s;
	int k = b - a, at, found = 0, exceed = 0, done = 0;
	int *order = bf_xcalloc((size_t)k + 1, sizeof(*order));
	/* Enough shuffles at least as large to put p at or above alpha:
	 * then the test has failed whatever the rest give (Besag and
	 * Clifford's sequential stopping, Biometrika 78(2), 1991). */
	int stop = (int)ceil(o->alpha * (o->shuffles + 1)) - 1;
	uint64_t seed = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)a << 32) ^
			(uint64_t)b;
	double q;

	if (k < 2 * o->min_runs) {
		free(order);
		return 0;
	}
	segment_init(&s, runs + a, k);
	for (int i = 0; i < k; i++)
		order[i] = i;
	q = best_split(&s, order, o->min_runs, &at);
	if (at > 0) {
		for (done = 0; done < o->shuffles && exceed <= stop; done++) {
			int dummy;

			for (int i = k - 1; i > 0; i--) {
				int j = (int)(next_u64(&seed) % (uint64_t)(i + 1));
				int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
			if (best_split(&s, order, o->min_runs, &dummy) >= q)
				exceed++;
		}
		pt->p = (1.0 + exceed) / (1.0 + done);
		pt->q = q;
		pt->at = a + at;
		pt->before = median_of_medians(runs + a, at);
		pt->after = median_of_medians(runs + a + at, k - at);
		pt->change = pt->before > 0 ? (pt->after - pt->before) / pt->before :
					      NAN;
		found = exceed <= stop && pt->p < o->alpha &&
			fabs(pt->change) >= o->min_change;
	}
	segment_free(&s);
	free(order);
	return found;
}

static int cmp_point(const void *x, const void *y)
{
	const struct cp_point *a = x, *b = y;

	return (a->at > b->at) - (a->at < b->at);
}

int changepoint_find(const struct cp_run *runs, int nruns,
		     const struct cp_options *o, struct cp_point *out, int max)
{
	static const struct cp_options dflt = CP_OPTIONS_DEFAULT;
	/* Segments still to search: [lo[i], hi[i]). */
	int *lo = bf_xcalloc((size_t)nruns + 1, sizeof(*lo));
	int *hi = bf_xcalloc((size_t)nruns + 1, sizeof(*hi));
	struct cp_point *all = bf_xcalloc((size_t)nruns + 1, sizeof(*all));
	int nseg = 0, found = 0;

	if (!o)
		o = &dflt;
	lo[0] = 0;
	hi[0] = nruns;
	nseg = nruns > 0;
	while (nseg > 0) {
		struct cp_point pt;
		int a = lo[--nseg], b = hi[nseg];

		if (!test_segment(runs, a, b, o, &pt))
			continue;
		all[found++] = pt;
		lo[nseg] = a;
		hi[nseg++] = pt.at;
		lo[nseg] = pt.at;
		hi[nseg++] = b;
	}
	qsort(all, (size_t)found, sizeof(*all), cmp_point);
	for (int i = 0; i < found && i < max; i++)
		out[i] = all[i];
	free(lo);
	free(hi);
	free(all);
	return found;
}

double changepoint_q(const struct cp_run *runs, int nruns, int at)
{
	struct cp_run two[2];
	struct segment s;
	int order[2] = { 0, 1 }, n[2] = { 0, 0 }, k[2] = { 0, 0 }, best_at;
	double *x[2], q;

	if (at < 1 || at >= nruns)
		return NAN;
	/* The two sides as two runs: their one split is the one asked. */
	for (int i = 0; i < nruns; i++)
		n[i >= at] += runs[i].n;
	for (int side = 0; side < 2; side++)
		x[side] = bf_xcalloc((size_t)n[side] + 1, sizeof(*x[side]));
	for (int i = 0; i < nruns; i++)
		for (int j = 0; j < runs[i].n; j++)
			x[i >= at][k[i >= at]++] = runs[i].x[j];
	for (int side = 0; side < 2; side++) {
		two[side].x = x[side];
		two[side].n = n[side];
	}
	segment_init(&s, two, 2);
	q = best_split(&s, order, 1, &best_at);
	segment_free(&s);
	free(x[0]);
	free(x[1]);
	return q;
}

void changepoint_stretch_medians(const double *medians, int n,
				 struct cp_point *pts, int npts)
{
	for (int i = 0; i < npts; i++) {
		int a = i > 0 ? pts[i - 1].at : 0;
		int b = i + 1 < npts ? pts[i + 1].at : n;
		int at = pts[i].at;

		if (at <= a || at >= b || b > n)
			continue; /* not sorted or out of range: as found */
		pts[i].before = bf_stats_median(medians + a, (size_t)(at - a));
		pts[i].after = bf_stats_median(medians + at, (size_t)(b - at));
		pts[i].change = pts[i].before > 0 ?
			(pts[i].after - pts[i].before) / pts[i].before : NAN;
	}
}
