/*
 * The HTML report (see report_html.h): its sections in order. Bars are
 * HTML (report_bars.c: one group per result row, one bar per column, a
 * whisker from the slowest to the fastest sample), rooflines and history
 * small SVG charts with their names in HTML under them, tables in boxes
 * that scroll on their own, so that the page reads on a phone as on a
 * desktop: nothing wider than the screen, no text below 12 px, no label
 * drawn over another. Colours follow the column (A, B, ...) everywhere,
 * so a reader matches bars to runs by colour and by the legend. Numbers
 * are printed beside every bar: the picture is a guide, the figures are
 * the result; cells read as in the text tables ("12.3?1", "skipped
 * [1]", with their notes).
 */
#include "view/report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "record.h"
#include "view/report_charts.h"
#include "xmalloc.h"

/* The page's cell texts and notes (report_cells_build), for the record
 * tables' state cells. Set while report_html_write runs. */
static const struct report_cells *page_cells;


/* A chart label's host part: "host: ", "" for none; a name over 100
 * bytes is cut to 100 ending in "..." (a label, never a key: the tables
 * and charts match rows by index). */
static void host_part(char buf[104], const char *host)
{
	char name[101];

	bf_text_fmt(name, sizeof(name), "%s", host);
	/* fits: name is 100 bytes at most, ": " 2 */
	snprintf(buf, 104, "%s%s", name, host[0] ? ": " : "");
}

/* "cpu fp32 n=1024" (and "host: " first when the table is by host);
 * len is 160 (the charts' labels). */
static void row_label(const struct compare_row *r, char *buf, size_t len)
{
	char hp[104];

	host_part(hp, r->host);
	/* A label: a device name of over 30 bytes ("cuda:" and digits, no
	 * bound in the schema) ends it in "..." */
	bf_text_fmt(buf, len, "%s%s %s n=%d", hp, r->device,
		    bf_dtype_name(r->dtype), r->n);
}

static void legend(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<p class=\"legend\">");
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];

		fprintf(out, "<span><i style=\"background:%s\"></i>%c ", report_color(c),
			'A' + c);
		report_html_escape(out, col->run->run_id);
		if (col->host) {
			fputs(" ", out);
			report_html_escape(out, col->host->name);
		}
		fprintf(out, "</span> ");
	}
	fprintf(out, "</p>\n");
}

/* The gemm record behind a cell, for its peak figures: the column's host
 * (or any host of its run, or the row's host when the table is by host)
 * with the row's device, dtype and n. NULL when none. */
static const struct bf_rec_gemm *cell_record(const struct compare_column *col,
					     const struct compare_row *row)
{
	const struct archive_run *run = col->run;

	for (int h = 0; h < run->nhosts; h++) {
		const struct archive_host *ah = &run->hosts[h];

		if (col->host && col->host != ah)
			continue;
		if (row->host[0] && strcmp(row->host, ah->name) != 0)
			continue;
		for (int i = 0; i < ah->nrecords; i++) {
			const struct bf_record *r = &ah->records[i];

			if (r->type == BF_REC_GEMM && r->u.gemm.n == row->n &&
			    r->u.gemm.device && r->u.gemm.dtype &&
			    strcmp(r->u.gemm.device, row->device) == 0 &&
			    strcmp(r->u.gemm.dtype, bf_dtype_name(row->dtype)) == 0)
				return &r->u.gemm;
		}
	}
	return NULL;
}

/* Whether row r of t has a measured GFLOP/s in some column. */
static int row_has_figure(const struct compare_table *t, int r)
{
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_cell *cell = &t->rows[r].cells[c];

		if (cell->present && cell->status == BF_STATUS_PASS &&
		    isfinite(cell->median_gflops))
			return 1;
	}
	return 0;
}

static void section_gflops(FILE *out, const struct compare_table *t,
			   char labels[][160], const struct report_cells *rc)
{
	size_t n = (size_t)t->nrows * (size_t)t->ncols;
	double *v = bf_xcalloc(n + 1, sizeof(double));
	double *lo = bf_xcalloc(n + 1, sizeof(double));
	double *hi = bf_xcalloc(n + 1, sizeof(double));
	const char **texts = bf_xcalloc(n + 1, sizeof(char *));
	char(*shown)[160] = bf_xcalloc((size_t)t->nrows + 1, sizeof(*shown));
	int nr = 0;

	/* Only the results with a figure in some column: a row skipped or
	 * failed everywhere is said once (report_html_write's left-out
	 * line) and in the side-by-side table. */
	for (int r = 0; r < t->nrows; r++) {
		if (!row_has_figure(t, r))
			continue;
		memcpy(shown[nr], labels[r], sizeof(shown[nr]));
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &t->rows[r].cells[c];
			size_t k = (size_t)nr * (size_t)t->ncols + (size_t)c;
			int ok = cell->present && cell->status == BF_STATUS_PASS;

			v[k] = ok ? cell->median_gflops : NAN;
			lo[k] = ok ? cell->min_gflops : NAN;
			hi[k] = ok ? cell->max_gflops : NAN;
			texts[k] = rc->text[(size_t)r * (size_t)t->ncols + (size_t)c];
		}
		nr++;
	}
	if (nr > 0) {
		fprintf(out, "<h2>GFLOP/s</h2>\n<p>Median of the timed iterations (2 n&sup3; "
			     "/ median time); the whisker runs from the slowest to the "
			     "fastest sample. Failed or skipped results have no bar; ? "
			     "and [K] point to the notes under Side by side.</p>\n");
		report_bars(out, "GFLOP/s by result and run", "GFLOP/s", shown,
			    nr, t->ncols, v, lo, hi, 0, 0, NULL, texts);
	}
	free(shown);
	free(texts);
	free(v);
	free(lo);
	free(hi);
}

/* The row of t with host, device, dtype and n, or -1. */
static int find_row(const struct compare_table *t, const char *host,
		    const char *device, enum bf_dtype dtype, int n)
{
	for (int r = 0; r < t->nrows; r++) {
		const struct compare_row *x = &t->rows[r];

		if (x->n == n && strcmp(x->host, host) == 0 &&
		    strcmp(x->device, device) == 0 && x->dtype == dtype)
			return r;
	}
	return -1;
}

static double passed_gflops(const struct compare_table *t, int r, int c)
{
	const struct compare_cell *cell;

	if (r < 0)
		return NAN;
	cell = &t->rows[r].cells[c];
	return cell->present && cell->status == BF_STATUS_PASS ?
		       cell->median_gflops :
		       NAN;
}

static void section_speedups(FILE *out, const struct compare_table *t)
{
	char(*labels)[160] = bf_xcalloc((size_t)t->nrows * 3 + 1, sizeof(*labels));
	double *v = bf_xcalloc(((size_t)t->nrows * 3 + 1) * (size_t)t->ncols,
			       sizeof(double));
	int nr = 0, nhost = 0;
	char hp[104];

	/* Column against column: each column's median GFLOP/s over column
	 * A's, on every row where both passed (the hosts of a run, or
	 * runs); A itself is 1. */
	for (int r = 0; r < t->nrows && t->ncols > 1; r++) {
		const struct compare_row *x = &t->rows[r];
		int any = 0;

		for (int c = 1; c < t->ncols; c++)
			any |= x->deltas[c].valid;
		if (!any)
			continue;
		host_part(hp, x->host);
		/* A label, as row_label's, with "vs A: " */
		bf_text_fmt(labels[nr], sizeof(labels[0]), "%svs A: %s %s n=%d",
			    hp, x->device, bf_dtype_name(x->dtype), x->n);
		for (int c = 0; c < t->ncols; c++)
			v[(size_t)nr * (size_t)t->ncols + (size_t)c] =
				c == 0 ? 1.0 :
				x->deltas[c].valid ? x->deltas[c].ratio : NAN;
		nr++;
		nhost++;
	}
	for (int r = 0; r < t->nrows; r++) {
		const struct compare_row *x = &t->rows[r];
		int base = -1;
		const char *kind = NULL;

		/* Which rows get one: bf_ratio_wanted's rule, as ctl's
		 * columns and the agent's summary (a row gets at most one
		 * kind); each column's cell then only if both passed. */
		for (int k = 0; k < BF_RATIO_KIND__COUNT && !kind; k++) {
			struct bf_ratio_base b;

			if (!bf_ratio_wanted((enum bf_ratio_kind)k, x->dtype,
					     BF_STATUS_PASS,
					     strncmp(x->device, "cuda", 4) == 0,
					     &b))
				continue;
			base = find_row(t, x->host, b.on_cpu ? "cpu" : x->device,
					b.dtype, x->n);
			kind = k == BF_RATIO_KIND_GPU_VS_CPU ? "GPU vs CPU" :
							       "vs fp32";
		}
		if (base < 0)
			continue;
		host_part(hp, x->host);
		/* A label, as row_label's, with a kind of 10 bytes at most */
		bf_text_fmt(labels[nr], sizeof(labels[0]), "%s%s %s %s n=%d",
			    hp, kind, x->device, bf_dtype_name(x->dtype), x->n);
		{
			int figure = 0;

			for (int c = 0; c < t->ncols; c++) {
				double q = bf_speed_ratio(passed_gflops(t, r, c),
							  passed_gflops(t, base, c));

				v[(size_t)nr * (size_t)t->ncols + (size_t)c] = q;
				figure |= isfinite(q);
			}
			/* A pair with no figure in any column is no bar. */
			nr += figure;
		}
	}
	if (nr > 0) {
		fprintf(out, "<h2>Speed-ups</h2>\n");
		fprintf(out, "<p>A result's median GFLOP/s over its base's "
			     "(&gt; 1: faster)%s GPU fp32 over the same host's CPU "
			     "fp32, and each dtype over fp32 on the same device."
			     "</p>\n", nhost ? ": first each column over column A "
						"(vs A; A itself is 1), then" : ":");
		report_bars(out, "speed-ups", "times", labels, nr, t->ncols, v, NULL,
			    NULL, 0, 1, NULL, NULL);
	}
	free(labels);
	free(v);
}

static void section_peak(FILE *out, const struct compare_table *t,
			 char labels[][160])
{
	size_t n = (size_t)t->nrows * (size_t)t->ncols;
	double *v = bf_xcalloc(n + 1, sizeof(double));
	const char **tips = bf_xcalloc(n + 1, sizeof(char *));
	int any = 0;

	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			const struct bf_rec_gemm *g = cell_record(&t->cols[c],
								  &t->rows[r]);
			size_t k = (size_t)r * (size_t)t->ncols + (size_t)c;

			v[k] = g && g->status == BF_STATUS_PASS ?
				       g->fraction_of_peak : NAN;
			tips[k] = g ? g->peak_basis : NULL;
			any |= isfinite(v[k]);
		}
	/* No figure: left out, said by the left-out line. */
	if (any) {
		fprintf(out, "<h2>Fraction of peak</h2>\n");
		fprintf(out, "<p>GFLOP/s over the device's rated peak for the "
			     "dtype (per core cluster, cores &times; FLOP/cycle "
			     "from the agent's FMA probe &times; clock on a CPU; "
			     "the published dense figure of the product on a GPU; "
			     "hover a bar for its derivation).</p>\n");
		report_bars(out, "fraction of peak", "fraction of peak", labels,
			    t->nrows, t->ncols, v, NULL, NULL, 1, 1.0, tips, NULL);
	}
	free(v);
	free(tips);
}

/* GFLOP per joule of each passing result (the record's energy over its
 * timed loop, agent/hardware/energy.h), the counter or the reason it is unknown
 * on hover. */
static void section_energy(FILE *out, const struct compare_table *t,
			   char labels[][160])
{
	size_t n = (size_t)t->nrows * (size_t)t->ncols;
	double *v = bf_xcalloc(n + 1, sizeof(double));
	const char **tips = bf_xcalloc(n + 1, sizeof(char *));
	int any = 0;

	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			const struct bf_rec_gemm *g = cell_record(&t->cols[c],
								  &t->rows[r]);
			size_t k = (size_t)r * (size_t)t->ncols + (size_t)c;

			v[k] = g && g->status == BF_STATUS_PASS ?
				       g->gflop_per_joule : NAN;
			tips[k] = !g ? NULL :
				  g->energy_reason ? g->energy_reason :
						     g->energy_source;
			any |= isfinite(v[k]);
		}
	/* No figure: left out, said by the left-out line. */
	if (any) {
		fprintf(out, "<h2>Energy</h2>\n");
		fprintf(out, "<p>GFLOP per joule over the timed loop: NVML's "
			     "board energy counter on a GPU, the RAPL package "
			     "counters (whole sockets) on a CPU; hover a bar for "
			     "the counter.</p>\n");
		report_bars(out, "energy", "GFLOP/J", labels, t->nrows, t->ncols,
			    v, NULL, NULL, 0, 0, tips, NULL);
	}
	free(v);
	free(tips);
}

/* Each result against the published measurement of its product, dtype
 * and n (compare_cell.fraction_of_reference, of the median shown), and
 * the results below BF_REFERENCE_HEALTHY_FRACTION of it. */
static void section_reference(FILE *out, const struct compare_table *t,
			      char labels[][160])
{
	size_t n = (size_t)t->nrows * (size_t)t->ncols;
	double *v = bf_xcalloc(n + 1, sizeof(double));
	const char **tips = bf_xcalloc(n + 1, sizeof(char *));
	int any = 0, below = 0;

	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cl = &t->rows[r].cells[c];
			size_t k = (size_t)r * (size_t)t->ncols + (size_t)c;

			v[k] = cl->present ? cl->fraction_of_reference : NAN;
			tips[k] = cl->reference[0] ? cl->reference : NULL;
			any |= isfinite(v[k]);
			below += isfinite(v[k]) && cl->below_reference == 1;
		}
	/* No figure: left out, said by the left-out line. */
	if (any) {
		fprintf(out, "<h2>Against published measurements</h2>\n");
		fprintf(out, "<p>Median GFLOP/s over what the same product "
			     "measured elsewhere at the same dtype and n (hover a "
			     "bar for the source); below %.0f%% it is <b>below "
			     "reference</b>: %d result%s.</p>\n",
			100 * BF_REFERENCE_HEALTHY_FRACTION, below,
			below == 1 ? "" : "s");
		report_bars(out, "fraction of reference", "fraction of reference",
			    labels, t->nrows, t->ncols, v, NULL, NULL, 1, 1.0, tips,
			    NULL);
	}
	free(v);
	free(tips);
}

/* --- the verdict and what is left out (issue 30) --------------------- */

/* Which charts hold a figure: any passing cell with a peak fraction,
 * an energy, a reference fraction; how many rows have no GFLOP/s
 * anywhere. */
struct report_figures {
	int peak, energy, reference, gflops_rows, empty_rows;
};

static void count_figures(const struct compare_table *t,
			  struct report_figures *f)
{
	memset(f, 0, sizeof(*f));
	for (int r = 0; r < t->nrows; r++) {
		if (row_has_figure(t, r))
			f->gflops_rows++;
		else
			f->empty_rows++;
		for (int c = 0; c < t->ncols; c++) {
			const struct bf_rec_gemm *g = cell_record(&t->cols[c],
								  &t->rows[r]);
			const struct compare_cell *cl = &t->rows[r].cells[c];

			if (g && g->status == BF_STATUS_PASS) {
				f->peak |= isfinite(g->fraction_of_peak);
				f->energy |= isfinite(g->gflop_per_joule);
			}
			f->reference |= cl->present &&
					isfinite(cl->fraction_of_reference);
		}
	}
}

/* One line naming every chart left out for holding no figure, and why;
 * nothing when none is. */
static void left_out_line(FILE *out, const struct report_figures *f)
{
	const char *sep = "";

	if (f->peak && f->energy && f->reference && f->gflops_rows &&
	    !f->empty_rows)
		return;
	fprintf(out, "<p class=\"leftout\">Left out, holding no figure: ");
	if (!f->gflops_rows) {
		fprintf(out, "%sGFLOP/s (no result was measured)", sep);
		sep = "; ";
	} else if (f->empty_rows) {
		fprintf(out, "%sthe GFLOP/s bars of %d result%s skipped or failed "
			     "in every column (why: the side-by-side table and "
			     "its notes)", sep, f->empty_rows,
			f->empty_rows == 1 ? "" : "s");
		sep = "; ";
	}
	if (!f->peak) {
		fprintf(out, "%sFraction of peak (no result carries a rated "
			     "peak: an older agent, or devices the peak table "
			     "does not know)", sep);
		sep = "; ";
	}
	if (!f->energy) {
		fprintf(out, "%sEnergy (no result carries its energy: no NVML "
			     "energy counter, RAPL not readable, or an older "
			     "agent)", sep);
		sep = "; ";
	}
	if (!f->reference)
		fprintf(out, "%sAgainst published measurements (no result has "
			     "one of the same product, dtype and n: the "
			     "verdict's references are above)", sep);
	fprintf(out, ".</p>\n");
}

/* The device's verdict among the cells v[0..n) (pointers into a
 * verdict_run): as verdict_device_pick, worst first. */
static const struct verdict *pick_device(const struct verdict *const *v, int n)
{
	static const int rank[VERDICT_FAILED + 1] = {
		[VERDICT_NONE] = 0, [VERDICT_UNKNOWN] = 1, [VERDICT_OK] = 2,
		[VERDICT_SLOW] = 3, [VERDICT_FAILED] = 4,
	};
	const struct verdict *best = NULL;

	for (int i = 0; i < n; i++)
		if (v[i] && (!best || rank[v[i]->kind] > rank[best->kind]))
			best = v[i];
	return best;
}

/* A card per column's host and device: its verdict (the worst of its
 * rows, as ctl show's line), the deciding row's figure and reasons, or
 * what was missing; first on the page. */
static void section_verdict(FILE *out, const struct compare_table *t)
{
	const struct verdict **v = bf_xcalloc((size_t)t->nrows + 1, sizeof(*v));
	int cards = 0;

	fprintf(out, "<h2 id=\"verdict\">Verdict</h2>\n<p>Each device against "
		     "its peers in the run, the published references and its "
		     "own history (docs/verdict.md); the worst of its results "
		     "decides.</p>\n<div class=\"cards\">\n");
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];

		for (int r = 0; r < t->nrows; r++) {
			const struct compare_row *row = &t->rows[r];
			const char *host = row->host[0] ? row->host :
					   col->host ? col->host->name :
					   col->run->nhosts ? col->run->hosts[0].name :
							      "?";
			const struct verdict *d;
			const struct compare_row *at = NULL;
			int n = 0, seen = 0;
			char fig[48];

			/* Once per (host, device): at its first row. */
			for (int q = 0; q < r && !seen; q++)
				seen = strcmp(t->rows[q].device, row->device) == 0 &&
				       strcmp(t->rows[q].host, row->host) == 0;
			if (seen)
				continue;
			for (int q = r; q < t->nrows; q++)
				if (strcmp(t->rows[q].device, row->device) == 0 &&
				    strcmp(t->rows[q].host, row->host) == 0)
					v[n++] = t->rows[q].cells[c].verdict;
			d = pick_device(v, n);
			if (!d)
				continue;
			for (int q = r; q < t->nrows && !at; q++)
				if (t->rows[q].cells[c].verdict == d)
					at = &t->rows[q];
			report_fmt_value(fig, sizeof(fig), d->gflops, 0);
			fprintf(out, "<div class=\"card v-%s\"><strong>",
				verdict_kind_name(d->kind));
			if (t->ncols > 1)
				fprintf(out, "%c ", 'A' + c);
			report_html_escape(out, host);
			fputc(' ', out);
			report_html_escape(out, row->device);
			fprintf(out, " %s%s</strong> ",
				d->kind == VERDICT_SLOW ? "SLOW" :
				d->kind == VERDICT_FAILED ? "FAILED" :
				verdict_kind_name(d->kind), d->uncertain ? "?" : "");
			if (at) {
				fprintf(out, "%s n=%d", bf_dtype_name(at->dtype),
					at->n);
				if (isfinite(d->gflops))
					fprintf(out, ", %s GFLOP/s", fig);
			}
			if (d->reasons[0]) {
				fputs("<br>", out);
				report_html_escape(out, d->reasons);
			}
			if (d->missing[0] && d->kind == VERDICT_UNKNOWN) {
				fputs("<br><span class=\"missing\">", out);
				report_html_escape(out, d->missing);
				fputs("</span>", out);
			}
			fputs("</div>\n", out);
			cards++;
		}
	}
	if (!cards)
		fprintf(out, "<p>No device was measured.</p>\n");
	fprintf(out, "</div>\n");
	free(v);
}

static void section_roofline(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<h2>Roofline</h2>\n<p>Each GEMM placed against its "
		     "device's roofline (Williams, Waterman and Patterson 2009), "
		     "both axes logarithmic: x the arithmetic intensity, 2 "
		     "n&sup3; FLOP over the operand bytes (A and B read once, C "
		     "written once); y GFLOP/s. The sloped roof is the measured "
		     "memory bandwidth times the intensity, the flat one the "
		     "theoretical peak of the dtype; a point under the sloped "
		     "part is memory-bound. One chart per kind of device, every "
		     "host's points and roofs in its column's colour.</p>\n");
	report_roofline_kinds(out, t);
}

/* An entry's state as the text tables write it: "pass", "skipped [1]"
 * (the page's note numbers). */
static void status_cell(FILE *out, enum bf_status st, const char *reason)
{
	char text[64];

	report_status_text(page_cells, st, reason, text, sizeof(text));
	fputs("<td>", out);
	report_html_escape(out, text);
	fputs("</td>", out);
}

/* Marks the note of a skipped or failed entry's reason in used. */
static void note_used(unsigned char *used, enum bf_status st,
		      const char *reason)
{
	for (int k = 0; st != BF_STATUS_PASS && reason && *reason &&
			k < page_cells->reasons.n; k++)
		if (strcmp(page_cells->reasons.text[k], reason) == 0)
			used[k] = 1;
}

/* A row's cells after the column letter and host: device on. */
typedef void (*record_cells_fn)(FILE *out, const struct bf_record *r);

/*
 * A table of every record of `type` in the hosts of t's columns (column,
 * host, then record order): `head` (the <table> and its header row)
 * before the first, then a <tr class="row_class"> per record with the
 * column letter, the host name, and cells() for the rest. Returns how
 * many rows; no record writes nothing.
 */
static int record_table(FILE *out, const struct compare_table *t,
			enum bf_record_type type, const char *row_class,
			const char *head, record_cells_fn cells)
{
	unsigned char *used = bf_xcalloc((size_t)page_cells->reasons.n + 1, 1);
	int rows = 0;

	for (int c = 0; c < t->ncols; c++) {
		const struct archive_host *hosts[256];
		int nh = compare_column_hosts(&t->cols[c], hosts, 256);

		for (int h = 0; h < nh; h++)
			for (int i = 0; i < hosts[h]->nrecords; i++) {
				const struct bf_record *r = &hosts[h]->records[i];

				if (r->type != type)
					continue;
				note_used(used, type == BF_REC_BANDWIDTH ?
						  r->u.bandwidth.status :
						  r->u.batching.status,
					  type == BF_REC_BANDWIDTH ?
						  r->u.bandwidth.reason :
						  r->u.batching.reason);
				if (!rows++)
					fputs(head, out);
				fprintf(out, "<tr class=\"%s\"><td>%c</td><td>",
					row_class, 'A' + c);
				report_html_escape(out, hosts[h]->name);
				fputs("</td>", out);
				cells(out, r);
				fputs("</tr>\n", out);
			}
	}
	if (rows) {
		fputs("</table></div>\n", out);
		report_notes_list(out, page_cells, 0, used);
	}
	free(used);
	return rows;
}

/* <td>text</td>, escaped. */
static void text_cell(FILE *out, const char *text)
{
	fputs("<td>", out);
	report_html_escape(out, text);
	fputs("</td>", out);
}

static void bandwidth_cells(FILE *out, const struct bf_record *r)
{
	const struct bf_rec_bandwidth *b = &r->u.bandwidth;
	char v[32];

	text_cell(out, b->device);
	text_cell(out, b->kind);
	report_fmt_value(v, sizeof(v), b->median_gbps, 0);
	fprintf(out, "<td>%s</td>", v);
	report_fmt_value(v, sizeof(v), b->measured ? b->array_bytes / 1048576.0 : NAN,
		  0);
	fprintf(out, "<td>%s</td>", v);
	status_cell(out, b->status, b->reason);
}

static void section_bandwidth(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<h2>Bandwidth</h2>\n");
	if (!record_table(out, t, BF_REC_BANDWIDTH, "bwrow",
			  "<p>Median GB/s (1e9 bytes/s) of the timed passes; "
			  "bytes counted as STREAM counts them.</p>\n"
			  "<div class=\"scroll\"><table><tr><th></th><th>host</th><th>device</th>"
			  "<th>kind</th><th>GB/s</th><th>MiB per array</th>"
			  "<th>status</th></tr>\n",
			  bandwidth_cells))
		fprintf(out, "<p>No bandwidth records (runs with --no-bandwidth, "
			     "or of an older agent).</p>\n");
}

/* The batching case as the text tables give it (ui_workload_lines): the
 * rows' one-row calls together beside the one batch call, the speed-up
 * of the one over the other, then each per row; in microseconds. */
static void batching_cells(FILE *out, const struct bf_record *r)
{
	const struct bf_rec_batching *b = &r->u.batching;
	double rows = b->rows > 0 ? b->rows : NAN;
	const double us[] = { rows * b->single_ms * 1000, b->batch_ms * 1000,
			      NAN, b->single_ms * 1000,
			      b->batch_ms * 1000 / rows };

	text_cell(out, b->device);
	text_cell(out, b->dtype);
	if (b->rows > 0)
		fprintf(out, "<td>%d</td>", b->rows);
	else
		fprintf(out, "<td>n/a</td>");
	for (int i = 0; i < 5; i++) {
		if (i == 2 && !isnan(b->speedup))
			fprintf(out, "<td>%.2fx</td>", b->speedup);
		else if (!b->measured || isnan(us[i]))
			fprintf(out, "<td>n/a</td>");
		else
			fprintf(out, "<td>%.3g</td>", us[i]);
	}
	status_cell(out, b->status, b->reason);
}

static void section_batching(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<h2>Batching</h2>\n");
	if (!record_table(out, t, BF_REC_BATCHING, "batchrow",
			  "<p>The seed's batching case: rows scored by one-row "
			  "calls or by one batch through a 30-16-relu-1 model; "
			  "the time of all the one-row calls beside the one "
			  "batch call (medians, in \xc2\xb5s), the speed-up of "
			  "the batch, and each per row.</p>\n<div class=\"scroll\"><table><tr><th></th>"
			  "<th>host</th><th>device</th><th>dtype</th><th>rows</th>"
			  "<th>one-row calls \xc2\xb5s</th><th>batch \xc2\xb5s</th>"
			  "<th>speed-up</th><th>\xc2\xb5s/row call</th>"
			  "<th>\xc2\xb5s/row batch</th><th>status</th></tr>\n",
			  batching_cells))
		fprintf(out, "<p>No batching records (runs with --no-batching, "
			     "or of an older agent).</p>\n");
}

static void section_runs(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<h2>Runs</h2>\n<div class=\"scroll\"><table><tr><th></th><th>run</th><th>started</th>"
		     "<th>tag</th><th>host</th><th>status</th><th>machine</th></tr>\n");
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct archive_host *ah = col->host ? col->host :
				col->run->nhosts ? &col->run->hosts[0] : NULL;
		const struct bf_rec_host *hr = ah ? ah->host_record : NULL;

		fprintf(out, "<tr><td><i style=\"background:%s\"></i>%c</td><td>",
			report_color(c), 'A' + c);
		report_html_escape(out, col->run->run_id);
		fputs("</td><td>", out);
		report_html_escape(out, col->run->started_at);
		fputs("</td><td>", out);
		report_html_escape(out, col->run->tag ? col->run->tag : "");
		fputs("</td><td>", out);
		if (col->host)
			report_html_escape(out, col->host->name);
		else
			for (int h = 0; h < col->run->nhosts; h++) {
				report_html_escape(out, col->run->hosts[h].name);
				fputs(h + 1 < col->run->nhosts ? ", " : "", out);
			}
		fputs("</td><td>", out);
		report_html_escape(out, col->host ? col->host->status : col->run->status);
		fputs("</td><td>", out);
		if (hr) {
			report_html_escape(out, hr->hostname);
			fputs(" &middot; ", out);
			report_html_escape(out, hr->cpu_model);
			for (int g = 0; g < hr->ngpus; g++) {
				fputs(" &middot; ", out);
				report_html_escape(out, hr->gpus[g].name);
			}
			if (hr->cuda_driver_version) {
				fputs(" &middot; driver ", out);
				report_html_escape(out, hr->cuda_driver_version);
			}
			if (hr->openblas_version) {
				fputs(" &middot; OpenBLAS ", out);
				report_html_escape(out, hr->openblas_version);
			}
		}
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "</table></div>\n");
}

static void section_provenance(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<h2>Provenance</h2>\n");
	if (t->nprov == 0) {
		fprintf(out, "<p>Libraries, drivers, threads, agent and settings "
			     "are the same in every column.</p>\n");
		return;
	}
	fprintf(out, "<p>What differs between the columns: a change of speed "
		     "may come from here.</p>\n<div class=\"scroll\"><table><tr><th>what</th>");
	for (int c = 0; c < t->ncols; c++)
		fprintf(out, "<th>%c</th>", 'A' + c);
	fprintf(out, "</tr>\n");
	for (int i = 0; i < t->nprov; i++) {
		const struct compare_prov *p = &t->prov[i];

		fputs("<tr><td>", out);
		if (p->host[0]) {
			report_html_escape(out, p->host);
			fputs(": ", out);
		}
		report_html_escape(out, p->key);
		fputs("</td>", out);
		for (int c = 0; c < t->ncols; c++) {
			fputs("<td>", out);
			report_html_escape(out, p->values[c] ? p->values[c] : "n/a");
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fprintf(out, "</table></div>\n");
}

/* Readable on a phone: the viewport meta tag, nothing wider than the
 * screen (tables scroll in their own box, charts shrink to the width but
 * no further than their text stays at 12 px: their viewBox is 380 units,
 * narrower than a 420 px screen), no text below 12 px. */
static const char style[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:24px;color:#222;max-width:1040px;font-size:14px}"
	"@media (max-width:600px){body{margin:8px}}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:"
	"1px solid #ddd}h3{font-size:15px}"
	"p,li{overflow-wrap:anywhere}"
	".scroll{overflow-x:auto;max-width:100%}"
	"table{border-collapse:collapse;font-size:13px}"
	"td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}"
	"td.num{text-align:right;white-space:nowrap}"
	"i{display:inline-block;width:11px;height:11px;margin-right:4px}"
	".legend span,.key span{margin-right:14px;font-size:13px;"
	"white-space:nowrap}"
	".notes{font-size:13px;padding-left:20px}"
	".bars{margin:8px 0}.bars figcaption{font-size:13px;color:#555}"
	".bars .glabel{font-size:13px;margin:8px 0 2px}"
	".bars .bar{display:flex;align-items:center;font-size:12px;"
	"line-height:15px}"
	".bars .k{flex:0 0 auto;width:14px}"
	".bars .track{position:relative;flex:1 1 auto;min-width:40px;"
	"height:12px}"
	".bars .fill{position:absolute;left:0;top:0;height:12px;min-width:1px}"
	".bars .wh{position:absolute;top:2px;height:8px;box-sizing:border-box;"
	"border-left:1px solid #222;border-right:1px solid #222}"
	".bars .wh::after{content:'';position:absolute;left:0;right:0;top:3px;"
	"border-top:1.5px solid #222}"
	".bars .v{flex:0 0 auto;margin-left:6px;min-width:8em;white-space:nowrap}"
	".roof{display:inline-block;vertical-align:top;max-width:100%;"
	"margin:0 16px 8px 0}"
	".chart{display:block;margin:8px 0;max-width:100%;height:auto}"
	".key p{margin:4px 0}.key ul,.key ol{font-size:13px;padding-left:20px;"
	"margin:4px 0;max-width:380px}"
	".chart .unit,.chart .tick{font-size:12px;fill:#555}"
	".chart .axis{stroke:#888;stroke-width:1}"
	".chart .differs{stroke:#999;stroke-dasharray:3 3}"
	".differs{color:#a33}"
	".cards{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}"
	".card{flex:1 1 260px;max-width:100%;box-sizing:border-box;"
	"border:1px solid #ccc;border-left:6px solid #888;padding:6px 8px;"
	"font-size:13px;overflow-wrap:anywhere}"
	".card.v-ok{border-left-color:#2a8a2a}"
	".card.v-slow,.card.v-failed{border-left-color:#c22;background:#fff4f4}"
	".card .missing{color:#555}"
	".leftout{font-size:13px;color:#555}";

int report_html_write(FILE *out, const struct compare_table *t,
		      struct history *const *hist, int nhist,
		      const char *generated_at)
{
	char(*labels)[160] = bf_xcalloc((size_t)t->nrows + 1, sizeof(*labels));
	struct report_cells rc;
	struct report_figures figures;

	report_cells_build(&rc, t);
	page_cells = &rc;
	for (int r = 0; r < t->nrows; r++)
		row_label(&t->rows[r], labels[r], sizeof(labels[r]));
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		     "<meta name=\"viewport\" content=\"width=device-width,"
		     "initial-scale=1\"><title>benchfleet report</title>"
		     "<style>%s</style></head><body>\n", style);
	fprintf(out, "<h1>benchfleet report</h1>\n<p>Generated ");
	report_html_escape(out, generated_at);
	fprintf(out, " from %d column%s. Every figure below comes from the "
		     "archived records; nothing is fetched.</p>\n",
		t->ncols, t->ncols == 1 ? "" : "s");
	section_verdict(out, t);
	count_figures(t, &figures);
	left_out_line(out, &figures);
	section_runs(out, t);
	legend(out, t);
	report_side_by_side(out, t, &rc);
	section_gflops(out, t, labels, &rc);
	section_speedups(out, t);
	section_peak(out, t, labels);
	section_energy(out, t, labels);
	section_reference(out, t, labels);
	section_roofline(out, t);
	section_bandwidth(out, t);
	section_batching(out, t);
	fprintf(out, "<h2>History</h2>\n<p>Median GFLOP/s of each result "
		     "across the host's recent runs, oldest on the left and "
		     "numbered; where the settings change (a new series: not "
		     "the same measurement) a dashed line and &ne; mark the "
		     "run; a change point (ctl history) is a marked line, what "
		     "changed on hover.</p>\n");
	for (int i = 0; i < nhist; i++)
		report_history_chart(out, hist[i]);
	if (nhist == 0)
		fprintf(out, "<p>No host history (files given, not runs).</p>\n");
	section_provenance(out, t);
	fprintf(out, "</body></html>\n");
	page_cells = NULL;
	report_cells_free(&rc);
	free(labels);
	return ferror(out) ? -1 : 0;
}
