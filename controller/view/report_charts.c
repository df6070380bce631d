/*
 * What the report's charts share (see report_charts.h): the HTML escape,
 * the palette (colours follow the column, A, B, ..., everywhere, so a
 * reader matches bars and points to runs and hosts by colour and by the
 * legend), the format of a value beside a bar, and which records sit on
 * a roofline. The charts themselves: report_bars.c (bars, as HTML),
 * report_roofline.c, report_history.c (SVG), report_tables.c.
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

/* Whether g is a measured, passing GEMM placed on a roofline. */
int report_on_roofline(const struct bf_record *r)
{
	const struct bf_rec_gemm *g = &r->u.gemm;

	return r->type == BF_REC_GEMM && g->status == BF_STATUS_PASS &&
	       g->device && g->dtype && g->bandwidth_kind &&
	       g->bandwidth_gbps > 0 && g->arithmetic_intensity > 0 &&
	       g->gflops > 0;
}
