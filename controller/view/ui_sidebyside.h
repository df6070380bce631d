/*
 * The hosts side by side, as the live table's default view for a run of
 * two or more hosts and as a section of the plain table (ctl run's last
 * table, ctl show): one row per (device, dtype, n) of
 * model/sidebyside.h, one column per host in the command line's order
 * whose cell is the host's median GFLOP/s ("51.2?1" when the agent called
 * it unreliable, as ui_cell_text writes it), its state ("skipped [1]",
 * "FAIL [2]") or, while it has no such row yet, the host's state
 * ("building", "running"); then, after the host columns, one column per
 * host other than the reference (ctl run --baseline HOST, else the
 * first), "HOST/REF": its speed over the reference's ("4.80x"; "?" after
 * it when either figure is unreliable).
 *
 * Widths are display cells (ui_text_width), so CJK and long host names
 * keep the columns aligned: a title longer than UI_SBS_TITLE_MAX cells
 * is cut with an ellipsis (ui_fit). Pure: no curses, no I/O.
 */
#ifndef BF_UI_SIDEBYSIDE_H
#define BF_UI_SIDEBYSIDE_H

#include <stddef.h>

#include "model/model.h"
#include "model/sidebyside.h"
#include "view/ui_layout.h"

/* A host's or ratio column's title is kept whole up to this many cells. */
#define UI_SBS_TITLE_MAX 16

enum ui_sbs_kind {
	UI_SBS_DEVICE,
	UI_SBS_DTYPE,
	UI_SBS_N,       /* only when the rows have more than one n */
	UI_SBS_HOST,    /* one per host */
	UI_SBS_RATIO,   /* one per host but the reference */
};

struct ui_sbs_col {
	enum ui_sbs_kind kind;
	int host;          /* UI_SBS_HOST, UI_SBS_RATIO: the host; else -1 */
	char title[300];   /* "device", "dtype", "n", the host's name,
			    * "HOST/REF" */
	int width;         /* cells: the widest of the cells and the title
			    * (the title counted up to UI_SBS_TITLE_MAX) */
	int right;         /* right-aligned */
	int shown;         /* placed by ui_sbs_layout */
	int x;             /* first cell from the left edge, when shown */
};

/* Every column of t in order (device, dtype, n when the rows have more
 * than one n, the hosts, the ratios) with its title and width, for snap
 * (the snapshot t was built from). *out is malloc'd (caller frees);
 * returns how many. */
int ui_sbs_columns(const struct model_snapshot *snap, const struct sbs_table *t,
		   struct ui_sbs_col **out);

/*
 * Which columns the live table shows in `width` cells with its host
 * columns scrolled to first_host (0: from the first): device, dtype and
 * n always; then host columns from first_host on, in order, while they
 * fit (the first of them always, clipped by the caller when even it does
 * not); then the ratio columns of the hosts shown, in order, while they
 * fit. So a narrow terminal loses ratio columns before host columns, and
 * hosts that do not fit are reached by scrolling. Sets each column's
 * shown and x; *last_host gets the last host shown (first_host - 1 when
 * none). Returns the cells used.
 */
int ui_sbs_layout(int width, struct ui_sbs_col *cols, int ncols,
		  int first_host, int *last_host);

/* As ui_sbs_layout when ratios is 0. With ratios 1 (the live table's r
 * key) the ratio columns take the host columns' place: device, dtype and
 * n, then the ratio columns of the hosts from first_host on, in order,
 * while they fit (the first always); no host column. So every HOST/REF
 * is reachable however many hosts a narrow terminal has (at 80 cells
 * with 8 hosts, the host columns alone fill the screen). *last_host gets
 * the host of the last ratio shown (first_host - 1 when none). */
int ui_sbs_layout_mode(int width, struct ui_sbs_col *cols, int ncols,
		       int first_host, int ratios, int *last_host);

/* The text of column c in row r of t into buf, and its tone (see the top
 * of this file; device, dtype and n as ui_cell_text writes them). */
enum ui_tone ui_sbs_cell(const struct model_snapshot *snap,
			 const struct sbs_table *t, int r,
			 const struct ui_sbs_col *c, char *buf, size_t len);

/* A host's state in a cell of a row it has no result for yet: "pending",
 * "waiting" (for another host of its machine), "connecting", "deploying", "building", "running", "failed",
 * "interrupted"; "n/a" once done (it never measured that row). Static. */
const char *ui_sbs_state(const struct model_host *h);

/* The line under the side-by-side rows saying what the ratios are:
 * "HOST/REF: HOST's median GFLOP/s over REF's (?: either is unreliable)"
 * into buf; "" with fewer than two hosts. */
void ui_sbs_legend(const struct model_snapshot *snap, char *buf, size_t len);

#endif
