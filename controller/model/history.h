/*
 * A host's performance over time: every archived run of one host, in
 * time order, cut into series, one per (device, dtype, n, occurrence)
 * and settings (the host record's options: runs whose settings differ
 * are never joined), each a list of points (a run's median GFLOP/s, its
 * spread and per-iteration samples), with the change points found in it
 * (changepoint.h) and, for each, the provenance that differs between the
 * runs either side of it (the rows ctl compare lists: driver, CUDA,
 * cuBLAS, OpenBLAS version/core/threads, environment, host key, GPU
 * UUIDs, ...), plus the rows' throttling. ctl history prints it
 * (view/history_text.c), ctl report draws it.
 */
#ifndef BF_HISTORY_H
#define BF_HISTORY_H

#include <stddef.h>

#include "archive/archive_read.h"
#include "bf_error.h"
#include "model/changepoint.h"

/* One run of a series. */
struct history_point {
	int run;                 /* index into history.runs */
	double median_gflops;    /* the record's gflops */
	double spread;           /* the record's (max - min) / median */
	double *samples;         /* per iteration, GFLOP/s (2 n^3 / ms); owned */
	int nsamples;
	int throttled;           /* the record's: 1, 0, -1 unknown */
	int reliable;            /* the record's: 1, 0, -1 unknown */
};

/* What differs across a change point. */
struct history_prov {
	char *key;               /* "openblas.threads", "env.LD_PRELOAD":
				  * owned, whole (compare_prov.key's) */
	char *before, *after;    /* owned; NULL: not known (n/a) */
};

struct history_change {
	struct cp_point cp;      /* at: index into the series' points */
	struct history_prov *prov;  /* owned; nprov entries */
	int nprov;
};

struct history_series {
	char device[16];
	enum bf_dtype dtype;     /* parsed from the records' */
	int n;
	int occurrence;
	int settings;            /* index into history.settings */
	struct history_point *points; /* oldest first; owned */
	int npoints;
	struct history_change *changes; /* owned; in time order */
	int nchanges;
};

struct history {
	char *host;
	struct archive_run **runs;    /* oldest first; owned */
	int nruns;
	/* Distinct settings, in order of first appearance: the host record
	 * options of the first run that had them (not owned: in runs). */
	const struct bf_rec_host **settings;
	int nsettings;
	struct history_series *series;
	int nseries;
	/* What was passed over, one line each, terminal-safe, for the
	 * command to name once: "skipped run ID: run.json unreadable
	 * (why)", "skipped run ID: HOST: records not read: why", "run ID:
	 * HOST: 2 unreadable lines skipped". NULL-terminated; owned. */
	char **skipped;
	int nskipped;
};

/* Which series to keep (NULL strings and 0: all). */
struct history_filter {
	const char *device;
	const char *dtype;
	int n;
};

/*
 * Loads host's history from results_dir: its last `last` runs (0: all),
 * oldest first (archive_runs_with_host), whose records for that host can
 * be read (what was passed over is listed in skipped); each passing,
 * measured gemm record of the host that passes
 * filter (may be NULL) becomes a point. Then finds the change points of
 * every series with o (NULL: CP_OPTIONS_DEFAULT) and their provenance.
 * On BF_OK *out is set; caller frees with history_free. Errors, with
 * "what: why" in detail: BF_ERR_NOT_FOUND (results_dir missing, or no run
 * has host), BF_ERR_IO. Blocks on file I/O.
 */
enum bf_err history_load(const char *results_dir, const char *host, int last,
			 const struct history_filter *filter,
			 const struct cp_options *o, struct history **out,
			 char *detail, size_t detail_len);

void history_free(struct history *h);

/* The first option in which settings k differs from the settings before
 * it (k - 1), for a series' heading ("iters", "sizes", ...); NULL for
 * k == 0. Static text. */
const char *history_settings_change(const struct history *h, int k);

/* Whether change c is a slowdown larger than pct percent (c's change
 * below -pct / 100). */
int history_is_regression(const struct history_change *c, double pct);

#endif
