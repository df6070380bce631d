/*
 * The live table's layout: pure arithmetic and formatting over a snapshot
 * of the run model; see ui_layout.h. No curses, no I/O, no clocks.
 */
#include "ui_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wchar.h>

#include "texttable.h"
#include "xmalloc.h"

/*
 * The columns. When the terminal is too narrow for all of them at their
 * minimum widths, they are dropped in this order (highest drop_rank first):
 *
 *   1. peak MiB    (10) memory is a secondary concern while it runs
 *   2. GPU/CPU     (9)  derivable from two rows of the table
 *   3. median ms   (8)  redundant with GFLOP/s for a given n
 *   4. vs fp32     (7)  derivable from two rows of the table
 *   5. %roof       (6)  the GFLOP/s against the roofline: for a large n it
 *                       is %peak (compute-bound), so %peak outlives it
 *   6. %peak       (5)  the GFLOP/s against what the device could do
 *   7. vs ref      (4)  against what the product measured elsewhere: a
 *                       health verdict ("!" below 80 %), where it exists
 *   8. Δ%          (3)
 *   9. checks      (2)  failures still show in the state column and panel
 *  10. n           (1)  (only shown when sweeping)
 *
 * host, device, dtype, GFLOP/s and state are never dropped. A column with
 * no value in any row (vs fp32 and GPU/CPU when only fp32 ran on a CPU)
 * goes before all of these, in the same order among themselves: it would
 * only show n/a (tests/tui/test_ui_layout.c holds the 80-column cases).
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
	[UI_COL_CHECKS] = { "checks", 6, 2, 1 },
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

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

int ui_text_width(const char *s)
{
	return texttable_text_width(s);
}

/* Display cells of the one character at s (nbytes long): wcwidth under
 * the locale, one cell where it does not convert. */
static int char_width(const char *s, size_t nbytes)
{
	mbstate_t ps;
	wchar_t wc;
	size_t k;
	int w;

	memset(&ps, 0, sizeof(ps));
	k = mbrtowc(&wc, s, nbytes, &ps);
	if (k == (size_t)-1 || k == (size_t)-2)
		return 1;
	w = wcwidth(wc);
	return w < 0 ? 0 : w;
}

/* s made safe to draw into out (len bytes): control characters (a
 * newline in a failure reason would move the cursor) become spaces and,
 * outside UTF-8, each multi-byte character becomes one '?', so that one
 * code point is still one cell. */
static void sanitize(char *out, size_t len, const char *s, int utf8)
{
	size_t o = 0;

	for (; *s && o + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			out[o++] = ' ';
		else if (c >= 0x80 && !utf8) {
			if ((c & 0xC0) != 0x80)
				out[o++] = '?';
		} else
			out[o++] = (char)c;
	}
	/* Cut by len: drop the last character, which may be incomplete. */
	if (*s) {
		while (o > 0 && ((unsigned char)out[o - 1] & 0xC0) == 0x80)
			o--;
		if (o > 0 && (unsigned char)out[o - 1] >= 0xC0)
			o--;
	}
	out[o] = '\0';
}

void ui_fit(char *buf, size_t len, const char *raw, int width, int right,
	    int utf8)
{
	char s[4096];
	int w, keep, pad;
	size_t off = 0, nbytes;
	const char *p;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (width <= 0)
		return;
	sanitize(s, sizeof(s), raw, utf8);
	w = ui_text_width(s);
	if (w <= width) {
		pad = width - w;
		snprintf(buf, len, "%*s%s%*s", right ? pad : 0, "", s,
			 right ? 0 : pad, "");
		return;
	}
	/* Cut on a character boundary, one cell left for the ellipsis; a
	 * wide character that would not fit whole is left out and its cell
	 * padded. */
	keep = width - 1;
	for (p = s; *p;) {
		const char *q = p + 1;
		int cw;

		while (((unsigned char)*q & 0xC0) == 0x80)
			q++;
		cw = char_width(p, (size_t)(q - p));
		if (cw > keep)
			break;
		keep -= cw;
		p = q;
	}
	nbytes = (size_t)(p - s);
	off = (size_t)snprintf(buf, len, "%.*s%*s", (int)nbytes, s, keep, "");
	if (off < len)
		snprintf(buf + off, len - off, "%s", utf8 ? "\xe2\x80\xa6" : "~");
}

size_t ui_delta_note(const struct model_snapshot *snap, int utf8, char *buf,
		     size_t len)
{
	size_t off = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	for (int i = 0; i < snap->nhosts && off + 1 < len; i++) {
		const struct model_host *h = &snap->hosts[i];
		int k;

		if (!h->baseline_note[0])
			continue;
		k = snprintf(buf + off, len - off, "%s%s n/a for %s: %s",
			     off ? "; " : "", utf8 ? "\xce\x94%" : "chg%",
			     h->name, h->baseline_note);
		if (k < 0)
			break;
		off += (size_t)k;
	}
	return off < len ? off : len - 1;
}

double ui_delta_pct(double now, double prev)
{
	if (isnan(now) || isnan(prev) || !(prev > 0))
		return NAN;
	return 100.0 * (now - prev) / prev;
}

enum ui_tone ui_host_state_text(const struct model_host *h, char *buf,
				size_t len)
{
	switch (h->state) {
	case HOST_PENDING:
		snprintf(buf, len, "pending");
		return UI_TONE_DIM;
	case HOST_CONNECTING:
	case HOST_DEPLOYING:
	case HOST_BUILDING:
		snprintf(buf, len, "%s", host_state_name(h->state));
		return UI_TONE_ACTIVE;
	case HOST_RUNNING:
		if (h->gemm_total > 0)
			snprintf(buf, len, "running %d/%d", h->gemm_done,
				 h->gemm_total);
		else
			snprintf(buf, len, "running");
		return UI_TONE_ACTIVE;
	case HOST_DONE:
		snprintf(buf, len, "done");
		return UI_TONE_NORMAL;
	case HOST_FAILED:
		snprintf(buf, len, "failed%s%s", h->reason[0] ? ": " : "",
			 h->reason);
		return UI_TONE_BAD;
	case HOST_INTERRUPTED:
		snprintf(buf, len, "interrupted");
		return UI_TONE_DIM;
	}
	snprintf(buf, len, "%s", host_state_name(h->state));
	return UI_TONE_NORMAL;
}

static enum ui_tone fmt_num(char *buf, size_t len, double v, int decimals,
			    const char *suffix)
{
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return UI_TONE_DIM;
	}
	snprintf(buf, len, "%.*f%s", decimals, v, suffix);
	return UI_TONE_NORMAL;
}

enum ui_tone ui_cell_text(const struct model_snapshot *snap, const struct model_row *r,
			  enum ui_col c, char *buf, size_t len)
{
	const struct model_checks *ck;
	double d;

	buf[0] = '\0';
	switch (c) {
	case UI_COL_HOST:
		snprintf(buf, len, "%s", snap->hosts[r->host].name);
		return UI_TONE_NORMAL;
	case UI_COL_DEVICE:
		snprintf(buf, len, "%s", r->device);
		return UI_TONE_NORMAL;
	case UI_COL_DTYPE:
		snprintf(buf, len, "%s", r->dtype);
		return UI_TONE_NORMAL;
	case UI_COL_N:
		if (r->occurrence > 1)
			snprintf(buf, len, "%d#%d", r->n, r->occurrence);
		else
			snprintf(buf, len, "%d", r->n);
		return UI_TONE_NORMAL;
	case UI_COL_GFLOPS:
		if (!isnan(r->gflops) && r->reliable == 0) {
			snprintf(buf, len, "%.1f%s", r->gflops,
				 UI_UNRELIABLE_MARK);
			return UI_TONE_DIM;
		}
		return fmt_num(buf, len, r->gflops, 1, "");
	case UI_COL_PCT_PEAK:
		d = 100.0 * r->fraction_of_peak;
		return fmt_num(buf, len, d, !isnan(d) && d < 9.95 ? 1 : 0, "%");
	case UI_COL_VS_REF:
		/* 0 in a zeroed row: no reference */
		d = r->reference_gflops > 0 ? 100.0 * r->fraction_of_reference :
					      NAN;
		if (isnan(d))
			return fmt_num(buf, len, d, 0, "%");
		if (r->below_reference == 1) {
			snprintf(buf, len, "%.0f%%%s", d, UI_BELOW_REF_MARK);
			return UI_TONE_BAD;
		}
		return fmt_num(buf, len, d, 0, "%");
	case UI_COL_PCT_ROOF:
		d = 100.0 * r->fraction_of_roofline;
		return fmt_num(buf, len, d, !isnan(d) && d < 9.95 ? 1 : 0,
			       r->bound == 'M' ? "% M" :
			       r->bound == 'C' ? "% C" : "%");
	case UI_COL_DELTA:
		d = ui_delta_pct(r->gflops, r->prev_gflops);
		if (isnan(d))
			return fmt_num(buf, len, d, 1, "");
		/* The tone follows the printed value, so "+0.0%" is not
		 * green and a rounded-away change has no colour. */
		d = round(d * 10.0) / 10.0;
		if (d == 0.0) {
			snprintf(buf, len, "0.0%%");
			return UI_TONE_NORMAL;
		}
		snprintf(buf, len, "%+.1f%%", d);
		return d > 0 ? UI_TONE_GOOD : UI_TONE_BAD;
	case UI_COL_MEDIAN:
		return fmt_num(buf, len, r->median_ms, 3, "");
	case UI_COL_VS_FP32:
		return fmt_num(buf, len, r->vs_fp32, 2, "x");
	case UI_COL_GPU_VS_CPU:
		return fmt_num(buf, len, r->gpu_vs_cpu, 1, "x");
	case UI_COL_PEAK:
		return fmt_num(buf, len, r->peak_mib, 0, "");
	case UI_COL_CHECKS:
		ck = model_snapshot_checks(snap, r->host, r->device);
		if (!ck) {
			snprintf(buf, len, "n/a");
			return UI_TONE_DIM;
		}
		if (ck->passed + ck->failed == 0) {
			snprintf(buf, len, "skip");
			return UI_TONE_DIM;
		}
		snprintf(buf, len, "%d/%d", ck->passed, ck->failed);
		return ck->failed ? UI_TONE_BAD : UI_TONE_NORMAL;
	case UI_COL_STATE:
		if (r->status == BF_STATUS_FAIL) {
			snprintf(buf, len, "FAIL%s%s", r->reason[0] ? ": " : "",
				 r->reason);
			return UI_TONE_BAD;
		}
		if (r->status == BF_STATUS_SKIPPED) {
			snprintf(buf, len, "skipped%s%s",
				 r->reason[0] ? ": " : "", r->reason);
			return UI_TONE_DIM;
		}
		return ui_host_state_text(&snap->hosts[r->host], buf, len);
	case UI_NCOLS:
		break;
	}
	return UI_TONE_NORMAL;
}

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
		spec[c].want_width = imax(col_defs[c].min_width,
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
			spec[c].want_width = imax(spec[c].want_width,
						  ui_text_width(buf));
			if (strcmp(buf, "n/a") != 0)
				spec[c].empty = 0;
		}
	}
	spec[UI_COL_HOST].want_width =
		imin(spec[UI_COL_HOST].want_width, HOST_WIDTH_MAX);
	spec[UI_COL_HOST].min_width = imax(spec[UI_COL_HOST].min_width,
		imin(spec[UI_COL_HOST].want_width, HOST_MIN_MAX));
	spec[UI_COL_DEVICE].min_width = imax(spec[UI_COL_DEVICE].min_width,
		imin(spec[UI_COL_DEVICE].want_width, DEVICE_MIN_MAX));
	spec[UI_COL_STATE].want_width =
		imin(spec[UI_COL_STATE].want_width, STATE_WIDTH_MAX);
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
		max_rank = imax(max_rank, spec[c].drop_rank);
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
			grow = imin(spare, spec[c].want_width - out[c].width);
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
	panel = imin(imax(nhosts, 1), imax(left / 3, 1));
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
			if (strcmp(snap->rows[j].dtype, snap->rows[i].dtype) == 0) {
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
		return strcmp(snap->rows[a].dtype, snap->rows[b].dtype) == 0;
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

/* Cells of a small section table: ncols columns, rows added in order. */
struct sect {
	int ncols;
	const char *const *titles;
	const int *right;
	char (*cells)[200];   /* nrows x ncols */
	enum ui_tone *tones;  /* per row */
	int nrows, cap;
};

static char *sect_cell(struct sect *t, int row, int col)
{
	return t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
}

static int sect_row(struct sect *t, enum ui_tone tone)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 8;
		t->cells = bf_xrealloc(t->cells, (size_t)t->cap *
						 (size_t)t->ncols * sizeof(*t->cells));
		t->tones = bf_xrealloc(t->tones, (size_t)t->cap * sizeof(*t->tones));
	}
	for (int c = 0; c < t->ncols; c++)
		sect_cell(t, t->nrows, c)[0] = '\0';
	t->tones[t->nrows] = tone;
	return t->nrows++;
}

/* One aligned line: cells padded to widths w (the last left-aligned one
 * not padded). */
static void sect_line(const struct sect *t, const int *w, const char *const *cells,
		      char *buf, size_t len)
{
	size_t off = 0;
	int last = t->ncols - 1;

	buf[0] = '\0';
	for (int c = 0; c < t->ncols && off + 1 < len; c++) {
		int pad = w[c] - ui_text_width(cells[c]);
		int k;

		pad = pad < 0 ? 0 : pad;
		if (c == last && !t->right[c])
			pad = 0;
		k = snprintf(buf + off, len - off, "%s%*s%s%*s", c ? " " : "",
			     t->right[c] ? pad : 0, "", cells[c],
			     t->right[c] ? 0 : pad, "");
		if (k < 0)
			break;
		off += (size_t)k;
		if (off >= len)
			off = len - 1;
	}
}

/* Appends heading, titles and rows of t to *out (n lines, cap). */
static void sect_emit(const struct sect *t, const char *heading,
		      struct ui_text_line **out, int *n, int *cap)
{
	int w[8] = { 0 };
	const char *cells[8];

	if (t->nrows == 0)
		return;
	for (int c = 0; c < t->ncols; c++) {
		w[c] = ui_text_width(t->titles[c]);
		for (int r = 0; r < t->nrows; r++)
			w[c] = imax(w[c], ui_text_width(t->cells[(size_t)r * (size_t)t->ncols + (size_t)c]));
	}
	if (*n + t->nrows + 2 > *cap) {
		*cap = *n + t->nrows + 2 + 8;
		*out = bf_xrealloc(*out, (size_t)*cap * sizeof(**out));
	}
	memset(&(*out)[*n], 0, sizeof(**out));
	(*out)[*n].heading = 1;
	snprintf((*out)[*n].text, sizeof((*out)[*n].text), "%s", heading);
	(*n)++;
	memset(&(*out)[*n], 0, sizeof(**out));
	(*out)[*n].titles = 1;
	sect_line(t, w, t->titles, (*out)[*n].text, sizeof((*out)[*n].text));
	(*n)++;
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			cells[c] = t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
		memset(&(*out)[*n], 0, sizeof(**out));
		(*out)[*n].tone = t->tones[r];
		sect_line(t, w, cells, (*out)[*n].text, sizeof((*out)[*n].text));
		(*n)++;
	}
}

/* "pass", "FAIL: reason", "skipped: reason", and its tone. */
static enum ui_tone status_text(enum bf_status st, const char *reason,
				char *buf, size_t len)
{
	if (st == BF_STATUS_FAIL) {
		snprintf(buf, len, "FAIL%s%s", reason[0] ? ": " : "", reason);
		return UI_TONE_BAD;
	}
	if (st == BF_STATUS_SKIPPED) {
		snprintf(buf, len, "skipped%s%s", reason[0] ? ": " : "", reason);
		return UI_TONE_DIM;
	}
	snprintf(buf, len, "pass");
	return UI_TONE_NORMAL;
}

/* A latency in ms with three significant digits ("0.000204", "1.23"). */
static void fmt_ms3(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

int ui_workload_lines(const struct model_snapshot *snap,
		      struct ui_text_line **out)
{
	static const char *const bw_titles[] = { "host", "device", "kind",
						 "GB/s", "state" };
	static const int bw_right[] = { 0, 0, 0, 1, 0 };
	static const char *const ba_titles[] = { "host", "device", "dtype",
		"single ms", "batch ms", "speed-up", "state" };
	static const int ba_right[] = { 0, 0, 0, 1, 1, 1, 0 };
	struct sect bw = { 5, bw_titles, bw_right, NULL, NULL, 0, 0 };
	struct sect ba = { 7, ba_titles, ba_right, NULL, NULL, 0, 0 };
	char heading[96];
	int n = 0, cap = 0, rows = 0;

	*out = NULL;
	for (int i = 0; i < snap->nbandwidth; i++) {
		const struct model_bandwidth *b = &snap->bandwidth[i];
		int same = 1, r;
		char st[400];
		enum ui_tone tone;

		/* The skipped kinds of one device for one reason: one line. */
		while (b->status == BF_STATUS_SKIPPED && i + same < snap->nbandwidth) {
			const struct model_bandwidth *o = &snap->bandwidth[i + same];

			if (o->host != b->host || o->status != b->status ||
			    strcmp(o->device, b->device) != 0 ||
			    strcmp(o->reason, b->reason) != 0)
				break;
			same++;
		}
		tone = status_text(b->status, b->reason, st, sizeof(st));
		r = sect_row(&bw, tone);
		snprintf(sect_cell(&bw, r, 0), 200, "%s", snap->hosts[b->host].name);
		snprintf(sect_cell(&bw, r, 1), 200, "%s", b->device);
		if (same > 1)
			snprintf(sect_cell(&bw, r, 2), 200, "%d kinds", same);
		else
			snprintf(sect_cell(&bw, r, 2), 200, "%s", b->kind);
		fmt_num(sect_cell(&bw, r, 3), 200, b->median_gbps, 1, "");
		snprintf(sect_cell(&bw, r, 4), 200, "%.199s", st);
		i += same - 1;
	}
	for (int i = 0; i < snap->nbatching; i++) {
		const struct model_batching *b = &snap->batching[i];
		char st[400];
		int r = sect_row(&ba, status_text(b->status, b->reason, st, sizeof(st)));

		if (b->rows > 0)
			rows = b->rows;
		snprintf(sect_cell(&ba, r, 0), 200, "%s", snap->hosts[b->host].name);
		snprintf(sect_cell(&ba, r, 1), 200, "%s", b->device);
		snprintf(sect_cell(&ba, r, 2), 200, "%s", b->dtype);
		fmt_ms3(sect_cell(&ba, r, 3), 200, b->single_ms);
		fmt_ms3(sect_cell(&ba, r, 4), 200, b->batch_ms);
		fmt_num(sect_cell(&ba, r, 5), 200, b->speedup, 1, "x");
		snprintf(sect_cell(&ba, r, 6), 200, "%.199s", st);
	}
	sect_emit(&bw, "bandwidth (median GB/s)", out, &n, &cap);
	if (rows > 0)
		snprintf(heading, sizeof(heading),
			 "batching (%d one-row calls vs one %d-row batch)", rows, rows);
	else
		snprintf(heading, sizeof(heading), "batching");
	sect_emit(&ba, heading, out, &n, &cap);
	free(bw.cells);
	free(bw.tones);
	free(ba.cells);
	free(ba.tones);
	return n;
}

int ui_host_progress(const struct model_host *h)
{
	long checks = 0, gemm = 0;

	if (h->state == HOST_DONE)
		return 1000;
	if (h->checks_total > 0)
		checks = 100L * imin(imax(h->checks_done, 0), h->checks_total) /
			 h->checks_total;
	else if (h->gemm_total > 0)
		checks = 100; /* no checks planned: nothing to wait for */
	if (h->gemm_total > 0)
		gemm = 900L * imin(imax(h->gemm_done, 0), h->gemm_total) /
		       h->gemm_total;
	return (int)(checks + gemm);
}

/* Appends s at *off in buf, whole or not at all (never half a UTF-8
 * character); 0 when it did not fit. */
static int put(char *buf, size_t len, size_t *off, const char *s)
{
	size_t n = strlen(s);

	if (n >= len - *off)
		return 0;
	memcpy(buf + *off, s, n + 1);
	*off += n;
	return 1;
}

void ui_bar(char *buf, size_t len, int width, int done, int total, int utf8)
{
	/* U+2588 full block, U+258F..U+2589 one to seven eighths, U+2591
	 * light shade. */
	static const char *const eighths[8] = {
		"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d",
		"\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
	};
	long long units = 0;
	int full, part, cells = 0;
	size_t off = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (width <= 0)
		return;
	if (total > 0)
		units = (long long)imin(imax(done, 0), total) * width * 8 / total;
	full = (int)(units / 8);
	part = utf8 ? (int)(units % 8) : 0;
	for (; cells < full; cells++)
		if (!put(buf, len, &off, utf8 ? "\xe2\x96\x88" : "#"))
			return;
	if (part) {
		if (!put(buf, len, &off, eighths[part]))
			return;
		cells++;
	}
	for (; cells < width; cells++)
		if (!put(buf, len, &off, utf8 ? "\xe2\x96\x91" : "."))
			return;
}

void ui_fmt_elapsed(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;

	if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu",
			 (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llu:%02llu", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
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
		"  s            cycle the sort column: arrival, GFLOP/s, change,",
		"               %peak, %roof, median ms, vs fp32, GPU/CPU, peak MiB",
		"  g            group rows by host or by dtype",
		"  ?            this help (any key closes it)",
		"",
		"Columns: GFLOP/s (? unreliable: one sample, no warm-up, wide spread",
		"or throttled), its change against this machine's previous archived",
		"run with the same settings (green faster, red slower), % of the",
		"device's rated peak, % of a published measurement of the same",
		"product and n (vs ref; ! below 80 %: below reference), % of its",
		"roofline (M memory-, C compute-bound), median ms, speed vs fp32 on",
		"the same device, fp32 GPU vs CPU, peak MiB, checks passed/failed.",
		"Narrow terminals drop, in order: peak MiB, GPU/CPU, median ms,",
		"vs fp32, %roof, %peak, vs ref, change, checks, n. Bandwidth and",
		"batching results follow the GEMM rows.",
		"Without a terminal, or with --no-tui, ctl run prints plain lines.",
		NULL,
	};

	return lines;
}
