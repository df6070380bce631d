/*
 * Unit tests for record building (agent/core/report.c, the ratios in gemm.c,
 * device labels): every record carries the schema version, its type and a
 * sequence number counting from 0; each is one line of JSON ending in a
 * newline; check records carry their fields with null for what is
 * missing; the counts the summary reports follow the statuses emitted.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "backends/backend.h"
#include "core/report.h"
#include "workloads/gemm.h"

struct sink {
	char *buf;
	size_t size;
	FILE *f;
	struct report r;
};

static void sink_open(struct sink *s, int human)
{
	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->buf, &s->size);
	assert_non_null(s->f);
	s->r.out = s->f;
	s->r.human = human;
}

/* Closes the stream; s->buf then holds everything written. */
static void sink_close(struct sink *s)
{
	fclose(s->f);
}

/* Splits the output into lines, asserting each ends with '\n'. Returns
 * the number of lines; lines[] point into buf (modified). */
static int split_lines(char *buf, size_t size, char **lines, int max)
{
	int n = 0;
	char *p = buf;

	assert_true(size > 0);
	assert_int_equal(buf[size - 1], '\n');
	while (p < buf + size && n < max) {
		char *nl = strchr(p, '\n');

		assert_non_null(nl);
		*nl = '\0';
		lines[n++] = p;
		p = nl + 1;
	}
	return n;
}

static void test_record_header_and_seq(void **state)
{
	struct sink s;
	char *lines[8];
	static const char *const types[] = { "host", "plan", "gemm", "summary" };
	static const enum bf_record_type t[] = { BF_REC_HOST, BF_REC_PLAN,
						 BF_REC_GEMM, BF_REC_SUMMARY };

	sink_open(&s, 0);
	for (int i = 0; i < 4; i++) {
		struct bf_record rec;

		bf_record_init(&rec, t[i]);
		if (t[i] == BF_REC_HOST)
			rec.u.host.hostname = strdup("line\nbreak");
		if (t[i] == BF_REC_GEMM) {
			rec.u.gemm.device = strdup("cpu");
			rec.u.gemm.dtype = strdup("fp32");
		}
		report_emit_record(&s.r, &rec);
		bf_record_free(&rec);
	}
	sink_close(&s);
	assert_int_equal(split_lines(s.buf, s.size, lines, 8), 4);
	for (int i = 0; i < 4; i++) {
		cJSON *o = cJSON_Parse(lines[i]);

		assert_non_null(o);
		assert_int_equal(cJSON_GetObjectItemCaseSensitive(o, "schema")->valueint,
				 BF_SCHEMA_VERSION);
		assert_string_equal(cJSON_GetObjectItemCaseSensitive(o, "type")->valuestring,
				    types[i]);
		assert_int_equal(cJSON_GetObjectItemCaseSensitive(o, "seq")->valueint, i);
		cJSON_Delete(o);
	}
	/* The embedded newline is escaped, not written raw: the line holds
	 * the whole record. */
	assert_non_null(strstr(lines[0], "\"hostname\":\"line\\nbreak\""));
	/* Only the records with a status are counted: the gemm record. */
	assert_int_equal(s.r.checks[0] + s.r.checks[1] + s.r.checks[2], 0);
	assert_int_equal(s.r.gemms[BF_STATUS_PASS], 1);
	assert_int_equal(s.r.gemms[1] + s.r.gemms[2], 0);
	assert_int_equal(s.r.bandwidths[0] + s.r.batchings[0], 0);
	free(s.buf);
}

static void test_check_records_and_counts(void **state)
{
	struct sink s;
	char *lines[8];
	struct bf_rec_transfer_metrics m = { 1024, NAN, NAN, NAN, NAN };
	cJSON *o;

	sink_open(&s, 0);
	report_check(&s.r, "add.elementwise", "cpu", cJSON_CreateNumber(3),
		     cJSON_CreateNumber(3), BF_STATUS_PASS, NULL, NULL);
	report_check(&s.r, "broadcast.row", "cuda:1", cJSON_CreateString("a"),
		     NULL, BF_STATUS_FAIL, "got differs from expected", &m);
	report_check(&s.r, "device.available", "cuda:0", cJSON_CreateTrue(),
		     cJSON_CreateFalse(), BF_STATUS_SKIPPED, "no CUDA device found",
		     NULL);
	report_check(&s.r, "round.fp16", "cpu", NULL, NULL, BF_STATUS_PASS, NULL,
		     NULL);
	sink_close(&s);
	assert_int_equal(split_lines(s.buf, s.size, lines, 8), 4);
	assert_int_equal(s.r.checks[BF_STATUS_PASS], 2);
	assert_int_equal(s.r.checks[BF_STATUS_FAIL], 1);
	assert_int_equal(s.r.checks[BF_STATUS_SKIPPED], 1);
	assert_int_equal(s.r.seq, 4);

	o = cJSON_Parse(lines[0]);
	assert_string_equal(cJSON_GetObjectItem(o, "type")->valuestring, "check");
	assert_string_equal(cJSON_GetObjectItem(o, "name")->valuestring,
			    "add.elementwise");
	assert_string_equal(cJSON_GetObjectItem(o, "device")->valuestring, "cpu");
	assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "pass");
	assert_true(cJSON_GetObjectItem(o, "expected")->valuedouble == 3);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "reason")));
	assert_null(cJSON_GetObjectItem(o, "metrics")); /* absent, not null */
	cJSON_Delete(o);

	o = cJSON_Parse(lines[1]);
	assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "fail");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "got"))); /* missing */
	assert_string_equal(cJSON_GetObjectItem(o, "reason")->valuestring,
			    "got differs from expected");
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "metrics"),
					"bytes")->valuedouble == 1024);
	cJSON_Delete(o);

	o = cJSON_Parse(lines[3]);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "expected")));
	cJSON_Delete(o);
	free(s.buf);
}

/* A skipped gemm record: status and reason, no timings. */
static void emit_gemm(struct report *r, enum bf_status st, const char *reason)
{
	struct bf_record rec;

	bf_record_init(&rec, BF_REC_GEMM);
	rec.u.gemm.device = strdup("cpu");
	rec.u.gemm.dtype = strdup("bf16");
	rec.u.gemm.n = 512;
	rec.u.gemm.status = st;
	rec.u.gemm.reason = reason ? strdup(reason) : NULL;
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}

static void test_gemm_counts(void **state)
{
	static const enum bf_status st[] = { BF_STATUS_PASS, BF_STATUS_SKIPPED,
					     BF_STATUS_SKIPPED, BF_STATUS_FAIL };
	struct sink s;

	sink_open(&s, 0);
	for (int i = 0; i < 4; i++)
		emit_gemm(&s.r, st[i], NULL);
	sink_close(&s);
	assert_int_equal(s.r.gemms[BF_STATUS_PASS], 1);
	assert_int_equal(s.r.gemms[BF_STATUS_FAIL], 1);
	assert_int_equal(s.r.gemms[BF_STATUS_SKIPPED], 2);
	assert_int_equal(s.r.checks[0] + s.r.checks[1] + s.r.checks[2], 0);
	free(s.buf);
}

static void test_human_rendering(void **state)
{
	struct sink s;

	sink_open(&s, 1);
	emit_gemm(&s.r, BF_STATUS_SKIPPED, "no sbgemm");
	sink_close(&s);
	/* A table row, not JSON; missing values print as n/a, never 0. */
	assert_null(strchr(s.buf, '{'));
	assert_non_null(strstr(s.buf, "GFLOP/s"));
	assert_non_null(strstr(s.buf, "bf16"));
	assert_non_null(strstr(s.buf, "n/a"));
	assert_non_null(strstr(s.buf, "(no sbgemm)"));
	assert_int_equal(s.r.gemms[BF_STATUS_SKIPPED], 1);
	free(s.buf);
}

/* --human's host lines come from the struct: missing values print n/a,
 * a GPU's memory in GiB, a unified-memory GPU says so. */
static void test_human_host(void **state)
{
	struct sink s;
	struct bf_record rec;
	struct bf_rec_host *h = &rec.u.host;

	bf_record_init(&rec, BF_REC_HOST);
	h->hostname = strdup("node1");
	h->arch = strdup("aarch64");
	h->cpu_cores = 20;
	h->openblas_version = strdup("0.3.21");
	h->openblas_threads = 20;
	h->cuda_status = strdup("pass");
	h->cuda_driver_version = strdup("580.95.05");
	h->cuda_runtime_version = strdup("13.0");
	h->gpus = calloc(2, sizeof(*h->gpus));
	h->ngpus = 1;
	h->gpus[0].index = 0;
	h->gpus[0].name = strdup("NVIDIA GB10");
	h->gpus[0].compute_capability = strdup("12.1");
	h->gpus[0].memory_bytes = 128.0 * 1073741824.0;
	h->gpus[0].unified_memory = 1;
	sink_open(&s, 1);
	report_emit_record(&s.r, &rec);
	sink_close(&s);
	assert_string_equal(s.buf,
			    "=== host ===\n"
			    "node1  n/a  aarch64  kernel n/a\n"
			    "cpu: n/a, 20 cores, n/a\n"
			    "openblas 0.3.21, core n/a, 20 threads\n"
			    "cuda: driver 580.95.05 (CUDA n/a), runtime 13.0, "
			    "cuBLAS n/a\n"
			    "cuda:0: NVIDIA GB10, compute 12.1, 128.0 GiB "
			    "(unified with host)\n");
	bf_record_free(&rec);
	free(s.buf);

	/* Skipped CUDA: its reason. */
	bf_record_init(&rec, BF_REC_HOST);
	rec.u.host.cuda_status = strdup("skipped");
	rec.u.host.cuda_reason = strdup("agent built without CUDA");
	sink_open(&s, 1);
	report_emit_record(&s.r, &rec);
	sink_close(&s);
	assert_non_null(strstr(s.buf, "\ncuda: skipped: agent built without CUDA\n"));
	bf_record_free(&rec);
	free(s.buf);
}

static void test_device_labels_and_backends(void **state)
{
	struct device d = { DEVICE_CPU, 0 };
	char buf[16];

	assert_string_equal(device_label(&d, buf, sizeof(buf)), "cpu");
	d = (struct device){ DEVICE_CUDA, 3 };
	assert_string_equal(device_label(&d, buf, sizeof(buf)), "cuda:3");
	assert_ptr_equal(backend_for(DEVICE_CPU), &backend_openblas);
	assert_ptr_equal(backend_table[0], &backend_openblas);
#ifdef BF_WITH_CUDA
	assert_ptr_equal(backend_for(DEVICE_CUDA), &backend_cublas);
#else
	assert_null(backend_for(DEVICE_CUDA));
#endif
}

static const cJSON *find_ratio(const cJSON *arr, const char *kind,
			       const char *device, const char *dtype, int n)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, arr) {
		if (strcmp(cJSON_GetObjectItem(r, "kind")->valuestring, kind) == 0 &&
		    strcmp(cJSON_GetObjectItem(r, "device")->valuestring, device) == 0 &&
		    strcmp(cJSON_GetObjectItem(r, "dtype")->valuestring, dtype) == 0 &&
		    cJSON_GetObjectItem(r, "n")->valueint == n)
			return r;
	}
	return NULL;
}

static void test_ratios(void **state)
{
	const struct device cpu = { DEVICE_CPU, 0 }, g0 = { DEVICE_CUDA, 0 };
	const struct device g1 = { DEVICE_CUDA, 1 };
	struct gemm_outcome items[] = {
		{ cpu, BF_DTYPE_FP32, 1024, BF_STATUS_PASS, 100.0 },
		{ cpu, BF_DTYPE_BF16, 1024, BF_STATUS_SKIPPED, NAN },
		{ g0, BF_DTYPE_FP32, 1024, BF_STATUS_PASS, 2000.0 },
		{ g0, BF_DTYPE_FP16, 1024, BF_STATUS_PASS, 8000.0 },
		{ g0, BF_DTYPE_BF16, 1024, BF_STATUS_FAIL, 9000.0 },
		{ g0, BF_DTYPE_FP32, 4096, BF_STATUS_PASS, 3000.0 },
		{ g1, BF_DTYPE_FP16, 1024, BF_STATUS_PASS, 500.0 },
	};
	struct gemm_sweep sw = { items, (int)(sizeof(items) / sizeof(items[0])) };
	struct bf_record sum;
	cJSON *doc, *arr;
	const cJSON *r;

	/* The ratios as the summary record writes them. */
	bf_record_init(&sum, BF_REC_SUMMARY);
	gemm_ratios(&sw, &sum.u.summary);
	doc = bf_record_encode(&sum);
	arr = cJSON_GetObjectItem(doc, "ratios");

	/* cuda:0 fp32 over cpu fp32 at 1024; cuda:0 fp16 over cuda:0 fp32.
	 * Nothing for failed/skipped results, for n=4096 (no CPU base), or
	 * for cuda:1 (no fp32 base on that device). */
	assert_int_equal(cJSON_GetArraySize(arr), 2);
	r = find_ratio(arr, "gpu_vs_cpu", "cuda:0", "fp32", 1024);
	assert_non_null(r);
	assert_true(cJSON_GetObjectItem(r, "value")->valuedouble == 20.0);
	r = find_ratio(arr, "vs_fp32", "cuda:0", "fp16", 1024);
	assert_non_null(r);
	assert_true(cJSON_GetObjectItem(r, "value")->valuedouble == 4.0);
	cJSON_Delete(doc);
	bf_record_free(&sum);

	/* A repeated size (--sizes 1024,1024) pairs like with like, as
	 * ctl's model does: the second fp16 over the second fp32, and the
	 * third fp16 gets none, since the third fp32 failed. The first-found
	 * base (the agent's rule before) gave 600/100 = 6 for the second. */
	{
		struct gemm_outcome rep[] = {
			{ g0, BF_DTYPE_FP32, 1024, BF_STATUS_PASS, 100.0 },
			{ g0, BF_DTYPE_FP16, 1024, BF_STATUS_PASS, 400.0 },
			{ g0, BF_DTYPE_FP32, 1024, BF_STATUS_PASS, 200.0 },
			{ g0, BF_DTYPE_FP16, 1024, BF_STATUS_PASS, 600.0 },
			{ g0, BF_DTYPE_FP32, 1024, BF_STATUS_FAIL, 50.0 },
			{ g0, BF_DTYPE_FP16, 1024, BF_STATUS_PASS, 700.0 },
		};
		struct gemm_sweep rs = { rep, 6 };

		bf_record_init(&sum, BF_REC_SUMMARY);
		gemm_ratios(&rs, &sum.u.summary);
		assert_int_equal(sum.u.summary.nratios, 2);
		assert_true(sum.u.summary.ratios[0].value == 4.0);
		assert_true(sum.u.summary.ratios[1].value == 3.0);
		bf_record_free(&sum);
	}

	/* gemm_count: devices x sizes x dtypes. */
	{
		struct agent_opts o = { .nsizes = 2, .ndtypes = 3 };

		assert_int_equal(gemm_count(2, &o), 12);
		assert_int_equal(gemm_count(0, &o), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_header_and_seq),
		cmocka_unit_test(test_check_records_and_counts),
		cmocka_unit_test(test_gemm_counts),
		cmocka_unit_test(test_human_rendering),
		cmocka_unit_test(test_human_host),
		cmocka_unit_test(test_device_labels_and_backends),
		cmocka_unit_test(test_ratios),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
