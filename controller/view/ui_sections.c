/*
 * The sections under the GEMM rows of the live and plain tables: each
 * host's bandwidth and batching results as small aligned tables; see
 * ui_workload_lines in ui_layout.h. Pure: no curses, no I/O.
 */
#include "view/ui_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/ui_notes.h"
#include "xmalloc.h"

/* Columns a section may have. */
#define SECT_MAX_COLS 12

/* Cells of a small section table: ncols (at most SECT_MAX_COLS) columns,
 * rows added in order. */
struct sect {
	int ncols;
	const char *const *titles;
	const int *right;
	const int *drop;      /* per column: 0 never dropped; the highest
			       * goes first when the lines are too wide */
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
/* One line of cells, each padded to w[c] cells; a column whose w[c] is
 * below 0 is left out. */
static void sect_line(const struct sect *t, const int *w, const char *const *cells,
		      char *buf, size_t len)
{
	size_t off = 0;
	int last = -1, first = 1;

	for (int c = 0; c < t->ncols; c++)
		if (w[c] >= 0)
			last = c;
	buf[0] = '\0';
	for (int c = 0; c < t->ncols && off + 1 < len; c++) {
		int pad, k;

		if (w[c] < 0)
			continue;
		pad = w[c] - ui_text_width(cells[c]);
		pad = pad < 0 ? 0 : pad;
		if (c == last && !t->right[c])
			pad = 0;
		k = snprintf(buf + off, len - off, "%s%*s%s%*s", first ? "" : " ",
			     t->right[c] ? pad : 0, "", cells[c],
			     t->right[c] ? 0 : pad, "");
		first = 0;
		if (k < 0)
			break;
		off += (size_t)k;
		if (off >= len)
			off = len - 1;
	}
}

/* Appends heading, titles and rows of t to *out (n lines, cap). */
static void sect_emit(const struct sect *t, const char *heading, int width,
		      struct ui_text_line **out, int *n, int *cap)
{
	int w[SECT_MAX_COLS] = { 0 }, total = -1;
	const char *cells[SECT_MAX_COLS];

	if (t->nrows == 0)
		return;
	for (int c = 0; c < t->ncols; c++) {
		w[c] = ui_text_width(t->titles[c]);
		for (int r = 0; r < t->nrows; r++)
			w[c] = ui_imax(w[c], ui_text_width(t->cells[(size_t)r * (size_t)t->ncols + (size_t)c]));
		total += w[c] + 1;
	}
	/* Too wide for width: the droppable columns go, highest rank
	 * first, until the lines fit or none is left. */
	while (width > 0 && total > width) {
		int drop = -1;

		for (int c = 0; c < t->ncols; c++)
			if (w[c] >= 0 && t->drop && t->drop[c] > 0 &&
			    (drop < 0 || t->drop[c] > t->drop[drop]))
				drop = c;
		if (drop < 0)
			break;
		total -= w[drop] + 1;
		w[drop] = -1;
	}
	if (*n + t->nrows + 2 > *cap) {
		*cap = *n + t->nrows + 2 + 8;
		*out = bf_xrealloc(*out, (size_t)*cap * sizeof(**out));
	}
	memset(&(*out)[*n], 0, sizeof(**out));
	(*out)[*n].heading = 1;
	/* fits: a heading is ui_workload_lines' literal or its 96 bytes */
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

/* An entry's status text ("pass", "skipped [1]": ui_status_text) into
 * buf, and its tone. */
static enum ui_tone status_cell(const struct model_snapshot *snap,
				enum bf_status st, const char *reason,
				char *buf, size_t len)
{
	ui_status_text(snap, st, reason, buf, len);
	return st == BF_STATUS_FAIL ? UI_TONE_BAD :
	       st == BF_STATUS_SKIPPED ? UI_TONE_DIM : UI_TONE_NORMAL;
}

/* A time in microseconds with three significant digits ("0.117",
 * "2.34", "751"); n/a for NaN. */
static void fmt_us3(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static int bandwidth_host(const struct model_snapshot *snap, int i)
{
	return snap->bandwidth[i].host;
}

static int batching_host(const struct model_snapshot *snap, int i)
{
	return snap->batching[i].host;
}

/* Indices of n entries (host_of gives each one's host) in the tables'
 * order: host by host in the run's order (the command line's), each
 * host's entries as they arrived, then those of no known host. Caller
 * frees. */
static int *host_order(const struct model_snapshot *snap, int n,
		       int (*host_of)(const struct model_snapshot *, int))
{
	int *order = bf_xcalloc((size_t)n + 1, sizeof(*order)), k = 0;

	for (int h = 0; h <= snap->nhosts; h++)
		for (int i = 0; i < n; i++) {
			int eh = host_of(snap, i);

			if (h < snap->nhosts ? eh == h :
					       eh < 0 || eh >= snap->nhosts)
				order[k++] = i;
		}
	return order;
}

/* Host h's name, "?" for none known. */
static const char *host_name(const struct model_snapshot *snap, int h)
{
	return h >= 0 && h < snap->nhosts ? snap->hosts[h].name : "?";
}

int ui_workload_lines(const struct model_snapshot *snap, int utf8, int width,
		      struct ui_text_line **out)
{
	static const char *const bw_titles[] = { "host", "device", "kind",
						 "GB/s", "state" };
	static const int bw_right[] = { 0, 0, 0, 1, 0 };
	static const int ba_right[] = { 0, 0, 0, 1, 1, 1, 1, 1, 0 };
	const char *us = utf8 ? "\xc2\xb5s" : "us";
	char t_calls[32], t_batch[32], t_row_call[32], t_row_batch[32];
	const char *ba_titles[] = { "host", "device", "dtype", t_calls,
		t_batch, "speed-up", t_row_call, t_row_batch, "state" };
	/* Narrow: the per-row latencies go first, then the batch alone. */
	static const int ba_drop[] = { 0, 0, 0, 0, 1, 0, 2, 3, 0 };
	struct sect bw = { 5, bw_titles, bw_right, NULL, NULL, NULL, 0, 0 };
	struct sect ba = { 9, ba_titles, ba_right, ba_drop, NULL, NULL, 0, 0 };
	char heading[96];
	int n = 0, cap = 0, rows = 0, *bw_order, *ba_order;

	*out = NULL;
	bw_order = host_order(snap, snap->nbandwidth, bandwidth_host);
	ba_order = host_order(snap, snap->nbatching, batching_host);
	for (int k = 0; k < snap->nbandwidth; k++) {
		const struct model_bandwidth *b = &snap->bandwidth[bw_order[k]];
		int same = 1, r;
		char st[32]; /* ui_status_text: "skipped [12]" */
		enum ui_tone tone;

		/* The skipped kinds of one device for one reason: one line. */
		while (b->status == BF_STATUS_SKIPPED && k + same < snap->nbandwidth) {
			const struct model_bandwidth *o =
				&snap->bandwidth[bw_order[k + same]];

			if (o->host != b->host || o->status != b->status ||
			    strcmp(o->device, b->device) != 0 ||
			    strcmp(o->reason ? o->reason : "",
				   b->reason ? b->reason : "") != 0)
				break;
			same++;
		}
		tone = status_cell(snap, b->status, b->reason, st, sizeof(st));
		r = sect_row(&bw, tone);
		/* Cells are 200 bytes; a host name 127 at most
		 * (model_host.name[128]), a device and a kind 15
		 * (model_bandwidth's [16]), st 31. */
		/* fits: see above */
		snprintf(sect_cell(&bw, r, 0), 200, "%s", host_name(snap, b->host));
		/* fits: as above */
		snprintf(sect_cell(&bw, r, 1), 200, "%s", b->device);
		if (same > 1)
			snprintf(sect_cell(&bw, r, 2), 200, "%d kinds", same);
		else /* fits: as above */
			snprintf(sect_cell(&bw, r, 2), 200, "%s", b->kind);
		ui_fmt_num(sect_cell(&bw, r, 3), 200, b->median_gbps, 1, "");
		/* fits: st is 32 bytes */
		snprintf(sect_cell(&bw, r, 4), 200, "%s", st);
		k += same - 1;
	}
	for (int i = 0; i < snap->nbatching; i++)
		if (snap->batching[i].rows > 0 && rows == 0)
			rows = snap->batching[i].rows;
	/* The seed's case: the rows scored one call each, all of them
	 * together, beside the one batch call that scores them at once
	 * (the speed-up is the one over the other); then each per row. */
	/* fits: us is 3 bytes at most, an int 11: titles of 32 bytes */
	if (rows > 0)
		snprintf(t_calls, sizeof(t_calls), "%d calls %s", rows, us);
	else /* fits: as above */
		snprintf(t_calls, sizeof(t_calls), "calls %s", us);
	/* fits: as above */
	snprintf(t_batch, sizeof(t_batch), "batch %s", us);
	/* fits: as above */
	snprintf(t_row_call, sizeof(t_row_call), "%s/row call", us);
	/* fits: as above */
	snprintf(t_row_batch, sizeof(t_row_batch), "%s/row batch", us);
	for (int k = 0; k < snap->nbatching; k++) {
		const struct model_batching *b = &snap->batching[ba_order[k]];
		char st[32]; /* ui_status_text: "skipped [12]" */
		int r = sect_row(&ba, status_cell(snap, b->status, b->reason, st,
						  sizeof(st)));
		double nrows = b->rows > 0 ? b->rows : NAN;

		/* Cells are 200 bytes; a host name 127 at most
		 * (model_host.name[128]), a device 15 (model_batching's
		 * [16]), a dtype name 5, st 31. */
		/* fits: see above */
		snprintf(sect_cell(&ba, r, 0), 200, "%s", host_name(snap, b->host));
		/* fits: as above */
		snprintf(sect_cell(&ba, r, 1), 200, "%s", b->device);
		/* fits: as above */
		snprintf(sect_cell(&ba, r, 2), 200, "%s",
			 bf_dtype_name(b->dtype));
		fmt_us3(sect_cell(&ba, r, 3), 200, nrows * b->single_ms * 1000);
		fmt_us3(sect_cell(&ba, r, 4), 200, b->batch_ms * 1000);
		ui_fmt_num(sect_cell(&ba, r, 5), 200, b->speedup, 1, "x");
		fmt_us3(sect_cell(&ba, r, 6), 200, b->single_ms * 1000);
		fmt_us3(sect_cell(&ba, r, 7), 200, b->batch_ms * 1000 / nrows);
		/* fits: st is 32 bytes */
		snprintf(sect_cell(&ba, r, 8), 200, "%s", st);
	}
	sect_emit(&bw, "bandwidth (median GB/s)", width, out, &n, &cap);
	if (rows > 0)
		snprintf(heading, sizeof(heading),
			 "batching (%d one-row calls vs one %d-row batch)", rows, rows);
	else
		snprintf(heading, sizeof(heading), "batching");
	sect_emit(&ba, heading, width, out, &n, &cap);
	free(bw.cells);
	free(bw.tones);
	free(ba.cells);
	free(ba.tones);
	free(bw_order);
	free(ba_order);
	return n;
}
