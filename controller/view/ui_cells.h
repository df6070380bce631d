/*
 * What each cell of the live and plain tables says (ui_cells.c): the
 * columns, the text and tone of every cell, a host's state and progress,
 * display widths and fitting text to them. Pure: nothing here draws or
 * touches a terminal, a lock or a clock. The layout (ui_layout.h) builds
 * on these; they know nothing of it.
 *
 * Every function reads a `struct model_snapshot` (model.h): a caller-owned
 * copy of the model, never the live model.
 */
#ifndef BF_UI_CELLS_H
#define BF_UI_CELLS_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "bf_testonly.h"
#include "view/ui_types.h"

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
 * <reason>", ... into buf (len bytes; a longer text ends in "...": a
 * cell, cut again to its column). Returns its tone. */
BF_TESTONLY
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

/* A host's line in the panel after its bar: its state
 * (ui_host_state_text) and, while its agent runs, what it will run
 * until the first GEMM arrives ("running 0/6: 6 GEMMs: n 256 512, fp32
 * on cpu; ...") and how long the same settings took last time ("running
 * 3/6, last time 0:42"). A text longer than len ends in "...". Returns
 * the state's tone. */
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
 * most (zero-width characters aside: a text longer than len ends in
 * "..."). */
void ui_fit(char *buf, size_t len, const char *s, int width, int right,
	    int utf8);

/* A number with `decimals` decimals and suffix into buf ("51.2", "42%"),
 * UI_TONE_NORMAL; "n/a" and UI_TONE_DIM for NaN. */
enum ui_tone ui_fmt_num(char *buf, size_t len, double v, int decimals,
			const char *suffix);

#endif
