/* The plain (no curses) results table, printed from the run model. */
#ifndef BF_TABLE_H
#define BF_TABLE_H

#include <stdio.h>

#include "model.h"

/* Prints host x device x dtype (x n) rows with median ms, GFLOP/s, peak
 * MiB, speed vs fp32, GPU vs CPU and checks, then one line per host that
 * did not finish, with its reason, from a snapshot of m. */
void table_print_plain(FILE *out, struct model *m);

/* Formats v with `decimals` digits, or "n/a" when v is NaN. */
void table_fmt(char *buf, size_t len, double v, int decimals);

#endif
