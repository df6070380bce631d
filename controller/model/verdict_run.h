/*
 * The verdict of an archived run (verdict.h over archive_run): every gemm
 * record of every host becomes a verdict input (its product and peer key
 * from the host record, its history from the host's earlier runs with
 * the same settings on the same machine, archive_find_baselines), judged
 * with the reference files (references_load). ctl show and ctl run print
 * it (view/verdict_text.c).
 */
#ifndef BF_VERDICT_RUN_H
#define BF_VERDICT_RUN_H

#include <stddef.h>

#include "archive/archive_read.h"
#include "bf_error.h"
#include "model/references.h"
#include "model/verdict.h"

/* How many earlier runs a row's history holds at most. */
#define VERDICT_RUN_HISTORY 20

struct verdict_run {
	struct verdict_input *in; /* n rows, in host then record order */
	struct verdict *out;
	int *host;                /* each row's host index in the run */
	int n;
	char **peer_keys;         /* each row's peer key (owned; NULL
				   * unknown), never cut */
	double *hist;             /* VERDICT_RUN_HISTORY per row */
	struct ref_set refs;
	int refs_missing;         /* the shipped file was not found */
};

/*
 * Judges run into vr (caller's, zeroed or freed). results_dir: the
 * archive the run's history comes from (NULL: no history); hosts_dir:
 * the inventory whose references/ is read (NULL: none). BF_OK, or
 * BF_ERR_PARSE / BF_ERR_IO for a bad reference file ("path: why" in
 * err). Strings of vr->in point into run and vr: free vr before run.
 * Blocks on file I/O.
 */
enum bf_err verdict_run_compute(const struct archive_run *run,
				const char *results_dir, const char *hosts_dir,
				struct verdict_run *vr, char *err,
				size_t err_len);

void verdict_run_free(struct verdict_run *vr);

/*
 * The live verdict (the live table, ui_curses.c): judges the GEMM rows
 * of snapshot s into out[0..s->nrows) (caller's), each row's product and
 * peers from its host's record (model_host's cpu_model and cores, gpus),
 * against the references refs (NULL: none). Only the comparisons a run
 * in progress has: peers so far and the references; no history (the
 * final verdict, verdict_run_compute, has it). Skipped rows get
 * VERDICT_NONE. out's strings are new, as verdict_compute's: free them
 * with verdict_clear. Allocates work space (bf_xmalloc: aborts on
 * out-of-memory); O(R log R) for R rows.
 */
struct model_snapshot;
void verdict_snapshot(const struct model_snapshot *s,
		      const struct ref_set *refs, struct verdict *out);

/* Counts of the devices (host x device) of snapshot s by their verdict
 * (verdict_device_pick over out[0..s->nrows), verdict_snapshot's):
 * counts has VERDICT_FAILED + 1 entries; *devices the devices with a
 * verdict; *slow_confident those whose verdict is a confident slow.
 * O(R log R). */
void verdict_snapshot_counts(const struct model_snapshot *s,
			     const struct verdict *out, int *counts,
			     int *devices, int *slow_confident);

/* The index in vr of the gemm row of host (its name in the run), device,
 * dtype, n and occurrence (1 the first of that device, dtype and n, as
 * verdict_input.occurrence); -1 when vr has none. O(vr->n) string
 * compares; reads vr only. */
int verdict_run_find(const struct verdict_run *vr, const char *host,
		     const char *device, const char *dtype, int n,
		     int occurrence);

#endif
