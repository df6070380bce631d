/* A host's history as text and JSON; see history_view.h. */
#include "view/history_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bf_text.h"
#include "record.h"
#include "stats.h"
#include "view/compare_view.h"
#include "xmalloc.h"

/* Sparkline cells wide at most. */
#define SPARK_WIDTH 60

char *history_sparkline(char *buf, size_t len, const double *v, int n,
			int width, int utf8)
{
	static const char *const bars[] = { "\xe2\x96\x81", "\xe2\x96\x82",
		"\xe2\x96\x83", "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
		"\xe2\x96\x87", "\xe2\x96\x88" };
	static const char ascii[] = "_.-=+*#@";
	double lo = INFINITY, hi = -INFINITY, *cell;
	int cells = n < width ? n : width;
	size_t off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (n <= 0 || cells <= 0)
		return buf;
	cell = bf_xcalloc((size_t)cells, sizeof(*cell));
	for (int c = 0; c < cells; c++) {
		/* Cell c holds values [c n / cells, (c + 1) n / cells). */
		int a = (int)((long long)c * n / cells);
		int b = (int)((long long)(c + 1) * n / cells);
		double *g = bf_xcalloc((size_t)(b - a) + 1, sizeof(*g));
		int k = 0;

		for (int i = a; i < b; i++)
			if (!isnan(v[i]))
				g[k++] = v[i];
		cell[c] = k ? bf_stats_median(g, (size_t)k) : NAN;
		free(g);
		if (!isnan(cell[c])) {
			lo = fmin(lo, cell[c]);
			hi = fmax(hi, cell[c]);
		}
	}
	for (int c = 0; c < cells && off + 4 < len; c++) {
		int level = isnan(cell[c]) ? -1 :
			    hi > lo ? (int)floor((cell[c] - lo) / (hi - lo) * 7.999) : 3;

		if (level < 0)
			buf[off++] = ' ';
		else if (utf8) {
			/* A bar is 3 bytes; the loop keeps 4 free. */
			size_t bl = strlen(bars[level]);

			memcpy(buf + off, bars[level], bl);
			off += bl;
		}
		else
			buf[off++] = ascii[level];
	}
	buf[off < len ? off : len - 1] = '\0';
	free(cell);
	return buf;
}

/* The run id of a series' point k. */
static const char *point_run(const struct history *h,
			     const struct history_series *s, int k)
{
	return h->runs[s->points[k].run]->run_id;
}

/* One stretch of a series: points [a, b). */
static void print_stretch(FILE *out, const struct history *h,
			  const struct history_series *s, int a, int b)
{
	double *med = bf_xcalloc((size_t)(b - a) + 1, sizeof(*med));
	double *spr = bf_xcalloc((size_t)(b - a) + 1, sizeof(*spr));
	int ns = 0;
	char g[32], *from, *to;

	for (int k = a; k < b; k++) {
		med[k - a] = s->points[k].median_gflops;
		if (!isnan(s->points[k].spread))
			spr[ns++] = s->points[k].spread;
	}
	compare_fmt_gflops(g, sizeof(g), bf_stats_median(med, (size_t)(b - a)));
	/* Run ids whole (a directory's name, up to 255 bytes): a user
	 * passes them to ctl show (issue 28: cut at 127). */
	from = bf_text_sanitize_dup(point_run(h, s, a));
	to = bf_text_sanitize_dup(point_run(h, s, b - 1));
	fprintf(out, "  runs %d-%d  %s .. %s  median %s GFLOP/s", a + 1, b,
		from, to, g);
	free(from);
	free(to);
	if (ns > 0)
		fprintf(out, " (spread %.0f%%)",
			100 * bf_stats_median(spr, (size_t)ns));
	fputc('\n', out);
	free(med);
	free(spr);
}

static void print_change(FILE *out, const struct history *h,
			 const struct history_series *s,
			 const struct history_change *c)
{
	char before[32], after[32], *safe[3];

	compare_fmt_gflops(before, sizeof(before), c->cp.before);
	compare_fmt_gflops(after, sizeof(after), c->cp.after);
	/* Whole (issue 28): run ids, and what changed (a library path, an
	 * LD_PRELOAD, a version string), were cut at 255 bytes. */
	safe[0] = bf_text_sanitize_dup(point_run(h, s, c->cp.at - 1));
	safe[1] = bf_text_sanitize_dup(point_run(h, s, c->cp.at));
	fprintf(out, "  change %+.1f%% (%s -> %s GFLOP/s, p=%.3f) between %s and %s\n",
		100 * c->cp.change, before, after, c->cp.p, safe[0], safe[1]);
	free(safe[0]);
	free(safe[1]);
	if (c->nprov == 0)
		fprintf(out, "    no provenance change: unexplained shift\n");
	for (int i = 0; i < c->nprov; i++) {
		safe[0] = bf_text_sanitize_dup(c->prov[i].key);
		safe[1] = bf_text_sanitize_dup(c->prov[i].before ?
					       c->prov[i].before : "n/a");
		safe[2] = bf_text_sanitize_dup(c->prov[i].after ?
					       c->prov[i].after : "n/a");
		fprintf(out, "    %s: %s -> %s\n", safe[0], safe[1], safe[2]);
		for (int k = 0; k < 3; k++)
			free(safe[k]);
	}
}

void history_print_text(FILE *out, const struct history *h, int utf8)
{
	char *safe = bf_text_sanitize_dup(h->host), spark[SPARK_WIDTH * 4 + 1];
	int shown = 0;

	fprintf(out, "history of %s: %d run%s", safe, h->nruns,
		h->nruns == 1 ? "" : "s");
	free(safe);
	if (h->nruns > 0)
		fprintf(out, ", %s .. %s", h->runs[0]->run_id,
			h->runs[h->nruns - 1]->run_id);
	fputc('\n', out);
	for (int i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		double *med = bf_xcalloc((size_t)s->npoints + 1, sizeof(*med));
		const char *why = history_settings_change(h, s->settings);
		int a = 0;

		if (s->npoints == 0) {
			free(med);
			continue;
		}
		shown++;
		for (int k = 0; k < s->npoints; k++)
			med[k] = s->points[k].median_gflops;
		fprintf(out, "\n%s %s n=%d", s->device, bf_dtype_name(s->dtype),
			s->n);
		if (s->occurrence > 1)
			fprintf(out, "#%d", s->occurrence);
		if (h->nsettings > 1)
			fprintf(out, "  settings %d%s%s%s", s->settings + 1,
				why ? " (" : "", why ? why : "",
				why ? " differs from the settings before)" : "");
		fprintf(out, "  %d run%s  %s\n", s->npoints,
			s->npoints == 1 ? "" : "s",
			history_sparkline(spark, sizeof(spark), med, s->npoints,
					  SPARK_WIDTH, utf8));
		for (int k = 0; k < s->nchanges; k++) {
			print_stretch(out, h, s, a, s->changes[k].cp.at);
			print_change(out, h, s, &s->changes[k]);
			a = s->changes[k].cp.at;
		}
		print_stretch(out, h, s, a, s->npoints);
		free(med);
	}
	if (!shown)
		fprintf(out, "\n(no passing GEMM results)\n");
	fflush(out);
}

static void add_num(cJSON *o, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static void add_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_flag(cJSON *o, const char *key, int v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddBoolToObject(o, key, v);
}

static cJSON *series_json(const struct history *h,
			  const struct history_series *s)
{
	cJSON *o = cJSON_CreateObject(), *pts, *cps;

	cJSON_AddStringToObject(o, "device", s->device);
	cJSON_AddStringToObject(o, "dtype", bf_dtype_name(s->dtype));
	cJSON_AddNumberToObject(o, "n", s->n);
	cJSON_AddNumberToObject(o, "occurrence", s->occurrence);
	cJSON_AddNumberToObject(o, "settings", s->settings);
	add_str(o, "settings_change", history_settings_change(h, s->settings));
	pts = cJSON_AddArrayToObject(o, "points");
	for (int k = 0; k < s->npoints; k++) {
		const struct history_point *p = &s->points[k];
		const struct archive_run *run = h->runs[p->run];
		cJSON *j = cJSON_CreateObject(), *samples;

		cJSON_AddItemToArray(pts, j);
		cJSON_AddNumberToObject(j, "run", p->run);
		cJSON_AddStringToObject(j, "run_id", run->run_id);
		cJSON_AddStringToObject(j, "started_at", run->started_at);
		add_num(j, "median_gflops", p->median_gflops);
		add_num(j, "spread", p->spread);
		samples = cJSON_AddArrayToObject(j, "samples");
		for (int i = 0; i < p->nsamples; i++)
			cJSON_AddItemToArray(samples,
					     cJSON_CreateNumber(p->samples[i]));
		add_flag(j, "throttled", p->throttled);
		add_flag(j, "reliable", p->reliable);
	}
	cps = cJSON_AddArrayToObject(o, "change_points");
	for (int k = 0; k < s->nchanges; k++) {
		const struct history_change *c = &s->changes[k];
		cJSON *j = cJSON_CreateObject(), *prov;

		cJSON_AddItemToArray(cps, j);
		cJSON_AddNumberToObject(j, "at", c->cp.at);
		cJSON_AddStringToObject(j, "run_id", point_run(h, s, c->cp.at));
		add_num(j, "p", c->cp.p);
		add_num(j, "q", c->cp.q);
		add_num(j, "before", c->cp.before);
		add_num(j, "after", c->cp.after);
		add_num(j, "change", c->cp.change);
		cJSON_AddBoolToObject(j, "explained", c->nprov > 0);
		prov = cJSON_AddArrayToObject(j, "provenance");
		for (int i = 0; i < c->nprov; i++) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddItemToArray(prov, e);
			cJSON_AddStringToObject(e, "key", c->prov[i].key);
			add_str(e, "before", c->prov[i].before);
			add_str(e, "after", c->prov[i].after);
		}
	}
	return o;
}

cJSON *history_to_json(const struct history *h)
{
	cJSON *doc = cJSON_CreateObject(), *runs, *settings, *series;

	cJSON_AddStringToObject(doc, "host", h->host);
	runs = cJSON_AddArrayToObject(doc, "runs");
	for (int i = 0; i < h->nruns; i++) {
		cJSON *r = cJSON_CreateObject();

		cJSON_AddItemToArray(runs, r);
		cJSON_AddStringToObject(r, "run_id", h->runs[i]->run_id);
		cJSON_AddStringToObject(r, "started_at", h->runs[i]->started_at);
		cJSON_AddStringToObject(r, "status", h->runs[i]->status);
	}
	settings = cJSON_AddArrayToObject(doc, "settings");
	for (int k = 0; k < h->nsettings; k++)
		cJSON_AddItemToArray(settings,
				     bf_rec_options_encode(&h->settings[k]->options));
	series = cJSON_AddArrayToObject(doc, "series");
	for (int i = 0; i < h->nseries; i++)
		if (h->series[i].npoints > 0)
			cJSON_AddItemToArray(series, series_json(h, &h->series[i]));
	return doc;
}
