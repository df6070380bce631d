/*
 * A host's Δ% baseline, from the archive into the run model: what ctl run
 * does when a host record arrives and ctl show does for an archived run.
 */
#ifndef BF_BASELINE_H
#define BF_BASELINE_H

#include <stddef.h>

#include "archive/archive_read.h"
#include "model/model.h"

/*
 * Finds the baseline of host `name` (model host index) in results_dir,
 * as archive_find_baseline does: the newest complete run before run_id
 * of the same machine (fingerprint and rec's hostname and GPU UUIDs) and
 * the same settings (rec's options). Hands it to m: its passing GEMM
 * rows (model_set_baseline) and run id, the last MODEL_RECENT_MAX such
 * runs as the rows' recent history (model_set_recent: "slower than its
 * last 5 runs"), or, when there is none, why
 * (model_set_baseline_info: the tables' "Δ% n/a for NAME: ..." line).
 * Returns BF_OK with the run's id in found (found_len bytes) and *nrows
 * its rows; BF_ERR_NOT_FOUND, said in the model; or BF_ERR_IO with
 * detail saying why and the model untouched. Reads the archive (every
 * run.json, newest first): call it off the UI thread.
 */
enum bf_err baseline_load(struct model *m, int index, const char *results_dir,
			  const char *name, const struct bf_rec_host *rec,
			  const char *fingerprint, const char *run_id,
			  char *found, size_t found_len, int *nrows,
			  char *detail, size_t detail_len);

#endif
