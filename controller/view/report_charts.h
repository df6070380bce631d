/*
 * report_charts: the SVG charts of ctl report's page (report_charts.c),
 * drawn by report_html.c's sections, and the page's one HTML escape;
 * nothing else includes this. Every
 * string from the archive is HTML-escaped (report_html_escape). All write
 * to out and return nothing: a failed write shows in out's error flag,
 * which report_html_write checks.
 */
#ifndef BF_REPORT_CHARTS_H
#define BF_REPORT_CHARTS_H

#include <stddef.h>
#include <stdio.h>

#include "archive/archive_read.h"
#include "record.h"
#include "model/history.h"
#include "view/report_html.h"

/* Writes s to out with &, <, >, " and ' escaped for HTML text and
 * attribute values. NULL writes nothing. */
void report_html_escape(FILE *out, const char *s);

/* Column col's colour (A, B, ... : Tableau 10, cycling); static. */
const char *report_color(int col);

/* History line j's colour: further along the palette than the columns',
 * so that results do not read as runs A, B, ...; static. */
const char *report_series_color(int j);

/* v as the page prints it beside a bar: "n/a" for NaN; with percent, a
 * fraction as a percentage with one decimal ("42.0%"); else no decimals
 * from 100 on, one from 10, two below. */
void report_fmt_value(char *buf, size_t len, double v, int percent);

/*
 * Horizontal bars: nrows groups of ncols bars. v, lo, hi are nrows x ncols
 * (row-major); lo/hi may be NULL (no whiskers); NaN draws no bar and
 * prints n/a. Bars start at 0; the axis ends at the largest v or hi (at
 * least min_max, so a fraction axis can be pinned to 100 %). labels[r] is
 * group r's label, tips (NULL or nrows x ncols, entries may be NULL) each
 * bar's hover text.
 */
void report_hbars(FILE *out, const char *title, const char *unit,
		  char labels[][160], int nrows, int ncols, const double *v,
		  const double *lo, const double *hi, int percent,
		  double min_max, const char *const *tips);

/* Whether r is a measured, passing GEMM placed on a roofline. */
int report_on_roofline(const struct bf_record *r);

/* One device's log-log roofline chart for host ah of column col (x:
 * FLOP/byte, y: GFLOP/s): the memory roof (AI x bandwidth) up to each
 * peak, the compute roofs (peak_gflops of each dtype), each GEMM a point
 * labelled dtype/n, then the same numbers as a table. */
void report_roofline_chart(FILE *out, int col, const struct archive_host *ah,
			   const char *device);

/* One line per series of host h's history (device, dtype, n, settings:
 * a series never crosses a change of settings, marked by a dashed line
 * with the differing option on hover), runs oldest left; each change
 * point a marked line whose hover text gives its change, p and the
 * provenance that differs across it (model/history.h). */
void report_history_chart(FILE *out, const struct history *h);

#endif
