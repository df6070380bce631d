/*
 * Unit tests for controller/archive/archive_read.c and controller/model/compare.c on
 * archives written here, record by record, in the format ctl run writes
 * (docs/archive.md): loading (a cut-off last line, a run.json still
 * "running", a damaged line), run ids and prefixes, the previous-run
 * lookup of the live table, and the comparison table: cells, ratios,
 * significance, row order, provenance, and the plain/CSV/JSON printers.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "archive/archive_read.h"
#include "stats.h"
#include "model/history.h"
#include "view/compare_view.h"
#include "view/history_view.h"
#include "view/report_html.h"
#include "xmalloc.h"

static char tmpdir[64];

/* --- writing a fake archive ------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A host record as the agent writes it (the keys bf_schema_parse_record
 * requires, plus what provenance reads). */
static char *host_rec(const char *hostname, int threads, int iters)
{
	return bf_xasprintf(
		"{\"schema\":1,\"type\":\"host\",\"seq\":0,"
		"\"agent\":{\"version\":\"0.1.0\",\"source_hash\":\"abc123\"},"
		"\"hostname\":\"%s\",\"arch\":\"x86_64\",\"cpu_model\":\"Xeon\","
		"\"openblas\":{\"version\":\"0.3.21\",\"core\":\"Haswell\",\"threads\":%d},"
		"\"cuda\":{\"status\":\"skipped\",\"reason\":\"no GPU\","
		"\"driver_version\":null,\"runtime_version\":\"13.0\","
		"\"cublas_version\":\"13.1.0\"},\"gpus\":[],"
		"\"options\":{\"sizes\":[256],\"dtypes\":[\"fp32\"],\"iters\":%d,"
		"\"cpu_iters\":%d,\"warmup\":1,\"seed\":1}}\n",
		hostname, threads, iters, iters);
}

/* A passing gemm record with these per-iteration times (and the other
 * keys docs/schema.json requires of a pass). */
static char *gemm_rec(const char *device, const char *dtype, int n,
		      const double *ms, int count)
{
	char samples[1024] = "";
	size_t used = 0;
	double sorted_mid = bf_stats_median(ms, (size_t)count);

	for (int i = 0; i < count; i++)
		used += (size_t)snprintf(samples + used, sizeof(samples) - used,
					 "%s%.17g", i ? "," : "", ms[i]);
	return bf_xasprintf(
		"{\"schema\":1,\"type\":\"gemm\",\"seq\":1,\"device\":\"%s\","
		"\"dtype\":\"%s\",\"n\":%d,\"status\":\"pass\",\"reason\":null,"
		"\"library\":\"OpenBLAS 0.3.21\",\"math_mode\":\"cblas_sgemm\","
		"\"c_dtype\":\"fp32\",\"warmup\":1,\"iters\":%d,"
		"\"samples_ms\":[%s],\"median_ms\":%.17g,\"min_ms\":null,"
		"\"max_ms\":null,\"gflops\":%.17g,\"peak_mib\":null,"
		"\"operand_bytes\":%d,\"max_rel_error\":null,\"tolerance\":1e-05,"
		"\"verified_elements\":4096,\"nonfinite_elements\":0}\n",
		device, dtype, n, count, samples, sorted_mid,
		2.0 * n * n * n / sorted_mid / 1e6, 3 * n * n * 4);
}

static char *skipped_rec(const char *device, const char *dtype, int n)
{
	return bf_xasprintf(
		"{\"schema\":1,\"type\":\"gemm\",\"seq\":2,\"device\":\"%s\","
		"\"dtype\":\"%s\",\"n\":%d,\"status\":\"skipped\","
		"\"reason\":\"no usable CUDA device\",\"median_ms\":null,"
		"\"gflops\":null}\n",
		device, dtype, n);
}

static const char summary_rec[] =
	"{\"schema\":1,\"type\":\"summary\",\"seq\":9,\"ratios\":[],"
	"\"checks_passed\":0,\"checks_failed\":0,\"gemm_passed\":1,"
	"\"gemm_failed\":0,\"exit_status\":0}\n";

/* Writes results/<id>/ with run.json and one host file per host. */
static void write_run(const char *id, const char *status, int nhosts,
		      const char *const *names, const char *const *host_status,
		      const char *const *records)
{
	char *dir = bf_xasprintf("%s/%s", tmpdir, id), *path;
	cJSON *doc = cJSON_CreateObject(), *hosts;
	char *text;

	assert_int_equal(mkdir(dir, 0755), 0);
	cJSON_AddNumberToObject(doc, BF_RUN_ARCHIVE_VERSION, 1);
	cJSON_AddStringToObject(doc, BF_RUN_RUN_ID, id);
	cJSON_AddNullToObject(doc, BF_RUN_TAG);
	cJSON_AddStringToObject(doc, BF_RUN_STARTED_AT, "2026-11-30T14:00:00.000Z");
	cJSON_AddStringToObject(doc, BF_RUN_STATUS, status);
	cJSON_AddNullToObject(doc, BF_RUN_REASON);
	hosts = cJSON_AddArrayToObject(doc, BF_RUN_HOSTS);
	for (int i = 0; i < nhosts; i++) {
		cJSON *h = cJSON_CreateObject();
		char file[64];

		cJSON_AddItemToArray(hosts, h);
		snprintf(file, sizeof(file), "%02d-%s.ndjson", i, names[i]);
		cJSON_AddStringToObject(h, BF_RUN_HOST_NAME, names[i]);
		cJSON_AddStringToObject(h, BF_RUN_HOST_STATUS, host_status[i]);
		cJSON_AddNullToObject(h, BF_RUN_HOST_REASON);
		cJSON_AddNullToObject(h, BF_RUN_HOST_FINGERPRINT);
		cJSON_AddStringToObject(h, BF_RUN_HOST_RECORDS_FILE, file);
		path = bf_xasprintf("%s/%s", dir, file);
		write_file(path, records[i]);
		free(path);
	}
	text = cJSON_Print(doc);
	path = bf_xasprintf("%s/run.json", dir);
	write_file(path, text);
	free(path);
	cJSON_free(text);
	cJSON_Delete(doc);
	free(dir);
}

/* One host "local" with one cpu fp32 256 row of these samples. */
static void write_simple_run(const char *id, const char *status,
			     const char *host_status, int threads,
			     const double *ms, int count, int with_summary)
{
	char *h = host_rec("vm", threads, count);
	char *g = gemm_rec("cpu", "fp32", 256, ms, count);
	char *s = skipped_rec("cuda:0", "fp32", 256);
	char *all = bf_xasprintf("%s%s%s%s", h, g, s, with_summary ? summary_rec : "");
	const char *names[] = { "local" }, *st[] = { host_status };
	const char *recs[] = { all };

	write_run(id, status, 1, names, st, recs);
	free(all);
	free(s);
	free(g);
	free(h);
}

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bf-test-compare-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int teardown(void **state)
{
	char *cmd = bf_xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0 ? 0 : -1;
}

static const double base_ms[] = { 1.00, 1.02, 0.99, 1.01, 1.03 };
static const double half_ms[] = { 0.50, 0.51, 0.495, 0.505, 0.515 };

static struct archive_run *load(const char *id)
{
	char *dir = bf_xasprintf("%s/%s", tmpdir, id), detail[256];
	struct archive_run *run = NULL;

	if (archive_load_run(dir, &run, detail, sizeof(detail)) != BF_OK)
		fail_msg("%s", detail);
	free(dir);
	return run;
}

/* --- formatting ------------------------------------------------------ */

static void test_fmt(void **state)
{
	char none[] = "", invalid[] = "invalid: gflops 1 disagrees";
	struct compare_cell c = { .present = 1, .status = BF_STATUS_PASS,
				  .reason = none,
				  .median_gflops = 18473.2, .spread_pct = 2.3,
				  .nsamples = 5, .reliable = 1,
				  .fraction_of_peak = 0.4234 };
	struct compare_delta d = { .valid = 1, .ratio = 1.234, .p = 0.008,
				   .n1 = 5, .n2 = 5, .significant = 1 };
	char buf[96];

	compare_fmt_gflops(buf, sizeof(buf), 18473.2);
	assert_string_equal(buf, "18473");
	compare_fmt_gflops(buf, sizeof(buf), 28.54);
	assert_string_equal(buf, "28.5");
	compare_fmt_gflops(buf, sizeof(buf), 5.257);
	assert_string_equal(buf, "5.26");
	compare_fmt_gflops(buf, sizeof(buf), 0.5249);
	assert_string_equal(buf, "0.525");
	compare_fmt_gflops(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "n/a");
	/* A figure wider than the cell (an archive's 1e300 is finite) ends
	 * in "..." (issue 28: it was cut in silence). */
	compare_fmt_gflops(buf, 16, 1e300);
	assert_string_equal(buf, "100000000000...");

	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "18473 (2%)");
	c.spread_pct = 0.42;
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "18473 (0.4%)");
	/* The agent's verdict: unreliable is marked beside the number. */
	c.reliable = 0;
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "18473? (0.4%)");
	/* With the numbers of its reasons' notes. */
	compare_fmt_cell_marked(buf, sizeof(buf), &c, "1,3");
	assert_string_equal(buf, "18473?1,3 (0.4%)");
	/* One sample: no spread to print, never a confident ±0.0%. */
	c.nsamples = 1;
	c.spread_pct = NAN;
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "18473? (1 sample)");
	c.reliable = 1;
	c.nsamples = 0;
	compare_fmt_peak(buf, sizeof(buf), &c);
	assert_string_equal(buf, "42%");
	c.fraction_of_peak = 0.0351;
	compare_fmt_peak(buf, sizeof(buf), &c);
	assert_string_equal(buf, "3.5%");
	c.fraction_of_peak = NAN;
	compare_fmt_peak(buf, sizeof(buf), &c);
	assert_string_equal(buf, "n/a");
	c.spread_pct = NAN; /* a record without samples */
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "18473");
	c.status = BF_STATUS_SKIPPED;
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "skipped");
	c.status = BF_STATUS_FAIL;
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "FAIL");
	c.reason = invalid;
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "invalid");
	c.reason = none;
	c.present = 0;
	compare_fmt_cell(buf, sizeof(buf), &c);
	assert_string_equal(buf, "n/a");

	compare_fmt_delta(buf, sizeof(buf), &d);
	assert_string_equal(buf, "+23.4% (p=0.008 n=5+5)");
	d.ratio = 0.95;
	compare_fmt_verdict(buf, sizeof(buf), &d);
	assert_string_equal(buf, "-5.0%");
	d.ratio = 2.1;
	compare_fmt_verdict(buf, sizeof(buf), &d);
	assert_string_equal(buf, "2.10x");
	d.ratio = 0.25;
	compare_fmt_verdict(buf, sizeof(buf), &d);
	assert_string_equal(buf, "0.25x");
	d.significant = 0;
	d.p = 0.421;
	compare_fmt_delta(buf, sizeof(buf), &d);
	assert_string_equal(buf, "~ (p=0.421 n=5+5)");
	d.too_few = 1;
	d.n1 = d.n2 = 3;
	compare_fmt_delta(buf, sizeof(buf), &d);
	assert_string_equal(buf, "~ (n=3+3: too few samples)");
	d.valid = 0;
	compare_fmt_delta(buf, sizeof(buf), &d);
	assert_string_equal(buf, "n/a");
}

/* --- reading --------------------------------------------------------- */

static void test_load_and_ids(void **state)
{
	char **ids, detail[256];
	struct archive_run *run;
	int n;

	write_simple_run("20261130T100000Z-aaaa", "complete", "done", 2,
			 base_ms, 5, 1);
	write_simple_run("20261130T110000Z-bbbb", "complete", "done", 2,
			 base_ms, 5, 1);
	write_simple_run("20261129T090000Z-cccc", "complete", "done", 2,
			 base_ms, 5, 1);
	assert_int_equal(archive_list_ids(tmpdir, &ids, &n, detail,
					  sizeof(detail)), BF_OK);
	assert_int_equal(n, 3);
	/* Sorted by id, which is by start time. */
	assert_string_equal(ids[0], "20261129T090000Z-cccc");
	assert_string_equal(ids[2], "20261130T110000Z-bbbb");
	assert_null(ids[3]);
	assert_int_equal(archive_match_id(ids, n, "20261130T110000Z-bbbb"), 2);
	assert_int_equal(archive_match_id(ids, n, "20261130T10"), 1);
	assert_int_equal(archive_match_id(ids, n, "20261130"), -2);
	assert_int_equal(archive_match_id(ids, n, "2027"), -1);
	assert_int_equal(archive_match_id(ids, n, ""), -1);
	bf_xfree_strv(ids);

	run = load("20261130T100000Z-aaaa");
	assert_int_equal(run->nhosts, 1);
	assert_string_equal(run->status, "complete");
	assert_false(run->incomplete);
	assert_null(run->reason);
	assert_null(run->tag);
	assert_string_equal(run->hosts[0].name, "local");
	assert_int_equal(run->hosts[0].nrecords, 4);
	assert_non_null(run->hosts[0].host_record);
	assert_true(run->hosts[0].complete);
	assert_int_equal(run->hosts[0].bad_lines, 0);
	assert_false(run->hosts[0].cut_last_line);
	archive_run_free(run);

	assert_int_equal(archive_list_ids("/nonexistent/bf", &ids, &n, detail,
					  sizeof(detail)), BF_ERR_NOT_FOUND);
	archive_run_free(NULL);
}

/* ctl died mid-run: run.json still says running, the host file ends in
 * half a line. Both are read as far as they go. A damaged line in the
 * middle is skipped and counted. */
static void test_incomplete_run(void **state)
{
	char *h = host_rec("vm", 2, 5), *g = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *recs = bf_xasprintf("%s{\"schema\":1,\"type\":\"gemm\" broken\n%s"
			       "{\"schema\":1,\"type\":\"gemm\",\"seq\":3,\"dev",
			       h, g);
	const char *names[] = { "local" }, *st[] = { "running" };
	const char *r[] = { recs };
	struct archive_run *run;

	write_run("20261130T120000Z-dddd", "running", 1, names, st, r);
	run = load("20261130T120000Z-dddd");
	assert_true(run->incomplete);
	assert_string_equal(run->status, "incomplete");
	assert_non_null(run->reason);
	assert_int_equal(run->hosts[0].nrecords, 2);
	assert_int_equal(run->hosts[0].bad_lines, 1);
	assert_true(run->hosts[0].cut_last_line);
	assert_false(run->hosts[0].complete);
	assert_string_equal(run->hosts[0].status, "running");
	archive_run_free(run);
	free(recs);
	free(g);
	free(h);
}

static void test_load_file(void **state)
{
	char *h = host_rec("spark-1", 2, 5), *g = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *path = bf_xasprintf("%s/03-spark.ndjson", tmpdir);
	char *text = bf_xasprintf("%s%s%s", h, g, summary_rec), detail[256];
	struct archive_run *run;

	write_file(path, text);
	assert_int_equal(archive_load_file(path, &run, detail, sizeof(detail)), BF_OK);
	assert_string_equal(run->hosts[0].name, "spark");
	assert_string_equal(run->status, "file");
	assert_false(run->incomplete);
	archive_run_free(run);
	write_file(path, "not json\n");
	assert_int_equal(archive_load_file(path, &run, detail, sizeof(detail)),
			 BF_ERR_SCHEMA);
	assert_null(run);
	free(path);
	path = bf_xasprintf("%s/missing.ndjson", tmpdir);
	assert_int_equal(archive_load_file(path, &run, detail, sizeof(detail)),
			 BF_ERR_NOT_FOUND);
	free(path);
	free(text);
	free(g);
	free(h);
}

/* The live table's baseline: the newest earlier run where the host
 * finished with the same options. */
static void test_find_baseline(void **state)
{
	char *h = host_rec("vm", 2, 5);
	struct bf_record rec;
	const struct bf_rec_host *options = &rec.u.host;
	struct archive_baseline *b;
	const struct archive_baseline_row *row;
	char detail[256];

	assert_int_equal(bf_record_parse(h, strlen(h), &rec, detail,
					 sizeof(detail)), BF_OK);
	assert_true(options->options.present);
	/* Oldest to newest: a match, a match, a failed host, different
	 * options (iters 7), no summary, then the current run. */
	write_simple_run("20261201T080000Z-0001", "complete", "done", 2, half_ms, 5, 1);
	write_simple_run("20261201T090000Z-0002", "complete", "done", 2, base_ms, 5, 1);
	write_simple_run("20261201T100000Z-0003", "incomplete", "failed", 2, half_ms, 5, 1);
	write_simple_run("20261201T110000Z-0004", "complete", "done", 2,
			 (const double[]){ 1, 1, 1, 1, 1, 1, 1 }, 7, 1);
	write_simple_run("20261201T120000Z-0005", "incomplete", "done", 2, half_ms, 5, 0);
	write_simple_run("20261201T130000Z-0006", "running", "running", 2, half_ms, 5, 0);

	assert_int_equal(archive_find_baseline(tmpdir, "local", options, NULL,
					       "20261201T130000Z-0006", &b,
					       detail, sizeof(detail)), BF_OK);
	assert_string_equal(b->run_id, "20261201T090000Z-0002");
	assert_int_equal(b->nrows, 1); /* the skipped cuda row is left out */
	row = archive_baseline_row(b, "cpu", BF_DTYPE_FP32, 256, 1);
	assert_non_null(row);
	assert_true(row->median_ms == 1.01);
	assert_true(fabs(row->median_gflops - 2.0 * 256 * 256 * 256 / 1.01 / 1e6) < 1e-9);
	assert_null(archive_baseline_row(b, "cuda:0", BF_DTYPE_FP32, 256, 1));
	assert_null(archive_baseline_row(b, "cpu", BF_DTYPE_FP32, 256, 2));
	archive_baseline_free(b);

	/* Bounded by the current run id. */
	assert_int_equal(archive_find_baseline(tmpdir, "local", options, NULL,
					       "20261201T090000Z-0002", &b,
					       detail, sizeof(detail)), BF_OK);
	assert_string_equal(b->run_id, "20261201T080000Z-0001");
	archive_baseline_free(b);
	assert_int_equal(archive_find_baseline(tmpdir, "local", options, NULL,
					       "20261201T080000Z-0001", &b,
					       detail, sizeof(detail)),
			 BF_ERR_NOT_FOUND);
	assert_null(b);
	assert_int_equal(archive_find_baseline(tmpdir, "spark", options, NULL, NULL,
					       &b, detail, sizeof(detail)),
			 BF_ERR_NOT_FOUND);
	assert_int_equal(archive_find_baseline("/nonexistent/bf", "local",
					       options, NULL, NULL, &b, detail,
					       sizeof(detail)),
			 BF_ERR_NOT_FOUND);
	archive_baseline_free(NULL);

	/* Only the same machine is a baseline: a run that recorded no host
	 * key, against one that has one, cannot tell (the key is unknown,
	 * not another; the newer runs with other keys: ctl.compare). */
	assert_int_equal(archive_find_baseline(tmpdir, "local", options,
					       "SHA256:other", NULL, &b, detail,
					       sizeof(detail)),
			 BF_ERR_NOT_FOUND);
	assert_null(b);
	assert_string_equal(detail, "cannot tell whether run "
				    "20261201T090000Z-0002 was the same machine: "
				    "it recorded no host key");
	bf_record_free(&rec);
	free(h);
}

/* A newer run with the same settings on another machine (another
 * hostname behind the same name, or other GPUs) is skipped for an older
 * one on this machine; with none, the lookup says why. */
static void test_find_baseline_same_machine(void **state)
{
	const char *names[] = { "local" }, *st[] = { "done" };
	const char *gpu = "\"gpus\":[{\"index\":0,\"uuid\":\"GPU-aaaa\"}]";
	char *h = host_rec("vm", 2, 5), *other = host_rec("box", 2, 5);
	char *g = gemm_rec("cpu", "fp32", 256, base_ms, 5), *all, *line;
	const char *recs[1];
	struct bf_record rec, rec_gpu;
	struct archive_baseline *b;
	char detail[256];

	all = bf_xasprintf("%s%s%s", h, g, summary_rec);
	recs[0] = all;
	write_run("20261202T080000Z-0001", "complete", 1, names, st, recs);
	free(all);
	all = bf_xasprintf("%s%s%s", other, g, summary_rec);
	recs[0] = all;
	write_run("20261202T090000Z-0002", "complete", 1, names, st, recs);
	free(all);
	assert_int_equal(bf_record_parse(h, strlen(h), &rec, detail,
					 sizeof(detail)), BF_OK);
	assert_int_equal(archive_find_baseline(tmpdir, "local", &rec.u.host, "",
					       "20261202T100000Z-0003", &b,
					       detail, sizeof(detail)), BF_OK);
	assert_string_equal(b->run_id, "20261202T080000Z-0001");
	archive_baseline_free(b);
	bf_record_free(&rec);

	/* Box's record against the runs: 0002 is box, same machine. */
	assert_int_equal(bf_record_parse(other, strlen(other), &rec, detail,
					 sizeof(detail)), BF_OK);
	assert_int_equal(archive_find_baseline(tmpdir, "local", &rec.u.host, NULL,
					       "20261202T100000Z-0003", &b,
					       detail, sizeof(detail)), BF_OK);
	assert_string_equal(b->run_id, "20261202T090000Z-0002");
	archive_baseline_free(b);
	bf_record_free(&rec);

	/* Box with a GPU the archive never saw on it. */
	line = bf_xstrdup(other);
	{
		char *at = strstr(line, "\"gpus\":[]");
		char *with = bf_xasprintf("%.*s%s%s", (int)(at - line), line, gpu,
					  at + strlen("\"gpus\":[]"));

		free(line);
		line = with;
	}
	assert_int_equal(bf_record_parse(line, strlen(line), &rec_gpu, detail,
					 sizeof(detail)), BF_OK);
	assert_int_equal(rec_gpu.u.host.ngpus, 1);
	assert_int_equal(archive_find_baseline(tmpdir, "local", &rec_gpu.u.host,
					       NULL, "20261202T100000Z-0003", &b,
					       detail, sizeof(detail)),
			 BF_ERR_NOT_FOUND);
	assert_non_null(strstr(detail, "different machine than run "
					"20261202T090000Z-0002 (GPUs differ)"));
	bf_record_free(&rec_gpu);
	free(line);
	free(g);
	free(other);
	free(h);
}

/* --- the comparison -------------------------------------------------- */

static char *print_plain(const struct compare_table *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	compare_print_plain(f, t);
	fclose(f);
	return text;
}

/* Twice as fast with 5 samples a side: the exact U test gives
 * p = 2 / C(10, 5) = 0.0079, a real difference, shown as 2.00x. */
static void test_real_difference(void **state)
{
	struct archive_run *a, *b;
	struct compare_column cols[2] = { { 0 } };
	struct compare_table *t;
	const struct compare_row *r;
	char *text;

	write_simple_run("20261202T080000Z-a001", "complete", "done", 2, base_ms, 5, 1);
	write_simple_run("20261202T090000Z-a002", "complete", "done", 1, half_ms, 5, 1);
	a = load("20261202T080000Z-a001");
	b = load("20261202T090000Z-a002");
	cols[0].run = a;
	cols[1].run = b;
	t = compare_build(cols, 2, COMPARE_ALPHA);
	assert_false(t->by_host);
	assert_int_equal(t->nrows, 2);
	r = &t->rows[0];
	assert_string_equal(r->device, "cpu");
	assert_int_equal(r->cells[0].nsamples, 5);
	assert_true(fabs(r->cells[0].median_ms - 1.01) < 1e-12);
	assert_true(fabs(r->cells[0].median_gflops -
			 2.0 * 256 * 256 * 256 / 1.01 / 1e6) < 1e-9);
	/* Spread: the agent's (bf_stats_spread), (max - min) / median of
	 * the samples' times, in %. */
	assert_true(fabs(r->cells[0].spread_pct - 100 * (1.03 - 0.99) / 1.01) <
		    1e-9);
	assert_true(r->deltas[1].valid);
	assert_true(fabs(r->deltas[1].ratio - 1.01 / 0.505) < 1e-12);
	assert_true(fabs(r->deltas[1].p - 2.0 / 252) < 1e-12);
	assert_true(r->deltas[1].significant);
	assert_false(r->deltas[1].too_few);
	/* The skipped GPU row: nothing to compare. */
	assert_false(t->rows[1].deltas[1].valid);
	/* Provenance: only openblas.threads differs. */
	assert_int_equal(t->nprov, 1);
	assert_string_equal(t->prov[0].key, "openblas.threads");
	assert_string_equal(t->prov[0].values[0], "2");
	assert_string_equal(t->prov[0].values[1], "1");

	text = print_plain(t);
	assert_non_null(strstr(text, "A GFLOP/s"));
	assert_non_null(strstr(text, "B vs A"));
	assert_non_null(strstr(text, "2.00x (p=0.008 n=5+5)"));
	assert_non_null(strstr(text, "higher is better"));
	assert_non_null(strstr(text, "lower is better"));
	assert_non_null(strstr(text, "openblas.threads  A 2  B 1"));
	free(text);
	compare_free(t);
	archive_run_free(b);
	archive_run_free(a);
}

/* Identical samples: p = 1, shown as ~. Three samples a side: too few
 * for any p below 0.05 (2 / C(6, 3) = 0.1), also ~, even at 2x. */
static void test_no_difference(void **state)
{
	struct archive_run *a, *b, *c, *d;
	struct compare_column cols[2] = { { 0 } };
	struct compare_table *t;
	char verdict[32];

	write_simple_run("20261203T080000Z-b001", "complete", "done", 2, base_ms, 5, 1);
	write_simple_run("20261203T090000Z-b002", "complete", "done", 2, base_ms, 5, 1);
	a = load("20261203T080000Z-b001");
	b = load("20261203T090000Z-b002");
	cols[0].run = a;
	cols[1].run = b;
	t = compare_build(cols, 2, COMPARE_ALPHA);
	assert_true(t->rows[0].deltas[1].valid);
	assert_true(t->rows[0].deltas[1].p == 1.0);
	assert_false(t->rows[0].deltas[1].significant);
	compare_fmt_verdict(verdict, sizeof(verdict), &t->rows[0].deltas[1]);
	assert_string_equal(verdict, "~");
	assert_int_equal(t->nprov, 0);
	compare_free(t);

	write_simple_run("20261203T100000Z-b003", "complete", "done", 2, base_ms, 3, 1);
	write_simple_run("20261203T110000Z-b004", "complete", "done", 2, half_ms, 3, 1);
	c = load("20261203T100000Z-b003");
	d = load("20261203T110000Z-b004");
	cols[0].run = c;
	cols[1].run = d;
	t = compare_build(cols, 2, COMPARE_ALPHA);
	assert_true(t->rows[0].deltas[1].too_few);
	assert_true(fabs(t->rows[0].deltas[1].p - 0.1) < 1e-12);
	assert_false(t->rows[0].deltas[1].significant);
	compare_free(t);
	archive_run_free(d);
	archive_run_free(c);
	archive_run_free(b);
	archive_run_free(a);
}

/* Two hosts in a run: rows carry the host and match it across runs; a
 * host or size one column lacks is n/a there; rows keep sweep order. */
static void test_by_host(void **state)
{
	char *h1 = host_rec("vm", 2, 5), *h2 = host_rec("spark-1", 20, 5);
	char *g256 = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *g128 = gemm_rec("cpu", "fp32", 128, half_ms, 5);
	char *ra = bf_xasprintf("%s%s%s", h1, g256, summary_rec);
	char *rb1 = bf_xasprintf("%s%s%s%s", h1, g128, g256, summary_rec);
	char *rb2 = bf_xasprintf("%s%s%s", h2, g256, summary_rec);
	const char *na[] = { "local" }, *sa[] = { "done" }, *reca[] = { ra };
	const char *nb[] = { "local", "spark" }, *sb[] = { "done", "done" };
	const char *recb[] = { rb1, rb2 };
	struct compare_column cols[2] = { { 0 } };
	struct archive_run *a, *b;
	struct compare_table *t;
	cJSON *json;
	char *csv = NULL;
	size_t csv_len = 0;
	FILE *f;
	int lines = 0;

	write_run("20261204T080000Z-c001", "complete", 1, na, sa, reca);
	write_run("20261204T090000Z-c002", "complete", 2, nb, sb, recb);
	a = load("20261204T080000Z-c001");
	b = load("20261204T090000Z-c002");
	cols[0].run = a;
	cols[1].run = b;
	t = compare_build(cols, 2, COMPARE_ALPHA);
	assert_true(t->by_host);
	assert_int_equal(t->nrows, 3);
	/* local 128 (only in B) sorts before local 256; spark last. */
	assert_string_equal(t->rows[0].host, "local");
	assert_int_equal(t->rows[0].n, 128);
	assert_false(t->rows[0].cells[0].present);
	assert_int_equal(t->rows[1].n, 256);
	assert_true(t->rows[1].cells[0].present && t->rows[1].cells[1].present);
	assert_string_equal(t->rows[2].host, "spark");
	assert_false(t->rows[2].cells[0].present);
	/* spark is in one column only: nothing to diff for it. */
	assert_int_equal(t->nprov, 0);

	json = compare_to_json(t);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(json, CMP_KEY_ROWS)), 3);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(
					   cJSON_GetArrayItem(cJSON_GetObjectItem(json, CMP_KEY_ROWS), 0),
					   CMP_KEY_CELLS), 0),
		CMP_KEY_STATUS)));
	cJSON_Delete(json);

	f = open_memstream(&csv, &csv_len);
	compare_print_csv(f, t);
	fclose(f);
	for (char *p = csv; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 3 * 2); /* header + rows x columns */
	free(csv);
	compare_free(t);
	archive_run_free(b);
	archive_run_free(a);
	free(rb2);
	free(rb1);
	free(ra);
	free(g128);
	free(g256);
	free(h2);
	free(h1);
}

/* Issue 28: the legend names every host of a column's run, however
 * many and however long (they were cut at 511 bytes: the eighth of these
 * 70-byte names was lost). */
static void test_legend_all_hosts(void **state)
{
	char *h = host_rec("vm", 2, 5);
	char *g = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *rec = bf_xasprintf("%s%s%s", h, g, summary_rec);
	char names[8][72], *all = bf_xstrdup(""), *text;
	const char *np[8], *st[8], *recs[8];
	struct compare_column cols[1] = { { 0 } };
	struct compare_table *t;
	struct archive_run *a;

	for (int i = 0; i < 8; i++) {
		char *more;

		snprintf(names[i], sizeof(names[i]), "host%d-", i);
		memset(names[i] + 6, 'x', 64);
		names[i][70] = '\0';
		np[i] = names[i];
		st[i] = "done";
		recs[i] = rec;
		more = bf_xasprintf("%s%s%s", all, i ? "," : "", names[i]);
		free(all);
		all = more;
	}
	write_run("20261205T080000Z-d001", "complete", 8, np, st, recs);
	a = load("20261205T080000Z-d001");
	cols[0].run = a;
	t = compare_build(cols, 1, COMPARE_ALPHA);
	text = print_plain(t);
	assert_true(strlen(all) > 511);
	if (!strstr(text, all))
		fail_msg("legend lacks the hosts in full:\n%s", text);
	free(text);
	compare_free(t);
	archive_run_free(a);
	free(all);
	free(rec);
	free(g);
	free(h);
}

/* Issue 28: ctl report keeps a skip reason whole (a bandwidth record's
 * of 300 bytes was cut at 159), and a chart label's long host name ends
 * in "..." where it is cut (it was cut at 100 bytes in silence). */
static void test_report_long_texts(void **state)
{
	char *h = host_rec("vm", 2, 5);
	char *g = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *g2 = gemm_rec("cpu", "fp32", 256, half_ms, 5);
	char why[301], name[121], *bw, *ra, *rb, *html = NULL, *want;
	const char *np[2], *st[] = { "done", "done" }, *recs[2];
	struct compare_column cols[1] = { { 0 } };
	struct compare_table *t;
	struct archive_run *a;
	size_t len = 0;
	FILE *f;

	memset(why, 'w', 300);
	why[300] = '\0';
	memcpy(why + 290, " last word", 10);
	memset(name, 'y', 120);
	name[120] = '\0';
	bw = bf_xasprintf(
		"{\"schema\":1,\"type\":\"bandwidth\",\"seq\":3,"
		"\"device\":\"cuda:0\",\"kind\":\"d2d\",\"status\":\"skipped\","
		"\"reason\":\"%s\",\"median_gbps\":null}\n", why);
	ra = bf_xasprintf("%s%s%s%s", h, g, bw, summary_rec);
	rb = bf_xasprintf("%s%s%s", h, g2, summary_rec);
	np[0] = "local";
	np[1] = name;
	recs[0] = ra;
	recs[1] = rb;
	write_run("20261206T080000Z-e001", "complete", 2, np, st, recs);
	a = load("20261206T080000Z-e001");
	cols[0].run = a;
	t = compare_build(cols, 1, COMPARE_ALPHA);
	f = open_memstream(&html, &len);
	assert_int_equal(report_html_write(f, t, NULL, 0, "2026-12-06T08:00:00Z"), 0);
	fclose(f);
	want = bf_xasprintf("[1] %s</li>", why);
	if (!strstr(html, want))
		fail_msg("no whole note \"%s\"", want);
	free(want);
	want = bf_xasprintf("%.97s...: cpu fp32 n=256", name);
	if (!strstr(html, want))
		fail_msg("no label \"%s\"", want);
	free(want);
	want = bf_xasprintf("%.100s: cpu fp32 n=256", name);
	assert_null(strstr(html, want));
	free(want);
	free(html);
	compare_free(t);
	archive_run_free(a);
	free(rb);
	free(ra);
	free(bw);
	free(g2);
	free(g);
	free(h);
}

/* Issue 28: ctl history prints what changed at a change point whole (a
 * 300-byte LD_PRELOAD was cut at 255 bytes), and the run ids and host
 * name whole. A history built by hand: two runs, one series, one
 * change. */
static void test_history_text_whole(void **state)
{
	char val[301], id[2][201], host[301], *text = NULL, *want;
	struct archive_run runs[2], *rp[2] = { &runs[0], &runs[1] };
	struct history_point pts[2];
	struct history_prov prov;
	struct history_change ch;
	struct history_series se;
	struct history h;
	size_t len = 0;
	FILE *f;

	(void)state;
	memset(val, 'v', 300);
	val[300] = '\0';
	memset(host, 'h', 300);
	host[300] = '\0';
	memset(runs, 0, sizeof(runs));
	for (int k = 0; k < 2; k++) {
		memset(id[k], 'a' + k, 200);
		id[k][200] = '\0';
		runs[k].run_id = id[k];
		pts[k] = (struct history_point){ .run = k, .spread = NAN,
						 .median_gflops = 10.0 * (k + 1) };
	}
	memset(&prov, 0, sizeof(prov));
	prov.key = bf_xstrdup("env.LD_PRELOAD");
	prov.before = NULL;
	prov.after = val;
	ch = (struct history_change){ .cp = { .at = 1, .p = 0.01, .before = 10,
					      .after = 20, .change = 1 },
				      .prov = &prov, .nprov = 1 };
	memset(&se, 0, sizeof(se));
	snprintf(se.device, sizeof(se.device), "cpu");
	/* se.dtype left zeroed: its type is changing (an enum). */
	se.n = 256;
	se.occurrence = 1;
	se.points = pts;
	se.npoints = 2;
	se.changes = &ch;
	se.nchanges = 1;
	memset(&h, 0, sizeof(h));
	h.host = host;
	h.runs = rp;
	h.nruns = 2;
	h.nsettings = 1;
	h.series = &se;
	h.nseries = 1;
	f = open_memstream(&text, &len);
	history_print_text(f, &h, 0);
	fclose(f);
	want = bf_xasprintf("    env.LD_PRELOAD: n/a -> %s\n", val);
	if (!strstr(text, want))
		fail_msg("no whole provenance line in:\n%s", text);
	free(want);
	want = bf_xasprintf("between %s and %s\n", id[0], id[1]);
	assert_non_null(strstr(text, want));
	free(want);
	want = bf_xasprintf("  runs 2-2  %s .. %s  median", id[1], id[1]);
	assert_non_null(strstr(text, want));
	free(want);
	want = bf_xasprintf("history of %s: 2 runs", host);
	assert_non_null(strstr(text, want));
	free(want);
	free(text);
	free(prov.key);
}

/* Issue 28: ctl compare's notes are whole: two unreliable reasons of
 * 150 bytes (the second was cut, its group key with it) and their
 * groups. */
static void test_compare_notes_whole(void **state)
{
	char *h = host_rec("vm", 2, 5);
	char *g = gemm_rec("cpu", "fp32", 256, base_ms, 5), *g2, *all, *text;
	char r1[151], r2[151], *want;
	const char *np[] = { "local" }, *st[] = { "done" }, *recs[1];
	struct compare_column cols[1] = { { 0 } };
	struct compare_table *t;
	struct archive_run *a;
	char *end;

	memset(r1, 'p', 150);
	r1[150] = '\0';
	memset(r2, 'q', 150);
	r2[150] = '\0';
	memcpy(r2 + 140, " last word", 10);
	/* The record with "reliable": false and the two reasons. */
	end = strrchr(g, '}');
	g2 = bf_xasprintf("%.*s,\"reliable\":false,\"unreliable_reasons\":"
			  "[\"%s\",\"%s\"]}\n", (int)(end - g), g, r1, r2);
	all = bf_xasprintf("%s%s%s", h, g2, summary_rec);
	recs[0] = all;
	write_run("20261207T080000Z-f001", "complete", 1, np, st, recs);
	a = load("20261207T080000Z-f001");
	cols[0].run = a;
	t = compare_build(cols, 1, COMPARE_ALPHA);
	text = print_plain(t);
	want = bf_xasprintf("?1 unreliable: %s: 1 cell\n", r1);
	if (!strstr(text, want))
		fail_msg("no \"%s\" in:\n%s", want, text);
	free(want);
	want = bf_xasprintf("?2 unreliable: %s: 1 cell\n", r2);
	if (!strstr(text, want))
		fail_msg("no \"%s\" in:\n%s", want, text);
	free(want);
	free(text);
	compare_free(t);
	archive_run_free(a);
	free(all);
	free(g2);
	free(g);
	free(h);
}

/* A run's rows keyed by dtype as the enum (compare_row.dtype), in the
 * sweep's order; and the report's speed-ups take bf_ratio_wanted's rule,
 * as ctl's columns and the agent's summary: fp16 over fp32 on the CPU,
 * bf16 over fp32 on the GPU, the GPU's fp32 over the CPU's, and nothing
 * for the CPU's fp32. */
static void test_dtype_rows_and_speedups(void **state)
{
	static const double gpu_ms[] = { 0.010, 0.011, 0.0105 };
	char *h = host_rec("vm", 2, 5);
	char *c32 = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *c16 = gemm_rec("cpu", "fp16", 256, half_ms, 5);
	char *g32 = gemm_rec("cuda:0", "fp32", 256, gpu_ms, 3);
	char *gb16 = gemm_rec("cuda:0", "bf16", 256, half_ms, 5);
	char *all = bf_xasprintf("%s%s%s%s%s%s", h, c32, c16, g32, gb16,
				 summary_rec);
	const char *names[] = { "local" }, *st[] = { "done" }, *recs[] = { all };
	static const enum bf_dtype want_dt[] = { BF_DTYPE_FP32, BF_DTYPE_FP16,
		BF_DTYPE_FP32, BF_DTYPE_BF16 };
	static const char *const want_label[] = {
		"vs fp32 cpu fp16 n=256", "GPU vs CPU cuda:0 fp32 n=256",
		"vs fp32 cuda:0 bf16 n=256" };
	struct compare_column cols[1] = { { 0 } };
	struct archive_run *a;
	struct compare_table *t;
	char *html = NULL, *speed, *end, *p;
	size_t len = 0;
	FILE *f;
	int nlabels = 0;

	write_run("20261205T080000Z-d001", "complete", 1, names, st, recs);
	a = load("20261205T080000Z-d001");
	cols[0].run = a;
	t = compare_build(cols, 1, COMPARE_ALPHA);
	assert_int_equal(t->nrows, 4);
	for (int i = 0; i < 4; i++) {
		assert_string_equal(t->rows[i].device, i < 2 ? "cpu" : "cuda:0");
		assert_int_equal(t->rows[i].dtype, want_dt[i]);
		assert_int_equal(t->rows[i].occurrence, 1);
	}
	f = open_memstream(&html, &len);
	assert_int_equal(report_html_write(f, t, NULL, 0,
					   "2026-12-05T08:00:00Z"), 0);
	fclose(f);
	speed = strstr(html, "<h2>Speed-ups</h2>");
	assert_non_null(speed);
	end = strstr(speed + 1, "<h2>");
	if (end)
		*end = '\0';
	for (p = strstr(speed, "glabel\">"); p; p = strstr(p, "glabel\">")) {
		p += strlen("glabel\">");
		assert_true(nlabels < 3);
		assert_true(strncmp(p, want_label[nlabels],
				    strlen(want_label[nlabels])) == 0);
		assert_true(p[strlen(want_label[nlabels])] == '<');
		nlabels++;
	}
	assert_int_equal(nlabels, 3);
	free(html);
	compare_free(t);
	archive_run_free(a);
	free(all);
	free(gb16);
	free(g32);
	free(c16);
	free(c32);
	free(h);
}

/* A host record of host_rec's with "env": {NAME: value, ...}; nenv pairs
 * in names and values. Caller frees. */
static char *host_rec_env(const char *hostname, int nenv,
			  const char *const *names, const char *const *values)
{
	char *h = host_rec(hostname, 2, 5), *env = bf_xstrdup(""), *out;
	const char *head = "{\"schema\":1,\"type\":\"host\",\"seq\":0,";
	size_t len = strlen(head);

	assert_memory_equal(h, head, len);
	for (int i = 0; i < nenv; i++) {
		char *more = bf_xasprintf("%s%s\"%s\":\"%s\"", env, i ? "," : "",
					  names[i], values[i]);

		free(env);
		env = more;
	}
	out = bf_xasprintf("%s\"env\":{%s},%s", head, env, h + len);
	free(env);
	free(h);
	return out;
}

/* Issue 28: a row's host is its key, whole. Two runs of two hosts whose
 * 200-byte names differ only in their last byte: two rows, one a host,
 * each matched across the runs (twice as fast in B), each named whole in
 * ctl compare's table. The key was cut at 127 bytes: a cut key never
 * matched the next record's whole name, so each (host, column) was a row
 * of its own (4 rows, no comparison), the hosts shown alike. */
static void test_long_host_keys(void **state)
{
	char *h = host_rec("vm", 2, 5);
	char *g = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *g2 = gemm_rec("cpu", "fp32", 256, half_ms, 5);
	char *r1 = bf_xasprintf("%s%s%s", h, g, summary_rec);
	char *r2 = bf_xasprintf("%s%s%s", h, g2, summary_rec);
	char name[2][201], *text;
	const char *np[] = { name[0], name[1] }, *st[] = { "done", "done" };
	const char *reca[] = { r1, r1 }, *recb[] = { r2, r2 };
	struct compare_column cols[2] = { { 0 } };
	struct compare_table *t;
	struct archive_run *a, *b;

	for (int k = 0; k < 2; k++) {
		memset(name[k], 'n', 200);
		name[k][199] = (char)('1' + k);
		name[k][200] = '\0';
	}
	write_run("20261208T080000Z-g001", "complete", 2, np, st, reca);
	write_run("20261208T081000Z-g011", "complete", 2, np, st, recb);
	a = load("20261208T080000Z-g001");
	b = load("20261208T081000Z-g011");
	cols[0].run = a;
	cols[1].run = b;
	t = compare_build(cols, 2, COMPARE_ALPHA);
	assert_true(t->by_host);
	assert_int_equal(t->nrows, 2);
	for (int k = 0; k < 2; k++) {
		assert_string_equal(t->rows[k].host, name[k]);
		assert_true(t->rows[k].cells[0].present &&
			    t->rows[k].cells[1].present);
		assert_true(t->rows[k].deltas[1].valid);
		assert_true(fabs(t->rows[k].deltas[1].ratio - 2.0) < 0.01);
	}
	text = print_plain(t);
	for (int k = 0; k < 2; k++)
		if (!strstr(text, name[k]))
			fail_msg("host %d not whole in:\n%s", k, text);
	free(text);
	compare_free(t);
	archive_run_free(b);
	archive_run_free(a);
	free(r2);
	free(r1);
	free(g2);
	free(g);
	free(h);
}

/* Issue 28: a row's device is its key, whole: "cuda:N" has no bound on
 * its digits in docs/schema.json. Two devices of 25 bytes that differ in
 * their last digit, in two runs: two rows, each matched across the runs
 * (the key was cut at 15 bytes: 4 rows, the devices shown alike). */
static void test_long_device_keys(void **state)
{
	const char *dev[] = { "cuda:00000000000000000001",
			      "cuda:00000000000000000002" };
	char *h = host_rec("vm", 2, 5), *ga[2], *gb[2], *ra, *rb;
	const char *np[] = { "local" }, *st[] = { "done" }, *recs[1];
	struct compare_column cols[2] = { { 0 } };
	struct compare_table *t;
	struct archive_run *a, *b;

	for (int k = 0; k < 2; k++) {
		ga[k] = gemm_rec(dev[k], "fp32", 256, base_ms, 5);
		gb[k] = gemm_rec(dev[k], "fp32", 256, half_ms, 5);
	}
	ra = bf_xasprintf("%s%s%s%s", h, ga[0], ga[1], summary_rec);
	rb = bf_xasprintf("%s%s%s%s", h, gb[0], gb[1], summary_rec);
	recs[0] = ra;
	write_run("20261208T082000Z-g021", "complete", 1, np, st, recs);
	recs[0] = rb;
	write_run("20261208T083000Z-g022", "complete", 1, np, st, recs);
	a = load("20261208T082000Z-g021");
	b = load("20261208T083000Z-g022");
	cols[0].run = a;
	cols[1].run = b;
	t = compare_build(cols, 2, COMPARE_ALPHA);
	assert_int_equal(t->nrows, 2);
	for (int k = 0; k < 2; k++) {
		assert_string_equal(t->rows[k].device, dev[k]);
		assert_true(t->rows[k].deltas[1].valid);
		assert_true(fabs(t->rows[k].deltas[1].ratio - 2.0) < 0.01);
	}
	compare_free(t);
	archive_run_free(b);
	archive_run_free(a);
	free(rb);
	free(ra);
	for (int k = 0; k < 2; k++) {
		free(gb[k]);
		free(ga[k]);
	}
	free(h);
}

/* Issue 28: a cell's reason is whole (it was cut at 159 bytes). A
 * 400-byte "invalid:" failure is ctl compare's note whole, a 400-byte
 * skip reason ctl report's note and ctl compare --json's reason whole. */
static void test_long_cell_reasons(void **state)
{
	char *h = host_rec("vm", 2, 5), *fail, *skip, *all, *text, *want;
	char invalid[401], skipped[401], *html = NULL;
	const char *np[] = { "local" }, *st[] = { "done" }, *recs[1];
	struct compare_column cols[1] = { { 0 } };
	struct compare_table *t;
	struct archive_run *a;
	cJSON *json, *row, *cell;
	size_t len = 0;
	FILE *f;

	memset(invalid, 'i', 400);
	memcpy(invalid, "invalid: ", 9);
	memcpy(invalid + 390, " last word", 10);
	invalid[400] = '\0';
	memset(skipped, 's', 400);
	memcpy(skipped + 390, " last word", 10);
	skipped[400] = '\0';
	fail = bf_xasprintf(
		"{\"schema\":1,\"type\":\"gemm\",\"seq\":1,\"device\":\"cpu\","
		"\"dtype\":\"fp32\",\"n\":256,\"status\":\"fail\","
		"\"reason\":\"%s\",\"median_ms\":null,\"gflops\":null}\n",
		invalid);
	skip = bf_xasprintf(
		"{\"schema\":1,\"type\":\"gemm\",\"seq\":2,\"device\":\"cuda:0\","
		"\"dtype\":\"fp32\",\"n\":256,\"status\":\"skipped\","
		"\"reason\":\"%s\",\"median_ms\":null,\"gflops\":null}\n",
		skipped);
	all = bf_xasprintf("%s%s%s%s", h, fail, skip, summary_rec);
	recs[0] = all;
	write_run("20261208T090000Z-g002", "complete", 1, np, st, recs);
	a = load("20261208T090000Z-g002");
	cols[0].run = a;
	t = compare_build(cols, 1, COMPARE_ALPHA);
	assert_int_equal(t->nrows, 2);
	assert_string_equal(t->rows[0].cells[0].reason, invalid);
	assert_string_equal(t->rows[1].cells[0].reason, skipped);

	text = print_plain(t);
	want = bf_xasprintf("invalid (no GFLOP/s): %s\n", invalid + 9);
	if (!strstr(text, want))
		fail_msg("no whole \"%s\" in:\n%s", want, text);
	free(want);
	free(text);

	f = open_memstream(&html, &len);
	assert_int_equal(report_html_write(f, t, NULL, 0, "2026-12-08T09:00:00Z"), 0);
	fclose(f);
	want = bf_xasprintf("%s</li>", skipped);
	if (!strstr(html, want))
		fail_msg("no whole note \"%s\"", want);
	free(want);
	free(html);

	json = compare_to_json(t);
	row = cJSON_GetArrayItem(cJSON_GetObjectItem(json, CMP_KEY_ROWS), 1);
	cell = cJSON_GetArrayItem(cJSON_GetObjectItem(row, CMP_KEY_CELLS), 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(cell, CMP_KEY_REASON)),
			    skipped);
	cJSON_Delete(json);
	compare_free(t);
	archive_run_free(a);
	free(all);
	free(skip);
	free(fail);
	free(h);
}

/* Issue 28: a provenance key is whole. Two environment variables of 60
 * bytes that differ after byte 40, each changed between the runs, are
 * two rows "env.NAME" (the key was cut at 40 bytes of NAME: two rows
 * that read as one variable), printed whole by ctl compare. */
static void test_long_env_keys(void **state)
{
	char var[2][61], *ha, *hb, *g = gemm_rec("cpu", "fp32", 256, base_ms, 5);
	char *ra, *rb, *text, *want;
	const char *vars[] = { var[0], var[1] };
	const char *va[] = { "one", "one" }, *vb[] = { "two", "two" };
	const char *np[] = { "local" }, *st[] = { "done" }, *recs[1];
	struct compare_column cols[2] = { { 0 } };
	struct compare_table *t;
	struct archive_run *a, *b;

	for (int k = 0; k < 2; k++) {
		memset(var[k], 'V', 60);
		var[k][59] = (char)('1' + k);
		var[k][60] = '\0';
	}
	ha = host_rec_env("vm", 2, vars, va);
	hb = host_rec_env("vm", 2, vars, vb);
	ra = bf_xasprintf("%s%s%s", ha, g, summary_rec);
	rb = bf_xasprintf("%s%s%s", hb, g, summary_rec);
	recs[0] = ra;
	write_run("20261208T100000Z-g003", "complete", 1, np, st, recs);
	recs[0] = rb;
	write_run("20261208T110000Z-g004", "complete", 1, np, st, recs);
	a = load("20261208T100000Z-g003");
	b = load("20261208T110000Z-g004");
	cols[0].run = a;
	cols[1].run = b;
	t = compare_build(cols, 2, COMPARE_ALPHA);
	assert_int_equal(t->nprov, 2);
	text = print_plain(t);
	for (int k = 0; k < 2; k++) {
		want = bf_xasprintf("env.%s", var[k]);
		assert_string_equal(t->prov[k].key, want);
		assert_string_equal(t->prov[k].values[0], "one");
		assert_string_equal(t->prov[k].values[1], "two");
		free(want);
		want = bf_xasprintf("  env.%s  A one", var[k]);
		if (!strstr(text, want))
			fail_msg("no \"%s\" in:\n%s", want, text);
		free(want);
	}
	free(text);
	compare_free(t);
	archive_run_free(b);
	archive_run_free(a);
	free(rb);
	free(ra);
	free(hb);
	free(ha);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt),
		/* Each test gets an empty results directory of its own. */
		cmocka_unit_test_setup_teardown(test_load_and_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_baseline_same_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_difference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_difference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legend_all_hosts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_long_texts, setup, teardown),
		cmocka_unit_test(test_history_text_whole),
		cmocka_unit_test_setup_teardown(test_compare_notes_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dtype_rows_and_speedups,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_host_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_device_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_cell_reasons, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_env_keys, setup, teardown),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
