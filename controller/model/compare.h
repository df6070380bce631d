/*
 * The comparison table of `ctl compare`: archived runs (or hosts) as
 * columns, (device, dtype, n) as rows, each cell the median GFLOP/s with
 * its spread and the median ms, and every column after the first
 * compared with the first by a two-sided Mann-Whitney U test on the
 * per-iteration GFLOP/s, as Go's benchstat does. Under the table, the
 * provenance (library versions, threads, agent, host key) that differs
 * between the columns, so that a speed change can be traced to a
 * configuration change.
 *
 * Building is pure (archive_read structures in, table out) and the
 * printers only format it, so both are unit-tested without a run.
 */
#ifndef BF_COMPARE_H
#define BF_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "archive/archive_read.h"
#include "model/verdict_run.h"
#include "schema.h"

struct cJSON;

/* Significance level of the U test. */
#define COMPARE_ALPHA 0.05

/* Keys of `ctl compare --json` (docs: cmd_compare.c's usage). */
#define CMP_KEY_ALPHA "alpha"
#define CMP_KEY_TEST "test"
#define CMP_KEY_BETTER "better"
#define CMP_KEY_COLUMNS "columns"
#define CMP_KEY_LABEL "label"
#define CMP_KEY_RUN_ID "run_id"
#define CMP_KEY_PATH "path"
#define CMP_KEY_HOST "host"
#define CMP_KEY_HOSTS "hosts"
#define CMP_KEY_STARTED_AT "started_at"
#define CMP_KEY_STATUS "status"
#define CMP_KEY_REASON "reason"
#define CMP_KEY_TAG "tag"
#define CMP_KEY_ROWS "rows"
#define CMP_KEY_DEVICE "device"
#define CMP_KEY_DTYPE "dtype"
#define CMP_KEY_N "n"
#define CMP_KEY_CELLS "cells"
#define CMP_KEY_SAMPLES "samples"
#define CMP_KEY_MEDIAN_GFLOPS "median_gflops"
#define CMP_KEY_MIN_GFLOPS "min_gflops"
#define CMP_KEY_MAX_GFLOPS "max_gflops"
#define CMP_KEY_SPREAD_PCT "spread_pct"
#define CMP_KEY_MEDIAN_MS "median_ms"
#define CMP_KEY_VS_FIRST "vs_first"
#define CMP_KEY_RATIO "ratio"
#define CMP_KEY_P "p"
#define CMP_KEY_SIGNIFICANT "significant"
#define CMP_KEY_TOO_FEW "too_few_samples"
#define CMP_KEY_TEXT "text"
#define CMP_KEY_OCCURRENCE "occurrence"
#define CMP_KEY_FRACTION_OF_PEAK "fraction_of_peak"
#define CMP_KEY_PEAK_GFLOPS "peak_gflops"
#define CMP_KEY_GFLOP_PER_JOULE "gflop_per_joule"
#define CMP_KEY_WATTS "watts"
#define CMP_KEY_REFERENCE_GFLOPS "reference_gflops"
#define CMP_KEY_FRACTION_OF_REFERENCE "fraction_of_reference"
#define CMP_KEY_BELOW_REFERENCE "below_reference"
#define CMP_KEY_RELIABLE "reliable"
#define CMP_KEY_UNRELIABLE_REASONS "unreliable_reasons"
#define CMP_KEY_ROOFLINE_GFLOPS "roofline_gflops"
#define CMP_KEY_FRACTION_OF_ROOFLINE "fraction_of_roofline"
#define CMP_KEY_BOUND "bound"
#define CMP_KEY_BANDWIDTH "bandwidth"
#define CMP_KEY_KIND "kind"
#define CMP_KEY_MEDIAN_GBPS "median_gbps"
#define CMP_KEY_PROVENANCE "provenance"
#define CMP_KEY_KEY "key"
#define CMP_KEY_VALUES "values"
#define CMP_KEY_VERDICT "verdict"
#define CMP_KEY_UNCERTAIN "uncertain"
#define CMP_KEY_REASONS "reasons"
#define CMP_KEY_MISSING "missing"
#define CMP_KEY_PEERS "peers"
#define CMP_KEY_PEER_MEDIAN_GFLOPS "peer_median_gflops"
#define CMP_KEY_PEER_RATIO "peer_ratio"
#define CMP_KEY_REFERENCE_LOW_GFLOPS "reference_low_gflops"
#define CMP_KEY_REFERENCE_HIGH_GFLOPS "reference_high_gflops"
#define CMP_KEY_REFERENCE_SOURCES "reference_sources"
#define CMP_KEY_REFERENCE_LABEL "reference_label"
#define CMP_KEY_HISTORY_RUNS "history_runs"
#define CMP_KEY_HISTORY_MEDIAN_GFLOPS "history_median_gflops"
#define CMP_KEY_HISTORY_RATIO "history_ratio"

/* A column: one run, or one host of a run. */
struct compare_column {
	const struct archive_run *run;   /* not owned */
	const struct archive_host *host; /* in run; NULL: all of run's hosts */
	char label[4];                   /* "A", "B", ... (set by
					  * compare_build) */
};

/* The hosts col covers, its own or every host of its run in the run's
 * order, into out (at most cap; pointers into col->run, not owned).
 * Returns how many. */
int compare_column_hosts(const struct compare_column *col,
			 const struct archive_host **out, int cap);

/* One (row, column) result. Missing numbers are NaN. Its texts (reason,
 * reference, unreliable) are whole heap strings, never NULL ("" none),
 * owned by the table and freed by compare_free (issue 28: a reason was
 * cut at 159 bytes, unreliable reasons at 319, a reference at 199). */
struct compare_cell {
	int present;             /* the column has a gemm record for the row */
	enum bf_status status;
	char *reason;            /* why skipped or failed, whole; "" none */
	size_t nsamples;         /* per-iteration samples (samples_ms) */
	double *gflops;          /* each sample as GFLOP/s, 2 n^3 / ms / 1e6 */
	double median_gflops, min_gflops, max_gflops;
	double spread_pct;       /* the spread, in %: (max - min) / median of
				  * the samples' times (bf_stats_spread, the
				  * agent's record "spread"); NaN with fewer
				  * than 2 samples (one sample has none). Not
				  * benchstat's "±" (docs/compare.md) */
	double median_ms;
	double peak_gflops;      /* the record's; NaN unknown */
	double fraction_of_peak; /* median GFLOP/s / peak_gflops; NaN */
	int peak_derived;        /* 1: peak_method "derived", an upper
				  * estimate (compare_fmt_peak: ">12%") */
	double gflop_per_joule;  /* the record's energy (agent/hardware/energy.h); NaN */
	double watts;            /* its mean power over the window; NaN */
	double reference_gflops; /* the record's published reference; NaN */
	double fraction_of_reference; /* median GFLOP/s / reference; NaN */
	int below_reference;     /* fraction below 0.8: 1, 0; -1 unknown */
	char *reference;         /* the reference's source, whole; "" none */
	int reliable;            /* the agent's verdict: 1, 0, -1 unknown */
	char *unreliable;        /* its reasons, "; "-joined, whole (with
				  * MODEL_SHARED_REASON for a host measured
				  * at once with another of its machine) */
	double roofline_gflops;  /* the record's roofline; NaN: none */
	double fraction_of_roofline; /* median GFLOP/s / roofline_gflops */
	char bound[8];           /* "memory", "compute"; "" unknown (the
				  * schema's enum: the reader refuses any
				  * other value) */
	const struct verdict *verdict; /* the row's verdict in its own run
				  * (docs/verdict.md; compare_set_verdicts);
				  * NULL none: not computed, not measured
				  * (VERDICT_NONE) or no such row. Not owned */
};

/* Column k (k >= 1) against column 0. */
struct compare_delta {
	int valid;        /* both cells passed with a median: ratio is set */
	double ratio;     /* median GFLOP/s of k over that of column 0 */
	double p;         /* two-sided U-test p-value; NaN when not run */
	size_t n1, n2;    /* samples of column 0 and of column k */
	int too_few;      /* with n1 and n2 samples no p can be below alpha
			   * (bf_stats_utest_min_p), or a side has none */
	int significant;  /* !too_few && p < alpha */
};

/* A row's host and device are its key (rows are matched across columns
 * by them): whole heap strings, never NULL, owned by the table (issue
 * 28: host names, unbounded in an archive, were cut at 127 bytes and two
 * hosts named alike up to there were one row; "cuda:N" has no bound on
 * its digits in docs/schema.json). */
struct compare_row {
	char *host;       /* "" unless the table is by host */
	char *device;
	enum bf_dtype dtype; /* parsed from the records'; bf_dtype_name */
	int n;
	int occurrence;   /* 1; 2.. for a size repeated in the sweep
			   * (--sizes 128,128): each occurrence is its own
			   * row, matched across columns by its rank */
	struct compare_cell *cells;   /* ncols */
	struct compare_delta *deltas; /* ncols; [0] unused */
};

/* A provenance item whose values differ between columns. host and key
 * are whole heap strings, never NULL, owned by the table (issue 28: the
 * key "env.NAME" was cut at 40 bytes of NAME, "peak DEVICE DTYPE" at 15
 * bytes of DEVICE, so two rows could read as one). */
struct compare_prov {
	char *host;       /* "" unless the table is by host */
	char *key;        /* "openblas.threads", "cuda.driver_version",
			   * "env.NAME", "peak DEVICE DTYPE", ... */
	char **values;    /* ncols; NULL: not known (n/a) */
};

/* One bandwidth measurement (device, kind) across the columns: each
 * column's median GB/s (NaN: absent, skipped or failed there). */
struct compare_bw {
	char *host;       /* "" unless the table is by host; owned, whole */
	char *device;     /* owned, whole (a key, as compare_row's) */
	char kind[16];    /* one of the schema's enum (the reader refuses
			   * any other value): 12 bytes at most */
	double *gbps;     /* ncols */
};

struct compare_table {
	int ncols;
	struct compare_column *cols;  /* copied */
	int by_host;      /* some column has several hosts: rows carry the
			   * host name and match it across columns */
	double alpha;
	struct compare_row *rows;
	int nrows;
	struct compare_prov *prov;
	int nprov;
	struct compare_bw *bw;  /* measured in some column, first seen order */
	int nbw;
};

/* Builds the table for ncols columns (copied; labels assigned A, B, ...;
 * at most 26). Rows appear in the order first seen, column by column,
 * which is the agent's sweep order. Caller frees with compare_free. */
struct compare_table *compare_build(const struct compare_column *cols,
				    int ncols, double alpha);
void compare_free(struct compare_table *t);

/* Points every cell of t at its verdict (compare_cell.verdict): the row
 * of the cell's host (the row's when t is by host, else the column's or
 * its run's first) in vrs[i], the verdict of runs[i], for the run i the
 * column shows; nruns pairs. Cells whose run is not among runs, or whose
 * row has no verdict (skipped), keep NULL. vrs must outlive t's use. */
void compare_set_verdicts(struct compare_table *t,
			  const struct archive_run *const *runs,
			  const struct verdict_run *vrs, int nruns);

/* Whether delta d is a significant slowdown (U test, p < alpha) of more
 * than pct percent: its ratio below 1 - pct / 100. */
int compare_is_regression(const struct compare_delta *d, double pct);

/* Fills t->prov (compare_prov.c): every provenance item whose value
 * differs between the columns that have the host, per host (by_host):
 * hostname, host key, CPU, OpenBLAS version/core/threads/core_replaced,
 * CUDA driver/runtime/cuBLAS, GPUs and their UUIDs, the agent's source
 * hash, the options; each recorded environment variable ("env.NAME");
 * and the peaks and references: one row "peak DEVICE DTYPE" per device
 * and dtype whose rated peak or its method differs ("236.5 GFLOP/s
 * (probe)"; figures within 5 % are the same), one "reference DEVICE
 * DTYPE n=N" per row whose reference differs. compare_build calls it. */
void compare_add_provenance(struct compare_table *t);

#endif
