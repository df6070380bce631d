/*
 * How a host's history (model/history.h) is shown: as text for a person,
 * series by series with a sparkline of the run medians, the stretches
 * between change points and, at each change point, what differs between
 * the runs either side; or as JSON for dashboards.
 */
#ifndef BF_HISTORY_VIEW_H
#define BF_HISTORY_VIEW_H

#include <stdio.h>

#include "model/history.h"

struct cJSON;

/* A sparkline of n values into buf: one cell per value (the values
 * grouped into at most width cells by their median when there are more),
 * eight levels from the smallest to the largest; "▁▂▃▄▅▆▇█" in UTF-8
 * (utf8 1), "_.-=+*#@" otherwise; NaN is a space. Returns buf. */
char *history_sparkline(char *buf, size_t len, const double *v, int n,
			int width, int utf8);

/* The text of h: a heading line (host, runs, first and last run), then
 * per series its key, settings, run count and sparkline, each stretch
 * between change points (runs, first and last run id, median of the run
 * medians, median spread), and each change point: its change in %, p,
 * the runs either side, then what differs ("env.LD_PRELOAD: a -> b", one
 * a line) or "no provenance change: unexplained shift". Every string is
 * sanitized as it is printed. utf8 as for history_sparkline. */
void history_print_text(FILE *out, const struct history *h, int utf8);

/* h as JSON: host, runs (run_id, started_at, status), settings (each
 * the host record's options), series (device, dtype, n, occurrence,
 * settings, settings_change, points: run, run_id, started_at,
 * median_gflops, spread, samples, throttled, reliable; change_points: at,
 * run_id, p, q, before, after, change, explained, provenance: key,
 * before, after). Missing numbers are null. Caller frees with
 * cJSON_Delete. */
struct cJSON *history_to_json(const struct history *h);

#endif
