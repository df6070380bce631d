/*
 * The comparison for other tools: CSV (a line per cell), JSON, Go's
 * benchmark format (for benchstat) and one CSV line per sample. See
 * compare_view.h.
 */
#include "view/compare_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "xmalloc.h"

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
		const char *host = col->host ? col->host->name :
				   col->run->nhosts ? col->run->hosts[0].name :
						      "n/a";

		/* benchstat tables results by every configuration key but
		 * the -col ones (its .config), so a key that differs between
		 * columns other than run (and host, when columns are hosts)
		 * would give each column a table of its own and compare
		 * nothing: the column's label and tag go into a comment,
		 * which benchfmt ignores. */
		fprintf(out, "\n# %s: run %s, ", col->label, col->run->run_id);
		if (t->by_host) {
			fprintf(out, "hosts");
			for (int h = 0; h < col->run->nhosts; h++) {
				fputc(' ', out);
				config_value(out, col->run->hosts[h].name);
			}
		} else {
			fprintf(out, "host ");
			config_value(out, host);
		}
		if (col->run->tag && *col->run->tag) {
			fprintf(out, ", tag ");
			config_value(out, col->run->tag);
		} else {
			fprintf(out, ", no tag");
		}
		fprintf(out, "\nrun: %s\n", col->run->run_id);
		if (!t->by_host) {
			fprintf(out, "host: ");
			config_value(out, host);
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
				ns = bf_gemm_flops(r->n) / gf;
				fputs("BenchmarkGEMM/", out);
				if (t->by_host) {
					fputs("host=", out);
					name_part(out, r->host);
					fputc('/', out);
				}
				fputs("device=", out);
				name_part(out, r->device);
				fprintf(out, "/dtype=%s/n=%d 1 %.0f ns/op %.6g GFLOP/s\n",
					bf_dtype_name(r->dtype), r->n, ns, gf);
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
				compare_csv_field(out, bf_dtype_name(r->dtype), 0);
				snprintf(buf, sizeof(buf), "%d", r->n);
				compare_csv_field(out, buf, 0);
				snprintf(buf, sizeof(buf), "%zu", k);
				compare_csv_field(out, buf, 0);
				snprintf(buf, sizeof(buf), "%.10g",
					 gf > 0 ? bf_gemm_flops(r->n) / gf / 1e6
						: NAN);
				compare_csv_field(out, buf, 0);
				snprintf(buf, sizeof(buf), "%.10g", gf);
				compare_csv_field(out, buf, 1);
			}
		}
	}
}

/* --- CSV ------------------------------------------------------------- */

/* RFC 4180: quote a field holding a comma, quote or newline. */
static void csv_field(FILE *out, const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

static void csv_num(FILE *out, double v)
{
	char buf[48];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "n/a");
	else
		snprintf(buf, sizeof(buf), "%.10g", v);
	csv_field(out, buf, 0);
}

void compare_print_csv(FILE *out, const struct compare_table *t)
{
	static const char *const header[] = {
		"host", "device", "dtype", "n", "column", "run_id", "status",
		"samples", "median_gflops", "min_gflops", "max_gflops",
		"spread_pct", "median_ms", "vs_first", "ratio", "p",
		"significant", "occurrence", "fraction_of_peak", "reliable",
		"unreliable_reasons", "roofline_gflops", "fraction_of_roofline",
		"bound", "gflop_per_joule", "watts", "reference_gflops",
		"fraction_of_reference", "below_reference", "verdict",
		"verdict_reasons", "verdict_missing",
	};
	const size_t nheader = sizeof(header) / sizeof(header[0]);

	for (size_t i = 0; i < nheader; i++)
		csv_field(out, header[i], i + 1 == nheader);
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];

		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &r->cells[c];
			const struct compare_delta *d = &r->deltas[c];
			const struct compare_column *col = &t->cols[c];
			int pass = cell->present && cell->status == BF_STATUS_PASS;
			char buf[64];

			csv_field(out, t->by_host ? r->host :
				  col->host ? col->host->name :
				  col->run->nhosts ? col->run->hosts[0].name : "n/a", 0);
			csv_field(out, r->device, 0);
			csv_field(out, bf_dtype_name(r->dtype), 0);
			snprintf(buf, sizeof(buf), "%d", r->n);
			csv_field(out, buf, 0);
			csv_field(out, col->label, 0);
			csv_field(out, col->run->run_id, 0);
			csv_field(out, cell->present ? bf_schema_status_name(cell->status) :
						       "n/a", 0);
			snprintf(buf, sizeof(buf), "%zu", cell->nsamples);
			csv_field(out, buf, 0);
			csv_num(out, pass ? cell->median_gflops : NAN);
			csv_num(out, pass ? cell->min_gflops : NAN);
			csv_num(out, pass ? cell->max_gflops : NAN);
			csv_num(out, pass ? cell->spread_pct : NAN);
			csv_num(out, pass ? cell->median_ms : NAN);
			if (c == 0) {
				csv_field(out, "n/a", 0);
				csv_num(out, NAN);
				csv_num(out, NAN);
				csv_field(out, "n/a", 0);
			} else {
				compare_fmt_verdict(buf, sizeof(buf), d);
				csv_field(out, buf, 0);
				csv_num(out, d->ratio);
				csv_num(out, d->p);
				csv_field(out, !d->valid ? "n/a" :
					       d->significant ? "yes" : "no", 0);
			}
			snprintf(buf, sizeof(buf), "%d", r->occurrence);
			csv_field(out, buf, 0);
			csv_num(out, pass ? cell->fraction_of_peak : NAN);
			csv_field(out, !cell->present || cell->reliable < 0 ? "n/a" :
				       cell->reliable ? "yes" : "no", 0);
			csv_field(out, cell->unreliable[0] ? cell->unreliable : "n/a", 0);
			csv_num(out, cell->present ? cell->roofline_gflops : NAN);
			csv_num(out, pass ? cell->fraction_of_roofline : NAN);
			csv_field(out, cell->present && cell->bound[0] ? cell->bound :
								 "n/a", 0);
			csv_num(out, pass ? cell->gflop_per_joule : NAN);
			if (cell->present && !isnan(cell->watts))
				snprintf(buf, sizeof(buf), "%.10g", cell->watts);
			else
				snprintf(buf, sizeof(buf), "n/a");
			csv_field(out, buf, 0);
			csv_num(out, cell->present ? cell->reference_gflops : NAN);
			csv_num(out, pass ? cell->fraction_of_reference : NAN);
			csv_field(out, !pass || cell->below_reference < 0 ? "n/a" :
				       cell->below_reference ? "yes" : "no", 0);
			if (cell->verdict) {
				/* fits: a verdict kind name (7 bytes at most)
				 * and "?" in 64 */
				snprintf(buf, sizeof(buf), "%s%s",
					 verdict_kind_name(cell->verdict->kind),
					 cell->verdict->uncertain ? "?" : "");
				csv_field(out, buf, 0);
				csv_field(out, cell->verdict->reasons[0] ?
						       cell->verdict->reasons : "n/a", 0);
				csv_field(out, cell->verdict->missing[0] ?
						       cell->verdict->missing : "n/a", 1);
			} else {
				csv_field(out, "n/a", 0);
				csv_field(out, "n/a", 0);
				csv_field(out, "n/a", 1);
			}
		}
	}
	fflush(out);
}

/* --- JSON ------------------------------------------------------------ */

static void add_num_or_null(cJSON *o, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static void add_str_or_null(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void json_columns(cJSON *doc, const struct compare_table *t)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, CMP_KEY_COLUMNS);

	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct archive_run *run = col->run;
		cJSON *o = cJSON_CreateObject(), *hosts;

		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, CMP_KEY_LABEL, col->label);
		cJSON_AddStringToObject(o, CMP_KEY_RUN_ID, run->run_id);
		cJSON_AddStringToObject(o, CMP_KEY_PATH, run->dir);
		add_str_or_null(o, CMP_KEY_HOST, col->host ? col->host->name : NULL);
		hosts = cJSON_AddArrayToObject(o, CMP_KEY_HOSTS);
		for (int i = 0; i < run->nhosts; i++)
			if (!col->host || col->host == &run->hosts[i])
				cJSON_AddItemToArray(hosts, cJSON_CreateString(
								    run->hosts[i].name));
		add_str_or_null(o, CMP_KEY_STARTED_AT,
				strcmp(run->started_at, "n/a") ? run->started_at : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_STATUS, run->status);
		add_str_or_null(o, CMP_KEY_REASON, run->reason);
		add_str_or_null(o, CMP_KEY_TAG, run->tag);
	}
}

/* The cell's verdict (docs/verdict.md) as an object; JSON null when the
 * cell has none (skipped, or not computed). Comparisons not made are
 * null (peers 0). */
static void json_verdict(cJSON *o, const struct verdict *v)
{
	cJSON *j;

	if (!v) {
		cJSON_AddNullToObject(o, CMP_KEY_VERDICT);
		return;
	}
	j = cJSON_AddObjectToObject(o, CMP_KEY_VERDICT);
	cJSON_AddStringToObject(j, CMP_KEY_KIND, verdict_kind_name(v->kind));
	cJSON_AddBoolToObject(j, CMP_KEY_UNCERTAIN, v->uncertain);
	add_str_or_null(j, CMP_KEY_REASONS, v->reasons[0] ? v->reasons : NULL);
	add_str_or_null(j, CMP_KEY_MISSING, v->missing[0] ? v->missing : NULL);
	cJSON_AddNumberToObject(j, CMP_KEY_PEERS, v->npeers);
	add_num_or_null(j, CMP_KEY_PEER_MEDIAN_GFLOPS,
			v->npeers ? v->peer_median : NAN);
	add_num_or_null(j, CMP_KEY_PEER_RATIO, v->npeers ? v->peer_ratio : NAN);
	add_num_or_null(j, CMP_KEY_REFERENCE_LOW_GFLOPS,
			v->has_ref ? v->ref_low : NAN);
	add_num_or_null(j, CMP_KEY_REFERENCE_HIGH_GFLOPS,
			v->has_ref ? v->ref_high : NAN);
	if (v->has_ref)
		cJSON_AddNumberToObject(j, CMP_KEY_REFERENCE_SOURCES,
					v->ref_sources);
	else
		cJSON_AddNullToObject(j, CMP_KEY_REFERENCE_SOURCES);
	add_str_or_null(j, CMP_KEY_REFERENCE_LABEL,
			v->has_ref ? v->ref_label : NULL);
	cJSON_AddNumberToObject(j, CMP_KEY_HISTORY_RUNS, v->nhistory);
	add_num_or_null(j, CMP_KEY_HISTORY_MEDIAN_GFLOPS,
			v->nhistory ? v->hist_median : NAN);
	add_num_or_null(j, CMP_KEY_HISTORY_RATIO,
			v->nhistory ? v->hist_ratio : NAN);
}

static cJSON *json_cell(const struct compare_cell *cell,
			const struct compare_delta *d, int first)
{
	cJSON *o = cJSON_CreateObject(), *vs;
	int pass = cell->present && cell->status == BF_STATUS_PASS;
	char text[64];

	add_str_or_null(o, CMP_KEY_STATUS, cell->present ?
				   bf_schema_status_name(cell->status) : NULL);
	add_str_or_null(o, CMP_KEY_REASON, cell->reason[0] ? cell->reason : NULL);
	cJSON_AddNumberToObject(o, CMP_KEY_SAMPLES, (double)cell->nsamples);
	add_num_or_null(o, CMP_KEY_MEDIAN_GFLOPS, pass ? cell->median_gflops : NAN);
	add_num_or_null(o, CMP_KEY_MIN_GFLOPS, pass ? cell->min_gflops : NAN);
	add_num_or_null(o, CMP_KEY_MAX_GFLOPS, pass ? cell->max_gflops : NAN);
	add_num_or_null(o, CMP_KEY_SPREAD_PCT, pass ? cell->spread_pct : NAN);
	add_num_or_null(o, CMP_KEY_MEDIAN_MS, pass ? cell->median_ms : NAN);
	add_num_or_null(o, CMP_KEY_PEAK_GFLOPS, cell->present ? cell->peak_gflops : NAN);
	add_num_or_null(o, CMP_KEY_FRACTION_OF_PEAK, pass ? cell->fraction_of_peak : NAN);
	add_num_or_null(o, CMP_KEY_ROOFLINE_GFLOPS,
			cell->present ? cell->roofline_gflops : NAN);
	add_num_or_null(o, CMP_KEY_FRACTION_OF_ROOFLINE,
			pass ? cell->fraction_of_roofline : NAN);
	add_str_or_null(o, CMP_KEY_BOUND, cell->present && cell->bound[0] ?
						  cell->bound : NULL);
	add_num_or_null(o, CMP_KEY_GFLOP_PER_JOULE,
			pass ? cell->gflop_per_joule : NAN);
	add_num_or_null(o, CMP_KEY_WATTS, cell->present ? cell->watts : NAN);
	add_num_or_null(o, CMP_KEY_REFERENCE_GFLOPS,
			cell->present ? cell->reference_gflops : NAN);
	add_num_or_null(o, CMP_KEY_FRACTION_OF_REFERENCE,
			pass ? cell->fraction_of_reference : NAN);
	if (!pass || cell->below_reference < 0)
		cJSON_AddNullToObject(o, CMP_KEY_BELOW_REFERENCE);
	else
		cJSON_AddBoolToObject(o, CMP_KEY_BELOW_REFERENCE,
				      cell->below_reference);
	if (!cell->present || cell->reliable < 0)
		cJSON_AddNullToObject(o, CMP_KEY_RELIABLE);
	else
		cJSON_AddBoolToObject(o, CMP_KEY_RELIABLE, cell->reliable);
	{
		cJSON *reasons = cJSON_AddArrayToObject(o, CMP_KEY_UNRELIABLE_REASONS);
		char *copy = bf_xstrdup(cell->unreliable), *save = NULL;

		for (char *tok = strtok_r(copy, ";", &save); tok;
		     tok = strtok_r(NULL, ";", &save)) {
			while (*tok == ' ')
				tok++;
			if (*tok)
				cJSON_AddItemToArray(reasons, cJSON_CreateString(tok));
		}
		free(copy);
	}
	json_verdict(o, cell->verdict);
	if (first || !d->valid) {
		cJSON_AddNullToObject(o, CMP_KEY_VS_FIRST);
		return o;
	}
	vs = cJSON_AddObjectToObject(o, CMP_KEY_VS_FIRST);
	add_num_or_null(vs, CMP_KEY_RATIO, d->ratio);
	add_num_or_null(vs, CMP_KEY_P, d->p);
	cJSON_AddBoolToObject(vs, CMP_KEY_SIGNIFICANT, d->significant);
	cJSON_AddBoolToObject(vs, CMP_KEY_TOO_FEW, d->too_few);
	compare_fmt_verdict(text, sizeof(text), d);
	cJSON_AddStringToObject(vs, CMP_KEY_TEXT, text);
	return o;
}

cJSON *compare_to_json(const struct compare_table *t)
{
	cJSON *doc = cJSON_CreateObject(), *better, *rows, *prov, *bw;

	cJSON_AddNumberToObject(doc, CMP_KEY_ALPHA, t->alpha);
	cJSON_AddStringToObject(doc, CMP_KEY_TEST,
				"Mann-Whitney U, two-sided, per-iteration GFLOP/s");
	better = cJSON_AddObjectToObject(doc, CMP_KEY_BETTER);
	cJSON_AddStringToObject(better, CMP_KEY_MEDIAN_GFLOPS, "higher");
	cJSON_AddStringToObject(better, CMP_KEY_MEDIAN_MS, "lower");
	json_columns(doc, t);
	rows = cJSON_AddArrayToObject(doc, CMP_KEY_ROWS);
	for (int i = 0; i < t->nrows; i++) {
		const struct compare_row *r = &t->rows[i];
		cJSON *o = cJSON_CreateObject(), *cells;

		cJSON_AddItemToArray(rows, o);
		add_str_or_null(o, CMP_KEY_HOST, t->by_host ? r->host : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_DEVICE, r->device);
		cJSON_AddStringToObject(o, CMP_KEY_DTYPE, bf_dtype_name(r->dtype));
		cJSON_AddNumberToObject(o, CMP_KEY_N, r->n);
		cJSON_AddNumberToObject(o, CMP_KEY_OCCURRENCE, r->occurrence);
		cells = cJSON_AddArrayToObject(o, CMP_KEY_CELLS);
		for (int c = 0; c < t->ncols; c++)
			cJSON_AddItemToArray(cells, json_cell(&r->cells[c],
							      &r->deltas[c], c == 0));
	}
	bw = cJSON_AddArrayToObject(doc, CMP_KEY_BANDWIDTH);
	for (int i = 0; i < t->nbw; i++) {
		const struct compare_bw *b = &t->bw[i];
		cJSON *o = cJSON_CreateObject(), *vals, *vs;

		cJSON_AddItemToArray(bw, o);
		add_str_or_null(o, CMP_KEY_HOST, t->by_host ? b->host : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_DEVICE, b->device);
		cJSON_AddStringToObject(o, CMP_KEY_KIND, b->kind);
		vals = cJSON_AddArrayToObject(o, CMP_KEY_MEDIAN_GBPS);
		vs = cJSON_AddArrayToObject(o, CMP_KEY_VS_FIRST);
		for (int c = 0; c < t->ncols; c++) {
			double r = c > 0 && b->gbps[0] > 0 ? b->gbps[c] / b->gbps[0] : NAN;

			cJSON_AddItemToArray(vals, isnan(b->gbps[c]) ? cJSON_CreateNull() :
					     cJSON_CreateNumber(b->gbps[c]));
			cJSON_AddItemToArray(vs, isnan(r) ? cJSON_CreateNull() :
					     cJSON_CreateNumber(r));
		}
	}
	prov = cJSON_AddArrayToObject(doc, CMP_KEY_PROVENANCE);
	for (int i = 0; i < t->nprov; i++) {
		const struct compare_prov *p = &t->prov[i];
		cJSON *o = cJSON_CreateObject(), *vals;

		cJSON_AddItemToArray(prov, o);
		add_str_or_null(o, CMP_KEY_HOST, p->host[0] ? p->host : NULL);
		cJSON_AddStringToObject(o, CMP_KEY_KEY, p->key);
		vals = cJSON_AddArrayToObject(o, CMP_KEY_VALUES);
		for (int c = 0; c < t->ncols; c++)
			cJSON_AddItemToArray(vals, p->values[c] ?
						     cJSON_CreateString(p->values[c]) :
						     cJSON_CreateNull());
	}
	return doc;
}

void compare_csv_field(FILE *out, const char *s, int last)
{
	csv_field(out, s, last);
}
