/*
 * The live table's layout as pure functions (nvtop's
 * interface_layout_selection.c is the model): which columns fit a terminal
 * of a given size and how wide each is, where the header, host panel, table
 * and footer go, the order and grouping of the rows; the text and tone of
 * every cell are ui_cells.h's, which this builds on. Nothing here draws or touches a terminal, a lock or a
 * clock, so all of it is unit-tested (tests/tui/); ui_curses.c draws what
 * these functions decide.
 *
 * Every function reads a `struct model_snapshot` (model.h): a caller-owned
 * copy of the model, never the live model.
 */
#ifndef BF_UI_LAYOUT_H
#define BF_UI_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "view/ui_cells.h"

/* Spaces between two shown columns. */
#define UI_COL_GAP 1

struct ui_col_spec {
	const char *title;
	int enabled;     /* 0: never shown (n when not sweeping) */
	int min_width;   /* cells; narrower would hide what matters */
	int want_width;  /* cells the widest content needs (>= min_width) */
	int drop_rank;   /* 0: never dropped; the highest is dropped first */
	int empty;       /* no row has a value here (all n/a) */
	int right;       /* right-aligned (numbers) */
};

struct ui_col_place {
	int shown;
	int x;           /* first cell, from the left edge */
	int width;       /* cells */
};

/* The column specs for the rows of snap: fixed titles and drop ranks,
 * wanted widths from the widest content (host names, device names, state
 * texts), minimum widths fixed except host and device, whose names are
 * kept whole up to 12 and 8 cells; n enabled when some host reported more
 * than one size; `empty` set on a droppable column that has no value in
 * any row (vs fp32 and GPU/CPU on a CPU-only run). utf8 selects "Δ%" over
 * "chg%" as a title. */
void ui_columns_for(const struct model_snapshot *snap, int utf8,
		    struct ui_col_spec spec[UI_NCOLS]);

/* Which columns fit in `width` cells and how wide each is. Starts from
 * every enabled column at its minimum width (plus UI_COL_GAP between
 * them); while that is wider than `width`, drops a shown column: an empty
 * one first, and among those alike the highest drop_rank (the order is
 * stated in ui_layout.c); then widens shown columns towards their wanted width,
 * never-dropped columns first, then in rising drop_rank. Columns of rank 0
 * are never dropped, so below their total minimum the line is wider than
 * `width` and the caller clips it. Returns the cells used. */
int ui_layout_columns(int width, const struct ui_col_spec spec[UI_NCOLS],
		      struct ui_col_place out[UI_NCOLS]);

/* Screen regions, top to bottom: a header line, the host panel (one line
 * per host with its progress bar, or fewer and a summary line), a rule,
 * the column titles, the table body, a footer line. y values are screen
 * rows; a region of 0 lines is not drawn. */
struct ui_rows {
	int header_y;
	int panel_y, panel_lines;
	int rule_y;
	int titles_y;
	int body_y, body_lines;
	int footer_y;
	int too_small;   /* fewer than UI_MIN_HEIGHT rows: only the header */
};

#define UI_MIN_HEIGHT 6

/* Splits `height` rows for a run of nhosts hosts. The panel gets one line
 * per host but at most a third of what is left after the fixed lines (and
 * at least one), so the table always keeps most of the screen. */
void ui_layout_rows(int height, int nhosts, struct ui_rows *out);

/* The hosts the panel shows when it has `lines` lines: all of them in
 * order when they fit; otherwise lines - 1 hosts, failed first, then
 * working (connecting to running), pending, interrupted and done, each in
 * host order, and the caller writes a summary of the rest on the last line.
 * Fills idx (nhosts entries at most); returns how many. */
int ui_panel_hosts(const struct model_snapshot *snap, int lines, int *idx);

enum ui_group { UI_GROUP_HOST, UI_GROUP_DTYPE, UI_NGROUPS };

/* `s` cycles through these in this order. */
enum ui_sort {
	UI_SORT_ARRIVAL,   /* as the agents reported them */
	UI_SORT_GFLOPS,    /* highest first */
	UI_SORT_DELTA,     /* most improved first */
	UI_SORT_PCT_PEAK,  /* highest first */
	UI_SORT_PCT_ROOF,  /* highest first */
	UI_SORT_MEDIAN,    /* fastest first */
	UI_SORT_VS_FP32,   /* highest first */
	UI_SORT_GPU_VS_CPU,
	UI_SORT_PEAK,      /* most memory first */
	UI_NSORTS
};

/* "host", "dtype"; "arrival", "GFLOP/s", ...; static. */
const char *ui_group_name(enum ui_group g);
const char *ui_sort_name(enum ui_sort s);
/* The column a sort orders by (UI_NCOLS for arrival). */
enum ui_col ui_sort_column(enum ui_sort s);

/* Fills order[0..snap->nrows) with row indices: grouped (host index, or
 * dtype in order of first appearance), then sorted by s within a group,
 * missing values (NaN) last, ties in arrival order. Stable. */
void ui_sort_rows(const struct model_snapshot *snap, enum ui_group g, enum ui_sort s,
		  int *order);

/* A display line of the table body: a group heading or a row. */
struct ui_line {
	int heading;     /* 1: a heading for the group of row `row` */
	int row;         /* index into snap->rows */
};

/* Lines for rows in `order` (from ui_sort_rows with the same g): a heading
 * before each group. lines must hold 2 * snap->nrows entries. Returns the
 * number of lines. */
int ui_build_lines(const struct model_snapshot *snap, enum ui_group g,
		   const int *order, struct ui_line *lines);

/* The bandwidth and batching results under the GEMM rows, as aligned text
 * lines, the same for the live table (drawn after the rows, scrolled
 * with them) and the plain table (printed under it): a "bandwidth"
 * heading, titles "host device kind GB/s state" and one line per host x
 * device x kind (median GB/s), then a "batching" heading, titles "host
 * device dtype", "20 calls µs" (the 20 one-row calls of the seed's case,
 * together), "batch µs" (the one 20-row call), "speed-up" (the one over
 * the other), "µs/row call", "µs/row batch" (the latency per row of
 * each), "state"; one line per host x device ("us" for "µs" when utf8 is
 * 0). A state with a reason names its note ("skipped [1]", ui_notes.h).
 * Hosts in the run's order (the command line's), each host's entries as
 * they arrived. The skipped kinds of one device with one reason (a GPU
 * the agent cannot use) are one line, "5 kinds". When a section's lines
 * are wider than width (0: no limit), its per-row latencies, then the
 * batch time, are left out. A section without records is left out.
 * *out is malloc'd (caller frees; NULL when there are no lines); returns
 * the number of lines. */
int ui_workload_lines(const struct model_snapshot *snap, int utf8, int width,
		      struct ui_text_line **out);

/* The lines of the `?` help screen, NULL-terminated; static. */
const char *const *ui_help_lines(void);

#endif
