/*
 * The plain results table. Columns are sized to their contents; missing
 * values print as n/a, never 0.
 */
#include "table.h"

#include <math.h>
#include <string.h>

void table_fmt(char *buf, size_t len, double v, int decimals)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.*f", decimals, v);
}

enum { C_HOST, C_DEVICE, C_DTYPE, C_N, C_MED, C_GF, C_PEAK, C_VS32, C_GPU,
       C_CHECKS, C_STATUS, NCOL };

static const char *const headers[NCOL] = {
	"host", "device", "dtype", "n", "median_ms", "GFLOP/s", "peak_MiB",
	"vs_fp32", "GPU_vs_CPU", "checks", "status",
};

/* Appends s to cell (size bytes, NUL-terminated), cut to fit. */
static void cell_append(char *cell, size_t size, const char *s)
{
	size_t len = strnlen(cell, size);

	if (len + 1 < size)
		snprintf(cell + len, size - len, "%s", s);
}

static void row_cells(const struct model_snapshot *m, const struct model_row *r,
		      char cells[NCOL][160])
{
	const struct model_checks *c = model_snapshot_checks(m, r->host, r->device);

	snprintf(cells[C_HOST], 160, "%.150s", m->hosts[r->host].name);
	snprintf(cells[C_DEVICE], 160, "%s", r->device);
	snprintf(cells[C_DTYPE], 160, "%s", r->dtype);
	snprintf(cells[C_N], 160, "%d", r->n);
	table_fmt(cells[C_MED], 160, r->median_ms, 3);
	table_fmt(cells[C_GF], 160, r->gflops, 1);
	table_fmt(cells[C_PEAK], 160, r->peak_mib, 0);
	table_fmt(cells[C_VS32], 64, r->vs_fp32, 2);
	if (!isnan(r->vs_fp32))
		cell_append(cells[C_VS32], 160, "x");
	table_fmt(cells[C_GPU], 160, r->gpu_vs_cpu, 1);
	if (!isnan(r->gpu_vs_cpu))
		cell_append(cells[C_GPU], 160, "x");
	if (c && c->passed + c->failed == 0)
		snprintf(cells[C_CHECKS], 160, "%d skipped", c->skipped);
	else if (c)
		snprintf(cells[C_CHECKS], 160, "%d ok/%d fail", c->passed, c->failed);
	else
		snprintf(cells[C_CHECKS], 160, "n/a");
	snprintf(cells[C_STATUS], 160, "%s",
		 r->status == BF_STATUS_PASS ? "pass" :
		 r->status == BF_STATUS_FAIL ? "FAIL" : "skipped");
}

void table_print_plain(FILE *out, struct model *model)
{
	struct model_snapshot snap = { 0 }, *m = &snap;
	char cells[NCOL][160];
	int width[NCOL];

	model_snapshot_update(model, &snap);
	for (int c = 0; c < NCOL; c++)
		width[c] = (int)strlen(headers[c]);
	for (int i = 0; i < m->nrows; i++) {
		row_cells(m, &m->rows[i], cells);
		for (int c = 0; c < NCOL; c++)
			if ((int)strlen(cells[c]) > width[c])
				width[c] = (int)strlen(cells[c]);
	}
	for (int c = 0; c < NCOL; c++)
		fprintf(out, c < C_N ? "%-*s " : "%*s ", width[c], headers[c]);
	fputc('\n', out);
	for (int i = 0; i < m->nrows; i++) {
		row_cells(m, &m->rows[i], cells);
		for (int c = 0; c < NCOL; c++)
			fprintf(out, c < C_N ? "%-*s " : "%*s ", width[c], cells[c]);
		if (m->rows[i].status != BF_STATUS_PASS && m->rows[i].reason[0])
			fprintf(out, " %s", m->rows[i].reason);
		fputc('\n', out);
	}
	if (m->nrows == 0)
		fprintf(out, "(no GEMM results)\n");
	for (int h = 0; h < m->nhosts; h++) {
		const struct model_host *mh = &m->hosts[h];

		if (mh->state != HOST_DONE)
			fprintf(out, "%s: %s%s%s\n", mh->name,
				host_state_name(mh->state),
				mh->reason[0] ? ": " : "", mh->reason);
	}
	model_snapshot_free(&snap);
	fflush(out);
}
