/* The plain (no curses) results table, printed from the run model. */
#ifndef BF_TABLE_H
#define BF_TABLE_H

#include <stdio.h>

#include "model/model.h"

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

/* Distinct reasons of "; "-joined lists (a row's unreliable reasons),
 * each with how many times a list named it: a table's legend. At most
 * TABLE_REASONS_MAX distinct ones are kept (later ones are dropped), each
 * cut to 159 bytes. */
#define TABLE_REASONS_MAX 16
struct table_reasons {
	char text[TABLE_REASONS_MAX][160];
	int count[TABLE_REASONS_MAX];
	int n;
};

/* Adds the reasons of joined (split at ';', leading spaces skipped, empty
 * ones dropped; only its first 159 bytes read) to r, zeroed before the
 * first call. */
void table_reasons_add(struct table_reasons *r, const char *joined);

/* Formats v with `decimals` digits, or "n/a" when v is NaN. */
void table_fmt(char *buf, size_t len, double v, int decimals);

#endif
