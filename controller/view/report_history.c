/*
 * The report's history chart (see report_charts.h): one line per series
 * of a host's history (model/history.h: device, dtype, n and settings; a
 * series never crosses a change of settings), its runs oldest on the
 * left, numbered on the x axis and named under the chart, as HTML, with
 * the series' colours, so that nothing is drawn over anything else and
 * the chart reads at a phone's width. Where a run's settings (the
 * agent's options in its host record: sizes, dtypes, iterations, ...)
 * differ from the runs before it, it is not the same measurement: a
 * dashed line marks it, with the differing option on hover, and the run
 * list under the chart says so (the run's number carries "≠"). Each
 * change point (model/changepoint.h) is a marked line whose hover text
 * gives its change, p and the provenance that differs across it.
 */
#include "view/report_charts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

#define W 380
#define H 200
#define L 44
#define R 12
#define T 14
#define B 30
/* Run numbers on the x axis at least this far apart (viewBox units). */
#define TICK_GAP 22

static double run_x(const struct history *h, int i)
{
	return L + (h->nruns == 1 ? 0.5 : (double)i / (h->nruns - 1)) * (W - L - R);
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

static double point_y(double v, double max)
{
	return H - B - v / max * (H - B - T);
}

/* Where each run's settings differ from the run before with any: per
 * run (nruns entries each, caller frees) the settings index from there
 * (-1: no change) and what differs (static text or NULL); *max gets the
 * largest median GFLOP/s of any point. */
struct settings_marks {
	int *at;
	const char **why;
};

static struct settings_marks settings_marks(const struct history *h,
					    double *max)
{
	int *run_settings = bf_xcalloc((size_t)h->nruns + 1,
				       sizeof(*run_settings));
	struct settings_marks m = {
		bf_xcalloc((size_t)h->nruns + 1, sizeof(*m.at)),
		bf_xcalloc((size_t)h->nruns + 1, sizeof(*m.why)),
	};
	int prev = -1;

	*max = 0;
	for (int i = 0; i < h->nruns; i++)
		run_settings[i] = m.at[i] = -1;
	for (int j = 0; j < h->nseries; j++) {
		const struct history_series *s = &h->series[j];

		for (int k = 0; k < s->npoints; k++) {
			if (s->points[k].median_gflops > *max)
				*max = s->points[k].median_gflops;
			if (s->points[k].run >= 0 && s->points[k].run < h->nruns)
				run_settings[s->points[k].run] = s->settings;
		}
	}
	for (int i = 0; i < h->nruns; i++) {
		int k = run_settings[i];

		if (k < 0)
			continue;
		if (prev >= 0 && k != run_settings[prev] && k < h->nsettings &&
		    run_settings[prev] < h->nsettings) {
			m.at[i] = k;
			m.why[i] = bf_rec_options_differ(
				&h->settings[k]->options,
				&h->settings[run_settings[prev]]->options);
		}
		prev = i;
	}
	free(run_settings);
	return m;
}

/* The chart's frame: the svg element, both axes with their ticks (every
 * k-th run number, so that they stay apart, and the last; a run whose
 * settings change marked), and the dashed line where settings change,
 * what differs on hover. */
static void chart_frame(FILE *out, const struct history *h, double max,
			const struct settings_marks *m)
{
	int step;

	fprintf(out, "<div class=\"roof\"><svg class=\"chart history\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		     "aria-label=\"history\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		W, H, W, H);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		L, H - B, W - R, H - B);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		L, T, L, H - B);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">"
		     "%.0f</text>\n", L - 4, T + 4, max);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">0"
		     "</text>\n", L - 4, H - B);
	fprintf(out, "<text x=\"12\" y=\"%d\" class=\"unit\" transform=\"rotate(-90 12 %d)\" "
		     "text-anchor=\"middle\">GFLOP/s</text>\n",
		(T + H - B) / 2, (T + H - B) / 2);
	step = h->nruns > 1 ? (int)ceil(TICK_GAP / ((double)(W - L - R) /
						   (h->nruns - 1))) : 1;
	step = step < 1 ? 1 : step;
	for (int i = 0; i < h->nruns; i++)
		if (i == h->nruns - 1 || (i % step == 0 && h->nruns - 1 - i >= step))
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" "
				     "text-anchor=\"middle\">%d%s</text>\n",
				run_x(h, i), H - B + 14, i + 1,
				m->at[i] >= 0 ? "\xe2\x89\xa0" : "");
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"unit\" text-anchor=\"middle\">"
		     "run</text>\n", (L + W - R) / 2, H - 2);
	for (int i = 0; i < h->nruns; i++) {
		if (m->at[i] < 0)
			continue;
		fprintf(out, "<line class=\"settings\" x1=\"%.1f\" y1=\"%d\" "
			     "x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" "
			     "stroke-dasharray=\"4 3\"><title>settings %d from here",
			run_x(h, i), T, run_x(h, i), H - B, m->at[i] + 1);
		if (m->why[i]) {
			fputs(": ", out);
			report_html_escape(out, m->why[i]);
			fputs(" differs", out);
		}
		fprintf(out, "</title></line>\n");
	}
}

/* One series: its line, a point per run with its figure on hover, and
 * each change point as a marked line at its first run after. */
static void chart_series(FILE *out, const struct history *h, int j,
			 double max)
{
	const struct history_series *s = &h->series[j];
	const char *color = report_series_color(j);

	fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"",
		color);
	for (int k = 0; k < s->npoints; k++)
		fprintf(out, "%c%.1f %.1f", k ? 'L' : 'M',
			run_x(h, s->points[k].run),
			point_y(s->points[k].median_gflops, max));
	fprintf(out, "\"/>\n");
	for (int k = 0; k < s->npoints; k++) {
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">"
			     "<title>run %d, ", run_x(h, s->points[k].run),
			point_y(s->points[k].median_gflops, max), color,
			s->points[k].run + 1);
		report_html_escape(out, s->device);
		fputs(" ", out);
		report_html_escape(out, bf_dtype_name(s->dtype));
		fprintf(out, " n=%d: %.1f GFLOP/s</title></circle>\n", s->n,
			s->points[k].median_gflops);
	}
	for (int c = 0; c < s->nchanges; c++) {
		const struct history_change *ch = &s->changes[c];
		double x = run_x(h, s->points[ch->cp.at].run);

		fprintf(out, "<g class=\"change\"><line x1=\"%.1f\" y1=\"%d\" "
			     "x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
			     "stroke-width=\"3\" opacity=\"0.5\"/>"
			     "<path d=\"M%.1f %d l5 -8 l5 8 z\" fill=\"%s\"/>",
			x, T, x, H - B, color, x - 5, T + 8, color);
		change_title(out, ch);
		fprintf(out, "</g>\n");
	}
}

/* Under the chart: the key (a swatch per series with points) and the
 * runs in order, where settings change and what differs. */
static void chart_key(FILE *out, const struct history *h, int any_series,
		      const struct settings_marks *m)
{
	fprintf(out, "</svg>\n<div class=\"key\"><p>");
	for (int j = 0; j < h->nseries && any_series; j++) {
		const struct history_series *s = &h->series[j];

		if (s->npoints == 0)
			continue;
		fprintf(out, "<span><i style=\"background:%s\"></i>",
			report_series_color(j));
		report_html_escape(out, s->device);
		fputs(" ", out);
		report_html_escape(out, bf_dtype_name(s->dtype));
		fprintf(out, " n=%d", s->n);
		if (s->occurrence > 1)
			fprintf(out, "#%d", s->occurrence);
		if (h->nsettings > 1)
			fprintf(out, " (settings %d)", s->settings + 1);
		if (s->nchanges)
			fprintf(out, ", %d change%s", s->nchanges,
				s->nchanges == 1 ? "" : "s");
		fputs("</span> ", out);
	}
	fputs("</p><ol class=\"runs\">\n", out);
	for (int i = 0; i < h->nruns; i++) {
		fputs("<li>", out);
		report_html_escape(out, h->runs[i]->run_id);
		fputs(" ", out);
		report_html_escape(out, h->runs[i]->started_at);
		if (m->at[i] >= 0) {
			fprintf(out, " <span class=\"differs\">\xe2\x89\xa0 settings %d "
				     "from here", m->at[i] + 1);
			if (m->why[i]) {
				fputs(": ", out);
				report_html_escape(out, m->why[i]);
				fputs(" differs", out);
			}
			fputs("</span>", out);
		}
		fputs("</li>\n", out);
	}
	fputs("</ol></div></div>\n", out);
}

void report_history_chart(FILE *out, const struct history *h)
{
	double max;
	struct settings_marks m = settings_marks(h, &max);
	int any_series = 0;

	fprintf(out, "<h3>");
	report_html_escape(out, h->host);
	fprintf(out, ": %d run%s</h3>\n", h->nruns, h->nruns == 1 ? "" : "s");
	if (!(max > 0) || h->nruns == 0) {
		fprintf(out, "<p>No passing GEMM result in its runs.</p>\n");
	} else {
		chart_frame(out, h, max, &m);
		for (int j = 0; j < h->nseries; j++) {
			if (h->series[j].npoints == 0)
				continue;
			any_series = 1;
			chart_series(out, h, j, max);
		}
		chart_key(out, h, any_series, &m);
	}
	free(m.why);
	free(m.at);
}
