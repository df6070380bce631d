/* The plain (no curses) results table, printed from the run model. */
#ifndef BF_TABLE_H
#define BF_TABLE_H

#include <stdio.h>

#include "model.h"

/* Prints the rows of a snapshot of m, one per host x device x dtype x n,
 * with the live table's columns (ui_layout.h: host, device, dtype, n,
 * GFLOP/s, Δ%, %peak, %roof, med ms, vs fp32, GPU/CPU, peak MiB, checks,
 * state), then the legend: unreliable rows and their reasons, the run
 * each host's Δ% compares with or why it is n/a, and one line per host
 * that did not finish, with its reason; then the bandwidth and batching
 * sections (ui_workload_lines). */
void table_print_plain(FILE *out, struct model *m);

/* The same from a snapshot; utf8 selects "Δ%" over "chg%". */
void table_print_snapshot(FILE *out, const struct model_snapshot *snap,
			  int utf8);

/* Whether the locale's codeset is UTF-8. */
int table_utf8(void);

/* Formats v with `decimals` digits, or "n/a" when v is NaN. */
void table_fmt(char *buf, size_t len, double v, int decimals);

#endif
