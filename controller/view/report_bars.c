/*
 * The report's bar charts as HTML (see report_charts.h): a group per
 * result, a row per column with its letter, its bar (a block whose width
 * is the value's share of the axis, in the column's colour, with a
 * whisker from the slowest to the fastest sample) and its value. Text is
 * HTML text, so it keeps its size on any screen and the rows wrap with
 * the page: nothing is drawn over anything else.
 */
#include "view/report_charts.h"

#include <math.h>
#include <stdio.h>

/* A share of the axis in percent, within 0..100. */
static double share(double v, double max)
{
	double p = 100.0 * v / max;

	return p < 0 ? 0 : p > 100 ? 100 : p;
}

void report_bars(FILE *out, const char *title, const char *unit,
		 char labels[][160], int nrows, int ncols, const double *v,
		 const double *lo, const double *hi, int percent, double min_max,
		 const char *const *tips, const char *const *texts)
{
	double max = min_max;
	char m[32];

	for (int i = 0; i < nrows * ncols; i++) {
		if (isfinite(v[i]) && v[i] > max)
			max = v[i];
		if (hi && isfinite(hi[i]) && hi[i] > max)
			max = hi[i];
	}
	if (!(max > 0))
		max = 1;
	report_fmt_value(m, sizeof(m), max, percent);
	fputs("<figure class=\"bars\" role=\"img\" aria-label=\"", out);
	report_html_escape(out, title);
	fputs("\"><figcaption>", out);
	report_html_escape(out, unit);
	fprintf(out, " (bars from 0 to %s)</figcaption>\n", m);
	for (int r = 0; r < nrows; r++) {
		int figure = 0;

		/* A group with no figure in any column is no group: nothing
		 * shown that says nothing (the side-by-side table names its
		 * results and why). */
		for (int c = 0; c < ncols; c++)
			figure |= isfinite(v[r * ncols + c]);
		if (!figure)
			continue;
		fputs("<div class=\"group\"><div class=\"glabel\">", out);
		report_html_escape(out, labels[r]);
		fputs("</div>\n", out);
		for (int c = 0; c < ncols; c++) {
			int k = r * ncols + c;
			double x = v[k];
			char val[32];

			report_fmt_value(val, sizeof(val), x, percent);
			fprintf(out, "<div class=\"bar\"><span class=\"k\">%c</span>"
				     "<span class=\"track\"", 'A' + c);
			if (tips && tips[k]) {
				fputs(" title=\"", out);
				report_html_escape(out, tips[k]);
				fputs("\"", out);
			}
			fputs(">", out);
			if (isfinite(x) && x >= 0)
				fprintf(out, "<b class=\"fill\" style=\"width:%.2f%%;"
					     "background:%s\"></b>",
					share(x, max), report_color(c));
			if (lo && hi && isfinite(x) && isfinite(lo[k]) &&
			    isfinite(hi[k]) && hi[k] >= lo[k])
				fprintf(out, "<b class=\"wh\" style=\"left:%.2f%%;"
					     "width:%.2f%%\"></b>",
					share(lo[k], max),
					share(hi[k], max) - share(lo[k], max));
			fprintf(out, "</span><span class=\"v\">%c ", 'A' + c);
			report_html_escape(out, texts && texts[k] ? texts[k] : val);
			fputs("</span></div>\n", out);
		}
		fputs("</div>\n", out);
	}
	fputs("</figure>\n", out);
}
