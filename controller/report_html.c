/*
 * The HTML report (see report_html.h). Charts are plain SVG drawn here:
 * horizontal bars (one group per result row, one bar per column, a
 * whisker from the slowest to the fastest sample) and, for history, one
 * line per result across a host's runs. Colours follow the column (A, B,
 * ...) everywhere, so a reader matches bars to runs by colour and by the
 * legend. Numbers are printed beside every bar: the picture is a guide,
 * the figures are the result.
 */
#include "report_html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "xmalloc.h"

/* Tableau 10: distinguishable, and readable on white. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define NPALETTE (int)(sizeof(palette) / sizeof(palette[0]))

#define CHART_W 980
#define LABEL_W 250
#define PLOT_W 560
#define BAR_H 13
#define BAR_GAP 2
#define GROUP_GAP 12
#define TOP 28

void report_html_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static const char *color(int col)
{
	return palette[col % NPALETTE];
}

/* History lines are results, not columns: their colours start further
 * along the palette so that they do not read as runs A, B, ... */
static const char *series_color(int j)
{
	return palette[(j + 4) % NPALETTE];
}

/* "cpu fp32 n=1024" (and "host: " first when the table is by host). */
static void row_label(const struct compare_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.100s%s%s %s n=%d", r->host, r->host[0] ? ": " : "",
		 r->device, r->dtype, r->n);
}

static void fmt_value(char *buf, size_t len, double v, int percent)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (percent)
		snprintf(buf, len, "%.1f%%", 100 * v);
	else if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

/*
 * Horizontal bars: nrows groups of ncols bars. v, lo, hi are nrows x ncols
 * (row-major); lo/hi may be NULL (no whiskers); NaN draws no bar and
 * prints n/a. Bars start at 0; the axis ends at the largest v or hi (at
 * least `min_max`, so a fraction axis can be pinned to 100 %).
 */
static void hbars(FILE *out, const char *title, const char *unit,
		  char labels[][160], int nrows, int ncols, const double *v,
		  const double *lo, const double *hi, int percent,
		  double min_max, const char *const *tips)
{
	double max = min_max;
	int h = TOP + nrows * (ncols * (BAR_H + BAR_GAP) + GROUP_GAP) + 30;
	int y = TOP;

	for (int i = 0; i < nrows * ncols; i++) {
		if (isfinite(v[i]) && v[i] > max)
			max = v[i];
		if (hi && isfinite(hi[i]) && hi[i] > max)
			max = hi[i];
	}
	if (!(max > 0))
		max = 1;
	fprintf(out, "<svg class=\"chart\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		CHART_W, h, CHART_W, h);
	report_html_escape(out, title);
	fprintf(out, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
	fprintf(out, "<text x=\"%d\" y=\"16\" class=\"unit\">", LABEL_W);
	report_html_escape(out, unit);
	fprintf(out, " (axis 0 to ");
	{
		char m[32];

		fmt_value(m, sizeof(m), max, percent);
		fputs(m, out);
	}
	fprintf(out, ")</text>\n");
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		LABEL_W, TOP - 4, LABEL_W, h - 26);
	for (int r = 0; r < nrows; r++) {
		int group_h = ncols * (BAR_H + BAR_GAP);

		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"label\" "
			     "text-anchor=\"end\">", LABEL_W - 8,
			y + group_h / 2 + 4);
		report_html_escape(out, labels[r]);
		fprintf(out, "</text>\n");
		for (int c = 0; c < ncols; c++) {
			double x = v[r * ncols + c];
			int by = y + c * (BAR_H + BAR_GAP);
			char val[32];

			fmt_value(val, sizeof(val), x, percent);
			if (isfinite(x) && x >= 0) {
				double w = x / max * PLOT_W;

				fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
					     "height=\"%d\" fill=\"%s\">",
					LABEL_W, by, w < 1 ? 1 : w, BAR_H, color(c));
				fprintf(out, "<title>%c: %s", 'A' + c, val);
				if (tips && tips[r * ncols + c]) {
					fputs(" - ", out);
					report_html_escape(out, tips[r * ncols + c]);
				}
				fprintf(out, "</title></rect>\n");
				if (lo && hi && isfinite(lo[r * ncols + c]) &&
				    isfinite(hi[r * ncols + c])) {
					double x0 = LABEL_W + lo[r * ncols + c] / max * PLOT_W;
					double x1 = LABEL_W + hi[r * ncols + c] / max * PLOT_W;
					int cy = by + BAR_H / 2;

					fprintf(out, "<path d=\"M%.1f %dH%.1fM%.1f %dV%dM%.1f %dV%d\" "
						     "class=\"whisker\"/>\n",
						x0, cy, x1, x0, cy - 4, cy + 4, x1,
						cy - 4, cy + 4);
				}
			}
			fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"value\">%c %s</text>\n",
				LABEL_W + PLOT_W + 12, by + BAR_H - 2, 'A' + c, val);
		}
		y += group_h + GROUP_GAP;
	}
	fprintf(out, "</svg>\n");
}

static void legend(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<p class=\"legend\">");
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];

		fprintf(out, "<span><i style=\"background:%s\"></i>%c ", color(c),
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
			    strcmp(r->u.gemm.dtype, row->dtype) == 0)
				return &r->u.gemm;
		}
	}
	return NULL;
}

static void section_gflops(FILE *out, const struct compare_table *t,
			   char labels[][160])
{
	size_t n = (size_t)t->nrows * (size_t)t->ncols;
	double *v = bf_xcalloc(n + 1, sizeof(double));
	double *lo = bf_xcalloc(n + 1, sizeof(double));
	double *hi = bf_xcalloc(n + 1, sizeof(double));

	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			const struct compare_cell *cell = &t->rows[r].cells[c];
			size_t k = (size_t)r * (size_t)t->ncols + (size_t)c;
			int ok = cell->present && cell->status == BF_STATUS_PASS;

			v[k] = ok ? cell->median_gflops : NAN;
			lo[k] = ok ? cell->min_gflops : NAN;
			hi[k] = ok ? cell->max_gflops : NAN;
		}
	fprintf(out, "<h2>GFLOP/s</h2>\n<p>Median of the timed iterations (2 n&sup3; "
		     "/ median time); the whisker runs from the slowest to the "
		     "fastest sample. Failed or skipped results have no bar.</p>\n");
	hbars(out, "GFLOP/s by result and run", "GFLOP/s", labels, t->nrows,
	      t->ncols, v, lo, hi, 0, 0, NULL);
	free(v);
	free(lo);
	free(hi);
}

/* The row of t with host, device, dtype and n, or -1. */
static int find_row(const struct compare_table *t, const char *host,
		    const char *device, const char *dtype, int n)
{
	for (int r = 0; r < t->nrows; r++) {
		const struct compare_row *x = &t->rows[r];

		if (x->n == n && strcmp(x->host, host) == 0 &&
		    strcmp(x->device, device) == 0 && strcmp(x->dtype, dtype) == 0)
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
	char(*labels)[160] = bf_xcalloc((size_t)t->nrows * 2 + 1, sizeof(*labels));
	double *v = bf_xcalloc(((size_t)t->nrows * 2 + 1) * (size_t)t->ncols,
			       sizeof(double));
	int nr = 0;

	for (int r = 0; r < t->nrows; r++) {
		const struct compare_row *x = &t->rows[r];
		int base = -1;
		const char *kind = NULL;

		if (strcmp(x->device, "cpu") != 0 && strcmp(x->dtype, "fp32") == 0) {
			base = find_row(t, x->host, "cpu", "fp32", x->n);
			kind = "GPU vs CPU";
		} else if (strcmp(x->dtype, "fp32") != 0) {
			base = find_row(t, x->host, x->device, "fp32", x->n);
			kind = "vs fp32";
		}
		if (base < 0)
			continue;
		snprintf(labels[nr], sizeof(labels[0]), "%.100s%s%s %s %s n=%d",
			 x->host, x->host[0] ? ": " : "", kind, x->device,
			 x->dtype, x->n);
		for (int c = 0; c < t->ncols; c++)
			v[(size_t)nr * (size_t)t->ncols + (size_t)c] =
				bf_speed_ratio(passed_gflops(t, r, c),
					       passed_gflops(t, base, c));
		nr++;
	}
	fprintf(out, "<h2>Speed-ups</h2>\n");
	if (nr == 0) {
		fprintf(out, "<p>No pair to compare: a GPU fp32 result beside the "
			     "same host's CPU fp32, or a 16-bit dtype beside fp32 "
			     "on the same device, at the same n.</p>\n");
	} else {
		fprintf(out, "<p>A result's median GFLOP/s over its base's: GPU "
			     "fp32 over the same host's CPU fp32, and each dtype "
			     "over fp32 on the same device (&gt; 1: faster).</p>\n");
		hbars(out, "speed-ups", "times", labels, nr, t->ncols, v, NULL,
		      NULL, 0, 1, NULL);
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
	fprintf(out, "<h2>Fraction of peak</h2>\n");
	if (!any)
		fprintf(out, "<p>No result carries a theoretical peak (runs of "
			     "an older agent, or devices the peak table does not "
			     "know).</p>\n");
	else {
		fprintf(out, "<p>GFLOP/s over the device's rated peak for the "
			     "dtype (per core cluster, cores &times; FLOP/cycle "
			     "from the agent's FMA probe &times; clock on a CPU; "
			     "the published dense figure of the product on a GPU; "
			     "hover a bar for its derivation).</p>\n");
		hbars(out, "fraction of peak", "fraction of peak", labels,
		      t->nrows, t->ncols, v, NULL, NULL, 1, 1.0, tips);
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
	fprintf(out, "<h2>Against published measurements</h2>\n");
	if (!any) {
		fprintf(out, "<p>No result has a published measurement of the "
			     "same product, dtype and n to compare with "
			     "(agent/reference.c).</p>\n");
	} else {
		fprintf(out, "<p>Median GFLOP/s over what the same product "
			     "measured elsewhere at the same dtype and n (hover a "
			     "bar for the source); below %.0f%% it is <b>below "
			     "reference</b>: %d result%s.</p>\n",
			100 * BF_REFERENCE_HEALTHY_FRACTION, below,
			below == 1 ? "" : "s");
		hbars(out, "fraction of reference", "fraction of reference",
		      labels, t->nrows, t->ncols, v, NULL, NULL, 1, 1.0, tips);
	}
	free(v);
	free(tips);
}

/* The hosts a column covers: its own, or every host of its run. */
static int column_hosts(const struct compare_column *col,
			const struct archive_host **out, int cap)
{
	int n = 0;

	for (int h = 0; h < col->run->nhosts && n < cap; h++)
		if (!col->host || col->host == &col->run->hosts[h])
			out[n++] = &col->run->hosts[h];
	return n;
}

/* Whether g is a measured, passing GEMM placed on a roofline. */
static int on_roofline(const struct bf_record *r)
{
	const struct bf_rec_gemm *g = &r->u.gemm;

	return r->type == BF_REC_GEMM && g->status == BF_STATUS_PASS &&
	       g->device && g->dtype && g->bandwidth_kind &&
	       g->bandwidth_gbps > 0 && g->arithmetic_intensity > 0 &&
	       g->gflops > 0;
}

#define ROOF_W 640
#define ROOF_H 360
#define ROOF_L 70
#define ROOF_R 20
#define ROOF_T 20
#define ROOF_B 46

/* One device's log-log roofline chart (x: FLOP/byte, y: GFLOP/s): the
 * memory roof (AI x bandwidth) up to each peak, the compute roofs
 * (peak_gflops of each dtype), each GEMM a point labelled dtype/n, then
 * the same numbers as a table. */
static void roofline_chart(FILE *out, int col, const struct archive_host *ah,
			   const char *device)
{
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, bw = NAN;
	double peaks[8];
	int npeaks = 0;
	const char *kind = "";

	for (int i = 0; i < ah->nrecords; i++) {
		const struct bf_rec_gemm *g = &ah->records[i].u.gemm;

		if (!on_roofline(&ah->records[i]) || strcmp(g->device, device) != 0)
			continue;
		bw = g->bandwidth_gbps;
		kind = g->bandwidth_kind;
		xmin = fmin(xmin, g->arithmetic_intensity);
		xmax = fmax(xmax, g->arithmetic_intensity);
		ymin = fmin(ymin, g->gflops);
		ymax = fmax(ymax, g->gflops);
		if (g->peak_gflops > 0) {
			int seen = 0;

			for (int k = 0; k < npeaks; k++)
				seen |= peaks[k] == g->peak_gflops;
			if (!seen && npeaks < 8)
				peaks[npeaks++] = g->peak_gflops;
			ymax = fmax(ymax, g->peak_gflops);
			/* The ridge point, where the roofs meet. */
			xmin = fmin(xmin, g->peak_gflops / bw);
			xmax = fmax(xmax, g->peak_gflops / bw);
		}
	}
	xmin = pow(10, floor(log10(xmin / 2)));
	xmax = pow(10, ceil(log10(xmax * 2)));
	ymin = pow(10, floor(log10(fmin(ymin, xmin * bw) / 2)));
	ymax = pow(10, ceil(log10(ymax * 2)));
	if (ymin < ymax / 1e6)
		ymin = ymax / 1e6;
#define RX(v) (ROOF_L + (log10(v) - log10(xmin)) / (log10(xmax) - log10(xmin)) * \
	       (ROOF_W - ROOF_L - ROOF_R))
#define RY(v) (ROOF_H - ROOF_B - (log10(v) - log10(ymin)) / \
	       (log10(ymax) - log10(ymin)) * (ROOF_H - ROOF_B - ROOF_T))
	fprintf(out, "<h3>%c ", 'A' + col);
	report_html_escape(out, ah->name);
	fputs(" ", out);
	report_html_escape(out, device);
	fprintf(out, ": %s %.1f GB/s</h3>\n", kind, bw);
	fprintf(out, "<svg class=\"chart roofline\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"roofline\" "
		     "xmlns=\"http://www.w3.org/2000/svg\">\n",
		ROOF_W, ROOF_H, ROOF_W, ROOF_H);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		ROOF_L, ROOF_H - ROOF_B, ROOF_W - ROOF_R, ROOF_H - ROOF_B);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		ROOF_L, ROOF_T, ROOF_L, ROOF_H - ROOF_B);
	for (double x = xmin; x <= xmax * 1.001; x *= 10)
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			     "text-anchor=\"middle\">%g</text>\n",
			RX(x), ROOF_H - ROOF_B + 14, x);
	for (double y = ymin; y <= ymax * 1.001; y *= 10)
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"tick\" "
			     "text-anchor=\"end\">%g</text>\n",
			ROOF_L - 4, RY(y) + 4, y);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"unit\" text-anchor=\"middle\">"
		     "arithmetic intensity (FLOP/byte)</text>\n",
		(ROOF_L + ROOF_W - ROOF_R) / 2, ROOF_H - 8);
	fprintf(out, "<text x=\"12\" y=\"%d\" class=\"unit\" transform=\"rotate(-90 12 %d)\" "
		     "text-anchor=\"middle\">GFLOP/s</text>\n",
		(ROOF_T + ROOF_H - ROOF_B) / 2, (ROOF_T + ROOF_H - ROOF_B) / 2);
	for (int k = 0; k < npeaks; k++) {
		double ridge = peaks[k] / bw;
		double x0 = fmax(xmin, ymin / bw);

		/* memory roof up to the ridge, then the compute roof */
		fprintf(out, "<path class=\"roof\" fill=\"none\" stroke=\"#222\" "
			     "stroke-width=\"1.5\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1f\">"
			     "<title>roof: %.1f GB/s x FLOP/byte up to %.1f GFLOP/s "
			     "(ridge %.2f FLOP/byte)</title></path>\n",
			RX(x0), RY(x0 * bw), RX(ridge), RY(peaks[k]), RX(xmax),
			RY(peaks[k]), bw, peaks[k], ridge);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"unit\" "
			     "text-anchor=\"end\">peak %.1f GFLOP/s</text>\n",
			(double)(ROOF_W - ROOF_R), RY(peaks[k]) - 4, peaks[k]);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"unit\">%.1f GB/s</text>\n",
		RX(fmax(xmin, ymin / bw)) + 4, RY(fmax(xmin, ymin / bw) * bw) - 8, bw);
	for (int i = 0; i < ah->nrecords; i++) {
		const struct bf_rec_gemm *g = &ah->records[i].u.gemm;

		if (!on_roofline(&ah->records[i]) || strcmp(g->device, device) != 0)
			continue;
		fprintf(out, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			     "fill=\"%s\"><title>", RX(g->arithmetic_intensity),
			RY(g->gflops), color(col));
		report_html_escape(out, g->dtype);
		fprintf(out, " n=%d: %.1f GFLOP/s at %.2f FLOP/byte</title></circle>\n",
			g->n, g->gflops, g->arithmetic_intensity);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"value\">",
			RX(g->arithmetic_intensity) + 6, RY(g->gflops) + 4);
		report_html_escape(out, g->dtype);
		fprintf(out, "/%d</text>\n", g->n);
	}
	fprintf(out, "</svg>\n");
#undef RX
#undef RY
	fprintf(out, "<table><tr><th>dtype</th><th>n</th><th>FLOP/byte</th>"
		     "<th>GFLOP/s</th><th>roofline GFLOP/s</th><th>bound</th>"
		     "<th>of roofline</th></tr>\n");
	for (int i = 0; i < ah->nrecords; i++) {
		const struct bf_rec_gemm *g = &ah->records[i].u.gemm;
		char roof[32], frac[32];

		if (!on_roofline(&ah->records[i]) || strcmp(g->device, device) != 0)
			continue;
		fmt_value(roof, sizeof(roof), g->roofline_gflops, 0);
		fmt_value(frac, sizeof(frac), g->fraction_of_roofline, 1);
		fprintf(out, "<tr class=\"roofrow\"><td>");
		report_html_escape(out, g->dtype);
		fprintf(out, "</td><td>%d</td><td>%.2f</td><td>%.1f</td><td>%s</td><td>",
			g->n, g->arithmetic_intensity, g->gflops, roof);
		report_html_escape(out, g->bound ? g->bound : "n/a");
		fprintf(out, "</td><td>%s</td></tr>\n", frac);
	}
	fprintf(out, "</table>\n");
}

static void section_roofline(FILE *out, const struct compare_table *t)
{
	int any = 0;

	fprintf(out, "<h2>Roofline</h2>\n<p>Each GEMM placed against its "
		     "device's roofline (Williams, Waterman and Patterson 2009), "
		     "both axes logarithmic: x the arithmetic intensity, 2 "
		     "n&sup3; FLOP over the operand bytes (A and B read once, C "
		     "written once); y GFLOP/s. The sloped roof is the measured "
		     "memory bandwidth times the intensity, the flat one the "
		     "theoretical peak of the dtype; a point under the sloped "
		     "part is memory-bound.</p>\n");
	for (int c = 0; c < t->ncols; c++) {
		const struct archive_host *hosts[256];
		int nh = column_hosts(&t->cols[c], hosts, 256);

		for (int h = 0; h < nh; h++) {
			const struct archive_host *ah = hosts[h];

			for (int i = 0; i < ah->nrecords; i++) {
				const char *dev = ah->records[i].u.gemm.device;
				int first = 1;

				if (!on_roofline(&ah->records[i]))
					continue;
				for (int j = 0; j < i && first; j++)
					first = !(on_roofline(&ah->records[j]) &&
						  strcmp(ah->records[j].u.gemm.device, dev) == 0);
				if (!first)
					continue;
				roofline_chart(out, c, ah, dev);
				any = 1;
			}
		}
	}
	if (!any)
		fprintf(out, "<p>No GEMM result carries a roofline (runs with "
			     "--no-bandwidth, or of an older agent).</p>\n");
}

static void status_cell(FILE *out, enum bf_status st, const char *reason)
{
	fprintf(out, "<td>%s", bf_schema_status_name(st));
	if (reason) {
		fputs(": ", out);
		report_html_escape(out, reason);
	}
	fputs("</td>", out);
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
	int rows = 0;

	for (int c = 0; c < t->ncols; c++) {
		const struct archive_host *hosts[256];
		int nh = column_hosts(&t->cols[c], hosts, 256);

		for (int h = 0; h < nh; h++)
			for (int i = 0; i < hosts[h]->nrecords; i++) {
				const struct bf_record *r = &hosts[h]->records[i];

				if (r->type != type)
					continue;
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
	if (rows)
		fputs("</table>\n", out);
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
	fmt_value(v, sizeof(v), b->median_gbps, 0);
	fprintf(out, "<td>%s</td>", v);
	fmt_value(v, sizeof(v), b->measured ? b->array_bytes / 1048576.0 : NAN,
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
			  "<table><tr><th></th><th>host</th><th>device</th>"
			  "<th>kind</th><th>GB/s</th><th>MiB per array</th>"
			  "<th>status</th></tr>\n",
			  bandwidth_cells))
		fprintf(out, "<p>No bandwidth records (runs with --no-bandwidth, "
			     "or of an older agent).</p>\n");
}

static void batching_cells(FILE *out, const struct bf_record *r)
{
	const struct bf_rec_batching *b = &r->u.batching;

	text_cell(out, b->device);
	text_cell(out, b->dtype);
	if (b->measured)
		fprintf(out, "<td>%d</td><td>%.4g</td><td>%.4g</td>", b->rows,
			b->single_ms, b->batch_ms);
	else
		fprintf(out, "<td>n/a</td><td>n/a</td><td>n/a</td>");
	if (isnan(b->speedup))
		fprintf(out, "<td>n/a</td>");
	else
		fprintf(out, "<td>%.2fx</td>", b->speedup);
	status_cell(out, b->status, b->reason);
}

static void section_batching(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<h2>Batching</h2>\n");
	if (!record_table(out, t, BF_REC_BATCHING, "batchrow",
			  "<p>The seed's batching case: rows scored by one-row "
			  "calls or by one batch through a 30-16-relu-1 model; "
			  "median ms per call and the rows/s speed-up of the "
			  "batch.</p>\n<table><tr><th></th><th>host</th>"
			  "<th>device</th><th>dtype</th><th>rows</th>"
			  "<th>single ms</th><th>batch ms</th><th>speed-up</th>"
			  "<th>status</th></tr>\n",
			  batching_cells))
		fprintf(out, "<p>No batching records (runs with --no-batching, "
			     "or of an older agent).</p>\n");
}

/* One line per (device, dtype, n) across the host's runs, oldest left. */
static void history_chart(FILE *out, const struct report_history *h)
{
	struct series {
		char key[64];
		double *y;
	} *s = NULL;
	int ns = 0, w = CHART_W, ht = 260, left = 60, right = 230, top = 20,
	    bottom = 50;
	double max = 0;

	for (int i = 0; i < h->nruns; i++) {
		const struct archive_host *ah = archive_run_host(h->runs[i], h->host);

		for (int k = 0; ah && k < ah->nrecords; k++) {
			const struct bf_rec_gemm *g = &ah->records[k].u.gemm;
			char key[64];
			int j;

			if (ah->records[k].type != BF_REC_GEMM ||
			    g->status != BF_STATUS_PASS || !(g->gflops > 0))
				continue;
			snprintf(key, sizeof(key), "%s %s n=%d", g->device,
				 g->dtype, g->n);
			for (j = 0; j < ns && strcmp(s[j].key, key) != 0; j++)
				;
			if (j == ns) {
				s = bf_xrealloc(s, (size_t)(ns + 1) * sizeof(*s));
				snprintf(s[ns].key, sizeof(s[ns].key), "%s", key);
				s[ns].y = bf_xcalloc((size_t)h->nruns, sizeof(double));
				for (int q = 0; q < h->nruns; q++)
					s[ns].y[q] = NAN;
				ns++;
			}
			s[j].y[i] = g->gflops;
			if (g->gflops > max)
				max = g->gflops;
		}
	}
	fprintf(out, "<h3>");
	report_html_escape(out, h->host);
	fprintf(out, ": %d run%s</h3>\n", h->nruns, h->nruns == 1 ? "" : "s");
	if (ns == 0 || h->nruns == 0) {
		fprintf(out, "<p>No passing GEMM result in its runs.</p>\n");
		free(s);
		return;
	}
	fprintf(out, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "role=\"img\" aria-label=\"history\" "
		     "xmlns=\"http://www.w3.org/2000/svg\">\n", w, ht, w, ht);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		left, ht - bottom, w - right, ht - bottom);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		left, top, left, ht - bottom);
	fprintf(out, "<text x=\"4\" y=\"%d\" class=\"unit\">%.0f</text>\n", top + 4, max);
	fprintf(out, "<text x=\"4\" y=\"%d\" class=\"unit\">0</text>\n", ht - bottom);
	fprintf(out, "<text x=\"4\" y=\"%d\" class=\"unit\">GFLOP/s</text>\n",
		(ht - bottom + top) / 2);
	for (int i = 0; i < h->nruns; i++) {
		double x = left + (h->nruns == 1 ? 0.5 : (double)i / (h->nruns - 1)) *
					  (w - left - right);

		const char *when = h->runs[i]->started_at;

		/* "12-01 03:50:53" of "2026-12-01T03:50:53.715Z" */
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			     "text-anchor=\"middle\">%.5s %.8s</text>\n", x,
			ht - bottom + 16, strlen(when) >= 19 ? when + 5 : when,
			strlen(when) >= 19 ? when + 11 : "");
	}
	for (int j = 0; j < ns; j++) {
		int started = 0;

		fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"",
			series_color(j));
		for (int i = 0; i < h->nruns; i++) {
			double x = left + (h->nruns == 1 ? 0.5 :
					   (double)i / (h->nruns - 1)) *
						 (w - left - right);
			double y;

			if (!isfinite(s[j].y[i]))
				continue;
			y = ht - bottom - s[j].y[i] / max * (ht - bottom - top);
			fprintf(out, "%c%.1f %.1f", started ? 'L' : 'M', x, y);
			started = 1;
		}
		fprintf(out, "\"/>\n");
		for (int i = 0; i < h->nruns; i++) {
			double x = left + (h->nruns == 1 ? 0.5 :
					   (double)i / (h->nruns - 1)) *
						 (w - left - right);

			if (!isfinite(s[j].y[i]))
				continue;
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
				     "<title>%.1f GFLOP/s</title></circle>\n",
				x, ht - bottom - s[j].y[i] / max * (ht - bottom - top),
				series_color(j), s[j].y[i]);
		}
		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"label\" fill=\"%s\">",
			w - right + 10, top + 14 * j + 4, series_color(j));
		report_html_escape(out, s[j].key);
		fprintf(out, "</text>\n");
	}
	fprintf(out, "</svg>\n");
	for (int j = 0; j < ns; j++)
		free(s[j].y);
	free(s);
}

static void section_runs(FILE *out, const struct compare_table *t)
{
	fprintf(out, "<h2>Runs</h2>\n<table><tr><th></th><th>run</th><th>started</th>"
		     "<th>tag</th><th>host</th><th>status</th><th>machine</th></tr>\n");
	for (int c = 0; c < t->ncols; c++) {
		const struct compare_column *col = &t->cols[c];
		const struct archive_host *ah = col->host ? col->host :
				col->run->nhosts ? &col->run->hosts[0] : NULL;
		const struct bf_rec_host *hr = ah ? ah->host_record : NULL;

		fprintf(out, "<tr><td><i style=\"background:%s\"></i>%c</td><td>",
			color(c), 'A' + c);
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
	fprintf(out, "</table>\n");
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
		     "may come from here.</p>\n<table><tr><th>what</th>");
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
	fprintf(out, "</table>\n");
}

static const char style[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:24px;color:#222;max-width:1040px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:"
	"1px solid #ddd}h3{font-size:15px}"
	"table{border-collapse:collapse;font-size:13px}"
	"td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}"
	"i{display:inline-block;width:11px;height:11px;margin-right:4px}"
	".legend span{margin-right:14px;font-size:13px}"
	".chart{display:block;margin:8px 0}"
	".chart .label{font-size:12px}.chart .value{font-size:11px}"
	".chart .unit,.chart .tick{font-size:11px;fill:#555}"
	".chart .axis{stroke:#888;stroke-width:1}"
	".chart .whisker{stroke:#222;stroke-width:1.2;fill:none}";

int report_html_write(FILE *out, const struct compare_table *t,
		      const struct report_history *hist, int nhist,
		      const char *generated_at)
{
	char(*labels)[160] = bf_xcalloc((size_t)t->nrows + 1, sizeof(*labels));

	for (int r = 0; r < t->nrows; r++)
		row_label(&t->rows[r], labels[r], sizeof(labels[r]));
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		     "<title>benchfleet report</title><style>%s</style></head><body>\n",
		style);
	fprintf(out, "<h1>benchfleet report</h1>\n<p>Generated ");
	report_html_escape(out, generated_at);
	fprintf(out, " from %d column%s. Every figure below comes from the "
		     "archived records; nothing is fetched.</p>\n",
		t->ncols, t->ncols == 1 ? "" : "s");
	section_runs(out, t);
	legend(out, t);
	section_gflops(out, t, labels);
	section_speedups(out, t);
	section_peak(out, t, labels);
	section_reference(out, t, labels);
	section_roofline(out, t);
	section_bandwidth(out, t);
	section_batching(out, t);
	fprintf(out, "<h2>History</h2>\n<p>Median GFLOP/s of each result "
		     "across the host's recent runs, oldest on the left.</p>\n");
	for (int i = 0; i < nhist; i++)
		history_chart(out, &hist[i]);
	if (nhist == 0)
		fprintf(out, "<p>No host history (files given, not runs).</p>\n");
	section_provenance(out, t);
	fprintf(out, "</body></html>\n");
	free(labels);
	return ferror(out) ? -1 : 0;
}
