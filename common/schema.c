/*
 * Record names and the reader-side validation of agent output: the
 * envelope (schema version, type), then docs/schema.json itself
 * (schema_json.c: every field's JSON type, range and enum, the keys each
 * type and status requires), so the reader and the JSON Schema are one
 * set of rules; here only what that cannot say: timed samples as times
 * (in their own words) and samples per iteration, which join two fields.
 */
#include "schema.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "schema_json.h"

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

int bf_schema_int_ok(double v, double min, double max)
{
	/* NaN fails every comparison; floor() of an in-range value is exact. */
	return v >= min && v <= max && v == floor(v);
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
	const cJSON *iters =
		cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_ITERS);

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

enum bf_err bf_schema_parse_record(const char *line, size_t len, cJSON **out,
				enum bf_record_type *type, char *detail,
				size_t detail_len)
{
	const cJSON *v;
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
	/* The times first, in their own words; the counts last, once iters
	 * is known to be an integer in its range. */
	if (check_times(rec, *type, times_by_type[*type], detail, detail_len) ||
	    bf_schema_json_check(rec, type_names[*type], line, len, detail,
				 detail_len) != 0 ||
	    check_sample_counts(rec, *type, counted_by_type[*type], detail,
				detail_len)) {
		cJSON_Delete(rec);
		return BF_ERR_SCHEMA;
	}
	*out = rec;
	return BF_OK;
}
