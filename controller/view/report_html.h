/*
 * `ctl report`'s page: one self-contained HTML file (inline CSS and SVG,
 * no script, no network) showing the selected runs: GFLOP/s per host x
 * device x dtype x n with the spread of the samples, the GPU-vs-CPU and
 * dtype-vs-fp32 speed-ups, the fraction of each device's theoretical
 * peak, each host's history across its recent runs, and the provenance
 * that differs between the columns.
 */
#ifndef BF_REPORT_HTML_H
#define BF_REPORT_HTML_H

#include <stdio.h>

#include "model/compare.h"
#include "model/history.h"


/*
 * Writes the page for table t (built from the selection's columns) and
 * the hosts' histories (nhist, may be 0) to out. generated_at is printed
 * as given (ISO 8601 UTC). Every string from the archive is HTML-escaped.
 * Returns 0, or -1 when writing failed (errno set by stdio).
 */
int report_html_write(FILE *out, const struct compare_table *t,
		      struct history *const *hist, int nhist,
		      const char *generated_at);

#endif
