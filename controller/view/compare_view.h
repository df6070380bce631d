/*
 * How a comparison (model/compare.h) is shown: the formats of its numbers,
 * the plain table for a person (compare_text.c), and CSV, JSON, Go's
 * benchmark format and per-sample CSV for other tools (compare_export.c).
 */
#ifndef BF_COMPARE_VIEW_H
#define BF_COMPARE_VIEW_H

#include <stdio.h>

#include "model/compare.h"

/* The compare_fmt_* functions write a cell's text into buf (len bytes,
 * always NUL-terminated); a text longer than len ends in "..." (a cell,
 * never a key or a reason). */

/* GFLOP/s with three or four significant digits: "18473", "28.5",
 * "0.52"; "n/a" for NaN. */
void compare_fmt_gflops(char *buf, size_t len, double v);

/* A cell's GFLOP/s text: "18473 (2%)", "28.5 (0.4%)" (the median, then
 * the spread: (max - min) / median of the samples' times), "28.5 (1
 * sample)" (no spread from one sample), "skipped", "FAIL", "invalid"
 * (gflops disagrees with n and median_ms: bf_rec_gemm_check), "n/a" (no
 * such row in that column); the number is followed by "?" when the agent
 * called the measurement unreliable ("28.5? (31%)"). */
void compare_fmt_cell(char *buf, size_t len, const struct compare_cell *c);

/* The same with marks after the "?" of an unreliable cell: the numbers of
 * the notes giving its reasons ("28.5?1 (31%)", ui_notes.h). */
void compare_fmt_cell_marked(char *buf, size_t len,
			     const struct compare_cell *c, const char *marks);

/* The verdict alone: "+23.4%" / "-5.0%" for a significant change within
 * 0.5x..2x, "2.10x" / "0.25x" beyond, "~" when not significant, "n/a"
 * when there is nothing to compare. */
void compare_fmt_verdict(char *buf, size_t len, const struct compare_delta *d);

/* The verdict with its evidence: "+23.4% (p=0.008 n=5+5)",
 * "~ (p=0.421 n=5+5)", "~ (n=3+3: too few samples)", "n/a". */
void compare_fmt_delta(char *buf, size_t len, const struct compare_delta *d);

/* A cell's %peak text: "42%", "3.5%", "n/a". */
void compare_fmt_peak(char *buf, size_t len, const struct compare_cell *c);

/* A cell's vs ref text: "97%", "62%!" (below reference), "n/a". */
void compare_fmt_ref(char *buf, size_t len, const struct compare_cell *c);

/* A cell's %roof text, as the run tables write it: "52% M" (memory-
 * bound), "80% C" (compute-bound), "n/a". */
void compare_fmt_roof(char *buf, size_t len, const struct compare_cell *c);

/* The plain table: column legend, table, what "better" means, the
 * unreliable and invalid cells' reasons, the bandwidth medians side by
 * side, and the provenance differences. */
void compare_print_plain(FILE *out, const struct compare_table *t);

/* One CSV line per (row, column) with a header line; missing is n/a. */
void compare_print_csv(FILE *out, const struct compare_table *t);

/* The table as JSON (keys CMP_KEY_*; missing is null). Caller frees with
 * cJSON_Delete. */
struct cJSON *compare_to_json(const struct compare_table *t);

/* One CSV field (RFC 4180 quoting when it holds a comma, quote or line
 * break), then ',' or, when last, '\n'. */
void compare_csv_field(FILE *out, const char *s, int last);

/*
 * Every sample in Go's benchmark format (golang.org/x/perf/benchfmt), for
 * benchstat: "Unit" lines saying GFLOP/s is better higher, then per
 * column a comment ("# B: run ID, host spark, tag driver 580"), the
 * configuration lines "run:" and (unless the table is by host) "host:",
 * and one line per timed iteration,
 *   BenchmarkGEMM/device=cpu/dtype=fp32/n=1024 1 24441000 ns/op 87.9 GFLOP/s
 * (host= first in the name when the table is by host). Only passing
 * results have samples. benchstat tables results by every configuration
 * key not given to -col, so no other key differs between columns:
 * `benchstat -col run FILE` compares runs, `-col host` the hosts of one
 * run (`-col run,host` both).
 */
void compare_print_benchstat(FILE *out, const struct compare_table *t);

/* Every sample as CSV: column, run_id, host, device, dtype, n, sample
 * (0-based), ms, gflops; passing results only. */
void compare_print_samples_csv(FILE *out, const struct compare_table *t);

#endif
