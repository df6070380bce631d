/*
 * Hosts side by side: a run's GEMM results as one row per (device,
 * dtype, n) and one cell per host, with each host's speed against a
 * reference host. The live table's side-by-side view
 * (view/ui_sidebyside.c), the plain table's side-by-side section
 * (view/table.c: ctl run's last table, ctl show) read it. Pure: built
 * from a model snapshot, no I/O, no locks.
 *
 * Rows are matched by their device's name as the agent gives it, so a
 * GPU lines up with the same index on every host ("cuda:0" with
 * "cuda:0", then "cuda:1"): the CPU's rows first, then each GPU's in
 * index order, then any other device in the order first seen; within a
 * device, dtypes in the order first seen (the agent's fp32, fp16, bf16,
 * tf32), then n ascending, then the repeat of a size (n#2) after its
 * first.
 */
#ifndef BF_SIDEBYSIDE_H
#define BF_SIDEBYSIDE_H

#include "model/model.h"

/* One row: a (device, dtype, n, occurrence) and each host's result. */
struct sbs_row {
	char device[16];
	enum bf_dtype dtype;
	int n;
	int occurrence;   /* 1; 2 for a repeated size's second row, ... */
	const int *cell;  /* nhosts entries: the index of the host's row in
			   * the snapshot's rows, -1 when it has none (yet) */
};

struct sbs_table {
	int nhosts;       /* the snapshot's, in the command line's order */
	int ref;          /* the reference host (snapshot's ref_host, or 0
			   * when that is out of range) */
	struct sbs_row *rows;
	int nrows;
	int *cells;       /* nrows x nhosts, what rows[i].cell point into */
};

/* Builds t from snap (rows as described at the top; rows of a host index
 * outside snap's hosts are left out). t is overwritten; free it with
 * sbs_free. Allocation failure aborts (xmalloc). */
void sbs_build(const struct model_snapshot *snap, struct sbs_table *t);

/* Frees what sbs_build made and zeroes t; a zeroed t does nothing. */
void sbs_free(struct sbs_table *t);

/* The snapshot row of host in row r, or NULL when the host has none. */
const struct model_row *sbs_cell(const struct model_snapshot *snap,
				 const struct sbs_table *t, int r, int host);

/* Host's speed over the reference host's in row r: the median GFLOP/s
 * over the reference's (bf_speed_ratio, common/record.h: the one speed
 * ratio, passing results only); NaN when either has no passing result,
 * and for the reference itself. *unreliable (may be NULL) is set to 1
 * when either figure is one the agent called unreliable (reliable == 0),
 * else 0. */
double sbs_ratio(const struct model_snapshot *snap, const struct sbs_table *t,
		 int r, int host, int *unreliable);

/* The order of a device name in the rows: 0 for "cpu", 1 + K for
 * "cuda:K" (K a decimal index), -1 for anything else (ordered after
 * them, as first seen). */
long sbs_device_rank(const char *device);

#endif
