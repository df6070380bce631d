/*
 * Unit tests for controller/model/model.c's typed adds of the newer records:
 * bandwidth and batching records become lists of their own in the
 * snapshot, and a gemm record's roofline fields (bandwidth, arithmetic
 * intensity, roofline, bound, fraction) reach its row; an inconsistent
 * gemm record keeps no fraction of the roofline; which rows get a vs fp32
 * and a GPU/CPU ratio; a row's dtype as the enum. Records come from JSON lines as the agent writes
 * them (bf_record_parse), or are built typed.
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

#include "model/model.h"
#include "record.h"

static const char *const names[] = { "spark", "box" };

static void add_line(struct model *m, int host, const char *line)
{
	struct bf_record rec;
	char detail[256];

	assert_int_equal(bf_record_parse(line, strlen(line), &rec, detail,
					 sizeof(detail)), BF_OK);
	assert_int_not_equal(model_add_record(m, host, &rec),
			     MODEL_REJECTED_RANGE);
	bf_record_free(&rec);
}

static const char bw_triad[] =
	"{\"schema\":1,\"type\":\"bandwidth\",\"seq\":2,\"device\":\"cpu\","
	"\"kind\":\"triad\",\"status\":\"pass\",\"reason\":null,"
	"\"median_gbps\":40.5,\"dtype\":\"fp64\",\"array_bytes\":2796160,"
	"\"bytes\":8388480,\"counting\":\"c\",\"threads\":2,\"warmup\":1,"
	"\"iters\":2,\"samples_ms\":[0.2,0.21],\"median_ms\":0.2,"
	"\"min_ms\":0.2,\"max_ms\":0.21,\"timing\":\"t\"}";
static const char bw_skip[] =
	"{\"schema\":1,\"type\":\"bandwidth\",\"seq\":3,\"device\":\"cuda:0\","
	"\"kind\":\"d2d\",\"status\":\"skipped\",\"reason\":\"no GPU\","
	"\"median_gbps\":null}";
static const char batch_cpu[] =
	"{\"schema\":1,\"type\":\"batching\",\"seq\":5,\"device\":\"cpu\","
	"\"dtype\":\"fp32\",\"status\":\"pass\",\"reason\":null,\"speedup\":6,"
	"\"model\":\"30-16-relu-1\",\"layers\":[30,16,1],\"rows\":20,"
	"\"features\":30,\"library\":\"l\",\"math_mode\":\"m\",\"timing\":\"t\","
	"\"warmup\":1,\"iters\":1,\"single_samples_ms\":[0.001],"
	"\"batch_samples_ms\":[0.0033333333333333335],\"single_ms\":0.001,"
	"\"batch_ms\":0.0033333333333333335,\"single_rows_per_s\":1000000,"
	"\"batch_rows_per_s\":6000000,\"max_abs_diff\":0,\"max_abs_error\":0,"
	"\"tolerance\":0,\"scores\":[1],\"expected_scores\":[1]}";
/* n = 64: 2 n^3 = 524288 FLOP in 0.004 ms is 131.072 GFLOP/s. */
#define GEMM_HEAD \
	"{\"schema\":1,\"type\":\"gemm\",\"seq\":4,\"device\":\"cpu\"," \
	"\"dtype\":\"fp32\",\"n\":64,\"status\":\"pass\",\"reason\":null," \
	"\"library\":\"l\",\"math_mode\":\"m\",\"c_dtype\":\"fp32\"," \
	"\"warmup\":1,\"iters\":1,\"samples_ms\":[0.004],\"median_ms\":0.004," \
	"\"min_ms\":0.004,\"max_ms\":0.004,"
#define GEMM_TAIL \
	"\"peak_mib\":0,\"operand_bytes\":49152,\"max_rel_error\":0," \
	"\"tolerance\":1e-5,\"verify_seed\":1,\"verified_elements\":1," \
	"\"nonfinite_elements\":0,\"peak_gflops\":500," \
	"\"fraction_of_peak\":0.262144,\"bandwidth_kind\":\"triad\"," \
	"\"bandwidth_gbps\":40.5,\"arithmetic_intensity\":10.666666666666666," \
	"\"roofline_gflops\":432,\"bound\":\"memory\"," \
	"\"fraction_of_roofline\":0.3034074074074074}"
static const char gemm_roof[] = GEMM_HEAD "\"gflops\":131.072," GEMM_TAIL;
/* Its gflops disagrees with n and median_ms: no speed, no fraction. */
static const char gemm_bad[] = GEMM_HEAD "\"gflops\":500," GEMM_TAIL;

static void test_bandwidth_batching(void **state)
{
	struct model m;
	struct model_snapshot s = { 0 };

	model_init(&m, 2, names);
	add_line(&m, 1, bw_triad);
	add_line(&m, 1, bw_skip);
	add_line(&m, 0, batch_cpu);
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nbandwidth, 2);
	assert_int_equal(s.bandwidth[0].host, 1);
	assert_string_equal(s.bandwidth[0].device, "cpu");
	assert_string_equal(s.bandwidth[0].kind, "triad");
	assert_int_equal(s.bandwidth[0].status, BF_STATUS_PASS);
	assert_true(s.bandwidth[0].median_gbps == 40.5);
	assert_true(s.bandwidth[0].array_bytes == 2796160);
	assert_string_equal(s.bandwidth[1].kind, "d2d");
	assert_int_equal(s.bandwidth[1].status, BF_STATUS_SKIPPED);
	assert_true(isnan(s.bandwidth[1].median_gbps));
	assert_string_equal(s.bandwidth[1].reason, "no GPU");
	assert_int_equal(s.nbatching, 1);
	assert_int_equal(s.batching[0].host, 0);
	assert_int_equal(s.batching[0].dtype, BF_DTYPE_FP32);
	assert_true(s.batching[0].speedup == 6);
	assert_true(s.batching[0].single_ms == 0.001);
	assert_int_equal(s.batching[0].rows, 20);
	assert_int_equal(s.hosts[1].records, 2);
	assert_int_equal(s.nrows, 0); /* not GEMM rows */
	/* A duplicate seq is not added again. */
	{
		struct bf_record rec;
		char detail[128];

		bf_record_parse(bw_triad, strlen(bw_triad), &rec, detail,
				sizeof(detail));
		assert_int_equal(model_add_record(&m, 1, &rec),
				 MODEL_REJECTED_DUPLICATE);
		bf_record_free(&rec);
	}
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nbandwidth, 2);
	/* The snapshot outlives the model. */
	model_free(&m);
	assert_string_equal(s.bandwidth[0].kind, "triad");
	model_snapshot_free(&s);
	assert_null(s.bandwidth);
	assert_null(s.batching);
}

static void test_gemm_roofline(void **state)
{
	struct model m;
	struct model_snapshot s = { 0 };
	const struct model_row *r;

	model_init(&m, 2, names);
	add_line(&m, 0, gemm_roof);
	add_line(&m, 1, gemm_bad);
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nrows, 2);
	r = &s.rows[0];
	assert_string_equal(r->bandwidth_kind, "triad");
	assert_true(r->bandwidth_gbps == 40.5);
	assert_true(r->arithmetic_intensity == 10.666666666666666);
	assert_true(r->roofline_gflops == 432);
	assert_int_equal(r->bound, 'M');
	assert_true(r->fraction_of_roofline == 0.3034074074074074);
	r = &s.rows[1];
	assert_int_equal(r->status, BF_STATUS_FAIL);
	assert_true(isnan(r->gflops));
	assert_true(isnan(r->fraction_of_roofline));
	assert_non_null(strstr(r->reason, "invalid"));
	model_free(&m);
	model_snapshot_free(&s);
}

/* A gemm record without the roofline (--no-bandwidth, older agents). */
static void test_gemm_without_roofline(void **state)
{
	struct model m;
	struct model_snapshot s = { 0 };
	struct bf_record rec;

	model_init(&m, 1, names);
	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = strdup("cpu");
	rec.u.gemm.dtype = strdup("fp32");
	rec.u.gemm.n = 64;
	rec.u.gemm.status = BF_STATUS_SKIPPED;
	model_add_record(&m, 0, &rec);
	bf_record_free(&rec);
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nrows, 1);
	assert_string_equal(s.rows[0].bandwidth_kind, "");
	assert_true(isnan(s.rows[0].bandwidth_gbps));
	assert_true(isnan(s.rows[0].roofline_gflops));
	assert_true(isnan(s.rows[0].fraction_of_roofline));
	assert_int_equal(s.rows[0].bound, 0);
	model_free(&m);
	model_snapshot_free(&s);
}

/* A verified-or-not gemm row of n 64 at median ms (gflops from it). */
static void add_gemm(struct model *m, const char *device, const char *dtype,
		     enum bf_status st, double ms)
{
	struct bf_record rec;

	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = strdup(device);
	rec.u.gemm.dtype = strdup(dtype);
	rec.u.gemm.n = 64;
	rec.u.gemm.status = st;
	rec.u.gemm.median_ms = ms;
	rec.u.gemm.gflops = bf_gemm_gflops(64, ms);
	model_add_record(m, 0, &rec);
	bf_record_free(&rec);
}

/* ctl's vs fp32 and GPU/CPU columns (the rule is bf_ratio_wanted's, as
 * for the agent's summary): fp16 over fp32 on its own device, a GPU's
 * fp32 over the CPU's, whichever arrives first; nothing for a failed
 * row, nor over a failed base; a repeated size's second row only over
 * its base's second row. */
static void test_ratios(void **state)
{
	struct model m;
	struct model_snapshot s = { 0 };

	(void)state;
	model_init(&m, 1, names);
	add_gemm(&m, "cuda:0", "fp16", BF_STATUS_PASS, 0.0005); /* 1048.576 */
	add_gemm(&m, "cuda:0", "fp32", BF_STATUS_PASS, 0.001);  /* 524.288 */
	add_gemm(&m, "cpu", "fp32", BF_STATUS_PASS, 0.004);     /* 131.072 */
	add_gemm(&m, "cpu", "fp16", BF_STATUS_FAIL, 0.002);
	add_gemm(&m, "cuda:0", "fp16", BF_STATUS_PASS, 0.00025); /* n 64#2 */
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nrows, 5);
	assert_true(s.rows[0].vs_fp32 == 2.0);
	assert_true(isnan(s.rows[0].gpu_vs_cpu));
	assert_true(isnan(s.rows[1].vs_fp32));
	assert_true(s.rows[1].gpu_vs_cpu == 4.0);
	assert_true(isnan(s.rows[2].vs_fp32));
	assert_true(isnan(s.rows[2].gpu_vs_cpu));
	assert_true(isnan(s.rows[3].vs_fp32));
	assert_int_equal(s.rows[4].occurrence, 2);
	assert_true(isnan(s.rows[4].vs_fp32));
	model_free(&m);
	model_snapshot_free(&s);
}

/* gemm_roof with its dtype "fp32" replaced by dt, into buf. */
static const char *with_dtype(char *buf, size_t len, const char *dt)
{
	const char *at = strstr(gemm_roof, "\"dtype\":\"fp32\"");

	assert_non_null(at);
	snprintf(buf, len, "%.*s\"dtype\":\"%s\"%s", (int)(at - gemm_roof),
		 gemm_roof, dt, at + strlen("\"dtype\":\"fp32\""));
	return buf;
}

/* The model holds a row's dtype as enum bf_dtype, parsed once as the
 * record enters: two spellings of one dtype ("fp16" and "float16", as a
 * hand-made record may say) are one (device, dtype, n), so the second
 * is that key's second occurrence, printed "fp16"; a dtype ctl does not
 * know is taken nowhere (MODEL_REJECTED_RANGE, no row). From NDJSON the
 * reader decides first: it refuses "fp4" (docs/schema.json lists the
 * dtypes) and admits "int32", which the enum has. */
static void test_dtype_enum(void **state)
{
	struct model m;
	struct model_snapshot s = { 0 };
	struct bf_record rec;
	char line[2048], detail[256];

	(void)state;
	model_init(&m, 1, names);
	add_gemm(&m, "cuda:0", "fp16", BF_STATUS_PASS, 0.0005);
	add_gemm(&m, "cuda:0", "float16", BF_STATUS_PASS, 0.00025);
	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = strdup("cuda:0");
	rec.u.gemm.dtype = strdup("fp4");
	rec.u.gemm.n = 64;
	assert_int_equal(model_add_record(&m, 0, &rec), MODEL_REJECTED_RANGE);
	free(rec.u.gemm.dtype);
	rec.u.gemm.dtype = NULL;
	assert_int_equal(model_add_record(&m, 0, &rec), MODEL_REJECTED_RANGE);
	bf_record_free(&rec);
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nrows, 2);
	assert_int_equal(s.rows[0].dtype, BF_DTYPE_FP16);
	assert_int_equal(s.rows[0].occurrence, 1);
	assert_int_equal(s.rows[1].dtype, BF_DTYPE_FP16);
	assert_int_equal(s.rows[1].occurrence, 2);
	assert_string_equal(bf_dtype_name(s.rows[1].dtype), "fp16");
	assert_int_equal(s.hosts[0].records, 2);

	with_dtype(line, sizeof(line), "fp4");
	assert_int_not_equal(bf_record_parse(line, strlen(line), &rec, detail,
					     sizeof(detail)), BF_OK);
	assert_non_null(strstr(detail, "\"dtype\" is \"fp4\""));
	bf_record_free(&rec);
	add_line(&m, 0, with_dtype(line, sizeof(line), "int32"));
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nrows, 3);
	assert_int_equal(s.rows[2].dtype, BF_DTYPE_INT32);
	assert_string_equal(bf_dtype_name(s.rows[2].dtype), "int32");
	assert_int_equal(s.rows[2].occurrence, 1);
	model_free(&m);
	model_snapshot_free(&s);
}

/* Issue 28: text the model keeps in fixed fields is never cut in
 * silence. Three 150-byte unreliable reasons are joined whole (a row's
 * 320 bytes cut them, "..."); a 300-byte baseline note (it
 * names two hostnames) is whole (it was cut at 160); a host key fingerprint is a key
 * (machines are matched by it), so one too long for the field is
 * unknown (""), never cut into another's, while a real one is whole. */
static void test_cuts_marked(void **state)
{
	struct model m;
	struct model_snapshot s = { 0 };
	struct bf_record rec;
	char reason[151], note[301], fp[201];
	const char *sha = "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8";
	size_t len;

	(void)state;
	memset(reason, 'r', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	memset(note, 'n', sizeof(note) - 1);
	note[sizeof(note) - 1] = '\0';
	memset(fp, 'f', sizeof(fp) - 1);
	fp[sizeof(fp) - 1] = '\0';
	model_init(&m, 2, names);
	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = strdup("cpu");
	rec.u.gemm.dtype = strdup("fp32");
	rec.u.gemm.n = 64;
	rec.u.gemm.status = BF_STATUS_PASS;
	rec.u.gemm.median_ms = 0.004;
	rec.u.gemm.gflops = bf_gemm_gflops(64, 0.004);
	rec.u.gemm.reliable = 0;
	rec.u.gemm.unreliable_reasons = calloc(3, sizeof(char *));
	for (int i = 0; i < 3; i++)
		rec.u.gemm.unreliable_reasons[i] = strdup(reason);
	rec.u.gemm.nunreliable = 3;
	assert_int_equal(model_add_record(&m, 0, &rec), MODEL_ADDED_PROGRESS);
	bf_record_free(&rec);
	model_set_baseline_info(&m, 0, NULL, note);
	model_set_fingerprint(&m, 0, fp);
	model_set_fingerprint(&m, 1, sha);
	model_snapshot_update(&m, &s);
	assert_int_equal(s.nrows, 1);
	len = strlen(s.rows[0].unreliable); /* whole: 3 x 150 and "; " */
	assert_int_equal(len, 3 * 150 + 2 * 2);
	assert_memory_equal(s.rows[0].unreliable, reason, 150);
	assert_memory_equal(s.rows[0].unreliable + 150, "; ", 2);
	assert_memory_equal(s.rows[0].unreliable + 304, reason, 150);
	assert_string_equal(s.hosts[0].baseline_note, note); /* whole */
	assert_string_equal(s.hosts[0].fingerprint, "");
	assert_string_equal(s.hosts[1].fingerprint, sha);
	model_free(&m);
	model_snapshot_free(&s);
}

/* A text of n bytes: "w0 w1 w2 ..." (words, so a cut shows), ending in
 * "END". Caller frees. */
static char *long_text(size_t n)
{
	char *t = calloc(n + 1, 1);
	size_t used = 0;

	for (int i = 0; used + 12 < n; i++)
		used += (size_t)snprintf(t + used, n + 1 - used, "w%d ", i);
	memset(t + used, 'x', n - used - 3);
	memcpy(t + n - 3, "END", 3);
	return t;
}

/* Issue 28: a reason reaches the snapshot whole, of any length (they
 * were cut at 160 and 512 bytes, ending in "..."), and the snapshot's
 * copies outlive the model: a gemm row's (1500 bytes), a bandwidth and
 * a batching entry's, a failed host's (2000 bytes over two lines, kept
 * as lines), and the measured-nothing why that quotes a row's. */
static void test_reasons_whole(void **state)
{
	struct model m;
	struct model_snapshot s = { 0 };
	struct model_host h;
	struct bf_record rec;
	char *row_reason = long_text(1500), *bw_reason = long_text(700);
	char *host_reason = long_text(2000), *why, *want;

	(void)state;
	host_reason[900] = '\n';
	model_init(&m, 2, names);
	bf_record_init(&rec, BF_REC_PLAN);
	model_add_record(&m, 0, &rec);
	bf_record_free(&rec);
	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = strdup("cpu");
	rec.u.gemm.dtype = strdup("fp32");
	rec.u.gemm.n = 64;
	rec.u.gemm.status = BF_STATUS_SKIPPED;
	rec.u.gemm.reason = strdup(row_reason);
	model_add_record(&m, 0, &rec);
	bf_record_free(&rec);
	bf_record_init(&rec, BF_REC_BANDWIDTH);
	rec.u.bandwidth.device = strdup("cpu");
	rec.u.bandwidth.kind = strdup("triad");
	rec.u.bandwidth.status = BF_STATUS_SKIPPED;
	rec.u.bandwidth.reason = strdup(bw_reason);
	model_add_record(&m, 0, &rec);
	bf_record_free(&rec);
	bf_record_init(&rec, BF_REC_BATCHING);
	rec.u.batching.device = strdup("cpu");
	rec.u.batching.dtype = strdup("fp32");
	rec.u.batching.status = BF_STATUS_FAIL;
	rec.u.batching.reason = strdup(row_reason);
	model_add_record(&m, 0, &rec);
	bf_record_free(&rec);
	model_set_state(&m, 1, HOST_FAILED, host_reason);
	model_host_get(&m, 1, &h);
	assert_string_equal(h.reason, host_reason);
	assert_int_equal(model_snapshot_update(&m, &s), 1);
	assert_int_equal(s.nrows, 1);
	assert_string_equal(s.rows[0].reason, row_reason);
	assert_int_equal(s.nbandwidth, 1);
	assert_string_equal(s.bandwidth[0].reason, bw_reason);
	assert_int_equal(s.nbatching, 1);
	assert_string_equal(s.batching[0].reason, row_reason);
	assert_string_equal(s.hosts[1].reason, host_reason);
	assert_null(s.hosts[0].reason); /* none */
	/* The same reason again is kept once; a new one replaces it, and
	 * the snapshot's refresh frees its old copies (ASan). */
	model_set_state(&m, 1, HOST_FAILED, host_reason);
	model_set_state(&m, 1, HOST_INTERRUPTED, "interrupted");
	assert_int_equal(model_snapshot_update(&m, &s), 1);
	assert_string_equal(s.hosts[1].reason, "interrupted");
	assert_string_equal(s.rows[0].reason, row_reason);
	/* The why quotes the skipped row's reason whole. */
	model_set_state(&m, 0, HOST_DONE, NULL);
	assert_int_equal(model_host_measured_nothing(&m, 0, &why), 1);
	want = malloc(strlen(row_reason) + 64);
	snprintf(want, strlen(row_reason) + 64, "no GEMM ran: 1 skipped (%s)",
		 row_reason);
	assert_string_equal(why, want);
	free(want);
	free(why);
	assert_int_equal(model_host_measured_nothing(&m, 1, &why), 0);
	assert_null(why);
	model_free(&m);
	/* The snapshot's reasons are its own. */
	assert_string_equal(s.batching[0].reason, row_reason);
	model_snapshot_free(&s);
	free(row_reason);
	free(bw_reason);
	free(host_reason);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bandwidth_batching),
		cmocka_unit_test(test_gemm_roofline),
		cmocka_unit_test(test_gemm_without_roofline),
		cmocka_unit_test(test_ratios),
		cmocka_unit_test(test_dtype_enum),
		cmocka_unit_test(test_cuts_marked),
		cmocka_unit_test(test_reasons_whole),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
