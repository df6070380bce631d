/* Record emission; see report.h. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "xmalloc.h"

cJSON *report_record(struct report *r, enum bf_record_type type)
{
	cJSON *rec = cJSON_CreateObject();

	if (!rec) /* cJSON reports allocation failure as NULL */
		bf_xmalloc_fatal("cJSON_CreateObject failed");
	cJSON_AddNumberToObject(rec, BF_KEY_SCHEMA, BF_SCHEMA_VERSION);
	cJSON_AddStringToObject(rec, BF_KEY_TYPE, bf_schema_type_name(type));
	cJSON_AddNumberToObject(rec, BF_KEY_SEQ, r->seq++);
	return rec;
}

static void count(struct report *r, const cJSON *rec)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_TYPE);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(rec, BF_KEY_STATUS);
	enum bf_status s;

	if (!cJSON_IsString(type) || !cJSON_IsString(st) ||
	    bf_schema_status_parse(st->valuestring, &s) < 0)
		return;
	if (strcmp(type->valuestring, BF_TYPE_CHECK) == 0)
		r->checks[s]++;
	else if (strcmp(type->valuestring, BF_TYPE_GEMM) == 0)
		r->gemms[s]++;
}

void report_emit(struct report *r, cJSON *rec)
{
	count(r, rec);
	if (r->human) {
		human_print(r->out, rec);
	} else {
		char *line = cJSON_PrintUnformatted(rec);

		if (!line)
			bf_xmalloc_fatal("cJSON_PrintUnformatted failed");
		fputs(line, r->out);
		fputc('\n', r->out);
		free(line);
	}
	fflush(r->out);
	cJSON_Delete(rec);
}

void report_check(struct report *r, const char *name, const char *device,
		  cJSON *expected, cJSON *got, enum bf_status status,
		  const char *reason, cJSON *metrics)
{
	cJSON *rec = report_record(r, BF_REC_CHECK);

	cJSON_AddStringToObject(rec, BF_KEY_NAME, name);
	cJSON_AddStringToObject(rec, BF_KEY_DEVICE, device);
	cJSON_AddStringToObject(rec, BF_KEY_STATUS, bf_schema_status_name(status));
	cJSON_AddItemToObject(rec, BF_KEY_EXPECTED,
			      expected ? expected : cJSON_CreateNull());
	cJSON_AddItemToObject(rec, BF_KEY_GOT, got ? got : cJSON_CreateNull());
	if (reason)
		cJSON_AddStringToObject(rec, BF_KEY_REASON, reason);
	else
		cJSON_AddNullToObject(rec, BF_KEY_REASON);
	if (metrics)
		cJSON_AddItemToObject(rec, BF_KEY_METRICS, metrics);
	report_emit(r, rec);
}
