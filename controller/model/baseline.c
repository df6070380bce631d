/* A host's Δ% baseline into the model; see baseline.h. */
#include "model/baseline.h"

#include <stdio.h>
#include <stdlib.h>

#include "model/recent.h"
#include "xmalloc.h"

enum bf_err baseline_load(struct model *m, int index, const char *results_dir,
			  const char *name, const struct bf_rec_host *rec,
			  const char *fingerprint, const char *run_id,
			  char *found, size_t found_len, int *nrows,
			  char *detail, size_t detail_len)
{
	struct archive_baseline *runs[MODEL_RECENT_MAX], *b;
	struct model_baseline *mb;
	enum bf_err err;
	int count = 0;

	/* The newest is the Δ% baseline; all of them the recent history. */
	err = archive_find_baselines(results_dir, name, rec, fingerprint, run_id,
				     MODEL_RECENT_MAX, runs, &count, detail,
				     detail_len);
	if (err == BF_ERR_NOT_FOUND) /* the tables say why */
		model_set_baseline_info(m, index, NULL, detail);
	if (err != BF_OK)
		return err;
	b = runs[0];
	mb = bf_xcalloc((size_t)b->nrows + 1, sizeof(*mb));
	for (int i = 0; i < b->nrows; i++) {
		/* fits: both are char[16] (archive_read.h, model.h) */
		snprintf(mb[i].device, sizeof(mb[i].device), "%s",
			 b->rows[i].device);
		mb[i].dtype = b->rows[i].dtype;
		mb[i].n = b->rows[i].n;
		mb[i].occurrence = b->rows[i].occurrence;
		mb[i].gflops = b->rows[i].median_gflops;
	}
	model_set_baseline(m, index, mb, b->nrows);
	model_set_recent(m, index, (const struct archive_baseline *const *)runs,
			 count);
	model_set_baseline_info(m, index, b->run_id, NULL);
	model_set_baseline_wall(m, index, b->wall_ms / 1000.0);
	/* fits: run_id is char[64], as both callers' found (session_host.c,
	 * cmd_show.c) */
	snprintf(found, found_len, "%s", b->run_id);
	*nrows = b->nrows;
	free(mb);
	for (int k = 0; k < count; k++)
		archive_baseline_free(runs[k]);
	return BF_OK;
}
