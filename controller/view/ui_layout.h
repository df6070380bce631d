/*
 * The live table's layout as pure functions (nvtop's
 * interface_layout_selection.c is the model): which columns fit a terminal
 * of a given size and how wide each is, where the header, host panel, table
 * and footer go, the order and grouping of the rows, and the text and tone
 * of every cell. Nothing here draws or touches a terminal, a lock or a
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

/* Columns in display order: the ONE column definition of the results
 * table, shared by the live table (ui_curses.c) and the plain table
 * (table.c, ctl run's last table and ctl show): same titles, same order,
 * same cell texts (ui_cell_text). */
enum ui_col {
	UI_COL_HOST,
	UI_COL_DEVICE,
	UI_COL_DTYPE,
	UI_COL_N,          /* only when sweeping (more than one size) */
	UI_COL_GFLOPS,
	UI_COL_DELTA,      /* GFLOP/s change against the previous run, % */
	UI_COL_PCT_PEAK,   /* GFLOP/s in % of the device's rated peak */
	UI_COL_VS_REF,     /* GFLOP/s in % of a published measurement of the
			    * same product, dtype and n */
	UI_COL_PCT_ROOF,   /* GFLOP/s in % of the roofline, and the bound */
	UI_COL_MEDIAN,     /* median ms */
	UI_COL_VS_FP32,
	UI_COL_GPU_VS_CPU,
	UI_COL_PEAK,       /* peak MiB */
	UI_COL_ENERGY,     /* GFLOP per joule over the timed loop */
	UI_COL_CHECKS,     /* passed/failed on the row's device */
	UI_COL_STATE,      /* last: it holds reasons and takes spare width */
	UI_NCOLS
};

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

/* How a cell or line should stand out; ui_curses.c maps tones to colours,
 * or to bold and reverse video under NO_COLOR. */
enum ui_tone {
	UI_TONE_NORMAL,
	UI_TONE_GOOD,     /* a faster result than last time */
	UI_TONE_BAD,      /* failed: host, check, verification; slower */
	UI_TONE_ACTIVE,   /* a host at work */
	UI_TONE_DIM,      /* skipped, pending, n/a */
};

/* Appended to an unreliable row's GFLOP/s ("51.2?"). */
#define UI_UNRELIABLE_MARK "?"

/* Appended to a vs ref cell below BF_REFERENCE_HEALTHY_FRACTION of its
 * reference ("62%!"): "below reference". */
#define UI_BELOW_REF_MARK "!"

/* The Δ% legend of the table, whole (NULL when there is nothing to say):
 * for every host whose Δ% is n/a for a stated reason, "Δ% n/a for HOST:
 * REASON", "; "-joined (utf8 0: "chg%"). Caller frees. */
char *ui_delta_note(const struct model_snapshot *snap, int utf8);

/* Percentage change from prev to now: 100 * (now - prev) / prev; NaN when
 * either is NaN or prev is not positive. */
double ui_delta_pct(double now, double prev);

/* A host's state as the table shows it: "connecting", "waiting for hb1
 * (one machine)" (a pending host's reason to wait), "uploading 120/480
 * KiB" (the agent's sources), "building 45%" (make's count) or
 * "building 12/40" (ninja's steps), "running 5/12", "done", "failed:
 * <reason>", ... into buf. Returns its tone. */
enum ui_tone ui_host_state_text(const struct model_host *h, char *buf,
				size_t len);

/* The text of column c for row r into buf, and its tone. Missing numbers
 * are "n/a". The state of a row is its own when it failed or was skipped
 * ("FAIL [2]", "skipped [1]": the number of the note under the table that
 * gives the reason, ui_notes.h), or "slower than its last 5 runs" (toned
 * bad; "faster ...": good) when the result differs significantly from
 * each of its host's recent runs (model/recent.h), else its host's. Δ%
 * is signed with one decimal ("+3.2%", "-0.4%") and toned good when
 * positive, bad when negative (higher GFLOP/s is better). GFLOP/s carries
 * UI_UNRELIABLE_MARK and the numbers of its reasons' notes when the agent
 * called the measurement unreliable ("51.2?1": one sample, no warm-up,
 * wide spread, throttled). %peak is the fraction of the device's rated
 * peak in percent ("42%", "3.5%"; ">42%" when the peak is derived, an
 * upper estimate: the fraction is at least that); vs ref the fraction of the published
 * measurement of the same product, dtype and n (n/a where none), "97%",
 * with UI_BELOW_REF_MARK and a bad tone below 80 % ("62%!"); %roof the
 * fraction of the roofline, min(peak, arithmetic intensity x measured
 * bandwidth), the same way, followed by the bound: "52% M" memory-bound,
 * "80% C" compute-bound. GFLOP/J is the row's GFLOP per joule (the
 * record's energy: NVML on a GPU, RAPL on a CPU; n/a when the counter
 * could not be read). ok/fail is the device's checks passed/failed
 * ("24/0"; "skip" when all were skipped). n of a repeated size's second
 * row is "128#2". */
enum ui_tone ui_cell_text(const struct model_snapshot *snap, const struct model_row *r,
			  enum ui_col c, char *buf, size_t len);

/* One line of the section under the GEMM rows (ui_workload_lines). */
struct ui_text_line {
	int heading;       /* 1: a section title, drawn as a rule */
	int titles;        /* 1: the section's column titles */
	enum ui_tone tone; /* of the line (a failure: bad; skipped: dim) */
	char text[512];
};

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

/* A host's line in the panel after its bar: its state
 * (ui_host_state_text) and, while its agent runs, what it will run
 * until the first GEMM arrives ("running 0/6: 6 GEMMs: n 256 512, fp32
 * on cpu; ...") and how long the same settings took last time ("running
 * 3/6, last time 0:42"). Returns the state's tone. */
enum ui_tone ui_host_panel_text(const struct model_host *h, char *buf,
				size_t len);

/* A host's progress in thousandths, for its bar: while it uploads the
 * agent's sources, the bytes sent; while it builds, the build's steps;
 * while the agent runs, checks count for the first tenth and GEMMs for
 * the rest, since the checks take a moment and the GEMM sweep takes the
 * time. Before the plan record (no totals) 0; a done host 1000. */
int ui_host_progress(const struct model_host *h);

/* A progress bar `width` cells wide for done of total into buf: full
 * blocks and, in UTF-8, one partial eighth block, padded with light shade;
 * '#' and '.' otherwise. total <= 0 gives an empty bar. */
void ui_bar(char *buf, size_t len, int width, int done, int total, int utf8);

/* Elapsed time as "m:ss", or "h:mm:ss" from an hour on. */
void ui_fmt_elapsed(char *buf, size_t len, uint64_t ns);

/* Display cells of text s under the user's locale
 * (texttable_text_width: a CJK character is two). */
int ui_text_width(const char *s);

/* s fitted to exactly `width` cells into buf: padded with spaces (on the
 * left when right), or cut with an ellipsis ("…" in UTF-8, "~" otherwise)
 * when longer, in display cells (a wide character that would straddle
 * the edge is left out). Control characters become spaces; without utf8, each
 * non-ASCII character becomes '?'. buf needs 4 * width + 1 bytes at
 * most. */
void ui_fit(char *buf, size_t len, const char *s, int width, int right,
	    int utf8);

/* The larger and the smaller of two ints (widths, counts). */
static inline int ui_imax(int a, int b)
{
	return a > b ? a : b;
}

static inline int ui_imin(int a, int b)
{
	return a < b ? a : b;
}

/* A number with `decimals` decimals and suffix into buf ("51.2", "42%"),
 * UI_TONE_NORMAL; "n/a" and UI_TONE_DIM for NaN. */
enum ui_tone ui_fmt_num(char *buf, size_t len, double v, int decimals,
			const char *suffix);

/* The lines of the `?` help screen, NULL-terminated; static. */
const char *const *ui_help_lines(void);

#endif
