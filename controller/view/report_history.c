/*
 * The report's history chart (see report_charts.h): one line per result
 * (device, dtype, n) of a host across its recent runs, oldest on the
 * left, the runs numbered on the x axis and named under the chart, as
 * HTML, with the results' colours. A run whose settings (the agent's
 * options in its host record: sizes, dtypes, iterations, ...) differ
 * from the newest run's is not the same measurement: its points are
 * hollow, a dashed line marks it, and the list under the chart says what
 * differs (bf_rec_options_differ).
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
#define T 10
#define B 30
/* Run numbers on the x axis at least this far apart (viewBox units). */
#define TICK_GAP 22

struct series {
	char key[64];
	double *y;
};

/* The options of host in run, or NULL. */
static const struct bf_rec_options *options_of(const struct archive_run *run,
					       const char *host)
{
	const struct archive_host *ah = archive_run_host(run, host);

	return ah && ah->host_record ? &ah->host_record->options : NULL;
}

static double run_x(const struct report_history *h, int i)
{
	return L + (h->nruns == 1 ? 0.5 : (double)i / (h->nruns - 1)) * (W - L - R);
}

void report_history_chart(FILE *out, const struct report_history *h)
{
	const struct bf_rec_options *newest = h->nruns ?
		options_of(h->runs[h->nruns - 1], h->host) : NULL;
	struct series *s = NULL;
	const char **differs = bf_xcalloc((size_t)h->nruns + 1, sizeof(*differs));
	int ns = 0, step, any_differs = 0;
	double max = 0;

	for (int i = 0; i < h->nruns; i++) {
		const struct archive_host *ah = archive_run_host(h->runs[i], h->host);
		const struct bf_rec_options *o = options_of(h->runs[i], h->host);

		if (i < h->nruns - 1 && newest && o)
			differs[i] = bf_rec_options_differ(o, newest);
		else if (i < h->nruns - 1)
			differs[i] = "options";
		any_differs |= differs[i] != NULL;
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
		free(differs);
		free(s);
		return;
	}
	fprintf(out, "<div class=\"roof\"><svg class=\"chart history\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		     "aria-label=\"history\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		W, H, W, H);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		L, H - B, W - R, H - B);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		L, T, L, H - B);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">"
		     "%.0f</text>\n", L - 4, T + 8, max);
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">0"
		     "</text>\n", L - 4, H - B);
	fprintf(out, "<text x=\"12\" y=\"%d\" class=\"unit\" transform=\"rotate(-90 12 %d)\" "
		     "text-anchor=\"middle\">GFLOP/s</text>\n",
		(T + H - B) / 2, (T + H - B) / 2);
	/* Every k-th run number, so that they stay apart; the last always. */
	step = h->nruns > 1 ? (int)ceil(TICK_GAP / ((double)(W - L - R) /
						   (h->nruns - 1))) : 1;
	step = step < 1 ? 1 : step;
	for (int i = 0; i < h->nruns; i++) {
		if (differs[i])
			fprintf(out, "<line class=\"differs\" x1=\"%.1f\" y1=\"%d\" "
				     "x2=\"%.1f\" y2=\"%d\"><title>run %d: %s differs "
				     "from the newest run</title></line>\n",
				run_x(h, i), T, run_x(h, i), H - B, i + 1, differs[i]);
		if (i % step == 0 || i == h->nruns - 1)
			if (i == h->nruns - 1 || (h->nruns - 1 - i) >= step)
				fprintf(out, "<text x=\"%.1f\" y=\"%d\" class=\"tick\" "
					     "text-anchor=\"middle\">%d%s</text>\n",
					run_x(h, i), H - B + 14, i + 1,
					differs[i] ? "\xe2\x89\xa0" : "");
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"unit\" text-anchor=\"middle\">"
		     "run</text>\n", (L + W - R) / 2, H - 2);
	for (int j = 0; j < ns; j++) {
		int started = 0;

		fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"",
			report_series_color(j));
		for (int i = 0; i < h->nruns; i++) {
			if (!isfinite(s[j].y[i]))
				continue;
			fprintf(out, "%c%.1f %.1f", started ? 'L' : 'M', run_x(h, i),
				H - B - s[j].y[i] / max * (H - B - T));
			started = 1;
		}
		fprintf(out, "\"/>\n");
		for (int i = 0; i < h->nruns; i++) {
			if (!isfinite(s[j].y[i]))
				continue;
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" "
				     "stroke=\"%s\"%s><title>run %d, ", run_x(h, i),
				H - B - s[j].y[i] / max * (H - B - T),
				differs[i] ? "#fff" : report_series_color(j),
				report_series_color(j),
				differs[i] ? " class=\"hollow\"" : "", i + 1);
			report_html_escape(out, s[j].key);
			fprintf(out, ": %.1f GFLOP/s</title></circle>\n", s[j].y[i]);
		}
	}
	fprintf(out, "</svg>\n<div class=\"key\"><p>");
	for (int j = 0; j < ns; j++) {
		fprintf(out, "<span><i style=\"background:%s\"></i>",
			report_series_color(j));
		report_html_escape(out, s[j].key);
		fputs("</span> ", out);
	}
	fputs("</p><ol class=\"runs\">\n", out);
	for (int i = 0; i < h->nruns; i++) {
		fputs("<li>", out);
		report_html_escape(out, h->runs[i]->run_id);
		fputs(" ", out);
		report_html_escape(out, h->runs[i]->started_at);
		if (differs[i]) {
			fputs(" <span class=\"differs\">\xe2\x89\xa0 other settings than "
			      "the newest run: ", out);
			report_html_escape(out, differs[i]);
			fputs("</span>", out);
		}
		fputs("</li>\n", out);
	}
	fputs("</ol>", out);
	if (any_differs)
		fputs("<p>Hollow points (\xe2\x89\xa0): a run with other settings, "
		      "not the same measurement.</p>", out);
	fputs("</div></div>\n", out);
	for (int j = 0; j < ns; j++)
		free(s[j].y);
	free(differs);
	free(s);
}
