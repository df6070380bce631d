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
#include "view/ui_notes.h"

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
 * Horizontal bars in HTML (report_bars.c): nrows groups of ncols bars,
 * each group under its label, each bar a row of the column's letter and
 * colour, the bar and its value, so that labels and values flow with the
 * page's width and never overlap. v, lo, hi are nrows x ncols
 * (row-major); lo/hi may be NULL (no whiskers); NaN draws no bar. Bars
 * start at 0; the axis ends at the largest v or hi (at least min_max, so
 * a fraction axis can be pinned to 100 %). labels[r] is group r's label,
 * tips (NULL or nrows x ncols, entries may be NULL) each bar's hover
 * text, texts (NULL or nrows x ncols, entries may be NULL) what the bar
 * says instead of its value ("12.3?1", "skipped [1]": the tables' cell
 * texts). A group whose v is NaN in every column is left out (issue 30:
 * no bar that says nothing; the side-by-side table names the result).
 */
void report_bars(FILE *out, const char *title, const char *unit,
		 char labels[][160], int nrows, int ncols, const double *v,
		 const double *lo, const double *hi, int percent, double min_max,
		 const char *const *tips, const char *const *texts);

/* Whether r is a measured, passing GEMM placed on a roofline. */
int report_on_roofline(const struct bf_record *r);

/* What the page's tables say about its GEMM cells, built once
 * (report_tables.c): each cell's text as the text tables write it
 * ("12.3?1": the median GFLOP/s, ? and the numbers of its unreliable
 * reasons' notes; "skipped [1]", "FAIL [2]": its reason's note; "n/a"),
 * the notes those numbers point to, and the skip and failure reasons of
 * the bandwidth and batching records, numbered on after them. */
struct report_cells {
	int nrows, ncols;
	char (*text)[64];            /* nrows x ncols */
	struct ui_reason_groups groups; /* ?K: unreliable reasons by kind */
	struct ui_notes reasons;        /* [K]: skip and failure reasons */
};

/* Builds rc for table t (its GEMM cells, then the bandwidth and batching
 * records of its columns' hosts); free with report_cells_free. */
void report_cells_build(struct report_cells *rc, const struct compare_table *t);
void report_cells_free(struct report_cells *rc);

/* An entry's state as the tables write it: "pass", "skipped [1]",
 * "FAIL [2]" (the number of reason's note in rc). */
void report_status_text(const struct report_cells *rc, enum bf_status st,
			const char *reason, char *buf, size_t len);

/* The notes as a list: every ?K group (counted in cells) when groups is
 * set, and the [K] reasons whose used[K - 1] is set (used NULL: all);
 * nothing when none is. */
void report_notes_list(FILE *out, const struct report_cells *rc, int groups,
		       const unsigned char *used);

/* The hosts side by side: a row per (device, dtype, n), ordered as ctl
 * run's side-by-side table (the CPU, then cuda:0, cuda:1, ...), a column
 * per column of t with rc's cell texts, then each column's speed over
 * column A's ("B/A": "4.80x", ? when either figure is unreliable; the U
 * test's verdict on hover), then the notes. */
void report_side_by_side(FILE *out, const struct compare_table *t,
			 const struct report_cells *rc);

/* One log-log roofline chart per kind of device (the CPUs, the GPUs,
 * then any other device name), with every column's points in its colour
 * (a marker per dtype) and each host's roofs (report_roofline.c): the
 * memory roof (bandwidth x FLOP/byte) up to each dtype's peak; what the
 * roofs are, in words, under it, and every point as a table row. */
void report_roofline_kinds(FILE *out, const struct compare_table *t);

/* One line per series of host h's history (report_history.c; device,
 * dtype, n, settings: a series never crosses a change of settings,
 * marked by a dashed line with the differing option on hover, and the
 * run where other settings begin marked in the run list under the
 * chart), runs oldest left and numbered; each change point a marked
 * line whose hover text gives its change, p and the provenance that
 * differs across it (model/history.h). */
void report_history_chart(FILE *out, const struct history *h);

#endif
