/*
 * The hosts side by side: columns, their place on a screen and the text
 * of every cell; see ui_sidebyside.h. Pure arithmetic over a snapshot.
 */
#include "view/ui_sidebyside.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_text.h"
#include "view/ui_notes.h"
#include "xmalloc.h"

/* Minimum widths of the fixed columns, as the per-host table's
 * (ui_layout.c's col_defs). */
#define DEVICE_MIN 6
#define DTYPE_MIN 5
#define N_MIN 5
/* A host or ratio column is never narrower than this (a GFLOP/s figure
 * with its mark). */
#define VALUE_MIN 7

const char *ui_sbs_state(const struct model_host *h)
{
	switch (h->state) {
	case HOST_PENDING:
		return h->waiting[0] ? "waiting" : "pending";
	case HOST_CONNECTING:
	case HOST_DEPLOYING:
	case HOST_BUILDING:
	case HOST_RUNNING:
	case HOST_FAILED:
	case HOST_INTERRUPTED:
		return host_state_name(h->state);
	case HOST_DONE:
		break;
	}
	return "n/a";
}

enum ui_tone ui_sbs_cell(const struct model_snapshot *snap,
			 const struct sbs_table *t, int r,
			 const struct ui_sbs_col *c, char *buf, size_t len)
{
	const struct sbs_row *row = &t->rows[r];
	const struct model_row *m;
	double ratio;
	int unreliable;

	buf[0] = '\0';
	/* A cell: a text longer than len ends in "..." */
	switch (c->kind) {
	case UI_SBS_DEVICE:
		bf_text_fmt(buf, len, "%s", row->device);
		return UI_TONE_NORMAL;
	case UI_SBS_DTYPE:
		/* fits: a dtype name is 5 bytes at most, a cell 64 or more */
		snprintf(buf, len, "%s", bf_dtype_name(row->dtype));
		return UI_TONE_NORMAL;
	case UI_SBS_N:
		if (row->occurrence > 1)
			snprintf(buf, len, "%d#%d", row->n, row->occurrence);
		else
			snprintf(buf, len, "%d", row->n);
		return UI_TONE_NORMAL;
	case UI_SBS_HOST:
		m = sbs_cell(snap, t, r, c->host);
		if (!m) {
			const struct model_host *h = &snap->hosts[c->host];

			bf_text_fmt(buf, len, "%s", ui_sbs_state(h));
			return h->state == HOST_FAILED ? UI_TONE_BAD :
			       h->state == HOST_DONE ||
					       h->state == HOST_PENDING ||
					       h->state == HOST_INTERRUPTED ?
							       UI_TONE_DIM :
							       UI_TONE_ACTIVE;
		}
		if (m->status == BF_STATUS_FAIL || m->status == BF_STATUS_SKIPPED) {
			ui_status_text(snap, m->status, m->reason, buf, len);
			return m->status == BF_STATUS_FAIL ? UI_TONE_BAD :
							     UI_TONE_DIM;
		}
		return ui_cell_text(snap, m, UI_COL_GFLOPS, buf, len);
	case UI_SBS_RATIO:
		ratio = sbs_ratio(snap, t, r, c->host, &unreliable);
		if (isnan(ratio)) {
			snprintf(buf, len, "n/a");
			return UI_TONE_DIM;
		}
		bf_text_fmt(buf, len, "%.*fx%s", ratio >= 9.995 ? 1 : 2, ratio,
			    unreliable ? UI_UNRELIABLE_MARK : "");
		return unreliable ? UI_TONE_DIM : UI_TONE_NORMAL;
	}
	return UI_TONE_NORMAL;
}

/* The width a title asks for: its display cells, up to the cap. */
static int title_width(const char *title)
{
	return ui_imin(ui_text_width(title), UI_SBS_TITLE_MAX);
}

int ui_sbs_columns(const struct model_snapshot *snap, const struct sbs_table *t,
		   struct ui_sbs_col **out)
{
	int cap = 3 + 2 * t->nhosts, n = 0, sweep = 0;
	struct ui_sbs_col *cols = bf_xcalloc((size_t)cap, sizeof(*cols));
	char cell[640];

	for (int r = 1; r < t->nrows && !sweep; r++)
		sweep = t->rows[r].n != t->rows[0].n;
	cols[n++] = (struct ui_sbs_col){ .kind = UI_SBS_DEVICE, .host = -1,
					 .title = "device", .width = DEVICE_MIN };
	cols[n++] = (struct ui_sbs_col){ .kind = UI_SBS_DTYPE, .host = -1,
					 .title = "dtype", .width = DTYPE_MIN };
	if (sweep)
		cols[n++] = (struct ui_sbs_col){ .kind = UI_SBS_N, .host = -1,
						 .title = "n", .width = N_MIN,
						 .right = 1 };
	for (int h = 0; h < t->nhosts; h++) {
		struct ui_sbs_col *c = &cols[n++];

		*c = (struct ui_sbs_col){ .kind = UI_SBS_HOST, .host = h,
					  .right = 1 };
		/* fits: a name is 127 bytes at most (model_host.name[128]),
		 * a title 300 */
		snprintf(c->title, sizeof(c->title), "%s", snap->hosts[h].name);
		c->width = ui_imax(VALUE_MIN, title_width(c->title));
	}
	for (int h = 0; h < t->nhosts && t->nhosts > 1; h++) {
		struct ui_sbs_col *c;

		if (h == t->ref)
			continue;
		c = &cols[n++];
		*c = (struct ui_sbs_col){ .kind = UI_SBS_RATIO, .host = h,
					  .right = 1 };
		/* fits: two names of 127 bytes at most, a title 300 */
		snprintf(c->title, sizeof(c->title), "%s/%s",
			 snap->hosts[h].name, snap->hosts[t->ref].name);
		c->width = ui_imax(VALUE_MIN, title_width(c->title));
	}
	for (int r = 0; r < t->nrows; r++)
		for (int k = 0; k < n; k++) {
			ui_sbs_cell(snap, t, r, &cols[k], cell, sizeof(cell));
			cols[k].width = ui_imax(cols[k].width, ui_text_width(cell));
		}
	*out = cols;
	return n;
}

int ui_sbs_layout(int width, struct ui_sbs_col *cols, int ncols,
		  int first_host, int *last_host)
{
	return ui_sbs_layout_mode(width, cols, ncols, first_host, 0,
				  last_host);
}

/* ratios: the ratio columns from first_host on, in place of the hosts'
 * (the first always, as a host column; *last_host the last shown). */
static int layout_ratios(int width, struct ui_sbs_col *cols, int ncols,
			 int first_host, int *last_host)
{
	int x = 0, shown = 0, stop = 0;

	*last_host = first_host - 1;
	for (int k = 0; k < ncols; k++) {
		struct ui_sbs_col *c = &cols[k];
		int end = x + (x ? UI_COL_GAP : 0) + c->width;

		c->shown = c->kind != UI_SBS_HOST && c->kind != UI_SBS_RATIO;
		if (c->kind == UI_SBS_RATIO && c->host >= first_host && !stop) {
			if (end > width && shown > 0)
				stop = 1;
			else
				c->shown = 1;
		}
		if (c->shown) {
			shown += c->kind == UI_SBS_RATIO;
			if (c->kind == UI_SBS_RATIO)
				*last_host = c->host;
			c->x = x + (x ? UI_COL_GAP : 0);
			x = c->x + c->width;
		}
	}
	return x;
}

int ui_sbs_layout_mode(int width, struct ui_sbs_col *cols, int ncols,
		       int first_host, int ratios, int *last_host)
{
	int x = 0, hosts_shown = 0, stop_hosts = 0, stop_ratios = 0;

	if (ratios)
		return layout_ratios(width, cols, ncols, first_host,
				     last_host);
	*last_host = first_host - 1;
	for (int k = 0; k < ncols; k++) {
		struct ui_sbs_col *c = &cols[k];
		int end = x + (x ? UI_COL_GAP : 0) + c->width;

		c->shown = 0;
		switch (c->kind) {
		case UI_SBS_DEVICE:
		case UI_SBS_DTYPE:
		case UI_SBS_N:
			c->shown = 1;
			break;
		case UI_SBS_HOST:
			if (c->host < first_host || stop_hosts)
				break;
			if (end > width && hosts_shown > 0) {
				stop_hosts = 1;
				break;
			}
			c->shown = 1;
			hosts_shown++;
			*last_host = c->host;
			break;
		case UI_SBS_RATIO:
			if (c->host < first_host || c->host > *last_host ||
			    stop_ratios)
				break;
			if (end > width) {
				stop_ratios = 1;
				break;
			}
			c->shown = 1;
			break;
		}
		if (c->shown) {
			c->x = x + (x ? UI_COL_GAP : 0);
			x = c->x + c->width;
		}
	}
	return x;
}

void ui_sbs_legend(const struct model_snapshot *snap, char *buf, size_t len)
{
	int ref = snap->ref_host >= 0 && snap->ref_host < snap->nhosts ?
			  snap->ref_host : 0;

	buf[0] = '\0';
	if (snap->nhosts < 2)
		return;
	/* 320 bytes at most (names of 127): a shorter buffer ends in "..." */
	bf_text_fmt(buf, len, "HOST/%s: HOST's median GFLOP/s over %s's (%s: "
		    "either is unreliable)", snap->hosts[ref].name,
		    snap->hosts[ref].name, UI_UNRELIABLE_MARK);
}
