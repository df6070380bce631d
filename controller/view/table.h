/* The plain (no curses) results table, printed from the run model. */
#ifndef BF_TABLE_H
#define BF_TABLE_H

#include <stdio.h>

#include "model/model.h"

/* Prints the rows of a snapshot of m, one per host x device x dtype x n,
 * with the live table's columns (ui_layout.h: host, device, dtype, n,
 * GFLOP/s, Δ%, %peak, %roof, med ms, vs fp32, GPU/CPU, peak MiB, ok/fail,
 * state), then the run each host's Δ% compares with or why it is n/a, one
 * line per host that did not finish, with its reason, a line per group
 * of hosts that are one machine ("hb1, hb2: one machine; run one at a
 * time"), the hosts side by side (table_print_side_by_side), the
 * bandwidth and
 * batching sections (ui_workload_lines), and the notes the rows point to
 * (ui_note_lines: "?1 spread above 20% of the median: 2 rows, 29-83%",
 * "[1] no NVIDIA driver installed"). width > 0 (a terminal's: see
 * table_terminal_width) leaves out columns, in the live table's order,
 * until the table fits in width cells; 0 prints every column.
 * Rows of a host's GPU none of whose rows (GEMM, bandwidth, batching) was
 * measured, every one skipped (a host without a GPU or its driver), are
 * left out: the verdict's notes printed before the table say why, once
 * (verdict_text.h; issue 30, "nothing shown that says nothing"). The
 * archive keeps them. */
void table_print_plain(FILE *out, struct model *m, int width);

/* The same from a snapshot; utf8 selects "Δ%" over "chg%" and "µs" over
 * "us". */
void table_print_snapshot(FILE *out, const struct model_snapshot *snap,
			  int utf8, int width);

/* The hosts side by side (ui_sidebyside.h), under a "side by side"
 * line, then what the ratio columns mean; nothing with fewer than two
 * hosts or no GEMM row. width > 0 (a terminal's) prints the host and
 * ratio columns in as many tables as fit that width, each after the
 * device, dtype and n columns; 0 prints one table. table_print_snapshot
 * calls it after the per-host table. */
void table_print_side_by_side(FILE *out, const struct model_snapshot *snap,
			      int width);

/* Whether the locale's codeset is UTF-8. */
int table_utf8(void);

/* The width of the terminal f writes to (TIOCGWINSZ, else $COLUMNS), or
 * 0 when f is not a terminal (a pipe or file gets the full table). */
int table_terminal_width(FILE *f);

/* Formats v with `decimals` digits, or "n/a" when v is NaN. */
void table_fmt(char *buf, size_t len, double v, int decimals);

#endif
