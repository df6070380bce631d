/*
 * Unit tests for common/schema.c, the reader side of the agent's NDJSON
 * stream: it must accept what the agent writes and reject, with the right
 * error, anything else: not JSON ("127.0.0.1 x" must not parse as the
 * number 127.0), trailing garbage, wrong schema version, unknown type,
 * each required field missing or of the wrong JSON type, an unknown
 * status, a non-object, an over-long line (docs/schema.json's other
 * rules: tests/agent/test_schema_json.py).
 *
 * The accepted records are of two kinds: lines captured verbatim from
 * `agent --size 64 --device all --iters 2 --warmup 1 --dtypes fp32,fp16`
 * (on a machine with the CUDA runtime but no GPU), and records that the
 * agent's own writers (report.c, check_limits.c, check_tensor.c, gemm.c)
 * produce in this process.
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

#include "checks/checks.h"
#include "core/report.h"
#include "record.h"
#include "schema.h"
#include "workloads/bandwidth.h"
#include "workloads/batching.h"
#include "workloads/gemm.h"

static const char *const real_lines[] = {
	"{\"schema\":1,\"type\":\"host\",\"seq\":0,\"agent\":{\"version\":\"0.1.0\",\"source_hash\":\"02e497679ff47c98\"},\"hostname\":\"vm\",\"os\":\"Debian GNU/Linux 12 (bookworm)\",\"kernel\":\"6.18.44-fc-v669\",\"arch\":\"x86_64\",\"cpu_model\":\"Intel(R) Xeon(R) Processor\",\"cpu_cores\":2,\"memory_bytes\":25276502016,\"openblas\":{\"version\":\"0.3.21\",\"core\":\"Prescott\",\"threads\":2,\"config\":\"OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64\",\"sbgemm\":false,\"shgemm\":false,\"env\":{\"OPENBLAS_CORETYPE\":null,\"OPENBLAS_L2_SIZE\":null,\"OPENBLAS_NUM_THREADS\":null,\"OMP_NUM_THREADS\":null}},\"cuda\":{\"driver_version\":null,\"driver_cuda_version\":null,\"runtime_version\":\"13.0\",\"cublas_version\":\"13.1.0\",\"NVIDIA_TF32_OVERRIDE\":null,\"status\":\"skipped\",\"reason\":\"no usable CUDA device: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version\"},\"gpus\":[],\"options\":{\"sizes\":[64],\"dtypes\":[\"fp32\",\"fp16\"],\"iters\":2,\"cpu_iters\":2,\"warmup\":1,\"seed\":1}}",
	"{\"schema\":1,\"type\":\"plan\",\"seq\":1,\"devices\":[{\"device\":\"cpu\",\"status\":\"pass\",\"reason\":null},{\"device\":\"cuda:0\",\"status\":\"skipped\",\"reason\":\"no usable CUDA device: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version\"}],\"checks_total\":23,\"gemm_total\":4}",
	"{\"schema\":1,\"type\":\"float_limits\",\"seq\":3,\"dtype\":\"fp16\",\"bits\":16,\"exponent_bits\":5,\"mantissa_bits\":10,\"max\":65504,\"eps\":0.0009765625,\"smallest_normal\":6.103515625e-05,\"smallest_subnormal\":5.9604644775390625e-08}",
	"{\"schema\":1,\"type\":\"check\",\"seq\":20,\"name\":\"add.elementwise\",\"device\":\"cpu\",\"status\":\"pass\",\"expected\":{\"shape\":[3],\"values\":[11,22,33]},\"got\":{\"shape\":[3],\"values\":[11,22,33]},\"reason\":null}",
	"{\"schema\":1,\"type\":\"check\",\"seq\":28,\"name\":\"device.available\",\"device\":\"cuda:0\",\"status\":\"skipped\",\"expected\":true,\"got\":false,\"reason\":\"no usable CUDA device: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version\"}",
	"{\"schema\":1,\"type\":\"gemm\",\"seq\":29,\"device\":\"cpu\",\"dtype\":\"fp32\",\"n\":64,\"status\":\"pass\",\"reason\":null,\"library\":\"OpenBLAS 0.3.21\",\"math_mode\":\"cblas_sgemm\",\"c_dtype\":\"fp32\",\"warmup\":1,\"iters\":2,\"samples_ms\":[0.021715,0.021848],\"median_ms\":0.0217815,\"min_ms\":0.021715,\"max_ms\":0.021848,\"gflops\":24.070334917246285,\"peak_mib\":0.04296875,\"operand_bytes\":49152,\"max_rel_error\":1.5720381120734936e-07,\"tolerance\":1e-05,\"verified_elements\":4096,\"nonfinite_elements\":0}",
	"{\"schema\":1,\"type\":\"gemm\",\"seq\":30,\"device\":\"cpu\",\"dtype\":\"fp16\",\"n\":64,\"status\":\"skipped\",\"reason\":\"fp16: this OpenBLAS (OpenBLAS 0.3.21) has no cblas_shgemm\",\"median_ms\":null,\"gflops\":null}",
	"{\"schema\":1,\"type\":\"summary\",\"seq\":33,\"ratios\":[],\"checks_passed\":22,\"checks_failed\":0,\"checks_skipped\":1,\"gemm_passed\":1,\"gemm_failed\":0,\"gemm_skipped\":3,\"exit_status\":0,\"wall_ms\":159.84686}",
};
#define N_REAL (sizeof(real_lines) / sizeof(real_lines[0]))

/* The fields each record type must carry and their JSON types, written
 * from docs/schema.md, independently of the rule tables in schema.c. */
enum kind { K_STRING, K_NUMBER, K_OBJECT, K_ARRAY, K_ANY };

struct required {
	const char *type;
	const char *key;
	enum kind kind;
	int nullable;
};

static const struct required required_fields[] = {
	{ "host", "hostname", K_STRING, 1 },
	{ "host", "arch", K_STRING, 1 },
	{ "host", "agent", K_OBJECT, 0 },
	{ "host", "openblas", K_OBJECT, 0 },
	{ "host", "cuda", K_OBJECT, 0 },
	{ "host", "gpus", K_ARRAY, 0 },
	{ "plan", "devices", K_ARRAY, 0 },
	{ "plan", "checks_total", K_NUMBER, 0 },
	{ "plan", "gemm_total", K_NUMBER, 0 },
	{ "check", "name", K_STRING, 0 },
	{ "check", "device", K_STRING, 0 },
	{ "check", "status", K_STRING, 0 },
	{ "check", "expected", K_ANY, 1 },
	{ "check", "got", K_ANY, 1 },
	{ "float_limits", "dtype", K_STRING, 0 },
	{ "float_limits", "bits", K_NUMBER, 0 },
	{ "float_limits", "max", K_NUMBER, 0 },
	{ "float_limits", "eps", K_NUMBER, 0 },
	{ "float_limits", "smallest_normal", K_NUMBER, 0 },
	{ "gemm", "device", K_STRING, 0 },
	{ "gemm", "dtype", K_STRING, 0 },
	{ "gemm", "n", K_NUMBER, 0 },
	{ "gemm", "status", K_STRING, 0 },
	{ "gemm", "median_ms", K_NUMBER, 1 },
	{ "gemm", "gflops", K_NUMBER, 0 }, /* null but for pass: this one's */
	{ "summary", "checks_passed", K_NUMBER, 0 },
	{ "summary", "checks_failed", K_NUMBER, 0 },
	{ "summary", "gemm_passed", K_NUMBER, 0 },
	{ "summary", "gemm_failed", K_NUMBER, 0 },
	{ "summary", "exit_status", K_NUMBER, 0 },
	{ "summary", "ratios", K_ARRAY, 0 },
};

static enum bf_err parse_line(const char *line, cJSON **rec,
			      enum bf_record_type *type, char *detail,
			      size_t len)
{
	detail[0] = '\0';
	return bf_schema_parse_record(line, strlen(line), rec, type, detail, len);
}

/* Rejects line with want; *out must stay NULL; detail must contain
 * needle (when given). */
static void expect_reject(const char *line, enum bf_err want,
			  const char *needle)
{
	cJSON *rec = (cJSON *)&rec;
	enum bf_record_type type;
	char detail[256];
	enum bf_err err = parse_line(line, &rec, &type, detail, sizeof(detail));

	if (err != want)
		fail_msg("%.120s: got error %d (%s), want %d", line, err,
			 detail, want);
	assert_null(rec);
	if (needle && !strstr(detail, needle))
		fail_msg("%.120s: detail \"%s\" lacks \"%s\"", line, detail,
			 needle);
}

static void expect_accept(const char *line, enum bf_record_type want_type)
{
	cJSON *rec = NULL;
	enum bf_record_type type;
	char detail[256];

	if (parse_line(line, &rec, &type, detail, sizeof(detail)) != BF_OK)
		fail_msg("rejected: %s\n  line: %.200s", detail, line);
	assert_non_null(rec);
	assert_int_equal(type, want_type);
	cJSON_Delete(rec);
}

static enum bf_record_type type_of(const char *line)
{
	cJSON *o = cJSON_Parse(line);
	enum bf_record_type t;

	assert_non_null(o);
	assert_int_equal(bf_schema_type_parse(
		cJSON_GetObjectItemCaseSensitive(o, "type")->valuestring, &t), 0);
	cJSON_Delete(o);
	return t;
}

static void test_accepts_real_agent_lines(void **state)
{
	for (size_t i = 0; i < N_REAL; i++)
		expect_accept(real_lines[i], type_of(real_lines[i]));
}

/* Each captured line decodes into its typed record (record.h), and every
 * type encodes back to the same JSON: same keys, same values, in order;
 * but the host record, captured from an older agent (no cjson, env or
 * openblas.core_replaced), which encodes in today's layout: its fields
 * and options are checked (test_record.c's host lines are today's and
 * round-trip byte for byte). */
static void test_real_lines_decode_and_reencode(void **state)
{
	for (size_t i = 0; i < N_REAL; i++) {
		cJSON *orig = cJSON_Parse(real_lines[i]), *again;
		struct bf_record rec;
		char detail[256], *a, *b;
		const cJSON *k;

		assert_int_equal(bf_record_parse(real_lines[i], strlen(real_lines[i]),
						 &rec, detail, sizeof(detail)),
				 BF_OK);
		assert_int_equal(rec.type, type_of(real_lines[i]));
		assert_int_equal(rec.seq,
				 cJSON_GetObjectItem(orig, "seq")->valueint);
		if (rec.type == BF_REC_HOST) {
			const struct bf_rec_host *h = &rec.u.host;

			assert_string_equal(h->hostname, "vm");
			assert_string_equal(h->arch, "x86_64");
			assert_non_null(h->agent_source_hash);
			assert_non_null(h->openblas_version);
			assert_int_equal(h->ngpus, 0);
			assert_true(h->options.present);
			assert_string_equal(h->cuda_cublas_version, "13.1.0");
			assert_true(h->cuda_libraries);
			assert_null(h->cjson_version);
			/* Every key this older agent wrote but the two
			 * objects whose layout grew since (openblas and
			 * cuda) encodes back to the same value. */
			again = bf_record_encode(&rec);
			cJSON_ArrayForEach(k, orig) {
				if (strcmp(k->string, "openblas") == 0 ||
				    strcmp(k->string, "cuda") == 0)
					continue;
				if (!cJSON_Compare(k, cJSON_GetObjectItem(again, k->string), 1))
					fail_msg("host key %s differs", k->string);
			}
		} else {
			again = bf_record_encode(&rec);
			a = cJSON_PrintUnformatted(orig);
			b = cJSON_PrintUnformatted(again);
			assert_string_equal(b, a); /* byte for byte, in order */
			free(a);
			free(b);
		}
		cJSON_Delete(again);
		cJSON_Delete(orig);
		bf_record_free(&rec);
	}
}

/* Runs the agent's own writers into a memory stream and checks that the
 * reader accepts every line they produce. */
static void test_accepts_records_written_in_process(void **state)
{
	static const struct device cpu = { DEVICE_CPU, 0 };
	struct sweep_device devs[2] = {
		{ { DEVICE_CPU, 0 }, 1, "", NULL, NAN },
		{ { DEVICE_CUDA, 0 }, 0, "no CUDA device found", NULL, NAN },
	};
	struct agent_opts o = { .sizes = { 16 }, .nsizes = 1,
				.dtypes = { BF_DTYPE_FP32, BF_DTYPE_BF16 },
				.ndtypes = 2, .iters = 2, .warmup = 1,
				.cpu_iters = 2, .seed = 1, .transfer_mib = 1,
				.bandwidth_mib = 1 };
	struct gemm_sweep sweep = { NULL, 0 };
	char *buf = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct report r = { .out = f };
	int lines = 0, gemms = 0, bws = 0, batchings = 0;
	struct bf_record sum;

	assert_non_null(f);
	checks_run_limits(&r);
	checks_run_device(&r, &cpu, &o);
	bandwidth_run(&r, devs, 2, &o);
	gemm_sweep_run(&r, devs, 2, &o, &sweep);
	batching_run(&r, devs, 2, &o);
	bf_record_init(&sum, BF_REC_SUMMARY);
	gemm_ratios(&sweep, &sum.u.summary);
	sum.u.summary.checks_passed = r.checks[0];
	sum.u.summary.checks_failed = r.checks[1];
	sum.u.summary.gemm_passed = r.gemms[0];
	sum.u.summary.gemm_failed = r.gemms[1];
	sum.u.summary.exit_status = 0;
	report_emit_record(&r, &sum);
	bf_record_free(&sum);
	fclose(f);

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		enum bf_record_type t = type_of(line);

		expect_accept(line, t);
		gemms += t == BF_REC_GEMM;
		bws += t == BF_REC_BANDWIDTH;
		batchings += t == BF_REC_BATCHING;
		lines++;
	}
	/* 4 float_limits + 3 limit checks + the CPU's tensor checks, then
	 * 2 devices x 1 size x 2 dtypes gemm records, then the summary. */
	assert_int_equal(gemms, 4);
	/* The CPU's triad and the skipped GPU's five copies; one batching
	 * record per device. */
	assert_int_equal(bws, bandwidth_count(devs, 2));
	assert_int_equal(bws, 1 + 5);
	assert_int_equal(batchings, 2);
	assert_int_equal(lines, 4 + 3 + checks_count(&cpu) + 6 + 4 + 2 + 1);
	assert_int_equal(r.checks[BF_STATUS_FAIL], 0);
	assert_int_equal(r.bandwidths[BF_STATUS_PASS], 1);
	assert_int_equal(r.bandwidths[BF_STATUS_SKIPPED], 5);
	assert_int_equal(r.batchings[BF_STATUS_PASS], 1);
	assert_int_equal(r.batchings[BF_STATUS_SKIPPED], 1);
	gemm_sweep_free(&sweep);
	free(buf);
}

static void test_rejects_non_json(void **state)
{
	expect_reject("127.0.0.1 x", BF_ERR_PARSE, NULL);
	expect_reject("", BF_ERR_PARSE, NULL);
	expect_reject("{", BF_ERR_PARSE, NULL);
	expect_reject("{\"schema\":1,\"type\":\"plan\"", BF_ERR_PARSE, NULL);
	/* A valid record followed by anything but whitespace. */
	expect_reject("{\"schema\":1,\"type\":\"summary\",\"seq\":3,"
		      "\"ratios\":[],\"checks_passed\":0,\"checks_failed\":0,"
		      "\"gemm_passed\":0,\"gemm_failed\":0,\"exit_status\":0} x",
		      BF_ERR_PARSE, NULL);
	expect_reject("{\"schema\":1}{\"schema\":1}", BF_ERR_PARSE, NULL);
}

static void test_rejects_non_object(void **state)
{
	expect_reject("127", BF_ERR_SCHEMA, "not a JSON object");
	expect_reject("[1,2]", BF_ERR_SCHEMA, "not a JSON object");
	expect_reject("\"host\"", BF_ERR_SCHEMA, "not a JSON object");
	expect_reject("null", BF_ERR_SCHEMA, "not a JSON object");
}

/* Parses real line i, lets edit change it, and returns the new line
 * (caller frees). */
static char *edited(const char *line, void (*edit)(cJSON *, const void *),
		    const void *arg)
{
	cJSON *o = cJSON_Parse(line);
	char *s;

	assert_non_null(o);
	edit(o, arg);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static void set_schema(cJSON *o, const void *arg)
{
	cJSON *v = *(cJSON *const *)arg;

	cJSON_ReplaceItemInObjectCaseSensitive(o, "schema", cJSON_Duplicate(v, 1));
}

static void drop_schema(cJSON *o, const void *arg)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, "schema");
}

static void test_rejects_wrong_schema_version(void **state)
{
	cJSON *bad[] = { cJSON_CreateNumber(2), cJSON_CreateNumber(0),
			 cJSON_CreateNumber(1.5), cJSON_CreateString("1"),
			 cJSON_CreateNull(), cJSON_CreateTrue() };
	char *s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (size_t j = 0; j < N_REAL; j++) {
			s = edited(real_lines[j], set_schema, &bad[i]);
			expect_reject(s, BF_ERR_SCHEMA, "schema version");
			free(s);
		}
		cJSON_Delete(bad[i]);
	}
	s = edited(real_lines[0], drop_schema, NULL);
	expect_reject(s, BF_ERR_SCHEMA, "schema version");
	free(s);
}

static void set_type(cJSON *o, const void *arg)
{
	const char *t = arg;

	if (t)
		cJSON_ReplaceItemInObjectCaseSensitive(o, "type",
						       cJSON_CreateString(t));
	else
		cJSON_ReplaceItemInObjectCaseSensitive(o, "type",
						       cJSON_CreateNumber(4));
}

static void test_rejects_unknown_type(void **state)
{
	static const char *const bad[] = { "gemms", "Host", "", "result" };
	char *s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = edited(real_lines[5], set_type, bad[i]);
		expect_reject(s, BF_ERR_SCHEMA, "record type");
		free(s);
	}
	s = edited(real_lines[5], set_type, NULL); /* a number */
	expect_reject(s, BF_ERR_SCHEMA, "record type");
	free(s);
	expect_reject("{\"schema\":1}", BF_ERR_SCHEMA, "record type");
}

struct field_edit {
	const char *key;
	cJSON *value; /* NULL: delete the key */
};

static void edit_field(cJSON *o, const void *arg)
{
	const struct field_edit *e = arg;

	if (!e->value)
		cJSON_DeleteItemFromObjectCaseSensitive(o, e->key);
	else
		cJSON_ReplaceItemInObjectCaseSensitive(
			o, e->key, cJSON_Duplicate(e->value, 1));
}

static const char *real_line_of_type(const char *type)
{
	char needle[64];

	snprintf(needle, sizeof(needle), "\"type\":\"%s\"", type);
	for (size_t i = 0; i < N_REAL; i++)
		if (strstr(real_lines[i], needle))
			return real_lines[i];
	fail_msg("no real line of type %s", type);
	return NULL;
}

static int kind_ok(const cJSON *v, const struct required *rq)
{
	switch (rq->kind) {
	case K_STRING: return cJSON_IsString(v);
	case K_NUMBER: return cJSON_IsNumber(v);
	case K_OBJECT: return cJSON_IsObject(v);
	case K_ARRAY: return cJSON_IsArray(v);
	case K_ANY: return 1;
	}
	return 0;
}

static void test_rejects_missing_or_wrong_typed_fields(void **state)
{
	cJSON *values[] = { cJSON_CreateString("x"), cJSON_CreateNumber(1),
			    cJSON_CreateObject(), cJSON_CreateArray(),
			    cJSON_CreateTrue(), cJSON_CreateNull() };
	size_t nv = sizeof(values) / sizeof(values[0]);

	for (size_t i = 0;
	     i < sizeof(required_fields) / sizeof(required_fields[0]); i++) {
		const struct required *rq = &required_fields[i];
		const char *line = real_line_of_type(rq->type);
		struct field_edit e = { rq->key, NULL };
		char needle[96];
		char *s;

		snprintf(needle, sizeof(needle), "\"%s\" is missing", rq->key);
		s = edited(line, edit_field, &e);
		expect_reject(s, BF_ERR_SCHEMA, needle);
		free(s);
		/* Each JSON type in the field's place: null where nullable
		 * and anything for "any" is accepted, another JSON type
		 * rejected as such. A value of the field's own type may be
		 * refused for what it holds ("x" is no device, {} no agent
		 * object): docs/schema.json's business, which
		 * tests/agent/test_schema_json.py holds the reader to. */
		for (size_t w = 0; w < nv; w++) {
			cJSON *v = values[w];
			int ok = (cJSON_IsNull(v) && rq->nullable) ||
				 rq->kind == K_ANY;

			if (kind_ok(v, rq) && !ok)
				continue;
			e.value = v;
			s = edited(line, edit_field, &e);
			if (ok) {
				expect_accept(s, type_of(line));
			} else {
				snprintf(needle, sizeof(needle),
					 "\"%s\" has the wrong type", rq->key);
				expect_reject(s, BF_ERR_SCHEMA, needle);
			}
			free(s);
		}
	}
	for (size_t w = 0; w < nv; w++)
		cJSON_Delete(values[w]);
}

/* edited()'s edit: "env" (a host record's) set to arg. */
static void set_env(cJSON *o, const void *arg)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, "env");
	cJSON_AddItemToObject(o, "env", cJSON_Duplicate(arg, 1));
}

/* A field's path in the message is whole (issue 28): a 300-byte env
 * name under "env" was cut at 255 bytes with nothing to say so. */
static void test_long_path_whole(void **state)
{
	const char *line = real_line_of_type("host");
	char name[301], want[400], detail[4096];
	cJSON *env = cJSON_CreateObject(), *rec = NULL;
	enum bf_record_type type;
	char *s;

	(void)state;
	memset(name, 'N', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	cJSON_AddNumberToObject(env, name, 5);
	s = edited(line, set_env, env);
	assert_int_equal(parse_line(s, &rec, &type, detail, sizeof(detail)),
			 BF_ERR_SCHEMA);
	assert_null(rec);
	snprintf(want, sizeof(want), "host record: field \"env.%s\" ", name);
	if (!strstr(detail, want))
		fail_msg("detail \"%s\" lacks the whole path", detail);
	free(s);
	cJSON_Delete(env);
}

static void test_nullable_fields(void **state)
{
	/* A skipped gemm record has null timings; a host may have a null
	 * hostname; both are accepted. */
	cJSON *null = cJSON_CreateNull();
	struct field_edit e = { "hostname", null };
	char *s = edited(real_lines[0], edit_field, &e);

	expect_accept(s, BF_REC_HOST);
	free(s);
	expect_accept(real_lines[6], BF_REC_GEMM);
	cJSON_Delete(null);
}

static void test_rejects_bad_status(void **state)
{
	cJSON *bad[] = { cJSON_CreateString("ok"), cJSON_CreateString("PASS"),
			 cJSON_CreateString(""), cJSON_CreateString("passed") };
	struct field_edit e = { "status", NULL };
	char *s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.value = bad[i];
		s = edited(real_lines[3], edit_field, &e); /* check */
		expect_reject(s, BF_ERR_SCHEMA,
			      "expected one of pass, fail, skipped");
		free(s);
		s = edited(real_lines[5], edit_field, &e); /* gemm */
		expect_reject(s, BF_ERR_SCHEMA,
			      "expected one of pass, fail, skipped");
		free(s);
		cJSON_Delete(bad[i]);
	}
}

static void test_line_length_limit(void **state)
{
	/* A valid record padded with spaces to exactly the limit is
	 * accepted; one byte more is refused before parsing. */
	const char *rec = real_lines[1];
	size_t len = strlen(rec), max = BF_RECORD_MAX_BYTES;
	char *line = malloc(max + 2);
	cJSON *out = (cJSON *)&out;
	enum bf_record_type t;
	char detail[256];

	memcpy(line, rec, len);
	memset(line + len, ' ', max + 1 - len);
	line[max] = '\0';
	assert_int_equal(bf_schema_parse_record(line, max, &out, &t, detail,
					     sizeof(detail)),
			 BF_OK);
	cJSON_Delete(out);
	line[max] = ' ';
	line[max + 1] = '\0';
	out = (cJSON *)&out;
	assert_int_equal(bf_schema_parse_record(line, max + 1, &out, &t, detail,
					     sizeof(detail)),
			 BF_ERR_SCHEMA);
	assert_null(out);
	assert_non_null(strstr(detail, "too long"));
	/* A length that does not end at the NUL is refused too. */
	out = (cJSON *)&out;
	assert_int_equal(bf_schema_parse_record(rec, len - 1, &out, &t, detail,
					     sizeof(detail)),
			 BF_ERR_PARSE);
	assert_null(out);
	free(line);
}

static void test_names(void **state)
{
	static const char *const types[] = { "host", "plan", "check",
					     "float_limits", "gemm", "summary",
					     "bandwidth", "batching" };
	enum bf_record_type t;
	enum bf_status s;

	for (int i = 0; i < BF_REC__COUNT; i++) {
		assert_string_equal(bf_schema_type_name((enum bf_record_type)i),
				    types[i]);
		assert_int_equal(bf_schema_type_parse(types[i], &t), 0);
		assert_int_equal(t, i);
	}
	assert_int_equal(bf_schema_type_parse("nope", &t), -1);
	assert_string_equal(bf_schema_type_name(BF_REC__COUNT), "unknown");
	assert_string_equal(bf_schema_status_name(BF_STATUS_PASS), "pass");
	assert_string_equal(bf_schema_status_name(BF_STATUS_FAIL), "fail");
	assert_string_equal(bf_schema_status_name(BF_STATUS_SKIPPED), "skipped");
	assert_int_equal(bf_schema_status_parse("skipped", &s), 0);
	assert_int_equal(s, BF_STATUS_SKIPPED);
	assert_int_equal(bf_schema_status_parse("Skipped", &s), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_real_agent_lines),
		cmocka_unit_test(test_accepts_records_written_in_process),
		cmocka_unit_test(test_rejects_non_json),
		cmocka_unit_test(test_rejects_non_object),
		cmocka_unit_test(test_rejects_wrong_schema_version),
		cmocka_unit_test(test_rejects_unknown_type),
		cmocka_unit_test(test_rejects_missing_or_wrong_typed_fields),
		cmocka_unit_test(test_nullable_fields),
		cmocka_unit_test(test_rejects_bad_status),
		cmocka_unit_test(test_line_length_limit),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_long_path_whole),
		cmocka_unit_test(test_real_lines_decode_and_reencode),
	};

	return cmocka_run_group_tests_name("schema", tests, NULL, NULL);
}
