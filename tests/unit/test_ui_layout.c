/*
 * Unit tests for controller/view/ui_layout.c, the live table's pure layout:
 * which columns fit a width and in what order they are dropped, the screen
 * regions for a height, the host panel's choice, row sorting and grouping,
 * cell texts and tones (n/a, Δ% signs, failures), bars, elapsed times and
 * text fitting; and model_set_baseline, which feeds the Δ% column.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "model/model.h"
#include "view/ui_layout.h"
#include "view/ui_notes.h"
#include "xmalloc.h"

/* ---- fixtures ---------------------------------------------------------- */

static const char *const host_names[] = { "bfhost1", "bfhost2", "bfhost3" };

/* The layout reads snapshots (model.h): plain data a test builds by hand,
 * with nhosts pending hosts named names[i]. */
static struct model_snapshot *new_snapshot(int nhosts,
					   const char *const *names)
{
	struct model_snapshot *m = calloc(1, sizeof(*m));

	m->nhosts = nhosts;
	m->hosts = calloc((size_t)nhosts, sizeof(*m->hosts));
	for (int i = 0; i < nhosts; i++) {
		snprintf(m->hosts[i].name, sizeof(m->hosts[i].name), "%s",
			 names[i]);
		m->hosts[i].agent_exit = -1;
	}
	return m;
}

static struct model_snapshot *new_model(int nhosts)
{
	return new_snapshot(nhosts, host_names);
}

static void free_model(struct model_snapshot *m)
{
	model_snapshot_free(m);
	free(m);
}

/* Appends a passing row with every number given (NaN: missing). */
static struct model_row *add_row(struct model_snapshot *m, int host, const char *dev,
				 const char *dtype, int n, double gflops)
{
	struct model_row *r;

	if (m->nrows == m->rows_cap) {
		m->rows_cap = m->rows_cap ? 2 * m->rows_cap : 16;
		m->rows = realloc(m->rows, (size_t)m->rows_cap * sizeof(*m->rows));
	}
	r = &m->rows[m->nrows++];
	memset(r, 0, sizeof(*r));
	r->host = host;
	snprintf(r->device, sizeof(r->device), "%s", dev);
	assert_int_equal(bf_dtype_parse(dtype, &r->dtype), 0);
	r->n = n;
	r->occurrence = 1;
	r->status = BF_STATUS_PASS;
	r->gflops = gflops;
	r->reliable = -1;
	r->peak_gflops = r->fraction_of_peak = NAN;
	r->bandwidth_gbps = r->arithmetic_intensity = NAN;
	r->roofline_gflops = r->fraction_of_roofline = NAN;
	r->median_ms = isnan(gflops) ? NAN : 2.0 * n * n * n / gflops / 1e6;
	r->min_ms = r->max_ms = r->median_ms;
	r->peak_mib = 12;
	r->vs_fp32 = strcmp(dtype, "fp32") ? 2.5 : NAN;
	r->gpu_vs_cpu = strcmp(dev, "cpu") && !strcmp(dtype, "fp32") ? 40.0 : NAN;
	r->prev_gflops = NAN;
	return r;
}

static void add_checks(struct model_snapshot *m, int host, const char *dev, int passed,
		       int failed, int skipped)
{
	struct model_checks *c;

	m->checks = realloc(m->checks, (size_t)(m->nchecks + 1) * sizeof(*c));
	c = &m->checks[m->nchecks++];
	memset(c, 0, sizeof(*c));
	c->host = host;
	snprintf(c->device, sizeof(c->device), "%s", dev);
	c->passed = passed;
	c->failed = failed;
	c->skipped = skipped;
}

/* Three hosts, a CPU and a GPU each, fp32/fp16/bf16 at one size, every
 * column with a value: what a GPU fleet looks like. */
static struct model_snapshot *gpu_fleet(void)
{
	struct model_snapshot *m = new_model(3);
	static const char *const dtypes[] = { "fp32", "fp16", "bf16" };

	for (int h = 0; h < 3; h++) {
		for (int d = 0; d < 3; d++) {
			add_row(m, h, "cpu", dtypes[d], 4096, 500.0 + d)->prev_gflops = 490.0;
			add_row(m, h, "cuda:0", dtypes[d], 4096, 50000.0 + d)->prev_gflops = 51000.0;
		}
		add_checks(m, h, "cpu", 22, 0, 0);
		add_checks(m, h, "cuda:0", 14, 0, 0);
		m->hosts[h].state = HOST_RUNNING;
		m->hosts[h].gemm_done = 6;
		m->hosts[h].gemm_total = 6;
	}
	return m;
}

static int shown(const struct ui_col_place *p, enum ui_col c)
{
	return p[c].shown;
}

/* ---- text fitting ------------------------------------------------------ */

static void test_text_width(void **state)
{
	assert_int_equal(ui_text_width(""), 0);
	assert_int_equal(ui_text_width("GFLOP/s"), 7);
	assert_int_equal(ui_text_width("\xce\x94%"), 2);               /* Δ% */
	assert_int_equal(ui_text_width("\xe2\x96\x88\xe2\x96\x91"), 2); /* █░ */
}

static void test_fit(void **state)
{
	char buf[64];

	ui_fit(buf, sizeof(buf), "fp32", 6, 0, 1);
	assert_string_equal(buf, "fp32  ");
	ui_fit(buf, sizeof(buf), "12.5", 6, 1, 1);
	assert_string_equal(buf, "  12.5");
	ui_fit(buf, sizeof(buf), "bfhost1", 7, 0, 1);
	assert_string_equal(buf, "bfhost1");
	/* Cut with an ellipsis, in UTF-8 or ASCII, to exactly the width. */
	ui_fit(buf, sizeof(buf), "skipped: fp16: no cblas_shgemm", 10, 0, 1);
	assert_string_equal(buf, "skipped: \xe2\x80\xa6");
	assert_int_equal(ui_text_width(buf), 10);
	ui_fit(buf, sizeof(buf), "skipped: fp16: no cblas_shgemm", 10, 1, 0);
	assert_string_equal(buf, "skipped: ~");
	/* Never inside a multi-byte character. */
	ui_fit(buf, sizeof(buf), "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88", 2, 0, 1);
	assert_string_equal(buf, "\xe2\x96\x88\xe2\x80\xa6");
	ui_fit(buf, sizeof(buf), "abc", 0, 0, 1);
	assert_string_equal(buf, "");
	/* A reason with a newline stays on its line. */
	ui_fit(buf, sizeof(buf), "build failed:\nmake: *** Error 2", 20, 0, 1);
	assert_string_equal(buf, "build failed: make:\xe2\x80\xa6");
	/* Outside UTF-8 one character is one '?', one cell. */
	ui_fit(buf, sizeof(buf), "h\xc3\xb4te", 6, 0, 0);
	assert_string_equal(buf, "h?te  ");
}

/* ---- cells ------------------------------------------------------------- */

static void test_delta_pct(void **state)
{
	assert_true(fabs(ui_delta_pct(110.0, 100.0) - 10.0) < 1e-12);
	assert_true(fabs(ui_delta_pct(90.0, 100.0) + 10.0) < 1e-12);
	assert_true(isnan(ui_delta_pct(NAN, 100.0)));
	assert_true(isnan(ui_delta_pct(100.0, NAN)));
	assert_true(isnan(ui_delta_pct(100.0, 0.0)));
	assert_true(isnan(ui_delta_pct(100.0, -5.0)));
}

static void test_cell_delta(void **state)
{
	struct model_snapshot *m = new_model(1);
	struct model_row *r = add_row(m, 0, "cpu", "fp32", 1024, 103.2);
	char buf[64];

	/* Higher GFLOP/s is better: a rise is good, a fall is bad. */
	r->prev_gflops = 100.0;
	assert_int_equal(ui_cell_text(m, r, UI_COL_DELTA, buf, sizeof(buf)),
			 UI_TONE_GOOD);
	assert_string_equal(buf, "+3.2%");
	r->gflops = 99.6;
	assert_int_equal(ui_cell_text(m, r, UI_COL_DELTA, buf, sizeof(buf)),
			 UI_TONE_BAD);
	assert_string_equal(buf, "-0.4%");
	/* A change that rounds to nothing has no sign and no colour. */
	r->gflops = 100.04;
	assert_int_equal(ui_cell_text(m, r, UI_COL_DELTA, buf, sizeof(buf)),
			 UI_TONE_NORMAL);
	assert_string_equal(buf, "0.0%");
	r->gflops = 99.96;
	ui_cell_text(m, r, UI_COL_DELTA, buf, sizeof(buf));
	assert_string_equal(buf, "0.0%");
	/* No previous run: n/a, never 0. */
	r->prev_gflops = NAN;
	assert_int_equal(ui_cell_text(m, r, UI_COL_DELTA, buf, sizeof(buf)),
			 UI_TONE_DIM);
	assert_string_equal(buf, "n/a");
	free_model(m);
}

static void test_cell_numbers(void **state)
{
	struct model_snapshot *m = new_model(1);
	struct model_row *r = add_row(m, 0, "cuda:0", "fp16", 4096, 51234.56);
	char buf[64];

	r->median_ms = 2.68254;
	r->peak_mib = 384.4;
	r->vs_fp32 = 2.514;
	r->gpu_vs_cpu = NAN;
	ui_cell_text(m, r, UI_COL_GFLOPS, buf, sizeof(buf));
	assert_string_equal(buf, "51234.6");
	ui_cell_text(m, r, UI_COL_MEDIAN, buf, sizeof(buf));
	assert_string_equal(buf, "2.683");
	ui_cell_text(m, r, UI_COL_PEAK, buf, sizeof(buf));
	assert_string_equal(buf, "384");
	ui_cell_text(m, r, UI_COL_VS_FP32, buf, sizeof(buf));
	assert_string_equal(buf, "2.51x");
	assert_int_equal(ui_cell_text(m, r, UI_COL_GPU_VS_CPU, buf, sizeof(buf)),
			 UI_TONE_DIM);
	assert_string_equal(buf, "n/a");
	ui_cell_text(m, r, UI_COL_N, buf, sizeof(buf));
	assert_string_equal(buf, "4096");
	ui_cell_text(m, r, UI_COL_HOST, buf, sizeof(buf));
	assert_string_equal(buf, "bfhost1");
	free_model(m);
}

static void test_cell_checks(void **state)
{
	struct model_snapshot *m = new_model(2);
	struct model_row *r0 = add_row(m, 0, "cpu", "fp32", 256, 10.0);
	struct model_row *r1 = add_row(m, 1, "cpu", "fp32", 256, 10.0);
	struct model_row *r2 = add_row(m, 1, "cuda:0", "fp32", 256, 10.0);
	char buf[64];

	/* Before any check record: n/a. */
	assert_int_equal(ui_cell_text(m, r0, UI_COL_CHECKS, buf, sizeof(buf)),
			 UI_TONE_DIM);
	assert_string_equal(buf, "n/a");
	add_checks(m, 0, "cpu", 22, 0, 0);
	add_checks(m, 1, "cpu", 21, 1, 0);
	add_checks(m, 1, "cuda:0", 0, 0, 1);
	r0 = &m->rows[0];
	r1 = &m->rows[1];
	r2 = &m->rows[2];
	assert_int_equal(ui_cell_text(m, r0, UI_COL_CHECKS, buf, sizeof(buf)),
			 UI_TONE_NORMAL);
	assert_string_equal(buf, "22/0");
	/* A failed check stands out. */
	assert_int_equal(ui_cell_text(m, r1, UI_COL_CHECKS, buf, sizeof(buf)),
			 UI_TONE_BAD);
	assert_string_equal(buf, "21/1");
	assert_int_equal(ui_cell_text(m, r2, UI_COL_CHECKS, buf, sizeof(buf)),
			 UI_TONE_DIM);
	assert_string_equal(buf, "skip");
	free_model(m);
}

static void test_state_texts(void **state)
{
	struct model_snapshot *m = new_model(1);
	struct model_host *h = &m->hosts[0];
	struct model_row *r = add_row(m, 0, "cpu", "fp32", 256, 10.0);
	char buf[128];

	assert_int_equal(ui_host_state_text(h, buf, sizeof(buf)), UI_TONE_DIM);
	assert_string_equal(buf, "pending");
	h->state = HOST_BUILDING;
	assert_int_equal(ui_host_state_text(h, buf, sizeof(buf)), UI_TONE_ACTIVE);
	assert_string_equal(buf, "building");
	h->state = HOST_RUNNING;
	ui_host_state_text(h, buf, sizeof(buf));
	assert_string_equal(buf, "running");
	h->gemm_done = 3;
	h->gemm_total = 12;
	ui_host_state_text(h, buf, sizeof(buf));
	assert_string_equal(buf, "running 3/12");
	/* A row shows its host's state ... */
	assert_int_equal(ui_cell_text(m, r, UI_COL_STATE, buf, sizeof(buf)),
			 UI_TONE_ACTIVE);
	assert_string_equal(buf, "running 3/12");
	/* ... unless it failed or was skipped itself. */
	r->status = BF_STATUS_FAIL;
	r->reason = strdup("max error 3.1e-2 > 1e-3"); /* the snapshot's */
	assert_int_equal(ui_cell_text(m, r, UI_COL_STATE, buf, sizeof(buf)),
			 UI_TONE_BAD);
	/* The reason is a note under the table; the state names it. */
	assert_string_equal(buf, "FAIL [1]");
	assert_int_equal(ui_reason_note(m, "max error 3.1e-2 > 1e-3"), 1);
	r->status = BF_STATUS_SKIPPED;
	free((char *)r->reason);
	r->reason = strdup("fp16: no cblas_shgemm");
	assert_int_equal(ui_cell_text(m, r, UI_COL_STATE, buf, sizeof(buf)),
			 UI_TONE_DIM);
	assert_string_equal(buf, "skipped [1]");
	r->status = BF_STATUS_PASS;
	h->state = HOST_FAILED;
	h->reason = strdup("connect: connection refused");
	assert_int_equal(ui_cell_text(m, r, UI_COL_STATE, buf, sizeof(buf)),
			 UI_TONE_BAD);
	assert_string_equal(buf, "failed: connect: connection refused");
	/* A reason longer than the cell's buffer ends in "..." (issue 28:
	 * it was cut in silence); the panel's line is cut the same way. */
	free((char *)h->reason);
	h->reason = calloc(301, 1);
	memset((char *)h->reason, 'e', 300);
	ui_host_state_text(h, buf, sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_string_equal(buf + sizeof(buf) - 4, "...");
	h->state = HOST_RUNNING;
	h->gemm_done = 0;
	h->gemm_total = 6;
	memset(h->plan, 'p', 200);
	h->plan[200] = '\0';
	ui_host_panel_text(h, buf, sizeof(buf));
	assert_true(strncmp(buf, "running 0/6: ppp", 16) == 0);
	assert_string_equal(buf + sizeof(buf) - 4, "...");
	h->state = HOST_DONE;
	assert_int_equal(ui_host_state_text(h, buf, sizeof(buf)), UI_TONE_NORMAL);
	assert_string_equal(buf, "done");
	free_model(m);
}

/* ---- columns ----------------------------------------------------------- */

static void test_columns_all_fit_when_wide(void **state)
{
	struct model_snapshot *m = gpu_fleet();
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_col_place p[UI_NCOLS];
	int used, x = 0;

	ui_columns_for(m, 1, spec);
	assert_false(spec[UI_COL_N].enabled); /* one size: no n column */
	assert_string_equal(spec[UI_COL_DELTA].title, "\xce\x94%");
	used = ui_layout_columns(200, spec, p);
	assert_true(used <= 200);
	for (int c = 0; c < UI_NCOLS; c++) {
		if (c == UI_COL_N) {
			assert_false(p[c].shown);
			continue;
		}
		assert_true(p[c].shown);
		/* In display order, one gap apart, at least their minimum
		 * and, with room to spare, their wanted width. */
		assert_int_equal(p[c].x, x);
		assert_true(p[c].width >= spec[c].min_width);
		assert_int_equal(p[c].width, spec[c].want_width);
		x += p[c].width + UI_COL_GAP;
	}
	assert_int_equal(used, x - UI_COL_GAP);
	free_model(m);
}

static void test_columns_at_80(void **state)
{
	struct model_snapshot *m = gpu_fleet();
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_col_place p[UI_NCOLS];
	int used;

	ui_columns_for(m, 1, spec);
	used = ui_layout_columns(80, spec, p);
	assert_true(used <= 80);
	/* The first two of the stated order go. */
	assert_false(shown(p, UI_COL_PEAK));
	assert_false(shown(p, UI_COL_GPU_VS_CPU));
	assert_true(shown(p, UI_COL_MEDIAN));
	assert_true(shown(p, UI_COL_VS_FP32));
	assert_true(shown(p, UI_COL_DELTA));
	assert_true(shown(p, UI_COL_CHECKS));
	assert_true(shown(p, UI_COL_HOST));
	assert_true(shown(p, UI_COL_DEVICE));
	assert_true(shown(p, UI_COL_DTYPE));
	assert_true(shown(p, UI_COL_GFLOPS));
	assert_true(shown(p, UI_COL_STATE));
	/* Host names are kept whole. */
	assert_int_equal(p[UI_COL_HOST].width, 7);
	free_model(m);
}

/* Narrowing the terminal one cell at a time drops columns in exactly the
 * stated order, and never the essential ones. */
static void test_drop_order(void **state)
{
	static const enum ui_col order[] = {
		UI_COL_ENERGY, UI_COL_PEAK, UI_COL_GPU_VS_CPU, UI_COL_MEDIAN,
		UI_COL_VS_FP32, UI_COL_PCT_ROOF, UI_COL_PCT_PEAK, UI_COL_VS_REF,
		UI_COL_DELTA, UI_COL_CHECKS, UI_COL_N,
	};
	struct model_snapshot *m = gpu_fleet();
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_col_place p[UI_NCOLS];
	int was_shown[UI_NCOLS], ndropped = 0;

	add_row(m, 0, "cpu", "fp32", 8192, 400.0)->prev_gflops = 390.0; /* a sweep */
	for (int i = 0; i < m->nrows; i++) {
		m->rows[i].fraction_of_peak = 0.5; /* %peak is not empty */
		m->rows[i].fraction_of_roofline = 0.6; /* nor %roof */
		m->rows[i].gflop_per_joule = 12.5; /* nor GFLOP/J */
		m->rows[i].bound = 'C';
		m->rows[i].reference_gflops = 500;  /* nor vs ref */
		m->rows[i].fraction_of_reference = 0.9;
	}
	ui_columns_for(m, 1, spec);
	assert_true(spec[UI_COL_N].enabled);
	ui_layout_columns(300, spec, p);
	for (int c = 0; c < UI_NCOLS; c++) {
		assert_true(p[c].shown);
		was_shown[c] = 1;
	}
	for (int w = 300; w >= 10; w--) {
		int used = ui_layout_columns(w, spec, p);

		for (int c = 0; c < UI_NCOLS; c++) {
			if (was_shown[c] && !p[c].shown) {
				assert_true(ndropped < (int)(sizeof(order) / sizeof(order[0])));
				assert_int_equal(c, order[ndropped]);
				ndropped++;
			}
			/* Once dropped, a column stays dropped. */
			assert_false(!was_shown[c] && p[c].shown);
			was_shown[c] = p[c].shown;
		}
		assert_true(p[UI_COL_HOST].shown && p[UI_COL_DEVICE].shown &&
			    p[UI_COL_DTYPE].shown && p[UI_COL_GFLOPS].shown &&
			    p[UI_COL_STATE].shown);
		if (ndropped < 11)
			assert_true(used <= w);
	}
	assert_int_equal(ndropped, 11);
	free_model(m);
}

/* Below the essentials' minimum nothing more can go: the caller clips. */
static void test_columns_tiny(void **state)
{
	struct model_snapshot *m = gpu_fleet();
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_col_place p[UI_NCOLS];
	int used;

	ui_columns_for(m, 1, spec);
	used = ui_layout_columns(20, spec, p);
	assert_true(used > 20);
	for (int c = 0; c < UI_NCOLS; c++)
		assert_int_equal(p[c].shown, spec[c].drop_rank == 0);
	free_model(m);
}

/* A CPU-only sweep: vs fp32 and GPU/CPU are n/a in every row, so they go
 * before anything that has values. */
static void test_empty_columns_go_first(void **state)
{
	struct model_snapshot *m = new_model(3);
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_col_place p[UI_NCOLS];

	for (int h = 0; h < 3; h++) {
		for (int n = 256; n <= 1024; n *= 2) {
			struct model_row *r = add_row(m, h, "cpu", "fp32", n, 20.0);

			r->prev_gflops = 19.0;
		}
		add_checks(m, h, "cpu", 22, 0, 0);
	}
	ui_columns_for(m, 0, spec);
	assert_true(spec[UI_COL_N].enabled);
	assert_true(spec[UI_COL_VS_FP32].empty);
	assert_true(spec[UI_COL_GPU_VS_CPU].empty);
	assert_false(spec[UI_COL_PEAK].empty);
	assert_false(spec[UI_COL_DELTA].empty);
	assert_string_equal(spec[UI_COL_DELTA].title, "chg%");
	ui_layout_columns(80, spec, p);
	assert_false(shown(p, UI_COL_VS_FP32));
	assert_false(shown(p, UI_COL_GPU_VS_CPU));
	assert_false(shown(p, UI_COL_PEAK));
	assert_true(shown(p, UI_COL_MEDIAN));
	assert_true(shown(p, UI_COL_DELTA));
	assert_true(shown(p, UI_COL_CHECKS));
	assert_true(shown(p, UI_COL_N));
	free_model(m);
}

/* ---- rows of the screen and the host panel ----------------------------- */

static void test_rows_layout(void **state)
{
	struct ui_rows r;

	ui_layout_rows(24, 3, &r);
	assert_false(r.too_small);
	assert_int_equal(r.header_y, 0);
	assert_int_equal(r.panel_y, 1);
	assert_int_equal(r.panel_lines, 3);
	assert_int_equal(r.rule_y, 4);
	assert_int_equal(r.titles_y, 5);
	assert_int_equal(r.body_y, 6);
	assert_int_equal(r.body_lines, 17);
	assert_int_equal(r.footer_y, 23);

	/* Many hosts: the panel takes a third of what is left. */
	ui_layout_rows(24, 32, &r);
	assert_int_equal(r.panel_lines, 6);
	assert_int_equal(r.body_lines, 14);

	ui_layout_rows(UI_MIN_HEIGHT, 3, &r);
	assert_false(r.too_small);
	assert_int_equal(r.panel_lines, 1);
	assert_int_equal(r.body_lines, 1);
	assert_int_equal(r.footer_y, UI_MIN_HEIGHT - 1);

	ui_layout_rows(UI_MIN_HEIGHT - 1, 3, &r);
	assert_true(r.too_small);
}

static void test_panel_hosts(void **state)
{
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	static const enum host_state st[] = {
		HOST_DONE, HOST_RUNNING, HOST_PENDING, HOST_FAILED,
		HOST_BUILDING, HOST_INTERRUPTED,
	};
	struct model_snapshot *m = new_snapshot(6, names);
	int idx[6], n;

	for (int i = 0; i < 6; i++)
		m->hosts[i].state = st[i];
	/* All fit: host order. */
	n = ui_panel_hosts(m, 6, idx);
	assert_int_equal(n, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(idx[i], i);
	/* Four lines: three hosts and a summary; failed first, then the
	 * working ones. */
	n = ui_panel_hosts(m, 4, idx);
	assert_int_equal(n, 3);
	assert_int_equal(idx[0], 3); /* failed */
	assert_int_equal(idx[1], 1); /* running */
	assert_int_equal(idx[2], 4); /* building */
	n = ui_panel_hosts(m, 5, idx);
	assert_int_equal(n, 4);
	assert_int_equal(idx[3], 2); /* pending before interrupted, done */
	free_model(m);
}

/* ---- sorting and grouping ---------------------------------------------- */

static void test_sort_arrival_and_gflops(void **state)
{
	struct model_snapshot *m = new_model(2);
	int order[5];

	add_row(m, 1, "cpu", "fp32", 256, 30.0);  /* 0 */
	add_row(m, 0, "cpu", "fp32", 256, 10.0);  /* 1 */
	add_row(m, 0, "cpu", "fp16", 256, NAN);   /* 2: skipped */
	add_row(m, 1, "cpu", "fp16", 256, 50.0);  /* 3 */
	add_row(m, 0, "cpu", "bf16", 256, 20.0);  /* 4 */

	/* Grouped by host (host order), arrival within a host. */
	ui_sort_rows(m, UI_GROUP_HOST, UI_SORT_ARRIVAL, order);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 4);
	assert_int_equal(order[3], 0);
	assert_int_equal(order[4], 3);

	/* GFLOP/s: highest first within the group, n/a last. */
	ui_sort_rows(m, UI_GROUP_HOST, UI_SORT_GFLOPS, order);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 3);
	assert_int_equal(order[4], 0);

	/* Median ms: fastest (smallest) first. */
	ui_sort_rows(m, UI_GROUP_HOST, UI_SORT_MEDIAN, order);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	free_model(m);
}

static void test_sort_delta_and_ties(void **state)
{
	struct model_snapshot *m = new_model(1);
	int order[4];

	add_row(m, 0, "cpu", "fp32", 256, 100.0)->prev_gflops = 100.0; /* 0% */
	add_row(m, 0, "cpu", "fp32", 512, 90.0)->prev_gflops = 100.0;  /* -10% */
	add_row(m, 0, "cpu", "fp32", 768, 120.0)->prev_gflops = 100.0; /* +20% */
	add_row(m, 0, "cpu", "fp32", 1024, 100.0);                    /* n/a */
	ui_sort_rows(m, UI_GROUP_HOST, UI_SORT_DELTA, order);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 3);

	/* Equal values keep arrival order (the sort is stable). */
	for (int i = 0; i < 4; i++)
		m->rows[i].peak_mib = 7;
	ui_sort_rows(m, UI_GROUP_HOST, UI_SORT_PEAK, order);
	for (int i = 0; i < 4; i++)
		assert_int_equal(order[i], i);
	free_model(m);
}

static void test_group_by_dtype(void **state)
{
	struct model_snapshot *m = new_model(2);
	int order[6];
	struct ui_line lines[12];
	int n;

	add_row(m, 0, "cpu", "fp32", 256, 10.0); /* 0 */
	add_row(m, 0, "cpu", "fp16", 256, 30.0); /* 1 */
	add_row(m, 1, "cpu", "fp32", 256, 20.0); /* 2 */
	add_row(m, 1, "cpu", "fp16", 256, 5.0);  /* 3 */
	add_row(m, 0, "cpu", "bf16", 256, 8.0);  /* 4 */
	add_row(m, 1, "cpu", "bf16", 256, 9.0);  /* 5 */

	/* dtypes in order of first appearance, hosts in order within. */
	ui_sort_rows(m, UI_GROUP_DTYPE, UI_SORT_ARRIVAL, order);
	n = ui_build_lines(m, UI_GROUP_DTYPE, order, lines);
	assert_int_equal(n, 9);
	assert_true(lines[0].heading);
	assert_int_equal(m->rows[lines[0].row].dtype, BF_DTYPE_FP32);
	assert_false(lines[1].heading);
	assert_int_equal(lines[1].row, 0);
	assert_int_equal(lines[2].row, 2);
	assert_true(lines[3].heading);
	assert_int_equal(m->rows[lines[3].row].dtype, BF_DTYPE_FP16);
	assert_int_equal(lines[4].row, 1);
	assert_int_equal(lines[5].row, 3);
	assert_true(lines[6].heading);
	assert_int_equal(m->rows[lines[6].row].dtype, BF_DTYPE_BF16);

	/* Sorted by GFLOP/s across hosts within each dtype. */
	ui_sort_rows(m, UI_GROUP_DTYPE, UI_SORT_GFLOPS, order);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 3);
	assert_int_equal(order[4], 5);
	assert_int_equal(order[5], 4);

	/* By host: a heading per host. */
	ui_sort_rows(m, UI_GROUP_HOST, UI_SORT_ARRIVAL, order);
	n = ui_build_lines(m, UI_GROUP_HOST, order, lines);
	assert_int_equal(n, 8);
	assert_true(lines[0].heading);
	assert_true(lines[4].heading);
	assert_int_equal(m->rows[lines[4].row].host, 1);
	free_model(m);
}

static void test_names(void **state)
{
	assert_string_equal(ui_group_name(UI_GROUP_HOST), "host");
	assert_string_equal(ui_group_name(UI_GROUP_DTYPE), "dtype");
	assert_string_equal(ui_sort_name(UI_SORT_GFLOPS), "GFLOP/s");
	assert_int_equal(ui_sort_column(UI_SORT_GFLOPS), UI_COL_GFLOPS);
	assert_int_equal(ui_sort_column(UI_SORT_ARRIVAL), UI_NCOLS);
	assert_non_null(ui_help_lines()[0]);
}

/* ---- bars, clocks ------------------------------------------------------ */

static void test_bar(void **state)
{
	char buf[256];

	ui_bar(buf, sizeof(buf), 10, 5, 10, 0);
	assert_string_equal(buf, "#####.....");
	ui_bar(buf, sizeof(buf), 10, 0, 0, 0);
	assert_string_equal(buf, "..........");
	ui_bar(buf, sizeof(buf), 4, 20, 10, 0); /* clamped */
	assert_string_equal(buf, "####");
	/* UTF-8: 3/16 of 4 cells is 6 eighths: no full block, a 6/8 block,
	 * three light shades. */
	ui_bar(buf, sizeof(buf), 4, 3, 16, 1);
	assert_string_equal(buf, "\xe2\x96\x8a\xe2\x96\x91\xe2\x96\x91\xe2\x96\x91");
	assert_int_equal(ui_text_width(buf), 4);
	ui_bar(buf, sizeof(buf), 3, 1, 1, 1);
	assert_string_equal(buf, "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88");
	/* A buffer too small is cut, never overrun. */
	ui_bar(buf, 5, 10, 10, 10, 1);
	assert_string_equal(buf, "\xe2\x96\x88");
}

static void test_host_progress(void **state)
{
	struct model_host h;

	memset(&h, 0, sizeof(h));
	h.state = HOST_BUILDING;
	assert_int_equal(ui_host_progress(&h), 0);
	h.state = HOST_RUNNING;
	h.checks_total = 22;
	h.gemm_total = 6;
	h.checks_done = 11;
	assert_int_equal(ui_host_progress(&h), 50);
	h.checks_done = 22;
	h.gemm_done = 3;
	assert_int_equal(ui_host_progress(&h), 550);
	h.gemm_done = 6;
	assert_int_equal(ui_host_progress(&h), 1000);
	h.checks_total = h.checks_done = 0; /* --no-checks */
	h.gemm_done = 0;
	assert_int_equal(ui_host_progress(&h), 100);
	h.state = HOST_DONE;
	h.gemm_total = 0;
	assert_int_equal(ui_host_progress(&h), 1000);
}

static void test_elapsed(void **state)
{
	char buf[32];

	ui_fmt_elapsed(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0:00");
	ui_fmt_elapsed(buf, sizeof(buf), 61500000000ull);
	assert_string_equal(buf, "1:01");
	ui_fmt_elapsed(buf, sizeof(buf), 3661000000000ull);
	assert_string_equal(buf, "1:01:01");
}

/* ---- the model's baseline ---------------------------------------------- */

static void gemm_record(struct bf_record *r, const char *dtype, int n,
			double gflops)
{
	bf_record_init(r, BF_REC_GEMM);
	r->u.gemm.device = strdup("cpu");
	r->u.gemm.dtype = strdup(dtype);
	r->u.gemm.n = n;
	r->u.gemm.status = BF_STATUS_PASS;
	r->u.gemm.gflops = gflops;
}

/* prev_gflops of row i, read through a snapshot. */
static double prev_of(struct model *m, int i)
{
	struct model_snapshot s = { 0 };
	double v;

	model_snapshot_update(m, &s);
	assert_true(i < s.nrows);
	v = s.rows[i].prev_gflops;
	model_snapshot_free(&s);
	return v;
}

static void test_model_baseline(void **state)
{
	struct model mm, *m = &mm;
	struct model_baseline b[2] = {
		{ "cpu", BF_DTYPE_FP32, 256, 1, 10.0 },
		{ "cpu", BF_DTYPE_FP32, 512, 1, 20.0 },
	};
	struct bf_record rec;

	model_init(m, 2, host_names);
	gemm_record(&rec, "fp32", 256, 11.0);
	model_add_record(m, 0, &rec);
	bf_record_free(&rec);
	assert_true(isnan(prev_of(m, 0)));
	/* Set after a row arrived: the row gets it too. */
	model_set_baseline(m, 0, b, 2);
	assert_true(prev_of(m, 0) == 10.0);
	gemm_record(&rec, "fp32", 512, 19.0);
	model_add_record(m, 0, &rec);
	bf_record_free(&rec);
	assert_true(prev_of(m, 1) == 20.0);
	/* No match (another size, another host): NaN. */
	gemm_record(&rec, "fp32", 1024, 19.0);
	model_add_record(m, 0, &rec);
	model_add_record(m, 1, &rec);
	bf_record_free(&rec);
	assert_true(isnan(prev_of(m, 2)));
	assert_true(isnan(prev_of(m, 3)));
	/* Cleared. */
	model_set_baseline(m, 0, NULL, 0);
	assert_true(isnan(prev_of(m, 0)));
	model_free(m);
}

/* Issue 28: notes are whole however long. A row's unreliable reasons
 * (320 bytes in the model) were copied into 160 bytes to be grouped, so
 * the second of two long reasons lost its end, and two reasons alike in
 * their first 160 bytes became one group; a report's bandwidth reason
 * (any length in run.json) was kept in 160 bytes. */
static void test_long_notes_whole(void **state)
{
	struct model_snapshot *m = new_model(1);
	struct model_row *r = add_row(m, 0, "cpu", "fp32", 64, 10.0);
	struct model_row *r2 = add_row(m, 0, "cpu", "fp32", 128, 20.0);
	struct ui_text_line *l;
	struct ui_notes ns = { 0 };
	char a[120], b[150], b2[150], marks[64], *big;
	int n;

	(void)state;
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memset(b, 'b', sizeof(b) - 1);
	b[sizeof(b) - 1] = '\0';
	memcpy(b2, b, sizeof(b));
	b2[sizeof(b2) - 2] = 'Z'; /* like b but for its last byte */
	r->reliable = 0;
	r->unreliable = bf_xasprintf("%s; %s", a, b); /* the snapshot's */
	r2->reliable = 0;
	r2->unreliable = bf_xasprintf("%s; %s", a, b2);
	n = ui_note_lines(m, 0, &l);
	assert_int_equal(n, 3);
	assert_true(strncmp(l[0].text, "?1 ", 3) == 0);
	assert_true(strncmp(l[0].text + 3, a, strlen(a)) == 0);
	assert_string_equal(l[0].text + 3 + strlen(a), ": 2 rows");
	assert_true(strncmp(l[1].text + 3, b, strlen(b)) == 0);
	assert_string_equal(l[1].text + 3 + strlen(b), ": 1 row");
	assert_true(strncmp(l[2].text + 3, b2, strlen(b2)) == 0);
	assert_string_equal(l[2].text + 3 + strlen(b2), ": 1 row");
	free(l);
	ui_row_marks(m, r2, marks, sizeof(marks));
	assert_string_equal(marks, "1,3");
	/* Wrapped at 60 cells: every byte of b is still there. */
	n = ui_note_lines(m, 60, &l);
	{
		size_t got = 0;

		for (int i = 0; i < n; i++)
			for (const char *p = l[i].text; *p; p++)
				got += *p == 'b';
		assert_int_equal(got, strlen(b) + strlen(b2) - 1);
	}
	free(l);
	/* A skip reason of 300 bytes (a report's bandwidth record) is kept
	 * whole, and is told from one alike in its first 299 bytes. */
	big = malloc(301);
	memset(big, 'r', 300);
	big[300] = '\0';
	assert_int_equal(ui_notes_add(&ns, big), 1);
	assert_string_equal(ns.text[0], big);
	big[299] = 's';
	assert_int_equal(ui_notes_add(&ns, big), 2);
	assert_int_equal(strlen(ns.text[1]), 300);
	free(big);
	ui_notes_free(&ns);
	free_model(m);
}

/* The model's only read path: a caller-owned snapshot, refreshed only
 * when the model changed, independent of the model once taken. */
static void test_model_snapshot(void **state)
{
	struct model mm, *m = &mm;
	struct model_snapshot s = { 0 };
	struct model_host h;
	struct bf_record rec;

	model_init(m, 2, host_names);
	assert_int_equal(model_nhosts(m), 2);
	assert_int_equal(model_snapshot_update(m, &s), 1); /* empty: filled */
	assert_int_equal(s.nhosts, 2);
	assert_string_equal(s.hosts[1].name, "bfhost2");
	assert_int_equal(s.hosts[0].agent_exit, -1);
	assert_int_equal(s.nrows, 0);
	assert_int_equal(model_snapshot_update(m, &s), 0); /* unchanged */

	bf_record_init(&rec, BF_REC_PLAN);
	rec.u.plan.checks_total = 3;
	rec.u.plan.gemm_total = 2;
	assert_int_equal(model_add_record(m, 1, &rec), 1);
	bf_record_free(&rec);
	bf_record_init(&rec, BF_REC_CHECK);
	rec.u.check.name = strdup("add.elementwise");
	rec.u.check.device = strdup("cuda:0");
	rec.u.check.status = BF_STATUS_FAIL;
	assert_int_equal(model_add_record(m, 1, &rec), 0);
	bf_record_free(&rec);
	/* cuda:0 fp32 first, then its CPU base: the ratio fills in. */
	gemm_record(&rec, "fp32", 256, 400.0);
	free(rec.u.gemm.device);
	rec.u.gemm.device = strdup("cuda:0");
	model_add_record(m, 1, &rec);
	bf_record_free(&rec);
	gemm_record(&rec, "fp32", 256, 20.0);
	model_add_record(m, 1, &rec);
	bf_record_free(&rec);
	model_set_state(m, 1, HOST_RUNNING, NULL);

	assert_int_equal(model_snapshot_update(m, &s), 1);
	assert_int_equal(s.nrows, 2);
	assert_int_equal(s.rows[0].host, 1);
	assert_string_equal(s.rows[0].device, "cuda:0");
	assert_true(s.rows[0].gpu_vs_cpu == bf_speed_ratio(400.0, 20.0));
	assert_true(isnan(s.rows[0].vs_fp32));
	assert_true(isnan(s.rows[1].gpu_vs_cpu));
	assert_int_equal(s.nchecks, 1);
	assert_non_null(model_snapshot_checks(&s, 1, "cuda:0"));
	assert_int_equal(model_snapshot_checks(&s, 1, "cuda:0")->failed, 1);
	assert_null(model_snapshot_checks(&s, 0, "cuda:0"));
	assert_int_equal(s.hosts[1].state, HOST_RUNNING);
	assert_int_equal(s.hosts[1].gemm_done, 2);
	assert_int_equal(s.hosts[1].gemm_total, 2);
	assert_int_equal(s.hosts[1].checks_done, 1);
	assert_int_equal(s.hosts[1].records, 4);

	model_host_get(m, 1, &h);
	assert_int_equal(h.checks_total, 3);
	assert_int_equal(h.state, HOST_RUNNING);

	/* The copy outlives the model. */
	model_free(m);
	assert_string_equal(s.rows[1].device, "cpu");
	model_snapshot_free(&s);
	assert_null(s.rows);
	model_snapshot_free(NULL);
}

/* %roof: the fraction of the roofline with the bound's letter. */
static void test_cell_roof(void **state)
{
	struct model_snapshot *m = new_model(1);
	struct model_row *r = add_row(m, 0, "cpu", "fp32", 64, 100.0);
	char buf[64];

	assert_int_equal(ui_cell_text(m, r, UI_COL_PCT_ROOF, buf, sizeof(buf)),
			 UI_TONE_DIM);
	assert_string_equal(buf, "n/a");
	r->fraction_of_roofline = 0.52;
	r->bound = 'M';
	ui_cell_text(m, r, UI_COL_PCT_ROOF, buf, sizeof(buf));
	assert_string_equal(buf, "52% M");
	r->fraction_of_roofline = 0.035;
	r->bound = 'C';
	ui_cell_text(m, r, UI_COL_PCT_ROOF, buf, sizeof(buf));
	assert_string_equal(buf, "3.5% C");
	r->bound = 0;
	ui_cell_text(m, r, UI_COL_PCT_ROOF, buf, sizeof(buf));
	assert_string_equal(buf, "3.5%");
	assert_string_equal(ui_sort_name(UI_SORT_PCT_ROOF), "%roof");
	assert_int_equal(ui_sort_column(UI_SORT_PCT_ROOF), UI_COL_PCT_ROOF);
	free_model(m);
}

/* vs ref: of the published measurement of the product at that n; n/a
 * without one (a zeroed row too); "!" and a bad tone below 80 %. */
static void test_cell_vs_ref(void **state)
{
	struct model_snapshot *m = new_model(1);
	struct model_row *r = add_row(m, 0, "cuda:0", "fp16", 4096, 80000.0);
	char buf[64];

	assert_int_equal(ui_cell_text(m, r, UI_COL_VS_REF, buf, sizeof(buf)),
			 UI_TONE_DIM);
	assert_string_equal(buf, "n/a");
	r->reference_gflops = 88808;
	r->fraction_of_reference = 80000.0 / 88808;
	r->below_reference = 0;
	assert_int_equal(ui_cell_text(m, r, UI_COL_VS_REF, buf, sizeof(buf)),
			 UI_TONE_NORMAL);
	assert_string_equal(buf, "90%");
	r->fraction_of_reference = 0.62;
	r->below_reference = 1;
	assert_int_equal(ui_cell_text(m, r, UI_COL_VS_REF, buf, sizeof(buf)),
			 UI_TONE_BAD);
	assert_string_equal(buf, "62%" UI_BELOW_REF_MARK);
	r->fraction_of_reference = NAN; /* failed: no verdict */
	r->below_reference = -1;
	ui_cell_text(m, r, UI_COL_VS_REF, buf, sizeof(buf));
	assert_string_equal(buf, "n/a");
	free_model(m);
}

/* A run without bandwidth (--no-bandwidth): %roof is empty and goes
 * first at 80 columns, before %peak. */
static void test_roof_empty_goes_first(void **state)
{
	struct model_snapshot *m = gpu_fleet();
	struct ui_col_spec spec[UI_NCOLS];
	struct ui_col_place p[UI_NCOLS];
	int w;

	for (int i = 0; i < m->nrows; i++)
		m->rows[i].fraction_of_peak = 0.5;
	ui_columns_for(m, 1, spec);
	assert_true(spec[UI_COL_PCT_ROOF].empty);
	assert_false(spec[UI_COL_PCT_PEAK].empty);
	assert_int_equal(spec[UI_COL_PCT_ROOF].drop_rank,
			 spec[UI_COL_PCT_PEAK].drop_rank + 1);
	ui_layout_columns(300, spec, p);
	assert_true(shown(p, UI_COL_PCT_ROOF));
	/* The widest width that drops anything drops %roof alone. */
	for (w = 300; w > 10; w--) {
		ui_layout_columns(w, spec, p);
		if (!shown(p, UI_COL_PCT_ROOF))
			break;
	}
	assert_true(shown(p, UI_COL_PEAK));
	assert_true(shown(p, UI_COL_PCT_PEAK));
	free_model(m);
}

static void add_bw(struct model_snapshot *m, int host, const char *dev,
		   const char *kind, enum bf_status st, double gbps,
		   const char *reason)
{
	struct model_bandwidth *b;

	m->bandwidth = realloc(m->bandwidth, (size_t)(m->nbandwidth + 1) * sizeof(*b));
	b = &m->bandwidth[m->nbandwidth++];
	memset(b, 0, sizeof(*b));
	b->host = host;
	snprintf(b->device, sizeof(b->device), "%s", dev);
	snprintf(b->kind, sizeof(b->kind), "%s", kind);
	b->status = st;
	b->median_gbps = gbps;
	b->array_bytes = NAN;
	b->reason = strdup(reason); /* the snapshot's: model_types.h */
}

/* The section under the rows: bandwidth (skipped kinds of one device
 * collapsed) and batching, aligned, headings first. */
static void test_workload_lines(void **state)
{
	struct model_snapshot *m = new_model(2);
	struct ui_text_line *l;
	struct model_batching *b;
	int n;

	assert_int_equal(ui_workload_lines(m, 1, 0, &l), 0);
	assert_null(l);
	add_bw(m, 0, "cpu", "triad", BF_STATUS_PASS, 12.345, "");
	for (int k = 0; k < 5; k++)
		add_bw(m, 0, "cuda:0", k ? "h2d_pinned" : "d2d",
		       BF_STATUS_SKIPPED, NAN, "no GPU");
	add_bw(m, 1, "cuda:0", "d2d", BF_STATUS_FAIL, NAN, "wrong copy");
	n = ui_workload_lines(m, 1, 0, &l);
	assert_int_equal(n, 5);
	assert_true(l[0].heading);
	assert_string_equal(l[0].text, "bandwidth (median GB/s)");
	assert_true(l[1].titles);
	assert_string_equal(l[1].text, "host    device kind    GB/s state");
	assert_string_equal(l[2].text, "bfhost1 cpu    triad   12.3 pass");
	assert_int_equal(l[2].tone, UI_TONE_NORMAL);
	assert_string_equal(l[3].text, "bfhost1 cuda:0 5 kinds  n/a skipped [1]");
	assert_int_equal(l[3].tone, UI_TONE_DIM);
	assert_string_equal(l[4].text, "bfhost2 cuda:0 d2d      n/a FAIL [2]");
	assert_int_equal(l[4].tone, UI_TONE_BAD);
	free(l);

	m->batching = calloc(1, sizeof(*b));
	m->nbatching = 1;
	b = &m->batching[0];
	b->host = 1;
	snprintf(b->device, sizeof(b->device), "cpu");
	b->dtype = BF_DTYPE_FP32;
	b->status = BF_STATUS_PASS;
	b->single_ms = 0.000206;
	b->batch_ms = 0.000671;
	b->speedup = 6.14;
	b->rows = 20;
	n = ui_workload_lines(m, 1, 0, &l);
	assert_int_equal(n, 8);
	assert_true(l[5].heading);
	assert_string_equal(l[5].text, "batching (20 one-row calls vs one 20-row batch)");
	/* All 20 one-row calls beside the one batch, in µs, then each per
	 * row: 20 x 0.206 = 4.12 µs against 0.671 µs, 6.1x. */
	assert_string_equal(l[6].text, "host    device dtype 20 calls \xc2\xb5s batch \xc2\xb5s speed-up \xc2\xb5s/row call \xc2\xb5s/row batch state");
	assert_string_equal(l[7].text, "bfhost2 cpu    fp32         4.12    0.671     6.1x       0.206       0.0336 pass");
	free(l);
	/* In 60 cells: the per-row latencies go, the rest stays aligned. */
	n = ui_workload_lines(m, 1, 60, &l);
	assert_string_equal(l[6].text, "host    device dtype 20 calls \xc2\xb5s batch \xc2\xb5s speed-up state");
	assert_string_equal(l[7].text, "bfhost2 cpu    fp32         4.12    0.671     6.1x pass");
	free(l);
	/* Outside UTF-8: us. */
	n = ui_workload_lines(m, 0, 0, &l);
	assert_string_equal(l[6].text, "host    device dtype 20 calls us batch us speed-up us/row call us/row batch state");
	free(l);
	/* The notes of those states, each reason once, in model order. */
	n = ui_note_lines(m, 0, &l);
	assert_int_equal(n, 2);
	assert_string_equal(l[0].text, "[1] no GPU");
	assert_string_equal(l[1].text, "[2] wrong copy");
	free(l);
	free_model(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_width),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_delta_pct),
		cmocka_unit_test(test_cell_delta),
		cmocka_unit_test(test_cell_numbers),
		cmocka_unit_test(test_cell_checks),
		cmocka_unit_test(test_state_texts),
		cmocka_unit_test(test_columns_all_fit_when_wide),
		cmocka_unit_test(test_columns_at_80),
		cmocka_unit_test(test_drop_order),
		cmocka_unit_test(test_cell_roof),
		cmocka_unit_test(test_cell_vs_ref),
		cmocka_unit_test(test_roof_empty_goes_first),
		cmocka_unit_test(test_workload_lines),
		cmocka_unit_test(test_columns_tiny),
		cmocka_unit_test(test_empty_columns_go_first),
		cmocka_unit_test(test_rows_layout),
		cmocka_unit_test(test_panel_hosts),
		cmocka_unit_test(test_sort_arrival_and_gflops),
		cmocka_unit_test(test_sort_delta_and_ties),
		cmocka_unit_test(test_group_by_dtype),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_host_progress),
		cmocka_unit_test(test_elapsed),
		cmocka_unit_test(test_model_baseline),
		cmocka_unit_test(test_model_snapshot),
		cmocka_unit_test(test_long_notes_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
