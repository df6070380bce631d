/*
 * Record names and the reader-side validation of agent output. The rules
 * are a table per record type (key, JSON type, required), so the validator
 * and docs/schema.md can be compared line by line.
 */
#include "schema.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "agent_opts.h"

static const char *const type_names[BF_REC__COUNT] = {
	[BF_REC_HOST] = BF_TYPE_HOST,
	[BF_REC_PLAN] = BF_TYPE_PLAN,
	[BF_REC_CHECK] = BF_TYPE_CHECK,
	[BF_REC_FLOAT_LIMITS] = BF_TYPE_FLOAT_LIMITS,
	[BF_REC_GEMM] = BF_TYPE_GEMM,
	[BF_REC_SUMMARY] = BF_TYPE_SUMMARY,
	[BF_REC_BANDWIDTH] = BF_TYPE_BANDWIDTH,
	[BF_REC_BATCHING] = BF_TYPE_BATCHING,
};

static const char *const status_names[] = {
	[BF_STATUS_PASS] = BF_STATUS_PASS_STR,
	[BF_STATUS_FAIL] = BF_STATUS_FAIL_STR,
	[BF_STATUS_SKIPPED] = BF_STATUS_SKIPPED_STR,
};

const char *bf_schema_type_name(enum bf_record_type t)
{
	if ((int)t < 0 || t >= BF_REC__COUNT)
		return "unknown";
	return type_names[t];
}

int bf_schema_type_parse(const char *name, enum bf_record_type *out)
{
	for (int i = 0; i < BF_REC__COUNT; i++) {
		if (strcmp(name, type_names[i]) == 0) {
			*out = (enum bf_record_type)i;
			return 0;
		}
	}
	return -1;
}

const char *bf_schema_status_name(enum bf_status s)
{
	if ((int)s < 0 || s > BF_STATUS_SKIPPED)
		return "unknown";
	return status_names[s];
}

int bf_schema_status_parse(const char *name, enum bf_status *out)
{
	for (int i = 0; i <= BF_STATUS_SKIPPED; i++) {
		if (strcmp(name, status_names[i]) == 0) {
			*out = (enum bf_status)i;
			return 0;
		}
	}
	return -1;
}

/* JSON types a field may have; NULLABLE adds null to the allowed set. */
enum field_kind { F_STRING = 1, F_NUMBER = 2, F_OBJECT = 4, F_ARRAY = 8,
		  F_BOOL = 16, F_ANY = 32, F_NULLABLE = 64 };

struct field_rule {
	const char *key;
	int kinds;
};

static const struct field_rule host_rules[] = {
	{ BF_KEY_HOSTNAME, F_STRING | F_NULLABLE },
	{ BF_KEY_ARCH, F_STRING | F_NULLABLE },
	{ BF_KEY_AGENT, F_OBJECT },
	{ BF_KEY_OPENBLAS, F_OBJECT },
	{ BF_KEY_CUDA, F_OBJECT },
	{ BF_KEY_GPUS, F_ARRAY },
	{ NULL, 0 },
};
static const struct field_rule plan_rules[] = {
	{ BF_KEY_DEVICES, F_ARRAY },
	{ BF_KEY_CHECKS_TOTAL, F_NUMBER },
	{ BF_KEY_GEMM_TOTAL, F_NUMBER },
	{ NULL, 0 },
};
static const struct field_rule check_rules[] = {
	{ BF_KEY_NAME, F_STRING },
	{ BF_KEY_DEVICE, F_STRING },
	{ BF_KEY_STATUS, F_STRING },
	{ BF_KEY_EXPECTED, F_ANY },
	{ BF_KEY_GOT, F_ANY },
	{ NULL, 0 },
};
static const struct field_rule limits_rules[] = {
	{ BF_KEY_DTYPE, F_STRING },
	{ BF_KEY_BITS, F_NUMBER },
	{ BF_KEY_MAX, F_NUMBER },
	{ BF_KEY_EPS, F_NUMBER },
	{ BF_KEY_SMALLEST_NORMAL, F_NUMBER },
	{ NULL, 0 },
};
static const struct field_rule gemm_rules[] = {
	{ BF_KEY_DEVICE, F_STRING },
	{ BF_KEY_DTYPE, F_STRING },
	{ BF_KEY_N, F_NUMBER },
	{ BF_KEY_STATUS, F_STRING },
	{ BF_KEY_MEDIAN_MS, F_NUMBER | F_NULLABLE },
	{ BF_KEY_GFLOPS, F_NUMBER | F_NULLABLE },
	{ NULL, 0 },
};
static const struct field_rule summary_rules[] = {
	{ BF_KEY_CHECKS_PASSED, F_NUMBER },
	{ BF_KEY_CHECKS_FAILED, F_NUMBER },
	{ BF_KEY_GEMM_PASSED, F_NUMBER },
	{ BF_KEY_GEMM_FAILED, F_NUMBER },
	{ BF_KEY_EXIT_STATUS, F_NUMBER },
	{ BF_KEY_RATIOS, F_ARRAY },
	{ NULL, 0 },
};
static const struct field_rule bandwidth_rules[] = {
	{ BF_KEY_DEVICE, F_STRING },
	{ BF_KEY_KIND, F_STRING },
	{ BF_KEY_STATUS, F_STRING },
	{ BF_KEY_MEDIAN_GBPS, F_NUMBER | F_NULLABLE },
	{ NULL, 0 },
};
static const struct field_rule batching_rules[] = {
	{ BF_KEY_DEVICE, F_STRING },
	{ BF_KEY_DTYPE, F_STRING },
	{ BF_KEY_STATUS, F_STRING },
	{ BF_KEY_SPEEDUP, F_NUMBER | F_NULLABLE },
	{ NULL, 0 },
};

static const struct field_rule *const rules_by_type[BF_REC__COUNT] = {
	[BF_REC_HOST] = host_rules,
	[BF_REC_PLAN] = plan_rules,
	[BF_REC_CHECK] = check_rules,
	[BF_REC_FLOAT_LIMITS] = limits_rules,
	[BF_REC_GEMM] = gemm_rules,
	[BF_REC_SUMMARY] = summary_rules,
	[BF_REC_BANDWIDTH] = bandwidth_rules,
	[BF_REC_BATCHING] = batching_rules,
};

/*
 * Integer fields and the values they may take. A reader stores each in an
 * int or a double; a value outside its range, or not a whole number, makes
 * the record malformed instead of reaching a cast (a double outside int's
 * range converted to int is undefined behaviour, C11 6.3.1.4). Doubles hold
 * integers exactly only up to 2^53, so no field accepts more than
 * BF_JSON_INT_MAX: the agent writes none that large, and a larger one could
 * have been rounded by the JSON reader already.
 *
 * path: keys from the record down to the field; at an array every element
 * is checked (gpus[].index, options.sizes[]). Absent and null fields are
 * left to the type rules above; a value of another JSON type is left to
 * the decoder, which reads it as absent.
 */
struct int_rule {
	const char *path[3];
	double min, max;
};

#define INT_RULES_END { { NULL }, 0, 0 }
#define COUNT_MAX ((double)INT_MAX)

static const struct int_rule envelope_ints[] = {
	{ { BF_KEY_SEQ }, 0, COUNT_MAX },
	INT_RULES_END,
};
static const struct int_rule host_ints[] = {
	{ { BF_KEY_CPU_CORES }, 0, COUNT_MAX },
	{ { BF_KEY_MEMORY_BYTES }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_OPENBLAS, BF_KEY_THREADS }, 0, COUNT_MAX },
	{ { BF_KEY_GPUS, BF_KEY_INDEX }, 0, COUNT_MAX },
	{ { BF_KEY_GPUS, BF_KEY_SM_COUNT }, -1, COUNT_MAX },
	{ { BF_KEY_GPUS, BF_KEY_MEMORY_BYTES }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_OPTIONS, BF_KEY_SIZES }, 1, BF_AGENT_MAX_N },
	{ { BF_KEY_OPTIONS, BF_KEY_ITERS }, 1, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_OPTIONS, BF_KEY_CPU_ITERS }, 1, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_OPTIONS, BF_KEY_WARMUP }, 0, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_OPTIONS, BF_KEY_CPU_WARMUP }, 0, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_OPTIONS, BF_KEY_SEED }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_OPTIONS, BF_KEY_BANDWIDTH_MIB }, 1, 65536 },
	INT_RULES_END,
};
static const struct int_rule plan_ints[] = {
	{ { BF_KEY_CHECKS_TOTAL }, 0, COUNT_MAX },
	{ { BF_KEY_GEMM_TOTAL }, 0, COUNT_MAX },
	{ { BF_KEY_BANDWIDTH_TOTAL }, 0, COUNT_MAX },
	{ { BF_KEY_BATCHING_TOTAL }, 0, COUNT_MAX },
	INT_RULES_END,
};
static const struct int_rule check_ints[] = {
	{ { BF_KEY_METRICS, BF_KEY_BYTES }, 0, BF_JSON_INT_MAX },
	INT_RULES_END,
};
static const struct int_rule limits_ints[] = {
	{ { BF_KEY_BITS }, 1, 128 },
	{ { BF_KEY_EXPONENT_BITS }, 0, 128 },
	{ { BF_KEY_MANTISSA_BITS }, 0, 128 },
	INT_RULES_END,
};
static const struct int_rule gemm_ints[] = {
	{ { BF_KEY_N }, 1, BF_AGENT_MAX_N },
	{ { BF_KEY_WARMUP }, 0, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_ITERS }, 1, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_OPERAND_BYTES }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_VERIFY_SEED }, 0, 281474976710655.0 /* 2^48 - 1 */ },
	{ { BF_KEY_VERIFIED_ELEMENTS }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_NONFINITE_ELEMENTS }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_NEEDED_BYTES }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_FREE_BYTES }, 0, BF_JSON_INT_MAX },
	INT_RULES_END,
};
static const struct int_rule summary_ints[] = {
	{ { BF_KEY_CHECKS_PASSED }, 0, COUNT_MAX },
	{ { BF_KEY_CHECKS_FAILED }, 0, COUNT_MAX },
	{ { BF_KEY_CHECKS_SKIPPED }, 0, COUNT_MAX },
	{ { BF_KEY_GEMM_PASSED }, 0, COUNT_MAX },
	{ { BF_KEY_GEMM_FAILED }, 0, COUNT_MAX },
	{ { BF_KEY_GEMM_SKIPPED }, 0, COUNT_MAX },
	{ { BF_KEY_EXIT_STATUS }, 0, 255 },
	{ { BF_KEY_RATIOS, BF_KEY_N }, 1, BF_AGENT_MAX_N },
	{ { BF_KEY_BANDWIDTH_PASSED }, 0, COUNT_MAX },
	{ { BF_KEY_BANDWIDTH_FAILED }, 0, COUNT_MAX },
	{ { BF_KEY_BANDWIDTH_SKIPPED }, 0, COUNT_MAX },
	{ { BF_KEY_BATCHING_PASSED }, 0, COUNT_MAX },
	{ { BF_KEY_BATCHING_FAILED }, 0, COUNT_MAX },
	{ { BF_KEY_BATCHING_SKIPPED }, 0, COUNT_MAX },
	INT_RULES_END,
};
static const struct int_rule bandwidth_ints[] = {
	{ { BF_KEY_ARRAY_BYTES }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_BYTES }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_THREADS }, 1, COUNT_MAX },
	{ { BF_KEY_WARMUP }, 0, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_ITERS }, 1, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_NEEDED_BYTES }, 0, BF_JSON_INT_MAX },
	{ { BF_KEY_FREE_BYTES }, 0, BF_JSON_INT_MAX },
	INT_RULES_END,
};
static const struct int_rule batching_ints[] = {
	{ { BF_KEY_LAYERS }, 1, 65536 },
	{ { BF_KEY_ROWS }, 1, 65536 },
	{ { BF_KEY_FEATURES }, 1, 65536 },
	{ { BF_KEY_WARMUP }, 0, BF_AGENT_MAX_ITERS },
	{ { BF_KEY_ITERS }, 1, BF_AGENT_MAX_ITERS },
	INT_RULES_END,
};

static const struct int_rule *const ints_by_type[BF_REC__COUNT] = {
	[BF_REC_HOST] = host_ints,
	[BF_REC_PLAN] = plan_ints,
	[BF_REC_CHECK] = check_ints,
	[BF_REC_FLOAT_LIMITS] = limits_ints,
	[BF_REC_GEMM] = gemm_ints,
	[BF_REC_SUMMARY] = summary_ints,
	[BF_REC_BANDWIDTH] = bandwidth_ints,
	[BF_REC_BATCHING] = batching_ints,
};

int bf_schema_int_ok(double v, double min, double max)
{
	/* NaN fails every comparison; floor() of an in-range value is exact. */
	return v >= min && v <= max && v == floor(v);
}

/* Checks the field at path[depth..] under v; 0 when it is absent, null,
 * not a number or in range, else -1 with *bad set to the offending value. */
static int check_int_path(const cJSON *v, const struct int_rule *r, int depth,
			  double *bad)
{
	const cJSON *e;

	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(e, v)
			if (check_int_path(e, r, depth, bad) < 0)
				return -1;
		return 0;
	}
	if (depth < 3 && r->path[depth])
		return cJSON_IsObject(v) ?
			       check_int_path(cJSON_GetObjectItemCaseSensitive(
						      v, r->path[depth]),
					      r, depth + 1, bad) :
			       0;
	if (!cJSON_IsNumber(v) || bf_schema_int_ok(v->valuedouble, r->min, r->max))
		return 0;
	*bad = v->valuedouble;
	return -1;
}

/* The first integer rule of rules that rec breaks, or NULL. */
static const struct int_rule *broken_int_rule(const cJSON *rec,
					      const struct int_rule *rules,
					      double *bad)
{
	for (const struct int_rule *r = rules; r && r->path[0]; r++)
		if (check_int_path(rec, r, 0, bad) < 0)
			return r;
	return NULL;
}

/*
 * Timed samples: every element of these arrays is one measured time, a
 * finite number of milliseconds above 0 (bf_schema_time_ok), as the agent
 * writes them. Anything else, null (how cJSON writes NaN and infinity),
 * 0, a negative, 1e400 (which reads as infinity), makes the record
 * malformed, so that no reader turns it into a speed (2 n^3 / 0 ms) or a
 * median. An absent key, or one of another JSON type, is left to the
 * decoder, which reads it as absent.
 */
static const char *const gemm_times[] = { BF_KEY_SAMPLES_MS, NULL };
static const char *const bandwidth_times[] = { BF_KEY_SAMPLES_MS, NULL };
static const char *const batching_times[] = { BF_KEY_SINGLE_SAMPLES_MS,
					      BF_KEY_BATCH_SAMPLES_MS, NULL };

static const char *const *const times_by_type[BF_REC__COUNT] = {
	[BF_REC_GEMM] = gemm_times,
	[BF_REC_BANDWIDTH] = bandwidth_times,
	[BF_REC_BATCHING] = batching_times,
};

int bf_schema_time_ok(double ms)
{
	return isfinite(ms) && ms > 0;
}

/* Checks the sample arrays of rec (keys, may be NULL). Returns 0, or -1
 * with the first bad element described in detail. */
static int check_times(const cJSON *rec, enum bf_record_type type,
		       const char *const *keys, char *detail, size_t detail_len)
{
	for (; keys && *keys; keys++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, *keys);
		const cJSON *e;
		int i = 0;

		if (!cJSON_IsArray(arr))
			continue;
		cJSON_ArrayForEach(e, arr) {
			if (cJSON_IsNumber(e) &&
			    bf_schema_time_ok(e->valuedouble)) {
				i++;
				continue;
			}
			if (cJSON_IsNumber(e))
				bf_fail(detail, detail_len, BF_ERR_SCHEMA,
					"%s record: field \"%s\"[%d] is %.17g: expected a time above 0 ms",
					type_names[type], *keys, i,
					e->valuedouble);
			else
				bf_fail(detail, detail_len, BF_ERR_SCHEMA,
					"%s record: field \"%s\"[%d] is %s: expected a time above 0 ms",
					type_names[type], *keys, i,
					cJSON_IsNull(e) ? "null" :
							  "not a number");
			return -1;
		}
	}
	return 0;
}

/*
 * Samples per timed iteration: a record's every timed iteration is one
 * sample (docs/schema.md), so a sample array with another count than
 * the record's iters is malformed; one with fewer would be a median of
 * what the agent did not run, or of what was lost on the way. Checked
 * when both are there: which one a record must carry is the field
 * rules' to say.
 */
static const char *const *const counted_by_type[BF_REC__COUNT] = {
	[BF_REC_GEMM] = gemm_times,
	[BF_REC_BANDWIDTH] = bandwidth_times,
	[BF_REC_BATCHING] = batching_times,
};

/* 0, or -1 with the first array of keys whose length is not rec's iters
 * described in detail. */
static int check_sample_counts(const cJSON *rec, enum bf_record_type type,
			       const char *const *keys, char *detail,
			       size_t detail_len)
{
	const cJSON *iters = cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_ITERS);

	if (!cJSON_IsNumber(iters))
		return 0;
	for (; keys && *keys; keys++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(rec, *keys);
		int n = cJSON_GetArraySize(arr);

		if (!cJSON_IsArray(arr) || n == iters->valuedouble)
			continue;
		bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			"%s record: field \"%s\" holds %d sample%s: expected %.17g, one per timed iteration (\"%s\")",
			type_names[type], *keys, n, n == 1 ? "" : "s",
			iters->valuedouble, BF_KEY_ITERS);
		return -1;
	}
	return 0;
}

static int kind_matches(const cJSON *v, int kinds)
{
	if (kinds & F_ANY)
		return 1;
	if ((kinds & F_NULLABLE) && cJSON_IsNull(v))
		return 1;
	return ((kinds & F_STRING) && cJSON_IsString(v)) ||
	       ((kinds & F_NUMBER) && cJSON_IsNumber(v)) ||
	       ((kinds & F_OBJECT) && cJSON_IsObject(v)) ||
	       ((kinds & F_ARRAY) && cJSON_IsArray(v)) ||
	       ((kinds & F_BOOL) && cJSON_IsBool(v));
}

enum bf_err bf_schema_parse_record(const char *line, size_t len, cJSON **out,
				enum bf_record_type *type, char *detail,
				size_t detail_len)
{
	const cJSON *v;
	const struct field_rule *r;
	enum bf_status st;
	cJSON *rec;

	*out = NULL;
	if (len > BF_RECORD_MAX_BYTES)
		return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			       "record too long: %zu bytes, limit %u", len,
			       BF_RECORD_MAX_BYTES);
	/* require_null_terminated: "127.0.0.1 x" must not parse as 127.0. */
	if (line[len] != '\0')
		return bf_fail(detail, detail_len, BF_ERR_PARSE,
			       "record line is not NUL-terminated");
	/* The length includes the NUL, which cJSON requires to see. */
	rec = cJSON_ParseWithLengthOpts(line, len + 1, NULL, 1);
	if (!rec)
		return bf_fail(detail, detail_len, BF_ERR_PARSE,
			       "not a JSON value");
	if (!cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			       "record is not a JSON object");
	}
	v = cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_SCHEMA);
	if (!cJSON_IsNumber(v) || v->valuedouble != BF_SCHEMA_VERSION) {
		cJSON_Delete(rec);
		return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			       "schema version missing or not %d",
			       BF_SCHEMA_VERSION);
	}
	v = cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_TYPE);
	if (!cJSON_IsString(v) || bf_schema_type_parse(v->valuestring, type) < 0) {
		cJSON_Delete(rec);
		return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			       "record type missing or unknown");
	}
	for (r = rules_by_type[*type]; r->key; r++) {
		v = cJSON_GetObjectItemCaseSensitive(rec, r->key);
		if (!v || !kind_matches(v, r->kinds)) {
			cJSON_Delete(rec);
			return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
				       "%s record: field \"%s\" %s",
				       type_names[*type], r->key,
				       v ? "has the wrong type" : "is missing");
		}
	}
	{
		const struct int_rule *ir;
		double bad = 0;

		ir = broken_int_rule(rec, envelope_ints, &bad);
		if (!ir)
			ir = broken_int_rule(rec, ints_by_type[*type], &bad);
		if (ir) {
			cJSON_Delete(rec);
			return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
				       "%s record: field \"%s%s%s%s%s\" is %.17g: expected an integer from %.17g to %.17g",
				       type_names[*type], ir->path[0],
				       ir->path[1] ? "." : "",
				       ir->path[1] ? ir->path[1] : "",
				       ir->path[2] ? "." : "",
				       ir->path[2] ? ir->path[2] : "", bad,
				       ir->min, ir->max);
		}
	}
	if (check_times(rec, *type, times_by_type[*type], detail, detail_len) ||
	    check_sample_counts(rec, *type, counted_by_type[*type], detail,
				detail_len)) {
		cJSON_Delete(rec);
		return BF_ERR_SCHEMA;
	}
	v = cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_STATUS);
	if (v && (!cJSON_IsString(v) ||
		  bf_schema_status_parse(v->valuestring, &st) < 0)) {
		cJSON_Delete(rec);
		return bf_fail(detail, detail_len, BF_ERR_SCHEMA,
			       "%s record: unknown status", type_names[*type]);
	}
	*out = rec;
	return BF_OK;
}
