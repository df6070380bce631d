/* Record emission; see report.h. */
#include "core/report.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "record.h"
#include "xmalloc.h"

/* The counts the summary reports, by the record's status. */
static void count(struct report *r, const struct bf_record *rec)
{
	int *counts = NULL;
	enum bf_status s = BF_STATUS_PASS;

	switch (rec->type) {
	case BF_REC_CHECK:
		counts = r->checks;
		s = rec->u.check.status;
		break;
	case BF_REC_GEMM:
		counts = r->gemms;
		s = rec->u.gemm.status;
		break;
	case BF_REC_BANDWIDTH:
		counts = r->bandwidths;
		s = rec->u.bandwidth.status;
		break;
	case BF_REC_BATCHING:
		counts = r->batchings;
		s = rec->u.batching.status;
		break;
	default:
		break;
	}
	if (counts && (int)s >= 0 && (int)s < 3)
		counts[s]++;
}

void report_emit_record(struct report *r, struct bf_record *rec)
{
	cJSON *json;

	rec->seq = r->seq++;
	count(r, rec);
	json = bf_record_encode(rec);
	if (!json) { /* a type outside enum bf_record_type: a bug */
		fprintf(stderr, "agent: record type %d has no encoding\n",
			(int)rec->type);
		abort();
	}
	if (r->human) {
		human_print(r->out, rec);
	} else {
		char *line;

		/* Every double reads back bit for bit (docs/schema.md). */
		bf_json_exact_numbers(json);
		line = cJSON_PrintUnformatted(json);
		if (!line)
			bf_xmalloc_fatal("cJSON_PrintUnformatted failed");
		fputs(line, r->out);
		fputc('\n', r->out);
		free(line);
	}
	fflush(r->out);
	cJSON_Delete(json);
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
