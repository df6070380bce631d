/*
 * The live table's layout: which columns fit and how wide, the screen's
 * regions, which hosts the panel shows, the rows' sort and grouping, and
 * the help screen; see ui_layout.h. What each cell says is ui_cells.c's,
 * the sections under the rows ui_sections.c's. Pure arithmetic over a
 * snapshot of the run model: no curses, no I/O, no clocks.
 */
#include "view/ui_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/*
 * The columns. When the terminal is too narrow for all of them at their
 * minimum widths, they are dropped in this order (highest drop_rank first):
 *
 *   1. GFLOP/J    (11)  energy efficiency: n/a where no counter is
 *                       readable (most CPUs without root, older GPUs)
 *   2. peak MiB   (10)  memory is a secondary concern while it runs
 *   3. GPU/CPU     (9)  derivable from two rows of the table
 *   4. median ms   (8)  redundant with GFLOP/s for a given n
 *   5. vs fp32     (7)  derivable from two rows of the table
 *   6. %roof       (6)  the GFLOP/s against the roofline: for a large n it
 *                       is %peak (compute-bound), so %peak outlives it
 *   7. %peak       (5)  the GFLOP/s against what the device could do
 *   8. vs ref      (4)  against what the product measured elsewhere: a
 *                       health verdict ("!" below 80 %), where it exists
 *   9. Δ%          (3)
 *  10. ok/fail     (2)  checks passed/failed on the device: failures
 *                       still show in the state column and panel
 *  11. n           (1)  (only shown when sweeping)
 *
 * host, device, dtype, GFLOP/s and state are never dropped. A column with
 * no value in any row (vs fp32 and GPU/CPU when only fp32 ran on a CPU)
 * goes before all of these, in the same order among themselves: it would
 * only show n/a (tests/unit/test_ui_layout.c holds the 80-column cases).
 *
 * The plain table (table.c) prints every column with these titles, in
 * this order, with ui_cell_text's texts.
 */
static const struct {
	const char *title;
	int min_width;
	int drop_rank;
	int right;
} col_defs[UI_NCOLS] = {
	[UI_COL_HOST] = { "host", 6, 0, 0 },
	[UI_COL_DEVICE] = { "device", 6, 0, 0 },
	[UI_COL_DTYPE] = { "dtype", 5, 0, 0 },
	[UI_COL_N] = { "n", 5, 1, 1 },
	[UI_COL_GFLOPS] = { "GFLOP/s", 8, 0, 1 },
	[UI_COL_DELTA] = { "\xce\x94%", 7, 3, 1 },
	[UI_COL_PCT_PEAK] = { "%peak", 5, 5, 1 },
	[UI_COL_VS_REF] = { "vs ref", 6, 4, 1 },
	[UI_COL_PCT_ROOF] = { "%roof", 6, 6, 1 },
	[UI_COL_MEDIAN] = { "med ms", 8, 8, 1 },
	[UI_COL_VS_FP32] = { "vs fp32", 7, 7, 1 },
	[UI_COL_GPU_VS_CPU] = { "GPU/CPU", 7, 9, 1 },
	[UI_COL_PEAK] = { "peak MiB", 8, 10, 1 },
	[UI_COL_ENERGY] = { "GFLOP/J", 7, 11, 1 },
	[UI_COL_CHECKS] = { "ok/fail", 7, 2, 1 },
	[UI_COL_STATE] = { "state", 13, 0, 0 },
};

/* Wanted widths are capped so that one long host name or failure reason
 * cannot push every other column off the screen. */
#define HOST_WIDTH_MAX 24
#define STATE_WIDTH_MAX 60
/* Host and device names are kept whole up to these widths before any
 * optional column is considered. */
#define HOST_MIN_MAX 12
#define DEVICE_MIN_MAX 8

void ui_columns_for(const struct model_snapshot *snap, int utf8,
		    struct ui_col_spec spec[UI_NCOLS])
{
	char buf[640];
	int first_n = -1;

	for (int c = 0; c < UI_NCOLS; c++) {
		spec[c].title = col_defs[c].title;
		spec[c].enabled = 1;
		spec[c].min_width = col_defs[c].min_width;
		spec[c].drop_rank = col_defs[c].drop_rank;
		spec[c].right = col_defs[c].right;
		spec[c].want_width = ui_imax(col_defs[c].min_width,
					  ui_text_width(col_defs[c].title));
		spec[c].empty = col_defs[c].drop_rank > 0;
	}
	if (!utf8)
		spec[UI_COL_DELTA].title = "chg%";
	spec[UI_COL_N].enabled = 0;
	for (int i = 0; i < snap->nrows; i++) {
		const struct model_row *r = &snap->rows[i];

		if (first_n < 0)
			first_n = r->n;
		else if (r->n != first_n)
			spec[UI_COL_N].enabled = 1;
		for (int c = 0; c < UI_NCOLS; c++) {
			ui_cell_text(snap, r, (enum ui_col)c, buf, sizeof(buf));
			spec[c].want_width = ui_imax(spec[c].want_width,
						  ui_text_width(buf));
			if (strcmp(buf, "n/a") != 0)
				spec[c].empty = 0;
		}
	}
	spec[UI_COL_HOST].want_width =
		ui_imin(spec[UI_COL_HOST].want_width, HOST_WIDTH_MAX);
	spec[UI_COL_HOST].min_width = ui_imax(spec[UI_COL_HOST].min_width,
		ui_imin(spec[UI_COL_HOST].want_width, HOST_MIN_MAX));
	spec[UI_COL_DEVICE].min_width = ui_imax(spec[UI_COL_DEVICE].min_width,
		ui_imin(spec[UI_COL_DEVICE].want_width, DEVICE_MIN_MAX));
	spec[UI_COL_STATE].want_width =
		ui_imin(spec[UI_COL_STATE].want_width, STATE_WIDTH_MAX);
}

static int used_width(const struct ui_col_place out[UI_NCOLS])
{
	int used = 0, shown = 0;

	for (int c = 0; c < UI_NCOLS; c++)
		if (out[c].shown) {
			used += out[c].width;
			shown++;
		}
	return shown ? used + (shown - 1) * UI_COL_GAP : 0;
}

int ui_layout_columns(int width, const struct ui_col_spec spec[UI_NCOLS],
		      struct ui_col_place out[UI_NCOLS])
{
	int used, spare, max_rank = 0, x = 0;

	for (int c = 0; c < UI_NCOLS; c++) {
		out[c].shown = spec[c].enabled;
		out[c].width = spec[c].min_width;
		out[c].x = 0;
		max_rank = ui_imax(max_rank, spec[c].drop_rank);
	}
	for (used = used_width(out); used > width; used = used_width(out)) {
		int drop = -1;

		for (int c = 0; c < UI_NCOLS; c++)
			if (out[c].shown && spec[c].drop_rank > 0 &&
			    (drop < 0 || spec[c].empty > spec[drop].empty ||
			     (spec[c].empty == spec[drop].empty &&
			      spec[c].drop_rank > spec[drop].drop_rank)))
				drop = c;
		if (drop < 0)
			break; /* only the essentials left: the caller clips */
		out[drop].shown = 0;
	}
	spare = width - used;
	for (int rank = 0; rank <= max_rank && spare > 0; rank++)
		for (int c = 0; c < UI_NCOLS && spare > 0; c++) {
			int grow;

			if (!out[c].shown || spec[c].drop_rank != rank)
				continue;
			grow = ui_imin(spare, spec[c].want_width - out[c].width);
			if (grow > 0) {
				out[c].width += grow;
				spare -= grow;
			}
		}
	for (int c = 0; c < UI_NCOLS; c++)
		if (out[c].shown) {
			out[c].x = x;
			x += out[c].width + UI_COL_GAP;
		}
	return used_width(out);
}

void ui_layout_rows(int height, int nhosts, struct ui_rows *out)
{
	int left, panel;

	memset(out, 0, sizeof(*out));
	if (height < UI_MIN_HEIGHT) {
		out->too_small = 1;
		return;
	}
	left = height - 4; /* header, rule, titles, footer */
	panel = ui_imin(ui_imax(nhosts, 1), ui_imax(left / 3, 1));
	out->header_y = 0;
	out->panel_y = 1;
	out->panel_lines = panel;
	out->rule_y = out->panel_y + panel;
	out->titles_y = out->rule_y + 1;
	out->body_y = out->titles_y + 1;
	out->footer_y = height - 1;
	out->body_lines = out->footer_y - out->body_y;
}

static int panel_class(enum host_state s)
{
	switch (s) {
	case HOST_FAILED:
		return 0;
	case HOST_CONNECTING:
	case HOST_DEPLOYING:
	case HOST_BUILDING:
	case HOST_RUNNING:
		return 1;
	case HOST_PENDING:
		return 2;
	case HOST_INTERRUPTED:
		return 3;
	case HOST_DONE:
		return 4;
	}
	return 4;
}

int ui_panel_hosts(const struct model_snapshot *snap, int lines, int *idx)
{
	int n = 0, room;

	if (snap->nhosts <= lines) {
		for (int i = 0; i < snap->nhosts; i++)
			idx[i] = i;
		return snap->nhosts;
	}
	room = lines - 1;
	for (int k = 0; k <= 4 && n < room; k++)
		for (int i = 0; i < snap->nhosts && n < room; i++)
			if (panel_class(snap->hosts[i].state) == k)
				idx[n++] = i;
	return n;
}

static const char *const group_names[UI_NGROUPS] = {
	[UI_GROUP_HOST] = "host", [UI_GROUP_DTYPE] = "dtype",
};

static const struct {
	const char *name;
	enum ui_col col;
	int ascending;
} sorts[UI_NSORTS] = {
	[UI_SORT_ARRIVAL] = { "arrival", UI_NCOLS, 1 },
	[UI_SORT_GFLOPS] = { "GFLOP/s", UI_COL_GFLOPS, 0 },
	[UI_SORT_DELTA] = { "change", UI_COL_DELTA, 0 },
	[UI_SORT_PCT_PEAK] = { "%peak", UI_COL_PCT_PEAK, 0 },
	[UI_SORT_PCT_ROOF] = { "%roof", UI_COL_PCT_ROOF, 0 },
	[UI_SORT_MEDIAN] = { "median ms", UI_COL_MEDIAN, 1 },
	[UI_SORT_VS_FP32] = { "vs fp32", UI_COL_VS_FP32, 0 },
	[UI_SORT_GPU_VS_CPU] = { "GPU/CPU", UI_COL_GPU_VS_CPU, 0 },
	[UI_SORT_PEAK] = { "peak MiB", UI_COL_PEAK, 0 },
};

const char *ui_group_name(enum ui_group g)
{
	return (int)g >= 0 && g < UI_NGROUPS ? group_names[g] : "?";
}

const char *ui_sort_name(enum ui_sort s)
{
	return (int)s >= 0 && s < UI_NSORTS ? sorts[s].name : "?";
}

enum ui_col ui_sort_column(enum ui_sort s)
{
	return (int)s >= 0 && s < UI_NSORTS ? sorts[s].col : UI_NCOLS;
}

static double sort_value(const struct model_row *r, enum ui_sort s)
{
	switch (s) {
	case UI_SORT_GFLOPS:
		return r->gflops;
	case UI_SORT_DELTA:
		return ui_delta_pct(r->gflops, r->prev_gflops);
	case UI_SORT_PCT_PEAK:
		return r->fraction_of_peak;
	case UI_SORT_PCT_ROOF:
		return r->fraction_of_roofline;
	case UI_SORT_MEDIAN:
		return r->median_ms;
	case UI_SORT_VS_FP32:
		return r->vs_fp32;
	case UI_SORT_GPU_VS_CPU:
		return r->gpu_vs_cpu;
	case UI_SORT_PEAK:
		return r->peak_mib;
	default:
		return NAN;
	}
}

struct sort_ctx {
	const struct model_row *rows;
	const int *group;     /* per row: group key */
	const double *value;  /* per row: sort value, NaN = missing */
	int sorted;           /* 0: arrival order only */
	int ascending;
};

/* < 0 when row a goes before row b. */
static int row_cmp(const struct sort_ctx *cx, int a, int b)
{
	double va, vb;

	if (cx->group[a] != cx->group[b])
		return cx->group[a] < cx->group[b] ? -1 : 1;
	if (cx->sorted) {
		va = cx->value[a];
		vb = cx->value[b];
		if (isnan(va) != isnan(vb))
			return isnan(va) ? 1 : -1;
		if (!isnan(va) && va != vb)
			return (va < vb) == cx->ascending ? -1 : 1;
	}
	if (cx->rows[a].host != cx->rows[b].host)
		return cx->rows[a].host < cx->rows[b].host ? -1 : 1;
	return a < b ? -1 : a > b ? 1 : 0;
}

/* A stable merge sort of idx[0..n) with tmp as scratch (qsort is not
 * stable and has no context argument in C11). */
static void merge_sort(const struct sort_ctx *cx, int *idx, int *tmp, int n)
{
	int mid = n / 2, i = 0, j, k = 0;

	if (n < 2)
		return;
	merge_sort(cx, idx, tmp, mid);
	merge_sort(cx, idx + mid, tmp, n - mid);
	j = mid;
	while (i < mid && j < n)
		tmp[k++] = row_cmp(cx, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
	while (i < mid)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, (size_t)n * sizeof(*idx));
}

/* Group keys: the host index, or the dtype's rank in order of first
 * appearance. */
static void group_keys(const struct model_snapshot *snap, enum ui_group g, int *key)
{
	for (int i = 0; i < snap->nrows; i++) {
		key[i] = snap->rows[i].host;
		if (g != UI_GROUP_DTYPE)
			continue;
		key[i] = i;
		for (int j = 0; j < i; j++)
			if (snap->rows[j].dtype == snap->rows[i].dtype) {
				key[i] = key[j];
				break;
			}
	}
}

void ui_sort_rows(const struct model_snapshot *snap, enum ui_group g, enum ui_sort s,
		  int *order)
{
	int n = snap->nrows;
	int *key, *tmp;
	double *value;
	struct sort_ctx cx;

	if (n <= 0)
		return;
	key = bf_xcalloc((size_t)n, sizeof(*key));
	tmp = bf_xcalloc((size_t)n, sizeof(*tmp));
	value = bf_xcalloc((size_t)n, sizeof(*value));
	group_keys(snap, g, key);
	for (int i = 0; i < n; i++) {
		order[i] = i;
		value[i] = sort_value(&snap->rows[i], s);
	}
	cx.rows = snap->rows;
	cx.group = key;
	cx.value = value;
	cx.sorted = s != UI_SORT_ARRIVAL && (int)s >= 0 && s < UI_NSORTS;
	cx.ascending = cx.sorted ? sorts[s].ascending : 1;
	merge_sort(&cx, order, tmp, n);
	free(value);
	free(tmp);
	free(key);
}

static int same_group(const struct model_snapshot *snap, enum ui_group g, int a, int b)
{
	if (g == UI_GROUP_DTYPE)
		return snap->rows[a].dtype == snap->rows[b].dtype;
	return snap->rows[a].host == snap->rows[b].host;
}

int ui_build_lines(const struct model_snapshot *snap, enum ui_group g,
		   const int *order, struct ui_line *lines)
{
	int n = 0;

	for (int i = 0; i < snap->nrows; i++) {
		if (i == 0 || !same_group(snap, g, order[i - 1], order[i])) {
			lines[n].heading = 1;
			lines[n++].row = order[i];
		}
		lines[n].heading = 0;
		lines[n++].row = order[i];
	}
	return n;
}

const char *const *ui_help_lines(void)
{
	static const char *const lines[] = {
		"benchfleet live table",
		"",
		"  q            stop: the agents are stopped, what arrived is archived",
		"  Ctrl-C       the same",
		"  Up/Down      scroll one line",
		"  PgUp/PgDn    scroll one screen (Home/End: first/last)",
		"  v            switch the view: hosts side by side (the default",
		"               with two or more hosts) or a block of rows per host",
		"  Left/Right   side by side: scroll the host columns",
		"  r            side by side: the HOST/REF ratio columns in place",
		"               of the host columns (r again: the hosts)",
		"  s            per host: cycle the sort column: arrival, GFLOP/s,",
		"               change, %peak, %roof, median ms, vs fp32, GPU/CPU,",
		"               peak MiB",
		"  g            per host: group rows by host or by dtype",
		"  ?            this help (Up/Down scroll it, any other key closes it)",
		"",
		"Side by side: a row per device, dtype and n (cuda:0 of every host",
		"together, then cuda:1), a column per host in the command line's",
		"order with its median GFLOP/s (or its state while it has none),",
		"then HOST/REF: each host's speed over the reference host's (the",
		"first, or --baseline HOST). Narrow terminals drop those ratio",
		"columns first (r shows them instead of the hosts); hosts or",
		"ratios that do not fit scroll with Left/Right.",
		"",
		"Per host:",
		"Columns: GFLOP/s (?1: unreliable, for the reason of note ?1 under",
		"the rows: one sample, no warm-up, wide spread or throttled), its",
		"change against this machine's previous archived run with the same",
		"settings (green faster, red slower), % of the device's rated peak",
		"(>42%: of a derived peak, an upper estimate, so at least 42 %),",
		"% of a published measurement of the same product and n (vs ref; !",
		"below 80 %: below reference), % of its roofline (M memory-, C",
		"compute-bound), median ms, speed vs fp32 on the same device, fp32",
		"GPU vs CPU, peak MiB, GFLOP per joule, the device's checks",
		"ok/failed (the panel's \"checks\" counts those run of all planned),",
		"the state (skipped [1]: see note [1] under the rows). Narrow",
		"terminals drop, in order: GFLOP/J, peak MiB, GPU/CPU, median ms, vs",
		"fp32, %roof, %peak, vs ref, change, ok/fail, n. Bandwidth, batching",
		"and the notes follow the GEMM rows.",
		"Without a terminal, or with --no-tui, ctl run prints plain lines.",
		NULL,
	};

	return lines;
}
