/* A new result against its recent history; see recent.h. */
#include "model/recent.h"

#include <stdio.h>
#include <stdlib.h>

#include "stats.h"

const char *model_recent_note(const struct model_recent *h, const double *x,
			      int n, double alpha, double min_change,
			      int *slower, char *buf, size_t len)
{
	int below = 0, above = 0;
	double med;

	if (len)
		buf[0] = '\0';
	*slower = 0;
	if (!h || h->nruns < MODEL_RECENT_MIN || n < 2)
		return buf;
	med = bf_stats_median(x, (size_t)n);
	for (int k = 0; k < h->nruns; k++) {
		struct bf_stats_utest u;
		double m = bf_stats_median(h->samples[k], (size_t)h->nsamples[k]);

		if (h->nsamples[k] < 2 ||
		    bf_stats_mann_whitney(x, (size_t)n, h->samples[k],
					  (size_t)h->nsamples[k],
					  BF_STATS_UTEST_AUTO, &u) != 0 ||
		    !(u.p < alpha))
			return buf;
		if (med < m * (1 - min_change))
			below++;
		else if (med > m * (1 + min_change))
			above++;
	}
	if (below == h->nruns || above == h->nruns) {
		*slower = below == h->nruns;
		/* fits: one of two words and nruns <= MODEL_RECENT_MAX: 27
		 * bytes, in model_row.recent_note's 48 (its one caller) */
		snprintf(buf, len, "%s than its last %d runs",
			 *slower ? "slower" : "faster", h->nruns);
	}
	return buf;
}

void model_recent_clear(struct model_recent *h)
{
	for (int k = 0; k < h->nruns; k++)
		free(h->samples[k]);
	h->nruns = 0;
}
