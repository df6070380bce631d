/*
 * The comparison's samples for other tools: Go's benchmark format (for
 * benchstat) and one CSV line per sample. See compare.h.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/compare.h"

/* The host a cell belongs to: the row's when the table is by host, else
 * the column's (or its run's first host). */
static const char *cell_host(const struct compare_table *t,
			     const struct compare_row *r,
			     const struct compare_column *col)
{
	if (t->by_host)
		return r->host;
	if (col->host)
		return col->host->name;
	return col->run->nhosts ? col->run->hosts[0].name : "n/a";
}

/* benchfmt names and config values are one line without spaces in the
 * name: anything else becomes '_'. */
static void name_part(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ' ' || *s == '\t' || *s == '\n' || *s == '/' ||
			      *s == '=' || *s == '\r' ?
			      '_' :
			      *s,
		      out);
}

static void config_value(FILE *out, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
}

void compare_print_benchstat(FILE *out, const struct compare_table *t)
{
	fprintf(out, "pkg: benchfleet\n");
	fprintf(out, "Unit GFLOP/s Better=higher\n");
	fprintf(out, "Unit ns/op Better=lower\n");
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];

		fprintf(out, "\nrun: %s\n", col->run->run_id);
		fprintf(out, "column: %s\n", col->label);
		fprintf(out, "tag: ");
		config_value(out, col->run->tag ? col->run->tag : "");
		fputc('\n', out);
		if (!t->by_host) {
			fprintf(out, "host: ");
			config_value(out, col->host ? col->host->name :
					  col->run->nhosts ? col->run->hosts[0].name :
							     "n/a");
			fputc('\n', out);
		}
		for (int i = 0; i < t->nrows; i++) {
			const struct compare_row *r = &t->rows[i];
			const struct compare_cell *cell = &r->cells[c];

			if (!cell->present || cell->status != BF_STATUS_PASS)
				continue;
			for (size_t k = 0; k < cell->nsamples; k++) {
				double gf = cell->gflops[k];
				double ns;

				if (!(gf > 0))
					continue;
				/* the sample's time, back from 2 n^3 / ms / 1e6 */
				ns = 2.0 * r->n * (double)r->n * r->n / gf;
				fputs("BenchmarkGEMM/", out);
				if (t->by_host) {
					fputs("host=", out);
					name_part(out, r->host);
					fputc('/', out);
				}
				fputs("device=", out);
				name_part(out, r->device);
				fprintf(out, "/dtype=%s/n=%d 1 %.0f ns/op %.6g GFLOP/s\n",
					r->dtype, r->n, ns, gf);
			}
		}
	}
}

void compare_print_samples_csv(FILE *out, const struct compare_table *t)
{
	static const char *const header[] = {
		"column", "run_id", "host", "device", "dtype", "n", "sample",
		"ms", "gflops",
	};
	const size_t nheader = sizeof(header) / sizeof(header[0]);

	for (size_t i = 0; i < nheader; i++)
		compare_csv_field(out, header[i], i + 1 == nheader);
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &r->cells[c];
			const struct compare_column *col = &t->cols[c];

			if (!cell->present || cell->status != BF_STATUS_PASS)
				continue;
			for (size_t k = 0; k < cell->nsamples; k++) {
				char buf[64];
				double gf = cell->gflops[k];

				compare_csv_field(out, col->label, 0);
				compare_csv_field(out, col->run->run_id, 0);
				compare_csv_field(out, cell_host(t, r, col), 0);
				compare_csv_field(out, r->device, 0);
				compare_csv_field(out, r->dtype, 0);
				snprintf(buf, sizeof(buf), "%d", r->n);
				compare_csv_field(out, buf, 0);
				snprintf(buf, sizeof(buf), "%zu", k);
				compare_csv_field(out, buf, 0);
				snprintf(buf, sizeof(buf), "%.10g",
					 gf > 0 ? 2.0 * r->n * (double)r->n * r->n /
							  gf / 1e6 :
						  NAN);
				compare_csv_field(out, buf, 0);
				snprintf(buf, sizeof(buf), "%.10g", gf);
				compare_csv_field(out, buf, 1);
			}
		}
	}
}
