/*
 * The report's charts, as plain SVG (see report_charts.h): horizontal
 * bars with whiskers, a device's roofline, a host's history. Colours
 * follow the column (A, B, ...) everywhere, so a reader matches bars to
 * runs by colour and by the legend; numbers are printed beside every bar.
 */
#include "view/report_charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "xmalloc.h"

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

const char *report_color(int col)
{
	return palette[col % NPALETTE];
}

/* History lines are results, not columns: their colours start further
 * along the palette so that they do not read as runs A, B, ... */
const char *report_series_color(int j)
{
	return palette[(j + 4) % NPALETTE];
}

void report_fmt_value(char *buf, size_t len, double v, int percent)
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
void report_hbars(FILE *out, const char *title, const char *unit,
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

		report_fmt_value(m, sizeof(m), max, percent);
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

			report_fmt_value(val, sizeof(val), x, percent);
			if (isfinite(x) && x >= 0) {
				double w = x / max * PLOT_W;

				fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
					     "height=\"%d\" fill=\"%s\">",
					LABEL_W, by, w < 1 ? 1 : w, BAR_H, report_color(c));
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

/* Whether g is a measured, passing GEMM placed on a roofline. */
int report_on_roofline(const struct bf_record *r)
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
void report_roofline_chart(FILE *out, int col, const struct archive_host *ah,
			   const char *device)
{
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, bw = NAN;
	double peaks[8];
	int npeaks = 0;
	const char *kind = "";

	for (int i = 0; i < ah->nrecords; i++) {
		const struct bf_rec_gemm *g = &ah->records[i].u.gemm;

		if (!report_on_roofline(&ah->records[i]) || strcmp(g->device, device) != 0)
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

		if (!report_on_roofline(&ah->records[i]) || strcmp(g->device, device) != 0)
			continue;
		fprintf(out, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			     "fill=\"%s\"><title>", RX(g->arithmetic_intensity),
			RY(g->gflops), report_color(col));
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

		if (!report_on_roofline(&ah->records[i]) || strcmp(g->device, device) != 0)
			continue;
		report_fmt_value(roof, sizeof(roof), g->roofline_gflops, 0);
		report_fmt_value(frac, sizeof(frac), g->fraction_of_roofline, 1);
		fprintf(out, "<tr class=\"roofrow\"><td>");
		report_html_escape(out, g->dtype);
		fprintf(out, "</td><td>%d</td><td>%.2f</td><td>%.1f</td><td>%s</td><td>",
			g->n, g->arithmetic_intensity, g->gflops, roof);
		report_html_escape(out, g->bound ? g->bound : "n/a");
		fprintf(out, "</td><td>%s</td></tr>\n", frac);
	}
	fprintf(out, "</table>\n");
}

/* One line per (device, dtype, n) across the host's runs, oldest left. */
/* x of run i of nruns in a chart's plot area [left, w - right]. */
static double run_x(int i, int nruns, int left, int plot_w)
{
	return left + (nruns == 1 ? 0.5 : (double)i / (nruns - 1)) * plot_w;
}

/* A change point's hover text: its change, p, and what differs across
 * it (or that nothing does). */
static void change_title(FILE *out, const struct history_change *c)
{
	fprintf(out, "<title>change %+.1f%% (p=%.3f): ", 100 * c->cp.change,
		c->cp.p);
	if (c->nprov == 0)
		fprintf(out, "no provenance change: unexplained shift");
	for (int i = 0; i < c->nprov; i++) {
		fprintf(out, "%s", i ? "; " : "");
		report_html_escape(out, c->prov[i].key);
		fputs(": ", out);
		report_html_escape(out, c->prov[i].before ? c->prov[i].before : "n/a");
		fputs(" \xe2\x86\x92 ", out);
		report_html_escape(out, c->prov[i].after ? c->prov[i].after : "n/a");
	}
	fprintf(out, "</title>");
}

void report_history_chart(FILE *out, const struct history *h)
{
	int w = CHART_W, ht = 260, left = 60, right = 230, top = 20, bottom = 50;
	int plot_w = w - left - right, shown = 0;
	double max = 0;

	for (int j = 0; j < h->nseries; j++)
		for (int k = 0; k < h->series[j].npoints; k++)
			if (h->series[j].points[k].median_gflops > max)
				max = h->series[j].points[k].median_gflops;
	fprintf(out, "<h3>");
	report_html_escape(out, h->host);
	fprintf(out, ": %d run%s</h3>\n", h->nruns, h->nruns == 1 ? "" : "s");
	if (!(max > 0) || h->nruns == 0) {
		fprintf(out, "<p>No passing GEMM result in its runs.</p>\n");
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
		const char *when = h->runs[i]->started_at;

		/* "12-01 03:50:53" of "2026-12-01T03:50:53.715Z" */
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			     "text-anchor=\"middle\">%.5s %.8s</text>\n",
			run_x(i, h->nruns, left, plot_w), ht - bottom + 16,
			strlen(when) >= 19 ? when + 5 : when,
			strlen(when) >= 19 ? when + 11 : "");
	}
	for (int j = 0; j < h->nseries; j++) {
		const struct history_series *s = &h->series[j];
		const char *why = history_settings_change(h, s->settings);
		const char *color = report_series_color(j);

		if (s->npoints == 0)
			continue;
		/* Where these settings begin: a dashed line, its reason on
		 * hover; a series never joins another settings' runs. */
		if (s->settings > 0) {
			double x = run_x(s->points[0].run, h->nruns, left, plot_w);

			fprintf(out, "<line class=\"settings\" x1=\"%.1f\" y1=\"%d\" "
				     "x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" "
				     "stroke-dasharray=\"4 3\"><title>settings %d from here",
				x, top, x, ht - bottom, s->settings + 1);
			if (why) {
				fputs(": ", out);
				report_html_escape(out, why);
				fputs(" differs", out);
			}
			fprintf(out, "</title></line>\n");
		}
		fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"",
			color);
		for (int k = 0; k < s->npoints; k++)
			fprintf(out, "%c%.1f %.1f", k ? 'L' : 'M',
				run_x(s->points[k].run, h->nruns, left, plot_w),
				ht - bottom - s->points[k].median_gflops / max *
						      (ht - bottom - top));
		fprintf(out, "\"/>\n");
		for (int k = 0; k < s->npoints; k++)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
				     "<title>%.1f GFLOP/s</title></circle>\n",
				run_x(s->points[k].run, h->nruns, left, plot_w),
				ht - bottom - s->points[k].median_gflops / max *
						      (ht - bottom - top),
				color, s->points[k].median_gflops);
		/* Each change point: a marked line at its first run after. */
		for (int c = 0; c < s->nchanges; c++) {
			const struct history_change *ch = &s->changes[c];
			double x = run_x(s->points[ch->cp.at].run, h->nruns, left,
					 plot_w);

			fprintf(out, "<g class=\"change\"><line x1=\"%.1f\" y1=\"%d\" "
				     "x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
				     "stroke-width=\"3\" opacity=\"0.5\"/>"
				     "<path d=\"M%.1f %d l5 -8 l5 8 z\" fill=\"%s\"/>",
				x, top, x, ht - bottom, color, x - 5, top + 8, color);
			change_title(out, ch);
			fprintf(out, "</g>\n");
		}
		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"label\" fill=\"%s\">",
			w - right + 10, top + 14 * shown + 4, color);
		fprintf(out, "%s %s n=%d", s->device, s->dtype, s->n);
		if (s->occurrence > 1)
			fprintf(out, "#%d", s->occurrence);
		if (h->nsettings > 1)
			fprintf(out, " (settings %d)", s->settings + 1);
		fprintf(out, "</text>\n");
		shown++;
	}
	fprintf(out, "</svg>\n");
}
