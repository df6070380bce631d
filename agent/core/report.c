/* Record emission; see report.h. */
#include "core/report.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "record.h"
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
	else if (strcmp(type->valuestring, BF_TYPE_BANDWIDTH) == 0)
		r->bandwidths[s]++;
	else if (strcmp(type->valuestring, BF_TYPE_BATCHING) == 0)
		r->batchings[s]++;
}

void report_emit(struct report *r, cJSON *rec)
{
	count(r, rec);
	if (r->human) {
		human_print(r->out, rec);
	} else {
		char *line;

		/* Every double reads back bit for bit (docs/schema.md). */
		bf_json_exact_numbers(rec);
		line = cJSON_PrintUnformatted(rec);

		if (!line)
			bf_xmalloc_fatal("cJSON_PrintUnformatted failed");
		fputs(line, r->out);
		fputc('\n', r->out);
		free(line);
	}
	fflush(r->out);
	cJSON_Delete(rec);
}

void report_emit_record(struct report *r, struct bf_record *rec)
{
	rec->seq = r->seq++;
	report_emit(r, bf_record_encode(rec));
}

void report_check(struct report *r, const char *name, const char *device,
		  cJSON *expected, cJSON *got, enum bf_status status,
		  const char *reason,
		  const struct bf_rec_transfer_metrics *metrics)
{
	struct bf_record rec;
	struct bf_rec_check *c = &rec.u.check;

	bf_record_init(&rec, BF_REC_CHECK);
	c->name = bf_xstrdup(name);
	c->device = bf_xstrdup(device);
	c->status = status;
	c->expected = expected;
	c->got = got;
	c->reason = reason ? bf_xstrdup(reason) : NULL;
	if (metrics) {
		c->has_metrics = 1;
		c->metrics = *metrics;
	}
	report_emit_record(r, &rec);
	bf_record_free(&rec);
}
