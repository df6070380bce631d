/*
 * The report's roofline charts (see report_charts.h): one per kind of
 * device, every column's GEMMs on it. The model is Williams, Waterman
 * and Patterson, "Roofline: an insightful visual performance model for
 * multicore architectures", CACM 52(4), 2009: attainable GFLOP/s =
 * min(peak, bandwidth x arithmetic intensity); the agent's records carry
 * the intensity, the measured bandwidth and the dtype's peak (agent/
 * workloads/roofline.c, docs/schema.md), so nothing here computes a
 * hardware figure. The chart carries no text but its axes: the points'
 * and roofs' names are under it, as HTML, and on hover, so that labels
 * never overlap however close the hosts' points are.
 */
#include "view/report_charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

#define W 380
#define H 270
#define L 48
#define R 22
#define T 10
#define B 38
/* Decade labels closer than this (viewBox units, 12 px text) are thinned
 * to every other one. */
#define TICK_GAP_X 34
#define TICK_GAP_Y 16

/* A point: a passing GEMM of host ah in column col. */
struct point {
	int col;
	const struct archive_host *ah;
	const struct bf_rec_gemm *g;
};

/* A roof: one host's device, its bandwidth and a dtype's peak. */
struct roof {
	int col;
	const struct archive_host *ah;
	const char *device, *kind, *dtype;
	double bw, peak;
};

/* "CPU" for the CPU, "GPU" for a CUDA device, else the device's name. */
static const char *kind_of(const char *device)
{
	if (strcmp(device, "cpu") == 0)
		return "CPU";
	if (strncmp(device, "cuda", 4) == 0)
		return "GPU";
	return device;
}

/* The marker of a dtype: a circle, square, triangle or diamond, centred
 * at (x, y), as SVG; its glyph for the key under the chart. */
static const char *const glyphs[] = { "\xe2\x97\x8f", "\xe2\x96\xa0",
				      "\xe2\x96\xb2", "\xe2\x97\x86" };
static const char *const marker_dtypes[] = { "fp32", "fp16", "bf16", "tf32" };

static int marker_of(const char *dtype)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(dtype, marker_dtypes[i]) == 0)
			return i;
	return 0;
}

static void marker(FILE *out, int m, double x, double y, const char *fill)
{
	switch (m) {
	case 1:
		fprintf(out, "<rect class=\"point\" x=\"%.1f\" y=\"%.1f\" width=\"7\" "
			     "height=\"7\" fill=\"%s\">", x - 3.5, y - 3.5, fill);
		return;
	case 2:
		fprintf(out, "<path class=\"point\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" "
			     "fill=\"%s\">", x, y - 4.5, x + 4.5, y + 3.5, x - 4.5,
			y + 3.5, fill);
		return;
	case 3:
		fprintf(out, "<path class=\"point\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" "
			     "fill=\"%s\">", x, y - 4.5, x + 4.5, y, x, y + 4.5,
			x - 4.5, y, fill);
		return;
	default:
		fprintf(out, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			     "fill=\"%s\">", x, y, fill);
	}
}

static const char *const marker_end[] = { "</circle>", "</rect>", "</path>",
					  "</path>" };

struct axes {
	double xmin, xmax, ymin, ymax;
};

static double ax_x(const struct axes *a, double v)
{
	return L + (log10(v) - log10(a->xmin)) / (log10(a->xmax) - log10(a->xmin)) *
			   (W - L - R);
}

static double ax_y(const struct axes *a, double v)
{
	return H - B - (log10(v) - log10(a->ymin)) /
			       (log10(a->ymax) - log10(a->ymin)) * (H - B - T);
}

/* One kind's chart, its key and its table. */
static void kind_chart(FILE *out, const char *kind, const struct point *pts,
		       int npts, const struct roof *roofs, int nroofs)
{
	struct axes a = { INFINITY, 0, INFINITY, 0 };
	int decades, step, seen_col[26] = { 0 }, seen_dtype[4] = { 0 };
	double bw_min = INFINITY;

	for (int i = 0; i < npts; i++) {
		const struct bf_rec_gemm *g = pts[i].g;

		if (strcmp(kind_of(g->device), kind) != 0)
			continue;
		a.xmin = fmin(a.xmin, g->arithmetic_intensity);
		a.xmax = fmax(a.xmax, g->arithmetic_intensity);
		a.ymin = fmin(a.ymin, g->gflops);
		a.ymax = fmax(a.ymax, g->gflops);
	}
	for (int k = 0; k < nroofs; k++) {
		if (strcmp(roofs[k].kind, kind) != 0)
			continue;
		bw_min = fmin(bw_min, roofs[k].bw);
		a.ymax = fmax(a.ymax, roofs[k].peak);
		a.xmin = fmin(a.xmin, roofs[k].peak / roofs[k].bw);
		a.xmax = fmax(a.xmax, roofs[k].peak / roofs[k].bw);
	}
	a.xmin = pow(10, floor(log10(a.xmin / 2)));
	a.xmax = pow(10, ceil(log10(a.xmax * 2)));
	a.ymin = pow(10, floor(log10(fmin(a.ymin, a.xmin * bw_min) / 2)));
	a.ymax = pow(10, ceil(log10(a.ymax * 2)));
	if (a.ymin < a.ymax / 1e6)
		a.ymin = a.ymax / 1e6;

	fprintf(out, "<h3>");
	report_html_escape(out, kind);
	fprintf(out, "</h3>\n<div class=\"roof\"><svg class=\"chart roofline\" "
		     "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		     "aria-label=\"roofline ", W, H, W, H);
	report_html_escape(out, kind);
	fprintf(out, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		L, H - B, W - R, H - B);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		L, T, L, H - B);
	decades = (int)lround(log10(a.xmax / a.xmin));
	step = decades > 0 && (W - L - R) / decades < TICK_GAP_X ? 2 : 1;
	for (int d = 0; d <= decades; d += step)
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" "
			     "text-anchor=\"middle\">%g</text>\n",
			ax_x(&a, a.xmin * pow(10, d)), H - B + 14, a.xmin * pow(10, d));
	decades = (int)lround(log10(a.ymax / a.ymin));
	step = decades > 0 && (H - B - T) / decades < TICK_GAP_Y ? 2 : 1;
	for (int d = 0; d <= decades; d += step)
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" class=\"tick\" "
			     "text-anchor=\"end\">%g</text>\n",
			L - 4, ax_y(&a, a.ymin * pow(10, d)) + 4, a.ymin * pow(10, d));
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"unit\" text-anchor=\"middle\">"
		     "FLOP/byte</text>\n", (L + W - R) / 2, H - 6);
	fprintf(out, "<text x=\"12\" y=\"%d\" class=\"unit\" transform=\"rotate(-90 12 %d)\" "
		     "text-anchor=\"middle\">GFLOP/s</text>\n",
		(T + H - B) / 2, (T + H - B) / 2);
	for (int k = 0; k < nroofs; k++) {
		const struct roof *rf = &roofs[k];
		double ridge = rf->peak / rf->bw, x0 = fmax(a.xmin, a.ymin / rf->bw);

		if (strcmp(rf->kind, kind) != 0)
			continue;
		fprintf(out, "<path class=\"roof\" fill=\"none\" stroke=\"%s\" "
			     "stroke-width=\"1.5\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1f\">"
			     "<title>%c ", report_color(rf->col),
			ax_x(&a, x0), ax_y(&a, x0 * rf->bw), ax_x(&a, ridge),
			ax_y(&a, rf->peak), ax_x(&a, a.xmax), ax_y(&a, rf->peak),
			'A' + rf->col);
		report_html_escape(out, rf->ah->name);
		fputs(" ", out);
		report_html_escape(out, rf->device);
		fputs(" ", out);
		report_html_escape(out, rf->dtype);
		fprintf(out, " roof: %.1f GB/s x FLOP/byte up to %.1f GFLOP/s "
			     "(ridge %.2f FLOP/byte)</title></path>\n",
			rf->bw, rf->peak, ridge);
	}
	for (int i = 0; i < npts; i++) {
		const struct bf_rec_gemm *g = pts[i].g;
		int m = marker_of(g->dtype);

		if (strcmp(kind_of(g->device), kind) != 0)
			continue;
		seen_col[pts[i].col % 26] = 1;
		seen_dtype[m] = 1;
		marker(out, m, ax_x(&a, g->arithmetic_intensity), ax_y(&a, g->gflops),
		       report_color(pts[i].col));
		fprintf(out, "<title>%c ", 'A' + pts[i].col);
		report_html_escape(out, pts[i].ah->name);
		fputs(" ", out);
		report_html_escape(out, g->device);
		fputs(" ", out);
		report_html_escape(out, g->dtype);
		fprintf(out, " n=%d: %.1f GFLOP/s at %.2f FLOP/byte</title>%s\n",
			g->n, g->gflops, g->arithmetic_intensity, marker_end[m]);
	}
	fprintf(out, "</svg>\n<div class=\"key\"><p>");
	for (int c = 0; c < 26; c++) {
		const struct archive_host *ah = NULL;

		if (!seen_col[c])
			continue;
		for (int i = 0; i < npts && !ah; i++)
			if (pts[i].col == c)
				ah = pts[i].ah;
		fprintf(out, "<span><i style=\"background:%s\"></i>%c ",
			report_color(c), 'A' + c);
		report_html_escape(out, ah ? ah->name : "");
		fputs("</span> ", out);
	}
	for (int m = 0; m < 4; m++)
		if (seen_dtype[m])
			fprintf(out, "<span>%s %s</span> ", glyphs[m], marker_dtypes[m]);
	fputs("</p><ul>\n", out);
	for (int k = 0; k < nroofs; k++) {
		const struct roof *rf = &roofs[k];

		if (strcmp(rf->kind, kind) != 0)
			continue;
		fprintf(out, "<li><i style=\"background:%s\"></i>%c ",
			report_color(rf->col), 'A' + rf->col);
		report_html_escape(out, rf->ah->name);
		fputs(" ", out);
		report_html_escape(out, rf->device);
		fprintf(out, ": %.1f GB/s measured, %s peak %.1f GFLOP/s (ridge %.2f "
			     "FLOP/byte)</li>\n", rf->bw, rf->dtype, rf->peak,
			rf->peak / rf->bw);
	}
	fputs("</ul></div></div>\n", out);
	fprintf(out, "<div class=\"scroll\"><table><tr><th></th><th>host</th>"
		     "<th>device</th><th>dtype</th><th>n</th><th>FLOP/byte</th>"
		     "<th>GFLOP/s</th><th>roofline GFLOP/s</th><th>bound</th>"
		     "<th>of roofline</th></tr>\n");
	for (int i = 0; i < npts; i++) {
		const struct bf_rec_gemm *g = pts[i].g;
		char roof[32], frac[32];

		if (strcmp(kind_of(g->device), kind) != 0)
			continue;
		report_fmt_value(roof, sizeof(roof), g->roofline_gflops, 0);
		report_fmt_value(frac, sizeof(frac), g->fraction_of_roofline, 1);
		fprintf(out, "<tr class=\"roofrow\"><td>%c</td><td>", 'A' + pts[i].col);
		report_html_escape(out, pts[i].ah->name);
		fputs("</td><td>", out);
		report_html_escape(out, g->device);
		fputs("</td><td>", out);
		report_html_escape(out, g->dtype);
		fprintf(out, "</td><td>%d</td><td>%.2f</td><td>%.1f</td><td>%s</td><td>",
			g->n, g->arithmetic_intensity, g->gflops, roof);
		report_html_escape(out, g->bound ? g->bound : "n/a");
		fprintf(out, "</td><td>%s</td></tr>\n", frac);
	}
	fprintf(out, "</table></div>\n");
}

void report_roofline_kinds(FILE *out, const struct compare_table *t)
{
	struct point *pts = NULL;
	struct roof *roofs = NULL;
	const char **kinds = NULL;
	int npts = 0, nroofs = 0, nkinds = 0;

	for (int c = 0; c < t->ncols; c++) {
		const struct archive_host *hosts[256];
		int nh = compare_column_hosts(&t->cols[c], hosts, 256);

		for (int h = 0; h < nh; h++)
			for (int i = 0; i < hosts[h]->nrecords; i++) {
				const struct bf_rec_gemm *g = &hosts[h]->records[i].u.gemm;
				int k;

				if (!report_on_roofline(&hosts[h]->records[i]))
					continue;
				pts = bf_xrealloc(pts, (size_t)(npts + 1) * sizeof(*pts));
				pts[npts++] = (struct point){ c, hosts[h], g };
				if (!(g->peak_gflops > 0))
					continue;
				/* One roof per host, device and peak: the
				 * dtypes sharing a peak share it. */
				for (k = 0; k < nroofs; k++)
					if (roofs[k].ah == hosts[h] &&
					    strcmp(roofs[k].device, g->device) == 0 &&
					    roofs[k].peak == g->peak_gflops)
						break;
				if (k < nroofs)
					continue;
				roofs = bf_xrealloc(roofs, (size_t)(nroofs + 1) *
								  sizeof(*roofs));
				roofs[nroofs++] = (struct roof){
					c, hosts[h], g->device, kind_of(g->device),
					g->dtype, g->bandwidth_gbps, g->peak_gflops
				};
			}
	}
	/* The kinds: CPU, GPU, then others as first seen. */
	for (int pass = 0; pass < 3; pass++)
		for (int i = 0; i < npts; i++) {
			const char *k = kind_of(pts[i].g->device);
			int seen = 0;

			if ((pass == 0) != (strcmp(k, "CPU") == 0) ||
			    (pass == 1) != (strcmp(k, "GPU") == 0))
				continue;
			for (int j = 0; j < nkinds; j++)
				seen |= strcmp(kinds[j], k) == 0;
			if (seen)
				continue;
			kinds = bf_xrealloc(kinds, (size_t)(nkinds + 1) * sizeof(*kinds));
			kinds[nkinds++] = k;
		}
	for (int k = 0; k < nkinds; k++)
		kind_chart(out, kinds[k], pts, npts, roofs, nroofs);
	if (nkinds == 0)
		fprintf(out, "<p>No GEMM result carries a roofline (runs with "
			     "--no-bandwidth, or of an older agent).</p>\n");
	free(kinds);
	free(roofs);
	free(pts);
}
