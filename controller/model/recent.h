/*
 * A new result against its recent history: the host's last runs with
 * the same settings on the same machine (archive_find_baselines), for
 * the live table's "slower than its last 5 runs". A row is slower (or
 * faster) than its history when, against every one of those runs (at
 * least MODEL_RECENT_MIN of them), a two-sided Mann-Whitney U test on
 * the per-iteration GFLOP/s says the difference is significant (p <
 * alpha) and the medians differ by at least min_change: the same test
 * as ctl compare's, and the same magnitude floor as ctl history's.
 */
#ifndef BF_RECENT_H
#define BF_RECENT_H

#include <stddef.h>

#include "dtype.h"

/* Runs of history kept per row, and the fewest that make a verdict. */
#define MODEL_RECENT_MAX 5
#define MODEL_RECENT_MIN 2

/* One row's samples in each of the host's recent runs, newest first. */
struct model_recent {
	char device[16];
	enum bf_dtype dtype;
	int n;
	int occurrence;
	int nruns;
	double *samples[MODEL_RECENT_MAX]; /* GFLOP/s per iteration; owned */
	int nsamples[MODEL_RECENT_MAX];
};

/* The note for a new result with samples x[0..n) against h: "slower
 * than its last 5 runs" (tone *slower = 1), "faster than its last 3
 * runs" (*slower = 0), or "" when neither holds for all of them (or h has
 * fewer than MODEL_RECENT_MIN runs, or n < 2). Into buf; returns buf. */
const char *model_recent_note(const struct model_recent *h, const double *x,
			      int n, double alpha, double min_change,
			      int *slower, char *buf, size_t len);

/* Frees the samples of h (not h). */
void model_recent_clear(struct model_recent *h);

#endif
