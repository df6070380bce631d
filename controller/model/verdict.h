/*
 * The verdict (issue 30; docs/verdict.md): is each device as fast as it
 * should be, per device, dtype and n: ok, slow, failed or unknown, with
 * every comparison that could be made and its figures:
 *
 *  - peers: the same product (a GPU's name and memory size; a CPU's model
 *    and core count: the caller's product key) at the same dtype, n and
 *    occurrence elsewhere in the run (other hosts, other devices of the
 *    same host). Slow below peer_fraction (0.90) of the other measured
 *    rows' median; needs min_peers (2) of them. The 0.90 is gpu-fryer's
 *    (github.com/huggingface/gpu-fryer: a GPU 10 % under its best peer is
 *    flagged), and DCGM#122's A100 at 6 of 19 TFLOP/s beside 7 peers.
 *  - reference: a published range of measurements of the product at that
 *    dtype and n (verdict_ref, from the reference files,
 *    model/references.h). Slow below low x reference_tolerance (0.90).
 *  - history: the host's earlier runs of the row with the same settings
 *    (as ctl history joins them), oldest first. Only the runs since their
 *    last change point (changepoint.h, defaults) count, so an old step
 *    is not held against today's. Slow when at least history_min_runs (2)
 *    remain and the value is below both history_fraction (0.95: the 5 %
 *    of changepoint's min_change) of their median and their median less
 *    history_sigmas (3, Shewhart's control limits) robust deviations
 *    (1.4826 x the median absolute deviation).
 *  - rated: gflops over the rated peak is shown; above the bound (the
 *    most the silicon can do) the row is failed (a wrong measurement).
 *
 * failed: the row failed (check, verification, agent) or is above its
 * bound. unknown: measured but no comparison could be made (missing
 * says which were missing and why). A row the agent marked unreliable
 * keeps its verdict with uncertain set (printed "slow?"), and never
 * counts as a confident slow (verdict_counts, --fail-on slow).
 * Skipped rows have no verdict (VERDICT_NONE).
 *
 * Pure: no I/O, no locks. Time O(R log R) for R rows plus the history
 * change points (about 1 ms for 10 runs); 512 hosts x 8 GPUs x 8 rows
 * run in well under a second (bench/verdict).
 */
#ifndef BF_VERDICT_H
#define BF_VERDICT_H

#include <stddef.h>

#include "schema.h"

enum verdict_kind {
	VERDICT_NONE = 0, /* skipped: nothing measured, no verdict */
	VERDICT_OK,
	VERDICT_UNKNOWN,
	VERDICT_SLOW,
	VERDICT_FAILED,
};

/* "ok", "unknown", "slow", "failed", "" (none); static. */
const char *verdict_kind_name(enum verdict_kind k);

/* The thresholds; VERDICT_THRESHOLDS_DEFAULT gives the defaults above.
 * A NaN or 0 field in an override means "inherit". */
struct verdict_thresholds {
	double peer_fraction;       /* 0.90 */
	int min_peers;              /* 2 */
	double reference_tolerance; /* 0.90 */
	double history_fraction;    /* 0.95 */
	double history_sigmas;      /* 3 */
	int history_min_runs;       /* 2 */
};

#define VERDICT_THRESHOLDS_DEFAULT { 0.90, 2, 0.90, 0.95, 3.0, 2 }

/* Thresholds for one product (NULL or "": every product) and dtype
 * (NULL or "": every dtype); the most specific override wins (product
 * and dtype, then product, then dtype), field by field over the
 * defaults. Strings are not owned. */
struct verdict_override {
	const char *product;
	const char *dtype;
	struct verdict_thresholds t; /* 0 / NaN fields inherit */
};

/* A published range for a product (as the agent names it:
 * cudaDeviceProp.name, or a CPU's product), dtype and n. GFLOP/s.
 * Strings are not owned. */
struct verdict_ref {
	const char *product;
	const char *dtype;
	int n;
	double low_gflops, high_gflops; /* low <= high; equal for one figure */
	int nsources;                   /* 1: single source */
	const char *label;              /* short name ("published GB10
					 * results", "team reference run
					 * 20260101-...") */
};

/* One row to judge. Strings are not owned. */
struct verdict_input {
	const char *host;
	const char *device;    /* "cuda:0", "cpu" */
	const char *product;   /* the product as the agent names it (matches
				* verdict_ref.product); NULL unknown */
	const char *peer_key;  /* product and size ("NVIDIA H100 80GB HBM3,
				* 80 GiB"; CPU model and cores); rows with
				* equal keys are peers; NULL: no peers */
	const char *dtype;
	int n;
	int occurrence;        /* 1 for the first (device, dtype, n) */
	enum bf_status status;
	int invalid;           /* the row contradicts itself (model's
				* "invalid: ..."): failed */
	const char *reason;    /* why failed or skipped; NULL */
	double gflops;         /* median; NaN not measured */
	double peak_gflops;    /* rated; NaN unknown */
	double bound_gflops;   /* the silicon's bound; NaN unknown */
	int reliable;          /* 1, 0 (uncertain), -1 unknown */
	const double *history; /* earlier runs' gflops, oldest first */
	int nhistory;
};

#define VERDICT_MAX_NAMED_PEERS 6

struct verdict {
	enum verdict_kind kind;
	int uncertain;          /* reliable 0: printed with "?" */
	double gflops;
	/* peers (npeers 0: none) */
	int npeers;
	double peer_median, peer_ratio; /* gflops / median; NaN */
	char peers[160];        /* "hb1 cuda:1, hb2 cuda:0, ... and 3 more" */
	/* reference (has_ref 0: none) */
	int has_ref;
	double ref_low, ref_high;       /* GFLOP/s */
	double ref_ratio_low, ref_ratio_high; /* gflops / high .. / low */
	int ref_sources;
	const char *ref_label;          /* the input's; not owned */
	/* history (nhistory 0: none used) */
	int nhistory;                   /* runs since the last change point */
	double hist_median, hist_sigma, hist_ratio;
	/* rated */
	double peak_ratio;              /* gflops / peak; NaN */
	/* Whole texts of any length (a skipped row's reason is quoted in
	 * full), new strings verdict_compute allocates, never NULL after it
	 * ("" none); verdict_clear frees them. */
	char *reasons;      /* each comparison's finding, "; "-joined: "0.52
			     * of its 7 peers (median 789 TFLOP/s)" */
	char *missing;      /* the comparisons that could not be made and
			     * why: "no peers (1 device of this product);
			     * no published reference for NVIDIA X bf16
			     * n=1024; no history" */
};

/* Judges rows in[0..n) into out[0..n) (caller's array), with thresholds
 * def (NULL: the defaults) and overrides ov[0..nov), references
 * refs[0..nrefs) (first match wins: put the user's files first).
 * out[i] holds pointers into refs (ref_label) and its own reasons and
 * missing (new strings: free them with verdict_clear before out is
 * computed again or freed; out's previous contents are overwritten, not
 * freed). Allocates work space (bf_xmalloc: aborts on out-of-memory). */
void verdict_compute(const struct verdict_input *in, int n,
		     const struct verdict_thresholds *def,
		     const struct verdict_override *ov, int nov,
		     const struct verdict_ref *refs, int nrefs,
		     struct verdict *out);

/* Frees the reasons and missing strings of v[0..n) (verdict_compute's)
 * and sets them NULL; v NULL or n <= 0 does nothing. */
void verdict_clear(struct verdict *v, int n);

/* The thresholds for product and dtype (def NULL: the defaults). */
struct verdict_thresholds verdict_thresholds_for(
	const struct verdict_thresholds *def, const struct verdict_override *ov,
	int nov, const char *product, const char *dtype);

/* Counts of out[0..n) per kind; confident slow rows (not uncertain)
 * into *slow_confident (may be NULL). counts has VERDICT_FAILED + 1
 * entries. */
void verdict_counts(const struct verdict *out, int n, int *counts,
		    int *slow_confident);

/* A device's verdict: the worst of its rows (failed, then slow, then ok,
 * then unknown); uncertain when that row is. Returns the index of the row
 * that decides (the lowest ratio among rows of that kind), -1 when every
 * row is VERDICT_NONE. idx[0..k) indexes out. */
int verdict_device_pick(const struct verdict *out, const int *idx, int k);

#endif
