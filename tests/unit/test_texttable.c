/*
 * Unit tests of controller/view/texttable.c (widths from content in display
 * cells, CJK, alignment, no trailing blanks, header-less tables) and of
 * the one column definition the live and the plain results tables share
 * (ui_layout.h's columns printed by table.c).
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/compare.h"
#include "model/model.h"
#include "view/compare_view.h"
#include "view/table.h"
#include "view/texttable.h"
#include "view/ui_layout.h"

static char *print(const struct texttable *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	texttable_print(t, f);
	fclose(f);
	return text;
}

static void test_widths_and_alignment(void **state)
{
	struct texttable *t = texttable_new(1);
	char *out;

	(void)state;
	texttable_add_column(t, "host", TEXTTABLE_LEFT);
	texttable_add_column(t, "n", TEXTTABLE_RIGHT);
	texttable_add_column(t, "state", TEXTTABLE_LEFT);
	texttable_add_row(t);
	texttable_cell(t, "spark");
	texttable_cellf(t, "%d", 4096);
	texttable_cell(t, "done");
	texttable_add_row(t);
	texttable_cell(t, "a");
	texttable_cell(t, "64");
	/* third cell missing: empty, and no trailing blanks */
	assert_int_equal(texttable_rows(t), 2);
	assert_int_equal(texttable_width(t, 0), 5);
	assert_int_equal(texttable_width(t, 1), 4);
	assert_int_equal(texttable_width(t, 2), 5);
	out = print(t);
	assert_string_equal(out, "host     n state\n"
				 "spark 4096 done\n"
				 "a       64\n");
	free(out);
	texttable_free(t);
	texttable_free(NULL);
}

static void test_no_header(void **state)
{
	struct texttable *t = texttable_new(2);
	char *out;

	(void)state;
	texttable_add_column(t, "", TEXTTABLE_LEFT);
	texttable_add_column(t, NULL, TEXTTABLE_LEFT);
	texttable_add_row(t);
	texttable_cell(t, "id1");
	texttable_cell(t, "x");
	texttable_cell(t, "dropped: more cells than columns");
	texttable_add_row(t);
	texttable_cell(t, "id22");
	texttable_cell(t, "");
	out = print(t);
	assert_string_equal(out, "id1   x\nid22\n");
	free(out);
	texttable_free(t);
}

/* Under a UTF-8 locale a CJK character takes two cells, so a table with
 * a CJK host name still lines up; "±" and "Δ" take one. */
static void test_cjk(void **state)
{
	struct texttable *t;
	char *out;

	(void)state;
	if (!setlocale(LC_CTYPE, "C.UTF-8") && !setlocale(LC_CTYPE, "en_US.UTF-8"))
		skip();
	assert_int_equal(texttable_text_width("\xe6\x9d\xb1\xe4\xba\xac"), 4); /* 東京 */
	assert_int_equal(texttable_text_width("\xce\x94%"), 2);
	assert_int_equal(texttable_text_width("12 \xc2\xb1" "2%"), 6);
	t = texttable_new(1);
	texttable_add_column(t, "host", TEXTTABLE_LEFT);
	texttable_add_column(t, "GFLOP/s", TEXTTABLE_RIGHT);
	texttable_add_row(t);
	texttable_cell(t, "\xe6\x9d\xb1\xe4\xba\xac-gpu"); /* 東京-gpu: 8 cells */
	texttable_cell(t, "1.5");
	texttable_add_row(t);
	texttable_cell(t, "spark");
	texttable_cell(t, "22.0");
	assert_int_equal(texttable_width(t, 0), 8);
	out = print(t);
	assert_string_equal(out, "host     GFLOP/s\n"
				 "\xe6\x9d\xb1\xe4\xba\xac-gpu     1.5\n"
				 "spark       22.0\n");
	free(out);
	texttable_free(t);
	/* The live table cuts by display cells too: 東京-gpu in 5 cells
	 * keeps 東京 (4) and the ellipsis. */
	{
		char buf[64];

		ui_fit(buf, sizeof(buf), "\xe6\x9d\xb1\xe4\xba\xac-gpu", 5, 0, 1);
		assert_string_equal(buf, "\xe6\x9d\xb1\xe4\xba\xac\xe2\x80\xa6");
		ui_fit(buf, sizeof(buf), "\xe6\x9d\xb1\xe4\xba\xac-gpu", 4, 0, 1);
		assert_string_equal(buf, "\xe6\x9d\xb1 \xe2\x80\xa6");
	}
	setlocale(LC_CTYPE, "C");
	/* Without a UTF-8 locale: one cell per code point. */
	assert_int_equal(texttable_text_width("\xe6\x9d\xb1\xe4\xba\xac"), 2);
}

/* The plain table prints the live table's column titles in its order,
 * %peak and Δ% included, marks an unreliable row and lists why, and says
 * why Δ% is n/a. */
static void test_plain_table_columns(void **state)
{
	struct model m;
	const char *names[] = { "spark", "box" };
	struct model_snapshot snap = { 0 };
	struct ui_col_spec spec[UI_NCOLS];
	struct bf_record rec;
	struct model_baseline b = { "cpu", BF_DTYPE_FP32, 64, 1, 100.0 };
	char *text = NULL, *hdr, expect[512];
	size_t len = 0, off = 0;
	FILE *f;

	(void)state;
	model_init(&m, 2, names);
	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = "cpu";
	rec.u.gemm.dtype = "fp32";
	rec.u.gemm.n = 64;
	rec.u.gemm.status = BF_STATUS_PASS;
	rec.u.gemm.median_ms = 2.0 * 64 * 64 * 64 / 110.0 / 1e6;
	rec.u.gemm.gflops = 110.0;
	rec.u.gemm.peak_gflops = 440.0;
	rec.u.gemm.fraction_of_peak = 0.25;
	rec.u.gemm.reliable = 0;
	rec.u.gemm.nunreliable = 2;
	rec.u.gemm.unreliable_reasons = (char *[]){ "one sample", "no warm-up" };
	model_set_baseline(&m, 0, &b, 1);
	model_set_baseline_info(&m, 0, "20261201T000000Z-aaaa", NULL);
	model_add_record(&m, 0, &rec);
	/* The same size again (--sizes 64,64): its own row, n 64#2. */
	rec.u.gemm.reliable = 1;
	rec.u.gemm.nunreliable = 0;
	model_add_record(&m, 0, &rec);
	/* A record whose gflops contradicts its n and median: invalid. */
	rec.u.gemm.gflops = 999.0;
	model_add_record(&m, 1, &rec);
	model_set_baseline_info(&m, 1, NULL,
				"different machine than run X (host key differs)");
	model_set_state(&m, 0, HOST_DONE, NULL);
	model_set_state(&m, 1, HOST_DONE, NULL);
	rec.u.gemm.device = rec.u.gemm.dtype = NULL; /* not owned */
	rec.u.gemm.unreliable_reasons = NULL;

	model_snapshot_update(&m, &snap);
	f = open_memstream(&text, &len);
	table_print_snapshot(f, &snap, 1, 0);
	fclose(f);
	/* One column definition: the header is the live table's titles. */
	ui_columns_for(&snap, 1, spec);
	for (int c = 0; c < UI_NCOLS; c++)
		off += (size_t)snprintf(expect + off, sizeof(expect) - off,
					"%s%s", c ? " +" : "^", spec[c].title);
	assert_string_equal(spec[UI_COL_PCT_PEAK].title, "%peak");
	hdr = strtok(text, "\n");
	assert_non_null(strstr(hdr, "GFLOP/s"));
	{
		const char *p = hdr;

		for (int c = 0; c < UI_NCOLS; c++) {
			p = strstr(p, spec[c].title);
			assert_non_null(p);
			p += strlen(spec[c].title);
		}
	}
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	table_print_snapshot(f, &snap, 1, 0);
	fclose(f);
	/* Unreliable: marked with its notes' numbers, with +10.0% against
	 * the baseline and 25%. */
	assert_non_null(strstr(text, "spark cpu    fp32    64 110.0?1,2 +10.0%   25%"));
	assert_non_null(strstr(text, "spark cpu    fp32  64#2     110.0    n/a   25%"));
	/* The row's state names its note; the notes close the output, each
	 * reason once, the unreliable ones grouped with their count. */
	assert_non_null(strstr(text, " FAIL [1]\n"));
	assert_non_null(strstr(text, "\nnotes\n?1 one sample: 1 row\n?2 no warm-up: 1 row\n"
				     "[1] invalid: gflops 999"));
	assert_null(strstr(text, "unreliable ("));
	assert_non_null(strstr(text, "\xce\x94% spark: vs run 20261201T000000Z-aaaa"));
	assert_non_null(strstr(text, "\xce\x94% n/a for box: different machine than run X (host key differs)\n"));
	free(text);
	/* To a 60-column terminal: columns left out in the live table's
	 * order (peak MiB, GPU/CPU, med ms, vs fp32 first) until every line
	 * of the table fits; the notes are not cut. */
	text = NULL;
	f = open_memstream(&text, &len);
	table_print_snapshot(f, &snap, 1, 60);
	fclose(f);
	hdr = strtok(text, "\n");
	assert_string_equal(hdr, "host  device dtype    n   GFLOP/s     \xce\x94% %peak state");
	for (const char *line = strtok(NULL, "\n"); line && strncmp(line, "\xce\x94%", 3) != 0;
	     line = strtok(NULL, "\n"))
		assert_true(texttable_text_width(line) <= 60);
	free(text);
	model_snapshot_free(&snap);
	bf_record_free(&rec);
	model_free(&m);
}

/* Rows in the run's host order (the command line's), however the hosts'
 * records interleaved, each host's rows in arrival order; a host whose
 * reason only names its state says it once. */
static void test_plain_table_host_order(void **state)
{
	struct model m;
	const char *names[] = { "zeta", "alpha", "mid" };
	static const struct { int host, n; } arrivals[] = {
		{ 1, 64 }, { 0, 64 }, { 1, 128 }, { 2, 64 }, { 0, 128 }, { 1, 32 },
	};
	static const char *const expect[] = {
		"zeta  cpu    fp32   64", "zeta  cpu    fp32  128",
		"alpha cpu    fp32   64", "alpha cpu    fp32  128",
		"alpha cpu    fp32   32", "mid   cpu    fp32   64",
	};
	struct model_snapshot snap = { 0 };
	struct bf_record rec;
	char *text = NULL;
	const char *p;
	size_t len = 0;
	FILE *f;

	(void)state;
	model_init(&m, 3, names);
	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = "cpu";
	rec.u.gemm.dtype = "fp32";
	rec.u.gemm.status = BF_STATUS_PASS;
	rec.u.gemm.reliable = 1;
	for (size_t i = 0; i < sizeof(arrivals) / sizeof(arrivals[0]); i++) {
		double n = arrivals[i].n;

		rec.u.gemm.n = arrivals[i].n;
		rec.u.gemm.gflops = 100.0;
		rec.u.gemm.median_ms = 2.0 * n * n * n / 100.0 / 1e6;
		model_add_record(&m, arrivals[i].host, &rec);
	}
	model_set_state(&m, 0, HOST_DONE, NULL);
	model_set_state(&m, 1, HOST_DONE, NULL);
	model_set_state(&m, 2, HOST_INTERRUPTED, "interrupted");
	rec.u.gemm.device = rec.u.gemm.dtype = NULL; /* not owned */
	model_snapshot_update(&m, &snap);
	f = open_memstream(&text, &len);
	table_print_snapshot(f, &snap, 1, 0);
	fclose(f);
	p = text;
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		p = strstr(p, expect[i]);
		assert_non_null(p);
		p += strlen(expect[i]);
	}
	assert_non_null(strstr(text, "\nmid: interrupted\n"));
	assert_null(strstr(text, "interrupted: interrupted"));
	free(text);
	model_snapshot_free(&snap);
	bf_record_free(&rec);
	model_free(&m);
}

/* Eight hosts, each with a Δ% n/a reason of some 100 bytes: the legend
 * holds every one whole (it was cut at 639 bytes, mid-word, losing the
 * seventh and eighth hosts' reasons). */
static void test_delta_notes_of_eight_hosts_whole(void **state)
{
	const char *names[] = { "host-one", "host-two", "host-three",
				"host-four", "host-five", "host-six",
				"host-seven", "host-eight" };
	struct model m;
	struct model_snapshot snap = { 0 };
	struct bf_record rec;
	char *text = NULL, want[256];
	size_t len = 0;
	FILE *f;

	(void)state;
	model_init(&m, 8, names);
	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = "cpu";
	rec.u.gemm.dtype = "fp32";
	rec.u.gemm.n = 64;
	rec.u.gemm.status = BF_STATUS_PASS;
	rec.u.gemm.median_ms = 2.0 * 64 * 64 * 64 / 110.0 / 1e6;
	rec.u.gemm.gflops = 110.0;
	for (int h = 0; h < 8; h++) {
		snprintf(want, sizeof(want),
			 "different machine than run 20261201T00000%dZ-aaaa "
			 "(host key differs, reason of %s ends here)", h,
			 names[h]);
		model_set_baseline_info(&m, h, NULL, want);
		model_add_record(&m, h, &rec);
		model_set_state(&m, h, HOST_DONE, NULL);
	}
	rec.u.gemm.device = rec.u.gemm.dtype = NULL; /* not owned */
	model_snapshot_update(&m, &snap);
	f = open_memstream(&text, &len);
	table_print_snapshot(f, &snap, 1, 0);
	fclose(f);
	for (int h = 0; h < 8; h++) {
		snprintf(want, sizeof(want),
			 "\xce\x94%% n/a for %s: different machine than run "
			 "20261201T00000%dZ-aaaa (host key differs, reason of "
			 "%s ends here)%s", names[h], h, names[h],
			 h == 7 ? "\n" : "; ");
		assert_non_null(strstr(text, want));
	}
	free(text);
	model_snapshot_free(&snap);
	bf_record_free(&rec);
	model_free(&m);
}

/* %peak of a derived (upper-estimate) peak reads "at least": ">42%", in
 * ctl compare's cells and the run table's column; a product peak plain. */
static void test_peak_upper_estimate_marked(void **state)
{
	struct compare_cell c;
	struct model_snapshot snap;
	struct model_row r;
	char buf[32];

	memset(&c, 0, sizeof(c));
	c.present = 1;
	c.status = BF_STATUS_PASS;
	c.fraction_of_peak = 0.42;
	compare_fmt_peak(buf, sizeof(buf), &c);
	assert_string_equal(buf, "42%");
	c.peak_derived = 1;
	compare_fmt_peak(buf, sizeof(buf), &c);
	assert_string_equal(buf, ">42%");
	memset(&snap, 0, sizeof(snap));
	memset(&r, 0, sizeof(r));
	r.fraction_of_peak = 0.035;
	ui_cell_text(&snap, &r, UI_COL_PCT_PEAK, buf, sizeof(buf));
	assert_string_equal(buf, "3.5%");
	r.peak_derived = 1;
	ui_cell_text(&snap, &r, UI_COL_PCT_PEAK, buf, sizeof(buf));
	assert_string_equal(buf, ">3.5%");
	r.fraction_of_peak = NAN;
	ui_cell_text(&snap, &r, UI_COL_PCT_PEAK, buf, sizeof(buf));
	assert_null(strchr(buf, '>'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths_and_alignment),
		cmocka_unit_test(test_peak_upper_estimate_marked),
		cmocka_unit_test(test_no_header),
		cmocka_unit_test(test_cjk),
		cmocka_unit_test(test_plain_table_columns),
		cmocka_unit_test(test_plain_table_host_order),
		cmocka_unit_test(test_delta_notes_of_eight_hosts_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
